// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm_bench: N connections made and torn down step by step through the
 * rdma-core CM API, timing each step and counting the kernel crossings of
 * the active side (main thread) and the passive side (server thread).
 * Built once against stock librdmacm and once against librdmachan.
 *
 *   cm_bench [-q] [-m] [-n CONNECTIONS] [-w WINDOW] [-a ADDRESS] [-p PORT]
 *
 * With -q each connection has an RC QP on both sides (rdma_create_qp with
 * one PD and CQ per side, made before the timing): the active side makes
 * it in step create_qp, the passive side on CONNECT_REQUEST (step
 * connect), and both destroy it before the id. Without -q the ids have no
 * QP and the active side calls rdma_establish.
 *
 * Every step has all connections in flight at once, but for connect with
 * -w: then at most WINDOW connects wait for their answer (the listener's
 * backlog is 1024 in both stacks).
 *
 * Prints "step NAME usec_per_conn U active_per_conn A passive_per_conn P"
 * lines; crossings need the syscount shim preloaded, else they print -1.
 * With -m also "held N slab_kb_per_conn S vmalloc_kb_per_conn V": the
 * growth of the kernel's slab and vmalloc memory (/proc/meminfo) from
 * before the first id to when every connection is established, both ends
 * of each connection being in this process.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum step { CREATE, RESOLVE_ADDR, RESOLVE_ROUTE, CREATE_QP, CONNECT,
	    DISCONNECT, DESTROY, NR_STEPS };

static const char *const step_names[NR_STEPS] = {
	"create_id", "resolve_addr", "resolve_route", "create_qp", "connect",
	"disconnect", "destroy",
};

static unsigned long (*syscount_thread)(void);
static int conns = 100;
static int window;
static bool with_qp, memory;
static struct sockaddr_in addr;

/* Passive side state, shared with the server thread under @lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int established, disconnected;
static bool destroy_now;
static unsigned long passive[NR_STEPS + 1];

static void die(const char *what)
{
	fprintf(stderr, "cm_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long crossings(void)
{
	return syscount_thread ? syscount_thread() : 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void wait_for(int *counter, int value)
{
	pthread_mutex_lock(&lock);
	while (*counter < value)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* One PD and CQ per side, shared by that side's QPs. */
struct qp_res {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static void qp_res_open(struct qp_res *r, struct ibv_context *verbs)
{
	r->pd = ibv_alloc_pd(verbs);
	r->cq = r->pd ? ibv_create_cq(verbs, 16, NULL, NULL, 0) : NULL;
	if (!r->cq)
		die("PD and CQ");
}

static void qp_res_close(struct qp_res *r)
{
	if (ibv_destroy_cq(r->cq) || ibv_dealloc_pd(r->pd))
		die("PD and CQ teardown");
}

/* An RC QP on @id, the smallest that can carry a message each way. */
static void create_qp(struct rdma_cm_id *id, struct qp_res *r)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (rdma_create_qp(id, r->pd, &attr))
		die("rdma_create_qp");
}

/* The slab and vmalloc memory of the whole kernel, in kB. */
static void kernel_memory(long *slab_kb, long *vmalloc_kb)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];

	*slab_kb = *vmalloc_kb = -1;
	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Slab: %ld kB", slab_kb);
		sscanf(line, "VmallocUsed: %ld kB", vmalloc_kb);
	}
	fclose(f);
}

