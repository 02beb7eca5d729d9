// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_bench: the data path of one RC connection made through the CM
 * (rdma_create_qp on both sides), client in the main thread and server in
 * a second one, both busy-polling their CQs. Built once against stock
 * libibverbs/librdmacm and once against librdmachan.
 *
 *   verbs_bench [-a ADDRESS] [-p PORT] [-n ITERATIONS] [-s SIZE]
 *
 * Two measurements with SIZE-byte messages (inline when they fit):
 *  - ping-pong: the client sends, the server answers on receipt; each
 *    round trip is timed, and half of the median round trip printed;
 *  - message rate: the client streams ITERATIONS sends (one
 *    ibv_post_send each, every 16th signaled, at most 128 in flight), the
 *    server takes them 32 completions per poll and reposts receives 32 per
 *    ibv_post_recv chain; the server times each run of CHUNK messages and
 *    the median run's rate is printed (a stall of the host hits a few
 *    runs, not the median).
 * Prints "lat SIZE median_us U mean_us M client_crossings_per_iter C" and
 * "rate SIZE msgs_per_sec R sender_crossings_per_msg S
 * receiver_crossings_per_msg V"; crossings need the syscount shim
 * preloaded, else they print -1.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Deep enough that the server thread never lets the receive queue run dry
 * while it is descheduled: an RNR NAK would stall the stream for the CM's
 * minimum RNR timer (0, i.e. 655 ms), on both stacks.
 */
#define RECV_DEPTH	2048
#define SEND_DEPTH	256
#define IN_FLIGHT	128
#define SIGNAL_EVERY	16
#define BATCH		32
#define MAX_SIZE	4096
#define INLINE		64
#define WARMUP		200
#define CHUNK		500

static unsigned long (*syscount_thread)(void);
static struct sockaddr_in addr;
static int iters = 20000;
static size_t size = 32;
static size_t slot;	/* bytes per receive slot: size, rounded up */

/* What each phase of the server needs to know, and when. */
static atomic_int phase;		/* 0 setup, 1 ping-pong, 2 rate, 3 done */
static atomic_int server_ready;
static double *chunk_us;	/* the server's time at each CHUNK-th message */
static unsigned long server_crossings;

struct end {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;		/* RECV_DEPTH receive slots, one send slot */
	unsigned int max_inline;
};

static void die(const char *what)
{
	fprintf(stderr, "verbs_bench: %s: %s\n", what, strerror(errno));
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

/* Gets one event of @ch, which must be @type, and acks it. */
static struct rdma_cm_id *expect(struct rdma_event_channel *ch,
				 enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (rdma_get_cm_event(ch, &ev))
		die("get event");
	if (ev->event != type || ev->status) {
		fprintf(stderr, "verbs_bench: got %s (status %d), want %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(type));
		exit(1);
	}
	id = ev->id;
	rdma_ack_cm_event(ev);
	return id;
}

/* PD, CQ, buffer and QP of @e on its id's device. */
static void end_open(struct end *e)
{
	size_t len = (RECV_DEPTH + 1) * slot;
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SEND_DEPTH, .max_recv_wr = RECV_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = INLINE },
	};

	e->pd = ibv_alloc_pd(e->id->verbs);
	e->cq = e->pd ? ibv_create_cq(e->id->verbs,
				      RECV_DEPTH + SEND_DEPTH, NULL, NULL, 0) :
			NULL;
	e->buf = aligned_alloc(4096, len);
	if (!e->cq || !e->buf)
		die("resources");
	memset(e->buf, 0x5a, len);
	e->mr = ibv_reg_mr(e->pd, e->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		die("ibv_reg_mr");
	attr.send_cq = attr.recv_cq = e->cq;
	if (rdma_create_qp(e->id, e->pd, &attr))
		die("rdma_create_qp");
	e->max_inline = attr.cap.max_inline_data;
}

static void end_close(struct end *e)
{
	rdma_destroy_qp(e->id);
	if (ibv_dereg_mr(e->mr) || ibv_destroy_cq(e->cq) ||
	    ibv_dealloc_pd(e->pd))
		die("teardown");
	free(e->buf);
}

/* Posts @n receives into slots @first.. (modulo RECV_DEPTH) as one chain. */
static void post_recvs(struct end *e, unsigned long first, int n)
{
	struct ibv_recv_wr wr[BATCH], *bad;
	struct ibv_sge sge[BATCH];
	int i;

	for (i = 0; i < n; i++) {
		unsigned long at = (first + i) % RECV_DEPTH;

		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)e->buf + at * slot,
			.length = (uint32_t)slot, .lkey = e->mr->lkey };
		wr[i] = (struct ibv_recv_wr){ .wr_id = first + i,
					      .sg_list = &sge[i], .num_sge = 1,
					      .next = i + 1 < n ? &wr[i + 1] : NULL };
	}
	if (ibv_post_recv(e->id->qp, wr, &bad))
		die("ibv_post_recv");
}

