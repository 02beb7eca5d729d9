// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues, over rxe: one SRQ behind the server QPs of two
 * CM connections (ibv_create_srq, a QP made on it by rdma_create_qp,
 * ibv_post_srq_recv), its attributes (ibv_query_srq, ibv_modify_srq), what
 * it refuses while in use, and the rdma_create_srq/rdma_verbs.h way of
 * doing the same on one id.
 */
#include <rdma/rdma_verbs.h>

#include "verbs_test.h"
#include "kselftest_harness.h"

#define NR_CLIENTS	2
#define SRQ_WR		32
#define MSG		128
#define PER_CLIENT	12
#define BUF_LEN		(2 * SRQ_WR * MSG)

FIXTURE(srq) {
	struct rdma_event_channel *cch, *sch;
	struct rdma_cm_id *listen;
	struct vt_end c[NR_CLIENTS];
	struct vt_end s;		/* server resources, s.id unused */
	struct rdma_cm_id *sid[NR_CLIENTS];
	struct ibv_srq *srq;
	struct ibv_srq_init_attr init;	/* as created */
};

FIXTURE_SETUP(srq)
{
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;
	int i;

	self->cch = rdma_create_event_channel();
	self->sch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->cch);
	ASSERT_NE(NULL, self->sch);
	ASSERT_EQ(0, cm_listen(self->sch, RDMA_PS_TCP, 8, &self->listen));
	ASSERT_EQ(0, vt_end_open(&self->s, self->listen->verbs, BUF_LEN,
				 VT_BUSY_POLL));
	self->init = (struct ibv_srq_init_attr){
		.srq_context = self,
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	self->srq = ibv_create_srq(self->s.pd, &self->init);
	ASSERT_NE(NULL, self->srq) {
		TH_LOG("ibv_create_srq: %s", strerror(errno));
	}
	EXPECT_EQ(self->s.pd, self->srq->pd);
	EXPECT_EQ(self, self->srq->srq_context);
	/* "the actual values of the SRQ are returned" in attr */
	EXPECT_LE(SRQ_WR, self->init.attr.max_wr);
	EXPECT_LE(1, self->init.attr.max_sge);

	for (i = 0; i < NR_CLIENTS; i++) {
		struct vt_end *c = &self->c[i];

		ASSERT_EQ(0, cm_resolve(self->cch, RDMA_PS_TCP,
					rdma_get_src_port(self->listen),
					&c->id));
		ASSERT_EQ(0, vt_end_open(c, c->id->verbs, BUF_LEN,
					 VT_BUSY_POLL));
		ASSERT_EQ(0, vt_create_qp(c, IBV_QPT_RC, NULL));
		vt_conn_param(&param, cm_req_data, sizeof(cm_req_data));
		ASSERT_EQ(0, rdma_connect(c->id, &param));
		ev = cm_expect(self->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
			       CM_TIMEOUT_MS);
		ASSERT_NE(NULL, ev);
		self->sid[i] = ev->id;
		rdma_ack_cm_event(ev);
		vt_qp_attr(&attr, &self->s, IBV_QPT_RC, self->srq);
		ASSERT_EQ(0, rdma_create_qp(self->sid[i], self->s.pd, &attr));
		EXPECT_EQ(self->srq, self->sid[i]->qp->srq);
		vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
		ASSERT_EQ(0, rdma_accept(self->sid[i], &param));
		ASSERT_EQ(0, cm_expect_ok(self->cch, RDMA_CM_EVENT_ESTABLISHED,
					  c->id));
		ASSERT_EQ(0, cm_expect_ok(self->sch, RDMA_CM_EVENT_ESTABLISHED,
					  self->sid[i]));
	}
}

FIXTURE_TEARDOWN(srq)
{
	int i;

	if (!_metadata->passed)
		return;
	for (i = 0; i < NR_CLIENTS; i++) {
		struct cm_conn conn = { .client = self->c[i].id,
					.server = self->sid[i] };

		EXPECT_EQ(0, cm_disconnect_pair(self->cch, self->sch, &conn));
		EXPECT_EQ(0, vt_end_close(&self->c[i]));
		rdma_destroy_qp(self->sid[i]);
		EXPECT_EQ(0, rdma_destroy_id(self->sid[i]));
	}
	EXPECT_EQ(0, ibv_destroy_srq(self->srq));
	EXPECT_EQ(0, vt_end_close(&self->s));
	EXPECT_EQ(0, rdma_destroy_id(self->listen));
	cm_drain(self->cch, 0);
	cm_drain(self->sch, 0);
	rdma_destroy_event_channel(self->cch);
	rdma_destroy_event_channel(self->sch);
}

