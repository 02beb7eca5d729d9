// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: asynchronous events (RDMACHAN_FEATURE_ASYNC_EVENTS).
 *
 * The worker opens async event files of its device contexts (a second
 * open of one context's is EBUSY), reads them blocking (interrupted by a
 * timer), non-blocking or O_NONBLOCK, closes them, also while a read
 * blocks on one, and acknowledges what it read: right, an event type
 * never read or read and acked already (EINVAL), on handles that are no
 * QP, CQ or SRQ of the file (ENOENT). The events come from the device:
 * CQ overflows (CQ_ERR), SRQ limits, QP errors.
 *
 * A destroy of a QP, CQ or SRQ waits for the acks of its events read: the
 * model acks them first, or leaves them to another thread, which acks
 * them when they are due (async_ack_due) while the destroy waits. An
 * event read of an object being destroyed is acked at once.
 *
 * Checked: each event's element, handle, port and user_context against
 * the object the model has, of the context the file is of; ENODEV only
 * once the context or its file is gone; a destroy never returns while an
 * event of its object read is not acknowledged; the acks' errnos.
 */
#include "fuzz.h"

/* What an event of @type is about (enum rdmachan_async_element); 0: none. */
static u32 element_of(u32 type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return RDMACHAN_ASYNC_ELEMENT_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return RDMACHAN_ASYNC_ELEMENT_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return RDMACHAN_ASYNC_ELEMENT_SRQ;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return RDMACHAN_ASYNC_ELEMENT_PORT;
	case IBV_EVENT_DEVICE_FATAL:
		return RDMACHAN_ASYNC_ELEMENT_DEVICE;
	default:
		return 0;
	}
}

static int kind_of(u32 element)
{
	return element == RDMACHAN_ASYNC_ELEMENT_QP ? V_QP :
	       element == RDMACHAN_ASYNC_ELEMENT_CQ ? V_CQ : V_SRQ;
}

static bool has_async(const struct vobj *o)
{
	return o->kind == V_QP || o->kind == V_CQ || o->kind == V_SRQ;
}

static u32 unacked(const struct vobj *o)
{
	u32 n = 0, i;

	for (i = 0; i < ASYNC_TYPES; i++)
		n += o->aunacked[i];
	return n;
}

/* A read of the async file of @o's context may be in flight. */
static bool read_in_flight(struct worker *w, int fi, const struct mfile *f,
			   u32 ctx)
{
	int i;

	for (i = 0; i < MAX_ASYNC; i++) {
		const struct vasync *as = &w->asyncs[i];

		if (as->busy && as->fi == fi && as->gen == f->gen &&
		    as->ctx == ctx)
			return true;
	}
	return false;
}

/*
 * ACK_ASYNC_EVENT of @type for @o, claimed first so that no other thread
 * acks it too. With @hostile, the generic faults may spoil the call.
 * Returns whether it was acknowledged.
 */
static bool ack(struct thr *t, int fi, struct mfile *f, struct vobj *o,
		u32 type, bool hostile)
{
	struct call c;
	u32 h = o->handle;
	bool acked;

	call_init(&c, RDMACHAN_CMD_ACK_ASYNC_EVENT, fi, f->gen, pick_fd(t, f));
	c.a.ack_async_event.handle = h;
	c.a.ack_async_event.event_type = type;
	c.no_kfault = !hostile;
	o->aunacked[type]--;
	o->aclaimed++;
	name(&c, o);
	pin(f);
	if (hostile)
		inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	/* the faults that leave the call alone */
	acked = !c.ret && c.ran && !c.closing &&
		(c.fault == F_NONE || c.fault == F_SIZE_LONG_ZERO ||
		 c.fault == F_ARG_READONLY);
	if (vobj_find(f, h, -1) == o) {
		o->aclaimed--;
		if (!acked)
			o->aunacked[type]++;
	}
	if (acked)
		stat_add(ST_ASYNC_ACKS, 1);
	unpin(f);
	return acked;
}

/* Acks for events of @o that cannot have been read: EINVAL. */
static void ack_never_read(struct thr *t, int fi, struct mfile *f,
			   struct vobj *o, const char *what, u32 type)
{
	struct call c;

