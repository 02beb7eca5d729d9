// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: asynchronous events (ibv_get_async_event,
 * ibv_ack_async_event, ibv_event_type_str).
 *
 * context->async_fd is the context's async event file in the kernel. An
 * event names its QP, CQ or SRQ by the user_context the library created
 * it with: the library's own struct, which lives until the object's
 * destroy returns, and the destroy waits in the kernel until the object's
 * events are acknowledged. The acknowledgment names the object's handle
 * and the event type: all that ibv_ack_async_event() is given, so the
 * library keeps no record of the events it hands out.
 */
#include "verbs_internal.h"
#include "mode.h"

RDMACHAN_EXPORT int ibv_get_async_event(struct ibv_context *context,
					struct ibv_async_event *event)
{
	RETURN_IF_BYPASS(ibv_get_async_event, context, event);
	struct rdmachan_get_async_event cmd = { .size = sizeof(cmd) };
	void *element;

	if (rdmachan_ioctl(context->async_fd, RDMACHAN_IOC_GET_ASYNC_EVENT,
			   &cmd))
		return -1;
	element = (void *)(uintptr_t)cmd.out_user_context;
	event->event_type = (enum ibv_event_type)cmd.out_event_type;
	switch (cmd.out_element) {
	case RDMACHAN_ASYNC_ELEMENT_QP:
		event->element.qp = element;
		break;
	case RDMACHAN_ASYNC_ELEMENT_CQ:
		event->element.cq = element;
		break;
	case RDMACHAN_ASYNC_ELEMENT_SRQ:
		event->element.srq = element;
		break;
	default:
		event->element.port_num = (int)cmd.out_port_num;
		break;
	}
	return 0;
}

/*
 * Port and device events need no acknowledgment. One that the kernel
 * refuses (never delivered, or acknowledged already) sets errno.
 */
RDMACHAN_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	RETURN_VOID_IF_BYPASS(ibv_ack_async_event, event);
	struct rdmachan_ack_async_event cmd = {
		.size = sizeof(cmd),
		.event_type = (uint32_t)event->event_type,
	};
	struct ibv_context *context;

	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		context = event->element.cq->context;
		cmd.handle = event->element.cq->handle;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		context = event->element.qp->context;
		cmd.handle = event->element.qp->handle;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		context = event->element.srq->context;
		cmd.handle = event->element.srq->handle;
		break;
	default:
		return;
	}
	rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_ACK_ASYNC_EVENT, &cmd);
}

RDMACHAN_EXPORT const char *ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if (event < IBV_EVENT_CQ_ERR || event > IBV_EVENT_WQ_FATAL)
		return "unknown";
	return names[event];
}
