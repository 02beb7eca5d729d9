// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Synchronous ids (rdma_create_id with a NULL channel, rdma_create_ep):
 * rdma_get_request(3) on them and not on others, calls that complete
 * without rdma_get_cm_event, and the event left in id->event ("The event
 * will be returned to the user through the rdma_cm_id structure",
 * rdma_create_id(3)). A synchronous call cannot be polled: each test runs
 * under a watchdog instead.
 */
#include <dlfcn.h>
#include <netdb.h>
#include <pthread.h>

#include "cm_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

/* Not part of the function list: linked weakly, skipped if absent. */
extern int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
			  struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
	__attribute__((weak));
extern void rdma_destroy_ep(struct rdma_cm_id *id) __attribute__((weak));
/*
 * QPs come later in rdmachan: the QP test looks ibv_query_qp up at run time
 * (a weak reference would bind to the symbol's oldest version).
 */
typedef int (*query_qp_fn)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask, struct ibv_qp_init_attr *init_attr);

/* The watchdog goes off first, with its own signal, inside the harness's limit. */
#define SYNC_WATCHDOG_S	60
#define SYNC_TIMEOUT_S	90

FIXTURE(sync) {
	int unused;
};

FIXTURE_SETUP(sync)
{
}

FIXTURE_TEARDOWN(sync)
{
}

/* "This call may only be used on listening rdma_cm_id's operating synchronously" */
TEST_F_TIMEOUT(sync, get_request_on_async_ids, SYNC_TIMEOUT_S)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen, *idle, *got = NULL;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, cm_listen(ch, RDMA_PS_TCP, 4, &listen));
	errno = 0;
	EXPECT_EQ(-1, rdma_get_request(listen, &got));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, got);
	ASSERT_EQ(0, rdma_create_id(ch, &idle, NULL, RDMA_PS_TCP));
	errno = 0;
	EXPECT_EQ(-1, rdma_get_request(idle, &got));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(cm_quiet(ch, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(idle));
	EXPECT_EQ(0, rdma_destroy_id(listen));
	rdma_destroy_event_channel(ch);
}

/*
 * An asynchronous client in a thread: connects to @port after @delay_ms,
 * establishes on CONNECT_RESPONSE, and when @disconnect answers the
 * server's disconnect. 0, or the step that failed.
 */
struct async_client {
	__be16 port;
	int delay_ms, reject_expected;
	int ret;
	struct rdma_cm_id *id;
	uint32_t qpn;
};

static void *async_client(void *arg)
{
	struct async_client *a = arg;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	a->ret = 1;
	if (!ch || cm_resolve(ch, RDMA_PS_TCP, a->port, &a->id))
		return NULL;
	cm_sleep_ms(a->delay_ms);
	cm_conn_param(&param, a->qpn, cm_req_data, sizeof(cm_req_data));
	a->ret = 2;
	if (rdma_connect(a->id, &param))
		return NULL;
	if (a->reject_expected) {
		a->ret = 3;
		ev = cm_expect(ch, RDMA_CM_EVENT_REJECTED, a->id, CM_TIMEOUT_MS);
		if (!ev)
			return NULL;
		a->ret = cm_private_data_is(ev->param.conn.private_data,
					 ev->param.conn.private_data_len,
					 cm_rej_data, sizeof(cm_rej_data)) ? 0 : 4;
		rdma_ack_cm_event(ev);
		goto out;
	}
	a->ret = 5;
	ev = cm_expect(ch, RDMA_CM_EVENT_CONNECT_RESPONSE, a->id, CM_TIMEOUT_MS);
	if (!ev)
		return NULL;
	a->ret = cm_private_data_is(ev->param.conn.private_data,
				 ev->param.conn.private_data_len, cm_rep_data,
				 sizeof(cm_rep_data)) ? 6 : 7;
	rdma_ack_cm_event(ev);
	if (a->ret == 7 || rdma_establish(a->id))
		return NULL;
	a->ret = 8;
	if (cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, a->id))
		return NULL;
	a->ret = 9;
	if (rdma_disconnect(a->id))
		return NULL;
	cm_drain(ch, CM_QUIET_MS);
	a->ret = 0;
out:
	if (rdma_destroy_id(a->id))
		a->ret = 10;
	rdma_destroy_event_channel(ch);
	return NULL;
}

/* A synchronous listener bound to the test address. */
static int sync_listener(struct rdma_cm_id **listen)
{
	struct sockaddr_in sin;

	if (rdma_create_id(NULL, listen, NULL, RDMA_PS_TCP))
		return -1;
	cm_sockaddr(&sin, cm_test_addr(), 0);
	return rdma_bind_addr(*listen, (struct sockaddr *)&sin) ||
	       rdma_listen(*listen, 4);
}

