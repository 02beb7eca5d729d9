// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: verbs objects and the data path, against a module with
 * RDMACHAN_FEATURE_VERBS.
 *
 * The worker's threads keep a model of each file's PDs, MRs, CQs, QPs,
 * SRQs and AHs and of the worker's completion channels, and make the
 * calls a library makes: UD, UC and RC QPs taken to RTS by hand (towards
 * the worker's own QPs) or made for CM ids, receives and sends between
 * them, polls, CQs armed and their channel events. Their own faults:
 * MRs of unmapped, read-only, kernel or vanishing memory or with bad
 * access flags; SGEs with lkeys of other PDs or files, stale or random
 * ones, or outside their MR; handles of other files and other kinds in
 * every handle field; bad counts, strides and pointers; channels closed
 * before their CQs and CQs destroyed before their channels; destroys of
 * objects still in use. The generic faults of rdmachan_fuzz.c (sizes,
 * pointers, flags, reserved fields, the first handle) come on top.
 *
 * Checked: each call's errno against the uAPI's; a destroy refuses
 * exactly what is in use; no request past a bad one is posted
 * (out_num_posted); completions carry a wr_id that was posted, a valid
 * status and opcode; channel events come only for CQs of that channel
 * that were armed.
 */
#include "fuzz.h"

#define WR_MAGIC	0xc5ull
#define CQ_MAGIC	0xcbull
#define FUZZ_QKEY	0x2a2a0000u
#define MR_MEM_LEN	(256 * 1024)
/* the last part of the MR memory is unmapped and mapped again now and then */
#define MR_SCRATCH	(64 * 1024)
#define MAX_POST	6
#define MAX_SGE		4
#define QPS_UNKNOWN	0xff
#define WC_SIZE		sizeof(struct rdmachan_wc)
/* where in the thread's buffer arena a call's arrays go */
#define WRS_OFF		(32 * 1024)
#define SGES_OFF	(40 * 1024)
#define WCS_OFF		(44 * 1024)

/* A call's description of its own, in the thread's buffer. */
static __thread char why_buf[160];

static const char *why(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static const char *why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

static const char *const vkind_names[NVKINDS] = {
	"PD", "MR", "CQ", "QP", "SRQ", "AH",
};

/* The port's GID of the test address, RoCE v2: what AVs point at. */
int verbs_setup(int fd, u32 ctx)
{
	u8 want[16] = { [10] = 0xff, [11] = 0xff };
	u32 i;

	memcpy(want + 12, &cfg.addr, 4);
	for (i = 0; i < cfg.gid_tbl_len && i < 64; i++) {
		struct rdmachan_query_gid q = {
			.size = sizeof(q), .handle = ctx, .port_num = 1,
			.index = i,
		};

		if (ioctl(fd, RDMACHAN_IOC_QUERY_GID, &q))
			continue;
		if (q.out_gid_type == RDMACHAN_GID_TYPE_ROCE_V2 &&
		    !memcmp(q.out_gid, want, 16)) {
			cfg.gid_index = i;
			memcpy(cfg.gid, want, 16);
			return 0;
		}
	}
	return -1;
}

/* ---- the model ---- */

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

static struct vobj *vobj_add(struct thr *t, struct mfile *f, u32 h, int kind,
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

static void vobj_gone(struct worker *w, struct mfile *f, struct vobj *o)
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

static int vobj_count(struct mfile *f, int kind)
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

/*
 * A handle that is certainly not a live @kind object of @f: a destroyed
 * one, one of another kind, or one past any handle; 0 if none came up.
 */
static u32 bad_vhandle(struct thr *t, struct mfile *f, int kind)
{
	u32 h;
	int k;

	for (k = 0; k < 4; k++) {
		switch (rnd(t, 3)) {
		case 0:
			if (!f->ndead)
				continue;
			h = f->dead[rnd(t, f->ndead < DEAD_RING ? f->ndead :
					DEAD_RING)];
			if (hist_get(f, h) == HIST_LIVE)
				continue;
			return h;
		case 1:
			h = vobj_pick_handle(t, f, HK_PD + kind, true);
			if (!h || vobj_find(f, h, kind))
				continue;
			return h;
		default:
			return 0x80000000u | (u32)rnd64(t);
		}
	}
	return 0x80000000u | (u32)rnd64(t);
}

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

/* The worker's memory for MRs and buffers, mapped on first use. */
static u8 *mr_mem(struct worker *w)
{
	u8 *p;

	if (w->mr_mem)
		return w->mr_mem;
	p = mmap(NULL, MR_MEM_LEN + cfg.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + MR_MEM_LEN, cfg.page, PROT_NONE)) {
		munmap(p, MR_MEM_LEN + cfg.page);
		return NULL;
	}
	memset(p, 0x5c, MR_MEM_LEN);
	w->mr_mem = p;
	return p;
}

/*
 * The pages under MRs go away and new ones come: the MRs keep theirs
 * pinned, so what the device reads or writes stays in those.
 */
static void remap_scratch(struct worker *w)
{
	u8 *s = w->mr_mem + MR_MEM_LEN - MR_SCRATCH;

	munmap(s, MR_SCRATCH);
	/* on failure the hole stays: MRs there get EFAULT, as they may */
	mmap(s, MR_SCRATCH, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	stat_add(ST_SCRATCH_REMAPS, 1);
}

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

/* The device context of PD @pd: where its objects' async events go. */
static u32 pd_ctx(struct mfile *f, u32 pd)
{
	struct vobj *o = vobj_find(f, pd, V_PD);

	return o ? o->ctx : 0;
}

static int pick_vfile(struct thr *t, struct mfile **fp)
{
	int fi = pick_file(t);

	if (fi >= 0)
		*fp = &t->w->files[fi];
	return fi;
}

/* ---- objects ---- */

static void act_alloc_pd(struct thr *t)
{
	struct mfile *f;
	struct mobj *ctx;
	struct call c;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return;
	ctx = pick_obj(t, f, true, 0, false);
	if (!ctx) {
		act_open_device(t);
		return;
	}
	if (vobj_count(f, V_PD) >= 4)
		return;
	/* a library opens the context's async event file with it */
	if (chance(t, 50)) {
		u32 h = ctx->handle;

		open_async(t, fi, ctx, true);
		if (f->state != FS_OPEN || !ctx_live(f, h))
			return;
	}
	call_init(&c, RDMACHAN_CMD_ALLOC_PD, fi, f->gen, pick_fd(t, f));
	c.a.alloc_pd.context = ctx->handle;
	c.target = ctx->handle;
	c.tstate = -1;
	c.ok = ES(0, ENOMEM);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (!c.ret && c.readback) {
		struct vobj *o = vobj_add(t, f, c.a.alloc_pd.out_handle, V_PD,
					  &c);

		if (o)
			o->ctx = c.a.alloc_pd.context;
	}
	unpin(f);
}

/* Memory for an MR: mostly the worker's, sometimes pages that vanish. */
static void mr_range(struct thr *t, u8 *mem, u64 *addr, u64 *len,
		     bool *scratch)
{
	u64 main_len = MR_MEM_LEN - MR_SCRATCH, off;

	*scratch = chance(t, 10);
	*len = 1 + rnd(t, chance(t, 70) ? 4096 : 16384);
	if (*scratch) {
		off = main_len + rnd(t, MR_SCRATCH - *len);
	} else {
		off = rnd(t, main_len - *len);
		if (chance(t, 50))
			off &= ~(u64)(cfg.page - 1);
	}
	*addr = (uintptr_t)(mem + off);
}

static void act_reg_mr(struct thr *t)
{
	struct worker *w = t->w;
	struct rdmachan_reg_mr *a;
	u8 *mem = mr_mem(w);
	struct vobj *pd, *o;
	struct mfile *f;
	struct call c;
	bool scratch;
	u64 addr, len;
	int fi = pick_vfile(t, &f);

	if (fi < 0 || !mem)
		return;
	pd = vobj_pick(t, f, V_PD, true);
	if (!pd || vobj_count(f, V_MR) >= 10)
		return;
	call_init(&c, RDMACHAN_CMD_REG_MR, fi, f->gen, pick_fd(t, f));
	a = &c.a.reg_mr;
	a->pd = pd->handle;
	mr_range(t, mem, &addr, &len, &scratch);
	a->addr = addr;
	a->length = len;
	a->iova = chance(t, 70) ? a->addr : (0x100000ull + rnd64(t) % (1ull << 40)) & ~7ull;
	a->access = IBV_ACCESS_LOCAL_WRITE;
	if (chance(t, 60))
		a->access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (chance(t, 20))
		a->access |= IBV_ACCESS_REMOTE_ATOMIC;
	if (chance(t, 15))
		a->access = chance(t, 50) ? IBV_ACCESS_REMOTE_READ : 0;
	/* the pages may be unmapped at the moment */
	c.ok = scratch ? ES(0, ENOMEM, EFAULT) : ES(0, ENOMEM);
	if (chance(t, 20)) {
		c.fault = F_VALUE;
		switch (rnd(t, 9)) {
		case 0:
			a->length = 0;
			c.why = "length 0";
			c.ok = ES(EINVAL);
			break;
		case 1:
			a->addr = ~0ull - rnd(t, 4096);
			a->length = 8192;
			c.why = "address wraps";
			c.ok = ES(EINVAL);
			break;
		case 2:
			a->iova = ~0ull - rnd(t, 100);
			a->length = 4096;
			c.why = "iova wraps";
			c.ok = ES(EINVAL);
			break;
		case 3:
			/* memory window, zero based, on demand, huge pages */
			a->access |= 0x10 << rnd(t, 4);
			c.why = "unsupported access";
			c.ok = ES(EOPNOTSUPP);
			break;
		case 4:
			/* bits 20 to 29 are optional ones: they are dropped */
			a->access |= chance(t, 50) ? 1u << (8 + rnd(t, 12)) :
				     1u << (30 + rnd(t, 2));
			c.why = "unknown access";
			c.ok = ES(EINVAL);
			break;
		case 5:
			a->access = IBV_ACCESS_REMOTE_WRITE |
				    (chance(t, 50) ? IBV_ACCESS_REMOTE_ATOMIC : 0);
			c.why = "remote write without local write";
			c.ok = ES(EINVAL);
			break;
		case 6:
			if (chance(t, 50)) {
				/* below mmap_min_addr: never mapped */
				a->addr = 0x1000 + rnd(t, 0x8000);
				a->length = 1 + rnd(t, 0x4000);
				c.why = "unmapped memory";
				c.ok = ES(EFAULT);
				break;
			}
			/*
			 * The guard page, PROT_NONE, or running into it. 6.1's
			 * ib_umem_get() pins with FOLL_FORCE when the MR is not
			 * writable, which breaks COW of a private mapping.
			 */
			a->addr = (uintptr_t)mem + MR_MEM_LEN -
				  (chance(t, 50) ? 0 : rnd(t, 4096));
			a->length = 4096 + rnd(t, 8192);
			c.why = "PROT_NONE memory";
			c.ok = a->access & IBV_ACCESS_LOCAL_WRITE ? ES(EFAULT) :
			       ES(0, EFAULT, ENOMEM);
			break;
		case 7:
			a->addr = chance(t, 50) ? 0xffff888000000000ull :
				  0x0000800000000000ull - 4096;
			a->length = 4096;
			c.why = "kernel or no memory";
			c.ok = ES(EFAULT);
			break;
		default:
			/* read-only pages: fine unless written to */
			a->addr = (uintptr_t)t->ro_view + rnd(t, 2048);
			a->length = 1 + rnd(t, 2048);
			a->iova = a->addr;
			c.why = "read-only memory";
			/* 6.1 pins even a read-only MR for writing (FOLL_FORCE) */
			c.ok = a->access & (IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_ATOMIC) ?
			       ES(EFAULT) : ES(0, EFAULT, ENOMEM);
			break;
		}
	}
	/*
	 * rxe cannot find an iova range's last page past the address's: the
	 * module refuses the MR after its argument checks, before it pins.
	 */
	if (a->length && !es_has(&c.ok, EINVAL) &&
	    !es_has(&c.ok, EOPNOTSUPP) &&
	    ((a->iova & 4095) + a->length - 1) / 4096 >
	    ((a->addr & 4095) + a->length - 1) / 4096) {
		c.ok = ES(EINVAL, ENOMEM);
		c.why = c.why ? c.why : "iova range ends a page later";
	}
	c.why = why("%s addr %#llx len %#llx iova %#llx access %#x",
		    c.why ? c.why : "", (unsigned long long)a->addr,
		    (unsigned long long)a->length, (unsigned long long)a->iova,
		    a->access);
	name(&c, pd);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (!c.ret && c.readback) {
		o = vobj_add(t, f, a->out_handle, V_MR, &c);
		if (o) {
			o->pd = a->pd;
			o->iova = a->iova;
			o->len = a->length;
			o->lkey = a->out_lkey;
			o->rkey = a->out_rkey;
			o->access = a->access;
		}
	}
	unpin(f);
}

static void act_create_channel(struct thr *t)
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
static void act_close_channel(struct thr *t)
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

static void act_create_cq(struct thr *t)
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

static void act_create_srq(struct thr *t)
{
	struct rdmachan_create_srq *a;
	struct vobj *pd, *o;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return;
	pd = vobj_pick(t, f, V_PD, true);
	if (!pd || vobj_count(f, V_SRQ) >= 3)
		return;
	call_init(&c, RDMACHAN_CMD_CREATE_SRQ, fi, f->gen, pick_fd(t, f));
	a = &c.a.create_srq;
	a->pd = pd->handle;
	a->attr.max_wr = 1 + rnd(t, 32);
	a->attr.max_sge = 1 + rnd(t, MAX_SGE);
	a->user_context = rnd64(t);
	c.ok = ES(0, ENOMEM);
	if (chance(t, 15)) {
		c.fault = F_VALUE;
		switch (rnd(t, 3)) {
		case 0:
			/* rxe makes too few into its minimum */
			a->attr.max_wr = chance(t, 50) ? 0 : 1u << (21 + rnd(t, 11));
			c.why = "max_wr";
			c.ok = a->attr.max_wr ? ES(EINVAL, ENOMEM) :
			       ES(0, EINVAL, ENOMEM);
			break;
		case 1:
			a->attr.max_sge = 1000 + rnd(t, 1000);
			c.why = "max_sge";
			c.ok = ES(EINVAL);
			break;
		default:
			a->attr.__reserved = 1 + rnd(t, 100);
			c.why = "reserved";
			c.ok = ES(EINVAL);
			break;
		}
	}
	name(&c, pd);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (!c.ret && c.readback) {
		o = vobj_add(t, f, a->out_handle, V_SRQ, &c);
		if (o) {
			o->pd = a->pd;
			o->ctx = pd_ctx(f, a->pd);
			o->uctx = a->user_context;
			o->max_sge = a->out_attr.max_sge;
			if (a->out_attr.max_wr < a->attr.max_wr ||
			    a->out_attr.max_sge < a->attr.max_sge)
				fail(t, "%s: SRQ of %u WRs, %u SGEs for %u, %u asked for",
				     c.desc, a->out_attr.max_wr,
				     a->out_attr.max_sge, a->attr.max_wr,
				     a->attr.max_sge);
		}
	}
	unpin(f);
}

static void fill_av(struct rdmachan_ah_attr *av)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, cfg.gid, 16);
	av->sgid_index = cfg.gid_index;
	av->hop_limit = 64;
	av->is_global = 1;
	av->port_num = 1;
}

static void create_ah(struct thr *t, int fi, struct mfile *f, struct vobj *pd)
{
	struct rdmachan_create_ah *a;
	struct vobj *o;
	struct call c;

	call_init(&c, RDMACHAN_CMD_CREATE_AH, fi, f->gen, pick_fd(t, f));
	a = &c.a.create_ah;
	a->pd = pd->handle;
	fill_av(&a->attr);
	c.ok = ES(0, ENOMEM);
	if (chance(t, 15)) {
		c.fault = F_VALUE;
		switch (rnd(t, 5)) {
		case 0:
			/* RoCE needs a GRH */
			a->attr.is_global = 0;
			c.why = "no GRH";
			c.ok = ES(EINVAL);
			break;
		case 1:
			a->attr.port_num = chance(t, 50) ? 0 : 2 + rnd(t, 250);
			c.why = "port";
			c.ok = ES(EINVAL);
			break;
		case 2:
			/* an empty slot of the GID table */
			a->attr.sgid_index = 200 + rnd(t, 56);
			c.why = "sgid_index";
			c.ok = ES(EINVAL, ENODATA);
			break;
		case 3:
			a->attr.__reserved[rnd(t, 2)] = 1 + rnd(t, 255);
			c.why = "reserved";
			c.ok = ES(EINVAL);
			break;
		default:
			/* a neighbour nobody answers for: ARP times out */
			a->attr.dgid[15] = 2 + rnd(t, 250);
			c.why = "unresolvable neighbour";
			c.ok = ES(0, ETIMEDOUT, ENODATA, EHOSTUNREACH,
				  ENETUNREACH, EADDRNOTAVAIL, ENOMEM);
			break;
		}
	}
	name(&c, pd);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (!c.ret && c.readback) {
		o = vobj_add(t, f, a->out_handle, V_AH, &c);
		if (o)
			o->pd = a->pd;
	}
	unpin(f);
}

static void act_create_ah(struct thr *t)
{
	struct vobj *pd;
	struct mfile *f;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return;
	pd = vobj_pick(t, f, V_PD, true);
	if (pd && vobj_count(f, V_AH) < 4)
		create_ah(t, fi, f, pd);
}

/* ---- QPs ---- */

static void qp_model(struct vobj *o, const struct rdmachan_create_qp *a,
		     bool cm)
{
	o->pd = a->pd;
	o->send_cq = a->send_cq;
	o->recv_cq = a->recv_cq;
	o->srq = a->srq;
	o->qpt = a->qp_type;
	o->qpn = a->out_qp_num;
	o->cm = cm;
	o->qps = cm ? QPS_UNKNOWN : QPS_RESET;
	o->max_send_sge = a->out_cap.max_send_sge;
	o->max_recv_sge = a->out_cap.max_recv_sge;
	o->max_inline = a->out_cap.max_inline_data;
}

/* A CM id of this worker the QP may be for, and its file's fd. */
static struct mobj *pick_cm_id(struct thr *t, struct mfile **idf, int *fd,
			       u32 *qpt)
{
	struct mfile *f;
	struct mobj *id;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return NULL;
	id = pick_obj(t, f, false,
		      1u << S_BOUND | 1u << S_ADDR_RESOLVED |
		      1u << S_ROUTE_RESOLVED | 1u << S_REQ |
		      1u << S_CONNECTED | 1u << S_LISTEN, false);
	if (!id)
		return NULL;
	*idf = f;
	*fd = pick_fd(t, f);
	*qpt = id->ps == RDMA_PS_TCP ? IBV_QPT_RC :
	       id->ps == RDMA_PS_IB && chance(t, 50) ? IBV_QPT_RC : IBV_QPT_UD;
	return id;
}

static void act_create_qp(struct thr *t)
{
	struct rdmachan_create_qp *a;
	struct vobj *pd, *scq, *rcq, *srq = NULL, *o;
	struct mobj *id = NULL;
	struct mfile *f, *idf = NULL;
	struct call c;
	int fi = pick_vfile(t, &f), cm_fd = -1, h;
	u32 cm_qpt = 0;
	bool own_cm_fd = false;

	if (fi < 0)
		return;
	pd = vobj_pick(t, f, V_PD, true);
	scq = vobj_pick(t, f, V_CQ, true);
	rcq = chance(t, 50) ? scq : vobj_pick(t, f, V_CQ, true);
	if (!pd || !scq || !rcq || vobj_count(f, V_QP) >= 8)
		return;
	if (chance(t, 20))
		srq = vobj_pick(t, f, V_SRQ, true);
	if (chance(t, 20))
		id = pick_cm_id(t, &idf, &cm_fd, &cm_qpt);
	call_init(&c, RDMACHAN_CMD_CREATE_QP, fi, f->gen, pick_fd(t, f));
	a = &c.a.create_qp;
	a->pd = pd->handle;
	a->send_cq = scq->handle;
	a->recv_cq = rcq->handle;
	a->srq = srq ? srq->handle : 0;
	a->qp_type = id ? cm_qpt : chance(t, 40) ? IBV_QPT_UD :
		     chance(t, 75) ? IBV_QPT_RC : IBV_QPT_UC;
	a->user_context = rnd64(t);
	a->cap.max_send_wr = 1 + rnd(t, 32);
	a->cap.max_recv_wr = 1 + rnd(t, 32);
	a->cap.max_send_sge = 1 + rnd(t, MAX_SGE);
	a->cap.max_recv_sge = 1 + rnd(t, MAX_SGE);
	a->cap.max_inline_data = chance(t, 50) ? 0 : rnd(t, 128);
	if (chance(t, 30))
		a->flags |= RDMACHAN_CREATE_QP_SQ_SIG_ALL;
	c.ok = ES(0, ENOMEM);
	if (id) {
		/* the id may be gone, moved, have a QP, or no device yet */
		a->flags |= RDMACHAN_CREATE_QP_CM_ID;
		a->cm_fd = cm_fd;
		a->cm_id = id->handle;
		c.ok = ES(0, ENOMEM, EINVAL, ENOENT, ENODEV);
	}
	if (chance(t, 20)) {
		c.fault = F_VALUE;
		switch (rnd(t, 7)) {
		case 0:
			a->qp_type = chance(t, 50) ? 8 + rnd(t, 3) : 0;
			c.why = "qp_type";
			c.ok = a->qp_type ? ES(EOPNOTSUPP) : ES(EINVAL);
			break;
		case 1:
			a->cap.max_send_wr = 1u << (21 + rnd(t, 11));
			c.why = "max_send_wr";
			c.ok = ES(EINVAL, ENOMEM);
			break;
		case 2:
			/* ignored with an SRQ */
			a->cap.max_recv_sge = 100 + rnd(t, 1u << 20);
			c.why = "max_recv_sge";
			c.ok = srq ? ES(0, EINVAL, ENOMEM) : ES(EINVAL, ENOMEM);
			break;
		case 3:
			a->cap.__reserved = 1 + rnd(t, 1000);
			c.why = "reserved";
			c.ok = ES(EINVAL);
			break;
		case 4:
			h = rnd(t, 3);
			if (h == 0)
				a->send_cq = bad_vhandle(t, f, V_CQ);
			else if (h == 1)
				a->recv_cq = bad_vhandle(t, f, V_CQ);
			else
				a->srq = bad_vhandle(t, f, V_SRQ);
			c.why = "a CQ or SRQ not of this file";
			c.ok = ES(ENOENT);
			break;
		case 5:
			/* no CM id of that file by that handle */
			a->flags |= RDMACHAN_CREATE_QP_CM_ID;
			a->cm_fd = pick_fd(t, f);
			a->cm_id = chance(t, 50) || !pd ? 0x80000000u | (u32)rnd64(t) :
				   pd->handle;
			c.why = "no such CM id";
			own_cm_fd = true;
			/*
			 * The fd is checked before the handle: the file closed
			 * during the call is /dev/null by then (checked below).
			 */
			c.ok = ES(ENOENT, EINVAL);
			break;
		default:
			a->flags |= RDMACHAN_CREATE_QP_CM_ID;
			a->cm_fd = chance(t, 50) ? 900 + (int)rnd(t, 100) :
				   t->w->nullfd;
			a->cm_id = 1;
			c.why = "cm_fd";
			c.ok = ES(EBADF, EINVAL);
			break;
		}
		id = NULL;
	}
	name(&c, pd);
	name(&c, scq);
	name(&c, rcq);
	name(&c, srq);
	pin(f);
	/* the id's file stays open: its fd is EBADF once closed */
	if (idf)
		pin(idf);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	if (idf)
		unpin(idf);
	unname(f, &c);
	if (own_cm_fd && c.ret && c.err == EINVAL && !c.closing)
		fail(t, "%s: cm_fd %d of an open file, got EINVAL", c.desc,
		     a->cm_fd);
	if (!c.ret && c.readback) {
		o = vobj_add(t, f, a->out_handle, V_QP, &c);
		if (o) {
			qp_model(o, a, a->flags & RDMACHAN_CREATE_QP_CM_ID);
			o->ctx = pd_ctx(f, a->pd);
			o->uctx = a->user_context;
			if (o->cm)
				stat_add(ST_QP_CM, 1);
		}
		if (a->out_cap.max_send_wr < a->cap.max_send_wr ||
		    a->out_cap.max_recv_sge < a->cap.max_recv_sge ||
		    a->out_cap.max_inline_data < a->cap.max_inline_data)
			fail(t, "%s: capacities below what was asked for",
			     c.desc);
	}
	unpin(f);
}

/* Another QP of the worker of type @qpt, for a destination. */
static struct vobj *peer_qp(struct thr *t, u32 qpt)
{
	int fi = pick_file(t);
	struct vobj *o;

	if (fi < 0)
		return NULL;
	o = vobj_pick(t, &t->w->files[fi], V_QP, false);
	return o && o->qpt == qpt ? o : NULL;
}

/* The attributes of the QP's next state on the way to RTS. */
static u8 qp_next(struct thr *t, struct vobj *qp, struct rdmachan_modify_qp *a)
{
	struct rdmachan_qp_attr *at = &a->attr;
	bool rc = qp->qpt == IBV_QPT_RC, ud = qp->qpt == IBV_QPT_UD;
	struct vobj *peer;

	switch (qp->qps) {
	case QPS_RESET:
		at->qp_state = QPS_INIT;
		at->pkey_index = 0;
		at->port_num = 1;
		a->attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ud) {
			at->qkey = FUZZ_QKEY;
			a->attr_mask |= IBV_QP_QKEY;
		} else {
			at->qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				(rc ? IBV_ACCESS_REMOTE_READ |
				      IBV_ACCESS_REMOTE_ATOMIC : 0);
			a->attr_mask |= IBV_QP_ACCESS_FLAGS;
		}
		return QPS_INIT;
	case QPS_INIT:
		at->qp_state = QPS_RTR;
		a->attr_mask = IBV_QP_STATE;
		if (ud)
			return QPS_RTR;
		peer = peer_qp(t, qp->qpt);
		fill_av(&at->ah_attr);
		at->path_mtu = IBV_MTU_1024;
		at->dest_qp_num = peer ? peer->qpn : qp->qpn;
		at->rq_psn = rnd(t, 1 << 24);
		a->attr_mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN;
		if (rc) {
			at->max_dest_rd_atomic = 1 + rnd(t, 4);
			at->min_rnr_timer = 1;
			a->attr_mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER;
		}
		return QPS_RTR;
	case QPS_RTR:
		at->qp_state = QPS_RTS;
		at->sq_psn = rnd(t, 1 << 24);
		a->attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (rc) {
			/* a peer that is not there fails fast */
			at->timeout = 8 + rnd(t, 4);
			at->retry_cnt = rnd(t, 3);
			at->rnr_retry = rnd(t, 3);
			at->max_rd_atomic = 1 + rnd(t, 4);
			a->attr_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC;
		}
		return QPS_RTS;
	case QPS_RTS:
		if (chance(t, 60)) {
			/* the device reports the drained send queue (SQ_DRAINED) */
			at->qp_state = QPS_SQD;
			at->en_sqd_async_notify = 1;
			a->attr_mask = IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY;
			return QPS_SQD;
		}
		/* fall through */
	default:
		at->qp_state = chance(t, 50) ? QPS_ERR : QPS_RESET;
		a->attr_mask = IBV_QP_STATE;
		return at->qp_state;
	}
}

