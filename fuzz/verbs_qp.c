// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmachan-fuzz: QPs: CREATE_QP, by hand or for a CM id, with bad CQ and
 * SRQ handles among its faults; MODIFY_QP along the way to RTS (towards
 * the worker's own QPs) and beyond, and the device moving a UD QP to the
 * error state by itself; QUERY_QP.
 */
#include "verbs.h"

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

void act_create_qp(struct thr *t)
{
	struct rdmachan_create_qp *a;
	struct vobj *pd, *scq, *rcq, *srq = NULL, *o;
	struct mobj *id = NULL;
	struct mfile *f, *idf = NULL;
	struct call c;
	int fi = pick_vfile(t, &f), cm_fd = -1, h;
	u32 cm_qpt = 0;
	bool own_cm_fd = false, device_checks = false;

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
			device_checks = true;
			break;
		case 2:
			/* ignored with an SRQ */
			a->cap.max_recv_sge = 100 + rnd(t, 1u << 20);
			c.why = "max_recv_sge";
			c.ok = srq ? ES(0, EINVAL, ENOMEM) : ES(EINVAL, ENOMEM);
			device_checks = true;
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
		/* the device checks capacities after the CM id is found */
		if (id && device_checks)
			es_merge(&c.ok, ES(ENOENT, ENODEV));
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
struct vobj *peer_qp(struct thr *t, u32 qpt)
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
	bool moved = false, strict = false, overlapped;
	u32 mods, qp_handle;
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
	/*
	 * Modifies in flight together take the module's lock in an order
	 * their returns do not show: the QP's state after them is unknown.
	 */
	overlapped = qp->mods != qp->mods_ended;
	mods = ++qp->mods;
	qp_handle = qp->handle;
	pin(f);
	inject(t, &c, f);
	do_call(t, &c, 0, 0);
	unname(f, &c);
	/* by the QP's own handle: a handle fault changed the call's */
	if (vobj_find(f, qp_handle, V_QP) == qp) {
		qp->mods_ended++;
		overlapped |= qp->mods != mods;
	}
	/* a UD QP nobody else moved takes each step to RTS */
	if (strict && c.fault == F_NONE && !c.kfault && c.ret && c.err == EINVAL &&
	    vobj_find(f, a->qp, V_QP) == qp && qp->mods == mods && !qp->dying &&
	    !qp_device_moved(t, &c, qp))
		fail(t, "%s: UD QP refused its next state %u from %u", c.desc,
		     next, qp->qps);
	/* its state is what it was, or the new one if the call got that far */
	if (vobj_find(f, a->qp, V_QP) == qp && c.fault < F_HANDLE_ZERO) {
		if (!c.ret && c.ran) {
			qp->qps = overlapped ? QPS_UNKNOWN : next;
			moved = c.fault == F_NONE && qp->qps != QPS_UNKNOWN;
		}
		if (!c.ret && next == QPS_RTS)
			stat_add(ST_QP_RTS, 1);
	}
	unpin(f);
	return moved;
}

void act_modify_qp(struct thr *t)
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

void act_query_qp(struct thr *t)
{
	struct rdmachan_modify_qp *a;
	struct vobj *qp;
	struct mfile *f;
	struct call c;
	int fi = pick_vfile(t, &f);
	bool quiet;
	u32 mods;

	if (fi < 0)
		return;
	qp = vobj_pick(t, f, V_QP, true);
	if (!qp)
		return;
	/* a modify in flight, or begun during the query, may come before it */
	quiet = qp->mods == qp->mods_ended;
	mods = qp->mods;
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
		    qp->busy == 0 && quiet && qp->mods == mods &&
		    qp->qps != QPS_UNKNOWN &&
		    qp->qpt == IBV_QPT_UD && a->attr.qp_state != qp->qps &&
		    a->attr.qp_state != QPS_ERR && c.fault == F_NONE)
			fail(t, "%s: UD QP in state %u, the model has %u",
			     c.desc, a->attr.qp_state, qp->qps);
	}
	unpin(f);
}
