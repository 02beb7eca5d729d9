// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The librdmacm QP calls on CM ids, as programs see them: what
 * rdma_create_qp() fills into the id (PD from the binding, CQs with
 * channels of their own, their context the id), the QP state the id's
 * connection leaves it in, the <rdma/rdma_verbs.h> helpers on those
 * objects, SRQs on an id, and multicast join and leave with the join's
 * context in the event. Only the rdma-core API is used, so the same
 * source also runs on the stock librdmacm over ucma.
 */
#include <dlfcn.h>

#include <rdma/rdma_verbs.h>

#include "cm_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define MSG	64
#define GRH_LEN	40
#define MCAST_GROUP "239.7.7.7"

FIXTURE(cmqp) {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen, *client, *server, *ud;
	struct ibv_mr *mr;
	unsigned char buf[4096];
};

FIXTURE_SETUP(cmqp)
{
	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
}

FIXTURE_TEARDOWN(cmqp)
{
	struct rdma_cm_id *ids[] = {
		self->client, self->server, self->listen, self->ud,
	};
	unsigned int i;

	if (self->mr)
		ibv_dereg_mr(self->mr);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (!ids[i])
			continue;
		if (ids[i]->qp)
			rdma_destroy_qp(ids[i]);
		if (ids[i]->srq)
			rdma_destroy_srq(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	rdma_destroy_event_channel(self->ch);
}

static void qp_attr(struct ibv_qp_init_attr *attr, enum ibv_qp_type type)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_type = type;
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = 4;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
}

static enum ibv_qp_state query_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return attr.qp_state;
}

TEST_F(cmqp, rdma_create_qp_fills_the_id)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;

	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 4, &self->listen));
	ASSERT_EQ(0, cm_resolve(self->ch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &self->client));
	id = self->client;
	/* The binding gave the id the device's PD. */
	ASSERT_NE(NULL, id->verbs);
	ASSERT_NE(NULL, id->pd);
	EXPECT_EQ(id->verbs, id->pd->context);

	qp_attr(&attr, IBV_QPT_RC);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr));
	ASSERT_NE(NULL, id->qp);
	EXPECT_EQ(id->pd, id->qp->pd);
	EXPECT_EQ(IBV_QPT_RC, id->qp->qp_type);
	EXPECT_EQ(IBV_QPS_INIT, id->qp->state);
	EXPECT_EQ(IBV_QPS_INIT, query_state(id->qp));
	/* A CQ each way, each with a channel of its own, the id their context. */
	ASSERT_NE(NULL, id->send_cq);
	ASSERT_NE(NULL, id->recv_cq);
	EXPECT_NE(id->send_cq, id->recv_cq);
	ASSERT_NE(NULL, id->send_cq_channel);
	ASSERT_NE(NULL, id->recv_cq_channel);
	EXPECT_NE(id->send_cq_channel, id->recv_cq_channel);
	EXPECT_EQ(id->send_cq_channel, id->send_cq->channel);
	EXPECT_EQ(id->recv_cq_channel, id->recv_cq->channel);
	EXPECT_EQ(id, id->send_cq->cq_context);
	EXPECT_EQ(id, id->recv_cq->cq_context);
	EXPECT_EQ(id->send_cq, id->qp->send_cq);
	EXPECT_EQ(id->recv_cq, id->qp->recv_cq);
	EXPECT_LE(4, id->send_cq->cqe);
	/* The attributes come back with what was filled in. */
	EXPECT_EQ(id->send_cq, attr.send_cq);
	EXPECT_EQ(id->recv_cq, attr.recv_cq);
	EXPECT_LE(4, attr.cap.max_send_wr);

	/* One QP per id. */
	qp_attr(&attr, IBV_QPT_RC);
	errno = 0;
	EXPECT_EQ(-1, rdma_create_qp(id, NULL, &attr));
	EXPECT_EQ(EINVAL, errno);

	rdma_destroy_qp(id);
	EXPECT_EQ(NULL, id->qp);
	EXPECT_EQ(NULL, id->send_cq);
	EXPECT_EQ(NULL, id->recv_cq);
	EXPECT_EQ(NULL, id->send_cq_channel);
	EXPECT_EQ(NULL, id->recv_cq_channel);
	/* And again, on the same id. */
	qp_attr(&attr, IBV_QPT_RC);
	EXPECT_EQ(0, rdma_create_qp(id, NULL, &attr));
}