/*
 * A UD QP refused the model's next state: the device may have moved it to
 * the error state by itself. A request that failed in rxe's completer does
 * that, also after a reset the model made meanwhile (rxe does not stop the
 * completer of a UD QP while it resets it). True when QUERY_QP says so of
 * a QP that work requests were posted to; the model follows.
 */
static bool qp_device_moved(struct thr *t, const struct call *c,
			    struct vobj *qp)
{
	struct rdmachan_query_qp q = {
		.size = sizeof(q), .qp = qp->handle, .attr_mask = IBV_QP_STATE,
	};

	if (ioctl(c->fd, RDMACHAN_IOC_QUERY_QP, &q)) {
		fail(t, "%s: QUERY_QP of the QP afterwards: %s", c->desc,
		     errno_name(errno));
		return true;
	}
	if (q.out_attr.qp_state != QPS_ERR || (!qp->posted && !qp->srq)) {
		fail(t, "%s: UD QP refused its next state; it is in state %u, the model has %u, %s posted to",
		     c->desc, q.out_attr.qp_state, qp->qps,
		     qp->posted || qp->srq ? "requests were" : "nothing was");
		/* what was done to it, and the rest of its file */
		journal_dump(t->w, c->fi);
		return true;
	}
	journal(t->w, "model: QP %u found in the error state (model %u)",
		qp->handle, qp->qps);
	qp->qps = QPS_ERR;
	stat_add(ST_QP_DEVICE_ERR, 1);
	return true;
}

