// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Introspection of the caller's own objects (<rdmachan/rdmachan.h>):
 * rdmachan_query_cm_events() reports each CM event queued or taken and
 * not acknowledged, with its id, type and age, and whether a destroy
 * waits for it; rdmachan_query_{qp,cq,srq}_events() the same counts for
 * asynchronous and completion events. Also the module's side:
 * RDMACHAN_IOC_QUERY_EVENTS and _QUERY_ASYNC_EVENTS refuse bad input with
 * a clear errno, and /proc/self/fdinfo shows ids and events. The verbs
 * objects are the module's (kernel-owned mode), except where a test says.
 */
#include <pthread.h>
#include <sys/ioctl.h>

#include "verbs_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

/* The async queries are about the module's own verbs objects. */
__attribute__((constructor)) static void kernel_owned_mode(void)
{
	setenv("RDMACHAN_MODE", "kernel", 1);
}

static uint64_t ms_ns(uint64_t ms)
{
	return ms * 1000000ULL;
}

/* Waits until @id's ADDR_RESOLVED is queued on @ch, without taking it. */
static int resolve_queued(struct rdma_event_channel *ch, struct rdma_cm_id *id)
{
	struct rdmachan_cm_events_summary sum;
	long deadline = cm_now_ms() + CM_TIMEOUT_MS;

	if (cm_resolve_addr(id, htons(7471)))
		return -1;
	do {
		if (rdmachan_query_cm_events(ch, id, NULL, 0, &sum) < 0)
			return -1;
		if (sum.queued)
			return 0;
		cm_sleep_ms(5);
	} while (cm_now_ms() < deadline);
	errno = ETIMEDOUT;
	return -1;
}

FIXTURE(cm)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *a, *b;
};

FIXTURE_SETUP(cm)
{
	cm_watchdog(120);
	self->ch = rdma_create_event_channel();
	ASSERT_NE(NULL, self->ch);
	ASSERT_EQ(0, rdma_create_id(self->ch, &self->a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(self->ch, &self->b, NULL, RDMA_PS_TCP));
}

FIXTURE_TEARDOWN(cm)
{
	cm_drain(self->ch, 0);
	if (self->a)
		rdma_destroy_id(self->a);
	if (self->b)
		rdma_destroy_id(self->b);
	rdma_destroy_event_channel(self->ch);
}

/* Queued, then taken and unacknowledged with an age that grows, then gone. */
TEST_F(cm, queued_then_unacked_then_acked)
{
	struct rdmachan_cm_events_summary sum;
	struct rdmachan_cm_event_state st[4];
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, rdmachan_query_cm_events(self->ch, NULL, st, 4, &sum));
	ASSERT_EQ(0, sum.queued + sum.unacked + sum.destroy_waiting);

	ASSERT_EQ(0, resolve_queued(self->ch, self->a));
	ASSERT_EQ(1, rdmachan_query_cm_events(self->ch, NULL, st, 4, &sum));
	EXPECT_EQ(1, sum.queued);
	EXPECT_EQ(0, sum.unacked);
	EXPECT_EQ(self->a, st[0].id);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, st[0].event);
	EXPECT_EQ(0, st[0].flags);

	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->a,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	cm_sleep_ms(100);
	ASSERT_EQ(1, rdmachan_query_cm_events(self->ch, NULL, st, 4, &sum));
	EXPECT_EQ(0, sum.queued);
	EXPECT_EQ(1, sum.unacked);
	EXPECT_EQ(0, sum.destroy_waiting);
	EXPECT_EQ(self->a, st[0].id);
	EXPECT_EQ(RDMACHAN_CM_EVENT_UNACKED, st[0].flags);
	EXPECT_LE(ms_ns(100), st[0].age_ns);
	EXPECT_GT(ms_ns(60000), st[0].age_ns);

	/* the library holds the ack back; the query sends it first */
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdmachan_query_cm_events(self->ch, NULL, st, 4, &sum));
	EXPECT_EQ(0, sum.queued + sum.unacked);
}

