// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: what the caller's events wait for (rdmachan_query_*), from
 * the module's RDMACHAN_IOC_QUERY_EVENTS and _QUERY_ASYNC_EVENTS. The
 * acknowledgements the library holds back go to the kernel first, so its
 * counts are the program's.
 */
#include <stdlib.h>

#include <rdmachan/rdmachan.h>

#include "cm.h"
#include "mode.h"
#include "verbs_internal.h"

_Static_assert(RDMACHAN_CM_EVENT_UNACKED == RDMACHAN_EVENT_STATE_UNACKED &&
	       RDMACHAN_CM_EVENT_DESTROY_WAITING ==
	       RDMACHAN_EVENT_STATE_DESTROY_WAITING &&
	       RDMACHAN_QUERY_CM_EVENTS_MAX == RDMACHAN_MAX_EVENT_STATES &&
	       RDMACHAN_ASYNC_DESTROY_WAITING ==
	       RDMACHAN_ASYNC_STATE_DESTROY_WAITING,
	       "the public flags are the kernel's");

RDMACHAN_EXPORT int rdmachan_query_cm_events(struct rdma_event_channel *channel,
					     struct rdma_cm_id *id,
					     struct rdmachan_cm_event_state *states,
					     int max,
					     struct rdmachan_cm_events_summary *summary)
{
	struct rdmachan_query_events cmd = {
		.size = sizeof(cmd),
		.state_size = sizeof(struct rdmachan_event_state),
	};
	struct rdmachan_event_state *kstates = NULL;
	struct cm_channel *chan;
	uint32_t i;

	if (!channel || max < 0 || max > RDMACHAN_QUERY_CM_EVENTS_MAX ||
	    (max && !states) || (id && id->channel != channel))
		return cm_err(EINVAL);
	chan = to_cm_chan(channel);
	if (max) {
		kstates = calloc(max, sizeof(*kstates));
		if (!kstates)
			return -1;
	}
	cmd.id_handle = id ? to_cm_id(id)->handle : 0;
	cmd.states = (uintptr_t)kstates;
	cmd.max_states = max;
	/* What is not flushed stays counted in the kernel: still the truth. */
	cm_channel_flush_acks(chan);
	if (rdmachan_ioctl(channel->fd, RDMACHAN_IOC_QUERY_EVENTS, &cmd)) {
		free(kstates);
		return -1;
	}
	for (i = 0; i < cmd.out_num_states; i++) {
		states[i].id = cm_channel_id(chan, kstates[i].id_handle);
		states[i].event = kstates[i].event;
		states[i].flags = kstates[i].flags;
		states[i].age_ns = kstates[i].age_ns;
	}
	free(kstates);
	if (summary) {
		summary->queued = cmd.out_queued;
		summary->unacked = cmd.out_unacked;
		summary->destroy_waiting = cmd.out_destroy_waiting;
	}
	return cmd.out_num_states;
}

static int query_async(struct ibv_context *context, uint32_t handle,
		       struct rdmachan_async_events_state *state)
{
	struct rdmachan_query_async_events cmd = {
		.size = sizeof(cmd),
		.handle = handle,
	};

	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS,
			   &cmd))
		return -1;
	state->queued = cmd.out_queued;
	state->unacked = cmd.out_unacked;
	state->unacked_types = cmd.out_unacked_types;
	state->unacked_age_ns = cmd.out_unacked_age_ns;
	state->comp_unacked = cmd.out_comp_unacked;
	state->flags = cmd.out_flags;
	return 0;
}

/* Bypass mode's objects are the system libibverbs': none of the module's. */
static int query_async_usable(const void *obj, const void *state)
{
	if (!obj || !state) {
		errno = EINVAL;
		return -1;
	}
	if (lib_bypass()) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

RDMACHAN_EXPORT int rdmachan_query_qp_events(struct ibv_qp *qp,
					     struct rdmachan_async_events_state *state)
{
	if (query_async_usable(qp, state))
		return -1;
	return query_async(qp->context, qp->handle, state);
}

RDMACHAN_EXPORT int rdmachan_query_cq_events(struct ibv_cq *cq,
					     struct rdmachan_async_events_state *state)
{
	if (query_async_usable(cq, state))
		return -1;
	/* Unsent completion acknowledgements stay counted: still the truth. */
	vb_cq_flush_acks(cq);
	return query_async(cq->context, cq->handle, state);
}

RDMACHAN_EXPORT int rdmachan_query_srq_events(struct ibv_srq *srq,
					      struct rdmachan_async_events_state *state)
{
	if (query_async_usable(srq, state))
		return -1;
	return query_async(srq->context, srq->handle, state);
}