/*
 * "If no requests are pending, the call will block until an event is
 * received." ... "a new rdma_cm_id representing the connection request
 * will be returned" ... "will reference event information associated with
 * the request"
 */
TEST_F_TIMEOUT(sync, get_request_on_sync_listener, SYNC_TIMEOUT_S)
{
	struct async_client a = { .delay_ms = 1000, .qpn = CM_CLIENT_QPN };
	struct rdma_cm_id *listen, *id = NULL;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	pthread_t t;
	long t0;

	cm_watchdog(SYNC_WATCHDOG_S);
	ASSERT_EQ(0, sync_listener(&listen));
	ASSERT_NE(NULL, listen->verbs);
	a.port = rdma_get_src_port(listen);
	ASSERT_EQ(0, pthread_create(&t, NULL, async_client, &a));
	t0 = cm_now_ms();
	ASSERT_EQ(0, rdma_get_request(listen, &id));
	TH_LOG("rdma_get_request blocked %ld ms", cm_now_ms() - t0);
	EXPECT_LE(500, cm_now_ms() - t0);
	ASSERT_NE(NULL, id);
	EXPECT_NE(listen, id);
	EXPECT_EQ(listen->verbs, id->verbs);
	EXPECT_EQ(cm_port(listen), cm_port(id));
	ev = id->event;
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, ev->event);
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(id, ev->id);
	EXPECT_EQ(listen, ev->listen_id);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
				    ev->param.conn.private_data_len,
				    cm_req_data, sizeof(cm_req_data)));
	EXPECT_EQ(CM_CLIENT_QPN, ev->param.conn.qp_num);

	/* accept returns once the connection is established */
	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(id, &param));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, id->event->event);
	/* and disconnect once DISCONNECTED came */
	ASSERT_EQ(0, rdma_disconnect(id));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, id->event->event);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, a.ret);
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, rdma_destroy_id(listen));
}

/* Requests queue on the synchronous listener until taken. */
TEST_F_TIMEOUT(sync, get_request_takes_queued_requests, SYNC_TIMEOUT_S)
{
	struct async_client a[2] = {
		{ .qpn = cm_next_qpn(), .reject_expected = 1 },
		{ .qpn = cm_next_qpn(), .reject_expected = 1 },
	};
	struct rdma_cm_id *listen, *id[2];
	pthread_t t[2];
	int i, j;

	cm_watchdog(SYNC_WATCHDOG_S);
	ASSERT_EQ(0, sync_listener(&listen));
	for (i = 0; i < 2; i++) {
		a[i].port = rdma_get_src_port(listen);
		ASSERT_EQ(0, pthread_create(&t[i], NULL, async_client, &a[i]));
	}
	/* both requests are in before the first get */
	cm_sleep_ms(2000);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rdma_get_request(listen, &id[i]));
		ASSERT_NE(NULL, id[i]->event);
		EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, id[i]->event->event);
		for (j = 0; j < 2 && a[j].qpn != id[i]->event->param.conn.qp_num; j++)
			;
		EXPECT_GT(2, j);
	}
	EXPECT_NE(id[0], id[1]);
	EXPECT_NE(id[0]->event->param.conn.qp_num, id[1]->event->param.conn.qp_num);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, rdma_reject(id[i], cm_rej_data, sizeof(cm_rej_data)));
		EXPECT_EQ(0, rdma_destroy_id(id[i]));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		EXPECT_EQ(0, a[i].ret);
	}
	EXPECT_EQ(0, rdma_destroy_id(listen));
}

/* An asynchronous server in a thread: accepts one connection. */
struct async_server {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	int reject;
	int ret;
};

