// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The event channel as rdma_get_cm_event(3) and rdma_ack_cm_event(3)
 * describe it: a blocking get that wakes on an event, O_NONBLOCK on the
 * channel's fd (EAGAIN), poll and epoll readiness, several threads on one
 * channel (each event to exactly one), rdma_destroy_id blocking until the
 * id's events are acked (also killed while blocked), event data valid
 * until the ack, and rdma_migrate_id(3) between channels.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/wait.h>

#include "cm_test.h"
#include "kselftest_harness.h"

/* Joins @t within @ms: 0, or -1 (the thread is left behind). */
static int join_within(pthread_t t, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(t, NULL, &ts) ? -1 : 0;
}

static int set_nonblock(struct rdma_event_channel *ch, int on)
{
	int flags = fcntl(ch->fd, F_GETFL);

	if (flags < 0)
		return -1;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	return fcntl(ch->fd, F_SETFL, flags);
}

FIXTURE(chan) {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
};

FIXTURE_SETUP(chan)
{
	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
	ASSERT_LE(0, self->ch->fd);
	ASSERT_EQ(0, rdma_create_id(self->ch, &self->id, NULL, RDMA_PS_TCP));
}

FIXTURE_TEARDOWN(chan)
{
	if (!_metadata->passed)
		return;
	if (self->id)
		EXPECT_EQ(0, rdma_destroy_id(self->id));
	rdma_destroy_event_channel(self->ch);
}

struct getter {
	struct rdma_event_channel *ch;
	volatile int returned;
	long when;
	int ret, err;
	struct rdma_cm_event *ev;
};

static void *blocking_get(void *arg)
{
	struct getter *g = arg;

	g->ret = rdma_get_cm_event(g->ch, &g->ev);
	g->err = errno;
	g->when = cm_now_ms();
	__atomic_store_n(&g->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* "If no events are pending, by default, the call will block" */
TEST_F(chan, blocking_get_wakes_on_event)
{
	struct getter g = { .ch = self->ch };
	pthread_t t;
	long t0;

	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g));
	cm_sleep_ms(500);
	ASSERT_EQ(0, __atomic_load_n(&g.returned, __ATOMIC_ACQUIRE));
	t0 = cm_now_ms();
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	ASSERT_EQ(0, g.ret);
	TH_LOG("woke %ld ms after the resolve", g.when - t0);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, g.ev->event);
	EXPECT_EQ(self->id, g.ev->id);
	EXPECT_EQ(0, rdma_ack_cm_event(g.ev));
}

