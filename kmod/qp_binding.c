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
 * is in rdmachan_qp_kinds[]. CONNECT and ACCEPT use it in qp_connect.c.
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
struct ib_qp *rdmachan_bound_qp_get(struct rdmachan_cm_id *id,
				    enum rdmachan_qp_kind kind)
{
	return rdmachan_qp_kinds[kind].get(id);
}

/* Ends the step of rdmachan_bound_qp_get(), whatever it gave. */
void rdmachan_bound_qp_put(enum rdmachan_qp_kind kind, struct ib_qp *ib)
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
int rdmachan_bound_qp_move(struct rdma_cm_id *cm_id, struct ib_qp *ib,
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

/*
 * With the id's mutex and CM handler lock held: an id holds one QP. A
 * bound uverbs QP that is gone gives way (ended into @stale); a live one
 * refuses another binding.
 */
static int rdmachan_uverbs_binding_clear(struct rdmachan_cm_id *id,
					 struct rdmachan_qp_unbound *stale)
{
	struct ib_qp *qp = rdmachan_bound_qp_get(id, RDMACHAN_QP_UVERBS);

	if (!qp)
		return 0;
	if (!IS_ERR(qp)) {
		rdmachan_bound_qp_put(RDMACHAN_QP_UVERBS, qp);
		return -EINVAL;
	}
	rdmachan_qp_unbind_id(id, BIT(RDMACHAN_QP_UVERBS), stale);
	return 0;
}

/* Creates the QP for the CM id @cmd names, and binds them. */
int rdmachan_qp_create_for_id(struct rdmachan_file *file,
			      struct rdmachan_create_qp *cmd,
			      struct rdmachan_qp *qp,
			      struct ib_qp_init_attr *init)
{
	struct rdmachan_qp_unbound stale = {};
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
	ret = rdmachan_uverbs_binding_clear(id, &stale);
	if (ret)
		goto out_unlock_handler;
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
out_unlock_handler:
	rdma_unlock_handler(cm_id);
out_unlock:
	rdmachan_cm_id_unlock(id);
	rdmachan_qp_unbound_release(&stale);
	return ret;
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
	ret = rdmachan_uverbs_binding_clear(id, &stale);
	if (ret)
		goto out;
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
