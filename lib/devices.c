// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: the device list and device contexts (ibv_get_device_list,
 * ibv_open_device and friends).
 *
 * Like libibverbs, the library keeps one ibv_device per kernel device for
 * as long as the device exists or anyone holds it, so the same device is
 * the same pointer in every list.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdmachan/rdmachan.h>

#include "internal.h"
#include "verbs_internal.h"
#include "mode.h"

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdmachan_ibv_device **devices;
static unsigned int num_devices;

uint32_t rdmachan_device_index(struct ibv_device *device)
{
	return to_rdev(device)->index;
}

/* Caller holds devices_lock. */
static void device_put_locked(struct rdmachan_ibv_device *dev)
{
	if (--dev->refcount == 0)
		free(dev);
}

void rdmachan_device_put(struct rdmachan_ibv_device *dev)
{
	pthread_mutex_lock(&devices_lock);
	device_put_locked(dev);
	pthread_mutex_unlock(&devices_lock);
}

static struct rdmachan_ibv_device *
device_from_entry(const struct rdmachan_device_entry *e)
{
	struct rdmachan_ibv_device *dev;
	unsigned int i;

	for (i = 0; i < num_devices; i++) {
		if (devices[i]->index == e->device_index)
			return devices[i];
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->index = e->device_index;
	dev->node_guid = (__be64)e->node_guid;
	dev->refcount = 1;
	dev->ibv.node_type = (enum ibv_node_type)e->node_type;
	dev->ibv.transport_type = (enum ibv_transport_type)e->transport;
	snprintf(dev->ibv.name, sizeof(dev->ibv.name), "%s", e->name);
	snprintf(dev->ibv.dev_name, sizeof(dev->ibv.dev_name), "rdmachan");
	snprintf(dev->ibv.dev_path, sizeof(dev->ibv.dev_path), "%s",
		 RDMACHAN_DEV_PATH);
	snprintf(dev->ibv.ibdev_path, sizeof(dev->ibv.ibdev_path),
		 "/sys/class/infiniband/%s", e->name);
	return dev;
}

/* Replace the cache by the devices in @entries. Caller holds devices_lock. */
static int refresh_devices(const struct rdmachan_device_entry *entries,
			   unsigned int n)
{
	struct rdmachan_ibv_device **fresh;
	unsigned int i, j;

	fresh = calloc(n ? n : 1, sizeof(*fresh));
	if (!fresh)
		return -1;
	for (i = 0; i < n; i++) {
		fresh[i] = device_from_entry(&entries[i]);
		if (!fresh[i])
			goto err;
		fresh[i]->refcount++;
	}
	for (i = 0; i < num_devices; i++)
		device_put_locked(devices[i]);
	free(devices);
	devices = fresh;
	num_devices = n;
	return 0;

err:
	for (j = 0; j < i; j++)
		device_put_locked(fresh[j]);
	free(fresh);
	errno = ENOMEM;
	return -1;
}

static struct rdmachan_device_entry *read_device_entries(unsigned int *n)
{
	struct rdmachan_list_devices cmd = {
		.size = sizeof(cmd),
		.entry_size = sizeof(struct rdmachan_device_entry),
	};
	struct rdmachan_device_entry *entries = NULL, *bigger;
	int fd, err;

	fd = rdmachan_open_fd();
	if (fd < 0)
		return NULL;
	/* Devices may come and go between the calls: retry until it fits. */
	for (;;) {
		cmd.entries = (uintptr_t)entries;
		if (rdmachan_ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &cmd))
			goto err;
		if (cmd.out_num_devices <= cmd.max_entries && entries)
			break;
		cmd.max_entries = cmd.out_num_devices + 4;
		bigger = realloc(entries, cmd.max_entries * sizeof(*entries));
		if (!bigger)
			goto err;
		entries = bigger;
	}
	close(fd);
	*n = cmd.out_num_devices;
	return entries;

err:
	err = errno;
	free(entries);
	close(fd);
	errno = err;
	return NULL;
}

/*
 * The bodies of the device calls, for the library's own use: they must not
 * go through the exported symbols, which another library may interpose.
 */
struct ibv_device **rdmachan_get_device_list(int *num)
{
	struct rdmachan_device_entry *entries;
	struct ibv_device **list = NULL;
	unsigned int n, i;

	entries = read_device_entries(&n);
	if (!entries)
		return NULL;