static void *async_server(void *arg)
{
	struct async_server *s = arg;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	s->ret = 1;
	ev = cm_expect(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	if (!ev)
		return NULL;
	id = ev->id;
	rdma_ack_cm_event(ev);
	if (s->reject) {
		s->ret = rdma_reject(id, cm_rej_data, sizeof(cm_rej_data)) ? 2 : 0;
		rdma_destroy_id(id);
		return NULL;
	}
	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	s->ret = 3;
	if (rdma_accept(id, &param) ||
	    cm_expect_ok(s->ch, RDMA_CM_EVENT_ESTABLISHED, id))
		return NULL;
	s->ret = 4;
	if (cm_expect_ok(s->ch, RDMA_CM_EVENT_DISCONNECTED, id) ||
	    rdma_disconnect(id))
		return NULL;
	cm_drain(s->ch, CM_QUIET_MS);
	s->ret = rdma_destroy_id(id) ? 5 : 0;
	return NULL;
}

/*
 * A synchronous client: resolve, route, connect and disconnect return
 * with the operation done, each leaving its event in id->event.
 */
TEST_F_TIMEOUT(sync, sync_client_calls_complete, SYNC_TIMEOUT_S)
{
	struct async_server s = {};
	struct rdma_conn_param param;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	pthread_t t;

	cm_watchdog(SYNC_WATCHDOG_S);
	s.ch = rdma_create_event_channel();
	ASSERT_NE(NULL, s.ch);
	ASSERT_EQ(0, cm_listen(s.ch, RDMA_PS_TCP, 4, &s.listen));
	ASSERT_EQ(0, pthread_create(&t, NULL, async_server, &s));

	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	cm_sockaddr(&dst, cm_test_addr(), rdma_get_src_port(s.listen));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       CM_RESOLVE_MS));
	ASSERT_NE(NULL, id->verbs);
	EXPECT_EQ(s.listen->verbs, id->verbs);
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, id->event->event);
	EXPECT_EQ(id, id->event->id);
	EXPECT_EQ(cm_port(s.listen), ntohs(rdma_get_dst_port(id)));

	ASSERT_EQ(0, rdma_resolve_route(id, CM_RESOLVE_MS));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_ROUTE_RESOLVED, id->event->event);
	EXPECT_LE(1, id->route.num_paths);

	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(id, &param));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_RESPONSE, id->event->event);
	EXPECT_EQ(0, id->event->status);
	EXPECT_EQ(CM_SERVER_QPN, id->event->param.conn.qp_num);
	EXPECT_TRUE(cm_private_data_is(id->event->param.conn.private_data,
				    id->event->param.conn.private_data_len,
				    cm_rep_data, sizeof(cm_rep_data)));
	ASSERT_EQ(0, rdma_establish(id));

	/* the server waits for DISCONNECTED, answers; we return after it */
	ASSERT_EQ(0, rdma_disconnect(id));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, id->event->event);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, s.ret);
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, rdma_destroy_id(s.listen));
	rdma_destroy_event_channel(s.ch);
}

/* A synchronous connect that is rejected fails with ECONNREFUSED. */
TEST_F_TIMEOUT(sync, sync_connect_rejected, SYNC_TIMEOUT_S)
{
	struct async_server s = { .reject = 1 };
	struct rdma_conn_param param;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	pthread_t t;

	cm_watchdog(SYNC_WATCHDOG_S);
	s.ch = rdma_create_event_channel();
	ASSERT_NE(NULL, s.ch);
	ASSERT_EQ(0, cm_listen(s.ch, RDMA_PS_TCP, 4, &s.listen));
	ASSERT_EQ(0, pthread_create(&t, NULL, async_server, &s));
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	cm_sockaddr(&dst, cm_test_addr(), rdma_get_src_port(s.listen));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       CM_RESOLVE_MS));
	ASSERT_EQ(0, rdma_resolve_route(id, CM_RESOLVE_MS));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	errno = 0;
	EXPECT_EQ(-1, rdma_connect(id, &param));
	EXPECT_EQ(ECONNREFUSED, errno);
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, id->event->event);
	EXPECT_EQ(cm_rejected_status(), id->event->status);
	EXPECT_TRUE(cm_private_data_is(id->event->param.conn.private_data,
				    id->event->param.conn.private_data_len,
				    cm_rej_data, sizeof(cm_rej_data)));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, s.ret);
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, rdma_destroy_id(s.listen));
	rdma_destroy_event_channel(s.ch);
}

/*
 * A failed synchronous address resolution reports through errno. ip takes
 * seconds under the debug kernel: a longer time limit.
 */
FIXTURE(netdev) {
	int unused;
};

FIXTURE_SETUP(netdev)
{
	run_cmd("ip link del cmts0 2>/dev/null");
}

FIXTURE_TEARDOWN(netdev)
{
	run_cmd("ip link del cmts0 2>/dev/null");
}

TEST_F_TIMEOUT(netdev, sync_resolve_addr_error, 180)
{
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	int ret;

	cm_watchdog(150);
	ASSERT_EQ(0, run_cmd("ip link add cmts0 type dummy && "
			     "ip addr add 10.81.0.1/24 dev cmts0 && "
			     "ip link set cmts0 up"));
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	cm_sockaddr(&dst, "10.81.0.2", htons(7471));
	errno = 0;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 500);
	TH_LOG("sync resolve through a netdev without RDMA: %d, %s", ret,
	       strerror(errno));
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(ENODEV, errno);
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_ERROR, id->event->event);
	EXPECT_EQ(-ENODEV, id->event->status);
	EXPECT_EQ(0, rdma_destroy_id(id));
}

