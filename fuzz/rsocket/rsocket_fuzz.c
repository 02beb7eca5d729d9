// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-rsocket-fuzz: random rsocket(7) calls through librdmachan, so
 * that the library's rsocket paths, and the kernel calls they make, meet
 * what a careless or hostile program does: sockets of both types in every
 * state, calls in any order with odd sizes, flags, options, addresses,
 * NULL buffers and closed descriptors, all without blocking (a blocked
 * call would only wait on this program's own other sockets).
 *
 * It fails (exit 1) when a call fails without an errno or with one no
 * socket call gives, when a call takes longer than a watchdog's minute
 * (a hang), or when, with everything closed, the module's object counters
 * or the process's descriptors are not back where they started (a leak).
 * A crash is a failure of whoever runs it. Both library modes are run,
 * half the time each, in children of their own (-m picks one).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>

#include <rdma/rsocket.h>

#define POOL		12
#define BUF_SIZE	(70 * 1024)
#define WATCHDOG_S	60
#define OBJECTS		"/sys/kernel/debug/rdmachan/objects"

struct slot {
	int fd;
	bool dgram;
	bool listening;
	struct sockaddr_in name;
};

static struct slot pool[POOL];
static unsigned char *buf;
static struct in_addr test_addr;
static unsigned long long rng;
static const char *current_op = "start";
static unsigned long calls, failed_calls, errno_counts[256];

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned int)(rng % n) : 0;
}

static void on_watchdog(int sig)
{
	char msg[160];
	int len;

	(void)sig;
	len = snprintf(msg, sizeof(msg),
		       "rsocket-fuzz: FAIL: %s took more than %d s (a hang)\n",
		       current_op, WATCHDOG_S);
	if (write(2, msg, (size_t)len) < 0)
		_exit(1);
	_exit(1);
}

