/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: verbs objects (PD, MR, CQ, QP, SRQ, AH), their async events,
 * completion channels, multicast joins, and QPs bound to CM ids. Included
 * by rdmachan.h.
 */
#ifndef RDMACHAN_VERBS_H
#define RDMACHAN_VERBS_H

#include "event_queue.h"

/*
 * What every verbs object has. The IB object exists while @live; it is
 * created under the device's removal_lock, put on the device's list, and
 * torn down with the file's verbs_lock held for write: by DESTROY, when
 * the file closes, or when the device goes away (the handle then stays,
 * and calls on it fail with -ENODEV).
 */
struct rdmachan_verbs_obj {
	struct rdmachan_object obj;
	struct rdmachan_file *file;
	/* a reference, once the IB object was made */
	struct rdmachan_device *dev;
	struct list_head dev_entry;
	u32 handle;
	/* the rest is under the file's verbs_lock */
	bool live;
	/* being destroyed: no new object may use it */
	bool dead;
	/* objects that use this one: QPs of a CQ, everything of a PD */
	atomic_t users;
	/* an hca_object of the creator's RDMA cgroup, until torn down */
	struct rdmachan_charge charge;
	/* the device charged, a reference; set with @charge */
	struct rdmachan_device *charge_dev;
};

/* Event types of enum ib_event_type, IB_EVENT_CQ_ERR to IB_EVENT_WQ_FATAL. */
#define RDMACHAN_ASYNC_EVENT_TYPES	(IB_EVENT_WQ_FATAL + 1)

/*
 * A device context's asynchronous event queue. Events queue while an
 * async file (@reader) reads it and the context is not gone; the context,
 * the async file and the objects that report to it hold references.
 */
struct rdmachan_async_queue {
	/* its lock also guards the counts of the objects reporting here */
	struct rdmachan_event_queue eq;
	/* charged for the events, a reference; NULL without memcg */
	struct mem_cgroup *memcg;
	/* a reference */
	struct rdmachan_device *dev;
	/* under eq.lock */
	unsigned int queued;
	unsigned long dropped;
	/* the open async file, not a reference; NULL when there is none */
	struct file *reader;
	/* on dev->async_queues while read, under dev->async_lock */
	struct list_head dev_entry;
};

/*
 * What a QP, CQ or SRQ has for its asynchronous events: where they go,
 * and those read and not yet acknowledged, under queue->lock.
 */
struct rdmachan_async_obj {
	struct rdmachan_verbs_obj *v;
	/* a reference, once set */
	struct rdmachan_async_queue *queue;
	u32 element;
	u64 user_context;
	/* being destroyed: its events are dropped */
	bool dying;
	unsigned int unacked;
	unsigned int unacked_by_type[RDMACHAN_ASYNC_EVENT_TYPES];
	/* ktime_get_ns() when @unacked last left 0 */
	u64 unacked_since_ns;
	/* a destroy waits for acks: these events', or a CQ's completions' */
	bool destroy_waiting;
	u64 reported;
	u64 acked;
	wait_queue_head_t ack_wait;
};

struct rdmachan_pd {
	struct rdmachan_verbs_obj v;
	struct ib_pd *ib;
	/* its context's async queue, for its QPs and SRQs; a reference */
	struct rdmachan_async_queue *async;
	/* the PD's MRs by lkey, for the data path's checks */
	struct xarray mrs;
};

struct rdmachan_mr {
	struct rdmachan_verbs_obj v;
	struct ib_mr *ib;
	struct rdmachan_pd *pd;
	u64 iova;
	u64 length;
	u32 access;
	u32 lkey;
};

/*
 * A completion channel: an event queue whose events are its CQs, each
 * queued at most once; the CQs hold references.
 */
struct rdmachan_comp_channel {
	struct rdmachan_event_queue eq;
	struct rcu_head rcu;
	/* its file was closed: nothing is queued any more; under eq.lock */
	bool closed;
};

/* Completions polled from the device at a time, on the stack. */
#define RDMACHAN_POLL_BATCH	8

