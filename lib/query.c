// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: ibv_query_device, ibv_query_port, ibv_query_gid, the GID
 * table entries of ibv_query_gid_ex and ibv_query_gid_table, and the P_Key
 * table of ibv_query_pkey and ibv_get_pkey_index.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "mode.h"

/*
 * What a query fills in: the caller's struct, as long as the caller says it
 * is; a caller built against newer headers than librdmachan gets the part
 * librdmachan does not know cleared, as libibverbs does.
 */
static void copy_attr(void *dst, size_t dst_len, const void *src, size_t src_len)
{
	memcpy(dst, src, dst_len < src_len ? dst_len : src_len);
	if (dst_len > src_len)
		memset((char *)dst + src_len, 0, dst_len - src_len);
}

/* ibv_query_device(), and the 64 capability bits it has no room for. */
static int rdmachan_query_device_caps(struct ibv_context *context,
				      struct ibv_device_attr *attr,
				      uint64_t *caps)
{
	struct rdmachan_query_device cmd = {
		.size = sizeof(cmd),
		.handle = to_rctx(context)->handle,
	};
	uint64_t fw = 0;

	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_QUERY_DEVICE, &cmd))
		return errno;

	memset(attr, 0, sizeof(*attr));
	/* Drivers without a firmware string get the providers' usual x.y.z. */
	if (cmd.out_fw_str[0]) {
		snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%s", cmd.out_fw_str);
	} else {
		fw = cmd.out_fw_ver;
		snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%u.%u.%u",
			 (unsigned int)(fw >> 32) & 0xffff,
			 (unsigned int)(fw >> 16) & 0xffff,
			 (unsigned int)fw & 0xffff);
	}
	attr->node_guid = (__be64)cmd.out_node_guid;
	attr->sys_image_guid = (__be64)cmd.out_sys_image_guid;
	attr->max_mr_size = cmd.out_max_mr_size;
	attr->page_size_cap = cmd.out_page_size_cap;
	attr->vendor_id = cmd.out_vendor_id;
	attr->vendor_part_id = cmd.out_vendor_part_id;
	attr->hw_ver = cmd.out_hw_ver;
	attr->max_qp = (int)cmd.out_max_qp;
	attr->max_qp_wr = (int)cmd.out_max_qp_wr;
	/* ibv_device_attr has room for the IBV_DEVICE_* bits only */
	attr->device_cap_flags = (unsigned int)cmd.out_device_cap_flags;
	*caps = cmd.out_device_cap_flags;
	attr->max_sge = (int)cmd.out_max_sge;
	attr->max_sge_rd = (int)cmd.out_max_sge_rd;
	attr->max_cq = (int)cmd.out_max_cq;
	attr->max_cqe = (int)cmd.out_max_cqe;
	attr->max_mr = (int)cmd.out_max_mr;
	attr->max_pd = (int)cmd.out_max_pd;
	attr->max_qp_rd_atom = (int)cmd.out_max_qp_rd_atom;
	attr->max_ee_rd_atom = (int)cmd.out_max_ee_rd_atom;
	attr->max_res_rd_atom = (int)cmd.out_max_res_rd_atom;
	attr->max_qp_init_rd_atom = (int)cmd.out_max_qp_init_rd_atom;
	attr->max_ee_init_rd_atom = (int)cmd.out_max_ee_init_rd_atom;
	attr->atomic_cap = (enum ibv_atomic_cap)cmd.out_atomic_cap;
	attr->max_ee = (int)cmd.out_max_ee;
	attr->max_rdd = (int)cmd.out_max_rdd;
	attr->max_mw = (int)cmd.out_max_mw;
	attr->max_raw_ipv6_qp = (int)cmd.out_max_raw_ipv6_qp;
	attr->max_raw_ethy_qp = (int)cmd.out_max_raw_ethy_qp;
	attr->max_mcast_grp = (int)cmd.out_max_mcast_grp;
	attr->max_mcast_qp_attach = (int)cmd.out_max_mcast_qp_attach;
	attr->max_total_mcast_qp_attach = (int)cmd.out_max_total_mcast_qp_attach;
	attr->max_ah = (int)cmd.out_max_ah;
	attr->max_srq = (int)cmd.out_max_srq;
	attr->max_srq_wr = (int)cmd.out_max_srq_wr;
	attr->max_srq_sge = (int)cmd.out_max_srq_sge;
	attr->max_pkeys = cmd.out_max_pkeys;
	attr->local_ca_ack_delay = cmd.out_local_ca_ack_delay;
	attr->phys_port_cnt = cmd.out_phys_port_cnt;
	return 0;
}

int rdmachan_query_device(struct ibv_context *context,
			  struct ibv_device_attr *attr)
{
	uint64_t caps;

	return rdmachan_query_device_caps(context, attr, &caps);
}

