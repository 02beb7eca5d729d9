// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: the CM events read: each checked against the model and
 * taken into it, and the connect requests nobody took.
 */
#include "fuzz.h"

const char *ev_name(u32 type)
{
	static const char *const names[] = {
		"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
		"CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR",
		"UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED",
		"DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR",
		"ADDR_CHANGE", "TIMEWAIT_EXIT",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "UNKNOWN";
}

bool all_zero(const void *p, size_t len)
{
	const u8 *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static void model_event(struct thr *t, struct mfile *f, int fi,
			const struct rdmachan_cm_event *ev)
{
	struct mobj *o = obj_find(f, ev->id_handle), *n;

	(void)fi;
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		stat_add(ST_CONNECT_REQUESTS, 1);
		n = obj_add(t->w, f, ev->new_id_handle, false);
		if (n) {
			n->state = S_REQ;
			n->role = R_SERVER;
			n->ps = o ? o->ps : RDMA_PS_TCP;
			n->uctx = ev->user_context;
			n->prev_uctx = ev->user_context;
		}
		return;
	case RDMA_CM_EVENT_ESTABLISHED:
		stat_add(ST_ESTABLISHED, 1);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		stat_add(ST_REFUSED, 1);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		stat_add(ST_DISCONNECTED, 1);
		break;
	default:
		break;
	}
	if (!o)
		return;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		o->state = S_ADDR_RESOLVED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		o->state = S_BOUND;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		o->state = S_ROUTE_RESOLVED;
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		o->state = S_ADDR_RESOLVED;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		o->state = S_RESPONDED;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		o->state = S_CONNECTED;
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		o->state = S_FAILED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		o->state = S_DISCONNECTED;
		break;
	default:
		break;
	}
}

/*
 * Does the event name an id migrated into @f by the handle it had in its
 * old file? Reported once per event: a reader on the new file can take
 * the id's events between the move and the id's new handle.
 */
static bool migrated_old_handle(struct thr *t, struct call *c, struct mfile *f,
				const struct rdmachan_cm_event *ev,
				const struct mobj *o)
{
	u32 i, n = f->nmigr < MIGR_RING ? f->nmigr : MIGR_RING;

	for (i = 0; i < n; i++) {
		struct migr *m = &f->migr[i];

		/* in flight: the orphan check settles it once the new handle is known */
		if (!m->seq_end || !m->new_h || m->old_h != ev->id_handle ||
		    m->old_h == m->new_h || m->seq_end < c->start_seq)
			continue;
		if (ev->user_context != m->uctx && ev->user_context != m->prev_uctx &&
		    ev->user_context != m->pending_uctx)
			continue;
		if (o && (ev->user_context == o->uctx ||
			  ev->user_context == o->prev_uctx ||
			  ev->user_context == o->pending_uctx))
			continue;
		fail(t, "%s: event %u %s names id %u by the handle it had in the file it was migrated from (new handle %u)%s",
		     c->desc, ev->event_handle, ev_name(ev->event), ev->id_handle,
		     m->new_h, o ? ", which here is another id" : "");
		return true;
	}
	return false;
}

/* A migrate into @f of an id with this user_context is still running. */
static bool migr_in_flight(struct mfile *f, const struct rdmachan_cm_event *ev)
{
	u32 i, n = f->nmigr < MIGR_RING ? f->nmigr : MIGR_RING;

	for (i = 0; i < n; i++) {
		struct migr *m = &f->migr[i];

		if (!m->seq_end && m->old_h == ev->id_handle &&
		    (ev->user_context == m->uctx || ev->user_context == m->prev_uctx ||
		     ev->user_context == m->pending_uctx))
			return true;
	}
	return false;
}

/*
 * One event returned by GET_EVENTS on file @fi, checked and recorded.
 * @raw is the whole element, @stride bytes.
 */
