// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A process killed with SIGKILL in the middle of a connection's data
 * transfer, or blocked in ibv_get_cq_event, or holding a CQ event it never
 * acked: its peer (this process) gets DISCONNECTED, every work request it
 * posted completes (success before the kill, an error after, none lost),
 * the data that did arrive is intact, and everything is freed: the peer's
 * teardown succeeds, and on rdmachan the runner checks that the module's
 * object counters are back to zero once both processes are gone.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include "verbs_test.h"
#include "kselftest_harness.h"

#define WINDOW		16
#define MSG		256
#define BUF_LEN		(4 * WINDOW * MSG)
/* Messages the victim must have moved before it is killed. */
#define BEFORE_KILL	64

/* What the victim does when it is killed. */
enum victim_mode {
	STREAM_SENDS,		/* client: SENDs and RDMA WRITEs, forever */
	BLOCKED_IN_CQ_EVENT,	/* client: waits on an armed, idle CQ */
	UNACKED_CQ_EVENT,	/* client: took a CQ event, never acks it */
	SERVER_RECEIVING,	/* server: receives, reposts, forever */
};

static void victim_fail(const char *what)
{
	fprintf(stderr, "# victim: %s: %s\n", what, strerror(errno));
	_exit(2);
}

/* One byte to the parent: the victim has reached the point of the kill. */
static void victim_ready(int fd)
{
	if (write(fd, "r", 1) != 1)
		victim_fail("pipe");
}

/* Streams SENDs (each followed by an RDMA WRITE of the same data) forever. */
static void victim_stream(struct vt_end *e, uint64_t raddr, uint32_t rkey,
			  int ready_fd)
{
	unsigned long sent = 0, done = 0;
	struct ibv_wc wc[WINDOW];
	int i, n;

	for (;;) {
		while (sent - done < WINDOW) {
			size_t off = (sent % WINDOW) * MSG;

			vt_fill(e->buf + off, MSG, (unsigned int)sent);
			if (vt_post_send(e, IBV_WR_RDMA_WRITE, 2 * sent, off, MSG,
					 0, raddr + off, rkey, 0) ||
			    vt_post_send(e, IBV_WR_SEND, 2 * sent + 1, off, MSG,
					 0, 0, 0, 0))
				victim_fail("post");
			sent++;
		}
		n = ibv_poll_cq(e->cq, WINDOW, wc);
		if (n < 0)
			victim_fail("poll");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				victim_fail(ibv_wc_status_str(wc[i].status));
			if (wc[i].opcode == IBV_WC_SEND && ++done == BEFORE_KILL)
				victim_ready(ready_fd);
		}
	}
}

/* The killed client: connects to @port, then does what @mode says. */
static void victim_client(enum victim_mode mode, int port, uint64_t raddr,
			  uint32_t rkey, int ready_fd)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param;
	struct vt_end e = { 0 };
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *ctx;

	if (!ch || cm_resolve(ch, RDMA_PS_TCP, htons(port), &e.id))
		victim_fail("resolve");
	if (vt_end_open(&e, e.id->verbs, BUF_LEN,
			mode == STREAM_SENDS ? VT_BUSY_POLL : VT_CHANNEL) ||
	    vt_create_qp(&e, IBV_QPT_RC, NULL))
		victim_fail("resources");
	if (mode != STREAM_SENDS && vt_post_recv(&e, 1, 0, MSG))
		victim_fail("post recv");
	/* armed before the peer can send: its message raises the event */
	if (mode == UNACKED_CQ_EVENT && ibv_req_notify_cq(e.cq, 0))
		victim_fail("arm");
	vt_conn_param(&param, cm_req_data, sizeof(cm_req_data));
	if (rdma_connect(e.id, &param) ||
	    cm_expect_ok(ch, RDMA_CM_EVENT_ESTABLISHED, e.id))
		victim_fail("connect");
	switch (mode) {
	case STREAM_SENDS:
		victim_stream(&e, raddr, rkey, ready_fd);
		break;
	case BLOCKED_IN_CQ_EVENT:
		if (ibv_req_notify_cq(e.cq, 0))
			victim_fail("arm");
		victim_ready(ready_fd);
		ibv_get_cq_event(e.chan, &cq, &ctx);
		victim_fail("woke up");
		break;
	case UNACKED_CQ_EVENT:
		/* the parent sends one message: take its event, never ack */
		if (ibv_get_cq_event(e.chan, &cq, &ctx) ||
		    ibv_poll_cq(e.cq, 1, &wc) != 1)
			victim_fail("cq event");
		/* and more receives, for the kill to find posted */
		if (vt_post_recv(&e, 2, 0, MSG) || vt_post_recv(&e, 3, MSG, MSG))
			victim_fail("post recv");
		victim_ready(ready_fd);
		for (;;)
			pause();
	default:
		break;
	}
	_exit(3);
}

