// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sysfs helpers that libibverbs exports and ibv_devinfo calls:
 * ibv_read_sysfs_file() and (from its provider interface)
 * ibv_query_gid_type().
 */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* libibverbs' enum ibv_gid_type_sysfs (infiniband/driver.h, not installed) */
enum {
	GID_TYPE_SYSFS_IB_ROCE_V1,
	GID_TYPE_SYSFS_ROCE_V2,
};

/*
 * Reads DIR/FILE into BUF as a string without its trailing newline and
 * returns its length; -1 with errno when it cannot be read or does not fit.
 */
EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			       size_t size)
{
	char path[512];
	ssize_t len;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return len;
	if (buf[len - 1] == '\n') {
		buf[--len] = '\0';
	} else if ((size_t)len < size) {
		buf[len] = '\0';
	} else {
		errno = EOVERFLOW;
		return -1;
	}
	return len;
}

/*
 * The GID type of a port's GID table entry, from the device's sysfs
 * directory; an empty entry counts as IB/RoCE v1, as in libibverbs.
 */
EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
			      unsigned int index, int *type)
{
	char file[64], buf[32];

	snprintf(file, sizeof(file), "ports/%u/gid_attrs/types/%u", port_num,
		 index);
	if (ibv_read_sysfs_file(context->device->ibdev_path, file, buf,
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
