// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: CM event queues and their acknowledgment.
 *
 * The CM's handler (cm_handler.c) turns each event into an entry on the
 * file's queue. A
 * reader takes entries off the queue, gives each an event handle in the
 * file's @delivered xarray and counts it as unacknowledged on its id; the
 * ack erases the handle and uncounts it. Destroy waits for the count to
 * reach zero; closing the file forgets whatever is left.
 */
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rdmachan.h"

/* From the CM's handler: @entry goes on @file's queue, and readers wake. */
void rdmachan_cm_queue(struct rdmachan_file *file,
		       struct rdmachan_cm_event_entry *entry)
{
	u32 type = entry->uevent.event;

	rdmachan_count_inc(RDMACHAN_COUNT_CM_EVENTS);
	entry->queued_ns = ktime_get_coarse_ns();
	if (type != RDMA_CM_EVENT_CONNECT_REQUEST)
		rdmachan_cm_id_event_state(entry->id, type);
	spin_lock(&file->events_lock);
	list_add_tail(&entry->list, &file->events);
	list_add_tail(&entry->id_entry, &entry->id->queued);
	/* Whoever sees the resolution over finds its event queued. */
	if (type == RDMA_CM_EVENT_ADDR_RESOLVED ||
	    type == RDMA_CM_EVENT_ADDR_ERROR)
		WRITE_ONCE(entry->id->addr_resolving, false);
	spin_unlock(&file->events_lock);
	wake_up_interruptible(&file->events_wait);
}

static void rdmachan_cm_event_free(struct rdmachan_cm_event_entry *entry)
{
	struct rdmachan_cm_id *new_id = entry->new_id;

	if (new_id) {
		/*
		 * A request nobody read: its new id goes, which rejects it.
		 * Through the id's destroy: the id's file calls down here.
		 */
		rdmachan_object_destroy(&new_id->obj, false);
		xa_erase(&new_id->file->objects, new_id->handle);
		rdmachan_object_put(&new_id->obj);
		atomic_inc(&entry->id->backlog);
	}
	if (entry->mcast)
		rdmachan_object_put(&entry->mcast->obj);
	rdmachan_object_put(&entry->id->obj);
	kfree(entry);
	rdmachan_count_dec(RDMACHAN_COUNT_CM_EVENTS);
}

/* Off both queues, onto @dropped; under the file's events_lock. */
static void rdmachan_cm_unqueue(struct rdmachan_cm_event_entry *entry,
				struct list_head *dropped)
{
	list_del_init(&entry->id_entry);
	list_move_tail(&entry->list, dropped);
}

static void rdmachan_cm_free_dropped(struct list_head *dropped)
{
	struct rdmachan_cm_event_entry *entry, *tmp;

	list_for_each_entry_safe(entry, tmp, dropped, list)
		rdmachan_cm_event_free(entry);
}

/* After the join was left: its unread events go. */
void rdmachan_cm_drop_mcast_events(struct rdmachan_mcast *mc)
{
	struct rdmachan_cm_event_entry *entry, *tmp;
	struct rdmachan_cm_id *id = mc->id;
	LIST_HEAD(dropped);

	/* The id's lock holds off a migrate: its file keeps the events. */
	mutex_lock(&id->lock);
	spin_lock(&id->file->events_lock);
	list_for_each_entry_safe(entry, tmp, &id->queued, id_entry)
		if (entry->mcast == mc)
			rdmachan_cm_unqueue(entry, &dropped);
	spin_unlock(&id->file->events_lock);
	mutex_unlock(&id->lock);
	rdmachan_cm_free_dropped(&dropped);
}

