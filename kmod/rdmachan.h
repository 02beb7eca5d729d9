/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: internal structures shared by the module's files.
 */
#ifndef RDMACHAN_KMOD_H
#define RDMACHAN_KMOD_H

#include <linux/cgroup_rdma.h>
#include <linux/types.h>
#include <linux/irq_poll.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../uapi/rdmachan.h"
#include "compat/compat.h"
#include "names.h"

/*
 * Lock order. A lock is taken only while holding locks above it on its
 * own line of descent, never the other way round; locks on separate
 * branches are not held together.
 *
 *   rdmachan_files_lock (mutex; device removal's walk of the open files)
 *     rdmachan_cm_id.lock, and what is below it
 *   rdmachan_file.verbs_lock (rwsem)
 *     rdmachan_device.removal_lock (rwsem, read: rdmachan_device_enter())
 *       rdmachan_cm_id.lock (mutex)
 *         the CM's handler lock of the id (rdma_lock_handler(); the CM
 *         holds it around rdmachan_cm_event_handler(): for a connect
 *         request the listen id's, then the new id's)
 *           rdmachan_cm_id.request_lock (mutex)
 *             rdmachan_file.events_lock (spinlock; of two files, the
 *             one at the lower address first)
 *               rdmachan_cm_id.ack_lock, xa_lock(rdmachan_file.objects)
 *           rdmachan_qp.modify_lock (mutex), rdmachan_qp.bind_lock
 *         rdmachan_cm_id.ack_lock
 *       rdmachan_cq.poll_lock (mutex)
 *         rdmachan_cq.ring_lock (irq-safe) -> the driver's CQ lock (the
 *         driver's completion handler, which may hold that lock, takes
 *         none of ours)
 *         xa_lock(rdmachan_cq.qps)
 *       rdmachan_device.verbs_lock, rdmachan_device.charge_lock (mutexes),
 *       xa_lock(rdmachan_pd.mrs), rdmachan_event_queue.lock (irq-safe;
 *       a completion channel's or an async queue's)
 *   rdmachan_file.ack_lock (mutex)
 *     mmap_lock (GET_EVENTS' write that says its acks are taken)
 *     xa_lock(rdmachan_file.delivered), rdmachan_cm_id.ack_lock
 *   rdmachan_device.async_lock (mutex; also under ib_core's event
 *   handler rwsem) -> an async queue's rdmachan_event_queue.lock
 *   rdmachan_devices_lock (mutex) -> xa_lock(rdmachan_devices)
 *
 * rdma_destroy_id() and cancel_work_sync() of an id's removal work wait
 * for the CM's handlers: they are called with none of these held. The
 * handler lock is the CM's own and cannot be asserted; functions that
 * need it say so. Copies to and from userspace and page pinning take
 * mmap_lock under verbs_lock, removal_lock and poll_lock; mmap() takes
 * only xa_lock(objects) under it. Device removal (ib_core's remove
 * callback) takes these one after another, each from the top of its line.
 */

/*
 * Verbs objects are torn down in this order when their device goes away
 * or their file closes, so that no object outlives one it depends on.
 */
enum rdmachan_verbs_rank {
	RDMACHAN_RANK_QP,
	RDMACHAN_RANK_AH,
	RDMACHAN_RANK_SRQ,
	RDMACHAN_RANK_MR,
	RDMACHAN_RANK_CQ,
	RDMACHAN_RANK_PD,
	RDMACHAN_VERBS_RANKS,
};

/*
 * One per IB device the module has seen. Files hold references to it;
 * the IB device itself may go away first, which sets @ibdev to NULL under
 * @removal_lock held for write. Anyone calling into the device holds
 * @removal_lock for read and checks @ibdev (rdmachan_device_enter()).
 */
