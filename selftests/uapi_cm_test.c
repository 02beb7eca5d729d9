// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The module's CM event queue through raw ioctls: a connection made and
 * torn down, what events carry, acknowledgment accounting, blocking and
 * non-blocking reads, destroy waiting for acks, and bad input.
 */
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include <infiniband/ib.h>

#include "rdmachan_cm_raw.h"
#include "kselftest_harness.h"

_Static_assert(sizeof(struct rdmachan_cm_event) == 776, "cm_event");
_Static_assert(offsetof(struct rdmachan_cm_event, mcast_handle) ==
	       RDMACHAN_CM_EVENT_SIZE_V1, "cm_event v1");
_Static_assert(sizeof(struct rdmachan_cm_route) == 424, "cm_route");
_Static_assert(sizeof(struct rdmachan_path_rec) == 64, "path_rec");

static long live_cm_objects(void)
{
	return rdmachan_counter("cm_ids") + rdmachan_counter("cm_events");
}

/* One file holding a listener, and a client id resolved up to its route. */
FIXTURE(cm) {
	int fd;
	__u32 listen, client;
	__u16 port;
	long objects_before;
};

FIXTURE_SETUP(cm)
{
	self->objects_before = live_cm_objects();
	self->fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0x1111, &self->listen));
	ASSERT_EQ(0, raw_listen(self->fd, self->listen, 4, &self->port));
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 0x2222, &self->client));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, self->client, self->port));
	ASSERT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE,
				self->client, 2000));
	ASSERT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
}

FIXTURE_TEARDOWN(cm)
{
	close(self->fd);
	/* Closing the file frees everything, acknowledged or not. */
	EXPECT_EQ(self->objects_before, live_cm_objects());
}

/* Connects the fixture's client; returns the passive side's new id. */
static __u32 connect_pair(struct __test_metadata *_metadata,
			  FIXTURE_DATA(cm) *self, bool establish)
{
	struct rdmachan_cm_event ev;

	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 "hello"));
	EXPECT_EQ(0, raw_expect(self->fd, self->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	EXPECT_NE(0, ev.new_id_handle);
	if (!establish)
		return ev.new_id_handle;
	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, ev.new_id_handle,
				 NULL));
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_CONNECT_RESPONSE, NULL));
	EXPECT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_ESTABLISH, self->client, 0));
	EXPECT_EQ(0, raw_expect(self->fd, ev.new_id_handle,
				RDMA_CM_EVENT_ESTABLISHED, NULL));
	return ev.new_id_handle;
}

