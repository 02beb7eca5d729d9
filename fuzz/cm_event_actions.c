// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: reading and acknowledging CM events, and the destroys
 * and migrates that wait for acknowledgements.
 */
#include "fuzz.h"

/*
 * Claims up to @max unacked events of @f (of id @id_handle if non-zero)
 * into @handles; returns how many.
 */
u32 claim_events(struct thr *t, struct mfile *f, u32 *handles, u32 max,
			u32 id_handle, bool due_only)
{
	u64 now = now_ns();
	u32 n = 0;
	int i, start = rnd(t, MAX_EVS);

	for (i = 0; i < MAX_EVS && n < max; i++) {
		struct mev *e = &f->evs[(start + i) % MAX_EVS];

		if (e->state != E_UNACKED && e->state != E_DEFERRED)
			continue;
		if (id_handle && e->id_handle != id_handle)
			continue;
		if (due_only && (e->state != E_DEFERRED || e->due_ns > now))
			continue;
		e->state = E_CLAIMED;
		handles[n++] = e->handle;
	}
	return n;
}

void release_claims(struct mfile *f, const u32 *handles, u32 n,
			   bool acked)
{
	struct mev *e;
	u32 i;

	for (i = 0; i < n; i++) {
		e = ev_find(f, handles[i]);
		if (!e || e->state != E_CLAIMED)
			continue;
		if (acked)
			ev_acked(f, e);
		else
			e->state = E_UNACKED;
	}
}

/*
 * Spoils an ack batch so that the module must refuse all of it with
 * ENOENT: a handle never delivered, acked before, duplicated, or zero.
 * Returns false when it cannot be made certain.
 */
static bool spoil_acks(struct thr *t, struct mfile *f, u32 *acks, u32 *n,
		       u32 room)
{
	u32 h, pos;

	if (*n >= room)
		return false;
	switch (rnd(t, 4)) {
	case 0:
		h = 0;
		break;
	case 1:
		h = 0x80000000u | (u32)rnd64(t);
		break;
	case 2:
		if (!f->nacked)
			return false;
		h = f->acked[rnd(t, f->nacked < ACKED_RING ? f->nacked : ACKED_RING)];
		break;
	default:
		if (!*n)
			return false;
		h = acks[rnd(t, *n)];
		break;
	}
	pos = rnd(t, *n + 1);
	acks[*n] = acks[pos];
	acks[pos] = h;
	(*n)++;
	return true;
}

/*
 * An event written out just past the last one counted is one the module
 * dropped because its id was destroyed meanwhile (the uAPI allows it):
 * that id must be dying or gone.
 */
static bool dropped_event(struct mfile *f, const u8 *raw)
{
	struct rdmachan_cm_event ev;
	struct mobj *o;

	memcpy(&ev, raw, RDMACHAN_CM_EVENT_SIZE_V1);
	o = obj_find(f, ev.id_handle);
	if (!((o && o->dying) || (!o && hist_gone(f, ev.id_handle))))
		return false;
	stat_add(ST_EVENT_DROPPED_IN_SLOT, 1);
	return true;
}

