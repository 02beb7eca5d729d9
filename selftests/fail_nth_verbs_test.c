// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fail-nth sweeps over the verbs, data-path and async-event ioctls: the
 * engine and what each injected fault must leave are in fail_nth.h.
 *
 * Errnos besides ENOMEM and EFAULT, where the RDMA core gives them:
 * CREATE_AH, MODIFY_QP with an address vector and JOIN_MCAST resolve
 * the peer's MAC through an IP route lookup (SW_ROUTE: ENOBUFS); CREATE_QP
 * makes rxe create the QP's UDP socket (SW_SOCKET: ENFILE).
 *
 * QPs are swept as UD QPs: rxe in 6.1 cannot fail to make an RC QP
 * cleanly. When its socket or send queue cannot be allocated, its cleanup
 * deletes the RC timers it has not set up yet (rxe_qp_do_cleanup()), a
 * lockdep and debugobjects report in rxe itself that also turns lockdep
 * off for the rest of the run. The module's path is the same for both.
 *
 * A POLL_CQ whose completions cannot be written loses them (its
 * kernel-doc says so, as ib_uverbs' poll does): after an EFAULT there,
 * the completion is not expected again.
 *
 * A failed post posts the requests before the one it failed on
 * (out_num_posted); they complete, and the same post again posts the
 * whole chain.
 */
#include <glob.h>
#include <sys/mman.h>

#include "rdmachan_verbs_raw.h"

union sweep_arg {
	struct rdmachan_alloc_pd pd;
	struct rdmachan_reg_mr mr;
	struct rdmachan_create_comp_channel chan;
	struct rdmachan_create_cq cq;
	struct rdmachan_create_qp qp;
	struct rdmachan_modify_qp mqp;
	struct rdmachan_create_srq srq;
	struct rdmachan_modify_srq msrq;
	struct rdmachan_create_ah ah;
	struct rdmachan_post post;
	struct rdmachan_poll_cq poll;
	struct rdmachan_notify_cq notify;
	struct rdmachan_get_cq_event cq_event;
	struct rdmachan_join_mcast join;
	struct rdmachan_open_async_fd async;
	struct rdmachan_get_async_event async_event;
	struct rdmachan_ack_async_event async_ack;
	struct rdmachan_update_cq_ring ring;
	struct rdmachan_destroy destroy;
};

/* more than the module takes on its stack: its buffers are allocated */
#define CHAIN		8
#define BUF_SIZE	(64 * 1024)

/* Objects of the sweep or of one step. */
#define SWEEP_CTX_FIELDS			\
	__u32 pd;				\
	__u32 cq;				\
	__u32 qp;				\
	__u32 qpn;				\
	__u32 srq;				\
	__u32 ah;				\
	__u32 id;				\
	__u32 handle;				\
	__u32 max_wr;				\
	struct raw_mr mr;			\
	int chfd;				\
	int afd;				\
	__u32 flags;				\
	__u32 qp_type;				\
	char *buf;				\
	struct rdmachan_ah_attr av;		\
	struct rdmachan_send_wr swr[CHAIN];	\
	struct rdmachan_recv_wr rwr[CHAIN];	\
	struct rdmachan_sge sge[CHAIN];		\
	struct rdmachan_wc wc[2 * CHAIN];

#include "fail_nth.h"

#define QKEY		0x11111111
/* sends whose payloads the module copies into a buffer it allocates */
#define INLINE		1
#define INLINE_LEN	200
#define CQ_ENTRIES	64

/* Helpers for the steps: each runs without a fault armed. */

static void make_buf(struct __test_metadata *_metadata, struct ctx *c)
{
	if (!c->buf) {
		c->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, c->buf);
		memset(c->buf, 0x5a, BUF_SIZE);
	}
}

static void pd_init(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_alloc_pd(c->fd, c->dev_ctx, &c->pd));
}

/* A PD, an MR over the buffer, a CQ, an AH to this port. */
static void data_init(struct __test_metadata *_metadata, struct ctx *c)
{
	pd_init(_metadata, c);
	make_buf(_metadata, c);
	ASSERT_EQ(0, raw_reg_mr(c->fd, c->pd, c->buf, BUF_SIZE,
				IBV_ACCESS_LOCAL_WRITE, &c->mr));
	ASSERT_EQ(0, raw_create_cq(c->fd, c->dev_ctx, CQ_ENTRIES,
				   RDMACHAN_NO_FD, 0, &c->cq));
	ah_to_self(c->fd, c->dev_ctx, &c->av);
	ASSERT_EQ(0, create_ah(c->fd, c->pd, &c->av, &c->ah));
}

/* Takes what the CQ holds; every completion must be a success. */
static void drain_cq(struct __test_metadata *_metadata, struct ctx *c)
{
	int n, i;

	while ((n = raw_poll_cq(c->fd, c->cq, c->wc, 2 * CHAIN)) > 0)
		for (i = 0; i < n; i++)
			CHECK(c->wc[i].status == IBV_WC_SUCCESS,
			      "completion %llu: status %u",
			      (unsigned long long)c->wc[i].wr_id,
			      c->wc[i].status);
	CHECK(n == 0, "POLL_CQ: %s", strerror(-n));
}

/* Waits for @n successful completions. */
static void expect_wcs(struct __test_metadata *_metadata, struct ctx *c,
		       int n)
{
	int got, i;

	if (!n)
		return;
	got = raw_poll_n(c->fd, c->cq, c->wc, n);
	CHECK(got == n, "%d of %d completions", got, n);
	for (i = 0; i < got; i++)
		CHECK(c->wc[i].status == IBV_WC_SUCCESS,
		      "completion %llu: status %u",
		      (unsigned long long)c->wc[i].wr_id, c->wc[i].status);
}

static void make_ud_qp(struct __test_metadata *_metadata, struct ctx *c,
		       __u32 srq)
{
	struct raw_qp_init init = {
		.pd = c->pd, .send_cq = c->cq, .recv_cq = c->cq, .srq = srq,
		.qp_type = IBV_QPT_UD, .max_wr = 2 * CHAIN, .max_sge = 1,
		.max_inline = c->flags == INLINE ? INLINE_LEN : 0,
	};

	ASSERT_EQ(0, raw_create_qp(c->fd, &init, &c->qp, &c->qpn, NULL));
	ASSERT_EQ(0, ud_ready(c->fd, c->qp, QKEY));
}