TEST_F(cm, connection_made_and_torn_down)
{
	struct rdmachan_cm_event ev;
	struct sockaddr_in *src, *dst;
	__u32 server;

	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 "hello"));
	ASSERT_EQ(0, raw_expect(self->fd, self->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	/* The request carries everything: new id, addresses, parameters. */
	EXPECT_EQ(0x1111, ev.user_context);
	EXPECT_EQ(0, ev.status);
	server = ev.new_id_handle;
	EXPECT_NE(0, server);
	EXPECT_NE(self->listen, server);
	EXPECT_NE(self->client, server);
	EXPECT_TRUE(ev.valid & RDMACHAN_CM_EVENT_ROUTE);
	EXPECT_TRUE(ev.valid & RDMACHAN_CM_EVENT_CONN);
	EXPECT_LE(6, ev.private_data_len);
	EXPECT_STREQ("hello", (char *)ev.private_data);
	EXPECT_NE(0, ev.qp_num);
	EXPECT_EQ(1, ev.responder_resources);
	EXPECT_EQ(1, ev.initiator_depth);
	EXPECT_EQ(7, ev.rnr_retry_count);
	src = (struct sockaddr_in *)&ev.route.src_addr;
	dst = (struct sockaddr_in *)&ev.route.dst_addr;
	EXPECT_EQ(AF_INET, src->sin_family);
	EXPECT_EQ(self->port, src->sin_port);
	EXPECT_EQ(AF_INET, dst->sin_family);
	EXPECT_EQ(src->sin_addr.s_addr, dst->sin_addr.s_addr);
	EXPECT_NE(RDMACHAN_NO_DEVICE, ev.route.device_index);
	EXPECT_EQ(1, ev.route.port_num);

	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, server, "yes"));
	ASSERT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_CONNECT_RESPONSE, &ev));
	EXPECT_EQ(0x2222, ev.user_context);
	EXPECT_STREQ("yes", (char *)ev.private_data);
	EXPECT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_ESTABLISH, self->client, 0));
	ASSERT_EQ(0, raw_expect(self->fd, server, RDMA_CM_EVENT_ESTABLISHED,
				&ev));

	EXPECT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT, self->client, 0));
	EXPECT_EQ(0, raw_expect(self->fd, server, RDMA_CM_EVENT_DISCONNECTED,
				NULL));
	/* The peer disconnected first: disconnecting still succeeds... */
	EXPECT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT, server, 0));
	/* ...and answers the active side's request. */
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_DISCONNECTED, NULL));
	/* Exactly one DISCONNECTED each. */
	if (raw_get_event(self->fd, &ev, 300) == 0) {
		raw_ack(self->fd, &ev.event_handle, 1);
		EXPECT_NE(RDMA_CM_EVENT_DISCONNECTED, ev.event);
	}

	EXPECT_EQ(0, raw_destroy(self->fd, server));
	EXPECT_EQ(0, raw_destroy(self->fd, self->client));
	EXPECT_EQ(0, raw_destroy(self->fd, self->listen));
	EXPECT_EQ(self->objects_before, live_cm_objects());
}

TEST_F(cm, route_resolved_event_carries_route)
{
	struct rdmachan_cm_event ev;
	__u32 id = 0;

	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 7, &id));
	ASSERT_EQ(0, raw_resolve_addr(self->fd, id, self->port));
	ASSERT_EQ(0, raw_expect(self->fd, id, RDMA_CM_EVENT_ADDR_RESOLVED, &ev));
	EXPECT_NE(RDMACHAN_NO_DEVICE, ev.route.device_index);
	EXPECT_EQ(AF_INET, ((struct sockaddr_in *)&ev.route.src_addr)->sin_family);
	EXPECT_EQ(self->port, ((struct sockaddr_in *)&ev.route.dst_addr)->sin_port);
	EXPECT_EQ(0, ev.route.num_paths);
	ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE, id, 2000));
	ASSERT_EQ(0, raw_expect(self->fd, id, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev));
	EXPECT_EQ(1, ev.route.num_paths);
	EXPECT_EQ(0, memcmp(ev.route.sgid, ev.route.path[0].sgid, 16));
	EXPECT_EQ(0, memcmp(ev.route.dgid, ev.route.path[0].dgid, 16));
	EXPECT_NE(0, ev.route.path[0].mtu);
	EXPECT_EQ(0, raw_destroy(self->fd, id));
}