/* After its kernel id is gone: the id's unread events go, none come. */
void rdmachan_cm_drop_events(struct rdmachan_cm_id *id)
{
	struct rdmachan_cm_event_entry *entry, *tmp;
	struct rdmachan_file *file = id->file;
	LIST_HEAD(dropped);

	spin_lock(&file->events_lock);
	id->dead = true;
	list_for_each_entry_safe(entry, tmp, &id->queued, id_entry)
		rdmachan_cm_unqueue(entry, &dropped);
	spin_unlock(&file->events_lock);
	rdmachan_cm_free_dropped(&dropped);
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
	if (!dead) {
		list_add(&entry->list, &file->events);
		list_add(&entry->id_entry, &entry->id->queued);
	}
	spin_unlock(&file->events_lock);
	if (dead)
		rdmachan_cm_event_free(entry);
}

/* The first queued event, taken off the queue and counted as being read. */
static struct rdmachan_cm_event_entry *
rdmachan_cm_take_first(struct rdmachan_file *file)
{
	struct rdmachan_cm_event_entry *entry;

	spin_lock(&file->events_lock);
	entry = list_first_entry_or_null(&file->events,
					 struct rdmachan_cm_event_entry, list);
	if (entry) {
		list_del_init(&entry->list);
		list_del_init(&entry->id_entry);
		/*
		 * Named and counted while still on this file's queue: a
		 * migrate of the id waits for an event being read.
		 */
		entry->uevent.id_handle = entry->id->handle;
		entry->read_ns = ktime_get_coarse_ns();
		rdmachan_cm_account(entry, 1);
	}
	spin_unlock(&file->events_lock);
	return entry;
}

/*
 * The event is the caller's: it waits for its ack under @handle, and a
 * CONNECT_REQUEST's new id becomes visible under its own handle.
 */
static void rdmachan_cm_hand_out(struct rdmachan_file *file,
				 struct rdmachan_cm_event_entry *entry,
				 u32 handle)
{
	if (entry->new_id) {
		/* Replacing reserved entries allocates nothing. */
		xa_store(&file->objects, entry->new_id->handle,
			 &entry->new_id->obj, GFP_KERNEL);
		entry->new_id = NULL;
		atomic_inc(&entry->id->backlog);
	}
	xa_store(&file->delivered, handle, entry, GFP_KERNEL);
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

	entry = rdmachan_cm_take_first(file);
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
	rdmachan_cm_hand_out(file, entry, handle);
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

/*
 * All of @num handles at @uhandles, or none: each must be read, once.
 * @taken, when not NULL, is the caller's count, set to 0 before any is
 * taken: a call that cannot say so takes none (-EFAULT).
 */
static int rdmachan_cm_ack(struct rdmachan_file *file, u64 uhandles, u32 num,
			   u32 __user *taken)
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
	if (!ret && taken && put_user(0, taken))
		ret = -EFAULT;
	if (!ret)
		for (i = 0; i < num; i++)
			rdmachan_cm_acked(xa_erase(&file->delivered, handles[i]));
	mutex_unlock(&file->ack_lock);
	kfree(handles);
	return ret;
}

/*
 * Acks first, clearing num_acks in the caller's struct as they are taken:
 * a call that fails afterwards has said so, and a restarted one does not
 * repeat them. out_num_events is written as each event goes out.
 */
int rdmachan_cmd_get_events(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_get_events *cmd = arg;
	struct rdmachan_get_events __user *ucmd = call->uarg;
	u32 __user *out_num_events = &ucmd->out_num_events;
	u32 __user *num_acks = &ucmd->num_acks;
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
		ret = rdmachan_cm_ack(file, cmd->acks, cmd->num_acks, num_acks);
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
	return rdmachan_cm_ack(call->file, cmd->acks, cmd->num_acks, NULL);
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
	list_for_each_entry_safe(entry, tmp, &file->events, list)
		rdmachan_cm_unqueue(entry, &dropped);
	spin_unlock(&file->events_lock);
	rdmachan_cm_free_dropped(&dropped);

	xa_for_each(&file->delivered, handle, entry)
		rdmachan_cm_acked(xa_erase(&file->delivered, handle));
	xa_destroy(&file->delivered);
	mutex_destroy(&file->ack_lock);
}
