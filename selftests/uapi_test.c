// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl ABI of /dev/rdmachan: every command against short, long,
 * zero-tail, reserved, flag and bad-pointer arguments, unknown commands,
 * handles of other files and of destroyed objects.
 */
#include <glob.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

/* The first layout of every argument struct: these sizes are ABI. */
_Static_assert(sizeof(struct rdmachan_get_info) == 24, "get_info");
_Static_assert(sizeof(struct rdmachan_list_devices) == 32, "list_devices");
_Static_assert(sizeof(struct rdmachan_device_entry) == 80, "device_entry");
_Static_assert(sizeof(struct rdmachan_open_device) == 24, "open_device");
_Static_assert(sizeof(struct rdmachan_destroy) == 16, "destroy");
_Static_assert(sizeof(struct rdmachan_query_device) == 248, "query_device");
_Static_assert(sizeof(struct rdmachan_query_port) == 72, "query_port");
_Static_assert(sizeof(struct rdmachan_query_gid) == 48, "query_gid");
_Static_assert(sizeof(struct rdmachan_create_id) == 32, "create_id");
_Static_assert(sizeof(struct rdmachan_bind_addr) == 568, "bind_addr");
_Static_assert(sizeof(struct rdmachan_resolve_addr) == 272, "resolve_addr");
_Static_assert(sizeof(struct rdmachan_id_cmd) == 16, "id_cmd");
_Static_assert(sizeof(struct rdmachan_resolve_route) == 16, "resolve_route");
_Static_assert(sizeof(struct rdmachan_listen) == 16, "listen");
_Static_assert(sizeof(struct rdmachan_disconnect) == 16, "disconnect");
_Static_assert(sizeof(struct rdmachan_establish) == 16, "establish");
_Static_assert(sizeof(struct rdmachan_notify) == 16, "notify");
_Static_assert(sizeof(struct rdmachan_connect) == 296, "connect");
_Static_assert(sizeof(struct rdmachan_reject) == 280, "reject");
_Static_assert(sizeof(struct rdmachan_get_events) == 40, "get_events");
_Static_assert(sizeof(struct rdmachan_set_option) == 32, "set_option");
_Static_assert(sizeof(struct rdmachan_init_qp_attr) == 88, "init_qp_attr");
_Static_assert(sizeof(struct rdmachan_migrate_id) == 24, "migrate_id");
_Static_assert(sizeof(struct rdmachan_create_comp_channel) == 16, "channel");
_Static_assert(sizeof(struct rdmachan_get_cq_event) == 24, "get_cq_event");
_Static_assert(sizeof(struct rdmachan_alloc_pd) == 16, "alloc_pd");
_Static_assert(sizeof(struct rdmachan_reg_mr) == 56, "reg_mr");
_Static_assert(sizeof(struct rdmachan_create_cq) == 56, "create_cq");
_Static_assert(sizeof(struct rdmachan_update_cq_ring) == 16, "update_cq_ring");
_Static_assert(sizeof(struct rdmachan_cq_ring) == RDMACHAN_CQ_RING_WCS_OFFSET,
	       "cq_ring");
_Static_assert(sizeof(struct rdmachan_notify_cq) == 16, "notify_cq");
_Static_assert(sizeof(struct rdmachan_wc) == 48, "wc");
_Static_assert(sizeof(struct rdmachan_poll_cq) == 32, "poll_cq");
_Static_assert(sizeof(struct rdmachan_create_qp) == 104, "create_qp");
_Static_assert(sizeof(struct rdmachan_qp_attr) == 128, "qp_attr");
_Static_assert(sizeof(struct rdmachan_modify_qp) == 144, "modify_qp");
_Static_assert(sizeof(struct rdmachan_query_qp) == 144, "query_qp");
_Static_assert(sizeof(struct rdmachan_sge) == 16, "sge");
_Static_assert(sizeof(struct rdmachan_send_wr) == 72, "send_wr");
_Static_assert(sizeof(struct rdmachan_recv_wr) == 16, "recv_wr");
_Static_assert(sizeof(struct rdmachan_post) == 48, "post");
_Static_assert(sizeof(struct rdmachan_create_srq) == 64, "create_srq");
_Static_assert(sizeof(struct rdmachan_modify_srq) == 32, "modify_srq");
_Static_assert(sizeof(struct rdmachan_query_srq) == 32, "query_srq");
_Static_assert(sizeof(struct rdmachan_create_ah) == 48, "create_ah");
_Static_assert(sizeof(struct rdmachan_join_mcast) == 160, "join_mcast");
_Static_assert(sizeof(struct rdmachan_cm_event) == 776, "cm_event");
_Static_assert(sizeof(struct rdmachan_open_async_fd) == 16, "open_async_fd");
_Static_assert(sizeof(struct rdmachan_get_async_event) == 32, "get_async_event");
_Static_assert(sizeof(struct rdmachan_ack_async_event) == 16, "ack_async_event");

#define MAX_ARG 1024
#define TAIL 16

FIXTURE(ioctl_abi) {
	int fd;
	long dev_index;
	__u32 ctx;
	long page;
	/* the file the command goes to: fd, a completion channel, an async file */
	int ioc_fd;
	int chfd;
	int afd;
	__u32 pd, cq, ring_cq, qp_init, qp_ud, qpn_ud, ah, srq;
	char *mem;
	struct raw_mr mr;
};

FIXTURE_VARIANT(ioctl_abi) {
	unsigned long cmd;
	size_t size;
	/* the first layout's size, when the struct has grown since */
	size_t min_size;
	size_t reserved_off;
	size_t reserved_len;
	__u32 known_flags;
	/* succeeds without writing back: its argument may be read-only */
	bool no_output;
	/* a command of completion channels */
	bool on_channel;
	/* a command of asynchronous event files */
	bool on_async;
};

#define ABI_VARIANT(_name, _cmd, _struct, _size) \
	FIXTURE_VARIANT_ADD(ioctl_abi, _name) { \
		.cmd = _cmd, \
		.size = _size, \
		.reserved_off = offsetof(struct _struct, __reserved), \
		.reserved_len = sizeof(((struct _struct *)0)->__reserved), \
	}

