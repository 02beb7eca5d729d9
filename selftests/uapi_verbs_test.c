// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The module's verbs objects and data path through raw ioctls, over rxe:
 * what it refuses (keys and handles of other files, SGEs outside their
 * MR, the PD's DMA key, busy objects), completion channels, CM-bound QPs
 * moving to the error state on disconnect, and process death in the
 * middle of a transfer.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

#define BUF_SIZE 4096
#define LOCAL_WRITE IBV_ACCESS_LOCAL_WRITE
#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ)

static long verbs_objects(void)
{
	return rdmachan_counter("pds") + rdmachan_counter("mrs") +
	       rdmachan_counter("cqs") + rdmachan_counter("qps") +
	       rdmachan_counter("srqs") + rdmachan_counter("ahs") +
	       rdmachan_counter("comp_channels") + rdmachan_counter("mcasts");
}

FIXTURE(verbs) {
	int fd;
	__u32 ctx;
	__u32 pd;
	char *buf;
	long objects;
};

FIXTURE_SETUP(verbs)
{
	self->objects = verbs_objects();
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	self->buf = mmap(NULL, 4 * BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
}

FIXTURE_TEARDOWN(verbs)
{
	close(self->fd);
	munmap(self->buf, 4 * BUF_SIZE);
	/* closing the file freed everything it had */
	EXPECT_EQ(self->objects, verbs_objects());
}

TEST_F(verbs, pd_and_mr_live_and_die)
{
	long pds = rdmachan_counter("pds"), mrs = rdmachan_counter("mrs");
	struct raw_mr mr, mr2;
	__u32 pd2 = 0;

	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &pd2));
	EXPECT_EQ(pds + 1, rdmachan_counter("pds"));
	ASSERT_EQ(0, raw_reg_mr(self->fd, pd2, self->buf, BUF_SIZE,
				ALL_ACCESS, &mr2));
	EXPECT_EQ(mrs + 1, rdmachan_counter("mrs"));
	EXPECT_NE(0, mr2.lkey);
	EXPECT_NE(0, mr2.rkey);

	/* a PD with an MR on it stays, and keeps working */
	EXPECT_EQ(EBUSY, raw_destroy(self->fd, pd2));
	EXPECT_EQ(pds + 1, rdmachan_counter("pds"));
	ASSERT_EQ(0, raw_reg_mr(self->fd, pd2, self->buf, 16, 0, &mr));
	EXPECT_EQ(0, raw_destroy(self->fd, mr.handle));
	EXPECT_EQ(EBUSY, raw_destroy(self->fd, pd2));
	EXPECT_EQ(0, raw_destroy(self->fd, mr2.handle));
	EXPECT_EQ(0, raw_destroy(self->fd, pd2));
	EXPECT_EQ(pds, rdmachan_counter("pds"));
	EXPECT_EQ(mrs, rdmachan_counter("mrs"));
	EXPECT_EQ(ENOENT, raw_destroy(self->fd, pd2));
}