TEST_F(cmqp, connection_moves_the_qps_and_rdma_verbs_helpers_work)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct cm_want established[] = {
		{ .type = RDMA_CM_EVENT_ESTABLISHED },
		{ .type = RDMA_CM_EVENT_ESTABLISHED },
	};
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;
	struct ibv_mr *smr;
	struct ibv_wc wc;
	unsigned int i;

	ASSERT_EQ(0, cm_listen(self->ch, RDMA_PS_TCP, 4, &self->listen));
	ASSERT_EQ(0, cm_resolve(self->ch, RDMA_PS_TCP,
				rdma_get_src_port(self->listen), &self->client));
	qp_attr(&attr, IBV_QPT_RC);
	ASSERT_EQ(0, rdma_create_qp(self->client, NULL, &attr));
	ASSERT_EQ(0, rdma_connect(self->client, &param));
#ifndef RDMACHAN_TEST_STOCK
	/*
	 * rdma_establish(3) is not for an id with a QP: EINVAL from the
	 * library (the module's own check is in uapi_verbs_test).
	 */
	EXPECT_EQ(-1, rdma_establish(self->client));
	EXPECT_EQ(EINVAL, errno);
#endif

	ev = cm_expect(self->ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	self->server = ev->id;
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_NE(NULL, self->server->pd);
	qp_attr(&attr, IBV_QPT_RC);
	ASSERT_EQ(0, rdma_create_qp(self->server, NULL, &attr));
	EXPECT_EQ(IBV_QPS_INIT, self->server->qp->state);
	ASSERT_EQ(0, rdma_accept(self->server, &param));
	/* Accepting made the passive side's QP ready to send. */
	EXPECT_EQ(IBV_QPS_RTS, self->server->qp->state);
	established[0].id = self->client;
	established[1].id = self->server;

	/*
	 * Both sides hear ESTABLISHED, on the one channel in either order
	 * (the active side's comes with the REP, the passive side's with
	 * the RTU): both QPs are connected.
	 */
	ASSERT_EQ(0, cm_expect_all(self->ch, established, 2, CM_TIMEOUT_MS));
	EXPECT_EQ(IBV_QPS_RTS, self->client->qp->state);
	EXPECT_EQ(IBV_QPS_RTS, query_state(self->client->qp));
#ifndef RDMACHAN_TEST_STOCK
	/* nor once the CM sent the RTU itself */
	EXPECT_EQ(-1, rdma_establish(self->client));
	EXPECT_EQ(EINVAL, errno);
#endif
	EXPECT_EQ(IBV_QPS_RTS, query_state(self->server->qp));

	/* The rdma_verbs.h helpers, on the id's PD, QP, CQs and channels. */
	self->mr = rdma_reg_msgs(self->server, self->buf, sizeof(self->buf));
	ASSERT_NE(NULL, self->mr);
	EXPECT_EQ(self->server->pd, self->mr->pd);
	smr = rdma_reg_msgs(self->client, self->buf + 2048, MSG);
	ASSERT_NE(NULL, smr);
	cm_watchdog(4 * CM_TIMEOUT_MS / 1000);
	for (i = 0; i < 3; i++) {
		memset(self->buf, 0, MSG);
		memset(self->buf + 2048, 'a' + i, MSG);
		ASSERT_EQ(0, rdma_post_recv(self->server, (void *)(uintptr_t)i,
					    self->buf, MSG, self->mr));
		ASSERT_EQ(0, rdma_post_send(self->client, (void *)(uintptr_t)i,
					    self->buf + 2048, MSG, smr,
					    IBV_SEND_SIGNALED));
		ASSERT_EQ(1, rdma_get_send_comp(self->client, &wc));
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
		EXPECT_EQ(i, wc.wr_id);
		ASSERT_EQ(1, rdma_get_recv_comp(self->server, &wc));
		EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
		EXPECT_EQ(i, wc.wr_id);
		EXPECT_EQ(MSG, wc.byte_len);
		EXPECT_EQ('a' + i, self->buf[MSG - 1]);
	}
	alarm(0);
	EXPECT_EQ(0, rdma_dereg_mr(smr));

	/* Disconnecting puts the QP in the error state. */
	ASSERT_EQ(0, rdma_disconnect(self->client));
	EXPECT_EQ(IBV_QPS_ERR, self->client->qp->state);
	EXPECT_EQ(IBV_QPS_ERR, query_state(self->client->qp));
	ASSERT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_DISCONNECTED,
				  self->server));
	ASSERT_EQ(0, rdma_disconnect(self->server));
	EXPECT_EQ(IBV_QPS_ERR, self->server->qp->state);
	EXPECT_EQ(IBV_QPS_ERR, query_state(self->server->qp));
	ASSERT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_DISCONNECTED,
				  self->client));

	/* The CQs go with the QP, their events all acknowledged. */
	cm_watchdog(CM_TIMEOUT_MS / 1000);
	rdma_destroy_qp(self->client);
	rdma_destroy_qp(self->server);
	alarm(0);
}

