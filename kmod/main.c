// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the /dev/rdmachan misc device, its files and ioctl dispatch.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/poll.h>
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
#define RDMACHAN_OP_FLAGS(_nr, _struct, _handler, _flags) \
	[_nr] = { .size = sizeof(struct _struct), .handler = _handler, \
		  .known_flags = _flags }
#define RDMACHAN_OP_NO_OUTPUT(_nr, _struct, _handler) \
	[_nr] = { .size = sizeof(struct _struct), .handler = _handler, \
		  .no_output = true }

static const struct rdmachan_ioctl_op rdmachan_ops[] = {
	RDMACHAN_OP(RDMACHAN_CMD_GET_INFO, rdmachan_get_info,
		    rdmachan_cmd_get_info),
	RDMACHAN_OP(RDMACHAN_CMD_LIST_DEVICES, rdmachan_list_devices,
		    rdmachan_cmd_list_devices),
	RDMACHAN_OP(RDMACHAN_CMD_OPEN_DEVICE, rdmachan_open_device,
		    rdmachan_cmd_open_device),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_DESTROY, rdmachan_destroy,
			      rdmachan_cmd_destroy),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_DEVICE, rdmachan_query_device,
		    rdmachan_cmd_query_device),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_PORT, rdmachan_query_port,
		    rdmachan_cmd_query_port),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_GID, rdmachan_query_gid,
		    rdmachan_cmd_query_gid),
	RDMACHAN_OP(RDMACHAN_CMD_CREATE_ID, rdmachan_create_id,
		    rdmachan_cmd_create_id),
	RDMACHAN_OP(RDMACHAN_CMD_BIND_ADDR, rdmachan_bind_addr,
		    rdmachan_cmd_bind_addr),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_RESOLVE_ADDR, rdmachan_resolve_addr,
			      rdmachan_cmd_resolve_addr),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_RESOLVE_ROUTE, rdmachan_id_cmd,
			      rdmachan_cmd_resolve_route),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_LISTEN, rdmachan_id_cmd,
			      rdmachan_cmd_listen),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_CONNECT, rdmachan_connect,
			      rdmachan_cmd_connect),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_ACCEPT, rdmachan_connect,
			      rdmachan_cmd_accept),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_REJECT, rdmachan_reject,
			      rdmachan_cmd_reject),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_DISCONNECT, rdmachan_id_cmd,
			      rdmachan_cmd_disconnect),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_ESTABLISH, rdmachan_id_cmd,
			      rdmachan_cmd_establish),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_NOTIFY, rdmachan_id_cmd,
			      rdmachan_cmd_notify),
	/* It writes its output itself, as each event goes out. */
	[RDMACHAN_CMD_GET_EVENTS] = {
		.size = sizeof(struct rdmachan_get_events),
		.known_flags = RDMACHAN_GET_EVENTS_NONBLOCK,
		.no_output = true,
		.handler = rdmachan_cmd_get_events,
	},
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_ACK_EVENTS, rdmachan_get_events,
			      rdmachan_cmd_ack_events),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_SET_OPTION, rdmachan_set_option,
			      rdmachan_cmd_set_option),
	RDMACHAN_OP(RDMACHAN_CMD_INIT_QP_ATTR, rdmachan_init_qp_attr,
		    rdmachan_cmd_init_qp_attr),
	/* It writes out_handle itself, before the id moves. */
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_MIGRATE_ID, rdmachan_migrate_id,
			      rdmachan_cmd_migrate_id),
	/* It writes out_fd itself, before the descriptor is installed. */
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_CREATE_COMP_CHANNEL,
			      rdmachan_create_comp_channel,
			      rdmachan_cmd_create_comp_channel),
	/* RDMACHAN_CMD_GET_CQ_EVENT works on a completion channel only. */
	RDMACHAN_OP(RDMACHAN_CMD_ALLOC_PD, rdmachan_alloc_pd,
		    rdmachan_cmd_alloc_pd),
	RDMACHAN_OP(RDMACHAN_CMD_REG_MR, rdmachan_reg_mr, rdmachan_cmd_reg_mr),
	/* The first layout had no out_ring_* fields. */
	[RDMACHAN_CMD_CREATE_CQ] = {
		.size = sizeof(struct rdmachan_create_cq),
		.min_size = offsetofend(struct rdmachan_create_cq, out_cqe),
		.known_flags = RDMACHAN_CREATE_CQ_RING,
		.handler = rdmachan_cmd_create_cq,
	},
	[RDMACHAN_CMD_REQ_NOTIFY_CQ] = {
		.size = sizeof(struct rdmachan_notify_cq),
		.known_flags = RDMACHAN_NOTIFY_SOLICITED,
		.no_output = true,
		.handler = rdmachan_cmd_req_notify_cq,
	},
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_ACK_CQ_EVENTS, rdmachan_notify_cq,
			      rdmachan_cmd_ack_cq_events),
	RDMACHAN_OP(RDMACHAN_CMD_POLL_CQ, rdmachan_poll_cq,
		    rdmachan_cmd_poll_cq),
	RDMACHAN_OP_FLAGS(RDMACHAN_CMD_CREATE_QP, rdmachan_create_qp,
			  rdmachan_cmd_create_qp,
			  RDMACHAN_CREATE_QP_CM_ID |
			  RDMACHAN_CREATE_QP_SQ_SIG_ALL),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_MODIFY_QP, rdmachan_modify_qp,
			      rdmachan_cmd_modify_qp),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_QP, rdmachan_modify_qp,
		    rdmachan_cmd_query_qp),
	/* Posts write out_num_posted themselves, also when they fail. */
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_POST_SEND, rdmachan_post,
			      rdmachan_cmd_post_send),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_POST_RECV, rdmachan_post,
			      rdmachan_cmd_post_recv),
	RDMACHAN_OP(RDMACHAN_CMD_CREATE_SRQ, rdmachan_create_srq,
		    rdmachan_cmd_create_srq),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_MODIFY_SRQ, rdmachan_modify_srq,
			      rdmachan_cmd_modify_srq),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_SRQ, rdmachan_modify_srq,
		    rdmachan_cmd_query_srq),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_POST_SRQ_RECV, rdmachan_post,
			      rdmachan_cmd_post_srq_recv),
	RDMACHAN_OP(RDMACHAN_CMD_CREATE_AH, rdmachan_create_ah,
		    rdmachan_cmd_create_ah),
	/* It writes out_handle itself, before the CM has the join. */
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_JOIN_MCAST, rdmachan_join_mcast,
			      rdmachan_cmd_join_mcast),
	/* It writes out_fd itself, before the descriptor is installed. */
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_OPEN_ASYNC_FD,
			      rdmachan_open_async_fd,
			      rdmachan_cmd_open_async_fd),
	/* RDMACHAN_CMD_GET_ASYNC_EVENT works on an async event file only. */
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_ACK_ASYNC_EVENT,
			      rdmachan_ack_async_event,
			      rdmachan_cmd_ack_async_event),
	RDMACHAN_OP_NO_OUTPUT(RDMACHAN_CMD_UPDATE_CQ_RING,
			      rdmachan_update_cq_ring,
			      rdmachan_cmd_update_cq_ring),
	RDMACHAN_OP_FLAGS(RDMACHAN_CMD_BIND_USER_QP, rdmachan_bind_user_qp,
			  rdmachan_cmd_bind_user_qp,
			  RDMACHAN_BIND_USER_QP_UNBIND),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_EVENTS, rdmachan_query_events,
		    rdmachan_cmd_query_events),
	RDMACHAN_OP(RDMACHAN_CMD_QUERY_ASYNC_EVENTS,
		    rdmachan_query_async_events,
		    rdmachan_cmd_query_async_events),
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
	struct rdmachan_create_id create_id;
	struct rdmachan_bind_addr bind_addr;
	struct rdmachan_resolve_addr resolve_addr;
	struct rdmachan_id_cmd id_cmd;
	struct rdmachan_connect connect;
	struct rdmachan_reject reject;
	struct rdmachan_get_events get_events;
	struct rdmachan_set_option set_option;
	struct rdmachan_init_qp_attr init_qp_attr;
	struct rdmachan_migrate_id migrate_id;
	struct rdmachan_create_comp_channel create_comp_channel;
	struct rdmachan_alloc_pd alloc_pd;
	struct rdmachan_reg_mr reg_mr;
	struct rdmachan_create_cq create_cq;
	struct rdmachan_notify_cq notify_cq;
	struct rdmachan_poll_cq poll_cq;
	struct rdmachan_create_qp create_qp;
	struct rdmachan_modify_qp modify_qp;
	struct rdmachan_post post;
	struct rdmachan_create_srq create_srq;
	struct rdmachan_modify_srq modify_srq;
	struct rdmachan_create_ah create_ah;
	struct rdmachan_join_mcast join_mcast;
	struct rdmachan_open_async_fd open_async_fd;
	struct rdmachan_ack_async_event ack_async_event;
	struct rdmachan_update_cq_ring update_cq_ring;
	struct rdmachan_bind_user_qp bind_user_qp;
	struct rdmachan_query_events query_events;
	struct rdmachan_query_async_events query_async_events;
};

