// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RDMA cgroup controller (Documentation/admin-guide/cgroup-v2.rst,
 * "RDMA"): "hca_handle: Maximum number of HCA Handles", "hca_object:
 * Maximum number of HCA Objects". A device context counts as a handle
 * and each verbs object (PD, CQ, QP, MR, ...) as an object of the
 * creator's cgroup until it is destroyed, its process exits or the device
 * goes away; at the limit the call fails with EAGAIN, as ib_uverbs fails
 * it. The same test runs on the stock stack (make check-stock).
 */
#include <signal.h>

#include "verbs_test.h"
#include "rdmachan_test.h"
#include "test_device.h"
#include "cgroup_test.h"
#include "kselftest_harness.h"

#define CG	CG_ROOT "/rdmachan-rdma-test"

/* hca_handle or hca_object in use on rxe0 by the test cgroup. */
static long rdma_current(const char *key)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s ", RDMACHAN_TEST_DEVICE);
	return cg_read_key(CG, "rdma.current", prefix, key);
}

/* The test cgroup's rdma.max on the test device. */
static int rdma_max(const char *handles, const char *objects)
{
	char val[96];

	snprintf(val, sizeof(val), "%s hca_handle=%s hca_object=%s",
		 RDMACHAN_TEST_DEVICE, handles, objects);
	return cg_write(CG, "rdma.max", val);
}

/* The two counts are @handles and @objects within a few seconds. */
static int rdma_current_is(long handles, long objects)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (rdma_current("hca_handle=") == handles &&
		    rdma_current("hca_object=") == objects)
			return 1;
		usleep(50000);
	}
	fprintf(stderr, "# rdma.current: hca_handle=%ld hca_object=%ld, want %ld %ld\n",
		rdma_current("hca_handle="), rdma_current("hca_object="),
		handles, objects);
	return 0;
}

FIXTURE(rdmacg) {
	int unused;
};

FIXTURE_SETUP(rdmacg)
{
	ASSERT_EQ(0, cg_create(CG));
	ASSERT_EQ(0, rdma_max("2", "6"));
}

FIXTURE_TEARDOWN(rdmacg)
{
	/*
	 * 6.1 frees an unused resource pool when its limits are back to
	 * "max", but not when its cgroup goes: one left behind is freed
	 * with the device later, after its cgroup, and corrupts a list.
	 */
	rdma_max("max", "max");
	EXPECT_EQ(0, cg_destroy(CG));
	EXPECT_EQ(0, rxe_restore());
}

TEST_F(rdmacg, limits_handles_and_objects)
{
	struct ibv_context *ctx[3];
	struct ibv_pd *pd[7];
	struct ibv_cq *cq;
	int i;

	ASSERT_EQ(0, cg_join(CG));
	ASSERT_TRUE(rdma_current_is(0, 0));
	ctx[0] = open_test_device();
	ASSERT_NE(NULL, ctx[0]);
	ctx[1] = open_test_device();
	ASSERT_NE(NULL, ctx[1]);
	/*
	 * ib_uverbs' GET_CONTEXT method (6.1.192) frees a context whose
	 * charge failed without its restrack entry, leaking the opener's
	 * task_struct: a third context is asked only of rdmachan's.
	 */
	if (!cm_verbs_are_uverbs()) {
		ctx[2] = open_test_device();
		EXPECT_EQ(NULL, ctx[2]);
		EXPECT_EQ(EAGAIN, errno);
	}
	EXPECT_TRUE(rdma_current_is(2, 0));
	for (i = 0; i < 6; i++) {
		pd[i] = ibv_alloc_pd(ctx[0]);
		ASSERT_NE(NULL, pd[i]);
	}
	pd[6] = ibv_alloc_pd(ctx[1]);
	EXPECT_EQ(NULL, pd[6]);
	EXPECT_EQ(EAGAIN, errno);
	cq = ibv_create_cq(ctx[0], 4, NULL, NULL, 0);
	EXPECT_EQ(NULL, cq);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_TRUE(rdma_current_is(2, 6));
	/* a destroy gives the object back */
	EXPECT_EQ(0, ibv_dealloc_pd(pd[5]));
	EXPECT_TRUE(rdma_current_is(2, 5));
	cq = ibv_create_cq(ctx[0], 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_TRUE(rdma_current_is(2, 6));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, ibv_dealloc_pd(pd[i]));
	EXPECT_EQ(0, ibv_close_device(ctx[1]));
	EXPECT_TRUE(rdma_current_is(1, 0));
	EXPECT_EQ(0, ibv_close_device(ctx[0]));
	EXPECT_TRUE(rdma_current_is(0, 0));
}

/*
 * A process in the cgroup with a context and three PDs; it tells @ready
 * and waits to be killed. Its pid, or -1.
 */
static pid_t holder(void)
{
	int pfd[2];
	char c;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct ibv_context *ctx;
		int i;

		close(pfd[0]);
		if (cg_join(CG))
			_exit(1);
		ctx = open_test_device();
		if (!ctx)
			_exit(2);
		for (i = 0; i < 3; i++)
			if (!ibv_alloc_pd(ctx))
				_exit(3);
		if (write(pfd[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(pfd[0]);
	return pid;
}

TEST_F(rdmacg, kill_9_gives_everything_back)
{
	pid_t pid = holder();

	ASSERT_LT(0, pid);
	EXPECT_TRUE(rdma_current_is(1, 3));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(rdma_current_is(0, 0));
}

/* "the device goes away": its charges go with it, and a new one charges */
TEST_F(rdmacg, device_removal_gives_everything_back)
{
	pid_t pid;

	if (cm_verbs_are_uverbs())
		SKIP(return, "ib_uverbs waits for rxe's contexts to close");
	pid = holder();

	ASSERT_LT(0, pid);
	EXPECT_TRUE(rdma_current_is(1, 3));
	EXPECT_EQ(0, run_cmd("rdma link delete %s", RDMACHAN_TEST_DEVICE));
	/* no rxe0 line any more: the device's pool is gone */
	EXPECT_TRUE(rdma_current_is(0, 0));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, rxe_restore());
	ASSERT_EQ(0, rdma_max("2", "6"));
	pid = holder();
	ASSERT_LT(0, pid);
	EXPECT_TRUE(rdma_current_is(1, 3));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(rdma_current_is(0, 0));
}

TEST_HARNESS_MAIN
