// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How the threads waiting on an rsocket hear that it changed: those in
 * rsocket calls wait on its condition variable for the one thread asleep
 * on its channels, and each rpoll() asleep on it (rsocket_poll.c), and a
 * datagram rsocket's one waiter, has an eventfd on its list of sleepers.
 */
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket.h"

/*
 * With @rs locked: @s, about to sleep, is written to when @rs changes,
 * until rs_sleeper_remove(); a sleeper without an eventfd is not listed.
 */
void rs_sleeper_add(struct rsock *rs, struct rs_sleeper *s)
{
	s->woken = false;
	if (s->fd < 0)
		return;
	s->next = rs->sleepers;
	rs->sleepers = s;
}

/* With @rs locked: @s off the list; whether it was written to. */
bool rs_sleeper_remove(struct rsock *rs, struct rs_sleeper *s)
{
	struct rs_sleeper **link;

	for (link = &rs->sleepers; *link; link = &(*link)->next) {
		if (*link == s) {
			*link = s->next;
			break;
		}
	}
	return s->woken;
}

/*
 * With @rs locked: whatever sleeps on @rs (in rpoll(), or a datagram
 * rsocket's waiter) looks again. Whoever takes in an event of @rs's
 * channels calls it, since the channel no longer wakes the sleepers.
 */
void rs_wake_sleepers(struct rsock *rs)
{
	struct rs_sleeper *s;

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
