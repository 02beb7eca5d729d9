// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets (rsocket(7)) through the API alone: stream connections over
 * the guest's rxe device, blocking and nonblocking, partial and gathered
 * transfers, each end's shutdown, a killed peer, rpoll/rselect over
 * rsockets and ordinary descriptors, names, options, iomaps and bad
 * arguments. Built against librdmachan (both modes) and against the stock
 * librdmacm (make selftests-stock), which is the reference; where rdmachan
 * answers what stock does not (a NULL buffer, a closed descriptor), the
 * case says so and checks rdmachan only.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/uio.h>
#include <netinet/tcp.h>

#include <rdma/rsocket.h>

#include "cm_test.h"
#include "rs_threads.h"
#include "rs_interrupt.h"
#include "kselftest_harness.h"

#ifdef RDMACHAN_TEST_STOCK
#define RS_STOCK	1
#else
#define RS_STOCK	0
#endif

/* How long anything that should happen may take. */
#define RS_WAIT_MS	20000
#define RS_BIG		(1 << 20)

/* A stream listener on the test address, on a port the CM chose. */
static int rs_listener(struct sockaddr_in *where)
{
	socklen_t len = sizeof(*where);
	int fd = rsocket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	cm_sockaddr(where, cm_test_addr(), 0);
	if (rbind(fd, (struct sockaddr *)where, sizeof(*where)) ||
	    rlisten(fd, 8) ||
	    rgetsockname(fd, (struct sockaddr *)where, &len)) {
		rclose(fd);
		return -1;
	}
	return fd;
}

struct rs_acceptor {
	pthread_t thread;
	int listener;
	int fd;
	int err;
};

static void *rs_accept_thread(void *arg)
{
	struct rs_acceptor *a = arg;

	a->fd = raccept(a->listener, NULL, NULL);
	a->err = a->fd < 0 ? errno : 0;
	return NULL;
}

/* A connect to @where; a nonblocking one (set as rstream -T n sets it) may
 * still be under way. */
