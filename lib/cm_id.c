// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: CM ids and their operations (rdma_create_id, rdma_bind_addr,
 * rdma_resolve_addr, rdma_connect, rdma_accept, rdma_get_request, ...).
 *
 * An id is a kernel object of its channel's file. A synchronous id (created
 * or migrated with a NULL channel) has a channel of its own; its operations
 * that complete with an event wait for that event and leave it in
 * id->event until the next call on the id, as librdmacm does.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ib.h>

#include "cm.h"

static void cm_ack_id_event(struct cm_id *id)
{
	if (id->id.event) {
		cm_ack_event(to_cm_event(id->id.event));
		id->id.event = NULL;
	}
}

int cm_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		 void *context, enum rdma_port_space ps,
		 enum ibv_qp_type qp_type)
{
	struct rdmachan_create_id cmd = { .size = sizeof(cmd) };
	struct cm_channel *chan;
	struct cm_id *cid;
	int err;

	if (!id)
		return cm_err(EINVAL);
	chan = channel ? to_cm_chan(channel) : cm_channel_create();
	if (!chan)
		return -1;
	cid = cm_id_alloc(chan, context, ps, qp_type);
	if (!cid)
		goto err_chan;
	cid->sync = !channel;

	cmd.user_context = (uintptr_t)cid;
	cmd.port_space = ps;
	cmd.qp_type = qp_type;
	if (rdmachan_ioctl(chan->ch.fd, RDMACHAN_IOC_CREATE_ID, &cmd))
		goto err_free;
	cid->handle = cmd.out_handle;
	cm_channel_insert(chan, cid);
	*id = &cid->id;
	return 0;

err_free:
	cm_id_free(cid);
err_chan:
	err = errno;
	if (!channel)
		cm_channel_destroy(chan);
	return cm_err(err);
}

RDMACHAN_EXPORT int rdma_create_id(struct rdma_event_channel *channel,
				   struct rdma_cm_id **id, void *context,
				   enum rdma_port_space ps)
{
	enum ibv_qp_type qp_type;

	qp_type = (ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB) ?
		  IBV_QPT_UD : IBV_QPT_RC;
	return cm_create_id(channel, id, context, ps, qp_type);
}

int cm_destroy_id(struct rdma_cm_id *id)
{
	struct cm_channel *chan;
	struct cm_id *cid;
	int err;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	chan = cid->chan;
	/* The kernel waits for this acknowledgement, so give it first. */
	cm_ack_id_event(cid);
	cm_leave_all(cid);

	/* Events read from now on are acknowledged, not returned. */
	cm_channel_set_dying(chan, cid, true);
	if (cm_destroy_kernel_id(chan, cid->handle)) {
		err = errno;
		cm_channel_set_dying(chan, cid, false);
		return cm_err(err);
	}
	cm_channel_remove(chan, cid);
	if (cid->sync)
		cm_channel_destroy(chan);
	cm_id_free(cid);
	return 0;
}

RDMACHAN_EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	return cm_destroy_id(id);
}

int cm_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdmachan_bind_addr cmd;
	struct cm_id *cid;
	socklen_t len;

	len = cm_addr_len(addr);
	if (!id || !len)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.handle = cid->handle;
	memcpy(&cmd.addr, addr, len);
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_BIND_ADDR, &cmd))
		return -1;
	return cm_id_set_route(cid, &cmd.out_route);
}

RDMACHAN_EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cm_bind_addr(id, addr);
}

int cm_resolve_addr(struct rdma_cm_id *id,
				      struct sockaddr *src_addr,
				      struct sockaddr *dst_addr, int timeout_ms)
{
	struct rdmachan_resolve_addr cmd;
	socklen_t src_len, dst_len;
	struct cm_id *cid;

	dst_len = cm_addr_len(dst_addr);
	src_len = cm_addr_len(src_addr);
	if (!id || !dst_len || (src_addr && !src_len))
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.handle = cid->handle;
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (src_addr)
		memcpy(&cmd.src_addr, src_addr, src_len);
	memcpy(&cmd.dst_addr, dst_addr, dst_len);
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_RESOLVE_ADDR, &cmd))
		return -1;

	/* As librdmacm: the peer's address is known from here on. */
	memset(&id->route.addr.dst_storage, 0,
	       sizeof(id->route.addr.dst_storage));
	memcpy(&id->route.addr.dst_storage, dst_addr, dst_len);
	return cm_complete(cid);
}

RDMACHAN_EXPORT int rdma_resolve_addr(struct rdma_cm_id *id,
				      struct sockaddr *src_addr,
				      struct sockaddr *dst_addr, int timeout_ms)
{
	return cm_resolve_addr(id, src_addr, dst_addr, timeout_ms);
}

int cm_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct rdmachan_resolve_route cmd = {
		.size = sizeof(cmd), .timeout_ms = timeout_ms,
	};
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	cmd.handle = cid->handle;
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_RESOLVE_ROUTE, &cmd))
		return -1;
	return cm_complete(cid);
}

RDMACHAN_EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	return cm_resolve_route(id, timeout_ms);
}

RDMACHAN_EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdmachan_listen cmd = {
		.size = sizeof(cmd), .backlog = backlog,
	};
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	cmd.handle = cid->handle;
	return rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_LISTEN, &cmd);
}

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

RDMACHAN_EXPORT int rdma_get_request(struct rdma_cm_id *listen,
				     struct rdma_cm_id **id)
{
	struct rdma_cm_event *event;
	struct cm_event *prev = NULL;
	struct cm_id *lid;
	int status;

	if (!listen || !id)
		return cm_err(EINVAL);
	lid = to_cm_id(listen);
	if (!lid->sync)
		return cm_err(EINVAL);

