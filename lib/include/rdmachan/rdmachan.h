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
 * variable RDMACHAN_MODE=kernel or =bypass forces one.
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

#ifdef __cplusplus
}
#endif

#endif /* RDMACHAN_RDMACHAN_H */
