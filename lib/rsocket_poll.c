// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rpoll() and rselect() over rsockets and ordinary descriptors together.
 * An rsocket is ready by its own state (data read, send space, the end of
 * the stream); to sleep, rpoll() arms each rsocket's CQ and polls its
 * completion and CM channels beside the ordinary descriptors, and an
 * eventfd of its own: another thread that takes in one of those channels'
 * events (a blocking rrecv() reads the completion channel) would leave the
 * sleeper asleep, so it writes to the eventfd of every sleeper instead.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <time.h>

#include "internal.h"
#include "rsocket_dgram.h"

/* What @rs offers of @events now, after taking what has arrived. */
static short rs_revents(struct rsock *rs, short events)
{
	short revents = 0;

	pthread_mutex_lock(&rs->lock);
	if (rs->dg) {
		rs_dg_progress(rs, true);
		if (rs_dg_readable(rs))
			revents |= events & POLLIN;
		if (rs_dg_writable(rs))
			revents |= events & POLLOUT;
		pthread_mutex_unlock(&rs->lock);
		return revents;
	}
	if (rs->phase >= RS_RESOLVING_ADDR && rs->phase <= RS_CONNECTING)
		rs_connect_step(rs);
	switch (rs->phase) {
	case RS_LISTENING: {
		struct pollfd pfd = { .fd = rs->fd, .events = POLLIN };

		if (poll(&pfd, 1, 0) > 0)
			revents = events & POLLIN;
		break;
	}
	case RS_CONNECTED:
	case RS_DISCONNECTED:
		rs_poll_completions(rs);
		rs_take_cm_events(rs);
		rs_update_credits(rs);
		if (rs_readable_now(rs))
			revents |= events & POLLIN;
		if (rs_can_send(rs))
			revents |= events & POLLOUT;
		/* the hang-up once what arrived before it is read: programs
		 * (rstream) take POLLHUP for an error */
		if (rs->phase == RS_DISCONNECTED && rs->rmsg_head == rs->rmsg_tail)
			revents |= POLLHUP;
		break;
	case RS_CONNECT_FAILED:
		revents = (events & (POLLIN | POLLOUT)) | POLLERR;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	return revents;
}

/*
 * Arms @rs for a sleep: its channels, its CQ's next completion, and
 * @sleeper (whose fd, when there is one, wakes the sleep) on its list.
 */
static int rs_arm(struct rsock *rs, struct pollfd *pfd,
		  struct rs_sleeper *sleeper)
{
	int n = 0;

	pthread_mutex_lock(&rs->lock);
	rs_sleeper_add(rs, sleeper);
	if (rs->dg) {
		/* the UDP socket and every CQ (armed for good) in one */
		pfd[0].fd = rs->dg->epfd;
		pfd[0].events = POLLIN;
		pthread_mutex_unlock(&rs->lock);
		return 1;
	}
	pfd[n].fd = rs->fd;
	pfd[n++].events = POLLIN;
	if (rs->cq && (rs->phase == RS_CONNECTED || rs->phase == RS_DISCONNECTED)) {
		if (!rs->cq_armed) {
			ibv_req_notify_cq(rs->cq, 0);
			rs->cq_armed = true;
		}
		pfd[n].fd = rs->comp->fd;
		pfd[n++].events = POLLIN;
	}
	pthread_mutex_unlock(&rs->lock);
	return n;
}

/*
 * After the sleep (or none, when @pfd is NULL): @sleeper off @rs's list,
 * and what the sleep found on @rs's channels (@pfd, @n of them, from
 * rs_arm) taken in. Whether another thread wrote to @sleeper's fd.
 */
static bool rs_woken(struct rsock *rs, const struct pollfd *pfd, int n,
		     struct rs_sleeper *sleeper)
{
	bool woken;

	pthread_mutex_lock(&rs->lock);
	woken = rs_sleeper_remove(rs, sleeper);
	if (pfd && rs->dg) {
		rs_dg_take_cq_events(rs);
	} else if (pfd) {
		if (pfd[0].revents & POLLIN)
			rs->cm_pending = true;
		if (n > 1 && (pfd[1].revents & POLLIN))
			rs_take_cq_event(rs);
	}
	pthread_mutex_unlock(&rs->lock);
	return woken;
}

/* One look at every descriptor, without sleeping: the number ready. */
static int rs_check(struct pollfd *fds, nfds_t nfds, struct rsock **socks)
{
	int ready = 0, ret;
	nfds_t i;

	for (i = 0; i < nfds; i++) {
		fds[i].revents = 0;
		if (socks[i])
			fds[i].revents = rs_revents(socks[i], fds[i].events);
	}
	for (i = 0; i < nfds; i++) {
		if (socks[i] || fds[i].fd < 0)
			continue;
		ret = poll(&fds[i], 1, 0);
		if (ret < 0)
			return -1;
	}
	for (i = 0; i < nfds; i++)
		if (fds[i].revents)
			ready++;
	return ready;
}

static int rs_ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int)((now.tv_sec - start->tv_sec) * 1000 +
		     (now.tv_nsec - start->tv_nsec) / 1000000);
}

