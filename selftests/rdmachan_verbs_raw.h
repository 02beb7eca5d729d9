/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw verbs ioctls for the selftests that check the module without the
 * library. Each helper returns 0 or the errno of the ioctl.
 */
#ifndef RDMACHAN_VERBS_RAW_H
#define RDMACHAN_VERBS_RAW_H

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "rdmachan_cm_raw.h"

/* Live CQs, CQ rings, QPs and files: back where they were after a CQ test. */
static __maybe_unused long raw_cq_objects(void)
{
	return rdmachan_counter("cqs") + rdmachan_counter("cq_rings") +
	       rdmachan_counter("qps") + rdmachan_counter("files");
}

static __maybe_unused int raw_alloc_pd(int fd, __u32 ctx, __u32 *pd)
{
	struct rdmachan_alloc_pd cmd = { .size = sizeof(cmd), .context = ctx };

	if (ioctl(fd, RDMACHAN_IOC_ALLOC_PD, &cmd))
		return errno;
	*pd = cmd.out_handle;
	return 0;
}

struct raw_mr {
	__u32 handle;
	__u32 lkey;
	__u32 rkey;
};

static __maybe_unused int raw_reg_mr(int fd, __u32 pd, const void *addr,
				     size_t len, __u32 access,
				     struct raw_mr *mr)
{
	struct rdmachan_reg_mr cmd = {
		.size = sizeof(cmd), .pd = pd, .access = access,
		.addr = (uintptr_t)addr, .length = len,
		.iova = (uintptr_t)addr,
	};

	if (ioctl(fd, RDMACHAN_IOC_REG_MR, &cmd))
		return errno;
	mr->handle = cmd.out_handle;
	mr->lkey = cmd.out_lkey;
	mr->rkey = cmd.out_rkey;
	return 0;
}

static __maybe_unused int raw_create_channel(int fd, int *chfd)
{
	struct rdmachan_create_comp_channel cmd = { .size = sizeof(cmd) };

	if (ioctl(fd, RDMACHAN_IOC_CREATE_COMP_CHANNEL, &cmd))
		return errno;
	*chfd = cmd.out_fd;
	return 0;
}

static __maybe_unused int raw_create_cq(int fd, __u32 ctx, __u32 cqe,
					int chfd, __u64 user_context,
					__u32 *cq)
{
	struct rdmachan_create_cq cmd = {
		.size = sizeof(cmd), .context = ctx, .cqe = cqe,
		.comp_channel = chfd, .user_context = user_context,
	};

	if (ioctl(fd, RDMACHAN_IOC_CREATE_CQ, &cmd))
		return errno;
	*cq = cmd.out_handle;
	return 0;
}

/* A CQ with a completion ring; its create reply in @out when not NULL. */
static __maybe_unused int raw_create_cq_ring(int fd, __u32 ctx, __u32 cqe,
					     struct rdmachan_create_cq *out,
					     __u32 *cq)
{
	struct rdmachan_create_cq cmd = {
		.size = sizeof(cmd), .flags = RDMACHAN_CREATE_CQ_RING,
		.context = ctx, .cqe = cqe, .comp_channel = RDMACHAN_NO_FD,
	};

	if (ioctl(fd, RDMACHAN_IOC_CREATE_CQ, &cmd))
		return errno;
	if (out)
		*out = cmd;
	*cq = cmd.out_handle;
	return 0;
}

static __maybe_unused int raw_update_cq_ring(int fd, __u32 cq, __u32 consumer)
{
	struct rdmachan_update_cq_ring cmd = {
		.size = sizeof(cmd), .cq = cq, .consumer = consumer,
	};

	return ioctl(fd, RDMACHAN_IOC_UPDATE_CQ_RING, &cmd) ? errno : 0;
}

static __maybe_unused int raw_notify_cq(int fd, __u32 cq, __u32 acks)
{
	struct rdmachan_notify_cq cmd = {
		.size = sizeof(cmd), .cq = cq, .num_acks = acks,
	};

	return ioctl(fd, RDMACHAN_IOC_REQ_NOTIFY_CQ, &cmd) ? errno : 0;
}

