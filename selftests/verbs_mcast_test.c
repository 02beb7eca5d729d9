// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast through the CM on UDP ids, over rxe (as mckey does it):
 * rdma_join_multicast on ids with UD QPs, RDMA_CM_EVENT_MULTICAST_JOIN
 * with the group's address handle attributes, QP number and Q_Key
 * (rdma_join_multicast(3), rdma_get_cm_event(3)), a datagram sent to the
 * group and received by every member, and rdma_leave_multicast after
 * which a member receives nothing more.
 */
#include "verbs_test.h"
#include "kselftest_harness.h"

#define NR_RECEIVERS	2
#define SLOT		(VT_GRH + 1024)
#define NR_SLOTS	8
#define BUF_LEN		(2 * NR_SLOTS * SLOT)
#define MSG		200
/* The multicast QP number of an IB multicast send. */
#define MCAST_QPN	0xffffff

struct member {
	struct vt_end e;
	int ctx;			/* the join's context */
	struct ibv_ah *ah;		/* to the group */
	uint32_t qpn, qkey;		/* of the group, from the event */
	bool joined;
};

FIXTURE(mcast) {
	struct rdma_event_channel *ch;
	struct sockaddr_in group;
	struct member r[NR_RECEIVERS];
	struct member snd;
};

FIXTURE_VARIANT(mcast) {
	enum vt_wait wait;
	bool send_only;		/* the sender joins as send-only member */
};

FIXTURE_VARIANT_ADD(mcast, full_members) {
	.wait = VT_BUSY_POLL,
};

FIXTURE_VARIANT_ADD(mcast, send_only_sender) {
	.wait = VT_CHANNEL,
	.send_only = true,
};

/*
 * Takes the MULTICAST_JOIN of @m on @ch, checks what it carries and keeps
 * the group's address handle: 0 or -1.
 */