	if (listen->event) {
		prev = to_cm_event(listen->event);
		listen->event = NULL;
		if (prev->chan != lid->chan) {
			cm_ack_event(prev);
			prev = NULL;
		}
	}
	if (cm_get_event(lid->chan, prev, &event))
		return -1;

	status = event->status;
	if (status || event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* Kept for the caller to look at, as librdmacm keeps it. */
		listen->event = event;
		if (!status)
			return cm_err(EINVAL);
		return cm_err(status < 0 ? -status : status);
	}
	/* As librdmacm: a listener from rdma_create_ep makes the QP. */
	if (lid->qp_init_attr) {
		struct ibv_qp_init_attr attr = *lid->qp_init_attr;

		if (cm_create_qp(to_cm_id(event->id), listen->pd, &attr)) {
			listen->event = event;
			return -1;
		}
	}
	*id = event->id;
	event->id->event = event;
	return 0;
}

RDMACHAN_EXPORT int rdma_migrate_id(struct rdma_cm_id *id,
				    struct rdma_event_channel *channel)
{
	struct cm_channel *dest;
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	if (cid->sync && !channel)
		return cm_err(EINVAL);
	dest = channel ? to_cm_chan(channel) : NULL;
	if (dest == cid->chan)
		return 0;
	/* The kernel waits for this acknowledgement before moving the id. */
	cm_ack_id_event(cid);
	return cm_id_migrate(cid, dest);
}

int cm_set_option(struct rdma_cm_id *id, int level,
				    int optname, void *optval, size_t optlen)
{
	struct rdmachan_set_option cmd = { .size = sizeof(cmd) };
	struct cm_id *cid;

	if (!id)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH) {
		/* Checked as ucma checks it, but there is no ioctl for it. */
		if (!optlen || optlen % sizeof(struct ibv_path_data))
			return cm_err(EINVAL);
		return cm_err(ENOSYS);
	}
	if (level != RDMA_OPTION_ID)
		return cm_err(ENOSYS);

	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t))
			return cm_err(EINVAL);
		if (!optval)
			return cm_err(EFAULT);
		cmd.value = *(uint8_t *)optval;
		break;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			return cm_err(EINVAL);
		if (!optval)
			return cm_err(EFAULT);
		cmd.value = (uint32_t)*(int *)optval;
		break;
	default:
		return cm_err(ENOSYS);
	}
	cmd.handle = cid->handle;
	cmd.level = (uint32_t)level;
	cmd.optname = (uint32_t)optname;
	return rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_SET_OPTION, &cmd);
}

RDMACHAN_EXPORT int rdma_set_option(struct rdma_cm_id *id, int level,
				    int optname, void *optval, size_t optlen)
{
	return cm_set_option(id, level, optname, optval, optlen);
}

RDMACHAN_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id,
				      struct ibv_qp_attr *qp_attr,
				      int *qp_attr_mask)
{
	struct rdmachan_init_qp_attr cmd = { .size = sizeof(cmd) };
	const struct rdmachan_ah_attr *ah = &cmd.out_ah_attr;
	enum ibv_qp_state state;
	struct cm_id *cid;

	if (!id || !qp_attr || !qp_attr_mask)
		return cm_err(EINVAL);
	cid = to_cm_id(id);
	state = qp_attr->qp_state;
	cmd.handle = cid->handle;
	cmd.qp_state = state;
	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_INIT_QP_ATTR, &cmd))
		return -1;

	memset(qp_attr, 0, sizeof(*qp_attr));
	qp_attr->qp_state = state;
	qp_attr->qkey = cmd.out_qkey;
	qp_attr->rq_psn = cmd.out_rq_psn;
	qp_attr->sq_psn = cmd.out_sq_psn;
	qp_attr->dest_qp_num = cmd.out_dest_qp_num;
	qp_attr->qp_access_flags = cmd.out_qp_access_flags;
	qp_attr->pkey_index = cmd.out_pkey_index;
	qp_attr->path_mtu = (enum ibv_mtu)cmd.out_path_mtu;
	qp_attr->port_num = cmd.out_port_num;
	qp_attr->max_rd_atomic = cmd.out_max_rd_atomic;
	qp_attr->max_dest_rd_atomic = cmd.out_max_dest_rd_atomic;
	qp_attr->min_rnr_timer = cmd.out_min_rnr_timer;
	qp_attr->timeout = cmd.out_timeout;
	qp_attr->retry_cnt = cmd.out_retry_cnt;
	qp_attr->rnr_retry = cmd.out_rnr_retry;
	memcpy(qp_attr->ah_attr.grh.dgid.raw, ah->dgid,
	       sizeof(qp_attr->ah_attr.grh.dgid.raw));
	qp_attr->ah_attr.grh.flow_label = ah->flow_label;
	qp_attr->ah_attr.grh.sgid_index = ah->sgid_index;
	qp_attr->ah_attr.grh.hop_limit = ah->hop_limit;
	qp_attr->ah_attr.grh.traffic_class = ah->traffic_class;
	qp_attr->ah_attr.dlid = ah->dlid;
	qp_attr->ah_attr.sl = ah->sl;
	qp_attr->ah_attr.src_path_bits = ah->src_path_bits;
	qp_attr->ah_attr.static_rate = ah->static_rate;
	qp_attr->ah_attr.is_global = ah->is_global;
	qp_attr->ah_attr.port_num = ah->port_num;
	*qp_attr_mask = (int)cmd.out_attr_mask;
	return 0;
}

static __be16 cm_port_of(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB:
		return htobe16((uint16_t)be64toh(
			((const struct sockaddr_ib *)addr)->sib_sid));
	default:
		return 0;
	}
}

RDMACHAN_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return cm_port_of(&id->route.addr.src_addr);
}

RDMACHAN_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return cm_port_of(&id->route.addr.dst_addr);
}
