// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: CQs with a mapped completion ring (RDMACHAN_CREATE_CQ_RING).
 *
 * A ring CQ is mapped once when it is made, after some bad mappings of it
 * (writable, executable, private, of another length, of an object that
 * has no ring). Its completions are read from the mapping, checked as
 * POLL_CQ's are, and handed back with UPDATE_CQ_RING, right or wrong
 * (backwards, past what was written, on a CQ without a ring). The
 * mapping is read once more after its CQ is destroyed or its file closed,
 * then unmapped.
 *
 * Checked: a mapping of a file that is open works, of a closed one (its
 * fd is /dev/null then) is ENODEV; the header's entries and producer;
 * UPDATE_CQ_RING's errnos.
 */
#include "fuzz.h"

#define RING_WCS(r)	((const struct rdmachan_wc *)((const u8 *)(r) + \
				RDMACHAN_CQ_RING_WCS_OFFSET))

/* mmap of the file's fd; its errno, 0 when it mapped (then unmapped). */
static int try_map(int fd, size_t len, int prot, int flags, u64 off)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, len);
	return 0;
}

/* A handle of @f that names no ring CQ, as a mapping offset. */
static u32 not_a_ring(struct thr *t, struct mfile *f)
{
	int i;

	for (i = 0; i < 4; i++) {
		struct vobj *o = &f->vobjs[rnd(t, MAX_VOBJS)];

		if (o->used && !o->ring)
			return o->handle;
	}
	return 0x10000000u + rnd(t, 1u << 20);
}

/* Bad mappings of the new ring: none may succeed. */
static void ring_bad_maps(struct thr *t, const struct call *c, struct mfile *f,
			  const struct rdmachan_create_cq *a)
{
	size_t len = a->out_ring_size;
	u64 off = a->out_ring_offset;
	const char *what;
	int e, want = EINVAL, prot = PROT_READ, flags = MAP_SHARED;
	bool eperm_ok = false;

	switch (rnd(t, 6)) {
	case 0:
		prot |= PROT_WRITE;
		want = EACCES;
		what = "writable";
		break;
	case 1:
		/* a noexec mount refuses it first */
		prot |= PROT_EXEC;
		want = EACCES;
		eperm_ok = true;
		what = "executable";
		break;
	case 2:
		flags = MAP_PRIVATE;
		what = "private";
		break;
	case 3:
		len += cfg.page;
		what = "longer";
		break;
	case 4:
		if (len <= (size_t)cfg.page)
			return;
		len -= cfg.page;
		what = "shorter";
		break;
	default:
		off = (u64)not_a_ring(t, f) * cfg.page;
		what = "of no ring CQ";
		break;
	}
	e = try_map(c->fd, len, prot, flags, off);
	if (e != want && !(eperm_ok && e == EPERM))
		fail(t, "%s: %s mapping of the ring: %s, want %s", c->desc,
		     what, e ? errno_name(e) : "success",
		     errno_name(want));
}

/* Header of a mapped ring: its entries, a producer not past them. */
static void ring_check_header(struct thr *t, const char *desc,
			      const struct vobj *o)
{
	const struct rdmachan_cq_ring *r = o->ring_map;
	u32 prod = __atomic_load_n(&r->producer, __ATOMIC_ACQUIRE);

	if (r->entries != o->ring_entries ||
	    prod - o->ring_seen > o->ring_entries)
		fail(t, "%s: ring header says %u entries (of %u), producer %u, %u taken",
		     desc, r->entries, o->ring_entries, prod, o->ring_seen);
}

/*
 * The new ring CQ @o (NULL when the model has no room for it) maps
 * read-only; the mapping is kept in the model. A file closed meanwhile
 * has /dev/null on its fd: ENODEV.
 */
void ring_map(struct thr *t, const struct call *c, struct mfile *f,
	      struct vobj *o, const struct rdmachan_create_cq *a)
{
	bool open = f->state == FS_OPEN && f->gen == c->gen && !c->closing;
	void *r;

