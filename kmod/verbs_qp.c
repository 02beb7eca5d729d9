// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: queue pairs: create (standalone or for a CM id), modify,
 * query, destroy.
 *
 * A QP made for a CM id is bound to it until either goes. An RC QP is
 * the CM's (rdma_create_qp()), so connect and accept move it to RTS and
 * rdma_disconnect() to the error state. A UD QP is moved to RTS here
 * and not handed to the CM, which refuses multicast joins on ids with a
 * kernel QP. The binding changes under the id's mutex and its CM handler
 * lock, so the CM's event handler may use id->qp. Destroying the QP
 * unbinds it; destroying the id first leaves a working standalone QP.
 */
#include <linux/slab.h>
#include <rdma/ib_addr.h>

#include "rdmachan.h"

/* Attribute mask bits a QP can be modified or queried with: IB_QP_STATE..IB_QP_DEST_QPN */
#define RDMACHAN_QP_ATTR_MASK	((IB_QP_DEST_QPN << 1) - 1)

static void rdmachan_qp_release(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_qp *qp = container_of(v, struct rdmachan_qp, v);

	WARN_ON(qp->cm_id);
	rdmachan_async_obj_release(&qp->async);
	if (qp->pd)
		rdmachan_object_put(&qp->pd->v.obj);
	if (qp->send_cq)
		rdmachan_object_put(&qp->send_cq->v.obj);
	if (qp->recv_cq)
		rdmachan_object_put(&qp->recv_cq->v.obj);
	if (qp->srq)
		rdmachan_object_put(&qp->srq->v.obj);
	mutex_destroy(&qp->modify_lock);
}

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
static struct rdmachan_cm_id *rdmachan_qp_lock_bound_id(struct rdmachan_qp *qp,
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

static void rdmachan_qp_unlock_bound_id(struct rdmachan_cm_id *id)
{
	mutex_unlock(&id->lock);
	rdmachan_object_put(&id->obj);
}

static void rdmachan_qp_unbind(struct rdmachan_qp *qp)
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

/* Its completions may outlive it in its CQs: they keep its number. */
static int rdmachan_qp_track(struct rdmachan_qp *qp)
{
	int ret = rdmachan_cq_add_qp(qp->send_cq, qp->ib);

	if (!ret && qp->recv_cq != qp->send_cq) {
		ret = rdmachan_cq_add_qp(qp->recv_cq, qp->ib);
		if (ret)
			rdmachan_cq_qp_gone(qp->send_cq, qp->ib);
	}
	return ret;
}

static void rdmachan_qp_destroy_ib(struct rdmachan_qp *qp)
{
	/* Completions made while it is destroyed point at it too. */
	rdmachan_cq_qp_gone(qp->send_cq, qp->ib);
	rdmachan_cq_qp_gone(qp->recv_cq, qp->ib);
	rdmachan_qp_unbind(qp);
	if (qp->ib) {
		ib_destroy_qp(qp->ib);
		qp->ib = NULL;
	}
	rdmachan_cq_settle(qp->send_cq);
	if (qp->recv_cq != qp->send_cq)
		rdmachan_cq_settle(qp->recv_cq);
}

static void rdmachan_qp_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_qp *qp = container_of(v, struct rdmachan_qp, v);

	rdmachan_qp_destroy_ib(qp);
	atomic_dec(&qp->pd->v.users);
	atomic_dec(&qp->send_cq->v.users);
	atomic_dec(&qp->recv_cq->v.users);
	if (qp->srq)
		atomic_dec(&qp->srq->v.users);
}

/* The QP's event handler, also for a QP the CM made. */
static void rdmachan_qp_event(struct ib_event *event, void *context)
{
	struct rdmachan_qp *qp = context;

	rdmachan_async_report(&qp->async, event->event);
}

