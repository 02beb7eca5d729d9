// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The libibverbs object and data-path calls, one device context at a time
 * and without the CM: object lifecycles and the struct fields programs
 * read, the errno conventions (EBUSY for objects in use), chains of work
 * requests and bad_wr, many completions in one poll, completion events and
 * their acknowledgement, address handles from received datagrams. QPs are
 * connected to each other by hand (ibv_modify_qp), as ibv_rc_pingpong
 * does. Only the rdma-core API is used, so the same source also runs on
 * the stock libibverbs over uverbs.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "cm_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define BUF_SIZE	(64 * 1024)
#define DEPTH		32
#define MSG		64
#define QKEY		0x11111111
#define GRH_LEN		40

static struct ibv_context *open_test_context(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), RDMACHAN_TEST_DEVICE))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/* The GID index of the test address (::ffff:a.b.c.d), or -1. */
static int test_gid_index(struct ibv_context *ctx, union ibv_gid *gid)
{
	struct ibv_port_attr port;
	union ibv_gid want = {};
	struct in_addr in;
	int i;

	if (ibv_query_port(ctx, 1, &port) ||
	    inet_pton(AF_INET, cm_test_addr(), &in) != 1)
		return -1;
	want.raw[10] = 0xff;
	want.raw[11] = 0xff;
	memcpy(&want.raw[12], &in, 4);
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (!ibv_query_gid(ctx, 1, i, gid) &&
		    !memcmp(gid, &want, sizeof(want)))
			return i;
	}
	return -1;
}

/* Up to @n completions of @cq within the test's bound; returns how many. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int chunk)
{
	long end = cm_now_ms() + CM_TIMEOUT_MS;
	int got = 0, ret;

	while (got < n && cm_now_ms() < end) {
		ret = ibv_poll_cq(cq, chunk < n - got ? chunk : n - got,
				  wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (!ret)
			usleep(1000);
	}
	return got;
}

/* An ibv_rc_pingpong-style move to RTS, towards @dest_qpn on our GID. */
static int rc_connect(struct ibv_qp *qp, uint32_t dest_qpn,
		      const union ibv_gid *gid, int gid_index)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_1024;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.grh.dgid = *gid;
	attr.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	attr.ah_attr.grh.hop_limit = 1;
	attr.ah_attr.port_num = 1;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 0;
	attr.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int ud_up(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = QKEY,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	if (ret)
		return ret;
	attr.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static bool same(const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(seed * 31 + i * 7 + 1))
			return false;
	return true;
}

/* Two QPs of one context, each with a send and a receive CQ. */
struct pair {
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_qp *qp[2];
};

static int pair_create(struct ibv_pd *pd, enum ibv_qp_type type,
		       struct ibv_srq *srq_of_1, struct pair *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr init = {
			.qp_type = type,
			.cap = {
				.max_send_wr = DEPTH, .max_recv_wr = DEPTH,
				.max_send_sge = 2, .max_recv_sge = 2,
			},
		};

		p->scq[i] = ibv_create_cq(pd->context, 2 * DEPTH, NULL, NULL, 0);
		p->rcq[i] = ibv_create_cq(pd->context, 2 * DEPTH, NULL, NULL, 0);
		if (!p->scq[i] || !p->rcq[i])
			return -1;
		init.send_cq = p->scq[i];
		init.recv_cq = p->rcq[i];
		init.srq = i == 1 ? srq_of_1 : NULL;
		p->qp[i] = ibv_create_qp(pd, &init);
		if (!p->qp[i])
			return -1;
	}
	return 0;
}

static void pair_destroy(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
		if (p->scq[i])
			ibv_destroy_cq(p->scq[i]);
		if (p->rcq[i])
			ibv_destroy_cq(p->rcq[i]);
	}
}

FIXTURE(api) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	int gid_index;
	unsigned char *buf;
	struct ibv_mr *mr;
	struct pair pair;
};

