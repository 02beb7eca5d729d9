// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: QPs and SRQs of CM ids (rdma_create_qp, rdma_create_qp_ex,
 * rdma_destroy_qp, rdma_create_srq, rdma_create_srq_ex, rdma_destroy_srq).
 *
 * An id's QP is created by the kernel's CM on the id, so the kernel moves
 * it through INIT, RTR and RTS as the connection is made and to the error
 * state when it ends. What the library does is librdmacm's part: default
 * PD and CQs (each with a completion channel of its own) filled into the
 * id, so that the <rdma/rdma_verbs.h> helpers find them there.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "cm.h"
#include "verbs_internal.h"

/* Destroys the CQs and channels cm_create_cqs() made for @id. */
static void cm_destroy_cqs(struct rdma_cm_id *id)
{
	if (id->recv_cq) {
		cm_verbs()->destroy_cq(id->recv_cq);
		if (id->send_cq && id->send_cq != id->recv_cq) {
			cm_verbs()->destroy_cq(id->send_cq);
			id->send_cq = NULL;
		}
		id->recv_cq = NULL;
	}
	if (id->recv_cq_channel) {
		cm_verbs()->destroy_comp_channel(id->recv_cq_channel);
		if (id->send_cq_channel &&
		    id->send_cq_channel != id->recv_cq_channel) {
			cm_verbs()->destroy_comp_channel(id->send_cq_channel);
			id->send_cq_channel = NULL;
		}
		id->recv_cq_channel = NULL;
	}
}

/* A CQ of @size entries with a channel of its own, its context the id. */
static int cm_create_cq(struct rdma_cm_id *id, uint32_t size,
			struct ibv_comp_channel **channel, struct ibv_cq **cq)
{
	*channel = cm_verbs()->create_comp_channel(id->verbs);
	if (!*channel)
		return -1;
	*cq = cm_verbs()->create_cq(id->verbs, (int)size, id, *channel, 0);
	return *cq ? 0 : -1;
}

static int cm_create_cqs(struct rdma_cm_id *id, uint32_t send_size,
			 uint32_t recv_size)
{
	int err;

	if (recv_size &&
	    cm_create_cq(id, recv_size, &id->recv_cq_channel, &id->recv_cq))
		goto err;
	if (send_size &&
	    cm_create_cq(id, send_size, &id->send_cq_channel, &id->send_cq))
		goto err;
	return 0;

err:
	err = errno;
	cm_destroy_cqs(id);
	return cm_err(err);
}

static int cm_create_qp_ex(struct cm_id *cid, struct ibv_qp_init_attr_ex *attr)
{
	struct rdma_cm_id *id = &cid->id;
	uint32_t send_size, recv_size;
	struct ibv_qp *qp;
	int err;

	if (id->qp)
		return cm_err(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd;
	} else if (id->verbs != attr->pd->context) {
		return cm_err(EINVAL);
	}
	/* An id not bound to a device has no PD, nor a device for the QP. */
	if (!attr->pd || !id->verbs)
		return cm_err(EINVAL);
	/* As ibv_create_qp_ex() with no provider support for the rest. */
	if (attr->comp_mask != IBV_QP_INIT_ATTR_PD)
		return cm_err(EOPNOTSUPP);
	if ((id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	    (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq))
		return cm_err(EINVAL);

	send_size = attr->send_cq || id->send_cq ? 0 : attr->cap.max_send_wr;
	recv_size = attr->recv_cq || id->recv_cq ? 0 : attr->cap.max_recv_wr;
	if (cm_create_cqs(id, send_size, recv_size))
		return -1;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (id->srq && !attr->srq)
		attr->srq = id->srq;

	/* ibv_qp_init_attr is the first part of ibv_qp_init_attr_ex. */
	qp = cm_verbs()->create_qp(attr->pd, (struct ibv_qp_init_attr *)attr,
			  cid->chan->ch.fd, cid->handle);
	if (!qp) {
		err = errno;
		cm_destroy_cqs(id);
		return cm_err(err);
	}
	/* Where the kernel's CM has already moved it. */
	qp->state = id->qp_type == IBV_QPT_UD ? IBV_QPS_RTS : IBV_QPS_INIT;
	id->pd = qp->pd;
	id->qp = qp;
	return 0;
}

RDMACHAN_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id,
				      struct ibv_qp_init_attr_ex *attr)
{
	if (!id || !attr)
		return cm_err(EINVAL);
	return cm_create_qp_ex(to_cm_id(id), attr);
}

