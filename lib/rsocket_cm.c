// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An rsocket's CM events, taken from its own channel without waiting: the
 * steps of an active connect (address, route, the endpoint and connect
 * data, established) and the end of a connection. The engine's waits take
 * them (rsocket_wire.c), so this file calls nothing above the endpoint.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "rsocket.h"

/* The errno of @ev, come where another event was waited for. */
int rs_event_errno(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		return ECONNREFUSED;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return ENODEV;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (ev->status < 0)
			return -ev->status;
		return ETIMEDOUT;
	default:
		return EPROTO;
	}
}

static void rs_connect_failed(struct rsock *rs, int err)
{
	rs->phase = RS_CONNECT_FAILED;
	rs->so_error = err;
	rs->progress++;
}

/* The next step of an active connect, on @ev (the caller acknowledges). */
static void rs_connect_event(struct rsock *rs, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	struct rs_wire_conn c;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rs->phase != RS_RESOLVING_ADDR)
			break;
		if (rs->route && !rdma_set_option(rs->id, RDMA_OPTION_IB,
						  RDMA_OPTION_IB_PATH, rs->route,
						  rs->route_len)) {
			rs->phase = RS_RESOLVING_ROUTE;
			/* a route set by hand completes at once */
			break;
		}
		if (rdma_resolve_route(rs->id, RS_RESOLVE_TIMEOUT_MS))
			rs_connect_failed(rs, errno);
		else
			rs->phase = RS_RESOLVING_ROUTE;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rs->phase != RS_RESOLVING_ROUTE)
			break;
		if (rs_create_endpoint(rs)) {
			rs_connect_failed(rs, errno);
			break;
		}
		rs_format_conn(rs, &c);
		memset(&param, 0, sizeof(param));
		param.private_data = &c;
		param.private_data_len = sizeof(c);
		param.flow_control = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		/* iWARP's MPA may read during the connect, as rdma-core says */
		if (rs->msg_send)
			param.initiator_depth = 1;
		if (rdma_connect(rs->id, &param))
			rs_connect_failed(rs, errno);
		else
			rs->phase = RS_CONNECTING;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (rs->phase != RS_CONNECTING)
			break;
		if (rs_take_conn(rs, ev->param.conn.private_data,
				 ev->param.conn.private_data_len)) {
			rs_connect_failed(rs, errno);
			rdma_disconnect(rs->id);
			break;
		}
		rs->phase = RS_CONNECTED;
		rs->progress++;
		break;
	default:
		rs_connect_failed(rs, rs_event_errno(ev));
		break;
	}
}

/* Takes the events the CM queued for @rs, without waiting. */
void rs_take_cm_events(struct rsock *rs)
{
	struct rdma_cm_event *ev;

	if (rs->phase == RS_LISTENING ||
	    (rs->phase >= RS_CONNECTED && !rs->cm_pending))
		return;
	rs->cm_pending = false;
	while (!rdma_get_cm_event(rs->chan, &ev)) {
		rs->progress++;
		/* the channel no longer wakes them */
		rs_wake_sleepers(rs);
		if (rs->phase >= RS_RESOLVING_ADDR && rs->phase <= RS_CONNECTING) {
			rs_connect_event(rs, ev);
		} else if (rs->phase == RS_CONNECTED &&
			   (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)) {
			rs->phase = RS_DISCONNECTED;
		}
		rdma_ack_cm_event(ev);
	}
}

/* Moves a connect on; 0 once connected, else -1 with errno. */
int rs_connect_step(struct rsock *rs)
{
	rs_take_cm_events(rs);
	switch (rs->phase) {
	case RS_CONNECTED:
	case RS_DISCONNECTED:
		return 0;
	case RS_CONNECT_FAILED:
		return rs_err(rs->so_error ? rs->so_error : ECONNREFUSED);
	case RS_RESOLVING_ADDR:
	case RS_RESOLVING_ROUTE:
	case RS_CONNECTING:
		return rs_err(EINPROGRESS);
	default:
		return rs_err(ENOTCONN);
	}
}
