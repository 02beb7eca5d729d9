// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Faults under CM traffic: a child process keeps connections coming and
 * going (a listener and eight clients in flight on one channel) while the
 * test kills it with SIGKILL, deletes the rxe link, or takes the netdev
 * down and up between bursts. After each, the child ends (killed, or cleanly when told
 * to stop), connections work again, and the runner checks that the
 * module's live-object counters are back to zero.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "cm_test.h"
#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define CHURN_INFLIGHT	8
#define CHURN_MAX_IDS	64
/* A client that got nowhere in this long is given up, as programs do. */
#define CHURN_STALE_MS	5000
/* Under TCG a link deletion or a recovery takes many seconds. */
#define FAULT_TIMEOUT_S	300

/* Shared with the parent: what the child has seen so far. */
struct churn_stats {
	volatile int stop;
	/* no new clients while set; @clients says how many are still out */
	volatile int hold;
	volatile int clients;
	volatile long connected;
	volatile long refused;
	volatile long removals;
	volatile long abandoned;
	volatile long listeners;
};

enum { CTX_CLIENT = 1, CTX_SERVER, CTX_LISTEN };

struct churn {
	struct churn_stats *stats;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *ids[CHURN_MAX_IDS];
	long born_ms[CHURN_MAX_IDS];
	int clients;
};

static int churn_track(struct churn *c, struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < CHURN_MAX_IDS; i++)
		if (!c->ids[i]) {
			c->ids[i] = id;
			c->born_ms[i] = cm_now_ms();
			return 0;
		}
	return -1;
}

static void churn_destroy(struct churn *c, struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < CHURN_MAX_IDS; i++)
		if (c->ids[i] == id)
			c->ids[i] = NULL;
	if (id == c->listen)
		c->listen = NULL;
	else if (id->context == (void *)CTX_CLIENT)
		c->clients--;
	rdma_destroy_id(id);
}

/* Listens again after the device came back; quietly fails until then. */
static void churn_listen(struct churn *c)
{
	if (c->listen || cm_listen(c->ch, RDMA_PS_TCP, 8, &c->listen))
		return;
	c->listen->context = (void *)CTX_LISTEN;
	c->stats->listeners++;
}

static void churn_start_client(struct churn *c)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(c->ch, &id, (void *)CTX_CLIENT, RDMA_PS_TCP))
		return;
	if (churn_track(c, id) ||
	    cm_resolve_addr(id, rdma_get_src_port(c->listen))) {
		rdma_destroy_id(id);
		return;
	}
	c->clients++;
}

/* One event, acked before any destroy it leads to. */
static void churn_event(struct churn *c, struct rdma_cm_event *ev)
{
	enum rdma_cm_event_type type = ev->event;
	struct rdma_cm_id *id = ev->id;
	struct rdma_conn_param param;
	int gone = 0;

	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		gone = rdma_resolve_route(id, CM_RESOLVE_MS) != 0;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		cm_conn_param(&param, cm_next_qpn(), NULL, 0);
		gone = rdma_connect(id, &param) != 0;
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		id->context = (void *)CTX_SERVER;
		cm_conn_param(&param, cm_next_qpn(), NULL, 0);
		gone = churn_track(c, id) || rdma_accept(id, &param);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		gone = rdma_establish(id) || rdma_disconnect(id);
		if (!gone)
			c->stats->connected++;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (id->context == (void *)CTX_SERVER)
			rdma_disconnect(id);
		gone = 1;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		c->stats->removals++;
		gone = 1;
		break;
	default:
		/* address, route, connect errors: the device went away */
		c->stats->refused++;
		gone = 1;
	}
	rdma_ack_cm_event(ev);
	if (gone)
		churn_destroy(c, id);
}

/*
 * Requests sent while the link was down are retried by the CM for a
 * minute or more; the churn gives such clients up instead.
 */
static void churn_reap_stale(struct churn *c)
{
	long now = cm_now_ms();
	int i;

	for (i = 0; i < CHURN_MAX_IDS; i++)
		if (c->ids[i] && c->ids[i]->context == (void *)CTX_CLIENT &&
		    now - c->born_ms[i] > CHURN_STALE_MS) {
			c->stats->abandoned++;
			churn_destroy(c, c->ids[i]);
		}
}

