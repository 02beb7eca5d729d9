// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the /dev/rdmachan misc device, its files and ioctl dispatch.
 */
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kmod.h>
#include <linux/miscdevice.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "ioctl_args.h"
#include "introspect.h"
#include "rdmachan.h"

/* Large enough for the argument of any command (checked for each below). */
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
	struct rdmachan_resolve_route resolve_route;
	struct rdmachan_listen listen;
	struct rdmachan_disconnect disconnect;
	struct rdmachan_establish establish;
	struct rdmachan_notify notify;
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
	struct rdmachan_query_qp query_qp;
	struct rdmachan_post post;
	struct rdmachan_create_srq create_srq;
	struct rdmachan_modify_srq modify_srq;
	struct rdmachan_query_srq query_srq;
	struct rdmachan_create_ah create_ah;
	struct rdmachan_join_mcast join_mcast;
	struct rdmachan_open_async_fd open_async_fd;
	struct rdmachan_ack_async_event ack_async_event;
	struct rdmachan_update_cq_ring update_cq_ring;
	struct rdmachan_bind_user_qp bind_user_qp;
	struct rdmachan_query_events query_events;
	struct rdmachan_query_async_events query_async_events;
};

/* Every argument opens with these two fields. */
struct rdmachan_ioctl_header {
	u32 size;
	u32 flags;
};

enum rdmachan_result_rule {
	/* the command has no out_* fields: nothing is written back */
	RDMACHAN_RESULT_NONE,
	/* the dispatcher copies the argument back on success */
	RDMACHAN_RESULT_COPY_BACK,
	/*
	 * the handler writes its results itself, through call->uarg, because
	 * they must be out before a point of no return or also on failure
	 */
	RDMACHAN_RESULT_BY_HANDLER,
};

struct rdmachan_ioctl_op {
	unsigned int ioctl_num;
	/* sizeof() of the module's layout, and the end of the first layout */
	size_t size;
	size_t min_size;
	u32 known_flags;
	enum rdmachan_result_rule result;
	int (*handler)(struct rdmachan_call *call, void *arg);
};

/*
 * One entry per command: its full ioctl number, its struct and the last
 * field of that struct's first layout. The build fails if the number's
 * size is not the struct's, the buffer cannot hold it or it does not open
 * with the header.
 */
