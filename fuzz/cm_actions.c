// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: the CM id calls: create, bind, resolve, listen, connect,
 * accept, reject, establish, disconnect, options, QP attributes.
 */
#include "fuzz.h"

void act_create_id(struct thr *t, int role)
{
	static const u32 ps[] = { RDMA_PS_TCP, RDMA_PS_TCP, RDMA_PS_TCP,
				  RDMA_PS_UDP, RDMA_PS_UDP, RDMA_PS_IPOIB,
				  RDMA_PS_IB };
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi = pick_file(t);
	u32 p;

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	if (f->nids >= MAX_IDS)
		return;
	call_init(&c, RDMACHAN_CMD_CREATE_ID, fi, f->gen, pick_fd(t, f));
	p = ps[rnd(t, ARRAY_SIZE(ps))];
	if (role < 0)
		role = !listener_port(t, p) && chance(t, 60) ? R_LISTENER :
		       chance(t, 25) ? R_LISTENER : R_CLIENT;
	c.a.create_id.port_space = p;
	c.a.create_id.qp_type = p == RDMA_PS_TCP ? IBV_QPT_RC :
				p == RDMA_PS_IB && chance(t, 50) ? IBV_QPT_RC :
				IBV_QPT_UD;
	c.a.create_id.user_context = rnd64(t);
	c.ok = ES(0, ENOMEM);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		if (chance(t, 50)) {
			c.a.create_id.qp_type = p == RDMA_PS_TCP ? IBV_QPT_UD :
						p == RDMA_PS_IB ? 7 : IBV_QPT_RC;
		} else {
			c.a.create_id.port_space = 0x4242 + rnd(t, 100);
		}
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, NULL);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback) {
		u32 h = c.a.create_id.out_handle;

		if (!h || hist_get(f, h))
			fail(t, "%s: new handle %u is not fresh", c.desc, h);
		o = obj_add(t->w, f, h, false);
		journal(t->w, "t%d create f%d h %u uctx %#llx", t->idx, fi, h,
			(unsigned long long)c.a.create_id.user_context);
		if (o) {
			o->state = S_NEW;
			o->role = role;
			o->ps = p;
			o->uctx = o->prev_uctx = c.a.create_id.user_context;
		}
	}
	unpin(f);
}

static void set_in(struct __kernel_sockaddr_storage *ss, struct in_addr a,
		   u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = port;
	sin->sin_addr = a;
}

/* An address to bind to or resolve; mostly the test address. */
static void some_addr(struct thr *t, struct __kernel_sockaddr_storage *ss,
		      u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct in_addr a = cfg.addr;
	u32 r = cfg.only_test_addr ? 0 : rnd(t, 100);

	if (r < 82) {
		set_in(ss, a, port);
	} else if (r < 87) {
		a.s_addr = htonl(INADDR_LOOPBACK);
		set_in(ss, a, port);
	} else if (r < 91) {
		/* nobody there: the dummy netdev swallows it */
		a.s_addr = htonl((ntohl(cfg.addr.s_addr) & ~0xffu) | (100 + rnd(t, 100)));
		set_in(ss, a, port);
	} else if (r < 95) {
		memset(ss, 0, sizeof(*ss));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		sin6->sin6_addr = in6addr_loopback;
	} else {
		/* AF_IB, sockaddr_ib: family, pkey, flowinfo, gid, sid... */
		memset(ss, 0, sizeof(*ss));
		ss->ss_family = AF_IB;
		((u8 *)ss)[2] = 0xff;
		((u8 *)ss)[3] = 0xff;
		((u8 *)ss)[8] = 0xfe;
		((u8 *)ss)[9] = 0x80;
		((u8 *)ss)[23] = rnd(t, 256);
	}
}

static struct mobj *pick_id(struct thr *t, int *fip, u32 states)
{
	int fi;

	if (t->force) {
		struct mobj *o = t->force;

		t->force = NULL;
		*fip = t->force_fi;
		return o;
	}
	fi = pick_file(t);

	*fip = fi;
	if (fi < 0)
		return NULL;
	return pick_obj(t, &t->w->files[fi], false, states, false);
}

#define ST(s)	(1u << (s))