/* One id's events only; totals count past @max. */
TEST_F(cm, id_filter_and_totals_beyond_max)
{
	struct rdmachan_cm_events_summary sum;
	struct rdmachan_cm_event_state st[2];
	struct rdma_cm_event *ev;

	ASSERT_EQ(0, resolve_queued(self->ch, self->a));
	ASSERT_EQ(0, resolve_queued(self->ch, self->b));
	ASSERT_EQ(1, rdmachan_query_cm_events(self->ch, self->b, st, 2, &sum));
	EXPECT_EQ(self->b, st[0].id);
	EXPECT_EQ(1, sum.queued);

	ASSERT_EQ(1, rdmachan_query_cm_events(self->ch, NULL, st, 1, &sum));
	EXPECT_EQ(2, sum.queued);
	ASSERT_EQ(0, rdmachan_query_cm_events(self->ch, NULL, NULL, 0, &sum));
	EXPECT_EQ(2, sum.queued);

	/* taken ones come first */
	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(2, rdmachan_query_cm_events(self->ch, NULL, st, 2, &sum));
	EXPECT_EQ(ev->id, st[0].id);
	EXPECT_EQ(RDMACHAN_CM_EVENT_UNACKED, st[0].flags);
	EXPECT_NE(ev->id, st[1].id);
	EXPECT_EQ(0, st[1].flags);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
}

static void *destroy_id(void *arg)
{
	return (void *)(long)rdma_destroy_id(arg);
}

/* A destroy that waits for an acknowledgment says so, until the ack. */
TEST_F(cm, destroy_waiting)
{
	struct rdmachan_cm_events_summary sum;
	struct rdmachan_cm_event_state st;
	struct rdma_cm_event *ev;
	pthread_t thread;
	void *ret;
	int i;

	ASSERT_EQ(0, resolve_queued(self->ch, self->a));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->a,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, pthread_create(&thread, NULL, destroy_id, self->a));
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(1, rdmachan_query_cm_events(self->ch, NULL, &st, 1,
						      &sum));
		if (st.flags & RDMACHAN_CM_EVENT_DESTROY_WAITING)
			break;
		cm_sleep_ms(10);
	}
	EXPECT_EQ(RDMACHAN_CM_EVENT_UNACKED | RDMACHAN_CM_EVENT_DESTROY_WAITING,
		  st.flags);
	EXPECT_EQ(1, sum.destroy_waiting);
	EXPECT_EQ(self->a, st.id);
	/* the id's handle is out of the table, yet names its events */
	EXPECT_EQ(1, rdmachan_query_cm_events(self->ch, self->a, &st, 1, NULL));

	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, pthread_join(thread, &ret));
	EXPECT_EQ(NULL, ret);
	self->a = NULL;
	ASSERT_EQ(0, rdmachan_query_cm_events(self->ch, NULL, NULL, 0, &sum));
	EXPECT_EQ(0, sum.unacked + sum.destroy_waiting);
}

/* Bad arguments: EINVAL, and nothing taken or acknowledged. */
TEST_F(cm, library_refuses_bad_arguments)
{
	struct rdmachan_cm_events_summary sum;
	struct rdmachan_cm_event_state st;
	struct rdma_event_channel *other;
	struct rdma_cm_id *stranger;

	ASSERT_EQ(0, resolve_queued(self->ch, self->a));
	errno = 0;
	EXPECT_EQ(-1, rdmachan_query_cm_events(NULL, NULL, &st, 1, &sum));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rdmachan_query_cm_events(self->ch, NULL, NULL, 1, &sum));
	EXPECT_EQ(-1, rdmachan_query_cm_events(self->ch, NULL, &st, -1, &sum));
	EXPECT_EQ(-1, rdmachan_query_cm_events(self->ch, NULL, &st,
					       RDMACHAN_QUERY_CM_EVENTS_MAX + 1,
					       &sum));
	other = rdma_create_event_channel();
	ASSERT_NE(NULL, other);
	ASSERT_EQ(0, rdma_create_id(other, &stranger, NULL, RDMA_PS_TCP));
	errno = 0;
	EXPECT_EQ(-1, rdmachan_query_cm_events(self->ch, stranger, &st, 1,
					       &sum));
	EXPECT_EQ(EINVAL, errno);
	rdma_destroy_id(stranger);
	rdma_destroy_event_channel(other);
	ASSERT_EQ(0, rdmachan_query_cm_events(self->ch, NULL, NULL, 0, &sum));
	EXPECT_EQ(1, sum.queued);
}