ABI_VARIANT(get_info, RDMACHAN_IOC_GET_INFO, rdmachan_get_info, 24);
ABI_VARIANT(list_devices, RDMACHAN_IOC_LIST_DEVICES, rdmachan_list_devices, 32);
ABI_VARIANT(open_device, RDMACHAN_IOC_OPEN_DEVICE, rdmachan_open_device, 24);
ABI_VARIANT(destroy, RDMACHAN_IOC_DESTROY, rdmachan_destroy, 16);
ABI_VARIANT(query_device, RDMACHAN_IOC_QUERY_DEVICE, rdmachan_query_device, 248);
ABI_VARIANT(query_port, RDMACHAN_IOC_QUERY_PORT, rdmachan_query_port, 72);
ABI_VARIANT(query_gid, RDMACHAN_IOC_QUERY_GID, rdmachan_query_gid, 48);
ABI_VARIANT(create_id, RDMACHAN_IOC_CREATE_ID, rdmachan_create_id, 32);
ABI_VARIANT(bind_addr, RDMACHAN_IOC_BIND_ADDR, rdmachan_bind_addr, 568);
ABI_VARIANT(init_qp_attr, RDMACHAN_IOC_INIT_QP_ATTR, rdmachan_init_qp_attr, 88);
ABI_VARIANT(migrate_id, RDMACHAN_IOC_MIGRATE_ID, rdmachan_migrate_id, 24);

/* Commands with reserved fields and without output. */
#define ABI_VARIANT_IN(_name, _cmd, _struct, _size) \
	FIXTURE_VARIANT_ADD(ioctl_abi, _name) { \
		.cmd = _cmd, \
		.size = _size, \
		.reserved_off = offsetof(struct _struct, __reserved), \
		.reserved_len = sizeof(((struct _struct *)0)->__reserved), \
		.no_output = true, \
	}

ABI_VARIANT_IN(set_option, RDMACHAN_IOC_SET_OPTION, rdmachan_set_option, 32);
ABI_VARIANT_IN(reject, RDMACHAN_IOC_REJECT, rdmachan_reject, 280);
ABI_VARIANT_IN(connect, RDMACHAN_IOC_CONNECT, rdmachan_connect, 296);

/* Commands without reserved fields or output. */
#define ABI_VARIANT_NO_OUTPUT(_name, _cmd, _size) \
	FIXTURE_VARIANT_ADD(ioctl_abi, _name) { \
		.cmd = _cmd, .size = _size, .no_output = true, \
	}

ABI_VARIANT_NO_OUTPUT(resolve_addr, RDMACHAN_IOC_RESOLVE_ADDR, 272);
ABI_VARIANT_NO_OUTPUT(resolve_route, RDMACHAN_IOC_RESOLVE_ROUTE, 16);
ABI_VARIANT_NO_OUTPUT(listen, RDMACHAN_IOC_LISTEN, 16);
ABI_VARIANT_NO_OUTPUT(disconnect, RDMACHAN_IOC_DISCONNECT, 16);
ABI_VARIANT_NO_OUTPUT(ack_events, RDMACHAN_IOC_ACK_EVENTS, 40);

FIXTURE_VARIANT_ADD(ioctl_abi, get_events) {
	.cmd = RDMACHAN_IOC_GET_EVENTS, .size = 40,
	.known_flags = RDMACHAN_GET_EVENTS_NONBLOCK,
};

/* Verbs commands */
ABI_VARIANT(create_comp_channel, RDMACHAN_IOC_CREATE_COMP_CHANNEL,
	    rdmachan_create_comp_channel, 16);
ABI_VARIANT(reg_mr, RDMACHAN_IOC_REG_MR, rdmachan_reg_mr, 56);
ABI_VARIANT(post_send, RDMACHAN_IOC_POST_SEND, rdmachan_post, 48);
ABI_VARIANT(post_recv, RDMACHAN_IOC_POST_RECV, rdmachan_post, 48);
ABI_VARIANT(post_srq_recv, RDMACHAN_IOC_POST_SRQ_RECV, rdmachan_post, 48);
ABI_VARIANT(create_srq, RDMACHAN_IOC_CREATE_SRQ, rdmachan_create_srq, 64);
ABI_VARIANT(join_mcast, RDMACHAN_IOC_JOIN_MCAST, rdmachan_join_mcast, 160);

FIXTURE_VARIANT_ADD(ioctl_abi, get_cq_event) {
	.cmd = RDMACHAN_IOC_GET_CQ_EVENT, .size = 24,
	.reserved_off = offsetof(struct rdmachan_get_cq_event, __reserved),
	.reserved_len = 4,
	.known_flags = RDMACHAN_GET_CQ_EVENT_NONBLOCK,
	.on_channel = true,
};

FIXTURE_VARIANT_ADD(ioctl_abi, create_qp) {
	.cmd = RDMACHAN_IOC_CREATE_QP, .size = 104,
	.reserved_off = offsetof(struct rdmachan_create_qp, __reserved),
	.reserved_len = 4,
	.known_flags = RDMACHAN_CREATE_QP_CM_ID | RDMACHAN_CREATE_QP_SQ_SIG_ALL,
};

FIXTURE_VARIANT_ADD(ioctl_abi, create_srq_reserved2) {
	.cmd = RDMACHAN_IOC_CREATE_SRQ, .size = 64,
	.reserved_off = offsetof(struct rdmachan_create_srq, __reserved2),
	.reserved_len = 4,
};

/* Commands whose reserved field is inside a nested struct. */
#define ABI_VARIANT_NESTED(_name, _cmd, _struct, _field, _len, _size, _noout) \
	FIXTURE_VARIANT_ADD(ioctl_abi, _name) { \
		.cmd = _cmd, \
		.size = _size, \
		.reserved_off = offsetof(struct _struct, _field), \
		.reserved_len = _len, \
		.no_output = _noout, \
	}

ABI_VARIANT_NESTED(modify_qp, RDMACHAN_IOC_MODIFY_QP, rdmachan_modify_qp,
		   attr.__reserved, 1, 144, true);
