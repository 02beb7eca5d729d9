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
 * A QP number in CONNECT or ACCEPT naming a QP not the caller's: -EACCES.
 * A device context whose IB device has been removed: -ENODEV.
 */
#ifndef _UAPI_RDMACHAN_H
#define _UAPI_RDMACHAN_H

#include <linux/ioctl.h>
#include <linux/socket.h>
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
 * @RDMACHAN_FEATURE_CM: connection manager ids and their event queue
 * @RDMACHAN_FEATURE_VERBS: PDs, MRs, CQs, completion channels, QPs, SRQs,
 *	AHs, multicast, and the data path on them
 * @RDMACHAN_FEATURE_ASYNC_EVENTS: asynchronous event files of device
 *	contexts, and the acknowledgment of QP, CQ and SRQ events
 * @RDMACHAN_FEATURE_CQ_RING: CQs whose completions are read from a ring
 *	mapped into the process (RDMACHAN_CREATE_CQ_RING)
 * @RDMACHAN_FEATURE_USER_QP: QPs made through uverbs bound to CM ids
 *	(RDMACHAN_IOC_BIND_USER_QP); only where the kernel's QP destroy
 *	waits for a QP the module holds
 * @RDMACHAN_FEATURE_INTROSPECT: RDMACHAN_IOC_QUERY_EVENTS and
 *	RDMACHAN_IOC_QUERY_ASYNC_EVENTS, and the files' fdinfo
 */
enum rdmachan_feature {
	RDMACHAN_FEATURE_DEVICE_QUERY = 0x1,
	RDMACHAN_FEATURE_CM = 0x2,
	RDMACHAN_FEATURE_VERBS = 0x4,
	RDMACHAN_FEATURE_ASYNC_EVENTS = 0x8,
	RDMACHAN_FEATURE_CQ_RING = 0x10,
	RDMACHAN_FEATURE_USER_QP = 0x20,
	RDMACHAN_FEATURE_INTROSPECT = 0x40,
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
 *
 * The same bits are in /sys/class/misc/rdmachan/features, in hexadecimal
 * ("0x7f\n"), for whoever wants them without opening the device.
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
 * @out_num_devices: number of devices the caller's network namespace may
 *	use (all of them in shared mode); when larger than @max_entries only
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
 * -ENODEV when no such device exists (any more); -EPERM for a device
 * the caller's network namespace may not use (the RDMA subsystem's
 * "rdma system set netns" rule, as for ib_uverbs).
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

/*
 * Connection manager.
 *
 * Every file is an event channel: CM ids are objects of the file that
 * created them, and their events queue on that file. RDMACHAN_IOC_GET_EVENTS
 * blocks until an event is queued unless the file is O_NONBLOCK (-EAGAIN);
 * the file polls readable while events are queued. Each event that was
 * read must be acknowledged with its event_handle; destroying an id
 * (RDMACHAN_IOC_DESTROY) returns only when every event read for it has been
 * acknowledged. Acknowledging a handle that was never read, or twice, is
 * -ENOENT. Closing the file drops everything, acknowledged or not.
 *
 * Port spaces, QP types, event types, reject reasons and QP attribute
 * masks have the values of the kernel's rdma_cm and of rdma-core.
 */

#define RDMACHAN_CM_PRIVATE_DATA_MAX	256
#define RDMACHAN_CM_MAX_PATHS		2
/* rdmachan_cm_route.device_index of an id not bound to a device */
#define RDMACHAN_NO_DEVICE		0xffffffffU

/**
 * struct rdmachan_path_rec - a path record, as struct ibv_sa_path_rec
 * @dgid: destination GID, in network byte order
 * @sgid: source GID, in network byte order
 * @dlid: destination LID
 * @slid: source LID
 * @flow_label: GRH flow label
 * @raw_traffic: 1 for raw (non-IB) packets, 0 for IB packets
 * @hop_limit: GRH hop limit
 * @traffic_class: GRH traffic class
 * @reversible: non-zero when the path is reversible
 * @numb_path: the record's NumbPath: the most paths the query asked for
 * @sl: service level
 * @mtu_selector: how the path's MTU compares to @mtu (SA selector)
 * @mtu: path MTU, an IBV_MTU_* value
 * @pkey: partition key
 * @rate_selector: how the path's rate compares to @rate (SA selector)
 * @rate: path rate, an IBV_RATE_* value
 * @packet_life_time_selector: how the path's packet life time compares
 *	to @packet_life_time (SA selector)
 * @packet_life_time: packet life time, 4.096 us * 2^packet_life_time
 * @preference: rank of the path among those returned, 0 the best
 * @__reserved: 0
 *
 * The fields have the names and meaning of struct ibv_sa_path_rec; @dlid,
 * @slid, @flow_label and @pkey are big-endian, as there.
 */
struct rdmachan_path_rec {
	__u8 dgid[16];
	__u8 sgid[16];
	__u16 dlid;
	__u16 slid;
	__u32 flow_label;
	__u8 raw_traffic;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 reversible;
	__u8 numb_path;
	__u8 sl;
	__u8 mtu_selector;
	__u8 mtu;
	__u16 pkey;
	__u8 rate_selector;
	__u8 rate;
	__u8 packet_life_time_selector;
	__u8 packet_life_time;
	__u8 preference;
	__u8 __reserved[9];
};

/**
 * struct rdmachan_cm_route - what an id is bound and routed to
 * @src_addr: local address (struct sockaddr_in or sockaddr_in6)
 * @dst_addr: remote address, family 0 when there is none
 * @sgid: local GID
 * @dgid: remote GID
 * @device_index: rdmachan_device_entry.device_index of the device the id
 *	is bound to, RDMACHAN_NO_DEVICE when none
 * @pkey: partition key, big-endian
 * @port_num: port of the device
 * @num_paths: valid entries of @path
 * @path: primary and alternate path, once the route is resolved
 */
struct rdmachan_cm_route {
	struct __kernel_sockaddr_storage src_addr;
	struct __kernel_sockaddr_storage dst_addr;
	__u8 sgid[16];
	__u8 dgid[16];
	__u32 device_index;
	__u16 pkey;
	__u8 port_num;
	__u8 num_paths;
	struct rdmachan_path_rec path[RDMACHAN_CM_MAX_PATHS];
};

/**
 * struct rdmachan_ah_attr - address handle attributes, as struct ibv_ah_attr
 * @dgid: destination GID, in network byte order
 * @flow_label: GRH flow label
 * @dlid: destination LID
 * @sgid_index: index of the source GID in the port's GID table
 * @hop_limit: GRH hop limit
 * @traffic_class: GRH traffic class
 * @sl: service level
 * @src_path_bits: source path bits: the low bits of the source LID
 * @static_rate: IBV_RATE_* rate limit, 0 for the port's rate
 * @is_global: non-zero when the GRH fields count (required on RoCE)
 * @port_num: port number, from 1
 * @__reserved: must be 0
 *
 * @dgid, @flow_label, @sgid_index, @hop_limit and @traffic_class are the
 * members of ibv_ah_attr.grh; the others have ibv_ah_attr's names.
 */
struct rdmachan_ah_attr {
	__u8 dgid[16];
	__u32 flow_label;
	__u16 dlid;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u8 src_path_bits;
	__u8 static_rate;
	__u8 is_global;
	__u8 port_num;
	__u8 __reserved[2];
};

/**
 * struct rdmachan_conn_param - connection parameters given to the CM
 * @private_data: sent to the peer; the first @private_data_len bytes count
 * @qp_num: local QP number, for an id without a kernel QP
 * @qkey: Q_Key of an AF_IB UD id, 0 for the CM's default; ignored for
 *	IP addresses, whose UD ids use the CM's Q_Key
 * @responder_resources: as in struct rdma_conn_param
 * @initiator_depth: as in struct rdma_conn_param
 * @flow_control: as in struct rdma_conn_param
 * @retry_count: as in struct rdma_conn_param
 * @rnr_retry_count: as in struct rdma_conn_param
 * @srq: as in struct rdma_conn_param
 * @private_data_len: bytes of @private_data to send
 * @__reserved: must be 0
 */
struct rdmachan_conn_param {
	__u8 private_data[RDMACHAN_CM_PRIVATE_DATA_MAX];
	__u32 qp_num;
	__u32 qkey;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 retry_count;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 private_data_len;
	__u8 __reserved;
};

/* Bits of rdmachan_cm_event.valid */
#define RDMACHAN_CM_EVENT_ROUTE		0x1	/* @route is set */
#define RDMACHAN_CM_EVENT_CONN		0x2	/* connection parameters */
#define RDMACHAN_CM_EVENT_UD		0x4	/* UD parameters */