TEST_F(verbs, reg_mr_refuses_bad_memory_and_flags)
{
	long mrs = rdmachan_counter("mrs");
	struct raw_mr mr;
	char *ro, *gone;

	gone = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone, BUF_SIZE));
	EXPECT_EQ(EFAULT, raw_reg_mr(self->fd, self->pd, gone, BUF_SIZE,
				     LOCAL_WRITE, &mr));
	EXPECT_EQ(EFAULT, raw_reg_mr(self->fd, self->pd, gone, BUF_SIZE, 0,
				     &mr));
	/* partly mapped */
	gone = mmap(NULL, 2 * BUF_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone + BUF_SIZE, BUF_SIZE));
	EXPECT_EQ(EFAULT, raw_reg_mr(self->fd, self->pd, gone, 2 * BUF_SIZE,
				     0, &mr));
	munmap(gone, BUF_SIZE);

	ro = mmap(NULL, BUF_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(EFAULT, raw_reg_mr(self->fd, self->pd, ro, BUF_SIZE,
				     LOCAL_WRITE, &mr));
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, ro, BUF_SIZE,
				IBV_ACCESS_REMOTE_READ, &mr));
	EXPECT_EQ(0, raw_destroy(self->fd, mr.handle));
	munmap(ro, BUF_SIZE);

	EXPECT_EQ(EINVAL, raw_reg_mr(self->fd, self->pd, self->buf, 0, 0, &mr));
	EXPECT_EQ(EINVAL, raw_reg_mr(self->fd, self->pd, self->buf, BUF_SIZE,
				     IBV_ACCESS_REMOTE_WRITE, &mr));
	EXPECT_EQ(EINVAL, raw_reg_mr(self->fd, self->pd, self->buf, BUF_SIZE,
				     IBV_ACCESS_REMOTE_ATOMIC, &mr));
	EXPECT_EQ(EINVAL, raw_reg_mr(self->fd, self->pd, self->buf, BUF_SIZE,
				     0x800, &mr));
	EXPECT_EQ(EOPNOTSUPP, raw_reg_mr(self->fd, self->pd, self->buf,
					 BUF_SIZE, IBV_ACCESS_MW_BIND, &mr));
	EXPECT_EQ(EOPNOTSUPP, raw_reg_mr(self->fd, self->pd, self->buf,
					 BUF_SIZE, IBV_ACCESS_ON_DEMAND, &mr));
	/* wraps around */
	EXPECT_EQ(EINVAL, raw_reg_mr(self->fd, self->pd,
				     (void *)(uintptr_t)-4096, 8192, 0, &mr));
	/* optional access bits are dropped */
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, self->buf, BUF_SIZE,
				LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING,
				&mr));
	EXPECT_EQ(0, raw_destroy(self->fd, mr.handle));
	EXPECT_EQ(mrs, rdmachan_counter("mrs"));
}

/* An MR whose pages go away from the process stays pinned and usable. */
TEST_F(verbs, mr_survives_munmap)
{
	long mrs = rdmachan_counter("mrs");
	struct raw_mr mr;
	char *p = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, p, BUF_SIZE, LOCAL_WRITE,
				&mr));
	ASSERT_EQ(0, munmap(p, BUF_SIZE));
	EXPECT_EQ(0, raw_destroy(self->fd, mr.handle));
	EXPECT_EQ(mrs, rdmachan_counter("mrs"));
}

TEST_F(verbs, handles_of_other_files_are_enoent)
{
	int fd2 = open("/dev/rdmachan", O_RDWR);
	__u32 ctx2, pd2 = 0, cq2 = 0, cq = 0;
	struct raw_mr mr;

	ASSERT_LE(0, fd2);
	ctx2 = rdmachan_open_context(fd2, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, ctx2);
	ASSERT_EQ(0, raw_alloc_pd(fd2, ctx2, &pd2));
	ASSERT_EQ(0, raw_create_cq(fd2, ctx2, 4, RDMACHAN_NO_FD, 0, &cq2));

	/* pick numbers that are not objects of this file */
	while (pd2 == self->pd || pd2 == self->ctx) {
		ASSERT_EQ(0, raw_alloc_pd(fd2, ctx2, &pd2));
	}
	EXPECT_EQ(ENOENT, raw_reg_mr(self->fd, pd2, self->buf, BUF_SIZE, 0,
				     &mr));
	EXPECT_EQ(ENOENT, raw_alloc_pd(self->fd, ctx2 + 100, &pd2));
	EXPECT_EQ(ENOENT, raw_create_cq(self->fd, ctx2 + 100, 4,
					RDMACHAN_NO_FD, 0, &cq));
	/* a handle of the wrong type */
	EXPECT_EQ(ENOENT, raw_reg_mr(self->fd, self->ctx, self->buf,
				     BUF_SIZE, 0, &mr));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 4, RDMACHAN_NO_FD, 0,
				   &cq));
	EXPECT_EQ(ENOENT, raw_notify_cq(self->fd, self->pd, 0));
	EXPECT_EQ(-ENOENT, raw_poll_cq(self->fd, self->pd, NULL, 0));
	EXPECT_EQ(ENOENT, raw_reg_mr(self->fd, cq, self->buf, BUF_SIZE, 0,
				     &mr));
	EXPECT_EQ(0, raw_notify_cq(fd2, cq2, 0));
	close(fd2);
}