FIXTURE_SETUP(api)
{
	self->ctx = open_test_context();
	ASSERT_NE(NULL, self->ctx);
	self->gid_index = test_gid_index(self->ctx, &self->gid);
	ASSERT_LE(0, self->gid_index);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = aligned_alloc(4096, BUF_SIZE);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 0, BUF_SIZE);
	self->mr = ibv_reg_mr(self->pd, self->buf, BUF_SIZE,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, self->mr);
}

FIXTURE_TEARDOWN(api)
{
	pair_destroy(&self->pair);
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	free(self->buf);
}

static void connect_rc_pair(struct __test_metadata *_metadata,
			    FIXTURE_DATA(api) *self, struct ibv_srq *srq)
{
	struct pair *p = &self->pair;

	ASSERT_EQ(0, pair_create(self->pd, IBV_QPT_RC, srq, p));
	ASSERT_EQ(0, rc_connect(p->qp[0], p->qp[1]->qp_num, &self->gid,
				self->gid_index));
	ASSERT_EQ(0, rc_connect(p->qp[1], p->qp[0]->qp_num, &self->gid,
				self->gid_index));
}

TEST_F(api, pd_and_mr_fields_and_busy_pd)
{
	unsigned char *page = self->buf + 4096;
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, pd);
	EXPECT_EQ(self->ctx, pd->context);
	mr = ibv_reg_mr(pd, page, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(self->ctx, mr->context);
	EXPECT_EQ(pd, mr->pd);
	EXPECT_EQ(page, mr->addr);
	EXPECT_EQ(4096, mr->length);
	EXPECT_NE(mr->lkey, self->mr->lkey);
	EXPECT_NE(mr->rkey, self->mr->rkey);

	/* In use: nothing changes. */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

TEST_F(api, reg_mr_errors)
{
	size_t len = 2 * 4096;
	struct ibv_mr *mr;
	void *mem;

	/* Memory that is not mapped. */
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, munmap(mem, len));
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, mem, len, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);

	/* Read-only memory the device is to write. */
	mem = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, mem, len, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	/* ... which it may only read. */
	mr = ibv_reg_mr(self->pd, mem, len, IBV_ACCESS_REMOTE_READ);
	EXPECT_NE(NULL, mr);
	if (mr)
		EXPECT_EQ(0, ibv_dereg_mr(mr));
	munmap(mem, len);

	/* Remote write needs local write. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, self->buf, 4096,
				   IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EINVAL, errno);

	/* An optional access bit is a hint: the registration works. */
	mr = ibv_reg_mr(self->pd, self->buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_RELAXED_ORDERING);
	EXPECT_NE(NULL, mr);
	if (mr)
		EXPECT_EQ(0, ibv_dereg_mr(mr));
}