/**
 * struct rdmachan_cm_event - one event, as RDMACHAN_IOC_GET_EVENTS returns it
 * @user_context: rdmachan_create_id.user_context of the id
 * @event_handle: acknowledge the event with this (RDMACHAN_IOC_ACK_EVENTS)
 * @id_handle: the id the event is for; the listening id for a connect
 *	request, whose ack it counts against
 * @event: RDMA_CM_EVENT_* type
 * @status: 0, or the negative errno or transport status the CM reported
 * @new_id_handle: for RDMA_CM_EVENT_CONNECT_REQUEST, the new id: it is
 *	already an object of this file and must be accepted, rejected or
 *	destroyed; 0 otherwise
 * @valid: RDMACHAN_CM_EVENT_* bits saying which fields below are set
 * @qp_num: the peer's QP number (connection or UD parameters)
 * @qkey: the peer's Q_Key (UD parameters)
 * @responder_resources: connection parameter of the peer
 * @initiator_depth: connection parameter of the peer
 * @flow_control: connection parameter of the peer
 * @retry_count: connection parameter of the peer
 * @rnr_retry_count: connection parameter of the peer
 * @srq: connection parameter of the peer
 * @private_data_len: bytes of @private_data the peer sent
 * @__reserved: 0
 * @ah_attr: address handle to reach the peer (UD parameters)
 * @private_data: the peer's private data
 * @route: addresses and route of the id (of the new id for a connect
 *	request), as the event left them
 * @mcast_handle: for RDMA_CM_EVENT_MULTICAST_JOIN and _ERROR, the
 *	multicast object (rdmachan_join_mcast.out_handle); 0 otherwise
 * @__reserved2: 0
 * @mcast_context: rdmachan_join_mcast.user_context of @mcast_handle
 *
 * @mcast_handle and later fields were added after the first layout,
 * which ends at @route (RDMACHAN_CM_EVENT_SIZE_V1 bytes).
 */
struct rdmachan_cm_event {
	__aligned_u64 user_context;
	__u32 event_handle;
	__u32 id_handle;
	__u32 event;
	__s32 status;
	__u32 new_id_handle;
	__u32 valid;
	__u32 qp_num;
	__u32 qkey;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 retry_count;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 private_data_len;
	__u8 __reserved;
	struct rdmachan_ah_attr ah_attr;
	__u8 private_data[RDMACHAN_CM_PRIVATE_DATA_MAX];
	struct rdmachan_cm_route route;
	__u32 mcast_handle;
	__u32 __reserved2;
	__aligned_u64 mcast_context;
};

#define RDMACHAN_CM_EVENT_SIZE_V1	760

/**
 * struct rdmachan_create_id - RDMACHAN_IOC_CREATE_ID: a CM id on this file
 * @size: sizeof(struct rdmachan_create_id)
 * @flags: must be 0
 * @user_context: returned in every event of the id
 * @port_space: RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IPOIB or RDMA_PS_IB
 * @qp_type: IBV_QPT_RC or IBV_QPT_UD; must suit @port_space
 * @out_handle: handle of the new id
 * @__reserved: must be 0
 */
struct rdmachan_create_id {
	__u32 size;
	__u32 flags;
	__aligned_u64 user_context;
	__u32 port_space;
	__u32 qp_type;
	__u32 out_handle;
	__u32 __reserved;
};

/**
 * struct rdmachan_bind_addr - RDMACHAN_IOC_BIND_ADDR: rdma_bind_addr()
 * @size: sizeof(struct rdmachan_bind_addr)
 * @flags: must be 0
 * @handle: a CM id
 * @__reserved: must be 0
 * @addr: local address; wildcard address and port 0 are allowed
 * @out_route: the id's addresses and device after the bind
 *
 * The CM cannot unbind: if @out_route cannot be written after the bind
 * (it was writable when the call began), the call fails with -EFAULT and
 * the id stays bound.
 */
struct rdmachan_bind_addr {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	struct __kernel_sockaddr_storage addr;
	struct rdmachan_cm_route out_route;
};

/**
 * struct rdmachan_resolve_addr - RDMACHAN_IOC_RESOLVE_ADDR: rdma_resolve_addr()
 * @size: sizeof(struct rdmachan_resolve_addr)
 * @flags: must be 0
 * @handle: a CM id
 * @timeout_ms: time limit of the resolution
 * @src_addr: local address, or family 0 for none
 * @dst_addr: remote address
 *
 * Completes with RDMA_CM_EVENT_ADDR_RESOLVED or RDMA_CM_EVENT_ADDR_ERROR.
 */
struct rdmachan_resolve_addr {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 timeout_ms;
	struct __kernel_sockaddr_storage src_addr;
	struct __kernel_sockaddr_storage dst_addr;
};

/**
 * struct rdmachan_resolve_route - RDMACHAN_IOC_RESOLVE_ROUTE
 * @size: sizeof(struct rdmachan_resolve_route)
 * @flags: must be 0
 * @handle: a CM id whose address is resolved
 * @timeout_ms: time limit in ms, not negative
 */
struct rdmachan_resolve_route {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 timeout_ms;
};

/**
 * struct rdmachan_listen - RDMACHAN_IOC_LISTEN
 * @size: sizeof(struct rdmachan_listen)
 * @flags: must be 0
 * @handle: a CM id
 * @backlog: connect requests queued at most; <= 0 for the module's maximum
 *
 * EINVAL on an id whose RESOLVE_ADDR has not had its ADDR_RESOLVED or
 * ADDR_ERROR queued yet.
 */
struct rdmachan_listen {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 backlog;
};

/**
 * struct rdmachan_disconnect - RDMACHAN_IOC_DISCONNECT
 * @size: sizeof(struct rdmachan_disconnect)
 * @flags: must be 0
 * @handle: a CM id
 * @__reserved: must be 0
 */
struct rdmachan_disconnect {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
};

/**
 * struct rdmachan_establish - RDMACHAN_IOC_ESTABLISH
 * @size: sizeof(struct rdmachan_establish)
 * @flags: must be 0
 * @handle: a CM id
 * @__reserved: must be 0
 *
 * rdma_establish(): completes a connection after
 * RDMA_CM_EVENT_CONNECT_RESPONSE. EINVAL on an id that did not CONNECT,
 * before the id's RDMA_CM_EVENT_CONNECT_RESPONSE came (the module takes
 * the event, read or not; an id with a QP gets ESTABLISHED instead, and no
 * ESTABLISH), or once it was made: the RDMA CM would answer it with a
 * reject of the connection, and leave the id's REQ retrying for a minute
 * or more before the id could be destroyed.
 */
struct rdmachan_establish {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
};

/**
 * struct rdmachan_notify - RDMACHAN_IOC_NOTIFY
 * @size: sizeof(struct rdmachan_notify)
 * @flags: must be 0
 * @handle: a CM id
 * @event: IBV_EVENT_COMM_EST, the only one taken: the RDMA CM's path
 *	migration leaks references
 */
struct rdmachan_notify {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 event;
};

/**
 * struct rdmachan_id_cmd - the layout the five commands above share
 * @size: sizeof(struct rdmachan_id_cmd)
 * @flags: must be 0
 * @handle: a CM id
 * @value: the command's last field
 *
 * Kept so that code written against it still builds; new code uses the
 * command's own struct.
 */
struct rdmachan_id_cmd {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 value;
};

/**
 * struct rdmachan_connect - RDMACHAN_IOC_CONNECT and RDMACHAN_IOC_ACCEPT
 * @size: sizeof(struct rdmachan_connect)
 * @flags: must be 0
 * @handle: a CM id
 * @__reserved: must be 0
 * @user_context: ACCEPT: the id's new user_context; CONNECT: must be 0
 * @conn: connection parameters
 *
 * ACCEPT and REJECT answer a connect request once: either is EINVAL on an
 * id not made for a connect request, or once the request was answered
 * (also by an ACCEPT that failed, after which the RDMA CM rejected the
 * connection itself). The RDMA CM would answer such a call with a reject
 * of the connection, and leave the id's REQ or REP retrying for a minute
 * or more before the id could be destroyed. CONNECT is EINVAL on an id
 * that connected or was made for a connect request (the RDMA CM refuses it
 * too).
 *
 * On an id without a QP, @conn.qp_num is what the CM sends as the local
 * QP number. If it names a QP of the id's device, that QP must be one
 * the calling process made, through a file of its own or through uverbs,
 * bound to the id or not; another process's QP, or a kernel one, is -EACCES
 * and nothing is sent (the CM would take the message for a stale copy of
 * that QP's connection and disconnect it); the QP is held until the
 * message has gone, so its number cannot pass to another QP meanwhile. A
 * number that names no QP is sent as given. On an id with a bound uverbs
 * QP (RDMACHAN_IOC_BIND_USER_QP), @conn.qp_num is ignored and the bound
 * QP's number is sent; -ENOENT, nothing sent, when that QP is gone.
 */
struct rdmachan_connect {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__aligned_u64 user_context;
	struct rdmachan_conn_param conn;
};

/**
 * struct rdmachan_reject - RDMACHAN_IOC_REJECT: rdma_reject()
 * @size: sizeof(struct rdmachan_reject)
 * @flags: must be 0
 * @handle: a CM id of a connect request
 * @reason: reject reason; 0 for "consumer defined"
 * @private_data_len: bytes of @private_data to send
 * @__reserved: must be 0
 * @private_data: sent to the peer with the reject
 */
