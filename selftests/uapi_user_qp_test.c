// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bypass mode in the module (RDMACHAN_IOC_BIND_USER_QP): QPs made by
 * the system's libibverbs and rxe provider on uverbs, bound to CM ids made
 * with raw ioctls, and driven by the module: INIT when bound, RTS through
 * connect and accept (the active side's reply reported as ESTABLISHED),
 * ERR on disconnect on both sides, with the posted receives flushed. The
 * data path is the provider's: this program is linked with the stock
 * libibverbs, not librdmachan. Refusals: another uverbs file's QP, a
 * kernel QP, no QP, a destroyed QP (CONNECT and ACCEPT, RC and UD, send
 * nothing: issue 42), a file that is not uverbs, an id in the wrong state,
 * a module QP for an id with a live uverbs one. Races: the QP destroyed
 * while the module drives it. Device removal: no binding after
 * DEVICE_REMOVAL nor to an id that comes to the device while ib_uverbs'
 * removal waits, and a binding that holds a uverbs file's last reference
 * lets it go without hanging the removal.
 * On a kernel without the resource tracker's delete sequence the module
 * offers no bypass mode and refuses every binding with EOPNOTSUPP.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "rdmachan_cm_raw.h"
#include "rdmachan_verbs_raw.h"
#include "qp_owner.h"
#include "test_device.h"
#include "kselftest_harness.h"

#define BUF_LEN		8192
#define MSG_LEN		64
#define RECV_OFF	4096
#define NO_SUCH_QPN	0xfedcbaU

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

FIXTURE(uqp) {
	int fd;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	unsigned char *buf;
	struct side c, s;
	__u32 listen, client, server;
	__u16 port;
	bool bypass;
};

/*
 * Whether the running kernel's ib_core has the resource tracker's delete
 * sequence, seen in /proc/kallsyms: the module offers bypass mode exactly
 * then (Debian 11's 5.10 has none).
 */
static bool kernel_has_restrack_begin_del(void)
{
	char line[512], name[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", name) == 1 &&
			!strcmp(name, "rdma_restrack_begin_del");
	fclose(f);
	return found;
}

#define NO_BYPASS_HERE "the module offers no bypass mode on this kernel"
#define CM_REMOVED_FIRST "rdma_cm's removal comes before ib_uverbs' here " \
	"(device_removal_order_test.sh has the other order)"

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &attr);
}

static int bind_qp(int fd, __u32 id, int uverbs_fd, __u32 qpn, __u32 flags)
{
	struct rdmachan_bind_user_qp cmd = {
		.size = sizeof(cmd), .flags = flags, .handle = id,
		.uverbs_fd = uverbs_fd, .qp_num = qpn,
	};

	return ioctl(fd, RDMACHAN_IOC_BIND_USER_QP, &cmd) ? errno : 0;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

static int post_recv(FIXTURE_DATA(uqp) *self, struct ibv_qp *qp,
		     uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf + RECV_OFF, .length = MSG_LEN,
		.lkey = self->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int post_send(FIXTURE_DATA(uqp) *self, struct ibv_qp *qp,
		     uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf, .length = MSG_LEN,
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* One completion of @cq within 5 s into *@wc: 0 or -1. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i, n;

	for (i = 0; i < 500000; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 ? 0 : -1;
		usleep(10);
	}
	return -1;
}

/* The next two events are @a for @ida and @b for @idb, in any order. */
static int expect_two(int fd, __u32 ida, __u32 a, __u32 idb, __u32 b)
{
	struct rdmachan_cm_event ev;
	int i, seen_a = 0, seen_b = 0;

	for (i = 0; i < 2; i++) {
		if (raw_get_event(fd, &ev, 5000) ||
		    raw_ack(fd, &ev.event_handle, 1))
			return -1;
		if (ev.event == a && ev.id_handle == ida && !seen_a)
			seen_a = 1;
		else if (ev.event == b && ev.id_handle == idb && !seen_b)
			seen_b = 1;
		else
			fprintf(stderr, "# event %u (status %d) for id %u\n",
				ev.event, ev.status, ev.id_handle);
	}
	return seen_a && seen_b ? 0 : -1;
}

FIXTURE_SETUP(uqp)
{
	struct rdmachan_get_info info = { .size = sizeof(info) };

	self->fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_GET_INFO, &info));
	self->bypass = info.out_features & RDMACHAN_FEATURE_USER_QP;
	ASSERT_EQ(kernel_has_restrack_begin_del(), self->bypass);
	self->ctx = open_test_device();
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = calloc(1, BUF_LEN);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, BUF_LEN,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	self->c.cq = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
	self->s.cq = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, self->c.cq);
	ASSERT_NE(NULL, self->s.cq);

	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0, &self->listen));
	ASSERT_EQ(0, raw_listen(self->fd, self->listen, 4, &self->port));
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0, &self->client));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, self->client, self->port));
	ASSERT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE,
				self->client, 2000));
	ASSERT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
	self->c.qp = make_qp(self->pd, self->c.cq, IBV_QPT_RC);
	self->s.qp = make_qp(self->pd, self->s.cq, IBV_QPT_RC);
	ASSERT_NE(NULL, self->c.qp);
	ASSERT_NE(NULL, self->s.qp);
}

