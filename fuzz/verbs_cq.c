// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: CQs and completion channels: making channels and
 * closing them before their CQs, CREATE_CQ, the check of a completion
 * (POLL_CQ's and a ring's, cq_ring.c), POLL_CQ, REQ_NOTIFY_CQ and
 * ACK_CQ_EVENTS, GET_CQ_EVENT and the CQ an event is of.
 */
#include "verbs.h"

/* The CQ whose user_context is @tag, and its file. */
static struct vobj *cq_by_tag(struct worker *w, u64 tag, struct mfile **fp)
{
	int fi = (tag >> 48) & 0xff, i;
	struct mfile *f;

	if (tag >> 56 != CQ_MAGIC || fi >= MAX_FILES)
		return NULL;
	f = &w->files[fi];
	for (i = 0; i < MAX_VOBJS; i++)
		if (f->vobjs[i].used && f->vobjs[i].kind == V_CQ &&
		    f->vobjs[i].tag == tag) {
			*fp = f;
			return &f->vobjs[i];
		}
	return NULL;
}

void act_create_channel(struct thr *t)
{
	struct worker *w = t->w;
	struct vchan *ch = NULL;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f), i, fdfl;

	if (fi < 0)
		return;
	/* a closed channel's slot waits for the calls still blocked on it */
	for (i = 0; i < MAX_CHANS && !ch; i++)
		if (!w->chans[i].used && !w->chans[i].busy)
			ch = &w->chans[i];
	if (!ch)
		return;
	if (ch->stale) {
		close(ch->fd);
		ch->stale = false;
	}
	call_init(&c, RDMACHAN_CMD_CREATE_COMP_CHANNEL, fi, f->gen,
		  pick_fd(t, f));
	c.ok = ES(0, EMFILE, ENOMEM);
	/* the slot is this call's until it returns */
	ch->busy++;
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	ch->busy--;
	if (!c.ret && c.readback) {
		int fd = c.a.create_comp_channel.out_fd;

		fdfl = fcntl(fd, F_GETFD);
		if (fd < 0 || fdfl < 0 || !(fdfl & FD_CLOEXEC))
			fail(t, "%s: out_fd %d is not a close-on-exec descriptor",
			     c.desc, fd);
		if (fd >= 0 && fdfl >= 0) {
			memset(ch, 0, sizeof(*ch));
			ch->used = true;
			ch->fd = fd;
			if (chance(t, 20))
				fcntl(fd, F_SETFL, O_NONBLOCK);
		}
	}
	unpin(f);
}

/* A channel goes, its CQs stay: they queue no events any more. */
void act_close_channel(struct thr *t)
{
	struct worker *w = t->w;
	struct vchan *ch = &w->chans[rnd(t, MAX_CHANS)];
	int fi, i, idx = (int)(ch - w->chans);

	/* a blocked GET_CQ_EVENT keeps its file; no other call may lose the fd */
	if (!ch->used || ch->busy != ch->blocked)
		return;
	/*
	 * A blocked call may not be in the kernel yet: the fd number stays
	 * taken (by /dev/null, ENOTTY) so that no new file gets it.
	 */
	dup2(w->nullfd, ch->fd);
	ch->used = false;
	ch->stale = true;
	stat_add(ST_CHANNELS_CLOSED, 1);
	for (fi = 0; fi < MAX_FILES; fi++)
		for (i = 0; i < MAX_VOBJS; i++) {
			struct vobj *o = &w->files[fi].vobjs[i];

			if (o->used && o->kind == V_CQ && o->chan == idx)
				o->chan = -2 - idx;
		}
}

