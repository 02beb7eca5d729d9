// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Races of user calls with the CM's own work on the same id.
 *
 * GET_EVENTS against a destroy of the id whose event it is handing out,
 * made deterministic with userfaultfd: the copy of the event into the
 * caller's buffer stops on a page fault until the destroy has begun.
 * Such an event is dropped, not read, and the count the caller gets must
 * say so (the module once left it counting the dropped event).
 *
 * RESOLVE_ROUTE and LISTEN against an address resolution that fails to
 * find an RDMA device: 6.1's CM shows the id as ADDR_RESOLVED, with no
 * device, while it looks for one (the module once oopsed there), then as
 * ADDR_BOUND before the ADDR_ERROR is reported (LISTEN once got in there).
 */
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "rdmachan_cm_raw.h"
#include "kselftest_harness.h"

/* A UD id with its ADDR_RESOLVED event queued, not read. */
static int id_with_event(int fd, __u64 uctx, __u32 *handle)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = raw_create_id(fd, RDMA_PS_UDP, uctx, handle);

	if (!ret)
		ret = raw_resolve_addr(fd, *handle, htons(4791));
	if (!ret && poll(&pfd, 1, 5000) != 1)
		ret = ETIMEDOUT;
	return ret;
}

struct reader {
	int fd;
	struct rdmachan_cm_event *events;
	int ret;
	__u32 count;
};

static void *read_two(void *arg)
{
	struct reader *r = arg;
	struct rdmachan_get_events cmd = {
		.size = sizeof(cmd), .flags = RDMACHAN_GET_EVENTS_NONBLOCK,
		.events = (uintptr_t)r->events,
		.event_size = sizeof(*r->events), .max_events = 2,
	};

	r->ret = ioctl(r->fd, RDMACHAN_IOC_GET_EVENTS, &cmd) ? errno : 0;
	r->count = cmd.out_num_events;
	return NULL;
}

struct destroyer {
	int fd;
	__u32 handle;
	int ret;
};

static void *destroy_id(void *arg)
{
	struct destroyer *d = arg;

	d->ret = raw_destroy(d->fd, d->handle);
	return NULL;
}

TEST(event_of_id_destroyed_while_copied_out_is_not_counted)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};
	struct uffdio_zeropage zero = {};
	struct uffd_msg msg;
	struct pollfd pfd;
	struct reader r = {};
	struct destroyer d = {};
	pthread_t rt, dt;
	__u32 first, second;
	int uffd, fd;
	__u8 *mem;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	memset(mem, 0, page);
	reg.range.start = (uintptr_t)mem + page;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, id_with_event(fd, 0x1111, &first));
	ASSERT_EQ(0, id_with_event(fd, 0x2222, &second));
	/* its event has come too (the queue is in order) */
	usleep(300 * 1000);

	/* The first event fits before the page that faults, the second not. */
	r.fd = fd;
	r.events = (void *)(mem + page - sizeof(*r.events));
	ASSERT_EQ(0, pthread_create(&rt, NULL, read_two, &r));
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* The destroy drops the event being read and waits for it. */
	d.fd = fd;
	d.handle = second;
	ASSERT_EQ(0, pthread_create(&dt, NULL, destroy_id, &d));
	usleep(300 * 1000);
	zero.range.start = (uintptr_t)mem + page;
	zero.range.len = page;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
	pthread_join(rt, NULL);
	pthread_join(dt, NULL);

	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(0, d.ret);
	/* only the first id's event was handed out */
	EXPECT_EQ(1, r.count);
	EXPECT_EQ(first, r.events[0].id_handle);
	EXPECT_EQ(0, raw_ack(fd, &r.events[0].event_handle, 1));
	EXPECT_EQ(0, raw_destroy(fd, first));
	close(fd);
	close(uffd);
	munmap(mem, 2 * page);
}

struct route_caller {
	int fd;
	__u32 handle;
	atomic_bool stop;
	unsigned long calls, refused;
	int unexpected;
};

static void *resolve_route_until_stopped(void *arg)
{
	struct route_caller *c = arg;
	int ret;

	while (!atomic_load(&c->stop)) {
		ret = raw_id_cmd(c->fd, RDMACHAN_IOC_RESOLVE_ROUTE, c->handle,
				 1000);
		c->calls++;
		if (ret == EINVAL)
			c->refused++;
		else if (!c->unexpected)
			c->unexpected = ret ? ret : -1;
	}
	return NULL;
}

#define ROUTE_RACE_ROUNDS 1000

FIXTURE(no_rdma_netdev) {
	int unused;
};

FIXTURE_SETUP(no_rdma_netdev)
{
	run_cmd("ip link del cmtr0 2>/dev/null");
	ASSERT_EQ(0, run_cmd("ip link add cmtr0 type dummy && "
			     "ip addr add 10.82.0.1/24 dev cmtr0 && "
			     "ip link set cmtr0 up"));
}

FIXTURE_TEARDOWN(no_rdma_netdev)
{
	run_cmd("ip link del cmtr0 2>/dev/null");
}

/*
 * One thread resolves the route without pause while the other resolves,
 * again and again, an address whose netdev has no RDMA device. The route
 * is always refused (there is never a device), and each resolution ends
 * in its ADDR_ERROR.
 */
