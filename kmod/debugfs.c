// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the live-object counters (counters.c) in debugfs, so tests
 * and users can see leaks and objects that outlive their files:
 * rdmachan/objects for the module, rdmachan/files/<tgid>-<n> for each
 * open file. A file's entry goes on with what its events wait for, which
 * introspection prints through the hook main.c hands
 * rdmachan_debugfs_init(): the counters read no CM or verbs object, and
 * call no feature.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "introspect.h"

static struct dentry *rdmachan_debugfs_dir;
static struct dentry *rdmachan_debugfs_files;
static atomic64_t rdmachan_file_seq;
/* what a file's events wait for, printed by the layer above */
static void (*rdmachan_file_show_unacked)(struct seq_file *s,
					  struct rdmachan_file *file);

static int objects_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < RDMACHAN_NR_COUNTERS; i++)
		seq_printf(s, "%s %d\n", rdmachan_counter_name(i),
			   rdmachan_count_read(i));
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
	rdmachan_file_show_unacked(s, file);
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

/* @show_unacked prints the rest of each file's entry, after its counters. */
void rdmachan_debugfs_init(void (*show_unacked)(struct seq_file *s,
						struct rdmachan_file *file))
{
	rdmachan_file_show_unacked = show_unacked;
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
