// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: finding a CM id by handle and locking it for a call; what the
 * CM operations, multicast joins and QP bindings all start with. A leaf.
 */
#include <linux/file.h>

#include "rdmachan.h"

/*
 * Looks up a CM id of the calling file and locks it for a CM call; -ENODEV
 * when its kernel id is gone (device removal). Undo with
 * rdmachan_cm_id_unlock().
 */
struct rdmachan_cm_id *rdmachan_cm_id_lock(struct rdmachan_file *file,
					   u32 handle)
{
	struct rdmachan_object *obj;
	struct rdmachan_cm_id *id;

	obj = rdmachan_object_get(file, handle, RDMACHAN_OBJ_CM_ID);
	if (!obj)
		return ERR_PTR(-ENOENT);
	id = container_of(obj, struct rdmachan_cm_id, obj);
	mutex_lock(&id->lock);
	if (!id->cm_id) {
		mutex_unlock(&id->lock);
		rdmachan_object_put(obj);
		return ERR_PTR(-ENODEV);
	}
	return id;
}

void rdmachan_cm_id_unlock(struct rdmachan_cm_id *id)
{
	mutex_unlock(&id->lock);
	rdmachan_object_put(&id->obj);
}

/*
 * rdmachan_cm_id_lock() on a CM id of the /dev/rdmachan file open as @fd
 * in this process, which may be @file itself.
 */
int rdmachan_cm_id_lock_fd(struct rdmachan_file *file, int fd, u32 handle,
			   struct rdmachan_cm_id **idp)
{
	struct rdmachan_file *id_file;
	struct rdmachan_cm_id *id;
	struct fd f;
	int ret = 0;

	f = fdget(fd);
	if (!fd_file(f))
		return -EBADF;
	id_file = rdmachan_file_of(fd_file(f), file);
	if (IS_ERR(id_file)) {
		ret = PTR_ERR(id_file);
		goto out;
	}
	id = rdmachan_cm_id_lock(id_file, handle);
	if (IS_ERR(id))
		ret = PTR_ERR(id);
	else
		*idp = id;
out:
	fdput(f);
	return ret;
}