struct rdmachan_cq {
	struct rdmachan_verbs_obj v;
	struct ib_cq *ib;
	u64 user_context;
	struct rdmachan_comp_channel *channel;
	/* REQ_NOTIFY_CQ ever armed the device's CQ (rxe_cq_tasklet.c) */
	bool device_armed;
	/* the rest is under channel->eq.lock */
	struct list_head channel_entry;
	/* no event is queued any more: the CQ is being destroyed */
	bool dying;
	/* events taken from the channel and not yet acknowledged */
	unsigned int events_unacked;
	wait_queue_head_t ack_wait;
	/*
	 * Completions taken from the device when it went away, handed out
	 * by POLL_CQ (or the ring) before anything else; under @poll_lock.
	 */
	struct rdmachan_wc *saved;
	u32 saved_num;
	u32 saved_next;
	/*
	 * A completion points at its QP, which may be destroyed before the
	 * completion is polled: polls never read the QP but find its number
	 * here, by the QP's address, as xa_mk_value(qp_num << 1 | gone). A
	 * destroyed QP's entry stays until a poll finds the CQ empty. Under
	 * @poll_lock, which serializes the polls.
	 */
	struct mutex poll_lock;
	struct xarray qps;
	unsigned int qps_gone;
	/* when a poll last drained the CQ (local_clock ns), or 0 */
	u64 last_empty_ns;
	struct rdmachan_async_obj async;
	/*
	 * RDMACHAN_CREATE_CQ_RING: the ring its completions go to.
	 * @ring_cons and the saved completions change under @poll_lock too.
	 * @ring_device: the poll may use @ib.
	 */
	struct rdmachan_cq_ring_mem *ring;
	/* guards the ring's indices and flags; taken by the poll */
	spinlock_t ring_lock;
	/* scheduled by the device's completion handler */
	struct irq_poll ring_poll;
	u32 ring_prod;
	u32 ring_cons;
	bool ring_stalled;
	bool ring_device;
};

struct rdmachan_srq {
	struct rdmachan_verbs_obj v;
	struct ib_srq *ib;
	struct rdmachan_pd *pd;
	u64 user_context;
	u32 max_sge;
	struct rdmachan_async_obj async;
};

struct rdmachan_qp {
	struct rdmachan_verbs_obj v;
	struct ib_qp *ib;
	struct rdmachan_pd *pd;
	struct rdmachan_cq *send_cq;
	struct rdmachan_cq *recv_cq;
	struct rdmachan_srq *srq;
	u64 user_context;
	enum ib_qp_type type;
	bool sq_sig_all;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	/* one MODIFY_QP at a time: see rdmachan_qp_modify() */
	struct mutex modify_lock;
	/*
	 * rxe may hold an array of the QP's max_dest_rd_atomic responder
	 * resources (rxe_rd_atomic.c). Under modify_lock and, while the QP
	 * is bound, its id's mutex, which connect and accept hold.
	 */
	bool rd_atomic_sized;
	/* the CM id the QP is bound to, with a reference */
	spinlock_t bind_lock;
	struct rdmachan_cm_id *cm_id;
	struct rdmachan_async_obj async;
};

struct rdmachan_ah {
	struct rdmachan_verbs_obj v;
	struct ib_ah *ib;
	struct rdmachan_pd *pd;
};

/*
 * A multicast join of a CM id. While it is on the id's @mcasts list the
 * CM may report it (it is the join's context) and the list holds a
 * reference. @leaving and @attached are under the id's CM handler lock.
 */
struct rdmachan_mcast {
	struct rdmachan_object obj;
	struct rdmachan_cm_id *id;
	u32 handle;
	u64 user_context;
	struct __kernel_sockaddr_storage addr;
	struct list_head id_entry;
	bool leaving;
	bool attached;
	/* its destroy waits for the acks of its events */
	bool destroy_waiting;
	union ib_gid mgid;
	u16 mlid;
	/* its events read and not yet acknowledged, under id->ack_lock */
	unsigned int unacked;
};

void *rdmachan_verbs_zalloc(struct rdmachan_file *file, size_t size,
			    enum rdmachan_object_type type);
/*
 * A zeroed @type of @obj_type for @file, from rdmachan_object_zalloc(),
 * its reference held, or NULL. Its rdmachan_verbs_obj must come first.
 */
#define rdmachan_verbs_alloc(file, type, obj_type)			\
	((type *)rdmachan_verbs_zalloc(file, sizeof(type) +		\
				       BUILD_BUG_ON_ZERO(offsetof(type, v)), \
				       obj_type))
int rdmachan_verbs_reserve(struct rdmachan_call *call,
			   struct rdmachan_verbs_obj *v, u32 *handle);
void rdmachan_verbs_add(struct rdmachan_verbs_obj *v,
			struct rdmachan_device *dev);