struct rdmachan_reject {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 reason;
	__u32 private_data_len;
	__u32 __reserved;
	__u8 private_data[RDMACHAN_CM_PRIVATE_DATA_MAX];
};

/* rdmachan_get_events.flags */
#define RDMACHAN_GET_EVENTS_NONBLOCK	0x1	/* as if the file were O_NONBLOCK */

/**
 * struct rdmachan_get_events - RDMACHAN_IOC_GET_EVENTS: read queued events
 * @size: sizeof(struct rdmachan_get_events)
 * @flags: RDMACHAN_GET_EVENTS_* bits
 * @events: user pointer to an array of @max_events events
 * @event_size: sizeof(struct rdmachan_cm_event) as the caller knows it, at
 *	least the first layout's; the array's stride
 * @max_events: at most this many events are returned
 * @acks: user pointer to @num_acks event handles to acknowledge first
 * @num_acks: number of @acks, at most RDMACHAN_MAX_ACKS
 * @out_num_events: events written to @events
 *
 * Acknowledges @acks first (all or none: an unknown handle fails the call
 * with -ENOENT before any is taken), then waits for at least one event
 * unless @max_events is 0, and returns as many as are queued, up to
 * @max_events. Each event goes to exactly one caller, and
 * @out_num_events is written as each one goes out. @num_acks is set to 0
 * in the caller's struct just before the acks are taken: a call that
 * fails with @num_acks unchanged took none (one that cannot write it fails
 * with -EFAULT and takes none), and after a later failure (a signal
 * interrupted the wait, no memory, a bad @events pointer) the acks are
 * done and a restarted call does not repeat them. Events that
 * could not be written out stay queued. An event whose id is destroyed
 * while it is being written out is dropped and not counted, so the
 * element just past the last one counted may hold it.
 *
 * RDMACHAN_IOC_ACK_EVENTS takes the same struct and only acknowledges:
 * @events, @event_size and @max_events must be 0 there.
 */
struct rdmachan_get_events {
	__u32 size;
	__u32 flags;
	__aligned_u64 events;
	__u32 event_size;
	__u32 max_events;
	__aligned_u64 acks;
	__u32 num_acks;
	__u32 out_num_events;
};

#define RDMACHAN_MAX_ACKS	256

/**
 * struct rdmachan_set_option - RDMACHAN_IOC_SET_OPTION: rdma_set_option()
 * @size: sizeof(struct rdmachan_set_option)
 * @flags: must be 0
 * @handle: a CM id
 * @level: RDMA_OPTION_ID
 * @optname: RDMA_OPTION_ID_TOS, _REUSEADDR, _AFONLY or _ACK_TIMEOUT
 * @__reserved: must be 0
 * @value: the option's value
 *
 * Other levels or names: -ENOPROTOOPT (rdma_set_option() reports ENOSYS).
 */
struct rdmachan_set_option {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 level;
	__u32 optname;
	__u32 __reserved;
	__aligned_u64 value;
};

/**
 * struct rdmachan_init_qp_attr - RDMACHAN_IOC_INIT_QP_ATTR: rdma_init_qp_attr()
 * @size: sizeof(struct rdmachan_init_qp_attr)
 * @flags: must be 0
 * @handle: a CM id
 * @qp_state: the IBV_QPS_* state to move a QP to
 * @out_attr_mask: IBV_QP_* bits of the fields set below
 * @out_qkey: see struct ibv_qp_attr
 * @out_rq_psn: see struct ibv_qp_attr
 * @out_sq_psn: see struct ibv_qp_attr
 * @out_dest_qp_num: see struct ibv_qp_attr
 * @out_qp_access_flags: see struct ibv_qp_attr
 * @out_pkey_index: see struct ibv_qp_attr
 * @out_path_mtu: see struct ibv_qp_attr
 * @out_port_num: see struct ibv_qp_attr
 * @out_max_rd_atomic: see struct ibv_qp_attr
 * @out_max_dest_rd_atomic: see struct ibv_qp_attr
 * @out_min_rnr_timer: see struct ibv_qp_attr
 * @out_timeout: see struct ibv_qp_attr
 * @out_retry_cnt: see struct ibv_qp_attr
 * @out_rnr_retry: see struct ibv_qp_attr
 * @out_ah_attr: see struct ibv_qp_attr
 * @__reserved: must be 0
 */
struct rdmachan_init_qp_attr {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 qp_state;
	__u32 out_attr_mask;
	__u32 out_qkey;
	__u32 out_rq_psn;
	__u32 out_sq_psn;
	__u32 out_dest_qp_num;
	__u32 out_qp_access_flags;
	__u16 out_pkey_index;
	__u8 out_path_mtu;
	__u8 out_port_num;
	__u8 out_max_rd_atomic;
	__u8 out_max_dest_rd_atomic;
	__u8 out_min_rnr_timer;
	__u8 out_timeout;
	__u8 out_retry_cnt;
	__u8 out_rnr_retry;
	__u8 __reserved[6];
	struct rdmachan_ah_attr out_ah_attr;
};

/**
 * struct rdmachan_migrate_id - RDMACHAN_IOC_MIGRATE_ID: rdma_migrate_id()
 * @size: sizeof(struct rdmachan_migrate_id)
 * @flags: must be 0
 * @fd: the /dev/rdmachan file the id belongs to now, of the same process
 * @handle: the id's handle in that file
 * @out_handle: the id's handle in the file this ioctl is called on
 * @__reserved: must be 0
 *
 * Waits until every event read for the id on its old file has been
 * acknowledged, then moves the id and its queued events to this file.
 * -EBUSY for a listener with connect requests still queued on the old
 * file or an id with multicast joins, -EACCES for a file of another
 * process. @fd is checked before @handle: -EBADF when it is not open,
 * -EINVAL when it is not a /dev/rdmachan file; a @handle that is not an id
 * of that file is -ENOENT, as for every other ioctl. A QP made for the id
 * stays where it is, bound to it.
 */
struct rdmachan_migrate_id {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 handle;
	__u32 out_handle;
	__u32 __reserved;
};

/*
 * Verbs objects and the data path (RDMACHAN_FEATURE_VERBS).
 *
 * PDs, MRs, CQs, QPs, SRQs, AHs and multicast joins are objects of the
 * file that made them, destroyed with RDMACHAN_IOC_DESTROY or when the
 * file closes. They live on a device context (RDMACHAN_IOC_OPEN_DEVICE)
 * of the same file, and every handle an ioctl takes must be an object of
 * that file: another file's handle is -ENOENT, exactly as a destroyed one.
 * Destroying a PD, CQ or SRQ that other objects still use is -EBUSY and
 * changes nothing. Enum values (QP types and states, access flags, work
 * request and completion opcodes, completion status, wc flags, send
 * flags, attribute masks) are those of <infiniband/verbs.h>. A handle
 * field that may name no object uses 0 for none: handles start at 1.
 */

/**
 * struct rdmachan_create_comp_channel - RDMACHAN_IOC_CREATE_COMP_CHANNEL
 * @size: sizeof(struct rdmachan_create_comp_channel)
 * @flags: must be 0
 * @out_fd: a new close-on-exec file descriptor: the completion channel
 * @__reserved: must be 0
 *
 * A completion channel is a file of its own, not an object of this file:
 * it lives until its last descriptor is closed and the CQs on it are
 * gone. It is pollable, blocks in RDMACHAN_IOC_GET_CQ_EVENT unless it is
 * O_NONBLOCK (-EAGAIN), and only RDMACHAN_IOC_GET_CQ_EVENT works on it.
 */
struct rdmachan_create_comp_channel {
	__u32 size;
	__u32 flags;
	__s32 out_fd;
	__u32 __reserved;
};

/* rdmachan_get_cq_event.flags */
#define RDMACHAN_GET_CQ_EVENT_NONBLOCK	0x1	/* as if O_NONBLOCK were set */

/**
 * struct rdmachan_get_cq_event - RDMACHAN_IOC_GET_CQ_EVENT, on a channel
 * @size: sizeof(struct rdmachan_get_cq_event)
 * @flags: RDMACHAN_GET_CQ_EVENT_* bits
 * @out_cq: handle of the CQ, in the file that created it
 * @__reserved: must be 0
 * @out_user_context: rdmachan_create_cq.user_context of the CQ
 *
 * Takes one completion event: the CQ was armed (RDMACHAN_IOC_REQ_NOTIFY_CQ)
 * and got a completion. Each event taken counts against its CQ until it
 * is acknowledged (rdmachan_notify_cq.num_acks); destroying the CQ waits
 * for that. A CQ's later completion events before the first one was taken
 * are merged into it, as in ib_uverbs.
 */
struct rdmachan_get_cq_event {
	__u32 size;
	__u32 flags;
	__u32 out_cq;
	__u32 __reserved;
	__aligned_u64 out_user_context;
};

