// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fail-nth sweeps over librdmachan's rsockets (rsocket(7)): stream
 * rsockets over RC, datagram rsockets over UD. For each call and for
 * nth = 1, 2, ... the state the call needs is made without faults, then
 * /proc/self/task/<tid>/fail-nth is armed with nth and the call made, so
 * the nth fault-injection point the calling thread reaches in the kernel
 * (a slab or page allocation, a user copy, in the module, the RDMA core,
 * rxe or the socket layer the library uses) fails. The sweep of a call
 * ends when the call gets through without reaching the armed point, a few
 * times (RS_SWEEP_TAIL), or at RS_SWEEP_MAX points or RS_SWEEP_BUDGET_S.
 *
 * For every nth:
 *  - the call succeeds, with the right result, or fails with -1 and an
 *    errno its rs_sweep_ops allows (RS_E_* below say why each is legitimate);
 *  - nothing crashes or hangs: a sweep runs in a forked child and every
 *    step is under alarm(); a child that dies is a finding, and the sweep
 *    goes on from the next point in a new child;
 *  - once everything is rclose()d, the module's object counters (debugfs
 *    rdmachan/objects) and the process's open fds are as before the step;
 *  - after a fault that failed the call, the same call without a fault
 *    succeeds on fresh state, and leaves nothing behind either.
 *
 * Left out: rconnect() and raccept() of stream rsockets, and anything else
 * that creates an RC QP. rxe in Linux 6.1 cannot fail RC QP creation
 * cleanly: its cleanup deletes RC timers it never set up
 * (rxe_qp_do_cleanup()), a debugobjects and lockdep report in rxe itself
 * (see fail_nth_verbs_test.c). Every connection here is made unarmed; the
 * datagram sweeps create UD QPs only.
 *
 * Skips without fail-nth (the stock kernel of make check), as
 * fail_nth_test.c does; fail_nth_knobs.h sets up the fault-injection knobs
 * and restores them at exit.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include <rdma/rsocket.h>

#include "cm_test.h"
#include "fail_nth_knobs.h"

/* Bounds of a sweep: the debug guest runs under TCG with KASAN. */
#define RS_SWEEP_MAX		160
#define RS_SWEEP_TAIL		3
#define RS_SWEEP_BACK		1
#define RS_SWEEP_BUDGET_S	25
#define RS_TEST_TIMEOUT_S	(RS_SWEEP_BUDGET_S + 120)
/* one step (set-up, armed call, tear-down, checks); more is a hang */
#define RS_STEP_S		40
/* children of one sweep that may die before it gives up */
#define RS_MAX_RESTARTS		4
#define RS_WAIT_MS		10000
/* objects torn down on the peer's side (a disconnect) may take a moment */
#define RS_SETTLE_MS		5000
#define RS_XFER			(64 * 1024)
#define RS_DGRAM		64

/*
 * Errnos a failed call may give, besides ENOMEM (an allocation):
 *  RS_E_COPY: EFAULT, a user copy of the kernel's that the fault failed;
 *  RS_E_ROUTE: ENOBUFS, how the IP stack reports a failed route (dst)
 *    allocation, from the RDMA core's address resolution or a UDP send;
 *  RS_E_SOCKET: ENFILE, how sock_alloc() reports a failed inode
 *    allocation: a datagram rsocket's UDP socket, rxe's QP socket;
 *  RS_E_CONN: ECONNRESET, ENOTCONN, EPIPE, ETIMEDOUT, when the fault broke
 *    the connection under the call (a failed post or completion moves
 *    the QP to the error state, and the rsocket reports it gone);
 *  RS_E_AGAIN: EAGAIN, for a nonblocking receive whose datagram the fault
 *    dropped (UDP and UD may drop; the library drops what it cannot take).
 */
#define RS_E_COPY	0x1
#define RS_E_ROUTE	0x2
#define RS_E_SOCKET	0x4
#define RS_E_CONN	0x8
#define RS_E_AGAIN	0x10

/* What the steps of a sweep work on. */
struct rs_state {
	int listener;
	int client;
	int server;
	struct sockaddr_in addr;
	struct sockaddr_in client_addr;
	pthread_t acceptor;
	bool accepting;
	int accepted;
	unsigned char *out;
	unsigned char *in;
	/* a datagram or a stream's data may be lost (counted, not a finding) */
	bool lost;
};