static void bump(int *counter)
{
	pthread_mutex_lock(&lock);
	(*counter)++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void *server(void *arg)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id, **ids = calloc(conns, sizeof(*ids));
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .rnr_retry_count = 7 };
	struct rdma_cm_event *ev;
	struct qp_res res = { 0 };
	int accepted = 0, done = 0, i;

	if (!ch || !ids)
		die("server channel");
	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&addr) ||
	    rdma_listen(listen_id, conns))
		die("server listen");
	if (with_qp)
		qp_res_open(&res, listen_id->verbs);
	bump((int *)arg);

	passive[CONNECT] = crossings();
	while (done < conns) {
		if (rdma_get_cm_event(ch, &ev))
			die("server get event");
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			param.qp_num = 0x800000 + accepted;
			ids[accepted++] = ev->id;
			if (with_qp)
				create_qp(ev->id, &res);
			if (rdma_accept(ev->id, &param))
				die("accept");
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			bump(&established);
			if (established == conns)
				passive[DISCONNECT] = crossings();
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			/* Answer the active side's disconnect request. */
			rdma_disconnect(ev->id);
			done++;
			break;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			/* an early connection's, while later ones still end */
			break;
		default:
			fprintf(stderr, "cm_bench: server: %s\n",
				rdma_event_str(ev->event));
			exit(1);
		}
		rdma_ack_cm_event(ev);
	}
	passive[DESTROY] = crossings();
	pthread_mutex_lock(&lock);
	disconnected = conns;
	pthread_cond_broadcast(&cond);
	while (!destroy_now)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < accepted; i++) {
		if (with_qp)
			rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	passive[NR_STEPS] = crossings();
	if (with_qp)
		qp_res_close(&res);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	free(ids);
	return NULL;
}

/* Gets one event, which must be @type, and acks it. */
static void expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		die("get event");
	if (ev->event != type || ev->status) {
		fprintf(stderr, "cm_bench: got %s (status %d), want %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(type));
		exit(1);
	}
	rdma_ack_cm_event(ev);
}

