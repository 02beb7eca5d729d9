// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_create_cq_ex(3) and its poll API (ibv_start_poll, ibv_next_poll,
 * ibv_end_poll, the ibv_wc_read_* calls) on both ends of an RC connection
 * over rxe: each completion's fields read through the API are those of the
 * work request, an empty CQ says ENOENT, and the same CQ still answers
 * ibv_poll_cq. UCX up to 1.10 makes every CQ this way. In kernel-owned mode
 * a CQ offers the standard fields only; what else is asked fails cleanly.
 */
#include "verbs_test.h"
#include "test_device.h"
#include "kselftest_harness.h"

#define BUF_LEN		8192
#define MSG		100

/* The CQ of an end: made by ibv_create_cq_ex, which begins as an ibv_cq. */
static struct ibv_cq_ex *cq_ex_of(struct ibv_cq *cq)
{
	return (struct ibv_cq_ex *)cq;
}

/* One completion as the extended API reads it. */
struct ex_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num;
	unsigned int wc_flags;
	__be32 imm;
};

static void read_ex(struct ibv_cq_ex *cq, struct ex_wc *wc)
{
	wc->wr_id = cq->wr_id;
	wc->status = cq->status;
	wc->opcode = ibv_wc_read_opcode(cq);
	wc->byte_len = ibv_wc_read_byte_len(cq);
	wc->qp_num = ibv_wc_read_qp_num(cq);
	wc->wc_flags = ibv_wc_read_wc_flags(cq);
	wc->imm = wc->wc_flags & IBV_WC_WITH_IMM ? ibv_wc_read_imm_data(cq) : 0;
}

/*
 * @n completions of @e's CQ into @wc, through start_poll, next_poll and
 * end_poll, within CM_TIMEOUT_MS: how many, or -1 on an error.
 */
static int poll_ex(struct vt_end *e, struct ex_wc *wc, int n)
{
	struct ibv_cq_ex *cq = cq_ex_of(e->cq);
	struct ibv_poll_cq_attr attr = {};
	long end = cm_now_ms() + CM_TIMEOUT_MS;
	int got = 0, ret;

	while (got < n && cm_now_ms() < end) {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT)
			continue;
		if (ret)
			return -1;
		do
			read_ex(cq, &wc[got++]);
		while (got < n && !(ret = ibv_next_poll(cq)));
		ibv_end_poll(cq);
		if (ret && ret != ENOENT)
			return -1;
	}
	return got;
}

FIXTURE(cqex) {
	struct vt_pair p;
};

FIXTURE_SETUP(cqex)
{
	ASSERT_EQ(0, vt_pair_connect_rc(&self->p, BUF_LEN, VT_BUSY_POLL_EX));
}

FIXTURE_TEARDOWN(cqex)
{
	if (!_metadata->passed)
		return;
	EXPECT_EQ(0, vt_pair_disconnect(&self->p));
	EXPECT_EQ(0, vt_pair_close(&self->p));
}

TEST_F(cqex, fields_of_sends_and_writes_with_immediate)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	struct ibv_poll_cq_attr attr = {};
	struct ex_wc wc[2];

	ASSERT_EQ(0, vt_post_recv(s, 21, 0, MSG));
	ASSERT_EQ(0, vt_post_recv(s, 22, MSG, MSG));
	vt_fill(c->buf, 3 * MSG, 5);
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND_WITH_IMM, 11, 0, MSG, 0, 0,
				  0, 0x1234));
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_RDMA_WRITE_WITH_IMM, 12, MSG,
				  2 * MSG, 0, vt_raddr(s, 2 * MSG), s->mr->rkey,
				  0x5678));

	ASSERT_EQ(2, poll_ex(c, wc, 2));
	EXPECT_EQ(11, wc[0].wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(IBV_WC_SEND, wc[0].opcode);
	EXPECT_EQ(12, wc[1].wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, wc[1].status);
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc[1].opcode);
	EXPECT_EQ(c->id->qp->qp_num, wc[0].qp_num);

	ASSERT_EQ(2, poll_ex(s, wc, 2));
	EXPECT_EQ(21, wc[0].wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(IBV_WC_RECV, wc[0].opcode);
	EXPECT_EQ(MSG, wc[0].byte_len);
	EXPECT_TRUE(wc[0].wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(htonl(0x1234), wc[0].imm);
	EXPECT_EQ(s->id->qp->qp_num, wc[0].qp_num);
	EXPECT_EQ(22, wc[1].wr_id);
	EXPECT_EQ(IBV_WC_SUCCESS, wc[1].status);
	EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc[1].opcode);
	EXPECT_EQ(2 * MSG, wc[1].byte_len);
	EXPECT_TRUE(wc[1].wc_flags & IBV_WC_WITH_IMM);
	EXPECT_EQ(htonl(0x5678), wc[1].imm);
	EXPECT_TRUE(vt_check(s->buf, MSG, 5));
	EXPECT_EQ(0, memcmp(s->buf + 2 * MSG, c->buf + MSG, 2 * MSG));

	/* nothing more: ENOENT, and no end_poll is due */
	EXPECT_EQ(ENOENT, ibv_start_poll(cq_ex_of(s->cq), &attr));
	EXPECT_EQ(ENOENT, ibv_start_poll(cq_ex_of(c->cq), &attr));
}

/* The same CQ answers the classic poll as well. */
TEST_F(cqex, classic_poll_on_an_extended_cq)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	struct ibv_wc wc;

	ASSERT_EQ(0, vt_post_recv(s, 31, 0, MSG));
	vt_fill(c->buf, MSG, 6);
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 32, 0, MSG, 0, 0, 0, 0));
	ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 32));
	ASSERT_EQ(0, vt_expect_wc(s, &wc, IBV_WC_RECV, 31));
	EXPECT_EQ(MSG, wc.byte_len);
	EXPECT_TRUE(vt_check(s->buf, MSG, 6));
}

/* A poll attribute with a comp_mask bit the API does not define. */
TEST_F(cqex, unknown_poll_attribute)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 1 };

	if (cm_verbs_are_uverbs())
		SKIP(return, "the provider's own poll");
	EXPECT_EQ(EINVAL, ibv_start_poll(cq_ex_of(self->p.c.cq),
					 &attr));
}

/* What a kernel-owned CQ does not offer fails with EOPNOTSUPP. */
TEST(kernel_owned_cq_offers_the_standard_fields_only)
{
	struct ibv_cq_init_attr_ex attr;
	struct ibv_context *ctx;
	struct ibv_cq_ex *cq;
	struct ibv_pd *pd;

	if (cm_verbs_are_uverbs())
		SKIP(return, "the provider decides what its CQs offer");
	ctx = open_test_device();
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);

	attr = (struct ibv_cq_init_attr_ex){
		.cqe = 16, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(ctx, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	attr = (struct ibv_cq_init_attr_ex){
		.cqe = 16, .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(ctx, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	attr = (struct ibv_cq_init_attr_ex){
		.cqe = 16, .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = pd,
	};
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(ctx, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* the single-threaded hint is taken */
	attr = (struct ibv_cq_init_attr_ex){
		.cqe = 16, .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	cq = ibv_create_cq_ex(ctx, &attr);
	ASSERT_NE(NULL, cq);
	EXPECT_LE(16, ibv_cq_ex_to_cq(cq)->cqe);
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(ctx));
}

TEST_HARNESS_MAIN