int rdmachan_verbs_charge(struct rdmachan_verbs_obj *v,
			  struct rdmachan_device *dev, struct ib_device *ibdev);
struct rdmachan_verbs_obj *rdmachan_verbs_find(struct rdmachan_file *file,
					       u32 handle,
					       enum rdmachan_object_type type);
void rdmachan_verbs_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_verbs_file_release(struct rdmachan_file *file);
void rdmachan_verbs_remove_device(struct rdmachan_device *dev);
struct rdmachan_device *rdmachan_context_device(struct rdmachan_file *file,
						u32 handle,
						struct rdmachan_async_queue **async);

struct ib_device *rdmachan_pd_enter(struct rdmachan_file *file, u32 handle,
				    struct rdmachan_verbs_obj *v,
				    struct rdmachan_pd **pdp);
void rdmachan_pd_exit(struct rdmachan_file *file, struct rdmachan_pd *pd);
struct rdmachan_pd *rdmachan_pd_hold(struct rdmachan_pd *pd);

/*
 * Lookups with the file's verbs_lock held: the object of @handle as its
 * @type (whose rdmachan_verbs_obj is its member v), NULL when @file has
 * no such object.
 */
#define rdmachan_verbs_find_as(file, handle, obj_type, type) ({		\
	struct rdmachan_verbs_obj *found_ =				\
		rdmachan_verbs_find(file, handle, obj_type);		\
									\
	found_ ? container_of(found_, type, v) : NULL;			\
})
#define rdmachan_pd_find(file, handle)					\
	rdmachan_verbs_find_as(file, handle, RDMACHAN_OBJ_PD, struct rdmachan_pd)
#define rdmachan_cq_find(file, handle)					\
	rdmachan_verbs_find_as(file, handle, RDMACHAN_OBJ_CQ, struct rdmachan_cq)
#define rdmachan_qp_find(file, handle)					\
	rdmachan_verbs_find_as(file, handle, RDMACHAN_OBJ_QP, struct rdmachan_qp)
#define rdmachan_srq_find(file, handle)					\
	rdmachan_verbs_find_as(file, handle, RDMACHAN_OBJ_SRQ,		\
			       struct rdmachan_srq)
#define rdmachan_ah_find(file, handle)					\
	rdmachan_verbs_find_as(file, handle, RDMACHAN_OBJ_AH, struct rdmachan_ah)

/* -ENOENT for no object, -ENODEV for one whose device went away. */
static inline int rdmachan_verbs_usable(struct rdmachan_verbs_obj *v)
{
	if (!v)
		return -ENOENT;
	return v->live ? 0 : -ENODEV;
}

/* Completion channels */
struct rdmachan_comp_channel *rdmachan_comp_channel_get(int fd);
void rdmachan_comp_channel_put(struct rdmachan_comp_channel *ch);
void rdmachan_comp_channel_notify(struct rdmachan_cq *cq);
void rdmachan_comp_channel_dying(struct rdmachan_cq *cq, bool dying);
int rdmachan_comp_channel_ack(struct rdmachan_cq *cq, u32 num);

/* Address vectors */
int rdmachan_ah_attr_from_user(struct ib_device *ibdev,
			       const struct rdmachan_ah_attr *src,
			       struct rdma_ah_attr *dst);
int rdmachan_resolve_dmac(struct ib_device *ibdev, struct rdma_ah_attr *ah);

/* Soft-RoCE, whose bugs some verbs keep away from (rxe_*.c, REG_MR) */
static inline bool rdmachan_device_is_rxe(const struct ib_device *ibdev)
{
	return ibdev->ops.driver_id == RDMA_DRIVER_RXE;
}

/* rxe's responder resources (rxe_rd_atomic.c) */
int rdmachan_rxe_rd_atomic_check(struct rdmachan_qp *qp, u32 mask,
				 unsigned int responder_resources);
void rdmachan_rxe_rd_atomic_done(struct rdmachan_qp *qp, u32 mask,
				 unsigned int responder_resources, int result);
int rdmachan_rxe_rd_atomic_connect_check(struct rdmachan_qp *qp);
void rdmachan_rxe_rd_atomic_connected(struct rdmachan_qp *qp);

/* rxe's completion tasklet (rxe_cq_tasklet.c) */
void rdmachan_rxe_cq_before_destroy(struct rdmachan_cq *cq);

/* a state no driver reports: the driver did not say */
#define RDMACHAN_QPS_UNKNOWN	((enum ib_qp_state)(IB_QPS_ERR + 1))