void take_event(struct thr *t, struct call *c, int fi, const u8 *raw,
		       u32 stride)
{
	struct mfile *f = &t->w->files[fi];
	struct rdmachan_cm_event ev;
	struct mev *e;
	struct mobj *o;
	u32 v, i;

	/* an old layout's reader (stride RDMACHAN_CM_EVENT_SIZE_V1) sees less */
	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, raw, stride < EV_SIZE ? stride : EV_SIZE);
	stat_add(ST_EVENTS, 1);
	journal(t->w, "t%d   f%d event %u %s status %d id %u new %u uctx %#llx (read #%llu seq %u)",
		t->idx, fi, ev.event_handle, ev_name(ev.event), ev.status,
		ev.id_handle, ev.new_id_handle,
		(unsigned long long)ev.user_context,
		(unsigned long long)t->ncalls, c->start_seq);
	if (stride > EV_SIZE && !all_zero(raw + EV_SIZE, stride - EV_SIZE))
		fail(t, "%s: bytes past the event (stride %u) not cleared",
		     c->desc, stride);
	if (!ev.event_handle || ev.event_handle >= 0x80000000u)
		fail(t, "%s: event handle %u", c->desc, ev.event_handle);
	if (ev.event > RDMA_CM_EVENT_TIMEWAIT_EXIT)
		fail(t, "%s: event type %u", c->desc, ev.event);
	if (ev.__reserved || !all_zero(ev.ah_attr.__reserved,
				       sizeof(ev.ah_attr.__reserved)))
		fail(t, "%s: reserved bytes of an event set", c->desc);
	if (!(ev.valid & RDMACHAN_CM_EVENT_ROUTE) ||
	    ev.valid & ~(RDMACHAN_CM_EVENT_ROUTE | RDMACHAN_CM_EVENT_CONN |
			 RDMACHAN_CM_EVENT_UD))
		fail(t, "%s: event valid bits %#x", c->desc, ev.valid);
	if (!all_zero(ev.private_data + ev.private_data_len,
		      sizeof(ev.private_data) - ev.private_data_len))
		fail(t, "%s: event private data past its length (%u) not zero",
		     c->desc, ev.private_data_len);
	if (ev.route.num_paths > RDMACHAN_CM_MAX_PATHS)
		fail(t, "%s: %u paths", c->desc, ev.route.num_paths);
	for (i = ev.route.num_paths; i < RDMACHAN_CM_MAX_PATHS; i++)
		if (!all_zero(&ev.route.path[i], sizeof(ev.route.path[i])))
			fail(t, "%s: unused path record %u not zero", c->desc, i);
	if ((ev.event == RDMA_CM_EVENT_CONNECT_REQUEST) != !!ev.new_id_handle)
		fail(t, "%s: event %u with new id handle %u", c->desc, ev.event,
		     ev.new_id_handle);
	if (ev_find(f, ev.event_handle) || acked_recently(f, ev.event_handle)) {
		e = ev_find(f, ev.event_handle);
		fail(t, "%s: event handle %u returned twice (%s, %s for id %u)",
		     c->desc, ev.event_handle, e ? "unacked" : "acked",
		     e ? ev_name(e->type) : "-", e ? e->id_handle : 0);
		journal_dump(t->w, fi);
	}
	if (ev.new_id_handle && hist_get(f, ev.new_id_handle))
		fail(t, "%s: connect request's new id %u was already known",
		     c->desc, ev.new_id_handle);

	v = hist_get(f, ev.id_handle);
	if (v && v != HIST_LIVE && (v >> 2) < c->start_seq &&
	    !migrated_old_handle(t, c, f, &ev, NULL))
		fail(t, "%s: event %u %s for id %u that was %s before the read began",
		     c->desc, ev.event_handle, ev_name(ev.event), ev.id_handle,
		     (v & 3) == HIST_MIGRATED ? "migrated away" : "destroyed"),
		journal_dump(t->w, -1);
	o = obj_find(f, ev.id_handle);
	if (o && ev.user_context != o->uctx && ev.user_context != o->prev_uctx &&
	    ev.user_context != o->pending_uctx &&
	    !migrated_old_handle(t, c, f, &ev, o) && !migr_in_flight(f, &ev))
		fail(t, "%s: event %u %s for id %u (%s %s): user_context %#llx, the id's is %#llx",
		     c->desc, ev.event_handle, ev_name(ev.event), ev.id_handle,
		     o->role == R_SERVER ? "passive" : o->role == R_LISTENER ?
		     "listener" : "active", state_names[o->state],
		     (unsigned long long)ev.user_context,
		     (unsigned long long)o->uctx);
	if (!v && f->norphans < MAX_ORPHANS) {
		/* a new id or a migrated one that its thread has not noted yet */
		struct orphan *orph = &f->orphans[f->norphans++];

		orph->id_handle = ev.id_handle;
		orph->type = ev.event;
		orph->uctx = ev.user_context;
		orph->start_seq = c->start_seq;
		orph->ns = now_ns();
		snprintf(orph->desc, DESC_LEN, "%s", c->desc);
	}

	e = NULL;
	for (i = 0; i < MAX_EVS && !e; i++)
		if (f->evs[i].state == E_FREE)
			e = &f->evs[i];
	if (!e) {
		/* cannot happen: readers reserve their slots */
		fail(t, "%s: no room for event in the model", c->desc);
		return;
	}
	e->state = E_UNACKED;
	e->handle = ev.event_handle;
	e->id_handle = ev.id_handle;
	e->type = ev.event;
	e->due_ns = 0;
	if (o && o->dying) {
		/* its destroy waits for this one too: ack it soon */
		e->state = E_DEFERRED;
	}
	if (cfg.verbose)
		fprintf(stderr, "w%d.%d.t%d   event %u %s status %d id %u (%s) new %u\n",
			t->w->index, t->w->gen, t->idx, ev.event_handle,
			ev_name(ev.event), ev.status, ev.id_handle,
			o ? state_names[o->state] : "?", ev.new_id_handle);
	model_event(t, f, fi, &ev);
}

/* Events whose id this file did not know must be explained soon. */
void check_orphans(struct thr *t)
{
	u64 now = now_ns();
	int fi, i;

	for (fi = 0; fi < MAX_FILES; fi++) {
		struct mfile *f = &t->w->files[fi];

		for (i = 0; i < f->norphans; i++) {
			struct orphan *o = &f->orphans[i];

			if (!hist_get(f, o->id_handle) && now - o->ns < 5 * NSEC)
				continue;
			if (!hist_get(f, o->id_handle)) {
				struct rdmachan_cm_event ev = {
					.id_handle = o->id_handle,
					.event = o->type,
					.user_context = o->uctx,
				};
				struct call c = { .start_seq = o->start_seq };

				memcpy(c.desc, o->desc, DESC_LEN);
				if (!migrated_old_handle(t, &c, f, &ev, NULL))
					fail(t, "event %s for id %u that this file never had (%s)",
					     ev_name(o->type), o->id_handle, o->desc);
			}
			f->orphans[i--] = f->orphans[--f->norphans];
		}
	}
}