/* The child: connections come and go until stats->stop, then teardown. */
static int churn_run(struct churn_stats *stats)
{
	struct churn c = { .stats = stats };
	struct rdma_cm_event *ev;
	int i;

	c.ch = rdma_create_event_channel();
	if (!c.ch)
		return 1;
	while (!stats->stop) {
		churn_listen(&c);
		while (c.listen && !stats->hold && c.clients < CHURN_INFLIGHT)
			churn_start_client(&c);
		stats->clients = c.clients;
		if (cm_poll(c.ch, 50) > 0 && !rdma_get_cm_event(c.ch, &ev))
			churn_event(&c, ev);
		churn_reap_stale(&c);
	}
	for (i = 0; i < CHURN_MAX_IDS; i++)
		if (c.ids[i])
			rdma_destroy_id(c.ids[i]);
	if (c.listen)
		rdma_destroy_id(c.listen);
	/* events queued for the destroyed ids go with the channel */
	rdma_destroy_event_channel(c.ch);
	return 0;
}

FIXTURE(faults) {
	struct churn_stats *stats;
	pid_t child;
};

FIXTURE_SETUP(faults)
{
	ASSERT_EQ(0, rxe_restore());
	self->stats = mmap(NULL, sizeof(*self->stats), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->stats);
	self->child = -1;
}

FIXTURE_TEARDOWN(faults)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	EXPECT_EQ(0, rxe_restore());
	munmap(self->stats, sizeof(*self->stats));
}

static pid_t churn_start(struct churn_stats *stats)
{
	pid_t pid;

	memset((void *)stats, 0, sizeof(*stats));
	pid = fork();
	if (pid == 0)
		_exit(churn_run(stats));
	return pid;
}

/* Waits until the child has made @n more connections: 0, or -1. */
static int churn_progress(struct churn_stats *stats, long n, long ms)
{
	long want = stats->connected + n, end = cm_now_ms() + ms;

	while (stats->connected < want) {
		if (cm_now_ms() > end) {
			fprintf(stderr, "# churn stuck at %ld connections, %ld refused, %ld abandoned, %ld removals\n",
				stats->connected, stats->refused,
				stats->abandoned, stats->removals);
			return -1;
		}
		cm_sleep_ms(20);
	}
	return 0;
}

/* The child's wait status within @ms, or -1 (then it is killed). */
static int churn_reap(pid_t pid, long ms)
{
	long end = cm_now_ms() + ms;
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (cm_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		cm_sleep_ms(10);
	}
	return status;
}

/* One whole connection in this process, after the fault. */
static void connect_once(struct __test_metadata *_metadata)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen;
	struct cm_conn conn;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, cm_listen(ch, RDMA_PS_TCP, 4, &listen));
	ASSERT_EQ(0, cm_connect_pair(ch, ch, listen, &conn));
	EXPECT_EQ(0, rdma_disconnect(conn.client));
	EXPECT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, conn.server));
	EXPECT_EQ(0, rdma_disconnect(conn.server));
	EXPECT_EQ(0, cm_expect_ok(ch, RDMA_CM_EVENT_DISCONNECTED, conn.client));
	rdma_destroy_id(conn.server);
	rdma_destroy_id(conn.client);
	rdma_destroy_id(listen);
	rdma_destroy_event_channel(ch);
}

/* SIGKILL at three points of the churn: the child always goes at once. */
TEST_F_TIMEOUT(faults, kill_during_connection_churn, FAULT_TIMEOUT_S)
{
	static const long delays_ms[] = { 0, 130, 370 };
	unsigned int i;
	int status;

	for (i = 0; i < sizeof(delays_ms) / sizeof(delays_ms[0]); i++) {
		self->child = churn_start(self->stats);
		ASSERT_LT(0, self->child);
		ASSERT_EQ(0, churn_progress(self->stats, 3, 3 * CM_TIMEOUT_MS));
		cm_sleep_ms(delays_ms[i]);
		ASSERT_EQ(0, kill(self->child, SIGKILL));
		status = churn_reap(self->child, CM_TIMEOUT_MS);
		self->child = -1;
		ASSERT_NE(-1, status);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		TH_LOG("killed after %ld connections", self->stats->connected);
	}
	connect_once(_metadata);
}

