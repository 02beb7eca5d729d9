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
 * connection ends. It is found again for each transition and held only
 * during it (qp_lookup.c). Every transition runs under the id's CM
 * handler lock: rxe takes one modify of a QP at a time only.
 *
 * A binding changes under the id's mutex and its CM handler lock, so the
 * CM's event handler may use it.
 */
#include <linux/file.h>
#include <rdma/ib_cm.h>

#include "rdmachan.h"

/*
 * With the id's mutex and CM handler lock held: the id's QP is no longer
 * bound to it. With @destroy the QP is destroyed too (the CM's way, for
 * the CM's QP). The caller drops the two references of the binding.
 */
struct rdmachan_qp *rdmachan_cm_unbind_qp(struct rdmachan_cm_id *id,
					  bool destroy)
{
	struct rdmachan_qp *qp = id->qp;
	struct rdmachan_mcast *mc;

	lockdep_assert_held(&id->lock);
	if (!qp)
		return NULL;
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
	return qp;
}

/* From the CM's event handler: the bound QP flushes its work requests. */
void rdmachan_qp_error(struct rdmachan_cm_id *id)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct rdmachan_qp *qp = id->qp;

	if (qp)
		ib_modify_qp(qp->ib, &attr, IB_QP_STATE);
}

/*
 * The CM id @qp is bound to, with a reference and its @lock held, or NULL
 * when it is not bound. The binding may have gone before the lock was
 * taken: *@bound says whether @qp is still the id's QP, which implies the
 * id still has its rdma_cm_id. Undone by rdmachan_qp_unlock_bound_id().
 */
struct rdmachan_cm_id *rdmachan_qp_lock_bound_id(struct rdmachan_qp *qp,
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
	return id;
}

void rdmachan_qp_unlock_bound_id(struct rdmachan_cm_id *id)
{
	mutex_unlock(&id->lock);
	rdmachan_object_put(&id->obj);
}

void rdmachan_qp_unbind(struct rdmachan_qp *qp)
{
	struct rdmachan_cm_id *id;
	bool bound;

	id = rdmachan_qp_lock_bound_id(qp, &bound);
	if (!id)
		return;
	if (bound) {
		rdma_lock_handler(id->cm_id);
		rdmachan_cm_unbind_qp(id, true);
		rdma_unlock_handler(id->cm_id);
	}
	rdmachan_qp_unlock_bound_id(id);
	if (bound) {
		/* the binding's references, now ours */
		rdmachan_object_put(&qp->v.obj);
		rdmachan_object_put(&id->obj);
	}
}