#define RDMACHAN_IOCTL(name, type, last, handler_fn, result_rule, known) \
	[RDMACHAN_CMD_##name] = {					\
		.ioctl_num = RDMACHAN_IOC_##name +			\
			BUILD_BUG_ON_ZERO(_IOC_NR(RDMACHAN_IOC_##name) != \
					  RDMACHAN_CMD_##name) +	\
			BUILD_BUG_ON_ZERO(_IOC_SIZE(RDMACHAN_IOC_##name) != \
					  sizeof(type)),		\
		.size = sizeof(type) +					\
			BUILD_BUG_ON_ZERO(sizeof(type) >		\
					  sizeof(union rdmachan_ioctl_buf)) + \
			BUILD_BUG_ON_ZERO(offsetof(type, size) !=	\
				offsetof(struct rdmachan_ioctl_header, size)) + \
			BUILD_BUG_ON_ZERO(offsetof(type, flags) !=	\
				offsetof(struct rdmachan_ioctl_header, flags)), \
		.min_size = offsetofend(type, last),			\
		.known_flags = known,					\
		.result = RDMACHAN_RESULT_##result_rule,		\
		.handler = handler_fn,					\
	}

static const struct rdmachan_ioctl_op rdmachan_ops[] = {
	RDMACHAN_IOCTL(GET_INFO, struct rdmachan_get_info, out_features,
		       rdmachan_cmd_get_info, COPY_BACK, 0),
	RDMACHAN_IOCTL(LIST_DEVICES, struct rdmachan_list_devices,
		       __reserved, rdmachan_cmd_list_devices, COPY_BACK, 0),
	RDMACHAN_IOCTL(OPEN_DEVICE, struct rdmachan_open_device,
		       __reserved, rdmachan_cmd_open_device, COPY_BACK, 0),
	RDMACHAN_IOCTL(DESTROY, struct rdmachan_destroy, __reserved,
		       rdmachan_cmd_destroy, NONE, 0),
	RDMACHAN_IOCTL(QUERY_DEVICE, struct rdmachan_query_device,
		       out_fw_str, rdmachan_cmd_query_device, COPY_BACK, 0),
	RDMACHAN_IOCTL(QUERY_PORT, struct rdmachan_query_port,
		       __reserved, rdmachan_cmd_query_port, COPY_BACK, 0),
	RDMACHAN_IOCTL(QUERY_GID, struct rdmachan_query_gid, __reserved,
		       rdmachan_cmd_query_gid, COPY_BACK, 0),
	RDMACHAN_IOCTL(CREATE_ID, struct rdmachan_create_id, __reserved,
		       rdmachan_cmd_create_id, COPY_BACK, 0),
	/* It clears out_route itself first: the CM cannot unbind. */
	RDMACHAN_IOCTL(BIND_ADDR, struct rdmachan_bind_addr, out_route,
		       rdmachan_cmd_bind_addr, COPY_BACK, 0),
	RDMACHAN_IOCTL(RESOLVE_ADDR, struct rdmachan_resolve_addr,
		       dst_addr, rdmachan_cmd_resolve_addr, NONE, 0),
	RDMACHAN_IOCTL(RESOLVE_ROUTE, struct rdmachan_resolve_route, timeout_ms,
		       rdmachan_cmd_resolve_route, NONE, 0),
	RDMACHAN_IOCTL(LISTEN, struct rdmachan_listen, backlog,
		       rdmachan_cmd_listen, NONE, 0),
	RDMACHAN_IOCTL(CONNECT, struct rdmachan_connect, conn,
		       rdmachan_cmd_connect, NONE, 0),
	RDMACHAN_IOCTL(ACCEPT, struct rdmachan_connect, conn,
		       rdmachan_cmd_accept, NONE, 0),
	RDMACHAN_IOCTL(REJECT, struct rdmachan_reject, private_data,
		       rdmachan_cmd_reject, NONE, 0),
	RDMACHAN_IOCTL(DISCONNECT, struct rdmachan_disconnect, __reserved,
		       rdmachan_cmd_disconnect, NONE, 0),
	RDMACHAN_IOCTL(ESTABLISH, struct rdmachan_establish, __reserved,
		       rdmachan_cmd_establish, NONE, 0),
	RDMACHAN_IOCTL(NOTIFY, struct rdmachan_notify, event,
		       rdmachan_cmd_notify, NONE, 0),
	/* Each event's count goes out as the event does. */
	RDMACHAN_IOCTL(GET_EVENTS, struct rdmachan_get_events,
		       out_num_events, rdmachan_cmd_get_events, BY_HANDLER,
		       RDMACHAN_GET_EVENTS_NONBLOCK),
	RDMACHAN_IOCTL(ACK_EVENTS, struct rdmachan_get_events,
		       out_num_events, rdmachan_cmd_ack_events, NONE, 0),
	RDMACHAN_IOCTL(SET_OPTION, struct rdmachan_set_option, value,
		       rdmachan_cmd_set_option, NONE, 0),
	RDMACHAN_IOCTL(INIT_QP_ATTR, struct rdmachan_init_qp_attr,
		       out_ah_attr, rdmachan_cmd_init_qp_attr, COPY_BACK, 0),
	/* out_handle goes out before the id moves. */
	RDMACHAN_IOCTL(MIGRATE_ID, struct rdmachan_migrate_id,
		       __reserved, rdmachan_cmd_migrate_id, BY_HANDLER, 0),
	/* out_fd goes out before the descriptor is installed. */
	RDMACHAN_IOCTL(CREATE_COMP_CHANNEL,
		       struct rdmachan_create_comp_channel, __reserved,
		       rdmachan_cmd_create_comp_channel, BY_HANDLER, 0),
	/* RDMACHAN_IOC_GET_CQ_EVENT works on a completion channel only. */
	RDMACHAN_IOCTL(ALLOC_PD, struct rdmachan_alloc_pd, out_handle,
		       rdmachan_cmd_alloc_pd, COPY_BACK, 0),
	RDMACHAN_IOCTL(REG_MR, struct rdmachan_reg_mr, __reserved,
		       rdmachan_cmd_reg_mr, COPY_BACK, 0),
	/* The first layout had no out_ring_* fields. */
	RDMACHAN_IOCTL(CREATE_CQ, struct rdmachan_create_cq, out_cqe,
		       rdmachan_cmd_create_cq, COPY_BACK,
		       RDMACHAN_CREATE_CQ_RING),
	RDMACHAN_IOCTL(REQ_NOTIFY_CQ, struct rdmachan_notify_cq,
		       num_acks, rdmachan_cmd_req_notify_cq, NONE,
		       RDMACHAN_NOTIFY_SOLICITED),
	RDMACHAN_IOCTL(ACK_CQ_EVENTS, struct rdmachan_notify_cq,
		       num_acks, rdmachan_cmd_ack_cq_events, NONE, 0),
	RDMACHAN_IOCTL(POLL_CQ, struct rdmachan_poll_cq, out_num_wc,
		       rdmachan_cmd_poll_cq, COPY_BACK, 0),
	RDMACHAN_IOCTL(CREATE_QP, struct rdmachan_create_qp, out_qp_num,
		       rdmachan_cmd_create_qp, COPY_BACK,
		       RDMACHAN_CREATE_QP_CM_ID |
		       RDMACHAN_CREATE_QP_SQ_SIG_ALL),
	RDMACHAN_IOCTL(MODIFY_QP, struct rdmachan_modify_qp, attr,
		       rdmachan_cmd_modify_qp, NONE, 0),
	RDMACHAN_IOCTL(QUERY_QP, struct rdmachan_query_qp, out_attr,
		       rdmachan_cmd_query_qp, COPY_BACK, 0),
	/* out_num_posted goes out also when a post fails. */
	RDMACHAN_IOCTL(POST_SEND, struct rdmachan_post, __reserved,
		       rdmachan_cmd_post_send, BY_HANDLER, 0),
	RDMACHAN_IOCTL(POST_RECV, struct rdmachan_post, __reserved,
		       rdmachan_cmd_post_recv, BY_HANDLER, 0),
	RDMACHAN_IOCTL(CREATE_SRQ, struct rdmachan_create_srq,
		       __reserved2, rdmachan_cmd_create_srq, COPY_BACK, 0),
	RDMACHAN_IOCTL(MODIFY_SRQ, struct rdmachan_modify_srq, attr,
		       rdmachan_cmd_modify_srq, NONE, 0),
	RDMACHAN_IOCTL(QUERY_SRQ, struct rdmachan_query_srq, out_attr,
		       rdmachan_cmd_query_srq, COPY_BACK, 0),
	RDMACHAN_IOCTL(POST_SRQ_RECV, struct rdmachan_post, __reserved,
		       rdmachan_cmd_post_srq_recv, BY_HANDLER, 0),
	RDMACHAN_IOCTL(CREATE_AH, struct rdmachan_create_ah, attr,
		       rdmachan_cmd_create_ah, COPY_BACK, 0),
	/* out_handle goes out before the CM has the join. */
	RDMACHAN_IOCTL(JOIN_MCAST, struct rdmachan_join_mcast,
		       __reserved, rdmachan_cmd_join_mcast, BY_HANDLER, 0),
	/* out_fd goes out before the descriptor is installed. */
	RDMACHAN_IOCTL(OPEN_ASYNC_FD, struct rdmachan_open_async_fd,
		       out_fd, rdmachan_cmd_open_async_fd, BY_HANDLER, 0),
	/* RDMACHAN_IOC_GET_ASYNC_EVENT works on an async event file only. */
	RDMACHAN_IOCTL(ACK_ASYNC_EVENT, struct rdmachan_ack_async_event,
		       event_type, rdmachan_cmd_ack_async_event, NONE, 0),
	RDMACHAN_IOCTL(UPDATE_CQ_RING, struct rdmachan_update_cq_ring,
		       consumer, rdmachan_cmd_update_cq_ring, NONE, 0),
	RDMACHAN_IOCTL(BIND_USER_QP, struct rdmachan_bind_user_qp,
		       __reserved, rdmachan_cmd_bind_user_qp, COPY_BACK,
		       RDMACHAN_BIND_USER_QP_UNBIND),
	RDMACHAN_IOCTL(QUERY_EVENTS, struct rdmachan_query_events,
		       __reserved, rdmachan_cmd_query_events, COPY_BACK, 0),
	RDMACHAN_IOCTL(QUERY_ASYNC_EVENTS,
		       struct rdmachan_query_async_events, __reserved,
		       rdmachan_cmd_query_async_events, COPY_BACK, 0),
};

static long rdmachan_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long uarg)
{
	struct rdmachan_file *file = filp->private_data;
	struct rdmachan_call call = { .filp = filp, .file = file,
				      .uarg = (void __user *)uarg };
	const struct rdmachan_ioctl_op *op;
	/* Only the op->size bytes rdmachan_copy_args() fills are used. */
	union rdmachan_ioctl_buf buf __uninitialized;
	struct rdmachan_ioctl_header *hdr = (void *)&buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (nr >= ARRAY_SIZE(rdmachan_ops))
		return -ENOTTY;
	op = &rdmachan_ops[array_index_nospec(nr, ARRAY_SIZE(rdmachan_ops))];
	if (!op->handler || !rdmachan_ioctl_is(cmd, op->ioctl_num))
		return -ENOTTY;

	if (!rdmachan_caller_owns(file->owner))
		return -EACCES;

	ret = rdmachan_copy_args(&buf, op->size, op->min_size, call.uarg,
				 &usize);
	if (ret)
		return ret;
	if (hdr->flags & ~op->known_flags)
		return -EINVAL;

	ret = op->handler(&call, &buf);
	if (!ret && op->result == RDMACHAN_RESULT_COPY_BACK)
		ret = rdmachan_copy_result(call.uarg, usize, &buf, op->size);
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
	rdmachan_file_list_add(file);
	rdmachan_debugfs_add_file(file);
	rdmachan_count_inc(RDMACHAN_COUNT_FILES);
	return nonseekable_open(inode, filp);
}

static int rdmachan_release(struct inode *inode, struct file *filp)
{
	struct rdmachan_file *file = filp->private_data;

	/* Waits for device removal's walk and readers of debugfs. */
	rdmachan_file_list_del(file);
	rdmachan_debugfs_remove_file(file);
	rdmachan_verbs_file_release(file);
	rdmachan_objects_release(file);
	rdmachan_cm_file_release(file);
	xa_destroy(&file->objects);
	rdmachan_file_put(file);
	return 0;
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

	if (!rdmachan_caller_owns(file->owner))
		return -EACCES;
	return rdmachan_cq_ring_mmap(file, vma);
}

const struct file_operations rdmachan_fops = {
	.owner = THIS_MODULE,
	.mmap = rdmachan_mmap,
	.open = rdmachan_open,
	.release = rdmachan_release,
	.poll = rdmachan_poll,
	.unlocked_ioctl = rdmachan_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = rdmachan_show_fdinfo,
};

static u64 rdmachan_features(void)
{
	u64 features = RDMACHAN_FEATURE_DEVICE_QUERY | RDMACHAN_FEATURE_CM |
		       RDMACHAN_FEATURE_VERBS | RDMACHAN_FEATURE_ASYNC_EVENTS |
		       RDMACHAN_FEATURE_INTROSPECT | RDMACHAN_FEATURE_CQ_RING;

	if (rdmachan_user_qp_supported())
		features |= RDMACHAN_FEATURE_USER_QP;
	return features;
}

/*
 * The features GET_INFO reports, readable without opening the device:
 * rdmachan-run chooses its libraries from it with no process of its own.
 */
static ssize_t features_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#llx\n", rdmachan_features());
}
static DEVICE_ATTR_RO(features);

static struct attribute *rdmachan_attrs[] = {
	&dev_attr_features.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rdmachan);

static struct miscdevice rdmachan_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rdmachan",
	.fops = &rdmachan_fops,
	.groups = rdmachan_groups,
	.mode = 0666,
};

