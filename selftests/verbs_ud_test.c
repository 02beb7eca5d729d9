// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unreliable datagrams through the CM's UDP port space, over rxe: the
 * client's rdma_connect is a SIDR request, the server accepts with a UD
 * QP, and the client's ESTABLISHED carries what it needs to send
 * (rdma_get_cm_event(3): param.ud.ah_attr, qp_num and qkey). Datagrams
 * arrive behind the 40-byte GRH area; the server answers with an address
 * handle made by ibv_create_ah_from_wc(). Payloads checked byte for byte.
 */
#include "verbs_test.h"
#include "kselftest_harness.h"

/* A datagram slot: GRH area then payload, room for the largest MTU. */
#define SLOT		(VT_GRH + 4096)
#define NR_SLOTS	32
#define SEND_OFF	0
#define RECV_OFF	(NR_SLOTS * SLOT)
#define BUF_LEN		(2 * NR_SLOTS * SLOT)
#define FILLER		0xee

FIXTURE(ud) {
	struct vt_pair p;
	struct ibv_ah *ah;	/* client -> server, from the event */
	uint32_t server_qpn, server_qkey;
	size_t mtu;		/* largest datagram the port sends */
	struct rdma_ud_param ud;	/* the ESTABLISHED event's, copied */
	char rep_data[256];
};

FIXTURE_VARIANT(ud) {
	enum vt_wait wait;
};

FIXTURE_VARIANT_ADD(ud, busy_poll) {
	.wait = VT_BUSY_POLL,
};

FIXTURE_VARIANT_ADD(ud, comp_channel) {
	.wait = VT_CHANNEL,
};

FIXTURE_SETUP(ud)
{
	struct vt_pair *p = &self->p;
	struct rdma_conn_param param;
	struct ibv_port_attr port;
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, vt_pair_listen(p, RDMA_PS_UDP));
	ASSERT_EQ(0, vt_client_connect(p, IBV_QPT_UD, BUF_LEN, variant->wait));
	ASSERT_EQ(0, vt_server_take_request(p, IBV_QPT_UD, BUF_LEN,
					    variant->wait));
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(p->s.id, &param));
	ev = cm_expect(p->cch, RDMA_CM_EVENT_ESTABLISHED, p->c.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	self->ud = ev->param.ud;
	ASSERT_GE(sizeof(self->rep_data), self->ud.private_data_len);
	if (self->ud.private_data)
		memcpy(self->rep_data, self->ud.private_data,
		       self->ud.private_data_len);
	self->ah = ibv_create_ah(p->c.pd, &ev->param.ud.ah_attr);
	self->server_qpn = ev->param.ud.qp_num;
	self->server_qkey = ev->param.ud.qkey;
	rdma_ack_cm_event(ev);
	ASSERT_NE(NULL, self->ah);
	/* SIDR has no third leg: nothing more for the server */
	EXPECT_TRUE(cm_quiet(p->sch, CM_QUIET_MS));
	ASSERT_EQ(0, ibv_query_port(p->c.id->verbs, p->c.id->port_num, &port));
	self->mtu = 128u << port.active_mtu;
	ASSERT_GE(4096, self->mtu);
	memset(p->c.buf + RECV_OFF, FILLER, NR_SLOTS * SLOT);
	memset(p->s.buf + RECV_OFF, FILLER, NR_SLOTS * SLOT);
}

FIXTURE_TEARDOWN(ud)
{
	if (!_metadata->passed)
		return;
	EXPECT_EQ(0, ibv_destroy_ah(self->ah));
	EXPECT_EQ(0, vt_pair_close(&self->p));
}

/* A UD send of @len bytes at @off of @e's buffer to @ah/@qpn/@qkey. */
static int ud_send(struct vt_end *e, struct ibv_ah *ah, uint32_t qpn,
		   uint32_t qkey, uint64_t wr_id, size_t off, size_t len,
		   bool imm, uint32_t imm_data)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off, .length = (uint32_t)len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(imm_data),
	}, *bad;
	int ret;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	ret = ibv_post_send(e->id->qp, &wr, &bad);
	if (ret)
		fprintf(stderr, "# ibv_post_send (UD): %s\n", strerror(ret));
	return ret;
}

