// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: address vectors from userspace, and address handles.
 *
 * On a RoCE port an address vector needs the peer's MAC address; uverbs
 * resolves it for user QPs and AHs, but the kernel's ib_modify_qp()
 * leaves it to its caller, so the module resolves it as uverbs does.
 */
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "rdmachan.h"

/* As uverbs reads struct ib_uverbs_ah_attr; RoCE needs a GRH. */
int rdmachan_ah_attr_from_user(struct ib_device *ibdev,
			       const struct rdmachan_ah_attr *src,
			       struct rdma_ah_attr *dst)
{
	if (memchr_inv(src->__reserved, 0, sizeof(src->__reserved)) ||
	    !rdma_is_port_valid(ibdev, src->port_num))
		return -EINVAL;
	memset(dst, 0, sizeof(*dst));
	dst->type = rdma_ah_find_type(ibdev, src->port_num);
	if (src->is_global) {
		rdma_ah_set_grh(dst, NULL, src->flow_label, src->sgid_index,
				src->hop_limit, src->traffic_class);
		rdma_ah_set_dgid_raw(dst, (void *)src->dgid);
	} else if (dst->type == RDMA_AH_ATTR_TYPE_ROCE) {
		return -EINVAL;
	}
	rdma_ah_set_dlid(dst, src->dlid);
	rdma_ah_set_sl(dst, src->sl);
	rdma_ah_set_path_bits(dst, src->src_path_bits);
	rdma_ah_set_static_rate(dst, src->static_rate);
	rdma_ah_set_port_num(dst, src->port_num);
	rdma_ah_set_make_grd(dst, false);
	return 0;
}

struct rdmachan_resolve_ctx {
	struct completion done;
	int status;
};

static void rdmachan_resolve_done(int status, struct sockaddr *src_addr,
				  struct rdma_dev_addr *addr, void *context)
{
	struct rdmachan_resolve_ctx *ctx = context;

	ctx->status = status;
	complete(&ctx->done);
}

/*
 * The IP route and neighbour of a unicast GID, as the core's private
 * rdma_addr_find_l2_eth_by_grh() finds them; a fatal signal cancels it.
 */
static int rdmachan_find_l2_eth(const struct ib_gid_attr *sgid_attr,
				const union ib_gid *dgid, u8 *dmac,
				int *hop_limit)
{
	struct rdmachan_resolve_ctx ctx;
	struct rdma_dev_addr dev_addr = {
		.net = &init_net,
		.sgid_attr = sgid_attr,
	};
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} src, dst;
	int ret;

	rdma_gid2ip((struct sockaddr *)&src, &sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&dst, dgid);
	init_completion(&ctx.done);
	ret = rdma_resolve_ip((struct sockaddr *)&src, (struct sockaddr *)&dst,
			      &dev_addr, 1000, rdmachan_resolve_done, true,
			      &ctx);
	if (ret)
		return ret;
	if (wait_for_completion_killable(&ctx.done)) {
		/* No callback runs after it returns. */
		rdma_addr_cancel(&dev_addr);
		return -EINTR;
	}
	if (ctx.status)
		return ctx.status;
	memcpy(dmac, dev_addr.dst_dev_addr, ETH_ALEN);
	*hop_limit = dev_addr.hoplimit;
	return 0;
}

/* The destination MAC of a RoCE address vector, as uverbs finds it. */
int rdmachan_resolve_dmac(struct ib_device *ibdev, struct rdma_ah_attr *ah)
{
	struct ib_global_route *grh = rdma_ah_retrieve_grh(ah);
	struct in6_addr *dgid = (struct in6_addr *)grh->dgid.raw;
	const struct ib_gid_attr *sgid_attr;
	int hop_limit = 0xff;
	int ret = 0;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE)
		return 0;
	if (rdma_is_multicast_addr(dgid)) {
		if (ipv6_addr_v4mapped(dgid))
			ip_eth_mc_map(dgid->s6_addr32[3], (char *)ah->roce.dmac);
		else
			ipv6_eth_mc_map(dgid, (char *)ah->roce.dmac);
		return 0;
	}
	sgid_attr = rdma_get_gid_attr(ibdev, rdma_ah_get_port_num(ah),
				      grh->sgid_index);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	/* RoCE v1 to a link-local GID: the MAC is in the GID. */
	if (rdma_link_local_addr(dgid) &&
	    sgid_attr->gid_type == IB_GID_TYPE_ROCE) {
		rdma_get_ll_mac(dgid, ah->roce.dmac);
	} else {
		ret = rdmachan_find_l2_eth(sgid_attr, &grh->dgid,
					   ah->roce.dmac, &hop_limit);
		if (!ret)
			grh->hop_limit = hop_limit;
	}
	rdma_put_gid_attr(sgid_attr);
	return ret;
}

void rdmachan_ah_release(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_ah *ah = container_of(v, struct rdmachan_ah, v);

	if (ah->pd)
		rdmachan_object_put(&ah->pd->v.obj);
}

void rdmachan_ah_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_ah *ah = container_of(v, struct rdmachan_ah, v);

	rdma_destroy_ah(ah->ib, RDMA_DESTROY_AH_SLEEPABLE);
	ah->ib = NULL;
	atomic_dec(&ah->pd->v.users);
}

int rdmachan_cmd_create_ah(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_ah *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdma_ah_attr attr;
	struct ib_device *ibdev;
	struct rdmachan_pd *pd;
	struct rdmachan_ah *ah;
	struct ib_ah *ibah;
	int ret;

	ah = rdmachan_verbs_alloc(file, struct rdmachan_ah, RDMACHAN_OBJ_AH);
	if (!ah)
		return -ENOMEM;
	ret = rdmachan_verbs_reserve(call, &ah->v, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&ah->v.obj);
		return ret;
	}

	ibdev = rdmachan_pd_enter(file, cmd->pd, &ah->v, &pd);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	ret = rdmachan_ah_attr_from_user(ibdev, &cmd->attr, &attr);
	if (ret)
		goto out_exit;
	/* It resolves the MAC address of a RoCE destination. */
	ibah = rdma_create_user_ah(pd->ib, &attr, NULL);
	if (IS_ERR(ibah)) {
		ret = PTR_ERR(ibah);
		goto out_exit;
	}
	ah->ib = ibah;
	ah->pd = rdmachan_pd_hold(pd);
	rdmachan_verbs_add(&ah->v, pd->v.dev);
out_exit:
	rdmachan_pd_exit(file, pd);
	return ret;
}
