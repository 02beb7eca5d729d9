// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An IB device removed (`rdma link delete rxe0`) while files use it: the
 * files stay usable for teardown, calls on the device fail with ENODEV,
 * nothing leaks. Every test puts rxe0 back.
 */
#include <pthread.h>

#include <infiniband/verbs.h>

#include "rdmachan_test.h"
#include "kselftest_harness.h"

RDMACHAN_TEST_KERNEL_OWNED

FIXTURE(removal) {
	long devices;
	long contexts;
};

FIXTURE_SETUP(removal)
{
	ASSERT_EQ(0, rxe_restore());
	self->devices = rdmachan_counter("devices");
	self->contexts = rdmachan_counter("contexts");
	ASSERT_LE(1, self->devices);
}

FIXTURE_TEARDOWN(removal)
{
	EXPECT_EQ(0, rxe_restore());
}

static int delete_rxe(void)
{
	return run_cmd("rdma link delete %s", RDMACHAN_TEST_DEVICE);
}

TEST_F(removal, library_context_fails_cleanly_after_removal)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr dattr;
	struct ibv_port_attr attr;
	struct ibv_context *ctx;
	struct ibv_device **after;
	union ibv_gid gid;
	int n = -1;

	ASSERT_NE(NULL, list);
	ASSERT_NE(NULL, list[0]);
	ctx = ibv_open_device(list[0]);
	ASSERT_NE(NULL, ctx);
	ASSERT_EQ(0, ibv_query_port(ctx, 1, &attr));

	ASSERT_EQ(0, delete_rxe());
	EXPECT_EQ(ENODEV, ibv_query_port(ctx, 1, &attr));
	EXPECT_EQ(ENODEV, ibv_query_device(ctx, &dattr));
	errno = 0;
	EXPECT_EQ(-1, ibv_query_gid(ctx, 1, 0, &gid));
	EXPECT_EQ(ENODEV, errno);
	/* the device is gone from new lists, and cannot be opened again */
	after = ibv_get_device_list(&n);
	ASSERT_NE(NULL, after);
	EXPECT_EQ(0, n);
	ibv_free_device_list(after);
	errno = 0;
	EXPECT_EQ(NULL, ibv_open_device(list[0]));
	EXPECT_EQ(ENODEV, errno);
	/* the module keeps its record until the last context lets go */
	EXPECT_EQ(self->devices, rdmachan_counter("devices"));

	EXPECT_EQ(0, ibv_close_device(ctx));
	ibv_free_device_list(list);
	EXPECT_EQ(self->devices - 1, rdmachan_counter("devices"));
	EXPECT_EQ(self->contexts, rdmachan_counter("contexts"));
}

TEST_F(removal, raw_handles_after_removal)
{
	struct rdmachan_destroy destroy = { .size = sizeof(destroy) };
	struct rdmachan_query_port port = { .size = sizeof(port), .port_num = 1 };
	struct rdmachan_open_device open_dev = { .size = sizeof(open_dev) };
	int fd = open("/dev/rdmachan", O_RDWR);
	long index;

	ASSERT_LE(0, fd);
	index = rdmachan_device_index(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_LE(0, index);
	port.handle = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, port.handle);
	destroy.handle = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, destroy.handle);

	ASSERT_EQ(0, delete_rxe());
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_PORT, &port));
	EXPECT_EQ(ENODEV, errno);
	open_dev.device_index = (__u32)index;
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_OPEN_DEVICE, &open_dev));
	EXPECT_EQ(ENODEV, errno);
	/* teardown still works on a removed device */
	EXPECT_EQ(0, ioctl(fd, RDMACHAN_IOC_DESTROY, &destroy));
	EXPECT_EQ(self->contexts + 1, rdmachan_counter("contexts"));

	/* a new rxe0 is a new device: old handles stay dead */
	ASSERT_EQ(0, rxe_restore());
	EXPECT_NE(index, rdmachan_device_index(fd, RDMACHAN_TEST_DEVICE));
	EXPECT_EQ(-1, ioctl(fd, RDMACHAN_IOC_QUERY_PORT, &port));
	EXPECT_EQ(ENODEV, errno);
	close(fd);
	EXPECT_EQ(self->contexts, rdmachan_counter("contexts"));
	EXPECT_EQ(self->devices, rdmachan_counter("devices"));
}

struct hammer {
	int fd;
	__u32 handle;
	volatile int stop;
	unsigned long ok, enodev, other;
};

static void *hammer_queries(void *arg)
{
	struct hammer *h = arg;
	struct rdmachan_query_gid gid = {
		.size = sizeof(gid), .handle = h->handle, .port_num = 1,
	};

	while (!h->stop) {
		if (!ioctl(h->fd, RDMACHAN_IOC_QUERY_GID, &gid))
			h->ok++;
		else if (errno == ENODEV)
			h->enodev++;
		else
			h->other++;
	}
	return NULL;
}

/* Removal while two threads are inside the device. */
TEST_F(removal, removal_under_concurrent_queries)
{
	struct hammer h = {};
	pthread_t threads[2];
	int i;

	h.fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, h.fd);
	h.handle = rdmachan_open_context(h.fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, h.handle);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, hammer_queries, &h));
	usleep(200000);
	ASSERT_EQ(0, delete_rxe());
	usleep(200000);
	h.stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	EXPECT_LT(0, h.ok);
	EXPECT_LT(0, h.enodev);
	EXPECT_EQ(0, h.other);
	close(h.fd);
	EXPECT_EQ(self->contexts, rdmachan_counter("contexts"));
	EXPECT_EQ(self->devices - 1, rdmachan_counter("devices"));
}

TEST_HARNESS_MAIN
