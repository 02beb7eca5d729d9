// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The memory cgroup: what a process's calls leave in the kernel (CM ids,
 * their queued events, handles, verbs objects) is charged to its cgroup.
 * A process in a cgroup whose memory.max leaves it 4 MiB makes CM ids,
 * each with an address resolution whose event stays queued, until a call
 * fails: it fails with ENOMEM (not the OOM killer, whose report would
 * fail the run), PDs soon fail too, and after destroys the process can
 * make an id again. When it exits, the cgroup's usage falls back to where
 * it started.
 */
#include <signal.h>
#include <sys/wait.h>

#include "rdmachan_cm_raw.h"
#include "rdmachan_verbs_raw.h"
#include "cgroup_test.h"
#include "kselftest_harness.h"

#define CG		CG_ROOT "/rdmachan-memcg-test"
#define ROOM		(4L << 20)
#define MAX_IDS		200000

struct report {
	long base;		/* memory.current before the ids */
	int ids;		/* ids made */
	int id_err;		/* errno of the call that failed */
	int pd_err;		/* errno of a PD asked for then */
	int again;		/* an id after ten destroys: 0 or errno */
};

/* Stack the child may use later, faulted in before the limit is set. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char room[256 * 1024];

	memset((char *)room, 0, sizeof(room));
}

/*
 * The process in the cgroup: fills in @r and exits without cleaning up.
 * At the limit nothing may fault in a page or open a file (both are
 * charged, and a failed charge there calls the OOM killer): room is made
 * by destroys and the limit lifted before the report goes out.
 */
static void fill_cgroup(int out)
{
	struct report r = { 0 };
	__u32 ctx, pd, *ids = calloc(MAX_IDS, sizeof(*ids));
	char max[32];
	int fd, i, ret = 0;

	if (!ids || cg_join(CG))
		_exit(1);
	fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ctx = fd < 0 ? 0 : rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	if (!ctx)
		_exit(2);
	/* touch the array now: its pages are the process's, not the test's */
	memset(ids, 0, MAX_IDS * sizeof(*ids));
	touch_stack();
	r.base = cg_read_long(CG, "memory.current");
	snprintf(max, sizeof(max), "%ld", r.base + ROOM);
	if (cg_write(CG, "memory.max", max))
		_exit(3);
	for (i = 0; i < MAX_IDS; i++) {
		ret = raw_create_id(fd, RDMA_PS_TCP, i, &ids[i]);
		if (ret)
			break;
		r.ids++;
		ret = raw_resolve_addr(fd, ids[i], 7000);
		if (ret)
			break;
	}
	r.id_err = ret;
	/*
	 * Objects too, until one fails: charges are counted in bytes, so a
	 * smaller object may still fit in what the failed id left.
	 */
	for (i = 0; i < 10000; i++) {
		r.pd_err = raw_alloc_pd(fd, ctx, &pd);
		if (r.pd_err)
			break;
	}
	/* a quarter of the ids go: room for an id, a file and a pipe page */
	for (i = 0; i < r.ids / 4; i++)
		raw_destroy(fd, ids[i]);
	r.again = raw_create_id(fd, RDMA_PS_TCP, 0, &ids[0]);
	if (cg_write(CG, "memory.max", "max"))
		_exit(4);
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(5);
	_exit(0);
}

FIXTURE(memcg) {
	int unused;
};

FIXTURE_SETUP(memcg)
{
	ASSERT_EQ(0, cg_create(CG));
}

FIXTURE_TEARDOWN(memcg)
{
	EXPECT_EQ(0, cg_destroy(CG));
}

TEST_F_TIMEOUT(memcg, calls_fail_with_enomem_at_the_limit, 600)
{
	struct report r = { 0 };
	int pfd[2], status, i;
	long now = -1;
	pid_t pid;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pfd[0]);
		fill_cgroup(pfd[1]);
	}
	close(pfd[1]);
	ASSERT_EQ(sizeof(r), read(pfd[0], &r, sizeof(r)));
	close(pfd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* not killed, by the OOM killer or anything else */
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	TH_LOG("%d ids with queued events in %ld KiB", r.ids, ROOM >> 10);
	EXPECT_EQ(ENOMEM, r.id_err);
	EXPECT_LT(1000, r.ids);
	EXPECT_GT(MAX_IDS, r.ids);
	EXPECT_EQ(ENOMEM, r.pd_err);
	EXPECT_EQ(0, r.again);
	/* everything it had is freed at its exit (RCU frees come late) */
	for (i = 0; i < 200; i++) {
		now = cg_read_long(CG, "memory.current");
		if (now <= r.base + (256L << 10))
			break;
		usleep(50000);
	}
	EXPECT_GE(r.base + (256L << 10), now);
}

TEST_HARNESS_MAIN