void act_create_cq(struct thr *t)
{
	struct worker *w = t->w;
	struct rdmachan_create_cq *a;
	struct vchan *ch = NULL;
	struct mfile *f;
	struct mobj *ctx;
	struct vobj *o;
	struct call c;
	int fi = pick_vfile(t, &f), ci = -1;

	if (fi < 0)
		return;
	ctx = pick_obj(t, f, true, 0, false);
	if (!ctx || vobj_count(f, V_CQ) >= 6)
		return;
	call_init(&c, RDMACHAN_CMD_CREATE_CQ, fi, f->gen, pick_fd(t, f));
	a = &c.a.create_cq;
	a->context = ctx->handle;
	c.target = ctx->handle;
	c.tstate = -1;
	a->cqe = 1 + rnd(t, 64);
	a->comp_channel = RDMACHAN_NO_FD;
	a->comp_vector = rnd(t, cfg.num_comp_vectors ? cfg.num_comp_vectors : 1);
	a->user_context = CQ_MAGIC << 56 | (u64)fi << 48 |
			  (u64)(f->gen & 0xffff) << 32 | (rnd64(t) & 0xffffffff);
	if (chance(t, 70)) {
		ci = rnd(t, MAX_CHANS);
		ch = w->chans[ci].used ? &w->chans[ci] : NULL;
		if (ch)
			a->comp_channel = ch->fd;
		else
			ci = -1;
	}
	c.ok = ES(0, ENOMEM);
	if (chance(t, 15)) {
		c.fault = F_VALUE;
		switch (rnd(t, 5)) {
		case 0:
			a->cqe = chance(t, 50) ? 0 : 0x80000000u + rnd(t, 1000);
			c.why = "cqe";
			c.ok = ES(EINVAL);
			break;
		case 1:
			a->cqe = 1u << (20 + rnd(t, 10));
			c.why = "huge cqe";
			c.ok = ES(EINVAL, ENOMEM);
			break;
		case 2:
			a->comp_vector = cfg.num_comp_vectors + rnd(t, 1000);
			c.why = "comp_vector";
			c.ok = ES(EINVAL);
			break;
		case 3:
			/* not a channel: a /dev/rdmachan file */
			a->comp_channel = pick_fd(t, f);
			c.why = "channel is a device file";
			c.ok = ES(EINVAL);
			break;
		default:
			a->comp_channel = 900 + rnd(t, 100);
			c.why = "channel fd not open";
			c.ok = ES(EBADF);
			break;
		}
		if (a->comp_channel != (ch ? ch->fd : RDMACHAN_NO_FD)) {
			ch = NULL;
			ci = -1;
		}
	}
	/* a ring CQ, which has no channel */
	if (!c.fault && !ch && chance(t, 30))
		a->flags = RDMACHAN_CREATE_CQ_RING;
	if (ch)
		ch->busy++;
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (ch)
		ch->busy--;
	if (!c.ret && c.readback) {
		o = vobj_add(t, f, a->out_handle, V_CQ, &c);
		if (o) {
			o->chan = ci;
			o->tag = a->user_context;
			o->ctx = a->context;
			o->ring = a->flags & RDMACHAN_CREATE_CQ_RING;
			if (a->out_cqe < a->cqe)
				fail(t, "%s: %u entries for %u asked for",
				     c.desc, a->out_cqe, a->cqe);
		}
		if (a->flags & RDMACHAN_CREATE_CQ_RING)
			ring_map(t, &c, f, o, a);
	}
	unpin(f);
}

void check_wc(struct thr *t, struct call *c, int fi,
	      const struct rdmachan_wc *wc, const u8 *tail, u32 tlen)
{
	static const u32 ops[] = {
		IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
		IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD, IBV_WC_BIND_MW,
		IBV_WC_LOCAL_INV, IBV_WC_RECV, IBV_WC_RECV_RDMA_WITH_IMM,
	};
	u32 i;
	bool op_ok = false;

	stat_add(ST_WCS, 1);
	if (wc->status)
		stat_add(ST_WC_ERRORS, 1);
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		op_ok |= wc->opcode == ops[i];
	if (wc->wr_id >> 56 != WR_MAGIC || ((wc->wr_id >> 52) & 0xf) != (u64)fi)
		fail(t, "%s: completion of wr_id %#llx, which was not posted here",
		     c->desc, (unsigned long long)wc->wr_id);
	if (wc->status > IBV_WC_GENERAL_ERR || (!wc->status && !op_ok) ||
	    wc->__reserved)
		fail(t, "%s: completion status %u opcode %u reserved %u",
		     c->desc, wc->status, wc->opcode, wc->__reserved);
	for (i = 0; i < tlen; i++)
		if (tail[i]) {
			fail(t, "%s: bytes past a completion not cleared", c->desc);
			break;
		}
}

