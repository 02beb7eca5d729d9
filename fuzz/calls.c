// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: making one call: its slot in the report, the one fault it
 * may get, the model before and after it, and the check of its result.
 */
#include "fuzz.h"

void slot_begin(struct thr *t, struct call *c, int may_block)
{
	struct slot *s = t->slot;

	memcpy(s->desc, c->desc, DESC_LEN);
	memcpy(s->ring[s->ring_pos % RING_LEN], c->desc, DESC_LEN);
	s->ring_pos++;
	s->may_block = may_block;
	s->cmd = c->cmd;
	s->start_ns = now_ns();
	__atomic_store_n(&s->in_call, 1, __ATOMIC_RELEASE);
}

void slot_end(struct thr *t)
{
	__atomic_store_n(&t->slot->in_call, 0, __ATOMIC_RELEASE);
	t->slot->may_block = 0;
	t->slot->calls++;
}

static void arm_timer(struct thr *t, u64 ns)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = ns / NSEC, .tv_nsec = ns % NSEC },
		/* again and again, in case the first one came too early */
		.it_interval = { .tv_sec = 0, .tv_nsec = 200 * MSEC },
	};

	if (t->have_timer)
		timer_settime(t->timer, 0, &its, NULL);
}

static void disarm_timer(struct thr *t)
{
	struct itimerspec its = {};

	if (t->have_timer)
		timer_settime(t->timer, 0, &its, NULL);
}

void call_init(struct call *c, int cmd, int fi, int gen, int fd)
{
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->fi = fi;
	c->gen = gen;
	c->fd = fd;
	c->ksize = cmds[cmd].size;
	c->usize = c->ksize;
	c->ioc = _IOC(_IOC_READ | _IOC_WRITE, RDMACHAN_IOCTL_TYPE, cmd,
		      c->ksize);
	c->a.get_info.size = c->ksize;
	c->ok = ES(0);
}

u32 field32(struct call *c, size_t off)
{
	u32 v;

	memcpy(&v, c->a.raw + off, 4);
	return v;
}

static void set_field32(struct call *c, size_t off, u32 v)
{
	memcpy(c->a.raw + off, &v, 4);
}

/* Offset of the handle field; MIGRATE_ID's handle names an id of fd's file. */
static size_t handle_off(int cmd)
{
	return cmd == RDMACHAN_CMD_MIGRATE_ID ?
	       offsetof(struct rdmachan_migrate_id, handle) : 8;
}

bool destructive(int cmd)
{
	return cmd == RDMACHAN_CMD_DESTROY || cmd == RDMACHAN_CMD_MIGRATE_ID;
}

/* A fault that leaves the call's meaning alone: the handler runs as usual. */
bool benign(const struct call *c)
{
	return c->fault == F_NONE || c->fault == F_SIZE_LONG_ZERO ||
	       (c->fault == F_ARG_READONLY && !cmds[c->cmd].output);
}

void mark_dying(struct mobj *o)
{
	o->dying = true;
	o->dying_ns = now_ns();
}

/*
 * Replaces the call's handle with one that is not an object of the right
 * kind in file @hf. Returns false when no such handle could be found.
 */
