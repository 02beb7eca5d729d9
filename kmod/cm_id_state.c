// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: where each CM id is, for introspection only. The CM keeps its
 * own state private; this one follows the calls that move an id and the
 * events the CM reports for it.
 */
#include "rdmachan.h"

static const char *const rdmachan_cm_id_state_names[RDMACHAN_ID_STATES] = {
	[RDMACHAN_ID_IDLE] = "idle",
	[RDMACHAN_ID_BOUND] = "bound",
	[RDMACHAN_ID_RESOLVING_ADDR] = "resolving-addr",
	[RDMACHAN_ID_ADDR_RESOLVED] = "addr-resolved",
	[RDMACHAN_ID_ADDR_ERROR] = "addr-error",
	[RDMACHAN_ID_RESOLVING_ROUTE] = "resolving-route",
	[RDMACHAN_ID_ROUTE_RESOLVED] = "route-resolved",
	[RDMACHAN_ID_ROUTE_ERROR] = "route-error",
	[RDMACHAN_ID_LISTENING] = "listening",
	[RDMACHAN_ID_CONNECTING] = "connecting",
	[RDMACHAN_ID_REQUEST] = "request",
	[RDMACHAN_ID_ACCEPTING] = "accepting",
	[RDMACHAN_ID_CONNECTED] = "connected",
	[RDMACHAN_ID_DISCONNECTING] = "disconnecting",
	[RDMACHAN_ID_DISCONNECTED] = "disconnected",
	[RDMACHAN_ID_REJECTED] = "rejected",
	[RDMACHAN_ID_UNREACHABLE] = "unreachable",
	[RDMACHAN_ID_CONNECT_ERROR] = "connect-error",
	[RDMACHAN_ID_DEVICE_REMOVED] = "device-removed",
};

/* The state an event leaves its id in; 0: the event does not move it. */
static const u8 rdmachan_cm_state_after_event[RDMACHAN_CM_EVENT_TYPES] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = RDMACHAN_ID_ADDR_RESOLVED,
	[RDMA_CM_EVENT_ADDR_ERROR] = RDMACHAN_ID_ADDR_ERROR,
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = RDMACHAN_ID_ROUTE_RESOLVED,
	[RDMA_CM_EVENT_ROUTE_ERROR] = RDMACHAN_ID_ROUTE_ERROR,
	[RDMA_CM_EVENT_CONNECT_ERROR] = RDMACHAN_ID_CONNECT_ERROR,
	[RDMA_CM_EVENT_UNREACHABLE] = RDMACHAN_ID_UNREACHABLE,
	[RDMA_CM_EVENT_REJECTED] = RDMACHAN_ID_REJECTED,
	[RDMA_CM_EVENT_ESTABLISHED] = RDMACHAN_ID_CONNECTED,
	[RDMA_CM_EVENT_DISCONNECTED] = RDMACHAN_ID_DISCONNECTED,
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = RDMACHAN_ID_DEVICE_REMOVED,
};

const char *rdmachan_cm_id_state_name(u32 state)
{
	if (state < RDMACHAN_ID_STATES && rdmachan_cm_id_state_names[state])
		return rdmachan_cm_id_state_names[state];
	return "unknown";
}

void rdmachan_cm_id_set_state(struct rdmachan_cm_id *id, u32 state)
{
	WRITE_ONCE(id->state, state);
}

/* Before the CM call: the call's event may come before it returns. */
u32 rdmachan_cm_id_begin_state(struct rdmachan_cm_id *id, u32 state)
{
	return xchg(&id->state, state);
}

/* A failed call moved nothing: back to @old, unless an event moved it. */
void rdmachan_cm_id_end_state(struct rdmachan_cm_id *id, u32 old, u32 state,
			      int ret)
{
	if (ret)
		cmpxchg(&id->state, state, old);
}

void rdmachan_cm_id_event_state(struct rdmachan_cm_id *id, u32 event)
{
	if (event < RDMACHAN_CM_EVENT_TYPES &&
	    rdmachan_cm_state_after_event[event])
		WRITE_ONCE(id->state, rdmachan_cm_state_after_event[event]);
}
