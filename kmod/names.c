// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the names of CM and async event types, for debugfs, fdinfo and
 * the kernel log. A leaf: it calls nothing of the module.
 */
#include "rdmachan.h"

static const char *const rdmachan_cm_event_names[RDMACHAN_CM_EVENT_TYPES] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

/* The event's name as rdma-core's rdma_event_str() has it, less the prefix. */
const char *rdmachan_cm_event_name(u32 type)
{
	if (type < RDMACHAN_CM_EVENT_TYPES && rdmachan_cm_event_names[type])
		return rdmachan_cm_event_names[type];
	return "UNKNOWN";
}

static const char *const rdmachan_async_event_names[RDMACHAN_ASYNC_EVENT_TYPES] = {
	[IB_EVENT_CQ_ERR] = "CQ_ERR",
	[IB_EVENT_QP_FATAL] = "QP_FATAL",
	[IB_EVENT_QP_REQ_ERR] = "QP_REQ_ERR",
	[IB_EVENT_QP_ACCESS_ERR] = "QP_ACCESS_ERR",
	[IB_EVENT_COMM_EST] = "COMM_EST",
	[IB_EVENT_SQ_DRAINED] = "SQ_DRAINED",
	[IB_EVENT_PATH_MIG] = "PATH_MIG",
	[IB_EVENT_PATH_MIG_ERR] = "PATH_MIG_ERR",
	[IB_EVENT_DEVICE_FATAL] = "DEVICE_FATAL",
	[IB_EVENT_PORT_ACTIVE] = "PORT_ACTIVE",
	[IB_EVENT_PORT_ERR] = "PORT_ERR",
	[IB_EVENT_LID_CHANGE] = "LID_CHANGE",
	[IB_EVENT_PKEY_CHANGE] = "PKEY_CHANGE",
	[IB_EVENT_SM_CHANGE] = "SM_CHANGE",
	[IB_EVENT_SRQ_ERR] = "SRQ_ERR",
	[IB_EVENT_SRQ_LIMIT_REACHED] = "SRQ_LIMIT_REACHED",
	[IB_EVENT_QP_LAST_WQE_REACHED] = "QP_LAST_WQE_REACHED",
	[IB_EVENT_CLIENT_REREGISTER] = "CLIENT_REREGISTER",
	[IB_EVENT_GID_CHANGE] = "GID_CHANGE",
	[IB_EVENT_WQ_FATAL] = "WQ_FATAL",
};

/* The name ibv_event_type_str() has, less the prefix. */
const char *rdmachan_async_event_name(u32 type)
{
	if (type < RDMACHAN_ASYNC_EVENT_TYPES && rdmachan_async_event_names[type])
		return rdmachan_async_event_names[type];
	return "UNKNOWN";
}