/* Receive @wr_id into slot @slot of the server buffer, through the SRQ. */
static int post_srq(struct vt_end *s, struct ibv_srq *srq, uint64_t wr_id,
		    int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + (size_t)slot * MSG,
		.length = MSG, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

TEST_F(srq, query_and_modify)
{
	struct ibv_device_attr dev;
	struct ibv_srq_attr attr;

	/* at least what was asked for (rxe rounds the ring up) */
	ASSERT_EQ(0, ibv_query_srq(self->srq, &attr));
	EXPECT_LE(SRQ_WR, attr.max_wr);
	EXPECT_LE(1, attr.max_sge);
	EXPECT_EQ(0, attr.srq_limit);

	/* arm the limit */
	attr = (struct ibv_srq_attr){ .srq_limit = 5 };
	ASSERT_EQ(0, ibv_modify_srq(self->srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(self->srq, &attr));
	EXPECT_EQ(5, attr.srq_limit);
	EXPECT_LE(SRQ_WR, attr.max_wr);

	/* a limit beyond the queue is refused, and changes nothing */
	attr = (struct ibv_srq_attr){ .srq_limit = 100000 };
	EXPECT_NE(0, ibv_modify_srq(self->srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(self->srq, &attr));
	EXPECT_EQ(5, attr.srq_limit);

	/* resizing, where the device says it can */
	ASSERT_EQ(0, ibv_query_device(self->s.pd->context, &dev));
	attr = (struct ibv_srq_attr){ .max_wr = 2 * SRQ_WR };
	if (dev.device_cap_flags & IBV_DEVICE_SRQ_RESIZE) {
		ASSERT_EQ(0, ibv_modify_srq(self->srq, &attr, IBV_SRQ_MAX_WR));
		ASSERT_EQ(0, ibv_query_srq(self->srq, &attr));
		EXPECT_LE(2 * SRQ_WR, attr.max_wr);
	} else {
		EXPECT_NE(0, ibv_modify_srq(self->srq, &attr, IBV_SRQ_MAX_WR));
	}
}

/*
 * Both clients send PER_CLIENT messages into the one SRQ: every message
 * arrives once, on the server QP of its connection, in its connection's
 * order, into whichever receive the SRQ handed out.
 */
TEST_F(srq, two_connections_share_receives)
{
	struct vt_end *s = &self->s;
	int next[NR_CLIENTS] = { 0 };
	struct ibv_wc wc[NR_CLIENTS * PER_CLIENT];
	int i, k, n;

	for (i = 0; i < NR_CLIENTS * PER_CLIENT; i++)
		ASSERT_EQ(0, post_srq(s, self->srq, 100 + i, i));
	for (i = 0; i < PER_CLIENT; i++) {
		for (k = 0; k < NR_CLIENTS; k++) {
			struct vt_end *c = &self->c[k];
			unsigned char *m = c->buf + (size_t)i * MSG;

			vt_fill(m, MSG, 1000 * k + i);
			m[0] = (unsigned char)k;
			m[1] = (unsigned char)i;
			ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 200 + i,
						  (size_t)i * MSG, MSG, 0, 0,
						  0, 0));
		}
	}
	for (k = 0; k < NR_CLIENTS; k++) {
		ASSERT_EQ(PER_CLIENT, vt_poll(&self->c[k], wc, PER_CLIENT,
					      CM_TIMEOUT_MS));
		for (i = 0; i < PER_CLIENT; i++)
			EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
	}
	n = vt_poll(s, wc, NR_CLIENTS * PER_CLIENT, CM_TIMEOUT_MS);
	ASSERT_EQ(NR_CLIENTS * PER_CLIENT, n);
	for (i = 0; i < n; i++) {
		unsigned char *m;
		int from, seq;

		ASSERT_EQ(IBV_WC_SUCCESS, wc[i].status);
		ASSERT_EQ(IBV_WC_RECV, wc[i].opcode);
		ASSERT_EQ(MSG, wc[i].byte_len);
		ASSERT_LE(100, wc[i].wr_id);
		ASSERT_GT(100 + NR_CLIENTS * PER_CLIENT, wc[i].wr_id);
		m = s->buf + (wc[i].wr_id - 100) * MSG;
		from = m[0];
		seq = m[1];
		ASSERT_GT(NR_CLIENTS, from);
		/* on the QP of the sender's connection, in its order */
		EXPECT_EQ(self->sid[from]->qp->qp_num, wc[i].qp_num);
		EXPECT_EQ(next[from], seq);
		next[from] = seq + 1;
		m[0] = vt_pattern(1000 * from + seq, 0);
		m[1] = vt_pattern(1000 * from + seq, 1);
		EXPECT_TRUE(vt_check(m, MSG, 1000 * from + seq));
	}
	EXPECT_TRUE(vt_cq_quiet(s, CM_QUIET_MS));
}

/*
 * An SRQ in use cannot go (ibv_destroy_srq: EBUSY, and it still works
 * afterwards); a QP on an SRQ takes no receives of its own.
 */
TEST_F(srq, busy_srq_and_qp_without_rq)
{
	struct vt_end *s = &self->s, *c = &self->c[0];
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = MSG,
			       .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_wc wc;

	EXPECT_EQ(EBUSY, ibv_destroy_srq(self->srq));
	EXPECT_NE(0, ibv_post_recv(self->sid[0]->qp, &wr, &bad));
	EXPECT_TRUE(vt_bad_wr_is(bad, &wr));
	/* the SRQ still delivers */
	ASSERT_EQ(0, post_srq(s, self->srq, 7, 0));
	vt_fill(c->buf, MSG, 3);
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 8, 0, MSG, 0, 0, 0, 0));
	ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 8));
	ASSERT_EQ(0, vt_expect_wc(s, &wc, IBV_WC_RECV, 7));
	EXPECT_EQ(self->sid[0]->qp->qp_num, wc.qp_num);
	EXPECT_TRUE(vt_check(s->buf, MSG, 3));
}

