// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: opening /dev/rdmachan, its ioctls, and what the module
 * offers (rdmachan_get_info). Shared by librdmachan and bypass mode's
 * librdmacm, so it defines no ibv_* function.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdmachan/rdmachan.h>

#include "internal.h"

/* The errno of a missing module is ENOSYS, as libibverbs reports it. */
int rdmachan_open_fd(void)
{
	int fd = open(RDMACHAN_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		errno = ENOSYS;
	else if (fd < 0 && errno == EACCES)
		errno = EPERM;
	return fd;
}

/* A module older than the call does not know it: not supported. */
int rdmachan_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	if (ret && errno == ENOTTY)
		errno = EOPNOTSUPP;
	return ret;
}

RDMACHAN_EXPORT int rdmachan_get_info(uint32_t *abi_version, uint64_t *features)
{
	struct rdmachan_get_info cmd = { .size = sizeof(cmd) };
	int fd, ret, err;

	fd = rdmachan_open_fd();
	if (fd < 0)
		return -1;
	ret = rdmachan_ioctl(fd, RDMACHAN_IOC_GET_INFO, &cmd);
	err = errno;
	close(fd);
	if (ret) {
		errno = err;
		return -1;
	}
	*abi_version = cmd.out_abi_version;
	*features = cmd.out_features;
	return 0;
}

static pthread_once_t features_once = PTHREAD_ONCE_INIT;
static uint64_t module_features;

static void read_features(void)
{
	uint32_t abi;

	if (rdmachan_get_info(&abi, &module_features))
		module_features = 0;
}

/* Whether the loaded module has all RDMACHAN_FEATURE_* bits of @bits. */
bool rdmachan_has_features(uint64_t bits)
{
	pthread_once(&features_once, read_features);
	return (module_features & bits) == bits;
}