TEST_F(verbs, cq_poll_notify_ack)
{
	struct rdmachan_wc wc[4];
	struct rdmachan_create_cq create = {
		.size = sizeof(create), .context = self->ctx, .cqe = 4,
		.comp_channel = RDMACHAN_NO_FD, .comp_vector = 1000,
	};
	struct rdmachan_notify_cq notify = {
		.size = sizeof(notify), .flags = RDMACHAN_NOTIFY_SOLICITED,
	};
	struct rdmachan_poll_cq pollcmd = {
		.size = sizeof(pollcmd), .max_wc = 1, .wcs = (uintptr_t)wc,
		.wc_size = sizeof(wc[0]) - 1,
	};
	__u32 cq = 0;
	int chfd = -1;

	EXPECT_EQ(EINVAL, raw_create_cq(self->fd, self->ctx, 0, RDMACHAN_NO_FD,
					0, &cq));
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_CREATE_CQ, &create));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(EBADF, raw_create_cq(self->fd, self->ctx, 4, 1000, 0, &cq));
	EXPECT_EQ(EBADF, raw_create_cq(self->fd, self->ctx, 4, -5, 0, &cq));
	/* an fd that is not a completion channel */
	EXPECT_EQ(EINVAL, raw_create_cq(self->fd, self->ctx, 4, self->fd, 0,
					&cq));

	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 4, RDMACHAN_NO_FD, 0,
				   &cq));
	EXPECT_EQ(0, raw_poll_cq(self->fd, cq, wc, 4));
	EXPECT_EQ(0, raw_poll_cq(self->fd, cq, wc, 0));
	EXPECT_EQ(0, raw_notify_cq(self->fd, cq, 0));
	/* no channel: nothing to acknowledge */
	EXPECT_EQ(EINVAL, raw_notify_cq(self->fd, cq, 1));
	EXPECT_EQ(EINVAL, raw_ack_cq(self->fd, cq, 1));
	EXPECT_EQ(0, raw_ack_cq(self->fd, cq, 0));
	EXPECT_EQ(0, raw_destroy(self->fd, cq));

	ASSERT_EQ(0, raw_create_channel(self->fd, &chfd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 4, chfd, 7, &cq));
	EXPECT_EQ(EINVAL, raw_notify_cq(self->fd, cq, 1));
	EXPECT_EQ(0, raw_notify_cq(self->fd, cq, 0));
	notify.cq = cq;
	EXPECT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_REQ_NOTIFY_CQ, &notify));
	/* flags are for arming only */
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_ACK_CQ_EVENTS, &notify));
	EXPECT_EQ(EINVAL, errno);
	pollcmd.cq = cq;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_POLL_CQ, &pollcmd));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, raw_destroy(self->fd, cq));
	close(chfd);
}

TEST_F(verbs, comp_channel_file)
{
	struct rdmachan_get_cq_event ev;
	struct pollfd pfd;
	char buf[64] = {};
	long channels = rdmachan_counter("comp_channels");
	int chfd = -1, flags;

	ASSERT_EQ(0, raw_create_channel(self->fd, &chfd));
	EXPECT_EQ(channels + 1, rdmachan_counter("comp_channels"));
	flags = fcntl(chfd, F_GETFD);
	EXPECT_EQ(FD_CLOEXEC, flags & FD_CLOEXEC);

	EXPECT_EQ(EAGAIN, raw_get_cq_event(chfd,
					   RDMACHAN_GET_CQ_EVENT_NONBLOCK,
					   &ev));
	ASSERT_EQ(0, fcntl(chfd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(EAGAIN, raw_get_cq_event(chfd, 0, &ev));
	EXPECT_EQ(EINVAL, raw_get_cq_event(chfd, 2, &ev));
	ev.size = 8;
	EXPECT_EQ(-1, ioctl(chfd, RDMACHAN_IOC_GET_CQ_EVENT, &ev));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(chfd, RDMACHAN_IOC_GET_CQ_EVENT, NULL));
	EXPECT_EQ(EFAULT, errno);

	pfd.fd = chfd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 50));

	/* only GET_CQ_EVENT works on a channel, and only there */
	*(__u32 *)buf = 24;
	EXPECT_EQ(-1, ioctl(chfd, RDMACHAN_IOC_GET_INFO, buf));
	EXPECT_EQ(ENOTTY, errno);
	*(__u32 *)buf = sizeof(ev);
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_CQ_EVENT, buf));
	EXPECT_EQ(ENOTTY, errno);
	close(chfd);
	EXPECT_EQ(channels, rdmachan_counter("comp_channels"));
}

