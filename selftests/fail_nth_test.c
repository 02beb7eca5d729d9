// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fail-nth sweeps over the CM ioctls and the device context's: the engine
 * and what each injected fault must leave are in fail_nth.h.
 *
 * Calls that make the RDMA core look up an IP route (RESOLVE_ADDR,
 * RESOLVE_ROUTE, CONNECT) may fail with ENOBUFS (SW_ROUTE). A GET_EVENTS
 * that fails after it took its acks clears num_acks in the caller's
 * struct to say so; the acks' events are then expected gone, and the call
 * again does not repeat them. No event is lost: a failed GET_EVENTS
 * leaves its event readable.
 *
 * Two RDMA-core behaviours are taken as they are. When rdma_accept() fails
 * in the IB CM it rejects the connection itself (ACCEPT, and ESTABLISH,
 * which is rdma_accept() on the active side): the same call again is
 * EINVAL and the peer must get REJECTED. The IB CM resets an id to idle
 * before it allocates the REJ it sends (cm_send_rej_locked()): after a
 * REJECT that failed there, REJECT again is EINVAL and the peer hears
 * nothing. Both are counted as "left the object unusable".
 */
#include "rdmachan_cm_raw.h"

union sweep_arg {
	struct rdmachan_open_device open;
	struct rdmachan_query_device qdev;
	struct rdmachan_query_port qport;
	struct rdmachan_query_gid qgid;
	struct rdmachan_create_id create;
	struct rdmachan_bind_addr bind;
	struct rdmachan_resolve_addr resolve;
	struct rdmachan_id_cmd id_cmd;
	struct rdmachan_connect conn;
	struct rdmachan_reject reject;
	struct rdmachan_get_events get;
	struct rdmachan_migrate_id migrate;
	struct rdmachan_init_qp_attr qpa;
	struct rdmachan_set_option opt;
	struct rdmachan_destroy destroy;
};

/* Objects of the sweep or of one step. */
#define SWEEP_CTX_FIELDS		\
	__u32 listen;			\
	__u16 port;			\
	__u32 id;			\
	__u32 client;			\
	__u32 server;			\
	__u32 optname;			\
	__u32 qp_state;			\
	__u32 acks[1];			\
	struct rdmachan_cm_event ev[2];

#include "fail_nth.h"

/* Helpers for the steps: each runs without a fault armed. */

static unsigned int next_qpn(void)
{
	static unsigned int n;

	/* Apart from raw_connect()'s numbers: the CM remembers QPN pairs. */
	return (0x800000 | (getpid() & 0x7ff) << 12 | (++n & 0xfff));
}

static void fill_conn(struct rdmachan_connect *cmd, __u32 handle,
		      const char *private_data)
{
	cmd->size = sizeof(*cmd);
	cmd->handle = handle;
	cmd->conn.qp_num = next_qpn();
	cmd->conn.responder_resources = 1;
	cmd->conn.initiator_depth = 1;
	cmd->conn.retry_count = 7;
	cmd->conn.rnr_retry_count = 7;
	cmd->conn.private_data_len = strlen(private_data) + 1;
	memcpy(cmd->conn.private_data, private_data,
	       cmd->conn.private_data_len);
}

/* A listener on @fd, on a free port of the test address. */
static void make_listener(struct __test_metadata *_metadata, int fd,
			  __u32 *listen, __u16 *port)
{
	ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0x1111, listen));
	ASSERT_EQ(0, raw_listen(fd, *listen, 64, port));
}

/* An id on @fd whose route to @port is resolved, every event acked. */
static void make_routed(struct __test_metadata *_metadata, int fd, __u16 port,
			__u32 *id)
{
	ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0x2222, id));
	ASSERT_EQ(0, raw_resolve_addr(fd, *id, port));
	ASSERT_EQ(0, raw_expect(fd, *id, RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
	ASSERT_EQ(0, raw_id_cmd(fd, RDMACHAN_IOC_RESOLVE_ROUTE, *id, 2000));
	ASSERT_EQ(0, raw_expect(fd, *id, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
}

/*
 * A client on the peer file connects to the listener on c->fd, whose
 * request is read and acked: c->client, c->server.
 */
static void make_request(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event ev;

	make_routed(_metadata, c->peer, c->port, &c->client);
	ASSERT_EQ(0, raw_connect(c->peer, RDMACHAN_IOC_CONNECT, c->client,
				 "fail-nth"));
	ASSERT_EQ(0, raw_expect(c->fd, c->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	ASSERT_NE(0, ev.new_id_handle);
	c->server = ev.new_id_handle;
}

/* An id on @fd with its ADDR_RESOLVED queued, not read. */
static void make_queued_event(struct __test_metadata *_metadata, int fd,
			      __u32 *id)
{
	ASSERT_EQ(0, raw_create_id(fd, RDMA_PS_TCP, 0x3333, id));
	ASSERT_EQ(0, raw_resolve_addr(fd, *id, raw_next_port()));
	ASSERT_TRUE(readable(fd, EVENT_MS));
}

static int reject_id(int fd, __u32 handle)
{
	struct rdmachan_reject cmd = { .size = sizeof(cmd), .handle = handle };

	return ioctl(fd, RDMACHAN_IOC_REJECT, &cmd) ? errno : 0;
}

static void expect_event(struct __test_metadata *_metadata, struct ctx *c,
			 int fd, __u32 id, __u32 type)
{
	int err = raw_expect(fd, id, type, NULL);

	CHECK(!err, "no %s for id %u: %s", rdma_event_str(type), id,
	      strerror(err));
}

static void expect_quiet(struct __test_metadata *_metadata, struct ctx *c,
			 int fd)
{
	struct rdmachan_cm_event ev;

	if (!raw_get_event(fd, &ev, 0)) {
		CHECK(0, "stray event %s (status %d) for id %u",
		      rdma_event_str(ev.event), ev.status, ev.id_handle);
		raw_ack(fd, &ev.event_handle, 1);
	}
}

/* Device context and queries */

static void open_device_prepare(struct __test_metadata *_metadata,
				struct ctx *c)
{
	c->arg.open.size = sizeof(c->arg.open);
	c->arg.open.device_index = c->dev_index;
}

static void open_device_done(struct __test_metadata *_metadata, struct ctx *c)
{
	__u32 handle = c->arg.open.out_handle;

	CHECK(handle != 0, "no handle");
	CHECK(!rdmachan_query_port(c->fd, handle, 1),
	      "the new context cannot be queried");
	destroy_ok(_metadata, c, c->fd, handle);
}

static const struct sweep_ops open_device_ops = {
	.name = "OPEN_DEVICE",
	.ioc = RDMACHAN_IOC_OPEN_DEVICE,
	.prepare = open_device_prepare,
	.done = open_device_done,
};

static void query_device_prepare(struct __test_metadata *_metadata,
				 struct ctx *c)
{
	c->arg.qdev.size = sizeof(c->arg.qdev);
	c->arg.qdev.handle = c->dev_ctx;
}

static void query_device_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.qdev.out_phys_port_cnt >= 1, "no ports");
}

static const struct sweep_ops query_device_ops = {
	.name = "QUERY_DEVICE",
	.ioc = RDMACHAN_IOC_QUERY_DEVICE,
	.prepare = query_device_prepare,
	.done = query_device_done,
};

static void query_port_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	c->arg.qport.size = sizeof(c->arg.qport);
	c->arg.qport.handle = c->dev_ctx;
	c->arg.qport.port_num = 1;
}

static void query_port_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.qport.out_gid_tbl_len > 0, "empty GID table");
}