/* One MODIFY_QP; true when it took the QP where the model wanted it. */
static bool modify_qp(struct thr *t, int fi, struct mfile *f, struct vobj *qp)
{
	struct rdmachan_modify_qp *a;
	struct call c;
	bool moved = false, strict = false;
	u32 mods;
	u8 next;

	call_init(&c, RDMACHAN_CMD_MODIFY_QP, fi, f->gen, pick_fd(t, f));
	a = &c.a.modify_qp;
	a->qp = qp->handle;
	if (qp->qps == QPS_UNKNOWN || qp->cm) {
		/* the CM's QP: to the error state, or nowhere allowed */
		a->attr.qp_state = chance(t, 50) ? QPS_ERR : rnd(t, 7);
		a->attr_mask = IBV_QP_STATE;
		next = a->attr.qp_state == QPS_ERR ? QPS_ERR : QPS_UNKNOWN;
		c.ok = ES(0, EINVAL);
	} else {
		next = qp_next(t, qp, a);
		/* checked below: another thread may move it meanwhile */
		c.ok = ES(0, EINVAL);
		/*
		 * rxe refuses to leave SQD but for ERR until the drain it
		 * started in the background is over.
		 */
		strict = qp->qpt == IBV_QPT_UD && !qp->busy &&
			 qp->qps != QPS_SQD;
	}
	if (chance(t, 15)) {
		c.fault = F_VALUE;
		next = QPS_UNKNOWN;
		switch (rnd(t, 5)) {
		case 0:
			a->attr_mask |= 1u << (21 + rnd(t, 11));
			c.ok = ES(EINVAL);
			break;
		case 1:
			a->attr.qp_state = 7 + rnd(t, 249);
			a->attr_mask |= IBV_QP_STATE;
			c.ok = ES(EINVAL);
			break;
		case 2:
			a->attr.port_num = chance(t, 50) ? 0 : 2 + rnd(t, 254);
			a->attr_mask |= IBV_QP_PORT;
			c.ok = ES(EINVAL);
			break;
		case 3:
			a->attr.__reserved = 1 + rnd(t, 255);
			c.ok = ES(EINVAL);
			break;
		default:
			/* anything: the device decides */
			a->attr_mask = rnd(t, 1u << 21);
			a->attr.qp_state = rnd(t, 7);
			a->attr.cur_qp_state = rnd(t, 7);
			a->attr.path_mtu = rnd(t, 7);
			a->attr.qkey = (u32)rnd64(t);
			a->attr.dest_qp_num = rnd(t, 1 << 24);
			a->attr.max_rd_atomic = rnd(t, 32);
			a->attr.max_dest_rd_atomic = rnd(t, 32);
			a->attr.timeout = rnd(t, 32);
			a->attr.retry_cnt = rnd(t, 8);
			a->attr.rnr_retry = rnd(t, 8);
			a->attr.port_num = chance(t, 80) ? 1 : rnd(t, 4);
			fill_av(&a->attr.ah_attr);
			a->attr.alt_port_num = 1;
			fill_av(&a->attr.alt_ah_attr);
			a->attr.cap.max_send_wr = rnd(t, 64);
			a->attr.cap.max_recv_wr = rnd(t, 64);
			c.ok = ES(0, EINVAL, EPERM, EOPNOTSUPP, ENOMEM);
			break;
		}
	}
	name(&c, qp);
	mods = ++qp->mods;
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	/* a UD QP nobody else moved takes each step to RTS */
	if (strict && c.fault == F_NONE && !c.kfault && c.ret && c.err == EINVAL &&
	    vobj_find(f, a->qp, V_QP) == qp && qp->mods == mods && !qp->dying &&
	    !qp_device_moved(t, &c, qp))
		fail(t, "%s: UD QP refused its next state %u from %u", c.desc,
		     next, qp->qps);
	/* its state is what it was, or the new one if the call got that far */
	if (vobj_find(f, a->qp, V_QP) == qp && c.fault < F_HANDLE_ZERO) {
		if (!c.ret && c.ran) {
			qp->qps = next;
			moved = c.fault == F_NONE && next != QPS_UNKNOWN;
		}
		if (!c.ret && next == QPS_RTS)
			stat_add(ST_QP_RTS, 1);
	}
	unpin(f);
	return moved;
}

