// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How the threads waiting on an rsocket hear that it changed: those in
 * rsocket calls wait on its condition variable for the one thread asleep
 * on its channels, and each rpoll() asleep on it has an eventfd on its
 * list of sleepers (rsocket_poll.c).
 */
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket.h"

/*
 * With @rs locked: whatever sleeps in rpoll() on @rs, and a datagram
 * rsocket's waiter, looks again. Whoever takes in an event of @rs's
 * channels calls it, since the channel no longer wakes the sleepers.
 */
void rs_wake_sleepers(struct rsock *rs)
{
	struct rs_sleeper *s;

	if (rs->waiting && rs->waiter_wake_fd >= 0)
		eventfd_write(rs->waiter_wake_fd, 1);
	for (s = rs->sleepers; s; s = s->next) {
		if (!s->woken)
			eventfd_write(s->fd, 1);
		s->woken = true;
	}
}

/* With @rs locked: @rs changed; its waiters and rpoll() sleepers look. */
void rs_tell_progress(struct rsock *rs)
{
	rs->progress++;
	pthread_cond_broadcast(&rs->progressed);
	rs_wake_sleepers(rs);
}

/*
 * An eventfd for an rpoll() of @rs to sleep with: @rs's spare, kept from
 * an earlier call so that a sleep costs no system calls of its own, or a
 * new one; -1 when none can be had.
 */
int rs_wake_fd_take(struct rsock *rs)
{
	int fd;

	pthread_mutex_lock(&rs->lock);
	fd = rs->spare_wake_fd;
	rs->spare_wake_fd = -1;
	pthread_mutex_unlock(&rs->lock);
	return fd >= 0 ? fd : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* @fd (at zero, from rs_wake_fd_take()) back as @rs's spare, or closed. */
void rs_wake_fd_give(struct rsock *rs, int fd)
{
	pthread_mutex_lock(&rs->lock);
	if (rs->spare_wake_fd < 0) {
		rs->spare_wake_fd = fd;
		fd = -1;
	}
	pthread_mutex_unlock(&rs->lock);
	if (fd >= 0)
		close(fd);
}
