// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Asynchronous events through the rdma-core API, provoked over rxe0:
 * SRQ_LIMIT_REACHED, SQ_DRAINED, CQ_ERR (a CQ overflowed by flushed
 * receives), PORT_ERR and PORT_ACTIVE (the netdev down and up). The
 * destroy of a QP, CQ or SRQ waits until its events are acknowledged;
 * a process killed while it waits, or while it waits for an event, goes.
 * async_fd is pollable, blocks by default and says EAGAIN with O_NONBLOCK.
 *
 * rxe in Linux 6.1 generates only SQ_DRAINED, CQ_ERR, SRQ_LIMIT_REACHED,
 * PORT_ACTIVE and PORT_ERR (grep IB_EVENT_ in drivers/infiniband/sw/rxe):
 * QP_LAST_WQE_REACHED for a QP on an SRQ that enters the error state is
 * not sent, so that test checks that nothing else comes instead.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/wait.h>

#include "verbs_test.h"
#include "rdmachan_test.h"
#include "test_device.h"
#include "kselftest_harness.h"

#define QKEY		0x1234
/* Receives on the SRQ, and the limit armed below them. */
#define SRQ_WR		8
#define SRQ_LIMIT	4
#define MSG		16
/* How long a destroy must stay blocked before the test acknowledges. */
#define BLOCK_MS	1000

static bool is_port_event(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return true;
	default:
		return false;
	}
}

/* One event of @ctx within @ms (poll, then get): 1, 0 on timeout, -1. */
static int next_event(struct ibv_context *ctx, struct ibv_async_event *ev,
		      int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int ret = poll(&pfd, 1, ms);

	if (ret <= 0)
		return ret;
	if (ibv_get_async_event(ctx, ev)) {
		fprintf(stderr, "# ibv_get_async_event: %s\n", strerror(errno));
		return -1;
	}
	return 1;
}

/*
 * The next event of @ctx that is not a port event other than @type, into
 * *@ev, not acknowledged: 0, or -1 (timeout or another event, logged).
 */
static int expect_event(struct ibv_context *ctx, enum ibv_event_type type,
			struct ibv_async_event *ev, int ms)
{
	long end = cm_now_ms() + ms;
	int ret;

	for (;;) {
		ret = next_event(ctx, ev, (int)(end > cm_now_ms() ?
						end - cm_now_ms() : 0));
		if (ret <= 0) {
			fprintf(stderr, "# no %s within %d ms\n",
				ibv_event_type_str(type), ms);
			return -1;
		}
		if (ev->event_type == type)
			return 0;
		if (!is_port_event(ev->event_type)) {
			fprintf(stderr, "# %s instead of %s\n",
				ibv_event_type_str(ev->event_type),
				ibv_event_type_str(type));
			return -1;
		}
		ibv_ack_async_event(ev);
	}
}

static struct ibv_qp *ud_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

static int qp_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	a.qp_state = IBV_QPS_RTR;
	if (!ret)
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	if (!ret)
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	return ret;
}

/* RTS to SQD: rxe drains the (empty) send queue and says SQ_DRAINED. */
static int qp_to_sqd(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
}