	call_init(&c, RDMACHAN_CMD_ACK_ASYNC_EVENT, fi, f->gen, pick_fd(t, f));
	c.a.ack_async_event.handle = o->handle;
	c.a.ack_async_event.event_type = type;
	c.fault = F_VALUE;
	c.why = what;
	c.ok = ES(EINVAL);
	name(&c, o);
	pin(f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (c.ret && c.err == EINVAL)
		stat_add(ST_ASYNC_ACKS_REFUSED, 1);
	unpin(f);
}

/* The context of @as is there, in a file that is open. */
static bool async_live(struct worker *w, const struct vasync *as)
{
	struct mfile *f = &w->files[as->fi];

	return f->gen == as->gen && f->state == FS_OPEN && ctx_live(f, as->ctx);
}

/*
 * Another file of @as's context may be its reader: open, closed while a
 * read held it, in a call of ours, or in a forked child.
 */
static bool async_held(struct worker *w, const struct vasync *as)
{
	int i;

	for (i = 0; i < MAX_ASYNC; i++) {
		const struct vasync *o = &w->asyncs[i];

		if (o != as && (o->used || o->busy) && o->fi == as->fi &&
		    o->gen == as->gen && o->ctx == as->ctx)
			return true;
	}
	return w->forks > 0;
}

/*
 * OPEN_ASYNC_FD of context @ctx of file @fi; with @quiet, not when the
 * model has one open for it already (the library's way).
 */
void open_async(struct thr *t, int fi, struct mobj *ctx, bool quiet)
{
	struct worker *w = t->w;
	struct mfile *f = &w->files[fi];
	struct vasync *as = NULL, *open = NULL;
	struct call c;
	int i, fdfl;
	bool held;

	for (i = 0; i < MAX_ASYNC; i++) {
		struct vasync *o = &w->asyncs[i];

		if (o->used && o->fi == fi && o->gen == f->gen &&
		    o->ctx == ctx->handle)
			open = o;
		if (!as && !o->used && !o->busy)
			as = o;
	}
	/* one of a context that is gone makes room */
	for (i = 0; i < MAX_ASYNC && !as; i++) {
		struct vasync *o = &w->asyncs[i];

		if (o->used && !o->busy && !async_live(w, o)) {
			close(o->fd);
			memset(o, 0, sizeof(*o));
			stat_add(ST_ASYNC_FDS_CLOSED, 1);
			as = o;
		}
	}
	if (!as || (quiet && open))
		return;
	if (as->stale) {
		close(as->fd);
		as->stale = false;
	}
	call_init(&c, RDMACHAN_CMD_OPEN_ASYNC_FD, fi, f->gen, pick_fd(t, f));
	c.a.open_async_fd.context = ctx->handle;
	c.target = ctx->handle;
	c.tstate = -1;
	/* EBUSY and success are checked below: others may open or close */
	c.ok = ES(0, EBUSY, EMFILE, ENOMEM);
	/* the slot is this call's until it returns, and says for what */
	as->busy++;
	as->fi = fi;
	as->gen = f->gen;
	as->ctx = ctx->handle;
	held = async_held(w, as);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	as->busy--;
	if (!c.ret && open && open->used && open->fi == fi &&
	    open->gen == c.gen && open->ctx == as->ctx)
		fail(t, "%s: a second async event file of context %u; fd %d is open",
		     c.desc, as->ctx, open->fd);
	if (c.ret && c.err == EBUSY && !open && !held && !async_held(w, as))
		fail(t, "%s: EBUSY while no async event file of context %u is open",
		     c.desc, as->ctx);
	if (!c.ret && c.readback) {
		int fd = c.a.open_async_fd.out_fd;

		fdfl = fcntl(fd, F_GETFD);
		if (fd < 0 || fdfl < 0 || !(fdfl & FD_CLOEXEC))
			fail(t, "%s: out_fd %d is not a close-on-exec descriptor",
			     c.desc, fd);
		if (fd >= 0 && fdfl >= 0) {
			memset(as, 0, sizeof(*as));
			as->used = true;
			as->fd = fd;
			as->fi = fi;
			as->gen = c.gen;
			as->ctx = c.a.open_async_fd.context;
			if (chance(t, 20)) {
				fcntl(fd, F_SETFL, O_NONBLOCK);
				as->nonblock = true;
			}
			stat_add(ST_ASYNC_FDS, 1);
		}
	}
	unpin(f);
}

void act_open_async(struct thr *t)
{
	struct mobj *ctx;
	int fi = pick_file(t);

	if (fi < 0)
		return;
	ctx = pick_obj(t, &t->w->files[fi], true, 0, false);
	if (ctx)
		open_async(t, fi, ctx, false);
}

/* A random async event file that is open, mostly of a live context. */
static struct vasync *pick_async(struct thr *t)
{
	struct vasync *pick[MAX_ASYNC];
	bool any = chance(t, 20);
	int i, n = 0;

