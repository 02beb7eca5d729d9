// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: a CM id's route and address vectors as the uAPI carries them,
 * for events, QP queries and INIT_QP_ATTR. A leaf.
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>

#include "rdmachan.h"

static void rdmachan_cm_fill_path(const struct sa_path_rec *src,
				  struct rdmachan_path_rec *dst)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	/* The CM keeps 32-bit LIDs; path records carry 16 bits. */
	dst->dlid = (__force u16)htons(ntohl(sa_path_get_dlid((struct sa_path_rec *)src)));
	dst->slid = (__force u16)htons(ntohl(sa_path_get_slid((struct sa_path_rec *)src)));
	dst->raw_traffic = sa_path_get_raw_traffic((struct sa_path_rec *)src);
	dst->flow_label = (__force u32)src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = (__force u16)src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

/* Called with the id's handler or its mutex held, so the route is stable. */
void rdmachan_cm_fill_route(struct rdma_cm_id *cm_id,
			    struct rdmachan_cm_route *route)
{
	struct rdma_addr *addr = &cm_id->route.addr;
	union ib_gid sgid, dgid;
	int i, paths;

	memset(route, 0, sizeof(*route));
	memcpy(&route->src_addr, &addr->src_addr,
	       min(sizeof(route->src_addr), sizeof(addr->src_addr)));
	memcpy(&route->dst_addr, &addr->dst_addr,
	       min(sizeof(route->dst_addr), sizeof(addr->dst_addr)));
	route->device_index = RDMACHAN_NO_DEVICE;
	if (!cm_id->device)
		return;
	route->device_index = cm_id->device->index;
	route->port_num = cm_id->port_num;
	route->pkey = (__force u16)cpu_to_be16(ib_addr_get_pkey(&addr->dev_addr));
	rdma_read_gids(cm_id, &sgid, &dgid);
	memcpy(route->sgid, sgid.raw, sizeof(route->sgid));
	memcpy(route->dgid, dgid.raw, sizeof(route->dgid));
	paths = min_t(unsigned int, rdmachan_route_num_paths(&cm_id->route),
		      RDMACHAN_CM_MAX_PATHS);
	for (i = 0; i < paths; i++)
		rdmachan_cm_fill_path(&cm_id->route.path_rec[i],
				      &route->path[i]);
	route->num_paths = paths;
}

void rdmachan_cm_fill_ah_attr(const struct rdma_ah_attr *src,
			      struct rdmachan_ah_attr *dst)
{
	memset(dst, 0, sizeof(*dst));
	dst->dlid = rdma_ah_get_dlid(src);
	dst->sl = rdma_ah_get_sl(src);
	dst->src_path_bits = rdma_ah_get_path_bits(src);
	dst->static_rate = rdma_ah_get_static_rate(src);
	dst->port_num = rdma_ah_get_port_num(src);
	dst->is_global = !!(rdma_ah_get_ah_flags(src) & IB_AH_GRH);
	if (dst->is_global) {
		const struct ib_global_route *grh = rdma_ah_read_grh(src);

		memcpy(dst->dgid, grh->dgid.raw, sizeof(dst->dgid));
		dst->flow_label = grh->flow_label;
		dst->sgid_index = grh->sgid_index;
		dst->hop_limit = grh->hop_limit;
		dst->traffic_class = grh->traffic_class;
	}
}