FIXTURE_TEARDOWN(uqp)
{
	/* closing the file destroys the ids, and with them the bindings */
	close(self->fd);
	if (self->c.qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->c.qp));
	if (self->s.qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->s.qp));
	ibv_destroy_cq(self->c.cq);
	ibv_destroy_cq(self->s.cq);
	ibv_dereg_mr(self->mr);
	ibv_dealloc_pd(self->pd);
	ibv_close_device(self->ctx);
	free(self->buf);
}

/* Connects client and server, each with its bound QP. */
static int connect_bound(struct __test_metadata *_metadata,
			 FIXTURE_DATA(uqp) *self)
{
	struct rdmachan_cm_event ev;

	EXPECT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_INIT, qp_state(self->c.qp));
	EXPECT_EQ(0, post_recv(self, self->c.qp, 1));
	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 "hello"));
	EXPECT_EQ(0, raw_expect(self->fd, self->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	/* the request carries the bound QP's number, whatever was asked */
	EXPECT_EQ(self->c.qp->qp_num, ev.qp_num);
	self->server = ev.new_id_handle;
	EXPECT_EQ(0, bind_qp(self->fd, self->server, self->ctx->cmd_fd,
			     self->s.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_INIT, qp_state(self->s.qp));
	EXPECT_EQ(0, post_recv(self, self->s.qp, 2));
	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, self->server,
				 "welcome"));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->s.qp));
	/* the module sent the RTU: ESTABLISHED on both sides */
	EXPECT_EQ(0, expect_two(self->fd, self->client,
				RDMA_CM_EVENT_ESTABLISHED, self->server,
				RDMA_CM_EVENT_ESTABLISHED));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->c.qp));
	return _metadata->passed ? 0 : -1;
}

TEST_F(uqp, connect_accept_disconnect_drive_both_qps)
{
	struct ibv_wc wc;
	int i;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, connect_bound(_metadata, self));
	/* the provider's data path, both ways */
	memset(self->buf, 0x5a, MSG_LEN);
	ASSERT_EQ(0, post_send(self, self->c.qp, 10));
	ASSERT_EQ(0, poll_one(self->c.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(self->s.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(2, wc.wr_id);
	EXPECT_EQ(MSG_LEN, wc.byte_len);
	ASSERT_EQ(0, post_send(self, self->s.qp, 20));
	ASSERT_EQ(0, poll_one(self->s.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(self->c.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	EXPECT_EQ(1, wc.wr_id);

	/* K receives on each side, flushed by the disconnect */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, post_recv(self, self->c.qp, 100 + i));
		ASSERT_EQ(0, post_recv(self, self->s.qp, 200 + i));
	}
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT,
				self->client, 0));
	EXPECT_EQ(IBV_QPS_ERR, qp_state(self->c.qp));
	ASSERT_EQ(0, raw_expect(self->fd, self->server,
				RDMA_CM_EVENT_DISCONNECTED, NULL));
	/* the side that did not disconnect is in ERR when it hears of it */
	EXPECT_EQ(IBV_QPS_ERR, qp_state(self->s.qp));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, poll_one(self->c.cq, &wc));
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
		EXPECT_EQ(100 + i, wc.wr_id);
		ASSERT_EQ(0, poll_one(self->s.cq, &wc));
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status);
		EXPECT_EQ(200 + i, wc.wr_id);
	}
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT,
				self->server, 0));
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_DISCONNECTED, NULL));
}

/*
 * Issue 26 in bypass mode: another process (exec'd as nobody) that names
 * our bound uverbs QPs in its connect or accept gets EACCES, and our
 * connection hears nothing of it and still carries data.
 */
