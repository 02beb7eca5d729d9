// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bad input through the verbs API, over rxe: objects still in use cannot
 * be destroyed (EBUSY, and they keep working); memory that cannot be
 * registered; work requests whose SGEs leave their MR or name another
 * context's MR, with too many SGEs or too much inline data; a remote key
 * that is wrong. Every case ends with a clear errno or error completion,
 * and nothing leaks (the runner checks rdmachan's object counters).
 *
 * Where the stacks differ by design it is said and checked per stack:
 * rdmachan checks every SGE in the kernel at post time and refuses the
 * post with EINVAL (rdmachan_post in uapi/rdmachan.h), leaving the QP
 * usable; stock rxe takes the post into
 * its shared ring and fails the request later with a local protection
 * error completion, which moves the QP to the error state.
 */
#include <sys/mman.h>

#include "verbs_test.h"
#include "kselftest_harness.h"

#define BUF_LEN		8192
#define MSG		64

/*
 * Whether @status is @want or a flush. From Linux 6.4 rxe's requester moves
 * the QP to the error state before it completes a request it finds bad,
 * and the completer then flushes every request not yet acknowledged: that
 * one (where 6.3 gives its own error status) and any good one before it.
 */
static bool rxe_status_or_flush(enum ibv_wc_status status,
			    enum ibv_wc_status want)
{
	return status == want || status == IBV_WC_WR_FLUSH_ERR;
}

/*
 * What rxe completes a request with whose lkey names no MR of the QP's PD:
 * a local protection error in Linux 5.10, a local QP operation error in
 * 6.1, a flush from 6.4.
 */
static bool rxe_bad_lkey_status(enum ibv_wc_status status)
{
	return status == IBV_WC_LOC_PROT_ERR ||
	       rxe_status_or_flush(status, IBV_WC_LOC_QP_OP_ERR);
}

FIXTURE(bad) {
	struct vt_pair p;
};

FIXTURE_SETUP(bad)
{
	/* a request the peer never answers ends (wrong_rkey) */
	vt_retry_count = 3;
	ASSERT_EQ(0, vt_pair_connect_rc(&self->p, BUF_LEN, VT_BUSY_POLL));
}

FIXTURE_TEARDOWN(bad)
{
	if (!_metadata->passed)
		return;
	EXPECT_EQ(0, vt_pair_disconnect(&self->p));
	EXPECT_EQ(0, vt_pair_close(&self->p));
}

/* A good SEND of MSG bytes from @from to @to works: 0 or -1. */
static int good_exchange(struct vt_end *from, struct vt_end *to,
			 unsigned int seed)
{
	struct ibv_wc wc;

	vt_fill(from->buf, MSG, seed);
	if (vt_post_recv(to, 91, BUF_LEN / 2, MSG) ||
	    vt_post_send(from, IBV_WR_SEND, 92, 0, MSG, 0, 0, 0, 0) ||
	    vt_expect_wc(from, &wc, IBV_WC_SEND, 92) ||
	    vt_expect_wc(to, &wc, IBV_WC_RECV, 91) ||
	    !vt_check(to->buf + BUF_LEN / 2, MSG, seed))
		return -1;
	return 0;
}

/* ibv_dealloc_pd(3) "may fail if any other resource is still associated" */
TEST_F(bad, busy_pd_cq_and_channel)
{
	struct vt_end *c = &self->p.c;
	struct ibv_context *ctx = c->id->verbs;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	/* the PD of a live MR and QP, the CQ of a live QP */
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(c->pd));
	EXPECT_EQ(EBUSY, ibv_destroy_cq(c->cq));

	/* a PD with only an MR */
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	mr = ibv_reg_mr(pd, c->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));

	/* a completion channel with a CQ on it */
	ch = ibv_create_comp_channel(ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(ctx, 4, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));

	/* all of it still works */
	ASSERT_EQ(0, good_exchange(&self->p.c, &self->p.s, 1));
}

/*
 * ibv_reg_mr(3) of memory that is not there, not writable for local
 * write, or with remote write but without local write.
 */