struct rs_sweep_ops {
	const char *name;
	unsigned int errs;
	/* unarmed; false (with errno) when the state could not be made */
	bool (*setup)(struct rs_state *s);
	/* armed: the call under test; its result, -1 with errno on failure */
	ssize_t (*call)(struct rs_state *s);
	/*
	 * After the call returned @ret >= 0: is the result right? On false,
	 * @why says what is wrong. NULL: any result is.
	 */
	bool (*check)(struct rs_state *s, ssize_t ret, char *why, size_t len);
};

/* Shared by the test and its sweep's children. */
struct rs_progress {
	unsigned int nth;
	const char *phase;
	unsigned int deepest;
	unsigned int points;
	unsigned int failed;
	unsigned int absorbed;
	unsigned int lost;
	unsigned int calls;
	unsigned int findings;
	unsigned int misses;
	bool done;
	bool cut;
	struct {
		int err;
		unsigned int count;
	} errs[8];
};

static struct rs_progress *prog;
static const struct rs_sweep_ops *cur_ops;

static void rs_finding(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void rs_finding(const char *fmt, ...)
{
	char msg[5120];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	prog->findings++;
	ksft_print_msg("FINDING %s, injection point %u (%s): %s\n",
		       cur_ops->name, prog->nth, prog->phase, msg);
	fflush(stdout);
}

static bool allowed_errno(unsigned int errs, int err)
{
	switch (err) {
	case ENOMEM:
		return true;
	case EFAULT:
		return errs & RS_E_COPY;
	case ENOBUFS:
		return errs & RS_E_ROUTE;
	case ENFILE:
		return errs & RS_E_SOCKET;
	case ECONNRESET:
	case ENOTCONN:
	case EPIPE:
	case ETIMEDOUT:
		return errs & RS_E_CONN;
	case EAGAIN:
		return errs & RS_E_AGAIN;
	}
	return false;
}

/* The module's object counters and the open fds: what a step must give back. */
struct rs_snap {
	char objects[1024];
	int fds;
	char fd_names[2048];
};

static void snap_objects(struct rs_snap *snap)
{
	int fd = open(DEBUGFS "/rdmachan/objects", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, snap->objects,
				       sizeof(snap->objects) - 1);

	snap->objects[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	snap->fds = count_fds();
	describe_fds(snap->fd_names, sizeof(snap->fd_names));
}

/* Waits a little for the counters to come back: a peer's teardown is async. */
static void check_baseline(const struct rs_snap *base)
{
	struct rs_snap now;
	int waited;

	for (waited = 0;; waited += 50) {
		snap_objects(&now);
		if ((!strcmp(now.objects, base->objects) &&
		     now.fds == base->fds) || waited >= RS_SETTLE_MS)
			break;
		usleep(50 * 1000);
	}
	if (now.fds != base->fds)
		rs_finding("%d open fds after rclose (%s), %d before (%s)",
			   now.fds, now.fd_names, base->fds, base->fd_names);
	if (strcmp(now.objects, base->objects))
		rs_finding("module objects after rclose:\n%s\nbefore:\n%s",
			   now.objects, base->objects);
}

/* Stream: a listener on the test address, on a port the CM chose. */
static int stream_listener(struct sockaddr_in *where)
{
	socklen_t len = sizeof(*where);
	int fd = rsocket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	cm_sockaddr(where, cm_test_addr(), 0);
	if (rbind(fd, (struct sockaddr *)where, sizeof(*where)) ||
	    rlisten(fd, 4) ||
	    rgetsockname(fd, (struct sockaddr *)where, &len)) {
		int err = errno;

		rclose(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static void *acceptor_main(void *arg)
{
	struct rs_state *s = arg;

	s->accepted = raccept(s->listener, NULL, NULL);
	return NULL;
}

static void state_init(struct rs_state *s)
{
	s->listener = s->client = s->server = -1;
	s->accepting = false;
	s->lost = false;
}

static void state_teardown(struct rs_state *s)
{
	if (s->client >= 0)
		rclose(s->client);
	if (s->server >= 0)
		rclose(s->server);
	if (s->accepting) {
		/* closing the listener does not wake raccept: a connect does */
		pthread_join(s->acceptor, NULL);
		s->accepting = false;
	}
	if (s->listener >= 0)
		rclose(s->listener);
	s->listener = s->client = s->server = -1;
}

/* An established connection, made unarmed: client -> server. */
static bool setup_connection(struct rs_state *s)
{
	s->listener = stream_listener(&s->addr);
	if (s->listener < 0)
		return false;
	s->accepted = -1;
	if (pthread_create(&s->acceptor, NULL, acceptor_main, s))
		return false;
	s->accepting = true;
	s->client = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s->client < 0 ||
	    rconnect(s->client, (struct sockaddr *)&s->addr, sizeof(s->addr)))
		return false;
	pthread_join(s->acceptor, NULL);
	s->accepting = false;
	s->server = s->accepted;
	return s->server >= 0;
}

static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed + i * 13 + (i >> 8));
}

/* Reads @len bytes, each wait bounded: the count read, -1 on an error. */
static ssize_t read_all(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (rpoll(&pfd, 1, RS_WAIT_MS) != 1)
			return got ? (ssize_t)got : -1;
		n = rrecv(fd, buf + got, len - got, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			return got ? (ssize_t)got : -1;
		got += n;
	}
	return got;
}

/* Sends all of @len, blocking: the count sent, -1 when nothing went. */
static ssize_t send_all(int fd, const unsigned char *buf, size_t len)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t n = rsend(fd, buf + sent, len - sent, 0);

		if (n <= 0)
			return sent ? (ssize_t)sent : -1;
		sent += n;
	}
	return sent;
}

