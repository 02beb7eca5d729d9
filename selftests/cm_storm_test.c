// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connect storm: 200 clients connect at once to one listener whose backlog
 * is 4 (fewer where the device has fewer address handles than twice that:
 * each request the CM has in flight holds one, and rxe on Linux 5.10 has
 * 100). Requests beyond the backlog are not queued (the IB CM drops them
 * and the client's CM retries), so the server, kept busy elsewhere, finds
 * at most 4 requests waiting; after that every client ends cleanly:
 * connected (ESTABLISHED on the passive side after CONNECT_RESPONSE and
 * rdma_establish on the active side) or refused (REJECTED, UNREACHABLE,
 * CONNECT_ERROR). Nothing hangs, the counts add up, every connection is
 * torn down and every id destroyed, and with rdmachan the module's
 * counters are back where they were.
 */
#include <fcntl.h>

#include "cm_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define STORM_MAX	200
#define STORM_BACKLOG	4
#define STORM_LIMIT_MS	150000

enum client_state {
	C_RESOLVING, C_CONNECTING, C_RESPONDED, C_CONNECTED, C_REFUSED,
	C_DISCONNECTING, C_DISCONNECTED,
};

struct storm {
	int n;			/* clients, at most STORM_MAX */
	struct rdma_event_channel *cch, *sch;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *client[STORM_MAX];
	struct rdma_cm_id *server[STORM_MAX];
	enum client_state state[STORM_MAX];
	int server_established[STORM_MAX];
	int server_disconnected[STORM_MAX];
	int timewait;
	int connected, refused, requests, bad;
	int refusals[RDMA_CM_EVENT_TIMEWAIT_EXIT + 1];
};

static int client_index(struct storm *s, struct rdma_cm_id *id)
{
	return (int)(uintptr_t)id->context;
}

static void note_bad(struct storm *s, const char *what, struct rdma_cm_event *ev)
{
	s->bad++;
	if (s->bad <= 10)
		fprintf(stderr, "# %s: %s status %d\n", what,
			rdma_event_str(ev->event), ev->status);
}

/* One client-channel event. */
static void client_event(struct storm *s, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	int i = client_index(s, ev->id);
	uint32_t index = i;

	if (i < 0 || i >= s->n || s->client[i] != ev->id) {
		note_bad(s, "client event on an unknown id", ev);
		return;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (s->state[i] != C_RESOLVING ||
		    rdma_resolve_route(ev->id, CM_RESOLVE_MS))
			note_bad(s, "resolve route", ev);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		cm_conn_param(&param, cm_next_qpn(), &index, sizeof(index));
		if (s->state[i] != C_RESOLVING)
			note_bad(s, "connect out of turn", ev);
		else if (rdma_connect(ev->id, &param))
			note_bad(s, strerror(errno), ev);
		s->state[i] = C_CONNECTING;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		if (s->state[i] != C_CONNECTING || ev->status ||
		    rdma_establish(ev->id))
			note_bad(s, "establish", ev);
		s->state[i] = C_RESPONDED;
		if (s->server_established[i]) {
			s->state[i] = C_CONNECTED;
			s->connected++;
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (s->state[i] != C_CONNECTING) {
			note_bad(s, "refusal out of turn", ev);
			break;
		}
		s->state[i] = C_REFUSED;
		s->refused++;
		s->refusals[ev->event]++;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (s->state[i] != C_DISCONNECTING)
			note_bad(s, "client disconnect out of turn", ev);
		s->state[i] = C_DISCONNECTED;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		s->timewait++;
		break;
	default:
		note_bad(s, "client", ev);
	}
}

/* One server-channel event. */
static void server_event(struct storm *s, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	uint32_t index;
	int i;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		s->requests++;
		if (ev->listen_id != s->listen || !ev->param.conn.private_data ||
		    ev->param.conn.private_data_len < sizeof(index)) {
			note_bad(s, "request", ev);
			return;
		}
		memcpy(&index, ev->param.conn.private_data, sizeof(index));
		if (index >= (uint32_t)s->n || s->server[index]) {
			note_bad(s, "request for a known client", ev);
			return;
		}
		s->server[index] = ev->id;
		ev->id->context = (void *)(uintptr_t)index;
		cm_conn_param(&param, cm_next_qpn(), NULL, 0);
		if (rdma_accept(ev->id, &param))
			note_bad(s, "accept", ev);
		return;
	}
	i = client_index(s, ev->id);
	if (i < 0 || i >= s->n || s->server[i] != ev->id) {
		note_bad(s, "server event on an unknown id", ev);
		return;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		s->server_established[i]++;
		if (s->state[i] == C_RESPONDED) {
			s->state[i] = C_CONNECTED;
			s->connected++;
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		s->server_disconnected[i]++;
		if (rdma_disconnect(ev->id))
			note_bad(s, "server disconnect", ev);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		s->timewait++;
		break;
	default:
		note_bad(s, "server", ev);
	}
}

/* Handles whatever either channel has, for up to @ms; 0 when idle. */
static int pump(struct storm *s, int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = s->cch->fd, .events = POLLIN },
		{ .fd = s->sch->fd, .events = POLLIN },
	};
	struct rdma_cm_event *ev;
	int n = 0;

	if (poll(pfd, 2, ms) <= 0)
		return 0;
	/* both channels are non-blocking */
	while (!rdma_get_cm_event(s->sch, &ev)) {
		server_event(s, ev);
		rdma_ack_cm_event(ev);
		n++;
	}
	while (!rdma_get_cm_event(s->cch, &ev)) {
		client_event(s, ev);
		rdma_ack_cm_event(ev);
		n++;
	}
	return n;
}

