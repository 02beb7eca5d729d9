/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * librdmachan: what the verbs object files share.
 *
 * Every verbs object is a kernel object of its context's file; the library
 * only keeps what programs read from the rdma-core structs, plus, for CQs,
 * the completion event acknowledgements it has not sent yet. The bodies of
 * the calls are here under vb_ names so that the library's own callers (the
 * CM, through kernel_cm_verbs) do not go through exported symbols another
 * library may interpose.
 */
#ifndef RDMACHAN_LIB_VERBS_INTERNAL_H
#define RDMACHAN_LIB_VERBS_INTERNAL_H

#include <errno.h>
#include <pthread.h>

#include "internal.h"

/*
 * A CQ. Completion events taken from the channel (@events_taken) count in
 * the kernel until acknowledged; ibv_ack_cq_events() collects the count in
 * @acks_pending, and the CQ's next REQ_NOTIFY_CQ carries it. A destroy waits
 * in the kernel for them, so it flushes @acks_pending first and, while it
 * waits (@destroy_waiters), acknowledgements go at once. Guarded by
 * ibv.mutex.
 */
struct vb_cq {
	/* an ibv_cq_ex begins as an ibv_cq: any CQ can be polled as either */
	union {
		struct ibv_cq ibv;
		struct ibv_cq_ex ex;
	};
	/* the completion start_poll/next_poll took, held from then to end_poll */
	struct ibv_wc ex_wc;
	pthread_mutex_t ex_lock;
	unsigned int events_taken;
	unsigned int events_acked;
	unsigned int acks_pending;
	unsigned int destroy_waiters;
	/*
	 * A CQ without a channel is read from its ring, when the module has
	 * rings (verbs_cq_ring.c): @ring is mapped read-only, @ring_lock
	 * serializes the pollers and guards @ring_consumer.
	 */
	struct rdmachan_cq_ring *ring;
	size_t ring_size;
	uint32_t ring_mask;
	uint32_t ring_consumer;
	pthread_spinlock_t ring_lock;
};

static inline struct vb_cq *to_vb_cq(struct ibv_cq *cq)
{
	return (struct vb_cq *)cq;
}

/* A QP: ibv_query_qp reports sq_sig_all, which the kernel does not. */
struct vb_qp {
	struct ibv_qp ibv;
	int sq_sig_all;
};

static inline struct vb_qp *to_vb_qp(struct ibv_qp *qp)
{
	return (struct vb_qp *)qp;
}

static inline uint32_t vb_ctx_handle(struct ibv_context *context)
{
	return to_rctx(context)->handle;
}

/* Destroy the kernel object @handle of @context's file: 0 or an errno. */
static inline int vb_destroy_handle(struct ibv_context *context,
				    uint32_t handle)
{
	struct rdmachan_destroy cmd = {
		.size = sizeof(cmd),
		.handle = handle,
	};

	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_DESTROY, &cmd))
		return errno;
	return 0;
}

/* The data path ops of struct ibv_context (verbs_post.c, verbs_cq.c). */
void vb_init_context_ops(struct ibv_context *context);
int vb_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int vb_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int vb_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);
int vb_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr);
int vb_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);

/* verbs_pd_mr.c */
struct ibv_pd *vb_alloc_pd(struct ibv_context *context);
int vb_dealloc_pd(struct ibv_pd *pd);

/* verbs_cq_ring.c: the ring of a CQ made with RDMACHAN_CREATE_CQ_RING */
int vb_cq_ring_map(struct vb_cq *cq, int fd,
		   const struct rdmachan_create_cq *cmd);
void vb_cq_ring_unmap(struct vb_cq *cq);
int vb_cq_ring_poll(struct vb_cq *cq, int num_entries, struct ibv_wc *wc);

/* verbs_cq.c */
struct ibv_comp_channel *vb_create_comp_channel(struct ibv_context *context);
int vb_destroy_comp_channel(struct ibv_comp_channel *channel);
struct ibv_cq *vb_create_cq(struct ibv_context *context, int cqe,
			    void *cq_context, struct ibv_comp_channel *channel,
			    int comp_vector);
int vb_destroy_cq(struct ibv_cq *cq);
int vb_cq_flush_acks(struct ibv_cq *cq);

/* verbs_cq_ex.c: verbs_context.create_cq_ex, behind ibv_create_cq_ex() */
struct ibv_cq_ex *vb_create_cq_ex(struct ibv_context *context,
				  struct ibv_cq_init_attr_ex *attr);

/* verbs_qp.c: @cm_fd and @cm_id name a CM id to bind to, or cm_fd < 0 */
struct ibv_qp *vb_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr,
			    int cm_fd, uint32_t cm_id);
int vb_destroy_qp(struct ibv_qp *qp);
/* The module joins its own QPs to a CM id's multicast groups: no-ops. */
int vb_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		    uint16_t lid);
void vb_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid);
/* Before a CM id's QP is destroyed: the module drives it no more. */
void vb_unbind_qp(int cm_fd, uint32_t cm_id);

/* verbs_srq.c */
struct ibv_srq *vb_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr);
int vb_destroy_srq(struct ibv_srq *srq);

/* verbs_ah.c: address vectors, shared by QPs, AHs and the CM */
void vb_ah_attr_to_kern(struct rdmachan_ah_attr *dst,
			const struct ibv_ah_attr *src);
void vb_ah_attr_from_kern(struct ibv_ah_attr *dst,
			  const struct rdmachan_ah_attr *src);

#endif /* RDMACHAN_LIB_VERBS_INTERNAL_H */