static const struct sweep_ops query_port_ops = {
	.name = "QUERY_PORT",
	.ioc = RDMACHAN_IOC_QUERY_PORT,
	.prepare = query_port_prepare,
	.done = query_port_done,
};

static void query_gid_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	c->arg.qgid.size = sizeof(c->arg.qgid);
	c->arg.qgid.handle = c->dev_ctx;
	c->arg.qgid.port_num = 1;
	c->arg.qgid.index = 0;
}

static void query_gid_done(struct __test_metadata *_metadata, struct ctx *c)
{
	static const __u8 zero[16];

	CHECK(memcmp(c->arg.qgid.out_gid, zero, sizeof(zero)),
	      "GID 0 reads as zero");
}

static const struct sweep_ops query_gid_ops = {
	.name = "QUERY_GID",
	.ioc = RDMACHAN_IOC_QUERY_GID,
	.prepare = query_gid_prepare,
	.done = query_gid_done,
};

/* CM ids */

static void create_id_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	c->arg.create.size = sizeof(c->arg.create);
	c->arg.create.user_context = 42;
	c->arg.create.port_space = RDMA_PS_TCP;
	c->arg.create.qp_type = IBV_QPT_RC;
}

static void create_id_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(c->arg.create.out_handle != 0, "no handle");
	destroy_ok(_metadata, c, c->fd, c->arg.create.out_handle);
}

static const struct sweep_ops create_id_ops = {
	.name = "CREATE_ID",
	.ioc = RDMACHAN_IOC_CREATE_ID,
	.prepare = create_id_prepare,
	.done = create_id_done,
};

static void bind_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
	c->arg.bind.size = sizeof(c->arg.bind);
	c->arg.bind.handle = c->id;
	raw_test_addr(&c->arg.bind.addr, 0);
}

static void bind_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_route *route = &c->arg.bind.out_route;

	CHECK(((struct sockaddr_in *)&route->src_addr)->sin_port != 0,
	      "bound to port 0");
	CHECK(route->device_index == c->dev_index, "bound to device %u",
	      route->device_index);
	destroy_ok(_metadata, c, c->fd, c->id);
}

/*
 * rdma_cm cannot unbind: when out_route cannot be written after the bind
 * (the uAPI says so), the id stays bound and binding again is EINVAL.
 */
static void bind_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err = call_again(c);

	if (!err) {
		bind_done(_metadata, c);
		return;
	}
	c->core_rejects++;
	CHECK(c->err == EFAULT && err == EINVAL,
	      "BIND_ADDR after a failed one (%s): %s, want EINVAL after EFAULT",
	      strerror(c->err), strerror(err));
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops bind_ops = {
	.name = "BIND_ADDR (port 0)",
	.ioc = RDMACHAN_IOC_BIND_ADDR,
	.prepare = bind_prepare,
	.done = bind_done,
	.failed = bind_failed,
};

static void bind_port_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	bind_prepare(_metadata, c);
	raw_test_addr(&c->arg.bind.addr, raw_next_port());
}

static const struct sweep_ops bind_port_ops = {
	.name = "BIND_ADDR (a given port)",
	.ioc = RDMACHAN_IOC_BIND_ADDR,
	.prepare = bind_port_prepare,
	.done = bind_done,
	.failed = bind_failed,
};

static void resolve_addr_prepare(struct __test_metadata *_metadata,
				 struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
	c->arg.resolve.size = sizeof(c->arg.resolve);
	c->arg.resolve.handle = c->id;
	c->arg.resolve.timeout_ms = 2000;
	raw_test_addr(&c->arg.resolve.dst_addr, raw_next_port());
}

