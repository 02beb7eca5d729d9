// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A connection's whole life through the rdma_cm event channel, over rxe:
 * every event on both sides (on one channel and on two), with the data the
 * man page of rdma_get_cm_event promises in each; rejects; disconnects from
 * either side (rdma_disconnect(3): both sides get exactly one DISCONNECTED,
 * also when the peer disconnected first); teardown by destroy and by exit.
 * The ids have no QP: the server passes conn_param.qp_num, the client
 * gets CONNECT_RESPONSE and calls rdma_establish.
 */
#include <sys/wait.h>
#include <poll.h>

#include "cm_test.h"
#include "kselftest_harness.h"

FIXTURE(conn) {
	struct rdma_event_channel *cch;	/* client's */
	struct rdma_event_channel *sch;	/* server's, may be cch */
	struct rdma_cm_id *listen;
	int ctx;			/* the listener's context */
};

FIXTURE_VARIANT(conn) {
	int one_channel;
};

FIXTURE_VARIANT_ADD(conn, one_channel) {
	.one_channel = 1,
};

FIXTURE_VARIANT_ADD(conn, two_channels) {
	.one_channel = 0,
};

FIXTURE_SETUP(conn)
{
	struct sockaddr_in sin;

	self->sch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->sch);
	self->cch = variant->one_channel ? self->sch : rdma_create_event_channel();
	ASSERT_NE(NULL, self->cch);
	ASSERT_EQ(0, rdma_create_id(self->sch, &self->listen, &self->ctx,
				    RDMA_PS_TCP));
	cm_sockaddr(&sin, cm_test_addr(), 0);
	ASSERT_EQ(0, rdma_bind_addr(self->listen, (struct sockaddr *)&sin));
	ASSERT_EQ(0, rdma_listen(self->listen, 8));
	ASSERT_NE(0, cm_port(self->listen));
}

FIXTURE_TEARDOWN(conn)
{
	/* after a failure, ids may hold unacked events: let exit clean up */
	if (!_metadata->passed)
		return;
	EXPECT_EQ(0, rdma_destroy_id(self->listen));
	if (self->cch != self->sch)
		rdma_destroy_event_channel(self->cch);
	rdma_destroy_event_channel(self->sch);
}

static int sin_is(const struct sockaddr *sa, const char *ip, int port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	struct in_addr want;

	inet_pton(AF_INET, ip, &want);
	return sin->sin_family == AF_INET &&
	       sin->sin_addr.s_addr == want.s_addr &&
	       (port < 0 || ntohs(sin->sin_port) == port);
}

/* RoCE GIDs of IPv4 addresses are IPv4-mapped IPv6 addresses. */
static int gid_is_v4(const union ibv_gid *gid, const char *ip)
{
	static const unsigned char prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};
	struct in_addr want;

	inet_pton(AF_INET, ip, &want);
	return !memcmp(gid->raw, prefix, sizeof(prefix)) &&
	       !memcmp(gid->raw + 12, &want, 4);
}

/* Events of @ch within @ms, counted by type for @a and @b. */
static void count_events(struct rdma_event_channel *ch, int ms,
			 struct rdma_cm_id *a, int *ca, struct rdma_cm_id *b,
			 int *cb, int *foreign)
{
	struct rdma_cm_event *ev;
	long end = cm_now_ms() + ms;

	for (;;) {
		long rest = end - cm_now_ms();

		if (cm_get_event(ch, &ev, rest > 0 ? (int)rest : 0))
			return;
		if (ev->event > RDMA_CM_EVENT_TIMEWAIT_EXIT)
			(*foreign)++;
		else if (ev->id == a)
			ca[ev->event]++;
		else if (b && ev->id == b)
			cb[ev->event]++;
		else
			(*foreign)++;
		rdma_ack_cm_event(ev);
	}
}

/* Counts the events of @a (on @ch_a) and @b (on @ch_b) within @ms. */
static void count_pair(struct rdma_event_channel *ch_a, struct rdma_cm_id *a,
		       int *ca, struct rdma_event_channel *ch_b,
		       struct rdma_cm_id *b, int *cb, int ms, int *foreign)
{
	if (ch_a == ch_b) {
		count_events(ch_a, ms, a, ca, b, cb, foreign);
		return;
	}
	count_events(ch_a, ms / 2, a, ca, NULL, NULL, foreign);
	count_events(ch_b, ms / 2, b, cb, NULL, NULL, foreign);
}

#define NEV (RDMA_CM_EVENT_TIMEWAIT_EXIT + 1)

