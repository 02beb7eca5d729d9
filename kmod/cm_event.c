// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: CM event queues and their acknowledgment.
 *
 * The CM's handler turns each event into an entry on the file's queue. A
 * reader takes entries off the queue, gives each an event handle in the
 * file's @delivered xarray and counts it as unacknowledged on its id; the
 * ack erases the handle and uncounts it. Destroy waits for the count to
 * reach zero; closing the file forgets whatever is left.
 */
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

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

static void rdmachan_cm_fill_event(struct rdmachan_cm_event *uevent,
				   struct rdma_cm_id *cm_id,
				   const struct rdma_cm_event *event)
{
	const struct rdma_conn_param *conn = &event->param.conn;
	const struct rdma_ud_param *ud = &event->param.ud;
	const void *private_data;
	u8 len;

	uevent->event = event->event;
	uevent->status = event->status;
	uevent->valid = RDMACHAN_CM_EVENT_ROUTE;
	rdmachan_cm_fill_route(cm_id, &uevent->route);

	if (cm_id->qp_type == IB_QPT_UD) {
		uevent->valid |= RDMACHAN_CM_EVENT_UD;
		rdmachan_cm_fill_ah_attr(&ud->ah_attr, &uevent->ah_attr);
		uevent->qp_num = ud->qp_num;
		uevent->qkey = ud->qkey;
		private_data = ud->private_data;
		len = ud->private_data_len;
	} else {
		uevent->valid |= RDMACHAN_CM_EVENT_CONN;
		uevent->qp_num = conn->qp_num;
		uevent->responder_resources = conn->responder_resources;
		uevent->initiator_depth = conn->initiator_depth;
		uevent->flow_control = conn->flow_control;
		uevent->retry_count = conn->retry_count;
		uevent->rnr_retry_count = conn->rnr_retry_count;
		uevent->srq = conn->srq;
		private_data = conn->private_data;
		len = conn->private_data_len;
	}
	if (private_data && len) {
		uevent->private_data_len = len;
		memcpy(uevent->private_data, private_data, len);
	}
}

static void rdmachan_cm_queue(struct rdmachan_file *file,
			      struct rdmachan_cm_event_entry *entry)
{
	u32 type = entry->uevent.event;

	rdmachan_count_inc(RDMACHAN_COUNT_CM_EVENTS);
	entry->queued_ns = ktime_get_ns();
	if (type != RDMA_CM_EVENT_CONNECT_REQUEST)
		rdmachan_cm_id_event_state(entry->id, type);
	spin_lock(&file->events_lock);
	list_add_tail(&entry->list, &file->events);
	/* Whoever sees the resolution over finds its event queued. */
	if (type == RDMA_CM_EVENT_ADDR_RESOLVED ||
	    type == RDMA_CM_EVENT_ADDR_ERROR)
		WRITE_ONCE(entry->id->addr_resolving, false);
	spin_unlock(&file->events_lock);
	wake_up_interruptible(&file->events_wait);
}

static int rdmachan_cm_connect_request(struct rdmachan_cm_id *listen,
				       struct rdma_cm_id *cm_id,
				       struct rdma_cm_event *event)
{
	struct rdmachan_cm_event_entry *entry;
	struct mem_cgroup *old_memcg;

	/* Beyond the backlog a request is refused, not queued. */
	if (!atomic_add_unless(&listen->backlog, -1, 0))
		return -ENOMEM;
	/* The new id's handle and the request go to one file. */
	mutex_lock(&listen->request_lock);
	old_memcg = set_active_memcg(listen->file->memcg);
	entry = kzalloc(sizeof(*entry), RDMACHAN_GFP);
	if (entry)
		entry->new_id = rdmachan_cm_id_new_child(listen, cm_id);
	set_active_memcg(old_memcg);
	if (!entry || !entry->new_id)
		goto err_entry;
	kref_get(&listen->obj.ref);
	entry->id = listen;
	rdmachan_cm_fill_event(&entry->uevent, cm_id, event);
	rdmachan_cm_queue(listen->file, entry);
	mutex_unlock(&listen->request_lock);
	return 0;

err_entry:
	mutex_unlock(&listen->request_lock);
	kfree(entry);
	atomic_inc(&listen->backlog);
	/* The CM destroys the new rdma_cm_id and rejects the request. */
	return -ENOMEM;
}

