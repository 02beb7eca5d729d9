// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-connect: makes one connection to ADDRESS (default
 * $RDMACHAN_ADDR) through the rdma-core CM API, a listener and a client on
 * one event channel, and tears it down, printing every event.
 *
 *   rdmachan-connect [ADDRESS [PORT]]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rdma_cm_id *listen_id, *client, *server;

static const char *side(struct rdma_cm_id *id)
{
	if (id == listen_id)
		return "listener";
	return id == client ? "client" : "server";
}

/* Waits for @type, prints it and acks it; exits on anything else. */
static struct rdma_cm_id *expect(struct rdma_event_channel *ch,
				 enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	char addr[INET6_ADDRSTRLEN] = "";

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		exit(1);
	}
	id = ev->id;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		server = id;
	inet_ntop(AF_INET, &((struct sockaddr_in *)rdma_get_peer_addr(id))->sin_addr,
		  addr, sizeof(addr));
	printf("%-8s %-32s status %d peer %s:%u", side(id),
	       rdma_event_str(ev->event), ev->status, addr,
	       ntohs(rdma_get_dst_port(id)));
	if (ev->param.conn.private_data_len && ev->param.conn.private_data)
		printf(" private data \"%.*s\"", ev->param.conn.private_data_len,
		       (const char *)ev->param.conn.private_data);
	printf("\n");
	if (ev->event != type) {
		fprintf(stderr, "expected %s\n", rdma_event_str(type));
		exit(1);
	}
	rdma_ack_cm_event(ev);
	return id;
}

int main(int argc, char **argv)
{
	const char *address = argc > 1 ? argv[1] : getenv("RDMACHAN_ADDR");
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_event_channel *ch;

	sin.sin_port = htons(argc > 2 ? atoi(argv[2]) : 7174);
	if (!address || inet_pton(AF_INET, address, &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: %s ADDRESS [PORT]\n", argv[0]);
		return 2;
	}
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(listen_id, 1) ||
	    rdma_create_id(ch, &client, NULL, RDMA_PS_TCP)) {
		perror("listen");
		return 1;
	}
	printf("listening on %s:%u, device %s\n", address, ntohs(sin.sin_port),
	       ibv_get_device_name(listen_id->verbs->device));

	if (rdma_resolve_addr(client, NULL, (struct sockaddr *)&sin, 2000))
		return perror("rdma_resolve_addr"), 1;
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(client, 2000))
		return perror("rdma_resolve_route"), 1;
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);

	/* Without QPs, each side names a QP number of its own. */
	param.private_data = "hello";
	param.private_data_len = 6;
	param.qp_num = 0x100 + (getpid() & 0xfff);
	if (rdma_connect(client, &param))
		return perror("rdma_connect"), 1;
	expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	param.private_data = "welcome";
	param.private_data_len = 8;
	param.qp_num = 0x200000 + (getpid() & 0xfff);
	if (rdma_accept(server, &param))
		return perror("rdma_accept"), 1;
	expect(ch, RDMA_CM_EVENT_CONNECT_RESPONSE);
	if (rdma_establish(client))
		return perror("rdma_establish"), 1;
	expect(ch, RDMA_CM_EVENT_ESTABLISHED);

	if (rdma_disconnect(client))
		return perror("rdma_disconnect"), 1;
	expect(ch, RDMA_CM_EVENT_DISCONNECTED);
	/* The server answers the client's disconnect request with its own. */
	if (rdma_disconnect(server))
		return perror("rdma_disconnect"), 1;
	expect(ch, RDMA_CM_EVENT_DISCONNECTED);

	rdma_destroy_id(server);
	rdma_destroy_id(client);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	printf("connection made and torn down\n");
	return 0;
}
