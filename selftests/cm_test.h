/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the connection-manager selftests (cm_*_test.c).
 *
 * They use only the rdma-core API (<rdma/rdma_cma.h>), so the same tests run
 * on the stock librdmacm + ucma and on rdmachan. Client and server live in
 * the test guest and connect to $RDMACHAN_ADDR (rxe0 loops it back).
 * Every wait is bounded: events are taken after a poll() with a timeout.
 */
#ifndef RDMACHAN_CM_TEST_H
#define RDMACHAN_CM_TEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#ifndef RDMACHAN_TEST_STOCK
#include <rdmachan/rdmachan.h>
#endif

#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

/* Generous: the guest runs under TCG on a loaded host. */
#define CM_TIMEOUT_MS	10000
/* How long "no further event" is watched for. */
#define CM_QUIET_MS	500
/* Address/route resolution timeout handed to the CM. */
#define CM_RESOLVE_MS	2000

/* The private data every test request carries. */
static const char cm_req_data[] = "rdmachan connect request";
static const char cm_rep_data[] = "rdmachan accept reply";
static const char cm_rej_data[] = "rdmachan says no";

static __maybe_unused const char *cm_test_addr(void)
{
	const char *addr = getenv("RDMACHAN_ADDR");

	return addr && *addr ? addr : "10.77.0.1";
}

/* The run is on iWARP (selftests/run-in-guest --siw): no UD, multicast, SIDR. */
static __maybe_unused bool cm_on_iwarp(void)
{
	const char *transport = getenv("RDMACHAN_TRANSPORT");

	return transport && !strcmp(transport, "iwarp");
}

/*
 * A REJECTED event's status: the reason a consumer's reject gives (28) on
 * IB and RoCE; iWARP's MPA reject has none, and the CM says -ECONNREFUSED.
 */
static __maybe_unused int cm_rejected_status(void)
{
	return cm_on_iwarp() ? -ECONNREFUSED : 28;
}

/* Skips the test on iWARP, which has no @what. */
#define CM_SKIP_ON_IWARP(what)						\
	do {								\
		if (cm_on_iwarp())					\
			SKIP(return, "iWARP has no %s", what);		\
	} while (0)

static __maybe_unused const char *cm_test_netdev(void)
{
	const char *dev = getenv("RDMACHAN_NETDEV");

	return dev && *dev ? dev : "rdmachan0";
}

/* @sin = @ip:@port, @port in network byte order. */
static __maybe_unused void cm_sockaddr(struct sockaddr_in *sin, const char *ip,
				       __be16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = port;
	inet_pton(AF_INET, ip, &sin->sin_addr);
}

/* Private data as the man pages have it: ours, then zeroes to the end. */
static __maybe_unused int cm_private_data_is(const void *got, int got_len,
					     const void *want, int want_len)
{
	const unsigned char *p = got;
	int i;

	if (!got || got_len < want_len || memcmp(got, want, want_len))
		return 0;
	for (i = want_len; i < got_len; i++)
		if (p[i])
			return 0;
	return 1;
}

static __maybe_unused long cm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static __maybe_unused void cm_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * rdma_destroy_id() of @id from a thread (pthread_create(..., cm_destroyer,
 * arg)): done tells whether it has returned, so that a test sees it wait
 * for an acknowledgement.
 */
struct cm_destroy_arg {
	struct rdma_cm_id *id;
	volatile int done;
};

static __maybe_unused void *cm_destroyer(void *p)
{
	struct cm_destroy_arg *arg = p;

	rdma_destroy_id(arg->id);
	arg->done = 1;
	return NULL;
}