/* Reads events, maybe with acks riding along; mostly the way the library does. */
void act_get_events(struct thr *t, bool deferred_only)
{
	struct worker *w = t->w;
	u32 *acks = (u32 *)t->bufmap;
	u8 *evbase = t->bufmap + 4096;
	struct mfile *f;
	struct call c;
	u32 nacks = 0, real_acks, stride, room, maxev, i, n;
	int fi, mode, fault_ptr = 0;
	u32 nb_seq;
	bool nonblock;
	u64 timer = 0;
	u8 *evbuf;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &w->files[fi];
	/* 0: non-blocking, 1: poll first, 2: blocking under a timer, 3: acks only */
	mode = deferred_only ? 3 : rnd(t, 10) < 4 ? 0 : rnd(t, 10) < 6 ? 1 :
	       rnd(t, 10) < 8 ? 2 : 3;
	if (mode == 2 && !t->have_timer)
		mode = 1;
	stride = chance(t, 75) ? EV_SIZE : chance(t, 20) ?
		 RDMACHAN_CM_EVENT_SIZE_V1 : EV_SIZE + 8 * (1 + rnd(t, 64));
	room = (ARENA_LEN - 4096) / stride;
	maxev = mode == 3 ? 0 : 1 + rnd(t, 8);
	if ((int)maxev > free_ev_slots(f))
		maxev = free_ev_slots(f) > 0 ? free_ev_slots(f) : 0;
	if (!maxev && mode != 3)
		mode = 3;
	if (chance(t, 50) || mode == 3)
		nacks = claim_events(t, f, acks, 1 + rnd(t, 8), 0, deferred_only);
	if (deferred_only && !nacks)
		return;
	real_acks = nacks;

	call_init(&c, RDMACHAN_CMD_GET_EVENTS, fi, f->gen, pick_fd(t, f));
	/* right-aligned, an overlong batch runs into the guard page */
	evbuf = chance(t, 50) ? evbase : t->bufmap + ARENA_LEN - room * stride;
	c.a.get_events.events = maxev ? (uintptr_t)evbuf : 0;
	c.a.get_events.event_size = maxev || chance(t, 50) ? stride : 0;
	c.a.get_events.max_events = maxev;
	c.a.get_events.acks = (uintptr_t)acks;
	c.a.get_events.num_acks = nacks;
	nonblock = f->nonblock;
	nb_seq = f->nb_seq;
	if (mode != 2)
		c.a.get_events.flags = RDMACHAN_GET_EVENTS_NONBLOCK;
	else
		c.blocking = true;

	/* EAGAIN on a blocking read is checked below, knowing O_NONBLOCK */
	c.ok = mode == 2 ? ES(0, EINTR, EAGAIN) : ES(0, EAGAIN);
	if (!maxev)
		c.ok = ES(0);
	if (!deferred_only && chance(t, 15)) {
		c.fault = F_VALUE;
		switch (rnd(t, 3)) {
		case 0:
			if (!maxev)
				c.a.get_events.max_events = maxev = 1;
			c.a.get_events.event_size = rnd(t, RDMACHAN_CM_EVENT_SIZE_V1);
			c.ok = ES(EINVAL);
			break;
		case 1:
			c.a.get_events.num_acks = RDMACHAN_MAX_ACKS + 1 + rnd(t, 100000);
			c.ok = ES(EINVAL);
			break;
		default:
			/* a batch the module must refuse as a whole */
			if (!spoil_acks(t, f, acks, &nacks, 256)) {
				c.fault = F_NONE;
				break;
			}
			c.a.get_events.num_acks = nacks;
			c.fault = F_ACK_BAD;
			c.ok = ES(ENOENT);
			break;
		}
	} else if (!deferred_only && chance(t, 8)) {
		c.fault = F_PTR;
		if (nacks && chance(t, 50)) {
			c.a.get_events.acks = chance(t, 50) ? 0 :
				(uintptr_t)(t->bufmap + ARENA_LEN - 4 * rnd(t, nacks));
			c.ok = ES(EFAULT);
			fault_ptr = 1;
		} else {
			if (!maxev)
				c.a.get_events.max_events = maxev = 1;
			c.a.get_events.event_size = stride;
			c.a.get_events.flags = RDMACHAN_GET_EVENTS_NONBLOCK;
			c.blocking = false;
			c.a.get_events.events = chance(t, 30) ? 0 : chance(t, 50) ?
				(uintptr_t)(t->bufmap + ARENA_LEN + rnd(t, 4096)) :
				(uintptr_t)(t->bufmap + ARENA_LEN - 8 * (1 + rnd(t, stride / 8 - 1)));
			c.ok = ES(EFAULT, EAGAIN);
			fault_ptr = 2;
		}
	}
	if (c.fault == F_NONE && maxev && evbuf != evbase && chance(t, 30) &&
	    (int)room < free_ev_slots(f)) {
		/* asking for more than fits: the guard page stops the copy */
		c.a.get_events.max_events = maxev = room + 1 + rnd(t, 4);
		if ((int)maxev > free_ev_slots(f))
			c.a.get_events.max_events = maxev = free_ev_slots(f);
	}
	if (c.fault == F_NONE)
		inject(t, &c, NULL);
	if (c.fault != F_NONE && c.fault != F_ACK_BAD && c.fault != F_PTR &&
	    c.fault != F_VALUE && c.fault != F_SIZE_LONG_ZERO &&
	    c.fault != F_ARG_READONLY) {
		/* the struct never gets read: no wait either */
		c.blocking = false;
	}
	if (c.a.get_events.events && maxev)
		memset(c.a.get_events.events == (uintptr_t)evbuf ? evbuf : evbase,
		       POISON, (size_t)room * stride);
	f->ev_reserved += maxev;
	f->readers++;
	f->reader_epoch++;
	pin(f);
	if (c.blocking)
		timer = (20 + rnd(t, 400)) * MSEC;
	if (mode == 1) {
		struct pollfd pfd = { .fd = c.fd, .events = POLLIN };

		unlock(w);
		poll(&pfd, 1, rnd(t, 100));
		lock(w);
	}
	do_call(t, &c, 0, timer);
	f->readers--;
	f->ev_reserved -= maxev;
	if (c.blocking && !nonblock && nb_seq == f->nb_seq && c.ret &&
	    c.err == EAGAIN && !c.closing)
		fail(t, "%s: a blocking read returned EAGAIN", c.desc);

	/*
	 * Were the acks taken? All or none, and before any wait; num_acks
	 * is cleared as they are taken, so a failed call that left it took
	 * none. One whose struct is read-only fails before (writing
	 * out_num_events).
	 */
	if (!c.ret && c.readback && real_acks && c.a.get_events.num_acks)
		fail(t, "%s: took %u acks and left num_acks %u", c.desc,
		     real_acks, c.a.get_events.num_acks);
	if (c.ret && (!c.ran || c.closing || !c.readback ||
		      c.a.get_events.num_acks)) {
		release_claims(f, acks, real_acks, false);
		stat_add(ST_ACKS_REFUSED, 1);
	} else {
		release_claims(f, acks, real_acks, true);
	}

	/* The events: from out_num_events, or from the poison if the reply was lost. */
	n = 0;
	if (!c.ret && c.readback) {
		n = c.a.get_events.out_num_events;
	} else if (c.ran && !c.closing && c.fault == F_ARG_READONLY &&
		   c.err == EFAULT && maxev) {
		while (n < maxev && n < room &&
		       memcmp(evbuf + (size_t)n * stride + 8, "\xa5\xa5\xa5\xa5", 4))
			n++;
	}
	if (n > maxev || (n && fault_ptr == 2))
		fail(t, "%s: %u events for max_events %u", c.desc, n, maxev);
	if (c.ret && c.err == EAGAIN)
		stat_add(ST_EAGAIN, 1);
	if (n > room) {
		fail(t, "%s: %u events, only %u fit before the guard page",
		     c.desc, n, room);
		n = room;
	}
	for (i = 0; i < n && fault_ptr != 2; i++)
		take_event(t, &c, fi, evbuf + (size_t)i * stride, stride);
	if (!c.ret && c.readback && fault_ptr != 2)
		for (i = n; i < room && i < maxev; i++)
			if (memcmp(evbuf + (size_t)i * stride + 8,
				   "\xa5\xa5\xa5\xa5", 4) &&
			    !(i == n && dropped_event(f, evbuf + (size_t)i * stride)))
				fail(t, "%s: event slot %u written (id %u), out_num_events %u",
				     c.desc, i,
				     *(u32 *)(evbuf + (size_t)i * stride +
					      offsetof(struct rdmachan_cm_event, id_handle)),
				     n);
	unpin(f);
}