TEST_F(uqp, another_process_naming_our_qps_gets_eacces)
{
	struct rdmachan_cm_event ev;
	struct ibv_wc wc;
	char qpn[16];

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, connect_bound(_metadata, self));
	snprintf(qpn, sizeof(qpn), "%u", self->c.qp->qp_num);
	EXPECT_EQ(EACCES, intruder("connect", "rc", qpn));
	snprintf(qpn, sizeof(qpn), "%u", self->s.qp->qp_num);
	EXPECT_EQ(EACCES, intruder("accept", "rc", qpn));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(self->fd, &ev, 500));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->c.qp));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->s.qp));
	ASSERT_EQ(0, post_send(self, self->c.qp, 30));
	ASSERT_EQ(0, poll_one(self->c.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(self->s.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, post_send(self, self->s.qp, 31));
	ASSERT_EQ(0, poll_one(self->s.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
	ASSERT_EQ(0, poll_one(self->c.cq, &wc));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
}

TEST_F(uqp, refusals)
{
	__u32 fresh = 0, kctx, kpd = 0, kcq = 0, kqp = 0, kqpn = 0;
	struct raw_qp_init kinit = { 0 };
	struct ibv_context *other;
	struct ibv_qp *oqp, *ud;
	struct ibv_pd *opd;
	struct ibv_cq *ocq;
	int devnull;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	other = open_test_device();
	devnull = open("/dev/null", O_RDONLY);
	ASSERT_NE(NULL, other);
	opd = ibv_alloc_pd(other);
	ocq = ibv_create_cq(other, 4, NULL, NULL, 0);
	oqp = make_qp(opd, ocq, IBV_QPT_RC);
	ASSERT_NE(NULL, oqp);
	/* another uverbs file's QP, named with either file */
	EXPECT_EQ(EACCES, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  oqp->qp_num, 0));
	EXPECT_EQ(EACCES, bind_qp(self->fd, self->client, other->cmd_fd,
				  self->c.qp->qp_num, 0));
	/* a file that is not uverbs, and no file */
	EXPECT_EQ(EACCES, bind_qp(self->fd, self->client, devnull,
				  self->c.qp->qp_num, 0));
	EXPECT_EQ(EBADF, bind_qp(self->fd, self->client, -1,
				 self->c.qp->qp_num, 0));
	/* no such QP */
	EXPECT_EQ(ENOENT, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  NO_SUCH_QPN, 0));
	/* a kernel QP (rdmachan's own) */
	kctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, kctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, kctx, &kpd));
	ASSERT_EQ(0, raw_create_cq(self->fd, kctx, 8, -1, 0, &kcq));
	kinit.pd = kpd;
	kinit.send_cq = kcq;
	kinit.recv_cq = kcq;
	kinit.qp_type = IBV_QPT_RC;
	ASSERT_EQ(0, raw_create_qp(self->fd, &kinit, &kqp, &kqpn, NULL));
	EXPECT_EQ(EACCES, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  kqpn, 0));
	/* a UD QP for an RC id */
	ud = make_qp(self->pd, self->c.cq, IBV_QPT_UD);
	ASSERT_NE(NULL, ud);
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  ud->qp_num, 0));
	/* an id without a device */
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0, &fresh));
	EXPECT_EQ(EINVAL, bind_qp(self->fd, fresh, self->ctx->cmd_fd,
				  self->c.qp->qp_num, 0));
	/* bad flags and arguments, unbinding what is not bound */
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  self->c.qp->qp_num, 0x2));
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, 0, 0,
				  RDMACHAN_BIND_USER_QP_UNBIND));
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, 0, 5,
				  RDMACHAN_BIND_USER_QP_UNBIND));
	/* nothing above changed the QP; a good bind does, once */
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->c.qp));
	EXPECT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  self->c.qp->qp_num, 0));
	EXPECT_EQ(0, bind_qp(self->fd, self->client, 0, 0,
			     RDMACHAN_BIND_USER_QP_UNBIND));
	EXPECT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(0, ibv_destroy_qp(oqp));
	EXPECT_EQ(0, ibv_destroy_cq(ocq));
	EXPECT_EQ(0, ibv_dealloc_pd(opd));
	EXPECT_EQ(0, ibv_close_device(other));
	close(devnull);
}

/*
 * An id holds one QP: CREATE_QP for an id with a live bound uverbs QP is
 * refused and changes nothing; once that QP is destroyed, its stale
 * binding gives way to the module's own QP, which then refuses a bind.
 */
TEST_F(uqp, one_qp_per_id_of_either_kind)
{
	__u32 kctx, kpd = 0, kcq = 0, kqp = 0, kqpn = 0;
	struct raw_qp_init kinit = {
		.qp_type = IBV_QPT_RC, .flags = RDMACHAN_CREATE_QP_CM_ID,
		.cm_id = self->client,
	};

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	kctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, kctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, kctx, &kpd));
	ASSERT_EQ(0, raw_create_cq(self->fd, kctx, 8, -1, 0, &kcq));
	kinit.cm_fd = self->fd;
	kinit.pd = kpd;
	kinit.send_cq = kcq;
	kinit.recv_cq = kcq;
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_INIT, qp_state(self->c.qp));
	EXPECT_EQ(EINVAL, raw_create_qp(self->fd, &kinit, &kqp, &kqpn, NULL));
	/* still bound: unbinding finds it */
	EXPECT_EQ(0, bind_qp(self->fd, self->client, 0, 0,
			     RDMACHAN_BIND_USER_QP_UNBIND));
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	ASSERT_EQ(0, ibv_destroy_qp(self->c.qp));
	self->c.qp = NULL;
	ASSERT_EQ(0, raw_create_qp(self->fd, &kinit, &kqp, &kqpn, NULL));
	EXPECT_EQ(IBV_QPS_INIT, raw_qp_state(self->fd, kqp));
	/* the stale binding ended; the own QP refuses a uverbs one */
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, 0, 0,
				  RDMACHAN_BIND_USER_QP_UNBIND));
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  self->s.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->s.qp));
}