static void qp_state_is(struct __test_metadata *_metadata, struct ctx *c,
			int state)
{
	int got = raw_qp_state(c->fd, c->qp);

	CHECK(got == state, "QP state %d, want %d", got, state);
}

/* Protection domains and memory regions */

static void alloc_pd_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.pd.size = sizeof(c->arg.pd);
	c->arg.pd.context = c->dev_ctx;
}

static void alloc_pd_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.pd.out_handle != 0, "no handle");
	destroy_ok(_metadata, c, c->fd, c->arg.pd.out_handle);
}

static const struct sweep_ops alloc_pd_ops = {
	.name = "ALLOC_PD",
	.ioc = RDMACHAN_IOC_ALLOC_PD,
	.prepare = alloc_pd_prepare,
	.done = alloc_pd_done,
};

static void reg_mr_init(struct __test_metadata *_metadata, struct ctx *c)
{
	pd_init(_metadata, c);
	make_buf(_metadata, c);
}

static void reg_mr_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.mr.size = sizeof(c->arg.mr);
	c->arg.mr.pd = c->pd;
	c->arg.mr.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;
	c->arg.mr.addr = (uintptr_t)c->buf;
	c->arg.mr.length = BUF_SIZE;
	c->arg.mr.iova = 0x10000;
}

static void reg_mr_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.mr.out_handle != 0, "no handle");
	CHECK(c->arg.mr.out_lkey != 0, "no lkey");
	destroy_ok(_metadata, c, c->fd, c->arg.mr.out_handle);
}

static const struct sweep_ops reg_mr_ops = {
	.name = "REG_MR (16 pages)",
	.ioc = RDMACHAN_IOC_REG_MR,
	.init = reg_mr_init,
	.prepare = reg_mr_prepare,
	.done = reg_mr_done,
};

/* Completion channels and CQs */

static void channel_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.chan.size = sizeof(c->arg.chan);
}

static void channel_done(struct __test_metadata *_metadata, struct ctx *c)
{
	int fd = c->arg.chan.out_fd;

	CHECK(fd >= 0 && !(fcntl(fd, F_GETFD) & ~FD_CLOEXEC) &&
	      (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	      "out_fd %d is not a close-on-exec fd", fd);
	if (fd >= 0)
		close(fd);
}

static const struct sweep_ops channel_ops = {
	.name = "CREATE_COMP_CHANNEL",
	.ioc = RDMACHAN_IOC_CREATE_COMP_CHANNEL,
	.prepare = channel_prepare,
	.done = channel_done,
};

static void cq_init(struct __test_metadata *_metadata, struct ctx *c)
{
	c->chfd = -1;
	if (c->flags == 1)
		ASSERT_EQ(0, raw_create_channel(c->fd, &c->chfd));
}

static void cq_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.cq.size = sizeof(c->arg.cq);
	c->arg.cq.context = c->dev_ctx;
	c->arg.cq.cqe = CQ_ENTRIES;
	c->arg.cq.comp_channel = c->chfd;
	c->arg.cq.user_context = 0xc0ffee;
	if (c->flags == RDMACHAN_CREATE_CQ_RING + 1)
		c->arg.cq.flags = RDMACHAN_CREATE_CQ_RING;
}

static void cq_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_create_cq *cq = &c->arg.cq;
	void *ring;

	CHECK(cq->out_handle != 0, "no handle");
	CHECK(cq->out_cqe >= CQ_ENTRIES, "%u entries", cq->out_cqe);
	if (cq->flags & RDMACHAN_CREATE_CQ_RING) {
		ring = mmap(NULL, cq->out_ring_size, PROT_READ, MAP_SHARED,
			    c->fd, cq->out_ring_offset);
		CHECK(ring != MAP_FAILED, "the ring cannot be mapped: %s",
		      strerror(errno));
		if (ring != MAP_FAILED)
			munmap(ring, cq->out_ring_size);
	}
	destroy_ok(_metadata, c, c->fd, cq->out_handle);
}

static const struct sweep_ops cq_ops = {
	.name = "CREATE_CQ",
	.ioc = RDMACHAN_IOC_CREATE_CQ,
	.init = cq_init,
	.prepare = cq_prepare,
	.done = cq_done,
};

static const struct sweep_ops cq_channel_ops = {
	.name = "CREATE_CQ (on a channel)",
	.ioc = RDMACHAN_IOC_CREATE_CQ,
	.init = cq_init,
	.prepare = cq_prepare,
	.done = cq_done,
};

static const struct sweep_ops cq_ring_ops = {
	.name = "CREATE_CQ (ring)",
	.ioc = RDMACHAN_IOC_CREATE_CQ,
	.init = cq_init,
	.prepare = cq_prepare,
	.done = cq_done,
};

/* Queue pairs */

static void qp_init(struct __test_metadata *_metadata, struct ctx *c)
{
	pd_init(_metadata, c);
	ASSERT_EQ(0, raw_create_cq(c->fd, c->dev_ctx, CQ_ENTRIES,
				   RDMACHAN_NO_FD, 0, &c->cq));
}

static void qp_fill(struct ctx *c)
{
	struct rdmachan_create_qp *qp = &c->arg.qp;

	qp->size = sizeof(*qp);
	qp->pd = c->pd;
	qp->send_cq = c->cq;
	qp->recv_cq = c->cq;
	qp->qp_type = c->qp_type;
	qp->user_context = 0x5150;
	qp->cap.max_send_wr = 16;
	qp->cap.max_recv_wr = 16;
	qp->cap.max_send_sge = 2;
	qp->cap.max_recv_sge = 2;
}

static void qp_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	qp_fill(c);
}

static void qp_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.qp.out_handle != 0 && c->arg.qp.out_qp_num != 0,
	      "handle %u, QP number %u", c->arg.qp.out_handle,
	      c->arg.qp.out_qp_num);
	CHECK(c->arg.qp.out_cap.max_send_wr >= 16, "%u send WRs",
	      c->arg.qp.out_cap.max_send_wr);
	destroy_ok(_metadata, c, c->fd, c->arg.qp.out_handle);
}