int cm_create_qp(struct cm_id *id, struct ibv_pd *pd,
		 struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex attr_ex;
	int ret;

	memset(&attr_ex, 0, sizeof(attr_ex));
	memcpy(&attr_ex, qp_init_attr, sizeof(*qp_init_attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = pd ? pd : id->id.pd;
	ret = cm_create_qp_ex(id, &attr_ex);
	memcpy(qp_init_attr, &attr_ex, sizeof(*qp_init_attr));
	return ret;
}

RDMACHAN_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
				   struct ibv_qp_init_attr *qp_init_attr)
{
	if (!id || !qp_init_attr)
		return cm_err(EINVAL);
	return cm_create_qp(to_cm_id(id), pd, qp_init_attr);
}

void cm_destroy_qp(struct rdma_cm_id *id)
{
	struct cm_id *cid = to_cm_id(id);
	int tries = 0, ret;

	if (id->qp) {
		cm_verbs()->unbind_qp(cid->chan->ch.fd, cid->handle);
		/*
		 * rdma_destroy_qp() cannot fail: a destroy that failed before
		 * it started (an allocation, a user copy) goes again, or the
		 * QP, and the CQs and channel it holds, stay until exit.
		 */
		while ((ret = cm_verbs()->destroy_qp(id->qp)) &&
		       verbs_destroy_may_repeat(ret) && ++tries < 3)
			;
	}
	id->qp = NULL;
	cm_destroy_cqs(id);
}

RDMACHAN_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (id)
		cm_destroy_qp(id);
}

static int cm_create_srq_ex(struct rdma_cm_id *id,
			    struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return cm_err(EINVAL);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (!attr->pd)
		return cm_err(EINVAL);
	/* No XRC, no tag matching: as ibv_create_srq_ex() without them. */
	if (attr->comp_mask & ~(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD) ||
	    attr->srq_type != IBV_SRQT_BASIC)
		return cm_err(EOPNOTSUPP);

	/* ibv_srq_init_attr is the first part of ibv_srq_init_attr_ex. */
	srq = cm_verbs()->create_srq(attr->pd, (struct ibv_srq_init_attr *)attr);
	if (!srq)
		return -1;
	if (!id->pd)
		id->pd = attr->pd;
	id->srq = srq;
	return 0;
}

RDMACHAN_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id,
				       struct ibv_srq_init_attr_ex *attr)
{
	if (!id || !attr)
		return cm_err(EINVAL);
	return cm_create_srq_ex(id, attr);
}

RDMACHAN_EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
				    struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex attr_ex;
	int ret;

	if (!id || !attr)
		return cm_err(EINVAL);
	memset(&attr_ex, 0, sizeof(attr_ex));
	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	attr_ex.srq_type = id->qp_type == IBV_QPT_XRC_RECV ?
			   IBV_SRQT_XRC : IBV_SRQT_BASIC;
	attr_ex.pd = pd;
	ret = cm_create_srq_ex(id, &attr_ex);
	memcpy(attr, &attr_ex, sizeof(*attr));
	return ret;
}

void cm_destroy_srq(struct rdma_cm_id *id)
{
	if (id->srq)
		cm_verbs()->destroy_srq(id->srq);
	id->srq = NULL;
	cm_destroy_cqs(id);
}

RDMACHAN_EXPORT void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (id)
		cm_destroy_srq(id);
}
