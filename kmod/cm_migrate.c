// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: rdma_migrate_id(), an id moved to the channel of another file
 * of the same process, with its queued and unacknowledged events, as
 * ucma's MIGRATE_ID moves a context between files.
 */
#include <linux/file.h>

#include "rdmachan.h"

/* Both files' event queues, the file of lower address first. */
static void rdmachan_migrate_lock_events(struct rdmachan_file *a,
					 struct rdmachan_file *b)
{
	if (a > b)
		swap(a, b);
	spin_lock(&a->events_lock);
	spin_lock_nested(&b->events_lock, SINGLE_DEPTH_NESTING);
}

/*
 * The move itself, with the id's handler lock, request lock and both event
 * queues held: the id's file, handle and queued events change at once for
 * every reader.
 */
static int rdmachan_migrate_move(struct rdmachan_cm_id *id,
				 struct rdmachan_file *old_file, u32 old_handle,
				 struct rdmachan_file *new_file, u32 new_handle)
{
	struct rdmachan_cm_event_entry *entry;

	lockdep_assert_held(&id->request_lock);
	lockdep_assert_held(&old_file->events_lock);
	lockdep_assert_held(&new_file->events_lock);
	/* Joins are objects of the old file, and their events name them. */
	if (READ_ONCE(id->unacked) || !list_empty(&id->mcasts))
		return -EBUSY;
	/* Requests would name a new id of the old file. */
	list_for_each_entry(entry, &id->queued, id_entry)
		if (entry->new_id)
			return -EBUSY;
	/* A destroy on the old file may have taken the handle first. */
	if (xa_cmpxchg(&old_file->objects, old_handle, &id->obj, NULL,
		       GFP_ATOMIC) != &id->obj)
		return -ENOENT;
	/*
	 * The old handle's reference passes to the new one; replacing a
	 * reserved entry allocates nothing.
	 */
	xa_store(&new_file->objects, new_handle, &id->obj, GFP_ATOMIC);
	list_for_each_entry(entry, &id->queued, id_entry)
		list_move_tail(&entry->list, &new_file->events);
	id->file = new_file;
	id->handle = new_handle;
	return 0;
}

/* The id @handle of @old_file to @new_file, its new handle to @out_handle. */
static int rdmachan_migrate_from(struct rdmachan_file *old_file, u32 handle,
				 struct rdmachan_file *new_file,
				 u32 __user *out_handle)
{
	struct rdmachan_object *obj;
	struct rdmachan_cm_id *id;
	u32 new_handle;
	int ret;

	obj = rdmachan_object_get(old_file, handle, RDMACHAN_OBJ_CM_ID);
	if (!obj)
		return -ENOENT;
	id = container_of(obj, struct rdmachan_cm_id, obj);
	if (old_file == new_file) {
		ret = put_user(handle, out_handle) ? -EFAULT : 0;
		goto out_put;
	}
	ret = rdmachan_cm_wait_acks(id, NULL);
	if (ret)
		goto out_put;
	ret = rdmachan_object_alloc_handle(new_file, &new_handle);
	if (ret)
		goto out_put;
	/* The reply goes out before the move, so a failed copy moves nothing. */
	if (put_user(new_handle, out_handle)) {
		ret = -EFAULT;
		goto out_erase;
	}

	mutex_lock(&id->lock);
	if (!id->cm_id) {
		ret = -ENODEV;
		goto out_unlock;
	}
	rdma_lock_handler(id->cm_id);
	mutex_lock(&id->request_lock);
	rdmachan_migrate_lock_events(old_file, new_file);
	ret = rdmachan_migrate_move(id, old_file, handle, new_file, new_handle);
	spin_unlock(&old_file->events_lock);
	spin_unlock(&new_file->events_lock);
	mutex_unlock(&id->request_lock);
	rdma_unlock_handler(id->cm_id);
	if (!ret) {
		new_handle = 0;
		wake_up_interruptible(&new_file->events_wait);
	}
out_unlock:
	mutex_unlock(&id->lock);
out_erase:
	if (new_handle)
		xa_erase(&new_file->objects, new_handle);
out_put:
	rdmachan_object_put(&id->obj);
	return ret;
}

/*
 * Moves an id of another file of this process to this one. The id's read
 * events must all be acknowledged first; its queued ones move with it.
 */
int rdmachan_cmd_migrate_id(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_migrate_id *cmd = arg;
	struct rdmachan_migrate_id __user *ucmd = call->uarg;
	u32 __user *out_handle = &ucmd->out_handle;
	struct rdmachan_file *old_file;
	struct fd f;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	f = fdget(cmd->fd);
	if (!fd_file(f))
		return -EBADF;
	old_file = rdmachan_file_of(fd_file(f), call->file);
	if (IS_ERR(old_file))
		ret = PTR_ERR(old_file);
	else
		ret = rdmachan_migrate_from(old_file, cmd->handle, call->file,
					    out_handle);
	fdput(f);
	return ret;
}