ABI_VARIANT_NESTED(query_qp, RDMACHAN_IOC_QUERY_QP, rdmachan_modify_qp,
		   attr.__reserved, 1, 144, false);
ABI_VARIANT_NESTED(modify_srq, RDMACHAN_IOC_MODIFY_SRQ, rdmachan_modify_srq,
		   attr.__reserved, 4, 32, true);
ABI_VARIANT_NESTED(query_srq, RDMACHAN_IOC_QUERY_SRQ, rdmachan_modify_srq,
		   attr.__reserved, 4, 32, false);
ABI_VARIANT_NESTED(create_ah, RDMACHAN_IOC_CREATE_AH, rdmachan_create_ah,
		   attr.__reserved, 2, 48, false);

/* Commands without reserved fields */
FIXTURE_VARIANT_ADD(ioctl_abi, alloc_pd) {
	.cmd = RDMACHAN_IOC_ALLOC_PD, .size = 16,
};

FIXTURE_VARIANT_ADD(ioctl_abi, create_cq) {
	.cmd = RDMACHAN_IOC_CREATE_CQ, .size = 56, .min_size = 40,
	.known_flags = RDMACHAN_CREATE_CQ_RING,
};

ABI_VARIANT_NO_OUTPUT(update_cq_ring, RDMACHAN_IOC_UPDATE_CQ_RING, 16);

FIXTURE_VARIANT_ADD(ioctl_abi, poll_cq) {
	.cmd = RDMACHAN_IOC_POLL_CQ, .size = 32,
};

FIXTURE_VARIANT_ADD(ioctl_abi, req_notify_cq) {
	.cmd = RDMACHAN_IOC_REQ_NOTIFY_CQ, .size = 16,
	.known_flags = RDMACHAN_NOTIFY_SOLICITED, .no_output = true,
};

ABI_VARIANT_NO_OUTPUT(ack_cq_events, RDMACHAN_IOC_ACK_CQ_EVENTS, 16);

/* Asynchronous events */
FIXTURE_VARIANT_ADD(ioctl_abi, open_async_fd) {
	.cmd = RDMACHAN_IOC_OPEN_ASYNC_FD, .size = 16,
};

FIXTURE_VARIANT_ADD(ioctl_abi, get_async_event) {
	.cmd = RDMACHAN_IOC_GET_ASYNC_EVENT, .size = 32,
	.known_flags = RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
	.on_async = true,
};

ABI_VARIANT_NO_OUTPUT(ack_async_event, RDMACHAN_IOC_ACK_ASYNC_EVENT, 16);

/* Objects a command can leave behind, or free. */
static long live_objects(void)
{
	static const char *const names[] = {
		"contexts", "cm_ids", "cm_events", "comp_channels", "pds",
		"mrs", "cqs", "qps", "srqs", "ahs", "mcasts", "async_fds",
		"async_events", "cq_rings", "user_qps",
	};
	long n = 0;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		n += rdmachan_counter(names[i]);
	return n;
}

/* A new CM id of @fd, bound, resolved or with a connect request. */
enum id_state { ID_NEW, ID_BOUND, ID_ADDR, ID_ROUTE, ID_REQUEST };

static __u32 make_id(struct __test_metadata *_metadata, int fd,
		     enum id_state state)
{
	struct rdmachan_cm_event ev;
	__u32 id = 0, listen = 0;
	__u16 port = raw_next_port();

