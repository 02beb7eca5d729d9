// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_poll_cq(3) of several CQs by several threads at once, on busy-polled
 * CQs (polled with an ioctl, or read from mapped rings): every completion
 * is taken by exactly one thread, none is lost or seen twice, also while
 * the rings go round (1024 completions each, rings of 512), and the
 * flushes of a disconnect come through the same way.
 */
#include <pthread.h>
#include <sched.h>

#include "verbs_test.h"
#include "kselftest_harness.h"

#define THREADS		3
#define ROUNDS		64
#define PER_ROUND	16
#define MSG		32
#define BUF_LEN		(PER_ROUND * MSG * 2)
#define TOTAL		(ROUNDS * PER_ROUND)

struct poll_shared {
	struct ibv_cq *cq[2];
	/* completions seen per wr_id: sends on the client, receives on the server */
	int sends[TOTAL];
	int recvs[TOTAL];
	int flushed;
	int bad;
	volatile int stop;
	pthread_mutex_t lock;
};

static void *poller(void *arg)
{
	struct poll_shared *s = arg;
	struct ibv_wc wc[3];
	int which = 0, n, i;

	while (!s->stop) {
		which = !which;
		n = ibv_poll_cq(s->cq[which], 3, wc);
		if (n < 0) {
			s->bad = 1;
			continue;
		}
		/* a guest may have fewer CPUs than pollers */
		if (!n) {
			sched_yield();
			continue;
		}
		pthread_mutex_lock(&s->lock);
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR) {
				s->flushed++;
			} else if (wc[i].status != IBV_WC_SUCCESS ||
				   wc[i].wr_id >= TOTAL) {
				s->bad = 1;
			} else if (wc[i].opcode == IBV_WC_SEND) {
				s->sends[wc[i].wr_id]++;
			} else if (wc[i].opcode == IBV_WC_RECV) {
				s->recvs[wc[i].wr_id]++;
			} else {
				s->bad = 1;
			}
		}
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

/* Waits until the threads have seen @n sends and @n receives in all. */
static int wait_seen(struct poll_shared *s, int n)
{
	int tries, i, sends, recvs;

	for (tries = 0; tries < CM_TIMEOUT_MS; tries++) {
		sends = recvs = 0;
		pthread_mutex_lock(&s->lock);
		for (i = 0; i < TOTAL; i++) {
			sends += s->sends[i];
			recvs += s->recvs[i];
		}
		pthread_mutex_unlock(&s->lock);
		if (sends >= n && recvs >= n)
			return 0;
		cm_sleep_ms(1);
	}
	return -1;
}

static void threads_poll_two_cqs(struct __test_metadata *_metadata)
{
	struct poll_shared *s = calloc(1, sizeof(*s));
	pthread_t t[THREADS];
	struct vt_pair p;
	int r, i;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, vt_pair_connect_rc(&p, BUF_LEN, VT_BUSY_POLL));
	pthread_mutex_init(&s->lock, NULL);
	s->cq[0] = p.c.cq;
	s->cq[1] = p.s.cq;
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, poller, s));

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < PER_ROUND; i++)
			ASSERT_EQ(0, vt_post_recv(&p.s, r * PER_ROUND + i,
						  i * MSG, MSG));
		for (i = 0; i < PER_ROUND; i++)
			ASSERT_EQ(0, vt_post_send(&p.c, IBV_WR_SEND,
						  r * PER_ROUND + i,
						  BUF_LEN / 2 + i * MSG, MSG,
						  0, 0, 0, 0));
		ASSERT_EQ(0, wait_seen(s, (r + 1) * PER_ROUND));
	}
	/* receives left posted on the client flush when it disconnects */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, vt_post_recv(&p.c, TOTAL + i, i * MSG, MSG));
	ASSERT_EQ(0, vt_pair_disconnect(&p));
	for (i = 0; i < CM_TIMEOUT_MS && s->flushed < 5; i++)
		cm_sleep_ms(1);
	cm_sleep_ms(CM_QUIET_MS);
	s->stop = 1;
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);

	EXPECT_EQ(0, s->bad);
	EXPECT_EQ(5, s->flushed);
	for (i = 0; i < TOTAL; i++) {
		EXPECT_EQ(1, s->sends[i]);
		EXPECT_EQ(1, s->recvs[i]);
	}
	EXPECT_EQ(0, vt_pair_close(&p));
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* librdmachan polls each CQ with an ioctl by default */
TEST(ioctl_polled_cqs)
{
	unsetenv("RDMACHAN_CQ_RING");
	threads_poll_two_cqs(_metadata);
}

/* and reads them from mapped rings when asked (stock: the same calls) */
TEST(ring_cqs)
{
	setenv("RDMACHAN_CQ_RING", "1", 1);
	threads_poll_two_cqs(_metadata);
}

TEST_HARNESS_MAIN