static const struct sweep_ops qp_ud_ops = {
	.name = "CREATE_QP (UD)",
	.ioc = RDMACHAN_IOC_CREATE_QP,
	.flags = SW_SOCKET,
	.init = qp_init,
	.prepare = qp_prepare,
	.done = qp_done,
};

/* A UDP id of the peer file, its address resolved: the CM makes the QP. */
static void qp_cm_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->peer, RDMA_PS_UDP, 0, &c->id));
	ASSERT_EQ(0, raw_resolve_addr(c->peer, c->id, raw_next_port()));
	ASSERT_EQ(0, raw_expect(c->peer, c->id, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	qp_fill(c);
	c->arg.qp.flags = RDMACHAN_CREATE_QP_CM_ID;
	c->arg.qp.cm_fd = c->peer;
	c->arg.qp.cm_id = c->id;
}

static void qp_cm_done(struct __test_metadata *_metadata, struct ctx *c)
{
	c->qp = c->arg.qp.out_handle;
	/* a UD QP for a CM id is taken to RTS */
	qp_state_is(_metadata, c, IBV_QPS_RTS);
	qp_done(_metadata, c);
	destroy_ok(_metadata, c, c->peer, c->id);
}

/* The id must not keep a QP that failed to be made. */
static void qp_cm_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err = call_again(c);

	CHECK(!err, "the next identical call fails with %s", strerror(err));
	if (!err)
		qp_cm_done(_metadata, c);
	else
		destroy_ok(_metadata, c, c->peer, c->id);
}

static const struct sweep_ops qp_cm_ops = {
	.name = "CREATE_QP (UD, for a CM id)",
	.ioc = RDMACHAN_IOC_CREATE_QP,
	.flags = SW_SOCKET,
	.init = qp_init,
	.prepare = qp_cm_prepare,
	.done = qp_cm_done,
	.failed = qp_cm_failed,
};

/*
 * An RC QP taken one transition, to c->flags: RESET to INIT, INIT to RTR
 * (with an address vector to this port), RTR to RTS.
 */
static void modify_fill(struct ctx *c, __u32 state)
{
	struct rdmachan_qp_attr *a = &c->arg.mqp.attr;

	memset(&c->arg.mqp, 0, sizeof(c->arg.mqp));
	c->arg.mqp.size = sizeof(c->arg.mqp);
	c->arg.mqp.qp = c->qp;
	a->qp_state = state;
	switch (state) {
	case IBV_QPS_INIT:
		c->arg.mqp.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		a->port_num = 1;
		a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		break;
	case IBV_QPS_RTR:
		c->arg.mqp.attr_mask = IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER;
		a->path_mtu = IBV_MTU_1024;
		a->dest_qp_num = c->qpn;
		a->rq_psn = 1;
		a->max_dest_rd_atomic = 1;
		a->min_rnr_timer = 12;
		ah_to_self(c->fd, c->dev_ctx, &a->ah_attr);
		break;
	case IBV_QPS_RTS:
		c->arg.mqp.attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
		a->timeout = 14;
		a->retry_cnt = 7;
		a->rnr_retry = 7;
		a->sq_psn = 1;
		a->max_rd_atomic = 1;
		break;
	}
}

static void modify_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	struct raw_qp_init init = {
		.pd = c->pd, .send_cq = c->cq, .recv_cq = c->cq,
		.qp_type = IBV_QPT_RC,
	};
	__u32 state;

	ASSERT_EQ(0, raw_create_qp(c->fd, &init, &c->qp, &c->qpn, NULL));
	for (state = IBV_QPS_INIT; state < c->flags; state++) {
		modify_fill(c, state);
		ASSERT_EQ(0, raw_modify_qp(c->fd, c->qp, c->arg.mqp.attr_mask,
					   &c->arg.mqp.attr));
	}
	modify_fill(c, c->flags);
}

static void modify_done(struct __test_metadata *_metadata, struct ctx *c)
{
	qp_state_is(_metadata, c, c->flags);
	destroy_ok(_metadata, c, c->fd, c->qp);
}

/* The QP stays in the state it was in. */
static void modify_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err;

	qp_state_is(_metadata, c, c->flags - 1);
	err = call_again(c);
	CHECK(!err, "the next identical call fails with %s", strerror(err));
	if (!err)
		modify_done(_metadata, c);
	else
		destroy_ok(_metadata, c, c->fd, c->qp);
}

#define MODIFY_OPS(_name, _what, _flags)				\
static const struct sweep_ops modify_##_name##_ops = {			\
	.name = "MODIFY_QP (" _what ")",				\
	.ioc = RDMACHAN_IOC_MODIFY_QP,					\
	.flags = _flags,						\
	.init = qp_init,						\
	.prepare = modify_prepare,					\
	.done = modify_done,						\
	.failed = modify_failed,					\
}
MODIFY_OPS(init, "RC, RESET to INIT", 0);
MODIFY_OPS(rtr, "RC, INIT to RTR, AV", SW_ROUTE);
MODIFY_OPS(rts, "RC, RTR to RTS", 0);

/* Shared receive queues and address handles */

static void srq_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.srq.size = sizeof(c->arg.srq);
	c->arg.srq.pd = c->pd;
	c->arg.srq.user_context = 0x5e1;
	c->arg.srq.attr.max_wr = 32;
	c->arg.srq.attr.max_sge = 2;
}

static void srq_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.srq.out_handle != 0, "no handle");
	CHECK(c->arg.srq.out_attr.max_wr >= 32, "%u WRs",
	      c->arg.srq.out_attr.max_wr);
	destroy_ok(_metadata, c, c->fd, c->arg.srq.out_handle);
}

static const struct sweep_ops srq_ops = {
	.name = "CREATE_SRQ",
	.ioc = RDMACHAN_IOC_CREATE_SRQ,
	.init = pd_init,
	.prepare = srq_prepare,
	.done = srq_done,
};

static void ah_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.ah.size = sizeof(c->arg.ah);
	c->arg.ah.pd = c->pd;
	ah_to_self(c->fd, c->dev_ctx, &c->arg.ah.attr);
}

static void ah_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.ah.out_handle != 0, "no handle");
	destroy_ok(_metadata, c, c->fd, c->arg.ah.out_handle);
}