/* ACK_EVENTS: right, wrong, twice. */
void act_ack(struct thr *t, bool deferred_only)
{
	struct worker *w = t->w;
	u32 *acks = (u32 *)t->bufmap;
	struct mfile *f;
	struct call c;
	u32 n, real;
	int fi;

	fi = pick_file(t);
	if (fi < 0)
		return;
	f = &w->files[fi];
	n = claim_events(t, f, acks, chance(t, 70) ? 1 : 1 + rnd(t, 16), 0,
			 deferred_only);
	if (deferred_only && !n)
		return;
	real = n;
	call_init(&c, RDMACHAN_CMD_ACK_EVENTS, fi, f->gen, pick_fd(t, f));
	c.a.get_events.acks = (uintptr_t)acks;
	c.a.get_events.num_acks = n;
	if (!deferred_only && chance(t, 25)) {
		c.fault = F_VALUE;
		switch (rnd(t, 4)) {
		case 0:
			if (!spoil_acks(t, f, acks, &n, 256)) {
				c.fault = F_NONE;
				break;
			}
			c.fault = F_ACK_BAD;
			c.a.get_events.num_acks = n;
			c.ok = ES(ENOENT);
			break;
		case 1:
			c.a.get_events.num_acks = RDMACHAN_MAX_ACKS + 1 + rnd(t, 1000);
			c.ok = ES(EINVAL);
			break;
		case 2:
			if (chance(t, 50))
				c.a.get_events.max_events = 1 + rnd(t, 8);
			else if (chance(t, 50))
				c.a.get_events.event_size = EV_SIZE;
			else
				c.a.get_events.out_num_events = 1 + rnd(t, 8);
			c.ok = ES(EINVAL);
			break;
		default:
			if (!n) {
				c.fault = F_NONE;
				break;
			}
			c.fault = F_PTR;
			c.a.get_events.acks = chance(t, 50) ? 0 :
				(uintptr_t)(t->bufmap + ARENA_LEN - 4 * rnd(t, n));
			c.ok = ES(EFAULT);
			break;
		}
	}
	if (c.fault == F_NONE)
		inject(t, &c, NULL);
	pin(f);
	do_call(t, &c, 0, 0);
	release_claims(f, acks, real, !c.ret && c.ran && !c.closing);
	if (c.ret)
		stat_add(ST_ACKS_REFUSED, 1);
	/* twice: the same handles again must be refused */
	if (!c.ret && c.ran && !c.closing && real && chance(t, 20)) {
		call_init(&c, RDMACHAN_CMD_ACK_EVENTS, fi, f->gen, pick_fd(t, f));
		c.a.get_events.acks = (uintptr_t)acks;
		c.a.get_events.num_acks = real;
		c.fault = F_ACK_BAD;
		c.ok = ES(ENOENT);
		do_call(t, &c, 0, 0);
	}
	unpin(f);
}