/* uAPI rule 6 for RDMACHAN_IOC_BIND_USER_QP: sizes, tails, pointers. */
TEST_F(uqp, abi_sizes_and_pointers)
{
	struct rdmachan_bind_user_qp cmd = {
		.handle = self->client, .uverbs_fd = self->ctx->cmd_fd,
		.qp_num = self->c.qp->qp_num,
	};
	char buf[sizeof(cmd) + 16];
	void *unmapped;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	memcpy(buf, &cmd, sizeof(cmd));
	memset(buf + sizeof(cmd), 0, 16);
	((struct rdmachan_bind_user_qp *)buf)->size = 0;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, buf));
	EXPECT_EQ(EINVAL, errno);
	((struct rdmachan_bind_user_qp *)buf)->size = sizeof(cmd) - 1;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, buf));
	EXPECT_EQ(EINVAL, errno);
	((struct rdmachan_bind_user_qp *)buf)->size = sizeof(buf);
	buf[sizeof(buf) - 1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, buf));
	EXPECT_EQ(E2BIG, errno);
	buf[sizeof(buf) - 1] = 0;
	((struct rdmachan_bind_user_qp *)buf)->__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, buf));
	EXPECT_EQ(EINVAL, errno);
	((struct rdmachan_bind_user_qp *)buf)->__reserved = 0;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, NULL));
	EXPECT_EQ(EFAULT, errno);
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, unmapped));
	EXPECT_EQ(EFAULT, errno);
	munmap(unmapped, 4096);
	/* none of that touched the QP */
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->c.qp));
	/* a longer struct with a zero tail works */
	EXPECT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_BIND_USER_QP, buf));
	EXPECT_EQ(IBV_QPS_INIT, qp_state(self->c.qp));
}

/* A bound QP destroyed behind the module's back: the accept fails. */
/*
 * The client's request, taken by the listener: self->server is its id,
 * with the server's QP bound. 0, or the step's errno (-1: no request).
 */
static int request_to_bound_server(FIXTURE_DATA(uqp) *self)
{
	struct rdmachan_cm_event ev;
	int ret;

	ret = raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client, NULL);
	if (ret)
		return ret;
	if (raw_expect(self->fd, self->listen, RDMA_CM_EVENT_CONNECT_REQUEST,
		       &ev))
		return -1;
	self->server = ev.new_id_handle;
	return bind_qp(self->fd, self->server, self->ctx->cmd_fd,
		       self->s.qp->qp_num, 0);
}

static int reject_request(int fd, __u32 id)
{
	struct rdmachan_reject rej = { .size = sizeof(rej), .handle = id };

	return ioctl(fd, RDMACHAN_IOC_REJECT, &rej) ? errno : 0;
}

TEST_F(uqp, destroyed_qp_fails_cleanly)
{
	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, request_to_bound_server(self));
	ASSERT_EQ(0, ibv_destroy_qp(self->s.qp));
	self->s.qp = NULL;
	EXPECT_EQ(ENOENT, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT,
				      self->server, NULL));
	/* the request is still unanswered: it can be rejected */
	EXPECT_EQ(0, reject_request(self->fd, self->server));
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_REJECTED, NULL));
}

/*
 * Issue 42: CONNECT on an id whose bound QP was destroyed fails with
 * ENOENT and sends nothing (the listener hears of no request), however
 * often it is tried; the id then takes a new QP, whose number the
 * request carries. A bound QP that is still there is not replaced.
 */
TEST_F(uqp, destroyed_qp_connect_sends_nothing)
{
	struct rdmachan_cm_event ev;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	ASSERT_EQ(0, ibv_destroy_qp(self->c.qp));
	self->c.qp = NULL;
	EXPECT_EQ(ENOENT, raw_connect(self->fd, RDMACHAN_IOC_CONNECT,
				      self->client, "hello"));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(self->fd, &ev, 500));
	EXPECT_EQ(ENOENT, raw_connect(self->fd, RDMACHAN_IOC_CONNECT,
				      self->client, "hello"));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(self->fd, &ev, 500));

	self->c.qp = make_qp(self->pd, self->c.cq, IBV_QPT_RC);
	ASSERT_NE(NULL, self->c.qp);
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_INIT, qp_state(self->c.qp));
	EXPECT_EQ(EINVAL, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
				  self->s.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->s.qp));
	ASSERT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 "hello"));
	ASSERT_EQ(0, raw_expect(self->fd, self->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	EXPECT_EQ(self->c.qp->qp_num, ev.qp_num);
	self->server = ev.new_id_handle;
	EXPECT_EQ(0, reject_request(self->fd, self->server));
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_REJECTED, NULL));
}