	if (state == ID_REQUEST) {
		EXPECT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0, &listen));
		EXPECT_EQ(0, raw_listen(fd, listen, 1, &port));
	}
	EXPECT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0, &id));
	if (state == ID_BOUND)
		EXPECT_EQ(0, raw_bind(fd, id, 0, NULL));
	if (state < ID_ADDR)
		return id;
	EXPECT_EQ(0, raw_resolve_addr(fd, id, port));
	EXPECT_EQ(0, raw_expect(fd, id, RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
	if (state == ID_ADDR)
		return id;
	EXPECT_EQ(0, raw_id_cmd(fd, RDMACHAN_IOC_RESOLVE_ROUTE, id, 2000));
	EXPECT_EQ(0, raw_expect(fd, id, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
	if (state == ID_ROUTE)
		return id;
	EXPECT_EQ(0, raw_connect(fd, RDMACHAN_IOC_CONNECT, id, NULL));
	EXPECT_EQ(0, raw_expect(fd, listen, RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	return ev.new_id_handle;
}

/*
 * Objects the verbs commands work on: a PD and an MR, a CQ on a channel,
 * an RC QP in INIT, a UD QP in RTS with an AH to itself, an SRQ.
 */
static void verbs_setup(struct __test_metadata *_metadata,
			FIXTURE_DATA(ioctl_abi) *self,
			const FIXTURE_VARIANT(ioctl_abi) *variant)
{
	struct raw_qp_init init = { .qp_type = IBV_QPT_RC, .max_wr = 64 };
	struct rdmachan_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
	};
	struct rdmachan_ah_attr ah;

	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	self->mem = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, self->mem, self->page,
				IBV_ACCESS_LOCAL_WRITE, &self->mr));
	ASSERT_EQ(0, raw_create_channel(self->fd, &self->chfd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 256, self->chfd, 0,
				   &self->cq));
	ASSERT_EQ(0, raw_create_cq_ring(self->fd, self->ctx, 4, NULL,
					&self->ring_cq));
	init.pd = self->pd;
	init.send_cq = self->cq;
	init.recv_cq = self->cq;
	ASSERT_EQ(0, raw_create_qp(self->fd, &init, &self->qp_init, NULL,
				   NULL));
	ASSERT_EQ(0, raw_modify_qp(self->fd, self->qp_init, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS, &a));
	init.qp_type = IBV_QPT_UD;
	ASSERT_EQ(0, raw_create_qp(self->fd, &init, &self->qp_ud,
				   &self->qpn_ud, NULL));
	ASSERT_EQ(0, ud_ready(self->fd, self->qp_ud, 0x1234));
	ah_to_self(self->fd, self->ctx, &ah);
	ASSERT_EQ(0, create_ah(self->fd, self->pd, &ah, &self->ah));
	ASSERT_EQ(0, create_srq(self->fd, self->pd, 64, &self->srq, NULL));
	if (variant->on_channel)
		self->ioc_fd = self->chfd;
	if (variant->on_async ||
	    variant->cmd == RDMACHAN_IOC_ACK_ASYNC_EVENT) {
		ASSERT_EQ(0, raw_open_async_fd(self->fd, self->ctx, &self->afd));
		if (variant->on_async)
			self->ioc_fd = self->afd;
	}
}

/* One async event queued on the async file: a QP's SQ_DRAINED. */
static void queue_async_event(struct __test_metadata *_metadata,
			      FIXTURE_DATA(ioctl_abi) *self)
{
	struct pollfd pfd = { .fd = self->afd, .events = POLLIN };
	__u32 qp;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
}

/* One completion event on the channel: a flushed receive on an armed CQ. */
static void queue_cq_event(struct __test_metadata *_metadata,
			   FIXTURE_DATA(ioctl_abi) *self)
{
	struct raw_qp_init init = {
		.pd = self->pd, .send_cq = self->cq, .recv_cq = self->cq,
		.qp_type = IBV_QPT_RC,
	};
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct pollfd pfd = { .fd = self->chfd, .events = POLLIN };
	struct rdmachan_wc wc[4];
	__u32 qp = 0;

	ASSERT_EQ(0, raw_create_qp(self->fd, &init, &qp, NULL, NULL));
	ASSERT_EQ(0, raw_modify_qp(self->fd, qp, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS, &a));
	ASSERT_EQ(0, raw_post_recv1(self->fd, qp, 1, self->mem, 8,
				    self->mr.lkey));
	ASSERT_EQ(0, raw_notify_cq(self->fd, self->cq, 0));
	a.qp_state = IBV_QPS_ERR;
	ASSERT_EQ(0, raw_modify_qp(self->fd, qp, IBV_QP_STATE, &a));
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	ASSERT_EQ(1, raw_poll_n(self->fd, self->cq, wc, 1));
	ASSERT_EQ(0, raw_destroy(self->fd, qp));
}

/* A new UDP id of @fd, bound, ready to join groups. */
static __u32 make_mcast_id(struct __test_metadata *_metadata, int fd)
{
	__u32 id = 0;

	EXPECT_EQ(0, raw_create_id(fd, RDMA_PS_UDP, 0, &id));
	EXPECT_EQ(0, raw_bind(fd, id, 0, NULL));
	return id;
}

FIXTURE_SETUP(ioctl_abi)
{
	self->page = sysconf(_SC_PAGESIZE);
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->dev_index = rdmachan_device_index(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_LE(0, self->dev_index);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	self->ioc_fd = self->fd;
	self->chfd = -1;
	self->afd = -1;
	if (variant->cmd != RDMACHAN_IOC_CREATE_COMP_CHANNEL &&
	    _IOC_NR(variant->cmd) >= RDMACHAN_CMD_CREATE_COMP_CHANNEL)
		verbs_setup(_metadata, self, variant);
}

FIXTURE_TEARDOWN(ioctl_abi)
{
	close(self->fd);
	if (self->chfd >= 0)
		close(self->chfd);
	if (self->afd >= 0)
		close(self->afd);
	if (self->mem)
		munmap(self->mem, self->page);
}

/* A valid argument for the variant's command, @size bytes long. */
static void fill_valid(struct __test_metadata *_metadata,
		       FIXTURE_DATA(ioctl_abi) *self,
		       const FIXTURE_VARIANT(ioctl_abi) *variant,
		       void *buf, size_t size)
{
	struct rdmachan_destroy *destroy = buf;
	struct rdmachan_open_device *open_dev = buf;
	struct rdmachan_list_devices *list = buf;
	struct rdmachan_query_device *qdev = buf;
	struct rdmachan_query_port *qport = buf;
	struct rdmachan_query_gid *qgid = buf;
	struct rdmachan_create_id *create = buf;
	struct rdmachan_bind_addr *bind = buf;
	struct rdmachan_resolve_addr *resolve = buf;
	struct rdmachan_id_cmd *id_cmd = buf;
	struct rdmachan_set_option *opt = buf;
	struct rdmachan_init_qp_attr *qpa = buf;
	struct rdmachan_migrate_id *migrate = buf;
	struct rdmachan_reject *reject = buf;
	struct rdmachan_connect *conn = buf;
	struct rdmachan_alloc_pd *alloc_pd = buf;
	struct rdmachan_reg_mr *reg_mr = buf;
	struct rdmachan_create_cq *create_cq = buf;
	struct rdmachan_notify_cq *notify = buf;
	struct rdmachan_poll_cq *poll_cq = buf;
	struct rdmachan_create_qp *create_qp = buf;
	struct rdmachan_modify_qp *modify_qp = buf;
	struct rdmachan_post *post = buf;
	struct rdmachan_create_srq *create_srq = buf;
	struct rdmachan_modify_srq *modify_srq = buf;
	struct rdmachan_create_ah *create_ah_cmd = buf;
	struct rdmachan_join_mcast *join = buf;
	struct rdmachan_open_async_fd *open_afd = buf;
	struct rdmachan_ack_async_event *ack_async = buf;
	struct rdmachan_get_async_event ev;
	static struct rdmachan_send_wr send_wr = {
		.opcode = IBV_WR_SEND,
	};
	static struct rdmachan_recv_wr recv_wr;
	static struct rdmachan_wc wcs[4];
	static unsigned int group;
	struct rdmachan_ah_attr ah;
	struct sockaddr_in *sin;

	memset(buf, 0, size);
	*(__u32 *)buf = (__u32)size;
	switch (variant->cmd) {
	case RDMACHAN_IOC_LIST_DEVICES:
		list->entry_size = sizeof(struct rdmachan_device_entry);
		break;
	case RDMACHAN_IOC_OPEN_DEVICE:
		open_dev->device_index = (__u32)self->dev_index;
		break;
	case RDMACHAN_IOC_DESTROY:
		destroy->handle = rdmachan_open_context(self->fd,
							RDMACHAN_TEST_DEVICE);
		ASSERT_NE(0, destroy->handle);
		break;
	case RDMACHAN_IOC_QUERY_DEVICE:
		qdev->handle = self->ctx;
		break;
	case RDMACHAN_IOC_QUERY_PORT:
		qport->handle = self->ctx;
		qport->port_num = 1;
		break;
	case RDMACHAN_IOC_QUERY_GID:
		qgid->handle = self->ctx;
		qgid->port_num = 1;
		break;
	case RDMACHAN_IOC_CREATE_ID:
		create->port_space = RDMA_PS_TCP;
		create->qp_type = IBV_QPT_RC;
		break;
	case RDMACHAN_IOC_BIND_ADDR:
		bind->handle = make_id(_metadata, self->fd, ID_NEW);
		if (size >= sizeof(*bind))
			raw_test_addr(&bind->addr, 0);
		break;
	case RDMACHAN_IOC_RESOLVE_ADDR:
		resolve->handle = make_id(_metadata, self->fd, ID_NEW);
		resolve->timeout_ms = 1000;
		if (size >= sizeof(*resolve))
			raw_test_addr(&resolve->dst_addr, raw_next_port());
		break;
	case RDMACHAN_IOC_RESOLVE_ROUTE:
		id_cmd->handle = make_id(_metadata, self->fd, ID_ADDR);
		id_cmd->value = 1000;
		break;
	case RDMACHAN_IOC_LISTEN:
		id_cmd->handle = make_id(_metadata, self->fd, ID_BOUND);
		id_cmd->value = 1;
		break;
	case RDMACHAN_IOC_DISCONNECT:
		id_cmd->handle = make_id(_metadata, self->fd, ID_REQUEST);
		break;
	case RDMACHAN_IOC_CONNECT:
		conn->handle = make_id(_metadata, self->fd, ID_ROUTE);
		if (size >= sizeof(*conn))
			conn->conn.qp_num = 0x10000 + (getpid() & 0xffff);
		break;
	case RDMACHAN_IOC_REJECT:
		reject->handle = make_id(_metadata, self->fd, ID_REQUEST);
		break;
	case RDMACHAN_IOC_SET_OPTION:
		opt->handle = make_id(_metadata, self->fd, ID_NEW);
		break;
	case RDMACHAN_IOC_INIT_QP_ATTR:
		qpa->handle = make_id(_metadata, self->fd, ID_BOUND);
		qpa->qp_state = IBV_QPS_INIT;
		break;
	case RDMACHAN_IOC_MIGRATE_ID:
		migrate->fd = self->fd;
		migrate->handle = make_id(_metadata, self->fd, ID_NEW);
		break;
	case RDMACHAN_IOC_GET_CQ_EVENT:
		queue_cq_event(_metadata, self);
		break;
	case RDMACHAN_IOC_ALLOC_PD:
		alloc_pd->context = self->ctx;
		break;
	case RDMACHAN_IOC_REG_MR:
		reg_mr->pd = self->pd;
		reg_mr->addr = (uintptr_t)self->mem;
		reg_mr->length = 64;
		reg_mr->iova = 0x10000;
		break;
	case RDMACHAN_IOC_CREATE_CQ:
		create_cq->context = self->ctx;
		create_cq->cqe = 4;
		create_cq->comp_channel = RDMACHAN_NO_FD;
		break;
	case RDMACHAN_IOC_UPDATE_CQ_RING:
		((struct rdmachan_update_cq_ring *)buf)->cq = self->ring_cq;
		break;
	case RDMACHAN_IOC_REQ_NOTIFY_CQ:
	case RDMACHAN_IOC_ACK_CQ_EVENTS:
		notify->cq = self->cq;
		break;
	case RDMACHAN_IOC_POLL_CQ:
		poll_cq->cq = self->cq;
		poll_cq->max_wc = 4;
		poll_cq->wcs = (uintptr_t)wcs;
		poll_cq->wc_size = sizeof(wcs[0]);
		break;
	case RDMACHAN_IOC_CREATE_QP:
		create_qp->pd = self->pd;
		create_qp->send_cq = self->cq;
		create_qp->recv_cq = self->cq;
		create_qp->qp_type = IBV_QPT_RC;
		create_qp->cap.max_send_wr = 4;
		create_qp->cap.max_recv_wr = 4;
		create_qp->cap.max_send_sge = 1;
		create_qp->cap.max_recv_sge = 1;
		break;
	case RDMACHAN_IOC_MODIFY_QP:
		modify_qp->qp = self->qp_init;
		modify_qp->attr_mask = IBV_QP_STATE;
		modify_qp->attr.qp_state = IBV_QPS_INIT;
		break;
	case RDMACHAN_IOC_QUERY_QP:
		modify_qp->qp = self->qp_ud;
		modify_qp->attr_mask = IBV_QP_STATE;
		break;
	case RDMACHAN_IOC_POST_SEND:
		send_wr.ah = self->ah;
		send_wr.remote_qpn = self->qpn_ud;
		send_wr.remote_qkey = 0x1234;
		post->handle = self->qp_ud;
		post->num_wrs = 1;
		post->wrs = (uintptr_t)&send_wr;
		post->wr_size = sizeof(send_wr);
		break;
	case RDMACHAN_IOC_POST_RECV:
	case RDMACHAN_IOC_POST_SRQ_RECV:
		post->handle = variant->cmd == RDMACHAN_IOC_POST_RECV ?
			       self->qp_init : self->srq;
		post->num_wrs = 1;
		post->wrs = (uintptr_t)&recv_wr;
		post->wr_size = sizeof(recv_wr);
		break;
	case RDMACHAN_IOC_CREATE_SRQ:
		create_srq->pd = self->pd;
		create_srq->attr.max_wr = 4;
		create_srq->attr.max_sge = 1;
		break;
	case RDMACHAN_IOC_MODIFY_SRQ:
		modify_srq->srq = self->srq;
		modify_srq->attr_mask = IBV_SRQ_LIMIT;
		modify_srq->attr.srq_limit = 2;
		break;
	case RDMACHAN_IOC_QUERY_SRQ:
		modify_srq->srq = self->srq;
		break;
	case RDMACHAN_IOC_CREATE_AH:
		ah_to_self(self->fd, self->ctx, &ah);
		create_ah_cmd->pd = self->pd;
		create_ah_cmd->attr = ah;
		break;
	case RDMACHAN_IOC_OPEN_ASYNC_FD:
		/* one async file per context: a new context each time */
		open_afd->context = rdmachan_open_context(self->fd,
							  RDMACHAN_TEST_DEVICE);
		ASSERT_NE(0, open_afd->context);
		break;
	case RDMACHAN_IOC_GET_ASYNC_EVENT:
		queue_async_event(_metadata, self);
		break;
	case RDMACHAN_IOC_ACK_ASYNC_EVENT:
		queue_async_event(_metadata, self);
		ASSERT_EQ(0, raw_get_async_event(self->afd, 0, &ev));
		ack_async->handle = ev.out_handle;
		ack_async->event_type = ev.out_event_type;
		break;
	case RDMACHAN_IOC_JOIN_MCAST:
		join->id = make_mcast_id(_metadata, self->fd);
		if (size < sizeof(*join))
			break;
		sin = (struct sockaddr_in *)&join->addr;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(0xef4d0100 + ++group % 200);
		break;
	}
}

TEST_F(ioctl_abi, exact_size_works)
{
	char buf[MAX_ARG];

	fill_valid(_metadata, self, variant, buf, variant->size);
	ASSERT_EQ(0, ioctl(self->ioc_fd, variant->cmd, buf));
	EXPECT_EQ(variant->size, *(__u32 *)buf);
}

TEST_F(ioctl_abi, one_byte_short_is_einval)
{
	char buf[MAX_ARG];
	long contexts;

	fill_valid(_metadata, self, variant, buf, variant->size);
	contexts = live_objects();
	*(__u32 *)buf = (__u32)(variant->min_size ?: variant->size) - 1;
	EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, buf));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(contexts, live_objects());
}

/* A struct that has grown still works in its first layout. */
TEST_F(ioctl_abi, first_layout_works)
{
	char buf[MAX_ARG], zero[MAX_ARG] = {};

	if (!variant->min_size)
		SKIP(return, "the struct has one layout");
	fill_valid(_metadata, self, variant, buf, variant->size);
	memset(buf + variant->min_size, 0x5a, variant->size - variant->min_size);
	*(__u32 *)buf = (__u32)variant->min_size;
	ASSERT_EQ(0, ioctl(self->ioc_fd, variant->cmd, buf));
	/* nothing written past the caller's size */
	memset(zero, 0x5a, sizeof(zero));
	EXPECT_EQ(0, memcmp(buf + variant->min_size, zero,
			    variant->size - variant->min_size));
}

TEST_F(ioctl_abi, zero_size_is_einval)
{
	char buf[MAX_ARG];

	fill_valid(_metadata, self, variant, buf, variant->size);
	*(__u32 *)buf = 0;
	EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, buf));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ioctl_abi, longer_with_zero_tail_works)
{
	char buf[MAX_ARG], zero[TAIL] = {};

	fill_valid(_metadata, self, variant, buf, variant->size + TAIL);
	ASSERT_EQ(0, ioctl(self->ioc_fd, variant->cmd, buf));
	/* The module writes back no more than it knows. */
	EXPECT_EQ(0, memcmp(buf + variant->size, zero, TAIL));
}