/* rsocket + rbind + rlisten */
static bool setup_nothing(struct rs_state *s)
{
	return true;
}

static ssize_t call_listen(struct rs_state *s)
{
	s->listener = stream_listener(&s->addr);
	return s->listener < 0 ? -1 : 0;
}

static bool check_listen(struct rs_state *s, ssize_t ret, char *why,
			 size_t len)
{
	snprintf(why, len, "listening on port 0");
	return s->addr.sin_port != 0;
}

/* rsend of 64 KB, which the server reads after */
static ssize_t call_send(struct rs_state *s)
{
	fill(s->out, RS_XFER, prog->nth);
	return send_all(s->client, s->out, RS_XFER);
}

/*
 * A fault in rxe's requester (a packet's skb, allocated in the caller's
 * context) fails the send after it was posted: the QP goes to the error
 * state and the rsocket sees its connection lost (POLLHUP), while the
 * call that posted it returned success. The peer is told at rclose (its
 * DREQ), as with rdma-core's rsockets. A poll of the CQ that failed may
 * have lost completions (kernel-owned POLL_CQ does, as ib_uverbs' does),
 * which must end the connection too, not leave it waiting for them.
 * Counted as lost, not a finding.
 */
static bool connection_lost(struct rs_state *s, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (rpoll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)))
		s->lost = true;
	return s->lost;
}

/* What a successful send sent must arrive, unless the connection broke. */
static bool check_sent(struct rs_state *s, ssize_t ret, char *why, size_t len)
{
	ssize_t got;

	if (connection_lost(s, s->client))
		return true;
	got = read_all(s->server, s->in, ret);
	snprintf(why, len, "%zd bytes sent, %zd arrived, the connection looks fine",
		 ret, got);
	if (got != ret)
		return false;
	snprintf(why, len, "the data arrived changed");
	return !memcmp(s->in, s->out, ret);
}

static bool setup_received(struct rs_state *s)
{
	if (!setup_connection(s))
		return false;
	fill(s->out, RS_XFER, 7);
	return send_all(s->client, s->out, RS_XFER) == RS_XFER;
}

/* rrecv until 64 KB */
static ssize_t call_recv(struct rs_state *s)
{
	size_t got = 0;

	while (got < RS_XFER) {
		ssize_t n = rrecv(s->server, s->in + got, RS_XFER - got, 0);

		if (n < 0)
			return got ? (ssize_t)got : -1;
		/* the end: the connection went, check_recv() asks how */
		if (!n)
			break;
		got += n;
	}
	return got;
}

static bool check_recv(struct rs_state *s, ssize_t ret, char *why, size_t len)
{
	/* a partial read is a failure met after some data: the rest follows */
	if (ret < RS_XFER && connection_lost(s, s->server))
		return true;
	if (ret < RS_XFER && read_all(s->server, s->in + ret,
				      RS_XFER - ret) != RS_XFER - ret) {
		snprintf(why, len, "%zd bytes read, the rest did not come", ret);
		return false;
	}
	snprintf(why, len, "the data read changed");
	return !memcmp(s->in, s->out, RS_XFER);
}

