// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: device contexts and the device, port and GID queries on them.
 */
#include <rdma/ib_cache.h>

#include "rdmachan.h"

/* Also undoes a create that failed part way: no async queue, no charge. */
void rdmachan_context_release(struct rdmachan_object *obj)
{
	struct rdmachan_context *ctx =
		container_of(obj, struct rdmachan_context, obj);

	rdmachan_uncharge(ctx->dev, &ctx->charge);
	if (ctx->async)
		rdmachan_async_queue_put(ctx->async);
	rdmachan_device_put(ctx->dev);
}

/* Its async event file, if any, reports -ENODEV from now on. */
int rdmachan_context_destroy(struct rdmachan_object *obj, bool wait)
{
	struct rdmachan_context *ctx =
		container_of(obj, struct rdmachan_context, obj);

	rdmachan_async_queue_close(ctx->async);
	rdmachan_uncharge(ctx->dev, &ctx->charge);
	return 0;
}

int rdmachan_cmd_open_device(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_open_device *cmd = arg;
	struct rdmachan_context *ctx;
	struct rdmachan_device *dev;
	struct ib_device *ibdev;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	dev = rdmachan_device_get_by_index(cmd->device_index);
	if (!dev)
		return -ENODEV;
	ctx = rdmachan_object_alloc(struct rdmachan_context, obj,
				    RDMACHAN_OBJ_DEVICE_CONTEXT);
	if (!ctx) {
		rdmachan_device_put(dev);
		return -ENOMEM;
	}
	/* the context's reference from here on */
	ctx->dev = dev;
	ctx->async = rdmachan_async_queue_new(dev, call->file->owner);
	if (!ctx->async) {
		ret = -ENOMEM;
		goto err;
	}
	ibdev = rdmachan_device_enter(dev);
	if (!ibdev) {
		ret = -ENODEV;
		goto err;
	}
	/* A device of another network namespace: ib_uverbs says EPERM. */
	if (!rdmachan_device_visible(ibdev))
		ret = -EPERM;
	else
		ret = rdmachan_charge(dev, ibdev, &ctx->charge,
				      RDMACG_RESOURCE_HCA_HANDLE);
	cmd->out_num_comp_vectors = ibdev->num_comp_vectors;
	rdmachan_device_exit(dev);
	if (ret)
		goto err;
	ret = rdmachan_object_reserve(call, &ctx->obj, &cmd->out_handle);
	if (ret)
		goto err;
	return 0;

err:
	rdmachan_object_put(&ctx->obj);
	return ret;
}

/*
 * Looks up a device context of the calling file and enters its IB device.
 * On success the caller must rdmachan_context_exit().
 */
static int rdmachan_context_enter(struct rdmachan_file *file, u32 handle,
				  struct rdmachan_context **ctxp,
				  struct ib_device **ibdevp)
{
	struct rdmachan_object *obj;
	struct rdmachan_context *ctx;

	obj = rdmachan_object_get(file, handle, RDMACHAN_OBJ_DEVICE_CONTEXT);
	if (!obj)
		return -ENOENT;
	ctx = container_of(obj, struct rdmachan_context, obj);
	*ibdevp = rdmachan_device_enter(ctx->dev);
	if (!*ibdevp) {
		rdmachan_object_put(obj);
		return -ENODEV;
	}
	*ctxp = ctx;
	return 0;
}

/*
 * The device of a device context of @file, with a reference, and its
 * async event queue in *@async, with a reference; or NULL.
 */
struct rdmachan_device *rdmachan_context_device(struct rdmachan_file *file,
						u32 handle,
						struct rdmachan_async_queue **async)
{
	struct rdmachan_context *ctx;
	struct rdmachan_object *obj;

	obj = rdmachan_object_get(file, handle, RDMACHAN_OBJ_DEVICE_CONTEXT);
	if (!obj)
		return NULL;
	ctx = container_of(obj, struct rdmachan_context, obj);
	kref_get(&ctx->dev->ref);
	kref_get(&ctx->async->eq.ref);
	*async = ctx->async;
	rdmachan_object_put(obj);
	return ctx->dev;
}

static void rdmachan_context_exit(struct rdmachan_context *ctx)
{
	rdmachan_device_exit(ctx->dev);
	rdmachan_object_put(&ctx->obj);
}