TEST_F(ioctl_abi, longer_with_nonzero_tail_is_e2big)
{
	char buf[MAX_ARG];
	long contexts;

	fill_valid(_metadata, self, variant, buf, variant->size + TAIL);
	contexts = live_objects();
	buf[variant->size + TAIL - 1] = 1;
	EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, buf));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(contexts, live_objects());
}

TEST_F(ioctl_abi, huge_size_with_zero_tail_works)
{
	size_t len = 2 * self->page;
	char *buf = calloc(1, len);

	ASSERT_NE(NULL, buf);
	fill_valid(_metadata, self, variant, buf, len);
	EXPECT_EQ(0, ioctl(self->ioc_fd, variant->cmd, buf));
	free(buf);
}

TEST_F(ioctl_abi, unknown_flags_are_einval)
{
	char buf[MAX_ARG], before[MAX_ARG];
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if (variant->known_flags & (1u << bit))
			continue;
		fill_valid(_metadata, self, variant, buf, variant->size);
		((__u32 *)buf)[1] = 1u << bit;
		memcpy(before, buf, variant->size);
		EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, buf));
		EXPECT_EQ(EINVAL, errno);
		/* A rejected call writes nothing back. */
		EXPECT_EQ(0, memcmp(before, buf, variant->size));
	}
}