/* Gets ADDR_RESOLVED and ROUTE_RESOLVED for a new id to the listener. */
static int raw_route_to(int fd, __u16 port, __u32 *id)
{
	int ret = raw_create_id(fd, RDMA_PS_TCP, 8, id);

	if (!ret)
		ret = raw_resolve_addr(fd, *id, port);
	if (!ret)
		ret = raw_expect(fd, *id, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	if (!ret)
		ret = raw_id_cmd(fd, RDMACHAN_IOC_RESOLVE_ROUTE, *id, 2000);
	if (!ret)
		ret = raw_expect(fd, *id, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	return ret;
}

/*
 * rdma_resolve_addr() is refused once the route is being resolved, on a
 * listener, and on a passive id, and nothing changes. The CM files ids
 * with a route by interface and destination, and would rebind the first
 * such id to a link-local destination's interface before refusing; the
 * next id of that destination would then stay filed after it is freed,
 * which the debug kernel reports as a use-after-free when the third route
 * resolution walks the CM's tree.
 */
TEST_F(cm, resolve_addr_past_its_state_changes_nothing)
{
	struct rdmachan_resolve_addr cmd = {
		.size = sizeof(cmd), .timeout_ms = 2000,
	};
	struct sockaddr_in6 *dst = (struct sockaddr_in6 *)&cmd.dst_addr;
	__u32 handles[3], second = 0, third = 0;
	unsigned int i;

	dst->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "fe80::1", &dst->sin6_addr);
	dst->sin6_scope_id = 77;
	ASSERT_EQ(0, raw_route_to(self->fd, self->port, &second));
	handles[0] = self->client;
	handles[1] = self->listen;
	handles[2] = connect_pair(_metadata, self, false);
	for (i = 0; i < 3; i++) {
		cmd.handle = handles[i];
		EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_RESOLVE_ADDR, &cmd));
		EXPECT_EQ(EINVAL, errno);
	}
	EXPECT_EQ(0, raw_destroy(self->fd, handles[2]));
	EXPECT_EQ(0, raw_destroy(self->fd, second));
	EXPECT_EQ(0, raw_destroy(self->fd, self->client));
	ASSERT_EQ(0, raw_route_to(self->fd, self->port, &third));
	EXPECT_EQ(0, raw_destroy(self->fd, third));
}

/*
 * A bind refused for its port leaves the id the interface of its address
 * in the CM, and an AF_IB destination then resolves on rxe. The CM would
 * file that id's RoCE route in a tree where an AF_IB destination is never
 * found again, and the next route resolution would read the id after it
 * is freed: the route is refused as the CM refuses it without the
 * interface, and routes go on being resolved.
 */
TEST_F(cm, af_ib_route_on_roce_is_enodev)
{
	struct rdmachan_resolve_addr cmd = {
		.size = sizeof(cmd), .timeout_ms = 2000,
	};
	struct sockaddr_ib *dst = (struct sockaddr_ib *)&cmd.dst_addr;
	__u32 id = 0, next = 0;

	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 9, &id));
	ASSERT_EQ(EADDRINUSE, raw_bind(self->fd, id, self->port, NULL));
	dst->sib_family = AF_IB;
	dst->sib_pkey = htons(0xffff);
	dst->sib_addr.sib_raw[0] = 0xfe;
	dst->sib_addr.sib_raw[1] = 0x80;
	dst->sib_addr.sib_raw[15] = 1;
	cmd.handle = id;
	ASSERT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_RESOLVE_ADDR, &cmd));
	ASSERT_EQ(0, raw_expect(self->fd, id, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	EXPECT_EQ(ENODEV, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE, id,
				     2000));
	EXPECT_EQ(0, raw_destroy(self->fd, id));
	ASSERT_EQ(0, raw_route_to(self->fd, self->port, &next));
	EXPECT_EQ(0, raw_destroy(self->fd, next));
}

TEST_F(cm, bind_reports_address_and_device)
{
	struct rdmachan_cm_route route;
	__u32 id = 0;

	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_UDP, 0, &id));
	ASSERT_EQ(0, raw_bind(self->fd, id, 0, &route));
	EXPECT_EQ(AF_INET, ((struct sockaddr_in *)&route.src_addr)->sin_family);
	/* Port 0 gets a port. */
	EXPECT_NE(0, ((struct sockaddr_in *)&route.src_addr)->sin_port);
	EXPECT_NE(RDMACHAN_NO_DEVICE, route.device_index);
	/* Binding twice is the CM's EINVAL. */
	EXPECT_EQ(EINVAL, raw_bind(self->fd, id, 0, NULL));
}

