// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: bypass mode's QPs. A QP the process made through uverbs, so
 * that libibverbs and its provider own its data path, is bound to a CM id
 * by its number and its uverbs file, and the module drives its state as
 * it does its own QPs': INIT when bound, RTR and RTS for the connection,
 * ERR when the connection ends.
 *
 * The QP is found in the device's resource tracker for each transition
 * and held only during it. That is safe where a QP's destroy begins the
 * tracker's delete before the driver destroys the QP (the build probes
 * for rdma_restrack_begin_del()): the destroy then waits for the held
 * entry, and a QP whose destroy has begun is not found. What is found
 * must still be a QP of the bound uverbs file, so a number that another
 * process's QP took over is never touched. Every transition runs under
 * the id's CM handler lock: rxe takes one modify of a QP at a time only.
 *
 * During a transition the QP's uobject is also held shared, as a uverbs
 * command that uses the QP holds it: ib_destroy_qp_user() reads the QP's
 * address-vector GID attributes before it waits for the tracker, so a
 * move to RTR while it waits would leave it putting stale ones (a GID
 * reference leaked or put twice). Held, a racing ibv_destroy_qp() gets
 * EBUSY, as it does racing the process's own ibv_modify_qp(); a destroy
 * under way keeps the uobject from being held, and the QP counts as gone.
 */
#include <linux/file.h>
#include <rdma/ib_cm.h>

#include "rdmachan.h"

#ifdef RDMACHAN_HAVE_RESTRACK_BEGIN_DEL

bool rdmachan_user_qp_supported(void)
{
	return true;
}

/*
 * The uobject of a uverbs QP: ib_uqp_object begins with ib_uevent_object,
 * which begins with ib_uobject (drivers/infiniband/core/uverbs.h).
 */
static struct ib_uobject *rdmachan_user_qp_uobject(struct ib_qp *qp)
{
	return (struct ib_uobject *)qp->uobject;
}

/*
 * uverbs' shared lock of a uobject (uverbs_try_lock_object(), READ): a
 * count above zero; -1 while a destroy holds it exclusively.
 */
static bool rdmachan_user_qp_hold_uobject(struct ib_qp *qp)
{
	return atomic_fetch_add_unless(&rdmachan_user_qp_uobject(qp)->usecnt,
				       1, -1) != -1;
}

/*
 * @qp is a uverbs QP made on @ufile: its PD is then one of that file's
 * objects. The pointers are only compared: no type of ib_uverbs is used.
 * With the QP's tracker entry held.
 */
static bool rdmachan_user_qp_owned(const struct ib_qp *qp,
				   const struct file *ufile)
{
	return !rdma_is_kernel_res(&qp->res) && qp->uobject &&
	       qp->pd->uobject && qp->pd->uobject->ufile == ufile->private_data;
}

/*
 * QP @qpn of @cm_id's device, held, if it is a uverbs QP made on @ufile
 * and, when @bound is given, that very QP. Else an ERR_PTR: -ENOENT for
 * no such QP, -EACCES for someone else's, or for one being destroyed.
 * Undo with rdmachan_user_qp_put().
 */
static struct ib_qp *rdmachan_user_qp_get(struct rdma_cm_id *cm_id,
					  struct file *ufile, u32 qpn,
					  const struct ib_qp *bound)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;

	res = rdma_restrack_get_byid(cm_id->device, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return ERR_PTR(-ENOENT);
	qp = container_of(res, struct ib_qp, res);
	if (!rdmachan_user_qp_owned(qp, ufile)) {
		rdma_restrack_put(res);
		return ERR_PTR(-EACCES);
	}
	if ((bound && qp != bound) || !rdmachan_user_qp_hold_uobject(qp)) {
		rdma_restrack_put(res);
		return ERR_PTR(-ENOENT);
	}
	return qp;
}

/* Ends what rdmachan_user_qp_get() or rdmachan_user_qp_hold() holds. */
void rdmachan_user_qp_put(struct ib_qp *qp)
{
	atomic_dec(&rdmachan_user_qp_uobject(qp)->usecnt);
	rdma_restrack_put(&qp->res);
}

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
 * The id's bound QP, found again and held for one step: NULL when the id
 * has none, ERR_PTR(-ENOENT) when its QP is gone; a QP that took over the
 * number is never it. Whatever uses the QP's number (a REQ, a REP, a
 * SIDR reply) is sent before rdmachan_user_qp_put(), so the number
 * cannot change hands meanwhile. With the id's CM handler lock held.
 */
struct ib_qp *rdmachan_user_qp_hold(struct rdmachan_cm_id *id)
{
	struct ib_qp *qp;

	if (!id->user_qp_file)
		return NULL;
	qp = rdmachan_user_qp_get(id->cm_id, id->user_qp_file,
				  id->user_qp_num, id->user_qp);
	return IS_ERR(qp) ? ERR_PTR(-ENOENT) : qp;
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
 * The bound QP's state, read as the RDMA netlink's resource dump reads
 * it: with only the tracker entry held (its QP cannot be destroyed
 * meanwhile, so its PD can be compared), so the process's own destroy of
 * the QP is never refused for it. -ENOENT when the QP is gone. With the
 * id's @lock held.
 */
int rdmachan_user_qp_state(struct rdmachan_cm_id *id, enum ib_qp_state *state)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;
	int ret = -ENOENT;

	lockdep_assert_held(&id->lock);
	if (!id->user_qp_file || !id->cm_id)
		return -ENOENT;
	res = rdma_restrack_get_byid(id->cm_id->device, RDMA_RESTRACK_QP,
				     id->user_qp_num);
	if (IS_ERR(res))
		return -ENOENT;
	qp = container_of(res, struct ib_qp, res);
	/* the same QP of the same file: never another process's */
	if (qp == id->user_qp && rdmachan_user_qp_owned(qp, id->user_qp_file))
		ret = rdmachan_qp_query_state(qp, state);
	rdma_restrack_put(res);
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
	qp = rdmachan_user_qp_get(cm_id, ufile, qpn, NULL);
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

bool rdmachan_user_qp_supported(void)
{
	return false;
}

int rdmachan_user_qp_modify(struct rdmachan_cm_id *id, enum ib_qp_state state)
{
	return 0;
}

struct ib_qp *rdmachan_user_qp_hold(struct rdmachan_cm_id *id)
{
	return NULL;
}

void rdmachan_user_qp_put(struct ib_qp *qp)
{
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

int rdmachan_user_qp_state(struct rdmachan_cm_id *id, enum ib_qp_state *state)
{
	return -ENOENT;
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
