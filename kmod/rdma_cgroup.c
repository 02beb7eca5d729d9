// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the RDMA cgroup controller, charged as ib_uverbs charges it.
 * A device context is an hca_handle and each verbs object an hca_object
 * of the caller's cgroup, from before its IB object is made until it is
 * destroyed, its file closes or its device goes away. The device's
 * cgroup pools go with the device, so its removal uncharges everything
 * still charged on it, under the same lock as every other uncharge.
 */
#include "rdmachan.h"

#ifdef CONFIG_CGROUP_RDMA

/*
 * Charges @type on @ibdev, the IB device of @dev entered by the caller,
 * to the calling task's cgroup: 0, or -EAGAIN at the cgroup's limit.
 */
int rdmachan_charge(struct rdmachan_device *dev, struct ib_device *ibdev,
		    struct rdmachan_charge *c, enum rdmacg_resource_type type)
{
	int ret;

	ret = rdmacg_try_charge(&c->cg, &ibdev->cg_device, type);
	if (ret)
		return ret;
	c->ibdev = ibdev;
	c->type = type;
	mutex_lock(&dev->charge_lock);
	list_add(&c->dev_entry, &dev->charges);
	mutex_unlock(&dev->charge_lock);
	return 0;
}

static void rdmachan_uncharge_locked(struct rdmachan_charge *c)
{
	rdmacg_uncharge(c->cg, &c->ibdev->cg_device, c->type);
	list_del_init(&c->dev_entry);
	c->ibdev = NULL;
}

/* Undoes rdmachan_charge(), once; any time, in process context. */
void rdmachan_uncharge(struct rdmachan_device *dev, struct rdmachan_charge *c)
{
	if (!dev)
		return;
	mutex_lock(&dev->charge_lock);
	if (c->ibdev)
		rdmachan_uncharge_locked(c);
	mutex_unlock(&dev->charge_lock);
}

/* The device is going away: before its cgroup pools do. */
void rdmachan_uncharge_device(struct rdmachan_device *dev)
{
	struct rdmachan_charge *c, *tmp;

	mutex_lock(&dev->charge_lock);
	list_for_each_entry_safe(c, tmp, &dev->charges, dev_entry)
		rdmachan_uncharge_locked(c);
	mutex_unlock(&dev->charge_lock);
}

#endif /* CONFIG_CGROUP_RDMA */