/* Either the channel or the CQ may go first. */
TEST_F(verbs, comp_channel_and_cq_in_either_order)
{
	struct rdmachan_wc wc[1];
	__u32 cq1 = 0, cq2 = 0;
	int ch1 = -1, ch2 = -1;

	ASSERT_EQ(0, raw_create_channel(self->fd, &ch1));
	ASSERT_EQ(0, raw_create_channel(self->fd, &ch2));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 4, ch1, 0, &cq1));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 4, ch2, 0, &cq2));
	EXPECT_EQ(0, raw_notify_cq(self->fd, cq1, 0));
	close(ch1);
	EXPECT_EQ(0, raw_notify_cq(self->fd, cq1, 0));
	EXPECT_EQ(0, raw_poll_cq(self->fd, cq1, wc, 1));
	EXPECT_EQ(0, raw_destroy(self->fd, cq1));
	EXPECT_EQ(0, raw_destroy(self->fd, cq2));
	close(ch2);
}

/* A channel of another process is refused. */
TEST_F(verbs, comp_channel_of_another_process)
{
	int chfd = -1, status;
	pid_t pid;

	ASSERT_EQ(0, raw_create_channel(self->fd, &chfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open("/dev/rdmachan", O_RDWR);
		struct rdmachan_get_cq_event ev;
		__u32 ctx, cq;

		ctx = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
		if (!ctx)
			_exit(10);
		if (raw_create_cq(fd, ctx, 4, chfd, 0, &cq) != EACCES)
			_exit(11);
		if (raw_get_cq_event(chfd, RDMACHAN_GET_CQ_EVENT_NONBLOCK,
				     &ev) != EACCES)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(chfd);
}

/* Index of a RoCE v2 GID of the test address on port 1, or -1. */
static int roce_gid_index(int fd, __u32 ctx, __u8 *gid)
{
	struct rdmachan_query_gid q = {
		.size = sizeof(q), .handle = ctx, .port_num = 1,
	};
	const char *addr = getenv("RDMACHAN_ADDR");
	struct in_addr in;
	unsigned int i;

	inet_pton(AF_INET, addr ? addr : "10.77.0.1", &in);
	for (i = 0; i < 16; i++) {
		q.index = i;
		if (ioctl(fd, RDMACHAN_IOC_QUERY_GID, &q))
			continue;
		if (q.out_gid_type == RDMACHAN_GID_TYPE_ROCE_V2 &&
		    !memcmp(q.out_gid + 12, &in, 4)) {
			memcpy(gid, q.out_gid, 16);
			return (int)i;
		}
	}
	return -1;
}

static void ah_to_self(int fd, __u32 ctx, struct rdmachan_ah_attr *ah)
{
	int index;

	memset(ah, 0, sizeof(*ah));
	index = roce_gid_index(fd, ctx, ah->dgid);
	ah->sgid_index = index < 0 ? 0 : index;
	ah->is_global = 1;
	ah->hop_limit = 64;
	ah->port_num = 1;
}

/* RESET to RTS for an RC QP talking to @dest_qpn through @ah. */
static int rc_connect(int fd, __u32 qp, __u32 dest_qpn,
		      const struct rdmachan_ah_attr *ah)
{
	struct rdmachan_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	ret = raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, &a);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0x123;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr = *ah;
	ret = raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, &a);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0x123;
	a.max_rd_atomic = 4;
	return raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, &a);
}