/* A synchronous client and a synchronous server, in two threads. */
struct sync_server {
	struct rdma_cm_id *listen;
	int ret;
};

static void *sync_server(void *arg)
{
	struct sync_server *s = arg;
	struct rdma_conn_param param;
	struct rdma_cm_id *id;

	s->ret = 1;
	if (rdma_get_request(s->listen, &id))
		return NULL;
	s->ret = 2;
	if (!id->event || id->event->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return NULL;
	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	s->ret = 3;
	if (rdma_accept(id, &param))
		return NULL;
	s->ret = 4;
	if (!id->event || id->event->event != RDMA_CM_EVENT_ESTABLISHED)
		return NULL;
	/* the client disconnects first: ours finds DISCONNECTED queued */
	s->ret = 5;
	if (rdma_disconnect(id) || !id->event ||
	    id->event->event != RDMA_CM_EVENT_DISCONNECTED)
		return NULL;
	s->ret = rdma_destroy_id(id) ? 6 : 0;
	return NULL;
}

TEST_F_TIMEOUT(sync, sync_client_and_sync_server, SYNC_TIMEOUT_S)
{
	struct sync_server s = {};
	struct rdma_conn_param param;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	pthread_t t;

	cm_watchdog(SYNC_WATCHDOG_S);
	ASSERT_EQ(0, sync_listener(&s.listen));
	ASSERT_EQ(0, pthread_create(&t, NULL, sync_server, &s));
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	cm_sockaddr(&dst, cm_test_addr(), rdma_get_src_port(s.listen));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       CM_RESOLVE_MS));
	ASSERT_EQ(0, rdma_resolve_route(id, CM_RESOLVE_MS));
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(id, &param));
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_RESPONSE, id->event->event);
	ASSERT_EQ(0, rdma_establish(id));
	/* give the server time to see ESTABLISHED before we disconnect */
	cm_sleep_ms(1000);
	ASSERT_EQ(0, rdma_disconnect(id));
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, id->event->event);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, s.ret);
	EXPECT_EQ(0, rdma_destroy_id(id));
	EXPECT_EQ(0, rdma_destroy_id(s.listen));
}

/*
 * rdma_create_ep(3) with rdma_getaddrinfo(3): a passive endpoint that
 * listens without rdma_bind_addr, an active one that connects without
 * rdma_resolve_addr/route; both synchronous.
 */
struct ep_client {
	char port[16];
	int ret;
};

static void *ep_client(void *arg)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ep_client *c = arg;
	struct rdma_conn_param param;
	struct rdma_cm_id *id;

	c->ret = 1;
	if (rdma_getaddrinfo(cm_test_addr(), c->port, &hints, &res))
		return NULL;
	c->ret = 2;
	if (rdma_create_ep(&id, res, NULL, NULL))
		goto out;
	rdma_freeaddrinfo(res);
	res = NULL;
	c->ret = 3;
	if (!id->verbs || id->route.num_paths < 1)
		goto out;
	cm_conn_param(&param, CM_CLIENT_QPN, cm_req_data, sizeof(cm_req_data));
	c->ret = 4;
	if (rdma_connect(id, &param) || !id->event ||
	    id->event->event != RDMA_CM_EVENT_CONNECT_RESPONSE)
		goto out;
	c->ret = 5;
	if (rdma_establish(id))
		goto out;
	cm_sleep_ms(1000);
	c->ret = 6;
	if (rdma_disconnect(id))
		goto out;
	c->ret = 0;
	rdma_destroy_ep(id);
out:
	if (res)
		rdma_freeaddrinfo(res);
	return NULL;
}