/* The call blocks again once the queue is empty. */
TEST_F(chan, blocking_get_blocks_when_drained)
{
	struct getter g = { .ch = self->ch };
	struct rdma_cm_event *ev;
	pthread_t t;

	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g));
	cm_sleep_ms(500);
	ASSERT_EQ(0, __atomic_load_n(&g.returned, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(RDMA_CM_EVENT_ROUTE_RESOLVED, g.ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(g.ev));
}

/* "changed by modifying the file descriptor associated with the channel" */
TEST_F(chan, nonblocking_gives_eagain)
{
	struct rdma_cm_event *ev = NULL;
	struct getter g = { .ch = self->ch };
	pthread_t t;
	long t0;

	ASSERT_EQ(0, set_nonblock(self->ch, 1));
	t0 = cm_now_ms();
	errno = 0;
	EXPECT_EQ(-1, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_GT(1000, cm_now_ms() - t0);
	EXPECT_EQ(NULL, ev);

	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(1, cm_poll(self->ch, CM_TIMEOUT_MS));
	ASSERT_EQ(0, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	errno = 0;
	EXPECT_EQ(-1, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(EAGAIN, errno);

	/* and back to blocking */
	ASSERT_EQ(0, set_nonblock(self->ch, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g));
	cm_sleep_ms(500);
	ASSERT_EQ(0, __atomic_load_n(&g.returned, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(RDMA_CM_EVENT_ROUTE_RESOLVED, g.ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(g.ev));
}

/* Non-blocking: every queued event comes out, then EAGAIN. */
TEST_F(chan, nonblocking_drains_queue)
{
	struct rdma_cm_id *ids[8];
	struct rdma_cm_event *ev;
	int i, got = 0, seen[8] = {};

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, rdma_create_id(self->ch, &ids[i], NULL, RDMA_PS_TCP));
		ASSERT_EQ(0, cm_resolve_addr(ids[i], htons(7471)));
	}
	ASSERT_EQ(0, set_nonblock(self->ch, 1));
	for (long end = cm_now_ms() + CM_TIMEOUT_MS;
	     got < 8 && cm_now_ms() < end;) {
		if (rdma_get_cm_event(self->ch, &ev)) {
			ASSERT_EQ(EAGAIN, errno);
			cm_poll(self->ch, 100);
			continue;
		}
		for (i = 0; i < 8 && ids[i] != ev->id; i++)
			;
		ASSERT_GT(8, i);
		EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, ev->event);
		seen[i]++;
		got++;
		EXPECT_EQ(0, rdma_ack_cm_event(ev));
	}
	EXPECT_EQ(8, got);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(1, seen[i]);
	EXPECT_EQ(-1, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(EAGAIN, errno);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, rdma_destroy_id(ids[i]));
}

TEST_F(chan, poll_reports_readiness)
{
	struct pollfd pfd = { .fd = self->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	/* nothing before an event */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, poll(&pfd, 1, CM_QUIET_MS));
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(1, poll(&pfd, 1, CM_TIMEOUT_MS));
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_FALSE(pfd.revents & (POLLERR | POLLHUP | POLLNVAL));
	/* level-triggered: still ready until the event is taken */
	pfd.revents = 0;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(0, rdma_get_cm_event(self->ch, &ev));
	/* taken (even unacked): not ready any more */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

TEST_F(chan, epoll_reports_readiness)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = 0xc0ffee };
	struct epoll_event out[2];
	struct rdma_cm_event *ev;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->ch->fd, &ee));
	EXPECT_EQ(0, epoll_wait(ep, out, 2, 0));
	EXPECT_EQ(0, epoll_wait(ep, out, 2, CM_QUIET_MS));
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(1, epoll_wait(ep, out, 2, CM_TIMEOUT_MS));
	EXPECT_TRUE(out[0].events & EPOLLIN);
	EXPECT_EQ(0xc0ffee, out[0].data.u64);
	EXPECT_EQ(1, epoll_wait(ep, out, 2, 0));
	ASSERT_EQ(0, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, ev->event);
	EXPECT_EQ(0, epoll_wait(ep, out, 2, 0));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));

	/* edge-triggered: one report per new event */
	ee.events = EPOLLIN | EPOLLET;
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_MOD, self->ch->fd, &ee));
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	ASSERT_EQ(1, epoll_wait(ep, out, 2, CM_TIMEOUT_MS));
	EXPECT_EQ(0, epoll_wait(ep, out, 2, 0));
	ASSERT_EQ(0, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(RDMA_CM_EVENT_ROUTE_RESOLVED, ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	close(ep);
}

/*
 * Two threads on one channel: each of N ids resolves its address and
 * then (from whichever thread took ADDR_RESOLVED) its route. Every event
 * must come out exactly once, across both threads.
 */
#define SHARED_IDS 32

struct shared {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *ids[SHARED_IDS];
	struct rdma_cm_id *sentinel[2];
	int addr[SHARED_IDS], route[SHARED_IDS];
	int total, per_thread[2], bad, nonblocking;
	long deadline;
	pthread_mutex_t lock;
};

struct shared_arg {
	struct shared *s;
	int n;
};

static int shared_index(struct shared *s, struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < SHARED_IDS; i++)
		if (s->ids[i] == id)
			return i;
	return -1;
}

static void *shared_reader(void *arg)
{
	struct shared_arg *a = arg;
	struct shared *s = a->s;
	struct rdma_cm_event *ev;
	int i;

	for (;;) {
		if (s->nonblocking) {
			if (__atomic_load_n(&s->total, __ATOMIC_ACQUIRE) >=
			    2 * SHARED_IDS || cm_now_ms() > s->deadline)
				return NULL;
			if (rdma_get_cm_event(s->ch, &ev)) {
				if (errno != EAGAIN)
					__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
				cm_poll(s->ch, 50);
				continue;
			}
		} else if (rdma_get_cm_event(s->ch, &ev)) {
			__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		if (ev->id == s->sentinel[0] || ev->id == s->sentinel[1]) {
			rdma_ack_cm_event(ev);
			return NULL;
		}
		i = shared_index(s, ev->id);
		pthread_mutex_lock(&s->lock);
		if (i < 0 || ev->status)
			s->bad++;
		else if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED)
			s->addr[i]++;
		else if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED)
			s->route[i]++;
		else
			s->bad++;
		s->per_thread[a->n]++;
		pthread_mutex_unlock(&s->lock);
		if (i >= 0 && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED &&
		    rdma_resolve_route(ev->id, CM_RESOLVE_MS))
			__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
		rdma_ack_cm_event(ev);
		__atomic_add_fetch(&s->total, 1, __ATOMIC_RELEASE);
	}
}

FIXTURE(shared) {
	struct shared s;
};

FIXTURE_VARIANT(shared) {
	int nonblocking;
};

FIXTURE_VARIANT_ADD(shared, blocking) {
	.nonblocking = 0,
};

