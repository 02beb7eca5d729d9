// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxe0 deleted while a process has a device context of its own and a
 * listening CM id (with the CM's context behind it): DEVICE_FATAL comes
 * on both contexts' async_fd, DEVICE_REMOVAL on the id; the process then
 * closes everything, the device goes, and a new rxe0 works.
 *
 * Stock ib_uverbs sends DEVICE_FATAL only for drivers that can
 * disassociate their contexts, which rxe cannot: it waits for the
 * process to close them instead, so on stock no DEVICE_FATAL comes (and
 * the user runs in a child process, as in verbs_removal_test).
 */
#include <poll.h>
#include <sys/wait.h>

#include "verbs_test.h"
#include "rdmachan_test.h"
#include "test_device.h"
#include "kselftest_harness.h"

#define TIMEOUT_S	180

/*
 * Takes @ctx's events until DEVICE_FATAL (port events may come first):
 * 1 when it came within @ms, 0 when not, -1 on another event or error.
 */
static int take_device_fatal(struct ibv_context *ctx, int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	long end = cm_now_ms() + ms;

	for (;;) {
		long left = end - cm_now_ms();

		if (poll(&pfd, 1, left > 0 ? (int)left : 0) <= 0)
			return 0;
		if (ibv_get_async_event(ctx, &ev)) {
			fprintf(stderr, "# ibv_get_async_event: %s\n",
				strerror(errno));
			return -1;
		}
		fprintf(stderr, "# %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			return ev.element.port_num == 0 ? 1 : -1;
		if (ev.event_type != IBV_EVENT_PORT_ERR &&
		    ev.event_type != IBV_EVENT_GID_CHANGE)
			return -1;
	}
}

/*
 * The process that has the contexts: one byte on @ready once they are
 * set up, then DEVICE_REMOVAL on the listener and DEVICE_FATAL on both
 * contexts. 0, or the step that failed.
 */
static int removal_user(int ready)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_context *ctx = open_test_device();
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listen;
	bool uverbs = cm_verbs_are_uverbs();
	int want = uverbs ? 0 : 1;

	if (!ch || !ctx)
		return 10;
	if (cm_listen(ch, RDMA_PS_TCP, 4, &listen) || !listen->verbs ||
	    listen->verbs->async_fd < 0)
		return 11;
	if (write(ready, "r", 1) != 1)
		return 12;

	ev = cm_expect(ch, RDMA_CM_EVENT_DEVICE_REMOVAL, listen,
		       5 * CM_TIMEOUT_MS);
	if (!ev)
		return 13;
	/* rdmachan queues DEVICE_FATAL before the ids hear of the removal */
	if (take_device_fatal(listen->verbs, uverbs ? CM_QUIET_MS :
			      CM_TIMEOUT_MS) != want)
		return 14;
	if (take_device_fatal(ctx, uverbs ? CM_QUIET_MS : CM_TIMEOUT_MS) !=
	    want)
		return 15;
	rdma_ack_cm_event(ev);
	if (rdma_destroy_id(listen))
		return 16;
	rdma_destroy_event_channel(ch);
	if (ibv_close_device(ctx))
		return 17;
	return 0;
}

FIXTURE(removal) {
	int unused;
};

FIXTURE_SETUP(removal)
{
	ASSERT_EQ(0, rxe_restore());
}

FIXTURE_TEARDOWN(removal)
{
	EXPECT_EQ(0, rxe_restore());
}

TEST_F_TIMEOUT(removal, device_fatal_and_device_removal, TIMEOUT_S)
{
	int status, del_status = -1;
	struct ibv_async_event ev;
	struct ibv_context *ctx;

	CM_SKIP_IF_UVERBS_REMOVED_FIRST();
	ASSERT_EQ(0, vt_remove_device_under(removal_user, &status,
					    &del_status));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("user status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_TRUE(WIFEXITED(del_status));
	ASSERT_EQ(0, WEXITSTATUS(del_status));

	/* a new rxe0 has a working async_fd, with nothing on it */
	ASSERT_EQ(0, rxe_restore());
	ctx = open_test_device();
	ASSERT_NE(NULL, ctx);
	ASSERT_LE(0, ctx->async_fd);
	ASSERT_EQ(0, fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, ibv_get_async_event(ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, ibv_close_device(ctx));
}

TEST_HARNESS_MAIN