static void act_modify_qp(struct thr *t)
{
	struct vobj *qp;
	struct mfile *f;
	int fi = pick_vfile(t, &f), i;
	u32 h;

	if (fi < 0)
		return;
	qp = vobj_pick(t, f, V_QP, true);
	/*
	 * Moving a CM id's QP behind the CM's back makes the CM reject the
	 * connection while its REP is out: see risky() (-k).
	 */
	if (!qp || (qp->cm && !cfg.known_slow))
		return;
	h = qp->handle;
	/* often all the way to RTS, as a library does */
	for (i = chance(t, 60) ? 4 : 1; i > 0; i--) {
		if (!modify_qp(t, fi, f, qp) || vobj_find(f, h, V_QP) != qp ||
		    qp->qps > QPS_RTS || (qp->qps == QPS_RTS && chance(t, 50)))
			break;
	}
}

static void act_query_qp(struct thr *t)
{
	struct rdmachan_modify_qp *a;
	struct vobj *qp;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return;
	qp = vobj_pick(t, f, V_QP, true);
	if (!qp)
		return;
	call_init(&c, RDMACHAN_CMD_QUERY_QP, fi, f->gen, pick_fd(t, f));
	a = &c.a.modify_qp;
	a->qp = qp->handle;
	a->attr_mask = rnd(t, 1u << 21);
	/* what the call must overwrite; reserved fields are input: zero */
	memset(&a->attr, POISON, sizeof(a->attr));
	a->attr.__reserved = 0;
	a->attr.cap.__reserved = 0;
	if (chance(t, 10)) {
		c.fault = F_VALUE;
		a->attr_mask |= 1u << (21 + rnd(t, 11));
		c.ok = ES(EINVAL);
	}
	name(&c, qp);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (!c.ret && c.readback) {
		if (a->attr.qp_state > QPS_ERR || a->attr.__reserved ||
		    a->attr.cap.__reserved)
			fail(t, "%s: state %u, reserved fields %u %u", c.desc,
			     a->attr.qp_state, a->attr.__reserved,
			     a->attr.cap.__reserved);
		/* a UD QP nobody else touches is where the model has it */
		if (vobj_find(f, a->qp, V_QP) == qp && !qp->cm &&
		    qp->busy == 0 && qp->qps != QPS_UNKNOWN &&
		    qp->qpt == IBV_QPT_UD && a->attr.qp_state != qp->qps &&
		    a->attr.qp_state != QPS_ERR && c.fault == F_NONE)
			fail(t, "%s: UD QP in state %u, the model has %u",
			     c.desc, a->attr.qp_state, qp->qps);
	}
	unpin(f);
}

