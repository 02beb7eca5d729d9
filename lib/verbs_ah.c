// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: address handles (ibv_create_ah, ibv_destroy_ah,
 * ibv_init_ah_from_wc, ibv_create_ah_from_wc) and the address vector
 * conversions the QP and CM code share.
 *
 * On RoCE the kernel resolves an address vector's MAC address. Building
 * one from a received datagram follows libibverbs: the GRH in front of the
 * payload says where it came from, and which local GID it was sent to
 * gives the source GID index.
 */
#include <endian.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_internal.h"
#include "mode.h"

static struct ibv_ah *vb_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rdmachan_create_ah cmd = {
		.size = sizeof(cmd),
		.pd = pd->handle,
	};
	struct ibv_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	vb_ah_attr_to_kern(&cmd.attr, attr);
	if (rdmachan_ioctl(pd->context->cmd_fd, RDMACHAN_IOC_CREATE_AH, &cmd)) {
		err = errno;
		free(ah);
		errno = err;
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = cmd.out_handle;
	return ah;
}

RDMACHAN_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
					     struct ibv_ah_attr *attr)
{
	RETURN_IF_BYPASS(ibv_create_ah, pd, attr);
	return vb_create_ah(pd, attr);
}

RDMACHAN_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	RETURN_IF_BYPASS(ibv_destroy_ah, ah);
	int ret = vb_destroy_handle(ah->context, ah->handle);

	if (!ret)
		free(ah);
	return ret;
}

/*
 * Which GIDs a packet may have been sent to: RoCE v2 ones for UDP-carried
 * packets, IB or RoCE v1 ones otherwise.
 */
enum vb_gid_kind { VB_GID_IB_OR_ROCE_V1, VB_GID_ROCE_V2 };

static bool vb_gid_kind_matches(uint32_t type, enum vb_gid_kind kind)
{
	if (kind == VB_GID_ROCE_V2)
		return type == RDMACHAN_GID_TYPE_ROCE_V2;
	return type == RDMACHAN_GID_TYPE_IB || type == RDMACHAN_GID_TYPE_ROCE_V1;
}

/* The index of @gid of @kind in the port's table, or -1 with errno set. */
static int vb_find_gid_index(struct ibv_context *context, uint8_t port_num,
			     const union ibv_gid *gid, enum vb_gid_kind kind)
{
	struct rdmachan_query_gid cmd = {
		.size = sizeof(cmd),
		.handle = vb_ctx_handle(context),
		.port_num = port_num,
	};

	/* The kernel ends the walk with EINVAL past the table's end. */
	for (;; cmd.index++) {
		if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_QUERY_GID,
				   &cmd)) {
			if (errno == ENODATA)
				continue;
			return -1;
		}
		if (!memcmp(cmd.out_gid, gid->raw, sizeof(gid->raw)) &&
		    vb_gid_kind_matches(cmd.out_gid_type, kind))
			return (int)cmd.index;
	}
}

static void vb_ipv4_to_gid(uint32_t addr, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &addr, sizeof(addr));
}

static uint16_t vb_ipv4_csum(const struct iphdr *hdr)
{
	const uint8_t *p = (const uint8_t *)hdr;
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < sizeof(*hdr); i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * RoCE v2 over IPv4 puts the IPv4 header in the last 20 bytes of the GRH
 * space; tell it from an IPv6 (or IB) GRH as libibverbs does: by the
 * version nibbles, and by the header checksum when both could be right.
 */
static int vb_grh_ip_version(const struct ibv_grh *grh)
{
	const struct iphdr *ip4 = (const void *)((const char *)grh + 20);
	struct iphdr copy;

	if ((be32toh(grh->version_tclass_flow) >> 28) != 6) {
		if (ip4->version == 4)
			return 4;
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (ip4->ihl != 5)
		return 6;
	memcpy(&copy, ip4, sizeof(copy));
	copy.check = 0;
	return htobe16(vb_ipv4_csum(&copy)) == ip4->check ? 4 : 6;
}

#define VB_IB_NEXT_HDR 0x1b

static int vb_ah_from_ipv4(struct ibv_context *context, uint8_t port_num,
			   const struct iphdr *ip4, struct ibv_ah_attr *ah_attr)
{
	union ibv_gid local;
	int index;

	/* A multicast destination is in no GID table. */
	if (IN_MULTICAST(be32toh(ip4->daddr))) {
		errno = EINVAL;
		return -1;
	}
	vb_ipv4_to_gid(ip4->daddr, &local);
	index = vb_find_gid_index(context, port_num, &local, VB_GID_ROCE_V2);
	if (index < 0)
		return -1;
	vb_ipv4_to_gid(ip4->saddr, &ah_attr->grh.dgid);
	ah_attr->grh.sgid_index = (uint8_t)index;
	ah_attr->grh.hop_limit = ip4->ttl;
	ah_attr->grh.traffic_class = ip4->tos;
	return 0;
}

static int vb_ah_from_ipv6(struct ibv_context *context, uint8_t port_num,
			   const struct ibv_grh *grh,
			   struct ibv_ah_attr *ah_attr)
{
	enum vb_gid_kind kind;
	int index;

	if (grh->dgid.raw[0] == 0xff) {
		errno = EINVAL;
		return -1;
	}
	if (grh->next_hdr == IPPROTO_UDP) {
		kind = VB_GID_ROCE_V2;
	} else if (grh->next_hdr == VB_IB_NEXT_HDR) {
		kind = VB_GID_IB_OR_ROCE_V1;
	} else {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	index = vb_find_gid_index(context, port_num, &grh->dgid, kind);
	if (index < 0)
		return -1;
	ah_attr->grh.dgid = grh->sgid;
	ah_attr->grh.sgid_index = (uint8_t)index;
	ah_attr->grh.hop_limit = grh->hop_limit;
	ah_attr->grh.traffic_class =
		(uint8_t)(be32toh(grh->version_tclass_flow) >> 20);
	return 0;
}

static int vb_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			      const struct ibv_wc *wc, struct ibv_grh *grh,
			      struct ibv_ah_attr *ah_attr)
{
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->grh.flow_label = be32toh(grh->version_tclass_flow) & 0xfffff;
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	ah_attr->is_global = 1;
	switch (vb_grh_ip_version(grh)) {
	case 4:
		return vb_ah_from_ipv4(context, port_num,
				       (const void *)((char *)grh + 20),
				       ah_attr);
	case 6:
		return vb_ah_from_ipv6(context, port_num, grh, ah_attr);
	default:
		return -1;
	}
}

RDMACHAN_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context,
					uint8_t port_num, struct ibv_wc *wc,
					struct ibv_grh *grh,
					struct ibv_ah_attr *ah_attr)
{
	RETURN_IF_BYPASS(ibv_init_ah_from_wc,
			 context, port_num, wc, grh, ah_attr);
	return vb_init_ah_from_wc(context, port_num, wc, grh, ah_attr);
}

RDMACHAN_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
						     struct ibv_wc *wc,
						     struct ibv_grh *grh,
						     uint8_t port_num)
{
	RETURN_IF_BYPASS(ibv_create_ah_from_wc, pd, wc, grh, port_num);
	struct ibv_ah_attr ah_attr;

	if (vb_init_ah_from_wc(pd->context, port_num, wc, grh, &ah_attr))
		return NULL;
	return vb_create_ah(pd, &ah_attr);
}