TEST_F(cmqp, srq_on_an_id)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ibv_qp_init_attr attr;
	struct sockaddr_in sin;
	struct rdma_cm_id *id;

	ASSERT_EQ(0, rdma_create_id(self->ch, &self->client, NULL, RDMA_PS_TCP));
	id = self->client;
	cm_sockaddr(&sin, cm_test_addr(), 0);
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&sin));
	ASSERT_EQ(0, rdma_create_srq(id, NULL, &sattr));
	ASSERT_NE(NULL, id->srq);
	EXPECT_EQ(id->pd, id->srq->pd);
	EXPECT_LE(8, sattr.attr.max_wr);

	/* The id's SRQ is the QP's unless it is given another. */
	qp_attr(&attr, IBV_QPT_RC);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr));
	EXPECT_EQ(id->srq, id->qp->srq);
	EXPECT_EQ(EBUSY, ibv_destroy_srq(id->srq));
	rdma_destroy_qp(id);
	rdma_destroy_srq(id);
	EXPECT_EQ(NULL, id->srq);
}

TEST_F(cmqp, multicast_join_datagram_and_leave)
{
	struct rdma_cm_join_mc_attr_ex ex;
	struct sockaddr_in group, other;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;
	struct ibv_ah_attr ah_attr;
	uint32_t mc_qpn, mc_qkey;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct rdma_cm_id *id;
	union ibv_gid want = {};
	int marker;

	CM_SKIP_ON_IWARP("multicast");
	ASSERT_EQ(0, rdma_create_id(self->ch, &self->ud, NULL, RDMA_PS_UDP));
	id = self->ud;
	cm_sockaddr(&group, cm_test_addr(), 0);
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&group));
	qp_attr(&attr, IBV_QPT_UD);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr));
	/* A datagram QP is ready at once. */
	EXPECT_EQ(IBV_QPS_RTS, id->qp->state);
	EXPECT_EQ(IBV_QPS_RTS, query_state(id->qp));

	/* Bad joins change nothing. */
	memset(&ex, 0, sizeof(ex));
	cm_sockaddr(&group, MCAST_GROUP, 0);
	ex.addr = (struct sockaddr *)&group;
	ex.comp_mask = RDMA_CM_JOIN_MC_ATTR_RESERVED;
	errno = 0;
	EXPECT_EQ(-1, rdma_join_multicast_ex(id, &ex, NULL));
	EXPECT_EQ(ENOTSUP, errno);
	ex.comp_mask = RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	errno = 0;
	EXPECT_EQ(-1, rdma_join_multicast_ex(id, &ex, NULL));
	EXPECT_EQ(EINVAL, errno);
	ex.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		       RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	ex.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	errno = 0;
	EXPECT_EQ(-1, rdma_join_multicast_ex(id, &ex, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, cm_quiet(self->ch, CM_QUIET_MS));

	ex.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	ASSERT_EQ(0, rdma_join_multicast_ex(id, &ex, &marker));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_MULTICAST_JOIN, id,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	/* The join's context rides in private_data, as in librdmacm. */
	EXPECT_EQ(&marker, ev->param.ud.private_data);
	EXPECT_EQ(0xffffff, ev->param.ud.qp_num);
	EXPECT_NE(0, ev->param.ud.qkey);
	want.raw[10] = 0xff;
	want.raw[11] = 0xff;
	memcpy(&want.raw[12], &group.sin_addr, 4);
	EXPECT_EQ(0, memcmp(&want, &ev->param.ud.ah_attr.grh.dgid,
			    sizeof(want)));
	ah_attr = ev->param.ud.ah_attr;
	mc_qpn = ev->param.ud.qp_num;
	mc_qkey = ev->param.ud.qkey;
	ASSERT_EQ(0, rdma_ack_cm_event(ev));

	/* A datagram to the group comes back to the member. */
	self->mr = rdma_reg_msgs(id, self->buf, sizeof(self->buf));
	ASSERT_NE(NULL, self->mr);
	ah = ibv_create_ah(id->pd, &ah_attr);
	ASSERT_NE(NULL, ah);
	memset(self->buf + 2048, 'm', MSG);
	ASSERT_EQ(0, rdma_post_recv(id, NULL, self->buf, GRH_LEN + MSG,
				    self->mr));
	ASSERT_EQ(0, rdma_post_ud_send(id, NULL, self->buf + 2048, MSG,
				       self->mr, IBV_SEND_SIGNALED, ah,
				       mc_qpn));
	(void)mc_qkey;
	cm_watchdog(CM_TIMEOUT_MS / 1000);
	ASSERT_EQ(1, rdma_get_send_comp(id, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(1, rdma_get_recv_comp(id, &wc));
	alarm(0);
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(GRH_LEN + MSG, wc.byte_len);
	EXPECT_EQ(id->qp->qp_num, wc.src_qp);
	EXPECT_EQ('m', self->buf[GRH_LEN + MSG - 1]);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	/* Leaving needs the address of a join of the id. */
	cm_sockaddr(&other, "239.7.7.8", 0);
	errno = 0;
	EXPECT_EQ(-1, rdma_leave_multicast(id, (struct sockaddr *)&other));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	errno = 0;
	EXPECT_EQ(-1, rdma_leave_multicast(id, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdma_leave_multicast(id, (struct sockaddr *)&group));
	errno = 0;
	EXPECT_EQ(-1, rdma_leave_multicast(id, (struct sockaddr *)&group));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

/*
 * A synchronous id's join waits for MULTICAST_JOIN and keeps it in
 * id->event; leaving acknowledges it (librdmacm would wait for that ack
 * forever, so this runs on rdmachan only), and destroying an id leaves
 * the groups it still has.
 */
TEST_F(cmqp, multicast_on_a_synchronous_id)
{
	struct sockaddr_in addr, group, group2;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	int marker;

	CM_SKIP_ON_IWARP("multicast");
	if (!dlsym(RTLD_DEFAULT, "rdmachan_get_info"))
		SKIP(return, "librdmacm waits forever for id->event's ack");
	cm_watchdog(2 * CM_TIMEOUT_MS / 1000);
	ASSERT_EQ(0, rdma_create_id(NULL, &self->ud, NULL, RDMA_PS_UDP));
	id = self->ud;
	cm_sockaddr(&addr, cm_test_addr(), 0);
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&addr));
	qp_attr(&attr, IBV_QPT_UD);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr));
	cm_sockaddr(&group, MCAST_GROUP, 0);
	ASSERT_EQ(0, rdma_join_multicast(id, (struct sockaddr *)&group,
					 &marker));
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_MULTICAST_JOIN, id->event->event);
	EXPECT_EQ(&marker, id->event->param.ud.private_data);
	EXPECT_EQ(1, rdmachan_counter("mcasts"));
	EXPECT_EQ(0, rdma_leave_multicast(id, (struct sockaddr *)&group));
	EXPECT_EQ(NULL, id->event);
	EXPECT_EQ(0, rdmachan_counter("mcasts"));

	/* Joined twice, left never: the destroy leaves. */
	ASSERT_EQ(0, rdma_join_multicast(id, (struct sockaddr *)&group,
					 &marker));
	cm_sockaddr(&group2, "239.7.7.9", 0);
	ASSERT_EQ(0, rdma_join_multicast(id, (struct sockaddr *)&group2,
					 NULL));
	EXPECT_EQ(NULL, id->event->param.ud.private_data);
	EXPECT_EQ(2, rdmachan_counter("mcasts"));
	rdma_destroy_qp(id);
	EXPECT_EQ(0, rdma_destroy_id(id));
	self->ud = NULL;
	EXPECT_EQ(0, rdmachan_counter("mcasts"));
	alarm(0);
}

TEST_HARNESS_MAIN