static int take_join(struct __test_metadata *_metadata,
		     struct rdma_event_channel *ch, struct member *m,
		     const struct sockaddr_in *group)
{
	struct rdma_cm_event *ev;
	union ibv_gid want;

	ev = cm_expect(ch, RDMA_CM_EVENT_MULTICAST_JOIN, m->e.id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	/* "the private_data field of the event contains the user context" */
	EXPECT_EQ(&m->ctx, ev->param.ud.private_data);
	EXPECT_EQ(MCAST_QPN, ev->param.ud.qp_num);
	EXPECT_EQ(RDMA_UDP_QKEY, ev->param.ud.qkey);
	EXPECT_TRUE(ev->param.ud.ah_attr.is_global);
	EXPECT_EQ(m->e.id->port_num, ev->param.ud.ah_attr.port_num);
	/* RoCE: the group's GID is its IPv4-mapped address */
	memset(&want, 0, sizeof(want));
	want.raw[10] = want.raw[11] = 0xff;
	memcpy(&want.raw[12], &group->sin_addr, 4);
	EXPECT_EQ(0, memcmp(&want, &ev->param.ud.ah_attr.grh.dgid,
			    sizeof(want)));
	m->qpn = ev->param.ud.qp_num;
	m->qkey = ev->param.ud.qkey;
	m->ah = ibv_create_ah(m->e.pd, &ev->param.ud.ah_attr);
	rdma_ack_cm_event(ev);
	ASSERT_NE(NULL, m->ah);
	m->joined = true;
	return 0;
}

/* A UDP id of @m on @ch with a UD QP; bound, or resolved towards the group. */
static int member_open(struct rdma_event_channel *ch, struct member *m,
		       const struct sockaddr_in *group, enum vt_wait wait)
{
	struct sockaddr_in local;

	if (rdma_create_id(ch, &m->e.id, m, RDMA_PS_UDP))
		return -1;
	cm_sockaddr(&local, cm_test_addr(), 0);
	if (group) {
		/* the sender: a route to the group from the test address */
		if (rdma_resolve_addr(m->e.id, (struct sockaddr *)&local,
				      (struct sockaddr *)group, CM_RESOLVE_MS) ||
		    cm_expect_ok(ch, RDMA_CM_EVENT_ADDR_RESOLVED, m->e.id))
			return -1;
	} else if (rdma_bind_addr(m->e.id, (struct sockaddr *)&local)) {
		return -1;
	}
	if (vt_end_open(&m->e, m->e.id->verbs, BUF_LEN, wait))
		return -1;
	return vt_create_qp(&m->e, IBV_QPT_UD, NULL);
}

FIXTURE_SETUP(mcast)
{
	struct rdma_cm_join_mc_attr_ex attr;
	int i;

	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
	/* a group per process: tests do not hear each other */
	cm_sockaddr(&self->group, "239.77.0.0", 0);
	self->group.sin_addr.s_addr |= htonl(1 + getpid() % 250);
	for (i = 0; i < NR_RECEIVERS; i++) {
		struct member *m = &self->r[i];

		ASSERT_EQ(0, member_open(self->ch, m, NULL, variant->wait));
		ASSERT_EQ(0, rdma_join_multicast(m->e.id,
						 (struct sockaddr *)&self->group,
						 &m->ctx));
		ASSERT_EQ(0, take_join(_metadata, self->ch, m, &self->group));
	}
	ASSERT_EQ(0, member_open(self->ch, &self->snd, &self->group,
				 variant->wait));
	if (variant->send_only) {
		memset(&attr, 0, sizeof(attr));
		attr.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
				 RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
		attr.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
		attr.addr = (struct sockaddr *)&self->group;
		ASSERT_EQ(0, rdma_join_multicast_ex(self->snd.e.id, &attr,
						    &self->snd.ctx));
	} else {
		ASSERT_EQ(0, rdma_join_multicast(self->snd.e.id,
						 (struct sockaddr *)&self->group,
						 &self->snd.ctx));
	}
	ASSERT_EQ(0, take_join(_metadata, self->ch, &self->snd, &self->group));
}

static void member_close(struct __test_metadata *_metadata, struct member *m,
			 const struct sockaddr_in *group)
{
	if (m->ah)
		EXPECT_EQ(0, ibv_destroy_ah(m->ah));
	if (m->joined)
		EXPECT_EQ(0, rdma_leave_multicast(m->e.id,
						  (struct sockaddr *)group));
	EXPECT_EQ(0, vt_end_close(&m->e));
}

FIXTURE_TEARDOWN(mcast)
{
	int i;

	if (!_metadata->passed)
		return;
	member_close(_metadata, &self->snd, &self->group);
	for (i = 0; i < NR_RECEIVERS; i++)
		member_close(_metadata, &self->r[i], &self->group);
	cm_drain(self->ch, 0);
	rdma_destroy_event_channel(self->ch);
}

/* One datagram of @len bytes (pattern @seed) from @m to the group. */
static int send_to_group(struct member *m, uint64_t wr_id, size_t len,
			 unsigned int seed)
{
	struct ibv_sge sge = { .addr = (uintptr_t)m->e.buf, .length = (uint32_t)len,
			       .lkey = m->e.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	vt_fill(m->e.buf, len, seed);
	wr.wr.ud.ah = m->ah;
	wr.wr.ud.remote_qpn = m->qpn;
	wr.wr.ud.remote_qkey = m->qkey;
	if (ibv_post_send(m->e.id->qp, &wr, &bad))
		return -1;
	return vt_expect_wc(&m->e, &wc, IBV_WC_SEND, wr_id);
}

/* Every member receives each datagram sent to the group, intact. */
TEST_F(mcast, every_member_receives)
{
	size_t sizes[] = { 1, MSG, 1024 };
	struct ibv_wc wc;
	unsigned int i;
	int k;

	for (i = 0; i < 3; i++) {
		for (k = 0; k < NR_RECEIVERS; k++) {
			memset(self->r[k].e.buf, 0xee, SLOT + 1);
			ASSERT_EQ(0, vt_post_recv(&self->r[k].e, 100 + i, 0,
						  SLOT));
		}
		ASSERT_EQ(0, send_to_group(&self->snd, 200 + i, sizes[i], i));
		for (k = 0; k < NR_RECEIVERS; k++) {
			struct vt_end *e = &self->r[k].e;

			ASSERT_EQ(0, vt_expect_wc(e, &wc, IBV_WC_RECV, 100 + i));
			EXPECT_EQ(VT_GRH + sizes[i], wc.byte_len);
			EXPECT_TRUE(wc.wc_flags & IBV_WC_GRH);
			EXPECT_EQ(self->snd.e.id->qp->qp_num, wc.src_qp);
			EXPECT_TRUE(vt_check(e->buf + VT_GRH, sizes[i], i));
			EXPECT_EQ(0xee, e->buf[VT_GRH + sizes[i]]);
		}
	}
}

/*
 * After rdma_leave_multicast a member receives nothing more from the
 * group, and the others still do; leaving a group not joined fails.
 */
TEST_F(mcast, leave_stops_delivery)
{
	struct member *gone = &self->r[0], *stays = &self->r[1];
	struct sockaddr_in other;
	struct ibv_wc wc;

	ASSERT_EQ(0, rdma_leave_multicast(gone->e.id,
					  (struct sockaddr *)&self->group));
	gone->joined = false;
	ASSERT_EQ(0, vt_post_recv(&gone->e, 1, 0, SLOT));
	ASSERT_EQ(0, vt_post_recv(&stays->e, 2, 0, SLOT));
	ASSERT_EQ(0, send_to_group(&self->snd, 3, MSG, 7));
	ASSERT_EQ(0, vt_expect_wc(&stays->e, &wc, IBV_WC_RECV, 2));
	EXPECT_TRUE(vt_check(stays->e.buf + VT_GRH, MSG, 7));
	EXPECT_TRUE(vt_cq_quiet(&gone->e, CM_QUIET_MS));

	cm_sockaddr(&other, "239.77.1.1", 0);
	errno = 0;
	EXPECT_EQ(-1, rdma_leave_multicast(stays->e.id,
					   (struct sockaddr *)&other));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

TEST_HARNESS_MAIN