TEST_F(bad, reg_mr_refused)
{
	struct ibv_pd *pd = self->p.c.pd;
	long page = sysconf(_SC_PAGESIZE);
	void *mem;

	mem = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	/* a hole in the middle */
	ASSERT_EQ(0, munmap((char *)mem + page, page));
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(pd, mem, 4 * page, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(pd, (char *)mem + page, page, 0));
	EXPECT_EQ(EFAULT, errno);

	/* read-only memory for local write */
	ASSERT_EQ(0, mprotect(mem, page, PROT_READ));
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(pd, mem, page, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);

	/* "IBV_ACCESS_REMOTE_WRITE ... requires IBV_ACCESS_LOCAL_WRITE" */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(pd, (char *)mem + 2 * page, page,
				   IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EINVAL, errno);
	munmap(mem, page);
	munmap((char *)mem + 2 * page, 2 * page);

	ASSERT_EQ(0, good_exchange(&self->p.c, &self->p.s, 2));
}

/*
 * A send whose SGE ends past its MR. rdmachan: refused at post time with
 * an errno, the QP stays usable. Stock: posted, then a local protection
 * error completion, and the QP is in the error state.
 */
TEST_F(bad, send_sge_outside_mr)
{
	struct vt_end *c = &self->p.c;
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf + BUF_LEN - 10,
			       .length = 100, .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;
	struct ibv_wc wc;
	int ret;

	/* the receiver is ready: only the sender's SGE is wrong */
	ASSERT_EQ(0, vt_post_recv(&self->p.s, 6, 0, BUF_LEN));
	ret = ibv_post_send(c->id->qp, &wr, &bad);
	if (cm_verbs_are_uverbs()) {
		ASSERT_EQ(0, ret);
		ASSERT_EQ(1, vt_poll(c, &wc, 1, CM_TIMEOUT_MS));
		EXPECT_EQ(5, wc.wr_id);
		EXPECT_TRUE(rxe_status_or_flush(wc.status, IBV_WC_LOC_PROT_ERR)) {
			TH_LOG("status %s", ibv_wc_status_str(wc.status));
		}
		EXPECT_EQ(IBV_QPS_ERR, vt_qp_state(c->id->qp));
		return;
	}
	EXPECT_EQ(EINVAL, ret);
	EXPECT_EQ(&wr, bad);
	EXPECT_TRUE(vt_cq_quiet(c, CM_QUIET_MS));
	EXPECT_EQ(IBV_QPS_RTS, vt_qp_state(c->id->qp));
	/* the receive posted above takes the next good message */
	vt_fill(c->buf, MSG, 3);
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 7, 0, MSG, 0, 0, 0, 0));
	ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 7));
	ASSERT_EQ(0, vt_expect_wc(&self->p.s, &wc, IBV_WC_RECV, 6));
	EXPECT_TRUE(vt_check(self->p.s.buf, MSG, 3));
}

/*
 * A receive whose SGE starts before its MR. rdmachan: refused at post
 * time. Stock: posted; the message that lands on it fails at the
 * receiver with a local QP error and at the sender with a remote
 * operation error.
 */
TEST_F(bad, recv_sge_outside_mr)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf - 64,
			       .length = 128, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_wc wc;
	int ret;

	ret = ibv_post_recv(s->id->qp, &wr, &bad);
	if (cm_verbs_are_uverbs()) {
		ASSERT_EQ(0, ret);
		vt_fill(c->buf, MSG, 4);
		ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 6, 0, MSG, 0, 0, 0,
					  0));
		ASSERT_EQ(1, vt_poll(s, &wc, 1, CM_TIMEOUT_MS));
		EXPECT_EQ(5, wc.wr_id);
		EXPECT_EQ(IBV_WC_LOC_QP_OP_ERR, wc.status) {
			TH_LOG("receiver: %s", ibv_wc_status_str(wc.status));
		}
		ASSERT_EQ(1, vt_poll(c, &wc, 1, CM_TIMEOUT_MS));
		EXPECT_EQ(6, wc.wr_id);
		EXPECT_EQ(IBV_WC_REM_OP_ERR, wc.status) {
			TH_LOG("sender: %s", ibv_wc_status_str(wc.status));
		}
		return;
	}
	EXPECT_EQ(EINVAL, ret);
	EXPECT_EQ(&wr, bad);
	EXPECT_EQ(IBV_QPS_RTS, vt_qp_state(s->id->qp));
	ASSERT_EQ(0, good_exchange(c, s, 5));
}

/*
 * A receive into an MR registered without local write: the device may not
 * write there. rdmachan: refused at post time. Stock: posted; the
 * message that lands on it fails at the receiver with a local QP error
 * and at the sender with a remote operation error.
 */