struct rdmachan_device {
	struct kref ref;
	struct rw_semaphore removal_lock;
	struct ib_device *ibdev;
	u32 index;
	/* live verbs objects on the device, by teardown rank, newest first */
	struct mutex verbs_lock;
	struct list_head verbs[RDMACHAN_VERBS_RANKS];
	/* port and device events go to @async_queues */
	struct ib_event_handler event_handler;
	/* guards @async_queues and @async_removed */
	struct mutex async_lock;
	struct list_head async_queues;
	/* the device went away: DEVICE_FATAL was queued, no queue joins */
	bool async_removed;
	/* guards @charges, the RDMA cgroup charges held on the device */
	struct mutex charge_lock;
	struct list_head charges;
};

/*
 * An RDMA cgroup charge of a device context or verbs object (rdma_cgroup.c).
 * Charged while @ibdev is set, under the device's charge_lock.
 */
struct rdmachan_charge {
#ifdef CONFIG_CGROUP_RDMA
	struct list_head dev_entry;
	struct rdma_cgroup *cg;
	struct ib_device *ibdev;
	enum rdmacg_resource_type type;
#endif
};

#ifdef CONFIG_CGROUP_RDMA
int rdmachan_charge(struct rdmachan_device *dev, struct ib_device *ibdev,
		    struct rdmachan_charge *c, enum rdmacg_resource_type type);
void rdmachan_uncharge(struct rdmachan_device *dev, struct rdmachan_charge *c);
void rdmachan_uncharge_device(struct rdmachan_device *dev);
#else
static inline int rdmachan_charge(struct rdmachan_device *dev,
				  struct ib_device *ibdev,
				  struct rdmachan_charge *c,
				  enum rdmacg_resource_type type)
{
	return 0;
}

static inline void rdmachan_uncharge(struct rdmachan_device *dev,
				     struct rdmachan_charge *c)
{
}

static inline void rdmachan_uncharge_device(struct rdmachan_device *dev)
{
}
#endif

/*
 * What the layers above do as a device comes and goes. main.c hands them
 * to rdmachan_devices_init(), so the device layer names no feature.
 */
struct rdmachan_device_hooks {
	/* before the device is visible: its events are listened to */
	void (*adding)(struct rdmachan_device *dev, struct ib_device *ibdev);
	/* before the cut-off; also undoes @adding when the add fails */
	void (*removing)(struct rdmachan_device *dev);
	/* after @removing, before the cut-off: the CM ids hear of it */
	void (*removing_ids)(struct ib_device *ibdev);
	/* after the cut-off: every object on the device goes */
	void (*removed)(struct rdmachan_device *dev);
};

int rdmachan_devices_init(const struct rdmachan_device_hooks *hooks);
void rdmachan_devices_exit(void);
struct rdmachan_device *rdmachan_device_get_by_index(u32 index);
bool rdmachan_device_published(const struct ib_device *ibdev);
bool rdmachan_device_visible(struct ib_device *ibdev);
void rdmachan_device_put(struct rdmachan_device *dev);
struct ib_device *rdmachan_device_enter(struct rdmachan_device *dev);
void rdmachan_device_exit(struct rdmachan_device *dev);

/* Threads of a file whose last CQ polled is remembered (a power of 2). */
#define RDMACHAN_POLL_THREADS_BITS	6
#define RDMACHAN_POLL_THREADS		BIT(RDMACHAN_POLL_THREADS_BITS)

/*
 * One per open() of /dev/rdmachan; it is also the event channel of the CM
 * ids it holds. A CM event waits on @events until it is read, then sits in
 * @delivered under its event handle until it is acknowledged.
 */
