// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: shared receive queues (ibv_create_srq, ibv_modify_srq,
 * ibv_query_srq, ibv_destroy_srq; ibv_post_srq_recv is in verbs_post.c).
 */
#include <stdlib.h>
#include <string.h>

#include "verbs_internal.h"
#include "mode.h"

struct ibv_srq *vb_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct rdmachan_create_srq cmd;
	struct ibv_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.pd = pd->handle;
	cmd.user_context = (uintptr_t)srq;
	cmd.attr.max_wr = attr->attr.max_wr;
	cmd.attr.max_sge = attr->attr.max_sge;
	cmd.attr.srq_limit = attr->attr.srq_limit;
	if (rdmachan_ioctl(pd->context->cmd_fd, RDMACHAN_IOC_CREATE_SRQ, &cmd)) {
		err = errno;
		free(srq);
		errno = err;
		return NULL;
	}
	/* As libibverbs: the caller learns the sizes the SRQ got. */
	attr->attr.max_wr = cmd.out_attr.max_wr;
	attr->attr.max_sge = cmd.out_attr.max_sge;
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	srq->handle = cmd.out_handle;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	return srq;
}

RDMACHAN_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					       struct ibv_srq_init_attr *attr)
{
	RETURN_IF_BYPASS(ibv_create_srq, pd, attr);
	return vb_create_srq(pd, attr);
}

RDMACHAN_EXPORT int ibv_modify_srq(struct ibv_srq *srq,
				   struct ibv_srq_attr *srq_attr,
				   int srq_attr_mask)
{
	RETURN_IF_BYPASS(ibv_modify_srq, srq, srq_attr, srq_attr_mask);
	struct rdmachan_modify_srq cmd = {
		.size = sizeof(cmd),
		.srq = srq->handle,
		.attr_mask = (uint32_t)srq_attr_mask,
	};

	if (srq_attr_mask & IBV_SRQ_MAX_WR)
		cmd.attr.max_wr = srq_attr->max_wr;
	if (srq_attr_mask & IBV_SRQ_LIMIT)
		cmd.attr.srq_limit = srq_attr->srq_limit;
	if (rdmachan_ioctl(srq->context->cmd_fd, RDMACHAN_IOC_MODIFY_SRQ, &cmd))
		return errno;
	return 0;
}

RDMACHAN_EXPORT int ibv_query_srq(struct ibv_srq *srq,
				  struct ibv_srq_attr *srq_attr)
{
	RETURN_IF_BYPASS(ibv_query_srq, srq, srq_attr);
	struct rdmachan_query_srq cmd = {
		.size = sizeof(cmd),
		.srq = srq->handle,
	};

	if (rdmachan_ioctl(srq->context->cmd_fd, RDMACHAN_IOC_QUERY_SRQ, &cmd))
		return errno;
	srq_attr->max_wr = cmd.out_attr.max_wr;
	srq_attr->max_sge = cmd.out_attr.max_sge;
	srq_attr->srq_limit = cmd.out_attr.srq_limit;
	return 0;
}

/* EBUSY, and the SRQ stays, while QPs use it. */
int vb_destroy_srq(struct ibv_srq *srq)
{
	int ret = vb_destroy_handle(srq->context, srq->handle);

	if (ret)
		return ret;
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	free(srq);
	return 0;
}

RDMACHAN_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	RETURN_IF_BYPASS(ibv_destroy_srq, srq);
	return vb_destroy_srq(srq);
}