static bool status_ok(int status)
{
	return status == -ENOMEM || status == -ENOBUFS;
}

/*
 * The event an asynchronous CM call ends with: @ok, or with an absorbed
 * fault possibly @error, after which the call again must give @ok.
 */
static void async_done(struct __test_metadata *_metadata, struct ctx *c,
		       __u32 ok, __u32 error)
{
	struct rdmachan_cm_event ev;
	int err;

	err = raw_get_event(c->fd, &ev, EVENT_MS);
	CHECK(!err, "no event: %s", strerror(err));
	if (err)
		return;
	raw_ack(c->fd, &ev.event_handle, 1);
	CHECK(ev.id_handle == c->id, "event for id %u", ev.id_handle);
	if (ev.event == error && c->absorbed) {
		CHECK(status_ok(ev.status), "%s with status %d",
		      rdma_event_str(ev.event), ev.status);
		err = do_call(c);
		CHECK(!err, "the call after %s fails with %s",
		      rdma_event_str(ev.event), strerror(err));
		if (!err)
			expect_event(_metadata, c, c->fd, c->id, ok);
	} else {
		CHECK(ev.event == ok && !ev.status, "%s with status %d",
		      rdma_event_str(ev.event), ev.status);
	}
	expect_quiet(_metadata, c, c->fd);
	destroy_ok(_metadata, c, c->fd, c->id);
}

static void resolve_addr_done(struct __test_metadata *_metadata, struct ctx *c)
{
	async_done(_metadata, c, RDMA_CM_EVENT_ADDR_RESOLVED,
		   RDMA_CM_EVENT_ADDR_ERROR);
}

static const struct sweep_ops resolve_addr_ops = {
	.name = "RESOLVE_ADDR",
	.ioc = RDMACHAN_IOC_RESOLVE_ADDR,
	.flags = SW_ROUTE,
	.prepare = resolve_addr_prepare,
	.done = resolve_addr_done,
};

static void resolve_route_prepare(struct __test_metadata *_metadata,
				  struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
	ASSERT_EQ(0, raw_resolve_addr(c->fd, c->id, raw_next_port()));
	ASSERT_EQ(0, raw_expect(c->fd, c->id, RDMA_CM_EVENT_ADDR_RESOLVED,
				NULL));
	c->arg.id_cmd.size = sizeof(c->arg.id_cmd);
	c->arg.id_cmd.handle = c->id;
	c->arg.id_cmd.value = 2000;
}

static void resolve_route_done(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	async_done(_metadata, c, RDMA_CM_EVENT_ROUTE_RESOLVED,
		   RDMA_CM_EVENT_ROUTE_ERROR);
}

static const struct sweep_ops resolve_route_ops = {
	.name = "RESOLVE_ROUTE",
	.ioc = RDMACHAN_IOC_RESOLVE_ROUTE,
	.flags = SW_ROUTE,
	.prepare = resolve_route_prepare,
	.done = resolve_route_done,
};

static void listen_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
	ASSERT_EQ(0, raw_bind(c->fd, c->id, 0, NULL));
	c->arg.id_cmd.size = sizeof(c->arg.id_cmd);
	c->arg.id_cmd.handle = c->id;
	c->arg.id_cmd.value = 4;
}

/* Unbound: rdma_listen() binds to the wildcard address, on every device. */
static void listen_any_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
	c->arg.id_cmd.size = sizeof(c->arg.id_cmd);
	c->arg.id_cmd.handle = c->id;
	c->arg.id_cmd.value = 4;
}

static void listen_done(struct __test_metadata *_metadata, struct ctx *c)
{
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops listen_ops = {
	.name = "LISTEN",
	.ioc = RDMACHAN_IOC_LISTEN,
	.prepare = listen_prepare,
	.done = listen_done,
};

static const struct sweep_ops listen_any_ops = {
	.name = "LISTEN (unbound, any address)",
	.ioc = RDMACHAN_IOC_LISTEN,
	.prepare = listen_any_prepare,
	.done = listen_done,
};

/*
 * Connections: the listener is on the peer file for the active side's
 * calls (CONNECT, ESTABLISH, DISCONNECT), on fd for the passive side's.
 */

static void peer_listener_init(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	make_listener(_metadata, c->peer, &c->listen, &c->port);
}

static void listener_init(struct __test_metadata *_metadata, struct ctx *c)
{
	make_listener(_metadata, c->fd, &c->listen, &c->port);
}

static void connect_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	make_routed(_metadata, c->fd, c->port, &c->id);
	fill_conn(&c->arg.conn, c->id, "fail-nth");
}

static void connect_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event ev;
	int err;

	err = raw_expect(c->peer, c->listen, RDMA_CM_EVENT_CONNECT_REQUEST,
			 &ev);
	CHECK(!err, "the listener got no CONNECT_REQUEST: %s", strerror(err));
	if (!err) {
		err = reject_id(c->peer, ev.new_id_handle);
		CHECK(!err, "REJECT: %s", strerror(err));
		expect_event(_metadata, c, c->fd, c->id,
			     RDMA_CM_EVENT_REJECTED);
		destroy_ok(_metadata, c, c->peer, ev.new_id_handle);
	}
	expect_quiet(_metadata, c, c->peer);
	expect_quiet(_metadata, c, c->fd);
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops connect_ops = {
	.name = "CONNECT",
	.ioc = RDMACHAN_IOC_CONNECT,
	.flags = SW_ROUTE,
	.init = peer_listener_init,
	.prepare = connect_prepare,
	.done = connect_done,
};