static __maybe_unused int qp_to_error(int fd, __u32 qp)
{
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return raw_modify_qp(fd, qp, IBV_QP_STATE, &a);
}

/*
 * Two RC QPs of one file connected to each other through rxe, as
 * ibv_rc_pingpong connects its QPs, on one CQ with a channel.
 */
FIXTURE(rc) {
	int fd;
	int chfd;
	__u32 ctx, pd, cq, qp[2], qpn[2];
	struct rdmachan_qp_cap cap;
	char *buf;
	struct raw_mr mr;
	long objects;
};

FIXTURE_SETUP(rc)
{
	struct raw_qp_init init = { .qp_type = IBV_QPT_RC, .max_inline = 64 };
	struct rdmachan_ah_attr ah;
	int i;

	self->objects = verbs_objects();
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	ASSERT_EQ(0, raw_create_channel(self->fd, &self->chfd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 64, self->chfd, 0xc0,
				   &self->cq));
	self->buf = mmap(NULL, 4 * BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, self->buf, 4 * BUF_SIZE,
				ALL_ACCESS | IBV_ACCESS_REMOTE_ATOMIC,
				&self->mr));
	init.pd = self->pd;
	init.send_cq = self->cq;
	init.recv_cq = self->cq;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, raw_create_qp(self->fd, &init, &self->qp[i],
					   &self->qpn[i], &self->cap));
	ah_to_self(self->fd, self->ctx, &ah);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rc_connect(self->fd, self->qp[i], self->qpn[!i],
					&ah));
}

FIXTURE_TEARDOWN(rc)
{
	close(self->fd);
	close(self->chfd);
	munmap(self->buf, 4 * BUF_SIZE);
	EXPECT_EQ(self->objects, verbs_objects());
}

static struct rdmachan_send_wr send_wr(__u32 opcode, __u64 wr_id)
{
	struct rdmachan_send_wr wr = {
		.wr_id = wr_id, .opcode = opcode, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};

	return wr;
}

static void check_rts_attr(struct __test_metadata *_metadata,
			   const struct rdmachan_qp_attr *a, __u32 dest_qpn)
{
	EXPECT_EQ(IBV_QPS_RTS, a->qp_state);
	EXPECT_EQ(dest_qpn, a->dest_qp_num);
	EXPECT_EQ(0x123, a->sq_psn);
	EXPECT_EQ(0x123, a->rq_psn);
	EXPECT_EQ(IBV_MTU_1024, a->path_mtu);
	EXPECT_EQ(14, a->timeout);
	EXPECT_EQ(7, a->retry_cnt);
	EXPECT_EQ(1, a->port_num);
	EXPECT_EQ(1, a->ah_attr.is_global);
	EXPECT_EQ(1, a->ah_attr.port_num);
	EXPECT_LE(16, a->cap.max_send_wr);
	EXPECT_LE(2, a->cap.max_recv_sge);
}

TEST_F(rc, query_reports_what_modify_set)
{
	static struct rdmachan_qp_attr a;

	ASSERT_EQ(0, raw_query_qp(self->fd, self->qp[0], &a));
	check_rts_attr(_metadata, &a, self->qpn[1]);
	EXPECT_LE(64, self->cap.max_inline_data);
}