/* rpoll()s of this many descriptors or fewer allocate nothing */
#define RS_POLL_ON_STACK	8

/* One rpoll() call: its descriptors, what it holds and sleeps with. */
struct rs_poll_call {
	struct pollfd *fds;
	nfds_t nfds;
	/* per descriptor: its rsocket, held until the call ends; or NULL */
	struct rsock **socks;
	nfds_t held;
	/* every channel of every rsocket, ordinary descriptors, the eventfd */
	struct pollfd *pfd;
	/* per rsocket: where its channels are in @pfd, and how many */
	int *armed;
	/* per rsocket: the call on its list of sleepers */
	struct rs_sleeper *sleepers;
	/* the eventfd other threads wake the call with; -1 for none yet */
	int wake_fd;
	/* the rsocket whose spare @wake_fd is, to go back to */
	struct rsock *wake_owner;
	bool allocated;
};

/*
 * After a sleep (@slept: poll() returned): each rsocket's sleeper off its
 * list and what the sleep found on its channels taken in, and the eventfd
 * back to zero for the next sleep, since no one writes to it now.
 */
static void rs_unarm(struct rs_poll_call *call, bool slept)
{
	bool woken = false;
	eventfd_t count;
	nfds_t i;

	for (i = 0; i < call->nfds; i++) {
		if (!call->socks[i])
			continue;
		if (rs_woken(call->socks[i],
			     slept ? &call->pfd[call->armed[2 * i]] : NULL,
			     call->armed[2 * i + 1], &call->sleepers[i]))
			woken = true;
	}
	if (woken)
		eventfd_read(call->wake_fd, &count);
}

/* Cleanup handler of a thread cancelled in rs_sleep()'s poll(). */
static void rs_sleep_cancelled(void *call)
{
	rs_unarm(call, false);
}

/* Sleeps until something of the call's may have changed, or @left_ms passes. */
static int rs_sleep(struct rs_poll_call *call, int left_ms)
{
	struct rsock **socks = call->socks;
	bool slept, cancellable;
	nfds_t i, n = 0;
	int ret;

	/* without an eventfd (none left) the sleep is as it was before */
	for (i = 0; call->wake_fd < 0 && i < call->nfds; i++) {
		if (socks[i]) {
			call->wake_owner = socks[i];
			call->wake_fd = rs_wake_fd_take(socks[i]);
			break;
		}
	}
	call->pfd[n].fd = call->wake_fd;
	call->pfd[n++].events = POLLIN;
	for (i = 0; i < call->nfds; i++) {
		if (socks[i]) {
			call->sleepers[i].fd = call->wake_fd;
			call->armed[2 * i] = (int)n;
			call->armed[2 * i + 1] = rs_arm(socks[i], &call->pfd[n],
							&call->sleepers[i]);
			n += (nfds_t)call->armed[2 * i + 1];
		} else {
			call->pfd[n] = call->fds[i];
			call->pfd[n++].revents = 0;
		}
	}
	/* what arrived while arming raises no event: look again first */
	ret = rs_check(call->fds, call->nfds, socks);
	slept = !ret;
	if (slept) {
		pthread_cleanup_push(rs_sleep_cancelled, call);
		cancellable = rs_sleep_cancellable_begin();
		ret = poll(call->pfd, n, left_ms);
		rs_sleep_cancellable_end(cancellable);
		pthread_cleanup_pop(0);
		slept = ret >= 0;
	}
	rs_unarm(call, slept);
	return slept ? rs_check(call->fds, call->nfds, socks) : ret;
}

/* The end of an rpoll() call, returned from or cancelled; errno kept. */
static void rs_poll_end(void *arg)
{
	struct rs_poll_call *call = arg;
	int err = errno;
	nfds_t i;

	if (call->wake_fd >= 0)
		rs_wake_fd_give(call->wake_owner, call->wake_fd);
	for (i = 0; i < call->held; i++)
		rs_put(call->socks[i]);
	if (call->allocated) {
		free(call->socks);
		free(call->pfd);
		free(call->armed);
		free(call->sleepers);
	}
	errno = err;
}

