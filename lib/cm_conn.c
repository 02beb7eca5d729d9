// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: connections of CM ids (rdma_connect, rdma_accept,
 * rdma_reject, rdma_reject_ece, rdma_disconnect, rdma_establish,
 * rdma_notify).
 *
 * The kernel's CM moves an id's QP through RTR and RTS as the connection
 * is made and to the error state when it ends; what the library does is
 * librdmacm's checking and defaults of the connection parameters, and
 * keeping qp->state in step. A synchronous id waits here for the event
 * that completes the call (cm_complete).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

/*
 * As librdmacm: a connected (RDMA_PS_TCP) id without a QP needs the
 * parameters, for the QP number, and the RDMA read depths the caller asks
 * for must fit the device.
 */
static int cm_check_param(struct cm_id *id,
			  const struct rdma_conn_param *param)
{
	if (id->id.ps != RDMA_PS_TCP)
		return 0;
	if (!param)
		return id->id.qp ? 0 : cm_err(EINVAL);
	if (!id->dev)
		return 0;
	if (param->responder_resources != RDMA_MAX_RESP_RES &&
	    param->responder_resources > id->dev->max_responder_resources)
		return cm_err(EINVAL);
	if (param->initiator_depth != RDMA_MAX_INIT_DEPTH &&
	    param->initiator_depth > id->dev->max_initiator_depth)
		return cm_err(EINVAL);
	return 0;
}

/*
 * The connection parameters for the kernel. An id with a QP leaves the QP
 * number to the kernel, which owns the QP; private data from
 * rdma_create_ep (ai_connect) goes ahead of the caller's, as in librdmacm.
 */
static int cm_fill_conn(const struct cm_id *id,
			struct rdmachan_conn_param *dst,
			const struct rdma_conn_param *src,
			uint8_t initiator_depth, uint8_t responder_resources)
{
	unsigned int len = id->connect_len;

	if (src && src->private_data && src->private_data_len)
		len += src->private_data_len;
	if (len > sizeof(dst->private_data))
		return cm_err(EINVAL);

	dst->initiator_depth = initiator_depth;
	dst->responder_resources = responder_resources;
	if (id->connect_len)
		memcpy(dst->private_data, id->connect_data, id->connect_len);
	dst->private_data_len = (uint8_t)len;
	if (id->id.qp)
		dst->srq = !!id->id.qp->srq;
	if (!src) {
		dst->retry_count = CM_MAX_RETRY;
		dst->rnr_retry_count = CM_MAX_RETRY;
		return 0;
	}
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	if (!id->id.qp) {
		dst->srq = src->srq;
		dst->qp_num = src->qp_num;
	}
	if (src->private_data && src->private_data_len)
		memcpy(dst->private_data + id->connect_len, src->private_data,
		       src->private_data_len);
	return 0;
}

/*
 * CONNECT's and ACCEPT's argument: the depths the caller set in @param
 * override @init_depth and @resp_res, the defaults of each side.
 */
static int cm_conn_cmd(struct cm_id *cid, struct rdmachan_connect *cmd,
		       const struct rdma_conn_param *param, uint8_t init_depth,
		       uint8_t resp_res)
{
	if (param && param->initiator_depth != RDMA_MAX_INIT_DEPTH)
		init_depth = param->initiator_depth;
	if (param && param->responder_resources != RDMA_MAX_RESP_RES)
		resp_res = param->responder_resources;
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->handle = cid->handle;
	return cm_fill_conn(cid, &cmd->conn, param, init_depth, resp_res);
}

RDMACHAN_EXPORT int rdma_connect(struct rdma_cm_id *id,
				 struct rdma_conn_param *conn_param)
{
	struct rdmachan_connect cmd;
	uint8_t init_depth = 0, resp_res = 0;
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	if (cm_check_param(cid, conn_param))
		return -1;
	if (cid->dev) {
		init_depth = cid->dev->max_initiator_depth;
		resp_res = cid->dev->max_responder_resources;
	}
	if (cm_conn_cmd(cid, &cmd, conn_param, init_depth, resp_res))
		return -1;
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_CONNECT, &cmd))
		return -1;
	/* As librdmacm: the endpoint's private data goes once. */
	free(cid->connect_data);
	cid->connect_data = NULL;
	cid->connect_len = 0;
	return cm_complete(cid);
}