RDMACHAN_EXPORT int ibv_query_device(struct ibv_context *context,
				     struct ibv_device_attr *attr)
{
	RETURN_IF_BYPASS(ibv_query_device, context, attr);
	return rdmachan_query_device(context, attr);
}

/*
 * verbs_context.query_device_ex: what the ibv_query_device_ex() inline
 * calls. Adds the full 64-bit capability flags (device_cap_flags_ex) that
 * ibv_device_attr has no room for; rdmachan has none of the other
 * extended capabilities (ODP, TSO, RSS, timestamps, ...), so they are 0.
 * @attr_size is the caller's struct size: an older, shorter one gets what
 * fits, as from libibverbs.
 */
int rdmachan_query_device_ex_op(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr,
				size_t attr_size)
{
	struct ibv_device_attr_ex ex = {};
	uint64_t caps;
	int ret;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < offsetof(struct ibv_device_attr_ex, comp_mask) +
			sizeof(attr->comp_mask))
		return EINVAL;
	ret = rdmachan_query_device_caps(context, &ex.orig_attr, &caps);
	if (ret)
		return ret;
	ex.device_cap_flags_ex = caps;
#ifdef RDMACHAN_HAVE_PHYS_PORT_CNT_EX
	ex.phys_port_cnt_ex = ex.orig_attr.phys_port_cnt;
#endif
	copy_attr(attr, attr_size, &ex, sizeof(ex));
	return 0;
}

/* verbs_context.query_port: what the ibv_query_port() macro calls. */
int rdmachan_query_port_op(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *port_attr, size_t attr_len)
{
	struct rdmachan_query_port cmd = {
		.size = sizeof(cmd),
		.handle = to_rctx(context)->handle,
		.port_num = port_num,
	};
	struct ibv_port_attr attr = {};

	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_QUERY_PORT, &cmd))
		return errno;

	attr.state = (enum ibv_port_state)cmd.out_state;
	attr.max_mtu = (enum ibv_mtu)cmd.out_max_mtu;
	attr.active_mtu = (enum ibv_mtu)cmd.out_active_mtu;
	attr.gid_tbl_len = (int)cmd.out_gid_tbl_len;
	attr.port_cap_flags = cmd.out_port_cap_flags;
	attr.max_msg_sz = cmd.out_max_msg_sz;
	attr.bad_pkey_cntr = cmd.out_bad_pkey_cntr;
	attr.qkey_viol_cntr = cmd.out_qkey_viol_cntr;
	attr.pkey_tbl_len = (uint16_t)cmd.out_pkey_tbl_len;
	attr.lid = (uint16_t)cmd.out_lid;
	attr.sm_lid = (uint16_t)cmd.out_sm_lid;
	attr.lmc = cmd.out_lmc;
	attr.max_vl_num = cmd.out_max_vl_num;
	attr.sm_sl = cmd.out_sm_sl;
	attr.subnet_timeout = cmd.out_subnet_timeout;
	attr.init_type_reply = cmd.out_init_type_reply;
	attr.active_width = cmd.out_active_width;
	attr.active_speed = (uint8_t)cmd.out_active_speed;
	attr.phys_state = cmd.out_phys_state;
	attr.link_layer = cmd.out_link_layer;
	attr.flags = (cmd.out_flags & RDMACHAN_PORT_GRH_REQUIRED) ?
		     IBV_QPF_GRH_REQUIRED : 0;
	attr.port_cap_flags2 = cmd.out_port_cap_flags2;

#ifdef RDMACHAN_HAVE_PORT_ATTR_ACTIVE_SPEED_EX
	attr.active_speed_ex = attr.active_speed;
#endif
	copy_attr(port_attr, attr_len, &attr, sizeof(attr));
	return 0;
}

/*
 * The exported symbol, for binaries built before ibv_query_port() became a
 * macro: their struct ended before port_cap_flags2.
 */
#undef ibv_query_port
RDMACHAN_EXPORT int ibv_query_port(struct ibv_context *context,
				   uint8_t port_num,
				   struct _compat_ibv_port_attr *port_attr)
{
	RETURN_IF_BYPASS(ibv_query_port, context, port_num, port_attr);
	return rdmachan_query_port_op(context, port_num,
				      (struct ibv_port_attr *)port_attr,
				      offsetof(struct ibv_port_attr,
					       port_cap_flags2));
}

RDMACHAN_EXPORT int ibv_query_gid(struct ibv_context *context,
				  uint8_t port_num, int index,
				  union ibv_gid *gid)
{
	RETURN_IF_BYPASS(ibv_query_gid, context, port_num, index, gid);
	struct rdmachan_query_gid cmd = {
		.size = sizeof(cmd),
		.handle = to_rctx(context)->handle,
		.port_num = port_num,
		.index = (uint32_t)index,
	};

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_QUERY_GID, &cmd)) {
		/* As libibverbs: an unused entry reads as the zero GID. */
		if (errno == ENODATA) {
			memset(gid, 0, sizeof(*gid));
			return 0;
		}
		return -1;
	}
	memcpy(gid->raw, cmd.out_gid, sizeof(gid->raw));
	return 0;
}

