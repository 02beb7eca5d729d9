// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the lifetime of an open /dev/rdmachan file's state, which
 * handlers and device removal may hold past the file's release. A leaf:
 * it calls nothing of the module but the counters.
 */
#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/slab.h>

#include "rdmachan.h"

/* Every open file, for device removal's walk; see the lock order. */
static DEFINE_MUTEX(rdmachan_files_lock);
static LIST_HEAD(rdmachan_files);

void rdmachan_file_list_add(struct rdmachan_file *file)
{
	mutex_lock(&rdmachan_files_lock);
	list_add_tail(&file->list, &rdmachan_files);
	mutex_unlock(&rdmachan_files_lock);
}

void rdmachan_file_list_del(struct rdmachan_file *file)
{
	mutex_lock(&rdmachan_files_lock);
	list_del(&file->list);
	mutex_unlock(&rdmachan_files_lock);
}

/*
 * @fn on every open file, with rdmachan_files_lock held: a file being
 * released waits until the walk is done before its objects go.
 */
void rdmachan_files_for_each(void (*fn)(struct rdmachan_file *file,
					void *arg), void *arg)
{
	struct rdmachan_file *file;

	mutex_lock(&rdmachan_files_lock);
	list_for_each_entry(file, &rdmachan_files, list)
		fn(file, arg);
	mutex_unlock(&rdmachan_files_lock);
}

void rdmachan_file_get(struct rdmachan_file *file)
{
	kref_get(&file->ref);
}

static void rdmachan_file_free(struct kref *ref)
{
	struct rdmachan_file *file = container_of(ref, struct rdmachan_file,
						  ref);

	put_pid(file->owner);
	mem_cgroup_put(file->memcg);
	kfree(file);
	rdmachan_count_dec(RDMACHAN_COUNT_FILES);
}

void rdmachan_file_put(struct rdmachan_file *file)
{
	kref_put(&file->ref, rdmachan_file_free);
}

/*
 * The state of @filp, a /dev/rdmachan file of the process that owns @file
 * (it may be @file's own): -EINVAL for another kind of file, -EACCES for
 * one another process opened.
 */
struct rdmachan_file *rdmachan_file_of(struct file *filp,
				       const struct rdmachan_file *file)
{
	struct rdmachan_file *other;

	if (filp->f_op != &rdmachan_fops)
		return ERR_PTR(-EINVAL);
	other = filp->private_data;
	if (other->owner != file->owner)
		return ERR_PTR(-EACCES);
	return other;
}
