// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the QP bound to a CM id, of either kind.
 *
 * Kernel-owned mode: a QP made for a CM id is bound to it until either
 * goes. An RC QP is the CM's (rdma_create_qp()), so connect and accept
 * move it to RTS and rdma_disconnect() to the error state. A UD QP is
 * moved to RTS here and not handed to the CM, which refuses multicast
 * joins on ids with a kernel QP. Destroying the QP unbinds it; destroying
 * the id first leaves a working standalone QP.
 *
 * Bypass mode: a QP the process made through uverbs, so that libibverbs
 * and its provider own its data path, is bound to a CM id by its number
 * and its uverbs file, and the module drives its state as it does its
 * own QPs': INIT when bound, RTR and RTS for the connection, ERR when the
 * connection ends.
 *
 * A binding changes under the id's mutex and its CM handler lock, so the
 * CM's event handler may use it. Every step finds the bound QP again
 * under the handler lock (rxe takes one modify of a QP at a time only)
 * and holds it for that step only: a uverbs QP's number may have passed
 * to another QP since the last one. What differs between the two kinds
 * is in rdmachan_qp_kinds[].
 */
#include <linux/file.h>
#include <rdma/ib_cm.h>

#include "rdmachan.h"

static struct ib_qp *rdmachan_own_qp_get(struct rdmachan_cm_id *id)
{
	return id->qp ? id->qp->ib : NULL;
}

/*
 * With the id's mutex and CM handler lock held: the id's own QP is no
 * longer bound to it. With @destroy the QP is destroyed too (the CM's
 * way, for the CM's QP). The binding's two references go to @ended.
 */
static void rdmachan_own_qp_unbind(struct rdmachan_cm_id *id, bool destroy,
				   struct rdmachan_qp_unbound *ended)
{
	struct rdmachan_qp *qp = id->qp;
	struct rdmachan_mcast *mc;

	lockdep_assert_held(&id->lock);
	if (!qp)
		return;
	/* Attached groups hold the QP (ib_destroy_qp() would fail). */
	list_for_each_entry(mc, &id->mcasts, id_entry) {
		if (!mc->attached)
			continue;
		ib_detach_mcast(qp->ib, &mc->mgid, mc->mlid);
		mc->attached = false;
	}
	if (id->cm_id->qp && id->cm_id->qp == qp->ib) {
		if (destroy) {
			rdma_destroy_qp(id->cm_id);
			qp->ib = NULL;
		} else {
			/* The CM forgets it: connect and disconnect leave it be. */
			id->cm_id->qp = NULL;
		}
	}
	id->qp = NULL;
	spin_lock(&qp->bind_lock);
	qp->cm_id = NULL;
	spin_unlock(&qp->bind_lock);
	ended->qp = qp;
	ended->id = id;
}

/* The id goes, or its QP becomes standalone: the QP stays. */
static void rdmachan_own_qp_end(struct rdmachan_cm_id *id,
				struct rdmachan_qp_unbound *ended)
{
	rdmachan_own_qp_unbind(id, false, ended);
}

static void rdmachan_uverbs_qp_end(struct rdmachan_cm_id *id,
				   struct rdmachan_qp_unbound *ended)
{
	lockdep_assert_held(&id->lock);
	if (!id->user_qp_file)
		return;
	rdmachan_count_dec(RDMACHAN_COUNT_USER_QPS);
	ended->ufile = id->user_qp_file;
	id->user_qp_file = NULL;
	id->user_qp_num = 0;
	id->user_qp = NULL;
}

/* What differs between the kinds of binding; the rest is one path. */
struct rdmachan_qp_kind_ops {
	/*
	 * The id's QP of this kind for one step, with the id's CM handler
	 * lock held: NULL when there is none, ERR_PTR(-ENOENT) when it is gone.
	 */
	struct ib_qp *(*get)(struct rdmachan_cm_id *id);
	/* ends the step; none where the binding itself holds the QP */
	void (*put)(struct ib_qp *ib);
	/* ends the binding, with the id's mutex and CM handler lock held */
	void (*end)(struct rdmachan_cm_id *id,
		    struct rdmachan_qp_unbound *ended);
	/*
	 * Moved to ERR as soon as a connect fails or the id disconnects, as
	 * the CM moves a QP of its own; the module leaves its own to the CM.
	 */
	bool flush_early;
};

static const struct rdmachan_qp_kind_ops
rdmachan_qp_kinds[RDMACHAN_QP_KINDS] = {
	[RDMACHAN_QP_OWN] = {
		.get = rdmachan_own_qp_get,
		.end = rdmachan_own_qp_end,
	},
	[RDMACHAN_QP_UVERBS] = {
		.get = rdmachan_user_qp_hold,
		.put = rdmachan_user_qp_put,
		.end = rdmachan_uverbs_qp_end,
		.flush_early = true,
	},
};