TEST_F(api, comp_channel_and_cq_fields)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *plain;
	struct ibv_wc wc;
	int marker;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	EXPECT_EQ(self->ctx, ch->context);
	EXPECT_LE(0, ch->fd);
	EXPECT_EQ(0, ch->refcnt);
	EXPECT_EQ(FD_CLOEXEC, fcntl(ch->fd, F_GETFD) & FD_CLOEXEC);

	cq = ibv_create_cq(self->ctx, 10, &marker, ch, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(self->ctx, cq->context);
	EXPECT_EQ(ch, cq->channel);
	EXPECT_EQ(&marker, cq->cq_context);
	EXPECT_LE(10, cq->cqe);
	EXPECT_EQ(0, cq->comp_events_completed);
	EXPECT_EQ(0, cq->async_events_completed);
	EXPECT_EQ(1, ch->refcnt);

	plain = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	ASSERT_NE(NULL, plain);
	EXPECT_EQ(NULL, plain->channel);
	EXPECT_EQ(0, ibv_poll_cq(plain, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_cq(plain));

	/* A channel with CQs stays. */
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ch->refcnt);
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

TEST_F(api, cq_bad_sizes_and_vectors)
{
	struct ibv_device_attr attr;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, attr.max_cqe + 1, NULL,
				      NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1, NULL, NULL,
				      self->ctx->num_comp_vectors));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(api, qp_fields_states_and_busy_objects)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp_init_attr got_init;
	struct ibv_qp_attr attr;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	int marker;

	scq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, scq);
	ASSERT_NE(NULL, rcq);
	init.send_cq = scq;
	init.recv_cq = rcq;
	init.qp_context = &marker;
	qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(self->ctx, qp->context);
	EXPECT_EQ(&marker, qp->qp_context);
	EXPECT_EQ(self->pd, qp->pd);
	EXPECT_EQ(scq, qp->send_cq);
	EXPECT_EQ(rcq, qp->recv_cq);
	EXPECT_EQ(NULL, qp->srq);
	EXPECT_NE(0, qp->qp_num);
	EXPECT_EQ(IBV_QPS_RESET, qp->state);
	EXPECT_EQ(IBV_QPT_RC, qp->qp_type);
	EXPECT_EQ(0, qp->events_completed);
	/* The capacities the QP got are written back. */
	EXPECT_LE(8, init.cap.max_send_wr);
	EXPECT_LE(8, init.cap.max_recv_wr);
	EXPECT_LE(2, init.cap.max_send_sge);

	memset(&attr, 0xa5, sizeof(attr));
	memset(&got_init, 0xa5, sizeof(got_init));
	ASSERT_EQ(0, ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP,
				  &got_init));
	EXPECT_EQ(IBV_QPS_RESET, attr.qp_state);
	EXPECT_EQ(&marker, got_init.qp_context);
	EXPECT_EQ(scq, got_init.send_cq);
	EXPECT_EQ(rcq, got_init.recv_cq);
	EXPECT_EQ(NULL, got_init.srq);
	EXPECT_EQ(IBV_QPT_RC, got_init.qp_type);
	EXPECT_EQ(1, got_init.sq_sig_all);
	EXPECT_LE(8, got_init.cap.max_send_wr);
	EXPECT_LE(8, got_init.cap.max_recv_wr);

	/* Objects the QP uses stay. */
	EXPECT_EQ(EBUSY, ibv_destroy_cq(scq));
	EXPECT_EQ(EBUSY, ibv_destroy_cq(rcq));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));

	/* A transition the state does not allow changes nothing. */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &attr, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RESET, qp->state);
	/* Attributes from the rate limit on need the _ex calls. */
	attr.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(EOPNOTSUPP, ibv_modify_qp(qp, &attr, IBV_QP_STATE |
					    IBV_QP_RATE_LIMIT));
	EXPECT_EQ(IBV_QPS_RESET, qp->state);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	EXPECT_EQ(0, ibv_modify_qp(qp, &attr, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(IBV_QPS_INIT, qp->state);
	ASSERT_EQ(0, ibv_query_qp(qp, &attr, IBV_QP_STATE |
				  IBV_QP_ACCESS_FLAGS | IBV_QP_PORT,
				  &got_init));
	EXPECT_EQ(IBV_QPS_INIT, attr.qp_state);
	EXPECT_EQ(1, attr.port_num);
	EXPECT_EQ(IBV_ACCESS_REMOTE_WRITE,
		  attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE);

	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(scq));
	EXPECT_EQ(0, ibv_destroy_cq(rcq));
}

TEST_F(api, qp_with_cq_of_another_context)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_context *other;
	struct ibv_cq *mine, *theirs;

	other = open_test_context();
	ASSERT_NE(NULL, other);
	theirs = ibv_create_cq(other, 4, NULL, NULL, 0);
	mine = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, theirs);
	ASSERT_NE(NULL, mine);
	init.send_cq = mine;
	init.recv_cq = theirs;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &init));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_destroy_cq(mine));
	EXPECT_EQ(0, ibv_destroy_cq(theirs));
	EXPECT_EQ(0, ibv_close_device(other));
}