/*
 * Issue 42: ACCEPT with the bound QP destroyed sends no reply (the
 * client hears nothing); the request can then be accepted with a new QP,
 * whose number the reply carries, and the connection is made.
 */
TEST_F(uqp, destroyed_qp_accept_takes_a_new_qp)
{
	struct rdmachan_cm_event ev;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	ASSERT_EQ(0, request_to_bound_server(self));
	ASSERT_EQ(0, ibv_destroy_qp(self->s.qp));
	self->s.qp = NULL;
	EXPECT_EQ(ENOENT, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT,
				      self->server, "welcome"));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(self->fd, &ev, 500));

	self->s.qp = make_qp(self->pd, self->s.cq, IBV_QPT_RC);
	ASSERT_NE(NULL, self->s.qp);
	ASSERT_EQ(0, bind_qp(self->fd, self->server, self->ctx->cmd_fd,
			     self->s.qp->qp_num, 0));
	ASSERT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, self->server,
				 "welcome"));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->s.qp));
	EXPECT_EQ(0, expect_two(self->fd, self->client,
				RDMA_CM_EVENT_ESTABLISHED, self->server,
				RDMA_CM_EVENT_ESTABLISHED));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->c.qp));
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT,
				self->client, 0));
	EXPECT_EQ(0, raw_expect(self->fd, self->server,
				RDMA_CM_EVENT_DISCONNECTED, NULL));
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT,
				self->server, 0));
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_DISCONNECTED, NULL));
}

/*
 * Issue 42, UD: the SIDR reply carries the bound QP's number, so ACCEPT
 * with that QP destroyed fails with ENOENT and sends no reply; with a new
 * QP bound the client's ESTABLISHED names it. CONNECT with a destroyed
 * bound QP fails the same way.
 */
TEST_F(uqp, destroyed_ud_qp_sends_no_sidr_reply)
{
	__u32 listen = 0, client = 0, server;
	struct rdmachan_cm_event ev;
	struct ibv_qp *ud;
	__u16 port;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_UDP, 0, &listen));
	ASSERT_EQ(0, raw_listen(self->fd, listen, 4, &port));
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_UDP, 0, &client));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, client, port));
	ASSERT_EQ(0, raw_expect(self->fd, client, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE, client,
				2000));
	ASSERT_EQ(0, raw_expect(self->fd, client, RDMA_CM_EVENT_ROUTE_RESOLVED,
				NULL));

	ud = make_qp(self->pd, self->c.cq, IBV_QPT_UD);
	ASSERT_NE(NULL, ud);
	ASSERT_EQ(0, bind_qp(self->fd, client, self->ctx->cmd_fd, ud->qp_num,
			     0));
	ASSERT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(ENOENT, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, client,
				      NULL));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(self->fd, &ev, 500));
	/* what is gone can be unbound */
	ASSERT_EQ(0, bind_qp(self->fd, client, 0, 0,
			     RDMACHAN_BIND_USER_QP_UNBIND));
	ASSERT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, client,
				 NULL));
	ASSERT_EQ(0, raw_expect(self->fd, listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	server = ev.new_id_handle;

	ud = make_qp(self->pd, self->s.cq, IBV_QPT_UD);
	ASSERT_NE(NULL, ud);
	ASSERT_EQ(0, bind_qp(self->fd, server, self->ctx->cmd_fd, ud->qp_num,
			     0));
	ASSERT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(ENOENT, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, server,
				      NULL));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(self->fd, &ev, 500));

	ud = make_qp(self->pd, self->s.cq, IBV_QPT_UD);
	ASSERT_NE(NULL, ud);
	ASSERT_EQ(0, bind_qp(self->fd, server, self->ctx->cmd_fd, ud->qp_num,
			     0));
	ASSERT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, server, NULL));
	ASSERT_EQ(0, raw_expect(self->fd, client, RDMA_CM_EVENT_ESTABLISHED,
				&ev));
	EXPECT_EQ(ud->qp_num, ev.qp_num);
	EXPECT_EQ(0, raw_destroy(self->fd, server));
	EXPECT_EQ(0, raw_destroy(self->fd, client));
	EXPECT_EQ(0, raw_destroy(self->fd, listen));
	EXPECT_EQ(0, ibv_destroy_qp(ud));
}