int main(int argc, char **argv)
{
	const char *address = getenv("RDMACHAN_ADDR");
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	double usec[NR_STEPS], t;
	unsigned long active[NR_STEPS + 1];
	struct rdma_event_channel *ch;
	struct rdma_cm_id **ids;
	int port = 7471 + getpid() % 1000, opt, i, s, ready = 0;
	long slab[2], vmalloc[2];
	int timewait_exits = 0;
	struct qp_res res = { 0 };
	int sent, answered;
	pthread_t thread;

	while ((opt = getopt(argc, argv, "qmn:w:a:p:")) != -1) {
		switch (opt) {
		case 'q':
			with_qp = true;
			break;
		case 'm':
			memory = true;
			break;
		case 'w':
			window = atoi(optarg);
			break;
		case 'n':
			conns = atoi(optarg);
			break;
		case 'a':
			address = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-q] [-m] [-n N] [-w WINDOW] [-a ADDR] [-p PORT]\n",
				argv[0]);
			return 2;
		}
	}
	addr.sin_family = AF_INET;
	addr.sin_port = htons(port);
	if (inet_pton(AF_INET, address ? address : "10.77.0.1",
		      &addr.sin_addr) != 1 || conns < 1 || window < 0)
		return 2;
	if (!window || window > conns)
		window = conns;
	syscount_thread = (unsigned long (*)(void))dlsym(RTLD_DEFAULT,
							 "syscount_thread");
	ids = calloc(conns, sizeof(*ids));
	ch = rdma_create_event_channel();
	if (!ids || !ch)
		die("channel");
	if (pthread_create(&thread, NULL, server, &ready))
		die("server thread");
	wait_for(&ready, 1);
	if (memory)
		kernel_memory(&slab[0], &vmalloc[0]);

	active[CREATE] = crossings();
	t = now_us();
	for (i = 0; i < conns; i++)
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP))
			die("create id");
	usec[CREATE] = now_us() - t;

	active[RESOLVE_ADDR] = crossings();
	t = now_us();
	for (i = 0; i < conns; i++)
		if (rdma_resolve_addr(ids[i], NULL, (struct sockaddr *)&addr,
				      2000))
			die("resolve addr");
	for (i = 0; i < conns; i++)
		expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	usec[RESOLVE_ADDR] = now_us() - t;

	active[RESOLVE_ROUTE] = crossings();
	t = now_us();
	for (i = 0; i < conns; i++)
		if (rdma_resolve_route(ids[i], 2000))
			die("resolve route");
	for (i = 0; i < conns; i++)
		expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	usec[RESOLVE_ROUTE] = now_us() - t;

	if (with_qp)
		qp_res_open(&res, ids[0]->verbs);
	active[CREATE_QP] = crossings();
	t = now_us();
	for (i = 0; with_qp && i < conns; i++)
		create_qp(ids[i], &res);
	usec[CREATE_QP] = now_us() - t;

	active[CONNECT] = crossings();
	t = now_us();
	for (sent = answered = 0; answered < conns; answered++) {
		/* with a QP the library completes the connection itself */
		enum rdma_cm_event_type want = with_qp ?
			RDMA_CM_EVENT_ESTABLISHED : RDMA_CM_EVENT_CONNECT_RESPONSE;
		struct rdma_cm_event *ev;

		for (; sent < conns && sent - answered < window; sent++) {
			/* No QP: the QP numbers must not repeat within the CM's memory. */
			param.qp_num = 0x400000 + ((getpid() & 0xff) << 12) + sent;
			if (rdma_connect(ids[sent], &param))
				die("connect");
		}
		if (rdma_get_cm_event(ch, &ev))
			die("get event");
		if (ev->event != want || ev->status) {
			fprintf(stderr, "cm_bench: connect: %s (status %d)\n",
				rdma_event_str(ev->event), ev->status);
			return 1;
		}
		if (!with_qp && rdma_establish(ev->id))
			die("establish");
		rdma_ack_cm_event(ev);
	}
	wait_for(&established, conns);
	usec[CONNECT] = now_us() - t;
	if (memory)
		kernel_memory(&slab[1], &vmalloc[1]);

	active[DISCONNECT] = crossings();
	t = now_us();
	for (i = 0; i < conns; i++)
		if (rdma_disconnect(ids[i]))
			die("disconnect");
	/*
	 * With thousands, the IB CM's time wait of the first connections may
	 * end before the last ones are disconnected: those events are
	 * counted, not errors.
	 */
	for (i = 0; i < conns;) {
		struct rdma_cm_event *ev;

		if (rdma_get_cm_event(ch, &ev))
			die("get event");
		if (ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			timewait_exits++;
		} else if (ev->event == RDMA_CM_EVENT_DISCONNECTED && !ev->status) {
			i++;
		} else {
			fprintf(stderr, "cm_bench: disconnect: %s (status %d)\n",
				rdma_event_str(ev->event), ev->status);
			return 1;
		}
		rdma_ack_cm_event(ev);
	}
	wait_for(&disconnected, conns);
	usec[DISCONNECT] = now_us() - t;

	active[DESTROY] = crossings();
	t = now_us();
	for (i = 0; i < conns; i++) {
		if (with_qp)
			rdma_destroy_qp(ids[i]);
		if (rdma_destroy_id(ids[i]))
			die("destroy");
	}
	pthread_mutex_lock(&lock);
	destroy_now = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	usec[DESTROY] = now_us() - t;
	active[NR_STEPS] = crossings();
	if (with_qp)
		qp_res_close(&res);
	rdma_destroy_event_channel(ch);

	/* Passive crossings of a step: from its start to the next one's. */
	passive[CREATE] = passive[RESOLVE_ADDR] = passive[RESOLVE_ROUTE] =
		passive[CREATE_QP] = passive[CONNECT];
	for (s = 0; s < NR_STEPS; s++) {
		if (s == CREATE_QP && !with_qp)
			continue;
		double a = (double)(active[s + 1] - active[s]) / conns;
		double p = s < CONNECT ? 0 :
			   (double)(passive[s + 1] - passive[s]) / conns;

		printf("step %s usec_per_conn %.1f active_per_conn %.2f passive_per_conn %.2f\n",
		       step_names[s], usec[s] / conns,
		       syscount_thread ? a : -1, syscount_thread ? p : -1);
	}
	if (memory)
		printf("held %d slab_kb_per_conn %.2f vmalloc_kb_per_conn %.2f timewait_exits_before_disconnected %d\n",
		       conns, (double)(slab[1] - slab[0]) / conns,
		       (double)(vmalloc[1] - vmalloc[0]) / conns,
		       timewait_exits);
	return 0;
}