/* A UD QP in RTS taken to SQD; its SQ_DRAINED comes on @ctx. */
static struct ibv_qp *drained_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp *qp = ud_qp(pd, cq);

	if (!qp)
		return NULL;
	if (qp_to_rts(qp) || qp_to_sqd(qp)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int qp_to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* A destroy on its own thread, so the test sees whether it waits. */
enum victim { VICTIM_QP, VICTIM_CQ, VICTIM_SRQ };

struct destroy_job {
	pthread_t thread;
	enum victim kind;
	void *obj;
	int ret;
	int done;
	long done_ms;
};

static void *destroy_thread(void *arg)
{
	struct destroy_job *job = arg;

	switch (job->kind) {
	case VICTIM_QP:
		job->ret = ibv_destroy_qp(job->obj);
		break;
	case VICTIM_CQ:
		job->ret = ibv_destroy_cq(job->obj);
		break;
	case VICTIM_SRQ:
		job->ret = ibv_destroy_srq(job->obj);
		break;
	}
	job->done_ms = cm_now_ms();
	__atomic_store_n(&job->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The destroy of @job's object blocks while @ev is unacknowledged and
 * returns 0 soon after the ack: 0, or -1 with the reason logged.
 */
static int destroy_waits_for_ack(struct destroy_job *job,
				 struct ibv_async_event *ev)
{
	long acked;
	int i;

	if (pthread_create(&job->thread, NULL, destroy_thread, job))
		return -1;
	cm_sleep_ms(BLOCK_MS);
	if (__atomic_load_n(&job->done, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "# destroy returned %d with an event unacked\n",
			job->ret);
		pthread_join(job->thread, NULL);
		return -1;
	}
	acked = cm_now_ms();
	ibv_ack_async_event(ev);
	for (i = 0; i < 300 && !__atomic_load_n(&job->done, __ATOMIC_ACQUIRE);
	     i++)
		cm_sleep_ms(10);
	if (!__atomic_load_n(&job->done, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "# destroy still waits 3 s after the ack\n");
		return -1;
	}
	pthread_join(job->thread, NULL);
	if (job->ret) {
		fprintf(stderr, "# destroy: %s\n", strerror(job->ret));
		return -1;
	}
	fprintf(stderr, "# destroy returned %ld ms after the ack\n",
		job->done_ms - acked);
	return 0;
}

/*
 * An RC connection whose server QP receives from an SRQ on the server's
 * PD; *@srq holds SRQ_WR receives and is armed at SRQ_LIMIT. 0 or -1.
 */
static int srq_pair(struct vt_pair *p, struct ibv_srq **srq)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_srq_attr limit = { .srq_limit = SRQ_LIMIT };
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	int i;

	if (vt_pair_listen(p, RDMA_PS_TCP) ||
	    vt_client_connect(p, IBV_QPT_RC, SRQ_WR * MSG, VT_BUSY_POLL))
		return -1;
	ev = cm_expect(p->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	if (!ev)
		return -1;
	p->s.id = ev->id;
	rdma_ack_cm_event(ev);
	if (vt_end_open(&p->s, p->s.id->verbs, SRQ_WR * MSG, VT_BUSY_POLL))
		return -1;
	*srq = ibv_create_srq(p->s.pd, &sa);
	if (!*srq || vt_create_qp(&p->s, IBV_QPT_RC, *srq))
		return -1;
	for (i = 0; i < SRQ_WR; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)p->s.buf + (size_t)i * MSG,
			.length = MSG, .lkey = p->s.mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_srq_recv(*srq, &wr, &bad))
			return -1;
	}
	if (ibv_modify_srq(*srq, &limit, IBV_SRQ_LIMIT))
		return -1;
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	if (rdma_accept(p->s.id, &param) ||
	    cm_expect_ok(p->cch, RDMA_CM_EVENT_ESTABLISHED, p->c.id) ||
	    cm_expect_ok(p->sch, RDMA_CM_EVENT_ESTABLISHED, p->s.id))
		return -1;
	return 0;
}

/* @n sends from the client, each completed: 0 or -1. */
static int send_n(struct vt_pair *p, int n)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++)
		if (vt_post_send(&p->c, IBV_WR_SEND, (uint64_t)i, 0, MSG, 0, 0,
				 0, 0) ||
		    vt_expect_wc(&p->c, &wc, IBV_WC_SEND, (uint64_t)i))
			return -1;
	return 0;
}

/* The server's QP and the SRQ go before the rest of @p. */
static int srq_pair_close(struct vt_pair *p, struct ibv_srq *srq)
{
	int ret = 0;

	if (p->s.id && p->s.id->qp) {
		rdma_destroy_qp(p->s.id);
		p->s.id->qp = NULL;
	}
	if (srq)
		ret = ibv_destroy_srq(srq);
	return vt_pair_close(p) || ret ? -1 : 0;
}

FIXTURE(async) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

FIXTURE_SETUP(async)
{
	cm_watchdog(120);
	self->ctx = open_test_device();
	ASSERT_NE(NULL, self->ctx);
	ASSERT_LE(0, self->ctx->async_fd);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, VT_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
}

