// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rxe0 deleted under a connection whose QPs have receives posted: each id
 * gets DEVICE_REMOVAL, and (issue 5) its QP is in the error state with
 * the receives flushed to its CQ when the event is read, so a program can
 * take its completions back before it destroys everything; the device
 * then goes, and a new rxe0 serves a new connection with QPs.
 *
 * The QPs' user runs in a child process: with the stock stack, deleting
 * an rxe link waits until every process has closed its verbs context on
 * it (rxe cannot disassociate).
 */
#include <sys/wait.h>

#include "verbs_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define K		8
#define MSG		64
#define BUF_LEN		(K * MSG)
#define TIMEOUT_S	180

/* Flushed receives of @e within the test timeout, or -1 on a poll error. */
static int count_flushed(struct vt_end *e)
{
	struct ibv_wc wc[K + 1];
	int n, i, flushed = 0;

	n = vt_poll(e, wc, K, CM_TIMEOUT_MS);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
			flushed++;
	return flushed;
}

/*
 * The QPs' user: a connection, K receives on each side; one byte on @ready
 * when the device can go; then DEVICE_REMOVAL on the three ids (a
 * DISCONNECTED may come first on a connected one), each side's receives
 * flushed, and everything destroyed. 0, or the step that failed.
 */
static int removal_user(int ready)
{
	struct vt_pair p;
	struct vt_end *ends[2] = { &p.c, &p.s };
	int removal[2] = { 0 }, listen_removal = 0, n = 0, i, flushed;
	struct rdma_cm_event *ev;
	long end;

	if (vt_pair_connect_rc(&p, BUF_LEN, VT_BUSY_POLL))
		return 10;
	for (i = 0; i < K; i++)
		if (vt_post_recv(&p.c, i, (size_t)i * MSG, MSG) ||
		    vt_post_recv(&p.s, i, (size_t)i * MSG, MSG))
			return 11;
	if (write(ready, "r", 1) != 1)
		return 12;

	end = cm_now_ms() + 5 * CM_TIMEOUT_MS;
	while (n < 3 && cm_now_ms() < end) {
		struct rdma_event_channel *ch = n & 1 ? p.sch : p.cch;

		/* both channels, in turn */
		if (cm_poll(ch, 100) <= 0) {
			ch = ch == p.cch ? p.sch : p.cch;
			if (cm_poll(ch, 100) <= 0)
				continue;
		}
		if (rdma_get_cm_event(ch, &ev))
			return 13;
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			if (ev->id == p.listen)
				listen_removal++;
			else if (ev->id == p.c.id)
				removal[0]++;
			else if (ev->id == p.s.id)
				removal[1]++;
			else
				return 14;
			n++;
		} else if (ev->event != RDMA_CM_EVENT_DISCONNECTED ||
			   ev->id == p.listen) {
			fprintf(stderr, "# %s (status %d)\n",
				rdma_event_str(ev->event), ev->status);
			return 15;
		}
		rdma_ack_cm_event(ev);
	}
	if (removal[0] != 1 || removal[1] != 1 || listen_removal != 1) {
		fprintf(stderr, "# DEVICE_REMOVAL: client %d, server %d, listener %d\n",
			removal[0], removal[1], listen_removal);
		return 16;
	}
	/*
	 * rdmachan flushes on DEVICE_REMOVAL as on DISCONNECTED. Stock
	 * librdmacm leaves the QPs alone: the receives stay posted until the
	 * process lets go of the device (an rdmachan improvement, issue 5).
	 */
	for (i = 0; i < 2; i++) {
		/* iWARP: the driver flushes on the connection's close, stock too */
		if (VT_STOCK && !cm_on_iwarp()) {
			if (!vt_cq_quiet(ends[i], CM_QUIET_MS))
				return 20 + i;
			continue;
		}
		flushed = count_flushed(ends[i]);
		if (flushed != K) {
			fprintf(stderr, "# %s: %d of %d receives flushed\n",
				i ? "server" : "client", flushed, K);
			return 20 + i;
		}
	}
	if (vt_pair_close(&p))
		return 30;
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

TEST_F_TIMEOUT(removal, receives_flushed_on_device_removal, TIMEOUT_S)
{
	int status, del_status = -1;
	struct ibv_wc wc;
	struct vt_pair p;

	CM_SKIP_IF_UVERBS_REMOVED_FIRST();
	ASSERT_EQ(0, vt_remove_device_under(removal_user, &status,
					    &del_status));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("user status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_TRUE(WIFEXITED(del_status));
	ASSERT_EQ(0, WEXITSTATUS(del_status));

	/* a new rxe0 serves new connections with QPs */
	ASSERT_EQ(0, rxe_restore());
	ASSERT_EQ(0, vt_pair_connect_rc(&p, BUF_LEN, VT_BUSY_POLL));
	vt_fill(p.c.buf, MSG, 1);
	ASSERT_EQ(0, vt_post_recv(&p.s, 1, 0, MSG));
	ASSERT_EQ(0, vt_post_send(&p.c, IBV_WR_SEND, 2, 0, MSG, 0, 0, 0, 0));
	ASSERT_EQ(0, vt_expect_wc(&p.s, &wc, IBV_WC_RECV, 1));
	EXPECT_TRUE(vt_check(p.s.buf, MSG, 1));
	ASSERT_EQ(0, vt_pair_disconnect(&p));
	EXPECT_EQ(0, vt_pair_close(&p));
}

TEST_HARNESS_MAIN