static int rs_connect_to(const struct sockaddr_in *where, bool nonblock)
{
	int fd = rsocket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (nonblock && rfcntl(fd, F_SETFL, O_NONBLOCK)) {
		rclose(fd);
		return -1;
	}
	if (rconnect(fd, (const struct sockaddr *)where, sizeof(*where)) &&
	    errno != EINPROGRESS) {
		int err = errno;

		rclose(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* Waits until @fd offers @events: the revents, 0 on time out. */
static short rs_wait(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	if (rpoll(&pfd, 1, RS_WAIT_MS) <= 0)
		return 0;
	return pfd.revents;
}

static void rs_fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed + i * 7 + (i >> 9));
}

/* Reads all of @len with rread, however the rsocket splits it. */
static int rs_recv_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = rread(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

FIXTURE(pair) {
	struct sockaddr_in where;
	int listener;
	int server;
	int client;
};

FIXTURE_SETUP(pair)
{
	struct rs_acceptor a = { 0 };

	self->server = -1;
	self->client = -1;
	self->listener = rs_listener(&self->where);
	ASSERT_LE(0, self->listener) TH_LOG("listener: %s", strerror(errno));
	a.listener = self->listener;
	ASSERT_EQ(0, pthread_create(&a.thread, NULL, rs_accept_thread, &a));
	self->client = rs_connect_to(&self->where, false);
	pthread_join(a.thread, NULL);
	ASSERT_LE(0, self->client) TH_LOG("rconnect: %s", strerror(errno));
	ASSERT_LE(0, a.fd) TH_LOG("raccept: %s", strerror(a.err));
	self->server = a.fd;
}

FIXTURE_TEARDOWN(pair)
{
	if (self->client >= 0)
		rclose(self->client);
	if (self->server >= 0)
		rclose(self->server);
	if (self->listener >= 0)
		rclose(self->listener);
}

struct rs_writer {
	pthread_t thread;
	int fd;
	const void *buf;
	size_t len;
	ssize_t ret;
};

static void *rs_write_thread(void *arg)
{
	struct rs_writer *w = arg;

	w->ret = rwrite(w->fd, w->buf, w->len);
	return NULL;
}

/* A megabyte each way, more than the buffers hold, checked byte for byte. */
TEST_F(pair, megabyte_each_way)
{
	unsigned char *out = malloc(RS_BIG), *in = malloc(RS_BIG);
	struct rs_writer w = { .len = RS_BIG };

	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	rs_fill(out, RS_BIG, 3);
	w.fd = self->client;
	w.buf = out;
	ASSERT_EQ(0, pthread_create(&w.thread, NULL, rs_write_thread, &w));
	ASSERT_EQ(RS_BIG, rrecv(self->server, in, RS_BIG, MSG_WAITALL));
	pthread_join(w.thread, NULL);
	ASSERT_EQ(RS_BIG, w.ret);
	ASSERT_EQ(0, memcmp(out, in, RS_BIG));
	/* and back, with rsend/rread */
	w.fd = self->server;
	w.buf = in;
	memset(out, 0, RS_BIG);
	ASSERT_EQ(0, pthread_create(&w.thread, NULL, rs_write_thread, &w));
	ASSERT_EQ(0, rs_recv_all(self->client, out, RS_BIG));
	pthread_join(w.thread, NULL);
	ASSERT_EQ(RS_BIG, w.ret);
	ASSERT_EQ(0, memcmp(out, in, RS_BIG));
	free(out);
	free(in);
}

/* Reads of less than has arrived take a part; a peek takes nothing. */
TEST_F(pair, partial_reads_and_peek)
{
	unsigned char out[1000], in[1000], peek[10];
	size_t got = 0;

	rs_fill(out, sizeof(out), 9);
	ASSERT_EQ(sizeof(out), rsend(self->client, out, sizeof(out), 0));
	ASSERT_TRUE(rs_wait(self->server, POLLIN) & POLLIN);
	ASSERT_EQ(sizeof(peek), rrecv(self->server, peek, sizeof(peek), MSG_PEEK));
	ASSERT_EQ(0, memcmp(out, peek, sizeof(peek)));
	while (got < sizeof(in)) {
		ssize_t n = rrecv(self->server, in + got, 100, 0);

		ASSERT_LT(0, n);
		ASSERT_GE(100, n);
		got += (size_t)n;
	}
	ASSERT_EQ(0, memcmp(out, in, sizeof(in)));
}

/*
 * Gathered writes and scattered reads, with the msghdr and iovec forms.
 * Stock's rrecvmsg/rreadv fill only the first iovec: rdmachan fills all.
 */
TEST_F(pair, iovec_and_msghdr)
{
	char a[] = "scatter ", b[] = "gather ", c[] = "rsockets";
	struct iovec out[3] = {
		{ a, strlen(a) }, { b, strlen(b) }, { c, strlen(c) },
	};
	char x[5], y[41];
	struct iovec in[2] = { { x, sizeof(x) }, { y, sizeof(y) } };
	size_t total = strlen(a) + strlen(b) + strlen(c);
	struct msghdr msg = { .msg_iov = out, .msg_iovlen = 3 };
	ssize_t n;

	ASSERT_EQ(total, rsendmsg(self->client, &msg, 0));
	ASSERT_EQ(total, rwritev(self->client, out, 3));
	ASSERT_EQ(total * 2, sizeof(x) + sizeof(y));
	if (RS_STOCK) {
		ASSERT_EQ(5, rrecv(self->server, x, 5, MSG_WAITALL));
		ASSERT_EQ(sizeof(y), rreadv(self->server, &in[1], 1));
	} else {
		msg.msg_iov = in;
		msg.msg_iovlen = 2;
		n = rrecvmsg(self->server, &msg, MSG_WAITALL);
		ASSERT_EQ(sizeof(x) + sizeof(y), n);
	}
	ASSERT_EQ(0, memcmp(x, "scatt", 5));
	ASSERT_EQ(0, memcmp(y, "er gather rsocketsscatter gather rsockets",
			    sizeof(y)));
}

/* Nonblocking: no data is EAGAIN; a writer fills the pipe, then drains. */
TEST_F(pair, nonblocking_fill_and_drain)
{
	unsigned char *buf = malloc(RS_BIG);
	size_t sent = 0, got = 0;
	char c;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, rfcntl(self->server, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, rfcntl(self->client, F_SETFL, O_NONBLOCK));
	ASSERT_TRUE(rfcntl(self->client, F_GETFL) & O_NONBLOCK);
	ASSERT_EQ(-1, rrecv(self->server, &c, 1, 0));
	ASSERT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
	/* without a reader, the peer's buffer and credits run out */
	for (;;) {
		ssize_t n = rsend(self->client, buf, 65536, 0);

		if (n < 0) {
			ASSERT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
			break;
		}
		sent += (size_t)n;
		ASSERT_GT(64u << 20, sent) TH_LOG("never blocked");
	}
	ASSERT_LT(0, sent);
	while (got < sent) {
		ssize_t n = rrecv(self->server, buf, RS_BIG, 0);

		if (n < 0) {
			ASSERT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
			ASSERT_TRUE(rs_wait(self->server, POLLIN) & POLLIN);
			continue;
		}
		got += (size_t)n;
	}
	ASSERT_EQ(sent, got);
	/* a reader reads until EAGAIN; stock returns credits only then */
	ASSERT_EQ(-1, rrecv(self->server, buf, RS_BIG, 0));
	/* the writer may write again */
	ASSERT_TRUE(rs_wait(self->client, POLLOUT) & POLLOUT);
	ASSERT_LT(0, rsend(self->client, buf, 100, 0));
	free(buf);
}

/* The client's SHUT_WR: the server reads the data, then the end, and can
 * still answer; the client reads the answer. */
TEST_F(pair, shutdown_write_half_closes)
{
	char buf[16];

	ASSERT_EQ(5, rsend(self->client, "hello", 5, 0));
	ASSERT_EQ(0, rshutdown(self->client, SHUT_WR));
	ASSERT_EQ(5, rrecv(self->server, buf, 5, MSG_WAITALL));
	ASSERT_EQ(0, rrecv(self->server, buf, sizeof(buf), 0));
	ASSERT_EQ(3, rsend(self->server, "bye", 3, 0));
	ASSERT_EQ(3, rrecv(self->client, buf, 3, MSG_WAITALL));
	ASSERT_EQ(0, memcmp(buf, "bye", 3));
	/* rdmachan only: the client writes no more (stock still sends) */
	if (!RS_STOCK) {
		ASSERT_EQ(-1, rsend(self->client, "x", 1, 0));
		ASSERT_EQ(ECONNRESET, errno);
	}
}

/* The server's SHUT_RDWR: the client reads what was sent, then the end;
 * its writes fail. */
TEST_F(pair, shutdown_both_ends_the_stream)
{
	char buf[16];
	ssize_t n;
	int i;

	ASSERT_EQ(4, rsend(self->server, "last", 4, 0));
	ASSERT_EQ(0, rshutdown(self->server, SHUT_RDWR));
	ASSERT_EQ(4, rrecv(self->client, buf, 4, MSG_WAITALL));
	ASSERT_EQ(0, memcmp(buf, "last", 4));
	ASSERT_EQ(0, rrecv(self->client, buf, sizeof(buf), 0));
	/* the stream is over: writes fail (on stock once one has failed) */
	for (i = 0, n = 0; i < RS_WAIT_MS / 10 && n >= 0; i++) {
		n = rsend(self->client, "x", 1, 0);
		usleep(10000);
	}
	ASSERT_EQ(-1, n);
	ASSERT_EQ(ECONNRESET, errno);
}

/* rclose() of the client: the server reads the data, then the end. */
TEST_F(pair, close_is_seen_as_the_end)
{
	char buf[64];

	ASSERT_EQ(6, rsend(self->client, "closed", 6, 0));
	ASSERT_EQ(0, rclose(self->client));
	self->client = -1;
	ASSERT_EQ(6, rrecv(self->server, buf, 6, MSG_WAITALL));
	ASSERT_TRUE(rs_wait(self->server, POLLIN) & (POLLIN | POLLHUP));
	ASSERT_EQ(0, rrecv(self->server, buf, sizeof(buf), 0));
}

/*
 * A poller need not be woken by another thread's close, as poll(2) is not
 * by close(2): it may sleep until its time runs out.
 */
#define RS_POLL_UNDER_CLOSE_MS	2000

struct rs_blocked {
	pthread_t thread;
	int fd;
	bool poll;
	int ret;
	int err;
};

static void *rs_blocked_thread(void *arg)
{
	struct rs_blocked *b = arg;
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN };
	char buf[64];

	b->ret = b->poll ? rpoll(&pfd, 1, RS_POLL_UNDER_CLOSE_MS) :
			   (int)rrecv(b->fd, buf, sizeof(buf), 0);
	b->err = errno;
	return NULL;
}

/* Joins @thread if it ends within RS_WAIT_MS: 0, or ETIMEDOUT. */
static int rs_join_within(pthread_t thread)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RS_WAIT_MS / 1000;
	return pthread_timedjoin_np(thread, NULL, &until);
}