static __maybe_unused int raw_ack_cq(int fd, __u32 cq, __u32 acks)
{
	struct rdmachan_notify_cq cmd = {
		.size = sizeof(cmd), .cq = cq, .num_acks = acks,
	};

	return ioctl(fd, RDMACHAN_IOC_ACK_CQ_EVENTS, &cmd) ? errno : 0;
}

static __maybe_unused int raw_get_cq_event(int chfd, __u32 flags,
					   struct rdmachan_get_cq_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->flags = flags;
	return ioctl(chfd, RDMACHAN_IOC_GET_CQ_EVENT, ev) ? errno : 0;
}

/* Polls up to @max completions: their number, or -errno. */
static __maybe_unused int raw_poll_cq(int fd, __u32 cq,
				      struct rdmachan_wc *wc, __u32 max)
{
	struct rdmachan_poll_cq cmd = {
		.size = sizeof(cmd), .cq = cq, .max_wc = max,
		.wcs = (uintptr_t)wc, .wc_size = sizeof(*wc),
	};

	if (ioctl(fd, RDMACHAN_IOC_POLL_CQ, &cmd))
		return -errno;
	return (int)cmd.out_num_wc;
}

/* Polls until @n completions arrived or about 5 s passed. */
static __maybe_unused int raw_poll_n(int fd, __u32 cq, struct rdmachan_wc *wc,
				     int n)
{
	int got = 0, ret, i;

	for (i = 0; i < 5000 && got < n; i++) {
		ret = raw_poll_cq(fd, cq, wc + got, n - got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got < n)
			usleep(1000);
	}
	return got;
}

struct raw_qp_init {
	__u32 pd;
	__u32 send_cq;
	__u32 recv_cq;
	__u32 srq;
	__u32 qp_type;
	__u32 flags;
	int cm_fd;
	__u32 cm_id;
	__u32 max_wr;
	__u32 max_sge;
	__u32 max_inline;
};

static __maybe_unused int raw_create_qp(int fd, const struct raw_qp_init *init,
					__u32 *qp, __u32 *qpn,
					struct rdmachan_qp_cap *cap)
{
	struct rdmachan_create_qp cmd = {
		.size = sizeof(cmd), .flags = init->flags, .pd = init->pd,
		.send_cq = init->send_cq, .recv_cq = init->recv_cq,
		.srq = init->srq, .qp_type = init->qp_type,
		.cm_fd = init->cm_fd, .cm_id = init->cm_id,
		.user_context = 0x5150,
	};

	cmd.cap.max_send_wr = init->max_wr ? init->max_wr : 16;
	cmd.cap.max_recv_wr = init->max_wr ? init->max_wr : 16;
	cmd.cap.max_send_sge = init->max_sge ? init->max_sge : 2;
	cmd.cap.max_recv_sge = init->max_sge ? init->max_sge : 2;
	cmd.cap.max_inline_data = init->max_inline;
	if (ioctl(fd, RDMACHAN_IOC_CREATE_QP, &cmd))
		return errno;
	*qp = cmd.out_handle;
	if (qpn)
		*qpn = cmd.out_qp_num;
	if (cap)
		*cap = cmd.out_cap;
	return 0;
}

static __maybe_unused int raw_modify_qp(int fd, __u32 qp, __u32 mask,
					const struct rdmachan_qp_attr *attr)
{
	struct rdmachan_modify_qp cmd = {
		.size = sizeof(cmd), .qp = qp, .attr_mask = mask,
		.attr = *attr,
	};

	return ioctl(fd, RDMACHAN_IOC_MODIFY_QP, &cmd) ? errno : 0;
}

static __maybe_unused int raw_query_qp(int fd, __u32 qp,
				       struct rdmachan_qp_attr *attr)
{
	struct rdmachan_query_qp cmd = {
		.size = sizeof(cmd), .qp = qp, .attr_mask = 0x1fffff,
	};

	if (ioctl(fd, RDMACHAN_IOC_QUERY_QP, &cmd))
		return errno;
	*attr = cmd.out_attr;
	return 0;
}

/* State of @qp, or -errno. */
static __maybe_unused int raw_qp_state(int fd, __u32 qp)
{
	struct rdmachan_qp_attr attr = {};
	int ret = raw_query_qp(fd, qp, &attr);

	return ret ? -ret : attr.qp_state;
}