static void accept_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	make_request(_metadata, c);
	fill_conn(&c->arg.conn, c->server, "welcome");
	c->arg.conn.user_context = 0x4444;
}

static void accept_done(struct __test_metadata *_metadata, struct ctx *c)
{
	expect_event(_metadata, c, c->peer, c->client,
		     RDMA_CM_EVENT_CONNECT_RESPONSE);
	destroy_ok(_metadata, c, c->peer, c->client);
	destroy_ok(_metadata, c, c->fd, c->server);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

/* rdma_accept() rejects the request when it fails in the CM. */
static void accept_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err = call_again(c);

	if (!err) {
		accept_done(_metadata, c);
		return;
	}
	c->core_rejects++;
	CHECK(err == EINVAL, "ACCEPT after a failed one: %s, want EINVAL",
	      strerror(err));
	expect_event(_metadata, c, c->peer, c->client, RDMA_CM_EVENT_REJECTED);
	destroy_ok(_metadata, c, c->fd, c->server);
	destroy_ok(_metadata, c, c->peer, c->client);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

static const struct sweep_ops accept_ops = {
	.name = "ACCEPT",
	.ioc = RDMACHAN_IOC_ACCEPT,
	.flags = SW_PEER_EVENTS,
	.init = listener_init,
	.prepare = accept_prepare,
	.done = accept_done,
	.failed = accept_failed,
};

static void reject_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	make_request(_metadata, c);
	c->arg.reject.size = sizeof(c->arg.reject);
	c->arg.reject.handle = c->server;
	c->arg.reject.private_data_len = 4;
	memcpy(c->arg.reject.private_data, "nope", 4);
}

static void reject_done(struct __test_metadata *_metadata, struct ctx *c)
{
	expect_event(_metadata, c, c->peer, c->client, RDMA_CM_EVENT_REJECTED);
	destroy_ok(_metadata, c, c->fd, c->server);
	destroy_ok(_metadata, c, c->peer, c->client);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

/*
 * The IB CM resets the id to idle before it allocates the REJ, so after a
 * failed allocation there the id cannot reject any more; the peer hears
 * nothing until it gives up or is destroyed.
 */
static void reject_failed(struct __test_metadata *_metadata, struct ctx *c)
{
	int err = call_again(c);

	if (!err) {
		reject_done(_metadata, c);
		return;
	}
	c->core_rejects++;
	CHECK(err == EINVAL, "REJECT after a failed one: %s, want EINVAL",
	      strerror(err));
	destroy_ok(_metadata, c, c->fd, c->server);
	destroy_ok(_metadata, c, c->peer, c->client);
	expect_quiet(_metadata, c, c->fd);
}

static const struct sweep_ops reject_ops = {
	.name = "REJECT",
	.ioc = RDMACHAN_IOC_REJECT,
	.init = listener_init,
	.prepare = reject_prepare,
	.done = reject_done,
	.failed = reject_failed,
};

/*
 * The active side on fd has its CONNECT_RESPONSE (the peer's listener
 * accepted): c->id; the passive id on the peer: c->server. Established
 * too when @establish.
 */
static void make_responded(struct __test_metadata *_metadata, struct ctx *c,
			   bool establish)
{
	struct rdmachan_cm_event ev;

	make_routed(_metadata, c->fd, c->port, &c->id);
	ASSERT_EQ(0, raw_connect(c->fd, RDMACHAN_IOC_CONNECT, c->id,
				 "fail-nth"));
	ASSERT_EQ(0, raw_expect(c->peer, c->listen,
				RDMA_CM_EVENT_CONNECT_REQUEST, &ev));
	c->server = ev.new_id_handle;
	ASSERT_EQ(0, raw_connect(c->peer, RDMACHAN_IOC_ACCEPT, c->server,
				 NULL));
	ASSERT_EQ(0, raw_expect(c->fd, c->id, RDMA_CM_EVENT_CONNECT_RESPONSE,
				NULL));
	if (!establish)
		return;
	ASSERT_EQ(0, raw_id_cmd(c->fd, RDMACHAN_IOC_ESTABLISH, c->id, 0));
	ASSERT_EQ(0, raw_expect(c->peer, c->server, RDMA_CM_EVENT_ESTABLISHED,
				NULL));
}

static void establish_prepare(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	make_responded(_metadata, c, false);
	c->arg.id_cmd.size = sizeof(c->arg.id_cmd);
	c->arg.id_cmd.handle = c->id;
}

/* Destroying the active id disconnects; the peer's events go with it. */
static void destroy_pair(struct __test_metadata *_metadata, struct ctx *c)
{
	destroy_ok(_metadata, c, c->fd, c->id);
	destroy_ok(_metadata, c, c->peer, c->server);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

static void establish_done(struct __test_metadata *_metadata, struct ctx *c)
{
	expect_event(_metadata, c, c->peer, c->server,
		     RDMA_CM_EVENT_ESTABLISHED);
	destroy_pair(_metadata, c);
}

/* As rdma_accept(): a failed RTU rejects the connection. */
static void establish_failed(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	int err = call_again(c);

	if (!err) {
		establish_done(_metadata, c);
		return;
	}
	c->core_rejects++;
	CHECK(err == EINVAL, "ESTABLISH after a failed one: %s, want EINVAL",
	      strerror(err));
	expect_event(_metadata, c, c->peer, c->server, RDMA_CM_EVENT_REJECTED);
	destroy_pair(_metadata, c);
}

static const struct sweep_ops establish_ops = {
	.name = "ESTABLISH",
	.ioc = RDMACHAN_IOC_ESTABLISH,
	.flags = SW_PEER_EVENTS,
	.init = peer_listener_init,
	.prepare = establish_prepare,
	.done = establish_done,
	.failed = establish_failed,
};

static void disconnect_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	make_responded(_metadata, c, true);
	c->arg.id_cmd.size = sizeof(c->arg.id_cmd);
	c->arg.id_cmd.handle = c->id;
}

static void disconnect_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event ev;
	int err;

	err = raw_get_event(c->peer, &ev, c->absorbed ? 500 : EVENT_MS);
	if (!err)
		raw_ack(c->peer, &ev.event_handle, 1);
	/* rdma_disconnect() ignores a DREQ it could not allocate. */
	if (!c->absorbed || !err)
		CHECK(!err && ev.event == RDMA_CM_EVENT_DISCONNECTED,
		      "the peer got %s",
		      err ? strerror(err) : rdma_event_str(ev.event));
	destroy_ok(_metadata, c, c->peer, c->server);
	destroy_ok(_metadata, c, c->fd, c->id);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

static const struct sweep_ops disconnect_ops = {
	.name = "DISCONNECT",
	.ioc = RDMACHAN_IOC_DISCONNECT,
	.init = peer_listener_init,
	.prepare = disconnect_prepare,
	.done = disconnect_done,
};

/* The passive side learns of the connection first: COMM_EST. */
static void notify_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	make_request(_metadata, c);
	ASSERT_EQ(0, raw_connect(c->fd, RDMACHAN_IOC_ACCEPT, c->server, NULL));
	ASSERT_EQ(0, raw_expect(c->peer, c->client,
				RDMA_CM_EVENT_CONNECT_RESPONSE, NULL));
	c->arg.id_cmd.size = sizeof(c->arg.id_cmd);
	c->arg.id_cmd.handle = c->server;
	c->arg.id_cmd.value = IBV_EVENT_COMM_EST;
}