/* ---- the data path ---- */

/* An MR of @f on PD @pd that the device may write to (if @write). */
static struct vobj *pick_mr(struct thr *t, struct mfile *f, u32 pd, bool write)
{
	struct vobj *pick[MAX_VOBJS];
	int i, n = 0;

	for (i = 0; i < MAX_VOBJS; i++) {
		struct vobj *o = &f->vobjs[i];

		if (o->used && o->kind == V_MR && !o->dying && o->pd == pd &&
		    (!write || (o->access & IBV_ACCESS_LOCAL_WRITE)))
			pick[n++] = o;
	}
	return n ? pick[rnd(t, n)] : NULL;
}

/* A good SGE in @mr. */
static void sge_in(struct thr *t, struct rdmachan_sge *s, struct vobj *mr)
{
	u64 len = 1 + rnd(t, mr->len < 2048 ? (u32)mr->len : 2048);

	s->lkey = mr->lkey;
	s->length = len;
	s->addr = mr->iova + rnd(t, mr->len - len + 1);
}

/* An lkey that no MR of PD @pd has. */
static u32 bad_lkey(struct thr *t, struct mfile *f, u32 pd)
{
	struct worker *w = t->w;
	int k, i;

	for (k = 0; k < 8; k++) {
		u32 key;
		bool ok = true;

		switch (rnd(t, 3)) {
		case 0: {
			/* of an MR of another PD or another file */
			struct mfile *of = &w->files[rnd(t, MAX_FILES)];
			struct vobj *mr = vobj_pick(t, of, V_MR, false);

			if (!mr || (of == f && mr->pd == pd))
				continue;
			key = mr->lkey;
			break;
		}
		case 1:
			if (!f->ndead_lkeys)
				continue;
			key = f->dead_lkeys[rnd(t, f->ndead_lkeys < DEAD_LKEYS ?
						f->ndead_lkeys : DEAD_LKEYS)];
			break;
		default:
			key = (u32)rnd64(t);
			break;
		}
		for (i = 0; i < MAX_VOBJS; i++) {
			struct vobj *o = &f->vobjs[i];

			/* a dead MR's lkey may be handed out again */
			if (o->used && o->kind == V_MR && o->lkey == key)
				ok = false;
		}
		if (ok)
			return key;
	}
	return 0;
}

