// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-devinfo: list RDMA devices and their ports through librdmachan,
 * in the manner of ibv_devinfo.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdmachan/rdmachan.h>

static const char *transport_str(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB: return "InfiniBand";
	case IBV_TRANSPORT_IWARP: return "iWARP";
	case IBV_TRANSPORT_USNIC: return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP: return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
	default: return "invalid transport";
	}
}

static const char *link_layer_str(uint8_t link_layer)
{
	switch (link_layer) {
	case IBV_LINK_LAYER_UNSPECIFIED:
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "Unknown";
	}
}

static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

static void print_guid(const char *label, __be64 guid)
{
	uint64_t g = be64toh(guid);

	printf("\t%-24s%04x:%04x:%04x:%04x\n", label,
	       (unsigned int)(g >> 48) & 0xffff, (unsigned int)(g >> 32) & 0xffff,
	       (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

static int print_port(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr attr;
	char addr[INET6_ADDRSTRLEN];
	union ibv_gid gid;
	int ret, i;

	ret = ibv_query_port(ctx, port, &attr);
	if (ret) {
		fprintf(stderr, "ibv_query_port(%u): %s\n", port, strerror(ret));
		return -1;
	}
	printf("\t\tport:\t%u\n", port);
	printf("\t\t\t%-20s%s (%d)\n", "state:",
	       ibv_port_state_str(attr.state), attr.state);
	printf("\t\t\t%-20s%d (%d)\n", "max_mtu:", mtu_bytes(attr.max_mtu),
	       attr.max_mtu);
	printf("\t\t\t%-20s%d (%d)\n", "active_mtu:",
	       mtu_bytes(attr.active_mtu), attr.active_mtu);
	printf("\t\t\t%-20s%u\n", "sm_lid:", attr.sm_lid);
	printf("\t\t\t%-20s%u\n", "port_lid:", attr.lid);
	printf("\t\t\t%-20s0x%02x\n", "port_lmc:", attr.lmc);
	printf("\t\t\t%-20s%s\n", "link_layer:", link_layer_str(attr.link_layer));
	printf("\t\t\t%-20s%d\n", "gid_tbl_len:", attr.gid_tbl_len);
	for (i = 0; i < attr.gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, port, i, &gid)) {
			perror("ibv_query_gid");
			return -1;
		}
		if (!gid.global.subnet_prefix && !gid.global.interface_id)
			continue;
		inet_ntop(AF_INET6, gid.raw, addr, sizeof(addr));
		printf("\t\t\tGID[%3d]:\t\t%s\n", i, addr);
	}
	return 0;
}

static int print_device(struct ibv_device *dev)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret = 0;
	uint8_t port;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "ibv_open_device(%s): %s\n",
			ibv_get_device_name(dev), strerror(errno));
		return -1;
	}
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		fprintf(stderr, "ibv_query_device: %s\n", strerror(ret));
		ibv_close_device(ctx);
		return -1;
	}
	printf("hca_id:\t%s\n", ibv_get_device_name(dev));
	printf("\t%-24s%s (%d)\n", "transport:",
	       transport_str(dev->transport_type), dev->transport_type);
	printf("\t%-24s%s\n", "node_type:", ibv_node_type_str(dev->node_type));
	printf("\t%-24s%s\n", "fw_ver:", attr.fw_ver);
	print_guid("node_guid:", ibv_get_device_guid(dev));
	print_guid("sys_image_guid:", attr.sys_image_guid);
	printf("\t%-24s0x%06x\n", "vendor_id:", attr.vendor_id);
	printf("\t%-24s%u\n", "vendor_part_id:", attr.vendor_part_id);
	printf("\t%-24s0x%x\n", "hw_ver:", attr.hw_ver);
	printf("\t%-24s%d\n", "max_qp:", attr.max_qp);
	printf("\t%-24s%d\n", "max_cqe:", attr.max_cqe);
	printf("\t%-24s%u\n", "phys_port_cnt:", attr.phys_port_cnt);
	for (port = 1; port <= attr.phys_port_cnt; port++)
		if (print_port(ctx, port))
			ret = -1;
	printf("\n");
	ibv_close_device(ctx);
	return ret;
}

int main(void)
{
	struct ibv_device **list;
	uint64_t features;
	uint32_t abi;
	int n, i, ret = 0;

	if (rdmachan_get_info(&abi, &features)) {
		perror("rdmachan_get_info");
		return 1;
	}
	printf("rdmachan ABI %u, features 0x%" PRIx64 "\n\n", abi, features);

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	if (n == 0)
		printf("No IB devices found\n");
	for (i = 0; i < n; i++)
		if (print_device(list[i]))
			ret = 1;
	ibv_free_device_list(list);
	return ret;
}