TEST_F(api, chains_post_once_and_poll_many_at_once)
{
	struct ibv_send_wr swr[DEPTH / 2], *bad_s = NULL;
	struct ibv_recv_wr rwr[DEPTH / 2], *bad_r = NULL;
	struct ibv_sge ssge[DEPTH / 2], rsge[DEPTH / 2];
	struct ibv_wc wc[DEPTH];
	struct pair *p = &self->pair;
	const int n = DEPTH / 2;
	unsigned char *src = self->buf, *dst = self->buf + BUF_SIZE / 2;
	int i;

	connect_rc_pair(_metadata, self, NULL);
	for (i = 0; i < n; i++) {
		fill(src + i * MSG, MSG, (unsigned int)i);
		rsge[i] = (struct ibv_sge){ (uintptr_t)(dst + i * MSG), MSG,
					    self->mr->lkey };
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = 1000 + i, .sg_list = &rsge[i], .num_sge = 1,
			.next = i + 1 < n ? &rwr[i + 1] : NULL,
		};
		ssge[i] = (struct ibv_sge){ (uintptr_t)(src + i * MSG), MSG,
					    self->mr->lkey };
		swr[i] = (struct ibv_send_wr){
			.wr_id = 2000 + i, .sg_list = &ssge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.next = i + 1 < n ? &swr[i + 1] : NULL,
		};
	}
	ASSERT_EQ(0, ibv_post_recv(p->qp[1], rwr, &bad_r));
	ASSERT_EQ(0, ibv_post_send(p->qp[0], swr, &bad_s));

	/* The sends complete after the peer took them: in small bites. */
	ASSERT_EQ(n, poll_n(p->scq[0], wc, n, 3));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(IBV_WC_SEND, wc[i].opcode);
		EXPECT_EQ(2000 + i, wc[i].wr_id);
		EXPECT_EQ(p->qp[0]->qp_num, wc[i].qp_num);
	}
	/* Then every receive is there, and one poll takes them all. */
	ASSERT_EQ(n, ibv_poll_cq(p->rcq[1], DEPTH, wc));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(IBV_WC_RECV, wc[i].opcode);
		EXPECT_EQ(1000 + i, wc[i].wr_id);
		EXPECT_EQ(MSG, wc[i].byte_len);
		EXPECT_EQ(p->qp[1]->qp_num, wc[i].qp_num);
		EXPECT_TRUE(same(dst + i * MSG, MSG, (unsigned int)i));
	}
	EXPECT_EQ(0, ibv_poll_cq(p->rcq[1], DEPTH, wc));
	EXPECT_EQ(0, ibv_poll_cq(p->scq[0], DEPTH, wc));
}

TEST_F(api, bad_wr_is_the_first_request_not_posted)
{
	struct ibv_sge sge[3] = {
		{ (uintptr_t)self->buf, 8, self->mr->lkey },
		{ (uintptr_t)self->buf + 8, 8, self->mr->lkey },
		{ (uintptr_t)self->buf + 16, 8, self->mr->lkey },
	};
	struct ibv_send_wr swr[3], *bad_s = NULL;
	struct ibv_recv_wr rwr[3], *bad_r = NULL;
	struct pair *p = &self->pair;
	struct ibv_wc wc[4];
	int i, ret;

	connect_rc_pair(_metadata, self, NULL);
	/* The middle request has more SGEs than the QP takes (2). */
	for (i = 0; i < 3; i++) {
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = 10 + i, .sg_list = sge,
			.num_sge = i == 1 ? 3 : 1,
			.next = i < 2 ? &rwr[i + 1] : NULL,
		};
		swr[i] = (struct ibv_send_wr){
			.wr_id = 20 + i, .sg_list = sge,
			.num_sge = i == 1 ? 3 : 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i < 2 ? &swr[i + 1] : NULL,
		};
	}
	ret = ibv_post_recv(p->qp[1], rwr, &bad_r);
	/* (the stock rxe provider returns it negated) */
	EXPECT_TRUE(ret == EINVAL || ret == -EINVAL);
	EXPECT_EQ(&rwr[1], bad_r);
	ret = ibv_post_send(p->qp[0], swr, &bad_s);
	EXPECT_TRUE(ret == EINVAL || ret == -EINVAL);
	EXPECT_EQ(&swr[1], bad_s);

	/* Exactly the first of each went. */
	ASSERT_EQ(1, poll_n(p->scq[0], wc, 1, 4));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(20, wc[0].wr_id);
	ASSERT_EQ(1, poll_n(p->rcq[1], wc, 1, 4));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(10, wc[0].wr_id);
	EXPECT_EQ(8, wc[0].byte_len);
	cm_sleep_ms(CM_QUIET_MS);
	EXPECT_EQ(0, ibv_poll_cq(p->scq[0], 4, wc));
	EXPECT_EQ(0, ibv_poll_cq(p->rcq[1], 4, wc));
}