/* The SIDR exchange itself: what each side's event and QP say. */
TEST_F(ud, sidr_event_and_qp)
{
	struct vt_pair *p = &self->p;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	EXPECT_EQ(p->s.id->qp->qp_num, self->server_qpn);
	EXPECT_EQ(RDMA_UDP_QKEY, self->server_qkey);
	EXPECT_EQ(p->c.id->port_num, self->ud.ah_attr.port_num);
	EXPECT_TRUE(self->ud.ah_attr.is_global);
	EXPECT_EQ(0, memcmp(&self->ud.ah_attr.grh.dgid,
			    &p->c.id->route.addr.addr.ibaddr.dgid,
			    sizeof(union ibv_gid)));
	EXPECT_LE(sizeof(cm_rep_data), self->ud.private_data_len);
	EXPECT_EQ(0, memcmp(self->rep_data, cm_rep_data, sizeof(cm_rep_data)));
	/* the CM made both QPs ready to send, with the UDP port space's Q_Key */
	ASSERT_EQ(0, ibv_query_qp(p->c.id->qp, &attr,
				  IBV_QP_STATE | IBV_QP_QKEY, &init));
	EXPECT_EQ(IBV_QPS_RTS, attr.qp_state);
	EXPECT_EQ(RDMA_UDP_QKEY, attr.qkey);
	EXPECT_EQ(IBV_QPT_UD, p->c.id->qp->qp_type);
	ASSERT_EQ(0, ibv_query_qp(p->s.id->qp, &attr,
				  IBV_QP_STATE | IBV_QP_QKEY, &init));
	EXPECT_EQ(IBV_QPS_RTS, attr.qp_state);
	EXPECT_EQ(RDMA_UDP_QKEY, attr.qkey);
}

/*
 * Datagrams of several sizes up to the MTU from client to server (plain
 * and with immediate data); the server answers each through an AH made
 * from the completion and the GRH it received.
 */
TEST_F(ud, datagram_ping_pong)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	size_t sizes[] = { 1, 13, 100, 512, 1000, self->mtu };
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i];
		bool imm = i & 1;
		struct ibv_ah *reply;

		vt_fill(c->buf + SEND_OFF, len, i);
		memset(s->buf + RECV_OFF, FILLER, SLOT);
		ASSERT_EQ(0, vt_post_recv(s, 100 + i, RECV_OFF, SLOT));
		ASSERT_EQ(0, ud_send(c, self->ah, self->server_qpn,
				     self->server_qkey, 200 + i, SEND_OFF, len,
				     imm, 0x5000 + i));
		ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 200 + i));
		ASSERT_EQ(0, vt_expect_wc(s, &wc, IBV_WC_RECV, 100 + i));
		EXPECT_EQ(VT_GRH + len, wc.byte_len);
		EXPECT_TRUE(wc.wc_flags & IBV_WC_GRH);
		EXPECT_EQ(c->id->qp->qp_num, wc.src_qp);
		EXPECT_EQ(s->id->qp->qp_num, wc.qp_num);
		if (imm) {
			EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM);
			EXPECT_EQ(htonl(0x5000 + i), wc.imm_data);
		} else {
			EXPECT_FALSE(wc.wc_flags & IBV_WC_WITH_IMM);
		}
		ASSERT_TRUE(vt_check(s->buf + RECV_OFF + VT_GRH, len, i));
		EXPECT_EQ(FILLER, s->buf[RECV_OFF + VT_GRH + len]);

		/* the reply goes where the datagram came from */
		reply = ibv_create_ah_from_wc(s->pd, &wc,
					      (struct ibv_grh *)(s->buf + RECV_OFF),
					      s->id->port_num);
		ASSERT_NE(NULL, reply);
		vt_fill(s->buf + SEND_OFF, len, 50 + i);
		memset(c->buf + RECV_OFF, FILLER, SLOT);
		ASSERT_EQ(0, vt_post_recv(c, 300 + i, RECV_OFF, SLOT));
		ASSERT_EQ(0, ud_send(s, reply, wc.src_qp, RDMA_UDP_QKEY,
				     400 + i, SEND_OFF, len, false, 0));
		ASSERT_EQ(0, vt_expect_wc(s, &wc, IBV_WC_SEND, 400 + i));
		ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_RECV, 300 + i));
		EXPECT_EQ(VT_GRH + len, wc.byte_len);
		EXPECT_EQ(s->id->qp->qp_num, wc.src_qp);
		ASSERT_TRUE(vt_check(c->buf + RECV_OFF + VT_GRH, len, 50 + i));
		EXPECT_EQ(0, ibv_destroy_ah(reply));
	}
}