static int nonblock(struct rdma_event_channel *ch)
{
	return fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
}

FIXTURE(storm) {
	struct storm s;
	long cm_ids, cm_events;
};

FIXTURE_SETUP(storm)
{
	struct ibv_device_attr attr;

	self->cm_ids = rdmachan_counter("cm_ids");
	self->cm_events = rdmachan_counter("cm_events");
	self->s.cch = rdma_create_event_channel();
	self->s.sch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->s.cch);
	ASSERT_NE(NULL, self->s.sch);
	ASSERT_EQ(0, nonblock(self->s.cch));
	ASSERT_EQ(0, nonblock(self->s.sch));
	ASSERT_EQ(0, cm_listen(self->s.sch, RDMA_PS_TCP, STORM_BACKLOG,
			       &self->s.listen));
	ASSERT_NE(NULL, self->s.listen->verbs);
	ASSERT_EQ(0, ibv_query_device(self->s.listen->verbs, &attr));
	self->s.n = attr.max_ah / 2 < STORM_MAX ? attr.max_ah / 2 : STORM_MAX;
	ASSERT_LT(4 * STORM_BACKLOG, self->s.n);
	TH_LOG("%d clients (the device has %d address handles)", self->s.n,
	       attr.max_ah);
}

FIXTURE_TEARDOWN(storm)
{
}

