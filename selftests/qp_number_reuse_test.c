// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A bound QP's number, handed to another process's QP, is never sent
 * (issue 42). This process binds a QP made through uverbs to a CM id and
 * destroys it; the device then gives that very number to a QP of
 * qp_reuse_victim, run as nobody, which connects with it. The id's
 * connect must fail with ENOENT and send nothing: a REQ naming the
 * number would make the IB CM take the victim's connection for a stale
 * one and disconnect it. The victim's connection stays intact and
 * carries data both ways.
 *
 * rxe hands out QP numbers cyclically over its whole table, so a number
 * comes back only after the table went round once. Debian's rxe has 2^20
 * numbers: a million QPs made and destroyed, about five minutes in the
 * TCG guest, too long for make check, where this program skips. The
 * debug kernel's rxe (vm/debug-kernel-patches) takes qp_index_max, which
 * this program sets to about a thousand for a fresh rxe0: make
 * check-debug runs it, and the turn takes about 35 s there (35 ms a QP
 * under KASAN and lockdep). The turn uses the module's own
 * QPs (kernel-owned mode's CREATE_QP and DESTROY), the quickest way to
 * make and destroy a QP.
 */
#include <sys/wait.h>
#include <time.h>

#include "rdmachan_cm_raw.h"
#include "rdmachan_verbs_raw.h"
#include "qp_owner.h"
#include "test_device.h"
#include "kselftest_harness.h"

/* The test kernel's rxe parameter, and the table this program sets */
#define QP_INDEX_MAX	"/sys/module/rdma_rxe/parameters/qp_index_max"
#define SMALL_TABLE	1023
/* more than one turn of the small table */
#define MAX_ROUNDS	(2 * SMALL_TABLE)
#define TIMEOUT_S	900
/* how long nothing must come on the CM file */
#define QUIET_MS	500

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int bind_qp(int fd, __u32 id, int uverbs_fd, __u32 qpn)
{
	struct rdmachan_bind_user_qp cmd = {
		.size = sizeof(cmd), .handle = id,
		.uverbs_fd = uverbs_fd, .qp_num = qpn,
	};

	return ioctl(fd, RDMACHAN_IOC_BIND_USER_QP, &cmd) ? errno : 0;
}

/*
 * Kernel-owned QPs made and destroyed until the device has just handed out
 * @qpn - 1: its next QP gets @qpn, which must be free. The rounds it
 * took, or -1.
 */
static long turn_to(int fd, struct raw_qp_init *init, __u32 qpn)
{
	__u32 qp, got, last = 0, highest = 0;
	long i;

	for (i = 1; i <= MAX_ROUNDS; i++) {
		if (raw_create_qp(fd, init, &qp, &got, NULL) ||
		    raw_destroy(fd, qp))
			return -1;
		if (got == qpn - 1)
			return i;
		if (got == qpn) {
			fprintf(stderr, "# QP %u came back before QP %u\n",
				qpn, qpn - 1);
			return -1;
		}
		if (got < last)
			fprintf(stderr, "# round %ld: QP %u after QP %u\n", i,
				got, last);
		last = got;
		if (got > highest)
			highest = got;
	}
	fprintf(stderr, "# QP %u not seen in %d rounds (highest %u, last %u)\n",
		qpn - 1, MAX_ROUNDS, highest, last);
	return -1;
}

/* Writes @value to the test kernel's qp_index_max: 0 or -1. */
static int set_qp_index_max(const char *value)
{
	FILE *f = fopen(QP_INDEX_MAX, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(value, f) < 0 ? -1 : 0;
	return fclose(f) || ret ? -1 : 0;
}

/* rxe0 deleted and added again, so that its QP table is what is set. */
static int rxe_renew(void)
{
	if (run_cmd("rdma link delete %s", RDMACHAN_TEST_DEVICE))
		return -1;
	return rxe_restore();
}

/*
 * What the test holds: released before rxe0 is renewed, which waits for
 * every uverbs context on it to close.
 */
FIXTURE(reuse) {
	char saved[32];
	int fd;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	pid_t victim;
	int io[2];
};

FIXTURE_SETUP(reuse)
{
	char value[32];

	self->fd = -1;
	self->io[0] = self->io[1] = -1;
	/* the test skips without it: a skip here would not stop it */
	if (access(QP_INDEX_MAX, F_OK))
		return;
	ASSERT_NE(0, read_line(QP_INDEX_MAX, self->saved,
			       sizeof(self->saved))[0]);
	snprintf(value, sizeof(value), "%d", SMALL_TABLE);
	ASSERT_EQ(0, set_qp_index_max(value));
	ASSERT_EQ(0, rxe_renew());
}

FIXTURE_TEARDOWN(reuse)
{
	int status;

	/* the victim ends when its stdin does */
	if (self->io[0] >= 0)
		close(self->io[0]);
	if (self->io[1] >= 0)
		close(self->io[1]);
	if (self->victim > 0)
		waitpid(self->victim, &status, 0);
	if (self->fd >= 0)
		close(self->fd);
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	if (!self->saved[0])
		return;
	EXPECT_EQ(0, set_qp_index_max(self->saved));
	EXPECT_EQ(0, rxe_renew());
}

TEST_F_TIMEOUT(reuse, reused_number_is_never_sent, TIMEOUT_S)
{
	struct rdmachan_get_info info = { .size = sizeof(info) };
	struct raw_qp_init init = { .qp_type = IBV_QPT_RC, .cm_fd = -1,
				    .max_wr = 1, .max_sge = 1 };
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	char *argv[] = { "qp_reuse_victim", NULL };
	__u32 listen = 0, client = 0, kctx, before, qpn, victim_qpn;
	struct rdmachan_cm_event ev;
	int fd, status;
	struct ibv_qp *qp;
	long t0, rounds;
	FILE *out;
	__u16 port;

	if (!self->saved[0])
		SKIP(return, "Debian's rxe hands a QP number out again only after "
		     "2^20 QPs (minutes here); the debug kernel's rxe has "
		     "qp_index_max for it (make check-debug)");
	fd = self->fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_GET_INFO, &info));
	if (!(info.out_features & RDMACHAN_FEATURE_USER_QP))
		SKIP(return, "the module offers no bypass mode on this kernel");
	self->ctx = open_test_device();
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	attr.send_cq = self->cq;
	attr.recv_cq = self->cq;
	kctx = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, kctx);
	ASSERT_EQ(0, raw_alloc_pd(fd, kctx, &init.pd));
	ASSERT_EQ(0, raw_create_cq(fd, kctx, 4, -1, 0, &init.send_cq));
	init.recv_cq = init.send_cq;

	ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0, &listen));
	ASSERT_EQ(0, raw_listen(fd, listen, 4, &port));
	ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0, &client));
	ASSERT_EQ(0, raw_resolve_addr(fd, client, port));
	ASSERT_EQ(0, raw_expect(fd, client, RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
	ASSERT_EQ(0, raw_id_cmd(fd, RDMACHAN_IOC_RESOLVE_ROUTE, client, 2000));
	ASSERT_EQ(0, raw_expect(fd, client, RDMA_CM_EVENT_ROUTE_RESOLVED,
				NULL));

	/* the number below the bound QP's is free again, so it is seen */
	ASSERT_EQ(0, raw_create_qp(fd, &init, &before, NULL, NULL));
	qp = ibv_create_qp(self->pd, &attr);
	ASSERT_NE(NULL, qp);
	qpn = qp->qp_num;
	ASSERT_EQ(0, bind_qp(fd, client, self->ctx->cmd_fd, qpn));
	ASSERT_EQ(0, ibv_destroy_qp(qp));
	ASSERT_EQ(0, raw_destroy(fd, before));

	t0 = now_ms();
	rounds = turn_to(fd, &init, qpn);
	ASSERT_LT(0, rounds);
	TH_LOG("QP %u is next again after %ld QPs made and destroyed, %ld ms",
	       qpn, rounds, now_ms() - t0);

	self->victim = spawn_as_nobody(argv, self->io);
	ASSERT_LT(0, self->victim);
	out = fdopen(dup(self->io[1]), "r");
	ASSERT_NE(NULL, out);
	ASSERT_EQ(1, fscanf(out, "%u", &victim_qpn));
	fclose(out);
	/* the victim's connection holds the bound QP's old number */
	ASSERT_EQ(qpn, victim_qpn);

	/* "a destroyed QP gives ENOENT, nothing is sent" */
	EXPECT_EQ(ENOENT, raw_connect(fd, RDMACHAN_IOC_CONNECT, client, NULL));
	EXPECT_EQ(ETIMEDOUT, raw_get_event(fd, &ev, QUIET_MS));

	ASSERT_EQ(6, write(self->io[0], "check\n", 6));
	status = intruder_wait(self->victim);
	self->victim = 0;
	ASSERT_TRUE(status >= 0 && WIFEXITED(status));
	/* 0: the victim's QPs in RTS, no CM event, data both ways */
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
