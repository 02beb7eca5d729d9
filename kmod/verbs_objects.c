// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: what all verbs objects share: allocation and freeing, lookup
 * on the data path, the device's list of them, and teardown by destroy,
 * file release and device removal.
 *
 * A verbs object's IB object is only used under its file's verbs_lock
 * held for read, and only torn down with it held for write. Its handle
 * reference is dropped after such a teardown, so a lookup under the read
 * lock needs no reference of its own.
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "rdmachan.h"

/* What @v's type does, from main.c's table. */
static const struct rdmachan_object_ops *
rdmachan_verbs_ops(const struct rdmachan_verbs_obj *v)
{
	return rdmachan_object_ops_of(&v->obj);
}

int rdmachan_verbs_reserve(struct rdmachan_call *call,
			   struct rdmachan_verbs_obj *v, u32 *handle)
{
	int ret = rdmachan_object_reserve(call, &v->obj, handle);

	if (!ret)
		v->handle = *handle;
	return ret;
}

/*
 * The IB object exists: from now on device removal tears it down. Called
 * inside rdmachan_device_enter(), so removal has not started on @dev.
 */
void rdmachan_verbs_add(struct rdmachan_verbs_obj *v,
			struct rdmachan_device *dev)
{
	kref_get(&dev->ref);
	v->dev = dev;
	mutex_lock(&dev->verbs_lock);
	/* whoever finds it on the list sees it live */
	v->live = true;
	list_add(&v->dev_entry, &dev->verbs[rdmachan_verbs_ops(v)->rank]);
	mutex_unlock(&dev->verbs_lock);
}

/*
 * Before the IB object is made, with @dev entered as @ibdev: an
 * hca_object of the caller's RDMA cgroup. 0, or -EAGAIN at its limit.
 */
int rdmachan_verbs_charge(struct rdmachan_verbs_obj *v,
			  struct rdmachan_device *dev, struct ib_device *ibdev)
{
	int ret;

	ret = rdmachan_charge(dev, ibdev, &v->charge,
			      RDMACG_RESOURCE_HCA_OBJECT);
	if (!ret) {
		kref_get(&dev->ref);
		v->charge_dev = dev;
	}
	return ret;
}

static void rdmachan_verbs_uncharge(struct rdmachan_verbs_obj *v)
{
	if (!v->charge_dev)
		return;
	rdmachan_uncharge(v->charge_dev, &v->charge);
	rdmachan_device_put(v->charge_dev);
	v->charge_dev = NULL;
}

/* The release of every verbs object; its memory goes after a grace period. */
void rdmachan_verbs_release(struct rdmachan_object *obj)
{
	struct rdmachan_verbs_obj *v =
		container_of(obj, struct rdmachan_verbs_obj, obj);

	WARN_ON(v->live);
	/* a create that failed after the charge */
	rdmachan_verbs_uncharge(v);
	if (v->dev)
		rdmachan_device_put(v->dev);
	rdmachan_verbs_ops(v)->release_verbs(v);
}

void *rdmachan_verbs_zalloc(struct rdmachan_file *file, size_t size,
			    enum rdmachan_object_type type)
{
	struct rdmachan_object *obj = rdmachan_object_zalloc(size, type);
	struct rdmachan_verbs_obj *v;

	if (!obj)
		return NULL;
	v = container_of(obj, struct rdmachan_verbs_obj, obj);
	v->file = file;
	INIT_LIST_HEAD(&v->dev_entry);
	return v;
}

struct rdmachan_verbs_obj *rdmachan_verbs_find(struct rdmachan_file *file,
					       u32 handle,
					       enum rdmachan_object_type type)
{
	struct rdmachan_object *obj;

	lockdep_assert_held(&file->verbs_lock);
	/* Objects are freed after a grace period: the type is readable. */
	rcu_read_lock();
	obj = xa_load(&file->objects, handle);
	if (obj && obj->type != type)
		obj = NULL;
	rcu_read_unlock();
	return obj ? container_of(obj, struct rdmachan_verbs_obj, obj) : NULL;
}

/* With the file's verbs_lock held for write; nothing happens twice. */
void rdmachan_verbs_teardown(struct rdmachan_verbs_obj *v)
{
	lockdep_assert_held_write(&v->file->verbs_lock);
	if (!v->live)
		return;
	rdmachan_verbs_ops(v)->teardown(v);
	rdmachan_verbs_uncharge(v);
	v->live = false;
	mutex_lock(&v->dev->verbs_lock);
	list_del_init(&v->dev_entry);
	mutex_unlock(&v->dev->verbs_lock);
}

