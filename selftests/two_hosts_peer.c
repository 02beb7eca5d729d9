// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Both ends of the two-host test (selftests/two-hosts), one per VM, over
 * the rdma-core CM API.
 *
 *   two_hosts_peer server LOCAL_IP PORT
 *	accepts the first connection, holds the second request unanswered,
 *	and sends a UDP heartbeat to each client until it is killed.
 *   two_hosts_peer client SERVER_IP PORT
 *	makes one connection and one request the server holds, says "ready",
 *	and waits for the heartbeat to stop (the host killed the server's
 *	VM). Then it disconnects and expects, within the CM's timeouts,
 *	DISCONNECTED for the connection and UNREACHABLE (or REJECTED) for
 *	the request, tears everything down and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define HEARTBEAT_MS	200
/* No heartbeat for this long: the server's host is gone. */
#define PEER_DEAD_MS	3000
/* The CM's REQ and DREQ retries take minutes at their default timeouts. */
#define CM_GIVE_UP_MS	400000

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void sockaddr_of(struct sockaddr_in *sin, const char *ip, int port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		exit(2);
	}
}

/* The next event within @ms: 0, or -1 (nothing came, or an error). */
static int next_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev,
		      int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	return rdma_get_cm_event(ch, ev);
}

static void conn_param(struct rdma_conn_param *p, uint32_t qp_num)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->qp_num = qp_num;
}

static int run_server(const char *ip, int port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin, peers[2];
	struct rdma_conn_param param;
	struct rdma_cm_id *listen;
	struct rdma_cm_event *ev;
	int requests = 0, udp, i;

	udp = socket(AF_INET, SOCK_DGRAM, 0);
	sockaddr_of(&sin, ip, port);
	if (!ch || udp < 0 || rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen, (struct sockaddr *)&sin) ||
	    rdma_listen(listen, 4)) {
		perror("server set-up");
		return 1;
	}
	say("server: listening on %s:%d", ip, port);
	for (;;) {
		for (i = 0; i < requests; i++)
			sendto(udp, "beat", 4, 0, (struct sockaddr *)&peers[i],
			       sizeof(peers[i]));
		if (next_event(ch, &ev, HEARTBEAT_MS))
			continue;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && requests < 2) {
			memcpy(&peers[requests], rdma_get_peer_addr(ev->id),
			       sizeof(peers[0]));
			peers[requests].sin_port = htons(port);
			if (requests++ == 0) {
				conn_param(&param, 0x200);
				if (rdma_accept(ev->id, &param))
					perror("rdma_accept");
				say("server: accepted the first request");
			} else {
				say("server: holding the second request");
			}
		} else {
			say("server: %s status %d", rdma_event_str(ev->event),
			    ev->status);
		}
		rdma_ack_cm_event(ev);
	}
}

struct client {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *conn, *req;
	int conn_event, req_event;	/* -1 until one comes */
	int conn_status, req_status;
};

/* Connects @id towards @dst: up to CONNECT_RESPONSE if @wait_reply. */
static int client_connect(struct client *c, struct rdma_cm_id *id,
			  struct sockaddr_in *dst, uint32_t qp_num,
			  int wait_reply)
{
	static const enum rdma_cm_event_type steps[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_CONNECT_RESPONSE,
	};
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	int step, ok;

	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 5000))
		return -1;
	for (step = 0; step < 3; step++) {
		if (step == 2 && !wait_reply)
			return 0;
		if (next_event(c->ch, &ev, 30000)) {
			fprintf(stderr, "client: no %s\n", rdma_event_str(steps[step]));
			return -1;
		}
		ok = ev->id == id && ev->event == steps[step] && !ev->status;
		if (!ok)
			fprintf(stderr, "client: %s status %d instead of %s\n",
				rdma_event_str(ev->event), ev->status,
				rdma_event_str(steps[step]));
		rdma_ack_cm_event(ev);
		if (!ok)
			return -1;
		if (step == 0 && rdma_resolve_route(id, 5000))
			return -1;
		if (step == 1) {
			conn_param(&param, qp_num);
			if (rdma_connect(id, &param))
				return -1;
		}
	}
	return rdma_establish(id);
}