TEST_F_TIMEOUT(sync, create_ep_passive_and_active, SYNC_TIMEOUT_S)
{
	struct rdma_addrinfo hints = {
		.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP,
	}, *res;
	struct rdma_conn_param param;
	struct rdma_cm_id *listen, *id;
	struct ep_client c;
	pthread_t t;

	if (!rdma_create_ep || !rdma_destroy_ep)
		SKIP(return, "no rdma_create_ep in this library");
	cm_watchdog(SYNC_WATCHDOG_S);
	ASSERT_EQ(0, rdma_getaddrinfo(cm_test_addr(), "0", &hints, &res));
	ASSERT_EQ(0, rdma_create_ep(&listen, res, NULL, NULL));
	rdma_freeaddrinfo(res);
	ASSERT_EQ(0, rdma_listen(listen, 4));
	ASSERT_NE(0, cm_port(listen));
	snprintf(c.port, sizeof(c.port), "%d", cm_port(listen));
	ASSERT_EQ(0, pthread_create(&t, NULL, ep_client, &c));
	ASSERT_EQ(0, rdma_get_request(listen, &id));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, id->event->event);
	EXPECT_EQ(listen, id->event->listen_id);
	EXPECT_TRUE(cm_private_data_is(id->event->param.conn.private_data,
				    id->event->param.conn.private_data_len,
				    cm_req_data, sizeof(cm_req_data)));
	/* no QP attributes given: no QP */
	EXPECT_EQ(NULL, id->qp);
	cm_conn_param(&param, CM_SERVER_QPN, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(id, &param));
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, id->event->event);
	ASSERT_EQ(0, rdma_disconnect(id));
	EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, id->event->event);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c.ret);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen);
}

/*
 * "If QP attributes are associated with the listening endpoint, the
 * returned rdma_cm_id will also reference an allocated QP." And
 * rdma_disconnect(3) "transitions any associated QP to the error state".
 */
TEST_F_TIMEOUT(sync, get_request_with_qp_attrs, SYNC_TIMEOUT_S)
{
	struct rdma_addrinfo hints = {
		.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP,
	}, *res;
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_init_attr got_init;
	struct rdma_conn_param param;
	struct rdma_cm_id *listen, *id;
	query_qp_fn query_qp = (query_qp_fn)dlsym(RTLD_DEFAULT, "ibv_query_qp");
	struct ibv_qp_attr attr;
	struct ep_client c;
	pthread_t t;

	if (!rdma_create_ep || !rdma_destroy_ep || !query_qp)
		SKIP(return, "no rdma_create_ep or QPs in this library");
	cm_watchdog(SYNC_WATCHDOG_S);
	ASSERT_EQ(0, rdma_getaddrinfo(cm_test_addr(), "0", &hints, &res));
	if (rdma_create_ep(&listen, res, NULL, &init)) {
		rdma_freeaddrinfo(res);
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			SKIP(return, "no QPs in this library");
		ASSERT_EQ(0, errno);
	}
	rdma_freeaddrinfo(res);
	ASSERT_EQ(0, rdma_listen(listen, 4));
	snprintf(c.port, sizeof(c.port), "%d", cm_port(listen));
	ASSERT_EQ(0, pthread_create(&t, NULL, ep_client, &c));
	ASSERT_EQ(0, rdma_get_request(listen, &id));
	ASSERT_NE(NULL, id->qp);
	EXPECT_EQ(IBV_QPT_RC, id->qp->qp_type);
	EXPECT_EQ(id->verbs, id->qp->context);
	cm_conn_param(&param, 0, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(id, &param));
	ASSERT_EQ(0, query_qp(id->qp, &attr, IBV_QP_STATE, &got_init));
	EXPECT_EQ(IBV_QPS_RTS, attr.qp_state);
	ASSERT_EQ(0, rdma_disconnect(id));
	ASSERT_EQ(0, query_qp(id->qp, &attr, IBV_QP_STATE, &got_init));
	EXPECT_EQ(IBV_QPS_ERR, attr.qp_state);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c.ret);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen);
}

/* rdma_migrate_id(id, NULL) makes an asynchronous id synchronous. */
TEST_F_TIMEOUT(sync, migrate_to_sync, SYNC_TIMEOUT_S)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst;
	struct rdma_cm_id *id;

	cm_watchdog(SYNC_WATCHDOG_S);
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_migrate_id(id, NULL));
	EXPECT_NE(ch, id->channel);
	cm_sockaddr(&dst, cm_test_addr(), htons(7471));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       CM_RESOLVE_MS));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, id->event->event);
	EXPECT_TRUE(cm_quiet(ch, CM_QUIET_MS));
	/* a synchronous id cannot be made synchronous again */
	errno = 0;
	EXPECT_EQ(-1, rdma_migrate_id(id, NULL));
	EXPECT_EQ(EINVAL, errno);
	/* and back to a channel */
	ASSERT_EQ(0, rdma_migrate_id(id, ch));
	EXPECT_EQ(ch, id->channel);
	ASSERT_EQ(0, rdma_resolve_route(id, CM_RESOLVE_MS));
	EXPECT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

TEST_HARNESS_MAIN
