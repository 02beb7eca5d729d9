// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan's batch extensions (<rdmachan/rdmachan.h>):
 * rdmachan_get_cm_events() takes several CM events in one call and
 * rdmachan_ack_cm_events() acknowledges several, under the rules of
 * rdma_get_cm_event() and rdma_ack_cm_event(): each event goes out once,
 * the kernel counts every one taken until it is acknowledged, and a
 * destroy waits for that. Events come from address resolution of
 * several ids on one channel; the module's debugfs count of live events
 * says when all of them are queued.
 */
#include <fcntl.h>
#include <pthread.h>

#include "cm_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define BATCH_IDS 4

/* Lines of this process's debugfs files that start with "unacked ". */
static int unacked_in_debugfs(void)
{
	char path[256], line[256];
	const char *dir = "/sys/kernel/debug/rdmachan/files";
	int n = 0, found = 0;
	FILE *f;

	for (int seq = 0; seq < 4096; seq++) {
		snprintf(path, sizeof(path), "%s/%d-%d", dir, getpid(), seq);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = 1;
		while (fgets(line, sizeof(line), f))
			n += !strncmp(line, "unacked ", 8);
		fclose(f);
	}
	return found ? n : -1;
}

FIXTURE(batch)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *ids[BATCH_IDS];
};

FIXTURE_SETUP(batch)
{
	cm_watchdog(120);
	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
	for (int i = 0; i < BATCH_IDS; i++)
		ASSERT_EQ(0, rdma_create_id(self->ch, &self->ids[i], &self->ids[i],
					    RDMA_PS_TCP));
}

FIXTURE_TEARDOWN(batch)
{
	for (int i = 0; i < BATCH_IDS; i++)
		if (self->ids[i])
			rdma_destroy_id(self->ids[i]);
	rdma_destroy_event_channel(self->ch);
}

/* Every id's ADDR_RESOLVED queued on the channel, none taken yet. */
static int queue_resolved(struct rdma_cm_id **ids)
{
	struct rdmachan_cm_events_summary sum;
	long deadline = cm_now_ms() + CM_TIMEOUT_MS;

	for (int i = 0; i < BATCH_IDS; i++)
		if (cm_resolve_addr(ids[i], htons(7471)))
			return -1;
	/*
	 * Counted on the channel: the module's cm_events counter counts an
	 * event a moment before it is on the channel's queue.
	 */
	for (;;) {
		if (rdmachan_query_cm_events(ids[0]->channel, NULL, NULL, 0,
					     &sum) < 0)
			return -1;
		if (sum.queued == BATCH_IDS)
			return 0;
		if (cm_now_ms() > deadline)
			return -1;
		cm_sleep_ms(10);
	}
}

/* Each of @ids has exactly one ADDR_RESOLVED among @events. */
static bool one_resolved_each(struct rdma_cm_id **ids,
			      struct rdma_cm_event **events, int n)
{
	int seen[BATCH_IDS] = {};

	for (int e = 0; e < n; e++) {
		if (events[e]->event != RDMA_CM_EVENT_ADDR_RESOLVED ||
		    events[e]->status)
			return false;
		for (int i = 0; i < BATCH_IDS; i++)
			seen[i] += events[e]->id == ids[i];
	}
	for (int i = 0; i < BATCH_IDS; i++)
		if (seen[i] != 1)
			return false;
	return true;
}

TEST_F(batch, one_call_takes_every_queued_event)
{
	struct rdma_cm_event *events[2 * BATCH_IDS];

	ASSERT_EQ(0, queue_resolved(self->ids));
	ASSERT_EQ(BATCH_IDS, rdmachan_get_cm_events(self->ch, events, 2 * BATCH_IDS));
	EXPECT_TRUE(one_resolved_each(self->ids, events, BATCH_IDS));
	/* taken is not acknowledged: the kernel still counts each */
	EXPECT_EQ(BATCH_IDS, unacked_in_debugfs());
	EXPECT_EQ(BATCH_IDS, rdmachan_counter("cm_events"));
	ASSERT_EQ(0, rdmachan_ack_cm_events(events, BATCH_IDS));
	/* the acks reach the kernel with the destroys, which wait for them */
	for (int i = 0; i < BATCH_IDS; i++) {
		EXPECT_EQ(0, rdma_destroy_id(self->ids[i]));
		self->ids[i] = NULL;
	}
	EXPECT_EQ(0, rdmachan_counter("cm_events"));
	EXPECT_EQ(0, unacked_in_debugfs());
}