struct rdmachan_ioctl_header {
	u32 size;
	u32 flags;
};

static long rdmachan_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long uarg)
{
	struct rdmachan_file *file = filp->private_data;
	struct rdmachan_call call = { .filp = filp, .file = file,
				      .uarg = (void __user *)uarg };
	void __user *argp = (void __user *)uarg;
	const struct rdmachan_ioctl_op *op;
	/* Only the op->size bytes copy_struct_from_user() fills are used. */
	union rdmachan_ioctl_buf buf __uninitialized;
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

	file = kzalloc(sizeof(*file), RDMACHAN_GFP);
	if (!file)
		return -ENOMEM;
	file->memcg = get_mem_cgroup_from_mm(current->mm);
	kref_init(&file->ref);
	init_rwsem(&file->verbs_lock);
	xa_init_flags(&file->objects, XA_FLAGS_ALLOC1);
	rdmachan_cm_file_init(file);
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
	rdmachan_verbs_file_release(file);
	rdmachan_objects_release(file);
	rdmachan_cm_file_release(file);
	xa_destroy(&file->objects);
	rdmachan_file_put(file);
	return 0;
}

void rdmachan_file_get(struct rdmachan_file *file)
{
	kref_get(&file->ref);
}

static void rdmachan_file_free(struct kref *ref)
{
	struct rdmachan_file *file = container_of(ref, struct rdmachan_file,
						  ref);

	put_pid(file->owner);
	mem_cgroup_put(file->memcg);
	kfree(file);
	rdmachan_count_dec(RDMACHAN_COUNT_FILES);
}