/* Each binding is counted in debugfs ("user_qps") until it ends. */
TEST_F(uqp, bindings_are_counted)
{
	long before = rdmachan_counter("user_qps");
	__u32 other = 0;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	EXPECT_EQ(before + 1, rdmachan_counter("user_qps"));
	ASSERT_EQ(0, bind_qp(self->fd, self->client, 0, 0,
			     RDMACHAN_BIND_USER_QP_UNBIND));
	EXPECT_EQ(before, rdmachan_counter("user_qps"));
	/* a binding ends with its id */
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0, &other));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, other, self->port));
	ASSERT_EQ(0, raw_expect(self->fd, other, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	ASSERT_EQ(0, bind_qp(self->fd, other, self->ctx->cmd_fd,
			     self->s.qp->qp_num, 0));
	EXPECT_EQ(before + 1, rdmachan_counter("user_qps"));
	ASSERT_EQ(0, raw_destroy(self->fd, other));
	EXPECT_EQ(before, rdmachan_counter("user_qps"));
}

/*
 * ibv_destroy_qp() of a QP, from another thread once both are ready: EBUSY
 * while the module moves the QP (as while a uverbs call of the process
 * uses it), so it tries again, counting those.
 */
struct qp_destroyer {
	pthread_t thread;
	pthread_barrier_t *start;
	struct ibv_qp *qp;
	int ret, busy;
};

static void *destroy_qp_thread(void *arg)
{
	struct qp_destroyer *d = arg;

	pthread_barrier_wait(d->start);
	while ((d->ret = ibv_destroy_qp(d->qp)) == EBUSY && d->busy < 100000)
		d->busy++;
	return NULL;
}

/*
 * The next event of @id, acknowledged, if it is one of @a, @b, @c, @d
 * within 10 s (other ids' events are taken and acknowledged on the way):
 * its type, or -1.
 */
static int next_of(int fd, __u32 id, int a, int b, int c, int d)
{
	struct rdmachan_cm_event ev;
	int i;

	for (i = 0; i < 20; i++) {
		if (raw_get_event(fd, &ev, 10000) ||
		    raw_ack(fd, &ev.event_handle, 1))
			return -1;
		if (ev.id_handle != id)
			continue;
		if ((int)ev.event == a || (int)ev.event == b ||
		    (int)ev.event == c || (int)ev.event == d)
			return ev.event;
		fprintf(stderr, "# event %u (status %d)\n", ev.event, ev.status);
		return -1;
	}
	return -1;
}

/*
 * A bound QP destroyed by the program while the module drives it: while
 * ACCEPT readies the server's QP, then while DISCONNECT moves the
 * client's to ERR. Each call ends in 0 or ENOENT (the module finds the QP
 * gone, or the destroy gets EBUSY until the move is done), the connection
 * ends in an event, and nothing is left behind: no object (the runner's
 * counters), and no GID reference the RTR move took (the kernel warns of
 * a leaked one when the device goes, as later tests of the suite make it
 * go; the warning fails the run).
 */
TEST_F(uqp, destroy_races_accept_and_disconnect)
{
	struct qp_destroyer d = { 0 };
	pthread_barrier_t start;
	int ret, got;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 2));
	d.start = &start;
	ASSERT_EQ(0, bind_qp(self->fd, self->client, self->ctx->cmd_fd,
			     self->c.qp->qp_num, 0));
	ASSERT_EQ(0, request_to_bound_server(self));

	d.qp = self->s.qp;
	self->s.qp = NULL;
	ASSERT_EQ(0, pthread_create(&d.thread, NULL, destroy_qp_thread, &d));
	pthread_barrier_wait(&start);
	ret = raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, self->server, NULL);
	ASSERT_EQ(0, pthread_join(d.thread, NULL));
	EXPECT_EQ(0, d.ret);
	EXPECT_TRUE(ret == 0 || ret == ENOENT) {
		TH_LOG("ACCEPT: %s", strerror(ret));
	}
	if (ret)
		EXPECT_EQ(0, reject_request(self->fd, self->server));
	got = next_of(self->fd, self->client, RDMA_CM_EVENT_ESTABLISHED,
		      RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_CONNECT_ERROR,
		      RDMA_CM_EVENT_UNREACHABLE);
	ASSERT_LE(0, got);
	if (got != RDMA_CM_EVENT_ESTABLISHED)
		return;

	d.qp = self->c.qp;
	self->c.qp = NULL;
	ASSERT_EQ(0, pthread_create(&d.thread, NULL, destroy_qp_thread, &d));
	pthread_barrier_wait(&start);
	ret = raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT, self->client, 0);
	ASSERT_EQ(0, pthread_join(d.thread, NULL));
	EXPECT_EQ(0, d.ret);
	EXPECT_TRUE(ret == 0 || ret == ENOENT) {
		TH_LOG("DISCONNECT: %s", strerror(ret));
	}
	EXPECT_LE(0, next_of(self->fd, self->server,
			     RDMA_CM_EVENT_DISCONNECTED,
			     RDMA_CM_EVENT_ESTABLISHED, -1, -1));
	pthread_barrier_destroy(&start);
}