TEST_F(bad, recv_into_mr_without_local_write)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	unsigned char *mem = aligned_alloc(4096, 4096);
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_wc wc;
	int ret;

	ASSERT_NE(NULL, mem);
	mr = ibv_reg_mr(s->pd, mem, 4096, IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, mr);
	sge = (struct ibv_sge){ .addr = (uintptr_t)mem, .length = MSG,
				.lkey = mr->lkey };
	ret = ibv_post_recv(s->id->qp, &wr, &bad);
	if (cm_verbs_are_uverbs()) {
		ASSERT_EQ(0, ret);
		vt_fill(c->buf, MSG, 4);
		ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 6, 0, MSG, 0, 0, 0,
					  0));
		ASSERT_EQ(1, vt_poll(s, &wc, 1, CM_TIMEOUT_MS));
		EXPECT_EQ(5, wc.wr_id);
		EXPECT_EQ(IBV_WC_LOC_QP_OP_ERR, wc.status) {
			TH_LOG("receiver: %s", ibv_wc_status_str(wc.status));
		}
		ASSERT_EQ(1, vt_poll(c, &wc, 1, CM_TIMEOUT_MS));
		EXPECT_EQ(6, wc.wr_id);
		EXPECT_EQ(IBV_WC_REM_OP_ERR, wc.status) {
			TH_LOG("sender: %s", ibv_wc_status_str(wc.status));
		}
	} else {
		EXPECT_EQ(EINVAL, ret);
		EXPECT_EQ(&wr, bad);
		EXPECT_EQ(IBV_QPS_RTS, vt_qp_state(s->id->qp));
		ASSERT_EQ(0, good_exchange(c, s, 8));
	}
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	free(mem);
}

/*
 * The lkey of an MR of another device context (another open of the
 * device, its own PD). rdmachan: refused at post time. Stock: a local
 * QP error completion.
 */
TEST_F(bad, lkey_of_another_context)
{
	struct vt_end *c = &self->p.c;
	struct ibv_context *other = ibv_open_device(c->id->verbs->device);
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;
	struct ibv_wc wc;
	int ret;

	ASSERT_NE(NULL, other);
	pd = ibv_alloc_pd(other);
	ASSERT_NE(NULL, pd);
	mr = ibv_reg_mr(pd, c->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	sge = (struct ibv_sge){ .addr = (uintptr_t)c->buf, .length = MSG,
				.lkey = mr->lkey };
	ASSERT_EQ(0, vt_post_recv(&self->p.s, 6, 0, BUF_LEN));
	ret = ibv_post_send(c->id->qp, &wr, &bad);
	if (cm_verbs_are_uverbs()) {
		/* rxe finds no such MR on the QP's PD: a local QP error */
		ASSERT_EQ(0, ret);
		ASSERT_EQ(1, vt_poll(c, &wc, 1, CM_TIMEOUT_MS));
		EXPECT_EQ(5, wc.wr_id);
		EXPECT_TRUE(rxe_bad_lkey_status(wc.status)) {
			TH_LOG("status %s", ibv_wc_status_str(wc.status));
		}
		EXPECT_EQ(IBV_QPS_ERR, vt_qp_state(c->id->qp));
	} else {
		EXPECT_EQ(EINVAL, ret);
		EXPECT_EQ(&wr, bad);
		EXPECT_TRUE(vt_cq_quiet(c, CM_QUIET_MS));
		/* the receive posted above takes the next good message */
		vt_fill(c->buf, MSG, 6);
		ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 7, 0, MSG, 0, 0, 0,
					  0));
		ASSERT_EQ(0, vt_expect_wc(c, &wc, IBV_WC_SEND, 7));
		ASSERT_EQ(0, vt_expect_wc(&self->p.s, &wc, IBV_WC_RECV, 6));
		EXPECT_TRUE(vt_check(self->p.s.buf, MSG, 6));
	}
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(other));
}