/* rpoll for a byte the client sent */
static bool setup_poll(struct rs_state *s)
{
	return setup_connection(s) && rsend(s->client, "x", 1, 0) == 1;
}

static ssize_t call_poll(struct rs_state *s)
{
	struct pollfd pfd = { .fd = s->server, .events = POLLIN };
	int n = rpoll(&pfd, 1, RS_WAIT_MS);

	return n < 0 ? -1 : (n == 1 && (pfd.revents & POLLIN) ? 1 : 0);
}

static bool check_poll(struct rs_state *s, ssize_t ret, char *why, size_t len)
{
	char c;

	snprintf(why, len, "rpoll gave %zd, not the byte waiting", ret);
	if (ret == 1 && rrecv(s->server, &c, 1, MSG_DONTWAIT) == 1 && c == 'x')
		return true;
	/* a lost connection is readable too: its end */
	return connection_lost(s, s->server);
}

/* rshutdown(SHUT_WR): the server reads the end of the stream */
static ssize_t call_shutdown(struct rs_state *s)
{
	return rshutdown(s->client, SHUT_WR);
}

static bool check_shutdown(struct rs_state *s, ssize_t ret, char *why,
			   size_t len)
{
	struct pollfd pfd = { .fd = s->server, .events = POLLIN };
	char c;

	if (connection_lost(s, s->client))
		return true;
	snprintf(why, len, "the server does not see the end of the stream");
	return rpoll(&pfd, 1, RS_WAIT_MS) == 1 && rrecv(s->server, &c, 1, 0) == 0;
}

/* rclose of a connected rsocket: its fd is gone whatever it returns */
static ssize_t call_close_client(struct rs_state *s)
{
	int fd = s->client;

	s->client = -1;
	return rclose(fd);
}

static bool check_closed(struct rs_state *s, ssize_t ret, char *why,
			 size_t len)
{
	struct pollfd pfd = { .fd = s->server, .events = POLLIN };
	char c;

	snprintf(why, len, "the peer does not see the connection end");
	return rpoll(&pfd, 1, RS_WAIT_MS) == 1 && rrecv(s->server, &c, 1, 0) <= 0;
}

/* Datagram: the server bound to the test address, the client unbound. */
static bool setup_dgram(struct rs_state *s)
{
	socklen_t len = sizeof(s->addr);

	s->server = rsocket(AF_INET, SOCK_DGRAM, 0);
	if (s->server < 0)
		return false;
	cm_sockaddr(&s->addr, cm_test_addr(), 0);
	if (rbind(s->server, (struct sockaddr *)&s->addr, sizeof(s->addr)) ||
	    rgetsockname(s->server, (struct sockaddr *)&s->addr, &len))
		return false;
	s->client = rsocket(AF_INET, SOCK_DGRAM, 0);
	return s->client >= 0;
}

static ssize_t send_dgram(struct rs_state *s, int flags)
{
	fill(s->out, RS_DGRAM, prog->nth);
	return rsendto(s->client, s->out, RS_DGRAM, flags,
		       (struct sockaddr *)&s->addr, sizeof(s->addr));
}

/* Takes a datagram on @fd, waiting up to RS_WAIT_MS. */
static ssize_t recv_dgram(int fd, unsigned char *buf, struct sockaddr_in *from)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	socklen_t fromlen = sizeof(*from);

	if (rpoll(&pfd, 1, RS_WAIT_MS) != 1)
		return -1;
	return rrecvfrom(fd, buf, RS_XFER, MSG_DONTWAIT,
			 (struct sockaddr *)from, &fromlen);
}

static ssize_t call_first_sendto(struct rs_state *s)
{
	return send_dgram(s, 0);
}

/*
 * A datagram sent must arrive, but UDP and UD may drop one: a loss is
 * counted (RS_E_AGAIN's reasoning), only a changed datagram is a finding.
 */
static bool check_dgram_arrived(struct rs_state *s, ssize_t ret, char *why,
				size_t len)
{
	struct sockaddr_in from;
	ssize_t got = recv_dgram(s->server, s->in, &from);

	if (got < 0) {
		s->lost = true;
		return true;
	}
	snprintf(why, len, "%zd bytes sent, a datagram of %zd arrived", ret,
		 got);
	return got == ret && !memcmp(s->in, s->out, got);
}

