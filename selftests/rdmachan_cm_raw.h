/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw CM ioctls for the selftests that check the module without the
 * library. Each helper returns 0 or the errno of the ioctl.
 */
#ifndef RDMACHAN_CM_RAW_H
#define RDMACHAN_CM_RAW_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include "rdmachan_test.h"

/* Raw ioctls on the library's files: they must be the module's own. */
RDMACHAN_TEST_KERNEL_OWNED

static __maybe_unused int raw_create_id(int fd, __u32 ps, __u64 user_context,
					__u32 *handle)
{
	struct rdmachan_create_id cmd = {
		.size = sizeof(cmd), .user_context = user_context,
		.port_space = ps,
		.qp_type = ps == RDMA_PS_TCP ? IBV_QPT_RC : IBV_QPT_UD,
	};

	if (ioctl(fd, RDMACHAN_IOC_CREATE_ID, &cmd))
		return errno;
	*handle = cmd.out_handle;
	return 0;
}

static __maybe_unused int raw_destroy(int fd, __u32 handle)
{
	struct rdmachan_destroy cmd = { .size = sizeof(cmd), .handle = handle };

	return ioctl(fd, RDMACHAN_IOC_DESTROY, &cmd) ? errno : 0;
}

/* The test address ($RDMACHAN_ADDR) with @port, in network order. */
static __maybe_unused void raw_test_addr(struct __kernel_sockaddr_storage *ss,
					 __u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *addr = getenv("RDMACHAN_ADDR");

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = port;
	inet_pton(AF_INET, addr ? addr : "10.77.0.1", &sin->sin_addr);
}

static __maybe_unused int raw_bind(int fd, __u32 handle, __u16 port,
				   struct rdmachan_cm_route *route)
{
	struct rdmachan_bind_addr cmd = { .size = sizeof(cmd), .handle = handle };

	raw_test_addr(&cmd.addr, port);
	if (ioctl(fd, RDMACHAN_IOC_BIND_ADDR, &cmd))
		return errno;
	if (route)
		*route = cmd.out_route;
	return 0;
}

static __maybe_unused int raw_resolve_addr(int fd, __u32 handle, __u16 port)
{
	struct rdmachan_resolve_addr cmd = {
		.size = sizeof(cmd), .handle = handle, .timeout_ms = 2000,
	};

	raw_test_addr(&cmd.dst_addr, port);
	return ioctl(fd, RDMACHAN_IOC_RESOLVE_ADDR, &cmd) ? errno : 0;
}

static __maybe_unused int raw_id_cmd(int fd, unsigned long ioc, __u32 handle,
				     __s32 value)
{
	struct rdmachan_id_cmd cmd = {
		.size = sizeof(cmd), .handle = handle, .value = value,
	};

	return ioctl(fd, ioc, &cmd) ? errno : 0;
}

/* CONNECT or ACCEPT offering @responder_resources, the others fixed. */
static __maybe_unused int raw_connect_rd(int fd, unsigned long ioc,
					 __u32 handle, const char *private_data,
					 __u8 responder_resources)
{
	struct rdmachan_connect cmd = { .size = sizeof(cmd), .handle = handle };
	static unsigned int n;

	/* The CM refuses a QPN pair it still remembers as a stale connection. */
	cmd.conn.qp_num = ((getpid() & 0xfff) << 12 | (++n & 0xfff)) & 0xffffff;
	cmd.conn.responder_resources = responder_resources;
	cmd.conn.initiator_depth = 1;
	cmd.conn.retry_count = 7;
	cmd.conn.rnr_retry_count = 7;
	if (private_data) {
		cmd.conn.private_data_len = strlen(private_data) + 1;
		memcpy(cmd.conn.private_data, private_data,
		       cmd.conn.private_data_len);
	}
	return ioctl(fd, ioc, &cmd) ? errno : 0;
}

static __maybe_unused int raw_connect(int fd, unsigned long ioc, __u32 handle,
				      const char *private_data)
{
	return raw_connect_rd(fd, ioc, handle, private_data, 1);
}

/* Waits up to @ms for one event; 0, ETIMEDOUT or the ioctl's errno. */
static __maybe_unused int raw_get_event(int fd, struct rdmachan_cm_event *ev,
					int ms)
{
	struct rdmachan_get_events cmd = {
		.size = sizeof(cmd), .flags = RDMACHAN_GET_EVENTS_NONBLOCK,
		.events = (uintptr_t)ev, .event_size = sizeof(*ev),
		.max_events = 1,
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) == 0)
		return ETIMEDOUT;
	if (ioctl(fd, RDMACHAN_IOC_GET_EVENTS, &cmd))
		return errno;
	return cmd.out_num_events == 1 ? 0 : EPROTO;
}

static __maybe_unused int raw_ack(int fd, const __u32 *handles, __u32 num)
{
	struct rdmachan_get_events cmd = {
		.size = sizeof(cmd), .acks = (uintptr_t)handles,
		.num_acks = num,
	};

	return ioctl(fd, RDMACHAN_IOC_ACK_EVENTS, &cmd) ? errno : 0;
}

/* Gets one event, which must be @type for @id_handle, and acks it. */
static __maybe_unused int raw_expect(int fd, __u32 id_handle, __u32 type,
				     struct rdmachan_cm_event *out)
{
	struct rdmachan_cm_event ev;
	int ret = raw_get_event(fd, &ev, 5000);

	if (ret)
		return ret;
	if (out)
		*out = ev;
	ret = raw_ack(fd, &ev.event_handle, 1);
	if (ret)
		return ret;
	if (ev.event != type || ev.id_handle != id_handle) {
		fprintf(stderr, "# got event %u (status %d) for id %u, want %u for %u\n",
			ev.event, ev.status, ev.id_handle, type, id_handle);
		return EPROTO;
	}
	return 0;
}

/* Binds @handle to the test address on a free port and listens there. */
static __maybe_unused int raw_listen(int fd, __u32 handle, int backlog,
				     __u16 *port)
{
	struct rdmachan_cm_route route = {};
	int ret;

	*port = 0;
	ret = raw_bind(fd, handle, 0, &route);
	if (ret)
		return ret;
	*port = ((struct sockaddr_in *)&route.src_addr)->sin_port;
	return raw_id_cmd(fd, RDMACHAN_IOC_LISTEN, handle, backlog);
}

/* A port nobody is likely to listen on. */
static __maybe_unused __u16 raw_next_port(void)
{
	static unsigned int n;

	return htons(10000 + (getpid() * 128 + n++) % 50000);
}

#endif /* RDMACHAN_CM_RAW_H */
