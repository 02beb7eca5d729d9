// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: the model of a file's verbs objects: their kinds'
 * names, finding, adding, counting, picking and dropping them, handles
 * for bad_handle(), the objects a call names (a destroy of one makes
 * ENOENT right), a PD's device context, the rings of a closed file's CQs,
 * and the file a verbs action is on.
 */
#include "verbs.h"

const char *const vkind_names[NVKINDS] = {
	"PD", "MR", "CQ", "QP", "SRQ", "AH",
};

/* @f is closed: the mappings of its CQs' rings are read once more. */
void verbs_file_gone(struct mfile *f)
{
	int i;

	for (i = 0; i < MAX_VOBJS; i++)
		if (f->vobjs[i].used && f->vobjs[i].ring_map)
			ring_unmap(self_thr(f->w), &f->vobjs[i], "its file's close");
}

struct vobj *vobj_find(struct mfile *f, u32 h, int kind)
{
	int i;

	if (!h)
		return NULL;
	for (i = 0; i < MAX_VOBJS; i++)
		if (f->vobjs[i].used && f->vobjs[i].handle == h &&
		    (kind < 0 || f->vobjs[i].kind == kind))
			return &f->vobjs[i];
	return NULL;
}

struct vobj *vobj_add(struct thr *t, struct mfile *f, u32 h, int kind,
		      const struct call *c)
{
	struct worker *w = t->w;
	int i;

	if (!h || hist_get(f, h))
		fail(t, "%s: new handle %u is not fresh", c->desc, h);
	journal(w, "model f%d: + %s %u", (int)(f - w->files),
		vkind_names[kind], h);
	hist_set(f, h, HIST_LIVE);
	stat_add(ST_VERBS_OBJS, 1);
	for (i = 0; i < MAX_VOBJS; i++) {
		struct vobj *o = &f->vobjs[i];

		if (o->used)
			continue;
		memset(o, 0, sizeof(*o));
		o->used = true;
		o->kind = kind;
		o->handle = h;
		o->chan = -1;
		return o;
	}
	stat_add(ST_MODEL_LOST, 1);
	return NULL;
}

void vobj_gone(struct worker *w, struct mfile *f, struct vobj *o)
{
	hist_set(f, o->handle, ++w->seq << 2 | HIST_DESTROYED);
	journal(w, "model f%d: - %s %u", (int)(f - w->files),
		vkind_names[o->kind], o->handle);
	f->dead[f->ndead++ % DEAD_RING] = o->handle;
	f->vgone[f->nvgone++ % DEAD_RING] = (struct vgone){
		.handle = o->handle, .kind = o->kind, .dying_ns = o->dying_ns,
	};
	if (o->kind == V_MR)
		f->dead_lkeys[f->ndead_lkeys++ % DEAD_LKEYS] = o->lkey;
	if (o->ring_map)
		ring_unmap(self_thr(w), o, "its destroy");
	o->used = false;
}

int vobj_count(struct mfile *f, int kind)
{
	int i, n = 0;

	for (i = 0; i < MAX_VOBJS; i++)
		n += f->vobjs[i].used && f->vobjs[i].kind == kind;
	return n;
}

/* A random live object of @kind; with @usable, none a destroy is after. */
struct vobj *vobj_pick(struct thr *t, struct mfile *f, int kind, bool usable)
{
	struct vobj *pick[MAX_VOBJS];
	int i, n = 0;

	for (i = 0; i < MAX_VOBJS; i++) {
		struct vobj *o = &f->vobjs[i];

		if (o->used && o->kind == kind && (!usable || !o->dying))
			pick[n++] = o;
	}
	return n ? pick[rnd(t, n)] : NULL;
}

/*
 * For bad_handle(): a live object of @f of the kind @hk names, or with
 * @other one of any other kind (a verbs object or a CM one); 0 for none.
 */
u32 vobj_pick_handle(struct thr *t, struct mfile *f, int hk, bool other)
{
	struct mobj *m;
	struct vobj *o;
	int kind;

	if (!other) {
		o = hk >= HK_PD ? vobj_pick(t, f, hk - HK_PD, false) : NULL;
		return o ? o->handle : 0;
	}
	if (chance(t, 40)) {
		m = pick_obj(t, f, chance(t, 50), 0, true);
		if (m && hk != (m->ctx ? HK_CTX : HK_ID))
			return m->handle;
	}
	kind = rnd(t, NVKINDS);
	if (HK_PD + kind == hk)
		kind = (kind + 1) % NVKINDS;
	o = vobj_pick(t, f, kind, false);
	return o ? o->handle : 0;
}

/* The call named an object that is gone or going: ENOENT is right. */
bool vobj_raced(struct mfile *f, const struct call *c)
{
	int i;

	for (i = 0; i < c->nvnamed; i++) {
		struct vobj *o = vobj_find(f, c->vnamed[i], -1);

		if (!o || o->dying)
			return true;
	}
	return false;
}

/* The call names @o: it is busy until unname(). */
void name(struct call *c, struct vobj *o)
{
	if (!o || c->nvnamed == (int)ARRAY_SIZE(c->vnamed))
		return;
	o->busy++;
	c->vnamed[c->nvnamed++] = o->handle;
}

void unname(struct mfile *f, struct call *c)
{
	int i;

	for (i = 0; i < c->nvnamed; i++) {
		struct vobj *o = vobj_find(f, c->vnamed[i], -1);

		if (o)
			o->busy--;
	}
	c->nvnamed = 0;
}

/* The device context of PD @pd: where its objects' async events go. */
u32 pd_ctx(struct mfile *f, u32 pd)
{
	struct vobj *o = vobj_find(f, pd, V_PD);

	return o ? o->ctx : 0;
}

int pick_vfile(struct thr *t, struct mfile **fp)
{
	int fi = pick_file(t);

	if (fi >= 0)
		*fp = &t->w->files[fi];
	return fi;
}