/* A wr_id that tells its QP and what it was. */
static u64 wr_id(struct thr *t, int fi, u32 qp, bool send)
{
	return WR_MAGIC << 56 | (u64)fi << 52 | (u64)send << 51 |
	       (u64)(qp & 0xfffff) << 24 | (++t->w->wr_seq & 0xffffff);
}

enum post_kind { P_SEND, P_RECV, P_SRQ };

/*
 * Builds one post of @n requests into the thread's arena; a fault, if
 * asked for, spoils request @bad (or the whole call). Returns the errset
 * and sets @first_bad to the index no request may be posted from.
 */
static void act_post(struct thr *t, int kind)
{
	struct worker *w = t->w;
	u8 *mem = mr_mem(w);
	struct rdmachan_send_wr *swr = (void *)(t->bufmap + WRS_OFF);
	struct rdmachan_recv_wr *rwr = (void *)(t->bufmap + WRS_OFF);
	struct rdmachan_sge *sges = (void *)(t->bufmap + SGES_OFF);
	struct rdmachan_post *a;
	struct vobj *q, *ah = NULL;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f), i, k;
	u32 n, nsge = 0, max_sge, pd, bad = ~0u, spoil = ~0u, stride, wrsz;
	bool fault, efault = false, no_ah = false;
	static const char *const bad_names[] = {
		"too many SGEs", "opcode or reserved", "send flags or reserved",
		"lkey", "SGE outside its MR", "SGE length",
	};
	int bad_case = -1;

	if (fi < 0 || !mem)
		return;
	q = vobj_pick(t, f, kind == P_SRQ ? V_SRQ : V_QP, true);
	if (!q)
		return;
	pd = q->pd;
	max_sge = kind == P_SRQ ? q->max_sge :
		  kind == P_SEND ? q->max_send_sge : q->max_recv_sge;
	if (kind == P_SEND && q->qpt == IBV_QPT_UD) {
		int i;

		for (i = 0; i < MAX_VOBJS && !ah; i++)
			if (f->vobjs[i].used && f->vobjs[i].kind == V_AH &&
			    !f->vobjs[i].dying && f->vobjs[i].pd == pd)
				ah = &f->vobjs[i];
		if (!ah && chance(t, 70)) {
			struct vobj *p = vobj_find(f, pd, V_PD);
			u32 h = q->handle;

			/* the library would have one: make it first */
			if (p && !p->dying && vobj_count(f, V_AH) < 4)
				create_ah(t, fi, f, p);
			if (vobj_find(f, h, V_QP) != q)
				return;
			for (i = 0; i < MAX_VOBJS && !ah; i++)
				if (f->vobjs[i].used && f->vobjs[i].kind == V_AH &&
				    !f->vobjs[i].dying && f->vobjs[i].pd == pd)
					ah = &f->vobjs[i];
		}
	}
	n = 1 + rnd(t, MAX_POST);
	wrsz = kind == P_SEND ? sizeof(*swr) : sizeof(*rwr);
	stride = chance(t, 90) ? wrsz : wrsz + 8 * (1 + rnd(t, 4));
	memset(t->bufmap + WRS_OFF, 0, SGES_OFF - WRS_OFF + 4096);
	fault = chance(t, 20);
	if (fault)
		spoil = bad = rnd(t, n);
	for (i = 0; i < (int)n; i++) {
		struct rdmachan_send_wr *s = (void *)((u8 *)swr + i * stride);
		struct rdmachan_recv_wr *r = (void *)((u8 *)rwr + i * stride);
		u32 ns = rnd(t, (max_sge < MAX_SGE ? max_sge : MAX_SGE) + 1);
		bool write = kind != P_SEND;
		u32 op = IBV_WR_SEND;

		if (kind == P_SEND) {
			u32 r = rnd(t, 10);

			if (q->qpt != IBV_QPT_UD && r < 3)
				op = r == 0 ? IBV_WR_RDMA_WRITE :
				     r == 1 ? IBV_WR_RDMA_WRITE_WITH_IMM :
				     IBV_WR_SEND_WITH_IMM;
			else if (q->qpt == IBV_QPT_RC && r < 5)
				op = r == 3 ? IBV_WR_RDMA_READ :
				     IBV_WR_ATOMIC_FETCH_AND_ADD;
			write = op == IBV_WR_RDMA_READ ||
				op == IBV_WR_ATOMIC_FETCH_AND_ADD;
			if (op == IBV_WR_ATOMIC_FETCH_AND_ADD)
				ns = 1;
			s->wr_id = wr_id(t, fi, q->handle, true);
			s->opcode = op;
			s->send_flags = chance(t, 70) ? IBV_SEND_SIGNALED : 0;
			s->imm_data = (u32)rnd64(t);
			if (op != IBV_WR_SEND && op != IBV_WR_SEND_WITH_IMM) {
				struct mfile *of = &w->files[rnd(t, MAX_FILES)];
				struct vobj *rmr = vobj_pick(t, of, V_MR, false);

				s->rkey = rmr ? rmr->rkey : (u32)rnd64(t);
				s->remote_addr = rmr ? rmr->iova : rnd64(t);
				s->remote_addr &= ~7ull;
			}
			if (q->qpt == IBV_QPT_UD) {
				struct vobj *peer = peer_qp(t, IBV_QPT_UD);

				s->ah = ah ? ah->handle : 0;
				s->remote_qpn = peer ? peer->qpn : q->qpn;
				s->remote_qkey = FUZZ_QKEY;
			}
		} else {
			r->wr_id = wr_id(t, fi, q->handle, false);
		}
		for (k = 0; k < (int)ns; k++) {
			struct vobj *mr = pick_mr(t, f, pd, write);

			if (!mr)
				break;
			sge_in(t, &sges[nsge + k], mr);
			if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				/* 8 bytes, or the device refuses it */
				if (mr->len < 8)
					break;
				sges[nsge + k].length = 8;
				sges[nsge + k].addr = mr->iova +
					8 * rnd(t, (u32)(mr->len / 8));
			}
		}
		ns = k;
		if (kind == P_SEND && !ah && q->qpt == IBV_QPT_UD) {
			/* no AH of the QP's PD: the request goes bad */
			if (bad > (u32)i)
				bad = i;
			no_ah = true;
		}
		if ((u32)i == spoil) {
			struct rdmachan_sge *sg = &sges[nsge];

			bad_case = rnd(t, ns ? 6 : 3);
			/*
			 * A QP with an SRQ reports the max_recv_sge it was
			 * asked for, which may be huge: the SGEs must fit in
			 * their part of the arena, with the requests after it.
			 */
			if (bad_case == 0 &&
			    (u64)max_sge + 1 + nsge + (n - i - 1) * MAX_SGE >
			    (WCS_OFF - SGES_OFF) / sizeof(*sges))
				bad_case = 1;
			switch (bad_case) {
			case 0:
				/* more SGEs than the queue takes */
				ns = max_sge + 1;
				for (k = 0; k < (int)ns; k++)
					sges[nsge + k] = (struct rdmachan_sge){
						.addr = 0, .length = 0,
						.lkey = 0 };
				break;
			case 1:
				/* unsupported (EOPNOTSUPP) or unknown opcodes */
				if (kind == P_SEND)
					s->opcode = chance(t, 50) ? 7 + rnd(t, 5) :
						    12 + rnd(t, 1000);
				else
					r->__reserved = 1 + rnd(t, 100);
				break;
			case 2:
				if (kind == P_SEND)
					s->send_flags |= 1u << (4 + rnd(t, 28));
				else
					r->__reserved = 1;
				break;
			case 3:
				sg->lkey = bad_lkey(t, f, pd);
				if (!sg->lkey)
					sg->lkey = 0x7fffffff;
				break;
			case 4:
				/* outside the MR */
				sg->addr += chance(t, 50) ? 1ull << 40 :
					    -(1ull << 40);
				break;
			default:
				sg->length = chance(t, 50) ? 0x80000000u : 1u << 24;
				break;
			}
		}
		if (kind == P_SEND && (u32)i != spoil && q->max_inline &&
		    (op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		     op == IBV_WR_RDMA_WRITE) && chance(t, 20)) {
			/* the payload is copied in from plain memory */
			u32 room = q->max_inline;

			s->send_flags |= IBV_SEND_INLINE;
			for (k = 0; k < (int)ns; k++) {
				struct rdmachan_sge *sg = &sges[nsge + k];

				sg->length = rnd(t, room / (ns - k) + 1);
				room -= sg->length;
				sg->addr = (uintptr_t)mem + rnd(t, 4096);
				sg->lkey = (u32)rnd64(t);
			}
			if (ns && chance(t, 10)) {
				/* from memory that is not there */
				sges[nsge].addr = (uintptr_t)mem + MR_MEM_LEN;
				sges[nsge].length = 1 + rnd(t, 8);
				if (bad > (u32)i)
					bad = i;
				efault = true;
			}
		}
		if (kind == P_SEND)
			s->num_sge = ns;
		else
			r->num_sge = ns;
		nsge += ns;
	}
	call_init(&c, kind == P_SEND ? RDMACHAN_CMD_POST_SEND :
		  kind == P_RECV ? RDMACHAN_CMD_POST_RECV :
		  RDMACHAN_CMD_POST_SRQ_RECV, fi, f->gen, pick_fd(t, f));
	a = &c.a.post;
	a->handle = q->handle;
	a->num_wrs = n;
	a->wrs = (uintptr_t)swr;
	a->sges = (uintptr_t)sges;
	a->wr_size = stride;
	a->num_sges = nsge;
	/* a QP not ready, a full queue; a UD send without its AH */
	c.ok = ES(0, EINVAL, ENOMEM);
	if (fault || no_ah || efault) {
		c.fault = F_VALUE;
		c.ok = ES(EINVAL, ENOMEM);
		if (fault)
			es_add(&c.ok, EOPNOTSUPP);
		if (no_ah)
			es_add(&c.ok, ENOENT);
		if (efault)
			es_add(&c.ok, EFAULT);
	}
	if (c.fault == F_NONE && chance(t, 10)) {
		/* the call as a whole is bad: nothing is posted */
		c.fault = F_PTR;
		bad = 0;
		switch (rnd(t, 6)) {
		case 0:
			a->num_sges = nsge + 1 + rnd(t, 3);
			c.ok = ES(EINVAL, EFAULT);
			break;
		case 1:
			a->wr_size = wrsz - 8 * (1 + rnd(t, 2));
			c.ok = ES(EINVAL);
			break;
		case 2:
			a->num_wrs = chance(t, 50) ? 0 :
				     RDMACHAN_MAX_POST_WRS + 1 + rnd(t, 1000);
			c.ok = ES(EINVAL);
			break;
		case 3:
			a->wrs = chance(t, 50) ? 0 :
				 (uintptr_t)(t->bufmap + ARENA_LEN - 8);
			c.ok = ES(EFAULT);
			break;
		case 4:
			a->sges = nsge && chance(t, 50) ? 0 :
				  (uintptr_t)(t->bufmap + ARENA_LEN - 8);
			c.ok = nsge ? ES(EFAULT) : ES(0, EINVAL, ENOMEM, EFAULT);
			if (!nsge)
				bad = ~0u;
			break;
		default:
			if (stride == wrsz) {
				c.fault = F_NONE;
				bad = ~0u;
				break;
			}
			/* a longer layout's tail that is not zero */
			((u8 *)swr)[wrsz + rnd(t, stride - wrsz)] = 1;
			c.ok = ES(E2BIG);
			break;
		}
	}
	c.why = why("%u WRs, %s QP state %d, bad WR %d: %s%s%s%s", n,
		    kind == P_SRQ ? "SRQ" : q->qpt == IBV_QPT_UD ? "UD" :
		    q->qpt == IBV_QPT_RC ? "RC" : "UC", kind == P_SRQ ? -1 : q->qps,
		    (int)bad, bad_case >= 0 ? bad_names[bad_case] : "",
		    no_ah ? " no AH" : "", efault ? " inline from nowhere" : "",
		    c.fault == F_PTR ? " whole call" : "");
	name(&c, q);
	name(&c, ah);
	/* a bad request may move the QP to the error state, later */
	if (kind != P_SRQ)
		q->posted = true;
	pin(f);
	inject(t, &c, f);
	/* a fault of the call as a whole: nothing is posted */
	if (c.fault != F_NONE && c.fault != F_VALUE && c.fault != F_PTR &&
	    c.fault != F_SIZE_LONG_ZERO)
		bad = 0;
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (c.ran && c.readback && !c.closing) {
		u32 posted = a->out_num_posted;

		if (posted > n || (bad != ~0u && posted > bad) ||
		    (!c.ret && posted != n))
			fail(t, "%s: %u of %u requests posted (the first bad one %d), %s",
			     c.desc, posted, n, (int)bad,
			     c.ret ? errno_name(c.err) : "success");
		if (posted <= n)
			stat_add(ST_WRS_POSTED, posted);
	}
	unpin(f);
}

