// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: per-file objects: their allocator, handles and lifetime.
 *
 * Handles are indices into the file's xarray, so a handle of another file
 * or of a destroyed object simply is not found. Lookups take a reference
 * under the xarray lock; destroy erases the handle first, so no new lookup
 * can find it, and the object is freed when its last user puts it. An
 * object may first refuse its destroy (destroy_begin), while its handle
 * still works. What each type does comes from main.c's table.
 */
#include <linux/slab.h>

#include "rdmachan.h"

/* main.c's table, indexed by type; set before any file can be opened. */
static const struct rdmachan_object_ops *rdmachan_object_types __ro_after_init;

void __init rdmachan_objects_init(const struct rdmachan_object_ops *types)
{
	rdmachan_object_types = types;
}

const struct rdmachan_object_ops *
rdmachan_object_ops_of(const struct rdmachan_object *obj)
{
	return &rdmachan_object_types[obj->type];
}

/* An enum rdmachan_object_type's name: its counter's, "contexts" to "mcasts". */
const char *rdmachan_object_type_name(u32 type)
{
	if (type >= RDMACHAN_OBJ_DEVICE_CONTEXT && type < RDMACHAN_OBJ_TYPES)
		return rdmachan_counter_name(rdmachan_object_types[type].count);
	return "unknown";
}

/*
 * Every object is made here: zeroed, charged to the caller's memory
 * cgroup, counted, and with the one reference its creator holds, set
 * before anything can find the object.
 */
struct rdmachan_object *rdmachan_object_zalloc(size_t size,
					       enum rdmachan_object_type type)
{
	struct rdmachan_object *obj = kzalloc(size, RDMACHAN_GFP);

	if (!obj)
		return NULL;
	kref_init(&obj->ref);
	obj->type = type;
	rdmachan_count_inc(rdmachan_object_types[type].count);
	return obj;
}

static void rdmachan_object_release(struct kref *ref)
{
	struct rdmachan_object *obj =
		container_of(ref, struct rdmachan_object, ref);
	const struct rdmachan_object_ops *ops = rdmachan_object_ops_of(obj);

	ops->release(obj);
	kfree_rcu(obj, rcu);
	rdmachan_count_dec(ops->count);
}

void rdmachan_object_put(struct rdmachan_object *obj)
{
	kref_put(&obj->ref, rdmachan_object_release);
}

/*
 * Handles are allocated cyclically, so a stale handle of a destroyed
 * object does not name the next object at once.
 */
int rdmachan_object_alloc_handle(struct rdmachan_file *file, u32 *handle)
{
	int ret;

	ret = xa_alloc_cyclic(&file->objects, handle, NULL, xa_limit_31b,
			      &file->next_handle, RDMACHAN_GFP);
	return ret < 0 ? ret : 0;
}

/* A reserved handle reads as NULL, so nothing can look it up or destroy it. */
int rdmachan_object_reserve(struct rdmachan_call *call,
			    struct rdmachan_object *obj, u32 *handle)
{
	int ret;

	if (WARN_ON(call->new_obj))
		return -EINVAL;
	ret = rdmachan_object_alloc_handle(call->file, handle);
	if (ret)
		return ret;
	call->new_obj = obj;
	call->new_handle = *handle;
	return 0;
}

void rdmachan_object_publish(struct rdmachan_call *call)
{
	/* Replacing a reserved entry needs no allocation: it cannot fail. */
	xa_store(&call->file->objects, call->new_handle, call->new_obj,
		 GFP_KERNEL);
	call->new_obj = NULL;
}

/* The type's destroy, if it has one: 0 otherwise. */
int rdmachan_object_destroy(struct rdmachan_object *obj, bool wait)
{
	const struct rdmachan_object_ops *ops = rdmachan_object_ops_of(obj);

	return ops->destroy ? ops->destroy(obj, wait) : 0;
}

void rdmachan_object_abort(struct rdmachan_call *call)
{
	struct rdmachan_object *obj = call->new_obj;

	xa_erase(&call->file->objects, call->new_handle);
	rdmachan_object_destroy(obj, false);
	rdmachan_object_put(obj);
	call->new_obj = NULL;
}

struct rdmachan_object *rdmachan_object_get(struct rdmachan_file *file,
					    u32 handle,
					    enum rdmachan_object_type type)
{
	struct rdmachan_object *obj;