/* Runs @cmd with sh -c in a child; its pid. */
static __maybe_unused pid_t cm_spawn(const char *cmd)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* The exit status of @pid within @ms, or -1 (and @pid killed). */
static __maybe_unused int cm_wait_pid(pid_t pid, int ms)
{
	long end = cm_now_ms() + ms;
	int status;

	while (cm_now_ms() < end) {
		pid_t ret = waitpid(pid, &status, WNOHANG);

		if (ret == pid)
			return status;
		if (ret < 0)
			return -1;
		cm_sleep_ms(20);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/*
 * Whole-test bound for calls that cannot be polled (synchronous ids):
 * SIGALRM's default action ends the test, which the harness reports.
 */
static __maybe_unused void cm_watchdog(unsigned int seconds)
{
	signal(SIGALRM, SIG_DFL);
	alarm(seconds);
}

/* 1 when @ch has an event within @timeout_ms, 0 when not, -1 on error. */
static __maybe_unused int cm_poll(struct rdma_event_channel *ch, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	long end = cm_now_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret == 0)
			return 0;
		if (ret > 0)
			return pfd.revents & POLLIN ? 1 : -1;
		if (errno != EINTR)
			return -1;
		timeout_ms = (int)(end - cm_now_ms());
		if (timeout_ms < 0)
			timeout_ms = 0;
	}
}

/*
 * The next event on @ch, waiting at most @timeout_ms: 0, or -1 with errno
 * (ETIMEDOUT when nothing came). Only for channels that one thread reads.
 */
static __maybe_unused int cm_get_event(struct rdma_event_channel *ch,
				       struct rdma_cm_event **ev, int timeout_ms)
{
	int ret = cm_poll(ch, timeout_ms);

	if (ret <= 0) {
		if (!ret)
			errno = ETIMEDOUT;
		return -1;
	}
	return rdma_get_cm_event(ch, ev);
}

static __maybe_unused const char *cm_ev_name(int type)
{
	return rdma_event_str((enum rdma_cm_event_type)type);
}

/*
 * The next event on @ch, which must be @type for @id (any id when NULL);
 * the caller acks it. NULL (and a log line saying what came instead) when
 * it is something else or nothing comes within @timeout_ms. An unexpected
 * event is acked here.
 */
static __maybe_unused struct rdma_cm_event *
cm_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
	  struct rdma_cm_id *id, int timeout_ms)
{
	struct rdma_cm_event *ev;