/**
 * rdmachan_qp_num_hold() - the QP that @qpn names, if @file may name it
 * @file: the caller's file
 * @ibdev: the CM id's device
 * @qpn: the QP number the caller named
 *
 * The CM trusts the number: a REQ naming a QP another connection uses is
 * taken for a stale copy of it, and the CM then disconnects that
 * connection. So a number that names a QP must name one the caller's
 * process made: through any of its files (an id's file is its event
 * channel, a QP's the device context's), or through uverbs (bypass mode,
 * which drives its own QPs with rdma_init_qp_attr()). One that names no
 * QP is the caller's own business, as on the stock stack. The QP found is
 * held until the CM message has taken its number, so that the number
 * cannot pass to another process's QP meanwhile.
 *
 * Return: NULL for a number of no QP; the QP's tracker entry, held (undo
 * with rdma_restrack_put()); or ERR_PTR(-EACCES) for a QP that is not the
 * caller's.
 */
struct rdma_restrack_entry *rdmachan_qp_num_hold(struct rdmachan_file *file,
						 struct ib_device *ibdev,
						 u32 qpn)
{
	struct rdma_restrack_entry *res;
	struct rdmachan_qp *qp;
	struct ib_qp *ibqp;
	bool ours = false;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return NULL;
	ibqp = container_of(res, struct ib_qp, res);
	/*
	 * Our event handler makes it one of our QPs, and its context ours;
	 * the tracker's reference keeps both until the put.
	 */
	if (rdmachan_qp_created_with(ibqp, rdmachan_qp_event)) {
		qp = ibqp->qp_context;
		ours = qp->v.file->owner == file->owner;
	} else if (!rdma_is_kernel_res(res) && res->task) {
		/* its creator's task stays while the entry is held */
		ours = task_tgid(res->task) == file->owner;
	}
	if (ours)
		return res;
	rdma_restrack_put(res);
	return ERR_PTR(-EACCES);
}

/*
 * DESTROY drops the QP's unread async events and waits until those read
 * are acknowledged, with the handle still there to acknowledge them.
 */