TEST_F(conn, full_sequence)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	const char *addr = cm_test_addr();
	int lport = cm_port(self->listen), cport;
	int cctx;

	/* the listener is bound to the device of its address */
	ASSERT_NE(NULL, self->listen->verbs);
	EXPECT_EQ(self->sch, self->listen->channel);
	EXPECT_EQ(&self->ctx, self->listen->context);
	EXPECT_EQ(RDMA_PS_TCP, self->listen->ps);
	EXPECT_TRUE(sin_is(rdma_get_local_addr(self->listen), addr, lport));

	ASSERT_EQ(0, rdma_create_id(self->cch, &client, &cctx, RDMA_PS_TCP));
	EXPECT_EQ(NULL, client->verbs);
	EXPECT_EQ(self->cch, client->channel);
	EXPECT_EQ(&cctx, client->context);

	/* ADDR_RESOLVED: the id is bound to the device, addresses are set */
	ASSERT_EQ(0, cm_resolve_addr(client, rdma_get_src_port(self->listen)));
	ev = cm_expect(self->cch, RDMA_CM_EVENT_ADDR_RESOLVED, client,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(NULL, ev->listen_id);
	EXPECT_STREQ("RDMA_CM_EVENT_ADDR_RESOLVED", rdma_event_str(ev->event));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_NE(NULL, client->verbs);
	EXPECT_EQ(self->listen->verbs, client->verbs);
	EXPECT_EQ(1, client->port_num);
	EXPECT_TRUE(sin_is(rdma_get_peer_addr(client), addr, lport));
	EXPECT_TRUE(sin_is(rdma_get_local_addr(client), addr, -1));
	EXPECT_EQ(lport, ntohs(rdma_get_dst_port(client)));
	cport = cm_port(client);
	EXPECT_NE(0, cport);
	EXPECT_NE(lport, cport);

	/* ROUTE_RESOLVED: a path between the two RoCE GIDs */
	ASSERT_EQ(0, rdma_resolve_route(client, CM_RESOLVE_MS));
	ev = cm_expect(self->cch, RDMA_CM_EVENT_ROUTE_RESOLVED, client,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	EXPECT_STREQ("RDMA_CM_EVENT_ROUTE_RESOLVED", rdma_event_str(ev->event));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_LE(1, client->route.num_paths);
	ASSERT_NE(NULL, client->route.path_rec);
	EXPECT_TRUE(gid_is_v4(&client->route.path_rec[0].sgid, addr));
	EXPECT_TRUE(gid_is_v4(&client->route.path_rec[0].dgid, addr));
	EXPECT_TRUE(gid_is_v4(&client->route.addr.addr.ibaddr.dgid, addr));
	EXPECT_NE(0, client->route.path_rec[0].mtu);

	/* CONNECT_REQUEST: a new id, the listener, the request's data */
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	param.responder_resources = 2;
	param.initiator_depth = 3;
	param.retry_count = 5;
	param.rnr_retry_count = 6;
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_STREQ("RDMA_CM_EVENT_CONNECT_REQUEST", rdma_event_str(ev->event));
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(self->listen, ev->listen_id);
	server = ev->id;
	ASSERT_NE(NULL, server);
	EXPECT_NE(self->listen, server);
	EXPECT_NE(client, server);
	TH_LOG("CONNECT_REQUEST private_data_len %d", ev->param.conn.private_data_len);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
				    ev->param.conn.private_data_len,
				    cm_req_data, sizeof(cm_req_data)));
	/* the recipient's view: our initiator depth is its responder resources */
	EXPECT_EQ(3, ev->param.conn.responder_resources);
	EXPECT_EQ(2, ev->param.conn.initiator_depth);
	EXPECT_EQ(5, ev->param.conn.retry_count);
	EXPECT_EQ(6, ev->param.conn.rnr_retry_count);
	EXPECT_EQ(0, ev->param.conn.srq);
	EXPECT_EQ(CM_CLIENT_QPN, ev->param.conn.qp_num);
	/* the new id: same device and channel, the listener's context */
	EXPECT_EQ(self->sch, server->channel);
	EXPECT_EQ(&self->ctx, server->context);
	EXPECT_EQ(RDMA_PS_TCP, server->ps);
	EXPECT_EQ(self->listen->verbs, server->verbs);
	EXPECT_TRUE(sin_is(rdma_get_local_addr(server), addr, lport));
	EXPECT_TRUE(sin_is(rdma_get_peer_addr(server), addr, cport));
	EXPECT_EQ(lport, cm_port(server));
	EXPECT_EQ(cport, ntohs(rdma_get_dst_port(server)));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));

	/* CONNECT_RESPONSE: the id has no QP; the accept's data */
	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	param.responder_resources = 3;
	param.initiator_depth = 2;
	param.rnr_retry_count = 4;
	ASSERT_EQ(0, rdma_accept(server, &param));
	ev = cm_expect(self->cch, RDMA_CM_EVENT_CONNECT_RESPONSE, client,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_STREQ("RDMA_CM_EVENT_CONNECT_RESPONSE", rdma_event_str(ev->event));
	EXPECT_EQ(0, ev->status);
	TH_LOG("CONNECT_RESPONSE private_data_len %d", ev->param.conn.private_data_len);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
				    ev->param.conn.private_data_len,
				    cm_rep_data, sizeof(cm_rep_data)));
	EXPECT_EQ(CM_SERVER_QPN, ev->param.conn.qp_num);
	EXPECT_EQ(2, ev->param.conn.responder_resources);
	EXPECT_EQ(3, ev->param.conn.initiator_depth);
	EXPECT_EQ(4, ev->param.conn.rnr_retry_count);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));

	/* rdma_establish: ESTABLISHED on the passive side only */
	ASSERT_EQ(0, rdma_establish(client));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_ESTABLISHED, server,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_STREQ("RDMA_CM_EVENT_ESTABLISHED", rdma_event_str(ev->event));
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(NULL, ev->listen_id);
	/* "This field is NULL if the event does not include private data" */
	EXPECT_EQ(NULL, ev->param.conn.private_data);
	EXPECT_EQ(0, ev->param.conn.private_data_len);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_TRUE(cm_quiet(self->cch, CM_QUIET_MS));
	EXPECT_TRUE(cm_quiet(self->sch, CM_QUIET_MS));

	/* DISCONNECTED on both sides, then each leaves timewait */
	ASSERT_EQ(0, rdma_disconnect(client));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_DISCONNECTED, server,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_STREQ("RDMA_CM_EVENT_DISCONNECTED", rdma_event_str(ev->event));
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(NULL, ev->param.conn.private_data);
	EXPECT_EQ(0, ev->param.conn.private_data_len);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_disconnect(server));
	ev = cm_expect(self->cch, RDMA_CM_EVENT_DISCONNECTED, client,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	if (variant->one_channel) {
		struct cm_want want[] = {
			{ .id = client, .type = RDMA_CM_EVENT_TIMEWAIT_EXIT },
			{ .id = server, .type = RDMA_CM_EVENT_TIMEWAIT_EXIT },
		};

		EXPECT_EQ(0, cm_expect_all(self->cch, want, 2, CM_TIMEOUT_MS));
	} else {
		EXPECT_EQ(0, cm_expect_ok(self->cch, RDMA_CM_EVENT_TIMEWAIT_EXIT,
					  client));
		EXPECT_EQ(0, cm_expect_ok(self->sch, RDMA_CM_EVENT_TIMEWAIT_EXIT,
					  server));
	}
	EXPECT_TRUE(cm_quiet(self->cch, CM_QUIET_MS));
	EXPECT_TRUE(cm_quiet(self->sch, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
}

#ifndef RDMACHAN_TEST_STOCK
/*
 * ACCEPT, REJECT and ESTABLISH at the wrong end, too early (ESTABLISH
 * before the REP came) or a second time are EINVAL and change nothing:
 * the connection is still made, and its ids go at once. On stock the CM
 * answers each with a REJ that breaks the connection and leaves its REQ
 * or REP retrying, so destroying the id blocks for 70-100 s: not run
 * there.
 */
TEST_F(conn, answers_come_once_and_at_the_right_end)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	long t0;

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &client));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	/* the active end answers no request, and has no reply to establish */
	EXPECT_EQ(-1, rdma_reject(client, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rdma_accept(client, &param));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rdma_establish(client));
	EXPECT_EQ(EINVAL, errno);
	/* nor a second CONNECT while the REQ is out */
	EXPECT_EQ(-1, rdma_connect(client, &param));
	EXPECT_EQ(EINVAL, errno);
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	/* the passive end sends no RTU */
	EXPECT_EQ(-1, rdma_establish(server));
	EXPECT_EQ(EINVAL, errno);
	/* the request waits unanswered: still no reply to establish */
	EXPECT_EQ(-1, rdma_establish(client));
	EXPECT_EQ(EINVAL, errno);
	/* and none of it rejected the client */
	EXPECT_TRUE(cm_quiet(self->cch, CM_QUIET_MS));

	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(server, &param));
	/* answered: neither a second accept nor a reject now */
	EXPECT_EQ(-1, rdma_accept(server, &param));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rdma_reject(server, cm_rej_data, sizeof(cm_rej_data)));
	EXPECT_EQ(EINVAL, errno);
	ev = cm_expect(self->cch, RDMA_CM_EVENT_CONNECT_RESPONSE, client,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, rdma_establish(client));
	EXPECT_EQ(-1, rdma_establish(client));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, cm_expect_ok(self->sch, RDMA_CM_EVENT_ESTABLISHED, server));
	EXPECT_TRUE(cm_quiet(self->cch, CM_QUIET_MS));
	EXPECT_TRUE(cm_quiet(self->sch, CM_QUIET_MS));

	/* nothing of the refused calls is left in the CM to wait for */
	t0 = cm_now_ms();
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
	EXPECT_GT(20000, cm_now_ms() - t0);
}