/* The receiver's rrecvfrom of the first datagram: its UD QP and the AH. */
static bool setup_first_sent(struct rs_state *s)
{
	if (!setup_dgram(s) || send_dgram(s, 0) != RS_DGRAM)
		return false;
	/* loopback delivery is done by now, almost always: give it a moment */
	usleep(10 * 1000);
	return true;
}

static ssize_t call_first_recvfrom(struct rs_state *s)
{
	socklen_t fromlen = sizeof(s->client_addr);

	return rrecvfrom(s->server, s->in, RS_XFER, MSG_DONTWAIT,
			 (struct sockaddr *)&s->client_addr, &fromlen);
}

static bool check_first_recvfrom(struct rs_state *s, ssize_t ret, char *why,
				 size_t len)
{
	snprintf(why, len, "a datagram of %zd bytes, %d sent", ret, RS_DGRAM);
	return ret == RS_DGRAM && !memcmp(s->in, s->out, RS_DGRAM) &&
	       s->client_addr.sin_port != 0;
}

/*
 * The server answered the first datagram (its QP number over UDP, a
 * reply over UD): the client's next rsendto makes the address handle.
 */
static bool setup_answered(struct rs_state *s)
{
	struct sockaddr_in from;

	if (!setup_first_sent(s) || recv_dgram(s->server, s->in, &from) !=
				     RS_DGRAM)
		return false;
	s->client_addr = from;
	return rsendto(s->server, "reply", 5, 0, (struct sockaddr *)&from,
		       sizeof(from)) == 5;
}

static ssize_t call_answered_sendto(struct rs_state *s)
{
	return send_dgram(s, 0);
}

/* rclose of a datagram rsocket that has a QP */
static bool setup_dgram_qp(struct rs_state *s)
{
	return setup_dgram(s) && send_dgram(s, 0) == RS_DGRAM;
}

static const struct rs_sweep_ops sweep_listen = {
	.name = "rsocket+rbind+rlisten",
	/* a CM id's event channel is a new file */
	.errs = RS_E_COPY | RS_E_SOCKET,
	.setup = setup_nothing,
	.call = call_listen,
	.check = check_listen,
};

static const struct rs_sweep_ops sweep_send = {
	.name = "rsend 64 KB",
	.errs = RS_E_COPY | RS_E_CONN,
	.setup = setup_connection,
	.call = call_send,
	.check = check_sent,
};

static const struct rs_sweep_ops sweep_recv = {
	.name = "rrecv 64 KB",
	/* it posts credits and receives: a fault there breaks the QP */
	.errs = RS_E_COPY | RS_E_CONN,
	.setup = setup_received,
	.call = call_recv,
	.check = check_recv,
};

static const struct rs_sweep_ops sweep_poll = {
	.name = "rpoll",
	.errs = RS_E_COPY | RS_E_CONN,
	.setup = setup_poll,
	.call = call_poll,
	.check = check_poll,
};

static const struct rs_sweep_ops sweep_shutdown = {
	.name = "rshutdown(SHUT_WR)",
	/* it sends the shutdown message: a fault there breaks the QP */
	.errs = RS_E_COPY | RS_E_CONN,
	.setup = setup_connection,
	.call = call_shutdown,
	.check = check_shutdown,
};

static const struct rs_sweep_ops sweep_close = {
	.name = "rclose (stream, connected)",
	.errs = RS_E_COPY | RS_E_CONN,
	.setup = setup_connection,
	.call = call_close_client,
	.check = check_closed,
};

static const struct rs_sweep_ops sweep_first_sendto = {
	.name = "rsendto (datagram, first)",
	/* its UDP socket's bind, a route probe socket, rxe's QP socket */
	.errs = RS_E_COPY | RS_E_ROUTE | RS_E_SOCKET,
	.setup = setup_dgram,
	.call = call_first_sendto,
	.check = check_dgram_arrived,
};

static const struct rs_sweep_ops sweep_first_recvfrom = {
	.name = "rrecvfrom (datagram, first)",
	.errs = RS_E_COPY | RS_E_ROUTE | RS_E_SOCKET | RS_E_AGAIN,
	.setup = setup_first_sent,
	.call = call_first_recvfrom,
	.check = check_first_recvfrom,
};