/*
 * @qp's state as its driver reports it. siw (6.1) reports none: the
 * attribute starts out of range, so that it reads as unknown, not stack.
 */
static inline int rdmachan_qp_query_state(struct ib_qp *qp,
					  enum ib_qp_state *state)
{
	struct ib_qp_attr attr = { .qp_state = RDMACHAN_QPS_UNKNOWN };
	struct ib_qp_init_attr init;
	int ret;

	ret = ib_query_qp(qp, &attr, IB_QP_STATE, &init);
	if (!ret)
		*state = attr.qp_state;
	return ret;
}

/* QPs found by number (qp_lookup.c); bypass mode's uverbs QPs */
void rdmachan_qp_event(struct ib_event *event, void *context);
struct rdma_restrack_entry *rdmachan_qp_num_hold(struct rdmachan_file *file,
						 struct ib_device *ibdev,
						 u32 qpn);
bool rdmachan_user_qp_supported(void);
struct ib_qp *rdmachan_user_qp_find(struct ib_device *ibdev, struct file *ufile,
				    u32 qpn, const struct ib_qp *bound);
struct ib_qp *rdmachan_user_qp_hold(struct rdmachan_cm_id *id);
void rdmachan_user_qp_put(struct ib_qp *qp);
int rdmachan_user_qp_state(struct rdmachan_cm_id *id, enum ib_qp_state *state);

/*
 * The QPs bound to a CM id (qp_binding.c): the module's own, made for it
 * (@qp), and in bypass mode a uverbs QP bound by number (@user_qp_*).
 */
enum rdmachan_qp_kind {
	RDMACHAN_QP_OWN,
	RDMACHAN_QP_UVERBS,
	RDMACHAN_QP_KINDS,
};

#define RDMACHAN_QP_ANY_KIND	(BIT(RDMACHAN_QP_KINDS) - 1)

/* What ended bindings held, let go of once the id's locks are dropped. */
struct rdmachan_qp_unbound {
	/* the own QP and its id, each with the binding's reference */
	struct rdmachan_qp *qp;
	struct rdmachan_cm_id *id;
	/* the uverbs file of a uverbs QP */
	struct file *ufile;
};

/* When the bound QPs go to ERR, which is what decides which of them do. */
enum rdmachan_qp_flush_when {
	/* a connect failed, or the id disconnects */
	RDMACHAN_QP_FLUSH_EARLY,
	/* the connection has ended: DISCONNECTED, REJECTED, DEVICE_REMOVAL */
	RDMACHAN_QP_FLUSH_ENDED,
};

/* With the id's mutex or its CM handler lock held. */
static inline bool rdmachan_qp_bound(const struct rdmachan_cm_id *id)
{
	return id->qp || id->user_qp_file;
}

void rdmachan_qp_unbind_id(struct rdmachan_cm_id *id, unsigned int kinds,
			   struct rdmachan_qp_unbound *ended);
void rdmachan_qp_unbound_release(struct rdmachan_qp_unbound *ended);
void rdmachan_bound_qp_flush(struct rdmachan_cm_id *id,
			     enum rdmachan_qp_flush_when when);
struct ib_qp *rdmachan_bound_qp_get(struct rdmachan_cm_id *id,
				    enum rdmachan_qp_kind kind);
void rdmachan_bound_qp_put(enum rdmachan_qp_kind kind, struct ib_qp *ib);
int rdmachan_bound_qp_move(struct rdma_cm_id *cm_id, struct ib_qp *ib,
			   enum ib_qp_state state);

/* The bound QP through CONNECT and ACCEPT (qp_connect.c) */
int rdmachan_bound_qp_connected(struct rdmachan_cm_id *id);

/*
 * What CONNECT and ACCEPT hold while the CM sends a QP's number: the id,
 * locked, with its CM handler lock, and the QP the number names (a bound
 * QP, found again, or one named by number), held until the message has
 * gone, so that the number cannot pass to another QP meanwhile.
 */
struct rdmachan_qp_send {
	struct rdmachan_cm_id *id;
	struct rdma_conn_param param;
	struct rdma_restrack_entry *named;
	struct ib_qp *bound[RDMACHAN_QP_KINDS];
};

int rdmachan_qp_send_begin(struct rdmachan_cm_id *id,
			   struct rdmachan_qp_send *send);
