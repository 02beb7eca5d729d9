/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Threads against an rsocket, for the rsocket tests: one cancelled while
 * it sleeps in a blocking rrecv() or rpoll() (both cancellation points, as
 * recv(2) and poll(2) are: the rsocket must be left as it was, its locks
 * free, its waiter's place open, what the sleep borrowed given back), and
 * one spinning rpoll(0), which takes in whatever comes.
 */
#ifndef RS_THREADS_H
#define RS_THREADS_H

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

struct rs_cancelled {
	int fd;
	bool poll;
};

static void *rs_sleep_until_cancelled(void *arg)
{
	struct rs_cancelled *c = arg;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	char buf[16];

	if (c->poll)
		rpoll(&pfd, 1, -1);
	else
		rrecv(c->fd, buf, sizeof(buf), 0);
	return NULL;
}

/*
 * Puts @c to sleep in a thread and cancels it there: 0 once the thread
 * ended cancelled, ETIMEDOUT if it did not end within @ms, EPROTO if its
 * call returned instead.
 */
static __attribute__((unused)) int rs_cancel_sleeper(struct rs_cancelled *c,
						      int ms)
{
	struct timespec until;
	pthread_t thread;
	void *result;

	if (pthread_create(&thread, NULL, rs_sleep_until_cancelled, c))
		return errno;
	/* let it fall asleep first */
	usleep(300000);
	pthread_cancel(thread);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	if (pthread_timedjoin_np(thread, &result, &until)) {
		/* left asleep: the rsocket's close in the test ends it */
		pthread_detach(thread);
		return ETIMEDOUT;
	}
	return result == PTHREAD_CANCELED ? 0 : EPROTO;
}

struct rs_spinner {
	pthread_t thread;
	int fd;
	volatile bool stop;
};

/* rpoll(0) over and over until @arg's stop. */
static __attribute__((unused)) void *rs_spin_rpoll(void *arg)
{
	struct rs_spinner *s = arg;
	struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };

	while (!s->stop)
		rpoll(&pfd, 1, 0);
	return NULL;
}

/* The eventfds this process has open. */
static __attribute__((unused)) int rs_count_eventfds(void)
{
	char target[64];
	struct dirent *e;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;
	ssize_t len;

	if (!dir)
		return -1;
	while ((e = readdir(dir))) {
		len = readlinkat(dirfd(dir), e->d_name, target,
				 sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strcmp(target, "anon_inode:[eventfd]"))
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * A reader of @fd, then a poller, each cancelled asleep, after one sleep
 * of rpoll() (which leaves the rsocket an eventfd, its spare); the
 * eventfds open before them in @eventfds. NULL, or what went wrong.
 */
static __attribute__((unused)) const char *
rs_cancel_reader_then_poller(int fd, int ms, int *eventfds)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_cancelled reader, poller;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (rpoll(&pfd, 1, 10))
		return "rpoll found something, or failed";
	*eventfds = rs_count_eventfds();
	reader.fd = poller.fd = fd;
	reader.poll = false;
	poller.poll = true;
	if (rs_cancel_sleeper(&reader, ms))
		return "rrecv not cancelled";
	if (rs_cancel_sleeper(&poller, ms))
		return "rpoll not cancelled";
	return NULL;
}

/* The eventfds open once they fall below @before, or after 2 s. */
static __attribute__((unused)) int rs_eventfds_below(int before)
{
	int waited, n = rs_count_eventfds();

	for (waited = 0; n >= before && waited < 2000; waited += 50) {
		usleep(50000);
		n = rs_count_eventfds();
	}
	return n;
}

#endif