/* Posts @n requests with their SGEs; *@posted gets out_num_posted. */
static __maybe_unused int raw_post(int fd, unsigned long ioc, __u32 handle,
				   const void *wrs, __u32 n, __u32 wr_size,
				   const struct rdmachan_sge *sges,
				   __u32 num_sges, __u32 *posted)
{
	struct rdmachan_post cmd = {
		.size = sizeof(cmd), .handle = handle, .num_wrs = n,
		.wrs = (uintptr_t)wrs, .sges = (uintptr_t)sges,
		.wr_size = wr_size, .num_sges = num_sges,
		.out_num_posted = 0xdead,
	};
	int ret = ioctl(fd, ioc, &cmd) ? errno : 0;

	if (posted)
		*posted = cmd.out_num_posted;
	return ret;
}

static __maybe_unused int raw_post_recv1(int fd, __u32 qp, __u64 wr_id,
					 const void *addr, __u32 len,
					 __u32 lkey)
{
	struct rdmachan_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 };
	struct rdmachan_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};

	return raw_post(fd, RDMACHAN_IOC_POST_RECV, qp, &wr, 1, sizeof(wr),
			&sge, 1, NULL);
}

static __maybe_unused int raw_post_send1(int fd, __u32 qp,
					 const struct rdmachan_send_wr *wr,
					 const void *addr, __u32 len,
					 __u32 lkey)
{
	struct rdmachan_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};

	return raw_post(fd, RDMACHAN_IOC_POST_SEND, qp, wr, 1, sizeof(*wr),
			&sge, wr->num_sge, NULL);
}

/* Index of a RoCE v2 GID of the test address on port 1, or -1. */
static __maybe_unused int roce_gid_index(int fd, __u32 ctx, __u8 *gid)
{
	struct rdmachan_query_gid q = {
		.size = sizeof(q), .handle = ctx, .port_num = 1,
	};
	const char *addr = getenv("RDMACHAN_ADDR");
	struct in_addr in;
	unsigned int i;

	inet_pton(AF_INET, addr ? addr : "10.77.0.1", &in);
	for (i = 0; i < 16; i++) {
		q.index = i;
		if (ioctl(fd, RDMACHAN_IOC_QUERY_GID, &q))
			continue;
		if (q.out_gid_type == RDMACHAN_GID_TYPE_ROCE_V2 &&
		    !memcmp(q.out_gid + 12, &in, 4)) {
			memcpy(gid, q.out_gid, 16);
			return (int)i;
		}
	}
	return -1;
}

static __maybe_unused void ah_to_self(int fd, __u32 ctx,
				       struct rdmachan_ah_attr *ah)
{
	int index;

	memset(ah, 0, sizeof(*ah));
	index = roce_gid_index(fd, ctx, ah->dgid);
	ah->sgid_index = index < 0 ? 0 : index;
	ah->is_global = 1;
	ah->hop_limit = 64;
	ah->port_num = 1;
}

/* RESET to RTS for a UD QP with Q_Key @qkey. */
static __maybe_unused int ud_ready(int fd, __u32 qp, __u32 qkey)
{
	struct rdmachan_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	ret = raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY, &a);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTR;
	ret = raw_modify_qp(fd, qp, IBV_QP_STATE, &a);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 7;
	return raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_SQ_PSN, &a);
}

static __maybe_unused int create_ah(int fd, __u32 pd,
				    const struct rdmachan_ah_attr *attr,
				    __u32 *ah)
{
	struct rdmachan_create_ah cmd = {
		.size = sizeof(cmd), .pd = pd, .attr = *attr,
	};

	if (ioctl(fd, RDMACHAN_IOC_CREATE_AH, &cmd))
		return errno;
	*ah = cmd.out_handle;
	return 0;
}

static __maybe_unused int create_srq(int fd, __u32 pd, __u32 max_wr,
				     __u32 *srq,
				     struct rdmachan_srq_attr *out)
{
	struct rdmachan_create_srq cmd = {
		.size = sizeof(cmd), .pd = pd,
		.attr = { .max_wr = max_wr, .max_sge = 1 },
	};

	if (ioctl(fd, RDMACHAN_IOC_CREATE_SRQ, &cmd))
		return errno;
	*srq = cmd.out_handle;
	if (out)
		*out = cmd.out_attr;
	return 0;
}