TEST_F(cm, ack_of_unknown_or_acked_event_is_enoent)
{
	struct rdmachan_cm_event ev;
	__u32 handles[2], bogus = 12345;
	int other;

	EXPECT_EQ(ENOENT, raw_ack(self->fd, &bogus, 1));
	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 NULL));
	ASSERT_EQ(0, raw_get_event(self->fd, &ev, 5000));
	/* The same handle twice in one batch: nothing is acknowledged. */
	handles[0] = handles[1] = ev.event_handle;
	EXPECT_EQ(ENOENT, raw_ack(self->fd, handles, 2));
	handles[1] = bogus;
	EXPECT_EQ(ENOENT, raw_ack(self->fd, handles, 2));
	EXPECT_EQ(0, raw_ack(self->fd, &ev.event_handle, 1));
	EXPECT_EQ(ENOENT, raw_ack(self->fd, &ev.event_handle, 1));
	/* Another file cannot acknowledge this file's events. */
	other = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, other);
	EXPECT_EQ(ENOENT, raw_ack(other, &ev.event_handle, 1));
	close(other);
}

TEST_F(cm, ack_batch_limits)
{
	__u32 *handles = calloc(RDMACHAN_MAX_ACKS + 1, sizeof(*handles));

	ASSERT_NE(NULL, handles);
	EXPECT_EQ(EINVAL, raw_ack(self->fd, handles, RDMACHAN_MAX_ACKS + 1));
	EXPECT_EQ(ENOENT, raw_ack(self->fd, handles, RDMACHAN_MAX_ACKS));
	EXPECT_EQ(EFAULT, raw_ack(self->fd, (__u32 *)8, 1));
	free(handles);
}

TEST_F(cm, empty_queue_nonblocking_is_eagain)
{
	struct rdmachan_cm_event ev;
	struct rdmachan_get_events cmd = {
		.size = sizeof(cmd), .events = (uintptr_t)&ev,
		.event_size = sizeof(ev), .max_events = 1,
		.flags = RDMACHAN_GET_EVENTS_NONBLOCK,
	};
	int flags;

	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	EXPECT_EQ(EAGAIN, errno);
	cmd.flags = 0;
	flags = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, flags | O_NONBLOCK));
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	EXPECT_EQ(EAGAIN, errno);
	/* A short event size is refused. */
	cmd.event_size = RDMACHAN_CM_EVENT_SIZE_V1 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	EXPECT_EQ(EINVAL, errno);
}

struct delayed {
	int fd;
	unsigned int delay_ms;
	__u32 handle;
	int ret;
	volatile int done;
};

static void *connect_later(void *arg)
{
	struct delayed *d = arg;

	usleep(d->delay_ms * 1000);
	d->ret = raw_connect(d->fd, RDMACHAN_IOC_CONNECT, d->handle, NULL);
	return NULL;
}

TEST_F(cm, blocking_get_wakes_on_event)
{
	struct delayed d = { .fd = self->fd, .delay_ms = 200,
			     .handle = self->client };
	struct rdmachan_get_events cmd;
	struct rdmachan_cm_event ev[4];
	pthread_t t;

	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.events = (uintptr_t)ev;
	cmd.event_size = sizeof(ev[0]);
	cmd.max_events = 4;
	ASSERT_EQ(0, pthread_create(&t, NULL, connect_later, &d));
	ASSERT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	pthread_join(t, NULL);
	EXPECT_EQ(0, d.ret);
	ASSERT_EQ(1, cmd.out_num_events);
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, ev[0].event);
	/* Acks can ride on the next read; num_acks says they were taken. */
	cmd.acks = (uintptr_t)&ev[0].event_handle;
	cmd.num_acks = 1;
	cmd.max_events = 0;
	EXPECT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	EXPECT_EQ(0, cmd.out_num_events);
	EXPECT_EQ(0, cmd.num_acks);
	EXPECT_EQ(ENOENT, raw_ack(self->fd, &ev[0].event_handle, 1));
	/* A batch refused as a whole leaves num_acks as it was. */
	cmd.num_acks = 1;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, cmd.num_acks);
}