/* The ioctls on a raw /dev/rdmachan file: clear errnos, nothing changed. */
TEST(ioctls_refuse_bad_input)
{
	struct rdmachan_event_state states[2];
	struct rdmachan_query_events q;
	struct rdmachan_query_async_events a;
	struct rdmachan_get_info info = { .size = sizeof(info) };
	int fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_GET_INFO, &info));
	EXPECT_TRUE(info.out_features & RDMACHAN_FEATURE_INTROSPECT);

#define QUERY() ({ q = (struct rdmachan_query_events){ .size = sizeof(q), \
		.state_size = sizeof(states[0]), \
		.states = (uintptr_t)states, .max_states = 2 }; })
	QUERY();
	ASSERT_EQ(0, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(0, q.out_num_states + q.out_queued + q.out_unacked);

	QUERY();
	q.id_handle = 12345;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(ENOENT, errno);
	QUERY();
	q.__reserved = 1;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(EINVAL, errno);
	QUERY();
	q.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(EINVAL, errno);
	/* what a previous call wrote is no input */
	QUERY();
	q.out_queued = 1;
	q.out_num_states = 5;
	EXPECT_EQ(0, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(0, q.out_queued + q.out_num_states);
	QUERY();
	q.state_size = sizeof(states[0]) - 8;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(EINVAL, errno);
	QUERY();
	q.max_states = RDMACHAN_MAX_EVENT_STATES + 1;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(EINVAL, errno);
	QUERY();
	q.size = 8;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, (void *)8));
	EXPECT_EQ(EFAULT, errno);

	a = (struct rdmachan_query_async_events){ .size = sizeof(a), .handle = 7 };
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &a));
	EXPECT_EQ(ENOENT, errno);
	a = (struct rdmachan_query_async_events){ .size = sizeof(a), .flags = 1 };
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &a));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
#undef QUERY
}

/* A user pointer that cannot be written: EFAULT, the event stays queued. */
TEST_F(cm, bad_states_pointer_is_efault)
{
	struct rdmachan_query_events q = {
		.size = sizeof(q),
		.state_size = sizeof(struct rdmachan_event_state),
		.states = 8,
		.max_states = 1,
	};
	struct rdmachan_cm_events_summary sum;

	ASSERT_EQ(0, resolve_queued(self->ch, self->a));
	EXPECT_EQ(-1, ioctl(self->ch->fd, RDMACHAN_IOC_QUERY_EVENTS, &q));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, rdmachan_query_cm_events(self->ch, NULL, NULL, 0, &sum));
	EXPECT_EQ(1, sum.queued);
	EXPECT_EQ(0, cm_expect_ok(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED,
				  self->a));
}

/* /proc/self/fdinfo of the channel: the ids and their events. */
TEST_F(cm, fdinfo_shows_ids_and_events)
{
	char path[64], buf[4096];
	struct rdma_cm_event *ev;
	size_t n;
	FILE *f;

	ASSERT_EQ(0, resolve_queued(self->ch, self->a));
	ev = cm_expect(self->ch, RDMA_CM_EVENT_ADDR_RESOLVED, self->a,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->ch->fd);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	EXPECT_NE(NULL, strstr(buf, "rdmachan_owner:\t"));
	EXPECT_NE(NULL, strstr(buf, "state=addr-resolved ps=TCP qp_type=RC device=rxe0"));
	EXPECT_NE(NULL, strstr(buf, "state=idle"));
	EXPECT_NE(NULL, strstr(buf, "cm_events:\tqueued=0 unacked=1 destroy_waiting=0\n"));
	EXPECT_NE(NULL, strstr(buf, "event=ADDR_RESOLVED state=unacked"));
	if (!_metadata->passed)
		fprintf(stderr, "# %s", buf);
	rdma_ack_cm_event(ev);
}

/*
 * A connected RC pair whose client QP is moved to SQD with notification:
 * rxe reports SQ_DRAINED on the client's context.
 */
FIXTURE(async)
{
	struct vt_pair p;
};