/* What @call waits for: the number of its descriptors ready, or -1. */
static int rs_poll_wait(struct rs_poll_call *call, int timeout)
{
	struct timespec start;
	uint64_t spin_end;
	bool any = false, cancellable;
	int ready;

	/* held until rpoll() returns, whoever rclose()s them meanwhile */
	for (call->held = 0; call->held < call->nfds; call->held++) {
		call->socks[call->held] = rs_get(call->fds[call->held].fd);
		any = any || call->socks[call->held];
	}
	if (!any) {
		cancellable = rs_sleep_cancellable_begin();
		ready = poll(call->fds, call->nfds, timeout);
		rs_sleep_cancellable_end(cancellable);
		return ready;
	}
	ready = rs_check(call->fds, call->nfds, call->socks);
	if (ready || !timeout)
		return ready;
	/* as a wait of one rsocket: poll the CQs a moment before sleeping */
	spin_end = rs_now_us() + RS_SPIN_US;
	while (!ready && rs_now_us() < spin_end)
		ready = rs_check(call->fds, call->nfds, call->socks);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ready) {
		int left = -1;

		if (timeout >= 0) {
			left = timeout - rs_ms_since(&start);
			if (left <= 0)
				break;
		}
		ready = rs_sleep(call, left);
	}
	return ready;
}

RDMACHAN_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	RS_CANCEL_OFF(true);
	struct rsock *socks_on_stack[RS_POLL_ON_STACK];
	struct pollfd pfd_on_stack[2 * RS_POLL_ON_STACK + 1];
	int armed_on_stack[2 * RS_POLL_ON_STACK];
	struct rs_sleeper sleepers_on_stack[RS_POLL_ON_STACK];
	struct rs_poll_call call = {
		.fds = fds, .nfds = nfds, .socks = socks_on_stack,
		.pfd = pfd_on_stack, .armed = armed_on_stack,
		.sleepers = sleepers_on_stack, .wake_fd = -1,
	};
	int ready = -1;

	if (nfds && !fds)
		return rs_err(EFAULT);
	if (nfds > RS_POLL_ON_STACK) {
		call.allocated = true;
		call.socks = calloc(nfds, sizeof(*call.socks));
		call.pfd = calloc(nfds * 2 + 1, sizeof(*call.pfd));
		call.armed = calloc(nfds * 2, sizeof(*call.armed));
		call.sleepers = calloc(nfds, sizeof(*call.sleepers));
		if (!call.socks || !call.pfd || !call.armed || !call.sleepers) {
			rs_poll_end(&call);
			return rs_err(ENOMEM);
		}
	}
	pthread_cleanup_push(rs_poll_end, &call);
	ready = rs_poll_wait(&call, timeout);
	pthread_cleanup_pop(1);
	return ready;
}

RDMACHAN_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds,
			    fd_set *exceptfds, struct timeval *timeout)
{
	RS_CANCEL_OFF(true);
	struct pollfd *fds;
	int i, n = 0, ret, ms = -1;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return rs_err(EINVAL);
	if (timeout)
		ms = (int)(timeout->tv_sec * 1000 + timeout->tv_usec / 1000);
	fds = calloc(nfds ? nfds : 1, sizeof(*fds));
	if (!fds)
		return rs_err(ENOMEM);
	for (i = 0; i < nfds; i++) {
		short events = 0;

		if (readfds && FD_ISSET(i, readfds))
			events |= POLLIN;
		if (writefds && FD_ISSET(i, writefds))
			events |= POLLOUT;
		if (exceptfds && FD_ISSET(i, exceptfds))
			events |= POLLPRI;
		if (!events)
			continue;
		fds[n].fd = i;
		fds[n++].events = events;
	}
	pthread_cleanup_push(free, fds);
	ret = rpoll(fds, (nfds_t)n, ms);
	pthread_cleanup_pop(0);
	if (ret < 0) {
		free(fds);
		return -1;
	}
	if (readfds)
		FD_ZERO(readfds);
	if (writefds)
		FD_ZERO(writefds);
	if (exceptfds)
		FD_ZERO(exceptfds);
	ret = 0;
	for (i = 0; i < n; i++) {
		short r = fds[i].revents;

		if (readfds && (r & (POLLIN | POLLHUP | POLLERR))) {
			FD_SET(fds[i].fd, readfds);
			ret++;
		}
		if (writefds && (r & (POLLOUT | POLLERR))) {
			FD_SET(fds[i].fd, writefds);
			ret++;
		}
		if (exceptfds && (r & POLLPRI)) {
			FD_SET(fds[i].fd, exceptfds);
			ret++;
		}
	}
	free(fds);
	return ret;
}
