/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the data-path selftests (verbs_*_test.c).
 *
 * Like cm_test.h they use only the rdma-core API (<infiniband/verbs.h>,
 * <rdma/rdma_cma.h>), so each test builds against the stock librdmacm +
 * libibverbs (make selftests-stock) and against librdmachan, and runs on
 * both stacks in the test guest. Connections go through the CM with
 * rdma_create_qp() on both sides, over rxe0 looped back to itself. Every
 * wait for a completion is bounded.
 */
#ifndef RDMACHAN_VERBS_TEST_H
#define RDMACHAN_VERBS_TEST_H

#include <fcntl.h>
#include <stdbool.h>

#include "cm_test.h"
#include "rdmachan_test.h"

/*
 * Set when built against the stock rdma-core stack (make selftests-stock).
 * A few expectations differ where rdmachan does better than stock by
 * design (issue 5); each such place says why. Where the difference is the
 * verbs' and not the CM's, bypass mode behaves as stock:
 * cm_verbs_are_uverbs() tells.
 */
#ifdef RDMACHAN_TEST_STOCK
#define VT_STOCK	1
#else
#define VT_STOCK	0
#endif

/* Send/receive queue depth and CQ size of the test QPs. */
#define VT_QUEUE	64
#define VT_CQE		256
/* Inline payload asked for at QP creation. */
#define VT_INLINE	64
/* SGEs per work request asked for at QP creation. */
#define VT_SGE		4
/* Bytes of the Global Routing Header in front of every UD receive. */
#define VT_GRH		40

/*
 * One end of a connection: its CM id and the verbs objects behind its QP.
 * The buffer is one MR (local write, remote read and write): tests carve
 * send and receive areas out of it.
 */
struct vt_end {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;	/* NULL: the CQ is busy-polled */
	struct ibv_cq *cq;		/* send and receive completions */
	struct ibv_mr *mr;
	unsigned char *buf;
	size_t len;
	bool nonblock;			/* chan's fd is O_NONBLOCK */
	int unacked;			/* CQ events taken, not yet acked */
};

/* How completions are waited for. */
enum vt_wait {
	VT_BUSY_POLL,		/* ibv_poll_cq in a loop */
	VT_CHANNEL,		/* armed CQ, poll() on the channel, blocking get */
	VT_CHANNEL_NONBLOCK,	/* the same with the channel fd O_NONBLOCK */
	VT_BUSY_POLL_EX,	/* a CQ from ibv_create_cq_ex, busy-polled */
};

/* The byte at @i of test pattern @seed: differs per seed and per offset. */
static inline unsigned char vt_pattern(unsigned int seed, size_t i)
{
	return (unsigned char)(seed * 37 + i * 11 + (i >> 8) + 1);
}

static __maybe_unused void vt_fill(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = vt_pattern(seed, i);
}

/* 1 when @buf holds pattern @seed for @len bytes; else logs the first miss. */
static __maybe_unused int vt_check(const void *buf, size_t len,
				   unsigned int seed)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != vt_pattern(seed, i)) {
			fprintf(stderr, "# byte %zu of %zu is 0x%02x, want 0x%02x (seed %u)\n",
				i, len, p[i], vt_pattern(seed, i), seed);
			return 0;
		}
	}
	return 1;
}

/* 1 when @len bytes at @buf are all @byte. */
static __maybe_unused int vt_all(const void *buf, size_t len,
				 unsigned char byte)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != byte) {
			fprintf(stderr, "# byte %zu is 0x%02x, want 0x%02x\n",
				i, p[i], byte);
			return 0;
		}
	}
	return 1;
}

/*
 * PD, CQ (with a completion channel when @wait is VT_CHANNEL or
 * VT_CHANNEL_NONBLOCK, from ibv_create_cq_ex for VT_BUSY_POLL_EX) and a
 * registered buffer of @len bytes on @ctx: 0, or -1 with errno.
 */
static __maybe_unused int vt_end_open(struct vt_end *e,
				      struct ibv_context *ctx, size_t len,
				      enum vt_wait wait)
{
	int flags;