TEST_F(ioctl_abi, nonzero_reserved_is_einval)
{
	char buf[MAX_ARG], before[MAX_ARG];
	long contexts;
	size_t i;

	for (i = 0; i < variant->reserved_len; i++) {
		fill_valid(_metadata, self, variant, buf, variant->size);
		contexts = live_objects();
		buf[variant->reserved_off + i] = (char)0x80;
		memcpy(before, buf, variant->size);
		EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, buf));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, memcmp(before, buf, variant->size));
		EXPECT_EQ(contexts, live_objects());
	}
}

TEST_F(ioctl_abi, null_argument_is_efault)
{
	EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(ioctl_abi, unmapped_argument_is_efault)
{
	void *p = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, self->page));
	EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, p));
	EXPECT_EQ(EFAULT, errno);
}

/* The size field is readable, the rest of the struct is not. */
TEST_F(ioctl_abi, argument_running_into_unmapped_page_is_efault)
{
	long contexts;
	char *p = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *arg;

	ASSERT_NE(MAP_FAILED, p);
	arg = p + self->page - 8;
	fill_valid(_metadata, self, variant, arg, 8);
	contexts = live_objects();
	*(__u32 *)arg = (__u32)variant->size;
	ASSERT_EQ(0, mprotect(p + self->page, self->page, PROT_NONE));
	EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, arg));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(contexts, live_objects());
	munmap(p, 2 * self->page);
}