#endif

/* The helpers' connect and disconnect, with the TIMEWAIT_EXITs taken. */
static int connect_disconnect(struct rdma_event_channel *cch,
			      struct rdma_event_channel *sch,
			      struct rdma_cm_id *listen)
{
	struct cm_conn c;

	if (cm_connect_pair(cch, sch, listen, &c) ||
	    cm_disconnect_pair(cch, sch, &c))
		return -1;
	cm_drain(cch, CM_QUIET_MS);
	if (sch != cch)
		cm_drain(sch, CM_QUIET_MS);
	return rdma_destroy_id(c.server) | rdma_destroy_id(c.client);
}

/* One listener serves connection after connection. */
TEST_F(conn, sequential_connections)
{
	int i;

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, connect_disconnect(self->cch, self->sch,
						self->listen)) TH_LOG("round %d", i);
}

/* TIMEWAIT_EXIT comes after DISCONNECTED, on each side, once. */
TEST_F(conn, timewait_exit_after_disconnect)
{
	int ccount[NEV] = {};
	int scount[NEV] = {};
	int foreign = 0;
	struct cm_conn c;
	long t0;

	ASSERT_EQ(0, cm_connect_pair(self->cch, self->sch, self->listen, &c));
	/* no timewait without a disconnect */
	EXPECT_TRUE(cm_quiet(self->cch, CM_QUIET_MS));
	t0 = cm_now_ms();
	ASSERT_EQ(0, cm_disconnect_pair(self->cch, self->sch, &c));
	if (variant->one_channel) {
		struct cm_want want[] = {
			{ .id = c.client, .type = RDMA_CM_EVENT_TIMEWAIT_EXIT },
			{ .id = c.server, .type = RDMA_CM_EVENT_TIMEWAIT_EXIT },
		};

		ASSERT_EQ(0, cm_expect_all(self->cch, want, 2, CM_TIMEOUT_MS));
	} else {
		ASSERT_EQ(0, cm_expect_ok(self->sch, RDMA_CM_EVENT_TIMEWAIT_EXIT,
					  c.server));
		ASSERT_EQ(0, cm_expect_ok(self->cch, RDMA_CM_EVENT_TIMEWAIT_EXIT,
					  c.client));
	}
	TH_LOG("both TIMEWAIT_EXIT %ld ms after the disconnect", cm_now_ms() - t0);
	count_pair(self->cch, c.client, ccount, self->sch, c.server, scount,
		   2 * CM_QUIET_MS, &foreign);
	EXPECT_EQ(0, ccount[RDMA_CM_EVENT_TIMEWAIT_EXIT] +
		     scount[RDMA_CM_EVENT_TIMEWAIT_EXIT]);
	EXPECT_EQ(0, foreign);
	EXPECT_EQ(0, rdma_destroy_id(c.server));
	EXPECT_EQ(0, rdma_destroy_id(c.client));
}