FIXTURE_TEARDOWN(async)
{
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
}

TEST_F(async, event_type_str)
{
	EXPECT_STREQ("SRQ limit reached",
		     ibv_event_type_str(IBV_EVENT_SRQ_LIMIT_REACHED));
	EXPECT_STREQ("port error", ibv_event_type_str(IBV_EVENT_PORT_ERR));
	EXPECT_STREQ("local catastrophic error",
		     ibv_event_type_str(IBV_EVENT_DEVICE_FATAL));
	EXPECT_STREQ("unknown", ibv_event_type_str((enum ibv_event_type)99));
}

/*
 * SRQ_LIMIT_REACHED names the SRQ once its receives fall below the armed
 * limit; the event comes on the server's CM context (the one behind its
 * id), and the SRQ's destroy waits for its acknowledgment.
 */
TEST_F(async, srq_limit_reached_and_srq_destroy_waits_for_ack)
{
	struct destroy_job job = { .kind = VICTIM_SRQ };
	struct ibv_async_event ev;
	struct ibv_srq_attr attr;
	struct ibv_srq *srq = NULL;
	struct vt_pair p;

	ASSERT_EQ(0, srq_pair(&p, &srq));
	/* SRQ_WR - SRQ_LIMIT + 1 receives taken: SRQ_LIMIT - 1 left */
	ASSERT_EQ(0, send_n(&p, SRQ_WR - SRQ_LIMIT + 1));
	ASSERT_EQ(0, expect_event(p.s.id->verbs, IBV_EVENT_SRQ_LIMIT_REACHED,
				  &ev, CM_TIMEOUT_MS));
	EXPECT_EQ(srq, ev.element.srq);
	EXPECT_EQ(p.s.id->verbs, ev.element.srq->context);
	/* the limit disarms itself */
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(0, attr.srq_limit);
	ASSERT_EQ(0, rdma_disconnect(p.c.id));

	rdma_destroy_qp(p.s.id);
	p.s.id->qp = NULL;
	job.obj = srq;
	ASSERT_EQ(0, destroy_waits_for_ack(&job, &ev));
	EXPECT_EQ(0, srq_pair_close(&p, NULL));
}

/*
 * A QP on an SRQ: SQ_DRAINED names it; in the error state the spec wants
 * QP_LAST_WQE_REACHED, which rxe in 6.1 does not generate. Whatever comes
 * must be that, for this QP.
 */
TEST_F(async, qp_on_srq_enters_error)
{
	struct ibv_async_event ev;
	struct ibv_srq *srq = NULL;
	struct vt_pair p;
	int ret;

	ASSERT_EQ(0, srq_pair(&p, &srq));
	ASSERT_EQ(0, qp_to_sqd(p.s.id->qp));
	ASSERT_EQ(0, expect_event(p.s.id->verbs, IBV_EVENT_SQ_DRAINED, &ev,
				  CM_TIMEOUT_MS));
	EXPECT_EQ(p.s.id->qp, ev.element.qp);
	ibv_ack_async_event(&ev);

	ASSERT_EQ(0, qp_to_err(p.s.id->qp));
	EXPECT_EQ(IBV_QPS_ERR, vt_qp_state(p.s.id->qp));
	ret = next_event(p.s.id->verbs, &ev, CM_QUIET_MS * 2);
	ASSERT_LE(0, ret);
	if (ret) {
		EXPECT_EQ(IBV_EVENT_QP_LAST_WQE_REACHED, ev.event_type);
		EXPECT_EQ(p.s.id->qp, ev.element.qp);
		ibv_ack_async_event(&ev);
	} else {
		TH_LOG("no QP_LAST_WQE_REACHED: rxe does not generate it");
	}
	EXPECT_EQ(0, srq_pair_close(&p, srq));
}