/* The killed server: accepts one connection and receives forever. */
static void victim_server(int port_fd, int ready_fd)
{
	struct rdma_conn_param param;
	struct vt_pair p;
	struct ibv_wc wc[WINDOW];
	unsigned long got = 0;
	int port, i, n;

	if (vt_pair_listen(&p, RDMA_PS_TCP))
		victim_fail("listen");
	port = cm_port(p.listen);
	if (write(port_fd, &port, sizeof(port)) != sizeof(port))
		victim_fail("pipe");
	if (vt_server_take_request(&p, IBV_QPT_RC, BUF_LEN, VT_BUSY_POLL))
		victim_fail("request");
	for (i = 0; i < WINDOW; i++)
		if (vt_post_recv(&p.s, i, (size_t)i * MSG, MSG))
			victim_fail("post recv");
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	if (rdma_accept(p.s.id, &param))
		victim_fail("accept");
	for (;;) {
		n = ibv_poll_cq(p.s.cq, WINDOW, wc);
		if (n < 0)
			victim_fail("poll");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				victim_fail(ibv_wc_status_str(wc[i].status));
			if (vt_post_recv(&p.s, wc[i].wr_id,
					 wc[i].wr_id * MSG, MSG))
				victim_fail("repost");
			if (++got == BEFORE_KILL)
				victim_ready(ready_fd);
		}
	}
}

/* Waits for the victim's byte: 0, or -1 when it died or took too long. */
static int wait_ready(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, 4 * CM_TIMEOUT_MS) != 1 || read(fd, &c, 1) != 1) {
		fprintf(stderr, "# the victim never got ready\n");
		return -1;
	}
	return 0;
}

FIXTURE(kill) {
	pid_t victim;
	int ready[2], port[2];
	struct vt_pair p;
};

FIXTURE_VARIANT(kill) {
	enum victim_mode mode;
};

FIXTURE_VARIANT_ADD(kill, client_streaming) {
	.mode = STREAM_SENDS,
};

FIXTURE_VARIANT_ADD(kill, client_blocked_in_get_cq_event) {
	.mode = BLOCKED_IN_CQ_EVENT,
};

FIXTURE_VARIANT_ADD(kill, client_with_unacked_cq_event) {
	.mode = UNACKED_CQ_EVENT,
};

FIXTURE_VARIANT_ADD(kill, server_receiving) {
	.mode = SERVER_RECEIVING,
};

/*
 * The victim is forked before this process makes any RDMA object, so
 * that it shares none; it dies with us if we fail first.
 */
FIXTURE_SETUP(kill)
{
	memset(&self->p, 0, sizeof(self->p));
	ASSERT_EQ(0, pipe(self->ready));
	ASSERT_EQ(0, pipe(self->port));
	self->victim = fork();
	ASSERT_LE(0, self->victim);
	if (!self->victim) {
		int port;
		uint64_t raddr;
		uint32_t rkey;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (variant->mode == SERVER_RECEIVING)
			victim_server(self->port[1], self->ready[1]);
		if (read(self->port[0], &port, sizeof(port)) != sizeof(port) ||
		    read(self->port[0], &raddr, sizeof(raddr)) != sizeof(raddr) ||
		    read(self->port[0], &rkey, sizeof(rkey)) != sizeof(rkey))
			_exit(4);
		victim_client(variant->mode, port, raddr, rkey, self->ready[1]);
	}
}

FIXTURE_TEARDOWN(kill)
{
	if (self->victim > 0) {
		kill(self->victim, SIGKILL);
		waitpid(self->victim, NULL, 0);
	}
}

/*
 * The peer's view after the kill: DISCONNECTED, and its QP in the error
 * state with its posted requests flushed. rdmachan does that on the
 * event; stock librdmacm only once the peer calls rdma_disconnect (see
 * verbs_flush_test), so the peer calls it first on stock.
 */