/* ibv_create_qp with a CQ of another context: refused. */
TEST_F(bad, cq_of_another_context)
{
	struct vt_end *c = &self->p.c;
	struct ibv_context *other = ibv_open_device(c->id->verbs->device);
	struct ibv_qp_init_attr attr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	ASSERT_NE(NULL, other);
	cq = ibv_create_cq(other, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	vt_qp_attr(&attr, c, IBV_QPT_RC, NULL);
	attr.send_cq = cq;
	errno = 0;
	qp = ibv_create_qp(c->pd, &attr);
	EXPECT_EQ(NULL, qp);
	EXPECT_NE(0, errno);
	TH_LOG("QP with another context's CQ: %s", strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_close_device(other));
}

/*
 * More SGEs than the QP was made for, and more inline data than it
 * takes: refused at post time on both stacks, nothing posted.
 */
TEST_F(bad, too_many_sges_and_too_much_inline)
{
	struct vt_end *c = &self->p.c;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_sge sge[64];
	struct ibv_send_wr wr = { .wr_id = 5, .sg_list = sge,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 6, .sg_list = sge }, *rbad;
	unsigned char *big;
	unsigned int i;

	ASSERT_EQ(0, ibv_query_qp(c->id->qp, &attr, IBV_QP_CAP, &init));
	ASSERT_GT(64, init.cap.max_send_sge);
	ASSERT_GT(64, init.cap.max_recv_sge);
	for (i = 0; i < 64; i++)
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)c->buf + i,
					   .length = 1, .lkey = c->mr->lkey };
	wr.num_sge = (int)init.cap.max_send_sge + 1;
	bad = NULL;
	EXPECT_NE(0, ibv_post_send(c->id->qp, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	rwr.num_sge = (int)init.cap.max_recv_sge + 1;
	rbad = NULL;
	EXPECT_NE(0, ibv_post_recv(c->id->qp, &rwr, &rbad));
	EXPECT_EQ(&rwr, rbad);

	big = calloc(1, init.cap.max_inline_data + 1);
	ASSERT_NE(NULL, big);
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)big,
				   .length = init.cap.max_inline_data + 1 };
	wr.num_sge = 1;
	wr.send_flags |= IBV_SEND_INLINE;
	bad = NULL;
	EXPECT_NE(0, ibv_post_send(c->id->qp, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	free(big);

	EXPECT_TRUE(vt_cq_quiet(c, CM_QUIET_MS));
	EXPECT_EQ(IBV_QPS_RTS, vt_qp_state(c->id->qp));
	ASSERT_EQ(0, good_exchange(c, &self->p.s, 7));
}

/*
 * A chain whose middle request has a bad lkey. rdmachan: the requests
 * before it are posted and complete, *bad_wr points at it, nothing after
 * it was posted, and the rest can be posted again once fixed. Stock rxe
 * posts all three: the first completes, the bad one fails with a local QP
 * error and the third is flushed.
 */
TEST_F(bad, chain_stops_at_bad_request)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;
	struct ibv_sge sge[3];
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_wc wc[3];
	int i, ret;

	for (i = 0; i < 3; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)c->buf + i * MSG,
					   .length = MSG, .lkey = c->mr->lkey };
		wr[i] = (struct ibv_send_wr){ .wr_id = 10 + i,
					      .sg_list = &sge[i], .num_sge = 1,
					      .opcode = IBV_WR_SEND,
					      .send_flags = IBV_SEND_SIGNALED,
					      .next = i < 2 ? &wr[i + 1] : NULL };
		vt_fill(c->buf + i * MSG, MSG, 20 + i);
		ASSERT_EQ(0, vt_post_recv(s, 30 + i, (size_t)i * MSG, MSG));
	}
	sge[1].lkey ^= 0x5a5a00;
	ret = ibv_post_send(c->id->qp, wr, &bad);
	if (cm_verbs_are_uverbs()) {
		ASSERT_EQ(0, ret);
		ASSERT_EQ(3, vt_poll(c, wc, 3, CM_TIMEOUT_MS));
		/* the first was sent; since 6.4 its completion may be a flush */
		for (i = 0; i < 3; i++)
			EXPECT_EQ(10 + i, wc[i].wr_id);
		EXPECT_TRUE(rxe_status_or_flush(wc[0].status, IBV_WC_SUCCESS));
		EXPECT_TRUE(rxe_bad_lkey_status(wc[1].status)) {
			TH_LOG("bad one: %s", ibv_wc_status_str(wc[1].status));
		}
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[2].status);
		ASSERT_EQ(0, vt_expect_wc(s, wc, IBV_WC_RECV, 30));
		EXPECT_TRUE(vt_check(s->buf, MSG, 20));
		return;
	}
	EXPECT_NE(0, ret);
	EXPECT_EQ(&wr[1], bad);
	ASSERT_EQ(0, vt_expect_wc(c, wc, IBV_WC_SEND, 10));
	ASSERT_EQ(0, vt_expect_wc(s, wc, IBV_WC_RECV, 30));
	EXPECT_TRUE(vt_check(s->buf, MSG, 20));
	EXPECT_TRUE(vt_cq_quiet(c, CM_QUIET_MS));
	/* the rest goes as a chain of its own */
	sge[1].lkey = c->mr->lkey;
	ASSERT_EQ(0, ibv_post_send(c->id->qp, &wr[1], &bad));
	ASSERT_EQ(2, vt_poll(c, wc, 2, CM_TIMEOUT_MS));
	EXPECT_EQ(11, wc[0].wr_id);
	EXPECT_EQ(12, wc[1].wr_id);
	ASSERT_EQ(2, vt_poll(s, wc, 2, CM_TIMEOUT_MS));
	EXPECT_EQ(31, wc[0].wr_id);
	EXPECT_EQ(32, wc[1].wr_id);
	EXPECT_TRUE(vt_check(s->buf + MSG, MSG, 21));
	EXPECT_TRUE(vt_check(s->buf + 2 * MSG, MSG, 22));
}