	if (cm_get_event(ch, &ev, timeout_ms)) {
		fprintf(stderr, "# waiting for %s: %s\n", cm_ev_name(type),
			strerror(errno));
		return NULL;
	}
	if (ev->event != type || (id && ev->id != id)) {
		fprintf(stderr, "# waiting for %s on id %p: got %s (status %d) on id %p\n",
			cm_ev_name(type), (void *)id, cm_ev_name(ev->event),
			ev->status, (void *)ev->id);
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

/* cm_expect() that also wants status 0, and acks: 0 or -1. */
static __maybe_unused int cm_expect_ok(struct rdma_event_channel *ch,
				       enum rdma_cm_event_type type,
				       struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev = cm_expect(ch, type, id, CM_TIMEOUT_MS);
	int status;

	if (!ev)
		return -1;
	status = ev->status;
	rdma_ack_cm_event(ev);
	if (status) {
		fprintf(stderr, "# %s with status %d\n", cm_ev_name(type), status);
		return -1;
	}
	return 0;
}

/*
 * 1 when no event arrives on @ch for @ms; 0 (and the event, logged and
 * acked) when one does.
 */
static __maybe_unused int cm_quiet(struct rdma_event_channel *ch, int ms)
{
	struct rdma_cm_event *ev;

	if (cm_poll(ch, ms) == 0)
		return 1;
	if (!rdma_get_cm_event(ch, &ev)) {
		fprintf(stderr, "# unexpected %s (status %d) on id %p\n",
			cm_ev_name(ev->event), ev->status, (void *)ev->id);
		rdma_ack_cm_event(ev);
	}
	return 0;
}

/* One expected event in a set that may come in any order. */
struct cm_want {
	struct rdma_cm_id *id;
	enum rdma_cm_event_type type;
	int seen;
};

/*
 * Waits until every entry of @want has come exactly once on @ch, in any
 * order, each with status 0; acks them. Any other event fails: -1.
 */
static __maybe_unused int cm_expect_all(struct rdma_event_channel *ch,
					struct cm_want *want, int n,
					int timeout_ms)
{
	long end = cm_now_ms() + timeout_ms;
	struct rdma_cm_event *ev;
	int left = n, i, ok;

	while (left) {
		long rest = end - cm_now_ms();

		if (cm_get_event(ch, &ev, rest > 0 ? (int)rest : 0)) {
			for (i = 0; i < n; i++)
				if (!want[i].seen)
					fprintf(stderr, "# still waiting for %s on id %p: %s\n",
						cm_ev_name(want[i].type),
						(void *)want[i].id, strerror(errno));
			return -1;
		}
		for (i = 0; i < n; i++)
			if (!want[i].seen && want[i].id == ev->id &&
			    want[i].type == ev->event)
				break;
		ok = i < n && !ev->status;
		if (!ok)
			fprintf(stderr, "# unexpected %s (status %d) on id %p\n",
				cm_ev_name(ev->event), ev->status, (void *)ev->id);
		else
			want[i].seen = 1;
		rdma_ack_cm_event(ev);
		if (!ok)
			return -1;
		left--;
	}
	return 0;
}

/* The port @id is bound to, host byte order. */
static __maybe_unused int cm_port(struct rdma_cm_id *id)
{
	return ntohs(rdma_get_src_port(id));
}

/*
 * A listener of port space @ps on @ch, bound to the test address and an
 * ephemeral port: 0, or -1 with errno.
 */
static __maybe_unused int cm_listen(struct rdma_event_channel *ch,
				    enum rdma_port_space ps, int backlog,
				    struct rdma_cm_id **listen_id)
{
	struct sockaddr_in sin;
	int err;

	if (rdma_create_id(ch, listen_id, NULL, ps))
		return -1;
	cm_sockaddr(&sin, cm_test_addr(), 0);
	if (rdma_bind_addr(*listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(*listen_id, backlog)) {
		err = errno;
		rdma_destroy_id(*listen_id);
		*listen_id = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

/* Starts address resolution of @id towards the test address, port @port. */
static __maybe_unused int cm_resolve_addr(struct rdma_cm_id *id, __be16 port)
{
	struct sockaddr_in dst;

	cm_sockaddr(&dst, cm_test_addr(), port);
	return rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				 CM_RESOLVE_MS);
}

/*
 * A new id of port space @ps on @ch with address and route resolved
 * towards the test address, port @port (network order): 0 or -1.
 */
static __maybe_unused int cm_resolve(struct rdma_event_channel *ch,
				     enum rdma_port_space ps, __be16 port,
				     struct rdma_cm_id **id)
{
	if (rdma_create_id(ch, id, NULL, ps))
		return -1;
	if (cm_resolve_addr(*id, port) ||
	    cm_expect_ok(ch, RDMA_CM_EVENT_ADDR_RESOLVED, *id) ||
	    rdma_resolve_route(*id, CM_RESOLVE_MS) ||
	    cm_expect_ok(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, *id)) {
		fprintf(stderr, "# resolving towards %s:%d: %s\n",
			cm_test_addr(), ntohs(port), strerror(errno));
		rdma_destroy_id(*id);
		*id = NULL;
		return -1;
	}
	return 0;
}

/*
 * Connection parameters for an id without a QP: @qp_num stands for the QP
 * the CM advertises, and travels to the peer.
 */
static __maybe_unused void cm_conn_param(struct rdma_conn_param *p,
					 uint32_t qp_num, const void *data,
					 size_t len)
{
	memset(p, 0, sizeof(*p));
	p->private_data = data;
	p->private_data_len = (uint8_t)len;
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->qp_num = qp_num;
}

/*
 * The IB CM refuses a second live connection from a CA with a QP number
 * it already has one with (REJ "stale connection"): ids without QPs must
 * still advertise distinct numbers. Tests that check the numbers use these
 * two; cm_next_qpn() hands out others.
 */
#define CM_CLIENT_QPN	0x1234
#define CM_SERVER_QPN	0x5678

static __maybe_unused uint32_t cm_next_qpn(void)
{
	static uint32_t next = 0x10000;

	return __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) & 0xffffff;
}

/* Both ends of one connection without QPs. */
struct cm_conn {
	struct rdma_cm_id *client;	/* active side, on the client channel */
	struct rdma_cm_id *server;	/* passive side, from CONNECT_REQUEST */
};

/*
 * Connects a new id on @cch to @listen_id (on @sch; the two may be one
 * channel), without QPs: client connect, server accept, client establish.
 * Returns 0 with both ids connected and every event acked, or -1.
 */
static __maybe_unused int cm_connect_pair(struct rdma_event_channel *cch,
					  struct rdma_event_channel *sch,
					  struct rdma_cm_id *listen_id,
					  struct cm_conn *c)
{
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;

	memset(c, 0, sizeof(*c));
	if (cm_resolve(cch, listen_id->ps, rdma_get_src_port(listen_id),
		       &c->client))
		return -1;
	cm_conn_param(&param, cm_next_qpn(), cm_req_data, sizeof(cm_req_data));
	if (rdma_connect(c->client, &param)) {
		fprintf(stderr, "# rdma_connect: %s\n", strerror(errno));
		goto err;
	}
	ev = cm_expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, CM_TIMEOUT_MS);
	if (!ev)
		goto err;
	c->server = ev->id;
	rdma_ack_cm_event(ev);
	cm_conn_param(&param, cm_next_qpn(), cm_rep_data, sizeof(cm_rep_data));
	if (rdma_accept(c->server, &param)) {
		fprintf(stderr, "# rdma_accept: %s\n", strerror(errno));
		goto err;
	}
	if (cm_expect_ok(cch, RDMA_CM_EVENT_CONNECT_RESPONSE, c->client))
		goto err;
	if (rdma_establish(c->client)) {
		fprintf(stderr, "# rdma_establish: %s\n", strerror(errno));
		goto err;
	}
	if (cm_expect_ok(sch, RDMA_CM_EVENT_ESTABLISHED, c->server))
		goto err;
	return 0;
err:
	if (c->server)
		rdma_destroy_id(c->server);
	rdma_destroy_id(c->client);
	memset(c, 0, sizeof(*c));
	return -1;
}

/*
 * Orderly teardown of @c: client disconnects, the server sees DISCONNECTED
 * and disconnects too, the client sees DISCONNECTED. Ids stay. 0 or -1.
 */
static __maybe_unused int cm_disconnect_pair(struct rdma_event_channel *cch,
					     struct rdma_event_channel *sch,
					     struct cm_conn *c)
{
	if (rdma_disconnect(c->client) ||
	    cm_expect_ok(sch, RDMA_CM_EVENT_DISCONNECTED, c->server) ||
	    rdma_disconnect(c->server) ||
	    cm_expect_ok(cch, RDMA_CM_EVENT_DISCONNECTED, c->client))
		return -1;
	return 0;
}

/*
 * Acks every event that arrives on @ch within @ms (TIMEWAIT_EXIT after a
 * disconnect, typically), so that the ids can be destroyed.
 */
static __maybe_unused void cm_drain(struct rdma_event_channel *ch, int ms)
{
	struct rdma_cm_event *ev;

	while (cm_poll(ch, ms) > 0 && !rdma_get_cm_event(ch, &ev))
		rdma_ack_cm_event(ev);
}

/*
 * Whether the verbs objects of this test are uverbs' and its provider's:
 * on the stock stack, and through librdmachan in bypass mode. The CM is
 * rdmachan's in both of rdmachan's modes.
 */
static inline bool cm_verbs_are_uverbs(void)
{
#ifdef RDMACHAN_TEST_STOCK
	return true;
#else
	return rdmachan_get_mode() == RDMACHAN_MODE_BYPASS;
#endif
}

/*
 * SKIP, on the stock stack, a device removal test whose process holds a
 * uverbs context when ib_uverbs would wait for it before any
 * DEVICE_REMOVAL is sent. rdmachan runs it in either order
 * (device_removal_order_test.sh runs it in this one).
 */
#ifdef RDMACHAN_TEST_STOCK
#define CM_SKIP_IF_UVERBS_REMOVED_FIRST()					\
	do {									\
		if (uverbs_removed_before_cm())				\
			SKIP(return, "ib_uverbs, registered after rdma_cm, "	\
			     "waits for this process to close its device "	\
			     "context before rdma_cm sends DEVICE_REMOVAL");	\
	} while (0)
#else
#define CM_SKIP_IF_UVERBS_REMOVED_FIRST() do { } while (0)
#endif

#endif /* RDMACHAN_CM_TEST_H */