static const struct sweep_ops ah_ops = {
	.name = "CREATE_AH",
	.ioc = RDMACHAN_IOC_CREATE_AH,
	.flags = SW_ROUTE,
	.init = pd_init,
	.prepare = ah_prepare,
	.done = ah_done,
};

/* Posts: a chain of CHAIN requests, one SGE each, on a fresh UD QP */

static void post_fill(struct ctx *c, unsigned long ioc, __u32 handle)
{
	struct rdmachan_post *p = &c->arg.post;
	int i;

	memset(c->swr, 0, sizeof(c->swr));
	memset(c->rwr, 0, sizeof(c->rwr));
	for (i = 0; i < CHAIN; i++) {
		c->sge[i].addr = (uintptr_t)c->buf + i * 256;
		c->sge[i].length = 256;
		c->sge[i].lkey = c->mr.lkey;
		c->swr[i].wr_id = i + 1;
		c->swr[i].opcode = IBV_WR_SEND;
		c->swr[i].send_flags = IBV_SEND_SIGNALED;
		if (c->flags == INLINE) {
			c->swr[i].send_flags |= IBV_SEND_INLINE;
			c->sge[i].length = INLINE_LEN;
		}
		c->swr[i].num_sge = 1;
		c->swr[i].ah = c->ah;
		/* to a QP number nobody has: the datagrams are dropped */
		c->swr[i].remote_qpn = 0xfffff0;
		c->swr[i].remote_qkey = QKEY;
		c->rwr[i].wr_id = i + 1;
		c->rwr[i].num_sge = 1;
	}
	p->size = sizeof(*p);
	p->handle = handle;
	p->num_wrs = CHAIN;
	p->num_sges = CHAIN;
	p->sges = (uintptr_t)c->sge;
	if (ioc == RDMACHAN_IOC_POST_SEND) {
		p->wrs = (uintptr_t)c->swr;
		p->wr_size = sizeof(c->swr[0]);
	} else {
		p->wrs = (uintptr_t)c->rwr;
		p->wr_size = sizeof(c->rwr[0]);
	}
}

static void post_send_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	drain_cq(_metadata, c);
	make_ud_qp(_metadata, c, 0);
	post_fill(c, RDMACHAN_IOC_POST_SEND, c->qp);
}

static void post_send_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.post.out_num_posted == CHAIN, "%u posted",
	      c->arg.post.out_num_posted);
	expect_wcs(_metadata, c, CHAIN);
	destroy_ok(_metadata, c, c->fd, c->qp);
}

/* The requests before the failed one complete; then the chain again. */
static void post_send_failed(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	__u32 posted = c->arg.post.out_num_posted;
	int err;

	CHECK(posted < CHAIN, "out_num_posted %u of a failed post", posted);
	if (posted < CHAIN)
		expect_wcs(_metadata, c, posted);
	qp_state_is(_metadata, c, IBV_QPS_RTS);
	err = do_call(c);
	CHECK(!err, "the same post again fails with %s", strerror(err));
	if (!err)
		post_send_done(_metadata, c);
	else
		destroy_ok(_metadata, c, c->fd, c->qp);
}

static const struct sweep_ops post_send_ops = {
	.name = "POST_SEND (UD chain)",
	.ioc = RDMACHAN_IOC_POST_SEND,
	.init = data_init,
	.prepare = post_send_prepare,
	.done = post_send_done,
	.failed = post_send_failed,
};

static const struct sweep_ops post_send_inline_ops = {
	.name = "POST_SEND (UD chain, inline)",
	.ioc = RDMACHAN_IOC_POST_SEND,
	.init = data_init,
	.prepare = post_send_prepare,
	.done = post_send_done,
	.failed = post_send_failed,
};

static void post_recv_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	drain_cq(_metadata, c);
	make_ud_qp(_metadata, c, 0);
	post_fill(c, RDMACHAN_IOC_POST_RECV, c->qp);
}

/* As many datagrams to the QP as it has receives: each takes one. */
static void recv_check(struct __test_metadata *_metadata, struct ctx *c,
		       int n)
{
	struct rdmachan_send_wr wr = {
		.wr_id = 100, .opcode = IBV_WR_SEND, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .ah = c->ah,
		.remote_qpn = c->qpn, .remote_qkey = QKEY,
	};
	int i, err;

	for (i = 0; i < n; i++) {
		err = raw_post_send1(c->fd, c->qp, &wr, c->buf + BUF_SIZE / 2,
				     64, c->mr.lkey);
		CHECK(!err, "POST_SEND: %s", strerror(err));
	}
	/* a send and a receive completion each */
	expect_wcs(_metadata, c, 2 * n);
}

static void post_recv_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.post.out_num_posted == CHAIN, "%u posted",
	      c->arg.post.out_num_posted);
	recv_check(_metadata, c, CHAIN);
	destroy_ok(_metadata, c, c->fd, c->qp);
}

static void post_recv_failed(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	__u32 posted = c->arg.post.out_num_posted;
	int err;

	CHECK(posted < CHAIN, "out_num_posted %u of a failed post", posted);
	if (posted < CHAIN)
		recv_check(_metadata, c, posted);
	err = do_call(c);
	CHECK(!err, "the same post again fails with %s", strerror(err));
	if (!err)
		post_recv_done(_metadata, c);
	else
		destroy_ok(_metadata, c, c->fd, c->qp);
}

static const struct sweep_ops post_recv_ops = {
	.name = "POST_RECV (chain)",
	.ioc = RDMACHAN_IOC_POST_RECV,
	.init = data_init,
	.prepare = post_recv_prepare,
	.done = post_recv_done,
	.failed = post_recv_failed,
};

static void post_srq_prepare(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	drain_cq(_metadata, c);
	ASSERT_EQ(0, create_srq(c->fd, c->pd, 2 * CHAIN, &c->srq, NULL));
	make_ud_qp(_metadata, c, c->srq);
	post_fill(c, RDMACHAN_IOC_POST_SRQ_RECV, c->srq);
}

static void post_srq_undo(struct __test_metadata *_metadata, struct ctx *c)
{
	destroy_ok(_metadata, c, c->fd, c->qp);
	destroy_ok(_metadata, c, c->fd, c->srq);
}