static bool bad_handle(struct thr *t, struct call *c, struct mfile *hf,
		       int kind)
{
	struct worker *w = t->w;
	u32 h = 0, v;
	int tries;
	bool unsure = false;

	for (tries = 0; tries < 8; tries++) {
		int k = F_HANDLE_ZERO + rnd(t, F_HANDLE_RANDOM - F_HANDLE_ZERO + 1);
		struct mobj *o;
		int i;

		unsure = false;
		switch (k) {
		case F_HANDLE_ZERO:
			h = 0;
			break;
		case F_HANDLE_HUGE:
			h = 0x80000000u | (u32)rnd64(t);
			break;
		case F_HANDLE_DEAD:
			if (!hf->ndead)
				continue;
			h = hf->dead[rnd(t, hf->ndead < DEAD_RING ? hf->ndead : DEAD_RING)];
			if (!hist_gone(hf, h))
				continue;
			break;
		case F_HANDLE_WRONG_TYPE:
			if (kind == HK_ANY)
				continue;
			if (kind >= HK_PD || (cfg.verbs && chance(t, 30))) {
				/* a verbs object of another kind, or a CM one */
				h = vobj_pick_handle(t, hf, kind, true);
				if (!h)
					continue;
				break;
			}
			o = pick_obj(t, hf, kind == HK_ID, 0, true);
			if (!o)
				continue;
			h = o->handle;
			break;
		case F_HANDLE_OTHER_FILE:
			i = rnd(t, MAX_FILES);
			if (&w->files[i] == hf || w->files[i].state == FS_CLOSED)
				continue;
			if (kind >= HK_PD) {
				h = vobj_pick_handle(t, &w->files[i], kind, false);
				if (!h)
					continue;
			} else {
				o = pick_obj(t, &w->files[i], kind == HK_CTX, 0,
					     true);
				if (!o)
					continue;
				h = o->handle;
			}
			v = hist_get(hf, h);
			if (v == HIST_LIVE)
				continue;
			unsure = !v;
			break;
		default:
			h = 1 + rnd(t, hf->hist_len + 64);
			v = hist_get(hf, h);
			if (v == HIST_LIVE)
				continue;
			unsure = !v;
			break;
		}
		if (unsure && destructive(c->cmd))
			continue;
		set_field32(c, handle_off(c->cmd), h);
		c->target = 0;
		c->fault = k;
		c->handle_unsure = unsure;
		if (unsure) {
			/* it may be a new id not yet seen here: anything goes */
			es_add(&c->ok, ENOENT);
		} else {
			c->ok = ES(ENOENT);
		}
		return true;
	}
	return false;
}

/*
 * Maybe turns the call into a hostile one: one fault, with the errnos the
 * ABI prescribes for it. The builder may have injected a fault already.
 */
/* The flags a command knows; any other is EINVAL. */
static u32 known_flags(int cmd)
{
	switch (cmd) {
	case RDMACHAN_CMD_GET_EVENTS:
		return RDMACHAN_GET_EVENTS_NONBLOCK;
	case RDMACHAN_CMD_GET_CQ_EVENT:
		return RDMACHAN_GET_CQ_EVENT_NONBLOCK;
	case RDMACHAN_CMD_GET_ASYNC_EVENT:
		return RDMACHAN_GET_ASYNC_EVENT_NONBLOCK;
	case RDMACHAN_CMD_REQ_NOTIFY_CQ:
		return RDMACHAN_NOTIFY_SOLICITED;
	case RDMACHAN_CMD_CREATE_QP:
		return RDMACHAN_CREATE_QP_CM_ID | RDMACHAN_CREATE_QP_SQ_SIG_ALL;
	case RDMACHAN_CMD_CREATE_CQ:
		return RDMACHAN_CREATE_CQ_RING;
	default:
		return 0;
	}
}

/* The first layout's size: anything shorter is EINVAL. */
static u32 min_size(const struct call *c)
{
	if (c->cmd == RDMACHAN_CMD_CREATE_CQ)
		return offsetof(struct rdmachan_create_cq, out_ring_entries);
	return c->ksize;
}