struct rdmachan_file {
	/* held by the open file and by device removal while it works on it */
	struct kref ref;
	/* in the list of open files, from open() to release() */
	struct list_head list;
	struct xarray objects;
	u32 next_handle;
	struct pid *owner;
	/* the opener's memory cgroup, a reference; NULL without memcg */
	struct mem_cgroup *memcg;
	/* rdmachan/files/<tgid>-<n> in debugfs: this file's objects */
	struct dentry *debugfs;
	/* guards @events and the ids' @dead flags */
	spinlock_t events_lock;
	struct list_head events;
	wait_queue_head_t events_wait;
	struct xarray delivered;
	u32 next_event_handle;
	/* makes a batch of acks all-or-nothing */
	struct mutex ack_lock;
	/*
	 * Read: an ioctl uses the file's verbs objects. Write: one of them is
	 * torn down. A verbs object found under it stays valid until
	 * up_read(), so the data path takes no references.
	 */
	struct rw_semaphore verbs_lock;
	/*
	 * Per thread, by a hash of its pid: pid << 32 | the CQ handle of its
	 * last RDMACHAN_IOC_POLL_CQ. Unlocked: two threads on one slot only
	 * keep each other from busy polling.
	 */
	u64 last_poll[RDMACHAN_POLL_THREADS];
};

/*
 * Memory that a user's call leaves behind (objects, handles, queued
 * events): charged to the caller's memory cgroup, and at the cgroup's
 * limit the call fails with -ENOMEM instead of invoking the OOM killer.
 * Allocations made for a file outside its calls (CM and async event
 * handlers) are charged to the file's @memcg through set_active_memcg().
 */
#define RDMACHAN_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

/*
 * Whether the caller is the process that opened a file whose opener is
 * @owner: like ucma and uverbs, a file is refused to any other process.
 */
static inline bool rdmachan_caller_owns(const struct pid *owner)
{
	return task_tgid(current) == owner;
}

void rdmachan_file_get(struct rdmachan_file *file);
void rdmachan_file_put(struct rdmachan_file *file);
void rdmachan_file_list_add(struct rdmachan_file *file);
void rdmachan_file_list_del(struct rdmachan_file *file);
void rdmachan_files_for_each(void (*fn)(struct rdmachan_file *file,
					void *arg), void *arg);
/* the operations of /dev/rdmachan files, which tell them apart */
extern const struct file_operations rdmachan_fops;
struct rdmachan_file *rdmachan_file_of(struct file *filp,
				       const struct rdmachan_file *file);

/* Live-object counters (counters.c), shown in debugfs. */
enum rdmachan_counter {
	RDMACHAN_COUNT_FILES,
	RDMACHAN_COUNT_DEVICES,
	RDMACHAN_COUNT_CONTEXTS,
	RDMACHAN_COUNT_CM_IDS,
	RDMACHAN_COUNT_CM_EVENTS,
	RDMACHAN_COUNT_COMP_CHANNELS,
	RDMACHAN_COUNT_PDS,
	RDMACHAN_COUNT_MRS,
	RDMACHAN_COUNT_CQS,
	RDMACHAN_COUNT_QPS,
	RDMACHAN_COUNT_SRQS,
	RDMACHAN_COUNT_AHS,
	RDMACHAN_COUNT_MCASTS,
	RDMACHAN_COUNT_ASYNC_FDS,
	RDMACHAN_COUNT_ASYNC_EVENTS,
	RDMACHAN_COUNT_CQ_RINGS,
	RDMACHAN_COUNT_USER_QPS,
	RDMACHAN_NR_COUNTERS,
};

void rdmachan_count_inc(enum rdmachan_counter counter);
void rdmachan_count_dec(enum rdmachan_counter counter);
int rdmachan_count_read(enum rdmachan_counter counter);

#include "objects.h"

struct rdmachan_context {
	struct rdmachan_object obj;
	struct rdmachan_device *dev;
	/* its asynchronous event queue, with a reference */
	struct rdmachan_async_queue *async;
	/* an hca_handle of the opener's RDMA cgroup */
	struct rdmachan_charge charge;
};

#define RDMACHAN_CM_EVENT_TYPES	(RDMA_CM_EVENT_TIMEWAIT_EXIT + 1)

/* QP numbers and packet sequence numbers are 24 bits on the wire */
#define RDMACHAN_QPN_MASK	0xffffff
#define RDMACHAN_PSN_MASK	0xffffff