TEST_F_TIMEOUT(no_rdma_netdev, route_resolution_races_failing_address_resolution,
	       180)
{
	struct rdmachan_resolve_addr resolve = {
		.size = sizeof(resolve), .timeout_ms = 2000,
	};
	struct sockaddr_in *dst = (struct sockaddr_in *)&resolve.dst_addr;
	struct route_caller c = {};
	struct rdmachan_cm_event ev;
	int round, errors = 0;
	pthread_t t;

	c.fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, c.fd);
	ASSERT_EQ(0, raw_create_id(c.fd, RDMA_PS_TCP, 0, &c.handle));
	dst->sin_family = AF_INET;
	dst->sin_port = htons(7471);
	inet_pton(AF_INET, "10.82.0.2", &dst->sin_addr);
	resolve.handle = c.handle;
	ASSERT_EQ(0, pthread_create(&t, NULL, resolve_route_until_stopped, &c));
	for (round = 0; round < ROUTE_RACE_ROUNDS; round++) {
		if (ioctl(c.fd, RDMACHAN_IOC_RESOLVE_ADDR, &resolve)) {
			EXPECT_EQ(0, errno);
			break;
		}
		if (raw_get_event(c.fd, &ev, 5000)) {
			EXPECT_TRUE(false) TH_LOG("round %d: no event", round);
			break;
		}
		EXPECT_EQ(0, raw_ack(c.fd, &ev.event_handle, 1));
		if (ev.event != RDMA_CM_EVENT_ADDR_ERROR || ev.status != -ENODEV)
			errors++;
	}
	atomic_store(&c.stop, true);
	pthread_join(t, NULL);
	TH_LOG("%d resolutions, %lu route calls", round, c.calls);
	EXPECT_EQ(ROUTE_RACE_ROUNDS, round);
	EXPECT_EQ(0, errors);
	EXPECT_EQ(0, c.unexpected);
	EXPECT_LT(0, c.calls);
	EXPECT_EQ(c.calls, c.refused);
	EXPECT_EQ(0, raw_destroy(c.fd, c.handle));
	close(c.fd);
}

static long race_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct listener {
	int fd;
	atomic_uint handle;
	atomic_int round, done_round;
	unsigned long calls;
	int unexpected, event_missing;
};

/*
 * LISTEN without pause on each round's id once its resolution is under
 * way; when it succeeds, the resolution's event must already be queued.
 */
static void *listen_until_it_works(void *arg)
{
	struct listener *l = arg;
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
	int ret, round;

	/* -2: no round yet, -1: stop */
	while ((round = atomic_load(&l->round)) != -1) {
		if (round < 0 || round == atomic_load(&l->done_round))
			continue;
		ret = raw_id_cmd(l->fd, RDMACHAN_IOC_LISTEN,
				 atomic_load(&l->handle), 1);
		l->calls++;
		if (ret == EINVAL)
			continue;
		if (ret && !l->unexpected)
			l->unexpected = ret;
		if (!ret && poll(&pfd, 1, 0) != 1)
			l->event_missing++;
		atomic_store(&l->done_round, round);
	}
	return NULL;
}

/*
 * An id that has asked for its address cannot listen until the answer is
 * queued (here ADDR_ERROR: the netdev has no RDMA device); then it can.
 */
TEST_F_TIMEOUT(no_rdma_netdev, listen_waits_for_failing_address_resolution, 180)
{
	struct rdmachan_resolve_addr resolve = {
		.size = sizeof(resolve), .timeout_ms = 2000,
	};
	struct sockaddr_in *dst = (struct sockaddr_in *)&resolve.dst_addr;
	struct listener l = { .done_round = -1 };
	struct rdmachan_cm_event ev;
	int round, errors = 0;
	__u32 handle = 0;
	pthread_t t;
	long t0, deadline;

	l.fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, l.fd);
	dst->sin_family = AF_INET;
	dst->sin_port = htons(7471);
	inet_pton(AF_INET, "10.82.0.2", &dst->sin_addr);
	atomic_store(&l.round, -2);
	ASSERT_EQ(0, pthread_create(&t, NULL, listen_until_it_works, &l));
	t0 = race_now_ms();
	for (round = 0; round < ROUTE_RACE_ROUNDS / 4; round++) {
		ASSERT_EQ(0, raw_create_id(l.fd, RDMA_PS_TCP, 0, &handle));
		resolve.handle = handle;
		if (ioctl(l.fd, RDMACHAN_IOC_RESOLVE_ADDR, &resolve)) {
			EXPECT_EQ(0, errno);
			break;
		}
		atomic_store(&l.handle, handle);
		atomic_store(&l.round, round);
		deadline = race_now_ms() + 5000;
		while (atomic_load(&l.done_round) != round && !l.unexpected &&
		       race_now_ms() < deadline)
			usleep(100);
		if (atomic_load(&l.done_round) != round) {
			EXPECT_TRUE(false) TH_LOG("round %d: LISTEN never succeeded", round);
			break;
		}
		if (raw_get_event(l.fd, &ev, 5000)) {
			EXPECT_TRUE(false) TH_LOG("round %d: no event", round);
			break;
		}
		EXPECT_EQ(0, raw_ack(l.fd, &ev.event_handle, 1));
		if (ev.event != RDMA_CM_EVENT_ADDR_ERROR || ev.status != -ENODEV ||
		    ev.id_handle != handle)
			errors++;
		/* a listening id does not resolve again */
		EXPECT_EQ(EINVAL, raw_resolve_addr(l.fd, handle, htons(7471)));
		EXPECT_EQ(0, raw_destroy(l.fd, handle));
	}
	atomic_store(&l.round, -1);
	pthread_join(t, NULL);
	TH_LOG("%d resolutions, %lu listen calls, %ld ms", round, l.calls,
	       race_now_ms() - t0);
	EXPECT_EQ(ROUTE_RACE_ROUNDS / 4, round);
	EXPECT_EQ(0, errors);
	EXPECT_EQ(0, l.unexpected);
	EXPECT_EQ(0, l.event_missing);
	close(l.fd);
}

TEST_HARNESS_MAIN