	e->pd = ibv_alloc_pd(ctx);
	if (!e->pd)
		return -1;
	if (wait == VT_CHANNEL || wait == VT_CHANNEL_NONBLOCK) {
		e->chan = ibv_create_comp_channel(ctx);
		if (!e->chan)
			return -1;
		if (wait == VT_CHANNEL_NONBLOCK) {
			flags = fcntl(e->chan->fd, F_GETFL);
			if (flags < 0 ||
			    fcntl(e->chan->fd, F_SETFL, flags | O_NONBLOCK))
				return -1;
			e->nonblock = true;
		}
	}
	if (wait == VT_BUSY_POLL_EX) {
		struct ibv_cq_init_attr_ex attr = {
			.cqe = VT_CQE, .cq_context = e,
			.wc_flags = IBV_WC_STANDARD_FLAGS,
		};

		e->cq = ibv_cq_ex_to_cq(ibv_create_cq_ex(ctx, &attr));
	} else {
		e->cq = ibv_create_cq(ctx, VT_CQE, e, e->chan, 0);
	}
	if (!e->cq)
		return -1;
	e->len = len;
	e->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (!e->buf)
		return -1;
	memset(e->buf, 0, len);
	e->mr = ibv_reg_mr(e->pd, e->buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	return e->mr ? 0 : -1;
}

/* Acks the CQ events @e has taken. */
static __maybe_unused void vt_ack(struct vt_end *e)
{
	if (e->unacked) {
		ibv_ack_cq_events(e->cq, e->unacked);
		e->unacked = 0;
	}
}

/*
 * Frees what vt_end_open() and vt_create_qp() made, and the id: 0, or the
 * first error (as an errno value).
 */
static __maybe_unused int vt_end_close(struct vt_end *e)
{
	int err = 0, ret;

#define VT_KEEP(call) do { ret = (call); if (ret && !err) err = ret; } while (0)
	if (e->id && e->id->qp) {
		rdma_destroy_qp(e->id);
		e->id->qp = NULL;
	}
	if (e->id)
		VT_KEEP(rdma_destroy_id(e->id) ? errno : 0);
	if (e->mr)
		VT_KEEP(ibv_dereg_mr(e->mr));
	if (e->cq) {
		vt_ack(e);
		VT_KEEP(ibv_destroy_cq(e->cq));
	}
	if (e->chan)
		VT_KEEP(ibv_destroy_comp_channel(e->chan));
	if (e->pd)
		VT_KEEP(ibv_dealloc_pd(e->pd));
#undef VT_KEEP
	free(e->buf);
	memset(e, 0, sizeof(*e));
	return err;
}

static __maybe_unused void vt_qp_attr(struct ibv_qp_init_attr *attr,
				      struct vt_end *e, enum ibv_qp_type type,
				      struct ibv_srq *srq)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_context = e;
	attr->send_cq = e->cq;
	attr->recv_cq = e->cq;
	attr->srq = srq;
	attr->qp_type = type;
	attr->cap.max_send_wr = VT_QUEUE;
	attr->cap.max_recv_wr = srq ? 0 : VT_QUEUE;
	attr->cap.max_send_sge = VT_SGE;
	attr->cap.max_recv_sge = srq ? 0 : VT_SGE;
	attr->cap.max_inline_data = VT_INLINE;
}

/* rdma_create_qp() on e->id with the end's PD and CQ: 0 or -1. */
static __maybe_unused int vt_create_qp(struct vt_end *e, enum ibv_qp_type type,
				       struct ibv_srq *srq)
{
	struct ibv_qp_init_attr attr;

