// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: reading a device's sysfs attributes, which libibverbs reads
 * for what its kernel interface does not return (the P_Key table, GID
 * types), so that both libraries fail the same way for a missing entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

int rdmachan_read_sysfs(const char *dir, const char *file, char *buf,
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
	if (len < 0)
		return -1;
	if (len == 0) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
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