static int run_client(const char *ip, int port)
{
	struct client c = { .conn_event = -1, .req_event = -1 };
	struct sockaddr_in dst, me;
	struct rdma_cm_event *ev;
	long last_beat, start;
	char buf[8];
	int udp;

	sockaddr_of(&dst, ip, port);
	c.ch = rdma_create_event_channel();
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	memset(&me, 0, sizeof(me));
	me.sin_family = AF_INET;
	me.sin_port = htons(port);
	if (!c.ch || udp < 0 || bind(udp, (struct sockaddr *)&me, sizeof(me)) ||
	    rdma_create_id(c.ch, &c.conn, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(c.ch, &c.req, NULL, RDMA_PS_TCP)) {
		perror("client set-up");
		return 1;
	}
	if (client_connect(&c, c.conn, &dst, 0x100, 1)) {
		perror("client: connection");
		return 1;
	}
	say("client: connected");
	if (client_connect(&c, c.req, &dst, 0x101, 0)) {
		perror("client: request");
		return 1;
	}
	say("client: request sent");

	/* Wait for the heartbeat to start, then for it to stop. */
	last_beat = 0;
	start = now_ms();
	while (!last_beat || now_ms() - last_beat < PEER_DEAD_MS) {
		struct pollfd pfd[2] = {
			{ .fd = udp, .events = POLLIN },
			{ .fd = c.ch->fd, .events = POLLIN },
		};

		if (!last_beat && now_ms() - start > 60000) {
			say("client: no heartbeat from the server");
			return 1;
		}
		poll(pfd, 2, 100);
		while (recv(udp, buf, sizeof(buf), 0) > 0) {
			if (!last_beat)
				say("client: ready");
			last_beat = now_ms();
		}
		if ((pfd[1].revents & POLLIN) && !rdma_get_cm_event(c.ch, &ev)) {
			say("client: early %s status %d", rdma_event_str(ev->event),
			    ev->status);
			rdma_ack_cm_event(ev);
		}
	}
	say("client: the server is gone; disconnecting");
	start = now_ms();
	if (rdma_disconnect(c.conn))
		perror("rdma_disconnect");
	while ((c.conn_event < 0 || c.req_event < 0) &&
	       now_ms() - start < CM_GIVE_UP_MS) {
		if (next_event(c.ch, &ev, 1000))
			continue;
		say("client: %s status %d on the %s after %ld s",
		    rdma_event_str(ev->event), ev->status,
		    ev->id == c.conn ? "connection" : "request",
		    (now_ms() - start) / 1000);
		if (ev->id == c.conn && c.conn_event < 0) {
			c.conn_event = ev->event;
			c.conn_status = ev->status;
		} else if (ev->id == c.req && c.req_event < 0) {
			c.req_event = ev->event;
			c.req_status = ev->status;
		}
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(c.conn);
	rdma_destroy_id(c.req);
	rdma_destroy_event_channel(c.ch);
	if (c.conn_event != RDMA_CM_EVENT_DISCONNECTED ||
	    (c.req_event != RDMA_CM_EVENT_UNREACHABLE &&
	     c.req_event != RDMA_CM_EVENT_REJECTED &&
	     c.req_event != RDMA_CM_EVENT_CONNECT_ERROR)) {
		say("client: FAILED: connection %s, request %s",
		    c.conn_event < 0 ? "nothing" : rdma_event_str(c.conn_event),
		    c.req_event < 0 ? "nothing" : rdma_event_str(c.req_event));
		return 1;
	}
	say("client: torn down cleanly");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return run_server(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "client"))
		return run_client(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: %s server LOCAL_IP PORT | client SERVER_IP PORT\n",
		argv[0]);
	return 2;
}