/*
 * rdma_create_srq(3) on the server id of a connection of its own: the QP
 * rdma_create_qp then makes uses id->srq, and rdma_post_recv posts to it.
 */
TEST(rdma_create_srq_on_an_id)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct vt_pair p;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char msg[MSG];

	ASSERT_EQ(0, vt_pair_listen(&p, RDMA_PS_TCP));
	ASSERT_EQ(0, vt_client_connect(&p, IBV_QPT_RC, BUF_LEN, VT_BUSY_POLL));
	ev = cm_expect(p.sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	p.s.id = ev->id;
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, vt_end_open(&p.s, p.s.id->verbs, BUF_LEN, VT_BUSY_POLL));
	ASSERT_EQ(0, rdma_create_srq(p.s.id, p.s.pd, &sattr));
	ASSERT_NE(NULL, p.s.id->srq);
	vt_qp_attr(&attr, &p.s, IBV_QPT_RC, NULL);
	attr.cap.max_recv_wr = attr.cap.max_recv_sge = 0;
	ASSERT_EQ(0, rdma_create_qp(p.s.id, p.s.pd, &attr));
	EXPECT_EQ(p.s.id->srq, p.s.id->qp->srq);
	mr = rdma_reg_msgs(p.s.id, msg, sizeof(msg));
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, rdma_post_recv(p.s.id, msg, msg, sizeof(msg), mr));
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(p.s.id, &param));
	ASSERT_EQ(0, cm_expect_ok(p.cch, RDMA_CM_EVENT_ESTABLISHED, p.c.id));
	ASSERT_EQ(0, cm_expect_ok(p.sch, RDMA_CM_EVENT_ESTABLISHED, p.s.id));
	vt_fill(p.c.buf, MSG, 11);
	ASSERT_EQ(0, vt_post_send(&p.c, IBV_WR_SEND, 1, 0, MSG, 0, 0, 0, 0));
	ASSERT_EQ(0, vt_expect_wc(&p.c, &wc, IBV_WC_SEND, 1));
	ASSERT_EQ(0, vt_expect_wc(&p.s, &wc, IBV_WC_RECV, (uintptr_t)msg));
	EXPECT_TRUE(vt_check(msg, MSG, 11));
	ASSERT_EQ(0, vt_pair_disconnect(&p));
	EXPECT_EQ(0, rdma_dereg_mr(mr));
	rdma_destroy_qp(p.s.id);
	rdma_destroy_srq(p.s.id);
	EXPECT_EQ(NULL, p.s.id->srq);
	EXPECT_EQ(0, vt_pair_close(&p));
}

TEST_HARNESS_MAIN