void act_bind(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, chance(t, 85) ? ST(S_NEW) : 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_BIND_ADDR, fi, f->gen, pick_fd(t, f));
	c.a.bind_addr.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	if (o->role == R_LISTENER || chance(t, 85))
		set_in(&c.a.bind_addr.addr, cfg.addr, 0);
	else if (chance(t, 30) && !cfg.only_test_addr)
		set_in(&c.a.bind_addr.addr, (struct in_addr){ 0 }, 0);
	else
		some_addr(t, &c.a.bind_addr.addr, htons(20000 + rnd(t, 20000)));
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 6)) {
		c.fault = F_VALUE;
		c.a.bind_addr.addr.ss_family = chance(t, 50) ? 0 : AF_UNIX;
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    (!c.ret || (c.fault == F_ARG_READONLY && c.err == EFAULT))) {
		struct sockaddr_in *sin =
			(struct sockaddr_in *)&c.a.bind_addr.out_route.src_addr;

		if (o->used && o->handle == field32(&c, 8) && o->state == S_NEW)
			o->state = S_BOUND;
		if (!c.ret && c.readback && o->used && sin->sin_family == AF_INET &&
		    sin->sin_addr.s_addr == cfg.addr.s_addr) {
			o->port = sin->sin_port;
			o->has_port = true;
			if (!sin->sin_port)
				fail(t, "%s: bound to port 0", c.desc);
			if (c.a.bind_addr.out_route.device_index != cfg.dev_index)
				fail(t, "%s: bound to device %u, not %u", c.desc,
				     c.a.bind_addr.out_route.device_index,
				     cfg.dev_index);
		}
	}
	unpin(f);
}

/* A listener of the worker's with port space @ps: its port, or 0. */
u16 listener_port(struct thr *t, u32 ps)
{
	u16 ports[MAX_FILES * MAX_OBJS];
	int fi, i, n = 0;

	for (fi = 0; fi < MAX_FILES; fi++) {
		struct mfile *f = &t->w->files[fi];

		if (f->state == FS_CLOSED)
			continue;
		for (i = 0; i < MAX_OBJS; i++) {
			struct mobj *o = &f->objs[i];

			if (o->used && !o->ctx && o->state == S_LISTEN &&
			    o->has_port && o->ps == ps)
				ports[n++] = o->port;
		}
	}
	return n ? ports[rnd(t, n)] : 0;
}

void act_resolve_addr(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	u16 port;
	int fi;

	o = pick_id(t, &fi, chance(t, 85) ? ST(S_NEW) | ST(S_BOUND) : 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_RESOLVE_ADDR, fi, f->gen, pick_fd(t, f));
	c.a.resolve_addr.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.resolve_addr.timeout_ms = chance(t, 5) ? rnd(t, 10) : 300 + rnd(t, 3000);
	port = listener_port(t, o->ps);
	if (port && (o->role == R_CLIENT || chance(t, 85)))
		set_in(&c.a.resolve_addr.dst_addr, cfg.addr, port);
	else
		some_addr(t, &c.a.resolve_addr.dst_addr,
			  htons(20000 + rnd(t, 20000)));
	if (chance(t, 10))
		set_in(&c.a.resolve_addr.src_addr, cfg.addr, 0);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 6)) {
		c.fault = F_VALUE;
		if (chance(t, 50))
			c.a.resolve_addr.dst_addr.ss_family = 0;
		else
			c.a.resolve_addr.src_addr.ss_family = AF_UNIX;
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.resolve_addr.handle)
		o->state = S_ADDR_QUERY;
	unpin(f);
}

/*
 * Would the call make the CM send a REJ while the id's own REQ or REP is
 * still outstanding? 6.1's ib_cm does not cancel that MAD, and destroying
 * or closing the id then waits, uninterruptibly, until the MAD's retries
 * run out (70 to 100 s). Left out unless -k.
 */
static bool risky(struct mobj *o, int cmd)
{
	if (cfg.known_slow)
		return false;
	if (o->cm_busy)
		return true;
	switch (cmd) {
	case RDMACHAN_CMD_ACCEPT:
	case RDMACHAN_CMD_REJECT:
	case RDMACHAN_CMD_ESTABLISH:
		/*
		 * The CM would reject with its own REQ or REP still out; the
		 * module refuses such an answer (EINVAL), which is under test.
		 */
		return false;
	case RDMACHAN_CMD_NOTIFY:
		/*
		 * COMM_EST on an accepted request establishes the CM id before
		 * the REP is cancelled; a DREQ then takes the REP's place.
		 */
		return o->role == R_SERVER && o->accepted &&
		       o->state != S_CONNECTED && o->state != S_DISCONNECTED &&
		       o->state != S_FAILED;
	default:
		return false;
	}
}