/*
 * rdmachan only (stock frees the rsocket under the other thread): rclose()
 * while other threads read from and rpoll() the rsocket ends the read and
 * leaves the rpoll() its answer or its time out, both on memory still
 * theirs; the descriptor is gone at once, and the peer sees the end.
 */
TEST_F(pair, close_under_blocked_calls)
{
	struct rs_blocked reader = { .fd = self->server };
	struct rs_blocked poller = { .fd = self->server, .poll = true };
	char buf[8];

	if (RS_STOCK)
		SKIP(return, "stock's rclose() frees the rsocket under them");
	ASSERT_EQ(0, pthread_create(&reader.thread, NULL, rs_blocked_thread,
				    &reader));
	ASSERT_EQ(0, pthread_create(&poller.thread, NULL, rs_blocked_thread,
				    &poller));
	/* both are asleep in the library by now */
	usleep(300000);
	ASSERT_EQ(0, rclose(self->server));
	ASSERT_EQ(-1, rclose(self->server));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, rrecv(self->server, buf, 1, MSG_DONTWAIT));
	ASSERT_EQ(EBADF, errno);
	self->server = -1;
	ASSERT_EQ(0, rs_join_within(reader.thread)) TH_LOG("rrecv still sleeps");
	ASSERT_EQ(0, rs_join_within(poller.thread)) TH_LOG("rpoll still sleeps");
	/* the end of the stream, or the rsocket was gone when it started */
	ASSERT_TRUE(reader.ret == 0 ||
		    (reader.ret == -1 && (reader.err == ECONNRESET ||
					  reader.err == EBADF)))
		TH_LOG("rrecv: %d (%s)", reader.ret, strerror(reader.err));
	ASSERT_TRUE(poller.ret == 0 || poller.ret == 1)
		TH_LOG("rpoll: %d (%s)", poller.ret, strerror(poller.err));
	ASSERT_TRUE(rs_wait(self->client, POLLIN) & (POLLIN | POLLHUP));
	ASSERT_EQ(0, rrecv(self->client, buf, sizeof(buf), 0));
}