/**
 * struct rdmachan_alloc_pd - RDMACHAN_IOC_ALLOC_PD: a protection domain
 * @size: sizeof(struct rdmachan_alloc_pd)
 * @flags: must be 0
 * @context: a device context of this file
 * @out_handle: handle of the new PD
 */
struct rdmachan_alloc_pd {
	__u32 size;
	__u32 flags;
	__u32 context;
	__u32 out_handle;
};

/**
 * struct rdmachan_reg_mr - RDMACHAN_IOC_REG_MR: register user memory
 * @size: sizeof(struct rdmachan_reg_mr)
 * @flags: must be 0
 * @pd: a PD of this file
 * @access: IBV_ACCESS_* bits; remote write or atomic need local write
 * @addr: start of the caller's memory; its pages are pinned through the
 *	RDMA core (ib_umem) until the MR is destroyed
 * @length: bytes to register, not 0
 * @iova: address work requests and peers use for @addr (ibv_reg_mr() uses
 *	@addr itself)
 * @out_handle: handle of the new MR
 * @out_lkey: local key, for SGEs of this file's work requests
 * @out_rkey: remote key, for peers
 * @__reserved: must be 0
 *
 * Memory that is not mapped, or not writable when local write is asked
 * for: -EFAULT.
 */
struct rdmachan_reg_mr {
	__u32 size;
	__u32 flags;
	__u32 pd;
	__u32 access;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 iova;
	__u32 out_handle;
	__u32 out_lkey;
	__u32 out_rkey;
	__u32 __reserved;
};

/* An absent completion channel in rdmachan_create_cq.comp_channel. */
#define RDMACHAN_NO_FD	(-1)

/* rdmachan_create_cq.flags */
#define RDMACHAN_CREATE_CQ_RING	0x1	/* completions go to a mapped ring */

/**
 * struct rdmachan_create_cq - RDMACHAN_IOC_CREATE_CQ: a completion queue
 * @size: sizeof(struct rdmachan_create_cq); 40 (no out_ring_* fields)
 *	is accepted too
 * @flags: RDMACHAN_CREATE_CQ_* bits
 * @context: a device context of this file
 * @cqe: minimum number of entries, 1 or more
 * @comp_channel: a completion channel's fd, of this process, or
 *	RDMACHAN_NO_FD
 * @comp_vector: completion vector, below the context's
 *	out_num_comp_vectors
 * @user_context: returned with the CQ's completion and async events
 * @out_handle: handle of the new CQ
 * @out_cqe: the number of entries the CQ has
 * @out_ring_entries: with RDMACHAN_CREATE_CQ_RING, the ring's entries (a
 *	power of two, more than @out_cqe); 0 without
 * @out_ring_size: with RDMACHAN_CREATE_CQ_RING, the bytes to map; 0 without
 * @out_ring_offset: with RDMACHAN_CREATE_CQ_RING, the mmap() offset of the
 *	ring in this file; 0 without
 *
 * With RDMACHAN_CREATE_CQ_RING the CQ is read from a ring in memory
 * instead of with RDMACHAN_IOC_POLL_CQ (which then fails with -EINVAL):
 * the module takes each completion from the device as the device reports
 * it and writes it to the ring (struct rdmachan_cq_ring), which the
 * process maps with mmap(NULL, @out_ring_size, PROT_READ, MAP_SHARED, fd,
 * @out_ring_offset) on this file. A writable or executable mapping is
 * -EACCES, a private one, another length or offset -EINVAL; the mapping
 * stays readable after the CQ is destroyed, the file is closed or the
 * device is removed (completions taken from the device before it went
 * away are still written to it), until it is unmapped. Such a CQ cannot
 * have a completion channel (-EINVAL): the module keeps the device's CQ
 * armed for every completion, so the device could not tell it a
 * solicited-only arming's event apart. RDMACHAN_IOC_REQ_NOTIFY_CQ on it
 * arms nothing and succeeds.
 */
struct rdmachan_create_cq {
	__u32 size;
	__u32 flags;
	__u32 context;
	__u32 cqe;
	__s32 comp_channel;
	__u32 comp_vector;
	__aligned_u64 user_context;
	__u32 out_handle;
	__u32 out_cqe;
	__u32 out_ring_entries;
	__u32 out_ring_size;
	__aligned_u64 out_ring_offset;
};

/* rdmachan_notify_cq.flags of RDMACHAN_IOC_REQ_NOTIFY_CQ */
#define RDMACHAN_NOTIFY_SOLICITED	0x1	/* only solicited completions */

/**
 * struct rdmachan_notify_cq - RDMACHAN_IOC_REQ_NOTIFY_CQ and _ACK_CQ_EVENTS
 * @size: sizeof(struct rdmachan_notify_cq)
 * @flags: RDMACHAN_NOTIFY_* bits; must be 0 for RDMACHAN_IOC_ACK_CQ_EVENTS
 * @cq: a CQ of this file
 * @num_acks: completion events of @cq taken from its channel that are
 *	acknowledged first; more than are outstanding is -EINVAL and
 *	acknowledges none
 *
 * RDMACHAN_IOC_REQ_NOTIFY_CQ acknowledges, then arms the CQ: its next
 * completion (next solicited one with RDMACHAN_NOTIFY_SOLICITED) queues
 * one event on its channel. RDMACHAN_IOC_ACK_CQ_EVENTS only acknowledges.
 */
struct rdmachan_notify_cq {
	__u32 size;
	__u32 flags;
	__u32 cq;
	__u32 num_acks;
};

/**
 * struct rdmachan_wc - a work completion, as struct ibv_wc
 * @wr_id: of the work request
 * @status: enum ibv_wc_status
 * @opcode: enum ibv_wc_opcode
 * @vendor_err: vendor error syndrome
 * @byte_len: bytes transferred
 * @imm_data: immediate data, big-endian, with IBV_WC_WITH_IMM; the
 *	invalidated rkey with IBV_WC_WITH_INV
 * @qp_num: local QP number
 * @src_qp: remote QP number (UD)
 * @wc_flags: IBV_WC_* flags
 * @pkey_index: as in struct ibv_wc
 * @slid: as in struct ibv_wc
 * @sl: as in struct ibv_wc
 * @dlid_path_bits: as in struct ibv_wc
 * @network_hdr_type: RDMA_NETWORK_* type of a UD packet's GRH (IB, IPv4,
 *	IPv6), 0 when unknown
 * @__reserved: 0
 */
struct rdmachan_wc {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_data;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 network_hdr_type;
	__u8 __reserved;
};

/**
 * struct rdmachan_poll_cq - RDMACHAN_IOC_POLL_CQ: take completions
 * @size: sizeof(struct rdmachan_poll_cq)
 * @flags: must be 0
 * @cq: a CQ of this file
 * @max_wc: room at @wcs, in completions
 * @wcs: user pointer to an array of struct rdmachan_wc
 * @wc_size: sizeof(struct rdmachan_wc) as the caller knows it, at least
 *	the first layout's and at most RDMACHAN_MAX_STRIDE; the array's stride
 * @out_num_wc: completions written to @wcs; never sleeps, 0 when empty
 *
 * A CQ made with RDMACHAN_CREATE_CQ_RING is read from its ring: -EINVAL.
 * Completions taken from the CQ that cannot be written to @wcs are lost,
 * as with ib_uverbs; the elements past @out_num_wc may then hold part of
 * them. The call fails with -EFAULT only when none was written.
 *
 * Busy polling: when the calling thread's previous POLL_CQ was on the
 * same CQ, drained it, and ended less than 5 us before, an empty CQ is
 * watched in the kernel for up to the module parameter busy_poll_us
 * (default 20, 0 turns it off) before 0 is returned. The call returns at
 * the first completion, and early on a pending signal or when the CPU is
 * wanted by another task. A thread polling several CQs in turn is never
 * held up.
 */
struct rdmachan_poll_cq {
	__u32 size;
	__u32 flags;
	__u32 cq;
	__u32 max_wc;
	__aligned_u64 wcs;
	__u32 wc_size;
	__u32 out_num_wc;
};

/* rdmachan_cq_ring.flags */
#define RDMACHAN_CQ_RING_STALLED	0x1	/* refill with _UPDATE_CQ_RING */

/* Where the completions start in a mapped ring. */
#define RDMACHAN_CQ_RING_WCS_OFFSET	64

/**
 * struct rdmachan_cq_ring - the start of a mapped CQ ring (read-only)
 * @producer: completions the module has written to the ring, counted
 *	from 0 and wrapping at 2^32; completion number i is
 *	@wcs[i % @entries]. Read it with acquire semantics: the completions
 *	below it are written before it is.
 * @flags: RDMACHAN_CQ_RING_* bits: with RDMACHAN_CQ_RING_STALLED the ring
 *	ran out of room, and completions may wait in the device until the
 *	process hands back what it has taken (RDMACHAN_IOC_UPDATE_CQ_RING)
 * @entries: the ring's entries, as rdmachan_create_cq.out_ring_entries
 * @__reserved: 0
 * @wcs: the completions, at RDMACHAN_CQ_RING_WCS_OFFSET
 *
 * The process counts the completions it has taken (its consumer index);
 * the module never writes over a completion at or after the consumer
 * index it was last given (at creation 0), so the ring never loses one.
 * When the ring is full, completions stay in the device's CQ, which
 * overflows as it would without a ring, with the CQ error of the device.
 */
