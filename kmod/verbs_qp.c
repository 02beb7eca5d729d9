// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: queue pairs: create (standalone or for a CM id), modify,
 * query, destroy. The binding of a QP to a CM id is qp_binding.c's.
 */
#include <linux/slab.h>
#include <rdma/ib_addr.h>

#include "rdmachan.h"

/* Attribute mask bits a QP can be modified or queried with: IB_QP_STATE..IB_QP_DEST_QPN */
#define RDMACHAN_QP_ATTR_MASK	((IB_QP_DEST_QPN << 1) - 1)

void rdmachan_qp_release(struct rdmachan_verbs_obj *v)
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

void rdmachan_qp_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_qp *qp = container_of(v, struct rdmachan_qp, v);

	rdmachan_qp_destroy_ib(qp);
	atomic_dec(&qp->pd->v.users);
	atomic_dec(&qp->send_cq->v.users);
	atomic_dec(&qp->recv_cq->v.users);
	if (qp->srq)
		atomic_dec(&qp->srq->v.users);
}

/*
 * DESTROY drops the QP's unread async events and waits until those read
 * are acknowledged, with the handle still there to acknowledge them.
 */
int rdmachan_qp_destroy_begin(struct rdmachan_object *obj)
{
	struct rdmachan_qp *qp = container_of(obj, struct rdmachan_qp, v.obj);
	int ret;

	rdmachan_async_obj_dying(&qp->async, true);
	ret = rdmachan_async_obj_wait(&qp->async, "QP");
	if (ret)
		rdmachan_async_obj_dying(&qp->async, false);
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
	qp = rdmachan_verbs_alloc(file, struct rdmachan_qp, RDMACHAN_OBJ_QP);
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

	id = rdmachan_qp_lock_binding(qp, &bound);
	mutex_lock(&qp->modify_lock);
	ret = rdmachan_rxe_rd_atomic_check(qp, mask, attr->max_dest_rd_atomic);
	if (!ret) {
		ret = ib_modify_qp(qp->ib, attr, mask);
		rdmachan_rxe_rd_atomic_done(qp, mask, attr->max_dest_rd_atomic,
					    ret);
	}
	mutex_unlock(&qp->modify_lock);
	rdmachan_qp_unlock_binding(id, bound);
	return ret;
}

/*
 * Device removal, with the file's verbs_lock held: the QP flushes its
 * work requests to its CQs. rxe does it from tasklets, which run here
 * when bottom halves come back on. The CM may still be modifying a
 * bound QP from its handler, so this goes the way every modify goes.
 */
int rdmachan_qp_flush(struct rdmachan_verbs_obj *v)
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
