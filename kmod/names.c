// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: every name table of the module: CM and async event types,
 * live-object counters and the kinds of handles they count, QP states and
 * port spaces, for debugfs, fdinfo and the kernel log. A leaf: it calls
 * nothing of the module.
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

static const char *const rdmachan_counter_names[RDMACHAN_NR_COUNTERS] = {
	[RDMACHAN_COUNT_FILES] = "files",
	[RDMACHAN_COUNT_DEVICES] = "devices",
	[RDMACHAN_COUNT_CONTEXTS] = "contexts",
	[RDMACHAN_COUNT_CM_IDS] = "cm_ids",
	[RDMACHAN_COUNT_CM_EVENTS] = "cm_events",
	[RDMACHAN_COUNT_COMP_CHANNELS] = "comp_channels",
	[RDMACHAN_COUNT_PDS] = "pds",
	[RDMACHAN_COUNT_MRS] = "mrs",
	[RDMACHAN_COUNT_CQS] = "cqs",
	[RDMACHAN_COUNT_QPS] = "qps",
	[RDMACHAN_COUNT_SRQS] = "srqs",
	[RDMACHAN_COUNT_AHS] = "ahs",
	[RDMACHAN_COUNT_MCASTS] = "mcasts",
	[RDMACHAN_COUNT_ASYNC_FDS] = "async_fds",
	[RDMACHAN_COUNT_ASYNC_EVENTS] = "async_events",
	[RDMACHAN_COUNT_CQ_RINGS] = "cq_rings",
	[RDMACHAN_COUNT_USER_QPS] = "user_qps",
};

/* An enum rdmachan_counter's name in debugfs' rdmachan/objects. */
const char *rdmachan_counter_name(u32 counter)
{
	if (counter < RDMACHAN_NR_COUNTERS)
		return rdmachan_counter_names[counter];
	return "unknown";
}

static const char *const rdmachan_async_element_names[] = {
	[RDMACHAN_ASYNC_ELEMENT_QP] = "qp",
	[RDMACHAN_ASYNC_ELEMENT_CQ] = "cq",
	[RDMACHAN_ASYNC_ELEMENT_SRQ] = "srq",
};

/* What an async event of a QP, CQ or SRQ is about: "qp", "cq" or "srq". */
const char *rdmachan_async_element_name(u32 element)
{
	if (element < ARRAY_SIZE(rdmachan_async_element_names) &&
	    rdmachan_async_element_names[element])
		return rdmachan_async_element_names[element];
	return "unknown";
}

static const char *const rdmachan_qp_state_names[] = {
	[IB_QPS_RESET] = "RESET",
	[IB_QPS_INIT] = "INIT",
	[IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS",
	[IB_QPS_SQD] = "SQD",
	[IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

/* An enum ib_qp_state as ibv_qp_state's names have it, less the prefix. */
const char *rdmachan_qp_state_name(u32 state)
{
	if (state < ARRAY_SIZE(rdmachan_qp_state_names))
		return rdmachan_qp_state_names[state];
	return "unknown";
}

/* A CM id's port space as enum rdma_ucm_port_space has it, less RDMA_PS_. */
const char *rdmachan_port_space_name(u32 ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return "TCP";
	case RDMA_PS_UDP:
		return "UDP";
	case RDMA_PS_IB:
		return "IB";
	case RDMA_PS_IPOIB:
		return "IPOIB";
	default:
		return "unknown";
	}
}