/* The CM's event handler of every id; it runs under the id's handler lock. */
int rdmachan_cm_event_handler(struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *event)
{
	struct rdmachan_cm_id *id = cm_id->context;
	struct rdmachan_cm_event_entry *entry;
	struct mem_cgroup *old_memcg;
	struct rdmachan_mcast *mc;
	int ret;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return rdmachan_cm_connect_request(id, cm_id, event);

	/*
	 * Every other event must reach userspace; it is small enough. It is
	 * charged to the opener's cgroup but at its limit: forced, the
	 * charge would leave the cgroup over it, and the process's next
	 * page fault to the OOM killer.
	 */
	old_memcg = set_active_memcg(id->file->memcg);
	entry = kzalloc(sizeof(*entry), RDMACHAN_GFP | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (!entry)
		entry = kzalloc(sizeof(*entry), GFP_KERNEL | __GFP_NOFAIL);
	kref_get(&id->obj.ref);
	entry->id = id;
	rdmachan_cm_fill_event(&entry->uevent, cm_id, event);

	switch (event->event) {
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rdmachan_user_qp_modify(id, IB_QPS_ERR);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * The QP has flushed its work requests when this is read.
		 * Only this id's own QP: when the CM disconnects it as a
		 * stale connection, a REQ named its QP number, which only a
		 * file owning the QP may send (rdmachan_qp_num_usable()),
		 * or the peer restarted and the connection is dead anyway.
		 */
		rdmachan_qp_error(id);
		rdmachan_user_qp_modify(id, IB_QPS_ERR);
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		mc = (struct rdmachan_mcast *)event->param.ud.private_data;
		kref_get(&mc->obj.ref);
		entry->mcast = mc;
		entry->uevent.mcast_handle = mc->handle;
		entry->uevent.mcast_context = mc->user_context;
		ret = rdmachan_mcast_joined(id, mc, event);
		if (ret) {
			entry->uevent.event = RDMA_CM_EVENT_MULTICAST_ERROR;
			entry->uevent.status = ret;
		}
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		ret = rdmachan_user_qp_connected(id);
		if (ret > 0) {
			/* The REP came: ESTABLISH may send the RTU. */
			atomic_cmpxchg(&id->conn_end, RDMACHAN_CONN_ACTIVE,
				       RDMACHAN_CONN_REPLIED);
			break;
		}
		/* A bound uverbs QP: the module sent the RTU, or rejected. */
		atomic_set(&id->conn_end, RDMACHAN_CONN_ANSWERED);
		entry->uevent.event = ret ? RDMA_CM_EVENT_CONNECT_ERROR :
					    RDMA_CM_EVENT_ESTABLISHED;
		entry->uevent.status = ret;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		/*
		 * The CM is back where it takes rdma_resolve_addr(), unless
		 * this error is a SIDR reply's, which leaves the id connecting.
		 */
		if (READ_ONCE(id->addr_resolving))
			WRITE_ONCE(id->addr_fixed, false);
		break;
	default:
		break;
	}
	rdmachan_cm_queue(id->file, entry);

	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		kref_get(&id->obj.ref);
		if (!queue_work(system_unbound_wq, &id->removal_work))
			rdmachan_object_put(&id->obj);
	}
	return 0;
}

static void rdmachan_cm_event_free(struct rdmachan_cm_event_entry *entry)
{
	struct rdmachan_cm_id *new_id = entry->new_id;

	if (new_id) {
		/* A request nobody read: its new id goes, which rejects it. */
		rdmachan_cm_id_kill(new_id);
		xa_erase(&new_id->file->objects, new_id->handle);
		rdmachan_object_put(&new_id->obj);
		atomic_inc(&entry->id->backlog);
	}
	if (entry->mcast)
		rdmachan_mcast_put(entry->mcast);
	rdmachan_object_put(&entry->id->obj);
	kfree(entry);
	rdmachan_count_dec(RDMACHAN_COUNT_CM_EVENTS);
}

/* After the join was left: its unread events go. */
void rdmachan_cm_drop_mcast_events(struct rdmachan_mcast *mc)
{
	struct rdmachan_file *file = mc->id->file;
	struct rdmachan_cm_event_entry *entry, *tmp;
	LIST_HEAD(dropped);

	spin_lock(&file->events_lock);
	list_for_each_entry_safe(entry, tmp, &file->events, list)
		if (entry->mcast == mc)
			list_move_tail(&entry->list, &dropped);
	spin_unlock(&file->events_lock);

	list_for_each_entry_safe(entry, tmp, &dropped, list)
		rdmachan_cm_event_free(entry);
}