FIXTURE_SETUP(async)
{
	cm_watchdog(120);
	ASSERT_EQ(0, vt_pair_connect_rc(&self->p, 4096, VT_CHANNEL));
}

FIXTURE_TEARDOWN(async)
{
	vt_pair_close(&self->p);
}

static int drain_sq(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1,
	};

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
}

static int wait_queued(struct ibv_qp *qp, struct rdmachan_async_events_state *st)
{
	long deadline = cm_now_ms() + CM_TIMEOUT_MS;

	do {
		if (rdmachan_query_qp_events(qp, st))
			return -1;
		if (st->queued)
			return 0;
		cm_sleep_ms(5);
	} while (cm_now_ms() < deadline);
	errno = ETIMEDOUT;
	return -1;
}

static void *destroy_qp(void *arg)
{
	rdma_destroy_qp(arg);
	return NULL;
}

TEST_F(async, qp_event_queued_unacked_and_destroy_waiting)
{
	struct ibv_qp *qp = self->p.c.id->qp;
	struct rdmachan_async_events_state st;
	struct ibv_async_event ev;
	pthread_t thread;
	int i;

	ASSERT_EQ(0, rdmachan_query_qp_events(qp, &st));
	EXPECT_EQ(0, st.queued + st.unacked + st.flags);
	ASSERT_EQ(0, drain_sq(qp));
	ASSERT_EQ(0, wait_queued(qp, &st));
	EXPECT_EQ(1, st.queued);
	EXPECT_EQ(0, st.unacked);

	ASSERT_EQ(0, ibv_get_async_event(self->p.c.id->verbs, &ev));
	ASSERT_EQ(IBV_EVENT_SQ_DRAINED, ev.event_type);
	cm_sleep_ms(100);
	ASSERT_EQ(0, rdmachan_query_qp_events(qp, &st));
	EXPECT_EQ(0, st.queued);
	EXPECT_EQ(1, st.unacked);
	EXPECT_EQ(1ULL << IBV_EVENT_SQ_DRAINED, st.unacked_types);
	EXPECT_LE(ms_ns(100), st.unacked_age_ns);
	EXPECT_EQ(0, st.flags);

	/* the CM's QP destroy waits for the ack */
	ASSERT_EQ(0, pthread_create(&thread, NULL, destroy_qp, self->p.c.id));
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, rdmachan_query_qp_events(qp, &st));
		if (st.flags)
			break;
		cm_sleep_ms(10);
	}
	EXPECT_EQ(RDMACHAN_ASYNC_DESTROY_WAITING, st.flags);
	ibv_ack_async_event(&ev);
	ASSERT_EQ(0, pthread_join(thread, NULL));
}

/* Completion events of a CQ, counted until ibv_ack_cq_events(). */
TEST_F(async, cq_completion_events_unacked)
{
	struct vt_end *c = &self->p.c;
	struct rdmachan_async_events_state st;
	struct ibv_wc wc;

	ASSERT_EQ(0, rdmachan_query_cq_events(c->cq, &st));
	EXPECT_EQ(0, st.comp_unacked + st.unacked + st.queued);
	ASSERT_EQ(0, ibv_req_notify_cq(c->cq, 0));
	ASSERT_EQ(0, vt_post_recv(&self->p.s, 1, 0, 64));
	ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, 2, 0, 64, 0, 0, 0, 0));
	ASSERT_EQ(1, vt_take_cq_event(c, CM_TIMEOUT_MS));
	ASSERT_EQ(0, rdmachan_query_cq_events(c->cq, &st));
	EXPECT_EQ(1, st.comp_unacked);
	ASSERT_EQ(1, vt_poll(c, &wc, 1, CM_TIMEOUT_MS));
	vt_ack(c);
	ASSERT_EQ(0, rdmachan_query_cq_events(c->cq, &st));
	EXPECT_EQ(0, st.comp_unacked);
	ASSERT_EQ(1, vt_poll(&self->p.s, &wc, 1, CM_TIMEOUT_MS));
}

/* The handle of the first CM id on @fd, from its fdinfo; 0 if none. */
static __u32 first_id_handle(int fd)
{
	char path[64], line[512];
	unsigned int handle = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!handle && fgets(line, sizeof(line), f))
		if (sscanf(line, "cm_id:\thandle=%u", &handle) != 1)
			handle = 0;
	fclose(f);
	return handle;
}

