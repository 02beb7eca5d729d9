// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: live-object counters in debugfs, so tests and users can see
 * leaks and objects that outlive their files: rdmachan/objects for the
 * module, rdmachan/files/<tgid>-<n> for each open file.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "introspect.h"

static atomic_t rdmachan_counters[RDMACHAN_NR_COUNTERS];

static struct dentry *rdmachan_debugfs_dir;
static struct dentry *rdmachan_debugfs_files;
static atomic64_t rdmachan_file_seq;

void rdmachan_count_inc(enum rdmachan_counter counter)
{
	atomic_inc(&rdmachan_counters[counter]);
}

void rdmachan_count_dec(enum rdmachan_counter counter)
{
	WARN_ON_ONCE(atomic_dec_return(&rdmachan_counters[counter]) < 0);
}

static int objects_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < RDMACHAN_NR_COUNTERS; i++)
		seq_printf(s, "%s %d\n", rdmachan_counter_name(i),
			   atomic_read(&rdmachan_counters[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(objects);

static int rdmachan_count_object(void *arg, unsigned long handle,
				 struct rdmachan_object *obj)
{
	unsigned long *counts = arg;

	if (obj->type < RDMACHAN_OBJ_TYPES)
		counts[obj->type]++;
	return 0;
}

/*
 * "unacked <event handle> <type> cm_id <handle>" per event read and not
 * acknowledged, also for ids that are being destroyed.
 */
static void rdmachan_show_unacked_event(void *arg,
					const struct rdmachan_cm_event_entry *entry,
					u32 event_handle)
{
	if (event_handle)
		seq_printf(arg, "unacked %u %s cm_id %u\n", event_handle,
			   rdmachan_cm_event_name(entry->uevent.event),
			   entry->uevent.id_handle);
}

/* "cq_unacked <cq handle> <count>" per CQ with completion events taken. */
static int rdmachan_show_cq_unacked(void *arg, unsigned long handle,
				    struct rdmachan_object *obj)
{
	unsigned int n;

	if (obj->type != RDMACHAN_OBJ_CQ)
		return 0;
	n = READ_ONCE(container_of(obj, struct rdmachan_cq,
				   v.obj)->events_unacked);
	if (n)
		seq_printf(arg, "cq_unacked %lu %u\n", handle, n);
	return 0;
}

/*
 * "async_unacked <TYPE> <qp|cq|srq> <handle> <count>" per object and type
 * of async events read and not acknowledged; "async_queue <context>
 * <queued> <dropped>" per context with events waiting or dropped.
 */
static int rdmachan_show_async_unacked(void *arg, unsigned long handle,
				       struct rdmachan_object *obj)
{
	struct rdmachan_async_queue *q;
	struct rdmachan_async_obj *ao;
	struct seq_file *s = arg;
	unsigned int n;
	u32 type;

	if (obj->type == RDMACHAN_OBJ_DEVICE_CONTEXT) {
		q = container_of(obj, struct rdmachan_context, obj)->async;
		if (READ_ONCE(q->queued) || READ_ONCE(q->dropped))
			seq_printf(s, "async_queue %lu %u %lu\n", handle,
				   READ_ONCE(q->queued), READ_ONCE(q->dropped));
		return 0;
	}
	ao = rdmachan_async_obj_of(obj);
	if (!ao || !ao->queue)
		return 0;
	for (type = 0; type < RDMACHAN_ASYNC_EVENT_TYPES; type++) {
		n = READ_ONCE(ao->unacked_by_type[type]);
		if (n)
			seq_printf(s, "async_unacked %s %s %lu %u\n",
				   rdmachan_async_event_name(type),
				   rdmachan_async_element_name(ao->element),
				   handle, n);
	}
	return 0;
}

/*
 * What the file's events wait for, after its counters; every CQ's line
 * before any async line, as they always came.
 */
static void rdmachan_debugfs_show_unacked(struct seq_file *s,
					  struct rdmachan_file *file)
{
	rdmachan_walk_cm_events(file, rdmachan_show_unacked_event, s);
	if (!rdmachan_walk_objects(file, rdmachan_show_cq_unacked, s))
		rdmachan_walk_objects(file, rdmachan_show_async_unacked, s);
}

/* "owner <tgid>", then "<kind> <count>" per kind of handle. */
static int file_objects_show(struct seq_file *s, void *unused)
{
	unsigned long counts[RDMACHAN_OBJ_TYPES] = {};
	struct rdmachan_file *file = s->private;
	u32 type;
	int ret;

	ret = rdmachan_walk_objects(file, rdmachan_count_object, counts);
	if (ret)
		return ret;
	seq_printf(s, "owner %d\n", pid_nr(file->owner));
	for (type = RDMACHAN_OBJ_DEVICE_CONTEXT; type < RDMACHAN_OBJ_TYPES;
	     type++)
		seq_printf(s, "%s %lu\n", rdmachan_object_type_name(type),
			   counts[type]);
	rdmachan_debugfs_show_unacked(s, file);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(file_objects);

void rdmachan_debugfs_add_file(struct rdmachan_file *file)
{
	char name[32];

	snprintf(name, sizeof(name), "%d-%lld", pid_nr(file->owner),
		 atomic64_inc_return(&rdmachan_file_seq));
	file->debugfs = debugfs_create_file(name, 0444, rdmachan_debugfs_files,
					    file, &file_objects_fops);
}

void rdmachan_debugfs_remove_file(struct rdmachan_file *file)
{
	debugfs_remove(file->debugfs);
}

void rdmachan_debugfs_init(void)
{
	rdmachan_debugfs_dir = debugfs_create_dir("rdmachan", NULL);
	debugfs_create_file("objects", 0444, rdmachan_debugfs_dir, NULL,
			    &objects_fops);
	rdmachan_debugfs_files = debugfs_create_dir("files",
						    rdmachan_debugfs_dir);
}

void rdmachan_debugfs_exit(void)
{
	debugfs_remove_recursive(rdmachan_debugfs_dir);
}