/* After its kernel id is gone: the id's unread events go, none come. */
void rdmachan_cm_drop_events(struct rdmachan_cm_id *id)
{
	struct rdmachan_file *file = id->file;
	struct rdmachan_cm_event_entry *entry, *tmp;
	LIST_HEAD(dropped);

	spin_lock(&file->events_lock);
	id->dead = true;
	list_for_each_entry_safe(entry, tmp, &file->events, list)
		if (entry->id == id)
			list_move_tail(&entry->list, &dropped);
	spin_unlock(&file->events_lock);

	list_for_each_entry_safe(entry, tmp, &dropped, list)
		rdmachan_cm_event_free(entry);
}

bool rdmachan_cm_events_pending(struct rdmachan_file *file)
{
	bool pending;

	spin_lock(&file->events_lock);
	pending = !list_empty(&file->events);
	spin_unlock(&file->events_lock);
	return pending;
}

/* Counts a read event on its id, and on its multicast join. */
static void rdmachan_cm_account(struct rdmachan_cm_event_entry *entry,
				int delta)
{
	struct rdmachan_cm_id *id = entry->id;
	u32 type = entry->uevent.event;

	spin_lock(&id->ack_lock);
	id->unacked += delta;
	if (type < RDMACHAN_CM_EVENT_TYPES)
		id->unacked_by_type[type] += delta;
	if (entry->mcast)
		entry->mcast->unacked += delta;
	spin_unlock(&id->ack_lock);
	if (delta < 0)
		wake_up(&id->ack_wait);
}

/*
 * Puts a taken event back and uncounts it in one step under the queue's
 * lock: a migrate of its id checks both under it, so it cannot slip in
 * between and leave the event on the file the id has left.
 */
static void rdmachan_cm_requeue(struct rdmachan_file *file,
				struct rdmachan_cm_event_entry *entry)
{
	bool dead;

	spin_lock(&file->events_lock);
	rdmachan_cm_account(entry, -1);
	dead = entry->id->dead;
	if (!dead)
		list_add(&entry->list, &file->events);
	spin_unlock(&file->events_lock);
	if (dead)
		rdmachan_cm_event_free(entry);
}

/*
 * Hands the oldest event to userspace at @dst and sets the caller's
 * @count to @new_count. Returns 1 when it did, 0
 * when the event's id died meanwhile (the event is dropped), -EAGAIN when
 * the queue is empty, or an error with the event back on the queue.
 */
static int rdmachan_cm_deliver(struct rdmachan_file *file, void __user *dst,
			       u32 size, u32 __user *count, u32 new_count)
{
	struct rdmachan_cm_event_entry *entry;
	struct rdmachan_cm_event *uevent;
	struct rdmachan_cm_id *id;
	u32 handle;
	int ret;

	spin_lock(&file->events_lock);
	entry = list_first_entry_or_null(&file->events,
					 struct rdmachan_cm_event_entry, list);
	if (entry) {
		list_del_init(&entry->list);
		/*
		 * Named and counted while still on this file's queue: a
		 * migrate of the id waits for an event being read.
		 */
		entry->uevent.id_handle = entry->id->handle;
		entry->read_ns = ktime_get_ns();
		rdmachan_cm_account(entry, 1);
	}
	spin_unlock(&file->events_lock);
	if (!entry)
		return -EAGAIN;
	id = entry->id;
	uevent = &entry->uevent;

	ret = xa_alloc_cyclic(&file->delivered, &handle, NULL, xa_limit_31b,
			      &file->next_event_handle, RDMACHAN_GFP);
	if (ret < 0)
		goto err_requeue;
	uevent->event_handle = handle;
	uevent->user_context = READ_ONCE(id->user_context);
	uevent->new_id_handle = entry->new_id ? entry->new_id->handle : 0;
	/* The count goes out with the event: no event is read unknowingly. */
	if (copy_to_user(dst, uevent, min_t(size_t, size, sizeof(*uevent))) ||
	    (size > sizeof(*uevent) &&
	     clear_user(dst + sizeof(*uevent), size - sizeof(*uevent))) ||
	    put_user(new_count, count)) {
		ret = -EFAULT;
		goto err_erase;
	}

	spin_lock(&file->events_lock);
	if (id->dead) {
		spin_unlock(&file->events_lock);
		/* Not handed out after all: the caller's count goes back. */
		if (put_user(new_count - 1, count))
			ret = -EFAULT;
		else
			ret = 0;
		xa_erase(&file->delivered, handle);
		rdmachan_cm_account(entry, -1);
		rdmachan_cm_event_free(entry);
		return ret;
	}
	spin_unlock(&file->events_lock);

	if (entry->new_id) {
		/* Replacing reserved entries allocates nothing. */
		xa_store(&file->objects, entry->new_id->handle,
			 &entry->new_id->obj, GFP_KERNEL);
		entry->new_id = NULL;
		atomic_inc(&id->backlog);
	}
	xa_store(&file->delivered, handle, entry, GFP_KERNEL);
	return 1;

err_erase:
	xa_erase(&file->delivered, handle);
err_requeue:
	rdmachan_cm_requeue(file, entry);
	return ret;
}

