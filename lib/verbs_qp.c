// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: queue pairs (ibv_create_qp, ibv_destroy_qp, ibv_modify_qp,
 * ibv_query_qp).
 *
 * QPs are kernel objects of the context's file. A QP made for a CM id
 * (rdma_create_qp) is the same object, bound to the id, whose state the
 * kernel drives; ibv_modify_qp works on either.
 */
#include <stdlib.h>
#include <string.h>

#include "verbs_internal.h"
#include "mode.h"

static void vb_cap_to_kern(struct rdmachan_qp_cap *dst,
			   const struct ibv_qp_cap *src)
{
	dst->max_send_wr = src->max_send_wr;
	dst->max_recv_wr = src->max_recv_wr;
	dst->max_send_sge = src->max_send_sge;
	dst->max_recv_sge = src->max_recv_sge;
	dst->max_inline_data = src->max_inline_data;
}

static void vb_cap_from_kern(struct ibv_qp_cap *dst,
			     const struct rdmachan_qp_cap *src)
{
	dst->max_send_wr = src->max_send_wr;
	dst->max_recv_wr = src->max_recv_wr;
	dst->max_send_sge = src->max_send_sge;
	dst->max_recv_sge = src->max_recv_sge;
	dst->max_inline_data = src->max_inline_data;
}

/*
 * The CQs, the SRQ and the PD must be of one context; anything else names
 * handles of another file, which libibverbs' kernel refuses with EINVAL.
 */
static int vb_check_qp_objects(struct ibv_pd *pd,
			       const struct ibv_qp_init_attr *attr)
{
	if (!attr->send_cq || !attr->recv_cq)
		return EINVAL;
	if (attr->send_cq->context != pd->context ||
	    attr->recv_cq->context != pd->context ||
	    (attr->srq && attr->srq->context != pd->context))
		return EINVAL;
	return 0;
}

struct ibv_qp *vb_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr,
			    int cm_fd, uint32_t cm_id)
{
	struct rdmachan_create_qp cmd;
	struct vb_qp *qp;
	int err;

	err = vb_check_qp_objects(pd, attr);
	if (err) {
		errno = err;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	if (cm_fd >= 0) {
		cmd.flags |= RDMACHAN_CREATE_QP_CM_ID;
		cmd.cm_fd = cm_fd;
		cmd.cm_id = cm_id;
	}
	if (attr->sq_sig_all)
		cmd.flags |= RDMACHAN_CREATE_QP_SQ_SIG_ALL;
	cmd.pd = pd->handle;
	cmd.send_cq = attr->send_cq->handle;
	cmd.recv_cq = attr->recv_cq->handle;
	cmd.srq = attr->srq ? attr->srq->handle : 0;
	cmd.qp_type = attr->qp_type;
	cmd.user_context = (uintptr_t)qp;
	vb_cap_to_kern(&cmd.cap, &attr->cap);
	if (rdmachan_ioctl(pd->context->cmd_fd, RDMACHAN_IOC_CREATE_QP, &cmd)) {
		err = errno;
		free(qp);
		errno = err;
		return NULL;
	}

	/* As libibverbs: the caller learns the capacities the QP got. */
	vb_cap_from_kern(&attr->cap, &cmd.out_cap);
	qp->sq_sig_all = !!attr->sq_sig_all;
	qp->ibv.context = pd->context;
	qp->ibv.qp_context = attr->qp_context;
	qp->ibv.pd = pd;
	qp->ibv.send_cq = attr->send_cq;
	qp->ibv.recv_cq = attr->recv_cq;
	qp->ibv.srq = attr->srq;
	qp->ibv.handle = cmd.out_handle;
	qp->ibv.qp_num = cmd.out_qp_num;
	qp->ibv.state = IBV_QPS_RESET;
	qp->ibv.qp_type = attr->qp_type;
	pthread_mutex_init(&qp->ibv.mutex, NULL);
	pthread_cond_init(&qp->ibv.cond, NULL);
	return &qp->ibv;
}

RDMACHAN_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
					     struct ibv_qp_init_attr *attr)
{
	RETURN_IF_BYPASS(ibv_create_qp, pd, attr);
	return vb_create_qp(pd, attr, -1, 0);
}

/* A kernel-owned QP: the module attaches and detaches it itself. */
int vb_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		    uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return 0;
}

void vb_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
}

/* A kernel-owned QP: the module unbinds it from its id when it goes. */
void vb_unbind_qp(int cm_fd, uint32_t cm_id)
{
	(void)cm_fd;
	(void)cm_id;
}

int vb_destroy_qp(struct ibv_qp *qp)
{
	int ret = vb_destroy_handle(qp->context, qp->handle);

	if (ret)
		return ret;
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	free(to_vb_qp(qp));
	return 0;
}

RDMACHAN_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	RETURN_IF_BYPASS(ibv_destroy_qp, qp);
	return vb_destroy_qp(qp);
}

