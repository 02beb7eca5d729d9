// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What iWARP does differently, on soft-iWARP (selftests/run-in-guest
 * --siw; skipped elsewhere): what it has not (UD QPs, multicast, a
 * connection without a QP) fails with the errno the stock stack gives
 * there, and what it has more of (private data beyond the IB CM's REQ
 * and REP limits, carried in MPA frames) arrives whole. Its TCP-close
 * disconnect flushes both sides, and rdma_destroy_id waits for the
 * acknowledgement of DISCONNECTED as on RoCE. The stock build of this
 * test is the reference for every errno.
 */
#include <pthread.h>

#include <rdma/rsocket.h>

#include "verbs_test.h"
#include "kselftest_harness.h"

/* Private data beyond IB's REQ (56 bytes over RDMA_PS_TCP) and REP (196). */
#define MPA_DATA_LEN	200
/* receives posted on each side before a disconnect */
#define RECVS		8

#define IWARP_ONLY()							\
	do {								\
		if (!cm_on_iwarp())					\
			SKIP(return, "the run is not on iWARP");	\
	} while (0)

FIXTURE(iwarp) {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct vt_pair p;
};

FIXTURE_SETUP(iwarp)
{
	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
}

FIXTURE_TEARDOWN(iwarp)
{
	if (self->id) {
		if (self->id->qp)
			rdma_destroy_qp(self->id);
		EXPECT_EQ(0, rdma_destroy_id(self->id));
	}
	EXPECT_EQ(0, vt_pair_close(&self->p));
	rdma_destroy_event_channel(self->ch);
}

/* An id of @ps on the fixture's channel, resolved towards the test address. */
static int resolved(FIXTURE_DATA(iwarp) *self, enum rdma_port_space ps)
{
	return cm_resolve(self->ch, ps, htons(7), &self->id);
}

TEST_F(iwarp, ud_qp_is_refused)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	IWARP_ONLY();
	ASSERT_EQ(0, resolved(self, RDMA_PS_UDP));
	/* the id's own CQs (none given) */
	errno = 0;
	EXPECT_EQ(-1, rdma_create_qp(self->id, NULL, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(NULL, self->id->qp);
}

TEST_F(iwarp, multicast_join_is_refused)
{
	struct sockaddr_in group;

	IWARP_ONLY();
	ASSERT_EQ(0, resolved(self, RDMA_PS_UDP));
	cm_sockaddr(&group, "224.0.1.77", 0);
	errno = 0;
	EXPECT_EQ(-1, rdma_join_multicast(self->id, (struct sockaddr *)&group,
					  NULL));
	EXPECT_EQ(EINVAL, errno) TH_LOG("%s", strerror(errno));
	/* nothing was joined: no event comes */
	EXPECT_TRUE(cm_quiet(self->ch, CM_QUIET_MS));
}

/*
 * A connect of an id of @ps, announcing @qpn, to a listener of the same
 * space: refused with EINVAL at once, and nothing reaches the listener.
 */
static void connect_is_refused(struct __test_metadata *_metadata,
			       FIXTURE_DATA(iwarp) *self,
			       enum rdma_port_space ps, uint32_t qpn)
{
	struct rdma_conn_param param;
	struct rdma_cm_id *listen;

	ASSERT_EQ(0, cm_listen(self->ch, ps, 4, &listen));
	ASSERT_EQ(0, cm_resolve(self->ch, ps, rdma_get_src_port(listen),
				&self->id));
	cm_conn_param(&param, qpn, cm_req_data, sizeof(cm_req_data));
	errno = 0;
	EXPECT_EQ(-1, rdma_connect(self->id, &param));
	EXPECT_EQ(EINVAL, errno) TH_LOG("%s", strerror(errno));
	EXPECT_TRUE(cm_quiet(self->ch, CM_QUIET_MS));
	EXPECT_EQ(0, rdma_destroy_id(listen));
}

/* iw_cm takes the QP by number: a number that names none cannot connect. */
TEST_F(iwarp, connect_without_a_qp_is_refused)
{
	IWARP_ONLY();
	connect_is_refused(_metadata, self, RDMA_PS_TCP, cm_next_qpn());
}

/* A PS_UDP connect is IB's service lookup; iWARP has none and no UD QP. */
TEST_F(iwarp, service_lookup_is_refused)
{
	IWARP_ONLY();
	connect_is_refused(_metadata, self, RDMA_PS_UDP, 0);
}

/*
 * A datagram rsocket sends over a UD QP, which iWARP has not: its first
 * send fails, as stock's does there, and the rsocket closes cleanly.
 */
TEST_F(iwarp, datagram_rsocket_send_is_refused)
{
	struct sockaddr_in to;
	char byte = 1;
	int rs;

	IWARP_ONLY();
	cm_sockaddr(&to, cm_test_addr(), 7471);
	rs = rsocket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, rs) TH_LOG("rsocket: %s", strerror(errno));
	errno = 0;
	EXPECT_EQ(-1, rsendto(rs, &byte, 1, 0, (struct sockaddr *)&to,
			      sizeof(to)));
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, rclose(rs));
}

