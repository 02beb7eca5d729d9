// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: the device contexts of the connection manager (id->verbs,
 * rdma_get_devices, rdma_free_devices).
 *
 * Like librdmacm, the library opens one ibv_context per device the first
 * time an id is bound to the device or rdma_get_devices() lists it, shares
 * it between every id on that device and keeps it open for the life of the
 * process. A context whose device has been removed stays allocated (its
 * calls fail with ENODEV); the device's successor has another index and so
 * another context. The PD ids get (id->pd) is allocated when the first id
 * binds to the device and kept with the context.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "cm.h"
#include "verbs_internal.h"

static pthread_mutex_t cm_devices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_device **cm_devices;
static unsigned int cm_num_devices;

/* Caller holds cm_devices_lock. */
static struct cm_device *cm_device_find(uint32_t index)
{
	unsigned int i;

	for (i = 0; i < cm_num_devices; i++) {
		if (cm_devices[i]->index == index)
			return cm_devices[i];
	}
	return NULL;
}

static uint8_t cm_clamp_u8(int v)
{
	if (v < 0)
		return 0;
	return v > 0xff ? 0xff : (uint8_t)v;
}

/* Open a context on @ibdev and add it to the list. Caller holds the lock. */
static struct cm_device *cm_device_open(struct ibv_device *ibdev)
{
	struct ibv_device_attr attr;
	struct cm_device **bigger;
	struct cm_device *dev;
	int ret;

	bigger = realloc(cm_devices, (cm_num_devices + 1) * sizeof(*bigger));
	if (!bigger) {
		errno = ENOMEM;
		return NULL;
	}
	cm_devices = bigger;
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		errno = ENOMEM;
		return NULL;
	}
	dev->verbs = cm_verbs()->open_device(ibdev);
	if (!dev->verbs)
		goto err_free;
	ret = cm_verbs()->query_device(dev->verbs, &attr);
	if (ret) {
		cm_verbs()->close_device(dev->verbs);
		errno = ret;
		goto err_free;
	}
	dev->index = cm_verbs()->device_index(ibdev);
	dev->max_initiator_depth = cm_clamp_u8(attr.max_qp_init_rd_atom);
	dev->max_responder_resources = cm_clamp_u8(attr.max_qp_rd_atom);
	cm_devices[cm_num_devices++] = dev;
	return dev;

err_free:
	free(dev);
	return NULL;
}

static pthread_once_t cm_devices_listed = PTHREAD_ONCE_INIT;

static void cm_devices_list_once(void)
{
	struct ibv_device **list;
	int n;

	list = cm_verbs()->get_device_list(&n);
	if (list)
		cm_verbs()->free_device_list(list);
}

/*
 * librdmacm lists the devices when the first event channel is made, and
 * the first list is what loads the system libibverbs' providers: doing it
 * there too keeps that cost out of the first bind or address resolution.
 * Without a device the channel still works, as it always has here.
 */
void cm_devices_prepare(void)
{
	int err = errno;

	pthread_once(&cm_devices_listed, cm_devices_list_once);
	errno = err;
}

/*
 * The process-wide context of the device with kernel index @index, opened
 * on first use, with its PD if one can be had. NULL with errno set (ENODEV: no such device)
 * on failure.
 */
struct cm_device *cm_device_get(uint32_t index)
{
	struct ibv_device **list;
	struct cm_device *dev;
	int i, n;

	pthread_mutex_lock(&cm_devices_lock);
	dev = cm_device_find(index);
	if (dev)
		goto pd;
	list = cm_verbs()->get_device_list(&n);
	if (!list)
		goto out;
	errno = ENODEV;
	for (i = 0; i < n; i++) {
		if (cm_verbs()->device_index(list[i]) == index) {
			dev = cm_device_open(list[i]);
			break;
		}
	}
	cm_verbs()->free_device_list(list);
	if (!dev)
		goto out;
pd:
	/*
	 * Without it (no memory, a module without verbs) ids have no id->pd
	 * and their QP calls fail; the CM itself still works.
	 */
	if (!dev->pd)
		dev->pd = cm_verbs()->alloc_pd(dev->verbs);
out:
	pthread_mutex_unlock(&cm_devices_lock);
	return dev;
}

RDMACHAN_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **ctxs = NULL;
	struct ibv_device **list;
	struct cm_device *dev;
	int i, n = 0, err;

	pthread_mutex_lock(&cm_devices_lock);
	list = cm_verbs()->get_device_list(&n);
	if (!list)
		goto out;
	/* As librdmacm: no device is a failure, not an empty list. */
	if (!n) {
		errno = ENODEV;
		goto out_free;
	}
	ctxs = calloc((size_t)n + 1, sizeof(*ctxs));
	if (!ctxs) {
		errno = ENOMEM;
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		dev = cm_device_find(cm_verbs()->device_index(list[i]));
		if (!dev)
			dev = cm_device_open(list[i]);
		if (!dev) {
			err = errno;
			free(ctxs);
			ctxs = NULL;
			errno = err;
			goto out_free;
		}
		ctxs[i] = dev->verbs;
	}
out_free:
	err = errno;
	cm_verbs()->free_device_list(list);
	errno = err;
out:
	pthread_mutex_unlock(&cm_devices_lock);
	if (num_devices)
		*num_devices = ctxs ? n : 0;
	return ctxs;
}

/* The contexts stay open: only the array is the caller's. */
RDMACHAN_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}