/* UD: bound straight to RTS with the port space's Q_Key. */
TEST_F(uqp, ud_qp_is_ready_when_bound)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_qp *ud;
	__u32 id = 0;

	if (!self->bypass)
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_UDP, 0, &id));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, id, self->port));
	ASSERT_EQ(0, raw_expect(self->fd, id, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	ud = make_qp(self->pd, self->c.cq, IBV_QPT_UD);
	ASSERT_NE(NULL, ud);
	EXPECT_EQ(EINVAL, bind_qp(self->fd, id, self->ctx->cmd_fd,
				  self->c.qp->qp_num, 0));
	ASSERT_EQ(0, bind_qp(self->fd, id, self->ctx->cmd_fd, ud->qp_num, 0));
	ASSERT_EQ(0, ibv_query_qp(ud, &attr, IBV_QP_STATE | IBV_QP_QKEY,
				  &init));
	EXPECT_EQ(IBV_QPS_RTS, attr.qp_state);
	EXPECT_EQ(RDMA_UDP_QKEY, attr.qkey);
	EXPECT_EQ(0, raw_destroy(self->fd, id));
	EXPECT_EQ(0, ibv_destroy_qp(ud));
}

/*
 * A process that exits with a bound QP, closing its files in either
 * order, leaves nothing behind and does not hang.
 */
static int exit_with_binding(bool rdmachan_first)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct ibv_context *ctx = NULL;
		struct ibv_pd *pd;
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		__u32 id = 0;
		int fd;

		if (!rdmachan_first)
			ctx = open_test_device();
		fd = open("/dev/rdmachan", O_RDWR);
		if (rdmachan_first)
			ctx = open_test_device();
		if (fd < 0 || !ctx)
			_exit(2);
		pd = ibv_alloc_pd(ctx);
		cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
		qp = cq ? make_qp(pd, cq, IBV_QPT_RC) : NULL;
		if (!qp || raw_create_id(fd, RDMA_PS_TCP, 0, &id) ||
		    raw_resolve_addr(fd, id, htons(1)) ||
		    raw_expect(fd, id, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
		    bind_qp(fd, id, ctx->cmd_fd, qp->qp_num, 0))
			_exit(3);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Device removal with a bound (or bindable) QP. Each test has its own
 * rdmachan file, device context, RC QP and an id resolved on the test
 * device; the device is deleted in a child (rdma link delete), which
 * ib_uverbs' removal keeps waiting while the device context is open (rxe
 * cannot disassociate).
 */
FIXTURE(removal) {
	int fd;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	__u32 id;
	pid_t del;
};

FIXTURE_SETUP(removal)
{
	self->fd = -1;
	if (!kernel_has_restrack_begin_del())
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, rxe_restore());
	self->fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->ctx = open_test_device();
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->qp = make_qp(self->pd, self->cq, IBV_QPT_RC);
	ASSERT_NE(NULL, self->qp);
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0, &self->id));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, self->id, htons(1)));
	ASSERT_EQ(0, raw_expect(self->fd, self->id,
				RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
}

/* The QP, CQ, PD and device context go, in that order: 0 or -1. */
static int let_go_of_device(FIXTURE_DATA(removal) *self)
{
	int ret = 0;

	if (self->qp && ibv_destroy_qp(self->qp))
		ret = -1;
	if (self->cq && ibv_destroy_cq(self->cq))
		ret = -1;
	if (self->pd && ibv_dealloc_pd(self->pd))
		ret = -1;
	if (self->ctx && ibv_close_device(self->ctx))
		ret = -1;
	self->qp = NULL;
	self->cq = NULL;
	self->pd = NULL;
	self->ctx = NULL;
	return ret;
}

FIXTURE_TEARDOWN(removal)
{
	let_go_of_device(self);
	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, rxe_restore());
}