/* The id's QP of @kind, found again and held for one step; see .get. */
static struct ib_qp *rdmachan_bound_qp_get(struct rdmachan_cm_id *id,
					   enum rdmachan_qp_kind kind)
{
	return rdmachan_qp_kinds[kind].get(id);
}

/* Ends the step of rdmachan_bound_qp_get(), whatever it gave. */
static void rdmachan_bound_qp_put(enum rdmachan_qp_kind kind,
				  struct ib_qp *ib)
{
	if (!IS_ERR_OR_NULL(ib) && rdmachan_qp_kinds[kind].put)
		rdmachan_qp_kinds[kind].put(ib);
}

/*
 * With the id's mutex and CM handler lock held: the id's bindings of the
 * kinds in @kinds (bits of enum rdmachan_qp_kind) end. What they held is
 * let go of by rdmachan_qp_unbound_release() once both locks are dropped.
 */
void rdmachan_qp_unbind_id(struct rdmachan_cm_id *id, unsigned int kinds,
			   struct rdmachan_qp_unbound *ended)
{
	enum rdmachan_qp_kind kind;

	for (kind = 0; kind < RDMACHAN_QP_KINDS; kind++)
		if (kinds & BIT(kind))
			rdmachan_qp_kinds[kind].end(id, ended);
}

void rdmachan_qp_unbound_release(struct rdmachan_qp_unbound *ended)
{
	if (ended->qp) {
		rdmachan_object_put(&ended->qp->v.obj);
		rdmachan_object_put(&ended->id->obj);
	}
	if (ended->ufile)
		fput(ended->ufile);
}

/* @ib to @state, with the CM's attributes for INIT, RTR and RTS. */
static int rdmachan_bound_qp_move(struct rdma_cm_id *cm_id, struct ib_qp *ib,
				  enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask = IB_QP_STATE, ret;

	if (state == IB_QPS_ERR)
		return ib_modify_qp(ib, &attr, mask);
	/* UD: the CM has attributes for INIT only, as librdmacm knows */
	if (ib->qp_type != IB_QPT_UD || state == IB_QPS_INIT) {
		ret = rdma_init_qp_attr(cm_id, &attr, &mask);
		if (ret)
			return ret;
	} else if (state == IB_QPS_RTS) {
		attr.sq_psn = 0;
		mask |= IB_QP_SQ_PSN;
	}
	return ib_modify_qp(ib, &attr, mask);
}

/*
 * A QP being bound that the CM does not ready itself: INIT with the CM's
 * attributes, and a UD QP on to RTS at once, as the CM readies its own.
 */
static int rdmachan_bound_qp_start(struct rdma_cm_id *cm_id, struct ib_qp *ib)
{
	int ret;

	ret = rdmachan_bound_qp_move(cm_id, ib, IB_QPS_INIT);
	if (!ret && ib->qp_type == IB_QPT_UD) {
		ret = rdmachan_bound_qp_move(cm_id, ib, IB_QPS_RTR);
		if (!ret)
			ret = rdmachan_bound_qp_move(cm_id, ib, IB_QPS_RTS);
	}
	return ret;
}

/*
 * The id's bound QPs to ERR, flushing their work requests: which ones,
 * @when says (see .flush_early). With the id's CM handler lock held.
 */
void rdmachan_bound_qp_flush(struct rdmachan_cm_id *id,
			     enum rdmachan_qp_flush_when when)
{
	enum rdmachan_qp_kind kind;
	struct ib_qp *ib;

	for (kind = 0; kind < RDMACHAN_QP_KINDS; kind++) {
		if (when == RDMACHAN_QP_FLUSH_EARLY &&
		    !rdmachan_qp_kinds[kind].flush_early)
			continue;
		ib = rdmachan_bound_qp_get(id, kind);
		if (IS_ERR_OR_NULL(ib))
			continue;
		rdmachan_bound_qp_move(id->cm_id, ib, IB_QPS_ERR);
		rdmachan_bound_qp_put(kind, ib);
	}
}

/*
 * The CM id @qp is bound to, with a reference and its @lock held, and
 * its CM handler lock too when @qp is still its QP (*@bound, which
 * implies the id still has its rdma_cm_id): the CM modifies a bound QP
 * under that lock. NULL when @qp is not bound. Undone by
 * rdmachan_qp_unlock_binding().
 */