static void notify_done(struct __test_metadata *_metadata, struct ctx *c)
{
	expect_event(_metadata, c, c->fd, c->server,
		     RDMA_CM_EVENT_ESTABLISHED);
	destroy_ok(_metadata, c, c->peer, c->client);
	destroy_ok(_metadata, c, c->fd, c->server);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

static const struct sweep_ops notify_ops = {
	.name = "NOTIFY (COMM_EST)",
	.ioc = RDMACHAN_IOC_NOTIFY,
	.init = listener_init,
	.prepare = notify_prepare,
	.done = notify_done,
};

/* Event queue */

static void get_events_fill(struct ctx *c)
{
	memset(c->ev, 0, sizeof(c->ev));
	c->arg.get.size = sizeof(c->arg.get);
	c->arg.get.flags = RDMACHAN_GET_EVENTS_NONBLOCK;
	c->arg.get.events = (uintptr_t)c->ev;
	c->arg.get.event_size = sizeof(c->ev[0]);
	c->arg.get.max_events = 1;
}

static void get_events_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	make_queued_event(_metadata, c->fd, &c->id);
	get_events_fill(c);
}

static void get_events_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event *ev = &c->ev[0];

	CHECK(c->arg.get.out_num_events == 1, "%u events",
	      c->arg.get.out_num_events);
	CHECK(ev->event == RDMA_CM_EVENT_ADDR_RESOLVED && ev->id_handle == c->id,
	      "got %s for id %u", rdma_event_str(ev->event), ev->id_handle);
	if (c->arg.get.out_num_events == 1)
		CHECK(!raw_ack(c->fd, &ev->event_handle, 1), "ACK fails");
	expect_quiet(_metadata, c, c->fd);
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops get_events_ops = {
	.name = "GET_EVENTS",
	.ioc = RDMACHAN_IOC_GET_EVENTS,
	.prepare = get_events_prepare,
	.done = get_events_done,
};

/* A connect request: its delivery publishes the new id's handle. */
static void get_request_prepare(struct __test_metadata *_metadata,
				struct ctx *c)
{
	make_routed(_metadata, c->peer, c->port, &c->client);
	ASSERT_EQ(0, raw_connect(c->peer, RDMACHAN_IOC_CONNECT, c->client,
				 "fail-nth"));
	ASSERT_TRUE(readable(c->fd, EVENT_MS));
	get_events_fill(c);
}

static void get_request_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event *ev = &c->ev[0];
	int err;

	CHECK(c->arg.get.out_num_events == 1, "%u events",
	      c->arg.get.out_num_events);
	CHECK(ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
	      ev->id_handle == c->listen && ev->new_id_handle,
	      "got %s for id %u, new id %u", rdma_event_str(ev->event),
	      ev->id_handle, ev->new_id_handle);
	if (c->arg.get.out_num_events == 1) {
		CHECK(!raw_ack(c->fd, &ev->event_handle, 1), "ACK fails");
		if (ev->new_id_handle) {
			err = reject_id(c->fd, ev->new_id_handle);
			CHECK(!err, "REJECT of the new id: %s", strerror(err));
			if (!err)
				expect_event(_metadata, c, c->peer, c->client,
					     RDMA_CM_EVENT_REJECTED);
			destroy_ok(_metadata, c, c->fd, ev->new_id_handle);
		}
	}
	destroy_ok(_metadata, c, c->peer, c->client);
	expect_quiet(_metadata, c, c->fd);
	expect_quiet(_metadata, c, c->peer);
}