/* A reply that cannot be written loses no event, and no ack is repeated. */
TEST_F(cm, unwritable_reply_keeps_the_event)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rdmachan_get_events *cmd;
	struct rdmachan_cm_event ev;
	__u32 handle;

	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 NULL));
	cmd = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cmd);
	cmd->size = sizeof(*cmd);
	cmd->flags = RDMACHAN_GET_EVENTS_NONBLOCK;
	cmd->events = (uintptr_t)&ev;
	cmd->event_size = sizeof(ev);
	cmd->max_events = 1;
	usleep(500 * 1000);
	ASSERT_EQ(0, mprotect(cmd, page, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, cmd));
	EXPECT_EQ(EFAULT, errno);
	/* The request is still there. */
	ASSERT_EQ(0, raw_get_event(self->fd, &ev, 1000));
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, ev.event);
	handle = ev.event_handle;

	/* Acks taken, then a bad events pointer: the acks are marked done. */
	ASSERT_EQ(0, mprotect(cmd, page, PROT_READ | PROT_WRITE));
	cmd->events = 8;
	cmd->acks = (uintptr_t)&handle;
	cmd->num_acks = 1;
	ASSERT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, ev.new_id_handle,
				 NULL));
	usleep(500 * 1000);
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, cmd));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, cmd->num_acks);
	EXPECT_EQ(ENOENT, raw_ack(self->fd, &handle, 1));
	/* The CONNECT_RESPONSE that could not be written is still queued. */
	EXPECT_EQ(0, raw_expect(self->fd, self->client,
				RDMA_CM_EVENT_CONNECT_RESPONSE, NULL));
	munmap(cmd, page);
}

static void on_sigusr1(int sig)
{
}

static void *signal_later(void *arg)
{
	usleep(300 * 1000);
	pthread_kill(*(pthread_t *)arg, SIGUSR1);
	return NULL;
}

/* Acks taken before an interrupted wait are done, and cleared for a restart. */
TEST_F(cm, interrupted_get_keeps_acks_done_once)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct rdmachan_get_events cmd;
	struct rdmachan_cm_event ev;
	pthread_t self_thread = pthread_self(), t;

	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 NULL));
	ASSERT_EQ(0, raw_get_event(self->fd, &ev, 5000));
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.events = (uintptr_t)&ev;
	cmd.event_size = sizeof(ev);
	cmd.max_events = 1;
	cmd.acks = (uintptr_t)&ev.event_handle;
	cmd.num_acks = 1;
	ASSERT_EQ(0, pthread_create(&t, NULL, signal_later, &self_thread));
	/* Nothing else comes: the wait ends with the signal (no SA_RESTART). */
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_EVENTS, &cmd));
	EXPECT_EQ(EINTR, errno);
	pthread_join(t, NULL);
	EXPECT_EQ(0, cmd.num_acks);
	EXPECT_EQ(ENOENT, raw_ack(self->fd, &ev.event_handle, 1));
	signal(SIGUSR1, SIG_DFL);
}

struct destroyer {
	int fd;
	__u32 handle;
	int ret;
	volatile int done;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = raw_destroy(d->fd, d->handle);
	d->done = 1;
	return NULL;
}

static bool debugfs_mentions(const char *needle)
{
	char path[512], line[256];
	bool found = false;
	glob_t g;
	size_t i;

	if (glob("/sys/kernel/debug/rdmachan/files/*", 0, NULL, &g))
		return false;
	for (i = 0; i < g.gl_pathc && !found; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s", g.gl_pathv[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, needle))
				found = true;
		fclose(f);
	}
	globfree(&g);
	return found;
}