/*
 * What to do about the unacked events of an id about to be destroyed or
 * migrated: ack them first, leave them to another thread, or never.
 * Returns the watchdog's may_block value.
 */
static int settle_acks(struct thr *t, struct mfile *f, u32 h)
{
	struct worker *w = t->w;
	u32 *acks = (u32 *)(t->bufmap + 2048);
	struct call c;
	u32 n, i;
	int r;

	if (!nevents(f, E_UNACKED, h) && !nevents(f, E_DEFERRED, h))
		return nevents(f, -1, h) ? 1 : 0;
	r = rnd(t, 100);
	if (r < 60) {
		n = claim_events(t, f, acks, 256, h, false);
		call_init(&c, RDMACHAN_CMD_ACK_EVENTS, (int)(f - w->files), f->gen,
			  pick_fd(t, f));
		c.a.get_events.acks = (uintptr_t)acks;
		c.a.get_events.num_acks = n;
		/* the destroy that follows must not wait for acks nobody gives */
		c.no_kfault = true;
		do_call(t, &c, 0, 0);
		release_claims(f, acks, n, !c.ret && !c.closing);
		return nevents(f, -1, h) ? 1 : 0;
	}
	if (r < 90 || w->nthr < 2) {
		for (i = 0; i < MAX_EVS; i++) {
			struct mev *e = &f->evs[i];

			if (e->id_handle == h && e->state == E_UNACKED) {
				e->state = E_DEFERRED;
				e->due_ns = now_ns() + rnd(t, 300) * MSEC;
			}
		}
		stat_add(ST_DESTROY_DEFERRED, 1);
		return 1;
	}
	for (i = 0; i < MAX_EVS; i++) {
		struct mev *e = &f->evs[i];

		if (e->id_handle == h &&
		    (e->state == E_UNACKED || e->state == E_DEFERRED))
			e->state = E_TRAPPED;
	}
	t->slot->kill_after_ns = (200 + rnd(t, 3000)) * MSEC;
	stat_add(ST_DESTROY_TRAPPED, 1);
	return 2;
}

static void untrap(struct mfile *f, u32 h)
{
	int i;

	for (i = 0; i < MAX_EVS; i++)
		if (f->evs[i].id_handle == h && f->evs[i].state == E_TRAPPED)
			f->evs[i].state = E_UNACKED;
}