static int rdmachan_qp_destroy_begin(struct rdmachan_object *obj)
{
	struct rdmachan_qp *qp = container_of(obj, struct rdmachan_qp, v.obj);
	int ret;

	rdmachan_async_obj_dying(&qp->async, true);
	ret = rdmachan_async_obj_wait(&qp->async, "QP");
	if (ret)
		rdmachan_async_obj_dying(&qp->async, false);
	return ret;
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
static int rdmachan_qp_create_for_id(struct rdmachan_file *file,
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

static int rdmachan_qp_type(u32 type, enum ib_qp_type *ib_type)
{
	switch (type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		*ib_type = type;
		return 0;
	/* libibverbs' QP types are the kernel's */
	case IB_QPT_RAW_PACKET:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

/* The QP's PD, CQs and SRQ: objects of this file, on one device. */
static int rdmachan_qp_find_parts(struct rdmachan_file *file,
				  const struct rdmachan_create_qp *cmd,
				  struct rdmachan_qp *qp)
{
	struct rdmachan_verbs_obj *parts[4];
	int i, n = 3, ret;

	qp->pd = rdmachan_pd_find(file, cmd->pd);
	qp->send_cq = rdmachan_cq_find(file, cmd->send_cq);
	qp->recv_cq = rdmachan_cq_find(file, cmd->recv_cq);
	if (cmd->srq) {
		qp->srq = rdmachan_srq_find(file, cmd->srq);
		if (!qp->srq)
			return -ENOENT;
	}
	if (!qp->pd || !qp->send_cq || !qp->recv_cq)
		return -ENOENT;
	parts[0] = &qp->pd->v;
	parts[1] = &qp->send_cq->v;
	parts[2] = &qp->recv_cq->v;
	if (qp->srq)
		parts[n++] = &qp->srq->v;
	for (i = 0; i < n; i++) {
		ret = rdmachan_verbs_usable(parts[i]);
		if (ret)
			return ret;
		if (parts[i]->dead)
			return -ENOENT;
		if (parts[i]->dev != parts[0]->dev)
			return -EINVAL;
	}
	return 0;
}

static void rdmachan_qp_cap_out(struct rdmachan_qp_cap *dst,
				const struct ib_qp_cap *src)
{
	dst->max_send_wr = src->max_send_wr;
	dst->max_recv_wr = src->max_recv_wr;
	dst->max_send_sge = src->max_send_sge;
	dst->max_recv_sge = src->max_recv_sge;
	dst->max_inline_data = src->max_inline_data;
	dst->__reserved = 0;
}

static int rdmachan_qp_flush(struct rdmachan_verbs_obj *v);

static const struct rdmachan_verbs_kind rdmachan_qp_kind = {
	.type = RDMACHAN_OBJ_QP,
	.rank = RDMACHAN_RANK_QP,
	.count = RDMACHAN_COUNT_QPS,
	.teardown = rdmachan_qp_teardown,
	.destroy_begin = rdmachan_qp_destroy_begin,
	.release = rdmachan_qp_release,
	.device_gone = rdmachan_qp_flush,
};

/* What the device is asked for: @cmd's capabilities, @qp's parts. */
static void rdmachan_qp_init_attr(struct rdmachan_qp *qp,
				  const struct rdmachan_create_qp *cmd,
				  struct ib_qp_init_attr *init)
{
	init->event_handler = rdmachan_qp_event;
	init->qp_context = qp;
	init->send_cq = qp->send_cq->ib;
	init->recv_cq = qp->recv_cq->ib;
	init->srq = qp->srq ? qp->srq->ib : NULL;
	init->cap.max_send_wr = cmd->cap.max_send_wr;
	init->cap.max_recv_wr = cmd->cap.max_recv_wr;
	init->cap.max_send_sge = cmd->cap.max_send_sge;
	init->cap.max_recv_sge = cmd->cap.max_recv_sge;
	init->cap.max_inline_data = cmd->cap.max_inline_data;
	init->sq_sig_type = cmd->flags & RDMACHAN_CREATE_QP_SQ_SIG_ALL ?
			    IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
}

/* The device made the QP: what it got, and its parts now in use. */
static void rdmachan_qp_made(struct rdmachan_qp *qp,
			     const struct ib_qp_init_attr *init,
			     struct rdmachan_create_qp *cmd)
{
	qp->type = init->qp_type;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_send_sge = init->cap.max_send_sge;
	qp->max_recv_sge = init->cap.max_recv_sge;
	qp->max_inline = init->cap.max_inline_data;
	atomic_inc(&qp->pd->v.users);
	atomic_inc(&qp->send_cq->v.users);
	atomic_inc(&qp->recv_cq->v.users);
	if (qp->srq)
		atomic_inc(&qp->srq->v.users);
	rdmachan_qp_cap_out(&cmd->out_cap, &init->cap);
	cmd->out_qp_num = qp->ib->qp_num;
}

/* The QP's references on the parts rdmachan_qp_find_parts() found. */
static void rdmachan_qp_hold_parts(struct rdmachan_qp *qp)
{
	kref_get(&qp->pd->v.obj.ref);
	kref_get(&qp->send_cq->v.obj.ref);
	kref_get(&qp->recv_cq->v.obj.ref);
	if (qp->srq)
		kref_get(&qp->srq->v.obj.ref);
}

/*
 * With verbs_lock held and the parts held: the device's QP, for a CM id
 * or on its own, charged and tracked, and the object made visible.
 */
static int rdmachan_qp_create_ib(struct rdmachan_file *file,
				 struct rdmachan_create_qp *cmd,
				 struct rdmachan_qp *qp,
				 struct ib_qp_init_attr *init)
{
	struct rdmachan_device *dev = qp->pd->v.dev;
	struct ib_device *ibdev;
	struct ib_qp *ibqp;
	int ret;

	ibdev = rdmachan_device_enter(dev);
	if (!ibdev)
		return -ENODEV;
	ret = rdmachan_verbs_charge(&qp->v, dev, ibdev);
	if (ret)
		goto out_exit;
	if (cmd->flags & RDMACHAN_CREATE_QP_CM_ID) {
		ret = rdmachan_qp_create_for_id(file, cmd, qp, init);
	} else {
		ibqp = ib_create_qp(qp->pd->ib, init);
		ret = PTR_ERR_OR_ZERO(ibqp);
		if (!ret)
			qp->ib = ibqp;
	}
	if (ret)
		goto out_exit;
	ret = rdmachan_qp_track(qp);
	if (ret) {
		rdmachan_qp_destroy_ib(qp);
		goto out_exit;
	}
	rdmachan_qp_made(qp, init, cmd);
	rdmachan_verbs_add(&qp->v, dev);
out_exit:
	rdmachan_device_exit(dev);
	return ret;
}

int rdmachan_cmd_create_qp(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_qp *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct ib_qp_init_attr init = {};
	struct rdmachan_qp *qp;
	int ret;

	if (cmd->__reserved || cmd->cap.__reserved)
		return -EINVAL;
	ret = rdmachan_qp_type(cmd->qp_type, &init.qp_type);
	if (ret)
		return ret;
	qp = rdmachan_verbs_alloc(file, struct rdmachan_qp, &rdmachan_qp_kind);
	if (!qp)
		return -ENOMEM;
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->bind_lock);
	qp->user_context = cmd->user_context;
	ret = rdmachan_verbs_reserve(call, &qp->v, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&qp->v.obj);
		return ret;
	}

	down_read(&file->verbs_lock);
	ret = rdmachan_qp_find_parts(file, cmd, qp);
	if (ret) {
		/* The QP holds no reference to them yet. */
		qp->pd = NULL;
		qp->send_cq = NULL;
		qp->recv_cq = NULL;
		qp->srq = NULL;
		goto out_unlock;
	}
	/* Its events go to its PD's context from the start. */
	rdmachan_async_obj_init(&qp->async, &qp->v, RDMACHAN_ASYNC_ELEMENT_QP,
				qp->pd->async, qp->user_context);
	rdmachan_qp_init_attr(qp, cmd, &init);
	rdmachan_qp_hold_parts(qp);
	ret = rdmachan_qp_create_ib(file, cmd, qp, &init);
out_unlock:
	up_read(&file->verbs_lock);
	return ret;
}

/* The checks uverbs makes of ports and states before a modify. */
static int rdmachan_qp_check_ports(struct ib_qp *ibqp,
				   struct rdmachan_qp_attr *a, u32 *mask)
{
	struct ib_device *ibdev = ibqp->device;

	if ((*mask & IB_QP_PORT) && !rdma_is_port_valid(ibdev, a->port_num))
		return -EINVAL;
	if (*mask & IB_QP_AV) {
		if (!rdma_is_port_valid(ibdev, a->ah_attr.port_num))
			return -EINVAL;
		if ((*mask & IB_QP_STATE) && a->qp_state == IB_QPS_RTR) {
			/* INIT to RTR: the AV's port is the QP's. */
			if (a->ah_attr.port_num != ibqp->port)
				return -EINVAL;
		} else {
			/* SQD to SQD: a new AV moves the QP to its port. */
			if ((*mask & IB_QP_PORT) &&
			    a->port_num != a->ah_attr.port_num)
				return -EINVAL;
			/* The core reads the port it is given: the AV's. */
			*mask |= IB_QP_PORT;
			a->port_num = a->ah_attr.port_num;
		}
	}
	if ((*mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(ibdev, a->alt_port_num) ||
	     a->alt_port_num != a->alt_ah_attr.port_num))
		return -EINVAL;
	if (((*mask & IB_QP_CUR_STATE) && a->cur_qp_state > IB_QPS_ERR) ||
	    ((*mask & IB_QP_STATE) && a->qp_state > IB_QPS_ERR))
		return -EINVAL;
	if ((*mask & IB_QP_QKEY) && (a->qkey & IB_QP_SET_QKEY) &&
	    !rdmachan_may_use_privileged_qkey(ibqp->device))
		return -EPERM;
	return 0;
}

static int rdmachan_qp_attr_in(struct ib_qp *ibqp,
			       struct rdmachan_qp_attr *a, u32 *mask,
			       struct ib_qp_attr *attr)
{
	struct ib_device *ibdev = ibqp->device;
	bool connected = ibqp->qp_type == IB_QPT_RC ||
			 ibqp->qp_type == IB_QPT_UC;
	int ret;

	if (a->__reserved || a->cap.__reserved)
		return -EINVAL;
	ret = rdmachan_qp_check_ports(ibqp, a, mask);
	if (ret)
		return ret;
	attr->qp_state = a->qp_state;
	attr->cur_qp_state = a->cur_qp_state;
	attr->path_mtu = a->path_mtu;
	attr->path_mig_state = a->path_mig_state;
	attr->qkey = a->qkey;
	/* PSNs have 24 bits; the core would warn about more. */
	attr->rq_psn = a->rq_psn & RDMACHAN_PSN_MASK;
	attr->sq_psn = a->sq_psn & RDMACHAN_PSN_MASK;
	attr->dest_qp_num = a->dest_qp_num;
	attr->qp_access_flags = a->qp_access_flags;
	attr->pkey_index = a->pkey_index;
	attr->alt_pkey_index = a->alt_pkey_index;
	attr->en_sqd_async_notify = a->en_sqd_async_notify;
	attr->sq_draining = a->sq_draining;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->port_num = a->port_num;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	attr->alt_port_num = a->alt_port_num;
	attr->alt_timeout = a->alt_timeout;
	attr->cap.max_send_wr = a->cap.max_send_wr;
	attr->cap.max_recv_wr = a->cap.max_recv_wr;
	attr->cap.max_send_sge = a->cap.max_send_sge;
	attr->cap.max_recv_sge = a->cap.max_recv_sge;
	attr->cap.max_inline_data = a->cap.max_inline_data;
	if (*mask & IB_QP_AV) {
		ret = rdmachan_ah_attr_from_user(ibdev, &a->ah_attr,
						 &attr->ah_attr);
		if (!ret && connected)
			ret = rdmachan_resolve_dmac(ibdev, &attr->ah_attr);
		if (ret)
			return ret;
	}
	if (*mask & IB_QP_ALT_PATH) {
		ret = rdmachan_ah_attr_from_user(ibdev, &a->alt_ah_attr,
						 &attr->alt_ah_attr);
		if (!ret && connected)
			ret = rdmachan_resolve_dmac(ibdev, &attr->alt_ah_attr);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Neither the core nor rxe serialises the modifies of a QP: two at once
 * leak the address vector's GID reference (qp->av_sgid_attr) or rxe's
 * responder resources. The CM modifies a QP bound to an id under the
 * id's handler lock, so a bound QP is modified under that lock too.
 */
static int rdmachan_qp_modify(struct rdmachan_qp *qp, struct ib_qp_attr *attr,
			      u32 mask)
{
	struct rdmachan_cm_id *id;
	bool bound;
	int ret;

	id = rdmachan_qp_lock_bound_id(qp, &bound);
	if (bound)
		rdma_lock_handler(id->cm_id);
	mutex_lock(&qp->modify_lock);
	ret = rdmachan_rxe_rd_atomic_check(qp, mask, attr->max_dest_rd_atomic);
	if (!ret) {
		ret = ib_modify_qp(qp->ib, attr, mask);
		rdmachan_rxe_rd_atomic_done(qp, mask, attr->max_dest_rd_atomic,
					    ret);
	}
	mutex_unlock(&qp->modify_lock);
	if (bound)
		rdma_unlock_handler(id->cm_id);
	if (id)
		rdmachan_qp_unlock_bound_id(id);
	return ret;
}

/*
 * Device removal, with the file's verbs_lock held: the QP flushes its
 * work requests to its CQs. rxe does it from tasklets, which run here
 * when bottom halves come back on. The CM may still be modifying a
 * bound QP from its handler, so this goes the way every modify goes.
 */
static int rdmachan_qp_flush(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_qp *qp = container_of(v, struct rdmachan_qp, v);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	lockdep_assert_held(&v->file->verbs_lock);
	rdmachan_qp_modify(qp, &attr, IB_QP_STATE);
	local_bh_disable();
	local_bh_enable();
	return 0;
}

int rdmachan_cmd_modify_qp(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_modify_qp *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct ib_qp_attr attr = {};
	struct rdmachan_qp *qp;
	u32 mask = cmd->attr_mask;
	int ret;

	if (mask & ~RDMACHAN_QP_ATTR_MASK)
		return -EINVAL;
	down_read(&file->verbs_lock);
	qp = rdmachan_qp_find(file, cmd->qp);
	ret = rdmachan_verbs_usable(qp ? &qp->v : NULL);
	if (!ret)
		ret = rdmachan_qp_attr_in(qp->ib, &cmd->attr, &mask, &attr);
	if (!ret)
		ret = rdmachan_qp_modify(qp, &attr, mask);
	up_read(&file->verbs_lock);
	return ret;
}

int rdmachan_cmd_query_qp(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_qp *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdmachan_qp_attr *a = &cmd->out_attr;
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr attr = {};
	struct rdmachan_qp *qp;
	int ret;

	/* The mask says what the caller needs; everything is filled in. */
	if ((cmd->attr_mask & ~RDMACHAN_QP_ATTR_MASK) || a->__reserved)
		return -EINVAL;
	down_read(&file->verbs_lock);
	qp = rdmachan_qp_find(file, cmd->qp);
	ret = rdmachan_verbs_usable(qp ? &qp->v : NULL);
	if (!ret)
		ret = ib_query_qp(qp->ib, &attr, RDMACHAN_QP_ATTR_MASK, &init);
	/*
	 * The inline payload the data path takes: the QP's at creation. siw
	 * reports its maximum for every QP here, and a program that goes by
	 * it (qperf) would have each inline post refused.
	 */
	if (!ret)
		attr.cap.max_inline_data = qp->max_inline;
	up_read(&file->verbs_lock);
	if (ret)
		return ret;

	memset(a, 0, sizeof(*a));
	a->qkey = attr.qkey;
	a->rq_psn = attr.rq_psn;
	a->sq_psn = attr.sq_psn;
	a->dest_qp_num = attr.dest_qp_num;
	a->qp_access_flags = attr.qp_access_flags;
	a->pkey_index = attr.pkey_index;
	a->alt_pkey_index = attr.alt_pkey_index;
	a->qp_state = attr.qp_state;
	a->cur_qp_state = attr.cur_qp_state;
	a->path_mtu = attr.path_mtu;
	a->path_mig_state = attr.path_mig_state;
	a->en_sqd_async_notify = attr.en_sqd_async_notify;
	a->sq_draining = attr.sq_draining;
	a->max_rd_atomic = attr.max_rd_atomic;
	a->max_dest_rd_atomic = attr.max_dest_rd_atomic;
	a->min_rnr_timer = attr.min_rnr_timer;
	a->port_num = attr.port_num;
	a->timeout = attr.timeout;
	a->retry_cnt = attr.retry_cnt;
	a->rnr_retry = attr.rnr_retry;
	a->alt_port_num = attr.alt_port_num;
	a->alt_timeout = attr.alt_timeout;
	rdmachan_qp_cap_out(&a->cap, &attr.cap);
	rdmachan_cm_fill_ah_attr(&attr.ah_attr, &a->ah_attr);
	rdmachan_cm_fill_ah_attr(&attr.alt_ah_attr, &a->alt_ah_attr);
	return 0;
}