static int after_kill(struct __test_metadata *_metadata,
		      struct rdma_event_channel *ch, struct vt_end *e)
{
	ASSERT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, e->id));
	if (VT_STOCK)
		EXPECT_EQ(0, rdma_disconnect(e->id));
	EXPECT_EQ(IBV_QPS_ERR, vt_qp_state(e->id->qp));
	return _metadata->passed ? 0 : -1;
}

/* Reaps the victim, which must have died of SIGKILL. */
static void reap(struct __test_metadata *_metadata, pid_t *victim)
{
	int status;

	ASSERT_EQ(*victim, waitpid(*victim, &status, 0));
	*victim = 0;
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		TH_LOG("victim status 0x%x", status);
	}
}

/* This process as the server of a killed client. */
static void serve_victim(struct __test_metadata *_metadata,
			 FIXTURE_DATA(kill) *self, enum victim_mode mode)
{
	struct vt_pair *p = &self->p;
	struct vt_end *s = &p->s;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	unsigned long got = 0, flushed = 0, posted = 0;
	struct ibv_wc wc[WINDOW];
	uint64_t raddr;
	uint32_t rkey;
	bool killed = false;
	long end;
	int port, i, n;

	/* resources first: the victim needs our buffer's address and rkey */
	ASSERT_EQ(0, vt_pair_listen(p, RDMA_PS_TCP));
	ASSERT_EQ(0, vt_end_open(s, p->listen->verbs, BUF_LEN, VT_BUSY_POLL));
	port = cm_port(p->listen);
	raddr = vt_raddr(s, 2 * WINDOW * MSG);
	rkey = s->mr->rkey;
	ASSERT_EQ(sizeof(port), write(self->port[1], &port, sizeof(port)));
	ASSERT_EQ(sizeof(raddr), write(self->port[1], &raddr, sizeof(raddr)));
	ASSERT_EQ(sizeof(rkey), write(self->port[1], &rkey, sizeof(rkey)));
	ev = cm_expect(p->sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL,
		       CM_TIMEOUT_MS);
	ASSERT_NE(NULL, ev);
	s->id = ev->id;
	rdma_ack_cm_event(ev);
	ASSERT_EQ(0, vt_create_qp(s, IBV_QPT_RC, NULL));
	for (i = 0; i < WINDOW; i++, posted++)
		ASSERT_EQ(0, vt_post_recv(s, i, (size_t)i * MSG, MSG));
	vt_conn_param(&param, cm_rep_data, sizeof(cm_rep_data));
	ASSERT_EQ(0, rdma_accept(s->id, &param));
	ASSERT_EQ(0, cm_expect_ok(p->sch, RDMA_CM_EVENT_ESTABLISHED, s->id));

	if (mode == UNACKED_CQ_EVENT) {
		vt_fill(s->buf + 3 * WINDOW * MSG, MSG, 1);
		ASSERT_EQ(0, vt_post_send(s, IBV_WR_SEND, 1000,
					  3 * WINDOW * MSG, MSG, 0, 0, 0, 0));
		ASSERT_EQ(0, vt_expect_wc(s, wc, IBV_WC_SEND, 1000));
	}
	/* a streaming victim is killed from the loop below, once it has sent */
	if (mode != STREAM_SENDS) {
		ASSERT_EQ(0, wait_ready(self->ready[0]));
		ASSERT_EQ(0, kill(self->victim, SIGKILL));
		killed = true;
	}
	/* receive (and check) until the kill has been seen and all came back */
	end = cm_now_ms() + 4 * CM_TIMEOUT_MS;
	while (cm_now_ms() < end) {
		n = ibv_poll_cq(s->cq, WINDOW, wc);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			unsigned int slot = (unsigned int)wc[i].wr_id % WINDOW;

			if (wc[i].status != IBV_WC_SUCCESS) {
				EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
				flushed++;
				continue;
			}
			ASSERT_EQ(IBV_WC_RECV, wc[i].opcode);
			/*
			 * Only the SEND's data is checked: the RDMA WRITE area
			 * is rewritten by later messages as we look.
			 */
			ASSERT_TRUE(vt_check(s->buf + slot * MSG, MSG,
					     (unsigned int)got));
			got++;
			if (!killed) {
				ASSERT_EQ(0, vt_post_recv(s, posted++,
							  (size_t)slot * MSG,
							  MSG));
			}
		}
		if (!killed && got >= BEFORE_KILL) {
			ASSERT_EQ(0, kill(self->victim, SIGKILL));
			killed = true;
		}
		if (killed && cm_poll(p->sch, 0) > 0)
			break;
	}
	ASSERT_TRUE(killed);
	ASSERT_EQ(0, after_kill(_metadata, p->sch, s));
	/* every receive is back: data, or flushed */
	end = cm_now_ms() + CM_TIMEOUT_MS;
	while (got + flushed < posted && cm_now_ms() < end) {
		n = ibv_poll_cq(s->cq, WINDOW, wc);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS) {
				got++;
				continue;
			}
			EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
			flushed++;
		}
	}
	EXPECT_EQ(posted, got + flushed);
	EXPECT_TRUE(vt_cq_quiet(s, CM_QUIET_MS));
	if (mode == STREAM_SENDS)
		EXPECT_LE(BEFORE_KILL, got);
	reap(_metadata, &self->victim);
	EXPECT_EQ(0, vt_pair_close(p));
}