struct rdmachan_cq_ring {
	__u32 producer;
	__u32 flags;
	__u32 entries;
	__u32 __reserved[13];
	struct rdmachan_wc wcs[];
};

/**
 * struct rdmachan_update_cq_ring - RDMACHAN_IOC_UPDATE_CQ_RING
 * @size: sizeof(struct rdmachan_update_cq_ring)
 * @flags: must be 0
 * @cq: a CQ of this file made with RDMACHAN_CREATE_CQ_RING (-EINVAL when
 *	it has no ring)
 * @consumer: the completions the process has taken from the ring, counted
 *	as rdmachan_cq_ring.producer; no fewer than the last value given
 *	and no more than the producer index (-EINVAL)
 *
 * Frees the ring's room up to @consumer, clears RDMACHAN_CQ_RING_STALLED
 * and moves the completions that waited into the ring. It also works
 * after the device is removed, for the completions taken from it then.
 */
struct rdmachan_update_cq_ring {
	__u32 size;
	__u32 flags;
	__u32 cq;
	__u32 consumer;
};

/* Flags of rdmachan_bind_user_qp */
#define RDMACHAN_BIND_USER_QP_UNBIND	0x1

/**
 * struct rdmachan_bind_user_qp - RDMACHAN_IOC_BIND_USER_QP
 * @size: sizeof(struct rdmachan_bind_user_qp)
 * @flags: RDMACHAN_BIND_USER_QP_UNBIND to undo the binding (the other
 *	fields but @handle must then be 0)
 * @handle: a CM id of this file, with a device and without a QP
 * @uverbs_fd: the uverbs command file the QP was made on (a libibverbs
 *	context's cmd_fd)
 * @qp_num: the QP's number
 * @__reserved: must be 0
 *
 * Bypass mode: the QP belongs to libibverbs and its provider, and the
 * module drives its state for the id as it does for its own QPs. Bound
 * in RESET, it is moved to INIT (a UD QP on to RTS, with the id's Q_Key);
 * CONNECT and ACCEPT send its number and move it to RTR and RTS (on the
 * active side when the reply comes, which is then reported as
 * RDMA_CM_EVENT_ESTABLISHED: the module sends the RTU); DISCONNECT, and
 * DISCONNECTED, REJECTED, UNREACHABLE, CONNECT_ERROR and DEVICE_REMOVAL
 * before they are queued, move it to ERR, which flushes its work
 * requests. The binding holds @uverbs_fd's file until the id is destroyed
 * or unbound, or until its device goes (DEVICE_REMOVAL drops it). The QP
 * is looked up again for every use and is only touched while it is still
 * that QP of that file: after it was destroyed, CONNECT and ACCEPT fail
 * with -ENOENT and send nothing (even when its number went to another
 * QP), a transition fails with -ENOENT, and an event's is skipped. During
 * a use the QP is held as a uverbs call on it holds it: the process's
 * destroy of the QP then fails with -EBUSY. A new binding replaces one
 * whose QP is gone.
 *
 * -EOPNOTSUPP without RDMACHAN_FEATURE_USER_QP; -EBADF for a bad
 * @uverbs_fd; -ENOENT when no QP of the id's device has @qp_num; -EACCES
 * when that QP is not one of @uverbs_fd's; -ENODEV once the id got
 * DEVICE_REMOVAL; -EINVAL for an id with a QP (its own, or a bound one
 * that is still there), without a device, or of another QP type.
 */
struct rdmachan_bind_user_qp {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 uverbs_fd;
	__u32 qp_num;
	__u32 __reserved;
};

/**
 * struct rdmachan_qp_cap - QP capacities, as struct ibv_qp_cap
 * @max_send_wr: as in struct ibv_qp_cap
 * @max_recv_wr: as in struct ibv_qp_cap
 * @max_send_sge: as in struct ibv_qp_cap
 * @max_recv_sge: as in struct ibv_qp_cap
 * @max_inline_data: as in struct ibv_qp_cap
 * @__reserved: must be 0
 */
struct rdmachan_qp_cap {
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 __reserved;
};

/* rdmachan_create_qp.flags */
#define RDMACHAN_CREATE_QP_CM_ID	0x1	/* @cm_fd and @cm_id are set */
#define RDMACHAN_CREATE_QP_SQ_SIG_ALL	0x2	/* every send completes */

/**
 * struct rdmachan_create_qp - RDMACHAN_IOC_CREATE_QP: a queue pair
 * @size: sizeof(struct rdmachan_create_qp)
 * @flags: RDMACHAN_CREATE_QP_* bits
 * @pd: a PD of this file
 * @send_cq: a CQ of this file
 * @recv_cq: a CQ of this file
 * @srq: an SRQ of this file, or 0
 * @qp_type: IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD
 * @cm_fd: with RDMACHAN_CREATE_QP_CM_ID, the /dev/rdmachan file (of this
 *	process) that holds the CM id @cm_id; it may be this file
 * @cm_id: the CM id the QP is for
 * @__reserved: must be 0
 * @user_context: returned with the QP's async events
 * @cap: capacities asked for
 * @out_cap: capacities the QP has
 * @out_handle: handle of the new QP
 * @out_qp_num: its QP number
 *
 * A QP made for a CM id is created by the CM on the id's device and
 * bound to the id until either is destroyed: the CM moves it to INIT
 * (UD: to RTS), connect and accept move it to RTR and RTS, the id reports
 * RDMA_CM_EVENT_ESTABLISHED instead of CONNECT_RESPONSE, and the module
 * moves it to the error state before it delivers DISCONNECTED, REJECTED
 * or DEVICE_REMOVAL for the id, so posted work requests are flushed.
 * An id that has a QP already: -EINVAL. An id not bound to the PD's
 * device: -EINVAL. As for RDMACHAN_IOC_MIGRATE_ID, @cm_fd is checked
 * before @cm_id: not open -EBADF, not a /dev/rdmachan file -EINVAL, then
 * no CM id of that file -ENOENT.
 */
struct rdmachan_create_qp {
	__u32 size;
	__u32 flags;
	__u32 pd;
	__u32 send_cq;
	__u32 recv_cq;
	__u32 srq;
	__u32 qp_type;
	__s32 cm_fd;
	__u32 cm_id;
	__u32 __reserved;
	__aligned_u64 user_context;
	struct rdmachan_qp_cap cap;
	struct rdmachan_qp_cap out_cap;
	__u32 out_handle;
	__u32 out_qp_num;
};

/**
 * struct rdmachan_qp_attr - QP attributes, as struct ibv_qp_attr
 * @qkey: Q_Key (UD)
 * @rq_psn: receive queue PSN (24 bits)
 * @sq_psn: send queue PSN (24 bits)
 * @dest_qp_num: remote QP number (RC, UC)
 * @qp_access_flags: IBV_ACCESS_* bits: the remote operations allowed
 * @pkey_index: P_Key index of the primary path
 * @alt_pkey_index: P_Key index of the alternate path
 * @qp_state: IBV_QPS_* state to move to, or the QP's state
 * @cur_qp_state: IBV_QPS_* state the QP is assumed to be in
 * @path_mtu: path MTU, an IBV_MTU_* value
 * @path_mig_state: IBV_MIG_* path migration state
 * @en_sqd_async_notify: non-zero for an event when SQD drains
 * @sq_draining: non-zero while the send queue drains (SQD)
 * @max_rd_atomic: outstanding RDMA reads and atomics as initiator
 * @max_dest_rd_atomic: outstanding RDMA reads and atomics as responder
 * @min_rnr_timer: minimum RNR NAK timer, IB's 5-bit code
 *	(0 is 655.36 ms, 1 is 0.01 ms, 31 is 491.52 ms)
 * @port_num: port of the primary path, from 1
 * @timeout: local ACK timeout, 4.096 us * 2^timeout, 0 for infinite
 * @retry_cnt: retries after an ACK timeout (0-7)
 * @rnr_retry: retries after an RNR NAK (0-7, 7 for infinite)
 * @alt_port_num: port of the alternate path, from 1
 * @alt_timeout: local ACK timeout of the alternate path,
 *	4.096 us * 2^alt_timeout, 0 for infinite
 * @__reserved: must be 0
 * @cap: send and receive queue capacities
 * @ah_attr: address vector of the primary path
 * @alt_ah_attr: address vector of the alternate path
 *
 * The fields have the names and meanings of struct ibv_qp_attr; which ones
 * count is said by an IBV_QP_* attribute mask. @__reserved must be 0.
 */