/*
 * rdma_disconnect(3) on an id whose peer already disconnected succeeds,
 * and each side gets exactly one DISCONNECTED. @server_first picks who
 * starts.
 */
static void disconnect_after_peer(struct __test_metadata *_metadata,
				  FIXTURE_DATA(conn) *self, int server_first)
{
	int first[NEV] = {};
	int second[NEV] = {};
	struct rdma_event_channel *ch_a, *ch_b;
	struct rdma_cm_id *a, *b;
	int foreign = 0;
	struct cm_conn c;

	ASSERT_EQ(0, cm_connect_pair(self->cch, self->sch, self->listen, &c));
	a = server_first ? c.server : c.client;
	b = server_first ? c.client : c.server;
	ch_a = server_first ? self->sch : self->cch;
	ch_b = server_first ? self->cch : self->sch;

	ASSERT_EQ(0, rdma_disconnect(a));
	ASSERT_EQ(0, cm_expect_ok(ch_b, RDMA_CM_EVENT_DISCONNECTED, b));
	/* b's peer is gone: still 0 */
	ASSERT_EQ(0, rdma_disconnect(b));
	ASSERT_EQ(0, cm_expect_ok(ch_a, RDMA_CM_EVENT_DISCONNECTED, a));
	/* and again, on both: nothing left to do, still no error */
	EXPECT_EQ(0, rdma_disconnect(b));
	EXPECT_EQ(0, rdma_disconnect(a));

	/* no second DISCONNECTED anywhere; TIMEWAIT_EXIT at most once each */
	count_pair(ch_a, a, first, ch_b, b, second, 4 * CM_QUIET_MS, &foreign);
	EXPECT_EQ(0, foreign);
	EXPECT_EQ(0, first[RDMA_CM_EVENT_DISCONNECTED]);
	EXPECT_EQ(0, second[RDMA_CM_EVENT_DISCONNECTED]);
	EXPECT_GE(1, first[RDMA_CM_EVENT_TIMEWAIT_EXIT]);
	EXPECT_GE(1, second[RDMA_CM_EVENT_TIMEWAIT_EXIT]);
	EXPECT_EQ(0, rdma_destroy_id(c.server));
	EXPECT_EQ(0, rdma_destroy_id(c.client));
}

