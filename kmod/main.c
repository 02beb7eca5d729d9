// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the /dev/rdmachan misc device, its files and ioctl dispatch.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rdmachan.h"

struct rdmachan_ioctl_op {
	/* sizeof() of the module's layout, and of the first one if older */
	size_t size;
	size_t min_size;
	u32 known_flags;
	/* commands without out_* fields never write back */
	bool no_output;
	int (*handler)(struct rdmachan_call *call, void *arg);
};

#define RDMACHAN_OP(_nr, _struct, _handler) \
	[_nr] = { .size = sizeof(struct _struct), .handler = _handler }

static const struct rdmachan_ioctl_op rdmachan_ops[] = {
	RDMACHAN_OP(RDMACHAN_CMD_GET_INFO, rdmachan_get_info,
		    rdmachan_cmd_get_info),
	RDMACHAN_OP(RDMACHAN_CMD_LIST_DEVICES, rdmachan_list_devices,
		    rdmachan_cmd_list_devices),
	RDMACHAN_OP(RDMACHAN_CMD_OPEN_DEVICE, rdmachan_open_device,
		    rdmachan_cmd_open_device),
	[RDMACHAN_CMD_DESTROY] = {
		.size = sizeof(struct rdmachan_destroy),
		.no_output = true,
		.handler = rdmachan_cmd_destroy,
	},
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_DEVICE, rdmachan_query_device,
		    rdmachan_cmd_query_device),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_PORT, rdmachan_query_port,
		    rdmachan_cmd_query_port),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_GID, rdmachan_query_gid,
		    rdmachan_cmd_query_gid),
};

/* Large enough for the argument of any command. */
union rdmachan_ioctl_buf {
	struct rdmachan_get_info get_info;
	struct rdmachan_list_devices list_devices;
	struct rdmachan_open_device open_device;
	struct rdmachan_destroy destroy;
	struct rdmachan_query_device query_device;
	struct rdmachan_query_port query_port;
	struct rdmachan_query_gid query_gid;
};

struct rdmachan_ioctl_header {
	u32 size;
	u32 flags;
};

static long rdmachan_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long uarg)
{
	struct rdmachan_file *file = filp->private_data;
	struct rdmachan_call call = { .file = file };
	void __user *argp = (void __user *)uarg;
	const struct rdmachan_ioctl_op *op;
	union rdmachan_ioctl_buf buf;
	struct rdmachan_ioctl_header *hdr = (void *)&buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (_IOC_TYPE(cmd) != RDMACHAN_IOCTL_TYPE ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE) ||
	    nr >= ARRAY_SIZE(rdmachan_ops) || !rdmachan_ops[nr].handler)
		return -ENOTTY;
	op = &rdmachan_ops[nr];

	/* Like ucma and uverbs: a file belongs to the process that opened it. */
	if (task_tgid(current) != file->owner)
		return -EACCES;

	if (get_user(usize, (u32 __user *)argp))
		return -EFAULT;
	if (usize < (op->min_size ?: op->size))
		return -EINVAL;
	ret = copy_struct_from_user(&buf, op->size, argp, usize);
	if (ret)
		return ret;
	if (hdr->flags & ~op->known_flags)
		return -EINVAL;

	ret = op->handler(&call, &buf);
	if (!ret && !op->no_output &&
	    copy_to_user(argp, &buf, min_t(size_t, usize, op->size)))
		ret = -EFAULT;
	if (call.new_obj) {
		if (ret)
			rdmachan_object_abort(&call);
		else
			rdmachan_object_publish(&call);
	}
	return ret;
}

static int rdmachan_open(struct inode *inode, struct file *filp)
{
	struct rdmachan_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	xa_init_flags(&file->objects, XA_FLAGS_ALLOC1);
	file->owner = get_pid(task_tgid(current));
	filp->private_data = file;
	rdmachan_debugfs_add_file(file);
	rdmachan_count_inc(RDMACHAN_COUNT_FILES);
	return nonseekable_open(inode, filp);
}

static int rdmachan_release(struct inode *inode, struct file *filp)
{
	struct rdmachan_file *file = filp->private_data;

	/* Waits for readers of the file's debugfs entry. */
	rdmachan_debugfs_remove_file(file);
	rdmachan_objects_release(file);
	xa_destroy(&file->objects);
	put_pid(file->owner);
	kfree(file);
	rdmachan_count_dec(RDMACHAN_COUNT_FILES);
	return 0;
}

static const struct file_operations rdmachan_fops = {
	.owner = THIS_MODULE,
	.open = rdmachan_open,
	.release = rdmachan_release,
	.unlocked_ioctl = rdmachan_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice rdmachan_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rdmachan",
	.fops = &rdmachan_fops,
	.mode = 0666,
};

int rdmachan_cmd_get_info(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_get_info *cmd = arg;

	if (cmd->__reserved)
		return -EINVAL;
	cmd->out_abi_version = RDMACHAN_ABI_VERSION;
	cmd->out_features = RDMACHAN_FEATURE_DEVICE_QUERY;
	return 0;
}

static int __init rdmachan_init(void)
{
	int ret;

	rdmachan_debugfs_init();
	ret = rdmachan_devices_init();
	if (ret)
		goto err_debugfs;
	ret = misc_register(&rdmachan_misc);
	if (ret)
		goto err_devices;
	return 0;

err_devices:
	rdmachan_devices_exit();
err_debugfs:
	rdmachan_debugfs_exit();
	return ret;
}

static void __exit rdmachan_exit(void)
{
	misc_deregister(&rdmachan_misc);
	rdmachan_devices_exit();
	rdmachan_debugfs_exit();
}

module_init(rdmachan_init);
module_exit(rdmachan_exit);

MODULE_DESCRIPTION("RDMA connection manager event channels over ioctl");
MODULE_LICENSE("GPL");