struct rdmachan_qp_attr {
	__u32 qkey;
	__u32 rq_psn;
	__u32 sq_psn;
	__u32 dest_qp_num;
	__u32 qp_access_flags;
	__u16 pkey_index;
	__u16 alt_pkey_index;
	__u8 qp_state;
	__u8 cur_qp_state;
	__u8 path_mtu;
	__u8 path_mig_state;
	__u8 en_sqd_async_notify;
	__u8 sq_draining;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 port_num;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 alt_port_num;
	__u8 alt_timeout;
	__u8 __reserved;
	struct rdmachan_qp_cap cap;
	struct rdmachan_ah_attr ah_attr;
	struct rdmachan_ah_attr alt_ah_attr;
};

/**
 * struct rdmachan_modify_qp - RDMACHAN_IOC_MODIFY_QP
 * @size: sizeof(struct rdmachan_modify_qp)
 * @flags: must be 0
 * @qp: a QP of this file
 * @attr_mask: IBV_QP_* bits: the fields of @attr to set
 * @attr: the attributes
 *
 * An address vector on a RoCE port is resolved to a MAC address by the
 * module. A transition the QP's state does not allow: -EINVAL.
 */
struct rdmachan_modify_qp {
	__u32 size;
	__u32 flags;
	__u32 qp;
	__u32 attr_mask;
	struct rdmachan_qp_attr attr;
};

/**
 * struct rdmachan_query_qp - RDMACHAN_IOC_QUERY_QP
 * @size: sizeof(struct rdmachan_query_qp)
 * @flags: must be 0
 * @qp: a QP of this file
 * @attr_mask: IBV_QP_* bits the caller asks for; all of @out_attr is
 *	filled whatever it says, as ibv_query_qp() does
 * @out_attr: the QP's attributes
 *
 * The layout is struct rdmachan_modify_qp's: code that queries with that
 * struct still works.
 */
struct rdmachan_query_qp {
	__u32 size;
	__u32 flags;
	__u32 qp;
	__u32 attr_mask;
	struct rdmachan_qp_attr out_attr;
};

/**
 * struct rdmachan_sge - a scatter/gather element, as struct ibv_sge
 * @addr: start, in the iova space of the MR named by @lkey
 * @length: bytes
 * @lkey: rdmachan_reg_mr.out_lkey of an MR of this file whose PD is the
 *	QP's (SRQ's); ignored for the payload of an inline send, whose @addr
 *	is then a plain address in the caller's memory
 */
struct rdmachan_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * struct rdmachan_send_wr - a send work request, as struct ibv_send_wr
 * @wr_id: returned in its completion
 * @opcode: enum ibv_wr_opcode
 * @send_flags: IBV_SEND_* bits
 * @num_sge: its SGEs, taken in order from rdmachan_post.sges
 * @imm_data: immediate data, big-endian (or the rkey to invalidate)
 * @remote_addr: RDMA and atomic operations: the peer's address
 * @rkey: RDMA and atomic operations: the peer's rkey
 * @__reserved: must be 0
 * @compare_add: atomic compare or add operand
 * @swap: atomic swap operand
 * @ah: UD: an AH of this file
 * @remote_qpn: UD: the destination QP number
 * @remote_qkey: UD: the destination Q_Key
 * @__reserved2: must be 0
 */
struct rdmachan_send_wr {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 imm_data;
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 __reserved;
	__aligned_u64 compare_add;
	__aligned_u64 swap;
	__u32 ah;
	__u32 remote_qpn;
	__u32 remote_qkey;
	__u32 __reserved2;
};

/**
 * struct rdmachan_recv_wr - a receive work request, as struct ibv_recv_wr
 * @wr_id: returned in its completion
 * @num_sge: its SGEs, taken in order from rdmachan_post.sges
 * @__reserved: must be 0
 */
struct rdmachan_recv_wr {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 __reserved;
};

/* Largest stride of the work request and completion arrays. */
#define RDMACHAN_MAX_STRIDE	4096

/* Largest chain of work requests, and of SGEs, in one post. */
#define RDMACHAN_MAX_POST_WRS	1024
#define RDMACHAN_MAX_POST_SGES	4096

/**
 * struct rdmachan_post - RDMACHAN_IOC_POST_SEND, _POST_RECV, _POST_SRQ_RECV
 * @size: sizeof(struct rdmachan_post)
 * @flags: must be 0
 * @handle: the QP (an SRQ for RDMACHAN_IOC_POST_SRQ_RECV) of this file
 * @num_wrs: work requests at @wrs, 1 to RDMACHAN_MAX_POST_WRS
 * @wrs: user pointer to an array of struct rdmachan_send_wr (send) or
 *	struct rdmachan_recv_wr (receive), posted in order as one chain
 * @sges: user pointer to all their SGEs, each request's in turn
 * @wr_size: sizeof() of the work request struct as the caller knows it,
 *	at least the first layout's and at most RDMACHAN_MAX_STRIDE; the
 *	stride of @wrs
 * @num_sges: SGEs at @sges, at most RDMACHAN_MAX_POST_SGES; the requests'
 *	num_sge must add up to it
 * @out_num_posted: requests posted; when the call fails, the ones before
 *	the bad request were posted and will complete (ibv_post_send's
 *	bad_wr is the request at this index)
 * @__reserved: must be 0
 *
 * Every SGE is checked before the chain is handed to the device: its lkey
 * must be an MR of this file on the QP's PD, the range must lie inside
 * that MR, and memory the device writes needs local write access. An
 * inline send's payload is copied in at post time. A request that fails
 * these or the other checks (its num_sge above the QP's limit, an
 * opcode or flag the QP type does not take, a UD AH on another PD) is
 * -EINVAL, and the chain ends before it; opcodes the module does not
 * support (LOCAL_INV, BIND_MW, SEND_WITH_INV, TSO) are -EOPNOTSUPP.
 */
struct rdmachan_post {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 num_wrs;
	__aligned_u64 wrs;
	__aligned_u64 sges;
	__u32 wr_size;
	__u32 num_sges;
	__u32 out_num_posted;
	__u32 __reserved;
};

/**
 * struct rdmachan_srq_attr - SRQ attributes, as struct ibv_srq_attr
 * @max_wr: as in struct ibv_srq_attr
 * @max_sge: as in struct ibv_srq_attr
 * @srq_limit: as in struct ibv_srq_attr
 * @__reserved: must be 0
 */
struct rdmachan_srq_attr {
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
	__u32 __reserved;
};

/**
 * struct rdmachan_create_srq - RDMACHAN_IOC_CREATE_SRQ: a shared receive queue
 * @size: sizeof(struct rdmachan_create_srq)
 * @flags: must be 0
 * @pd: a PD of this file
 * @__reserved: must be 0
 * @user_context: returned with the SRQ's async events
 * @attr: sizes asked for (@attr.srq_limit is ignored, as in ibv_create_srq)
 * @out_attr: sizes the SRQ has
 * @out_handle: handle of the new SRQ
 * @__reserved2: must be 0
 */
struct rdmachan_create_srq {
	__u32 size;
	__u32 flags;
	__u32 pd;
	__u32 __reserved;
	__aligned_u64 user_context;
	struct rdmachan_srq_attr attr;
	struct rdmachan_srq_attr out_attr;
	__u32 out_handle;
	__u32 __reserved2;
};

/**
 * struct rdmachan_modify_srq - RDMACHAN_IOC_MODIFY_SRQ
 * @size: sizeof(struct rdmachan_modify_srq)
 * @flags: must be 0
 * @srq: an SRQ of this file
 * @attr_mask: IBV_SRQ_MAX_WR and IBV_SRQ_LIMIT bits of @attr to set
 * @attr: the attributes
 */
struct rdmachan_modify_srq {
	__u32 size;
	__u32 flags;
	__u32 srq;
	__u32 attr_mask;
	struct rdmachan_srq_attr attr;
};

/**
 * struct rdmachan_query_srq - RDMACHAN_IOC_QUERY_SRQ
 * @size: sizeof(struct rdmachan_query_srq)
 * @flags: must be 0
 * @srq: an SRQ of this file
 * @__reserved: must be 0
 * @out_attr: the SRQ's attributes
 *
 * The layout is struct rdmachan_modify_srq's, whose attr_mask is this
 * struct's @__reserved: code that queries with that struct still works.
 */
struct rdmachan_query_srq {
	__u32 size;
	__u32 flags;
	__u32 srq;
	__u32 __reserved;
	struct rdmachan_srq_attr out_attr;
};

/**
 * struct rdmachan_create_ah - RDMACHAN_IOC_CREATE_AH: an address handle
 * @size: sizeof(struct rdmachan_create_ah)
 * @flags: must be 0
 * @pd: a PD of this file
 * @out_handle: handle of the new AH
 * @attr: where it points; on RoCE the module resolves the MAC address
 */
struct rdmachan_create_ah {
	__u32 size;
	__u32 flags;
	__u32 pd;
	__u32 out_handle;
	struct rdmachan_ah_attr attr;
};

