// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: time, the seeded random choices, the statistics and the
 * report of a failure to the supervisor.
 */
#include "fuzz.h"

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC + ts.tv_nsec;
}

void sleep_ns(u64 ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC, .tv_nsec = ns % NSEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

u64 splitmix(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

u32 rnd(struct thr *t, u32 n)
{
	return n ? (u32)(splitmix(&t->rng) % n) : 0;
}

u64 rnd64(struct thr *t)
{
	return splitmix(&t->rng);
}

bool chance(struct thr *t, u32 pct)
{
	return rnd(t, 100) < pct;
}

void stat_add(int st, u64 n)
{
	__atomic_fetch_add(&shm->stat[st], n, __ATOMIC_RELAXED);
}

void put_str(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/* Records a failure; safe in a forked child (no locks, no malloc). */
void record_failure(const char *msg)
{
	int i = __atomic_fetch_add(&shm->nfail, 1, __ATOMIC_RELAXED);

	if (i < MAX_FAIL)
		snprintf(shm->fail[i], FAIL_LEN, "%s", msg);
	put_str(2, "rdmachan-fuzz: FAIL: ");
	put_str(2, msg);
	put_str(2, "\n");
}

void dump_ring(struct slot *s, const char *who)
{
	char line[DESC_LEN + 64];
	u32 i, pos = s->ring_pos;

	snprintf(line, sizeof(line), "rdmachan-fuzz:   last calls of %s:\n", who);
	put_str(2, line);
	for (i = pos > RING_LEN ? pos - RING_LEN : 0; i < pos; i++) {
		snprintf(line, sizeof(line), "rdmachan-fuzz:     %s\n",
			 s->ring[i % RING_LEN]);
		put_str(2, line);
	}
}

void fail(struct thr *t, const char *fmt, ...)
{
	char msg[FAIL_LEN], who[64];
	va_list ap;
	int n;

	/* the report and the journal after it take a while to write */
	t->w->ws->reporting_until_ns = now_ns() + 20 * NSEC;
	snprintf(who, sizeof(who), "worker %d gen %d thread %d", t->w->index,
		 t->w->gen, t->idx);
	n = snprintf(msg, sizeof(msg), "seed %#llx %s: ",
		     (unsigned long long)t->w->seed, who);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	record_failure(msg);
	if (shm->nfail <= 4)
		dump_ring(t->slot, who);
}
