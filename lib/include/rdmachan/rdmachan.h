/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <rdmachan/rdmachan.h>: what librdmachan offers beyond the rdma-core API.
 */
#ifndef RDMACHAN_RDMACHAN_H
#define RDMACHAN_RDMACHAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdma_event_channel;
struct rdma_cm_event;
struct rdma_cm_id;
struct ibv_qp;
struct ibv_cq;
struct ibv_srq;

/**
 * rdmachan_get_info - ABI version and feature bits of the loaded module
 * @abi_version: set to the module's RDMACHAN_ABI_VERSION
 * @features: set to its RDMACHAN_FEATURE_* bits (<rdmachan/uapi.h>)
 *
 * Returns 0, or -1 with errno set (ENOSYS when the module is not loaded).
 */
int rdmachan_get_info(uint32_t *abi_version, uint64_t *features);

/* Where this process's verbs objects live (docs/design.md: "Two modes"). */
enum rdmachan_mode {
	/* the module's; each post and poll is an ioctl on /dev/rdmachan */
	RDMACHAN_MODE_KERNEL = 1,
	/* the system libibverbs' and its provider's; CM ids' QPs driven by
	 * the module */
	RDMACHAN_MODE_BYPASS = 2,
};

/**
 * rdmachan_get_mode - the data-path mode of librdmachan in this process
 *
 * Chosen once, at the first call of the library that needs it: bypass
 * when the loaded module offers it (RDMACHAN_FEATURE_USER_QP) and the
 * system's libibverbs.so.1 loads, kernel-owned otherwise; the environment
 * variable RDMACHAN_MODE=kernel forces kernel-owned (=bypass cannot force
 * bypass where either is missing).
 */
enum rdmachan_mode rdmachan_get_mode(void);

/**
 * rdmachan_get_cm_events - take up to @max CM events from @channel at once
 * @channel: an event channel of librdmachan
 * @events: where the events go, in the order they were queued
 * @max: at most this many, 1 or more
 *
 * As rdma_get_cm_event(), for several events in one kernel call: waits
 * for the first unless the channel is non-blocking, then takes as many as
 * are queued, up to @max. Each event must be acknowledged
 * (rdma_ack_cm_event() or rdmachan_ack_cm_events()).
 *
 * Returns the number of events stored, or -1 with errno set.
 */
int rdmachan_get_cm_events(struct rdma_event_channel *channel,
			   struct rdma_cm_event **events, int max);

/**
 * rdmachan_ack_cm_events - acknowledge and free @num CM events
 * @events: events from rdma_get_cm_event() or rdmachan_get_cm_events()
 * @num: how many, 0 or more
 *
 * As rdma_ack_cm_event() on each: the acknowledgements reach the kernel
 * together, with their channel's next read or with a destroy that waits
 * for them. Returns 0, or -1 with errno set; with a NULL among @events,
 * EINVAL and none is acknowledged.
 */
int rdmachan_ack_cm_events(struct rdma_cm_event **events, int num);

/* Bits of rdmachan_cm_event_state.flags */
#define RDMACHAN_CM_EVENT_UNACKED		0x1	/* taken, not yet acknowledged */
#define RDMACHAN_CM_EVENT_DESTROY_WAITING	0x2	/* a destroy waits for its ack */

/* One CM event that is queued or taken and not yet acknowledged. */
struct rdmachan_cm_event_state {
	/* its id (a listener's, for a connect request); compare it only: its
	 * rdma_destroy_id() may be under way */
	struct rdma_cm_id *id;
	/* an enum rdma_cm_event_type */
	int event;
	/* RDMACHAN_CM_EVENT_* bits; without _UNACKED it is still queued */
	uint32_t flags;
	/* nanoseconds since it was queued, or, once taken, since it was taken */
	uint64_t age_ns;
};

/* The totals of rdmachan_query_cm_events(), beyond the states returned. */
struct rdmachan_cm_events_summary {
	uint32_t queued;
	uint32_t unacked;
	uint32_t destroy_waiting;
};

/* Largest @max of rdmachan_query_cm_events() */
#define RDMACHAN_QUERY_CM_EVENTS_MAX	1024

/**
 * rdmachan_query_cm_events - the CM events of @channel not yet acknowledged
 * @channel: an event channel of librdmachan
 * @id: only this id's events (an id of @channel), or NULL for all
 * @states: where up to @max events go: those taken first, then the queued
 *	ones in queue order
 * @max: 0 to RDMACHAN_QUERY_CM_EVENTS_MAX
 * @summary: the totals, or NULL
 *
 * Acknowledgements that librdmachan holds back for the channel's next
 * read are sent first, so what the kernel reports is exact.
 *
 * Returns the number of states stored, or -1 with errno set.
 */
int rdmachan_query_cm_events(struct rdma_event_channel *channel,
			     struct rdma_cm_id *id,
			     struct rdmachan_cm_event_state *states, int max,
			     struct rdmachan_cm_events_summary *summary);

/* Bits of rdmachan_async_events_state.flags */
#define RDMACHAN_ASYNC_DESTROY_WAITING	0x1	/* its destroy waits for acks */

/* The events of one QP, CQ or SRQ that are queued or not acknowledged. */
struct rdmachan_async_events_state {
	/* asynchronous events waiting unread (ibv_get_async_event) */
	uint32_t queued;
	/* asynchronous events read and not acknowledged (ibv_ack_async_event) */
	uint32_t unacked;
	/* bit (1 << type) per enum ibv_event_type of the unacknowledged ones */
	uint64_t unacked_types;
	/* nanoseconds since the object last had none unacknowledged */
	uint64_t unacked_age_ns;
	/* a CQ's completion events taken and not acknowledged (ibv_ack_cq_events) */
	uint32_t comp_unacked;
	/* RDMACHAN_ASYNC_* bits */
	uint32_t flags;
};

/**
 * rdmachan_query_qp_events - the asynchronous events of @qp not yet
 *	acknowledged; rdmachan_query_cq_events() and
 *	rdmachan_query_srq_events() for a CQ (with its completion events) and
 *	an SRQ
 *
 * Only for the module's own verbs objects (kernel-owned mode): in bypass
 * mode the objects are the system libibverbs', and the call fails with
 * EOPNOTSUPP.
 *
 * Returns 0, or -1 with errno set.
 */
int rdmachan_query_qp_events(struct ibv_qp *qp,
			     struct rdmachan_async_events_state *state);
int rdmachan_query_cq_events(struct ibv_cq *cq,
			     struct rdmachan_async_events_state *state);
int rdmachan_query_srq_events(struct ibv_srq *srq,
			      struct rdmachan_async_events_state *state);

#ifdef __cplusplus
}
#endif

#endif /* RDMACHAN_RDMACHAN_H */