struct rs_poller {
	pthread_t thread;
	int fd;
	int ret;
	short revents;
};

static void *rs_poll_thread(void *arg)
{
	struct rs_poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	p->ret = rpoll(&pfd, 1, 6 * RS_WAIT_MS);
	p->revents = pfd.revents;
	return NULL;
}

/*
 * A blocking rrecv() in one thread takes in the completion that rpoll()
 * in another sleeps on: the poller still hears of what is left to read.
 */
TEST_F(pair, rpoll_hears_what_a_reader_took_in)
{
	struct rs_blocked reader = { .fd = self->server };
	struct rs_poller poller = { .fd = self->server };
	char rest;

	ASSERT_EQ(0, pthread_create(&reader.thread, NULL, rs_blocked_thread,
				    &reader));
	ASSERT_EQ(0, pthread_create(&poller.thread, NULL, rs_poll_thread,
				    &poller));
	/* both are asleep in the library by now */
	usleep(300000);
	/* one message the reader takes whole; a second it leaves */
	ASSERT_EQ(1, rsend(self->client, "a", 1, 0));
	ASSERT_EQ(0, rs_join_within(reader.thread)) TH_LOG("rrecv still sleeps");
	ASSERT_EQ(1, reader.ret);
	ASSERT_EQ(1, rsend(self->client, "b", 1, 0));
	ASSERT_EQ(0, rs_join_within(poller.thread)) TH_LOG("rpoll still sleeps");
	/* it may have seen "a" before the reader took it, or "b" */
	ASSERT_EQ(1, poller.ret);
	ASSERT_TRUE(poller.revents & POLLIN);
	ASSERT_TRUE(rs_wait(self->server, POLLIN) & POLLIN);
	ASSERT_EQ(1, rrecv(self->server, &rest, 1, 0));
	ASSERT_EQ('b', rest);
}

