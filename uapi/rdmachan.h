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
 */
enum rdmachan_feature {
	RDMACHAN_FEATURE_DEVICE_QUERY = 0x1,
	RDMACHAN_FEATURE_CM = 0x2,
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
};

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
 * struct rdmachan_id_cmd - a command on one CM id and one value
 * @size: sizeof(struct rdmachan_id_cmd)
 * @flags: must be 0
 * @handle: a CM id
 * @value: RESOLVE_ROUTE: time limit in ms; LISTEN: backlog, <= 0 for the
 *	module's maximum; NOTIFY: the IBV_EVENT_* type; DISCONNECT and
 *	ESTABLISH: must be 0
 *
 * Used by RDMACHAN_IOC_RESOLVE_ROUTE, _LISTEN, _DISCONNECT, _ESTABLISH
 * (rdma_establish(): completes a connection after
 * RDMA_CM_EVENT_CONNECT_RESPONSE) and _NOTIFY.
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
 * @out_num_events is written as each one goes out. When the call fails
 * after it took the acks (a signal interrupted the wait, no memory, a bad
 * @events pointer), the acks are done and @num_acks is set to 0 in the
 * caller's struct, so a restarted call does not repeat them. Events that
 * could not be written out stay queued.
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
 * file, -EACCES for a file of another process.
 */
struct rdmachan_migrate_id {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 handle;
	__u32 out_handle;
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
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_RESOLVE_ROUTE, struct rdmachan_id_cmd)
#define RDMACHAN_IOC_LISTEN \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_LISTEN, struct rdmachan_id_cmd)
#define RDMACHAN_IOC_CONNECT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_CONNECT, struct rdmachan_connect)
#define RDMACHAN_IOC_ACCEPT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ACCEPT, struct rdmachan_connect)
#define RDMACHAN_IOC_REJECT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_REJECT, struct rdmachan_reject)
#define RDMACHAN_IOC_DISCONNECT \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_DISCONNECT, struct rdmachan_id_cmd)
#define RDMACHAN_IOC_ESTABLISH \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_ESTABLISH, struct rdmachan_id_cmd)
#define RDMACHAN_IOC_NOTIFY \
	_IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_NOTIFY, struct rdmachan_id_cmd)
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

#endif /* _UAPI_RDMACHAN_H */