int rdmachan_verbs_destroy(struct rdmachan_object *obj, bool wait)
{
	struct rdmachan_verbs_obj *v =
		container_of(obj, struct rdmachan_verbs_obj, obj);

	down_write(&v->file->verbs_lock);
	rdmachan_verbs_teardown(v);
	up_write(&v->file->verbs_lock);
	return 0;
}

/*
 * destroy_begin of PDs and SRQs: -EBUSY while other objects use it;
 * otherwise it takes no new users.
 */
int rdmachan_verbs_destroy_unused(struct rdmachan_object *obj)
{
	struct rdmachan_verbs_obj *v =
		container_of(obj, struct rdmachan_verbs_obj, obj);
	int ret = 0;

	down_write(&v->file->verbs_lock);
	if (atomic_read(&v->users))
		ret = -EBUSY;
	else
		v->dead = true;
	up_write(&v->file->verbs_lock);
	return ret;
}

/* Before the file's handles go: its verbs objects, in dependency order. */
void rdmachan_verbs_file_release(struct rdmachan_file *file)
{
	struct rdmachan_verbs_obj *v;
	struct rdmachan_object *obj;
	unsigned long handle;
	int rank;

	down_write(&file->verbs_lock);
	for (rank = 0; rank < RDMACHAN_VERBS_RANKS; rank++) {
		xa_for_each(&file->objects, handle, obj) {
			if (obj->type < RDMACHAN_OBJ_PD ||
			    obj->type > RDMACHAN_OBJ_AH)
				continue;
			v = container_of(obj, struct rdmachan_verbs_obj, obj);
			if (rdmachan_verbs_ops(v)->rank == rank)
				rdmachan_verbs_teardown(v);
		}
	}
	up_write(&file->verbs_lock);
}

/*
 * Tells each live object of @rank on @dev that the device is going, with
 * its file's verbs_lock held for read; returns the sum of the answers.
 */
static int rdmachan_verbs_device_gone(struct rdmachan_device *dev,
				      enum rdmachan_verbs_rank rank)
{
	struct rdmachan_verbs_obj *v, **objs;
	size_t n = 0, i = 0;
	int sum = 0;

	mutex_lock(&dev->verbs_lock);
	list_for_each_entry(v, &dev->verbs[rank], dev_entry)
		n++;
	objs = kvmalloc_array(n, sizeof(*objs), GFP_KERNEL);
	if (objs) {
		list_for_each_entry(v, &dev->verbs[rank], dev_entry) {
			kref_get(&v->obj.ref);
			rdmachan_file_get(v->file);
			objs[i++] = v;
		}
	}
	mutex_unlock(&dev->verbs_lock);
	if (!objs)
		return 0;

	for (i = 0; i < n; i++) {
		v = objs[i];
		down_read(&v->file->verbs_lock);
		if (v->live)
			sum += rdmachan_verbs_ops(v)->device_gone(v);
		up_read(&v->file->verbs_lock);
		rdmachan_file_put(v->file);
		rdmachan_object_put(&v->obj);
	}
	kvfree(objs);
	return sum;
}

/* Enough passes over the CQs to see the flushes of the QPs finish. */
#define RDMACHAN_FLUSH_PASSES	50

/*
 * The IB device goes away: every verbs object on it, of every file, is
 * torn down before the IB core may free the device. First the QPs move
 * to the error state and their flushed work requests are kept by their
 * CQs, as after a disconnect, so programs can still poll them. No new
 * object can be made: the caller has cut the device off already.
 */
void rdmachan_verbs_remove_device(struct rdmachan_device *dev)
{
	struct rdmachan_verbs_obj *v;
	struct rdmachan_file *file;
	int rank = 0, pass;

	rdmachan_verbs_device_gone(dev, RDMACHAN_RANK_QP);
	/* The device flushes when it gets to it: until the CQs stay empty. */
	for (pass = 0; pass < RDMACHAN_FLUSH_PASSES; pass++) {
		if (!rdmachan_verbs_device_gone(dev, RDMACHAN_RANK_CQ) && pass)
			break;
		usleep_range(2000, 4000);
	}

	mutex_lock(&dev->verbs_lock);
	while (rank < RDMACHAN_VERBS_RANKS) {
		v = list_first_entry_or_null(&dev->verbs[rank],
					     struct rdmachan_verbs_obj,
					     dev_entry);
		if (!v) {
			rank++;
			continue;
		}
		/* On the list, the object and its file are still there. */
		kref_get(&v->obj.ref);
		file = v->file;
		rdmachan_file_get(file);
		mutex_unlock(&dev->verbs_lock);

		down_write(&file->verbs_lock);
		rdmachan_verbs_teardown(v);
		up_write(&file->verbs_lock);
		rdmachan_file_put(file);
		rdmachan_object_put(&v->obj);
		mutex_lock(&dev->verbs_lock);
	}
	mutex_unlock(&dev->verbs_lock);
}