TEST_F(api, rdma_write_to_an_iova_and_read_back)
{
	unsigned char *target = self->buf + BUF_SIZE / 2;
	const uint64_t iova = 0x7f0000000000ULL;
	struct pair *p = &self->pair;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_mr *tmr;

	connect_rc_pair(_metadata, self, NULL);
	tmr = ibv_reg_mr_iova(self->pd, target, 4096, iova,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, tmr);
	EXPECT_EQ(target, tmr->addr);

	fill(self->buf, 256, 7);
	sge = (struct ibv_sge){ (uintptr_t)self->buf, 256, self->mr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = iova + 512, .rkey = tmr->rkey },
	};
	ASSERT_EQ(0, ibv_post_send(p->qp[0], &wr, &bad));
	ASSERT_EQ(1, poll_n(p->scq[0], &wc, 1, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc.opcode);
	EXPECT_TRUE(same(target + 512, 256, 7));

	/* Read it back into another place. */
	sge.addr = (uintptr_t)self->buf + 4096;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr_id = 2;
	ASSERT_EQ(0, ibv_post_send(p->qp[0], &wr, &bad));
	ASSERT_EQ(1, poll_n(p->scq[0], &wc, 1, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(IBV_WC_RDMA_READ, wc.opcode);
	EXPECT_EQ(256, wc.byte_len);
	EXPECT_TRUE(same(self->buf + 4096, 256, 7));

	/* The MR is in use by nothing: it goes. */
	EXPECT_EQ(0, ibv_dereg_mr(tmr));
}

struct destroy_arg {
	struct ibv_cq *cq;
	int ret;
	volatile int done;
};

static void *destroy_cq_thread(void *p)
{
	struct destroy_arg *arg = p;

	arg->ret = ibv_destroy_cq(arg->cq);
	arg->done = 1;
	return NULL;
}

/* Sends one message from qp 0 to qp 1 and waits for both completions. */
static int one_message(struct ibv_pd *pd, struct ibv_mr *mr, struct pair *p,
		       struct ibv_cq *cq)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, MSG, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *bad_r;
	struct ibv_send_wr *bad_s;
	struct ibv_wc wc[2];

	(void)pd;
	if (ibv_post_recv(p->qp[1], &rwr, &bad_r) ||
	    ibv_post_send(p->qp[0], &swr, &bad_s))
		return -1;
	return poll_n(cq, wc, 2, 2) == 2 && wc[0].status == IBV_WC_SUCCESS &&
	       wc[1].status == IBV_WC_SUCCESS ? 0 : -1;
}

static int wait_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
			 void **ctx)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	if (poll(&pfd, 1, CM_TIMEOUT_MS) != 1)
		return -1;
	return ibv_get_cq_event(ch, cq, ctx);
}