/*
 * rdmachan only (stock's rsockets keep the locks of a thread cancelled in
 * them): a thread cancelled asleep in rrecv() or in rpoll() leaves the
 * rsocket whole. A reader after it sleeps in its place and gets what
 * comes, and the eventfd rpoll() slept with goes with the rsocket.
 */
TEST_F(pair, cancelled_sleepers_leave_the_rsocket_whole)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_blocked next;
	const char *err;
	int eventfds;

	if (RS_STOCK)
		SKIP(return, "stock's rsockets keep a cancelled thread's locks");
	err = rs_cancel_reader_then_poller(self->server, RS_WAIT_MS, &eventfds);
	ASSERT_TRUE(!err) TH_LOG("%s", err);
	next.fd = self->server;
	ASSERT_EQ(0, pthread_create(&next.thread, NULL, rs_blocked_thread,
				    &next));
	usleep(300000);
	ASSERT_EQ(1, rsend(self->client, "a", 1, 0));
	ASSERT_EQ(0, rs_join_within(next.thread))
		TH_LOG("rrecv sleeps behind the cancelled reader");
	ASSERT_EQ(1, next.ret);
	ASSERT_EQ(0, rclose(self->server));
	self->server = -1;
	/* the spare went with the rsocket, not with the cancelled rpoll() */
	ASSERT_EQ(eventfds - 1, rs_eventfds_below(eventfds));
}

struct rs_connector {
	pthread_t thread;
	int fd;
	const struct sockaddr_in *where;
	int ret;
	int err;
	volatile bool done;
};

static void *rs_connect_thread(void *arg)
{
	struct rs_connector *c = arg;

	c->ret = rconnect(c->fd, (const struct sockaddr *)c->where,
			  sizeof(*c->where));
	c->err = errno;
	c->done = true;
	return NULL;
}

/*
 * A blocking rconnect() while another thread spins rpoll() on the same
 * rsocket, which takes in the connect's CM events: the connect still
 * hears that it is established.
 */
TEST_F(pair, rconnect_hears_what_rpoll_took_in)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_connector conn;
	static struct rs_spinner spinner;
	int accepted, waited;

	conn.fd = rsocket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, conn.fd);
	conn.where = &self->where;
	conn.done = false;
	spinner.fd = conn.fd;
	spinner.stop = false;
	ASSERT_EQ(0, pthread_create(&spinner.thread, NULL, rs_spin_rpoll,
				    &spinner));
	ASSERT_EQ(0, pthread_create(&conn.thread, NULL, rs_connect_thread,
				    &conn));
	/* the connect waits for the accept by now */
	usleep(300000);
	accepted = raccept(self->listener, NULL, NULL);
	for (waited = 0; !conn.done && waited < RS_WAIT_MS; waited += 10)
		usleep(10000);
	spinner.stop = true;
	pthread_join(spinner.thread, NULL);
	ASSERT_LE(0, accepted) TH_LOG("raccept: %s", strerror(errno));
	rclose(accepted);
	ASSERT_TRUE(conn.done) TH_LOG("rconnect still sleeps");
	pthread_join(conn.thread, NULL);
	ASSERT_EQ(0, conn.ret) TH_LOG("rconnect: %s", strerror(conn.err));
	rclose(conn.fd);
}

/* A signal ends a blocking rrecv() with EINTR; the stream goes on. */
TEST_F(pair, signal_interrupts_a_blocking_read)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_interrupted r;
	char c;

	ASSERT_EQ(0, rs_recv_interrupted(self->server, &r, RS_WAIT_MS))
		TH_LOG("rrecv sleeps through signals");
	ASSERT_EQ(-1, r.ret);
	ASSERT_EQ(EINTR, r.err);
	ASSERT_EQ(1, rsend(self->client, "x", 1, 0));
	ASSERT_TRUE(rs_wait(self->server, POLLIN) & POLLIN);
	ASSERT_EQ(1, rrecv(self->server, &c, 1, 0));
	ASSERT_EQ('x', c);
}