void inject(struct thr *t, struct call *c, struct mfile *hf)
{
	const struct cmd_info *ci = &cmds[c->cmd];
	int kind = c->cmd == RDMACHAN_CMD_MIGRATE_ID ? HK_ID : ci->handle_kind;
	int f;

	if (c->fault != F_NONE || !chance(t, cfg.pct_fault))
		return;
	for (;;) {
		f = F_BAD_DIR + rnd(t, F_HANDLE_RANDOM - F_BAD_DIR + 1);
		if (f == F_RESERVED && ci->rsv_off < 0)
			continue;
		if (f >= F_HANDLE_ZERO && f <= F_HANDLE_RANDOM) {
			if (kind == HK_NONE || !hf)
				continue;
			if (!bad_handle(t, c, hf, kind))
				continue;
			return;
		}
		/* migrate's reply carries the moved id's new handle */
		if (f == F_ARG_READONLY && c->cmd == RDMACHAN_CMD_MIGRATE_ID)
			continue;
		break;
	}
	c->fault = f;
	switch (f) {
	case F_BAD_DIR:
		c->ioc = _IOC(rnd(t, 3), RDMACHAN_IOCTL_TYPE, c->cmd, c->ksize);
		c->ok = ES(ENOTTY);
		break;
	case F_ARG_NULL:
	case F_ARG_UNMAPPED:
	case F_ARG_KERNEL:
	case F_ARG_STRADDLE_HDR:
	case F_ARG_STRADDLE:
	case F_SIZE_HUGE:
		c->ok = ES(EFAULT);
		break;
	case F_ARG_READONLY:
		/* the handler runs; a reply it cannot write is EFAULT */
		if (ci->output) {
			es_del(&c->ok, 0);
			es_add(&c->ok, EFAULT);
		}
		break;
	case F_SIZE_SHORT:
		c->usize = rnd(t, min_size(c));
		c->ok = ES(EINVAL);
		break;
	case F_SIZE_LONG_ZERO:
		c->usize = c->ksize + 1 + rnd(t, chance(t, 50) ? 16 : 8192);
		break;
	case F_SIZE_LONG_TAIL:
		c->usize = c->ksize + 1 + rnd(t, chance(t, 50) ? 16 : 8192);
		c->tail_off = c->ksize + rnd(t, c->usize - c->ksize);
		c->ok = ES(E2BIG);
		break;
	case F_FLAGS:
		c->a.get_info.flags |= 1u << rnd(t, 32);
		if (!(c->a.get_info.flags & ~known_flags(c->cmd)))
			c->a.get_info.flags |= 0x80000000u;
		c->ok = ES(EINVAL);
		break;
	case F_RESERVED:
		c->a.raw[ci->rsv_off + rnd(t, ci->rsv_len)] = 1 + rnd(t, 255);
		c->ok = ES(EINVAL);
		break;
	}
}

static const char *ps_name(u32 ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return "/tcp";
	case RDMA_PS_UDP:
		return "/udp";
	case RDMA_PS_IPOIB:
		return "/ipoib";
	default:
		return "/ib";
	}
}

static void describe(struct thr *t, struct call *c)
{
	u32 h = 0;

	if (c->cmd >= 0 && cmds[c->cmd].handle_kind != HK_NONE)
		h = field32(c, handle_off(c->cmd));
	snprintf(c->desc, DESC_LEN,
		 "#%llu %s f%d(fd %d) size %u/%u flags %#x h %u%s%s%s fault %s%s%s",
		 (unsigned long long)t->ncalls,
		 c->cmd >= 0 ? cmds[c->cmd].name : "UNKNOWN", c->fi, c->fd,
		 c->usize, c->ksize, c->a.get_info.flags, h,
		 c->target && c->tstate >= 0 ? " " : "",
		 c->target && c->tstate >= 0 ? state_names[c->tstate] : "",
		 c->target && c->tstate >= 0 ? ps_name(c->tps) : "",
		 fault_names[c->fault], c->why ? ": " : "", c->why ? c->why : "");
}

/* Puts the argument where the fault wants it; returns the pointer. */
static void place(struct thr *t, struct call *c)
{
	u8 *guard = t->argmap + ARENA_LEN;
	u32 hdr = c->usize;

	c->a.get_info.size = c->usize;
	c->readback = false;
	c->ran = true;
	c->dirty_lo = 0;
	c->dirty_hi = c->ksize;
	switch (c->fault) {
	case F_ARG_NULL:
		c->uptr = NULL;
		c->ran = false;
		return;
	case F_ARG_UNMAPPED:
		c->uptr = guard + rnd(t, cfg.page);
		c->ran = false;
		return;
	case F_ARG_KERNEL:
		c->uptr = (void *)(chance(t, 50) ? 0xffff888000000000ull + rnd(t, 1 << 20) * 8 :
				   0x0000800000000000ull);
		c->ran = false;
		return;
	case F_ARG_STRADDLE_HDR:
		/* the size field itself crosses into the guard page */
		c->uptr = guard - 1 - rnd(t, 3);
		memcpy(c->uptr, &hdr, guard - (u8 *)c->uptr);
		c->dirty_lo = (u8 *)c->uptr - t->argmap;
		c->dirty_hi = ARENA_LEN;
		c->ran = false;
		return;
	case F_ARG_STRADDLE:
		/* header readable, the rest of the struct is not */
		c->uptr = guard - 8 - 8 * rnd(t, (c->ksize - 8) / 8);
		memcpy(c->uptr, c->a.raw, guard - (u8 *)c->uptr);
		c->dirty_lo = (u8 *)c->uptr - t->argmap;
		c->dirty_hi = ARENA_LEN;
		c->ran = false;
		return;
	case F_ARG_READONLY:
		memcpy(t->rw_view, c->a.raw, c->ksize);
		c->uptr = t->ro_view;
		c->dirty_hi = 0;
		return;
	case F_SIZE_HUGE:
		c->usize = chance(t, 50) ? 0xffffffffu : ARENA_LEN + rnd(t, 1 << 24);
		c->a.get_info.size = c->usize;
		memcpy(t->argmap, c->a.raw, c->ksize);
		c->uptr = t->argmap;
		c->ran = false;
		return;
	case F_SIZE_SHORT:
	case F_SIZE_LONG_TAIL:
	case F_BAD_DIR:
	case F_FLAGS:
		c->ran = false;
		break;
	default:
		break;
	}
	memcpy(t->argmap, c->a.raw, c->ksize);
	if (c->fault == F_SIZE_LONG_TAIL) {
		t->argmap[c->tail_off] = 1 + rnd(t, 255);
		c->dirty_hi = c->tail_off + 1;
	}
	c->uptr = t->argmap;
	c->readback = true;
}