int rdmachan_cmd_get_info(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_get_info *cmd = arg;

	if (cmd->__reserved)
		return -EINVAL;
	cmd->out_abi_version = RDMACHAN_ABI_VERSION;
	cmd->out_features = rdmachan_features();
	return 0;
}

/*
 * What each type of object does, indexed by type as iommufd's object ops
 * are: one place says how every type is released and destroyed, and no
 * object carries pointers that one of its creators could leave unset.
 * Handed to the objects layer at init, so that it names no feature.
 */
static const struct rdmachan_object_ops rdmachan_object_types[RDMACHAN_OBJ_TYPES] = {
	[RDMACHAN_OBJ_DEVICE_CONTEXT] = {
		.count = RDMACHAN_COUNT_CONTEXTS,
		.release = rdmachan_context_release,
		.destroy = rdmachan_context_destroy,
	},
	[RDMACHAN_OBJ_CM_ID] = {
		.count = RDMACHAN_COUNT_CM_IDS,
		.release = rdmachan_cm_id_release,
		.destroy = rdmachan_cm_id_destroy,
	},
	[RDMACHAN_OBJ_MCAST] = {
		.count = RDMACHAN_COUNT_MCASTS,
		.release = rdmachan_mcast_release,
		.destroy = rdmachan_mcast_destroy,
	},
	[RDMACHAN_OBJ_PD] = {
		.count = RDMACHAN_COUNT_PDS,
		.release = rdmachan_verbs_release,
		.destroy_begin = rdmachan_verbs_destroy_unused,
		.destroy = rdmachan_verbs_destroy,
		.rank = RDMACHAN_RANK_PD,
		.teardown = rdmachan_pd_teardown,
		.release_verbs = rdmachan_pd_release,
	},
	[RDMACHAN_OBJ_MR] = {
		.count = RDMACHAN_COUNT_MRS,
		.release = rdmachan_verbs_release,
		.destroy = rdmachan_verbs_destroy,
		.rank = RDMACHAN_RANK_MR,
		.teardown = rdmachan_mr_teardown,
		.release_verbs = rdmachan_mr_release,
	},
	[RDMACHAN_OBJ_CQ] = {
		.count = RDMACHAN_COUNT_CQS,
		.release = rdmachan_verbs_release,
		.destroy_begin = rdmachan_cq_destroy_begin,
		.destroy = rdmachan_verbs_destroy,
		.rank = RDMACHAN_RANK_CQ,
		.teardown = rdmachan_cq_teardown,
		.release_verbs = rdmachan_cq_release,
		.device_gone = rdmachan_cq_save,
	},
	[RDMACHAN_OBJ_QP] = {
		.count = RDMACHAN_COUNT_QPS,
		.release = rdmachan_verbs_release,
		.destroy_begin = rdmachan_qp_destroy_begin,
		.destroy = rdmachan_verbs_destroy,
		.rank = RDMACHAN_RANK_QP,
		.teardown = rdmachan_qp_teardown,
		.release_verbs = rdmachan_qp_release,
		.device_gone = rdmachan_qp_flush,
	},
	[RDMACHAN_OBJ_SRQ] = {
		.count = RDMACHAN_COUNT_SRQS,
		.release = rdmachan_verbs_release,
		.destroy_begin = rdmachan_srq_destroy_begin,
		.destroy = rdmachan_verbs_destroy,
		.rank = RDMACHAN_RANK_SRQ,
		.teardown = rdmachan_srq_teardown,
		.release_verbs = rdmachan_srq_release,
	},
	[RDMACHAN_OBJ_AH] = {
		.count = RDMACHAN_COUNT_AHS,
		.release = rdmachan_verbs_release,
		.destroy = rdmachan_verbs_destroy,
		.rank = RDMACHAN_RANK_AH,
		.teardown = rdmachan_ah_teardown,
		.release_verbs = rdmachan_ah_release,
	},
};

static const struct rdmachan_device_hooks rdmachan_device_hooks = {
	.removing_ids = rdmachan_cm_device_removal,
	.adding = rdmachan_async_device_add,
	.removing = rdmachan_async_device_remove,
	.removed = rdmachan_verbs_remove_device,
};

static int __init rdmachan_init(void)
{
	int ret;

	rdmachan_objects_init(rdmachan_object_types);
	rdmachan_debugfs_init(rdmachan_debugfs_show_unacked);
	/*
	 * ib_uverbs' client first: the IB core removes the last registered
	 * first, and the module's removal must free the uverbs files and
	 * contexts that ib_uverbs' removal waits for (ib_device.c).
	 */
	request_module("ib_uverbs");
	ret = rdmachan_devices_init(&rdmachan_device_hooks);
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
MODULE_SOFTDEP("pre: ib_uverbs");
