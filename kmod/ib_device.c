// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the IB devices the module follows, through an ib_client.
 *
 * Each IB device gets a struct rdmachan_device, found by the IB core's
 * device index. When the device is removed, the IB core calls our remove
 * callback and may free the device right after it returns, so remove
 * unpublishes the entry, waits for callers inside the device
 * (removal_lock), cuts the link and tears down the verbs objects on it;
 * files keep the rdmachan_device itself and their handles until they let
 * go of them, and see -ENODEV from then on.
 */
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>

#include "rdmachan.h"

/* Serialises add/remove against lookups and listing. */
static DEFINE_MUTEX(rdmachan_devices_lock);
static DEFINE_XARRAY(rdmachan_devices);

static void rdmachan_device_free(struct kref *ref)
{
	struct rdmachan_device *dev =
		container_of(ref, struct rdmachan_device, ref);

	mutex_destroy(&dev->verbs_lock);
	mutex_destroy(&dev->async_lock);
	kfree(dev);
	rdmachan_count_dec(RDMACHAN_COUNT_DEVICES);
}

void rdmachan_device_put(struct rdmachan_device *dev)
{
	kref_put(&dev->ref, rdmachan_device_free);
}

struct rdmachan_device *rdmachan_device_get_by_index(u32 index)
{
	struct rdmachan_device *dev;

	mutex_lock(&rdmachan_devices_lock);
	dev = xa_load(&rdmachan_devices, index);
	if (dev)
		kref_get(&dev->ref);
	mutex_unlock(&rdmachan_devices_lock);
	return dev;
}

/*
 * @ibdev's removal has not begun: it unpublishes the device before its
 * walk of the CM ids, so an id locked by the caller and found on a
 * published device is still to be walked. xa_load() takes no lock of
 * ours, so any may be held.
 */
bool rdmachan_device_published(const struct ib_device *ibdev)
{
	return xa_load(&rdmachan_devices, ibdev->index);
}

/*
 * Returns the IB device with removal_lock held for read, or NULL (lock not
 * held) when it has been removed.
 */
struct ib_device *rdmachan_device_enter(struct rdmachan_device *dev)
{
	down_read(&dev->removal_lock);
	if (!dev->ibdev) {
		up_read(&dev->removal_lock);
		return NULL;
	}
	return dev->ibdev;
}

void rdmachan_device_exit(struct rdmachan_device *dev)
{
	up_read(&dev->removal_lock);
}

static struct ib_client rdmachan_client;
static const struct rdmachan_device_hooks *rdmachan_device_hooks;

static int rdmachan_add_one(struct ib_device *ibdev)
{
	struct rdmachan_device *dev;
	int ret, i;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->ref);
	init_rwsem(&dev->removal_lock);
	mutex_init(&dev->verbs_lock);
	for (i = 0; i < RDMACHAN_VERBS_RANKS; i++)
		INIT_LIST_HEAD(&dev->verbs[i]);
	mutex_init(&dev->async_lock);
	INIT_LIST_HEAD(&dev->async_queues);
	mutex_init(&dev->charge_lock);
	INIT_LIST_HEAD(&dev->charges);
	dev->ibdev = ibdev;
	dev->index = ibdev->index;
	/* Port events reach every async file from the start. */
	rdmachan_device_hooks->adding(dev, ibdev);

	mutex_lock(&rdmachan_devices_lock);
	ret = xa_insert(&rdmachan_devices, dev->index, dev, GFP_KERNEL);
	mutex_unlock(&rdmachan_devices_lock);
	if (ret) {
		rdmachan_device_hooks->removing(dev);
		kfree(dev);
		return ret;
	}
	rdmachan_count_inc(RDMACHAN_COUNT_DEVICES);
	ib_set_client_data(ibdev, &rdmachan_client, dev);
	return 0;
}

