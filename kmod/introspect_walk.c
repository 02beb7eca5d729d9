// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the one walk of a file's CM events and objects that every
 * view of it prints: the QUERY ioctls' records (introspect.c), fdinfo and
 * the file's debugfs text (introspect_text.c), the per-file counters
 * (debugfs.c). A leaf: of the module it calls only the put of handles.
 */
#include "introspect.h"

/*
 * @visit on each CM event of @file: those read and not acknowledged by
 * event handle, then the queued ones, oldest first, with @event_handle 0.
 * Under spinlocks: @visit may not sleep. The entry holds its id (and
 * join) with a reference.
 */
void rdmachan_walk_cm_events(struct rdmachan_file *file,
			     void (*visit)(void *arg,
					   const struct rdmachan_cm_event_entry *entry,
					   u32 event_handle),
			     void *arg)
{
	struct rdmachan_cm_event_entry *entry;
	unsigned long handle;

	/* An ack erases the entry under this lock before it frees it. */
	xa_lock(&file->delivered);
	xa_for_each(&file->delivered, handle, entry)
		visit(arg, entry, handle);
	xa_unlock(&file->delivered);

	spin_lock(&file->events_lock);
	list_for_each_entry(entry, &file->events, list)
		visit(arg, entry, 0);
	spin_unlock(&file->events_lock);
}

/*
 * @visit on each object of @file, by handle, until it returns non-zero,
 * which is returned; -EINTR when the caller is killed first. One rule
 * for every printer: the file's verbs_lock held for read, so no verbs
 * object is torn down (a QP can be queried, @live holds), and each object
 * held by a reference taken under the xarray's lock, so no object of any
 * kind is freed; @visit may sleep (lock a CM id, query a QP).
 */
int rdmachan_walk_objects(struct rdmachan_file *file,
			  int (*visit)(void *arg, unsigned long handle,
				       struct rdmachan_object *obj),
			  void *arg)
{
	struct rdmachan_object *obj;
	unsigned long handle = 0;
	int ret = 0;

	/* verbs_lock: no verbs teardown; a reference: no free; visits may sleep. */
	if (down_read_killable(&file->verbs_lock))
		return -EINTR;
	while (!ret) {
		xa_lock(&file->objects);
		obj = xa_find(&file->objects, &handle, ULONG_MAX, XA_PRESENT);
		if (obj)
			kref_get(&obj->ref);
		xa_unlock(&file->objects);
		if (!obj)
			break;
		ret = visit(arg, handle, obj);
		rdmachan_object_put(obj);
		handle++;
	}
	up_read(&file->verbs_lock);
	return ret;
}
