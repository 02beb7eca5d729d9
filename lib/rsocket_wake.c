// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How the threads waiting on an rsocket hear that it changed: those in
 * rsocket calls wait on its condition variable for the one thread asleep
 * on its channels, and each thread asleep in poll() on them (rpoll() in
 * rsocket_poll.c, the waiter, a connect) has an eventfd on its list of
 * sleepers.
 */
#include <poll.h>
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

/* With @rs locked: rs_wake_fd_take(). */
static int rs_wake_fd_take_locked(struct rsock *rs)
{
	int fd = rs->spare_wake_fd;

	rs->spare_wake_fd = -1;
	return fd >= 0 ? fd : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* With @rs locked: rs_wake_fd_give(). */
static void rs_wake_fd_give_locked(struct rsock *rs, int fd)
{
	if (rs->spare_wake_fd < 0)
		rs->spare_wake_fd = fd;
	else
		close(fd);
}

/*
 * An eventfd for a sleep on @rs: @rs's spare, kept from an earlier sleep
 * so that a sleep costs no system calls of its own, or a new one; -1 when
 * none can be had.
 */
int rs_wake_fd_take(struct rsock *rs)
{
	int fd;

	pthread_mutex_lock(&rs->lock);
	fd = rs_wake_fd_take_locked(rs);
	pthread_mutex_unlock(&rs->lock);
	return fd;
}

/* @fd (at zero, from rs_wake_fd_take()) back as @rs's spare, or closed. */
void rs_wake_fd_give(struct rsock *rs, int fd)
{
	pthread_mutex_lock(&rs->lock);
	rs_wake_fd_give_locked(rs, fd);
	pthread_mutex_unlock(&rs->lock);
}

/* Cleanup handler of a sleep in pthread_cond_wait(): it relocked @rs. */
static void rs_unlock_cancelled(void *rs)
{
	pthread_mutex_unlock(&((struct rsock *)rs)->lock);
}

/*
 * With @rs locked: waits for the one thread asleep on its channels (the
 * waiter) to tell of progress, or to stop waiting; a cancellation point.
 */
void rs_wait_for_waiter(struct rsock *rs)
{
	uint64_t before = rs->progress;
	bool cancellable;

	pthread_cleanup_push(rs_unlock_cancelled, rs);
	cancellable = rs_sleep_cancellable_begin();
	while (rs->waiting && rs->progress == before)
		pthread_cond_wait(&rs->progressed, &rs->lock);
	rs_sleep_cancellable_end(cancellable);
	pthread_cleanup_pop(0);
}

/* One sleep of rs_poll_unlocked(). */
struct rs_nap {
	struct rsock *rs;
	struct rs_sleeper self;
	bool waiter;
};

/* With @nap's rsocket locked: the sleep is over. */
static void rs_nap_end(struct rs_nap *nap)
{
	struct rsock *rs = nap->rs;
	eventfd_t count;

	if (nap->waiter)
		rs->waiting = false;
	if (nap->self.fd < 0)
		return;
	if (rs_sleeper_remove(rs, &nap->self))
		eventfd_read(nap->self.fd, &count);
	rs_wake_fd_give_locked(rs, nap->self.fd);
}

/* Cleanup handler of a thread cancelled in rs_poll_unlocked()'s sleep. */
static void rs_nap_cancelled(void *arg)
{
	struct rs_nap *nap = arg;

	pthread_mutex_lock(&nap->rs->lock);
	rs_nap_end(nap);
	/* a waiter's place goes to another thread */
	rs_tell_progress(nap->rs);
	pthread_mutex_unlock(&nap->rs->lock);
}

/*
 * With @rs locked: poll(@pfd, @n, @timeout_ms) with @rs unlocked, woken
 * too by a thread that takes in an event of @rs's channels before the
 * sleep sees it (rs_wake_sleepers()). @pfd has room for one more entry,
 * an eventfd. Returns poll()'s result and errno, @rs locked again.
 */
int rs_poll_unlocked(struct rsock *rs, struct pollfd *pfd, int n,
		     int timeout_ms, unsigned int flags)
{
	struct rs_nap nap = {
		.rs = rs, .waiter = flags & RS_SLEEP_WAITER,
		.self.fd = rs_wake_fd_take_locked(rs),
	};
	bool cancellable;
	int ret, err;

	if (nap.self.fd >= 0) {
		pfd[n].fd = nap.self.fd;
		pfd[n++].events = POLLIN;
	}
	rs_sleeper_add(rs, &nap.self);
	if (nap.waiter)
		rs->waiting = true;
	pthread_mutex_unlock(&rs->lock);
	pthread_cleanup_push(rs_nap_cancelled, &nap);
	cancellable = !(flags & RS_SLEEP_UNCANCELLABLE) &&
		      rs_sleep_cancellable_begin();
	ret = poll(pfd, (nfds_t)n, timeout_ms);
	err = errno;
	rs_sleep_cancellable_end(cancellable);
	pthread_cleanup_pop(0);
	pthread_mutex_lock(&rs->lock);
	rs_nap_end(&nap);
	errno = err;
	return ret;
}