TEST_F(conn, server_disconnects_after_client)
{
	disconnect_after_peer(_metadata, self, 0);
}

TEST_F(conn, client_disconnects_after_server)
{
	disconnect_after_peer(_metadata, self, 1);
}

/* Both ends call rdma_disconnect before either sees an event. */
TEST_F(conn, simultaneous_disconnect)
{
	int ccount[NEV] = {};
	int scount[NEV] = {};
	int foreign = 0;
	struct cm_conn c;

	ASSERT_EQ(0, cm_connect_pair(self->cch, self->sch, self->listen, &c));
	ASSERT_EQ(0, rdma_disconnect(c.client));
	ASSERT_EQ(0, rdma_disconnect(c.server));
	count_pair(self->cch, c.client, ccount, self->sch, c.server, scount,
		   CM_TIMEOUT_MS, &foreign);
	EXPECT_EQ(1, ccount[RDMA_CM_EVENT_DISCONNECTED]);
	EXPECT_EQ(1, scount[RDMA_CM_EVENT_DISCONNECTED]);
	EXPECT_GE(1, ccount[RDMA_CM_EVENT_TIMEWAIT_EXIT]);
	EXPECT_GE(1, scount[RDMA_CM_EVENT_TIMEWAIT_EXIT]);
	EXPECT_EQ(0, foreign);
	EXPECT_EQ(0, rdma_destroy_id(c.server));
	EXPECT_EQ(0, rdma_destroy_id(c.client));
}

/* REJECTED carries the reject reason and the rejecting side's data. */
TEST_F(conn, rejected_with_private_data)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &client));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_reject(server, cm_rej_data, sizeof(cm_rej_data)));

	ev = cm_expect(self->cch, RDMA_CM_EVENT_REJECTED, client, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_STREQ("RDMA_CM_EVENT_REJECTED", rdma_event_str(ev->event));
	/* IB CM REJ reason 28: consumer defined */
	EXPECT_EQ(cm_rejected_status(), ev->status);
	TH_LOG("REJECTED status %d private_data_len %d", ev->status,
	       ev->param.conn.private_data_len);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
				    ev->param.conn.private_data_len,
				    cm_rej_data, sizeof(cm_rej_data)));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	/* nothing follows a reject, on either side */
	EXPECT_TRUE(cm_quiet(self->cch, CM_QUIET_MS));
	EXPECT_TRUE(cm_quiet(self->sch, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
	/* the listener still works */
	EXPECT_EQ(0, connect_disconnect(self->cch, self->sch, self->listen));
}

/* rdma_reject_ece: the reject says "vendor option not supported". */
TEST_F(conn, rejected_with_ece_reason)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &client));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_reject_ece(server, cm_rej_data, sizeof(cm_rej_data)));

	ev = cm_expect(self->cch, RDMA_CM_EVENT_REJECTED, client, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	/* IB CM REJ reason 35: vendor option not supported */
	EXPECT_EQ(35, ev->status);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
				    ev->param.conn.private_data_len,
				    cm_rej_data, sizeof(cm_rej_data)));
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
}