int rdmachan_cmd_query_device(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_device *cmd = arg;
	const struct ib_device_attr *attr;
	struct rdmachan_context *ctx;
	struct ib_device *ibdev;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	ret = rdmachan_context_enter(call->file, cmd->handle, &ctx, &ibdev);
	if (ret)
		return ret;

	attr = &ibdev->attrs;
	cmd->out_node_guid = (__force u64)ibdev->node_guid;
	cmd->out_sys_image_guid = (__force u64)attr->sys_image_guid;
	cmd->out_max_mr_size = attr->max_mr_size;
	cmd->out_page_size_cap = attr->page_size_cap;
	cmd->out_device_cap_flags = attr->device_cap_flags;
	cmd->out_fw_ver = attr->fw_ver;
	cmd->out_vendor_id = attr->vendor_id;
	cmd->out_vendor_part_id = attr->vendor_part_id;
	cmd->out_hw_ver = attr->hw_ver;
	cmd->out_max_qp = attr->max_qp;
	cmd->out_max_qp_wr = attr->max_qp_wr;
	cmd->out_max_sge = min(attr->max_send_sge, attr->max_recv_sge);
	cmd->out_max_sge_rd = attr->max_sge_rd;
	cmd->out_max_cq = attr->max_cq;
	cmd->out_max_cqe = attr->max_cqe;
	cmd->out_max_mr = attr->max_mr;
	cmd->out_max_pd = attr->max_pd;
	cmd->out_max_qp_rd_atom = attr->max_qp_rd_atom;
	cmd->out_max_ee_rd_atom = attr->max_ee_rd_atom;
	cmd->out_max_res_rd_atom = attr->max_res_rd_atom;
	cmd->out_max_qp_init_rd_atom = attr->max_qp_init_rd_atom;
	cmd->out_max_ee_init_rd_atom = attr->max_ee_init_rd_atom;
	cmd->out_atomic_cap = attr->atomic_cap;
	cmd->out_max_ee = attr->max_ee;
	cmd->out_max_rdd = attr->max_rdd;
	cmd->out_max_mw = attr->max_mw;
	cmd->out_max_raw_ipv6_qp = attr->max_raw_ipv6_qp;
	cmd->out_max_raw_ethy_qp = attr->max_raw_ethy_qp;
	cmd->out_max_mcast_grp = attr->max_mcast_grp;
	cmd->out_max_mcast_qp_attach = attr->max_mcast_qp_attach;
	cmd->out_max_total_mcast_qp_attach = attr->max_total_mcast_qp_attach;
	cmd->out_max_ah = attr->max_ah;
	cmd->out_max_srq = attr->max_srq;
	cmd->out_max_srq_wr = attr->max_srq_wr;
	cmd->out_max_srq_sge = attr->max_srq_sge;
	cmd->out_max_pkeys = attr->max_pkeys;
	cmd->out_local_ca_ack_delay = attr->local_ca_ack_delay;
	cmd->out_phys_port_cnt = rdma_end_port(ibdev);
	memset(cmd->out_fw_str, 0, sizeof(cmd->out_fw_str));
	ib_get_device_fw_str(ibdev, cmd->out_fw_str);
	cmd->out_fw_str[sizeof(cmd->out_fw_str) - 1] = '\0';

	rdmachan_context_exit(ctx);
	return 0;
}

int rdmachan_cmd_query_port(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_port *cmd = arg;
	struct rdmachan_context *ctx;
	struct ib_port_attr attr;
	struct ib_device *ibdev;
	u32 port = cmd->port_num;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	ret = rdmachan_context_enter(call->file, cmd->handle, &ctx, &ibdev);
	if (ret)
		return ret;
	if (!rdma_is_port_valid(ibdev, port)) {
		ret = -EINVAL;
		goto out;
	}
	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		goto out;

	cmd->out_port_cap_flags = attr.port_cap_flags;
	cmd->out_max_msg_sz = attr.max_msg_sz;
	cmd->out_bad_pkey_cntr = attr.bad_pkey_cntr;
	cmd->out_qkey_viol_cntr = attr.qkey_viol_cntr;
	cmd->out_pkey_tbl_len = attr.pkey_tbl_len;
	cmd->out_gid_tbl_len = attr.gid_tbl_len;
	cmd->out_lid = attr.lid;
	cmd->out_sm_lid = attr.sm_lid;
	cmd->out_active_speed = attr.active_speed;
	cmd->out_port_cap_flags2 = attr.port_cap_flags2;
	cmd->out_state = attr.state;
	cmd->out_max_mtu = attr.max_mtu;
	cmd->out_active_mtu = attr.active_mtu;
	cmd->out_lmc = attr.lmc;
	cmd->out_max_vl_num = attr.max_vl_num;
	cmd->out_sm_sl = attr.sm_sl;
	cmd->out_subnet_timeout = attr.subnet_timeout;
	cmd->out_init_type_reply = attr.init_type_reply;
	cmd->out_active_width = attr.active_width;
	cmd->out_phys_state = attr.phys_state;
	cmd->out_link_layer = rdma_port_get_link_layer(ibdev, port);
	cmd->out_flags = rdma_is_grh_required(ibdev, port) ?
			 RDMACHAN_PORT_GRH_REQUIRED : 0;
out:
	rdmachan_context_exit(ctx);
	return ret;
}

int rdmachan_cmd_query_gid(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_gid *cmd = arg;
	const struct ib_gid_attr *attr;
	struct rdmachan_context *ctx;
	struct net_device *ndev;
	struct ib_device *ibdev;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	ret = rdmachan_context_enter(call->file, cmd->handle, &ctx, &ibdev);
	if (ret)
		return ret;
	if (!rdma_is_port_valid(ibdev, cmd->port_num) || cmd->index > INT_MAX) {
		ret = -EINVAL;
		goto out;
	}
	/* -EINVAL past the table's end, -ENODATA for an unused entry */
	attr = rdma_get_gid_attr(ibdev, cmd->port_num, cmd->index);
	if (IS_ERR(attr)) {
		ret = PTR_ERR(attr);
		goto out;
	}
	memcpy(cmd->out_gid, attr->gid.raw, sizeof(cmd->out_gid));
	cmd->out_gid_type = attr->gid_type;
	cmd->out_ndev_ifindex = 0;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev))
		cmd->out_ndev_ifindex = ndev->ifindex;
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
out:
	rdmachan_context_exit(ctx);
	return ret;
}