/*
 * A reply that cannot be written back fails the call, and a create that
 * fails that way leaves no object behind.
 */
TEST_F(ioctl_abi, read_only_argument)
{
	long contexts;
	char *p = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	fill_valid(_metadata, self, variant, p, variant->size);
	contexts = live_objects();
	ASSERT_EQ(0, mprotect(p, self->page, PROT_READ));
	if (variant->cmd == RDMACHAN_IOC_DESTROY) {
		/* nothing to write back: the destroy happens */
		EXPECT_EQ(0, ioctl(self->ioc_fd, variant->cmd, p));
		EXPECT_EQ(contexts - 1, live_objects());
	} else if (variant->no_output) {
		EXPECT_EQ(0, ioctl(self->ioc_fd, variant->cmd, p));
	} else {
		EXPECT_EQ(-1, ioctl(self->ioc_fd, variant->cmd, p));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_EQ(contexts, live_objects());
	}
	munmap(p, self->page);
}

TEST(unknown_commands_are_enotty)
{
	struct rdmachan_get_info info = { .size = sizeof(info) };
	char buf[MAX_ARG] = {};
	int fd = open("/dev/rdmachan", O_RDWR);

	ASSERT_LE(0, fd);
	*(__u32 *)buf = 64;
	EXPECT_EQ(-1, ioctl(fd, _IOWR(RDMACHAN_IOCTL_TYPE, 0x7f, char[64]), buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOWR(RDMACHAN_IOCTL_TYPE,
				      RDMACHAN_CMD_QUERY_ASYNC_EVENTS + 1, char[64]),
			    buf));
	EXPECT_EQ(ENOTTY, errno);
	/* commands of completion channels and async files, on the main file */
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_GET_CQ_EVENT, buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_GET_ASYNC_EVENT, buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOWR('x', RDMACHAN_CMD_GET_INFO,
				      struct rdmachan_get_info), &info));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_INFO,
				     struct rdmachan_get_info), &info));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_INFO),
			    &info));
	EXPECT_EQ(ENOTTY, errno);
	/* Generic file ioctls are not ours either. */
	EXPECT_EQ(-1, ioctl(fd, FIONREAD, buf));
	EXPECT_EQ(ENOTTY, errno);
	/* The size in the command number is ignored: the struct says it. */
	EXPECT_EQ(0, ioctl(fd, _IOWR(RDMACHAN_IOCTL_TYPE, RDMACHAN_CMD_GET_INFO,
				     char[8]), &info));
	close(fd);
}

TEST(get_info_reports_abi_and_features)
{
	struct rdmachan_get_info info = { .size = sizeof(info) };
	int fd = open("/dev/rdmachan", O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_GET_INFO, &info));
	EXPECT_EQ(RDMACHAN_ABI_VERSION, info.out_abi_version);
	EXPECT_EQ(RDMACHAN_FEATURE_DEVICE_QUERY,
		  info.out_features & RDMACHAN_FEATURE_DEVICE_QUERY);
	close(fd);
}

/* sysfs says what GET_INFO says, read-only, in hexadecimal with a newline. */
TEST(sysfs_features_match_get_info)
{
	const char *path = "/sys/class/misc/rdmachan/features";
	struct rdmachan_get_info info = { .size = sizeof(info) };
	int fd = open("/dev/rdmachan", O_RDWR);
	char text[32], want[32];
	struct stat st;
	ssize_t len;
	int sfd;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_GET_INFO, &info));
	close(fd);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0444, st.st_mode & 07777);
	sfd = open(path, O_RDONLY);
	ASSERT_LE(0, sfd);
	len = read(sfd, text, sizeof(text) - 1);
	close(sfd);
	ASSERT_LT(0, len);
	text[len] = 0;
	snprintf(want, sizeof(want), "%#llx\n",
		 (unsigned long long)info.out_features);
	EXPECT_STREQ(want, text);
	EXPECT_EQ(-1, open(path, O_WRONLY));
	EXPECT_EQ(EACCES, errno);
}

TEST(list_devices_counts_and_strides)
{
	struct rdmachan_list_devices cmd = { .size = sizeof(cmd) };
	const size_t stride = sizeof(struct rdmachan_device_entry) + 24;
	char entries[4 * (sizeof(struct rdmachan_device_entry) + 24)];
	struct rdmachan_device_entry *e;
	int fd = open("/dev/rdmachan", O_RDWR);
	unsigned int i, found = 0;

	ASSERT_LE(0, fd);
	/* too small an entry */
	cmd.entry_size = sizeof(struct rdmachan_device_entry) - 1;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &cmd));
	EXPECT_EQ(EINVAL, errno);

	/* counting only */
	cmd.entry_size = sizeof(struct rdmachan_device_entry);
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &cmd));
	ASSERT_LE(1, cmd.out_num_devices);
	ASSERT_GE(4, cmd.out_num_devices);

	/* a NULL array with room claimed */
	cmd.max_entries = 1;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &cmd));
	EXPECT_EQ(EFAULT, errno);

	/* a newer caller's larger entries: what the module does not know stays */
	memset(entries, 0xa5, sizeof(entries));
	cmd.entry_size = stride;
	cmd.max_entries = 4;
	cmd.entries = (uintptr_t)entries;
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &cmd));
	for (i = 0; i < cmd.out_num_devices; i++) {
		e = (void *)(entries + i * stride);
		EXPECT_EQ(0, e->__reserved);
		EXPECT_EQ((char)0xa5, ((char *)e)[sizeof(*e)]);
		EXPECT_EQ((char)0xa5, ((char *)e)[stride - 1]);
		if (!strcmp(e->name, RDMACHAN_TEST_DEVICE))
			found++;
	}
	EXPECT_EQ(1, found);
	close(fd);
}

TEST(open_device_unknown_index_is_enodev)
{
	struct rdmachan_open_device cmd = { .size = sizeof(cmd) };
	long contexts = rdmachan_counter("contexts");
	int fd = open("/dev/rdmachan", O_RDWR);

	ASSERT_LE(0, fd);
	cmd.device_index = 0xfffffff0;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_OPEN_DEVICE, &cmd));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(contexts, rdmachan_counter("contexts"));
	close(fd);
}