void rdmachan_file_put(struct rdmachan_file *file)
{
	kref_put(&file->ref, rdmachan_file_free);
}

static __poll_t rdmachan_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct rdmachan_file *file = filp->private_data;

	poll_wait(filp, &file->events_wait, wait);
	return rdmachan_cm_events_pending(file) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* The only thing to map is a CQ's completion ring. */
static int rdmachan_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct rdmachan_file *file = filp->private_data;

	if (task_tgid(current) != file->owner)
		return -EACCES;
	return rdmachan_cq_ring_mmap(file, vma);
}

static const struct file_operations rdmachan_fops = {
	.owner = THIS_MODULE,
	.mmap = rdmachan_mmap,
	.open = rdmachan_open,
	.release = rdmachan_release,
	.poll = rdmachan_poll,
	.unlocked_ioctl = rdmachan_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = rdmachan_show_fdinfo,
};

bool rdmachan_is_rdmachan_file(struct file *filp)
{
	return filp->f_op == &rdmachan_fops;
}

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
	cmd->out_features = RDMACHAN_FEATURE_DEVICE_QUERY | RDMACHAN_FEATURE_CM |
			    RDMACHAN_FEATURE_VERBS |
			    RDMACHAN_FEATURE_ASYNC_EVENTS |
			    RDMACHAN_FEATURE_INTROSPECT |
			    RDMACHAN_FEATURE_CQ_RING;
	if (rdmachan_user_qp_supported())
		cmd->out_features |= RDMACHAN_FEATURE_USER_QP;
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