/* After a destroy returned: every event read for the id was acknowledged. */
static void check_destroyed(struct thr *t, struct call *c, struct mfile *f,
			    u32 h)
{
	int i;

	for (i = 0; i < MAX_EVS; i++) {
		struct mev *e = &f->evs[i];

		if (e->state == E_FREE || e->id_handle != h)
			continue;
		if (e->state == E_TRAPPED || e->state == E_UNACKED ||
		    (e->state == E_DEFERRED && e->due_ns > c->end_ns))
			fail(t, "%s: returned while event %u (%s) of the id was not acknowledged",
			     c->desc, e->handle, ev_name(e->type));
	}
}

void act_destroy(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *f;
	struct mobj *o;
	struct call c;
	int fi, may_block = 0;
	bool twice;
	u32 h;

	if (t->force) {
		o = t->force;
		fi = t->force_fi;
		t->force = NULL;
	} else {
		fi = pick_file(t);
		if (fi < 0)
			return;
		o = pick_obj(t, &w->files[fi], chance(t, 15), 0, chance(t, 5));
	}
	if (!o)
		return;
	f = &w->files[fi];
	h = o->handle;
	twice = o->dying;
	call_init(&c, RDMACHAN_CMD_DESTROY, fi, f->gen, pick_fd(t, f));
	c.a.destroy.handle = h;
	pin(f);
	inject(t, &c, f);
	if (twice) {
		/* racing another destroy or a migrate: one of them wins */
		if (benign(&c)) {
			es_add(&c.ok, ENOENT);
			o->racers++;
		}
	} else if (benign(&c)) {
		mark_dying(o);
		if (!o->ctx)
			may_block = settle_acks(t, f, h);
		/*
		 * settle_acks drops the lock for its ACK_EVENTS: a racing
		 * destroy (which sees the id dying) may have won meanwhile.
		 */
		if (obj_find(f, h) != o)
			goto out;
		es_add(&c.ok, ENOENT);	/* only with a racer; checked below */
	}
	do_call(t, &c, may_block, 0);
	if (!benign(&c) || c.closing || !c.ran)
		goto out;
	o = obj_find(f, h);
	if (!c.ret) {
		if (!o && hist_gone(f, h))
			fail(t, "%s: handle %u destroyed twice", c.desc, h);
		if (o && !o->ctx)
			check_destroyed(t, &c, f, h);
		if (o)
			obj_gone(w, f, o, false);
	} else if (c.err == ENOENT && o && !twice && !o->racers) {
		fail(t, "%s: ENOENT for a live handle nobody else destroyed",
		     c.desc);
		journal_dump(w, fi);
	}
	if (twice && o)
		o->racers--;
	/*
	 * A racing destroy or migrate still in the kernel may have the
	 * handle (this call's ENOENT): the id stays dying until it returns.
	 */
	if (o && !twice && c.ret && !o->racers) {
		o->dying = false;
		untrap(f, h);
	}
out:
	unpin(f);
}

