// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: endpoints (rdma_create_ep, rdma_destroy_ep).
 *
 * An endpoint is a synchronous id made from what rdma_getaddrinfo()
 * found: a passive one is bound and keeps the QP attributes that
 * rdma_get_request() (cm_id.c) gives each of its requests' QPs; an active
 * one is resolved and has its QP, ready to connect. It stands on ids
 * (cm_id.c) and their QPs (cm_qp.c), which know nothing of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

/* A passive endpoint: bound, and what its requests' QPs are to be like. */
static int cm_passive_ep(struct cm_id *cid, struct rdma_addrinfo *res,
			 struct ibv_pd *pd,
			 struct ibv_qp_init_attr *qp_init_attr)
{
	if (cm_bind_addr(&cid->id, res->ai_src_addr))
		return -1;
	if (pd)
		cid->id.pd = pd;
	if (qp_init_attr) {
		cid->qp_init_attr = malloc(sizeof(*qp_init_attr));
		if (!cid->qp_init_attr)
			return cm_err(ENOMEM);
		*cid->qp_init_attr = *qp_init_attr;
		cid->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	}
	return 0;
}

/* An active endpoint: resolved, with its QP, ready to connect. */
static int cm_active_ep(struct cm_id *cid, struct rdma_addrinfo *res,
			struct ibv_pd *pd,
			struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *id = &cid->id;

	if (cm_resolve_addr(id, res->ai_src_addr, res->ai_dst_addr, 2000))
		return -1;
	if (res->ai_route_len) {
		if (cm_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
				    res->ai_route, res->ai_route_len) ||
		    cm_complete(cid))
			return -1;
	} else if (cm_resolve_route(id, 2000)) {
		return -1;
	}
	if (qp_init_attr) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (cm_create_qp(cid, pd, qp_init_attr))
			return -1;
	}
	if (res->ai_connect_len) {
		if (res->ai_connect_len > RDMACHAN_CM_PRIVATE_DATA_MAX)
			return cm_err(EINVAL);
		cid->connect_data = malloc(res->ai_connect_len);
		if (!cid->connect_data)
			return cm_err(ENOMEM);
		memcpy(cid->connect_data, res->ai_connect, res->ai_connect_len);
		cid->connect_len = (uint8_t)res->ai_connect_len;
	}
	return 0;
}

static void cm_destroy_ep(struct rdma_cm_id *id)
{
	if (id->qp)
		cm_destroy_qp(id);
	if (id->srq)
		cm_destroy_srq(id);
	cm_destroy_id(id);
}

RDMACHAN_EXPORT int rdma_create_ep(struct rdma_cm_id **id,
				   struct rdma_addrinfo *res, struct ibv_pd *pd,
				   struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	struct cm_id *cid;
	int ret, err;

	if (!id || !res)
		return cm_err(EINVAL);
	/* No XRC (nor has rxe): fail as librdmacm fails to make the QP. */
	if (res->ai_qp_type == IBV_QPT_XRC_SEND ||
	    res->ai_qp_type == IBV_QPT_XRC_RECV)
		return cm_err(EOPNOTSUPP);
	/* A passive endpoint makes its QPs later: say now that it cannot. */
	if (qp_init_attr && !rdmachan_has_features(RDMACHAN_FEATURE_VERBS))
		return cm_err(EOPNOTSUPP);
	if (cm_create_id(NULL, &cm_id, NULL,
			 (enum rdma_port_space)res->ai_port_space,
			 (enum ibv_qp_type)res->ai_qp_type))
		return -1;
	cid = to_cm_id(cm_id);
	if (res->ai_flags & RAI_PASSIVE)
		ret = cm_passive_ep(cid, res, pd, qp_init_attr);
	else
		ret = cm_active_ep(cid, res, pd, qp_init_attr);
	if (ret) {
		err = errno;
		cm_destroy_ep(cm_id);
		return cm_err(err);
	}
	*id = cm_id;
	return 0;
}

RDMACHAN_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (id)
		cm_destroy_ep(id);
}