/* A process blocked in rdma_get_request on a synchronous id dies at once. */
TEST_F(faults, kill_in_get_request)
{
	struct rdma_cm_id *listen, *req;
	struct sockaddr_in sin;
	long t0;
	int status;

	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		cm_sockaddr(&sin, cm_test_addr(), 0);
		if (rdma_create_id(NULL, &listen, NULL, RDMA_PS_TCP) ||
		    rdma_bind_addr(listen, (struct sockaddr *)&sin) ||
		    rdma_listen(listen, 1))
			_exit(2);
		self->stats->listeners = 1;
		rdma_get_request(listen, &req);
		_exit(3);
	}
	t0 = cm_now_ms();
	while (!self->stats->listeners && cm_now_ms() - t0 < CM_TIMEOUT_MS)
		cm_sleep_ms(10);
	ASSERT_EQ(1, self->stats->listeners);
	cm_sleep_ms(300);
	ASSERT_EQ(0, waitpid(self->child, &status, WNOHANG));
	t0 = cm_now_ms();
	ASSERT_EQ(0, kill(self->child, SIGKILL));
	status = churn_reap(self->child, CM_TIMEOUT_MS);
	self->child = -1;
	TH_LOG("exited %ld ms after SIGKILL", cm_now_ms() - t0);
	ASSERT_NE(-1, status);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* Stops the child and checks it tore everything down and exited 0. */
static void churn_stop(struct __test_metadata *_metadata, struct churn_stats *s,
		       pid_t *child)
{
	int status;

	s->stop = 1;
	status = churn_reap(*child, 3 * CM_TIMEOUT_MS);
	*child = -1;
	ASSERT_NE(-1, status);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * `rdma link delete` while connections come and go: the deletion does not
 * wait on the process, the ids get DEVICE_REMOVAL (or errors), and once
 * the link is back the same process connects again. The stock stack
 * cannot do this over rxe: ib_uverbs waits for the process to close its
 * device context, since rxe cannot disassociate one.
 */
TEST_F_TIMEOUT(faults, link_delete_during_connection_churn, FAULT_TIMEOUT_S)
{
	long t0;

	if (cm_verbs_are_uverbs())
		SKIP(return, "ib_uverbs waits for the process to close its context");

	self->child = churn_start(self->stats);
	ASSERT_LT(0, self->child);
	ASSERT_EQ(0, churn_progress(self->stats, 3, 3 * CM_TIMEOUT_MS));
	t0 = cm_now_ms();
	ASSERT_EQ(0, run_cmd("timeout 60 rdma link delete %s", RDMACHAN_TEST_DEVICE));
	TH_LOG("link deleted in %ld ms", cm_now_ms() - t0);
	EXPECT_GT(30000, cm_now_ms() - t0);
	t0 = cm_now_ms();
	while (!self->stats->removals && cm_now_ms() - t0 < CM_TIMEOUT_MS)
		cm_sleep_ms(20);
	EXPECT_LE(1, self->stats->removals);
	ASSERT_EQ(0, rxe_restore());
	ASSERT_EQ(0, churn_progress(self->stats, 3, 6 * CM_TIMEOUT_MS));
	TH_LOG("%ld connections, %ld refused, %ld removals, %ld listeners",
	       self->stats->connected, self->stats->refused,
	       self->stats->removals, self->stats->listeners);
	EXPECT_LE(2, self->stats->listeners);
	churn_stop(_metadata, self->stats, &self->child);
}

/*
 * The netdev goes down and up between bursts of connections: the churn
 * picks up again by itself. (Not with CM messages in flight: on 6.1 a
 * MAD that rxe was sending when the netdev went down never completes,
 * and destroying its IB CM id then waits forever, on the stock stack as
 * well. That kernel bug is out of our reach.)
 */
TEST_F_TIMEOUT(faults, netdev_down_up_between_connections, FAULT_TIMEOUT_S)
{
	long t0;

	self->child = churn_start(self->stats);
	ASSERT_LT(0, self->child);
	ASSERT_EQ(0, churn_progress(self->stats, 3, 3 * CM_TIMEOUT_MS));
	self->stats->hold = 1;
	t0 = cm_now_ms();
	while (self->stats->clients && cm_now_ms() - t0 < 2 * CM_TIMEOUT_MS)
		cm_sleep_ms(20);
	ASSERT_EQ(0, self->stats->clients);
	/* the passive sides finish their disconnects */
	cm_sleep_ms(500);
	ASSERT_EQ(0, run_cmd("ip link set %s down", cm_test_netdev()));
	cm_sleep_ms(1000);
	ASSERT_EQ(0, run_cmd("ip link set %s up", cm_test_netdev()));
	ASSERT_EQ(0, rxe_restore());
	self->stats->hold = 0;
	ASSERT_EQ(0, churn_progress(self->stats, 3, 6 * CM_TIMEOUT_MS));
	TH_LOG("%ld connections, %ld refused, %ld abandoned",
	       self->stats->connected, self->stats->refused,
	       self->stats->abandoned);
	churn_stop(_metadata, self->stats, &self->child);
	connect_once(_metadata);
}

TEST_HARNESS_MAIN
