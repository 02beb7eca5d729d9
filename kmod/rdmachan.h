/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: internal structures shared by the module's files.
 */
#ifndef RDMACHAN_KMOD_H
#define RDMACHAN_KMOD_H

#include <linux/kref.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "../uapi/rdmachan.h"

/*
 * One per IB device the module has seen. Files hold references to it;
 * the IB device itself may go away first, which sets @ibdev to NULL under
 * @removal_lock held for write. Anyone calling into the device holds
 * @removal_lock for read and checks @ibdev (rdmachan_device_enter()).
 */
struct rdmachan_device {
	struct kref ref;
	struct rw_semaphore removal_lock;
	struct ib_device *ibdev;
	u32 index;
};

int rdmachan_devices_init(void);
void rdmachan_devices_exit(void);
struct rdmachan_device *rdmachan_device_get_by_index(u32 index);
void rdmachan_device_put(struct rdmachan_device *dev);
struct ib_device *rdmachan_device_enter(struct rdmachan_device *dev);
void rdmachan_device_exit(struct rdmachan_device *dev);

/* One per open() of /dev/rdmachan. */
struct rdmachan_file {
	struct xarray objects;
	struct pid *owner;
	/* rdmachan/files/<tgid>-<n> in debugfs: this file's objects */
	struct dentry *debugfs;
};

enum rdmachan_object_type {
	RDMACHAN_OBJ_DEVICE_CONTEXT = 1,
};

/*
 * An object of a file, named by its handle. The xarray holds one
 * reference; every ioctl that looked the handle up holds another until it
 * is done, so destroy and release never free an object in use.
 */
struct rdmachan_object {
	struct kref ref;
	enum rdmachan_object_type type;
	void (*free)(struct rdmachan_object *obj);
};

struct rdmachan_context {
	struct rdmachan_object obj;
	struct rdmachan_device *dev;
};

/*
 * One ioctl in progress. A command that creates an object reserves its
 * handle and leaves the object in @new_obj; the dispatcher publishes it
 * once the reply reached userspace, and drops it otherwise, so a failed
 * call leaves nothing behind.
 */
struct rdmachan_call {
	struct rdmachan_file *file;
	struct rdmachan_object *new_obj;
	u32 new_handle;
};

int rdmachan_object_reserve(struct rdmachan_call *call,
			    struct rdmachan_object *obj, u32 *handle);
void rdmachan_object_publish(struct rdmachan_call *call);
void rdmachan_object_abort(struct rdmachan_call *call);
struct rdmachan_object *rdmachan_object_get(struct rdmachan_file *file,
					    u32 handle,
					    enum rdmachan_object_type type);
void rdmachan_object_put(struct rdmachan_object *obj);
void rdmachan_objects_release(struct rdmachan_file *file);

/* ioctl handlers: @arg is the kernel copy of the user's struct. */
int rdmachan_cmd_get_info(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_list_devices(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_open_device(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_destroy(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_device(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_port(struct rdmachan_call *call, void *arg);
int rdmachan_cmd_query_gid(struct rdmachan_call *call, void *arg);

/* Live-object counters, shown in debugfs. */
enum rdmachan_counter {
	RDMACHAN_COUNT_FILES,
	RDMACHAN_COUNT_DEVICES,
	RDMACHAN_COUNT_CONTEXTS,
	RDMACHAN_NR_COUNTERS,
};

void rdmachan_count_inc(enum rdmachan_counter counter);
void rdmachan_count_dec(enum rdmachan_counter counter);
void rdmachan_debugfs_init(void);
void rdmachan_debugfs_exit(void);
void rdmachan_debugfs_add_file(struct rdmachan_file *file);
void rdmachan_debugfs_remove_file(struct rdmachan_file *file);

#endif /* RDMACHAN_KMOD_H */