static const struct rs_sweep_ops sweep_answered_sendto = {
	.name = "rsendto (datagram, answered)",
	.errs = RS_E_COPY | RS_E_ROUTE,
	.setup = setup_answered,
	.call = call_answered_sendto,
	.check = check_dgram_arrived,
};

static const struct rs_sweep_ops sweep_dgram_close = {
	.name = "rclose (datagram, with a QP)",
	.errs = RS_E_COPY,
	.setup = setup_dgram_qp,
	.call = call_close_client,
	.check = NULL,
};

static void count_errno(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prog->errs) - 1; i++)
		if (!prog->errs[i].err || prog->errs[i].err == err)
			break;
	prog->errs[i].err = err;
	prog->errs[i].count++;
}

/*
 * The call once on fresh state, unarmed (nth_fd < 0) or armed with
 * prog->nth; with @baseline, what rclose gives back is checked. False
 * when the sweep cannot go on (a set-up failed).
 */
static bool run_step(struct rs_state *s, int nth_fd, bool baseline)
{
	const struct rs_sweep_ops *ops = cur_ops;
	char why[256] = "";
	struct rs_snap base;
	bool fired = false;
	ssize_t ret;
	int err;

	alarm(RS_STEP_S);
	snap_objects(&base);
	state_init(s);
	prog->phase = "set-up";
	if (!ops->setup(s)) {
		rs_finding("set-up failed: %s", strerror(errno));
		state_teardown(s);
		alarm(0);
		return false;
	}
	prog->phase = nth_fd >= 0 ? "armed call" : "call without a fault";
	prog->calls++;
	if (nth_fd >= 0 && !nth_arm(nth_fd, prog->nth)) {
		rs_finding("cannot arm fail-nth: %s", strerror(errno));
		state_teardown(s);
		alarm(0);
		return false;
	}
	errno = 0;
	ret = ops->call(s);
	err = errno;
	if (nth_fd >= 0)
		fired = nth_disarm(nth_fd);
	prog->phase = "result";
	if (ret < 0 && (!fired || !allowed_errno(ops->errs, err)))
		rs_finding("the call failed with %s%s",
			   fail_nth_errname(err), fired ? "" : " without a fault");
	else if (ret >= 0 && ops->check && !ops->check(s, ret, why,
						       sizeof(why)))
		rs_finding("the call returned %zd, but %s", ret, why);
	if (fired) {
		if (prog->nth > prog->deepest)
			prog->deepest = prog->nth;
		prog->points++;
		if (ret < 0) {
			prog->failed++;
			count_errno(err);
		} else {
			prog->absorbed++;
		}
		prog->lost += s->lost;
	} else if (nth_fd >= 0) {
		prog->misses++;
	}
	prog->phase = "rclose";
	state_teardown(s);
	prog->phase = "objects after rclose";
	if (baseline)
		check_baseline(&base);
	alarm(0);
	/* the same call, on fresh state, without a fault */
	if (fired && ret < 0)
		return run_step(s, -1, true);
	return true;
}

/* A sweep's child: from prog->nth on, until the sweep ends. */
static void sweep_child(const char *mode)
{
	struct rs_state s = {};
	char path[64];
	time_t start = time(NULL);
	int nth_fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	s.out = malloc(RS_XFER);
	s.in = malloc(RS_XFER);
	if (nth_fd < 0 || !s.out || !s.in) {
		rs_finding("cannot open %s or allocate: %s", path,
			   strerror(errno));
		return;
	}
	/*
	 * What librdmachan keeps for the process (the device's context and
	 * PD, its files) is made once here, before the first baseline.
	 */
	if (!run_step(&s, -1, false))
		return;
	/* bypass stays kernel-owned where the module cannot drive uverbs QPs */
	if (!prog->nth && strcmp(mode, rdmachan_get_mode() ==
				 RDMACHAN_MODE_BYPASS ? "bypass" : "kernel"))
		ksft_print_msg("%s: asked for %s mode, runs kernel-owned\n",
			       cur_ops->name, mode);
	while (prog->misses < RS_SWEEP_TAIL) {
		unsigned int misses = prog->misses;

		if (prog->nth >= RS_SWEEP_MAX ||
		    time(NULL) - start > RS_SWEEP_BUDGET_S) {
			prog->cut = true;
			break;
		}
		prog->nth++;
		if (!run_step(&s, nth_fd, true))
			return;
		/*
		 * Past the end: step back a little and go on, since a path
		 * can be a point or two longer now and then (a poll loop).
		 */
		if (prog->misses != misses && prog->misses < RS_SWEEP_TAIL)
			prog->nth -= prog->nth > RS_SWEEP_BACK ?
				     RS_SWEEP_BACK + 1 : prog->nth;
	}
	prog->done = true;
	close(nth_fd);
}