/*
 * ibv_query_pkey(3): entry @index of the port's P_Key table, read where
 * libibverbs reads it (the device's ports/N/pkeys/I in sysfs), so that
 * both give the same errno (ENOENT) for an entry or port that is not there.
 */
RDMACHAN_EXPORT int ibv_query_pkey(struct ibv_context *context,
				   uint8_t port_num, int index, __be16 *pkey)
{
	RETURN_IF_BYPASS(ibv_query_pkey, context, port_num, index, pkey);
	char file[64], value[16];
	unsigned int pkey_value;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(file, sizeof(file), "ports/%u/pkeys/%d", port_num, index);
	if (rdmachan_read_sysfs(context->device->ibdev_path, file, value,
				sizeof(value)) < 0)
		return -1;
	if (sscanf(value, "%x", &pkey_value) != 1 || pkey_value > 0xffff) {
		errno = EIO;
		return -1;
	}
	*pkey = htobe16((uint16_t)pkey_value);
	return 0;
}

/* ibv_get_pkey_index(3): the first index of @pkey in the table, or -1. */
RDMACHAN_EXPORT int ibv_get_pkey_index(struct ibv_context *context,
				       uint8_t port_num, __be16 pkey)
{
	RETURN_IF_BYPASS(ibv_get_pkey_index, context, port_num, pkey);
	__be16 entry;
	int index;

	for (index = 0; ; index++) {
		if (ibv_query_pkey(context, port_num, index, &entry))
			return -1;
		if (entry == pkey)
			return index;
	}
}

/* One GID table entry into @entry, as the kernel has it: 0 or an errno. */
static int rdmachan_gid_entry(struct ibv_context *context, uint32_t port_num,
			      uint32_t index, struct ibv_gid_entry *entry)
{
	struct rdmachan_query_gid cmd = {
		.size = sizeof(cmd),
		.handle = to_rctx(context)->handle,
		.port_num = port_num,
		.index = index,
	};

	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_QUERY_GID, &cmd))
		return errno;
	memset(entry, 0, sizeof(*entry));
	memcpy(entry->gid.raw, cmd.out_gid, sizeof(entry->gid.raw));
	entry->gid_index = index;
	entry->port_num = port_num;
	/* enum rdmachan_gid_type has enum ibv_gid_type's values */
	entry->gid_type = cmd.out_gid_type;
	entry->ndev_ifindex = cmd.out_ndev_ifindex;
	return 0;
}

/* ibv_query_gid_ex(3): 0, or an errno value (ENODATA: entry not in use). */
RDMACHAN_EXPORT int _ibv_query_gid_ex(struct ibv_context *context,
				      uint32_t port_num, uint32_t gid_index,
				      struct ibv_gid_entry *entry,
				      uint32_t flags, size_t entry_size)
{
	RETURN_IF_BYPASS(_ibv_query_gid_ex,
			 context, port_num, gid_index, entry, flags, entry_size);
	struct ibv_gid_entry e;
	int ret;

	if (flags || entry_size < sizeof(e))
		return EINVAL;
	ret = rdmachan_gid_entry(context, port_num, gid_index, &e);
	if (ret)
		return ret;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

/*
 * ibv_query_gid_table(3): the valid entries of every port, @entry_size
 * apart; their number, or a negative errno (-EINVAL when they do not fit).
 */
RDMACHAN_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
					     struct ibv_gid_entry *entries,
					     size_t max_entries,
					     uint32_t flags, size_t entry_size)
{
	RETURN_IF_BYPASS(_ibv_query_gid_table,
			 context, entries, max_entries, flags, entry_size);
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_gid_entry e;
	size_t n = 0;
	uint32_t port;
	int i, ret;

	if (flags || !max_entries || entry_size < sizeof(e))
		return -EINVAL;
	ret = ibv_query_device(context, &dattr);
	if (ret)
		return -ret;
	for (port = 1; port <= dattr.phys_port_cnt; port++) {
		ret = rdmachan_query_port_op(context, (uint8_t)port, &pattr,
					     sizeof(pattr));
		if (ret)
			return -ret;
		for (i = 0; i < pattr.gid_tbl_len; i++) {
			ret = rdmachan_gid_entry(context, port, (uint32_t)i, &e);
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (n == max_entries)
				return -EINVAL;
			memcpy((char *)entries + n++ * entry_size, &e, sizeof(e));
		}
	}
	return (ssize_t)n;
}