static void rdmachan_cm_acked(struct rdmachan_cm_event_entry *entry)
{
	rdmachan_cm_account(entry, -1);
	rdmachan_cm_event_free(entry);
}

/* All of @num handles at @uhandles, or none: each must be read, once. */
static int rdmachan_cm_ack(struct rdmachan_file *file, u64 uhandles, u32 num)
{
	u32 *handles;
	u32 i, j;
	int ret = 0;

	if (num > RDMACHAN_MAX_ACKS)
		return -EINVAL;
	handles = memdup_user(u64_to_user_ptr(uhandles),
			      array_size(num, sizeof(*handles)));
	if (IS_ERR(handles))
		return PTR_ERR(handles);

	mutex_lock(&file->ack_lock);
	for (i = 0; i < num && !ret; i++) {
		if (!xa_load(&file->delivered, handles[i]))
			ret = -ENOENT;
		for (j = 0; j < i; j++)
			if (handles[j] == handles[i])
				ret = -ENOENT;
	}
	if (!ret)
		for (i = 0; i < num; i++)
			rdmachan_cm_acked(xa_erase(&file->delivered, handles[i]));
	mutex_unlock(&file->ack_lock);
	kfree(handles);
	return ret;
}

/*
 * Acks first; if the call fails after taking them, num_acks is cleared in
 * the caller's struct to say so, and a restarted call does not repeat
 * them. out_num_events is written as each event goes out.
 */
int rdmachan_cmd_get_events(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_get_events *cmd = arg;
	u32 __user *out_num_events =
		rdmachan_call_result(call, struct rdmachan_get_events,
				     out_num_events);
	u32 __user *num_acks = rdmachan_call_result(call,
						    struct rdmachan_get_events,
						    num_acks);
	struct rdmachan_file *file = call->file;
	bool nonblock = (cmd->flags & RDMACHAN_GET_EVENTS_NONBLOCK) ||
			(call->filp->f_flags & O_NONBLOCK);
	void __user *events = u64_to_user_ptr(cmd->events);
	u32 n = 0;
	int ret;

	if (cmd->max_events && cmd->event_size < RDMACHAN_CM_EVENT_SIZE_V1)
		return -EINVAL;
	if (put_user(0, out_num_events))
		return -EFAULT;
	if (cmd->num_acks) {
		ret = rdmachan_cm_ack(file, cmd->acks, cmd->num_acks);
		if (ret)
			return ret;
	}
	while (n < cmd->max_events) {
		ret = rdmachan_cm_deliver(file, events + (size_t)n * cmd->event_size,
					  cmd->event_size, out_num_events,
					  n + 1);
		if (ret > 0) {
			n++;
			continue;
		}
		if (!ret)
			continue;
		if (n)
			break;
		if (ret == -EAGAIN && !nonblock)
			ret = wait_event_interruptible(file->events_wait,
						       rdmachan_cm_events_pending(file));
		if (!ret)
			continue;
		if (cmd->num_acks && put_user(0, num_acks))
			return -EFAULT;
		return ret;
	}
	return 0;
}

int rdmachan_cmd_ack_events(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_get_events *cmd = arg;

	if (cmd->events || cmd->event_size || cmd->max_events ||
	    cmd->out_num_events)
		return -EINVAL;
	return rdmachan_cm_ack(call->file, cmd->acks, cmd->num_acks);
}

void rdmachan_cm_file_init(struct rdmachan_file *file)
{
	spin_lock_init(&file->events_lock);
	INIT_LIST_HEAD(&file->events);
	init_waitqueue_head(&file->events_wait);
	xa_init_flags(&file->delivered, XA_FLAGS_ALLOC1);
	mutex_init(&file->ack_lock);
}

/* After the file's ids are gone: no handler can queue here any more. */
void rdmachan_cm_file_release(struct rdmachan_file *file)
{
	struct rdmachan_cm_event_entry *entry, *tmp;
	unsigned long handle;
	LIST_HEAD(dropped);

	spin_lock(&file->events_lock);
	list_splice_init(&file->events, &dropped);
	spin_unlock(&file->events_lock);
	list_for_each_entry_safe(entry, tmp, &dropped, list)
		rdmachan_cm_event_free(entry);

	xa_for_each(&file->delivered, handle, entry)
		rdmachan_cm_acked(xa_erase(&file->delivered, handle));
	xa_destroy(&file->delivered);
	mutex_destroy(&file->ack_lock);
}