TEST_F(cm, destroy_waits_for_ack)
{
	struct destroyer d = { .fd = self->fd, .handle = self->listen };
	struct rdmachan_cm_event ev;
	pthread_t t;
	char needle[64];

	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 NULL));
	ASSERT_EQ(0, raw_get_event(self->fd, &ev, 5000));
	ASSERT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, ev.event);
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_thread, &d));
	usleep(300 * 1000);
	/* The request counts against the listener, which must wait. */
	EXPECT_EQ(0, d.done);
	snprintf(needle, sizeof(needle), "CONNECT_REQUEST cm_id %u", self->listen);
	EXPECT_TRUE(debugfs_mentions(needle));
	ASSERT_EQ(0, raw_ack(self->fd, &ev.event_handle, 1));
	pthread_join(t, NULL);
	EXPECT_EQ(1, d.done);
	EXPECT_EQ(0, d.ret);
	/* The new id outlives its listener. */
	EXPECT_EQ(0, raw_destroy(self->fd, ev.new_id_handle));
}

TEST_F(cm, killed_in_blocked_destroy_exits)
{
	struct rdmachan_cm_event ev;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open("/dev/rdmachan", O_RDWR);
		__u32 listen = 0, client = 0;
		__u16 port = 0;

		if (fd < 0 || raw_create_id(fd, RDMA_PS_TCP, 0, &listen) ||
		    raw_listen(fd, listen, 1, &port) ||
		    raw_create_id(fd, RDMA_PS_TCP, 0, &client) ||
		    raw_resolve_addr(fd, client, port) ||
		    raw_expect(fd, client, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
		    raw_id_cmd(fd, RDMACHAN_IOC_RESOLVE_ROUTE, client, 2000) ||
		    raw_expect(fd, client, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL) ||
		    raw_connect(fd, RDMACHAN_IOC_CONNECT, client, NULL) ||
		    raw_get_event(fd, &ev, 5000))
			_exit(2);
		/* Never acked: this blocks until the kill. */
		raw_destroy(fd, listen);
		_exit(3);
	}
	usleep(1500 * 1000);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
}

TEST_F(cm, handles_of_other_files_and_objects)
{
	int other = open("/dev/rdmachan", O_RDWR);
	__u32 ctx, id = 0;

	ASSERT_LE(0, other);
	/* Another file's id is not found in this one. */
	EXPECT_EQ(ENOENT, raw_id_cmd(other, RDMACHAN_IOC_LISTEN, self->listen, 1));
	EXPECT_EQ(ENOENT, raw_destroy(other, self->client));
	/* A device context is not a CM id. */
	ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, ctx);
	EXPECT_EQ(ENOENT, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE, ctx, 1));
	/* A destroyed id is gone. */
	ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_UDP, 0, &id));
	ASSERT_EQ(0, raw_destroy(self->fd, id));
	EXPECT_EQ(ENOENT, raw_bind(self->fd, id, 0, NULL));
	EXPECT_EQ(ENOENT, raw_destroy(self->fd, id));
	close(other);
}