/* A reject without private data: no data, zeroes at most. */
TEST_F(conn, rejected_without_private_data)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	int i;

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &client));
	cm_conn_param(&param, CM_CLIENT_QPN, NULL, 0);
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	/* a request without private data: none, or only zeroes */
	for (i = 0; ev->param.conn.private_data &&
		    i < ev->param.conn.private_data_len; i++)
		ASSERT_EQ(0, ((const char *)ev->param.conn.private_data)[i]);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_reject(server, NULL, 0));
	ev = cm_expect(self->cch, RDMA_CM_EVENT_REJECTED, client, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(cm_rejected_status(), ev->status);
	for (i = 0; ev->param.conn.private_data &&
		    i < ev->param.conn.private_data_len; i++)
		ASSERT_EQ(0, ((const char *)ev->param.conn.private_data)[i]);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
}

/*
 * A port nobody listens on: the IB CM answers the REQ with a REJ whose
 * reason is 8, "invalid service ID" (IBTA table 112).
 */
TEST_F(conn, rejected_without_listener)
{
	struct rdma_cm_id *client, *gone;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	__be16 port;

	/* a port that was just free: listen, note it, close it */
	ASSERT_EQ(0, cm_listen(self->sch, RDMA_PS_TCP, 1, &gone));
	port = rdma_get_src_port(gone);
	ASSERT_EQ(0, rdma_destroy_id(gone));

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP, port, &client));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	ASSERT_EQ(0, cm_poll(self->cch, CM_TIMEOUT_MS) > 0 ? 0 : -1);
	ASSERT_EQ(0, rdma_get_cm_event(self->cch, &ev));
	TH_LOG("no listener: %s status %d", rdma_event_str(ev->event), ev->status);
	EXPECT_EQ(client, ev->id);
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, ev->event);
	EXPECT_EQ(8, ev->status);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_TRUE(cm_quiet(self->sch, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(client));
}

/* Destroying a connected id without rdma_disconnect disconnects the peer. */
TEST_F(conn, destroy_connected_id)
{
	struct cm_conn c;

	ASSERT_EQ(0, cm_connect_pair(self->cch, self->sch, self->listen, &c));
	ASSERT_EQ(0, rdma_destroy_id(c.server));
	ASSERT_EQ(0, cm_expect_ok(self->cch, RDMA_CM_EVENT_DISCONNECTED,
				  c.client));
	EXPECT_EQ(0, rdma_disconnect(c.client));
	cm_drain(self->cch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(c.client));
}

/* The same, with the active side going first. */
TEST_F(conn, destroy_connected_client)
{
	struct cm_conn c;

	ASSERT_EQ(0, cm_connect_pair(self->cch, self->sch, self->listen, &c));
	ASSERT_EQ(0, rdma_destroy_id(c.client));
	ASSERT_EQ(0, cm_expect_ok(self->sch, RDMA_CM_EVENT_DISCONNECTED,
				  c.server));
	EXPECT_EQ(0, rdma_disconnect(c.server));
	cm_drain(self->sch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(c.server));
}

/* A request's id outlives its listener. */
TEST_F(conn, accept_after_listener_destroyed)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct cm_conn c;

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &client));
	cm_conn_param(&param, cm_next_qpn(), cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_destroy_id(self->listen));
	/* the fixture's teardown destroys a listener: a fresh one */
	ASSERT_EQ(0, cm_listen(self->sch, RDMA_PS_TCP, 8, &self->listen));
	cm_conn_param(&param, cm_next_qpn(), cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(server, &param));
	ASSERT_EQ(0, cm_expect_ok(self->cch, RDMA_CM_EVENT_CONNECT_RESPONSE,
				  client));
	ASSERT_EQ(0, rdma_establish(client));
	ASSERT_EQ(0, cm_expect_ok(self->sch, RDMA_CM_EVENT_ESTABLISHED, server));
	c.client = client;
	c.server = server;
	ASSERT_EQ(0, cm_disconnect_pair(self->cch, self->sch, &c));
	cm_drain(self->cch, CM_QUIET_MS);
	if (self->sch != self->cch)
		cm_drain(self->sch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
}

/* A connect request that is never accepted dies with its id. */
TEST_F(conn, destroy_unanswered_request)
{
	struct rdma_cm_id *client, *server;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &client));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_destroy_id(server));
	ev = cm_expect(self->cch, RDMA_CM_EVENT_REJECTED, client, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	TH_LOG("destroyed request: REJECTED status %d", ev->status);
	EXPECT_EQ(cm_rejected_status(), ev->status);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_EQ(0, rdma_destroy_id(client));
}

/* Reads @len bytes from @fd within @ms: 0, 1 at EOF, -1 on timeout. */
static int read_within(int fd, void *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t ret;

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	ret = read(fd, buf, len);
	return ret == (ssize_t)len ? 0 : ret == 0 ? 1 : -1;
}