struct rdmachan_cm_id *rdmachan_qp_lock_binding(struct rdmachan_qp *qp,
						bool *bound)
{
	struct rdmachan_cm_id *id;

	spin_lock(&qp->bind_lock);
	id = qp->cm_id;
	if (id)
		kref_get(&id->obj.ref);
	spin_unlock(&qp->bind_lock);
	*bound = false;
	if (!id)
		return NULL;
	mutex_lock(&id->lock);
	*bound = id->qp == qp;
	if (*bound)
		rdma_lock_handler(id->cm_id);
	return id;
}

void rdmachan_qp_unlock_binding(struct rdmachan_cm_id *id, bool bound)
{
	if (!id)
		return;
	if (bound)
		rdma_unlock_handler(id->cm_id);
	mutex_unlock(&id->lock);
	rdmachan_object_put(&id->obj);
}

/* Before @qp is destroyed: a QP the CM made goes the CM's way here. */
void rdmachan_qp_unbind(struct rdmachan_qp *qp)
{
	struct rdmachan_qp_unbound ended = {};
	struct rdmachan_cm_id *id;
	bool bound;

	id = rdmachan_qp_lock_binding(qp, &bound);
	if (bound)
		rdmachan_own_qp_unbind(id, true, &ended);
	rdmachan_qp_unlock_binding(id, bound);
	rdmachan_qp_unbound_release(&ended);
}

/* Creates the QP for the CM id @cmd names, and binds them. */
int rdmachan_qp_create_for_id(struct rdmachan_file *file,
			      struct rdmachan_create_qp *cmd,
			      struct rdmachan_qp *qp,
			      struct ib_qp_init_attr *init)
{
	struct rdma_cm_id *cm_id;
	struct rdmachan_cm_id *id;
	struct ib_qp *ibqp;
	int ret;

	ret = rdmachan_cm_id_lock_fd(file, cmd->cm_fd, cmd->cm_id, &id);
	if (ret)
		return ret;
	cm_id = id->cm_id;
	if (id->qp || cm_id->qp_type != init->qp_type ||
	    cm_id->device != qp->pd->ib->device) {
		ret = -EINVAL;
		goto out_unlock;
	}
	rdma_lock_handler(cm_id);
	if (init->qp_type == IB_QPT_UD) {
		init->port_num = cm_id->port_num;
		ibqp = ib_create_qp(qp->pd->ib, init);
		ret = PTR_ERR_OR_ZERO(ibqp);
		if (!ret) {
			ret = rdmachan_bound_qp_start(cm_id, ibqp);
			if (ret)
				ib_destroy_qp(ibqp);
		}
	} else {
		ret = rdma_create_qp(cm_id, qp->pd->ib, init);
		ibqp = cm_id->qp;
	}
	if (!ret) {
		qp->ib = ibqp;
		kref_get(&qp->v.obj.ref);
		id->qp = qp;
		kref_get(&id->obj.ref);
		qp->cm_id = id;
	}
	rdma_unlock_handler(cm_id);
out_unlock:
	rdmachan_cm_id_unlock(id);
	return ret;
}

/* @ib to RTR or RTS: the CM's attributes (in @attr), @param's resources */
static int rdmachan_bound_qp_advance(struct rdma_cm_id *cm_id,
				     struct ib_qp *ib, struct ib_qp_attr *attr,
				     enum ib_qp_state state,
				     const struct rdma_conn_param *param)
{
	int mask, ret;

	attr->qp_state = state;
	ret = rdma_init_qp_attr(cm_id, attr, &mask);
	if (ret)
		return ret;
	if (param && state == IB_QPS_RTR)
		attr->max_dest_rd_atomic = param->responder_resources;
	else if (param)
		attr->max_rd_atomic = param->initiator_depth;
	return ib_modify_qp(ib, attr, mask);
}

/*
 * @ib, the id's bound uverbs QP held for this step, ready to send, as the
 * CM readies a QP of its own: INIT again with the connection's attributes
 * (its access flags come with the request or reply), RTR and RTS; the
 * resources of @param (ACCEPT's) over the CM's. With the id's CM handler
 * lock held.
 */
static int rdmachan_bound_qp_ready(struct rdmachan_cm_id *id,
				   struct ib_qp *ib,
				   const struct rdma_conn_param *param)
{
	struct rdma_cm_id *cm_id = id->cm_id;
	struct ib_qp_attr attr = {};
	int ret;

	ret = rdmachan_bound_qp_move(cm_id, ib, IB_QPS_INIT);
	if (!ret)
		ret = rdmachan_bound_qp_advance(cm_id, ib, &attr, IB_QPS_RTR,
						param);
	/* iw_cm moves it to RTS itself, once MPA has been negotiated */
	if (!ret && !rdmachan_cm_id_iwarp(cm_id))
		ret = rdmachan_bound_qp_advance(cm_id, ib, &attr, IB_QPS_RTS,
						param);
	return ret;
}