	vt_qp_attr(&attr, e, type, srq);
	if (rdma_create_qp(e->id, e->pd, &attr)) {
		fprintf(stderr, "# rdma_create_qp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The QP's state per ibv_query_qp, or -1. */
static __maybe_unused int vt_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ret = ibv_query_qp(qp, &attr, IBV_QP_STATE, &init);

	if (ret) {
		fprintf(stderr, "# ibv_query_qp: %s\n", strerror(ret));
		return -1;
	}
	return attr.qp_state;
}

/*
 * Whether the test device reports QP states: siw (6.1) fills none in its
 * query, so a state read there means nothing, on stock as on rdmachan.
 * The tests check what a state implies (flushes, traffic) regardless.
 */
static __maybe_unused bool vt_qp_states_reported(void)
{
	const char *type = getenv("RDMACHAN_DEVICE_TYPE");

	return !type || strcmp(type, "siw");
}

/* 1 when @qp is in @state or the device reports no states, else 0. */
static __maybe_unused int vt_qp_state_is(struct ibv_qp *qp, int state)
{
	int got;

	if (!vt_qp_states_reported())
		return 1;
	got = vt_qp_state(qp);
	if (got != state)
		fprintf(stderr, "# QP %u in state %d, want %d\n", qp->qp_num,
			got, state);
	return got == state;
}

/*
 * Takes one CQ event of @e's channel within @timeout_ms: poll() on the fd,
 * then ibv_get_cq_event (tried first, and expected to say EAGAIN when
 * nothing is there, on an O_NONBLOCK channel). 1, 0 on timeout, -1.
 */
static __maybe_unused int vt_take_cq_event(struct vt_end *e, int timeout_ms)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret;

	if (e->nonblock) {
		if (!ibv_get_cq_event(e->chan, &cq, &cq_ctx))
			goto got;
		if (errno != EAGAIN) {
			fprintf(stderr, "# ibv_get_cq_event on O_NONBLOCK: %s\n",
				strerror(errno));
			return -1;
		}
	}
	{
		struct pollfd pfd = { .fd = e->chan->fd, .events = POLLIN };

		ret = poll(&pfd, 1, timeout_ms);
		if (ret < 0 && errno == EINTR)
			return 0;
		if (ret <= 0)
			return ret;
		if (!(pfd.revents & POLLIN)) {
			fprintf(stderr, "# channel poll revents 0x%x\n",
				pfd.revents);
			return -1;
		}
	}
	if (ibv_get_cq_event(e->chan, &cq, &cq_ctx)) {
		fprintf(stderr, "# ibv_get_cq_event after POLLIN: %s\n",
			strerror(errno));
		return -1;
	}
got:
	e->unacked++;
	if (cq != e->cq || cq_ctx != e) {
		fprintf(stderr, "# CQ event for cq %p context %p, want %p %p\n",
			(void *)cq, cq_ctx, (void *)e->cq, (void *)e);
		return -1;
	}
	return 1;
}

/*
 * Up to @n completions of @e's CQ into @wc, waiting at most @timeout_ms:
 * busy-polling, or sleeping on the completion channel between polls
 * (arm, poll again to close the race, wait, take and ack the event).
 * Returns how many came, or -1 on an error of the API.
 */
static __maybe_unused int vt_poll(struct vt_end *e, struct ibv_wc *wc, int n,
				  int timeout_ms)
{
	long end = cm_now_ms() + timeout_ms;
	int got = 0, ret;

	for (;;) {
		ret = ibv_poll_cq(e->cq, n - got, wc + got);
		if (ret < 0) {
			fprintf(stderr, "# ibv_poll_cq: %d\n", ret);
			return -1;
		}
		got += ret;
		if (got == n || cm_now_ms() >= end)
			return got;
		if (!e->chan)
			continue;
		ret = ibv_req_notify_cq(e->cq, 0);
		if (ret) {
			fprintf(stderr, "# ibv_req_notify_cq: %s\n", strerror(ret));
			return -1;
		}
		ret = ibv_poll_cq(e->cq, n - got, wc + got);
		if (ret < 0)
			return -1;
		got += ret;
		if (got == n)
			return got;
		ret = vt_take_cq_event(e, (int)(end - cm_now_ms() > 0 ?
						end - cm_now_ms() : 0));
		if (ret < 0)
			return -1;
		/* ack in batches, as the man page suggests */
		if (e->unacked >= 16)
			vt_ack(e);
	}
}

static __maybe_unused const char *vt_opcode_str(int opcode)
{
	switch (opcode) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

/*
 * Exactly one successful completion with @opcode and @wr_id on @e within
 * the test timeout, into *@wc: 0, or -1 with the reason logged.
 */
static __maybe_unused int vt_expect_wc(struct vt_end *e, struct ibv_wc *wc,
				       enum ibv_wc_opcode opcode,
				       uint64_t wr_id)
{
	int n = vt_poll(e, wc, 1, CM_TIMEOUT_MS);

	if (n != 1) {
		fprintf(stderr, "# no %s completion for wr %llu within %d ms\n",
			vt_opcode_str(opcode), (unsigned long long)wr_id,
			CM_TIMEOUT_MS);
		return -1;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != opcode ||
	    wc->wr_id != wr_id) {
		fprintf(stderr, "# completion wr %llu %s (%d) status %s, want wr %llu %s\n",
			(unsigned long long)wc->wr_id,
			vt_opcode_str(wc->opcode), wc->opcode,
			ibv_wc_status_str(wc->status),
			(unsigned long long)wr_id, vt_opcode_str(opcode));
		return -1;
	}
	return 0;
}

/* 1 when no completion comes on @e within @ms; else logs it, 0. */
static __maybe_unused int vt_cq_quiet(struct vt_end *e, int ms)
{
	struct ibv_wc wc;

	if (vt_poll(e, &wc, 1, ms) == 0)
		return 1;
	fprintf(stderr, "# unexpected completion: wr %llu status %s opcode %d\n",
		(unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		wc.opcode);
	return 0;
}

/* A receive of @len bytes at offset @off of @e's buffer (0 bytes: no SGE). */
static __maybe_unused int vt_post_recv(struct vt_end *e, uint64_t wr_id,
				       size_t off, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off, .length = (uint32_t)len,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
	}, *bad = NULL;
	int ret = ibv_post_recv(e->id->qp, &wr, &bad);

	if (ret)
		fprintf(stderr, "# ibv_post_recv: %s\n", strerror(ret));
	return ret;
}

/*
 * A signaled send work request of @opcode for @len bytes at offset @off of
 * @e's buffer; RDMA operations target @raddr/@rkey, *_WITH_IMM carry @imm.
 * Returns ibv_post_send's value.
 */
static __maybe_unused int vt_post_send(struct vt_end *e,
				       enum ibv_wr_opcode opcode,
				       uint64_t wr_id, size_t off, size_t len,
				       unsigned int flags, uint64_t raddr,
				       uint32_t rkey, uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off, .length = (uint32_t)len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = opcode, .send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htonl(imm),
	}, *bad = NULL;
	int ret;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(e->id->qp, &wr, &bad);
	if (ret)
		fprintf(stderr, "# ibv_post_send: %s\n", strerror(ret));
	return ret;
}

/*
 * 1 when a refused post left *@bad at @wr, as ibv_post_send(3) says it
 * must. Stock rxe's provider leaves *bad_wr unset when the kernel refuses
 * its doorbell (a QP in RESET, a receive on a QP with an SRQ): rdmachan
 * keeps to the man page, stock is not checked.
 */
static __maybe_unused int vt_bad_wr_is(const void *bad, const void *wr)
{
	return cm_verbs_are_uverbs() || bad == wr;
}

/* Address in @e's buffer, as a peer's RDMA operation names it. */
static __maybe_unused uint64_t vt_raddr(struct vt_end *e, size_t off)
{
	return (uintptr_t)e->buf + off;
}

/*
 * Two ends connected through the CM on their own event channels, each
 * with a QP made by rdma_create_qp(): the client resolved towards the
 * listener, the server's id from CONNECT_REQUEST.
 */
struct vt_pair {
	struct rdma_event_channel *cch, *sch;
	struct rdma_cm_id *listen;
	struct vt_end c, s;
};

/* Channels and a listener of port space @ps: 0 or -1. */
static __maybe_unused int vt_pair_listen(struct vt_pair *p,
					 enum rdma_port_space ps)
{
	memset(p, 0, sizeof(*p));
	p->cch = rdma_create_event_channel();
	p->sch = rdma_create_event_channel();
	if (!p->cch || !p->sch)
		return -1;
	return cm_listen(p->sch, ps, 8, &p->listen);
}

/* The connection parameters the tests connect and accept with. */
static __maybe_unused void vt_conn_param(struct rdma_conn_param *param,
					 const void *data, size_t len)
{
	cm_conn_param(param, 0, data, len);
	param->responder_resources = 4;
	param->initiator_depth = 4;
}

/*
 * The retry count the active ends connect with: librdmacm's usual 7, which
 * rxe takes as "retry forever"; a test of requests that go unanswered
 * sets fewer.
 */
static __maybe_unused int vt_retry_count = 7;

/*
 * The active end of @p, up to rdma_connect(): resolved, resources on its
 * device, a QP of @type. 0 or -1.
 */
static __maybe_unused int vt_client_connect(struct vt_pair *p,
					    enum ibv_qp_type type, size_t len,
					    enum vt_wait wait)
{
	struct rdma_conn_param param;