FIXTURE_VARIANT_ADD(shared, nonblocking) {
	.nonblocking = 1,
};

FIXTURE_SETUP(shared)
{
	int i;

	pthread_mutex_init(&self->s.lock, NULL);
	self->s.nonblocking = variant->nonblocking;
	self->s.ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->s.ch);
	if (variant->nonblocking)
		ASSERT_EQ(0, set_nonblock(self->s.ch, 1));
	for (i = 0; i < SHARED_IDS; i++)
		ASSERT_EQ(0, rdma_create_id(self->s.ch, &self->s.ids[i], NULL,
					    RDMA_PS_TCP));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rdma_create_id(self->s.ch, &self->s.sentinel[i],
					    NULL, RDMA_PS_TCP));
}

FIXTURE_TEARDOWN(shared)
{
	int i;

	if (!_metadata->passed)
		return;
	for (i = 0; i < SHARED_IDS; i++)
		EXPECT_EQ(0, rdma_destroy_id(self->s.ids[i]));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, rdma_destroy_id(self->s.sentinel[i]));
	rdma_destroy_event_channel(self->s.ch);
}

TEST_F(shared, two_threads_every_event_once)
{
	struct shared *s = &self->s;
	struct shared_arg args[2] = { { s, 0 }, { s, 1 } };
	pthread_t t[2];
	int i;

	s->deadline = cm_now_ms() + 3 * CM_TIMEOUT_MS;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, shared_reader, &args[i]));
	for (i = 0; i < SHARED_IDS; i++)
		ASSERT_EQ(0, cm_resolve_addr(s->ids[i], htons(7471)));
	while (__atomic_load_n(&s->total, __ATOMIC_ACQUIRE) < 2 * SHARED_IDS &&
	       cm_now_ms() < s->deadline)
		cm_sleep_ms(20);
	if (!s->nonblocking) {
		/* one wake-up event for each blocked thread */
		for (i = 0; i < 2; i++)
			ASSERT_EQ(0, cm_resolve_addr(s->sentinel[i], htons(7471)));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, join_within(t[i], CM_TIMEOUT_MS)) TH_LOG("thread %d", i);
	TH_LOG("events per thread: %d, %d", s->per_thread[0], s->per_thread[1]);
	EXPECT_EQ(0, s->bad);
	EXPECT_EQ(2 * SHARED_IDS, s->total);
	for (i = 0; i < SHARED_IDS; i++) {
		EXPECT_EQ(1, s->addr[i]) TH_LOG("id %d", i);
		EXPECT_EQ(1, s->route[i]) TH_LOG("id %d", i);
	}
	/* nothing left over */
	EXPECT_EQ(0, cm_poll(s->ch, CM_QUIET_MS));
}

/* Acks @ev after @ms, noting when; for the destroy tests. */
struct acker {
	struct rdma_cm_event *ev;
	int ms;
	volatile int acked;
	long when;
};

static void *ack_later(void *arg)
{
	struct acker *a = arg;

	cm_sleep_ms(a->ms);
	a->when = cm_now_ms();
	__atomic_store_n(&a->acked, 1, __ATOMIC_RELEASE);
	rdma_ack_cm_event(a->ev);
	return NULL;
}

/*
 * "Destruction of an rdma_cm_id will block until related events have been
 * acknowledged": rdma_destroy_id waits for the other thread's ack, and
 * returns right after it.
 */
static void destroy_waits_for_ack(struct __test_metadata *_metadata,
				  struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct acker a = { .ev = ev, .ms = 1000 };
	pthread_t t;
	long t0, t1;

	t0 = cm_now_ms();
	ASSERT_EQ(0, pthread_create(&t, NULL, ack_later, &a));
	ASSERT_EQ(0, rdma_destroy_id(id));
	t1 = cm_now_ms();
	ASSERT_EQ(1, __atomic_load_n(&a.acked, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	TH_LOG("destroy blocked %ld ms, returned %ld ms after the ack",
	       t1 - t0, t1 - a.when);
	EXPECT_LE(900, t1 - t0);
	EXPECT_GE(1000, t1 - a.when);
}

TEST_F(chan, destroy_blocks_until_ack)
{
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	destroy_waits_for_ack(_metadata, self->id, ev);
	self->id = NULL;
}

/* Two unacked events: destroy waits for the second ack too. */
TEST_F(chan, destroy_waits_for_every_ack)
{
	struct rdma_cm_event *ev1, *ev2;
	struct rdma_cm_id *listen;

	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 4, &listen));
	ASSERT_EQ(0, cm_resolve_addr(self->id, rdma_get_src_port(listen)));
	ev1 = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->id,
			CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev1);
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	ev2 = cm_expect(self->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, self->id,
			CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev2);
	ASSERT_EQ(0, rdma_ack_cm_event(ev1));
	destroy_waits_for_ack(_metadata, self->id, ev2);
	self->id = NULL;
	EXPECT_EQ(0, rdma_destroy_id(listen));
}