/* The client, in a child process with its own channel. */
static int child_client(int port_fd, int done_fd)
{
	struct rdma_event_channel *ch;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	__be16 port;
	char c;

	if (read_within(port_fd, &port, sizeof(port), CM_TIMEOUT_MS))
		return 10;
	ch = rdma_create_event_channel();
	if (!ch)
		return 11;
	if (cm_resolve(ch, RDMA_PS_TCP, port, &id))
		return 12;
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	if (rdma_connect(id, &param))
		return 13;
	ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_RESPONSE, id, CM_TIMEOUT_MS);
	if (!ev)
		return 14;
	if (ev->status || ev->param.conn.qp_num != CM_SERVER_QPN ||
	    !ev->param.conn.private_data ||
	    memcmp(ev->param.conn.private_data, cm_rep_data, sizeof(cm_rep_data)))
		return 15;
	rdma_ack_cm_event(ev);
	if (rdma_establish(id))
		return 16;
	/* the server disconnects first */
	if (cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, id))
		return 17;
	if (rdma_disconnect(id))
		return 18;
	cm_drain(ch, CM_QUIET_MS);
	if (rdma_destroy_id(id))
		return 19;
	rdma_destroy_event_channel(ch);
	/* stay until the parent has seen everything: EOF on @done_fd */
	if (read_within(done_fd, &c, 1, CM_TIMEOUT_MS) == 0)
		return 20;
	return 0;
}

/*
 * Client and server in two processes, each with its own channel. The
 * child is forked before this process makes any rdma_cm call.
 */
TEST(separate_processes)
{
	int port_pipe[2], done_pipe[2], status;
	struct rdma_event_channel *ch;
	struct rdma_conn_param param;
	struct rdma_cm_id *listen, *server;
	struct rdma_cm_event *ev;
	__be16 port;
	pid_t pid;

	ASSERT_EQ(0, pipe(port_pipe));
	ASSERT_EQ(0, pipe(done_pipe));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(port_pipe[1]);
		close(done_pipe[1]);
		_exit(child_client(port_pipe[0], done_pipe[0]));
	}
	close(port_pipe[0]);
	close(done_pipe[0]);
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, cm_listen(ch, RDMA_PS_TCP, 8, &listen));
	port = rdma_get_src_port(listen);
	ASSERT_EQ(sizeof(port), write(port_pipe[1], &port, sizeof(port)));

	ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(listen, ev->listen_id);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
				    ev->param.conn.private_data_len,
				    cm_req_data, sizeof(cm_req_data)));
	EXPECT_EQ(CM_CLIENT_QPN, ev->param.conn.qp_num);
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(server, &param));
	ASSERT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_ESTABLISHED, server));
	ASSERT_EQ(0, rdma_disconnect(server));
	ASSERT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, server));
	cm_drain(ch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(server));
	close(done_pipe[1]);
	status = cm_wait_pid(pid, CM_TIMEOUT_MS);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, rdma_destroy_id(listen));
	rdma_destroy_event_channel(ch);
	close(port_pipe[1]);
}

/*
 * A process that used the rdma_cm forks; the child makes its own channel
 * and connects to the parent's listener (the parent's ids and channel stay
 * the parent's).
 */
static int forked_client(__be16 port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param;
	struct rdma_cm_id *id;

	if (!ch)
		return 10;
	if (cm_resolve(ch, RDMA_PS_TCP, port, &id))
		return 11;
	if (!id->verbs)
		return 12;
	cm_conn_param(&param, cm_next_qpn(), cm_req_data, sizeof(cm_req_data));
	if (rdma_connect(id, &param))
		return 13;
	if (cm_expect_ok(ch, RDMA_CM_EVENT_CONNECT_RESPONSE, id))
		return 14;
	if (rdma_establish(id))
		return 15;
	if (cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, id))
		return 16;
	if (rdma_disconnect(id))
		return 17;
	cm_drain(ch, CM_QUIET_MS);
	if (rdma_destroy_id(id))
		return 18;
	rdma_destroy_event_channel(ch);
	return 0;
}