/* ---- completions ---- */

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

static void act_poll_cq(struct thr *t)
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
static void ack_cq(struct thr *t, int fi, struct mfile *f, struct vobj *cq,
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

static void act_notify_cq(struct thr *t, bool ack_only)
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

static void act_get_cq_event(struct thr *t)
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

static void act_query_srq(struct thr *t, bool modify)
{
	struct rdmachan_modify_srq *a;
	struct vobj *srq;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);

	if (fi < 0)
		return;
	srq = vobj_pick(t, f, V_SRQ, true);
	if (!srq)
		return;
	call_init(&c, modify ? RDMACHAN_CMD_MODIFY_SRQ : RDMACHAN_CMD_QUERY_SRQ,
		  fi, f->gen, pick_fd(t, f));
	a = &c.a.modify_srq;
	a->srq = srq->handle;
	if (modify) {
		/* a limit it is below: it arms the limit event */
		a->attr_mask = IBV_SRQ_LIMIT;
		a->attr.srq_limit = rnd(t, 2);
		c.ok = ES(0, EINVAL);
		if (chance(t, 20)) {
			c.fault = F_VALUE;
			a->attr_mask = chance(t, 50) ? 1u << (2 + rnd(t, 30)) :
				       IBV_SRQ_MAX_WR;
			/* more than rxe's 1 << 20 */
			a->attr.max_wr = 1u << (21 + rnd(t, 11));
			c.ok = ES(EINVAL, EOPNOTSUPP, ENOMEM);
		}
	} else if (chance(t, 10)) {
		c.fault = F_VALUE;
		a->attr_mask = 1 + rnd(t, 100);
		c.ok = ES(EINVAL);
	}
	name(&c, srq);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (!modify && !c.ret && c.readback &&
	    (a->attr.__reserved || !a->attr.max_wr))
		fail(t, "%s: max_wr %u, reserved %u", c.desc, a->attr.max_wr,
		     a->attr.__reserved);
	unpin(f);
}