/*
 * A CONNECT_REQUEST counts on the listening id: the listener's destroy
 * waits for its ack; the new id's destroy does not.
 */
TEST_F(chan, connect_request_counts_on_listener)
{
	struct rdma_cm_id *listen, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	long t0;

	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 4, &listen));
	rdma_destroy_id(self->id);
	ASSERT_EQ(0, cm_resolve(self->ch, RDMA_PS_TCP, rdma_get_src_port(listen),
				&self->id));
	cm_conn_param(&param, cm_next_qpn(), NULL, 0);
	ASSERT_EQ(0, rdma_connect(self->id, &param));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	t0 = cm_now_ms();
	ASSERT_EQ(0, rdma_destroy_id(server));
	EXPECT_GT(1000, cm_now_ms() - t0);
	destroy_waits_for_ack(_metadata, listen, ev);
	/* the client hears about it */
	ASSERT_EQ(0, cm_poll(self->ch, CM_TIMEOUT_MS) > 0 ? 0 : -1);
	ASSERT_EQ(0, rdma_get_cm_event(self->ch, &ev));
	EXPECT_EQ(self->id, ev->id);
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
}

/*
 * Events queued but never taken need no ack: the destroy returns at once
 * and the event is gone with the id.
 */
TEST_F(chan, destroy_with_queued_event)
{
	struct rdma_cm_id *other;
	long t0;

	ASSERT_EQ(0, rdma_create_id(self->ch, &other, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(1, cm_poll(self->ch, CM_TIMEOUT_MS));
	cm_sleep_ms(200);
	t0 = cm_now_ms();
	ASSERT_EQ(0, rdma_destroy_id(self->id));
	self->id = NULL;
	EXPECT_GT(1000, cm_now_ms() - t0);
	EXPECT_TRUE(cm_quiet(self->ch, CM_QUIET_MS));
	/* the channel goes on with the other ids */
	ASSERT_EQ(0, cm_resolve_addr(other, htons(7471)));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, other));
	EXPECT_EQ(0, rdma_destroy_id(other));
}

/*
 * A listener destroyed with connect requests queued and never taken:
 * returns at once, the requesters are refused.
 */
TEST_F(chan, destroy_listener_with_queued_requests)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_conn_param param;
	struct rdma_cm_id *listen, *clients[3];
	struct rdma_cm_event *ev;
	int i, refused = 0;
	long t0;

	ASSERT_NE(NULL, lch);
	ASSERT_EQ(0, cm_listen(lch, RDMA_PS_TCP, 8, &listen));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, cm_resolve(self->ch, RDMA_PS_TCP,
					rdma_get_src_port(listen), &clients[i]));
		cm_conn_param(&param, cm_next_qpn(), NULL, 0);
		ASSERT_EQ(0, rdma_connect(clients[i], &param));
	}
	ASSERT_EQ(1, cm_poll(lch, CM_TIMEOUT_MS));
	cm_sleep_ms(1000);
	t0 = cm_now_ms();
	ASSERT_EQ(0, rdma_destroy_id(listen));
	EXPECT_GT(1000, cm_now_ms() - t0);
	EXPECT_TRUE(cm_quiet(lch, CM_QUIET_MS));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, cm_get_event(self->ch, &ev, CM_TIMEOUT_MS));
		TH_LOG("queued request: %s status %d", rdma_event_str(ev->event),
		       ev->status);
		refused += ev->event == RDMA_CM_EVENT_REJECTED;
		EXPECT_EQ(0, rdma_ack_cm_event(ev));
	}
	EXPECT_EQ(3, refused);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, rdma_destroy_id(clients[i]));
	rdma_destroy_event_channel(lch);
}

static void on_signal(int sig)
{
}

/* Marks the test failed, naming the thread that a signal left blocked. */
#define ADD_FAILURE_LOG(i) do { \
	TH_LOG("thread %d still blocked 10 s after the signal", (i)); \
	_metadata->passed = 0; \
} while (0)

/*
 * A blocked get is interruptible: EINTR for a handler without SA_RESTART;
 * with SA_RESTART it goes on waiting and still gets the event.
 */