/* rpoll over an rsocket and a pipe: each is ready when, and only when,
 * it has something; rselect says the same. */
TEST_F(pair, rpoll_and_rselect_mix_descriptors)
{
	struct pollfd fds[2];
	struct timeval tv = { 0, 0 };
	fd_set rd;
	int p[2];
	char c;

	ASSERT_EQ(0, pipe(p));
	fds[0].fd = self->server;
	fds[0].events = POLLIN;
	fds[1].fd = p[0];
	fds[1].events = POLLIN;
	ASSERT_EQ(0, rpoll(fds, 2, 0));
	ASSERT_EQ(0, rpoll(fds, 2, 200));
	ASSERT_EQ(1, write(p[1], "p", 1));
	ASSERT_EQ(1, rpoll(fds, 2, RS_WAIT_MS));
	ASSERT_EQ(0, fds[0].revents);
	ASSERT_EQ(POLLIN, fds[1].revents);
	ASSERT_EQ(1, read(p[0], &c, 1));
	ASSERT_EQ(1, rsend(self->client, "r", 1, 0));
	ASSERT_EQ(1, rpoll(fds, 2, RS_WAIT_MS));
	ASSERT_TRUE(fds[0].revents & POLLIN);
	ASSERT_EQ(0, fds[1].revents);

	FD_ZERO(&rd);
	FD_SET(self->server, &rd);
	FD_SET(p[0], &rd);
	ASSERT_EQ(1, rselect((p[0] > self->server ? p[0] : self->server) + 1,
			     &rd, NULL, NULL, &tv));
	ASSERT_TRUE(FD_ISSET(self->server, &rd));
	ASSERT_FALSE(FD_ISSET(p[0], &rd));
	ASSERT_EQ(1, rrecv(self->server, &c, 1, 0));
	/* the client can write */
	fds[0].fd = self->client;
	fds[0].events = POLLOUT;
	ASSERT_EQ(1, rpoll(fds, 1, RS_WAIT_MS));
	ASSERT_TRUE(fds[0].revents & POLLOUT);
	close(p[0]);
	close(p[1]);
}

/* Each end's name is the other's peer. */
TEST_F(pair, names_cross)
{
	struct sockaddr_in cl, cp, sl, sp;
	socklen_t len = sizeof(cl);

	ASSERT_EQ(0, rgetsockname(self->client, (struct sockaddr *)&cl, &len));
	ASSERT_EQ(sizeof(cl), len);
	ASSERT_EQ(0, rgetpeername(self->client, (struct sockaddr *)&cp, &len));
	ASSERT_EQ(0, rgetsockname(self->server, (struct sockaddr *)&sl, &len));
	ASSERT_EQ(0, rgetpeername(self->server, (struct sockaddr *)&sp, &len));
	ASSERT_EQ(cl.sin_port, sp.sin_port);
	ASSERT_EQ(cp.sin_port, sl.sin_port);
	ASSERT_EQ(self->where.sin_port, cp.sin_port);
	ASSERT_EQ(cl.sin_addr.s_addr, sp.sin_addr.s_addr);
}