TEST_F(cm, bad_arguments_are_einval)
{
	struct rdmachan_create_id create = { .size = sizeof(create) };
	struct rdmachan_resolve_addr resolve = { .size = sizeof(resolve) };
	struct rdmachan_bind_addr bind = { .size = sizeof(bind) };
	struct rdmachan_reject reject = { .size = sizeof(reject) };
	struct rdmachan_set_option opt = { .size = sizeof(opt) };
	struct rdmachan_init_qp_attr qpa = { .size = sizeof(qpa) };
	long ids = rdmachan_counter("cm_ids");

	create.port_space = RDMA_PS_TCP;
	create.qp_type = IBV_QPT_UD;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_CREATE_ID, &create));
	EXPECT_EQ(EINVAL, errno);
	create.port_space = 0x4242;
	create.qp_type = IBV_QPT_RC;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_CREATE_ID, &create));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(ids, rdmachan_counter("cm_ids"));

	bind.handle = self->listen;
	bind.addr.ss_family = AF_UNIX;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_BIND_ADDR, &bind));
	EXPECT_EQ(EINVAL, errno);
	resolve.handle = self->client;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_RESOLVE_ADDR, &resolve));
	EXPECT_EQ(EINVAL, errno);

	reject.handle = self->client;
	reject.private_data_len = RDMACHAN_CM_PRIVATE_DATA_MAX;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_REJECT, &reject));
	EXPECT_EQ(EINVAL, errno);
	reject.private_data_len = 0;
	reject.reason = 99;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_REJECT, &reject));
	EXPECT_EQ(EINVAL, errno);

	opt.handle = self->client;
	opt.level = 7;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_SET_OPTION, &opt));
	EXPECT_EQ(ENOPROTOOPT, errno);
	opt.level = 0;
	opt.optname = 0; /* TOS */
	opt.value = 256;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_SET_OPTION, &opt));
	EXPECT_EQ(EINVAL, errno);
	opt.value = 32;
	EXPECT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_SET_OPTION, &opt));

	qpa.handle = self->client;
	qpa.qp_state = 42;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_INIT_QP_ATTR, &qpa));
	EXPECT_EQ(EINVAL, errno);
	qpa.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_INIT_QP_ATTR, &qpa));
	EXPECT_TRUE(qpa.out_attr_mask & IBV_QP_STATE);
	EXPECT_EQ(1, qpa.out_port_num);

	/* A value where none is taken. */
	EXPECT_EQ(EINVAL, raw_id_cmd(self->fd, RDMACHAN_IOC_DISCONNECT,
				     self->client, 1));
	EXPECT_EQ(EINVAL, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE,
				     self->client, -1));
}

TEST_F(cm, reject_carries_private_data)
{
	struct rdmachan_reject reject = { .size = sizeof(reject) };
	struct rdmachan_cm_event ev;
	__u32 server;

	server = connect_pair(_metadata, self, false);
	reject.handle = server;
	reject.private_data_len = 4;
	memcpy(reject.private_data, "nope", 4);
	ASSERT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_REJECT, &reject));
	ASSERT_EQ(0, raw_expect(self->fd, self->client, RDMA_CM_EVENT_REJECTED,
				&ev));
	/* The IB CM's reject reason: consumer defined. */
	EXPECT_EQ(28, ev.status);
	EXPECT_LE(4, ev.private_data_len);
	EXPECT_EQ(0, memcmp("nope", ev.private_data, 4));
}

TEST_F(cm, migrate_moves_id_and_events)
{
	struct rdmachan_migrate_id mig = { .size = sizeof(mig) };
	struct rdmachan_cm_event ev;
	int other = open("/dev/rdmachan", O_RDWR);
	int sock = socket(AF_INET, SOCK_DGRAM, 0);

	ASSERT_LE(0, other);
	ASSERT_LE(0, sock);
	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT, self->client,
				 NULL));
	ASSERT_EQ(0, raw_expect(self->fd, self->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	EXPECT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_ACCEPT, ev.new_id_handle,
				 NULL));
	usleep(200 * 1000);

	mig.fd = -1;
	mig.handle = self->client;
	EXPECT_EQ(-1, ioctl(other, RDMACHAN_IOC_MIGRATE_ID, &mig));
	EXPECT_EQ(EBADF, errno);
	mig.fd = sock;
	EXPECT_EQ(-1, ioctl(other, RDMACHAN_IOC_MIGRATE_ID, &mig));
	EXPECT_EQ(EINVAL, errno);
	/* the fd is checked before the handle */
	mig.handle = 0x80000001u;
	EXPECT_EQ(-1, ioctl(other, RDMACHAN_IOC_MIGRATE_ID, &mig));
	EXPECT_EQ(EINVAL, errno);
	mig.fd = self->fd;
	mig.handle = 999999;
	EXPECT_EQ(-1, ioctl(other, RDMACHAN_IOC_MIGRATE_ID, &mig));
	EXPECT_EQ(ENOENT, errno);

	/* The client's CONNECT_RESPONSE is queued: it moves along. */
	mig.handle = self->client;
	ASSERT_EQ(0, ioctl(other, RDMACHAN_IOC_MIGRATE_ID, &mig));
	EXPECT_NE(0, mig.out_handle);
	EXPECT_EQ(ENOENT, raw_id_cmd(self->fd, RDMACHAN_IOC_ESTABLISH,
				     self->client, 0));
	EXPECT_EQ(0, raw_expect(other, mig.out_handle,
				RDMA_CM_EVENT_CONNECT_RESPONSE, NULL));
	EXPECT_EQ(0, raw_id_cmd(other, RDMACHAN_IOC_ESTABLISH, mig.out_handle, 0));
	EXPECT_EQ(0, raw_expect(self->fd, ev.new_id_handle,
				RDMA_CM_EVENT_ESTABLISHED, NULL));
	close(sock);
	close(other);
}