/*
 * The raw ioctls: a longer struct with a zero tail is taken, a non-zero
 * tail is E2BIG, a short one EINVAL; another file's handles are ENOENT,
 * as is a handle of the wrong kind.
 */
TEST_F(async, ioctl_sizes_and_foreign_handles)
{
	struct {
		struct rdmachan_query_async_events q;
		__u64 tail;
	} big = {};
	struct {
		struct rdmachan_query_events q;
		__u64 tail;
	} bige = {};
	struct ibv_context *ctx = self->p.c.id->verbs;
	uint32_t qp = self->p.c.id->qp->handle;
	int fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	big.q.size = sizeof(big);
	big.q.handle = qp;
	EXPECT_EQ(0, ioctl(ctx->cmd_fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &big));
	big.tail = 1;
	EXPECT_EQ(-1, ioctl(ctx->cmd_fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &big));
	EXPECT_EQ(E2BIG, errno);
	big.tail = 0;
	big.q.size = 8;
	EXPECT_EQ(-1, ioctl(ctx->cmd_fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &big));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(ctx->cmd_fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS,
			    (void *)8));
	EXPECT_EQ(EFAULT, errno);
	/* the QP's handle on another file, and a PD's on its own */
	big.q.size = sizeof(big.q);
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &big));
	EXPECT_EQ(ENOENT, errno);
	big.q.handle = self->p.c.pd->handle;
	EXPECT_EQ(-1, ioctl(ctx->cmd_fd, RDMACHAN_IOC_QUERY_ASYNC_EVENTS, &big));
	EXPECT_EQ(ENOENT, errno);

	bige.q.size = sizeof(bige);
	EXPECT_EQ(0, ioctl(self->p.cch->fd, RDMACHAN_IOC_QUERY_EVENTS, &bige));
	bige.tail = 1;
	EXPECT_EQ(-1, ioctl(self->p.cch->fd, RDMACHAN_IOC_QUERY_EVENTS, &bige));
	EXPECT_EQ(E2BIG, errno);
	/* the client's id, on its own channel and on a new file */
	bige.tail = 0;
	bige.q.size = sizeof(bige.q);
	bige.q.id_handle = first_id_handle(self->p.cch->fd);
	ASSERT_NE(0, bige.q.id_handle);
	ASSERT_EQ(0, ioctl(self->p.cch->fd, RDMACHAN_IOC_QUERY_EVENTS, &bige));
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_EVENTS, &bige));
	EXPECT_EQ(ENOENT, errno);
	close(fd);
}

TEST_F(async, srq_and_bad_arguments)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct rdmachan_async_events_state st;
	struct ibv_srq *srq;

	srq = ibv_create_srq(self->p.c.pd, &init);
	ASSERT_NE(NULL, srq);
	ASSERT_EQ(0, rdmachan_query_srq_events(srq, &st));
	EXPECT_EQ(0, st.queued + st.unacked + st.flags);
	errno = 0;
	EXPECT_EQ(-1, rdmachan_query_srq_events(srq, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rdmachan_query_qp_events(NULL, &st));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ibv_destroy_srq(srq));
}

/* In bypass mode the verbs objects are the system's: EOPNOTSUPP. */
TEST(bypass_objects_are_not_the_modules)
{
	struct rdmachan_async_events_state st;
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	uint64_t features;
	uint32_t abi;

	/* a fresh process: the mode is chosen at its first call */
	setenv("RDMACHAN_MODE", "bypass", 1);
	ASSERT_EQ(0, rdmachan_get_info(&abi, &features));
	if (!(features & RDMACHAN_FEATURE_USER_QP))
		SKIP(return, "no bypass mode on this kernel");
	ASSERT_EQ(RDMACHAN_MODE_BYPASS, rdmachan_get_mode());
	devs = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, devs);
	ASSERT_NE(NULL, devs[0]);
	ctx = ibv_open_device(devs[0]);
	ASSERT_NE(NULL, ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	errno = 0;
	EXPECT_EQ(-1, rdmachan_query_cq_events(cq, &st));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ibv_destroy_cq(cq);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
}

TEST_HARNESS_MAIN