/* riomap on the server, riowrite from the client straight into it. */
TEST(iomap_write_lands_in_the_mapped_buffer)
{
	struct rs_acceptor a = { 0 };
	struct sockaddr_in where;
	unsigned char *map = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char data[65536];
	int entries = 4, client, server;
	char c;

	ASSERT_NE(MAP_FAILED, map);
	a.listener = rs_listener(&where);
	ASSERT_LE(0, a.listener);
	client = rsocket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, client);
	/* the writer holds the entries the mapper publishes into */
	ASSERT_EQ(0, rsetsockopt(client, SOL_RDMA, RDMA_IOMAPSIZE, &entries,
				 sizeof(entries)));
	ASSERT_EQ(0, pthread_create(&a.thread, NULL, rs_accept_thread, &a));
	ASSERT_EQ(0, rconnect(client, (struct sockaddr *)&where, sizeof(where)));
	pthread_join(a.thread, NULL);
	server = a.fd;
	ASSERT_LE(0, server);

	memset(map, 0, 65536);
	ASSERT_EQ(4096, riomap(server, map, 65536, PROT_WRITE, 0, 4096));
	/* the mapping goes out before the next message */
	ASSERT_EQ(1, rsend(server, "m", 1, 0));
	ASSERT_EQ(1, rrecv(client, &c, 1, MSG_WAITALL));
	rs_fill(data, sizeof(data), 21);
	ASSERT_EQ(sizeof(data) - 100,
		  riowrite(client, data, sizeof(data) - 100, 4096 + 100, 0));
	ASSERT_EQ(1, rsend(client, "w", 1, 0));
	ASSERT_EQ(1, rrecv(server, &c, 1, MSG_WAITALL));
	ASSERT_EQ(0, memcmp(map + 100, data, sizeof(data) - 100));
	ASSERT_EQ(0, map[99]);
	ASSERT_EQ(0, riounmap(server, map, 65536));
	ASSERT_EQ(-1, riounmap(server, map, 65536));
	ASSERT_EQ(EINVAL, errno);
	rclose(client);
	rclose(server);
	rclose(a.listener);
	munmap(map, 65536);
}

/* Options set before the connection are kept, and read back. */
TEST(options)
{
	int fd = rsocket(AF_INET, SOCK_STREAM, 0), val;
	socklen_t len = sizeof(val);

	ASSERT_LE(0, fd);
	val = 65536;
	ASSERT_EQ(0, rsetsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	ASSERT_EQ(0, rgetsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, &len));
	ASSERT_EQ(131072, val);
	val = 1;
	ASSERT_EQ(0, rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &val, sizeof(val)));
	val = 0;
	ASSERT_EQ(0, rgetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &val, &len));
	ASSERT_NE(0, val);
	val = 64;
	ASSERT_EQ(0, rsetsockopt(fd, SOL_RDMA, RDMA_SQSIZE, &val, sizeof(val)));
	ASSERT_EQ(0, rgetsockopt(fd, SOL_RDMA, RDMA_SQSIZE, &val, &len));
	ASSERT_EQ(64, val);
	val = 1;
	ASSERT_EQ(0, rsetsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &val, sizeof(val)));
	val = 0;
	ASSERT_EQ(0, rgetsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &val, &len));
	ASSERT_NE(0, val);
	ASSERT_EQ(0, rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &val, &len));
	ASSERT_EQ(0, val);
	ASSERT_EQ(-1, rsetsockopt(fd, SOL_SOCKET, SO_BROADCAST, &val, sizeof(val)));
	ASSERT_EQ(0, rclose(fd));
}

/* A connect where nobody listens is refused; a nonblocking one says so
 * through rpoll and SO_ERROR. */