void act_poll_cq(struct thr *t)
{
	struct rdmachan_poll_cq *a;
	u8 *wcs = t->bufmap + WCS_OFF;
	struct vobj *cq;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);
	u32 i, stride, room;

	if (fi < 0)
		return;
	cq = vobj_pick(t, f, V_CQ, true);
	if (!cq)
		return;
	call_init(&c, RDMACHAN_CMD_POLL_CQ, fi, f->gen, pick_fd(t, f));
	a = &c.a.poll_cq;
	stride = chance(t, 80) ? WC_SIZE : WC_SIZE + 8 * (1 + rnd(t, 8));
	room = (ARENA_LEN - WCS_OFF) / stride;
	a->cq = cq->handle;
	a->max_wc = 1 + rnd(t, 16);
	a->wcs = (uintptr_t)wcs;
	a->wc_size = stride;
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		if (chance(t, 50)) {
			a->wc_size = rnd(t, WC_SIZE);
			c.ok = ES(EINVAL);
		} else {
			/* nothing to take: nothing written */
			a->max_wc = 0;
		}
	}
	/* a ring CQ is read from its ring, whatever else is wrong */
	if (cq->ring)
		c.ok = ES(EINVAL);
	memset(wcs, POISON, (size_t)room * stride);
	name(&c, cq);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (!c.ret && c.readback) {
		if (a->out_num_wc > a->max_wc || a->out_num_wc > room)
			fail(t, "%s: %u completions for max_wc %u", c.desc,
			     a->out_num_wc, a->max_wc);
		for (i = 0; i < a->out_num_wc && i < room; i++)
			check_wc(t, &c, fi, (void *)(wcs + (size_t)i * stride),
				 wcs + (size_t)i * stride + WC_SIZE,
				 stride - WC_SIZE);
		/*
		 * A batch whose copy out failed (fail-nth in a user copy) is
		 * lost, and may have been written in part.
		 */
		if (i < room && wcs[(size_t)i * stride] != POISON && !c.kfault)
			fail(t, "%s: written past out_num_wc %u", c.desc, i);
	}
	unpin(f);
}

/* ACK_CQ_EVENTS for events the model has taken off @cq already. */
void ack_cq(struct thr *t, int fi, struct mfile *f, struct vobj *cq,
	    u32 num)
{
	struct call c;

	call_init(&c, RDMACHAN_CMD_ACK_CQ_EVENTS, fi, f->gen, pick_fd(t, f));
	c.a.notify_cq.cq = cq->handle;
	c.a.notify_cq.num_acks = num;
	c.no_kfault = true;
	name(&c, cq);
	pin(f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (c.ret && vobj_find(f, c.a.notify_cq.cq, V_CQ) == cq)
		cq->cq_unacked += num;
	unpin(f);
}

void act_notify_cq(struct thr *t, bool ack_only)
{
	struct rdmachan_notify_cq *a;
	struct vobj *cq;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);
	u32 claimed;

	if (fi < 0)
		return;
	cq = vobj_pick(t, f, V_CQ, false);
	if (!cq)
		return;
	call_init(&c, ack_only ? RDMACHAN_CMD_ACK_CQ_EVENTS :
		  RDMACHAN_CMD_REQ_NOTIFY_CQ, fi, f->gen, pick_fd(t, f));
	a = &c.a.notify_cq;
	a->cq = cq->handle;
	if (!ack_only && chance(t, 20))
		a->flags = RDMACHAN_NOTIFY_SOLICITED;
	/* claimed now, so that no other thread acks them too */
	claimed = chance(t, 60) ? cq->cq_unacked : rnd(t, cq->cq_unacked + 1);
	cq->cq_unacked -= claimed;
	a->num_acks = claimed;
	c.ok = ES(0);
	if (chance(t, 10)) {
		/* more than were taken: none is acked */
		c.fault = F_VALUE;
		cq->cq_unacked += claimed;
		claimed = 0;
		a->num_acks = cq->cq_unacked + 16 + rnd(t, 1000);
		c.ok = ES(EINVAL);
	}
	name(&c, cq);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (vobj_find(f, a->cq, V_CQ) == cq) {
		if (c.ret || !c.ran || c.fault >= F_HANDLE_ZERO)
			cq->cq_unacked += claimed;
		else if (!ack_only)
			cq->armed = true;
	}
	unpin(f);
}