/**
 * struct rdmachan_join_mcast - RDMACHAN_IOC_JOIN_MCAST: rdma_join_multicast()
 * @size: sizeof(struct rdmachan_join_mcast)
 * @flags: must be 0
 * @id: a CM id of this file, with an address resolved or bound
 * @join_flags: RDMA_MC_JOIN_FLAG_FULLMEMBER or _SENDONLY_FULLMEMBER
 * @user_context: returned as rdmachan_cm_event.mcast_context
 * @addr: the group's address (struct sockaddr_in or sockaddr_in6)
 * @out_handle: handle of the join; RDMACHAN_IOC_DESTROY on it leaves
 *	the group, after waiting until the join's events read on this
 *	file are acknowledged
 * @__reserved: must be 0
 *
 * The result comes as RDMA_CM_EVENT_MULTICAST_JOIN (with the group's
 * AH attributes, QP number and Q_Key) or _ERROR on the id. When the id
 * has a QP, the module attaches it to the group before it delivers
 * MULTICAST_JOIN (a failed attach turns it into _ERROR with the error as
 * status) and detaches it on leave. The id must be a UD id (-EINVAL);
 * a group it has joined already is -EADDRINUSE. An id with joins cannot
 * migrate (RDMACHAN_IOC_MIGRATE_ID: -EBUSY).
 */
struct rdmachan_join_mcast {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 join_flags;
	__aligned_u64 user_context;
	struct __kernel_sockaddr_storage addr;
	__u32 out_handle;
	__u32 __reserved;
};

/*
 * Asynchronous events (RDMACHAN_FEATURE_ASYNC_EVENTS).
 *
 * A device context's QPs, CQs and SRQs (those made on its PDs, or on it)
 * report their events to the context's asynchronous event file, and so do
 * the device's ports; the device going away reports DEVICE_FATAL. Events
 * queue only while the context has such a file, and at most
 * RDMACHAN_ASYNC_MAX_QUEUED of them wait unread (more are dropped; the
 * file's debugfs entry counts them). Event types are those of enum
 * ibv_event_type (the kernel's enum ib_event_type).
 *
 * A QP, CQ or SRQ event counts against its object from the moment it is
 * read until it is acknowledged (RDMACHAN_IOC_ACK_ASYNC_EVENT, on the
 * object's handle and the event type: what ibv_ack_async_event() knows).
 * Destroying the object waits, killably, until all its events read are
 * acknowledged; its events not read yet are dropped when the destroy
 * begins. Port and device events need no acknowledgment.
 */

/* Largest number of events waiting unread on one asynchronous event file. */
#define RDMACHAN_ASYNC_MAX_QUEUED	1024

/**
 * struct rdmachan_open_async_fd - RDMACHAN_IOC_OPEN_ASYNC_FD
 * @size: sizeof(struct rdmachan_open_async_fd)
 * @flags: must be 0
 * @context: a device context of this file
 * @out_fd: a new close-on-exec file descriptor: the context's
 *	asynchronous event file
 *
 * A context has at most one such file at a time (-EBUSY); closing it
 * drops its unread events, and another can be opened. It is pollable,
 * and RDMACHAN_IOC_GET_ASYNC_EVENT on it blocks unless it is O_NONBLOCK
 * (-EAGAIN). Once the context is destroyed (or its /dev/rdmachan file
 * closed) it reports -ENODEV and polls EPOLLERR. A context whose device
 * is gone: -ENODEV.
 */
struct rdmachan_open_async_fd {
	__u32 size;
	__u32 flags;
	__u32 context;
	__s32 out_fd;
};

/* rdmachan_get_async_event.flags */
#define RDMACHAN_GET_ASYNC_EVENT_NONBLOCK	0x1	/* as if O_NONBLOCK */

/* rdmachan_get_async_event.out_element: what the event is about */
enum rdmachan_async_element {
	RDMACHAN_ASYNC_ELEMENT_QP = 1,
	RDMACHAN_ASYNC_ELEMENT_CQ,
	RDMACHAN_ASYNC_ELEMENT_SRQ,
	RDMACHAN_ASYNC_ELEMENT_PORT,
	RDMACHAN_ASYNC_ELEMENT_DEVICE,
};

/**
 * struct rdmachan_get_async_event - RDMACHAN_IOC_GET_ASYNC_EVENT, on an
 *	asynchronous event file
 * @size: sizeof(struct rdmachan_get_async_event)
 * @flags: RDMACHAN_GET_ASYNC_EVENT_* bits
 * @out_event_type: enum ibv_event_type
 * @out_element: enum rdmachan_async_element
 * @out_handle: the QP, CQ or SRQ, in the file that created it; 0 for port
 *	and device events
 * @out_port_num: the port of a port event, else 0
 * @out_user_context: the user_context the QP, CQ or SRQ was created
 *	with; 0 for port and device events
 *
 * Takes the oldest event. A QP event is one of QP_FATAL, QP_REQ_ERR,
 * QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR and
 * QP_LAST_WQE_REACHED; a CQ event is CQ_ERR; an SRQ event is SRQ_ERR or
 * SRQ_LIMIT_REACHED.
 */
struct rdmachan_get_async_event {
	__u32 size;
	__u32 flags;
	__u32 out_event_type;
	__u32 out_element;
	__u32 out_handle;
	__u32 out_port_num;
	__aligned_u64 out_user_context;
};

/**
 * struct rdmachan_ack_async_event - RDMACHAN_IOC_ACK_ASYNC_EVENT
 * @size: sizeof(struct rdmachan_ack_async_event)
 * @flags: must be 0
 * @handle: a QP, CQ or SRQ of this file (another object: -ENOENT)
 * @event_type: the type of an event of @handle that was read and is not
 *	acknowledged yet; otherwise -EINVAL, and nothing is acknowledged
 *
 * Acknowledges one event; a destroy of @handle waiting for it goes on.
 * Events of one type of one object are not told apart, as
 * ibv_ack_async_event() cannot tell them apart either.
 */
struct rdmachan_ack_async_event {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 event_type;
};

/*
 * Introspection (RDMACHAN_FEATURE_INTROSPECT): what a file's events wait
 * for. The same is shown for every process in /proc/<pid>/fdinfo/<fd> of
 * its /dev/rdmachan files, readable by whoever may read that process's
 * memory maps (its user, or root).
 */

/* Bits of rdmachan_event_state.flags */
#define RDMACHAN_EVENT_STATE_UNACKED		0x1	/* read, not yet acknowledged */
#define RDMACHAN_EVENT_STATE_DESTROY_WAITING	0x2	/* a destroy waits for its ack */

/**
 * struct rdmachan_event_state - one CM event of RDMACHAN_IOC_QUERY_EVENTS
 * @id_handle: its id (a listener's, for a CONNECT_REQUEST)
 * @event: RDMA_CM_EVENT_*
 * @flags: RDMACHAN_EVENT_STATE_* bits; without _UNACKED the event is
 *	queued and not read yet
 * @event_handle: the handle it was read with; 0 while it is queued
 * @age_ns: nanoseconds since it was queued, or, once read, since it was read
 * @user_context: its id's user_context
 */
struct rdmachan_event_state {
	__u32 id_handle;
	__u32 event;
	__u32 flags;
	__u32 event_handle;
	__aligned_u64 age_ns;
	__aligned_u64 user_context;
};

/* Largest max_states of RDMACHAN_IOC_QUERY_EVENTS */
#define RDMACHAN_MAX_EVENT_STATES	1024

/**
 * struct rdmachan_query_events - RDMACHAN_IOC_QUERY_EVENTS: this file's CM
 *	events that are queued or read and not yet acknowledged
 * @size: sizeof(struct rdmachan_query_events)
 * @flags: must be 0
 * @id_handle: only this CM id's events (an id of this file, or one whose
 *	destroy waits for acknowledgments: else -ENOENT), or 0 for all
 * @state_size: sizeof(struct rdmachan_event_state) as the caller knows it;
 *	the array's stride
 * @states: user pointer to an array of @max_states states
 * @max_states: at most this many, at most RDMACHAN_MAX_EVENT_STATES
 * @out_num_states: states written: the events read first, by handle, then
 *	the queued ones in queue order
 * @out_queued: events queued, counting those beyond @max_states
 * @out_unacked: events read and not acknowledged, likewise
 * @out_destroy_waiting: of those, the ones a destroy waits for
 * @__reserved: 0
 *
 * A snapshot: events may be queued, read and acknowledged meanwhile.
 */
struct rdmachan_query_events {
	__u32 size;
	__u32 flags;
	__u32 id_handle;
	__u32 state_size;
	__aligned_u64 states;
	__u32 max_states;
	__u32 out_num_states;
	__u32 out_queued;
	__u32 out_unacked;
	__u32 out_destroy_waiting;
	__u32 __reserved;
};

/* Bits of rdmachan_query_async_events.out_flags */
#define RDMACHAN_ASYNC_STATE_DESTROY_WAITING	0x1	/* its destroy waits for acks */