TEST_F(async, qp_destroy_waits_for_ack)
{
	struct destroy_job job = { .kind = VICTIM_QP };
	struct ibv_async_event ev;
	struct ibv_qp *qp = drained_qp(self->pd, self->cq);

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, expect_event(self->ctx, IBV_EVENT_SQ_DRAINED, &ev,
				  CM_TIMEOUT_MS));
	ASSERT_EQ(qp, ev.element.qp);
	job.obj = qp;
	ASSERT_EQ(0, destroy_waits_for_ack(&job, &ev));
}

/*
 * A second acknowledgment of one event is refused and counts nothing, so
 * the destroy neither waits nor goes wrong. libibverbs cannot refuse it
 * (ibv_ack_async_event is void, and it counts in user space), and its
 * destroy would then wait forever: on stock the second ack is not made.
 */
TEST_F(async, second_ack_is_refused)
{
	struct ibv_async_event ev;
	struct ibv_qp *qp = drained_qp(self->pd, self->cq);

	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, expect_event(self->ctx, IBV_EVENT_SQ_DRAINED, &ev,
				  CM_TIMEOUT_MS));
	errno = 0;
	ibv_ack_async_event(&ev);
	EXPECT_EQ(0, errno);
	if (!cm_verbs_are_uverbs()) {
		ibv_ack_async_event(&ev);
		EXPECT_EQ(EINVAL, errno);
	}
	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

/*
 * CQ_ERR: receives flushed into a CQ of one entry overflow it. The CQ's
 * destroy waits for the last of its events to be acknowledged.
 */
TEST_F(async, cq_err_and_cq_destroy_waits_for_ack)
{
	struct ibv_qp_init_attr init = {
		.send_cq = self->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct destroy_job job = { .kind = VICTIM_CQ };
	struct ibv_async_event ev, last;
	char buf[64];
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, n = 0;

	cq = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	init.recv_cq = cq;
	qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, qp);
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	for (i = 0; i < 4; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		ASSERT_EQ(0, ibv_post_recv(qp, &wr, &bad));
	}
	ASSERT_EQ(0, qp_to_err(qp));

	/* every CQ_ERR there is, the last one kept unacknowledged */
	ASSERT_EQ(0, expect_event(self->ctx, IBV_EVENT_CQ_ERR, &last,
				  CM_TIMEOUT_MS));
	EXPECT_EQ(cq, last.element.cq);
	n++;
	while (next_event(self->ctx, &ev, CM_QUIET_MS) == 1) {
		ASSERT_EQ(IBV_EVENT_CQ_ERR, ev.event_type);
		EXPECT_EQ(cq, ev.element.cq);
		ibv_ack_async_event(&last);
		last = ev;
		n++;
	}
	TH_LOG("%d CQ_ERR events", n);
	ASSERT_EQ(0, ibv_destroy_qp(qp));
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	job.obj = cq;
	ASSERT_EQ(0, destroy_waits_for_ack(&job, &last));
}

/* Whether port 1 of @ctx has the GID ::ffff:<test address> (RoCE v2). */
static bool has_addr_gid(struct ibv_context *ctx)
{
	union ibv_gid gid, want = {};
	struct in_addr a;
	int i;

	if (inet_pton(AF_INET, cm_test_addr(), &a) != 1)
		return false;
	want.raw[10] = 0xff;
	want.raw[11] = 0xff;
	memcpy(&want.raw[12], &a, 4);
	for (i = 0; i < 16; i++)
		if (!ibv_query_gid(ctx, 1, i, &gid) &&
		    !memcmp(&gid, &want, sizeof(gid)))
			return true;
	return false;
}

/*
 * The netdev goes down and up: PORT_ERR, then PORT_ACTIVE, for port 1
 * (GID table changes may come between them). The address's GID is back
 * before the test ends, for the programs after it.
 */
TEST_F(async, port_err_then_port_active)
{
	struct ibv_async_event ev;
	int ret, i;

	ASSERT_EQ(0, run_cmd("ip link set %s down", cm_test_netdev()));
	ret = expect_event(self->ctx, IBV_EVENT_PORT_ERR, &ev, CM_TIMEOUT_MS);
	EXPECT_EQ(0, run_cmd("ip link set %s up", cm_test_netdev()));
	ASSERT_EQ(0, ret);
	EXPECT_EQ(1, ev.element.port_num);
	ibv_ack_async_event(&ev);
	ASSERT_EQ(0, expect_event(self->ctx, IBV_EVENT_PORT_ACTIVE, &ev,
				  CM_TIMEOUT_MS));
	EXPECT_EQ(1, ev.element.port_num);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(0, rxe_restore());
	for (i = 0; i < 200 && !has_addr_gid(self->ctx); i++)
		cm_sleep_ms(50);
	EXPECT_TRUE(has_addr_gid(self->ctx));
}