TEST(connect_refused)
{
	struct sockaddr_in where;
	int l = rs_listener(&where), fd, err = -1;
	socklen_t len = sizeof(err);
	short revents;

	ASSERT_LE(0, l) TH_LOG("listener: %s", strerror(errno));
	ASSERT_EQ(0, rclose(l));
	fd = rsocket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, rconnect(fd, (struct sockaddr *)&where, sizeof(where)));
	ASSERT_EQ(ECONNREFUSED, errno) TH_LOG("rconnect: %s", strerror(errno));
	rclose(fd);

	/* nonblocking: EINPROGRESS, then the refusal through rpoll */
	fd = rsocket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rfcntl(fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(-1, rconnect(fd, (struct sockaddr *)&where, sizeof(where)));
	ASSERT_EQ(EINPROGRESS, errno) TH_LOG("rconnect: %s", strerror(errno));
	revents = rs_wait(fd, POLLOUT);
	ASSERT_TRUE(revents & POLLERR) TH_LOG("revents %#x", revents);
	ASSERT_EQ(0, rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	ASSERT_EQ(ECONNREFUSED, err) TH_LOG("SO_ERROR: %s", strerror(err));
	rclose(fd);
}

/* A nonblocking connect completes through rpoll's POLLOUT. */
TEST(nonblocking_connect)
{
	struct rs_acceptor a = { 0 };
	struct sockaddr_in where;
	int fd, err = -1;
	socklen_t len = sizeof(err);

	a.listener = rs_listener(&where);
	ASSERT_LE(0, a.listener);
	ASSERT_EQ(0, pthread_create(&a.thread, NULL, rs_accept_thread, &a));
	fd = rs_connect_to(&where, true);
	ASSERT_LE(0, fd);
	ASSERT_EQ(POLLOUT, rs_wait(fd, POLLOUT));
	ASSERT_EQ(0, rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	ASSERT_EQ(0, err);
	pthread_join(a.thread, NULL);
	ASSERT_LE(0, a.fd);
	ASSERT_EQ(2, rsend(fd, "nb", 2, 0));
	rclose(fd);
	rclose(a.fd);
	rclose(a.listener);
}

/*
 * A peer killed with SIGKILL: the survivor reads its data, then the end
 * (or ECONNRESET), and is not left waiting. The peer is forked before
 * either end touches RDMA (a child may not use its parent's contexts).
 */
TEST(killed_peer_ends_the_stream)
{
	struct rs_acceptor a = { 0 };
	struct sockaddr_in where;
	int to_child[2], status;
	char buf[64];
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (read(to_child[0], &where, sizeof(where)) != sizeof(where))
			_exit(1);
		fd = rs_connect_to(&where, false);
		if (fd < 0 || rsend(fd, "dying", 5, 0) != 5)
			_exit(1);
		/* the message has landed once its write completed */
		usleep(300000);
		raise(SIGKILL);
		_exit(2);
	}
	a.listener = rs_listener(&where);
	ASSERT_LE(0, a.listener);
	ASSERT_EQ(0, pthread_create(&a.thread, NULL, rs_accept_thread, &a));
	ASSERT_EQ(sizeof(where), write(to_child[1], &where, sizeof(where)));
	pthread_join(a.thread, NULL);
	ASSERT_LE(0, a.fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(5, rrecv(a.fd, buf, 5, MSG_WAITALL));
	ASSERT_NE(0, rs_wait(a.fd, POLLIN));
	n = rrecv(a.fd, buf, sizeof(buf), 0);
	ASSERT_TRUE(n == 0 || (n == -1 && errno == ECONNRESET))
		TH_LOG("rrecv: %zd (%s)", n, strerror(errno));
	rclose(a.fd);
	rclose(a.listener);
}

/* Arguments that are not an rsocket's, or make no sense. */
TEST_F(pair, bad_arguments)
{
	char buf[8];
	int p[2];

	ASSERT_EQ(0, pipe(p));
	/* an ordinary descriptor is not an rsocket */
	ASSERT_EQ(-1, rsend(p[1], "x", 1, 0));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, rrecv(p[0], buf, 1, 0));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, rshutdown(p[0], SHUT_RDWR));
	ASSERT_EQ(EBADF, errno);
	close(p[0]);
	close(p[1]);
	/* no such family, type or protocol */
	ASSERT_EQ(-1, rsocket(AF_UNIX, SOCK_STREAM, 0));
	ASSERT_EQ(-1, rsocket(AF_INET, SOCK_RAW, 0));
	ASSERT_EQ(-1, rsocket(AF_INET, SOCK_STREAM, IPPROTO_UDP));
	/* nothing to send or take is nothing */
	ASSERT_EQ(0, rsend(self->client, buf, 0, 0));
	if (RS_STOCK)
		return;
	/* rdmachan only: stock crashes on a NULL buffer */
	ASSERT_EQ(-1, rsend(self->client, NULL, 8, 0));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, rrecv(self->server, NULL, 8, 0));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(0, rrecv(self->server, buf, 0, 0));
	ASSERT_EQ(-1, rshutdown(self->client, 42));
	ASSERT_EQ(EINVAL, errno);
	/* rdmachan only: stock's rclose answers EBADF as a return value */
	ASSERT_EQ(0, rclose(self->client));
	ASSERT_EQ(-1, rclose(self->client));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, rsend(self->client, "x", 1, 0));
	ASSERT_EQ(EBADF, errno);
	self->client = -1;
	/* rdmachan only: stock's raccept on a connected rsocket is EBADF */
	ASSERT_EQ(-1, raccept(self->server, NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