static void post_srq_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.post.out_num_posted == CHAIN, "%u posted",
	      c->arg.post.out_num_posted);
	recv_check(_metadata, c, CHAIN);
	post_srq_undo(_metadata, c);
}

static void post_srq_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	__u32 posted = c->arg.post.out_num_posted;
	int err;

	CHECK(posted < CHAIN, "out_num_posted %u of a failed post", posted);
	if (posted < CHAIN)
		recv_check(_metadata, c, posted);
	err = do_call(c);
	CHECK(!err, "the same post again fails with %s", strerror(err));
	if (!err)
		post_srq_done(_metadata, c);
	else
		post_srq_undo(_metadata, c);
}

static const struct sweep_ops post_srq_ops = {
	.name = "POST_SRQ_RECV (chain)",
	.ioc = RDMACHAN_IOC_POST_SRQ_RECV,
	.init = data_init,
	.prepare = post_srq_prepare,
	.done = post_srq_done,
	.failed = post_srq_failed,
};

/* Multicast: a UDP id bound to the test address joins a group. */
static void join_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&c->arg.join.addr;

	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_UDP, 0, &c->id));
	ASSERT_EQ(0, raw_bind(c->fd, c->id, 0, NULL));
	c->arg.join.size = sizeof(c->arg.join);
	c->arg.join.id = c->id;
	c->arg.join.user_context = 0x3c;
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "239.1.2.3", &sin->sin_addr);
}

static void join_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event ev;
	int err;

	CHECK(c->arg.join.out_handle != 0, "no handle");
	err = raw_expect(c->fd, c->id, RDMA_CM_EVENT_MULTICAST_JOIN, &ev);
	CHECK(!err, "no MULTICAST_JOIN: %s", strerror(err));
	destroy_ok(_metadata, c, c->fd, c->arg.join.out_handle);
	destroy_ok(_metadata, c, c->fd, c->id);
}

/* A failed join sends no event. */
static void join_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event ev;
	int err;

	if (!raw_get_event(c->fd, &ev, 100)) {
		CHECK(0, "a failed join sent %s", rdma_event_str(ev.event));
		raw_ack(c->fd, &ev.event_handle, 1);
	}
	err = call_again(c);
	CHECK(!err, "the next identical call fails with %s", strerror(err));
	if (!err)
		join_done(_metadata, c);
	else
		destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops join_ops = {
	.name = "JOIN_MCAST",
	.ioc = RDMACHAN_IOC_JOIN_MCAST,
	.flags = SW_ROUTE,
	.prepare = join_prepare,
	.done = join_done,
	.failed = join_failed,
};

/* Asynchronous event files */

static void async_fd_prepare(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	c->arg.async.size = sizeof(c->arg.async);
	c->arg.async.context = c->dev_ctx;
}

static void async_fd_done(struct __test_metadata *_metadata, struct ctx *c)
{
	int fd = c->arg.async.out_fd;

	CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	      "out_fd %d is not a close-on-exec fd", fd);
	if (fd >= 0)
		close(fd);
}

static const struct sweep_ops async_fd_ops = {
	.name = "OPEN_ASYNC_FD",
	.ioc = RDMACHAN_IOC_OPEN_ASYNC_FD,
	.prepare = async_fd_prepare,
	.done = async_fd_done,
};

/* Queries and modifications */

static void ud_qp_init(struct __test_metadata *_metadata, struct ctx *c)
{
	data_init(_metadata, c);
	make_ud_qp(_metadata, c, 0);
}

static void query_qp_prepare(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	c->arg.mqp.size = sizeof(c->arg.mqp);
	c->arg.mqp.qp = c->qp;
	c->arg.mqp.attr_mask = IBV_QP_STATE | IBV_QP_CAP | IBV_QP_QKEY |
			       IBV_QP_PORT | IBV_QP_SQ_PSN;
}

static void query_qp_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.mqp.attr.qp_state == IBV_QPS_RTS &&
	      c->arg.mqp.attr.qkey == QKEY,
	      "state %u, Q_Key %#x", c->arg.mqp.attr.qp_state,
	      c->arg.mqp.attr.qkey);
}

static const struct sweep_ops query_qp_ops = {
	.name = "QUERY_QP",
	.ioc = RDMACHAN_IOC_QUERY_QP,
	.init = ud_qp_init,
	.prepare = query_qp_prepare,
	.done = query_qp_done,
};

static void srq_init(struct __test_metadata *_metadata, struct ctx *c)
{
	pd_init(_metadata, c);
	ASSERT_EQ(0, create_srq(c->fd, c->pd, 16, &c->srq, NULL));
}

static void query_srq_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	c->arg.msrq.size = sizeof(c->arg.msrq);
	c->arg.msrq.srq = c->srq;
}

static void query_srq_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.msrq.attr.max_wr >= 16, "%u WRs", c->arg.msrq.attr.max_wr);
}

static const struct sweep_ops query_srq_ops = {
	.name = "QUERY_SRQ",
	.ioc = RDMACHAN_IOC_QUERY_SRQ,
	.init = srq_init,
	.prepare = query_srq_prepare,
	.done = query_srq_done,
};

static int query_srq(int fd, __u32 srq, struct rdmachan_srq_attr *attr)
{
	struct rdmachan_modify_srq cmd = { .size = sizeof(cmd), .srq = srq };

	if (ioctl(fd, RDMACHAN_IOC_QUERY_SRQ, &cmd))
		return errno;
	*attr = cmd.attr;
	return 0;
}

/* A fresh SRQ of 8 WRs grows to 64 (rxe makes a new queue), with a limit. */
static void modify_srq_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	struct rdmachan_srq_attr attr = {};

	/* rxe rounds the size up and says so only to QUERY_SRQ */
	ASSERT_EQ(0, create_srq(c->fd, c->pd, 8, &c->srq, NULL));
	ASSERT_EQ(0, query_srq(c->fd, c->srq, &attr));
	c->max_wr = attr.max_wr;
	c->arg.msrq.size = sizeof(c->arg.msrq);
	c->arg.msrq.srq = c->srq;
	c->arg.msrq.attr_mask = IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT;
	c->arg.msrq.attr.max_wr = 64;
	c->arg.msrq.attr.srq_limit = 4;
}