/* Reads the reply back and leaves the arena all zero for the next call. */
static void unplace(struct thr *t, struct call *c)
{
	u32 n, i;

	if (c->readback) {
		memcpy(c->a.raw, t->argmap, c->ksize);
		n = c->usize > c->ksize ? c->usize : c->ksize;
		if (n > ARENA_LEN)
			n = ARENA_LEN;
		/* at most sizeof of the module's struct is written back */
		for (i = c->ksize; i < n; i++)
			if (t->argmap[i] && i != c->tail_off) {
				fail(t, "%s: wrote byte %u beyond its struct (%u bytes)",
				     c->desc, i, c->ksize);
				break;
			}
		if (n > c->dirty_hi)
			c->dirty_hi = n;
	}
	if (c->dirty_hi > c->dirty_lo)
		memset(t->argmap + c->dirty_lo, 0, c->dirty_hi - c->dirty_lo);
}

/* Arms fail-nth: the @nth fault-injection point of this thread fails. */
static bool nth_arm(int fd, unsigned int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", nth);

	return pwrite(fd, buf, len, 0) == len;
}

/*
 * Disarms it; true when the armed point was reached (it reads 0 then).
 * The read's own user copy is a point too: going off there reads as a
 * failed read, and the call did not reach it.
 */
static bool nth_disarm(int fd)
{
	char buf[16] = "";
	bool fired = false;
	int i;

	if (pread(fd, buf, sizeof(buf) - 1, 0) > 0)
		fired = strtoul(buf, NULL, 10) == 0;
	for (i = 0; i < 3 && pwrite(fd, "0", 1, 0) != 1; i++)
		;
	return fired;
}

/*
 * Not the calls that make rxe create queues: 6.1's rxe allocates them
 * with vmalloc, whose failure dumps a stack (warn_alloc), and the error
 * path of its QP creation deletes timers it never set up (an ODEBUG
 * WARN). Those would be reports about rxe, not about the module.
 */
static bool kfault_ok(int cmd)
{
	if (cfg.kfault_only_some)
		return cmd >= 0 && cfg.kfault_only[cmd];
	return cmd != RDMACHAN_CMD_CREATE_CQ && cmd != RDMACHAN_CMD_CREATE_QP &&
	       cmd != RDMACHAN_CMD_CREATE_SRQ;
}

/*
 * Makes the call. Entered with the model locked and the file pinned;
 * unlocks around the ioctl and returns locked, the result checked.
 */