static __maybe_unused int raw_open_async_fd(int fd, __u32 ctx, int *afd)
{
	struct rdmachan_open_async_fd cmd = {
		.size = sizeof(cmd), .context = ctx,
	};

	if (ioctl(fd, RDMACHAN_IOC_OPEN_ASYNC_FD, &cmd))
		return errno;
	*afd = cmd.out_fd;
	return 0;
}

static __maybe_unused int raw_get_async_event(int afd, __u32 flags,
					      struct rdmachan_get_async_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->flags = flags;
	return ioctl(afd, RDMACHAN_IOC_GET_ASYNC_EVENT, ev) ? errno : 0;
}

static __maybe_unused int raw_ack_async_event(int fd, __u32 handle,
					      __u32 type)
{
	struct rdmachan_ack_async_event cmd = {
		.size = sizeof(cmd), .handle = handle, .event_type = type,
	};

	return ioctl(fd, RDMACHAN_IOC_ACK_ASYNC_EVENT, &cmd) ? errno : 0;
}

/* A UD QP on @cq taken to RTS and then SQD: rxe reports SQ_DRAINED. */
static __maybe_unused int raw_drained_qp(int fd, __u32 pd, __u32 cq,
					 __u32 *qp)
{
	struct raw_qp_init init = {
		.pd = pd, .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.max_wr = 4, .max_sge = 1,
	};
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_SQD };
	int ret = raw_create_qp(fd, &init, qp, NULL, NULL);

	if (!ret)
		ret = ud_ready(fd, *qp, 0x1234);
	if (!ret)
		ret = raw_modify_qp(fd, *qp, IBV_QP_STATE, &a);
	return ret;
}

/* How an RC QP retries, and so how soon it gives up on a silent peer. */
struct raw_rc_retry {
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;		/* 7: forever */
	__u8 min_rnr_timer;
};

/* ibv_rc_pingpong's: it never gives up on a receiver without buffers */
#define RAW_RC_PINGPONG ((struct raw_rc_retry){ 14, 7, 7, 12 })
/* a sender whose receiver stopped fails within a second */
#define RAW_RC_FAIL_FAST ((struct raw_rc_retry){ 10, 2, 1, 1 })

/* RESET to RTS for an RC QP talking to @dest_qpn through @ah. */
static __maybe_unused int raw_rc_connect_with(int fd, __u32 qp, __u32 dest_qpn,
					       const struct rdmachan_ah_attr *ah,
					       struct raw_rc_retry r)
{
	struct rdmachan_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	ret = raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, &a);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0x123;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = r.min_rnr_timer;
	a.ah_attr = *ah;
	ret = raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, &a);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = r.timeout;
	a.retry_cnt = r.retry_cnt;
	a.rnr_retry = r.rnr_retry;
	a.sq_psn = 0x123;
	a.max_rd_atomic = 4;
	return raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, &a);
}

static __maybe_unused int raw_rc_connect(int fd, __u32 qp, __u32 dest_qpn,
					  const struct rdmachan_ah_attr *ah)
{
	return raw_rc_connect_with(fd, qp, dest_qpn, ah, RAW_RC_PINGPONG);
}

/* What INIT to RTR of an RC QP needs: the core refuses it with less. */
#define RAW_RC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |	\
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |		\
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)

/* To RESET and back to INIT, as a QP is taken to be connected again. */
static __maybe_unused int raw_rc_reset_to_init(int fd, __u32 qp)
{
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int ret;

	ret = raw_modify_qp(fd, qp, IBV_QP_STATE, &a);
	if (ret)
		return ret;
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	return raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, &a);
}

/* INIT to RTR with the attributes of @mask, towards @ah. */
static __maybe_unused int raw_rc_init_to_rtr(int fd, __u32 qp,
					     const struct rdmachan_ah_attr *ah,
					     __u32 mask,
					     __u8 responder_resources)
{
	struct rdmachan_qp_attr a = { .ah_attr = *ah };

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 1;
	a.max_dest_rd_atomic = responder_resources;
	a.min_rnr_timer = 1;
	return raw_modify_qp(fd, qp, mask, &a);
}

#endif /* RDMACHAN_VERBS_RAW_H */