TEST_F(rc, send_write_read_atomic_with_data_checked)
{
	char *src = self->buf, *dst = self->buf + BUF_SIZE;
	struct rdmachan_send_wr wr;
	struct rdmachan_wc wc[4];
	__u64 *counter = (__u64 *)(self->buf + 3 * BUF_SIZE);
	__u64 *old = counter + 1;
	int i;

	for (i = 0; i < 1000; i++)
		src[i] = (char)(i * 7 + 3);
	memset(dst, 0, BUF_SIZE);

	/* SEND with immediate */
	ASSERT_EQ(0, raw_post_recv1(self->fd, self->qp[1], 11, dst, 1000,
				    self->mr.lkey));
	wr = send_wr(IBV_WR_SEND_WITH_IMM, 12);
	wr.imm_data = htonl(0xabcd);
	ASSERT_EQ(0, raw_post_send1(self->fd, self->qp[0], &wr, src, 1000,
				    self->mr.lkey));
	ASSERT_EQ(2, raw_poll_n(self->fd, self->cq, wc, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		if (wc[i].wr_id == 11) {
			EXPECT_EQ(IBV_WC_RECV, wc[i].opcode);
			EXPECT_EQ(1000, wc[i].byte_len);
			EXPECT_EQ(self->qpn[1], wc[i].qp_num);
			EXPECT_EQ(htonl(0xabcd), wc[i].imm_data);
			EXPECT_EQ(IBV_WC_WITH_IMM,
				  wc[i].wc_flags & IBV_WC_WITH_IMM);
		} else {
			EXPECT_EQ(12, wc[i].wr_id);
			EXPECT_EQ(IBV_WC_SEND, wc[i].opcode);
			EXPECT_EQ(self->qpn[0], wc[i].qp_num);
		}
	}
	EXPECT_EQ(0, memcmp(src, dst, 1000));

	/* RDMA WRITE into the other half of the buffer */
	memset(dst, 0, BUF_SIZE);
	wr = send_wr(IBV_WR_RDMA_WRITE, 13);
	wr.remote_addr = (uintptr_t)dst + 100;
	wr.rkey = self->mr.rkey;
	ASSERT_EQ(0, raw_post_send1(self->fd, self->qp[0], &wr, src, 900,
				    self->mr.lkey));
	ASSERT_EQ(1, raw_poll_n(self->fd, self->cq, wc, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(IBV_WC_RDMA_WRITE, wc[0].opcode);
	EXPECT_EQ(0, memcmp(src, dst + 100, 900));
	EXPECT_EQ(0, dst[99]);

	/* RDMA READ it back elsewhere */
	wr = send_wr(IBV_WR_RDMA_READ, 14);
	wr.remote_addr = (uintptr_t)dst + 100;
	wr.rkey = self->mr.rkey;
	ASSERT_EQ(0, raw_post_send1(self->fd, self->qp[1], &wr,
				    self->buf + 2 * BUF_SIZE, 900,
				    self->mr.lkey));
	ASSERT_EQ(1, raw_poll_n(self->fd, self->cq, wc, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(IBV_WC_RDMA_READ, wc[0].opcode);
	EXPECT_EQ(0, memcmp(src, self->buf + 2 * BUF_SIZE, 900));

	/* RDMA WRITE with immediate consumes a receive */
	ASSERT_EQ(0, raw_post_recv1(self->fd, self->qp[1], 15, dst, 0,
				    self->mr.lkey));
	wr = send_wr(IBV_WR_RDMA_WRITE_WITH_IMM, 16);
	wr.remote_addr = (uintptr_t)dst;
	wr.rkey = self->mr.rkey;
	wr.imm_data = htonl(77);
	ASSERT_EQ(0, raw_post_send1(self->fd, self->qp[0], &wr, src, 10,
				    self->mr.lkey));
	ASSERT_EQ(2, raw_poll_n(self->fd, self->cq, wc, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status);
		if (wc[i].wr_id == 15) {
			EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc[i].opcode);
			EXPECT_EQ(htonl(77), wc[i].imm_data);
		}
	}
	EXPECT_EQ(0, memcmp(src, dst, 10));

	/* fetch and add */
	*counter = 40;
	wr = send_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 17);
	wr.remote_addr = (uintptr_t)counter;
	wr.rkey = self->mr.rkey;
	wr.compare_add = 2;
	ASSERT_EQ(0, raw_post_send1(self->fd, self->qp[0], &wr, old, 8,
				    self->mr.lkey));
	ASSERT_EQ(1, raw_poll_n(self->fd, self->cq, wc, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(IBV_WC_FETCH_ADD, wc[0].opcode);
	EXPECT_EQ(40, *old);
	EXPECT_EQ(42, *counter);
}

/* The payload is taken at post time, from memory that is no MR at all. */
TEST_F(rc, inline_send_copies_at_post)
{
	char *dst = self->buf + BUF_SIZE;
	struct rdmachan_send_wr wr = send_wr(IBV_WR_SEND, 1);
	struct rdmachan_wc wc[2];
	char payload[64];

	memset(payload, 'a', sizeof(payload));
	ASSERT_EQ(0, raw_post_recv1(self->fd, self->qp[1], 2, dst, 64,
				    self->mr.lkey));
	wr.send_flags |= IBV_SEND_INLINE;
	ASSERT_EQ(0, raw_post_send1(self->fd, self->qp[0], &wr, payload, 64,
				    0));
	memset(payload, 'b', sizeof(payload));
	ASSERT_EQ(2, raw_poll_n(self->fd, self->cq, wc, 2));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(IBV_WC_SUCCESS, wc[1].status);
	memset(payload, 'a', sizeof(payload));
	EXPECT_EQ(0, memcmp(payload, dst, 64));

	/* more than the QP's inline limit */
	EXPECT_EQ(EINVAL, raw_post_send1(self->fd, self->qp[0], &wr, payload,
					 self->cap.max_inline_data + 1, 0));
	/* a payload the kernel cannot read */
	EXPECT_EQ(EFAULT, raw_post_send1(self->fd, self->qp[0], &wr, NULL, 8,
					 0));
	/* the device never writes inline data */
	wr.opcode = IBV_WR_RDMA_READ;
	EXPECT_EQ(EINVAL, raw_post_send1(self->fd, self->qp[0], &wr, payload,
					 8, 0));
	EXPECT_EQ(0, raw_poll_cq(self->fd, self->cq, wc, 2));
}

/*
 * The IB device goes away under live objects: the module tears them down
 * at once (or `rdma link delete` would hang), the handles stay, calls on
 * them fail with ENODEV and destroy still works.
 */
TEST(objects_after_device_removal)
{
	long objects = verbs_objects();
	struct rdmachan_wc wc[2];
	__u32 ctx, pd = 0, cq = 0, cq2 = 0;
	struct raw_mr mr;
	char *buf;
	int fd, chfd = -1;

	ASSERT_EQ(0, rxe_restore());
	fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd);
	buf = malloc(BUF_SIZE);
	ASSERT_NE(NULL, buf);
	ctx = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, ctx);
	ASSERT_EQ(0, raw_alloc_pd(fd, ctx, &pd));
	ASSERT_EQ(0, raw_reg_mr(fd, pd, buf, BUF_SIZE, LOCAL_WRITE, &mr));
	ASSERT_EQ(0, raw_create_channel(fd, &chfd));
	ASSERT_EQ(0, raw_create_cq(fd, ctx, 8, chfd, 0, &cq));
	ASSERT_EQ(0, raw_create_cq(fd, ctx, 8, RDMACHAN_NO_FD, 0, &cq2));
	ASSERT_EQ(0, raw_notify_cq(fd, cq, 0));

	ASSERT_EQ(0, run_cmd("rdma link delete %s", RDMACHAN_TEST_DEVICE));
	EXPECT_EQ(-ENODEV, raw_poll_cq(fd, cq, wc, 2));
	EXPECT_EQ(ENODEV, raw_notify_cq(fd, cq, 0));
	EXPECT_EQ(ENODEV, raw_reg_mr(fd, pd, buf, BUF_SIZE, 0, &mr));
	EXPECT_EQ(ENODEV, raw_alloc_pd(fd, ctx, &pd));
	EXPECT_EQ(ENODEV, raw_create_cq(fd, ctx, 8, RDMACHAN_NO_FD, 0, &cq));
	EXPECT_EQ(0, raw_ack_cq(fd, cq, 0));
	/* the IB objects are gone; the handles go with destroy or close */
	EXPECT_EQ(0, raw_destroy(fd, cq));
	EXPECT_EQ(0, raw_destroy(fd, mr.handle));
	EXPECT_EQ(0, raw_destroy(fd, pd));
	EXPECT_EQ(ENOENT, raw_destroy(fd, pd));
	close(fd);
	close(chfd);
	free(buf);
	EXPECT_EQ(objects, verbs_objects());
	ASSERT_EQ(0, rxe_restore());
}

TEST_HARNESS_MAIN