/* One SEND of the send slot; inline when it fits. */
static void post_send(struct end *e, uint64_t wr_id, bool signaled)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + RECV_DEPTH * slot,
		.length = (uint32_t)size, .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
			      (size <= e->max_inline ? IBV_SEND_INLINE : 0),
	}, *bad;
	int ret = ibv_post_send(e->id->qp, &wr, &bad);

	if (ret) {
		errno = ret;
		die("ibv_post_send");
	}
}

/*
 * Busy-polls @e's CQ until a receive completes (send completions are
 * reaped on the way): the number of send completions seen.
 */
static int wait_recv(struct end *e)
{
	struct ibv_wc wc[BATCH];
	int sends = 0, i, n;

	for (;;) {
		n = ibv_poll_cq(e->cq, BATCH, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "verbs_bench: %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			if (wc[i].opcode == IBV_WC_SEND)
				sends++;
		}
		for (i = 0; i < n; i++)
			if (wc[i].opcode == IBV_WC_RECV)
				return sends;
	}
}

/*
 * Client and server busy-poll: on CPUs of their own (when there are two)
 * they do not take turns on one, which TCG makes very noisy.
 */
static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *server(void *arg)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .rnr_retry_count = 7 };
	struct rdma_cm_id *listen_id;
	struct ibv_wc wc[BATCH];
	struct end e = { 0 };
	unsigned long posted, got = 0, c0;
	int i, n;

	(void)arg;
	pin_to_cpu(1);
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&addr) ||
	    rdma_listen(listen_id, 1))
		die("server listen");
	atomic_store(&server_ready, 1);
	e.id = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	end_open(&e);
	for (posted = 0; posted < RECV_DEPTH; posted += BATCH)
		post_recvs(&e, posted, BATCH);
	if (rdma_accept(e.id, &param))
		die("accept");
	expect(ch, RDMA_CM_EVENT_ESTABLISHED);

	/* ping-pong: answer each message, every answer signaled */
	while (atomic_load(&phase) < 1)
		;
	for (i = 0; i < WARMUP + iters; i++) {
		wait_recv(&e);
		post_send(&e, i, true);
		post_recvs(&e, posted++, 1);
	}
	/* the client's last send completion needs no reaping from us */

	/* rate: take completions BATCH at a time, repost in chains */
	c0 = crossings();
	chunk_us[0] = now_us();
	while (got < (unsigned long)iters) {
		n = ibv_poll_cq(e.cq, BATCH, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "verbs_bench: server %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			if (wc[i].opcode == IBV_WC_RECV && ++got % CHUNK == 0)
				chunk_us[got / CHUNK] = now_us();
		}
		while (posted - (got + WARMUP + iters) <= RECV_DEPTH - BATCH) {
			post_recvs(&e, posted, BATCH);
			posted += BATCH;
		}
	}
	server_crossings = crossings() - c0;
	atomic_store(&phase, 3);

	expect(ch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_disconnect(e.id);
	end_close(&e);
	rdma_destroy_id(e.id);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *address = getenv("RDMACHAN_ADDR");
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
	int port = 17471 + getpid() % 1000, opt, i, n;
	unsigned long in_flight = 0, c0, c1;
	struct rdma_event_channel *ch;
	struct ibv_wc wc[BATCH];
	struct end e = { 0 };
	double *rtt, t, sum = 0;
	pthread_t thread;

	while ((opt = getopt(argc, argv, "a:p:n:s:")) != -1) {
		switch (opt) {
		case 'a':
			address = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-a ADDR] [-p PORT] [-n N] [-s SIZE]\n",
				argv[0]);
			return 2;
		}
	}
	addr.sin_family = AF_INET;
	addr.sin_port = htons(port);
	if (inet_pton(AF_INET, address ? address : "10.77.0.1",
		      &addr.sin_addr) != 1 || iters < 1 || size < 1 ||
	    size > MAX_SIZE || iters < 2 * CHUNK)
		return 2;
	slot = (size + 63) & ~(size_t)63;
	syscount_thread = (unsigned long (*)(void))dlsym(RTLD_DEFAULT,
							 "syscount_thread");
	rtt = calloc(iters, sizeof(*rtt));
	chunk_us = calloc(iters / CHUNK + 1, sizeof(*chunk_us));
	ch = rdma_create_event_channel();
	if (!rtt || !chunk_us || !ch)
		die("setup");
	pin_to_cpu(0);
	if (pthread_create(&thread, NULL, server, NULL))
		die("server thread");
	while (!atomic_load(&server_ready))
		usleep(1000);

	if (rdma_create_id(ch, &e.id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(e.id, NULL, (struct sockaddr *)&addr, 2000))
		die("resolve addr");
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(e.id, 2000))
		die("resolve route");
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	end_open(&e);
	post_recvs(&e, 0, BATCH);
	if (rdma_connect(e.id, &param))
		die("connect");
	expect(ch, RDMA_CM_EVENT_ESTABLISHED);

	/* ping-pong, every send signaled */
	atomic_store(&phase, 1);
	c0 = 0;
	for (i = 0; i < WARMUP + iters; i++) {
		if (i == WARMUP)
			c0 = crossings();
		t = now_us();
		post_send(&e, i, true);
		in_flight++;
		in_flight -= wait_recv(&e);
		if (i >= WARMUP)
			rtt[i - WARMUP] = now_us() - t;
		post_recvs(&e, i + BATCH, 1);
	}
	c1 = crossings();
	/* reap the last send completions before the next phase */
	while (in_flight) {
		n = ibv_poll_cq(e.cq, BATCH, wc);
		if (n < 0)
			die("ibv_poll_cq");
		in_flight -= n;
	}
	for (i = 0; i < iters; i++)
		sum += rtt[i];
	qsort(rtt, iters, sizeof(*rtt), cmp_double);
	printf("lat %zu median_us %.2f mean_us %.2f client_crossings_per_iter %.2f\n",
	       size, rtt[iters / 2] / 2, sum / iters / 2,
	       syscount_thread ? (double)(c1 - c0) / iters : -1.0);

	/* rate: a stream of sends, every SIGNAL_EVERY-th signaled */
	phase = 2;
	c0 = crossings();
	for (i = 0; i < iters; i++) {
		bool signaled = (i + 1) % SIGNAL_EVERY == 0 || i + 1 == iters;

		while (in_flight + SIGNAL_EVERY > IN_FLIGHT) {
			n = ibv_poll_cq(e.cq, BATCH, wc);
			if (n < 0)
				die("ibv_poll_cq");
			while (n--) {
				if (wc[n].status != IBV_WC_SUCCESS) {
					fprintf(stderr, "verbs_bench: %s\n",
						ibv_wc_status_str(wc[n].status));
					return 1;
				}
				in_flight -= SIGNAL_EVERY;
			}
		}
		post_send(&e, i, signaled);
		if (signaled)
			in_flight += SIGNAL_EVERY;
	}
	c1 = crossings();
	while (atomic_load(&phase) < 3)
		;
	/* the first run includes the server's wait for the first message */
	n = iters / CHUNK - 1;
	for (i = 0; i < n; i++)
		rtt[i] = CHUNK / ((chunk_us[i + 2] - chunk_us[i + 1]) / 1e6);
	qsort(rtt, n, sizeof(*rtt), cmp_double);
	printf("rate %zu msgs_per_sec %.0f sender_crossings_per_msg %.2f receiver_crossings_per_msg %.2f\n",
	       size, rtt[n / 2],
	       syscount_thread ? (double)(c1 - c0) / iters : -1.0,
	       syscount_thread ? (double)server_crossings / iters : -1.0);

	if (rdma_disconnect(e.id))
		die("disconnect");
	expect(ch, RDMA_CM_EVENT_DISCONNECTED);
	pthread_join(thread, NULL);
	end_close(&e);
	rdma_destroy_id(e.id);
	rdma_destroy_event_channel(ch);
	free(rtt);
	free(chunk_us);
	return 0;
}