/**
 * struct rdmachan_query_async_events - RDMACHAN_IOC_QUERY_ASYNC_EVENTS: the
 *	events of one QP, CQ or SRQ that are queued or not yet acknowledged
 * @size: sizeof(struct rdmachan_query_async_events)
 * @flags: must be 0
 * @handle: a QP, CQ or SRQ of this file (another object: -ENOENT)
 * @out_queued: its events waiting unread on its context's asynchronous
 *	event file
 * @out_unacked: its events read and not acknowledged
 * @out_unacked_types: bit (1 << type) for each enum ibv_event_type of
 *	which events are unacknowledged
 * @out_unacked_age_ns: nanoseconds since it last had no unacknowledged
 *	event; 0 when it has none
 * @out_comp_unacked: a CQ's completion events taken from its channel
 *	and not acknowledged (RDMACHAN_IOC_ACK_CQ_EVENTS); 0 otherwise
 * @out_flags: RDMACHAN_ASYNC_STATE_* bits
 * @__reserved: must be 0
 */
struct rdmachan_query_async_events {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 out_queued;
	__u32 out_unacked;
	__u32 out_comp_unacked;
	__aligned_u64 out_unacked_types;
	__aligned_u64 out_unacked_age_ns;
	__u32 out_flags;
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
	RDMACHAN_CMD_CREATE_ID,
	RDMACHAN_CMD_BIND_ADDR,
	RDMACHAN_CMD_RESOLVE_ADDR,
	RDMACHAN_CMD_RESOLVE_ROUTE,
	RDMACHAN_CMD_LISTEN,
	RDMACHAN_CMD_CONNECT,
	RDMACHAN_CMD_ACCEPT,
	RDMACHAN_CMD_REJECT,
	RDMACHAN_CMD_DISCONNECT,
	RDMACHAN_CMD_ESTABLISH,
	RDMACHAN_CMD_NOTIFY,
	RDMACHAN_CMD_GET_EVENTS,
	RDMACHAN_CMD_ACK_EVENTS,
	RDMACHAN_CMD_SET_OPTION,
	RDMACHAN_CMD_INIT_QP_ATTR,
	RDMACHAN_CMD_MIGRATE_ID,
	RDMACHAN_CMD_CREATE_COMP_CHANNEL,
	RDMACHAN_CMD_GET_CQ_EVENT,
	RDMACHAN_CMD_ALLOC_PD,
	RDMACHAN_CMD_REG_MR,
	RDMACHAN_CMD_CREATE_CQ,
	RDMACHAN_CMD_REQ_NOTIFY_CQ,
	RDMACHAN_CMD_ACK_CQ_EVENTS,
	RDMACHAN_CMD_POLL_CQ,
	RDMACHAN_CMD_CREATE_QP,
	RDMACHAN_CMD_MODIFY_QP,
	RDMACHAN_CMD_QUERY_QP,
	RDMACHAN_CMD_POST_SEND,
	RDMACHAN_CMD_POST_RECV,
	RDMACHAN_CMD_CREATE_SRQ,
	RDMACHAN_CMD_MODIFY_SRQ,
	RDMACHAN_CMD_QUERY_SRQ,
	RDMACHAN_CMD_POST_SRQ_RECV,
	RDMACHAN_CMD_CREATE_AH,
	RDMACHAN_CMD_JOIN_MCAST,
	RDMACHAN_CMD_OPEN_ASYNC_FD,
	RDMACHAN_CMD_GET_ASYNC_EVENT,
	RDMACHAN_CMD_ACK_ASYNC_EVENT,
	RDMACHAN_CMD_UPDATE_CQ_RING,
	RDMACHAN_CMD_BIND_USER_QP,
	RDMACHAN_CMD_QUERY_EVENTS,
	RDMACHAN_CMD_QUERY_ASYNC_EVENTS,
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
#define RDMACHAN_IOC_CREATE_ID \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CREATE_ID, struct rdmachan_create_id)
#define RDMACHAN_IOC_BIND_ADDR \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_BIND_ADDR, struct rdmachan_bind_addr)
#define RDMACHAN_IOC_RESOLVE_ADDR \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_RESOLVE_ADDR, struct rdmachan_resolve_addr)
#define RDMACHAN_IOC_RESOLVE_ROUTE \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_RESOLVE_ROUTE, struct rdmachan_resolve_route)
#define RDMACHAN_IOC_LISTEN \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_LISTEN, struct rdmachan_listen)
#define RDMACHAN_IOC_CONNECT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CONNECT, struct rdmachan_connect)
#define RDMACHAN_IOC_ACCEPT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ACCEPT, struct rdmachan_connect)
#define RDMACHAN_IOC_REJECT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_REJECT, struct rdmachan_reject)
#define RDMACHAN_IOC_DISCONNECT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_DISCONNECT, struct rdmachan_disconnect)
#define RDMACHAN_IOC_ESTABLISH \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ESTABLISH, struct rdmachan_establish)
#define RDMACHAN_IOC_NOTIFY \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_NOTIFY, struct rdmachan_notify)
#define RDMACHAN_IOC_GET_EVENTS \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_EVENTS, struct rdmachan_get_events)
#define RDMACHAN_IOC_ACK_EVENTS \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ACK_EVENTS, struct rdmachan_get_events)
#define RDMACHAN_IOC_SET_OPTION \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_SET_OPTION, struct rdmachan_set_option)
#define RDMACHAN_IOC_INIT_QP_ATTR \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_INIT_QP_ATTR, struct rdmachan_init_qp_attr)
#define RDMACHAN_IOC_MIGRATE_ID \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_MIGRATE_ID, struct rdmachan_migrate_id)
#define RDMACHAN_IOC_CREATE_COMP_CHANNEL \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CREATE_COMP_CHANNEL, \
	      struct rdmachan_create_comp_channel)
#define RDMACHAN_IOC_GET_CQ_EVENT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_CQ_EVENT, struct rdmachan_get_cq_event)
#define RDMACHAN_IOC_ALLOC_PD \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ALLOC_PD, struct rdmachan_alloc_pd)
#define RDMACHAN_IOC_REG_MR \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_REG_MR, struct rdmachan_reg_mr)
#define RDMACHAN_IOC_CREATE_CQ \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CREATE_CQ, struct rdmachan_create_cq)
#define RDMACHAN_IOC_REQ_NOTIFY_CQ \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_REQ_NOTIFY_CQ, struct rdmachan_notify_cq)
#define RDMACHAN_IOC_ACK_CQ_EVENTS \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ACK_CQ_EVENTS, struct rdmachan_notify_cq)
#define RDMACHAN_IOC_POLL_CQ \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_POLL_CQ, struct rdmachan_poll_cq)
#define RDMACHAN_IOC_CREATE_QP \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CREATE_QP, struct rdmachan_create_qp)
#define RDMACHAN_IOC_MODIFY_QP \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_MODIFY_QP, struct rdmachan_modify_qp)
#define RDMACHAN_IOC_QUERY_QP \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_QP, struct rdmachan_query_qp)
#define RDMACHAN_IOC_POST_SEND \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_POST_SEND, struct rdmachan_post)
#define RDMACHAN_IOC_POST_RECV \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_POST_RECV, struct rdmachan_post)
#define RDMACHAN_IOC_CREATE_SRQ \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CREATE_SRQ, struct rdmachan_create_srq)
#define RDMACHAN_IOC_MODIFY_SRQ \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_MODIFY_SRQ, struct rdmachan_modify_srq)
#define RDMACHAN_IOC_QUERY_SRQ \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_SRQ, struct rdmachan_query_srq)
#define RDMACHAN_IOC_POST_SRQ_RECV \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_POST_SRQ_RECV, struct rdmachan_post)
#define RDMACHAN_IOC_CREATE_AH \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CREATE_AH, struct rdmachan_create_ah)
#define RDMACHAN_IOC_JOIN_MCAST \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_JOIN_MCAST, struct rdmachan_join_mcast)
#define RDMACHAN_IOC_OPEN_ASYNC_FD \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_OPEN_ASYNC_FD, struct rdmachan_open_async_fd)
#define RDMACHAN_IOC_GET_ASYNC_EVENT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_ASYNC_EVENT, \
	      struct rdmachan_get_async_event)
#define RDMACHAN_IOC_ACK_ASYNC_EVENT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ACK_ASYNC_EVENT, \
	      struct rdmachan_ack_async_event)
#define RDMACHAN_IOC_UPDATE_CQ_RING \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_UPDATE_CQ_RING, \
	      struct rdmachan_update_cq_ring)
#define RDMACHAN_IOC_BIND_USER_QP \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_BIND_USER_QP, \
	      struct rdmachan_bind_user_qp)
#define RDMACHAN_IOC_QUERY_EVENTS \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_EVENTS, \
	      struct rdmachan_query_events)
#define RDMACHAN_IOC_QUERY_ASYNC_EVENTS \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_QUERY_ASYNC_EVENTS, \
	      struct rdmachan_query_async_events)

#endif /* _UAPI_RDMACHAN_H */