TEST_F(chan, blocking_get_and_signals)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct getter g = { .ch = self->ch }, g2 = { .ch = self->ch };
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g));
	cm_sleep_ms(500);
	ASSERT_EQ(0, __atomic_load_n(&g.returned, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, pthread_kill(t, SIGUSR1));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	EXPECT_EQ(-1, g.ret);
	EXPECT_EQ(EINTR, g.err);

	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g2));
	cm_sleep_ms(500);
	ASSERT_EQ(0, pthread_kill(t, SIGUSR1));
	cm_sleep_ms(500);
	ASSERT_EQ(0, __atomic_load_n(&g2.returned, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	ASSERT_EQ(0, g2.ret);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, g2.ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(g2.ev));
}

/*
 * Events pile up on a channel nobody reads: every one is still delivered
 * ("every other event is always delivered").
 */
#define MANY_IDS 400

TEST_F(chan, many_queued_events)
{
	struct rdma_cm_id **ids = calloc(MANY_IDS, sizeof(*ids));
	struct rdma_cm_event *ev;
	int i, got = 0, dup = 0, foreign = 0;
	char *seen = calloc(MANY_IDS, 1);

	ASSERT_NE(NULL, ids);
	ASSERT_NE(NULL, seen);
	for (i = 0; i < MANY_IDS; i++) {
		ASSERT_EQ(0, rdma_create_id(self->ch, &ids[i],
					    (void *)(uintptr_t)i, RDMA_PS_TCP));
		ASSERT_EQ(0, cm_resolve_addr(ids[i], htons(7471)));
	}
	/* let them all complete before the first read */
	cm_sleep_ms(3000);
	while (got < MANY_IDS &&
	       !cm_get_event(self->ch, &ev, CM_TIMEOUT_MS)) {
		i = (int)(uintptr_t)ev->id->context;
		if (i < 0 || i >= MANY_IDS || ids[i] != ev->id ||
		    ev->event != RDMA_CM_EVENT_ADDR_RESOLVED || ev->status)
			foreign++;
		else if (seen[i]++)
			dup++;
		got++;
		rdma_ack_cm_event(ev);
	}
	EXPECT_EQ(MANY_IDS, got);
	EXPECT_EQ(0, dup);
	EXPECT_EQ(0, foreign);
	EXPECT_TRUE(cm_quiet(self->ch, CM_QUIET_MS));
	for (i = 0; i < MANY_IDS; i++)
		EXPECT_EQ(0, rdma_destroy_id(ids[i]));
	free(ids);
	free(seen);
}

/*
 * Once rdma_destroy_id has returned, no event names the id any more, even
 * when one was on its way (a disconnect racing the destroy).
 */
TEST_F(chan, no_event_after_destroy)
{
	struct rdma_cm_id *listen;
	struct rdma_cm_event *ev;
	struct cm_conn c;
	int round, stale = 0, client_disc = 0;

	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 8, &listen));
	for (round = 0; round < 10; round++) {
		ASSERT_EQ(0, cm_connect_pair(self->ch, self->ch, listen, &c));
		ASSERT_EQ(0, rdma_disconnect(c.client));
		/* the server's DISCONNECTED may be queued, coming or not yet */
		if (round % 2)
			cm_sleep_ms(round * 20);
		ASSERT_EQ(0, rdma_destroy_id(c.server));
		client_disc = 0;
		/* from here on, only the client's events may come */
		while (!cm_get_event(self->ch, &ev, 2 * CM_QUIET_MS)) {
			if (ev->id != c.client)
				stale++;
			else if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
				client_disc++;
			rdma_ack_cm_event(ev);
			if (client_disc && cm_poll(self->ch, 0) == 0)
				break;
		}
		EXPECT_EQ(1, client_disc) TH_LOG("round %d", round);
		/* its TIMEWAIT_EXIT, at most */
		while (!cm_get_event(self->ch, &ev, CM_QUIET_MS)) {
			if (ev->id != c.client ||
			    ev->event != RDMA_CM_EVENT_TIMEWAIT_EXIT)
				stale++;
			rdma_ack_cm_event(ev);
		}
		ASSERT_EQ(0, rdma_destroy_id(c.client));
	}
	EXPECT_EQ(0, stale);
	EXPECT_EQ(0, rdma_destroy_id(listen));
}

/* Two threads blocked in one channel's get: a signal interrupts each. */
TEST_F(chan, signal_interrupts_every_blocked_get)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct getter g[2] = { { .ch = self->ch }, { .ch = self->ch } };
	pthread_t t[2];
	int i;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, blocking_get, &g[i]));
	cm_sleep_ms(500);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, __atomic_load_n(&g[i].returned, __ATOMIC_ACQUIRE));
		ASSERT_EQ(0, pthread_kill(t[i], SIGUSR1));
	}
	for (i = 0; i < 2; i++) {
		/* a thread left blocked gets an event to end it */
		if (join_within(t[i], CM_TIMEOUT_MS)) {
			ADD_FAILURE_LOG(i);
			ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
			ASSERT_EQ(0, join_within(t[i], CM_TIMEOUT_MS));
			rdma_ack_cm_event(g[i].ev);
			continue;
		}
		EXPECT_EQ(-1, g[i].ret) TH_LOG("thread %d", i);
		EXPECT_EQ(EINTR, g[i].err) TH_LOG("thread %d", i);
	}
}

