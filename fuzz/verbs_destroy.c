// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: destroys of verbs objects: which objects use one, the
 * DESTROY (EBUSY exactly while it is used, after the CQ events and async
 * events it waits for are acked), and QUERY_ASYNC_EVENTS, what a QP's,
 * CQ's or SRQ's events wait for.
 */
#include "verbs.h"

/* Does @u use @o (as its PD, CQ or SRQ)? */
static bool vobj_uses(const struct vobj *u, const struct vobj *o)
{
	switch (o->kind) {
	case V_PD:
		return u->kind != V_PD && u->kind != V_CQ && u->pd == o->handle;
	case V_CQ:
		return u->kind == V_QP && (u->send_cq == o->handle ||
					   u->recv_cq == o->handle);
	case V_SRQ:
		return u->kind == V_QP && u->srq == o->handle;
	default:
		return false;
	}
}

/* The handles of the objects of @f that use @o, at most @max of them. */
static int vobj_users(struct mfile *f, const struct vobj *o, u32 *users,
		      int max)
{
	int i, n = 0;

	for (i = 0; i < MAX_VOBJS && n < max; i++) {
		const struct vobj *u = &f->vobjs[i];

		if (u->used && vobj_uses(u, o))
			users[n++] = u->handle;
	}
	return n;
}

/*
 * A destroy of object @h that returned at @end_ns succeeded while the
 * model had users of it when the call began. That is right only if the
 * destroy of each of them began before the call returned (the kernel
 * tears a user down inside its destroy call); otherwise returns the
 * first user still there, and what became of it, in @how.
 */
static u32 vobj_user_stayed(struct mfile *f, const u32 *users, int n,
			    u64 end_ns, const char **how)
{
	int i;
	u32 k;

	for (i = 0; i < n; i++) {
		struct vobj *u = vobj_find(f, users[i], -1);

		if (u) {
			if (!u->dying) {
				*how = "live, no destroy of it in flight";
				return u->handle;
			}
			if (u->dying_ns >= end_ns) {
				*how = "its destroy began after the call returned";
				return u->handle;
			}
			continue;
		}
		for (k = 0; k < DEAD_RING && k < f->nvgone; k++) {
			const struct vgone *g = &f->vgone[k];

			if (g->handle == users[i] && g->dying_ns >= end_ns) {
				*how = "destroyed, by a call begun after this one returned";
				return g->handle;
			}
		}
	}
	return 0;
}

void act_vdestroy(struct thr *t)
{
	struct worker *w = t->w;
	u32 users[MAX_VOBJS], stayed;
	struct vobj *o, *u;
	struct mfile *f;
	struct call c;
	const char *how = "";
	char list[120] = "";
	int fi = pick_vfile(t, &f), nusers, i, len = 0, may_block;
	bool racy;
	u8 kind;
	u32 h;

	if (fi < 0)
		return;
	o = vobj_pick(t, f, rnd(t, NVKINDS), true);
	/* mostly one no call is using; sometimes one that is */
	if (!o || (o->busy && chance(t, 70)))
		return;
	if (o->kind == V_CQ && o->cq_unacked) {
		u32 n = o->cq_unacked;

		o->cq_unacked = 0;
		ack_cq(t, fi, f, o, n);
		if (!o->used || o->cq_unacked || o->dying)
			return;
	}
	h = o->handle;
	may_block = async_settle(t, fi, f, o);
	if (may_block < 0)
		return;
	if (may_block)
		w->async_waits++;
	racy = o->busy > 0;
	kind = o->kind;
	nusers = vobj_users(f, o, users, MAX_VOBJS);
	for (i = 0; i < nusers && len < (int)sizeof(list) - 16; i++) {
		u = vobj_find(f, users[i], -1);
		len += snprintf(list + len, sizeof(list) - len, "%s%s %u%s",
				i ? ", " : "", vkind_names[u->kind], u->handle,
				u->dying ? " (dying)" : "");
	}
	call_init(&c, RDMACHAN_CMD_DESTROY, fi, f->gen, pick_fd(t, f));
	h = c.a.destroy.handle = o->handle;
	/*
	 * A user's destroy may win the race with this one: success is
	 * checked below. A user that is being made may get there first.
	 */
	c.ok = nusers || racy ? ES(0, EBUSY) : ES(0);
	c.why = why("%s, %s%s%s", vkind_names[kind],
		    nusers ? "used by " : "unused", list,
		    racy ? ", named by a call in flight" : "");
	o->dying = true;
	o->dying_ns = now_ns();
	pin(f);
	do_call(t, &c, may_block, 0);
	if (may_block)
		w->async_waits--;
	stayed = !c.ret && c.ran ?
		 vobj_user_stayed(f, users, nusers, c.end_ns, &how) : 0;
	if (stayed) {
		u = vobj_find(f, stayed, -1);
		fail(t, "%s: destroyed while %s %u used it (%s)", c.desc,
		     u ? vkind_names[u->kind] : "object", stayed, how);
	}
	o = vobj_find(f, h, -1);
	if (o)
		o->ack_due_ns = 0;
	if (o && !c.ret) {
		async_check_destroyed(t, &c, o);
		vobj_gone(w, f, o);
	} else if (o) {
		o->dying = false;
	}
	unpin(f);
}

/*
 * What a QP's, CQ's or SRQ's events wait for; any other object's handle
 * is ENOENT. Read-only: only the errors are checked.
 */
void act_query_async_events(struct thr *t)
{
	static const int kinds[] = { V_QP, V_CQ, V_SRQ, V_PD, V_MR };
	int kind = kinds[rnd(t, ARRAY_SIZE(kinds))];
	struct vobj *o;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return;
	o = vobj_pick(t, f, kind, false);
	if (!o)
		return;
	call_init(&c, RDMACHAN_CMD_QUERY_ASYNC_EVENTS, fi, f->gen,
		  pick_fd(t, f));
	c.a.query_async_events.handle = o->handle;
	/* a racing destroy may have taken the handle */
	c.ok = kind == V_PD || kind == V_MR ? ES(ENOENT) : ES(0, ENOENT);
	name(&c, o);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	unpin(f);
}