/* Marks @o busy with a CM call; returns its handle to find it again. */
static u32 cm_begin(struct mobj *o, int cmd)
{
	o->cm_busy = true;
	if (cmd == RDMACHAN_CMD_ACCEPT && o->role == R_SERVER)
		o->accepted = true;
	return o->handle;
}

static void cm_end(struct mfile *f, u32 h)
{
	struct mobj *o = obj_find(f, h);

	if (o)
		o->cm_busy = false;
}

/* The id commands that take one value: route, listen, disconnect, ... */
void act_id_cmd(struct thr *t, int cmd)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	u32 states = 0, busy;
	int fi, next = -1;

	switch (cmd) {
	case RDMACHAN_CMD_RESOLVE_ROUTE:
		states = ST(S_ADDR_RESOLVED);
		next = S_ROUTE_QUERY;
		break;
	case RDMACHAN_CMD_LISTEN:
		states = ST(S_BOUND);
		next = S_LISTEN;
		break;
	case RDMACHAN_CMD_DISCONNECT:
		states = ST(S_CONNECTED) | ST(S_ACCEPTED) | ST(S_RESPONDED) |
			 ST(S_CONNECTING) | ST(S_DISCONNECTED);
		break;
	case RDMACHAN_CMD_ESTABLISH:
		states = ST(S_RESPONDED);
		next = S_CONNECTED;
		break;
	default:
		states = ST(S_CONNECTED);
		break;
	}
	o = pick_id(t, &fi, chance(t, 85) ? states : 0);
	if (!o || ((cmd == RDMACHAN_CMD_ESTABLISH || cmd == RDMACHAN_CMD_NOTIFY) &&
		   risky(o, cmd)))
		return;
	f = &t->w->files[fi];
	call_init(&c, cmd, fi, f->gen, pick_fd(t, f));
	c.a.id_cmd.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.ok = cm_errs(cmd);
	es_add(&c.ok, 0);
	switch (cmd) {
	case RDMACHAN_CMD_RESOLVE_ROUTE:
		c.a.id_cmd.value = 300 + rnd(t, 3000);
		if (chance(t, 8)) {
			c.fault = F_VALUE;
			c.a.id_cmd.value = -1 - (int)rnd(t, 0x7fffffff);
			c.ok = ES(EINVAL);
		}
		break;
	case RDMACHAN_CMD_LISTEN:
		c.a.id_cmd.value = chance(t, 20) ? -(int)rnd(t, 3) :
				   chance(t, 5) ? 2000 + (int)rnd(t, 1000) :
				   1 + (int)rnd(t, 16);
		break;
	case RDMACHAN_CMD_NOTIFY:
		/* the only event the module passes on (PATH_MIG leaks in the CM) */
		c.a.id_cmd.value = IBV_EVENT_COMM_EST;
		if (chance(t, 15)) {
			c.fault = F_VALUE;
			c.a.id_cmd.value = chance(t, 30) ? 19 + (int)rnd(t, 1000) :
					   chance(t, 30) ? -1 - (int)rnd(t, 1000) :
					   chance(t, 50) ? IBV_EVENT_PATH_MIG :
					   (int)rnd(t, IBV_EVENT_COMM_EST);
			c.ok = ES(EINVAL);
		}
		break;
	default:
		if (chance(t, 8)) {
			c.fault = F_VALUE;
			c.a.id_cmd.value = 1 + rnd(t, 1000);
			c.ok = ES(EINVAL);
		}
		break;
	}
	pin(f);
	inject(t, &c, f);
	busy = (cmd == RDMACHAN_CMD_ESTABLISH || cmd == RDMACHAN_CMD_NOTIFY) &&
	       benign(&c) ? cm_begin(o, cmd) : 0;
	do_call(t, &c, 0, 0);
	if (busy)
		cm_end(f, busy);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.id_cmd.handle && next >= 0)
		o->state = next;
	unpin(f);
}

