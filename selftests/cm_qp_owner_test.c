// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Nobody else's connection: a QP number in rdma_connect() or
 * rdma_accept() that names a QP of another process is refused with
 * EACCES before anything is sent (uapi/rdmachan.h, RDMACHAN_IOC_CONNECT).
 *
 * This process holds a connection (RC, or UD through SIDR) whose QPs the
 * CM made with rdma_create_qp(), and carries data on it. Another program,
 * qp_owner_intruder, exec'd as the unprivileged user "nobody", connects
 * to a listener of its own naming one of those QPs. The IB CM would take
 * such a request for a stale copy of our connection and disconnect it,
 * and rdmachan would then move our QP to the error state. Here the
 * intruder gets EACCES, our QPs stay in RTS, our ids get no event and
 * the connection still carries data both ways. A QP of the intruder's
 * own not bound to the id, and a number that names no QP, go through
 * (on iWARP, whose CM takes the QP by number, the latter is EINVAL).
 *
 * Not run on the stock stack: there the intruder's call succeeds.
 */
#include "verbs_test.h"
#include "qp_owner.h"
#include "kselftest_harness.h"

#define SLOT		(VT_GRH + 64)
#define SEND_OFF	0
#define RECV_OFF	4096
#define BUF_LEN		8192
/*
 * Up to two intruders of INTRUDER_MS each, beside the connection's own
 * setup: the harness's 30 s is too short for siw under the debug kernel.
 */
#define OWNER_TIMEOUT_S	120

FIXTURE(owner) {
	struct vt_pair p;
	/* UD: each end's address handle of the other, and their numbers */
	struct ibv_ah *to_server, *to_client;
	uint32_t qkey;
	unsigned int seed;
};

FIXTURE_VARIANT(owner) {
	enum ibv_qp_type type;
	const char *name;
};

FIXTURE_VARIANT_ADD(owner, rc) {
	.type = IBV_QPT_RC,
	.name = "rc",
};

FIXTURE_VARIANT_ADD(owner, ud) {
	.type = IBV_QPT_UD,
	.name = "ud",
};

/* iWARP has no UD QPs: the UD variant skips there, in setup and test. */
#define SKIP_UD_ON_IWARP()						\
	do {								\
		if (variant->type == IBV_QPT_UD)			\
			CM_SKIP_ON_IWARP("UD QPs");			\
	} while (0)

/* A UD datagram of @len bytes at SEND_OFF of @e to @ah/@qpn. */
static int ud_send(struct vt_end *e, struct ibv_ah *ah, uint32_t qpn,
		   uint32_t qkey, uint64_t wr_id, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + SEND_OFF, .length = (uint32_t)len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(e->id->qp, &wr, &bad);
}

/*
 * One message from @from to @to, checked byte for byte: 0 or -1. UD
 * receives land behind the GRH area.
 */
static int one_message(FIXTURE_DATA(owner) *self, enum ibv_qp_type type,
		       struct vt_end *from, struct vt_end *to,
		       struct ibv_ah *ah)
{
	size_t len = 64, grh = type == IBV_QPT_UD ? VT_GRH : 0;
	unsigned int seed = ++self->seed;
	struct ibv_wc wc;

	memset(to->buf + RECV_OFF, 0, SLOT);
	vt_fill(from->buf + SEND_OFF, len, seed);
	if (vt_post_recv(to, seed, RECV_OFF, grh + len))
		return -1;
	if (type == IBV_QPT_UD) {
		if (ud_send(from, ah, to->id->qp->qp_num, self->qkey, seed, len))
			return -1;
	} else if (vt_post_send(from, IBV_WR_SEND, seed, SEND_OFF, len, 0, 0,
				0, 0)) {
		return -1;
	}
	if (vt_expect_wc(from, &wc, IBV_WC_SEND, seed) ||
	    vt_expect_wc(to, &wc, IBV_WC_RECV, seed))
		return -1;
	if (wc.byte_len != grh + len) {
		fprintf(stderr, "# received %u bytes, want %zu\n", wc.byte_len,
			grh + len);
		return -1;
	}
	return vt_check(to->buf + RECV_OFF + grh, len, seed) ? 0 : -1;
}

