// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: the library's object of a CM id, its allocation and
 * freeing, and the route (addresses, device, path records) the kernel
 * reports into it; the length of the socket addresses the CM takes.
 *
 * Events and id operations both make ids: a connect request's new id is
 * made as its event is read (cm_event.c), as rdma_create_id makes one
 * (cm_id.c). Both sit above this file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ib.h>

#include "cm.h"

_Static_assert(sizeof(struct sockaddr_storage) ==
	       sizeof(struct __kernel_sockaddr_storage),
	       "socket address storage sizes differ");

struct cm_id *cm_id_alloc(struct cm_channel *chan, void *context,
			  enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct cm_id *id;

	id = calloc(1, sizeof(*id));
	if (!id) {
		errno = ENOMEM;
		return NULL;
	}
	id->chan = chan;
	id->id.channel = &chan->ch;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = qp_type;
	pthread_mutex_init(&id->mc_lock, NULL);
	return id;
}

void cm_id_free(struct cm_id *id)
{
	struct cm_mcast *mc, *next;

	for (mc = id->mc_list; mc; mc = next) {
		next = mc->next;
		free(mc);
	}
	pthread_mutex_destroy(&id->mc_lock);
	free(id->qp_init_attr);
	free(id->connect_data);
	free(id->id.route.path_rec);
	free(id);
}

static void cm_copy_path(struct ibv_sa_path_rec *dst,
			 const struct rdmachan_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid.raw));
	dst->dlid = (__be16)src->dlid;
	dst->slid = (__be16)src->slid;
	dst->raw_traffic = src->raw_traffic;
	dst->flow_label = (__be32)src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = (__be16)src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

/*
 * Take the addresses, device and path of @route into the id. Fails, leaving
 * the id as it was, when the device cannot be opened.
 */
int cm_id_set_route(struct cm_id *id, const struct rdmachan_cm_route *route)
{
	struct rdma_route *r = &id->id.route;
	struct ibv_sa_path_rec *paths = NULL;
	struct cm_device *dev = NULL;
	unsigned int i, n;

	if (route->device_index != RDMACHAN_NO_DEVICE) {
		dev = cm_device_get(route->device_index);
		if (!dev)
			return -1;
	}
	n = route->num_paths;
	if (n > RDMACHAN_CM_MAX_PATHS)
		n = RDMACHAN_CM_MAX_PATHS;
	if (n) {
		paths = calloc(n, sizeof(*paths));
		if (!paths)
			return cm_err(ENOMEM);
		for (i = 0; i < n; i++)
			cm_copy_path(&paths[i], &route->path[i]);
	}

	if (route->src_addr.ss_family)
		memcpy(&r->addr.src_storage, &route->src_addr,
		       sizeof(r->addr.src_storage));
	if (route->dst_addr.ss_family)
		memcpy(&r->addr.dst_storage, &route->dst_addr,
		       sizeof(r->addr.dst_storage));
	memcpy(r->addr.addr.ibaddr.sgid.raw, route->sgid,
	       sizeof(r->addr.addr.ibaddr.sgid.raw));
	memcpy(r->addr.addr.ibaddr.dgid.raw, route->dgid,
	       sizeof(r->addr.addr.ibaddr.dgid.raw));
	/* big-endian, as in the path record and in struct rdma_ib_addr */
	r->addr.addr.ibaddr.pkey = (__be16)route->pkey;
	if (dev) {
		/* As librdmacm: the device's PD is the id's from its binding. */
		if (!id->dev)
			id->id.pd = dev->pd;
		id->dev = dev;
		id->id.verbs = dev->verbs;
		id->id.port_num = route->port_num;
	}
	if (paths) {
		free(r->path_rec);
		r->path_rec = paths;
		r->num_paths = (int)n;
	}
	return 0;
}

socklen_t cm_addr_len(const struct sockaddr *addr)
{
	if (!addr)
		return 0;
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}