static void *destroy_in_thread(void *arg)
{
	struct getter *g = arg;

	g->ret = rdma_destroy_id((struct rdma_cm_id *)g->ev);
	g->err = errno;
	__atomic_store_n(&g->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The same with an ack given just before the blocking get (a library may
 * send acks along with its next call): SA_RESTART still hides the signal,
 * and without it the EINTR loses no ack - the id is destroyed at once.
 */
TEST_F(chan, signals_with_pending_ack)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct getter g = { .ch = self->ch }, g2 = { .ch = self->ch }, d = {};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *other;
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g));
	cm_sleep_ms(500);
	ASSERT_EQ(0, pthread_kill(t, SIGUSR1));
	cm_sleep_ms(500);
	ASSERT_EQ(0, __atomic_load_n(&g.returned, __ATOMIC_ACQUIRE))
		TH_LOG("get returned %d, %s", g.ret, strerror(g.err));
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(RDMA_CM_EVENT_ROUTE_RESOLVED, g.ev->event);
	EXPECT_EQ(0, rdma_ack_cm_event(g.ev));

	/* no SA_RESTART: EINTR, and the ack before it still counts */
	sa.sa_flags = 0;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, rdma_create_id(self->ch, &other, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocking_get, &g2));
	cm_sleep_ms(500);
	ASSERT_EQ(0, pthread_kill(t, SIGUSR1));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	EXPECT_EQ(-1, g2.ret);
	EXPECT_EQ(EINTR, g2.err);
	d.ev = (struct rdma_cm_event *)self->id;
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_in_thread, &d));
	ASSERT_EQ(0, join_within(t, 2000));
	EXPECT_EQ(0, d.ret);
	self->id = other;
}

/* An id whose events were all acked is destroyed at once. */
TEST_F(chan, destroy_after_ack_does_not_wait)
{
	long t0;

	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED,
				  self->id));
	t0 = cm_now_ms();
	ASSERT_EQ(0, rdma_destroy_id(self->id));
	self->id = NULL;
	EXPECT_GT(1000, cm_now_ms() - t0);
}

/*
 * The event data stays valid until the ack, also while the channel
 * delivers further events.
 */
TEST_F(chan, event_data_valid_until_ack)
{
	struct rdma_cm_event *req, *ev;
	struct rdma_cm_id *listen, *server;
	struct rdma_conn_param param;
	char copy[256];
	int len;

	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 4, &listen));
	rdma_destroy_id(self->id);
	ASSERT_EQ(0, cm_resolve(self->ch, RDMA_PS_TCP, rdma_get_src_port(listen),
				&self->id));
	cm_conn_param(&param, cm_next_qpn(), cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(self->id, &param));
	req = cm_expect(self->ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
			CM_TIMEOUT_MS);
	ASSERT_NE(NULL, req);
	server = req->id;
	len = req->param.conn.private_data_len;
	ASSERT_GE(sizeof(copy), len);
	ASSERT_LE(sizeof(cm_req_data), len);
	memcpy(copy, req->param.conn.private_data, len);
	/* accept with the request's event still held, take two more events */
	cm_conn_param(&param, cm_next_qpn(), cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(server, &param));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_CONNECT_RESPONSE, self->id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, rdma_establish(self->id));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ESTABLISHED, server));
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, req->event);
	EXPECT_EQ(listen, req->listen_id);
	EXPECT_EQ(server, req->id);
	EXPECT_EQ(len, req->param.conn.private_data_len);
	EXPECT_EQ(0, memcmp(copy, req->param.conn.private_data, len));
	EXPECT_EQ(0, memcmp(cm_rep_data, ev->param.conn.private_data,
			    sizeof(cm_rep_data)));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, rdma_ack_cm_event(req));
	EXPECT_EQ(0, rdma_disconnect(self->id));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_DISCONNECTED, server));
	EXPECT_EQ(0, rdma_disconnect(server));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_DISCONNECTED, self->id));
	cm_drain(self->ch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(listen));
}

TEST_F(chan, bad_arguments)
{
	errno = 0;
	EXPECT_EQ(-1, rdma_ack_cm_event(NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rdma_get_cm_event(self->ch, NULL));
	EXPECT_EQ(EINVAL, errno);
	/* and the channel still works */
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED,
				  self->id));
}

