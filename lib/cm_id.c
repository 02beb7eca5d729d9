// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: CM ids and their operations (rdma_create_id, rdma_bind_addr,
 * rdma_resolve_addr, rdma_listen, rdma_migrate_id, rdma_set_option, ...);
 * connecting them is cm_conn.c's.
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