static void rdmachan_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct rdmachan_device *dev = client_data;

	mutex_lock(&rdmachan_devices_lock);
	xa_erase(&rdmachan_devices, dev->index);
	mutex_unlock(&rdmachan_devices_lock);
	/* DEVICE_FATAL comes before the objects go, as with ib_uverbs. */
	rdmachan_device_hooks->removing(dev);
	/*
	 * Then the CM ids hear of it and let go of the uverbs files they
	 * hold: the module's client registers after ib_uverbs' (main.c), so
	 * this runs before ib_uverbs' removal, which waits for every uverbs
	 * file of the device to close, and before rdma_cm's.
	 */
	rdmachan_device_hooks->removing_ids(ibdev);

	down_write(&dev->removal_lock);
	dev->ibdev = NULL;
	up_write(&dev->removal_lock);
	/* The IB core waits for no object of ours: they go now. */
	rdmachan_device_hooks->removed(dev);
	rdmachan_uncharge_device(dev);
	rdmachan_device_put(dev);
}

static struct ib_client rdmachan_client = {
	.name = "rdmachan",
	.add = rdmachan_add_one,
	.remove = rdmachan_remove_one,
};

int rdmachan_devices_init(const struct rdmachan_device_hooks *hooks)
{
	rdmachan_device_hooks = hooks;
	return ib_register_client(&rdmachan_client);
}

void rdmachan_devices_exit(void)
{
	ib_unregister_client(&rdmachan_client);
	WARN_ON(!xa_empty(&rdmachan_devices));
}

/*
 * The caller's network namespace may use @ibdev: the RDMA subsystem's
 * rule (shared or exclusive mode), which ib_uverbs applies at open.
 */
bool rdmachan_device_visible(struct ib_device *ibdev)
{
	return rdma_dev_access_netns(ibdev, current->nsproxy->net_ns);
}

static void rdmachan_fill_entry(struct rdmachan_device_entry *entry,
				struct ib_device *ibdev)
{
	memset(entry, 0, sizeof(*entry));
	entry->device_index = ibdev->index;
	entry->node_type = ibdev->node_type;
	entry->transport = rdma_node_get_transport(ibdev->node_type);
	entry->phys_port_cnt = rdma_end_port(ibdev);
	entry->node_guid = (__force u64)ibdev->node_guid;
	strscpy(entry->name, dev_name(&ibdev->dev), sizeof(entry->name));
}

/*
 * The entries are gathered under the lock and copied out after it, so a
 * slow or faulting user buffer never holds up device removal.
 */
int rdmachan_cmd_list_devices(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_list_devices *cmd = arg;
	void __user *uentries = u64_to_user_ptr(cmd->entries);
	size_t copy = min_t(size_t, cmd->entry_size,
			    sizeof(struct rdmachan_device_entry));
	struct rdmachan_device_entry *entries = NULL;
	struct rdmachan_device *dev;
	unsigned long index;
	u32 count = 0, n, room;
	int ret = 0;

	if (cmd->__reserved ||
	    cmd->entry_size < sizeof(struct rdmachan_device_entry))
		return -EINVAL;

	mutex_lock(&rdmachan_devices_lock);
	xa_for_each(&rdmachan_devices, index, dev)
		if (rdmachan_device_visible(dev->ibdev))
			count++;
	n = min(count, cmd->max_entries);
	if (n) {
		entries = kmalloc_array(n, sizeof(*entries), GFP_KERNEL);
		if (!entries) {
			mutex_unlock(&rdmachan_devices_lock);
			return -ENOMEM;
		}
		/* a device may change namespace between the two walks */
		room = n;
		n = 0;
		xa_for_each(&rdmachan_devices, index, dev) {
			if (n == room)
				break;
			if (rdmachan_device_visible(dev->ibdev))
				rdmachan_fill_entry(&entries[n++], dev->ibdev);
		}
	}
	mutex_unlock(&rdmachan_devices_lock);

	for (index = 0; index < n; index++) {
		if (copy_to_user(uentries + index * cmd->entry_size,
				 &entries[index], copy)) {
			ret = -EFAULT;
			break;
		}
	}
	kfree(entries);
	cmd->out_num_devices = count;
	return ret;
}