enum rdmachan_conn_end {
	RDMACHAN_CONN_NONE,
	/* CONNECT was made, its REQ is out: nothing to answer yet */
	RDMACHAN_CONN_ACTIVE,
	/* CONNECT_RESPONSE came: ESTABLISH may follow once */
	RDMACHAN_CONN_REPLIED,
	/* made for a connect request: ACCEPT or REJECT may follow once */
	RDMACHAN_CONN_REQUEST,
	/* the request was answered, or the RTU sent */
	RDMACHAN_CONN_ANSWERED,
};

/*
 * Where a CM id is, as rdmachan saw it: set by the calls that move it
 * before they reach the CM (their event may come first) and by the
 * events it queues. Shown in fdinfo; nothing decides by it.
 */
enum rdmachan_cm_id_state {
	RDMACHAN_ID_IDLE = 1,
	RDMACHAN_ID_BOUND,
	RDMACHAN_ID_RESOLVING_ADDR,
	RDMACHAN_ID_ADDR_RESOLVED,
	RDMACHAN_ID_ADDR_ERROR,
	RDMACHAN_ID_RESOLVING_ROUTE,
	RDMACHAN_ID_ROUTE_RESOLVED,
	RDMACHAN_ID_ROUTE_ERROR,
	RDMACHAN_ID_LISTENING,
	RDMACHAN_ID_CONNECTING,
	RDMACHAN_ID_REQUEST,
	RDMACHAN_ID_ACCEPTING,
	RDMACHAN_ID_CONNECTED,
	RDMACHAN_ID_DISCONNECTING,
	RDMACHAN_ID_DISCONNECTED,
	RDMACHAN_ID_REJECTED,
	RDMACHAN_ID_UNREACHABLE,
	RDMACHAN_ID_CONNECT_ERROR,
	RDMACHAN_ID_DEVICE_REMOVED,
	RDMACHAN_ID_STATES,
};

/*
 * A CM id. The kernel rdma_cm_id is used under @lock and only while
 * @cm_id is set; it is torn down (rdma_destroy_id()) on destroy, on file
 * release, and from @removal_work when its device goes away. @file and
 * @handle change only in migrate, under the CM's handler lock and both
 * files' @events_lock.
 */
struct rdmachan_cm_id {
	struct rdmachan_object obj;
	struct rdmachan_file *file;
	u32 handle;
	u64 user_context;
	/* serializes CM calls and teardown; guards @cm_id */
	struct mutex lock;
	struct rdma_cm_id *cm_id;
	struct work_struct removal_work;
	/* connect requests that may still be queued on a listener */
	atomic_t backlog;
	/*
	 * A listener's connect requests get their new id and are queued under
	 * it, and a migrate moves the id under it: a wildcard listener's
	 * requests come through the CM's listen id of each device, whose
	 * handler lock is not this id's.
	 */
	struct mutex request_lock;
	/* set under file->events_lock: no more events are queued or read */
	bool dead;
	/*
	 * The id's entries on its file's queue, under file->events_lock: a
	 * destroy, leave or migrate walks its own events, not the file's.
	 */
	struct list_head queued;
	/* events being read or read and not yet acknowledged, under @ack_lock */
	spinlock_t ack_lock;
	unsigned int unacked;
	unsigned int unacked_by_type[RDMACHAN_CM_EVENT_TYPES];
	wait_queue_head_t ack_wait;
	/* a destroy waits on @ack_wait: shown by introspection */
	bool destroy_waiting;
	/*
	 * The module's own device removal queued DEVICE_REMOVAL, the id's
	 * last event; set under the CM's handler lock.
	 */
	bool removal_reported;
	/* an enum rdmachan_cm_id_state; see there */
	u32 state;
	/*
	 * Past the states where rdma_resolve_addr() is allowed: set under
	 * @lock, cleared by ADDR_ERROR. The CM writes bound_dev_if for a
	 * link-local destination before it checks the state, and an id in
	 * its route tree must keep its key.
	 */
	bool addr_fixed;
	/*
	 * RESOLVE_ADDR's resolution has not been reported yet: set under
	 * @lock, cleared when its ADDR_RESOLVED or ADDR_ERROR is queued.
	 * 6.1's CM takes rdma_listen() between its failure and the event,
	 * so LISTEN is refused meanwhile.
	 */
	bool addr_resolving;
	/*
	 * Which end of a connection the id is (an enum rdmachan_conn_end),
	 * and whether it was answered. 6.1's CM answers an ACCEPT, REJECT or
	 * ESTABLISH made at the wrong end, too early or twice with a REJ of
	 * the connection, and leaves the id's REQ or REP retrying: destroying
	 * the id then waits 70-100 s for it. The module refuses those calls.
	 * Changed under @lock, and by the CM event handler, which cannot
	 * take @lock: from ACTIVE to REPLIED (cmpxchg), or to ANSWERED when
	 * the module itself completed a bound uverbs QP's connection. Set
	 * once to REQUEST when an id is made for a connect request.
	 */
	atomic_t conn_end;
	/* the QP made for the id; changes under @lock and the handler lock */
	struct rdmachan_qp *qp;
	/*
	 * Bypass mode: a uverbs QP bound by number, and the uverbs file it
	 * was made on, a reference (qp_binding.c); under the same locks.
	 * @user_qp is only compared, never followed: a QP that took over the
	 * number after the bound one was destroyed is not the bound one.
	 */
	struct file *user_qp_file;
	u32 user_qp_num;
	const struct ib_qp *user_qp;
	/* joins the CM may still report, each with a reference; under @lock */
	struct list_head mcasts;
};