void rdmachan_qp_send_end(struct rdmachan_qp_send *send);
int rdmachan_qp_connect_begin(struct rdmachan_qp_send *send);
void rdmachan_qp_connect_end(struct rdmachan_qp_send *send, int ret);
int rdmachan_qp_accept_begin(struct rdmachan_qp_send *send);
void rdmachan_qp_accept_end(struct rdmachan_qp_send *send, int ret);

/* A QP's side of its binding to a CM id (qp_binding.c) */
int rdmachan_qp_create_for_id(struct rdmachan_file *file,
			      struct rdmachan_create_qp *cmd,
			      struct rdmachan_qp *qp,
			      struct ib_qp_init_attr *init);
struct rdmachan_cm_id *rdmachan_qp_lock_binding(struct rdmachan_qp *qp,
						bool *bound);
void rdmachan_qp_unlock_binding(struct rdmachan_cm_id *id, bool bound);
void rdmachan_qp_unbind(struct rdmachan_qp *qp);

/* A CQ's completions (cq_completions.c, verbs_cq.c) */
int rdmachan_cq_save_locked(struct rdmachan_cq *cq);
void rdmachan_cq_forget_gone(struct rdmachan_cq *cq);
void rdmachan_cq_settle(struct rdmachan_cq *cq);
void rdmachan_wc_from_ib(struct rdmachan_cq *cq, struct rdmachan_wc *dst,
			 const struct ib_wc *src, bool qps_held);

/* Completion rings (cq_ring.c) */
int rdmachan_cq_ring_create(struct rdmachan_cq *cq, u32 cqe);
void rdmachan_cq_ring_put(struct rdmachan_cq *cq);
void rdmachan_cq_ring_describe(struct rdmachan_cq *cq,
			       struct rdmachan_create_cq *cmd);
void rdmachan_cq_ring_start(struct rdmachan_cq *cq);
void rdmachan_cq_ring_stop(struct rdmachan_cq *cq);
void rdmachan_cq_ring_comp_handler(struct rdmachan_cq *cq);
int rdmachan_cq_ring_save(struct rdmachan_cq *cq);
int rdmachan_cq_ring_mmap(struct rdmachan_file *file,
			  struct vm_area_struct *vma);
int rdmachan_cq_add_qp(struct rdmachan_cq *cq, struct ib_qp *ibqp);
void rdmachan_cq_qp_gone(struct rdmachan_cq *cq, struct ib_qp *ibqp);

/* Asynchronous events */
struct rdmachan_async_queue *rdmachan_async_queue_new(struct rdmachan_device *dev,
						      struct pid *owner);
void rdmachan_async_queue_put(struct rdmachan_async_queue *q);
void rdmachan_async_queue_close(struct rdmachan_async_queue *q);
void rdmachan_async_obj_init(struct rdmachan_async_obj *ao,
			     struct rdmachan_verbs_obj *v, u32 element,
			     struct rdmachan_async_queue *q, u64 user_context);
void rdmachan_async_obj_release(struct rdmachan_async_obj *ao);
void rdmachan_async_report(struct rdmachan_async_obj *ao, u32 type);
void rdmachan_async_obj_dying(struct rdmachan_async_obj *ao, bool dying);
int rdmachan_async_obj_wait(struct rdmachan_async_obj *ao, const char *what);
void rdmachan_async_obj_query(struct rdmachan_async_obj *ao,
			      struct rdmachan_query_async_events *out);
const char *rdmachan_async_event_name(u32 type);
void rdmachan_async_device_add(struct rdmachan_device *dev,
			       struct ib_device *ibdev);
void rdmachan_async_device_remove(struct rdmachan_device *dev);

/* Multicast */
int rdmachan_mcast_joined(struct rdmachan_cm_id *id, struct rdmachan_mcast *mc,
			  struct rdma_cm_event *event);

/* The async state of a QP, CQ or SRQ; NULL for other objects. */
static inline struct rdmachan_async_obj *
rdmachan_async_obj_of(struct rdmachan_object *obj)
{
	switch (obj->type) {
	case RDMACHAN_OBJ_QP:
		return &container_of(obj, struct rdmachan_qp, v.obj)->async;
	case RDMACHAN_OBJ_CQ:
		return &container_of(obj, struct rdmachan_cq, v.obj)->async;
	case RDMACHAN_OBJ_SRQ:
		return &container_of(obj, struct rdmachan_srq, v.obj)->async;
	default:
		return NULL;
	}
}

#endif /* RDMACHAN_VERBS_H */