/*
 * A request the peer refuses for its rkey or range ends in an error
 * completion. The IB spec has the responder answer with a NAK, and the
 * requester completes with a remote access error. rxe in Linux 5.10 (not
 * 6.1) sends none for an RDMA WRITE or READ: its responder completes no
 * receive for them and so skips the NAK, and moves its QP to ERR. The
 * requester then completes with a retry error once its retries have run
 * out (3, some 9 s: rxe would take librdmacm's usual 7 as "retry
 * forever"): the peer's doing, accepted with the peer's QP in ERR.
 */
#define REFUSED_WAIT_MS	30000

static void expect_refused(struct __test_metadata *_metadata,
			   struct vt_end *c, struct vt_end *s)
{
	struct ibv_wc wc;
	long t0 = cm_now_ms();

	ASSERT_EQ(1, vt_poll(c, &wc, 1, REFUSED_WAIT_MS));
	EXPECT_EQ(1, wc.wr_id);
	if (wc.status == IBV_WC_RETRY_EXC_ERR) {
		TH_LOG("no NAK from the peer: retry error after %ld ms",
		       cm_now_ms() - t0);
		EXPECT_EQ(IBV_QPS_ERR, vt_qp_state(s->id->qp));
	} else {
		EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, wc.status) {
			TH_LOG("status %s", ibv_wc_status_str(wc.status));
		}
	}
	EXPECT_EQ(IBV_QPS_ERR, vt_qp_state(c->id->qp));
}

/*
 * A wrong rkey cannot be checked at post time: the peer refuses the RDMA
 * WRITE, on both stacks.
 */
TEST_F_TIMEOUT(bad, wrong_rkey, 60)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;

	memset(s->buf, 0, BUF_LEN);
	vt_fill(c->buf, MSG, 8);
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_RDMA_WRITE, 1, 0, MSG, 0,
				  vt_raddr(s, 0), s->mr->rkey ^ 0x100, 0));
	expect_refused(_metadata, c, s);
	EXPECT_TRUE(vt_all(s->buf, BUF_LEN, 0));
}

/* The same for a remote range that leaves the peer's MR. */
TEST_F_TIMEOUT(bad, remote_range_outside_mr, 60)
{
	struct vt_end *c = &self->p.c, *s = &self->p.s;

	ASSERT_EQ(0, vt_post_send(c, IBV_WR_RDMA_READ, 1, 0, MSG, 0,
				  vt_raddr(s, BUF_LEN - MSG / 2), s->mr->rkey,
				  0));
	expect_refused(_metadata, c, s);
}

/*
 * A QP that is still in RESET takes no send (rxe: EINVAL at the post on
 * both stacks, since the post enters the kernel on stock as well).
 */
TEST_F(bad, send_on_reset_qp)
{
	struct vt_end *c = &self->p.c;
	struct ibv_qp_init_attr attr;
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf, .length = MSG,
			       .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp *qp;

	vt_qp_attr(&attr, c, IBV_QPT_RC, NULL);
	qp = ibv_create_qp(c->pd, &attr);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(IBV_QPS_RESET, vt_qp_state(qp));
	bad = NULL;
	EXPECT_NE(0, ibv_post_send(qp, &wr, &bad));
	EXPECT_TRUE(vt_bad_wr_is(bad, &wr));
	EXPECT_TRUE(vt_cq_quiet(c, CM_QUIET_MS));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

TEST_HARNESS_MAIN