static void modify_srq_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_srq_attr attr = {};
	int err = query_srq(c->fd, c->srq, &attr);

	CHECK(!err && attr.max_wr >= 64 && attr.srq_limit == 4,
	      "QUERY_SRQ: %s, %u WRs, limit %u", strerror(err), attr.max_wr,
	      attr.srq_limit);
	destroy_ok(_metadata, c, c->fd, c->srq);
}

/* The SRQ is as it was, or resized (rxe resizes before it arms). */
static void modify_srq_failed(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	struct rdmachan_srq_attr attr = {};
	int err = query_srq(c->fd, c->srq, &attr);

	CHECK(!err && (attr.max_wr == c->max_wr || attr.max_wr >= 64),
	      "QUERY_SRQ after a failed MODIFY_SRQ: %s, %u WRs, made with %u",
	      strerror(err), attr.max_wr, c->max_wr);
	err = call_again(c);
	CHECK(!err, "the next identical call fails with %s", strerror(err));
	if (!err)
		modify_srq_done(_metadata, c);
	else
		destroy_ok(_metadata, c, c->fd, c->srq);
}

static const struct sweep_ops modify_srq_ops = {
	.name = "MODIFY_SRQ (resize, limit)",
	.ioc = RDMACHAN_IOC_MODIFY_SRQ,
	.init = pd_init,
	.prepare = modify_srq_prepare,
	.done = modify_srq_done,
	.failed = modify_srq_failed,
};

/* Completions and their events */

/* A CQ on a channel, a UD QP on it. */
static void channel_qp_init(struct __test_metadata *_metadata, struct ctx *c)
{
	struct raw_qp_init init = {
		.qp_type = IBV_QPT_UD, .max_wr = 2 * CHAIN, .max_sge = 1,
	};

	pd_init(_metadata, c);
	make_buf(_metadata, c);
	ASSERT_EQ(0, raw_reg_mr(c->fd, c->pd, c->buf, BUF_SIZE,
				IBV_ACCESS_LOCAL_WRITE, &c->mr));
	if (c->chfd > 0)
		close(c->chfd);
	ASSERT_EQ(0, raw_create_channel(c->fd, &c->chfd));
	ASSERT_EQ(0, raw_create_cq(c->fd, c->dev_ctx, CQ_ENTRIES, c->chfd,
				   0xc0, &c->cq));
	ah_to_self(c->fd, c->dev_ctx, &c->av);
	ASSERT_EQ(0, create_ah(c->fd, c->pd, &c->av, &c->ah));
	init.pd = c->pd;
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	ASSERT_EQ(0, raw_create_qp(c->fd, &init, &c->qp, &c->qpn, NULL));
	ASSERT_EQ(0, ud_ready(c->fd, c->qp, QKEY));
}

static void send_one(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_send_wr wr = {
		.wr_id = 7, .opcode = IBV_WR_SEND, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .ah = c->ah,
		.remote_qpn = 0xfffff0, .remote_qkey = QKEY,
	};

	ASSERT_EQ(0, raw_post_send1(c->fd, c->qp, &wr, c->buf, 64,
				    c->mr.lkey));
}

/* A completion in the CQ, its event taken and acked: the CQ is unarmed. */
static void completion_ready(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	struct rdmachan_get_cq_event ev;

	ASSERT_EQ(0, raw_notify_cq(c->fd, c->cq, 0));
	send_one(_metadata, c);
	ASSERT_TRUE(readable(c->chfd, EVENT_MS));
	ASSERT_EQ(0, raw_get_cq_event(c->chfd, 0, &ev));
	ASSERT_EQ(0, raw_ack_cq(c->fd, c->cq, 1));
}

static void poll_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	completion_ready(_metadata, c);
	memset(c->wc, 0, sizeof(c->wc));
	c->arg.poll.size = sizeof(c->arg.poll);
	c->arg.poll.cq = c->cq;
	c->arg.poll.max_wc = 2;
	c->arg.poll.wcs = (uintptr_t)c->wc;
	c->arg.poll.wc_size = sizeof(c->wc[0]);
}

static void poll_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.poll.out_num_wc == 1 && c->wc[0].wr_id == 7 &&
	      c->wc[0].status == IBV_WC_SUCCESS,
	      "%u completions, the first %llu status %u",
	      c->arg.poll.out_num_wc, (unsigned long long)c->wc[0].wr_id,
	      c->wc[0].status);
}

static void poll_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err = call_again(c);

	CHECK(!err, "the next identical call fails with %s", strerror(err));
	if (err || (c->err == EFAULT && !c->arg.poll.out_num_wc))
		return;
	poll_done(_metadata, c);
}

static const struct sweep_ops poll_ops = {
	.name = "POLL_CQ",
	.ioc = RDMACHAN_IOC_POLL_CQ,
	.init = channel_qp_init,
	.prepare = poll_prepare,
	.done = poll_done,
	.failed = poll_failed,
};

static void notify_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	c->arg.notify.size = sizeof(c->arg.notify);
	c->arg.notify.cq = c->cq;
}

/* Armed: a completion brings an event. */
static void notify_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_get_cq_event ev;
	int err;

	send_one(_metadata, c);
	CHECK(readable(c->chfd, EVENT_MS), "no completion event");
	err = raw_get_cq_event(c->chfd, RDMACHAN_GET_CQ_EVENT_NONBLOCK, &ev);
	CHECK(!err && ev.out_cq == c->cq, "GET_CQ_EVENT: %s, CQ %u",
	      strerror(err), ev.out_cq);
	if (!err)
		raw_ack_cq(c->fd, c->cq, 1);
	expect_wcs(_metadata, c, 1);
}

static const struct sweep_ops notify_ops = {
	.name = "REQ_NOTIFY_CQ",
	.ioc = RDMACHAN_IOC_REQ_NOTIFY_CQ,
	.init = channel_qp_init,
	.prepare = notify_prepare,
	.done = notify_done,
};