static void conn_param(struct thr *t, struct rdmachan_conn_param *p,
		       bool random_len)
{
	u32 len = random_len && chance(t, 5) ? rnd(t, 256) :
		  chance(t, 60) ? rnd(t, 57) : 0;
	u32 i;

	/* the CM refuses a QPN pair it still remembers: keep them apart */
	p->qp_num = ((getpid() & 0x3ff) << 14 | (++t->w->qpn & 0x3fff)) & 0xffffff;
	if (!p->qp_num)
		p->qp_num = 1;
	p->responder_resources = rnd(t, 3);
	p->initiator_depth = rnd(t, 3);
	p->flow_control = rnd(t, 2);
	p->retry_count = rnd(t, 8);
	p->rnr_retry_count = rnd(t, 8);
	p->private_data_len = len;
	for (i = 0; i < len; i++)
		p->private_data[i] = rnd(t, 256);
}

void act_connect(struct thr *t, int cmd)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	u32 busy;
	int fi;

	o = pick_id(t, &fi, chance(t, 85) ?
		    (cmd == RDMACHAN_CMD_CONNECT ? ST(S_ROUTE_RESOLVED) : ST(S_REQ)) : 0);
	if (!o || risky(o, cmd))
		return;
	f = &t->w->files[fi];
	call_init(&c, cmd, fi, f->gen, pick_fd(t, f));
	c.a.connect.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	conn_param(t, &c.a.connect.conn, true);
	if (cmd == RDMACHAN_CMD_ACCEPT) {
		c.a.connect.user_context = rnd64(t);
		/* events read while the accept runs may carry it already */
		o->pending_uctx = c.a.connect.user_context;
	}
	c.ok = cm_errs(cmd);
	es_add(&c.ok, 0);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		if (cmd == RDMACHAN_CMD_CONNECT && chance(t, 50))
			c.a.connect.user_context = 1 + rnd64(t) % 0xffffffff;
		else
			c.a.connect.conn.__reserved = 1 + rnd(t, 255);
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	busy = benign(&c) ? cm_begin(o, cmd) : 0;
	do_call(t, &c, 0, 0);
	if (busy)
		cm_end(f, busy);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.connect.handle) {
		if (cmd == RDMACHAN_CMD_CONNECT) {
			o->state = S_CONNECTING;
		} else {
			o->state = o->ps == RDMA_PS_TCP ? S_ACCEPTED : S_CONNECTED;
			o->prev_uctx = o->uctx;
			o->uctx = c.a.connect.user_context;
		}
	} else if (cmd == RDMACHAN_CMD_ACCEPT && c.ret && c.ran && o->used &&
		   o->handle == c.a.connect.handle && c.fault == F_NONE &&
		   o->state == S_REQ) {
		/* a failed accept rejects the request in the CM */
		o->state = S_FAILED;
	}
	unpin(f);
}

void act_reject(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;
	u32 i, busy;

	o = pick_id(t, &fi, chance(t, 85) ? ST(S_REQ) | ST(S_RESPONDED) : 0);
	if (!o || risky(o, RDMACHAN_CMD_REJECT))
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_REJECT, fi, f->gen, pick_fd(t, f));
	c.a.reject.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.reject.reason = chance(t, 60) ? 0 : chance(t, 50) ? 28 : 35;
	c.a.reject.private_data_len = chance(t, 50) ? rnd(t, 149) : 0;
	for (i = 0; i < c.a.reject.private_data_len; i++)
		c.a.reject.private_data[i] = rnd(t, 256);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		if (chance(t, 50))
			c.a.reject.reason = 36 + rnd(t, 1000);
		else
			c.a.reject.private_data_len = 256 + rnd(t, 100000);
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	busy = benign(&c) ? cm_begin(o, RDMACHAN_CMD_REJECT) : 0;
	do_call(t, &c, 0, 0);
	if (busy)
		cm_end(f, busy);
	if (!c.ret && c.ran && !c.handle_unsure && c.fault < F_HANDLE_ZERO &&
	    o->used && o->handle == c.a.reject.handle)
		o->state = S_FAILED;
	unpin(f);
}