/* A CM event from the queue until its acknowledgment. */
struct rdmachan_cm_event_entry {
	/* on the file's queue and its id's @queued, or on neither */
	struct list_head list;
	struct list_head id_entry;
	/* holds a reference; the listener for a connect request */
	struct rdmachan_cm_id *id;
	/* a connect request's new id, owned by the event until it is read */
	struct rdmachan_cm_id *new_id;
	/* the join of a multicast event, with a reference */
	struct rdmachan_mcast *mcast;
	/*
	 * When it was queued, and when it was read: the tick's time, which
	 * reads no clock (an HPET read traps to the hypervisor). An age
	 * counts to a precise now, so it is never short.
	 */
	u64 queued_ns;
	u64 read_ns;
	struct rdmachan_cm_event uevent;
};

const char *rdmachan_cm_id_state_name(u32 state);
void rdmachan_cm_id_set_state(struct rdmachan_cm_id *id, u32 state);
u32 rdmachan_cm_id_begin_state(struct rdmachan_cm_id *id, u32 state);
void rdmachan_cm_id_end_state(struct rdmachan_cm_id *id, u32 old, u32 state,
			      int ret);
void rdmachan_cm_id_event_state(struct rdmachan_cm_id *id, u32 event);
int rdmachan_cm_event_handler(struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *event);
void rdmachan_cm_device_removal(struct ib_device *ibdev);
struct rdmachan_cm_id *rdmachan_cm_id_alloc(struct rdmachan_file *file);
struct rdmachan_cm_id *rdmachan_cm_id_new_child(struct rdmachan_cm_id *listen,
						struct rdma_cm_id *cm_id);
void rdmachan_cm_queue(struct rdmachan_file *file,
		       struct rdmachan_cm_event_entry *entry);
void rdmachan_cm_fill_route(struct rdma_cm_id *cm_id,
			    struct rdmachan_cm_route *route);
void rdmachan_cm_fill_ah_attr(const struct rdma_ah_attr *src,
			      struct rdmachan_ah_attr *dst);