	if (!a->out_ring_entries ||
	    (a->out_ring_entries & (a->out_ring_entries - 1)) ||
	    a->out_ring_entries <= a->out_cqe ||
	    a->out_ring_size < RDMACHAN_CQ_RING_WCS_OFFSET +
			       (u64)a->out_ring_entries * sizeof(struct rdmachan_wc)) {
		fail(t, "%s: ring of %u entries, %u bytes, for %u", c->desc,
		     a->out_ring_entries, a->out_ring_size, a->out_cqe);
		return;
	}
	/* /dev/null refuses some of them otherwise first */
	if (open && chance(t, 30))
		ring_bad_maps(t, c, f, a);
	r = mmap(NULL, a->out_ring_size, PROT_READ, MAP_SHARED, c->fd,
		 (off_t)a->out_ring_offset);
	if (r == MAP_FAILED) {
		if (open ? errno != ENOMEM : errno != ENODEV)
			fail(t, "%s: mmap of the ring of a file %s: %s", c->desc,
			     open ? "open" : "closed", strerror(errno));
		return;
	}
	if (!open)
		fail(t, "%s: mmap of a closed file's ring worked", c->desc);
	if (!o) {
		munmap(r, a->out_ring_size);
		return;
	}
	o->ring_map = r;
	o->ring_size = a->out_ring_size;
	o->ring_entries = a->out_ring_entries;
	ring_check_header(t, c->desc, o);
}

/* The CQ is gone (destroyed, or its file closed): the mapping still reads. */
void ring_unmap(struct thr *t, struct vobj *o, const char *why)
{
	char desc[DESC_LEN];

	if (!o->ring_map)
		return;
	snprintf(desc, sizeof(desc), "ring of CQ %u after %s", o->handle, why);
	ring_check_header(t, desc, o);
	munmap(o->ring_map, o->ring_size);
	o->ring_map = NULL;
	stat_add(ST_RING_UNMAPS, 1);
}

/*
 * Takes what a ring CQ's mapping has and maybe hands it back, as the
 * library does when the ring stalls; sometimes a wrong UPDATE_CQ_RING.
 */
void act_read_ring(struct thr *t)
{
	const struct rdmachan_cq_ring *r;
	struct rdmachan_update_cq_ring *a;
	struct mfile *f;
	struct vobj *cq;
	struct call c;
	u32 prod, n, i, h;
	int fi = pick_file(t);

	if (fi < 0)
		return;
	f = &t->w->files[fi];
	cq = vobj_pick(t, f, V_CQ, true);
	if (!cq)
		return;
	call_init(&c, RDMACHAN_CMD_UPDATE_CQ_RING, fi, f->gen, pick_fd(t, f));
	a = &c.a.update_cq_ring;
	a->cq = h = cq->handle;
	if (!cq->ring) {
		/* a CQ without a ring: nothing to hand back */
		c.fault = F_VALUE;
		c.why = "CQ without a ring";
		c.ok = ES(EINVAL);
		goto call;
	}
	/* another thread hands back its part first: in order */
	if (!cq->ring_map || cq->ring_busy)
		return;
	r = cq->ring_map;
	prod = __atomic_load_n(&r->producer, __ATOMIC_ACQUIRE);
	n = prod - cq->ring_seen;
	if (n > cq->ring_entries) {
		fail(t, "CQ %u: ring producer %u, %u taken, %u entries",
		     h, prod, cq->ring_seen, cq->ring_entries);
		return;
	}
	snprintf(c.desc, DESC_LEN, "ring of CQ %u f%d, %u to %u", h, fi,
		 cq->ring_seen, prod);
	for (i = 0; i < n; i++)
		check_wc(t, &c, fi, &RING_WCS(r)[(cq->ring_seen + i) &
						 (cq->ring_entries - 1)], NULL, 0);
	cq->ring_seen = prod;
	stat_add(ST_RING_WCS, n);
	if (!(r->flags & RDMACHAN_CQ_RING_STALLED) && !chance(t, 30))
		return;
	a->consumer = prod;
	if (chance(t, 15)) {
		c.fault = F_VALUE;
		c.ok = ES(EINVAL);
		if (chance(t, 50)) {
			/* never back */
			a->consumer = cq->ring_cons - 1 - rnd(t, 64);
			c.why = "consumer backwards";
		} else {
			/* the module writes no more than the ring holds */
			a->consumer = cq->ring_cons + cq->ring_entries + 1 +
				      rnd(t, 1000);
			c.why = "consumer past the producer";
		}
		if (a->consumer == cq->ring_cons)
			return;
	}
	cq->ring_busy = true;
call:
	name(&c, cq);
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	if (vobj_find(f, h, V_CQ) == cq && cq->ring) {
		cq->ring_busy = false;
		/* the faults that leave the call alone */
		if (!c.ret && c.ran && (c.fault == F_NONE ||
					c.fault == F_SIZE_LONG_ZERO ||
					c.fault == F_ARG_READONLY)) {
			cq->ring_cons = a->consumer;
			stat_add(ST_RING_UPDATES, 1);
		}
	}
	unpin(f);
}
