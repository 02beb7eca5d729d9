// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Datagram rsockets (rsocket(7), SOCK_DGRAM) through the API alone, over
 * the guest's rxe device: echoes, sizes up to the largest datagram (over
 * the path MTU they go over UDP), truncation and peeking, nonblocking
 * calls, rpoll over rsockets and a pipe, several peers of one rsocket,
 * unbound senders, v4-mapped peers of an IPv6 rsocket, rconnect(AF_UNSPEC),
 * shutdown, a signal or a cancel in a blocking read and bad arguments.
 * Built against the stock
 * librdmacm too (make selftests-stock): stock's datagram rsockets cannot
 * run on a RoCE port at all (their loopback address handle has no GRH,
 * which RoCE refuses), so that build holds only the case checking it.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

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

#define RS_WAIT_MS	20000
/* rdma-core's largest datagram: a 2 KB slot less the IPv4 header */
#define RS_DG_MAX	2040

/* A datagram rsocket bound to the test address, on a port of the kernel's. */
static int dg_bound(struct sockaddr_in *where)
{
	socklen_t len = sizeof(*where);
	int fd = rsocket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	cm_sockaddr(where, cm_test_addr(), 0);
	if (rbind(fd, (struct sockaddr *)where, sizeof(*where)) ||
	    rgetsockname(fd, (struct sockaddr *)where, &len)) {
		rclose(fd);
		return -1;
	}
	return fd;
}

#if !RS_STOCK
/* Waits up to RS_WAIT_MS for a datagram, then takes it. */
static ssize_t dg_recv(int fd, void *buf, size_t len, struct sockaddr_in *from)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	socklen_t fromlen = sizeof(*from);

	if (rpoll(&pfd, 1, RS_WAIT_MS) != 1)
		return -2;
	return rrecvfrom(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)from,
			 from ? &fromlen : NULL);
}

/* Waits up to RS_WAIT_MS for a datagram, and peeks at it. */
static ssize_t dg_peek(int fd, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (rpoll(&pfd, 1, RS_WAIT_MS) != 1)
		return -2;
	return rrecv(fd, buf, len, MSG_PEEK);
}

static void dg_fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed * 31 + i * 7);
}

static bool dg_same(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

FIXTURE(dgram) {
	struct sockaddr_in server_addr;
	struct sockaddr_in client_addr;
	int server;
	int client;
};

FIXTURE_SETUP(dgram)
{
	socklen_t len = sizeof(self->client_addr);

	self->server = -1;
	self->client = -1;
	self->server = dg_bound(&self->server_addr);
	ASSERT_LE(0, self->server) TH_LOG("server: %s", strerror(errno));
	self->client = rsocket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	ASSERT_LE(0, self->client);
	ASSERT_EQ(0, rconnect(self->client, (struct sockaddr *)&self->server_addr,
			      sizeof(self->server_addr)))
		TH_LOG("rconnect: %s", strerror(errno));
	ASSERT_EQ(0, rgetsockname(self->client,
				  (struct sockaddr *)&self->client_addr, &len));
}

FIXTURE_TEARDOWN(dgram)
{
	if (self->client >= 0)
		rclose(self->client);
	if (self->server >= 0)
		rclose(self->server);
}

/*
 * 200 round trips: the first datagram goes over UDP, the answer and the
 * rest over UD. The server sees the client's address and answers to it.
 */
TEST_F(dgram, echo_round_trips)
{
	unsigned char out[256], in[512];
	struct sockaddr_in from;
	int i;

	for (i = 0; i < 200; i++) {
		size_t len = 1 + (size_t)(i * 37) % sizeof(out);

		dg_fill(out, len, (unsigned int)i);
		ASSERT_EQ((ssize_t)len, rsend(self->client, out, len, 0));
		memset(in, 0, sizeof(in));
		ASSERT_EQ((ssize_t)len, dg_recv(self->server, in, sizeof(in), &from))
			TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, memcmp(in, out, len));
		ASSERT_TRUE(dg_same(&from, &self->client_addr));
		in[0] ^= 0xff;
		ASSERT_EQ((ssize_t)len, rsendto(self->server, in, len, 0,
						(struct sockaddr *)&from,
						sizeof(from)));
		ASSERT_EQ((ssize_t)len, dg_recv(self->client, in, sizeof(in), &from));
		ASSERT_EQ(out[0] ^ 0xff, in[0]);
		ASSERT_EQ(0, memcmp(in + 1, out + 1, len - 1));
		ASSERT_TRUE(dg_same(&from, &self->server_addr));
	}
}