/* MPA carries more private data than IB's REQ and REP: all of it arrives. */
TEST_F(iwarp, private_data_beyond_ib_limits_arrives_whole)
{
	struct vt_pair *p = &self->p;
	struct rdma_conn_param param;
	unsigned char req[MPA_DATA_LEN], rep[MPA_DATA_LEN];
	struct rdma_cm_event *ev;

	IWARP_ONLY();
	vt_fill(req, sizeof(req), 1);
	vt_fill(rep, sizeof(rep), 2);
	ASSERT_EQ(0, vt_pair_listen(p, RDMA_PS_TCP));
	ASSERT_EQ(0, cm_resolve(p->cch, RDMA_PS_TCP,
				rdma_get_src_port(p->listen), &p->c.id));
	ASSERT_EQ(0, vt_end_open(&p->c, p->c.id->verbs, 4096, VT_BUSY_POLL));
	ASSERT_EQ(0, vt_create_qp(&p->c, IBV_QPT_RC, NULL));
	vt_conn_param(&param, req, sizeof(req));
	ASSERT_EQ(0, rdma_connect(p->c.id, &param));

	ev = cm_expect(p->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	p->s.id = ev->id;
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
					ev->param.conn.private_data_len,
					req, sizeof(req)));
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, vt_end_open(&p->s, p->s.id->verbs, 4096, VT_BUSY_POLL));
	ASSERT_EQ(0, vt_create_qp(&p->s, IBV_QPT_RC, NULL));
	vt_conn_param(&param, rep, sizeof(rep));
	ASSERT_EQ(0, rdma_accept(p->s.id, &param));

	ev = cm_expect(p->cch, RDMA_CM_EVENT_ESTABLISHED, p->c.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_TRUE(cm_private_data_is(ev->param.conn.private_data,
					ev->param.conn.private_data_len,
					rep, sizeof(rep)));
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, cm_expect_ok(p->sch, RDMA_CM_EVENT_ESTABLISHED, p->s.id));
	EXPECT_EQ(0, vt_pair_disconnect(p));
}

/* Every one of @n receives from @first on is flushed: 0 or -1. */
static int all_flushed(struct vt_end *e, uint64_t first, int n)
{
	struct ibv_wc wc[RECVS];
	int i, got = vt_poll(e, wc, n, CM_TIMEOUT_MS);

	if (got != n) {
		fprintf(stderr, "# %d of %d receives flushed\n", got, n);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
		    wc[i].wr_id != first + (uint64_t)i) {
			fprintf(stderr, "# completion %d: wr_id %llu status %s\n",
				i, (unsigned long long)wc[i].wr_id,
				ibv_wc_status_str(wc[i].status));
			return -1;
		}
	return 0;
}

/*
 * iWARP's disconnect is a TCP close: both ends hear DISCONNECTED without
 * the peer's rdma_disconnect (IB's DREQ waits for it), and by then the
 * receives posted on either side are flushed, with no call of the peer's.
 */
TEST_F(iwarp, disconnect_flushes_both_sides)
{
	struct vt_pair *p = &self->p;
	struct rdma_cm_event *ev;
	int i;

	IWARP_ONLY();
	ASSERT_EQ(0, vt_pair_connect_rc(p, RECVS * 64, VT_BUSY_POLL));
	for (i = 0; i < RECVS; i++) {
		ASSERT_EQ(0, vt_post_recv(&p->c, 100 + i, (size_t)i * 64, 64));
		ASSERT_EQ(0, vt_post_recv(&p->s, 200 + i, (size_t)i * 64, 64));
	}
	ASSERT_EQ(0, rdma_disconnect(p->c.id));
	ev = cm_expect(p->sch, RDMA_CM_EVENT_DISCONNECTED, p->s.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, all_flushed(&p->s, 200, RECVS));
	ev = cm_expect(p->cch, RDMA_CM_EVENT_DISCONNECTED, p->c.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, all_flushed(&p->c, 100, RECVS));
	/* the peer's own disconnect of a closed connection is no error */
	EXPECT_EQ(0, rdma_disconnect(p->s.id));
	EXPECT_TRUE(cm_quiet(p->cch, CM_QUIET_MS));
	EXPECT_TRUE(cm_quiet(p->sch, CM_QUIET_MS));
}

/*
 * rdma_destroy_id(3) waits for the acknowledgement of the id's events on
 * iWARP too: the server's DISCONNECTED, held unacknowledged, holds it.
 */
TEST_F(iwarp, destroy_waits_for_the_ack_of_disconnected)
{
	struct vt_pair *p = &self->p;
	struct cm_destroy_arg arg = {};
	struct rdma_cm_event *ev;
	pthread_t thread;

	IWARP_ONLY();
	ASSERT_EQ(0, vt_pair_connect_rc(p, RECVS * 64, VT_BUSY_POLL));
	ASSERT_EQ(0, rdma_disconnect(p->c.id));
	ev = cm_expect(p->sch, RDMA_CM_EVENT_DISCONNECTED, p->s.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	rdma_destroy_qp(p->s.id);
	arg.id = p->s.id;
	p->s.id = NULL;
	ASSERT_EQ(0, pthread_create(&thread, NULL, cm_destroyer, &arg));
	cm_sleep_ms(CM_QUIET_MS);
	EXPECT_EQ(0, arg.done);
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(1, arg.done);
	ASSERT_EQ(0, cm_expect_ok(p->cch, RDMA_CM_EVENT_DISCONNECTED, p->c.id));
}

TEST_HARNESS_MAIN