/* ---- destroy ---- */

static void act_vdestroy(struct thr *t)
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
static void act_query_async_events(struct thr *t)
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

/* ---- the step ---- */

void verbs_step(struct thr *t)
{
	struct worker *w = t->w;
	u32 r = rnd(t, 1100);

	if (r >= 1000) {
		r -= 1000;
		if (r < 10)
			act_open_async(t);
		else if (r < 15)
			act_close_async(t);
		else if (r < 60)
			act_get_async(t);
		else if (r < 80)
			act_ack_async(t);
		else if (r < 90)
			act_query_async_events(t);
		else
			act_read_ring(t);
		return;
	}

	if (r < 40)
		act_alloc_pd(t);
	else if (r < 110)
		act_reg_mr(t);
	else if (r < 130)
		act_create_channel(t);
	else if (r < 140)
		act_close_channel(t);
	else if (r < 190)
		act_create_cq(t);
	else if (r < 210)
		act_create_srq(t);
	else if (r < 240)
		act_create_ah(t);
	else if (r < 310)
		act_create_qp(t);
	else if (r < 420)
		act_modify_qp(t);
	else if (r < 440)
		act_query_qp(t);
	else if (r < 560)
		act_post(t, P_SEND);
	else if (r < 660)
		act_post(t, P_RECV);
	else if (r < 690)
		act_post(t, P_SRQ);
	else if (r < 790)
		act_poll_cq(t);
	else if (r < 830)
		act_notify_cq(t, false);
	else if (r < 845)
		act_notify_cq(t, true);
	else if (r < 895)
		act_get_cq_event(t);
	else if (r < 905)
		act_query_srq(t, false);
	else if (r < 915)
		act_query_srq(t, true);
	else if (r < 997)
		act_vdestroy(t);
	else if (w->mr_mem)
		remap_scratch(w);
}