/* An event waits on the channel. */
static void cq_event_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_notify_cq(c->fd, c->cq, 0));
	send_one(_metadata, c);
	ASSERT_TRUE(readable(c->chfd, EVENT_MS));
	c->call_fd = c->chfd;
	c->arg.cq_event.size = sizeof(c->arg.cq_event);
	c->arg.cq_event.flags = RDMACHAN_GET_CQ_EVENT_NONBLOCK;
}

static void cq_event_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.cq_event.out_cq == c->cq &&
	      c->arg.cq_event.out_user_context == 0xc0,
	      "CQ %u, context %#llx", c->arg.cq_event.out_cq,
	      (unsigned long long)c->arg.cq_event.out_user_context);
	CHECK(!raw_ack_cq(c->fd, c->cq, 1), "the event cannot be acked");
	expect_wcs(_metadata, c, 1);
}

static const struct sweep_ops cq_event_ops = {
	.name = "GET_CQ_EVENT",
	.ioc = RDMACHAN_IOC_GET_CQ_EVENT,
	.init = channel_qp_init,
	.prepare = cq_event_prepare,
	.done = cq_event_done,
};

/* An event taken, not acked. */
static void ack_cq_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_get_cq_event ev;

	ASSERT_EQ(0, raw_notify_cq(c->fd, c->cq, 0));
	send_one(_metadata, c);
	ASSERT_TRUE(readable(c->chfd, EVENT_MS));
	ASSERT_EQ(0, raw_get_cq_event(c->chfd, 0, &ev));
	c->arg.notify.size = sizeof(c->arg.notify);
	c->arg.notify.cq = c->cq;
	c->arg.notify.num_acks = 1;
}

static void ack_cq_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(raw_ack_cq(c->fd, c->cq, 1) == EINVAL, "the event was not acked");
	expect_wcs(_metadata, c, 1);
}

static const struct sweep_ops ack_cq_ops = {
	.name = "ACK_CQ_EVENTS",
	.ioc = RDMACHAN_IOC_ACK_CQ_EVENTS,
	.init = channel_qp_init,
	.prepare = ack_cq_prepare,
	.done = ack_cq_done,
};

/* Asynchronous events: a UD QP taken to SQD reports SQ_DRAINED. */

static void async_init(struct __test_metadata *_metadata, struct ctx *c)
{
	data_init(_metadata, c);
	if (c->afd > 0)
		close(c->afd);
	ASSERT_EQ(0, raw_open_async_fd(c->fd, c->dev_ctx, &c->afd));
}

static void drained_qp(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_drained_qp(c->fd, c->pd, c->cq, &c->qp));
	ASSERT_TRUE(readable(c->afd, EVENT_MS));
}

static void async_event_prepare(struct __test_metadata *_metadata,
				struct ctx *c)
{
	drained_qp(_metadata, c);
	c->call_fd = c->afd;
	c->arg.async_event.size = sizeof(c->arg.async_event);
	c->arg.async_event.flags = RDMACHAN_GET_ASYNC_EVENT_NONBLOCK;
}

static void async_event_done(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	struct rdmachan_get_async_event *ev = &c->arg.async_event;

	CHECK(ev->out_event_type == IBV_EVENT_SQ_DRAINED &&
	      ev->out_handle == c->qp, "event %u for %u", ev->out_event_type,
	      ev->out_handle);
	CHECK(!raw_ack_async_event(c->fd, c->qp, IBV_EVENT_SQ_DRAINED),
	      "the event cannot be acked");
	destroy_ok(_metadata, c, c->fd, c->qp);
}

static const struct sweep_ops async_event_ops = {
	.name = "GET_ASYNC_EVENT",
	.ioc = RDMACHAN_IOC_GET_ASYNC_EVENT,
	.init = async_init,
	.prepare = async_event_prepare,
	.done = async_event_done,
};

static void async_ack_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	struct rdmachan_get_async_event ev;

	drained_qp(_metadata, c);
	ASSERT_EQ(0, raw_get_async_event(c->afd, 0, &ev));
	c->arg.async_ack.size = sizeof(c->arg.async_ack);
	c->arg.async_ack.handle = c->qp;
	c->arg.async_ack.event_type = IBV_EVENT_SQ_DRAINED;
}

static void async_ack_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(raw_ack_async_event(c->fd, c->qp, IBV_EVENT_SQ_DRAINED) == EINVAL,
	      "the event was not acked");
	destroy_ok(_metadata, c, c->fd, c->qp);
}

static const struct sweep_ops async_ack_ops = {
	.name = "ACK_ASYNC_EVENT",
	.ioc = RDMACHAN_IOC_ACK_ASYNC_EVENT,
	.init = async_init,
	.prepare = async_ack_prepare,
	.done = async_ack_done,
};

/* Destroy: each kind of verbs object, made for the step */

enum { D_PD, D_MR, D_CQ, D_QP, D_SRQ, D_AH, D_MCAST };

static void destroy_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event ev;
	__u32 h = 0;

	switch (c->flags) {
	case D_PD:
		ASSERT_EQ(0, raw_alloc_pd(c->fd, c->dev_ctx, &h));
		break;
	case D_MR:
		ASSERT_EQ(0, raw_reg_mr(c->fd, c->pd, c->buf, BUF_SIZE,
					IBV_ACCESS_LOCAL_WRITE, &c->mr));
		h = c->mr.handle;
		break;
	case D_CQ:
		/* on a channel */
		ASSERT_EQ(0, raw_create_cq(c->fd, c->dev_ctx, CQ_ENTRIES,
					   c->chfd, 0xc0, &h));
		break;
	case D_QP:
		/* with work requests posted, flushed by the destroy */
		make_ud_qp(_metadata, c, 0);
		ASSERT_EQ(0, raw_post_recv1(c->fd, c->qp, 1, c->buf, 256,
					    c->mr.lkey));
		h = c->qp;
		break;
	case D_SRQ:
		ASSERT_EQ(0, create_srq(c->fd, c->pd, 8, &h, NULL));
		break;
	case D_AH:
		ASSERT_EQ(0, create_ah(c->fd, c->pd, &c->av, &h));
		break;
	case D_MCAST:
		join_prepare(_metadata, c);
		ASSERT_EQ(0, ioctl(c->fd, RDMACHAN_IOC_JOIN_MCAST, &c->arg.join));
		ASSERT_EQ(0, raw_expect(c->fd, c->id,
					RDMA_CM_EVENT_MULTICAST_JOIN, &ev));
		h = c->arg.join.out_handle;
		memset(&c->arg, 0, sizeof(c->arg));
		break;
	}
	c->handle = h;
	c->arg.destroy.size = sizeof(c->arg.destroy);
	c->arg.destroy.handle = h;
}