TEST_F(batch, never_more_than_max)
{
	struct rdma_cm_event *events[BATCH_IDS + 1];
	int n;

	ASSERT_EQ(0, queue_resolved(self->ids));
	events[3] = NULL;
	ASSERT_EQ(3, rdmachan_get_cm_events(self->ch, events, 3));
	EXPECT_EQ(NULL, events[3]);
	n = rdmachan_get_cm_events(self->ch, events + 3, 2);
	ASSERT_EQ(1, n);
	EXPECT_TRUE(one_resolved_each(self->ids, events, BATCH_IDS));
	EXPECT_EQ(0, rdmachan_ack_cm_events(events, BATCH_IDS));
}

TEST_F(batch, mixes_with_the_single_event_calls)
{
	struct rdma_cm_event *events[BATCH_IDS];

	ASSERT_EQ(0, queue_resolved(self->ids));
	ASSERT_EQ(0, rdma_get_cm_event(self->ch, &events[0]));
	ASSERT_EQ(BATCH_IDS - 1, rdmachan_get_cm_events(self->ch, events + 1, BATCH_IDS));
	EXPECT_TRUE(one_resolved_each(self->ids, events, BATCH_IDS));
	EXPECT_EQ(0, rdma_ack_cm_event(events[2]));
	EXPECT_EQ(0, rdmachan_ack_cm_events(events, 2));
	EXPECT_EQ(0, rdmachan_ack_cm_events(events + 3, 1));
}

TEST_F(batch, non_blocking_empty_channel_is_eagain)
{
	struct rdma_cm_event *events[2];
	int flags = fcntl(self->ch->fd, F_GETFL);

	ASSERT_EQ(0, fcntl(self->ch->fd, F_SETFL, flags | O_NONBLOCK));
	errno = 0;
	EXPECT_EQ(-1, rdmachan_get_cm_events(self->ch, events, 2));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(batch, bad_arguments_change_nothing)
{
	struct rdma_cm_event *events[BATCH_IDS + 1];

	errno = 0;
	EXPECT_EQ(-1, rdmachan_get_cm_events(NULL, events, 2));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rdmachan_get_cm_events(self->ch, NULL, 2));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rdmachan_get_cm_events(self->ch, events, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rdmachan_ack_cm_events(NULL, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rdmachan_ack_cm_events(events, 0));

	/* the bad calls took nothing: every event is still there */
	ASSERT_EQ(0, queue_resolved(self->ids));
	ASSERT_EQ(BATCH_IDS, rdmachan_get_cm_events(self->ch, events, BATCH_IDS));
	EXPECT_TRUE(one_resolved_each(self->ids, events, BATCH_IDS));
	/* a NULL among them: EINVAL, and none is acknowledged */
	events[BATCH_IDS] = events[1];
	events[1] = NULL;
	errno = 0;
	EXPECT_EQ(-1, rdmachan_ack_cm_events(events, BATCH_IDS));
	EXPECT_EQ(EINVAL, errno);
	/* a read sends whatever acks wait in the library: there are none */
	ASSERT_EQ(0, fcntl(self->ch->fd, F_SETFL, fcntl(self->ch->fd, F_GETFL) | O_NONBLOCK));
	EXPECT_EQ(-1, rdmachan_get_cm_events(self->ch, events + BATCH_IDS, 1));
	EXPECT_EQ(BATCH_IDS, unacked_in_debugfs());
	events[1] = events[BATCH_IDS];
	EXPECT_EQ(0, rdmachan_ack_cm_events(events, BATCH_IDS));
}

/* rdma_destroy_id(3): it waits for the acknowledgement of the id's events. */
TEST_F(batch, destroy_waits_for_the_batch_ack)
{
	struct rdma_cm_event *events[BATCH_IDS];
	struct cm_destroy_arg arg = {};
	pthread_t thread;
	int mine = -1;

	ASSERT_EQ(0, queue_resolved(self->ids));
	ASSERT_EQ(BATCH_IDS, rdmachan_get_cm_events(self->ch, events, BATCH_IDS));
	for (int e = 0; e < BATCH_IDS; e++)
		if (events[e]->id == self->ids[0])
			mine = e;
	ASSERT_LE(0, mine);
	/* the other ids' events acknowledged, the destroyed id's not yet */
	for (int e = 0; e < BATCH_IDS; e++)
		if (e != mine)
			EXPECT_EQ(0, rdmachan_ack_cm_events(&events[e], 1));
	arg.id = self->ids[0];
	self->ids[0] = NULL;
	ASSERT_EQ(0, pthread_create(&thread, NULL, cm_destroyer, &arg));
	cm_sleep_ms(CM_QUIET_MS);
	EXPECT_EQ(0, arg.done);
	EXPECT_EQ(0, rdmachan_ack_cm_events(&events[mine], 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(1, arg.done);
}

TEST_HARNESS_MAIN