void rdmachan_cm_drop_events(struct rdmachan_cm_id *id);
void rdmachan_cm_drop_mcast_events(struct rdmachan_mcast *mc);
int rdmachan_cm_wait_acks(struct rdmachan_cm_id *id, bool *waiting);
bool rdmachan_cm_events_pending(struct rdmachan_file *file);
void rdmachan_cm_file_init(struct rdmachan_file *file);
void rdmachan_cm_file_release(struct rdmachan_file *file);
int rdmachan_cm_id_lock_fd(struct rdmachan_file *file, int fd, u32 handle,
			   struct rdmachan_cm_id **idp);
struct rdmachan_cm_id *rdmachan_cm_id_lock(struct rdmachan_file *file,
					   u32 handle);
void rdmachan_cm_id_unlock(struct rdmachan_cm_id *id);
void rdmachan_format_types(char *buf, size_t len, const unsigned int *by_type,
			   unsigned int ntypes, const char *(*name)(u32 type));
int rdmachan_wait_acks(wait_queue_head_t *wq, unsigned int *count,
		       bool *waiting, const char *what, u32 handle,
		       void (*describe)(void *arg, char *buf, size_t len),
		       void *arg);

/*
 * One ioctl in progress. A command that creates an object reserves its
 * handle and leaves the object in @new_obj; the dispatcher publishes it
 * once the reply reached userspace, and drops it otherwise, so a failed
 * call leaves nothing behind.
 */
struct rdmachan_call {
	struct file *filp;
	/*
	 * The caller's argument. A handler that writes its own results takes
	 * it as its command's struct, and only fields of the first layout,
	 * which every accepted argument holds.
	 */
	void __user *uarg;
	struct rdmachan_file *file;
	struct rdmachan_object *new_obj;
	u32 new_handle;
};

int rdmachan_object_alloc_handle(struct rdmachan_file *file, u32 *handle);
int rdmachan_object_reserve(struct rdmachan_call *call,
			    struct rdmachan_object *obj, u32 *handle);
void rdmachan_object_publish(struct rdmachan_call *call);
void rdmachan_object_abort(struct rdmachan_call *call);
struct rdmachan_object *rdmachan_object_get(struct rdmachan_file *file,
					    u32 handle,
					    enum rdmachan_object_type type);
void rdmachan_object_put(struct rdmachan_object *obj);
void rdmachan_objects_release(struct rdmachan_file *file);

/* ioctl handlers: @arg is the kernel copy of the user's struct. */
int rdmachan_cmd_get_info(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_list_devices(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_open_device(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_destroy(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_device(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_port(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_gid(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_create_id(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_bind_addr(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_resolve_addr(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_resolve_route(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_listen(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_connect(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_accept(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_reject(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_disconnect(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_establish(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_notify(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_get_events(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_ack_events(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_set_option(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_init_qp_attr(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_migrate_id(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_create_comp_channel(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_alloc_pd(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_reg_mr(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_create_cq(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_req_notify_cq(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_ack_cq_events(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_poll_cq(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_create_qp(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_modify_qp(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_qp(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_post_send(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_post_recv(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_create_srq(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_modify_srq(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_srq(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_post_srq_recv(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_create_ah(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_join_mcast(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_open_async_fd(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_ack_async_event(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_update_cq_ring(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_bind_user_qp(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_events(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_async_events(struct rdmachan_call *call, void *arg);

/* An id bound to an iWARP device: its QP is moved by iw_cm, not the CM. */
static inline bool rdmachan_cm_id_iwarp(struct rdma_cm_id *cm_id)
{
	return cm_id->device &&
	       rdma_protocol_iwarp(cm_id->device, cm_id->port_num);
}

/* debugfs.c: the counters, and an entry per open file */
struct seq_file;
void rdmachan_debugfs_init(void (*show_unacked)(struct seq_file *s,
						struct rdmachan_file *file));
void rdmachan_debugfs_exit(void);
void rdmachan_debugfs_add_file(struct rdmachan_file *file);
void rdmachan_debugfs_remove_file(struct rdmachan_file *file);

#include "verbs.h"

#endif /* RDMACHAN_KMOD_H */
