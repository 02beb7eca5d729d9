// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: a CM id's bound QP through CONNECT and ACCEPT.
 *
 * The CM readies a QP of its own for the connection; a bound uverbs QP is
 * readied here as the CM would (INIT with the connection's attributes, RTR,
 * RTS), and the QP whose number a REQ or REP carries is held until the
 * message has gone. The binding itself is qp_binding.c's.
 */
#include <rdma/ib_cm.h>

#include "rdmachan.h"

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