/* A burst of datagrams into as many posted receives: all, in order. */
TEST_F(ud, burst_in_order)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	struct ibv_wc wc[NR_SLOTS];
	enum { LEN = 200 };
	int i, n;

	for (i = 0; i < NR_SLOTS; i++) {
		ASSERT_EQ(0, vt_post_recv(s, 1000 + i, RECV_OFF + i * SLOT,
					  SLOT));
		vt_fill(c->buf + SEND_OFF + i * SLOT, LEN, 300 + i);
	}
	for (i = 0; i < NR_SLOTS; i++)
		ASSERT_EQ(0, ud_send(c, self->ah, self->server_qpn,
				     self->server_qkey, 2000 + i,
				     SEND_OFF + i * SLOT, LEN, false, 0));
	ASSERT_EQ(NR_SLOTS, vt_poll(c, wc, NR_SLOTS, CM_TIMEOUT_MS));
	for (i = 0; i < NR_SLOTS; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(2000 + i, wc[i].wr_id);
	}
	n = vt_poll(s, wc, NR_SLOTS, CM_TIMEOUT_MS);
	ASSERT_EQ(NR_SLOTS, n);
	for (i = 0; i < NR_SLOTS; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(1000 + i, wc[i].wr_id);
		EXPECT_EQ(VT_GRH + LEN, wc[i].byte_len);
		EXPECT_TRUE(vt_check(s->buf + RECV_OFF + i * SLOT + VT_GRH,
				     LEN, 300 + i));
	}
}

/*
 * What a UD QP does not take: a datagram with another Q_Key is dropped
 * at the receiver, and one larger than the MTU is not sent at all, yet
 * completes without error at the sender (IBTA C10-93.1.1). A good one
 * after both still arrives in the same posted receive.
 */
TEST_F(ud, wrong_qkey_and_oversize_dropped)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	struct ibv_wc wc;

	vt_fill(c->buf + SEND_OFF, self->mtu + 1, 9);
	ASSERT_EQ(0, vt_post_recv(s, 1, RECV_OFF, SLOT));
	ASSERT_EQ(0, ud_send(c, self->ah, self->server_qpn,
			     self->server_qkey ^ 0x1000, 2, SEND_OFF, 64,
			     false, 0));
	ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 2));
	ASSERT_EQ(0, ud_send(c, self->ah, self->server_qpn, self->server_qkey,
			     3, SEND_OFF, self->mtu + 1, false, 0));
	ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 3));
	EXPECT_TRUE(vt_cq_quiet(s, CM_QUIET_MS));
	ASSERT_EQ(0, ud_send(c, self->ah, self->server_qpn, self->server_qkey,
			     4, SEND_OFF, 64, false, 0));
	ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 4));
	ASSERT_EQ(0, vt_expect_wc(s, &wc, IBV_WC_RECV, 1));
	EXPECT_EQ(VT_GRH + 64, wc.byte_len);
	EXPECT_TRUE(vt_check(s->buf + RECV_OFF + VT_GRH, 64, 9));
}

TEST_HARNESS_MAIN
