// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Races of GET_EVENTS with a destroy of the id whose event it is handing
 * out, made deterministic with userfaultfd: the copy of the event into
 * the caller's buffer stops on a page fault until the destroy has begun.
 * Such an event is dropped, not read, and the count the caller gets must
 * say so (the module once left it counting the dropped event).
 */
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

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

TEST_HARNESS_MAIN