void act_get_cq_event(struct thr *t)
{
	struct worker *w = t->w;
	struct rdmachan_get_cq_event *a;
	struct vchan *ch = &w->chans[rnd(t, MAX_CHANS)];
	struct mfile *cf = NULL;
	struct vobj *cq;
	struct call c;
	u64 timer = 0;
	bool blocking;

	if (!ch->used)
		return;
	call_init(&c, RDMACHAN_CMD_GET_CQ_EVENT, -1, 0, ch->fd);
	c.chan = ch;
	a = &c.a.get_cq_event;
	blocking = t->have_timer && chance(t, 20);
	if (!blocking)
		a->flags = RDMACHAN_GET_CQ_EVENT_NONBLOCK;
	/* the channel may be O_NONBLOCK: EAGAIN then */
	c.ok = ES(0, EAGAIN, EINTR);
	inject(t, &c, NULL);
	if (c.fault == F_NONE || c.fault == F_SIZE_LONG_ZERO ||
	    c.fault == F_ARG_READONLY) {
		c.blocking = blocking;
		if (blocking)
			timer = (20 + rnd(t, 300)) * MSEC;
	}
	ch->busy++;
	ch->blocked += c.blocking;
	do_call(t, &c, 0, timer);
	ch->busy--;
	ch->blocked -= c.blocking;
	if (c.ret || !c.readback)
		return;
	stat_add(ST_CQ_EVENTS, 1);
	cq = cq_by_tag(w, a->out_user_context, &cf);
	if (!cq) {
		int fi = (a->out_user_context >> 48) & 0xff;

		/* a closed file's CQs live until its release */
		if (a->out_user_context >> 56 == CQ_MAGIC && fi < MAX_FILES &&
		    ((a->out_user_context >> 32) & 0xffff) !=
		    (u64)(w->files[fi].gen & 0xffff)) {
			stat_add(ST_CQ_EVENTS_STALE, 1);
			return;
		}
		fail(t, "%s: an event of CQ %u, user_context %#llx, that this worker does not have",
		     c.desc, a->out_cq,
		     (unsigned long long)a->out_user_context);
		return;
	}
	/*
	 * A call blocked on the channel when it was closed holds its file:
	 * the release comes after the call, so an event may still arrive.
	 */
	if (cq->handle != a->out_cq ||
	    (cq->chan != (int)(ch - w->chans) &&
	     !(c.blocking && cq->chan == -2 - (int)(ch - w->chans))) ||
	    !cq->armed)
		fail(t, "%s: event of CQ %u for CQ %u on channel %d (this is %d), %sarmed",
		     c.desc, a->out_cq, cq->handle, cq->chan,
		     (int)(ch - w->chans), cq->armed ? "" : "never ");
	cq->cq_unacked++;
	/* its destroy waits for this one */
	if (cq->dying) {
		cq->cq_unacked--;
		ack_cq(t, (int)(cf - w->files), cf, cq, 1);
	}
}