/* Takes an event without acking it, then destroys its id: blocks. */
static int blocked_destroyer(int ready, int listener)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id, *listen, *client;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 10;
	if (!listener) {
		if (cm_resolve_addr(id, htons(7471)))
			return 11;
		ev = cm_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id,
			       CM_TIMEOUT_MS);
	} else {
		/* a CONNECT_REQUEST held on the listener, a client waiting */
		if (cm_listen(ch, RDMA_PS_TCP, 4, &listen) ||
		    cm_resolve(ch, RDMA_PS_TCP, rdma_get_src_port(listen),
			       &client))
			return 12;
		cm_conn_param(&param, cm_next_qpn(), NULL, 0);
		if (rdma_connect(client, &param))
			return 13;
		ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
			       CM_TIMEOUT_MS);
		id = listen;
	}
	if (!ev)
		return 14;
	if (write(ready, "r", 1) != 1)
		return 15;
	rdma_destroy_id(id);
	return 16;	/* must not get here */
}

static void read_first_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
	}
}

static void killed_in_destroy(struct __test_metadata *_metadata, int listener)
{
	int ready[2], status;
	char state[256], path[64], *p;
	long t0;
	pid_t pid;
	char r;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(ready[0]);
		_exit(blocked_destroyer(ready[1], listener));
	}
	close(ready[1]);
	{
		struct pollfd pfd = { .fd = ready[0], .events = POLLIN };

		ASSERT_EQ(1, poll(&pfd, 1, 2 * CM_TIMEOUT_MS));
	}
	ASSERT_EQ(1, read(ready[0], &r, 1));
	/* give it time to get into the destroy, and check it stays there */
	cm_sleep_ms(1000);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	read_first_line(path, state, sizeof(state));
	p = strrchr(state, ')');
	TH_LOG("blocked destroyer state: %c", p ? p[2] : '?');
	/* sleeping (S, or D for a killable kernel wait), not running */
	EXPECT_TRUE(p && (p[2] == 'S' || p[2] == 'D'));
	t0 = cm_now_ms();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	status = cm_wait_pid(pid, CM_TIMEOUT_MS);
	TH_LOG("exited %ld ms after SIGKILL", cm_now_ms() - t0);
	ASSERT_NE(-1, status);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	close(ready[0]);
}

/* "it waits killably": SIGKILL ends a process blocked in destroy */
TEST(killed_in_blocked_destroy)
{
	killed_in_destroy(_metadata, 0);
}

TEST(killed_in_blocked_listener_destroy)
{
	killed_in_destroy(_metadata, 1);
}

/*
 * A process that exits with a thread blocked in rdma_get_cm_event,
 * another blocked in rdma_destroy_id and unacked events: it exits.
 */
static void *destroy_thread(void *arg)
{
	rdma_destroy_id(arg);
	return NULL;
}

static int blocked_threads_then_exit(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_event_channel *ch2 = rdma_create_event_channel();
	struct getter g = { .ch = ch2 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	pthread_t t1, t2;

	if (!ch || !ch2 || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    cm_resolve_addr(id, htons(7471)))
		return 10;
	ev = cm_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id, CM_TIMEOUT_MS);
	if (!ev)
		return 11;
	if (pthread_create(&t1, NULL, blocking_get, &g) ||
	    pthread_create(&t2, NULL, destroy_thread, id))
		return 12;
	cm_sleep_ms(500);
	if (g.returned)
		return 13;
	exit(0);
}

TEST(exit_with_blocked_threads)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(blocked_threads_then_exit());
	status = cm_wait_pid(pid, 2 * CM_TIMEOUT_MS);
	ASSERT_NE(-1, status);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* rdma_migrate_id(3): later events arrive on the new channel. */
TEST_F(chan, migrate_then_events_on_new_channel)
{
	struct rdma_event_channel *ch2 = rdma_create_event_channel();

	ASSERT_NE(NULL, ch2);
	ASSERT_EQ(0, rdma_migrate_id(self->id, ch2));
	EXPECT_EQ(ch2, self->id->channel);
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	EXPECT_EQ(0, cm_expect_ok(ch2, RDMA_CM_EVENT_ADDR_RESOLVED, self->id));
	EXPECT_TRUE(cm_quiet(self->ch, CM_QUIET_MS));
	/* and back */
	ASSERT_EQ(0, rdma_migrate_id(self->id, self->ch));
	EXPECT_EQ(self->ch, self->id->channel);
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ROUTE_RESOLVED,
				  self->id));
	EXPECT_TRUE(cm_quiet(ch2, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(self->id));
	self->id = NULL;
	rdma_destroy_event_channel(ch2);
}