/* The errnos socket calls give; anything else from an rsocket call is a finding. */
static bool errno_expected(int err)
{
	static const int known[] = {
		EBADF, EINVAL, EAGAIN, EINPROGRESS, EALREADY, EISCONN,
		ENOTCONN, ECONNREFUSED, ECONNRESET, ECONNABORTED, EPIPE,
		EOPNOTSUPP, EFAULT, EMSGSIZE, EDESTADDRREQ, EADDRINUSE,
		EADDRNOTAVAIL, EAFNOSUPPORT, ENOPROTOOPT, ENOMEM, ENOBUFS,
		ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ENODEV, ENOENT, EACCES,
		EPERM, EINTR, ENOTSOCK, EMFILE, ENFILE, ENOSPC,
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (err == known[i])
			return true;
	return false;
}

static int check(long ret, const char *op)
{
	calls++;
	if (ret >= 0)
		return 0;
	failed_calls++;
	if (errno <= 0 || !errno_expected(errno)) {
		fprintf(stderr, "rsocket-fuzz: FAIL: %s: -1 with errno %d (%s)\n",
			op, errno, strerror(errno));
		exit(1);
	}
	errno_counts[errno & 255]++;
	return -1;
}

#define CALL(expr) (current_op = #expr, errno = 0, check((long)(expr), #expr))

static struct slot *any_slot(void)
{
	return &pool[rnd(POOL)];
}

/* A descriptor to call with: mostly an rsocket of the pool, sometimes not. */
static int some_fd(void)
{
	switch (rnd(16)) {
	case 0:
		return -1;
	case 1:
		return 0;	/* stdin: not an rsocket */
	case 2:
		return 100000 + (int)rnd(1000);
	default:
		return any_slot()->fd;
	}
}

static void some_addr(struct sockaddr_in *sin, socklen_t *len)
{
	struct slot *s = any_slot();

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr = test_addr;
	*len = sizeof(*sin);
	switch (rnd(8)) {
	case 0:
		sin->sin_port = htons((uint16_t)(20000 + rnd(2000)));
		break;
	case 1:
		sin->sin_family = AF_UNIX;
		break;
	case 2:
		*len = (socklen_t)rnd(sizeof(*sin));
		break;
	case 3:
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		break;
	default:
		if (s->fd >= 0)
			sin->sin_port = s->name.sin_port;
	}
}

static void op_create(void)
{
	struct slot *s = any_slot();
	int type = rnd(3) ? SOCK_STREAM : SOCK_DGRAM;
	int fd;

	if (s->fd >= 0)
		CALL(rclose(s->fd));
	s->fd = -1;
	if (!rnd(12))
		type = SOCK_SEQPACKET;
	current_op = "rsocket";
	errno = 0;
	fd = rsocket(rnd(16) ? AF_INET : AF_INET6, type | SOCK_NONBLOCK, 0);
	if (check(fd, "rsocket"))
		return;
	/* blocking calls only wait on this program's own other sockets */
	CALL(rfcntl(fd, F_SETFL, O_NONBLOCK));
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->dgram = type == SOCK_DGRAM;
}

static void op_bind_listen(void)
{
	struct slot *s = any_slot();
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (s->fd < 0)
		return;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr = test_addr;
	if (!rnd(4))
		some_addr(&sin, &len);
	CALL(rbind(s->fd, (struct sockaddr *)&sin, len));
	len = sizeof(s->name);
	CALL(rgetsockname(s->fd, (struct sockaddr *)&s->name, &len));
	if (!s->dgram || !rnd(8)) {
		if (!CALL(rlisten(s->fd, (int)rnd(8) - 1)))
			s->listening = true;
	}
}

static void op_connect(void)
{
	struct slot *s = any_slot();
	struct sockaddr_in sin;
	socklen_t len;

	some_addr(&sin, &len);
	CALL(rconnect(s->fd, (struct sockaddr *)&sin, len));
}

static void op_accept(void)
{
	struct slot *s = any_slot(), *to = any_slot();
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	int fd;

	current_op = "raccept";
	errno = 0;
	fd = raccept(s->fd, rnd(2) ? (struct sockaddr *)&peer : NULL,
		     rnd(2) ? &len : NULL);
	if (check(fd, "raccept"))
		return;
	if (to->fd >= 0)
		CALL(rclose(to->fd));
	memset(to, 0, sizeof(*to));
	to->fd = fd;
}

static size_t some_len(void)
{
	switch (rnd(6)) {
	case 0:
		return 0;
	case 1:
		return 1 + rnd(64);
	case 2:
		return 2000 + rnd(100);
	case 3:
		return BUF_SIZE;
	default:
		return rnd(8192);
	}
}

static int some_flags(void)
{
	static const int flags[] = { 0, MSG_DONTWAIT, MSG_PEEK, MSG_WAITALL,
				     MSG_OOB, MSG_NOSIGNAL, 0x40000000 };

	return flags[rnd(sizeof(flags) / sizeof(flags[0]))] | MSG_DONTWAIT;
}

static void op_send(void)
{
	int fd = some_fd(), flags = some_flags() & ~MSG_PEEK & ~MSG_WAITALL;
	size_t len = some_len();
	void *p = rnd(20) ? buf : NULL;
	struct sockaddr_in sin;
	struct iovec iov[3];
	struct msghdr msg;
	socklen_t alen;

	switch (rnd(5)) {
	case 0:
		CALL(rsend(fd, p, len, flags));
		break;
	case 1:
		some_addr(&sin, &alen);
		CALL(rsendto(fd, p, len, flags, (struct sockaddr *)&sin, alen));
		break;
	case 2:
		iov[0].iov_base = p;
		iov[0].iov_len = len / 2;
		iov[1].iov_base = buf;
		iov[1].iov_len = len - len / 2;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = 1 + rnd(2);
		if (rnd(2)) {
			some_addr(&sin, &alen);
			msg.msg_name = &sin;
			msg.msg_namelen = alen;
		}
		CALL(rsendmsg(fd, &msg, flags));
		break;
	case 3:
		if (flags == MSG_DONTWAIT)
			CALL(rwrite(fd, p, len < 4096 ? len : 4096));
		break;
	default:
		iov[0].iov_base = buf;
		iov[0].iov_len = rnd(100);
		iov[1].iov_base = p;
		iov[1].iov_len = rnd(3000);
		iov[2].iov_base = buf;
		iov[2].iov_len = rnd(100);
		CALL(rwritev(fd, iov, (int)rnd(4) - (int)rnd(2)));
	}
}

static void op_recv(void)
{
	int fd = some_fd(), flags = some_flags();
	size_t len = some_len();
	void *p = rnd(20) ? buf : NULL;
	struct sockaddr_in sin;
	socklen_t alen = (socklen_t)rnd(sizeof(sin) + 4);
	struct iovec iov[2];
	struct msghdr msg;

	switch (rnd(4)) {
	case 0:
		CALL(rrecv(fd, p, len, flags));
		break;
	case 1:
		CALL(rrecvfrom(fd, p, len, flags,
			       rnd(4) ? (struct sockaddr *)&sin : NULL,
			       rnd(4) ? &alen : NULL));
		break;
	case 2:
		iov[0].iov_base = buf;
		iov[0].iov_len = len / 2;
		iov[1].iov_base = p;
		iov[1].iov_len = len - len / 2;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = rnd(3);
		msg.msg_name = rnd(2) ? &sin : NULL;
		msg.msg_namelen = sizeof(sin);
		CALL(rrecvmsg(fd, &msg, flags));
		break;
	default:
		if (fd >= 0 && (rfcntl(fd, F_GETFL) & O_NONBLOCK))
			CALL(rread(fd, p, len));
	}
}

static void op_poll(void)
{
	struct pollfd fds[POOL + 1];
	fd_set rd, wr;
	struct timeval tv = { 0, (long)rnd(3000) };
	int i, n = (int)rnd(POOL + 2), maxfd = 0;

	for (i = 0; i < n; i++) {
		fds[i].fd = i == POOL ? -1 : pool[i % POOL].fd;
		fds[i].events = (short)(rnd(2) ? POLLIN : POLLIN | POLLOUT);
	}
	if (rnd(2)) {
		CALL(rpoll(fds, (nfds_t)n, (int)rnd(4)));
		return;
	}
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	for (i = 0; i < POOL; i++) {
		if (pool[i].fd < 0 || pool[i].fd >= FD_SETSIZE)
			continue;
		FD_SET(pool[i].fd, rnd(2) ? &rd : &wr);
		if (pool[i].fd >= maxfd)
			maxfd = pool[i].fd + 1;
	}
	CALL(rselect(maxfd, &rd, &wr, NULL, &tv));
}

static void op_options(void)
{
	static const int levels[] = { SOL_SOCKET, IPPROTO_TCP, SOL_RDMA,
				      IPPROTO_IP, 12345 };
	int fd = some_fd(), level = levels[rnd(5)], name = (int)rnd(40);
	int value = (int)rnd(1 << 20) - 8;
	socklen_t len = (socklen_t)(rnd(8) ? sizeof(int) : rnd(8));

	if (level == SOL_SOCKET && name == SO_KEEPALIVE && rnd(2))
		value = 0;	/* a keepalive thread now and then, not always */
	if (level == SOL_RDMA && name == RDMA_ROUTE)
		len = (socklen_t)rnd(2);
	if (rnd(2))
		CALL(rsetsockopt(fd, level, name, rnd(16) ? &value : NULL, len));
	else
		CALL(rgetsockopt(fd, level, name, rnd(16) ? &value : NULL,
				 rnd(16) ? &len : NULL));
}

static void op_misc(void)
{
	int fd = some_fd();
	struct sockaddr_in sin;
	socklen_t len = (socklen_t)rnd(sizeof(sin) + 1);
	off_t off;

	switch (rnd(7)) {
	case 0:
		CALL(rshutdown(fd, (int)rnd(4)));
		break;
	case 1:
		CALL(rgetpeername(fd, (struct sockaddr *)&sin, &len));
		break;
	case 2:
		CALL(rgetsockname(fd, rnd(8) ? (struct sockaddr *)&sin : NULL,
				  &len));
		break;
	case 3:
		current_op = "riomap";
		errno = 0;
		off = riomap(fd, buf, 4096 * (1 + rnd(4)),
			     rnd(4) ? PROT_WRITE : 0, 0, rnd(2) ? -1 : 0);
		if (!check(off == -1 ? -1 : 0, "riomap") && rnd(2))
			CALL(riounmap(fd, buf, 4096));
		break;
	case 4:
		current_op = "riowrite";
		errno = 0;
		check(riowrite(fd, buf, rnd(5000), (off_t)rnd(8192),
			       MSG_DONTWAIT) == (size_t)-1 ? -1 : 0, "riowrite");
		break;
	case 5:
		CALL(rfcntl(fd, rnd(2) ? F_GETFL : F_GETFD));
		break;
	default: {
		struct slot *s = any_slot();

		if (s->fd >= 0)
			CALL(rclose(s->fd));
		s->fd = -1;
	}
	}
}

static void close_all(void)
{
	int i;

	for (i = 0; i < POOL; i++) {
		if (pool[i].fd >= 0)
			CALL(rclose(pool[i].fd));
		pool[i].fd = -1;
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void read_objects(char *out, size_t len)
{
	FILE *f = fopen(OBJECTS, "r");
	size_t n = 0;

	out[0] = '\0';
	if (!f)
		return;
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
}

/*
 * One datagram between two rsockets: the library opens the device and its
 * protection domain for the process, and keeps them (as librdmacm does),
 * so the baseline is taken after this.
 */
static void warm_up(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr = test_addr };
	struct pollfd pfd = { .events = POLLIN };
	socklen_t len = sizeof(sin);
	int a = rsocket(AF_INET, SOCK_DGRAM, 0), b = rsocket(AF_INET, SOCK_DGRAM, 0);

	pfd.fd = a;
	if (a < 0 || b < 0 || rbind(a, (struct sockaddr *)&sin, len) ||
	    rgetsockname(a, (struct sockaddr *)&sin, &len) ||
	    rsendto(b, "x", 1, 0, (struct sockaddr *)&sin, len) != 1 ||
	    rpoll(&pfd, 1, 10000) != 1 || rrecv(a, buf, 1, 0) != 1)
		fprintf(stderr, "rsocket-fuzz: the warm-up datagram did not arrive: %s\n",
			strerror(errno));
	rclose(a);
	rclose(b);
}

static int run_mode(unsigned int seconds)
{
	static void (*const ops[])(void) = {
		op_create, op_create, op_bind_listen, op_connect, op_accept,
		op_send, op_send, op_recv, op_recv, op_poll, op_options,
		op_misc,
	};
	char before[4096], after[4096];
	time_t end = time(NULL) + seconds;
	int fds_before, i;

	buf = calloc(1, BUF_SIZE);
	if (!buf)
		return 1;
	for (i = 0; i < POOL; i++)
		pool[i].fd = -1;
	signal(SIGALRM, on_watchdog);
	signal(SIGPIPE, SIG_IGN);
	warm_up();
	fds_before = count_fds();
	read_objects(before, sizeof(before));
	while (time(NULL) < end) {
		for (i = 0; i < 100; i++) {
			alarm(WATCHDOG_S);
			ops[rnd(sizeof(ops) / sizeof(ops[0]))]();
		}
	}
	alarm(WATCHDOG_S);
	close_all();
	alarm(0);
	/* the kernel frees a closed file's objects as it lets go of it */
	for (i = 0; i < 50; i++) {
		read_objects(after, sizeof(after));
		if (!strcmp(before, after))
			break;
		usleep(100000);
	}
	printf("rsocket-fuzz: %s mode: %lu calls, %lu failed", getenv("RDMACHAN_MODE"),
	       calls, failed_calls);
	for (i = 1; i < 256; i++)
		if (errno_counts[i])
			printf(", %s %lu", strerror(i), errno_counts[i]);
	printf("\n");
	if (strcmp(before, after)) {
		printf("rsocket-fuzz: FAIL: the module's objects are not back:\nbefore:\n%s\nafter:\n%s\n",
		       before, after);
		return 1;
	}
	if (count_fds() != fds_before) {
		printf("rsocket-fuzz: FAIL: %d descriptors open, %d before\n",
		       count_fds(), fds_before);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *modes[] = { "bypass", "kernel" }, *only = NULL;
	unsigned int seconds = 20;
	unsigned long long seed = (unsigned long long)time(NULL);
	int opt, i, failed = 0;

	while ((opt = getopt(argc, argv, "t:s:m:")) != -1) {
		switch (opt) {
		case 't':
			seconds = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-t seconds] [-s seed] [-m bypass|kernel]\n",
				argv[0]);
			return 2;
		}
	}
	if (inet_pton(AF_INET, getenv("RDMACHAN_ADDR") ? getenv("RDMACHAN_ADDR") :
		      "10.77.0.1", &test_addr) != 1)
		return 2;
	rng = seed | 1;
	printf("rsocket-fuzz: seed %llu, %u s\n", seed, seconds);
	fflush(stdout);
	if (only) {
		setenv("RDMACHAN_MODE", only, 1);
		return run_mode(seconds);
	}
	/* each mode in a child of its own: the library picks it once */
	for (i = 0; i < 2; i++) {
		char secs[16], sd[24];
		int status;
		pid_t pid;

		snprintf(secs, sizeof(secs), "%u", seconds / 2 ? seconds / 2 : 1);
		snprintf(sd, sizeof(sd), "%llu", seed + (unsigned long long)i);
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			execl("/proc/self/exe", argv[0], "-t", secs, "-s", sd,
			      "-m", modes[i], (char *)NULL);
			_exit(2);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("rsocket-fuzz: FAIL: %s mode ended with status 0x%x\n",
			       modes[i], status);
			failed = 1;
		}
	}
	printf("rsocket-fuzz: %s\n", failed ? "FAIL" : "pass");
	return failed;
}