static uint8_t cm_min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

RDMACHAN_EXPORT int rdma_accept(struct rdma_cm_id *id,
				struct rdma_conn_param *conn_param)
{
	struct rdmachan_connect cmd;
	uint8_t init_depth, resp_res;
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	if (cm_check_param(cid, conn_param))
		return -1;

	/* Unless told otherwise, what the request asked for, if it fits. */
	init_depth = cid->req_initiator_depth;
	resp_res = cid->req_responder_resources;
	if (cid->dev) {
		init_depth = cm_min_u8(init_depth,
				       cid->dev->max_initiator_depth);
		resp_res = cm_min_u8(resp_res,
				     cid->dev->max_responder_resources);
	}
	/* @conn_param may point into id->event: read it before the ack. */
	if (cm_conn_cmd(cid, &cmd, conn_param, init_depth, resp_res))
		return -1;
	cmd.user_context = (uintptr_t)cid;
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_ACCEPT, &cmd))
		return -1;
	/* The kernel has moved the QP to RTR and RTS. */
	if (id->qp && id->qp_type != IBV_QPT_UD)
		id->qp->state = IBV_QPS_RTS;

	/* A datagram id is done: there is no connection to wait for. */
	if (id->qp_type == IBV_QPT_UD) {
		if (cid->sync)
			cm_ack_id_event(cid);
		return 0;
	}
	return cm_complete(cid);
}

/* The kernel's reject reasons: IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED. */
#define CM_REJ_VENDOR_OPTION_NOT_SUPPORTED 35

static int cm_reject(struct rdma_cm_id *id, const void *private_data,
		     uint8_t private_data_len, uint32_t reason)
{
	struct rdmachan_reject cmd;
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.handle = cid->handle;
	cmd.reason = reason;
	if (private_data && private_data_len) {
		memcpy(cmd.private_data, private_data, private_data_len);
		cmd.private_data_len = private_data_len;
	}
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_REJECT, &cmd))
		return -1;
	/* The request's event is referenced until the reject, no longer. */
	if (cid->sync)
		cm_ack_id_event(cid);
	return 0;
}

RDMACHAN_EXPORT int rdma_reject(struct rdma_cm_id *id, const void *private_data,
				uint8_t private_data_len)
{
	return cm_reject(id, private_data, private_data_len, 0);
}

RDMACHAN_EXPORT int rdma_reject_ece(struct rdma_cm_id *id,
				    const void *private_data,
				    uint8_t private_data_len)
{
	return cm_reject(id, private_data, private_data_len,
			 CM_REJ_VENDOR_OPTION_NOT_SUPPORTED);
}

RDMACHAN_EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdmachan_disconnect cmd = { .size = sizeof(cmd) };
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	cmd.handle = cid->handle;
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_DISCONNECT, &cmd))
		return -1;
	/* The kernel has moved the QP to the error state, flushing it. */
	if (id->qp)
		id->qp->state = IBV_QPS_ERR;
	return cm_complete(cid);
}

RDMACHAN_EXPORT int rdma_establish(struct rdma_cm_id *id)
{
	struct rdmachan_establish cmd = { .size = sizeof(cmd) };
	struct cm_id *cid;

	if (!id || id->qp)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	cmd.handle = cid->handle;
	return rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_ESTABLISH, &cmd);
}

RDMACHAN_EXPORT int rdma_notify(struct rdma_cm_id *id,
				enum ibv_event_type event)
{
	struct rdmachan_notify cmd = {
		.size = sizeof(cmd), .event = event,
	};
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	cmd.handle = cid->handle;
	return rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_NOTIFY, &cmd);
}