/*
 * From the CM's handler on CONNECT_RESPONSE, which comes only to an id
 * whose QP the CM does not move: the bound uverbs QP to RTS and the RTU
 * sent, as the CM does for a QP of its own. On failure the QP is in ERR
 * and the connection rejected. 1 when the id has no bound uverbs QP, else
 * 0 or the error.
 */
int rdmachan_bound_qp_connected(struct rdmachan_cm_id *id)
{
	struct ib_qp *ib;
	int ret;

	ib = rdmachan_bound_qp_get(id, RDMACHAN_QP_UVERBS);
	if (!ib)
		return 1;
	if (IS_ERR(ib)) {
		ret = PTR_ERR(ib);
	} else {
		ret = rdmachan_bound_qp_ready(id, ib, NULL);
		if (!ret)
			ret = rdma_accept(id->cm_id, NULL);
		if (ret)
			rdmachan_bound_qp_move(id->cm_id, ib, IB_QPS_ERR);
		rdmachan_bound_qp_put(RDMACHAN_QP_UVERBS, ib);
	}
	if (ret)
		rdma_reject(id->cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return ret;
}

/*
 * With the id's mutex held, for CONNECT and ACCEPT, whose parameters
 * @send holds: the QP whose number they carry, held until
 * rdmachan_qp_send_end() once the CM has sent it, with the id's CM
 * handler lock. That is the bound QP, found again, or a QP the caller
 * named, if it is the caller's (rdmachan_qp_num_hold()).
 */
int rdmachan_qp_send_begin(struct rdmachan_cm_id *id,
			   struct rdmachan_qp_send *send)
{
	struct rdma_cm_id *cm_id = id->cm_id;
	struct rdma_restrack_entry *res;
	enum rdmachan_qp_kind kind;
	struct ib_qp *ib;

	lockdep_assert_held(&id->lock);
	send->id = id;
	send->named = NULL;
	memset(send->bound, 0, sizeof(send->bound));
	if (!rdmachan_qp_bound(id) && cm_id->device) {
		res = rdmachan_qp_num_hold(id->file, cm_id->device,
					   send->param.qp_num);
		if (IS_ERR(res))
			return PTR_ERR(res);
		send->named = res;
	}
	rdma_lock_handler(cm_id);
	/* The CM knows an RC QP of its own; a UD or uverbs QP is named here. */
	for (kind = 0; kind < RDMACHAN_QP_KINDS; kind++) {
		ib = rdmachan_bound_qp_get(id, kind);
		if (IS_ERR(ib)) {
			rdmachan_qp_send_end(send);
			return PTR_ERR(ib);
		}
		if (ib) {
			send->bound[kind] = ib;
			send->param.qp_num = ib->qp_num;
		}
	}
	/* the module knows its own QP's SRQ; a uverbs QP's, the caller */
	if (id->qp)
		send->param.srq = !!id->qp->srq;
	return 0;
}

void rdmachan_qp_send_end(struct rdmachan_qp_send *send)
{
	enum rdmachan_qp_kind kind;

	for (kind = 0; kind < RDMACHAN_QP_KINDS; kind++)
		rdmachan_bound_qp_put(kind, send->bound[kind]);
	rdma_unlock_handler(send->id->cm_id);
	if (send->named)
		rdma_restrack_put(send->named);
}

/*
 * CONNECT, before the REQ goes: the CM moves the module's own QP to RTR
 * when the REP comes, with the peer's responder resources, which nothing
 * here sees first (rxe_rd_atomic.c).
 */
int rdmachan_qp_connect_begin(struct rdmachan_qp_send *send)
{
	struct rdmachan_qp *qp = send->id->qp;

	return qp ? rdmachan_rxe_rd_atomic_connect_check(qp) : 0;
}

/* CONNECT, once rdma_connect_locked() returned @ret. */
void rdmachan_qp_connect_end(struct rdmachan_qp_send *send, int ret)
{
	struct rdmachan_qp *qp = send->id->qp;

	if (!ret && qp)
		rdmachan_rxe_rd_atomic_connected(qp);
}

/* the CM's INIT to RTR of the module's own QP on ACCEPT: its resources */
#define RDMACHAN_ACCEPT_RTR_MASK	IB_QP_MAX_DEST_RD_ATOMIC

/*
 * ACCEPT, before rdma_accept() with @send's parameters: a bound uverbs QP
 * readied (a UD one is ready since it was bound); the module's own, which
 * the CM moves to RTR with the parameters' responder resources, checked
 * against rxe's array (rxe_rd_atomic.c).
 */
int rdmachan_qp_accept_begin(struct rdmachan_qp_send *send)
{
	struct ib_qp *uverbs = send->bound[RDMACHAN_QP_UVERBS];
	struct rdmachan_cm_id *id = send->id;
	int ret = 0;

	if (uverbs && id->cm_id->qp_type != IB_QPT_UD)
		ret = rdmachan_bound_qp_ready(id, uverbs, &send->param);
	if (!ret && id->qp)
		ret = rdmachan_rxe_rd_atomic_check(id->qp,
						   RDMACHAN_ACCEPT_RTR_MASK,
						   send->param.responder_resources);
	return ret;
}

/* ACCEPT, once rdma_accept() returned @ret. */
void rdmachan_qp_accept_end(struct rdmachan_qp_send *send, int ret)
{
	struct rdmachan_qp *qp = send->id->qp;

	if (qp)
		rdmachan_rxe_rd_atomic_done(qp, RDMACHAN_ACCEPT_RTR_MASK,
					    send->param.responder_resources,
					    ret);
}

static int rdmachan_uverbs_qp_bind(struct rdmachan_cm_id *id, int fd, u32 qpn)
{
	struct rdmachan_qp_unbound stale = {};
	struct rdma_cm_id *cm_id = id->cm_id;
	struct file *ufile;
	struct ib_qp *qp;
	int ret;

	lockdep_assert_held(&id->lock);
	/* where a held uverbs QP is not safe from its destroy (qp_lookup.c) */
	if (!rdmachan_user_qp_supported())
		return -EOPNOTSUPP;
	if (id->qp || !cm_id->device)
		return -EINVAL;
	ufile = fget(fd);
	if (!ufile)
		return -EBADF;
	rdma_lock_handler(cm_id);
	/*
	 * The id heard its device go, or came to it after the module's walk
	 * of the ids (it resolved an address while ib_uverbs' removal waits
	 * for the files): ib_uverbs' removal must not wait for this one.
	 */
	if (id->removal_reported || !rdmachan_device_published(cm_id->device)) {
		ret = -ENODEV;
		goto out;
	}
	/* A bound QP that is gone gives way to a new one; a live one not. */
	qp = rdmachan_bound_qp_get(id, RDMACHAN_QP_UVERBS);
	if (qp) {
		ret = PTR_ERR_OR_ZERO(qp);
		if (!ret) {
			rdmachan_bound_qp_put(RDMACHAN_QP_UVERBS, qp);
			ret = -EINVAL;
			goto out;
		}
		rdmachan_qp_unbind_id(id, BIT(RDMACHAN_QP_UVERBS), &stale);
	}
	qp = rdmachan_user_qp_find(cm_id->device, ufile, qpn, NULL);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out;
	}
	ret = qp->qp_type == cm_id->qp_type ? 0 : -EINVAL;
	if (!ret)
		ret = rdmachan_bound_qp_start(cm_id, qp);
	if (!ret) {
		id->user_qp_file = ufile;
		id->user_qp_num = qpn;
		id->user_qp = qp;
		ufile = NULL;
		rdmachan_count_inc(RDMACHAN_COUNT_USER_QPS);
	}
	rdmachan_user_qp_put(qp);
out:
	rdma_unlock_handler(cm_id);
	if (ufile)
		fput(ufile);
	rdmachan_qp_unbound_release(&stale);
	return ret;
}

int rdmachan_cmd_bind_user_qp(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_bind_user_qp *cmd = arg;
	struct rdmachan_qp_unbound ended = {};
	struct rdmachan_cm_id *id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	if ((cmd->flags & RDMACHAN_BIND_USER_QP_UNBIND) &&
	    (cmd->uverbs_fd || cmd->qp_num))
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (cmd->flags & RDMACHAN_BIND_USER_QP_UNBIND) {
		rdma_lock_handler(id->cm_id);
		rdmachan_qp_unbind_id(id, BIT(RDMACHAN_QP_UVERBS), &ended);
		rdma_unlock_handler(id->cm_id);
		ret = ended.ufile ? 0 : -EINVAL;
	} else {
		ret = rdmachan_uverbs_qp_bind(id, cmd->uverbs_fd,
					      cmd->qp_num & RDMACHAN_QPN_MASK);
	}
	rdmachan_cm_id_unlock(id);
	rdmachan_qp_unbound_release(&ended);
	return ret;
}