/* Empty, small, around rxe's 1 KB MTU and the largest: each arrives whole. */
TEST_F(dgram, sizes_up_to_the_largest)
{
	static const size_t sizes[] = { 0, 1, 1000, 1016, 1017, 1500, RS_DG_MAX };
	unsigned char out[RS_DG_MAX + 1], in[RS_DG_MAX + 64];
	struct sockaddr_in from;
	size_t i;
	int round;

	/* twice: before the client knows the server's QP, and after */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			dg_fill(out, sizes[i], (unsigned int)(i + 10 * round));
			ASSERT_EQ((ssize_t)sizes[i],
				  rsend(self->client, out, sizes[i], 0));
			ASSERT_EQ((ssize_t)sizes[i],
				  dg_recv(self->server, in, sizeof(in), &from))
				TH_LOG("%zu bytes: %s", sizes[i], strerror(errno));
			ASSERT_EQ(0, memcmp(in, out, sizes[i]));
			/* an answer lets the client learn the server's QP */
			ASSERT_EQ(1, rsendto(self->server, "k", 1, 0,
					     (struct sockaddr *)&from, sizeof(from)));
			ASSERT_EQ(1, dg_recv(self->client, in, sizeof(in), NULL));
		}
	}
	errno = 0;
	EXPECT_EQ(-1, rsend(self->client, out, RS_DG_MAX + 1, 0));
	EXPECT_EQ(EMSGSIZE, errno);
}

/*
 * Bursts of datagrams, each sent before any is read: every send slot is
 * taken and given back, and each datagram arrives whole and in order.
 */
TEST_F(dgram, bursts)
{
	unsigned char out[300], in[400];
	int round, i;

	/* the first datagram and its answer: the client knows the server's QP */
	ASSERT_EQ(1, rsend(self->client, "a", 1, 0));
	ASSERT_EQ(1, dg_recv(self->server, in, sizeof(in), NULL));
	ASSERT_EQ(1, rsendto(self->server, "b", 1, 0,
			     (struct sockaddr *)&self->client_addr,
			     sizeof(self->client_addr)));
	ASSERT_EQ(1, dg_recv(self->client, in, sizeof(in), NULL));
	for (round = 0; round < 6; round++) {
		for (i = 0; i < 40; i++) {
			dg_fill(out, sizeof(out), (unsigned int)(round * 40 + i));
			ASSERT_EQ((ssize_t)sizeof(out),
				  rsend(self->client, out, sizeof(out), 0))
				TH_LOG("round %d, datagram %d: %s", round, i,
				       strerror(errno));
		}
		for (i = 0; i < 40; i++) {
			dg_fill(out, sizeof(out), (unsigned int)(round * 40 + i));
			ASSERT_EQ((ssize_t)sizeof(out),
				  dg_recv(self->server, in, sizeof(in), NULL));
			ASSERT_EQ(0, memcmp(in, out, sizeof(out)))
				TH_LOG("round %d, datagram %d", round, i);
		}
	}
}