/* As libibverbs: attributes from IBV_QP_RATE_LIMIT on need the _ex calls. */
#define VB_QP_ATTR_MASK_SUPPORTED (IBV_QP_RATE_LIMIT - 1)

RDMACHAN_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				  int attr_mask)
{
	RETURN_IF_BYPASS(ibv_modify_qp, qp, attr, attr_mask);
	struct rdmachan_modify_qp cmd;
	struct rdmachan_qp_attr *k = &cmd.attr;
	unsigned int mask = (unsigned int)attr_mask;

	if (mask & ~(unsigned int)VB_QP_ATTR_MASK_SUPPORTED)
		return EOPNOTSUPP;

	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.qp = qp->handle;
	cmd.attr_mask = mask;
	/* Only what the mask names: the rest may be uninitialised. */
	if (mask & IBV_QP_STATE)
		k->qp_state = attr->qp_state;
	if (mask & IBV_QP_CUR_STATE)
		k->cur_qp_state = attr->cur_qp_state;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		k->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IBV_QP_ACCESS_FLAGS)
		k->qp_access_flags = attr->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)
		k->pkey_index = attr->pkey_index;
	if (mask & IBV_QP_PORT)
		k->port_num = attr->port_num;
	if (mask & IBV_QP_QKEY)
		k->qkey = attr->qkey;
	if (mask & IBV_QP_AV)
		vb_ah_attr_to_kern(&k->ah_attr, &attr->ah_attr);
	if (mask & IBV_QP_PATH_MTU)
		k->path_mtu = attr->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		k->timeout = attr->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		k->retry_cnt = attr->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		k->rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		k->rq_psn = attr->rq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		k->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IBV_QP_ALT_PATH) {
		k->alt_pkey_index = attr->alt_pkey_index;
		k->alt_port_num = attr->alt_port_num;
		k->alt_timeout = attr->alt_timeout;
		vb_ah_attr_to_kern(&k->alt_ah_attr, &attr->alt_ah_attr);
	}
	if (mask & IBV_QP_MIN_RNR_TIMER)
		k->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IBV_QP_SQ_PSN)
		k->sq_psn = attr->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		k->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IBV_QP_PATH_MIG_STATE)
		k->path_mig_state = attr->path_mig_state;
	if (mask & IBV_QP_CAP)
		vb_cap_to_kern(&k->cap, &attr->cap);
	if (mask & IBV_QP_DEST_QPN)
		k->dest_qp_num = attr->dest_qp_num;

	if (rdmachan_ioctl(qp->context->cmd_fd, RDMACHAN_IOC_MODIFY_QP, &cmd))
		return errno;
	if (mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

RDMACHAN_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				 int attr_mask,
				 struct ibv_qp_init_attr *init_attr)
{
	RETURN_IF_BYPASS(ibv_query_qp, qp, attr, attr_mask, init_attr);
	struct rdmachan_query_qp cmd;
	const struct rdmachan_qp_attr *k = &cmd.out_attr;
	/*
	 * A hint, as in libibverbs: every attribute is filled in, and the
	 * kernel is asked with the bits it knows (IBV_QP_STATE..DEST_QPN).
	 */
	unsigned int mask = (unsigned int)attr_mask &
			    ((IBV_QP_DEST_QPN << 1) - 1);

	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.qp = qp->handle;
	cmd.attr_mask = mask;
	if (rdmachan_ioctl(qp->context->cmd_fd, RDMACHAN_IOC_QUERY_QP, &cmd))
		return errno;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)k->qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)k->cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)k->path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)k->path_mig_state;
	attr->qkey = k->qkey;
	attr->rq_psn = k->rq_psn;
	attr->sq_psn = k->sq_psn;
	attr->dest_qp_num = k->dest_qp_num;
	attr->qp_access_flags = k->qp_access_flags;
	vb_cap_from_kern(&attr->cap, &k->cap);
	vb_ah_attr_from_kern(&attr->ah_attr, &k->ah_attr);
	vb_ah_attr_from_kern(&attr->alt_ah_attr, &k->alt_ah_attr);
	attr->pkey_index = k->pkey_index;
	attr->alt_pkey_index = k->alt_pkey_index;
	attr->en_sqd_async_notify = k->en_sqd_async_notify;
	attr->sq_draining = k->sq_draining;
	attr->max_rd_atomic = k->max_rd_atomic;
	attr->max_dest_rd_atomic = k->max_dest_rd_atomic;
	attr->min_rnr_timer = k->min_rnr_timer;
	attr->port_num = k->port_num;
	attr->timeout = k->timeout;
	attr->retry_cnt = k->retry_cnt;
	attr->rnr_retry = k->rnr_retry;
	attr->alt_port_num = k->alt_port_num;
	attr->alt_timeout = k->alt_timeout;

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->qp_type = qp->qp_type;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_all = to_vb_qp(qp)->sq_sig_all;

	if (mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}