TEST_F_TIMEOUT(storm, connect_storm, 240)
{
	struct storm *s = &self->s;
	struct rdma_cm_event *ev;
	long t0 = cm_now_ms(), end = t0 + STORM_LIMIT_MS;
	int i, queued = 0, issued, pending, destroyed = 0, disconnecting = 0;

	for (i = 0; i < s->n; i++) {
		ASSERT_EQ(0, rdma_create_id(s->cch, &s->client[i],
					    (void *)(uintptr_t)i, RDMA_PS_TCP));
		ASSERT_EQ(0, cm_resolve_addr(s->client[i],
					     rdma_get_src_port(s->listen)));
	}
	/* the clients only, until every request went out */
	do {
		struct rdma_cm_event *cev;

		cm_poll(s->cch, 100);
		while (!rdma_get_cm_event(s->cch, &cev)) {
			client_event(s, cev);
			rdma_ack_cm_event(cev);
		}
		for (issued = 0, i = 0; i < s->n; i++)
			issued += s->state[i] != C_RESOLVING;
	} while (issued < s->n && !s->bad && cm_now_ms() < end);
	ASSERT_EQ(0, s->bad);
	ASSERT_EQ(s->n, issued);
	TH_LOG("%d requests out after %ld ms", issued, cm_now_ms() - t0);

	/*
	 * Let them all arrive (retries come after seconds), then count what
	 * waits. Each request read makes room for one more, and a retry may
	 * come while the server reads: on rdmachan the queue is counted
	 * before any is read; on stock, by reading (an idle host is fast
	 * enough that no retry comes in between).
	 */
	cm_sleep_ms(2000);
#ifndef RDMACHAN_TEST_STOCK
	{
		struct rdmachan_cm_events_summary sum;

		ASSERT_LE(0, rdmachan_query_cm_events(s->sch, NULL, NULL, 0,
						      &sum));
		queued = sum.queued;
	}
#endif
	while (!rdma_get_cm_event(s->sch, &ev)) {
		EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, ev->event);
#ifdef RDMACHAN_TEST_STOCK
		queued++;
#endif
		server_event(s, ev);
		rdma_ack_cm_event(ev);
	}
	TH_LOG("%d requests were queued for a backlog of %d", queued,
	       STORM_BACKLOG);
	EXPECT_LE(1, queued);
	EXPECT_GE(STORM_BACKLOG, queued);

	/* now serve until every client is connected or refused */
	for (;;) {
		pending = 0;
		for (i = 0; i < s->n; i++)
			pending += s->state[i] != C_CONNECTED &&
				   s->state[i] != C_REFUSED;
		if (!pending || s->bad || cm_now_ms() > end)
			break;
		pump(s, 200);
	}
	TH_LOG("after %ld ms: %d connected, %d refused (%d REJECTED, "
	       "%d UNREACHABLE, %d CONNECT_ERROR), %d requests seen, %d pending",
	       cm_now_ms() - t0, s->connected, s->refused,
	       s->refusals[RDMA_CM_EVENT_REJECTED],
	       s->refusals[RDMA_CM_EVENT_UNREACHABLE],
	       s->refusals[RDMA_CM_EVENT_CONNECT_ERROR], s->requests, pending);
	ASSERT_EQ(0, s->bad);
	ASSERT_EQ(0, pending);
	EXPECT_EQ(s->n, s->connected + s->refused);
	EXPECT_LE(STORM_BACKLOG, s->connected);
	for (i = 0; i < s->n; i++)
		if (s->state[i] == C_CONNECTED)
			EXPECT_EQ(1, s->server_established[i]);

	/* tear every connection down from the client side */
	for (i = 0; i < s->n; i++) {
		if (s->state[i] != C_CONNECTED)
			continue;
		s->state[i] = C_DISCONNECTING;
		ASSERT_EQ(0, rdma_disconnect(s->client[i]));
		disconnecting++;
	}
	for (;;) {
		pending = 0;
		for (i = 0; i < s->n; i++)
			pending += s->state[i] == C_DISCONNECTING;
		/* and wait for every TIMEWAIT_EXIT, both sides */
		if ((!pending && s->timewait >= 2 * disconnecting) || s->bad ||
		    cm_now_ms() > end + CM_TIMEOUT_MS)
			break;
		pump(s, 200);
	}
	TH_LOG("%d disconnected, %d TIMEWAIT_EXIT, %ld ms in all", disconnecting,
	       s->timewait, cm_now_ms() - t0);
	ASSERT_EQ(0, s->bad);
	ASSERT_EQ(0, pending);
	EXPECT_EQ(2 * disconnecting, s->timewait);
	for (i = 0; i < s->n; i++)
		if (s->state[i] == C_DISCONNECTED)
			EXPECT_EQ(1, s->server_disconnected[i]);
	/* nothing more may come */
	EXPECT_EQ(0, pump(s, CM_QUIET_MS));

	for (i = 0; i < s->n; i++) {
		if (s->server[i]) {
			EXPECT_EQ(0, rdma_destroy_id(s->server[i]));
			destroyed++;
		}
		EXPECT_EQ(0, rdma_destroy_id(s->client[i]));
		destroyed++;
	}
	EXPECT_EQ(0, rdma_destroy_id(s->listen));
	destroyed++;
	TH_LOG("%d ids destroyed", destroyed);
	rdma_destroy_event_channel(s->cch);
	rdma_destroy_event_channel(s->sch);
	if (self->cm_ids >= 0) {
		EXPECT_EQ(self->cm_ids, rdmachan_counter("cm_ids"));
		EXPECT_EQ(self->cm_events, rdmachan_counter("cm_events"));
	}
}

TEST_HARNESS_MAIN