/*
 * Both of librdmachan's modes, each sweep in a new process (the mode is
 * chosen once per process, at its first verbs object): this program is
 * not one of the suite's both-modes API tests.
 */
FIXTURE(rsock) {
	int unused;
};

FIXTURE_VARIANT(rsock) {
	const char *mode;
};

FIXTURE_VARIANT_ADD(rsock, bypass) {
	.mode = "bypass",
};

FIXTURE_VARIANT_ADD(rsock, kernel) {
	.mode = "kernel",
};

FIXTURE_SETUP(rsock)
{
}

FIXTURE_TEARDOWN(rsock)
{
}

static void rs_sweep(struct __test_metadata *_metadata, const char *mode,
		     const struct rs_sweep_ops *ops)
{
	char errnos[160] = "";
	unsigned int restarts = 0;
	size_t i, len = 0;
	int status;
	pid_t pid;

	if (!fi.totals)
		SKIP(return, "%s", fi.skip_reason);
	prog = mmap(NULL, sizeof(*prog), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, prog);
	memset(prog, 0, sizeof(*prog));
	cur_ops = ops;
	fi.totals->running = getpid();
	while (!prog->done) {
		fflush(stdout);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			/* killed with the test (its time limit), not left armed */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != fi.totals->running)
				_exit(1);
			setenv("RDMACHAN_MODE", mode, 1);
			sweep_child(mode);
			fflush(stdout);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (prog->done)
			break;
		if (WIFSIGNALED(status))
			rs_finding("the sweep's process died of %s%s",
				   strsignal(WTERMSIG(status)),
				   WTERMSIG(status) == SIGALRM ?
				   " (a hang: the step took too long)" : "");
		/* a set-up failure ends the sweep: its finding says why */
		if (!WIFSIGNALED(status) || ++restarts > RS_MAX_RESTARTS)
			break;
		/* a new process from the next point on */
		prog->misses = 0;
	}
	for (i = 0; i < ARRAY_SIZE(prog->errs) && prog->errs[i].err; i++)
		len += snprintf(errnos + len, sizeof(errnos) - len, " %s x%u",
				fail_nth_errname(prog->errs[i].err),
				prog->errs[i].count);
	ksft_print_msg("%-30s %-6s %3u points, %3u faults: %3u failed the call (%s), %3u absorbed, %u lost%s\n",
		       ops->name, mode, prog->deepest, prog->points, prog->failed,
		       errnos[0] ? errnos + 1 : "", prog->absorbed, prog->lost,
		       prog->cut ? " (cut short by the sweep's bounds)" : "");
	/* the harness ends a test's process with _exit() */
	fflush(stdout);
	fi.totals->calls += prog->calls;
	fi.totals->points += prog->points;
	fi.totals->failed += prog->failed;
	fi.totals->absorbed += prog->absorbed;
	fi.totals->running = 0;
	EXPECT_EQ(0, prog->findings);
	EXPECT_TRUE(prog->done);
	munmap(prog, sizeof(*prog));
}

#define RS_SWEEP_TEST(_test, _ops)					\
TEST_F_TIMEOUT(rsock, _test, RS_TEST_TIMEOUT_S)				\
{									\
	rs_sweep(_metadata, variant->mode, &_ops);					\
}

RS_SWEEP_TEST(stream_listen, sweep_listen)
RS_SWEEP_TEST(stream_send, sweep_send)
RS_SWEEP_TEST(stream_recv, sweep_recv)
RS_SWEEP_TEST(stream_poll, sweep_poll)
RS_SWEEP_TEST(stream_shutdown, sweep_shutdown)
RS_SWEEP_TEST(stream_close, sweep_close)
RS_SWEEP_TEST(dgram_first_sendto, sweep_first_sendto)
RS_SWEEP_TEST(dgram_first_recvfrom, sweep_first_recvfrom)
RS_SWEEP_TEST(dgram_answered_sendto, sweep_answered_sendto)
RS_SWEEP_TEST(dgram_close, sweep_dgram_close)

TEST_HARNESS_MAIN