TEST_F(api, completion_events_acks_and_destroy)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct destroy_arg arg = {};
	struct ibv_comp_channel *ch;
	struct pair *p = &self->pair;
	struct ibv_cq *cq, *ev_cq;
	pthread_t thread;
	void *ev_ctx;
	int marker, i;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 16, &marker, ch, 0);
	ASSERT_NE(NULL, cq);
	init.send_cq = cq;
	init.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		p->qp[i] = ibv_create_qp(self->pd, &init);
		ASSERT_NE(NULL, p->qp[i]);
	}
	ASSERT_EQ(0, rc_connect(p->qp[0], p->qp[1]->qp_num, &self->gid,
				self->gid_index));
	ASSERT_EQ(0, rc_connect(p->qp[1], p->qp[0]->qp_num, &self->gid,
				self->gid_index));

	/* Nothing armed, nothing to take. */
	ASSERT_EQ(0, fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) |
			   O_NONBLOCK));
	errno = 0;
	EXPECT_EQ(-1, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(EAGAIN, errno);

	/* Armed: an event for the CQ, with its context. */
	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
	ASSERT_EQ(0, one_message(self->pd, self->mr, p, cq));
	ASSERT_EQ(0, wait_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(cq, ev_cq);
	EXPECT_EQ(&marker, ev_ctx);
	ibv_ack_cq_events(cq, 1);
	EXPECT_EQ(1, cq->comp_events_completed);

	/* A second one, not acknowledged yet (the first ack rides along). */
	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
	ASSERT_EQ(0, one_message(self->pd, self->mr, p, cq));
	ASSERT_EQ(0, wait_cq_event(ch, &ev_cq, &ev_ctx));
	EXPECT_EQ(cq, ev_cq);

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ibv_destroy_qp(p->qp[i]));
		p->qp[i] = NULL;
	}
	/* The destroy waits for the acknowledgement... */
	arg.cq = cq;
	ASSERT_EQ(0, pthread_create(&thread, NULL, destroy_cq_thread, &arg));
	cm_sleep_ms(CM_QUIET_MS);
	EXPECT_EQ(0, arg.done);
	/* ...and returns once it comes. */
	ibv_ack_cq_events(cq, 1);
	for (i = 0; i < CM_TIMEOUT_MS / 10 && !arg.done; i++)
		cm_sleep_ms(10);
	ASSERT_EQ(1, arg.done);
	pthread_join(thread, NULL);
	EXPECT_EQ(0, arg.ret);
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

TEST_F(api, deferred_ack_is_flushed_by_destroy)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_comp_channel *ch;
	struct pair *p = &self->pair;
	struct ibv_cq *cq, *ev_cq;
	void *ev_ctx;
	int i;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 16, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	init.send_cq = cq;
	init.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		p->qp[i] = ibv_create_qp(self->pd, &init);
		ASSERT_NE(NULL, p->qp[i]);
	}
	ASSERT_EQ(0, rc_connect(p->qp[0], p->qp[1]->qp_num, &self->gid,
				self->gid_index));
	ASSERT_EQ(0, rc_connect(p->qp[1], p->qp[0]->qp_num, &self->gid,
				self->gid_index));
	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
	ASSERT_EQ(0, one_message(self->pd, self->mr, p, cq));
	ASSERT_EQ(0, wait_cq_event(ch, &ev_cq, &ev_ctx));
	/* Acknowledged, with nothing after it to carry the ack. */
	ibv_ack_cq_events(cq, 1);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ibv_destroy_qp(p->qp[i]));
		p->qp[i] = NULL;
	}
	cm_watchdog(CM_TIMEOUT_MS / 1000);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	alarm(0);
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

TEST_F(api, srq_fields_busy_and_receives)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_recv_wr rwr[4], *bad_r;
	struct ibv_send_wr swr, *bad_s;
	struct ibv_sge rsge[4], ssge;
	struct pair *p = &self->pair;
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;
	struct ibv_wc wc[4];
	int marker, i;

	init.srq_context = &marker;
	srq = ibv_create_srq(self->pd, &init);
	ASSERT_NE(NULL, srq);
	EXPECT_EQ(self->ctx, srq->context);
	EXPECT_EQ(&marker, srq->srq_context);
	EXPECT_EQ(self->pd, srq->pd);
	EXPECT_EQ(0, srq->events_completed);
	EXPECT_LE(16, init.attr.max_wr);
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_LE(16, attr.max_wr);
	EXPECT_LE(1, attr.max_sge);
	EXPECT_EQ(0, attr.srq_limit);
	attr.srq_limit = 4;
	EXPECT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(4, attr.srq_limit);

	connect_rc_pair(_metadata, self, srq);
	EXPECT_EQ(srq, p->qp[1]->srq);
	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));

	for (i = 0; i < 4; i++) {
		rsge[i] = (struct ibv_sge){ (uintptr_t)self->buf + 4096 +
					    i * MSG, MSG, self->mr->lkey };
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = 100 + i, .sg_list = &rsge[i], .num_sge = 1,
			.next = i < 3 ? &rwr[i + 1] : NULL,
		};
	}
	ASSERT_EQ(0, ibv_post_srq_recv(srq, rwr, &bad_r));
	fill(self->buf, MSG, 3);
	ssge = (struct ibv_sge){ (uintptr_t)self->buf, MSG, self->mr->lkey };
	swr = (struct ibv_send_wr){
		.sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
	};
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, ibv_post_send(p->qp[0], &swr, &bad_s));
	ASSERT_EQ(4, poll_n(p->rcq[1], wc, 4, 4));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		EXPECT_EQ(100 + i, wc[i].wr_id);
		EXPECT_EQ(p->qp[1]->qp_num, wc[i].qp_num);
		EXPECT_TRUE(same(self->buf + 4096 + i * MSG, MSG, 3));
	}

	ASSERT_EQ(0, ibv_destroy_qp(p->qp[1]));
	p->qp[1] = NULL;
	EXPECT_EQ(0, ibv_destroy_srq(srq));
}