/* This process as the client of a killed server, streaming sends to it. */
static void feed_victim(struct __test_metadata *_metadata,
			FIXTURE_DATA(kill) *self)
{
	struct vt_pair *p = &self->p;
	struct vt_end *c = &p->c;
	struct rdma_conn_param param;
	unsigned long sent = 0, ok = 0, failed = 0;
	struct ibv_wc wc[WINDOW];
	struct pollfd ready = { .fd = self->ready[0], .events = POLLIN };
	bool killed = false, disconnected = false;
	long end;
	int port, i, n;

	ASSERT_EQ(sizeof(port), read(self->port[0], &port, sizeof(port)));
	p->cch = rdma_create_event_channel();
	ASSERT_NE(NULL, p->cch);
	ASSERT_EQ(0, cm_resolve(p->cch, RDMA_PS_TCP, htons(port), &c->id));
	ASSERT_EQ(0, vt_end_open(c, c->id->verbs, BUF_LEN, VT_BUSY_POLL));
	ASSERT_EQ(0, vt_create_qp(c, IBV_QPT_RC, NULL));
	vt_conn_param(&param, cm_req_data, sizeof(cm_req_data));
	ASSERT_EQ(0, rdma_connect(c->id, &param));
	ASSERT_EQ(0, cm_expect_ok(p->cch, RDMA_CM_EVENT_ESTABLISHED, c->id));

	end = cm_now_ms() + 6 * CM_TIMEOUT_MS;
	while (cm_now_ms() < end) {
		while (!disconnected && sent - ok - failed < WINDOW) {
			size_t off = (sent % WINDOW) * MSG;

			vt_fill(c->buf + off, MSG, (unsigned int)sent);
			ASSERT_EQ(0, vt_post_send(c, IBV_WR_SEND, sent, off,
						  MSG, 0, 0, 0, 0));
			sent++;
		}
		n = ibv_poll_cq(c->cq, WINDOW, wc);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS) {
				EXPECT_EQ(0, failed);
				ok++;
			} else {
				/* flushed; or the peer was gone first */
				EXPECT_TRUE(wc[i].status == IBV_WC_WR_FLUSH_ERR ||
					    wc[i].status == IBV_WC_RETRY_EXC_ERR) {
					TH_LOG("status %s",
					       ibv_wc_status_str(wc[i].status));
				}
				failed++;
			}
		}
		if (!killed && poll(&ready, 1, 0) > 0) {
			ASSERT_EQ(0, kill(self->victim, SIGKILL));
			killed = true;
		}
		if (killed && !disconnected && cm_poll(p->cch, 0) > 0) {
			ASSERT_EQ(0, after_kill(_metadata, p->cch, c));
			disconnected = true;
		}
		if (disconnected && ok + failed == sent)
			break;
	}
	ASSERT_TRUE(disconnected);
	EXPECT_EQ(sent, ok + failed);
	EXPECT_LE(BEFORE_KILL, ok);
	EXPECT_TRUE(vt_cq_quiet(c, CM_QUIET_MS));
	reap(_metadata, &self->victim);
	EXPECT_EQ(0, vt_pair_close(p));
}

TEST_F_TIMEOUT(kill, peer_sees_disconnect_and_frees_all, 120)
{
	if (variant->mode == SERVER_RECEIVING)
		feed_victim(_metadata, self);
	else
		serve_victim(_metadata, self, variant->mode);
}

TEST_HARNESS_MAIN