	if (cm_resolve(p->cch, p->listen->ps, rdma_get_src_port(p->listen),
		       &p->c.id))
		return -1;
	if (vt_end_open(&p->c, p->c.id->verbs, len, wait)) {
		fprintf(stderr, "# client resources: %s\n", strerror(errno));
		return -1;
	}
	if (vt_create_qp(&p->c, type, NULL))
		return -1;
	vt_conn_param(&param, cm_req_data, sizeof(cm_req_data));
	param.retry_count = (uint8_t)vt_retry_count;
	if (rdma_connect(p->c.id, &param)) {
		fprintf(stderr, "# rdma_connect: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Takes the CONNECT_REQUEST of @p's listener into p->s.id and gives it
 * resources on its device and a QP of @type (on @srq when set). 0 or -1.
 */
static __maybe_unused int vt_server_take_request(struct vt_pair *p,
						 enum ibv_qp_type type,
						 size_t len, enum vt_wait wait)
{
	struct rdma_cm_event *ev;

	ev = cm_expect(p->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	if (!ev)
		return -1;
	p->s.id = ev->id;
	rdma_ack_cm_event(ev);
	if (vt_end_open(&p->s, p->s.id->verbs, len, wait)) {
		fprintf(stderr, "# server resources: %s\n", strerror(errno));
		return -1;
	}
	return vt_create_qp(&p->s, type, NULL);
}

/*
 * @p connected over RC: ESTABLISHED on both sides (the client's with its
 * QP is not a CONNECT_RESPONSE: the QP moved to RTS by itself). 0 or -1.
 */
static __maybe_unused int vt_pair_connect_rc(struct vt_pair *p, size_t len,
					     enum vt_wait wait)
{
	struct rdma_conn_param param;

	if (vt_pair_listen(p, RDMA_PS_TCP) ||
	    vt_client_connect(p, IBV_QPT_RC, len, wait) ||
	    vt_server_take_request(p, IBV_QPT_RC, len, wait))
		return -1;
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	if (rdma_accept(p->s.id, &param)) {
		fprintf(stderr, "# rdma_accept: %s\n", strerror(errno));
		return -1;
	}
	if (cm_expect_ok(p->cch, RDMA_CM_EVENT_ESTABLISHED, p->c.id) ||
	    cm_expect_ok(p->sch, RDMA_CM_EVENT_ESTABLISHED, p->s.id))
		return -1;
	return 0;
}

/*
 * Orderly end of an RC @p: client disconnects, server sees DISCONNECTED and
 * disconnects, client sees DISCONNECTED. 0 or -1.
 */
static __maybe_unused int vt_pair_disconnect(struct vt_pair *p)
{
	struct cm_conn c = { .client = p->c.id, .server = p->s.id };

	return cm_disconnect_pair(p->cch, p->sch, &c);
}

/* Frees everything of @p: 0, or the first error as an errno value. */
static __maybe_unused int vt_pair_close(struct vt_pair *p)
{
	int err = 0, ret;

	if (p->cch)
		cm_drain(p->cch, 0);
	if (p->sch)
		cm_drain(p->sch, 0);
	ret = vt_end_close(&p->c);
	err = err ? err : ret;
	ret = vt_end_close(&p->s);
	err = err ? err : ret;
	if (p->listen && rdma_destroy_id(p->listen) && !err)
		err = errno;
	if (p->cch)
		rdma_destroy_event_channel(p->cch);
	if (p->sch)
		rdma_destroy_event_channel(p->sch);
	memset(p, 0, sizeof(*p));
	return err;
}

/*
 * Deletes the test device under a child running @user: `rdma link delete`
 * starts once @user has written a byte to the descriptor it is given.
 * The child's exit status goes to *@user_status, the deleter's to
 * *@del_status (-1 for one that did not finish in time); -1 when the
 * child could not start or never said it was ready.
 */
static __maybe_unused int vt_remove_device_under(int (*user)(int ready),
						 int *user_status,
						 int *del_status)
{
	int ready[2], ret = -1;
	pid_t pid, del;
	char r;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(user(ready[1]));
	}
	close(ready[1]);
	if (pid < 0)
		goto out;
	if (read(ready[0], &r, 1) != 1) {
		*user_status = cm_wait_pid(pid, CM_TIMEOUT_MS);
		goto out;
	}
	del = cm_spawn(test_device_delete_cmd());
	if (del < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, user_status, 0);
		goto out;
	}
	*user_status = cm_wait_pid(pid, 8 * CM_TIMEOUT_MS);
	*del_status = cm_wait_pid(del, 6 * CM_TIMEOUT_MS);
	ret = 0;
out:
	close(ready[0]);
	return ret;
}

#endif /* RDMACHAN_VERBS_TEST_H */