void act_migrate(struct thr *t)
{
	struct worker *w = t->w;
	struct mfile *sf, *df;
	struct mobj *o, *n;
	struct call c;
	int sfi, dfi, may_block = 0, i, mig_slot = 0;
	u32 h, mig_n = 0;

	sfi = pick_file(t);
	dfi = pick_file(t);
	if (sfi < 0 || dfi < 0)
		return;
	sf = &w->files[sfi];
	df = &w->files[dfi];
	o = pick_obj(t, sf, false, 0, false);
	if (!o || (df != sf && df->nids >= MAX_IDS))
		return;
	/* the call's outcome would update the copy left behind */
	if (o->cm_busy && !cfg.known_slow)
		return;
	h = o->handle;
	call_init(&c, RDMACHAN_CMD_MIGRATE_ID, dfi, df->gen, pick_fd(t, df));
	c.a.migrate_id.fd = pick_fd(t, sf);
	c.a.migrate_id.handle = h;
	/*
	 * EBUSY: requests queued, or an event read meanwhile; ENOENT and
	 * ENODEV: a racing destroy; EBADF and EINVAL: the source file was
	 * closed meanwhile (checked below).
	 */
	c.ok = ES(0, EBUSY, ENOENT, ENODEV, EBADF, EINVAL);
	pin(sf);
	pin(df);
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		if (chance(t, 50)) {
			c.a.migrate_id.fd = -1 - rnd(t, 1000);
			c.ok = ES(EBADF);
		} else {
			c.a.migrate_id.fd = w->nullfd;
			c.ok = ES(EINVAL);
		}
	} else {
		inject(t, &c, sf);
	}
	/*
	 * The fd is checked before the handle: a source file closed during
	 * the call is /dev/null by then, EINVAL (checked below).
	 */
	if (c.fault >= F_HANDLE_ZERO && c.fault <= F_HANDLE_RANDOM)
		es_add(&c.ok, EINVAL);
	if (benign(&c)) {
		struct migr *m = &df->migr[df->nmigr++ % MIGR_RING];

		mark_dying(o);
		m->old_h = h;
		m->new_h = sf == df ? h : 0;
		m->uctx = o->uctx;
		m->prev_uctx = o->prev_uctx;
		m->pending_uctx = o->pending_uctx;
		m->seq_begin = w->seq;
		m->seq_end = 0;
		mig_slot = m - df->migr;
		mig_n = df->nmigr;
		if (sf != df)
			may_block = settle_acks(t, sf, h);
	}
	t->cur_src_fi = sfi;
	do_call(t, &c, may_block, 0);
	t->cur_src_fi = -1;
	if (mig_n && df->gen == c.gen && df->nmigr - mig_n < MIGR_RING) {
		df->migr[mig_slot].seq_end = ++w->seq;
		if (!c.ret)
			df->migr[mig_slot].new_h = c.a.migrate_id.out_handle;
		else
			df->migr[mig_slot].old_h = 0;
	}
	o = obj_find(sf, h);
	if (c.fault >= F_HANDLE_ZERO && c.fault <= F_HANDLE_RANDOM && c.ret &&
	    c.err == EINVAL && sf->state == FS_OPEN)
		fail(t, "%s: source file open, got EINVAL", c.desc);
	if (!benign(&c))
		goto out;
	if (!c.ran) {
		if (o && !o->racers) {
			o->dying = false;
			untrap(sf, h);
		}
		goto out;
	}
	if (c.ret && (c.err == EBADF || c.err == EINVAL) && sf->state == FS_OPEN)
		fail(t, "%s: source file open, got %s", c.desc,
		     errno_name(c.err));
	if (c.ret && (c.err == ENOENT || c.err == ENODEV) && o && !o->racers &&
	    sf->state == FS_OPEN) {
		fail(t, "%s: %s for a live id nobody destroyed", c.desc,
		     errno_name(c.err));
		journal_dump(w, sfi);
	}
	if (!c.ret && o) {
		/* moved, whether or not either file is being closed */
		u32 nh = c.a.migrate_id.out_handle;

		if (sf == df) {
			if (nh != h)
				fail(t, "%s: same file gave handle %u for %u", c.desc,
				     nh, h);
			o->dying = false;
			goto out;
		}
		if (!nh || hist_get(df, nh) == HIST_LIVE || hist_gone(df, nh))
			fail(t, "%s: new handle %u is not fresh", c.desc, nh);
		for (i = 0; i < MAX_EVS; i++)
			if (sf->evs[i].state != E_FREE &&
			    sf->evs[i].id_handle == h &&
			    sf->evs[i].state != E_CLAIMED) {
				fail(t, "%s: migrated with event %u (%s, state %u) unacknowledged",
				     c.desc, sf->evs[i].handle,
				     ev_name(sf->evs[i].type), sf->evs[i].state);
				journal_dump(w, sfi);
			}
		n = df->state == FS_OPEN ? obj_add(w, df, nh, false) : NULL;
		if (n) {
			*n = *o;
			n->handle = nh;
			n->dying = false;
			n->cm_busy = false;
			n->racers = 0;
		}
		journal(w, "t%d migrate f%d h %u -> f%d h %u uctx %#llx", t->idx,
			sfi, h, dfi, nh, (unsigned long long)o->uctx);
		obj_gone(w, sf, o, true);
		stat_add(ST_MIGRATES, 1);
	} else if (o && !o->racers) {
		/* with a racer still in the kernel, as in act_destroy */
		o->dying = false;
		untrap(sf, h);
	}
out:
	/*
	 * Only a benign call marked the id dying, and undid that above; a
	 * faulty one leaves the mark alone: it is a racing destroy's or
	 * migrate's, still in the kernel.
	 */
	unpin(df);
	unpin(sf);
}
