// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: the data path's posts: POST_SEND, POST_RECV and
 * POST_SRQ_RECV of a few requests, their SGEs in MRs of the queue's PD,
 * their wr_ids, and one bad request (too many SGEs, bad opcodes, flags,
 * lkeys, ranges, inline data from nowhere) or a bad call as a whole.
 */
#include "verbs.h"

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

/*
 * Builds one post of @n requests into the thread's arena; a fault, if
 * asked for, spoils request @bad (or the whole call). Returns the errset
 * and sets @first_bad to the index no request may be posted from.
 */
void act_post(struct thr *t, int kind)
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