TEST(fork_after_use)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param;
	struct rdma_cm_id *listen, *server;
	struct rdma_cm_event *ev;
	struct cm_conn c;
	int status;
	pid_t pid;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, cm_listen(ch, RDMA_PS_TCP, 4, &listen));
	/* the parent has used everything once */
	ASSERT_EQ(0, cm_connect_pair(ch, ch, listen, &c));
	ASSERT_EQ(0, cm_disconnect_pair(ch, ch, &c));
	cm_drain(ch, CM_QUIET_MS);
	ASSERT_EQ(0, rdma_destroy_id(c.client));
	ASSERT_EQ(0, rdma_destroy_id(c.server));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(forked_client(rdma_get_src_port(listen)));
	ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	EXPECT_EQ(0, rdma_ack_cm_event(ev));
	/* not from cm_next_qpn(): the child's copy of it hands out the same */
	cm_conn_param(&param, CM_SERVER_QPN, NULL, 0);
	ASSERT_EQ(0, rdma_accept(server, &param));
	ASSERT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_ESTABLISHED, server));
	ASSERT_EQ(0, rdma_disconnect(server));
	ASSERT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, server));
	status = cm_wait_pid(pid, CM_TIMEOUT_MS);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	cm_drain(ch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(listen));
	rdma_destroy_event_channel(ch);
}

/*
 * A server that accepts one request, takes a second one without answering
 * (and without acking it), and waits to be killed.
 */
static int child_server(int port_fd, int ready_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listen;
	__be16 port;

	if (!ch || cm_listen(ch, RDMA_PS_TCP, 8, &listen))
		return 10;
	port = rdma_get_src_port(listen);
	if (write(port_fd, &port, sizeof(port)) != sizeof(port))
		return 11;
	ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	if (!ev)
		return 12;
	cm_conn_param(&param, CM_SERVER_QPN, NULL, 0);
	if (rdma_accept(ev->id, &param))
		return 13;
	rdma_ack_cm_event(ev);
	if (cm_expect_ok(ch, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return 14;
	if (write(ready_fd, "e", 1) != 1)
		return 15;
	ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	if (!ev)
		return 16;
	if (write(ready_fd, "r", 1) != 1)
		return 17;
	pause();
	return 0;
}

/*
 * A server process killed with a connection up and a request pending:
 * its peers are told (DISCONNECTED, REJECTED), nothing hangs.
 */
TEST(peer_process_killed)
{
	int port_pipe[2], ready_pipe[2], status, i;
	struct rdma_cm_id *up, *pending;
	struct rdma_event_channel *ch;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	__be16 port;
	char r;
	pid_t pid;

	ASSERT_EQ(0, pipe(port_pipe));
	ASSERT_EQ(0, pipe(ready_pipe));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(port_pipe[0]);
		close(ready_pipe[0]);
		_exit(child_server(port_pipe[1], ready_pipe[1]));
	}
	close(port_pipe[1]);
	close(ready_pipe[1]);
	ASSERT_EQ(0, read_within(port_pipe[0], &port, sizeof(port),
				 CM_TIMEOUT_MS));
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);

	ASSERT_EQ(0, cm_resolve(ch, RDMA_PS_TCP, port, &up));
	cm_conn_param(&param, CM_CLIENT_QPN, NULL, 0);
	ASSERT_EQ(0, rdma_connect(up, &param));
	ASSERT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_CONNECT_RESPONSE, up));
	ASSERT_EQ(0, rdma_establish(up));
	ASSERT_EQ(0, read_within(ready_pipe[0], &r, 1, CM_TIMEOUT_MS));
	ASSERT_EQ('e', r);

	/* two live connections from one CA need two QP numbers */
	ASSERT_EQ(0, cm_resolve(ch, RDMA_PS_TCP, port, &pending));
	param.qp_num = CM_CLIENT_QPN + 1;
	ASSERT_EQ(0, rdma_connect(pending, &param));
	ASSERT_EQ(0, read_within(ready_pipe[0], &r, 1, CM_TIMEOUT_MS));
	ASSERT_EQ('r', r);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	status = cm_wait_pid(pid, CM_TIMEOUT_MS);
	EXPECT_TRUE(WIFSIGNALED(status));

	/* in either order: the connection drops, the request is refused */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, cm_get_event(ch, &ev, CM_TIMEOUT_MS));
		TH_LOG("%s status %d on the %s id", rdma_event_str(ev->event),
		       ev->status, ev->id == up ? "connected" : "pending");
		EXPECT_EQ(ev->id == up ? RDMA_CM_EVENT_DISCONNECTED :
			  RDMA_CM_EVENT_REJECTED, ev->event);
		EXPECT_EQ(0, rdma_ack_cm_event(ev));
	}
	EXPECT_EQ(0, rdma_disconnect(up));
	cm_drain(ch, CM_QUIET_MS);
	EXPECT_EQ(0, rdma_destroy_id(up));
	EXPECT_EQ(0, rdma_destroy_id(pending));
	rdma_destroy_event_channel(ch);
}

TEST_HARNESS_MAIN