	for (i = 0; i < MAX_ASYNC; i++)
		if (t->w->asyncs[i].used &&
		    (any || async_live(t->w, &t->w->asyncs[i])))
			pick[n++] = &t->w->asyncs[i];
	return n ? pick[rnd(t, n)] : NULL;
}

/* Closed, maybe while reads block on it: they hold the file. */
void act_close_async(struct thr *t)
{
	struct worker *w = t->w;
	struct vasync *as = &w->asyncs[rnd(t, MAX_ASYNC)];

	/* no call but a blocked read may lose the fd */
	if (!as->used || as->busy != as->blocked)
		return;
	/* the fd number stays taken (by /dev/null, ENOTTY) while calls may use it */
	dup2(w->nullfd, as->fd);
	as->used = false;
	as->stale = true;
	stat_add(ST_ASYNC_FDS_CLOSED, 1);
}

/* An event read on @as: what the model has of its object. */
static void take(struct thr *t, const struct call *c, int fi, int gen,
		 u32 ctx, const struct rdmachan_get_async_event *a)
{
	struct mfile *f = &t->w->files[fi];
	u32 type = a->out_event_type, el = element_of(type), h = a->out_handle;
	struct vobj *o;

	if (!el || a->out_element != el) {
		fail(t, "%s: event type %u with element %u", c->desc, type,
		     a->out_element);
		return;
	}
	if (el == RDMACHAN_ASYNC_ELEMENT_PORT ||
	    el == RDMACHAN_ASYNC_ELEMENT_DEVICE) {
		if (h || a->out_user_context ||
		    a->out_port_num != (el == RDMACHAN_ASYNC_ELEMENT_PORT))
			fail(t, "%s: event %u of port %u has handle %u, user_context %#llx",
			     c->desc, type, a->out_port_num, h,
			     (unsigned long long)a->out_user_context);
		return;
	}
	if (a->out_port_num)
		fail(t, "%s: event %u of handle %u has port %u", c->desc, type,
		     h, a->out_port_num);
	/* the file was closed and its slot taken again */
	if (f->gen != gen) {
		stat_add(ST_ASYNC_EVENTS_STALE, 1);
		return;
	}
	o = vobj_find(f, h, kind_of(el));
	if (!o) {
		/* an object the model had no room for */
		if (hist_get(f, h) == HIST_LIVE && !vobj_find(f, h, -1))
			return;
		fail(t, "%s: event %u of handle %u, which is no live %s of f%d",
		     c->desc, type, h, el == RDMACHAN_ASYNC_ELEMENT_QP ? "QP" :
		     el == RDMACHAN_ASYNC_ELEMENT_CQ ? "CQ" : "SRQ", fi);
		return;
	}
	if (o->ctx != ctx ||
	    a->out_user_context != (o->kind == V_CQ ? o->tag : o->uctx))
		fail(t, "%s: event %u of handle %u, user_context %#llx, on the file of context %u; the object has %#llx, context %u",
		     c->desc, type, h, (unsigned long long)a->out_user_context,
		     ctx, (unsigned long long)(o->kind == V_CQ ? o->tag : o->uctx),
		     o->ctx);
	if (o->aunacked[type] == 255) {
		fail(t, "%s: more than 255 events %u of handle %u", c->desc,
		     type, h);
		return;
	}
	o->aunacked[type]++;
	/* its destroy waits for this one */
	if (o->dying)
		ack(t, fi, f, o, type, false);
}

void act_get_async(struct thr *t)
{
	struct worker *w = t->w;
	struct vasync *as = pick_async(t);
	struct rdmachan_get_async_event *a;
	struct mfile *f;
	struct call c;
	u64 timer = 0;
	u32 flags = 0;
	int fi, gen;
	u32 ctx;
	bool blocking, live, nonblock;

	if (!as)
		return;
	fi = as->fi;
	gen = as->gen;
	ctx = as->ctx;
	nonblock = as->nonblock;
	call_init(&c, RDMACHAN_CMD_GET_ASYNC_EVENT, -1, 0, as->fd);
	c.async = as;
	a = &c.a.get_async_event;
	blocking = t->have_timer && chance(t, 15);
	if (!blocking)
		flags = a->flags = RDMACHAN_GET_ASYNC_EVENT_NONBLOCK;
	/* ENODEV once the context is gone: checked below */
	c.ok = ES(0, EAGAIN, EINTR, ENODEV);
	inject(t, &c, NULL);
	/* the faults that let it block */
	if (c.fault == F_NONE || c.fault == F_SIZE_LONG_ZERO ||
	    c.fault == F_ARG_READONLY) {
		c.blocking = blocking;
		if (blocking)
			timer = (20 + rnd(t, 300)) * MSEC;
	}
	as->busy++;
	as->blocked += c.blocking;
	do_call(t, &c, 0, timer);
	as->busy--;
	as->blocked -= c.blocking;
	f = &w->files[fi];
	live = f->gen == gen && f->state == FS_OPEN && ctx_live(f, ctx);
	if (c.ret) {
		if (c.err == ENODEV && live)
			fail(t, "%s: ENODEV while context %u of f%d is live",
			     c.desc, ctx, fi);
		if (c.err == EAGAIN && c.ran && !nonblock &&
		    !(flags & RDMACHAN_GET_ASYNC_EVENT_NONBLOCK))
			fail(t, "%s: EAGAIN from a blocking read", c.desc);
		if (c.err == EAGAIN)
			stat_add(ST_EAGAIN, 1);
		return;
	}
	if (!c.readback)
		return;
	stat_add(ST_ASYNC_EVENTS, 1);
	take(t, &c, fi, gen, ctx, a);
}

void act_ack_async(struct thr *t)
{
	struct worker *w = t->w;
	struct vobj *pick[MAX_VOBJS], *o;
	struct mfile *f;
	struct call c;
	int fi = pick_file(t), n = 0, i;
	u32 type, h;

	if (fi < 0)
		return;
	f = &w->files[fi];
	for (i = 0; i < MAX_VOBJS; i++)
		if (f->vobjs[i].used && unacked(&f->vobjs[i]))
			pick[n++] = &f->vobjs[i];
	if (n && chance(t, 70)) {
		o = pick[rnd(t, n)];
		do
			type = rnd(t, ASYNC_TYPES);
		while (!o->aunacked[type]);
		h = o->handle;
		if (!ack(t, fi, f, o, type, true) || vobj_find(f, h, -1) != o)
			return;
		/* twice, when no read may have counted another meanwhile */
		if (!o->aunacked[type] && !o->aclaimed &&
		    !read_in_flight(w, fi, f, o->ctx) && chance(t, 30))
			ack_never_read(t, fi, f, o, "acked twice", type);
		return;
	}
	switch (rnd(t, 3)) {
	case 0:
		/* a QP, CQ or SRQ, and a type none of its events read has */
		o = vobj_pick(t, f, rnd(t, 2) ? V_QP : chance(t, 50) ? V_CQ :
			      V_SRQ, false);
		if (!o || o->aclaimed || read_in_flight(w, fi, f, o->ctx))
			return;
		type = chance(t, 80) ? rnd(t, ASYNC_TYPES) :
		       ASYNC_TYPES + rnd(t, 1000);
		if (type < ASYNC_TYPES && o->aunacked[type])
			return;
		ack_never_read(t, fi, f, o, type < ASYNC_TYPES ?
			       "an event never read" : "no such event type",
			       type);
		return;
	case 1:
		/* no QP, CQ or SRQ: a PD, MR, AH, context or CM id */
		h = vobj_pick_handle(t, f, HK_QP, true);
		o = vobj_find(f, h, -1);
		if (!h || (o && has_async(o)))
			return;
		call_init(&c, RDMACHAN_CMD_ACK_ASYNC_EVENT, fi, f->gen,
			  pick_fd(t, f));
		c.a.ack_async_event.handle = h;
		c.a.ack_async_event.event_type = rnd(t, ASYNC_TYPES);
		c.fault = F_VALUE;
		c.why = "a handle of another kind";
		c.ok = ES(ENOENT);
		break;
	default:
		/* the generic handle faults: destroyed, zero, random, ... */
		o = vobj_pick(t, f, V_QP + rnd(t, 2) * (V_SRQ - V_QP), false);
		if (!o)
			o = vobj_pick(t, f, V_CQ, false);
		if (!o)
			return;
		call_init(&c, RDMACHAN_CMD_ACK_ASYNC_EVENT, fi, f->gen,
			  pick_fd(t, f));
		c.a.ack_async_event.handle = o->handle;
		c.a.ack_async_event.event_type = rnd(t, ASYNC_TYPES);
		/* only a fault of it: a right ack would take a real event */
		c.ok = ES(EINVAL);
		if (o->aclaimed || read_in_flight(w, fi, f, o->ctx) ||
		    o->aunacked[c.a.ack_async_event.event_type])
			return;
		/* a destroy of it may be in flight: ENOENT then */
		name(&c, o);
		break;
	}
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (c.ret && (c.err == EINVAL || c.err == ENOENT))
		stat_add(ST_ASYNC_ACKS_REFUSED, 1);
	unpin(f);
}

/*
 * Before a destroy of @o, which waits for the acks of its events read:
 * acks them all now (returns 0), or leaves them to other threads, due in
 * a while (returns 1, the watchdog's may_block); -1 when some ack failed,
 * and there is to be no destroy.
 */
int async_settle(struct thr *t, int fi, struct mfile *f, struct vobj *o)
{
	struct worker *w = t->w;
	u32 h = o->handle, type;

	if (!has_async(o) || !unacked(o))
		return 0;
	/* some thread must be free to give the acks */
	if (w->async_waits + 1 < w->nthr && chance(t, 40)) {
		o->ack_due_ns = now_ns() + rnd(t, 300) * MSEC;
		stat_add(ST_ASYNC_DESTROY_WAITS, 1);
		return 1;
	}
	for (type = 0; type < ASYNC_TYPES; type++)
		while (vobj_find(f, h, -1) == o && o->aunacked[type])
			if (!ack(t, fi, f, o, type, false))
				return -1;
	return vobj_find(f, h, -1) == o && !o->dying ? 0 : -1;
}

/* Acks that destroys in flight wait for, once due. */
void async_ack_due(struct thr *t)
{
	struct worker *w = t->w;
	u64 now = now_ns();
	int fi, i;
	u32 type, h;

	for (fi = 0; fi < MAX_FILES; fi++) {
		struct mfile *f = &w->files[fi];

		if (f->state != FS_OPEN)
			continue;
		for (i = 0; i < MAX_VOBJS; i++) {
			struct vobj *o = &f->vobjs[i];

			if (!o->used || !o->dying || !o->ack_due_ns ||
			    now < o->ack_due_ns)
				continue;
			h = o->handle;
			for (type = 0; type < ASYNC_TYPES; type++)
				while (vobj_find(f, h, -1) == o &&
				       o->aunacked[type])
					if (!ack(t, fi, f, o, type, false))
						break;
			/* it may have been destroyed while the lock was dropped */
			if (vobj_find(f, h, -1) == o)
				o->ack_due_ns = 0;
			return;
		}
	}
}

/* A destroy in flight on @f waits for acks of its object's events. */
bool async_owed(struct mfile *f)
{
	int i;

	for (i = 0; i < MAX_VOBJS; i++)
		if (f->vobjs[i].used && f->vobjs[i].dying &&
		    unacked(&f->vobjs[i]))
			return true;
	return false;
}

/* A destroy of @o returned: every event of it read was acknowledged. */
void async_check_destroyed(struct thr *t, const struct call *c,
			   const struct vobj *o)
{
	if (has_async(o) && unacked(o))
		fail(t, "%s: returned while %u async event(s) of it read were not acknowledged",
		     c->desc, unacked(o));
}

/* In a forked child: the parent's async event files refuse it (EACCES). */
void async_child(struct thr *t, u64 *calls, int *bad)
{
	char msg[512];
	int i;

	for (i = 0; i < MAX_ASYNC; i++) {
		struct rdmachan_get_async_event ev = {
			.size = sizeof(ev),
			.flags = RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
		};
		int r;

		if (!t->w->asyncs[i].used)
			continue;
		r = ioctl(t->w->asyncs[i].fd, RDMACHAN_IOC_GET_ASYNC_EVENT, &ev);
		++*calls;
		if (r != -1 || errno != EACCES) {
			snprintf(msg, sizeof(msg),
				 "seed %#llx worker %d: forked child: GET_ASYNC_EVENT on an inherited async event file: %s, want EACCES",
				 (unsigned long long)t->w->seed, t->w->index,
				 r ? errno_name(errno) : "success");
			record_failure(msg);
			*bad = 1;
		}
	}
}