TEST_F(cm, backlog_refuses_excess_requests)
{
	struct rdmachan_cm_event ev;
	__u32 clients[6];
	int i, requests = 0, others = 0, ret;

	/* The fixture's listener has a backlog of 4; nobody reads requests. */
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, raw_create_id(self->fd, RDMA_PS_TCP, 100 + i,
					   &clients[i]));
		ASSERT_EQ(0, raw_resolve_addr(self->fd, clients[i], self->port));
		ASSERT_EQ(0, raw_expect(self->fd, clients[i],
					RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
		ASSERT_EQ(0, raw_id_cmd(self->fd, RDMACHAN_IOC_RESOLVE_ROUTE,
					clients[i], 2000));
		ASSERT_EQ(0, raw_expect(self->fd, clients[i],
					RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
	}
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, raw_connect(self->fd, RDMACHAN_IOC_CONNECT,
					 clients[i], NULL));
	/* Unread requests fill the backlog; the rest are not queued. */
	usleep(1500 * 1000);
	while ((ret = raw_get_event(self->fd, &ev, 1000)) == 0) {
		raw_ack(self->fd, &ev.event_handle, 1);
		if (ev.event == RDMA_CM_EVENT_CONNECT_REQUEST)
			requests++;
		else
			others++;
	}
	EXPECT_EQ(ETIMEDOUT, ret);
	EXPECT_EQ(4, requests);
	EXPECT_EQ(0, others);
	/*
	 * Refused without a reject, as the IB CM does for -ENOMEM, so the
	 * clients retry and get in once the backlog has room again.
	 */
	while (requests < 6 && raw_get_event(self->fd, &ev, 20000) == 0) {
		raw_ack(self->fd, &ev.event_handle, 1);
		if (ev.event == RDMA_CM_EVENT_CONNECT_REQUEST)
			requests++;
		else
			others++;
	}
	EXPECT_EQ(6, requests);
	EXPECT_EQ(0, others);
}

TEST(file_close_frees_unread_requests_and_unacked_events)
{
	long before = live_cm_objects();
	struct rdmachan_cm_event ev;
	int fd = open("/dev/rdmachan", O_RDWR);
	__u16 port = 0;
	__u32 listen = 0, client[2] = {};
	int i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0, &listen));
	ASSERT_EQ(0, raw_listen(fd, listen, 8, &port));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0, &client[i]));
		ASSERT_EQ(0, raw_resolve_addr(fd, client[i], port));
		ASSERT_EQ(0, raw_expect(fd, client[i],
					RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
		ASSERT_EQ(0, raw_id_cmd(fd, RDMACHAN_IOC_RESOLVE_ROUTE,
					client[i], 2000));
		ASSERT_EQ(0, raw_expect(fd, client[i],
					RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, raw_connect(fd, RDMACHAN_IOC_CONNECT, client[i],
					 NULL));
	/* One request read and never acked, one never read. */
	ASSERT_EQ(0, raw_get_event(fd, &ev, 5000));
	usleep(300 * 1000);
	EXPECT_LT(before, live_cm_objects());
	close(fd);
	EXPECT_EQ(before, live_cm_objects());
}

TEST_HARNESS_MAIN