/* "moves any pending events associated with the rdma_cm_id" */
TEST_F(chan, migrate_moves_pending_events)
{
	struct rdma_event_channel *ch2 = rdma_create_event_channel();
	struct rdma_cm_id *other;

	ASSERT_NE(NULL, ch2);
	/* another id's event stays where it is */
	ASSERT_EQ(0, rdma_create_id(self->ch, &other, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	ASSERT_EQ(0, cm_resolve_addr(other, htons(7471)));
	/* both events queued, none taken */
	cm_sleep_ms(CM_QUIET_MS);
	ASSERT_EQ(1, cm_poll(self->ch, CM_TIMEOUT_MS));
	ASSERT_EQ(0, rdma_migrate_id(self->id, ch2));
	EXPECT_EQ(0, cm_expect_ok(ch2, RDMA_CM_EVENT_ADDR_RESOLVED, self->id));
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, other));
	EXPECT_TRUE(cm_quiet(self->ch, CM_QUIET_MS));
	EXPECT_TRUE(cm_quiet(ch2, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(self->id));
	self->id = NULL;
	EXPECT_EQ(0, rdma_destroy_id(other));
	rdma_destroy_event_channel(ch2);
}

/* "This call will block while there are any unacknowledged events" */
TEST_F(chan, migrate_blocks_until_ack)
{
	struct rdma_event_channel *ch2 = rdma_create_event_channel();
	struct acker a = { .ms = 1000 };
	pthread_t t;
	long t0, t1;

	ASSERT_NE(NULL, ch2);
	ASSERT_EQ(0, cm_resolve_addr(self->id, htons(7471)));
	a.ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->id,
			 CM_TIMEOUT_MS);
	ASSERT_NE(NULL, a.ev);
	t0 = cm_now_ms();
	ASSERT_EQ(0, pthread_create(&t, NULL, ack_later, &a));
	ASSERT_EQ(0, rdma_migrate_id(self->id, ch2));
	t1 = cm_now_ms();
	ASSERT_EQ(1, __atomic_load_n(&a.acked, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, join_within(t, CM_TIMEOUT_MS));
	TH_LOG("migrate blocked %ld ms, returned %ld ms after the ack",
	       t1 - t0, t1 - a.when);
	EXPECT_LE(900, t1 - t0);
	ASSERT_EQ(0, rdma_resolve_route(self->id, CM_RESOLVE_MS));
	EXPECT_EQ(0, cm_expect_ok(ch2, RDMA_CM_EVENT_ROUTE_RESOLVED, self->id));
	EXPECT_EQ(0, rdma_destroy_id(self->id));
	self->id = NULL;
	rdma_destroy_event_channel(ch2);
}

/*
 * A listener and a connection moved to channels of their own: requests,
 * and the new ids, follow the listener; DISCONNECTED follows the id.
 */
TEST_F(chan, migrate_listener_and_connection)
{
	struct rdma_event_channel *lch = rdma_create_event_channel();
	struct rdma_event_channel *sch = rdma_create_event_channel();
	struct rdma_cm_id *listen, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	ASSERT_NE(NULL, lch);
	ASSERT_NE(NULL, sch);
	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 4, &listen));
	ASSERT_EQ(0, rdma_migrate_id(listen, lch));
	rdma_destroy_id(self->id);
	ASSERT_EQ(0, cm_resolve(self->ch, RDMA_PS_TCP, rdma_get_src_port(listen),
				&self->id));
	cm_conn_param(&param, cm_next_qpn(), NULL, 0);
	ASSERT_EQ(0, rdma_connect(self->id, &param));
	ev = cm_expect(lch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(listen, ev->listen_id);
	EXPECT_EQ(lch, server->channel);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_migrate_id(server, sch));
	EXPECT_EQ(sch, server->channel);
	cm_conn_param(&param, cm_next_qpn(), NULL, 0);
	ASSERT_EQ(0, rdma_accept(server, &param));
	ASSERT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_CONNECT_RESPONSE,
				  self->id));
	ASSERT_EQ(0, rdma_establish(self->id));
	ASSERT_EQ(0, cm_expect_ok(sch, RDMA_CM_EVENT_ESTABLISHED, server));
	ASSERT_EQ(0, rdma_disconnect(self->id));
	ASSERT_EQ(0, cm_expect_ok(sch, RDMA_CM_EVENT_DISCONNECTED, server));
	ASSERT_EQ(0, rdma_disconnect(server));
	ASSERT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_DISCONNECTED,
				  self->id));
	EXPECT_TRUE(cm_quiet(lch, CM_QUIET_MS));
	cm_drain(sch, CM_QUIET_MS);
	cm_drain(self->ch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(listen));
	rdma_destroy_event_channel(lch);
	rdma_destroy_event_channel(sch);
}

TEST_HARNESS_MAIN
