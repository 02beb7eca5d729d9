// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sysfs helpers that libibverbs exports and ibv_devinfo calls:
 * ibv_read_sysfs_file() and (from its provider interface)
 * ibv_query_gid_type().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../lib/internal.h"

/* libibverbs' enum ibv_gid_type_sysfs (infiniband/driver.h, not installed) */
enum {
	GID_TYPE_SYSFS_IB_ROCE_V1,
	GID_TYPE_SYSFS_ROCE_V2,
};

/* libibverbs' helper: the reader librdmachan's own queries use */
RDMACHAN_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
					char *buf, size_t size)
{
	return rdmachan_read_sysfs(dir, file, buf, size);
}

/*
 * The GID type of a port's GID table entry, from the device's sysfs
 * directory; an empty entry counts as IB/RoCE v1, as in libibverbs.
 */
RDMACHAN_EXPORT int ibv_query_gid_type(struct ibv_context *context,
				       uint8_t port_num, unsigned int index,
				       int *type)
{
	char file[64], buf[32];

	snprintf(file, sizeof(file), "ports/%u/gid_attrs/types/%u", port_num,
		 index);
	if (rdmachan_read_sysfs(context->device->ibdev_path, file, buf,
				sizeof(buf)) < 0) {
		/* sysfs refuses to read the type of an empty entry */
		if (errno != EINVAL && errno != ENODATA)
			return -1;
		*type = GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	*type = strcmp(buf, "RoCE v2") ? GID_TYPE_SYSFS_IB_ROCE_V1 :
					 GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}