TEST(handles_of_other_files_and_destroyed_objects)
{
	struct rdmachan_destroy destroy = { .size = sizeof(destroy) };
	int fd1 = open("/dev/rdmachan", O_RDWR);
	int fd2 = open("/dev/rdmachan", O_RDWR);
	__u32 h1, h2;

	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);
	h1 = rdmachan_open_context(fd1, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, h1);
	h2 = rdmachan_open_context(fd2, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, h2);
	EXPECT_EQ(0, rdmachan_query_port(fd1, h1, 1));

	/* fd2 may happen to use the same number: an unused one is foreign */
	EXPECT_EQ(ENOENT, rdmachan_query_port(fd2, h2 + 1, 1));
	EXPECT_EQ(ENOENT, rdmachan_query_port(fd1, h1 + 1000, 1));
	EXPECT_EQ(ENOENT, rdmachan_query_port(fd1, 0, 1));
	EXPECT_EQ(ENOENT, rdmachan_query_port(fd1, 0xffffffff, 1));

	destroy.handle = h1;
	EXPECT_EQ(0, ioctl(fd1, RDMACHAN_IOC_DESTROY, &destroy));
	EXPECT_EQ(ENOENT, rdmachan_query_port(fd1, h1, 1));
	EXPECT_EQ(-1, ioctl(fd1, RDMACHAN_IOC_DESTROY, &destroy));
	EXPECT_EQ(ENOENT, errno);
	/* the other file's object is untouched */
	EXPECT_EQ(0, rdmachan_query_port(fd2, h2, 1));
	close(fd1);
	close(fd2);
}

TEST(bad_ports_and_gid_indices)
{
	struct rdmachan_query_gid gid = { .size = sizeof(gid), .port_num = 1 };
	int fd = open("/dev/rdmachan", O_RDWR);
	__u32 h;

	ASSERT_LE(0, fd);
	h = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, h);
	EXPECT_EQ(EINVAL, rdmachan_query_port(fd, h, 0));
	EXPECT_EQ(EINVAL, rdmachan_query_port(fd, h, 2));
	EXPECT_EQ(EINVAL, rdmachan_query_port(fd, h, 0xffffffff));

	gid.handle = h;
	gid.index = 0;
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_QUERY_GID, &gid));
	EXPECT_EQ(0xfe, gid.out_gid[0]);
	gid.index = 1023;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_GID, &gid));
	EXPECT_EQ(ENODATA, errno);
	gid.index = 1024;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_GID, &gid));
	EXPECT_EQ(EINVAL, errno);
	gid.index = 0x80000000u;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_GID, &gid));
	EXPECT_EQ(EINVAL, errno);
	gid.index = 0;
	gid.port_num = 2;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_GID, &gid));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(counters_return_to_zero_on_close)
{
	long files = rdmachan_counter("files");
	long contexts = rdmachan_counter("contexts");
	int fd, i;

	ASSERT_LE(0, files);
	fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(files + 1, rdmachan_counter("files"));
	for (i = 0; i < 100; i++)
		ASSERT_NE(0, rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE));
	EXPECT_EQ(contexts + 100, rdmachan_counter("contexts"));
	close(fd);
	EXPECT_EQ(files, rdmachan_counter("files"));
	EXPECT_EQ(contexts, rdmachan_counter("contexts"));
}

/* Path of this process's only debugfs file entry, or "" if it has none. */
static int my_debugfs_entry(char *path, size_t len)
{
	char pattern[128];
	glob_t g;
	int n;

	snprintf(pattern, sizeof(pattern),
		 "/sys/kernel/debug/rdmachan/files/%d-*", getpid());
	path[0] = '\0';
	if (glob(pattern, 0, NULL, &g))
		return 0;
	n = (int)g.gl_pathc;
	snprintf(path, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return n;
}

TEST(per_file_debugfs_entry)
{
	struct rdmachan_destroy destroy = { .size = sizeof(destroy) };
	char path[256];
	int fd, i;

	EXPECT_EQ(0, my_debugfs_entry(path, sizeof(path)));
	fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, my_debugfs_entry(path, sizeof(path)));
	EXPECT_EQ(getpid(), read_key_value(path, "owner"));
	EXPECT_EQ(0, read_key_value(path, "contexts"));
	for (i = 0; i < 3; i++) {
		destroy.handle = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
		ASSERT_NE(0, destroy.handle);
	}
	EXPECT_EQ(3, read_key_value(path, "contexts"));
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_DESTROY, &destroy));
	EXPECT_EQ(2, read_key_value(path, "contexts"));
	close(fd);
	EXPECT_EQ(0, my_debugfs_entry(path, sizeof(path)));
}

struct race {
	int fd;
	volatile int stop;
	unsigned long queries;
};

static void *query_random_handles(void *arg)
{
	struct race *r = arg;
	unsigned int seed = 1;

	while (!r->stop) {
		rdmachan_query_port(r->fd, (__u32)(rand_r(&seed) % 8), 1);
		r->queries++;
	}
	return NULL;
}

/* Destroy racing with lookups of the same handles, from two threads. */
TEST(destroy_races_with_queries)
{
	struct rdmachan_destroy destroy = { .size = sizeof(destroy) };
	long contexts = rdmachan_counter("contexts");
	struct race r = {};
	pthread_t thread;
	int i;

	r.fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, pthread_create(&thread, NULL, query_random_handles, &r));
	for (i = 0; i < 2000; i++) {
		destroy.handle = rdmachan_open_context(r.fd, RDMACHAN_TEST_DEVICE);
		ASSERT_NE(0, destroy.handle);
		ASSERT_EQ(0, ioctl(r.fd, RDMACHAN_IOC_DESTROY, &destroy));
	}
	r.stop = 1;
	pthread_join(thread, NULL);
	EXPECT_LT(0, r.queries);
	EXPECT_EQ(contexts, rdmachan_counter("contexts"));
	close(r.fd);
}

TEST_HARNESS_MAIN