TEST_F(api, ud_reply_through_an_ah_from_the_wc)
{
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = (uint8_t)self->gid_index,
			 .hop_limit = 1 },
	};
	struct ibv_ah_attr from_wc;
	struct pair *p = &self->pair;
	unsigned char *rx0 = self->buf + 8192, *rx1 = self->buf + 16384;
	struct ibv_sge sge, rsge;
	struct ibv_send_wr swr, *bad_s;
	struct ibv_recv_wr rwr, *bad_r;
	struct ibv_ah *ah, *reply;
	struct ibv_wc wc;

	ASSERT_EQ(0, pair_create(self->pd, IBV_QPT_UD, NULL, p));
	ASSERT_EQ(0, ud_up(p->qp[0]));
	ASSERT_EQ(0, ud_up(p->qp[1]));
	EXPECT_EQ(IBV_QPS_RTS, p->qp[0]->state);

	ah_attr.grh.dgid = self->gid;
	ah = ibv_create_ah(self->pd, &ah_attr);
	ASSERT_NE(NULL, ah);
	EXPECT_EQ(self->ctx, ah->context);
	EXPECT_EQ(self->pd, ah->pd);

	rsge = (struct ibv_sge){ (uintptr_t)rx1, GRH_LEN + MSG, self->mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 5, .sg_list = &rsge, .num_sge = 1 };
	ASSERT_EQ(0, ibv_post_recv(p->qp[1], &rwr, &bad_r));
	fill(self->buf, MSG, 9);
	sge = (struct ibv_sge){ (uintptr_t)self->buf, MSG, self->mr->lkey };
	swr = (struct ibv_send_wr){
		.wr_id = 6, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = p->qp[1]->qp_num,
			   .remote_qkey = QKEY },
	};
	ASSERT_EQ(0, ibv_post_send(p->qp[0], &swr, &bad_s));
	ASSERT_EQ(1, poll_n(p->scq[0], &wc, 1, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(1, poll_n(p->rcq[1], &wc, 1, 1));
	ASSERT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(GRH_LEN + MSG, wc.byte_len);
	EXPECT_EQ(p->qp[0]->qp_num, wc.src_qp);
	EXPECT_EQ(IBV_WC_GRH, wc.wc_flags & IBV_WC_GRH);
	EXPECT_TRUE(same(rx1 + GRH_LEN, MSG, 9));

	/* Where it came from: our own GID, by the index it was sent to. */
	ASSERT_EQ(0, ibv_init_ah_from_wc(self->ctx, 1, &wc,
					 (struct ibv_grh *)rx1, &from_wc));
	EXPECT_EQ(1, from_wc.is_global);
	EXPECT_EQ(1, from_wc.port_num);
	EXPECT_EQ(0, memcmp(&from_wc.grh.dgid, &self->gid, sizeof(self->gid)));
	EXPECT_EQ(self->gid_index, from_wc.grh.sgid_index);

	reply = ibv_create_ah_from_wc(self->pd, &wc, (struct ibv_grh *)rx1, 1);
	ASSERT_NE(NULL, reply);
	rsge.addr = (uintptr_t)rx0;
	ASSERT_EQ(0, ibv_post_recv(p->qp[0], &rwr, &bad_r));
	fill(self->buf, MSG, 10);
	swr.wr.ud.ah = reply;
	swr.wr.ud.remote_qpn = wc.src_qp;
	ASSERT_EQ(0, ibv_post_send(p->qp[1], &swr, &bad_s));
	ASSERT_EQ(1, poll_n(p->scq[1], &wc, 1, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(1, poll_n(p->rcq[0], &wc, 1, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(p->qp[1]->qp_num, wc.src_qp);
	EXPECT_TRUE(same(rx0 + GRH_LEN, MSG, 10));

	EXPECT_EQ(0, ibv_destroy_ah(reply));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

/*
 * ibv_query_device_ex (inline, through verbs_context.query_device_ex):
 * the same attributes as ibv_query_device, plus the 64-bit capability
 * flags of which ibv_device_attr holds the low 32 (ibv_devinfo -v prints
 * them); an input with an unknown comp_mask is EINVAL.
 */
TEST_F(api, query_device_ex)
{
	struct ibv_query_device_ex_input input = { .comp_mask = 1 };
	struct ibv_device_attr_ex ex;
	struct ibv_device_attr attr;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	memset(&ex, 0xa5, sizeof(ex));
	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &ex));
	EXPECT_EQ(0, memcmp(&attr, &ex.orig_attr, sizeof(attr)));
	EXPECT_NE(0, ex.device_cap_flags_ex);
	EXPECT_EQ(attr.device_cap_flags, (uint32_t)ex.device_cap_flags_ex);
	EXPECT_EQ(0, ex.comp_mask);
	/*
	 * rxe has no timestamps or TSO. Kernel-owned MRs are pinned, so no
	 * on-demand paging there; uverbs reports rxe's own (7.x has it).
	 */
	if (!cm_verbs_are_uverbs())
		EXPECT_EQ(0, ex.odp_caps.general_caps);
	EXPECT_EQ(0, ex.completion_timestamp_mask);
	EXPECT_EQ(0, ex.tso_caps.max_tso);
	EXPECT_EQ(EINVAL, ibv_query_device_ex(self->ctx, &input, &ex));
}

/*
 * A caller built against newer rdma-core headers passes a larger struct to
 * the query ops: what the library does not know of it comes back cleared,
 * as libibverbs clears it, never as the caller left it.
 */
TEST_F(api, queries_clear_the_tail_of_a_larger_struct)
{
	struct verbs_context *vctx = verbs_get_ctx(self->ctx);
	struct {
		struct ibv_port_attr attr;
		unsigned char newer[64];
	} port;
	struct {
		struct ibv_device_attr_ex attr;
		unsigned char newer[64];
	} dev;
	struct ibv_port_attr plain;
	unsigned int i;

	ASSERT_NE(NULL, vctx);
	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &plain));
	memset(&port, 0xa5, sizeof(port));
	ASSERT_EQ(0, vctx->query_port(self->ctx, 1, &port.attr, sizeof(port)));
	EXPECT_EQ(plain.state, port.attr.state);
	EXPECT_EQ(plain.gid_tbl_len, port.attr.gid_tbl_len);
	for (i = 0; i < sizeof(port.newer); i++)
		ASSERT_EQ(0, port.newer[i]);
	memset(&dev, 0xa5, sizeof(dev));
	ASSERT_EQ(0, vctx->query_device_ex(self->ctx, NULL, &dev.attr, sizeof(dev)));
	for (i = 0; i < sizeof(dev.newer); i++)
		ASSERT_EQ(0, dev.newer[i]);
}

TEST(wc_status_strings)
{
	EXPECT_STREQ("success", ibv_wc_status_str(IBV_WC_SUCCESS));
	EXPECT_STREQ("Work Request Flushed Error",
		     ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
	EXPECT_STREQ("transport retry counter exceeded",
		     ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	EXPECT_STREQ("TM software rendezvous",
		     ibv_wc_status_str(IBV_WC_TM_RNDV_INCOMPLETE));
	EXPECT_STREQ("unknown", ibv_wc_status_str((enum ibv_wc_status)999));
	EXPECT_STREQ("unknown", ibv_wc_status_str((enum ibv_wc_status)-1));
}

TEST_HARNESS_MAIN