static const struct sweep_ops get_request_ops = {
	.name = "GET_EVENTS (CONNECT_REQUEST)",
	.ioc = RDMACHAN_IOC_GET_EVENTS,
	.init = listener_init,
	.prepare = get_request_prepare,
	.done = get_request_done,
};

/* A new id whose ADDR_RESOLVED is read and not acked, in c->acks[0]. */
static void read_unacked_event(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	struct rdmachan_cm_event ev;

	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
	ASSERT_EQ(0, raw_resolve_addr(c->fd, c->id, raw_next_port()));
	ASSERT_EQ(0, raw_get_event(c->fd, &ev, EVENT_MS));
	ASSERT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, ev.event);
	c->acks[0] = ev.event_handle;
}

/* An event read and not acked, and a second one queued. */
static void get_acks_prepare(struct __test_metadata *_metadata,
			     struct ctx *c)
{
	read_unacked_event(_metadata, c);
	ASSERT_EQ(0, raw_id_cmd(c->fd, RDMACHAN_IOC_RESOLVE_ROUTE, c->id, 2000));
	ASSERT_TRUE(readable(c->fd, EVENT_MS));
	get_events_fill(c);
	c->arg.get.acks = (uintptr_t)c->acks;
	c->arg.get.num_acks = 1;
}

/*
 * A GET_EVENTS that failed after it took its acks says so by clearing
 * num_acks in the caller's struct: the ack's event is gone from the
 * expected state then.
 */
static void snap_acks_done(struct ctx *c, struct snap *s)
{
	char line[64], *p, *end, *rest;

	snprintf(line, sizeof(line), "unacked %u ", c->acks[0]);
	p = strstr(s->file[0], line);
	if (!p)
		return;
	end = strchrnul(p, '\n');
	rest = *end ? end + 1 : end;
	memmove(p, rest, strlen(rest) + 1);
	s->counters[CM_EVENTS]--;
}

static void get_acks_expect(struct ctx *c, struct snap *before)
{
	if (!c->arg.get.num_acks)
		snap_acks_done(c, before);
}

static void get_acks_done(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rdmachan_cm_event *ev = &c->ev[0];

	CHECK(raw_ack(c->fd, c->acks, 1) == ENOENT,
	      "the ack riding on GET_EVENTS was not taken");
	CHECK(c->arg.get.out_num_events == 1, "%u events",
	      c->arg.get.out_num_events);
	CHECK(ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED && ev->id_handle == c->id,
	      "got %s for id %u", rdma_event_str(ev->event), ev->id_handle);
	if (c->arg.get.out_num_events == 1)
		CHECK(!raw_ack(c->fd, &ev->event_handle, 1), "ACK fails");
	expect_quiet(_metadata, c, c->fd);
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops get_acks_ops = {
	.name = "GET_EVENTS (with an ack)",
	.ioc = RDMACHAN_IOC_GET_EVENTS,
	.expect = get_acks_expect,
	.prepare = get_acks_prepare,
	.done = get_acks_done,
};

/*
 * Acks only (max_events 0): the write that clears num_acks comes before
 * the ack is taken, so a fault there takes nothing.
 */
static void get_acks_only_prepare(struct __test_metadata *_metadata,
				  struct ctx *c)
{
	read_unacked_event(_metadata, c);
	get_events_fill(c);
	c->arg.get.max_events = 0;
	c->arg.get.acks = (uintptr_t)c->acks;
	c->arg.get.num_acks = 1;
}

static void get_acks_only_done(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	CHECK(!c->arg.get.num_acks, "num_acks %u after the ack was taken",
	      c->arg.get.num_acks);
	CHECK(raw_ack(c->fd, c->acks, 1) == ENOENT, "the ack was not taken");
	CHECK(!c->arg.get.out_num_events, "%u events",
	      c->arg.get.out_num_events);
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops get_acks_only_ops = {
	.name = "GET_EVENTS (acks only)",
	.ioc = RDMACHAN_IOC_GET_EVENTS,
	.expect = get_acks_expect,
	.prepare = get_acks_only_prepare,
	.done = get_acks_only_done,
};

static void ack_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	read_unacked_event(_metadata, c);
	c->arg.get.size = sizeof(c->arg.get);
	c->arg.get.acks = (uintptr_t)c->acks;
	c->arg.get.num_acks = 1;
}

static void ack_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(raw_ack(c->fd, c->acks, 1) == ENOENT, "the ack was not taken");
	destroy_ok(_metadata, c, c->fd, c->id);
}

static const struct sweep_ops ack_ops = {
	.name = "ACK_EVENTS",
	.ioc = RDMACHAN_IOC_ACK_EVENTS,
	.prepare = ack_prepare,
	.done = ack_done,
};

/* An id of the peer file, with an event queued, moves to fd. */
static void migrate_prepare(struct __test_metadata *_metadata, struct ctx *c)
{
	make_queued_event(_metadata, c->peer, &c->id);
	c->arg.migrate.size = sizeof(c->arg.migrate);
	c->arg.migrate.fd = c->peer;
	c->arg.migrate.handle = c->id;
}

static void migrate_done(struct __test_metadata *_metadata, struct ctx *c)
{
	__u32 handle = c->arg.migrate.out_handle;

	CHECK(handle != 0, "no handle");
	CHECK(raw_destroy(c->peer, c->id) == ENOENT,
	      "the id is still on the old file");
	expect_event(_metadata, c, c->fd, handle,
		     RDMA_CM_EVENT_ADDR_RESOLVED);
	expect_quiet(_metadata, c, c->peer);
	destroy_ok(_metadata, c, c->fd, handle);
}