	pthread_mutex_lock(&devices_lock);
	if (refresh_devices(entries, n))
		goto out;
	list = calloc(n + 1, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		devices[i]->refcount++;
		list[i] = &devices[i]->ibv;
	}
	if (num)
		*num = (int)n;
out:
	pthread_mutex_unlock(&devices_lock);
	free(entries);
	return list;
}

RDMACHAN_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	RETURN_IF_BYPASS(ibv_get_device_list, num);
	return rdmachan_get_device_list(num);
}

void rdmachan_free_device_list(struct ibv_device **list)
{
	struct ibv_device **dev;

	if (!list)
		return;
	pthread_mutex_lock(&devices_lock);
	for (dev = list; *dev; dev++)
		device_put_locked(to_rdev(*dev));
	pthread_mutex_unlock(&devices_lock);
	free(list);
}

RDMACHAN_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	RETURN_VOID_IF_BYPASS(ibv_free_device_list, list);
	rdmachan_free_device_list(list);
}

RDMACHAN_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	RETURN_IF_BYPASS(ibv_get_device_name, device);
	return device->name;
}

RDMACHAN_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	RETURN_IF_BYPASS(ibv_get_device_guid, device);
	return to_rdev(device)->node_guid;
}

/*
 * The context's async event file, or -1 on a module without them (the
 * context works, ibv_get_async_event() fails).
 */
static int open_async_fd(int fd, uint32_t handle)
{
	struct rdmachan_open_async_fd cmd = {
		.size = sizeof(cmd),
		.context = handle,
	};

	if (rdmachan_ioctl(fd, RDMACHAN_IOC_OPEN_ASYNC_FD, &cmd))
		return errno == EOPNOTSUPP ? -2 : -1;
	return cmd.out_fd;
}

struct ibv_context *rdmachan_open_device(struct ibv_device *device)
{
	struct rdmachan_ibv_device *dev = to_rdev(device);
	struct rdmachan_open_device cmd = {
		.size = sizeof(cmd),
		.device_index = dev->index,
	};
	struct rdmachan_ibv_context *rctx;
	struct ibv_context *ctx;
	int fd, async_fd, err;

	rctx = calloc(1, sizeof(*rctx));
	if (!rctx) {
		errno = ENOMEM;
		return NULL;
	}
	fd = rdmachan_open_fd();
	if (fd < 0)
		goto err_free;
	if (rdmachan_ioctl(fd, RDMACHAN_IOC_OPEN_DEVICE, &cmd))
		goto err_close;
	async_fd = open_async_fd(fd, cmd.out_handle);
	if (async_fd == -1)
		goto err_close;

	rctx->handle = cmd.out_handle;
	rctx->vctx.sz = sizeof(rctx->vctx);
	rctx->vctx.query_port = rdmachan_query_port_op;
	rctx->vctx.query_device_ex = rdmachan_query_device_ex_op;
	rctx->vctx.create_cq_ex = vb_create_cq_ex;
	ctx = &rctx->vctx.context;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->device = device;
	ctx->cmd_fd = fd;
	ctx->async_fd = async_fd < 0 ? -1 : async_fd;
	ctx->num_comp_vectors = (int)cmd.out_num_comp_vectors;
	pthread_mutex_init(&ctx->mutex, NULL);
	vb_init_context_ops(ctx);

	pthread_mutex_lock(&devices_lock);
	dev->refcount++;
	pthread_mutex_unlock(&devices_lock);
	return ctx;

err_close:
	err = errno;
	close(fd);
	errno = err;
err_free:
	free(rctx);
	return NULL;
}

RDMACHAN_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	RETURN_IF_BYPASS(ibv_open_device, device);
	return rdmachan_open_device(device);
}

int rdmachan_close_device(struct ibv_context *context)
{
	struct rdmachan_ibv_context *rctx = to_rctx(context);

	/* Closing the file destroys every kernel object of the context. */
	close(context->cmd_fd);
	if (context->async_fd >= 0)
		close(context->async_fd);
	pthread_mutex_destroy(&context->mutex);
	rdmachan_device_put(to_rdev(context->device));
	free(rctx);
	return 0;
}

RDMACHAN_EXPORT int ibv_close_device(struct ibv_context *context)
{
	RETURN_IF_BYPASS(ibv_close_device, context);
	return rdmachan_close_device(context);
}