	xa_lock(&file->objects);
	obj = xa_load(&file->objects, handle);
	if (obj && obj->type == type)
		kref_get(&obj->ref);
	else
		obj = NULL;
	xa_unlock(&file->objects);
	return obj;
}

/* Called when the file goes away: no ioctl can be running on it. */
void rdmachan_objects_release(struct rdmachan_file *file)
{
	struct rdmachan_object *obj;
	unsigned long handle;

	xa_for_each(&file->objects, handle, obj) {
		/* the handle's reference is whoever's erase returns it */
		if (xa_erase(&file->objects, handle) != obj)
			continue;
		rdmachan_object_destroy(obj, false);
		rdmachan_object_put(obj);
	}
}

int rdmachan_cmd_destroy(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_destroy *cmd = arg;
	struct xarray *objects = &call->file->objects;
	const struct rdmachan_object_ops *ops = NULL;
	struct rdmachan_object *obj, *found;
	int ret = 0;

	if (cmd->__reserved)
		return -EINVAL;
	xa_lock(objects);
	obj = xa_load(objects, cmd->handle);
	if (obj) {
		kref_get(&obj->ref);
		ops = rdmachan_object_ops_of(obj);
		/* Nothing to refuse or wait for: the handle goes at once. */
		if (!ops->destroy_begin)
			__xa_erase(objects, cmd->handle);
	}
	xa_unlock(objects);
	if (!obj)
		return -ENOENT;

	if (ops->destroy_begin) {
		ret = ops->destroy_begin(obj);
		if (ret)
			goto out;
		xa_lock(objects);
		found = xa_load(objects, cmd->handle);
		if (found == obj)
			__xa_erase(objects, cmd->handle);
		xa_unlock(objects);
		/* Another destroy of the same handle won. */
		if (found != obj) {
			ret = -ENOENT;
			goto out;
		}
	}
	ret = rdmachan_object_destroy(obj, true);
	/* the handle's reference */
	rdmachan_object_put(obj);
out:
	rdmachan_object_put(obj);
	return ret;
}

#define RDMACHAN_ACK_WAIT_LOG_SECS	5
/* room for the names of every CM or async event type at once */
#define RDMACHAN_TYPE_NAMES_LEN		192

/* " NAME" for each type with a count in @by_type, into @buf. */
void rdmachan_format_types(char *buf, size_t len, const unsigned int *by_type,
			   unsigned int ntypes, const char *(*name)(u32 type))
{
	size_t used = 0;
	u32 type;

	buf[0] = '\0';
	for (type = 0; type < ntypes; type++)
		if (by_type[type])
			used += scnprintf(buf + used, len - used, " %s",
					  name(type));
}

static int rdmachan_wait_acks_logged(wait_queue_head_t *wq,
				     unsigned int *count, const char *what,
				     u32 handle,
				     void (*describe)(void *arg, char *buf,
						      size_t len),
				     void *arg)
{
	char types[RDMACHAN_TYPE_NAMES_LEN] = "";
	unsigned int left;
	long ret;

	ret = wait_event_killable_timeout(*wq, !READ_ONCE(*count),
					  RDMACHAN_ACK_WAIT_LOG_SECS * HZ);
	if (ret > 0)
		return 0;
	if (ret < 0)
		return -EINTR;
	if (describe)
		describe(arg, types, sizeof(types));
	left = READ_ONCE(*count);
	if (left)
		pr_warn_ratelimited("rdmachan: pid %d: %s %u waits for %u unacknowledged event(s)%s%s\n",
				    task_tgid_nr(current), what, handle, left,
				    types[0] ? ":" : "", types);
	return wait_event_killable(*wq, !READ_ONCE(*count)) ? -EINTR : 0;
}

/*
 * Waits, killably, until *@count is 0, with *@waiting (optional) set
 * meanwhile for introspection. Once it has waited 5 s it says, once, what
 * it waits for: @what @handle, the count and what @describe (optional)
 * writes, the unacknowledged event types.
 */
int rdmachan_wait_acks(wait_queue_head_t *wq, unsigned int *count,
		       bool *waiting, const char *what, u32 handle,
		       void (*describe)(void *arg, char *buf, size_t len),
		       void *arg)
{
	int ret;

	if (waiting)
		WRITE_ONCE(*waiting, true);
	ret = rdmachan_wait_acks_logged(wq, count, what, handle, describe, arg);
	if (waiting)
		WRITE_ONCE(*waiting, false);
	return ret;
}
