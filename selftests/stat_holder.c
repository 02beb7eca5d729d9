// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The program stat_test.sh looks at with rdmachan-stat: an RC connection
 * to itself (two ids, two QPs in RTS), an event it took and does not
 * acknowledge, and an event left queued on another channel.
 *
 *   stat_holder [destroy]
 *
 * With "destroy", a thread destroys the id of the unacknowledged event,
 * which waits for the acknowledgment. Prints "ready CLIENT_QPN SERVER_QPN"
 * when all is in place, and on end of input acknowledges, cleans up and
 * exits 0.
 */
#include <pthread.h>

#include "verbs_test.h"

static struct rdma_cm_id *held_id;

static void *destroy_held(void *arg)
{
	(void)arg;
	if (rdma_destroy_id(held_id))
		perror("# rdma_destroy_id");
	return NULL;
}

/* An id on @ch resolving towards the listener: its ADDR_RESOLVED comes. */
static struct rdma_cm_id *resolving_id(struct rdma_event_channel *ch,
				       __be16 port)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    cm_resolve_addr(id, port))
		return NULL;
	return id;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *held_ch, *queued_ch;
	bool destroy = argc > 1 && !strcmp(argv[1], "destroy");
	struct rdma_cm_id *queued_id;
	struct rdma_cm_event *held;
	struct vt_pair p;
	pthread_t thread;
	char line[16];
	__be16 port;

	cm_watchdog(600);
	if (vt_pair_connect_rc(&p, 4096, VT_BUSY_POLL)) {
		fprintf(stderr, "stat_holder: no connection\n");
		return 1;
	}
	/*
	 * The connection's events are acknowledged, but librdmachan sends
	 * acknowledgements with a channel's next read: a query sends them now.
	 */
	if (rdmachan_query_cm_events(p.cch, NULL, NULL, 0, NULL) ||
	    rdmachan_query_cm_events(p.sch, NULL, NULL, 0, NULL))
		return 1;
	port = rdma_get_src_port(p.listen);
	held_ch = rdma_create_event_channel();
	queued_ch = rdma_create_event_channel();
	if (!held_ch || !queued_ch)
		return 1;
	held_id = resolving_id(held_ch, port);
	queued_id = resolving_id(queued_ch, port);
	if (!held_id || !queued_id)
		return 1;
	held = cm_expect(held_ch, RDMA_CM_EVENT_ADDR_RESOLVED, held_id,
			 CM_TIMEOUT_MS);
	if (!held || cm_poll(queued_ch, CM_TIMEOUT_MS) != 1) {
		fprintf(stderr, "stat_holder: no events\n");
		return 1;
	}
	if (destroy && pthread_create(&thread, NULL, destroy_held, NULL))
		return 1;

	printf("ready %u %u\n", p.c.id->qp->qp_num, p.s.id->qp->qp_num);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;

	rdma_ack_cm_event(held);
	if (destroy)
		pthread_join(thread, NULL);
	else
		rdma_destroy_id(held_id);
	cm_drain(queued_ch, 0);
	rdma_destroy_id(queued_id);
	rdma_destroy_event_channel(held_ch);
	rdma_destroy_event_channel(queued_ch);
	if (vt_pair_disconnect(&p) || vt_pair_close(&p)) {
		fprintf(stderr, "stat_holder: close failed\n");
		return 1;
	}
	return 0;
}