/* Data both ways, both QPs in RTS, no CM event on either side: 0 or -1. */
static int connection_intact(FIXTURE_DATA(owner) *self,
			     enum ibv_qp_type type)
{
	struct vt_pair *p = &self->p;

	if (!vt_qp_state_is(p->c.id->qp, IBV_QPS_RTS) ||
	    !vt_qp_state_is(p->s.id->qp, IBV_QPS_RTS))
		return -1;
	if (!cm_quiet(p->cch, CM_QUIET_MS) || !cm_quiet(p->sch, CM_QUIET_MS))
		return -1;
	if (one_message(self, type, &p->c, &p->s, self->to_server) ||
	    one_message(self, type, &p->s, &p->c, self->to_client))
		return -1;
	return 0;
}

FIXTURE_SETUP(owner)
{
	struct vt_pair *p = &self->p;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct ibv_ah_attr back;

	SKIP_UD_ON_IWARP();
	if (variant->type == IBV_QPT_RC) {
		ASSERT_EQ(0, vt_pair_connect_rc(p, BUF_LEN, VT_BUSY_POLL));
		ASSERT_EQ(0, connection_intact(self, variant->type));
		return;
	}
	ASSERT_EQ(0, vt_pair_listen(p, RDMA_PS_UDP));
	ASSERT_EQ(0, vt_client_connect(p, IBV_QPT_UD, BUF_LEN, VT_BUSY_POLL));
	ASSERT_EQ(0, vt_server_take_request(p, IBV_QPT_UD, BUF_LEN,
					    VT_BUSY_POLL));
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(p->s.id, &param));
	ev = cm_expect(p->cch, RDMA_CM_EVENT_ESTABLISHED, p->c.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	self->to_server = ibv_create_ah(p->c.pd, &ev->param.ud.ah_attr);
	self->qkey = ev->param.ud.qkey;
	/* the way back: the same GIDs swapped, which loopback makes equal */
	back = ev->param.ud.ah_attr;
	rdma_ack_cm_event(ev);
	ASSERT_NE(NULL, self->to_server);
	self->to_client = ibv_create_ah(p->s.pd, &back);
	ASSERT_NE(NULL, self->to_client);
	ASSERT_EQ(0, connection_intact(self, variant->type));
}

FIXTURE_TEARDOWN(owner)
{
	if (!_metadata->passed)
		return;
	if (self->to_server)
		EXPECT_EQ(0, ibv_destroy_ah(self->to_server));
	if (self->to_client)
		EXPECT_EQ(0, ibv_destroy_ah(self->to_client));
	if (variant->type == IBV_QPT_RC)
		EXPECT_EQ(0, vt_pair_disconnect(&self->p));
	EXPECT_EQ(0, vt_pair_close(&self->p));
}

static const char *qpn_str(char *buf, size_t len, struct ibv_qp *qp)
{
	snprintf(buf, len, "%u", qp->qp_num);
	return buf;
}

/* "rdma_connect ... with conn_param->qp_num set to A's client QP number" */
TEST_F_TIMEOUT(owner, connect_naming_our_client_qp_gets_eacces, OWNER_TIMEOUT_S)
{
	char qpn[16];

	SKIP_UD_ON_IWARP();
	EXPECT_EQ(EACCES, intruder("connect", variant->name,
				   qpn_str(qpn, sizeof(qpn),
					   self->p.c.id->qp)));
	EXPECT_EQ(0, connection_intact(self, variant->type));
}