void act_set_option(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_SET_OPTION, fi, f->gen, pick_fd(t, f));
	c.a.set_option.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.set_option.optname = rnd(t, 4);
	c.a.set_option.value = c.a.set_option.optname == 1 ||
			       c.a.set_option.optname == 2 ? rnd(t, 3) : rnd(t, 256);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	/* an ACK timeout has 5 bits: refused before the id is looked up */
	if (c.a.set_option.optname == 3 && c.a.set_option.value > 31) {
		c.fault = F_VALUE;
		c.ok = ES(EINVAL);
	}
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		switch (rnd(t, 3)) {
		case 0:
			c.a.set_option.level = 1 + rnd(t, 1000);
			c.ok = ES(ENOPROTOOPT);
			break;
		case 1:
			c.a.set_option.optname = 4 + rnd(t, 1000);
			c.ok = ES(ENOPROTOOPT);
			break;
		default:
			c.a.set_option.optname = chance(t, 50) ? 0 : 3;
			c.a.set_option.value = 256 + rnd64(t) % 0xffffffffff;
			c.ok = ES(EINVAL);
			break;
		}
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unpin(f);
}

/* Bypass mode's binding of a uverbs QP: with fds and numbers at random. */
void act_bind_user_qp(struct thr *t)
{
	struct rdmachan_bind_user_qp *a;
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_BIND_USER_QP, fi, f->gen, pick_fd(t, f));
	a = &c.a.bind_user_qp;
	a->handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	if (chance(t, 20)) {
		a->flags = RDMACHAN_BIND_USER_QP_UNBIND;
	} else {
		a->uverbs_fd = chance(t, 50) ? pick_fd(t, f) : (int)rnd(t, 64) - 1;
		a->qp_num = rnd(t, 1 << 24);
	}
	c.ok = cm_errs(c.cmd);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unpin(f);
}

/*
 * Introspection of a file's CM events, of one id or all: it changes
 * nothing, so only its errors and its counts are checked.
 */
void act_query_events(struct thr *t)
{
	const u32 ssize = sizeof(struct rdmachan_event_state);
	struct rdmachan_query_events *a;
	struct mfile *f;
	struct mobj *o = NULL;
	struct call c;
	u32 max;
	int fi;

	if (chance(t, 50))
		o = pick_id(t, &fi, 0);
	if (!o)
		fi = pick_file(t);
	if (fi < 0)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_QUERY_EVENTS, fi, f->gen, pick_fd(t, f));
	a = &c.a.query_events;
	a->id_handle = o ? o->handle : chance(t, 50) ? 0 : rnd(t, 64);
	max = chance(t, 95) ? rnd(t, 9) : RDMACHAN_MAX_EVENT_STATES + rnd(t, 4);
	a->max_states = max;
	a->state_size = chance(t, 90) ? ssize : rnd(t, 2 * ssize);
	/* right-aligned: writing past max_states runs into the guard page */
	if (max <= RDMACHAN_MAX_EVENT_STATES && a->state_size &&
	    (u64)max * a->state_size <= ARENA_LEN)
		a->states = (uintptr_t)(t->bufmap + ARENA_LEN -
					max * a->state_size);
	if (chance(t, 5))
		a->states = chance(t, 50) ? 8 : (uintptr_t)t->ro_view;
	c.handle_unsure = true;
	c.ok = ES(0, ENOENT, EINVAL, EFAULT);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback && c.a.query_events.out_num_states > max)
		fail(t, "%s: %u states for at most %u", c.desc,
		     c.a.query_events.out_num_states, max);
	unpin(f);
}

void act_init_qp_attr(struct thr *t)
{
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi;

	o = pick_id(t, &fi, 0);
	if (!o)
		return;
	f = &t->w->files[fi];
	call_init(&c, RDMACHAN_CMD_INIT_QP_ATTR, fi, f->gen, pick_fd(t, f));
	c.a.init_qp_attr.handle = o->handle;
	c.target = o->handle;
	c.tstate = o->ctx ? -1 : o->state;
	c.tps = o->ps;
	c.a.init_qp_attr.qp_state = rnd(t, 7);
	c.ok = cm_errs(c.cmd);
	es_add(&c.ok, 0);
	if (chance(t, 8)) {
		c.fault = F_VALUE;
		c.a.init_qp_attr.qp_state = 7 + rnd(t, 1000);
		c.ok = ES(EINVAL);
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unpin(f);
}
