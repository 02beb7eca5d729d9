/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * librdmachan: what the connection manager files share.
 *
 * A channel is one open file of /dev/rdmachan; the kernel queues the events
 * of every id of the file on it and counts their acknowledgements. The
 * library keeps, per channel, the ids it knows by their kernel handle, so
 * an event's handles can be turned into the rdma_cm_id pointers programs
 * see. Events are never cached here: what the kernel handed out is either
 * returned to the caller or acknowledged at once.
 */
#ifndef RDMACHAN_LIB_CM_H
#define RDMACHAN_LIB_CM_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "internal.h"
#include "mode.h"

#define cm_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * A device context shared by every id of the process, never closed, and
 * the PD that ids on the device get (id->pd), as librdmacm gives them.
 */
struct cm_device {
	uint32_t index;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	uint8_t max_initiator_depth;
	uint8_t max_responder_resources;
};

struct cm_id;

#define CM_MAX_PENDING_ACKS 64

/* the 3-bit retry counts' largest value: librdmacm's default without conn_param */
#define CM_MAX_RETRY 7

struct cm_channel {
	/* what programs see: the file descriptor */
	struct rdma_event_channel ch;
	/*
	 * Held while reading one event from the kernel and turning it into
	 * an rdma_cm_event, so that the id of a connect request is known
	 * before any later event of that id is looked up.
	 */
	pthread_mutex_t get_lock;
	/* protects the fields below */
	pthread_mutex_t lock;
	/* signalled when a migration into this channel ends */
	pthread_cond_t cond;
	/* ids by kernel handle, chained through cm_id.hnext */
	struct cm_id **buckets;
	uint32_t nbuckets;
	uint32_t count;
	/* migrations into this channel whose id is not in the table yet */
	unsigned int migrating;
	/*
	 * Acknowledgements not sent yet: they ride on the channel's next
	 * GET_EVENTS. While a destroy or migration waits in the kernel for
	 * acknowledgements of this channel (@ack_waiters), they go at once.
	 */
	uint32_t pending_acks[CM_MAX_PENDING_ACKS];
	unsigned int num_pending_acks;
	unsigned int ack_waiters;
	/* readers waiting in poll() for @get_lock's holder */
	unsigned int get_waiters;
};

/* A multicast join of an id, found again by its address to leave. */
struct cm_mcast {
	struct cm_mcast *next;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint32_t handle;
	/* the group the id's QP was attached to by vb_attach_mcast() */
	bool attached;
	union ibv_gid mgid;
	uint16_t mlid;
};

struct cm_id {
	struct rdma_cm_id id;
	struct cm_channel *chan;
	struct cm_id *hnext;
	struct cm_device *dev;
	uint32_t handle;
	/* a synchronous id owns @chan, a channel of its own */
	bool sync;
	/* being destroyed: its events are acknowledged, not returned */
	bool dying;
	/* what the connect request asked for, the defaults of accept */
	uint8_t req_initiator_depth;
	uint8_t req_responder_resources;
	/* rdma_create_ep: the QP each request of this listener gets */
	struct ibv_qp_init_attr *qp_init_attr;
	/* rdma_create_ep: private data sent ahead of the connect's own */
	uint8_t *connect_data;
	uint8_t connect_len;
	/* guards @mc_list */
	pthread_mutex_t mc_lock;
	struct cm_mcast *mc_list;
};

struct cm_event {
	struct rdma_cm_event event;
	/* the channel the event was read from, where it is acknowledged */
	struct cm_channel *chan;
	uint32_t handle;
	/* the multicast join a MULTICAST_JOIN or _ERROR event is for */
	uint32_t mcast_handle;
	uint8_t private_data[RDMACHAN_CM_PRIVATE_DATA_MAX];
};

static inline struct cm_channel *to_cm_chan(struct rdma_event_channel *ch)
{
	return cm_container_of(ch, struct cm_channel, ch);
}

static inline struct cm_id *to_cm_id(struct rdma_cm_id *id)
{
	return cm_container_of(id, struct cm_id, id);
}

static inline struct cm_event *to_cm_event(struct rdma_cm_event *event)
{
	return cm_container_of(event, struct cm_event, event);
}

static inline int cm_err(int err)
{
	errno = err;
	return -1;
}

/* cm_devices.c */
struct cm_device *cm_device_get(uint32_t index);
void cm_devices_prepare(void);

/* cm_channel.c */
struct cm_channel *cm_channel_create(void);
void cm_channel_destroy(struct cm_channel *chan);
void cm_channel_insert(struct cm_channel *chan, struct cm_id *id);
void cm_channel_remove(struct cm_channel *chan, struct cm_id *id);
void cm_channel_set_dying(struct cm_channel *chan, struct cm_id *id,
			  bool dying);
int cm_id_migrate(struct cm_id *id, struct cm_channel *dest);
struct cm_id *cm_channel_event_id(struct cm_channel *chan, uint32_t handle);
struct rdma_cm_id *cm_channel_id(struct cm_channel *chan, uint32_t handle);

/* cm_ack.c */
int cm_ack_handles(struct cm_channel *chan, const uint32_t *handles,
		   unsigned int num);
unsigned int cm_take_pending_acks(struct cm_channel *chan, uint32_t *out);
int cm_ack_handle(struct cm_channel *chan, uint32_t handle);
void cm_keep_acks(struct cm_channel *chan, const uint32_t *acks,
		  unsigned int num);
int cm_ack_event(struct cm_event *evt);
void cm_ack_id_event(struct cm_id *id);
int cm_destroy_kernel_id(struct cm_channel *chan, uint32_t handle);
int cm_channel_flush_acks(struct cm_channel *chan);
void cm_channel_wait_acks_begin(struct cm_channel *chan);
void cm_channel_wait_acks_end(struct cm_channel *chan);

/* cm_id_object.c */
struct cm_id *cm_id_alloc(struct cm_channel *chan, void *context,
			  enum rdma_port_space ps, enum ibv_qp_type qp_type);
void cm_id_free(struct cm_id *id);
int cm_id_set_route(struct cm_id *id, const struct rdmachan_cm_route *route);
socklen_t cm_addr_len(const struct sockaddr *addr);

/* cm_event.c */
/* rdmachan_get_cm_events() takes at most this many per call */
#define CM_MAX_EVENTS_PER_CALL 256
int cm_get_events(struct cm_channel *chan, struct cm_event *ack,
		  struct rdma_cm_event **events, unsigned int max);
int cm_get_event(struct cm_channel *chan, struct cm_event *ack,
		 struct rdma_cm_event **event);
int cm_complete(struct cm_id *id);

/* cm_id.c */
int cm_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		 void *context, enum rdma_port_space ps,
		 enum ibv_qp_type qp_type);
int cm_destroy_id(struct rdma_cm_id *id);
int cm_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);
int cm_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		    struct sockaddr *dst_addr, int timeout_ms);
int cm_resolve_route(struct rdma_cm_id *id, int timeout_ms);
int cm_set_option(struct rdma_cm_id *id, int level, int optname,
		  void *optval, size_t optlen);

/* cm_qp.c */
int cm_create_qp(struct cm_id *id, struct ibv_pd *pd,
		 struct ibv_qp_init_attr *qp_init_attr);
void cm_destroy_qp(struct rdma_cm_id *id);
void cm_destroy_srq(struct rdma_cm_id *id);

/* cm_mcast.c */
void cm_leave_all(struct cm_id *id);

#endif /* RDMACHAN_LIB_CM_H */