void do_call(struct thr *t, struct call *c, int may_block, u64 timer_ns)
{
	struct worker *w = t->w;
	/* none for a call on a completion channel */
	struct mfile *f = c->fi >= 0 ? &w->files[c->fi] : NULL;
	char want[256];
	bool armed;
	int e;

	if (c->cmd >= 0 && cfg.excluded[c->cmd]) {
		c->ret = -1;
		c->err = ECANCELED;
		c->ran = false;
		return;
	}
	c->start_seq = ++w->seq;
	t->ncalls++;
	t->cur_fi = c->fi;
	t->cur_cmd = c->cmd;
	/* under the lock, so that a journal dump can show the call in flight */
	place(t, c);
	describe(t, c);
	t->cur_call = c;
	unlock(w);

	slot_begin(t, c, may_block);
	if (c->blocking)
		arm_timer(t, timer_ns);
	/*
	 * Not while a signal may come: a fault in writing its frame to the
	 * stack is a SIGSEGV.
	 */
	armed = t->nth_fd >= 0 && !c->no_kfault && !c->blocking &&
		kfault_ok(c->cmd) && chance(t, cfg.pct_kfault) &&
		nth_arm(t->nth_fd, 1 + rnd(t, 12));
	c->ret = ioctl(c->fd, c->ioc, c->uptr);
	c->err = c->ret ? errno : 0;
	if (armed)
		c->kfault = nth_disarm(t->nth_fd);
	c->end_ns = now_ns();
	if (c->blocking)
		disarm_timer(t);
	slot_end(t);
	unplace(t, c);
	if (armed)
		stat_add(ST_KFAULT_ARMED, 1);
	if (c->kfault) {
		/* an allocation, a user copy, or the IP stack's route lookup */
		es_merge(&c->ok, ES(ENOMEM, EFAULT, ENOBUFS));
		stat_add(ST_KFAULT_FIRED, 1);
		if (c->ret)
			stat_add(ST_KFAULT_FAILED, 1);
	}

	__atomic_fetch_add(&shm->calls[c->cmd >= 0 ? c->cmd : STAT_UNKNOWN], 1,
			   __ATOMIC_RELAXED);
	if (c->fault != F_NONE)
		__atomic_fetch_add(&shm->faults[c->fault], 1, __ATOMIC_RELAXED);

	lock(w);
	t->cur_cmd = -1;
	t->cur_call = NULL;
	c->closing = f && (f->gen != c->gen || f->state != FS_OPEN);
	e = c->ret ? c->err : 0;
	journal(w, "t%d seq %u-%u %s -> %s%s", t->idx, c->start_seq, w->seq,
		c->desc, e ? errno_name(e) : "ok",
		c->cmd == RDMACHAN_CMD_MIGRATE_ID && !e ?
		" (see model lines)" : "");
	if (c->ret && c->ret != -1) {
		fail(t, "%s: ioctl returned %d", c->desc, c->ret);
		return;
	}
	if ((c->closing || (c->chan && !c->chan->used) ||
	     (c->async && !c->async->used)) && e == ENOTTY) {
		/* the call came after the fd (file, channel, async) became /dev/null */
		stat_add(ST_ENOTTY_CLOSED, 1);
		c->ran = false;
		return;
	}
	if (e == EINTR)
		stat_add(ST_EINTR, 1);
	if (e == ENOENT && f && !es_has(&c->ok, e) && vobj_raced(f, c)) {
		/* a destroy of a verbs object it names overlapped the call */
		c->ran = false;
		return;
	}
	if ((e == ENOENT || e == ENODEV) && c->target && f && !es_has(&c->ok, e)) {
		/* a destroy or migrate of the object overlapped the call */
		struct mobj *o = obj_find(f, c->target);

		if ((o && o->dying && o->dying_ns < c->end_ns) ||
		    (!o && hist_gone(f, c->target))) {
			c->ran = false;
			return;
		}
	}
	if (!es_has(&c->ok, e)) {
		es_str(&c->ok, want, sizeof(want));
		fail(t, "%s: got %s, allowed %s", c->desc,
		     e ? errno_name(e) : "success", want);
		if (e == ENOENT || e == ENODEV)
			journal_dump(w, c->fi);
		return;
	}
	if (e && c->ran && c->fault == F_NONE && e != EAGAIN && e != EINTR &&
	    e != ENOENT)
		stat_add(ST_CM_ERRORS, 1);
	if (cfg.verbose && c->cmd != RDMACHAN_CMD_GET_EVENTS &&
	    c->cmd != RDMACHAN_CMD_ACK_EVENTS)
		fprintf(stderr, "w%d.%d.t%d %s -> %s\n", w->index, w->gen, t->idx,
			c->desc, e ? errno_name(e) : "ok");
}