/* What the CM does for a UD QP it owns: INIT, RTR and RTS at once. */
static int rdmachan_qp_init_ud(struct rdma_cm_id *cm_id, struct ib_qp *ibqp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask, ret;

	ret = rdma_init_qp_attr(cm_id, &attr, &mask);
	if (ret)
		return ret;
	ret = ib_modify_qp(ibqp, &attr, mask);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(ibqp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(ibqp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
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
			ret = rdmachan_qp_init_ud(cm_id, ibqp);
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

#ifdef RDMACHAN_HAVE_RESTRACK_BEGIN_DEL

/* @qp to @state, with the CM's attributes for INIT, RTR and RTS. */
static int rdmachan_user_qp_move(struct rdma_cm_id *cm_id, struct ib_qp *qp,
				 enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask = IB_QP_STATE, ret;

	if (state == IB_QPS_ERR)
		return ib_modify_qp(qp, &attr, mask);
	/* UD: the CM has attributes for INIT only, as librdmacm knows */
	if (qp->qp_type != IB_QPT_UD || state == IB_QPS_INIT) {
		ret = rdma_init_qp_attr(cm_id, &attr, &mask);
		if (ret)
			return ret;
	} else if (state == IB_QPS_RTS) {
		attr.sq_psn = 0;
		mask |= IB_QP_SQ_PSN;
	}
	return ib_modify_qp(qp, &attr, mask);
}

/*
 * The id's bound QP to @state: 0 when the id has none, -ENOENT when its
 * QP is gone. With the id's CM handler lock held.
 */
int rdmachan_user_qp_modify(struct rdmachan_cm_id *id, enum ib_qp_state state)
{
	struct ib_qp *qp;
	int ret;

	qp = rdmachan_user_qp_hold(id);
	if (IS_ERR_OR_NULL(qp))
		return PTR_ERR_OR_ZERO(qp);
	ret = rdmachan_user_qp_move(id->cm_id, qp, state);
	rdmachan_user_qp_put(qp);
	return ret;
}

/*
 * @qp, the id's bound QP held by rdmachan_user_qp_hold(), ready to send,
 * as the CM readies a QP of its own: INIT again with the connection's
 * attributes (its access flags come with the request or reply), RTR and
 * RTS; the resources of @param (ACCEPT's) over the CM's. With the id's CM
 * handler lock held.
 */
int rdmachan_user_qp_ready(struct rdmachan_cm_id *id, struct ib_qp *qp,
			   const struct rdma_conn_param *param)
{
	struct rdma_cm_id *cm_id = id->cm_id;
	struct ib_qp_attr attr = {};
	int mask, ret;

	ret = rdmachan_user_qp_move(cm_id, qp, IB_QPS_INIT);
	if (!ret) {
		attr.qp_state = IB_QPS_RTR;
		ret = rdma_init_qp_attr(cm_id, &attr, &mask);
		if (!ret && param)
			attr.max_dest_rd_atomic = param->responder_resources;
		if (!ret)
			ret = ib_modify_qp(qp, &attr, mask);
	}
	/* iw_cm moves it to RTS itself, once MPA has been negotiated */
	if (!ret && rdmachan_cm_id_iwarp(cm_id))
		return 0;
	if (!ret) {
		attr.qp_state = IB_QPS_RTS;
		ret = rdma_init_qp_attr(cm_id, &attr, &mask);
		if (!ret && param)
			attr.max_rd_atomic = param->initiator_depth;
		if (!ret)
			ret = ib_modify_qp(qp, &attr, mask);
	}
	return ret;
}

/*
 * From the CM's handler on CONNECT_RESPONSE: the bound QP to RTS and the
 * RTU sent, as the CM does for a QP of its own. On failure the QP is in
 * ERR and the connection rejected. 1 when the id has no bound QP, else 0
 * or the error.
 */
int rdmachan_user_qp_connected(struct rdmachan_cm_id *id)
{
	struct ib_qp *qp;
	int ret;

	qp = rdmachan_user_qp_hold(id);
	if (!qp)
		return 1;
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
	} else {
		ret = rdmachan_user_qp_ready(id, qp, NULL);
		if (!ret)
			ret = rdma_accept(id->cm_id, NULL);
		if (ret)
			rdmachan_user_qp_move(id->cm_id, qp, IB_QPS_ERR);
		rdmachan_user_qp_put(qp);
	}
	if (ret)
		rdma_reject(id->cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return ret;
}

static int rdmachan_user_qp_bind(struct rdmachan_cm_id *id, int fd, u32 qpn)
{
	struct rdma_cm_id *cm_id = id->cm_id;
	struct file *ufile, *stale = NULL;
	struct ib_qp *qp;
	int ret;

	lockdep_assert_held(&id->lock);
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
	qp = rdmachan_user_qp_hold(id);
	if (qp) {
		ret = PTR_ERR_OR_ZERO(qp);
		if (!ret) {
			rdmachan_user_qp_put(qp);
			ret = -EINVAL;
			goto out;
		}
		stale = rdmachan_user_qp_unbind(id);
	}
	qp = rdmachan_user_qp_find(cm_id->device, ufile, qpn, NULL);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out;
	}
	ret = qp->qp_type == cm_id->qp_type ? 0 : -EINVAL;
	if (!ret)
		ret = rdmachan_user_qp_move(cm_id, qp, IB_QPS_INIT);
	if (!ret && qp->qp_type == IB_QPT_UD) {
		ret = rdmachan_user_qp_move(cm_id, qp, IB_QPS_RTR);
		if (!ret)
			ret = rdmachan_user_qp_move(cm_id, qp, IB_QPS_RTS);
	}
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
	if (stale)
		fput(stale);
	return ret;
}

#else

int rdmachan_user_qp_modify(struct rdmachan_cm_id *id, enum ib_qp_state state)
{
	return 0;
}

int rdmachan_user_qp_ready(struct rdmachan_cm_id *id, struct ib_qp *qp,
			   const struct rdma_conn_param *param)
{
	return 0;
}

int rdmachan_user_qp_connected(struct rdmachan_cm_id *id)
{
	return 1;
}

static int rdmachan_user_qp_bind(struct rdmachan_cm_id *id, int fd, u32 qpn)
{
	return -EOPNOTSUPP;
}

#endif /* RDMACHAN_HAVE_RESTRACK_BEGIN_DEL */

/*
 * With the id's lock and CM handler lock held: the binding ends. The
 * caller fput()s the file returned, if any, once the locks are dropped.
 */
struct file *rdmachan_user_qp_unbind(struct rdmachan_cm_id *id)
{
	struct file *ufile = id->user_qp_file;

	lockdep_assert_held(&id->lock);
	if (ufile)
		rdmachan_count_dec(RDMACHAN_COUNT_USER_QPS);
	id->user_qp_file = NULL;
	id->user_qp_num = 0;
	id->user_qp = NULL;
	return ufile;
}

int rdmachan_cmd_bind_user_qp(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_bind_user_qp *cmd = arg;
	struct rdmachan_cm_id *id;
	struct file *ufile = NULL;
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
		ufile = rdmachan_user_qp_unbind(id);
		rdma_unlock_handler(id->cm_id);
		ret = ufile ? 0 : -EINVAL;
	} else {
		ret = rdmachan_user_qp_bind(id, cmd->uverbs_fd,
					    cmd->qp_num & RDMACHAN_QPN_MASK);
	}
	rdmachan_cm_id_unlock(id);
	if (ufile)
		fput(ufile);
	return ret;
}