static void destroy_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(raw_destroy(c->fd, c->handle) == ENOENT,
	      "the object is still there");
	if (c->flags == D_MCAST)
		destroy_ok(_metadata, c, c->fd, c->id);
	/* a destroyed QP's receive may be flushed */
	while (raw_poll_cq(c->fd, c->cq, c->wc, 2 * CHAIN) > 0)
		;
}

static void destroy_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err = call_again(c);

	CHECK(!err, "the next identical call fails with %s", strerror(err));
	if (!err)
		destroy_done(_metadata, c);
}

static void destroy_init(struct __test_metadata *_metadata, struct ctx *c)
{
	data_init(_metadata, c);
	if (c->chfd > 0)
		close(c->chfd);
	ASSERT_EQ(0, raw_create_channel(c->fd, &c->chfd));
}

#define DESTROY_OPS(_name, _what)					\
static const struct sweep_ops destroy_##_name##_ops = {		\
	.name = "DESTROY (" _what ")",					\
	.ioc = RDMACHAN_IOC_DESTROY,					\
	.init = destroy_init,						\
	.prepare = destroy_prepare,					\
	.done = destroy_done,						\
	.failed = destroy_failed,					\
}
DESTROY_OPS(pd, "PD");
DESTROY_OPS(mr, "MR");
DESTROY_OPS(cq, "CQ on a channel");
DESTROY_OPS(qp, "UD QP with a receive");
DESTROY_OPS(srq, "SRQ");
DESTROY_OPS(ah, "AH");
DESTROY_OPS(mcast, "multicast join");

/* Ring CQs: the consumer index the process gives back */

static void update_ring_init(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	ASSERT_EQ(0, raw_create_cq_ring(c->fd, c->dev_ctx, CQ_ENTRIES, NULL,
					&c->cq));
}

static void update_ring_prepare(struct __test_metadata *_metadata,
				struct ctx *c)
{
	c->arg.ring.size = sizeof(c->arg.ring);
	c->arg.ring.cq = c->cq;
}

static const struct sweep_ops update_ring_ops = {
	.name = "UPDATE_CQ_RING",
	.ioc = RDMACHAN_IOC_UPDATE_CQ_RING,
	.init = update_ring_init,
	.prepare = update_ring_prepare,
	.done = nothing_done,
};

SWEEP_TEST(alloc_pd, alloc_pd_ops)
SWEEP_TEST(reg_mr, reg_mr_ops)
SWEEP_TEST(create_comp_channel, channel_ops)

TEST_F_TIMEOUT(failnth, create_cq, SWEEP_TIMEOUT_S)
{
	self->c.flags = 0;
	sweep(_metadata, &self->c, &cq_ops);
	if (_metadata->skip)
		return;
	close(self->c.chfd);
	self->c.flags = 1;
	sweep(_metadata, &self->c, &cq_channel_ops);
	close(self->c.chfd);
	self->c.flags = RDMACHAN_CREATE_CQ_RING + 1;
	sweep(_metadata, &self->c, &cq_ring_ops);
}

TEST_F_TIMEOUT(failnth, create_qp, SWEEP_TIMEOUT_S)
{
	self->c.qp_type = IBV_QPT_UD;
	sweep(_metadata, &self->c, &qp_ud_ops);
	if (_metadata->skip)
		return;
	sweep(_metadata, &self->c, &qp_cm_ops);
}

TEST_F_TIMEOUT(failnth, modify_qp, SWEEP_TIMEOUT_S)
{
	self->c.flags = IBV_QPS_INIT;
	sweep(_metadata, &self->c, &modify_init_ops);
	if (_metadata->skip)
		return;
	self->c.flags = IBV_QPS_RTR;
	sweep(_metadata, &self->c, &modify_rtr_ops);
	self->c.flags = IBV_QPS_RTS;
	sweep(_metadata, &self->c, &modify_rts_ops);
}
SWEEP_TEST(create_srq, srq_ops)
SWEEP_TEST(create_ah, ah_ops)
TEST_F_TIMEOUT(failnth, post_send, SWEEP_TIMEOUT_S)
{
	self->c.flags = 0;
	sweep(_metadata, &self->c, &post_send_ops);
	if (_metadata->skip)
		return;
	self->c.flags = INLINE;
	sweep(_metadata, &self->c, &post_send_inline_ops);
	self->c.flags = 0;
}
SWEEP_TEST(post_recv, post_recv_ops)
SWEEP_TEST(post_srq_recv, post_srq_ops)
SWEEP_TEST(join_mcast, join_ops)
SWEEP_TEST(open_async_fd, async_fd_ops)
SWEEP_TEST(query_qp, query_qp_ops)
SWEEP_TEST(query_srq, query_srq_ops)
SWEEP_TEST(modify_srq, modify_srq_ops)
SWEEP_TEST(poll_cq, poll_ops)
SWEEP_TEST(req_notify_cq, notify_ops)
SWEEP_TEST(get_cq_event, cq_event_ops)
SWEEP_TEST(ack_cq_events, ack_cq_ops)
SWEEP_TEST(get_async_event, async_event_ops)
SWEEP_TEST(ack_async_event, async_ack_ops)
SWEEP_TEST(update_cq_ring, update_ring_ops)

TEST_F_TIMEOUT(failnth, destroy, SWEEP_TIMEOUT_S)
{
	static const struct sweep_ops *const ops[] = {
		[D_PD] = &destroy_pd_ops, [D_MR] = &destroy_mr_ops,
		[D_CQ] = &destroy_cq_ops, [D_QP] = &destroy_qp_ops,
		[D_SRQ] = &destroy_srq_ops, [D_AH] = &destroy_ah_ops,
		[D_MCAST] = &destroy_mcast_ops,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		self->c.flags = i;
		sweep(_metadata, &self->c, ops[i]);
		if (_metadata->skip)
			return;
	}
}

TEST_HARNESS_MAIN