static const struct sweep_ops migrate_ops = {
	.name = "MIGRATE_ID",
	.ioc = RDMACHAN_IOC_MIGRATE_ID,
	.prepare = migrate_prepare,
	.done = migrate_done,
};

/* Queries and options on an id that lives through the sweep */

static void routed_init(struct __test_metadata *_metadata, struct ctx *c)
{
	make_routed(_metadata, c->fd, raw_next_port(), &c->id);
}

/* A connect request's id: its attributes come from the IB CM. */
static void request_init(struct __test_metadata *_metadata, struct ctx *c)
{
	listener_init(_metadata, c);
	make_request(_metadata, c);
	c->id = c->server;
}

static void init_qp_attr_prepare(struct __test_metadata *_metadata,
				 struct ctx *c)
{
	c->arg.qpa.size = sizeof(c->arg.qpa);
	c->arg.qpa.handle = c->id;
	c->arg.qpa.qp_state = c->qp_state;
}

static void init_qp_attr_done(struct __test_metadata *_metadata,
			      struct ctx *c)
{
	CHECK(c->arg.qpa.out_attr_mask & IBV_QP_STATE, "mask %#x",
	      c->arg.qpa.out_attr_mask);
}

static const struct sweep_ops init_qp_attr_ops = {
	.name = "INIT_QP_ATTR (INIT)",
	.ioc = RDMACHAN_IOC_INIT_QP_ATTR,
	.init = routed_init,
	.prepare = init_qp_attr_prepare,
	.done = init_qp_attr_done,
};

static const struct sweep_ops init_qp_attr_rtr_ops = {
	.name = "INIT_QP_ATTR (RTR, connect request)",
	.ioc = RDMACHAN_IOC_INIT_QP_ATTR,
	.init = request_init,
	.prepare = init_qp_attr_prepare,
	.done = init_qp_attr_done,
};

static void idle_init(struct __test_metadata *_metadata, struct ctx *c)
{
	ASSERT_EQ(0, raw_create_id(c->fd, RDMA_PS_TCP, 0, &c->id));
}

static void set_option_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	c->arg.opt.size = sizeof(c->arg.opt);
	c->arg.opt.handle = c->id;
	c->arg.opt.level = RDMA_OPTION_ID;
	c->arg.opt.optname = c->optname;
	c->arg.opt.value = c->optname == RDMA_OPTION_ID_TOS ? 32 : 1;
}

#define SET_OPTION_OPS(_name, _optname)					\
static const struct sweep_ops set_option_##_name##_ops = {		\
	.name = "SET_OPTION (" _optname ")",				\
	.ioc = RDMACHAN_IOC_SET_OPTION,					\
	.init = idle_init,						\
	.prepare = set_option_prepare,					\
	.done = nothing_done,						\
}
SET_OPTION_OPS(tos, "TOS");
SET_OPTION_OPS(reuseaddr, "REUSEADDR");
SET_OPTION_OPS(afonly, "AFONLY");
SET_OPTION_OPS(ack_timeout, "ACK_TIMEOUT");

/* Destroy */

static void destroy_fill(struct ctx *c, __u32 handle)
{
	c->arg.destroy.size = sizeof(c->arg.destroy);
	c->arg.destroy.handle = handle;
}

static void destroy_context_prepare(struct __test_metadata *_metadata,
				    struct ctx *c)
{
	c->id = rdmachan_open_context(c->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, c->id);
	destroy_fill(c, c->id);
}

static void destroy_context_done(struct __test_metadata *_metadata,
				 struct ctx *c)
{
	CHECK(rdmachan_query_port(c->fd, c->id, 1) == ENOENT,
	      "the context is still there");
}

static const struct sweep_ops destroy_context_ops = {
	.name = "DESTROY (device context)",
	.ioc = RDMACHAN_IOC_DESTROY,
	.prepare = destroy_context_prepare,
	.done = destroy_context_done,
};

static void destroy_id_prepare(struct __test_metadata *_metadata,
			       struct ctx *c)
{
	make_queued_event(_metadata, c->fd, &c->id);
	destroy_fill(c, c->id);
}

static void destroy_id_done(struct __test_metadata *_metadata, struct ctx *c)
{
	CHECK(raw_destroy(c->fd, c->id) == ENOENT, "the id is still there");
	expect_quiet(_metadata, c, c->fd);
}

static const struct sweep_ops destroy_id_ops = {
	.name = "DESTROY (id with a queued event)",
	.ioc = RDMACHAN_IOC_DESTROY,
	.prepare = destroy_id_prepare,
	.done = destroy_id_done,
};

/* A listener with an unread request: its new id goes, which rejects it. */
static void destroy_listener_prepare(struct __test_metadata *_metadata,
				     struct ctx *c)
{
	make_listener(_metadata, c->fd, &c->listen, &c->port);
	make_routed(_metadata, c->peer, c->port, &c->client);
	ASSERT_EQ(0, raw_connect(c->peer, RDMACHAN_IOC_CONNECT, c->client,
				 "fail-nth"));
	ASSERT_TRUE(readable(c->fd, EVENT_MS));
	destroy_fill(c, c->listen);
}

static void destroy_listener_done(struct __test_metadata *_metadata,
				  struct ctx *c)
{
	struct rdmachan_cm_event ev;
	int err;

