/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: the objects of a file: their types, what each type does (one
 * table, main.c) and their allocator (objects.c). Included by rdmachan.h.
 */
#ifndef RDMACHAN_OBJECTS_H
#define RDMACHAN_OBJECTS_H

#include <linux/build_bug.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>

enum rdmachan_object_type {
	RDMACHAN_OBJ_DEVICE_CONTEXT = 1,
	RDMACHAN_OBJ_CM_ID,
	RDMACHAN_OBJ_PD,
	RDMACHAN_OBJ_MR,
	RDMACHAN_OBJ_CQ,
	RDMACHAN_OBJ_QP,
	RDMACHAN_OBJ_SRQ,
	RDMACHAN_OBJ_AH,
	RDMACHAN_OBJ_MCAST,
	RDMACHAN_OBJ_TYPES,
};

/*
 * An object of a file, named by its handle. The xarray holds one
 * reference; every ioctl that looked the handle up holds another until it
 * is done, so destroy and release never free an object in use. Memory is
 * freed after an RCU grace period, so a lookup under rcu_read_lock() may
 * read the type of any object it finds.
 */
struct rdmachan_object {
	struct kref ref;
	enum rdmachan_object_type type;
	struct rcu_head rcu;
};

struct rdmachan_verbs_obj;

/* What a type of object does: its entry in main.c's table. */
struct rdmachan_object_ops {
	/* its live-object counter in debugfs, from allocation to free */
	enum rdmachan_counter count;
	/* drops what the object holds; its memory goes after a grace period */
	void (*release)(struct rdmachan_object *obj);
	/*
	 * Optional: RDMACHAN_IOC_DESTROY calls it while the handle still
	 * works; an error fails the destroy and leaves the object as it was.
	 */
	int (*destroy_begin)(struct rdmachan_object *obj);
	/*
	 * Optional: tears the object down once its handle is gone, before the
	 * handle's reference is dropped. @wait is false when the file closes.
	 */
	int (*destroy)(struct rdmachan_object *obj, bool wait);
	/* verbs objects only (verbs_objects.c): the teardown order */
	enum rdmachan_verbs_rank rank;
	/* destroys the IB object, with the file's verbs_lock held for write */
	void (*teardown)(struct rdmachan_verbs_obj *v);
	/* drops what the type holds, from rdmachan_verbs_release() */
	void (*release_verbs)(struct rdmachan_verbs_obj *v);
	/*
	 * Device removal, before any teardown, with the file's verbs_lock
	 * held: a QP flushes its work requests, a CQ keeps its completions
	 * for later polls and returns how many it took. Optional.
	 */
	int (*device_gone)(struct rdmachan_verbs_obj *v);
};

void rdmachan_objects_init(const struct rdmachan_object_ops *types);
const struct rdmachan_object_ops *
rdmachan_object_ops_of(const struct rdmachan_object *obj);
const char *rdmachan_object_type_name(u32 type);
struct rdmachan_object *rdmachan_object_zalloc(size_t size,
					       enum rdmachan_object_type type);
/*
 * A zeroed @type whose struct rdmachan_object is @member, of @obj_type,
 * with its one reference, or NULL. The object must come first: its
 * memory is freed through it.
 */
#define rdmachan_object_alloc(type, member, obj_type)			\
	((type *)rdmachan_object_zalloc(sizeof(type) +			\
			BUILD_BUG_ON_ZERO(offsetof(type, member)),	\
			obj_type))
int rdmachan_object_destroy(struct rdmachan_object *obj, bool wait);

/* What each type does, named only by main.c's table (see there). */
void rdmachan_context_release(struct rdmachan_object *obj);
int rdmachan_context_destroy(struct rdmachan_object *obj, bool wait);
void rdmachan_cm_id_release(struct rdmachan_object *obj);
int rdmachan_cm_id_destroy(struct rdmachan_object *obj, bool wait);
void rdmachan_mcast_release(struct rdmachan_object *obj);
int rdmachan_mcast_destroy(struct rdmachan_object *obj, bool wait);
void rdmachan_verbs_release(struct rdmachan_object *obj);
int rdmachan_verbs_destroy(struct rdmachan_object *obj, bool wait);
int rdmachan_verbs_destroy_unused(struct rdmachan_object *obj);
void rdmachan_pd_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_pd_release(struct rdmachan_verbs_obj *v);
void rdmachan_mr_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_mr_release(struct rdmachan_verbs_obj *v);
int rdmachan_cq_destroy_begin(struct rdmachan_object *obj);
void rdmachan_cq_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_cq_release(struct rdmachan_verbs_obj *v);
int rdmachan_cq_save(struct rdmachan_verbs_obj *v);
int rdmachan_qp_destroy_begin(struct rdmachan_object *obj);
void rdmachan_qp_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_qp_release(struct rdmachan_verbs_obj *v);
int rdmachan_qp_flush(struct rdmachan_verbs_obj *v);
int rdmachan_srq_destroy_begin(struct rdmachan_object *obj);
void rdmachan_srq_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_srq_release(struct rdmachan_verbs_obj *v);
void rdmachan_ah_teardown(struct rdmachan_verbs_obj *v);
void rdmachan_ah_release(struct rdmachan_verbs_obj *v);

#endif /* RDMACHAN_OBJECTS_H */
