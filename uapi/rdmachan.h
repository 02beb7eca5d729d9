/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmachan ioctl ABI: /dev/rdmachan.
 *
 * Every argument struct starts with __u32 size and __u32 flags. The caller
 * sets size to sizeof() of the struct it was built with; the module accepts
 * any size from the first layout on, treats missing tail fields as zero and
 * rejects a non-zero tail it does not know (-E2BIG). Output fields are named
 * out_*, and at most min(size, module's sizeof) bytes are written back.
 * The size encoded in the ioctl number is ignored: dispatch is on type and
 * number only, so a struct can grow without a new command.
 *
 * Unknown flags and non-zero __reserved fields: -EINVAL. Unknown command:
 * -ENOTTY. A handle that is not an object of the calling file: -ENOENT.
 * A file used by a process other than the one that opened it: -EACCES.
 * A device context whose IB device has been removed: -ENODEV.
 */
#ifndef _UAPI_RDMACHAN_H
#define _UAPI_RDMACHAN_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define RDMACHAN_ABI_VERSION	1
#define RDMACHAN_IOCTL_TYPE	0xD5

/* Lengths of the fixed-size strings, NUL included. */
#define RDMACHAN_DEVICE_NAME_MAX	64
#define RDMACHAN_FW_VER_MAX		64

/**
 * enum rdmachan_feature - bits of rdmachan_get_info.out_features
 * @RDMACHAN_FEATURE_DEVICE_QUERY: device list, device contexts, device,
 *	port and GID queries
 */
enum rdmachan_feature {
	RDMACHAN_FEATURE_DEVICE_QUERY = 0x1,
};

/* Node and transport types; the values are those of libibverbs. */
enum rdmachan_node_type {
	RDMACHAN_NODE_CA = 1,
	RDMACHAN_NODE_SWITCH,
	RDMACHAN_NODE_ROUTER,
	RDMACHAN_NODE_RNIC,
	RDMACHAN_NODE_USNIC,
	RDMACHAN_NODE_USNIC_UDP,
	RDMACHAN_NODE_UNSPECIFIED,
};

enum rdmachan_transport_type {
	RDMACHAN_TRANSPORT_IB = 0,
	RDMACHAN_TRANSPORT_IWARP,
	RDMACHAN_TRANSPORT_USNIC,
	RDMACHAN_TRANSPORT_USNIC_UDP,
	RDMACHAN_TRANSPORT_UNSPECIFIED,
};

/* GID types; the values are those of ibv_gid_type. */
enum rdmachan_gid_type {
	RDMACHAN_GID_TYPE_IB = 0,
	RDMACHAN_GID_TYPE_ROCE_V1,
	RDMACHAN_GID_TYPE_ROCE_V2,
};

/* Bits of rdmachan_query_port.out_flags. */
#define RDMACHAN_PORT_GRH_REQUIRED	0x1

/**
 * struct rdmachan_get_info - RDMACHAN_IOC_GET_INFO: ABI version and features
 * @size: sizeof(struct rdmachan_get_info)
 * @flags: must be 0
 * @out_abi_version: RDMACHAN_ABI_VERSION of the loaded module
 * @__reserved: must be 0
 * @out_features: RDMACHAN_FEATURE_* bits the module supports
 */
struct rdmachan_get_info {
	__u32 size;
	__u32 flags;
	__u32 out_abi_version;
	__u32 __reserved;
	__aligned_u64 out_features;
};

/**
 * struct rdmachan_device_entry - one element of the device list
 * @device_index: the IB core's index of the device; it names the device
 *	in RDMACHAN_IOC_OPEN_DEVICE and is not reused while the module runs
 * @node_type: enum rdmachan_node_type
 * @transport: enum rdmachan_transport_type
 * @phys_port_cnt: number of physical ports, numbered from 1
 * @__reserved: 0
 * @node_guid: node GUID, big-endian as on the wire
 * @name: the IB device name, NUL-terminated
 */
struct rdmachan_device_entry {
	__u32 device_index;
	__u8 node_type;
	__u8 transport;
	__u8 phys_port_cnt;
	__u8 __reserved;
	__aligned_u64 node_guid;
	char name[RDMACHAN_DEVICE_NAME_MAX];
};

/**
 * struct rdmachan_list_devices - RDMACHAN_IOC_LIST_DEVICES
 * @size: sizeof(struct rdmachan_list_devices)
 * @flags: must be 0
 * @entry_size: sizeof(struct rdmachan_device_entry) as the caller knows it;
 *	at least the first layout's size, and entries are that far apart
 * @max_entries: room at @entries, in entries; may be 0 to count devices
 * @entries: user pointer to an array of entries
 * @out_num_devices: number of devices; when larger than @max_entries only
 *	the first @max_entries were written and the caller may retry
 * @__reserved: must be 0
 */
struct rdmachan_list_devices {
	__u32 size;
	__u32 flags;
	__u32 entry_size;
	__u32 max_entries;
	__aligned_u64 entries;
	__u32 out_num_devices;
	__u32 __reserved;
};

/**
 * struct rdmachan_open_device - RDMACHAN_IOC_OPEN_DEVICE: a device context
 * @size: sizeof(struct rdmachan_open_device)
 * @flags: must be 0
 * @device_index: rdmachan_device_entry.device_index of the device
 * @out_handle: handle of the new device context in this file
 * @out_num_comp_vectors: completion vectors of the device
 * @__reserved: must be 0
 *
 * -ENODEV when no such device exists (any more).
 */
struct rdmachan_open_device {
	__u32 size;
	__u32 flags;
	__u32 device_index;
	__u32 out_handle;
	__u32 out_num_comp_vectors;
	__u32 __reserved;
};

/**
 * struct rdmachan_destroy - RDMACHAN_IOC_DESTROY: destroy an object
 * @size: sizeof(struct rdmachan_destroy)
 * @flags: must be 0
 * @handle: the object's handle in this file
 * @__reserved: must be 0
 */
struct rdmachan_destroy {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
};

/**
 * struct rdmachan_query_device - RDMACHAN_IOC_QUERY_DEVICE
 * @size: sizeof(struct rdmachan_query_device)
 * @flags: must be 0
 * @handle: a device context
 * @__reserved: must be 0
 * @out_node_guid: node GUID, big-endian
 * @out_sys_image_guid: system image GUID, big-endian
 * @out_max_mr_size: largest memory region, in bytes
 * @out_page_size_cap: supported page sizes, one bit per size
 * @out_device_cap_flags: IB_DEVICE_* capability bits (ibv_device_cap_flags)
 * @out_fw_ver: firmware version as the driver encodes it
 * @out_vendor_id: IEEE vendor id
 * @out_vendor_part_id: vendor's part id
 * @out_hw_ver: hardware version
 * @out_max_qp: the remaining out_max_* and friends are the limits of
 *	struct ibv_device_attr of the same names; @out_max_sge is the smaller
 *	of the send and receive limits
 * @out_max_qp_wr: see @out_max_qp
 * @out_max_sge: see @out_max_qp
 * @out_max_sge_rd: see @out_max_qp
 * @out_max_cq: see @out_max_qp
 * @out_max_cqe: see @out_max_qp
 * @out_max_mr: see @out_max_qp
 * @out_max_pd: see @out_max_qp
 * @out_max_qp_rd_atom: see @out_max_qp
 * @out_max_ee_rd_atom: see @out_max_qp
 * @out_max_res_rd_atom: see @out_max_qp
 * @out_max_qp_init_rd_atom: see @out_max_qp
 * @out_max_ee_init_rd_atom: see @out_max_qp
 * @out_atomic_cap: enum ibv_atomic_cap
 * @out_max_ee: see @out_max_qp
 * @out_max_rdd: see @out_max_qp
 * @out_max_mw: see @out_max_qp
 * @out_max_raw_ipv6_qp: see @out_max_qp
 * @out_max_raw_ethy_qp: see @out_max_qp
 * @out_max_mcast_grp: see @out_max_qp
 * @out_max_mcast_qp_attach: see @out_max_qp
 * @out_max_total_mcast_qp_attach: see @out_max_qp
 * @out_max_ah: see @out_max_qp
 * @out_max_srq: see @out_max_qp
 * @out_max_srq_wr: see @out_max_qp
 * @out_max_srq_sge: see @out_max_qp
 * @out_max_pkeys: see @out_max_qp
 * @out_local_ca_ack_delay: see @out_max_qp
 * @out_phys_port_cnt: number of physical ports
 * @out_fw_str: the driver's firmware version string, empty if it has none
 */
struct rdmachan_query_device {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__aligned_u64 out_node_guid;
	__aligned_u64 out_sys_image_guid;
	__aligned_u64 out_max_mr_size;
	__aligned_u64 out_page_size_cap;
	__aligned_u64 out_device_cap_flags;
	__aligned_u64 out_fw_ver;
	__u32 out_vendor_id;
	__u32 out_vendor_part_id;
	__u32 out_hw_ver;
	__u32 out_max_qp;
	__u32 out_max_qp_wr;
	__u32 out_max_sge;
	__u32 out_max_sge_rd;
	__u32 out_max_cq;
	__u32 out_max_cqe;
	__u32 out_max_mr;
	__u32 out_max_pd;
	__u32 out_max_qp_rd_atom;
	__u32 out_max_ee_rd_atom;
	__u32 out_max_res_rd_atom;
	__u32 out_max_qp_init_rd_atom;
	__u32 out_max_ee_init_rd_atom;
	__u32 out_atomic_cap;
	__u32 out_max_ee;
	__u32 out_max_rdd;
	__u32 out_max_mw;
	__u32 out_max_raw_ipv6_qp;
	__u32 out_max_raw_ethy_qp;
	__u32 out_max_mcast_grp;
	__u32 out_max_mcast_qp_attach;
	__u32 out_max_total_mcast_qp_attach;
	__u32 out_max_ah;
	__u32 out_max_srq;
	__u32 out_max_srq_wr;
	__u32 out_max_srq_sge;
	__u16 out_max_pkeys;
	__u8 out_local_ca_ack_delay;
	__u8 out_phys_port_cnt;
	char out_fw_str[RDMACHAN_FW_VER_MAX];
};

/**
 * struct rdmachan_query_port - RDMACHAN_IOC_QUERY_PORT
 * @size: sizeof(struct rdmachan_query_port)
 * @flags: must be 0
 * @handle: a device context
 * @port_num: port number, from 1; -EINVAL when the device has no such port
 * @out_port_cap_flags: the port's capability mask
 * @out_max_msg_sz: largest message, in bytes
 * @out_bad_pkey_cntr: bad P_Key counter
 * @out_qkey_viol_cntr: Q_Key violation counter
 * @out_pkey_tbl_len: length of the P_Key table
 * @out_gid_tbl_len: length of the GID table
 * @out_lid: base LID
 * @out_sm_lid: LID of the subnet manager
 * @out_active_speed: IB_SPEED_* (ibv_port_attr.active_speed)
 * @out_port_cap_flags2: the port's second capability mask
 * @out_state: enum ibv_port_state
 * @out_max_mtu: enum ibv_mtu
 * @out_active_mtu: enum ibv_mtu
 * @out_lmc: LID mask control
 * @out_max_vl_num: number of virtual lanes
 * @out_sm_sl: service level of the subnet manager
 * @out_subnet_timeout: subnet propagation delay
 * @out_init_type_reply: InitTypeReply of the port
 * @out_active_width: IB_WIDTH_* (ibv_port_attr.active_width)
 * @out_phys_state: physical port state
 * @out_link_layer: enum ibv_link_layer (IBV_LINK_LAYER_*)
 * @out_flags: RDMACHAN_PORT_* bits
 * @__reserved: must be 0
 */
struct rdmachan_query_port {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 port_num;
	__u32 out_port_cap_flags;
	__u32 out_max_msg_sz;
	__u32 out_bad_pkey_cntr;
	__u32 out_qkey_viol_cntr;
	__u32 out_pkey_tbl_len;
	__u32 out_gid_tbl_len;
	__u32 out_lid;
	__u32 out_sm_lid;
	__u16 out_active_speed;
	__u16 out_port_cap_flags2;
	__u8 out_state;
	__u8 out_max_mtu;
	__u8 out_active_mtu;
	__u8 out_lmc;
	__u8 out_max_vl_num;
	__u8 out_sm_sl;
	__u8 out_subnet_timeout;
	__u8 out_init_type_reply;
	__u8 out_active_width;
	__u8 out_phys_state;
	__u8 out_link_layer;
	__u8 out_flags;
	__aligned_u64 __reserved;
};

/**
 * struct rdmachan_query_gid - RDMACHAN_IOC_QUERY_GID: one GID table entry
 * @size: sizeof(struct rdmachan_query_gid)
 * @flags: must be 0
 * @handle: a device context
 * @port_num: port number, from 1
 * @index: index in the port's GID table; -EINVAL past its end, -ENODATA
 *	for an entry that is not in use
 * @out_gid_type: enum rdmachan_gid_type
 * @out_gid: the GID, in network byte order
 * @out_ndev_ifindex: ifindex of the entry's net device, 0 for none
 * @__reserved: must be 0
 */
struct rdmachan_query_gid {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 port_num;
	__u32 index;
	__u32 out_gid_type;
	__u8 out_gid[16];
	__u32 out_ndev_ifindex;
	__u32 __reserved;
};

enum rdmachan_ioctl_nr {
	RDMACHAN_CMD_GET_INFO = 0x00,
	RDMACHAN_CMD_LIST_DEVICES,
	RDMACHAN_CMD_OPEN_DEVICE,
	RDMACHAN_CMD_DESTROY,
	RDMACHAN_CMD_QUERY_DEVICE,
	RDMACHAN_CMD_QUERY_PORT,
	RDMACHAN_CMD_QUERY_GID,
};

#define RDMACHAN_IOC_GET_INFO \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_INFO, struct rdmachan_get_info)
#define RDMACHAN_IOC_LIST_DEVICES \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_LIST_DEVICES, struct rdmachan_list_devices)
#define RDMACHAN_IOC_OPEN_DEVICE \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_OPEN_DEVICE, struct rdmachan_open_device)
#define RDMACHAN_IOC_DESTROY \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_DESTROY, struct rdmachan_destroy)
#define RDMACHAN_IOC_QUERY_DEVICE \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_DEVICE, struct rdmachan_query_device)
#define RDMACHAN_IOC_QUERY_PORT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_PORT, struct rdmachan_query_port)
#define RDMACHAN_IOC_QUERY_GID \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_GID, struct rdmachan_query_gid)

#endif /* _UAPI_RDMACHAN_H */