/* rdma link delete of the test device, in a child: its pid, or -1 */
static pid_t delete_device(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp("rdma", "rdma", "link", "delete", RDMACHAN_TEST_DEVICE,
		       (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * The delete ended within 90 s, successfully: 0, or -1 (a remover stuck
 * for good cannot be reaped, and is left behind).
 */
static int delete_ended(pid_t del)
{
	pid_t ended = 0;
	int i, status = 0;

	for (i = 0; i < 900 && !ended; i++) {
		ended = waitpid(del, &status, WNOHANG);
		if (!ended)
			usleep(100000);
	}
	if (ended != del) {
		fprintf(stderr, "# rdma link delete still runs after 90 s\n");
		return -1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The module's DEVICE_REMOVAL for @id, acknowledged: 0 or -1. */
static int removal_reported(int fd, __u32 id)
{
	struct rdmachan_cm_event ev;
	int i, ret;

	/* slow under the debug kernel */
	for (i = 0; i < 12; i++) {
		ret = raw_get_event(fd, &ev, 5000);
		if (ret != ETIMEDOUT)
			break;
	}
	if (ret || ev.event != RDMA_CM_EVENT_DEVICE_REMOVAL ||
	    ev.id_handle != id) {
		fprintf(stderr, "# no DEVICE_REMOVAL for id %u (%d, event %u)\n",
			id, ret, ret ? 0 : ev.event);
		return -1;
	}
	return raw_ack(fd, &ev.event_handle, 1) ? -1 : 0;
}

/*
 * Issue 42: once the module has sent DEVICE_REMOVAL for an id, nothing
 * binds to it any more: the binding would hold a uverbs file that
 * ib_uverbs' removal waits for. (In the guest's module order the CM may
 * have torn the id down by then, which gives ENODEV too;
 * device_removal_order_test.sh runs this in the other order, where the
 * id lives until the process lets go of its device context.)
 */
TEST_F_TIMEOUT(removal, bind_refused_after_device_removal, 180)
{
	if (!kernel_has_restrack_begin_del())
		SKIP(return, NO_BYPASS_HERE);
	self->del = delete_device();
	ASSERT_LE(0, self->del);
	ASSERT_EQ(0, removal_reported(self->fd, self->id));
	EXPECT_EQ(ENODEV, bind_qp(self->fd, self->id, self->ctx->cmd_fd,
				  self->qp->qp_num, 0));
	/* letting go of everything lets the removal end */
	EXPECT_EQ(0, let_go_of_device(self));
	EXPECT_EQ(0, close(self->fd));
	self->fd = -1;
	EXPECT_EQ(0, delete_ended(self->del));
}

/*
 * The binding may hold the last reference to a uverbs file: the program
 * destroyed its QP and closed its device context but keeps its rdmachan
 * file. Removing the device lets that reference go where nothing waits
 * for the remover to return (ib_uverbs' removal waits for the file's
 * release), so the removal ends and the id hears DEVICE_REMOVAL.
 */
TEST_F_TIMEOUT(removal, last_uverbs_reference_is_let_go, 180)
{
	if (!kernel_has_restrack_begin_del())
		SKIP(return, NO_BYPASS_HERE);
	ASSERT_EQ(0, bind_qp(self->fd, self->id, self->ctx->cmd_fd,
			     self->qp->qp_num, 0));
	/* the queues' mappings and the descriptor go: the module's is last */
	ASSERT_EQ(0, let_go_of_device(self));
	self->del = delete_device();
	ASSERT_LE(0, self->del);
	ASSERT_EQ(0, delete_ended(self->del));
	EXPECT_EQ(0, removal_reported(self->fd, self->id));
}

/*
 * An id that comes to the device after the module's walk of the ids: with
 * rdma_cm registered before ib_uverbs, ib_uverbs' removal waits for this
 * process's device context while rdma_cm still has the device, so a new
 * id resolves an address on it. Its binding would hold a uverbs file the
 * removal waits for: it is refused as after DEVICE_REMOVAL.
 */
TEST_F_TIMEOUT(removal, bind_refused_while_uverbs_removal_waits, 180)
{
	int status;
	__u32 late = 0;

	if (!kernel_has_restrack_begin_del())
		SKIP(return, NO_BYPASS_HERE);
	if (!uverbs_removed_before_cm())
		SKIP(return, CM_REMOVED_FIRST);
	self->del = delete_device();
	ASSERT_LE(0, self->del);
	/* the walk has been: the first id heard of it */
	ASSERT_EQ(0, removal_reported(self->fd, self->id));
	/* ib_uverbs waits for our device context: the delete goes on */
	EXPECT_EQ(0, waitpid(self->del, &status, WNOHANG));

	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0, &late));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, late, htons(1)));
	ASSERT_EQ(0, raw_expect(self->fd, late, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	EXPECT_EQ(ENODEV, bind_qp(self->fd, late, self->ctx->cmd_fd,
				  self->qp->qp_num, 0));
	/* letting go of the device context lets the removal end */
	EXPECT_EQ(0, let_go_of_device(self));
	EXPECT_EQ(0, delete_ended(self->del));
}

/* Without the feature a binding is refused, the QP left as it was. */
TEST_F(uqp, bind_refused_where_there_is_no_bypass_mode)
{
	if (self->bypass)
		SKIP(return, "the module offers bypass mode on this kernel");
	EXPECT_EQ(EOPNOTSUPP, bind_qp(self->fd, self->client,
				      self->ctx->cmd_fd, self->c.qp->qp_num, 0));
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->c.qp));
}

TEST(exit_in_either_order)
{
	if (!kernel_has_restrack_begin_del())
		SKIP(return, NO_BYPASS_HERE);
	EXPECT_EQ(0, exit_with_binding(true));
	EXPECT_EQ(0, exit_with_binding(false));
}

TEST_HARNESS_MAIN