TEST_F_TIMEOUT(owner, connect_naming_our_server_qp_gets_eacces, OWNER_TIMEOUT_S)
{
	char qpn[16];

	SKIP_UD_ON_IWARP();
	EXPECT_EQ(EACCES, intruder("connect", variant->name,
				   qpn_str(qpn, sizeof(qpn),
					   self->p.s.id->qp)));
	EXPECT_EQ(0, connection_intact(self, variant->type));
}

TEST_F_TIMEOUT(owner, accept_naming_our_qps_gets_eacces, OWNER_TIMEOUT_S)
{
	char qpn[16];

	SKIP_UD_ON_IWARP();
	EXPECT_EQ(EACCES, intruder("accept", variant->name,
				   qpn_str(qpn, sizeof(qpn),
					   self->p.c.id->qp)));
	EXPECT_EQ(EACCES, intruder("accept", variant->name,
				   qpn_str(qpn, sizeof(qpn),
					   self->p.s.id->qp)));
	EXPECT_EQ(0, connection_intact(self, variant->type));
}

/* A QP of the intruder's own, not bound to the id: its own business. */
TEST_F_TIMEOUT(owner, own_unbound_qp_goes_through, OWNER_TIMEOUT_S)
{
	SKIP_UD_ON_IWARP();
	EXPECT_EQ(0, intruder("connect", variant->name, "own"));
	EXPECT_EQ(0, intruder("accept", variant->name, "own"));
	EXPECT_EQ(0, connection_intact(self, variant->type));
}

/*
 * "A number that names no QP at all keeps today's behaviour": on iWARP,
 * whose CM takes the QP by its number, that is EINVAL, as on stock.
 */
TEST_F_TIMEOUT(owner, number_of_no_qp_goes_through, OWNER_TIMEOUT_S)
{
	int want = cm_on_iwarp() ? EINVAL : 0;

	SKIP_UD_ON_IWARP();
	EXPECT_EQ(want, intruder("connect", variant->name, "none"));
	EXPECT_EQ(want, intruder("accept", variant->name, "none"));
	EXPECT_EQ(0, connection_intact(self, variant->type));
}

/*
 * The rule is per process, as the file-owner rule is: a QP this process
 * made on its device context's file may be named by a CM id, which lives
 * on an event channel's file. The request carries that number.
 */
TEST_F_TIMEOUT(owner, own_process_may_name_its_qp_of_another_file, OWNER_TIMEOUT_S)
{
	struct vt_pair *p = &self->p;
	enum rdma_port_space ps = variant->type == IBV_QPT_UD ? RDMA_PS_UDP :
								 RDMA_PS_TCP;
	struct rdma_cm_id *client = NULL, *server;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;
	struct ibv_qp *qp;

	SKIP_UD_ON_IWARP();
	vt_qp_attr(&attr, &p->c, variant->type, NULL);
	qp = ibv_create_qp(p->c.pd, &attr);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, cm_resolve(p->cch, ps, rdma_get_src_port(p->listen),
				&client));
	cm_conn_param(&param, qp->qp_num, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(client, &param));
	ev = cm_expect(p->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	server = ev->id;
	/* SIDR's request and iWARP's MPA carry no QP number */
	if (ps == RDMA_PS_TCP && !cm_on_iwarp())
		EXPECT_EQ(qp->qp_num, ev->param.conn.qp_num);
	rdma_ack_cm_event(ev);
	EXPECT_EQ(0, rdma_reject(server, NULL, 0));
	ev = cm_expect(p->cch, ps == RDMA_PS_TCP ? RDMA_CM_EVENT_REJECTED :
			       RDMA_CM_EVENT_UNREACHABLE, client, CM_TIMEOUT_MS);
	EXPECT_NE(NULL, ev);
	if (ev)
		rdma_ack_cm_event(ev);
	EXPECT_EQ(0, rdma_destroy_id(server));
	EXPECT_EQ(0, rdma_destroy_id(client));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, connection_intact(self, variant->type));
}

TEST_HARNESS_MAIN