/* A short read takes the head of a datagram and drops the rest; peek keeps it. */
TEST_F(dgram, truncation_and_peek)
{
	unsigned char out[100], in[100];
	struct sockaddr_in from;

	dg_fill(out, sizeof(out), 3);
	ASSERT_EQ(100, rsend(self->client, out, sizeof(out), 0));
	ASSERT_EQ(100, rsend(self->client, out, sizeof(out), 0));
	ASSERT_EQ(10, dg_recv(self->server, in, 10, &from));
	ASSERT_EQ(0, memcmp(in, out, 10));
	/* the second datagram, peeked, then read */
	ASSERT_EQ(20, dg_peek(self->server, in, 20));
	ASSERT_EQ(0, memcmp(in, out, 20));
	memset(in, 0, sizeof(in));
	ASSERT_EQ(100, rrecv(self->server, in, sizeof(in), MSG_DONTWAIT));
	ASSERT_EQ(0, memcmp(in, out, 100));
	errno = 0;
	EXPECT_EQ(-1, rrecv(self->server, in, sizeof(in), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/* rrecvmsg() says MSG_TRUNC of a datagram longer than its buffers, as
 * recvmsg(2) of a UDP socket does, and not of one that fits */
TEST_F(dgram, rrecvmsg_reports_truncation)
{
	unsigned char out[100], in[100];
	struct iovec iov = { .iov_base = in, .iov_len = 40 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	dg_fill(out, sizeof(out), 5);
	ASSERT_EQ(100, rsend(self->client, out, sizeof(out), 0));
	ASSERT_EQ(40, rrecvmsg(self->server, &msg, 0));
	ASSERT_EQ(0, memcmp(in, out, 40));
	EXPECT_EQ(MSG_TRUNC, msg.msg_flags & MSG_TRUNC);
	ASSERT_EQ(100, rsend(self->client, out, sizeof(out), 0));
	iov.iov_len = sizeof(in);
	msg.msg_flags = MSG_TRUNC;
	ASSERT_EQ(100, rrecvmsg(self->server, &msg, 0));
	EXPECT_EQ(0, msg.msg_flags & MSG_TRUNC);
}

TEST_F(dgram, nonblocking_and_rpoll)
{
	struct pollfd fds[2];
	unsigned char buf[64];
	int pipefd[2];

	errno = 0;
	EXPECT_EQ(-1, rrecv(self->server, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, rfcntl(self->server, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(O_NONBLOCK, rfcntl(self->server, F_GETFL) & O_NONBLOCK);
	errno = 0;
	EXPECT_EQ(-1, rrecv(self->server, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);

	/* nothing to read: rpoll times out, but the rsocket is writable */
	ASSERT_EQ(0, pipe(pipefd));
	fds[0].fd = self->server;
	fds[0].events = POLLIN;
	fds[1].fd = pipefd[0];
	fds[1].events = POLLIN;
	EXPECT_EQ(0, rpoll(fds, 2, 50));
	fds[0].events = POLLOUT;
	EXPECT_EQ(1, rpoll(fds, 2, 0));
	EXPECT_EQ(POLLOUT, fds[0].revents);

	/* the pipe and then the datagram wake it */
	fds[0].events = POLLIN;
	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	EXPECT_EQ(1, rpoll(fds, 2, RS_WAIT_MS));
	EXPECT_EQ(0, fds[0].revents);
	EXPECT_EQ(POLLIN, fds[1].revents);
	ASSERT_EQ(1, read(pipefd[0], buf, 1));
	ASSERT_EQ(5, rsend(self->client, "hello", 5, 0));
	EXPECT_EQ(1, rpoll(fds, 2, RS_WAIT_MS));
	EXPECT_EQ(POLLIN, fds[0].revents);
	EXPECT_EQ(5, rrecv(self->server, buf, sizeof(buf), 0));
	close(pipefd[0]);
	close(pipefd[1]);
}

/* Three peers of one rsocket, each answered at its own address. */
TEST_F(dgram, several_peers)
{
	struct sockaddr_in from, addr[3];
	unsigned char buf[32];
	int peer[3], i, round;

	for (i = 0; i < 3; i++) {
		peer[i] = dg_bound(&addr[i]);
		ASSERT_LE(0, peer[i]);
	}
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 3; i++) {
			buf[0] = (unsigned char)(i + 10 * round);
			ASSERT_EQ(1, rsendto(peer[i], buf, 1, 0,
					     (struct sockaddr *)&self->server_addr,
					     sizeof(self->server_addr)));
		}
		for (i = 0; i < 3; i++) {
			int who;

			ASSERT_EQ(1, dg_recv(self->server, buf, sizeof(buf), &from));
			who = buf[0] % 10;
			ASSERT_LT(who, 3);
			ASSERT_TRUE(dg_same(&from, &addr[who]));
			buf[1] = 0x5a;
			ASSERT_EQ(2, rsendto(self->server, buf, 2, 0,
					     (struct sockaddr *)&from, sizeof(from)));
		}
		for (i = 0; i < 3; i++) {
			ASSERT_EQ(2, dg_recv(peer[i], buf, sizeof(buf), &from));
			EXPECT_EQ(i + 10 * round, buf[0]);
			EXPECT_TRUE(dg_same(&from, &self->server_addr));
		}
	}
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, rclose(peer[i]));
}

/* An unbound, unconnected rsocket gets a port with its first datagram. */
TEST_F(dgram, unbound_sender_gets_answers)
{
	int fd = rsocket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in from, name;
	socklen_t len = sizeof(name);
	unsigned char buf[16];

	ASSERT_LE(0, fd);
	ASSERT_EQ(3, rsendto(fd, "one", 3, 0,
			     (struct sockaddr *)&self->server_addr,
			     sizeof(self->server_addr)));
	ASSERT_EQ(0, rgetsockname(fd, (struct sockaddr *)&name, &len));
	EXPECT_NE(0, name.sin_port);
	ASSERT_EQ(3, dg_recv(self->server, buf, sizeof(buf), &from));
	EXPECT_EQ(name.sin_port, from.sin_port);
	ASSERT_EQ(3, rsendto(self->server, "two", 3, 0, (struct sockaddr *)&from,
			     sizeof(from)));
	ASSERT_EQ(3, dg_recv(fd, buf, sizeof(buf), &from));
	EXPECT_EQ(0, memcmp(buf, "two", 3));
	EXPECT_TRUE(dg_same(&from, &self->server_addr));
	errno = 0;
	EXPECT_EQ(-1, rgetpeername(fd, (struct sockaddr *)&name, &len));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(0, rclose(fd));
}

TEST_F(dgram, shutdown_each_way)
{
	unsigned char buf[8];

	ASSERT_EQ(0, rshutdown(self->client, SHUT_WR));
	errno = 0;
	EXPECT_EQ(-1, rsend(self->client, "x", 1, 0));
	EXPECT_EQ(EPIPE, errno);
	/* reading still works, and a shut reader reads the end at once */
	ASSERT_EQ(1, rsendto(self->server, "y", 1, 0,
			     (struct sockaddr *)&self->client_addr,
			     sizeof(self->client_addr)));
	ASSERT_EQ(1, dg_recv(self->client, buf, sizeof(buf), NULL));
	ASSERT_EQ(0, rshutdown(self->server, SHUT_RD));
	EXPECT_EQ(0, rrecv(self->server, buf, sizeof(buf), 0));
}

/* rconnect(AF_UNSPEC) ends the association, as for a UDP socket. */
TEST_F(dgram, connect_unspec_dissolves)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct sockaddr_in peer, from;
	socklen_t len = sizeof(peer);
	unsigned char buf[8];

	ASSERT_EQ(1, rsend(self->client, "a", 1, 0));
	ASSERT_EQ(1, dg_recv(self->server, buf, sizeof(buf), &from));
	ASSERT_EQ(0, rconnect(self->client, &unspec, sizeof(unspec)));
	errno = 0;
	EXPECT_EQ(-1, rsend(self->client, "b", 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	errno = 0;
	EXPECT_EQ(-1, rgetpeername(self->client, (struct sockaddr *)&peer,
				   &len));
	EXPECT_EQ(ENOTCONN, errno);
	/* a named peer is still reached */
	ASSERT_EQ(1, rsendto(self->client, "c", 1, 0,
			     (struct sockaddr *)&self->server_addr,
			     sizeof(self->server_addr)));
	ASSERT_EQ(1, dg_recv(self->server, buf, sizeof(buf), &from));
	EXPECT_EQ('c', buf[0]);
	/* and it can be associated again */
	ASSERT_EQ(0, rconnect(self->client,
			      (struct sockaddr *)&self->server_addr,
			      sizeof(self->server_addr)));
	ASSERT_EQ(1, rsend(self->client, "d", 1, 0));
	ASSERT_EQ(1, dg_recv(self->server, buf, sizeof(buf), NULL));
	EXPECT_EQ('d', buf[0]);
}

TEST_F(dgram, bad_arguments)
{
	struct sockaddr_in where = self->server_addr;
	int fd = rsocket(AF_INET, SOCK_DGRAM, 0);
	socklen_t len = sizeof(int);
	unsigned char buf[8];
	int value;

	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, rsend(fd, "x", 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	errno = 0;
	EXPECT_EQ(-1, rsendto(fd, "x", 1, 0, (struct sockaddr *)&where, 4));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rlisten(fd, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, raccept(fd, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, riomap(fd, buf, sizeof(buf), PROT_WRITE, 0, -1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, rrecv(fd, buf, sizeof(buf), MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(0, rgetsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &len));
	EXPECT_EQ(SOCK_DGRAM, value);
	/* the UDP socket's own options are set and read through */
	value = 0x10;
	EXPECT_EQ(0, rsetsockopt(fd, IPPROTO_IP, IP_TOS, &value, sizeof(value)));
	value = 0;
	len = sizeof(value);
	EXPECT_EQ(0, rgetsockopt(fd, IPPROTO_IP, IP_TOS, &value, &len));
	EXPECT_EQ(0x10, value);
	/* a UDP socket that binds without a port gives replies nowhere to go */
	value = 1;
	ASSERT_EQ(0, rsetsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &value,
				 sizeof(value)));
	errno = 0;
	EXPECT_EQ(-1, rsendto(fd, "x", 1, 0, (struct sockaddr *)&where,
			      sizeof(where)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(0, rclose(fd));
	errno = 0;
	EXPECT_EQ(-1, rsend(fd, "x", 1, 0));
	EXPECT_EQ(EBADF, errno);
	errno = 0;
	EXPECT_EQ(-1, rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

/*
 * rpoll() in one thread takes in the datagram (over UDP, the first) that
 * a blocking rrecv() in another sleeps on: the reader still gets it.
 */
TEST_F(dgram, rpoll_leaves_a_blocked_reader_its_datagram)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_interrupted reader;
	static struct rs_spinner spinner;
	pthread_t thread;
	int waited;

	reader.fd = self->server;
	reader.done = false;
	spinner.fd = self->server;
	spinner.stop = false;
	ASSERT_EQ(0, pthread_create(&thread, NULL, rs_interrupted_recv,
				    &reader));
	ASSERT_EQ(0, pthread_create(&spinner.thread, NULL, rs_spin_rpoll,
				    &spinner));
	/* the reader is asleep by now */
	usleep(300000);
	ASSERT_EQ(1, rsend(self->client, "a", 1, 0));
	for (waited = 0; !reader.done && waited < RS_WAIT_MS; waited += 10)
		usleep(10000);
	spinner.stop = true;
	pthread_join(spinner.thread, NULL);
	ASSERT_TRUE(reader.done) TH_LOG("rrecv still sleeps");
	pthread_join(thread, NULL);
	ASSERT_EQ(1, reader.ret);
}

/* Waits up to RS_WAIT_MS for a datagram to an IPv6 rsocket, then takes it. */
static ssize_t dg_recv6(int fd, void *buf, size_t len,
			struct sockaddr_in6 *from)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	socklen_t fromlen = sizeof(*from);
	ssize_t ret;

	if (rpoll(&pfd, 1, RS_WAIT_MS) != 1)
		return -2;
	ret = rrecvfrom(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)from,
			&fromlen);
	return ret >= 0 && fromlen != sizeof(*from) ? -3 : ret;
}

static void dg_map(struct sockaddr_in6 *to, const struct sockaddr_in *from)
{
	memset(to, 0, sizeof(*to));
	to->sin6_family = AF_INET6;
	to->sin6_port = from->sin_port;
	to->sin6_addr.s6_addr[10] = 0xff;
	to->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&to->sin6_addr.s6_addr[12], &from->sin_addr, 4);
}

/*
 * A dual-stack AF_INET6 rsocket names an IPv4 peer v4-mapped
 * (::ffff:a.b.c.d), as a UDP socket does, and the peer names it by its
 * IPv4 address: datagrams go both ways, over UDP first and then over UD,
 * whichever end speaks first.
 */
TEST_F(dgram, v4_mapped_peers)
{
	struct sockaddr_in6 mapped, from6, any6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in from4, six_addr;
	socklen_t len = sizeof(six_addr);
	int six = rsocket(AF_INET6, SOCK_DGRAM, 0);
	char c;
	int i;

	ASSERT_LE(0, six);
	/* the IPv6 end speaks first, to the IPv4 server */
	dg_map(&mapped, &self->server_addr);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(1, rsendto(six, "a", 1, 0, (struct sockaddr *)&mapped,
				     sizeof(mapped)))
			TH_LOG("rsendto %d: %s", i, strerror(errno));
		ASSERT_EQ(1, dg_recv(self->server, &c, 1, &from4));
		ASSERT_EQ(AF_INET, from4.sin_family);
		ASSERT_EQ(1, rsendto(self->server, "b", 1, 0,
				     (struct sockaddr *)&from4, sizeof(from4)));
		ASSERT_EQ(1, dg_recv6(six, &c, 1, &from6));
		ASSERT_EQ('b', c);
		ASSERT_EQ(AF_INET6, from6.sin6_family);
		ASSERT_EQ(mapped.sin6_port, from6.sin6_port);
		ASSERT_EQ(0, memcmp(&mapped.sin6_addr, &from6.sin6_addr, 16));
	}
	ASSERT_EQ(0, rclose(six));

	/* the IPv4 end speaks first, to an IPv6 rsocket bound to any */
	six = rsocket(AF_INET6, SOCK_DGRAM, 0);
	ASSERT_LE(0, six);
	ASSERT_EQ(0, rbind(six, (struct sockaddr *)&any6, sizeof(any6)));
	ASSERT_EQ(0, rgetsockname(six, (struct sockaddr *)&any6, &len));
	cm_sockaddr(&six_addr, cm_test_addr(), any6.sin6_port);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(1, rsendto(self->server, "c", 1, 0,
				     (struct sockaddr *)&six_addr,
				     sizeof(six_addr)))
			TH_LOG("rsendto %d: %s", i, strerror(errno));
		ASSERT_EQ(1, dg_recv6(six, &c, 1, &from6));
		dg_map(&mapped, &self->server_addr);
		ASSERT_EQ(0, memcmp(&mapped.sin6_addr, &from6.sin6_addr, 16));
		ASSERT_EQ(mapped.sin6_port, from6.sin6_port);
		ASSERT_EQ(1, rsendto(six, "d", 1, 0, (struct sockaddr *)&from6,
				     sizeof(from6)));
		ASSERT_EQ(1, dg_recv(self->server, &c, 1, &from4));
		ASSERT_EQ('d', c);
		ASSERT_TRUE(dg_same(&from4, &six_addr));
	}
	ASSERT_EQ(0, rclose(six));
}

/*
 * A thread cancelled asleep in rrecv() or in rpoll() leaves the rsocket
 * whole: a reader after it sleeps in the waiter's place and gets the next
 * datagram, and the eventfd they slept with goes with the rsocket.
 */
TEST_F(dgram, cancelled_sleepers_leave_the_rsocket_whole)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_interrupted next;
	const char *err;
	pthread_t thread;
	int eventfds, waited;

	err = rs_cancel_reader_then_poller(self->server, RS_WAIT_MS, &eventfds);
	ASSERT_TRUE(!err) TH_LOG("%s", err);
	next.fd = self->server;
	next.done = false;
	ASSERT_EQ(0, pthread_create(&thread, NULL, rs_interrupted_recv,
				    &next));
	usleep(300000);
	ASSERT_EQ(1, rsend(self->client, "a", 1, 0));
	for (waited = 0; !next.done && waited < RS_WAIT_MS; waited += 10)
		usleep(10000);
	ASSERT_TRUE(next.done) TH_LOG("rrecv sleeps behind the cancelled reader");
	pthread_join(thread, NULL);
	ASSERT_EQ(1, next.ret);
	ASSERT_EQ(0, rclose(self->server));
	self->server = -1;
	ASSERT_EQ(eventfds - 1, rs_eventfds_below(eventfds));
}

/*
 * A signal ends a blocking rrecv() with EINTR, as a UDP socket's recv(2)
 * without SA_RESTART; the rsocket goes on.
 */
TEST_F(dgram, signal_interrupts_a_blocking_read)
{
	/* static: a thread left asleep would outlive the stack */
	static struct rs_interrupted r;
	struct sockaddr_in from;
	char c;

	ASSERT_EQ(0, rs_recv_interrupted(self->server, &r, RS_WAIT_MS))
		TH_LOG("rrecv sleeps through signals");
	ASSERT_EQ(-1, r.ret);
	ASSERT_EQ(EINTR, r.err);
	ASSERT_EQ(1, rsend(self->client, "x", 1, 0));
	ASSERT_EQ(1, dg_recv(self->server, &c, 1, &from));
	ASSERT_EQ('x', c);
}

#else
/* Why stock has no other case: its first rconnect fails on RoCE. */
TEST(stock_cannot_on_roce)
{
	struct sockaddr_in where;
	int server = dg_bound(&where);
	int client = rsocket(AF_INET, SOCK_DGRAM, 0);

	ASSERT_LE(0, server);
	ASSERT_LE(0, client);
	EXPECT_EQ(-1, rconnect(client, (struct sockaddr *)&where,
			       sizeof(where)));
	rclose(client);
	rclose(server);
}
#endif

TEST_HARNESS_MAIN
