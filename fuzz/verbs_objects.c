// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: PDs, MRs, SRQs and AHs: the worker's memory for MRs and
 * its part that vanishes under them, ALLOC_PD, REG_MR with good and bad
 * memory and access flags, CREATE_SRQ, QUERY_SRQ and MODIFY_SRQ, the
 * address vector AHs and QPs use, CREATE_AH.
 */
#include "verbs.h"

/* The worker's memory for MRs and buffers, mapped on first use. */
u8 *mr_mem(struct worker *w)
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
void remap_scratch(struct worker *w)
{
	u8 *s = w->mr_mem + MR_MEM_LEN - MR_SCRATCH;

	munmap(s, MR_SCRATCH);
	/* on failure the hole stays: MRs there get EFAULT, as they may */
	mmap(s, MR_SCRATCH, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	stat_add(ST_SCRATCH_REMAPS, 1);
}

void act_alloc_pd(struct thr *t)
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

void act_reg_mr(struct thr *t)
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

void act_create_srq(struct thr *t)
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

void act_query_srq(struct thr *t, bool modify)
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

void fill_av(struct rdmachan_ah_attr *av)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, cfg.gid, 16);
	av->sgid_index = cfg.gid_index;
	av->hop_limit = 64;
	av->is_global = 1;
	av->port_num = 1;
}

void create_ah(struct thr *t, int fi, struct mfile *f, struct vobj *pd)
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

void act_create_ah(struct thr *t)
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