/* O_NONBLOCK says EAGAIN; poll() and epoll wake for an event. */
TEST_F(async, nonblocking_fd_poll_and_epoll)
{
	struct epoll_event eev = { .events = EPOLLIN }, got;
	struct pollfd pfd = { .fd = self->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct ibv_qp *qp, *qp2;
	int flags, ep;

	flags = fcntl(self->ctx->async_fd, F_GETFL);
	ASSERT_LE(0, flags);
	ASSERT_EQ(0, fcntl(self->ctx->async_fd, F_SETFL, flags | O_NONBLOCK));
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	qp = drained_qp(self->pd, self->cq);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(1, poll(&pfd, 1, CM_TIMEOUT_MS));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_SQ_DRAINED, ev.event_type);
	EXPECT_EQ(qp, ev.element.qp);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);

	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->ctx->async_fd, &eev));
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));
	qp2 = drained_qp(self->pd, self->cq);
	ASSERT_NE(NULL, qp2);
	ASSERT_EQ(1, epoll_wait(ep, &got, 1, CM_TIMEOUT_MS));
	EXPECT_TRUE(got.events & EPOLLIN);
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_SQ_DRAINED, ev.event_type);
	EXPECT_EQ(qp2, ev.element.qp);
	ibv_ack_async_event(&ev);
	close(ep);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_qp(qp2));
}

/* rdmachan's live objects are back to none within a few seconds. */
static int counters_back_to_zero(void)
{
	static const char *const names[] = {
		"contexts", "pds", "cqs", "qps", "async_fds", "async_events",
	};
	size_t i;
	int tries;

	if (cm_verbs_are_uverbs())
		return 0;
	for (tries = 0; tries < 250; tries++) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (rdmachan_counter(names[i]) != 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return 0;
		cm_sleep_ms(20);
	}
	fprintf(stderr, "# %s is %ld\n", names[i], rdmachan_counter(names[i]));
	return -1;
}

/*
 * The child: a QP with an SQ_DRAINED read and not acknowledged, a byte on
 * @ready, then ibv_destroy_qp(), which must not return.
 */
static int blocked_destroyer(int ready)
{
	struct ibv_async_event ev;
	struct ibv_context *ctx = open_test_device();
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp = cq ? drained_qp(pd, cq) : NULL;

	if (!qp || expect_event(ctx, IBV_EVENT_SQ_DRAINED, &ev, CM_TIMEOUT_MS))
		return 10;
	if (write(ready, "r", 1) != 1)
		return 11;
	ibv_destroy_qp(qp);
	return 12;
}

TEST(killed_while_destroy_waits_for_ack)
{
	int ready[2], status;
	pid_t pid;
	char r;

	cm_watchdog(60);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(ready[0]);
		_exit(blocked_destroyer(ready[1]));
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &r, 1));
	cm_sleep_ms(BLOCK_MS);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	status = cm_wait_pid(pid, 5000);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	EXPECT_EQ(0, counters_back_to_zero());
}

TEST(killed_while_waiting_for_an_event)
{
	int ready[2], status;
	pid_t pid;
	char r;

	cm_watchdog(60);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_async_event ev;
		struct ibv_context *ctx = open_test_device();

		close(ready[0]);
		if (!ctx || write(ready[1], "r", 1) != 1)
			_exit(10);
		ibv_get_async_event(ctx, &ev);
		_exit(11);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &r, 1));
	cm_sleep_ms(BLOCK_MS);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	status = cm_wait_pid(pid, 5000);
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	EXPECT_EQ(0, counters_back_to_zero());
}

TEST_HARNESS_MAIN
