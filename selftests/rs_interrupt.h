/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A blocking rrecv() in a thread, interrupted by a signal whose handler
 * was installed without SA_RESTART: it must end with EINTR, as recv(2)
 * does, and not sleep on.
 */
#ifndef RS_INTERRUPT_H
#define RS_INTERRUPT_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

struct rs_interrupted {
	int fd;
	ssize_t ret;
	int err;
	volatile bool done;
};

static void rs_ignore_signal(int sig)
{
	(void)sig;
}

static void *rs_interrupted_recv(void *arg)
{
	struct rs_interrupted *r = arg;
	char buf[16];

	r->ret = rrecv(r->fd, buf, sizeof(buf), 0);
	r->err = errno;
	r->done = true;
	return NULL;
}

/*
 * rrecv() of @fd in a thread, signalled every 50 ms (a signal that comes
 * between two of its system calls interrupts nothing) until it returns,
 * for up to @ms: 0 with its result in @r, or ETIMEDOUT.
 */
static __attribute__((unused)) int rs_recv_interrupted(int fd,
							struct rs_interrupted *r,
							int ms)
{
	struct sigaction sa = { .sa_handler = rs_ignore_signal }, old;
	pthread_t thread;
	int waited;

	r->fd = fd;
	r->done = false;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, &old) ||
	    pthread_create(&thread, NULL, rs_interrupted_recv, r))
		return errno;
	/* let it fall asleep first */
	usleep(200000);
	for (waited = 0; !r->done && waited < ms; waited += 50) {
		pthread_kill(thread, SIGUSR1);
		usleep(50000);
	}
	if (!r->done) {
		/* left asleep: the rsocket's close in the test ends it */
		pthread_detach(thread);
		return ETIMEDOUT;
	}
	pthread_join(thread, NULL);
	sigaction(SIGUSR1, &old, NULL);
	return 0;
}

#endif