	CHECK(raw_destroy(c->fd, c->listen) == ENOENT,
	      "the listener is still there");
	expect_quiet(_metadata, c, c->fd);
	err = raw_get_event(c->peer, &ev, c->absorbed ? 500 : EVENT_MS);
	if (!err)
		raw_ack(c->peer, &ev.event_handle, 1);
	/* With a fault in the REJ's allocation the CM stays silent. */
	if (!c->absorbed || !err)
		CHECK(!err && ev.event == RDMA_CM_EVENT_REJECTED,
		      "the client got %s",
		      err ? strerror(err) : rdma_event_str(ev.event));
	destroy_ok(_metadata, c, c->peer, c->client);
	CHECK(read_key_value(c->dbg[0], "cm_ids") == 0,
	      "the request's new id is left");
}

static const struct sweep_ops destroy_listener_ops = {
	.name = "DESTROY (listener, unread request)",
	.ioc = RDMACHAN_IOC_DESTROY,
	.prepare = destroy_listener_prepare,
	.done = destroy_listener_done,
};

/* An established connection's passive id: the CM sends a DREQ. */
static void destroy_connected_prepare(struct __test_metadata *_metadata,
				      struct ctx *c)
{
	make_request(_metadata, c);
	ASSERT_EQ(0, raw_connect(c->fd, RDMACHAN_IOC_ACCEPT, c->server, NULL));
	ASSERT_EQ(0, raw_expect(c->peer, c->client,
				RDMA_CM_EVENT_CONNECT_RESPONSE, NULL));
	ASSERT_EQ(0, raw_id_cmd(c->peer, RDMACHAN_IOC_ESTABLISH, c->client, 0));
	ASSERT_EQ(0, raw_expect(c->fd, c->server, RDMA_CM_EVENT_ESTABLISHED,
				NULL));
	destroy_fill(c, c->server);
}

static void destroy_connected_done(struct __test_metadata *_metadata,
				   struct ctx *c)
{
	struct rdmachan_cm_event ev;
	int err;

	CHECK(raw_destroy(c->fd, c->server) == ENOENT,
	      "the id is still there");
	err = raw_get_event(c->peer, &ev, c->absorbed ? 500 : EVENT_MS);
	if (!err)
		raw_ack(c->peer, &ev.event_handle, 1);
	/* With a fault in the DREQ's allocation the CM stays silent. */
	if (!c->absorbed || !err)
		CHECK(!err && ev.event == RDMA_CM_EVENT_DISCONNECTED,
		      "the peer got %s",
		      err ? strerror(err) : rdma_event_str(ev.event));
	destroy_ok(_metadata, c, c->peer, c->client);
	expect_quiet(_metadata, c, c->fd);
}

static const struct sweep_ops destroy_connected_ops = {
	.name = "DESTROY (connected id)",
	.ioc = RDMACHAN_IOC_DESTROY,
	.init = listener_init,
	.prepare = destroy_connected_prepare,
	.done = destroy_connected_done,
};

SWEEP_TEST(open_device, open_device_ops)
SWEEP_TEST(query_device, query_device_ops)
SWEEP_TEST(query_port, query_port_ops)
SWEEP_TEST(query_gid, query_gid_ops)
SWEEP_TEST(create_id, create_id_ops)
SWEEP_TEST(bind_addr, bind_ops)
SWEEP_TEST(bind_addr_port, bind_port_ops)
SWEEP_TEST(resolve_addr, resolve_addr_ops)
SWEEP_TEST(resolve_route, resolve_route_ops)
SWEEP_TEST(listen, listen_ops)
SWEEP_TEST(listen_unbound, listen_any_ops)
SWEEP_TEST(connect, connect_ops)
SWEEP_TEST(accept, accept_ops)
SWEEP_TEST(reject, reject_ops)
SWEEP_TEST(establish, establish_ops)
SWEEP_TEST(disconnect, disconnect_ops)
SWEEP_TEST(notify, notify_ops)
SWEEP_TEST(get_events, get_events_ops)
SWEEP_TEST(get_events_connect_request, get_request_ops)
SWEEP_TEST(get_events_with_ack, get_acks_ops)
SWEEP_TEST(get_events_acks_only, get_acks_only_ops)
SWEEP_TEST(ack_events, ack_ops)
SWEEP_TEST(migrate_id, migrate_ops)

TEST_F_TIMEOUT(failnth, init_qp_attr, SWEEP_TIMEOUT_S)
{
	self->c.qp_state = IBV_QPS_INIT;
	sweep(_metadata, &self->c, &init_qp_attr_ops);
}

TEST_F_TIMEOUT(failnth, init_qp_attr_rtr, SWEEP_TIMEOUT_S)
{
	self->c.qp_state = IBV_QPS_RTR;
	sweep(_metadata, &self->c, &init_qp_attr_rtr_ops);
}

TEST_F_TIMEOUT(failnth, set_option, SWEEP_TIMEOUT_S)
{
	self->c.optname = RDMA_OPTION_ID_TOS;
	sweep(_metadata, &self->c, &set_option_tos_ops);
	if (_metadata->skip)
		return;
	self->c.optname = RDMA_OPTION_ID_REUSEADDR;
	sweep(_metadata, &self->c, &set_option_reuseaddr_ops);
	self->c.optname = RDMA_OPTION_ID_AFONLY;
	sweep(_metadata, &self->c, &set_option_afonly_ops);
	self->c.optname = RDMA_OPTION_ID_ACK_TIMEOUT;
	sweep(_metadata, &self->c, &set_option_ack_timeout_ops);
}

SWEEP_TEST(destroy_context, destroy_context_ops)
SWEEP_TEST(destroy_id, destroy_id_ops)
SWEEP_TEST(destroy_listener, destroy_listener_ops)
SWEEP_TEST(destroy_connected, destroy_connected_ops)

TEST_HARNESS_MAIN
