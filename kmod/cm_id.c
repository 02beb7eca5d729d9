// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: CM ids and the rdma_cm operations on them.
 *
 * Every operation runs under the id's mutex and only while the kernel
 * rdma_cm_id exists, so it never races with teardown. The CM's event
 * handler never takes that mutex: teardown may wait for a handler to end
 * while holding it.
 */
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>

#include "rdmachan.h"

/* As ucma's default rdma_cm max_backlog. */
#define RDMACHAN_MAX_BACKLOG	1024

static bool rdmachan_cm_ps_valid(u32 ps, u32 qp_type)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return qp_type == IB_QPT_RC;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		return qp_type == IB_QPT_UD;
	case RDMA_PS_IB:
		return qp_type == IB_QPT_RC || qp_type == IB_QPT_UD;
	default:
		return false;
	}
}

int rdmachan_cmd_create_id(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_id *cmd = arg;
	struct rdmachan_cm_id *id;
	struct rdma_cm_id *cm_id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	if (!rdmachan_cm_ps_valid(cmd->port_space, cmd->qp_type))
		return -EINVAL;
	id = rdmachan_cm_id_alloc(call->file);
	if (!id)
		return -ENOMEM;
	id->user_context = cmd->user_context;
	ret = rdmachan_object_reserve(call, &id->obj, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&id->obj);
		return ret;
	}
	id->handle = cmd->out_handle;
	cm_id = rdma_create_user_id(rdmachan_cm_event_handler, id,
				    cmd->port_space, cmd->qp_type);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	id->cm_id = cm_id;
	return 0;
}

/* An AF_INET, AF_INET6 or AF_IB address of a valid length, or none. */
static bool rdmachan_cm_addr_valid(const struct __kernel_sockaddr_storage *ss,
				   bool optional)
{
	if (optional && !ss->ss_family)
		return true;
	return rdma_addr_size((struct sockaddr *)ss) != 0;
}

int rdmachan_cmd_bind_addr(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_bind_addr *cmd = arg;
	struct rdmachan_bind_addr __user *ucmd = call->uarg;
	struct rdmachan_cm_route __user *uroute = &ucmd->out_route;
	struct rdmachan_cm_id *id;
	int ret;

	if (cmd->__reserved || !rdmachan_cm_addr_valid(&cmd->addr, false))
		return -EINVAL;
	/* rdma_cm cannot unbind: fail on a reply that cannot be written first. */
	if (clear_user(uroute, sizeof(*uroute)))
		return -EFAULT;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id->cm_id, (struct sockaddr *)&cmd->addr);
	if (!ret) {
		rdmachan_cm_id_set_state(id, RDMACHAN_ID_BOUND);
		rdmachan_cm_fill_route(id->cm_id, &cmd->out_route);
	}
	rdmachan_cm_id_unlock(id);
	return ret;
}

int rdmachan_cmd_resolve_addr(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_resolve_addr *cmd = arg;
	struct rdmachan_cm_id *id;
	struct sockaddr *src;
	u32 old;
	int ret;

	if (!rdmachan_cm_addr_valid(&cmd->src_addr, true) ||
	    !rdmachan_cm_addr_valid(&cmd->dst_addr, false))
		return -EINVAL;
	src = cmd->src_addr.ss_family ? (struct sockaddr *)&cmd->src_addr : NULL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (READ_ONCE(id->addr_fixed)) {
		ret = -EINVAL;
	} else {
		/* Before the call: its ADDR_ERROR may come before it returns. */
		WRITE_ONCE(id->addr_fixed, true);
		WRITE_ONCE(id->addr_resolving, true);
		old = rdmachan_cm_id_begin_state(id, RDMACHAN_ID_RESOLVING_ADDR);
		ret = rdma_resolve_addr(id->cm_id, src,
					(struct sockaddr *)&cmd->dst_addr,
					cmd->timeout_ms);
		rdmachan_cm_id_end_state(id, old, RDMACHAN_ID_RESOLVING_ADDR,
					 ret);
		if (ret) {
			WRITE_ONCE(id->addr_resolving, false);
			WRITE_ONCE(id->addr_fixed, false);
		}
	}
	rdmachan_cm_id_unlock(id);
	return ret;
}

/*
 * The CM files a RoCE id with a route in a tree keyed by interface and
 * destination, where an AF_IB destination is unequal even to itself: the
 * id would stay filed after it is freed. Its route needs an interface,
 * which an AF_IB id has only when a failed bind left one, so refusing it
 * as the CM does without one changes no working program.
 */
static bool rdmachan_cm_route_unfilable(const struct rdma_cm_id *cm_id)
{
	return cm_id->route.addr.dst_addr.ss_family == AF_IB &&
	       cm_id->device &&
	       rdma_protocol_roce(cm_id->device, cm_id->port_num);
}

int rdmachan_cmd_resolve_route(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_resolve_route *cmd = arg;
	struct rdmachan_cm_id *id;
	u32 old;
	int ret;

	if (cmd->timeout_ms < 0)
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/*
	 * 6.1's address handler makes the id ADDR_RESOLVED before it finds
	 * the device, under the handler lock: without it, the route would
	 * be resolved on no device (a NULL dereference in the CM).
	 */
	rdma_lock_handler(id->cm_id);
	if (rdmachan_cm_route_unfilable(id->cm_id)) {
		ret = -ENODEV;
		goto out;
	}
	old = rdmachan_cm_id_begin_state(id, RDMACHAN_ID_RESOLVING_ROUTE);
	ret = rdma_resolve_route(id->cm_id, cmd->timeout_ms);
	rdmachan_cm_id_end_state(id, old, RDMACHAN_ID_RESOLVING_ROUTE, ret);
	if (!ret)
		WRITE_ONCE(id->addr_fixed, true);
out:
	rdma_unlock_handler(id->cm_id);
	rdmachan_cm_id_unlock(id);
	return ret;
}

int rdmachan_cmd_listen(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_listen *cmd = arg;
	struct rdmachan_cm_id *id;
	int backlog, ret;

	backlog = cmd->backlog > 0 && cmd->backlog < RDMACHAN_MAX_BACKLOG ?
		  cmd->backlog : RDMACHAN_MAX_BACKLOG;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (READ_ONCE(id->addr_resolving)) {
		ret = -EINVAL;
		goto out;
	}
	atomic_set(&id->backlog, backlog);
	ret = rdma_listen(id->cm_id, backlog);
	if (!ret) {
		WRITE_ONCE(id->addr_fixed, true);
		rdmachan_cm_id_set_state(id, RDMACHAN_ID_LISTENING);
	}
out:
	rdmachan_cm_id_unlock(id);
	return ret;
}

/*
 * The CM's parameters of a CONNECT or ACCEPT, the QP number as the caller
 * gave it: rdmachan_qp_send_begin() checks it or puts the bound QP's.
 */
static int rdmachan_cm_conn_param(struct rdmachan_cm_id *id,
				  const struct rdmachan_conn_param *src,
				  struct rdma_conn_param *dst)
{
	struct rdma_cm_id *cm_id = id->cm_id;

	lockdep_assert_held(&id->lock);
	if (src->__reserved)
		return -EINVAL;
	memset(dst, 0, sizeof(*dst));
	dst->private_data = src->private_data_len ? src->private_data : NULL;
	dst->private_data_len = src->private_data_len;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num & RDMACHAN_QPN_MASK;
	dst->qkey = cm_id->route.addr.src_addr.ss_family == AF_IB ? src->qkey : 0;
	return 0;
}

/* The id of CONNECT or ACCEPT locked, and the QP its number names held. */
static int rdmachan_cm_send_begin(struct rdmachan_call *call,
				  const struct rdmachan_connect *cmd,
				  struct rdmachan_qp_send *send)
{
	struct rdmachan_cm_id *id;
	int ret;

	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdmachan_cm_conn_param(id, &cmd->conn, &send->param);
	if (!ret)
		ret = rdmachan_qp_send_begin(id, send);
	if (ret)
		rdmachan_cm_id_unlock(id);
	return ret;
}

static void rdmachan_cm_send_end(struct rdmachan_qp_send *send)
{
	struct rdmachan_cm_id *id = send->id;

	rdmachan_qp_send_end(send);
	rdmachan_cm_id_unlock(id);
}

int rdmachan_cmd_connect(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_connect *cmd = arg;
	struct rdmachan_qp_send send;
	struct rdmachan_cm_id *id;
	u32 old;
	int ret;

	if (cmd->__reserved || cmd->user_context)
		return -EINVAL;
	ret = rdmachan_cm_send_begin(call, cmd, &send);
	if (ret)
		return ret;
	id = send.id;
	/*
	 * Active before the REQ goes, as its reply may come first. An id
	 * that connected or was made for a request: the CM refuses it too.
	 */
	if (atomic_cmpxchg(&id->conn_end, RDMACHAN_CONN_NONE,
			   RDMACHAN_CONN_ACTIVE) != RDMACHAN_CONN_NONE) {
		ret = -EINVAL;
		goto end;
	}
	ret = rdmachan_qp_connect_begin(&send);
	if (ret) {
		atomic_set(&id->conn_end, RDMACHAN_CONN_NONE);
		goto end;
	}
	old = rdmachan_cm_id_begin_state(id, RDMACHAN_ID_CONNECTING);
	ret = rdma_connect_locked(id->cm_id, &send.param);
	rdmachan_cm_id_end_state(id, old, RDMACHAN_ID_CONNECTING, ret);
	/* no REQ went out: the id may connect again */
	if (ret)
		atomic_set(&id->conn_end, RDMACHAN_CONN_NONE);
	rdmachan_qp_connect_end(&send, ret);
end:
	rdmachan_cm_send_end(&send);
	return ret;
}

/*
 * The CM call answering the connection comes once, at the right end and
 * when there is something to answer; a failed one answers too, as the CM
 * then rejects the connection itself.
 */
static int rdmachan_cm_answer_begin(struct rdmachan_cm_id *id,
				    enum rdmachan_conn_end end)
{
	if (atomic_cmpxchg(&id->conn_end, end, RDMACHAN_CONN_ANSWERED) != end)
		return -EINVAL;
	return 0;
}

int rdmachan_cmd_accept(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_connect *cmd = arg;
	struct rdmachan_qp_send send;
	struct rdmachan_cm_id *id;
	u32 old;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	/*
	 * rdma_accept() must run under the id's handler lock, and under it a
	 * bound uverbs QP is readied (rxe takes one QP modify at a time
	 * only). A refusal leaves the request to answer again.
	 */
	ret = rdmachan_cm_send_begin(call, cmd, &send);
	if (ret)
		return ret;
	id = send.id;
	ret = rdmachan_qp_accept_begin(&send);
	if (!ret)
		ret = rdmachan_cm_answer_begin(id, RDMACHAN_CONN_REQUEST);
	if (!ret) {
		old = rdmachan_cm_id_begin_state(id, RDMACHAN_ID_ACCEPTING);
		ret = rdma_accept(id->cm_id, &send.param);
		rdmachan_cm_id_end_state(id, old, RDMACHAN_ID_ACCEPTING, ret);
		rdmachan_qp_accept_end(&send, ret);
		if (!ret)
			WRITE_ONCE(id->user_context, cmd->user_context);
	}
	rdmachan_cm_send_end(&send);
	return ret;
}

int rdmachan_cmd_establish(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_establish *cmd = arg;
	struct rdmachan_cm_id *id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/*
	 * On the active side, an accept without parameters sends the RTU;
	 * before the REP came, the CM would reject with its REQ still out.
	 */
	ret = rdmachan_cm_answer_begin(id, RDMACHAN_CONN_REPLIED);
	if (!ret) {
		rdma_lock_handler(id->cm_id);
		ret = rdma_accept(id->cm_id, NULL);
		rdma_unlock_handler(id->cm_id);
	}
	rdmachan_cm_id_unlock(id);
	return ret;
}

int rdmachan_cmd_reject(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_reject *cmd = arg;
	struct rdmachan_cm_id *id;
	u8 reason;
	int ret;

	if (cmd->__reserved ||
	    cmd->private_data_len > RDMACHAN_CM_PRIVATE_DATA_MAX - 1)
		return -EINVAL;
	switch (cmd->reason) {
	case 0:
	case IB_CM_REJ_CONSUMER_DEFINED:
		reason = IB_CM_REJ_CONSUMER_DEFINED;
		break;
	case IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED:
		reason = cmd->reason;
		break;
	default:
		return -EINVAL;
	}
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdmachan_cm_answer_begin(id, RDMACHAN_CONN_REQUEST);
	if (!ret)
		ret = rdma_reject(id->cm_id,
				  cmd->private_data_len ? cmd->private_data : NULL,
				  cmd->private_data_len, reason);
	if (!ret)
		rdmachan_cm_id_set_state(id, RDMACHAN_ID_REJECTED);
	rdmachan_cm_id_unlock(id);
	return ret;
}

int rdmachan_cmd_disconnect(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_disconnect *cmd = arg;
	struct rdmachan_cm_id *id;
	u32 old;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/*
	 * As the CM does for its own QP: on IB and RoCE flushed before the
	 * DREQ goes; on iWARP the close is TCP's, graceful, and the QP goes
	 * to ERR on DISCONNECTED (ERR now would abort the stream).
	 */
	if (!rdmachan_cm_id_iwarp(id->cm_id)) {
		rdma_lock_handler(id->cm_id);
		rdmachan_bound_qp_flush(id, RDMACHAN_QP_FLUSH_EARLY);
		rdma_unlock_handler(id->cm_id);
	}
	/* Only a connection goes to DISCONNECTING; DISCONNECTED stays. */
	old = cmpxchg(&id->state, RDMACHAN_ID_CONNECTED,
		      RDMACHAN_ID_DISCONNECTING);
	ret = rdma_disconnect(id->cm_id);
	if (old == RDMACHAN_ID_CONNECTED)
		rdmachan_cm_id_end_state(id, old, RDMACHAN_ID_DISCONNECTING,
					 ret);
	rdmachan_cm_id_unlock(id);
	return ret;
}

int rdmachan_cmd_notify(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_notify *cmd = arg;
	struct rdmachan_cm_id *id;
	int ret;

	/*
	 * The CM refuses all but COMM_EST and PATH_MIG, and 6.1's answer to
	 * PATH_MIG copies the alternate path's address vector over the
	 * primary's: the primary's GID and CM device references leak (RoCE
	 * has no alternate path) or are put twice later (IB).
	 */
	if (cmd->event != IB_EVENT_COMM_EST)
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_notify(id->cm_id, cmd->event);
	rdmachan_cm_id_unlock(id);
	return ret;
}

/* Option names of level RDMA_OPTION_ID, as in rdma-core. */
enum {
	RDMACHAN_OPTION_ID = 0,
	RDMACHAN_OPTION_ID_TOS = 0,
	RDMACHAN_OPTION_ID_REUSEADDR = 1,
	RDMACHAN_OPTION_ID_AFONLY = 2,
	RDMACHAN_OPTION_ID_ACK_TIMEOUT = 3,
};

/* The largest ACK timeout the QP context holds: 4.096 us * 2^31 */
#define RDMACHAN_MAX_ACK_TIMEOUT 31

int rdmachan_cmd_set_option(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_set_option *cmd = arg;
	struct rdmachan_cm_id *id;
	int ret;

	if (cmd->__reserved)
		return -EINVAL;
	if (cmd->level != RDMACHAN_OPTION_ID ||
	    cmd->optname > RDMACHAN_OPTION_ID_ACK_TIMEOUT)
		return -ENOPROTOOPT;
	if (cmd->optname != RDMACHAN_OPTION_ID_REUSEADDR &&
	    cmd->optname != RDMACHAN_OPTION_ID_AFONLY && cmd->value > U8_MAX)
		return -EINVAL;
	/*
	 * A QP's ACK timeout has 5 bits. The CM makes a RoCE path's packet
	 * life time of it, which 7.x's ib_send_cm_req() shifts by: more than
	 * an int has bits (UBSAN: shift-out-of-bounds).
	 */
	if (cmd->optname == RDMACHAN_OPTION_ID_ACK_TIMEOUT &&
	    cmd->value > RDMACHAN_MAX_ACK_TIMEOUT)
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	switch (cmd->optname) {
	case RDMACHAN_OPTION_ID_TOS:
		rdma_set_service_type(id->cm_id, cmd->value);
		ret = 0;
		break;
	case RDMACHAN_OPTION_ID_REUSEADDR:
		ret = rdma_set_reuseaddr(id->cm_id, cmd->value ? 1 : 0);
		break;
	case RDMACHAN_OPTION_ID_AFONLY:
		ret = rdma_set_afonly(id->cm_id, cmd->value ? 1 : 0);
		break;
	default:
		ret = rdma_set_ack_timeout(id->cm_id, cmd->value);
		break;
	}
	rdmachan_cm_id_unlock(id);
	return ret;
}

int rdmachan_cmd_init_qp_attr(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_init_qp_attr *cmd = arg;
	struct rdmachan_cm_id *id;
	struct ib_qp_attr attr = {};
	int mask = 0;
	int ret;

	if (cmd->qp_state > IB_QPS_ERR ||
	    memchr_inv(cmd->__reserved, 0, sizeof(cmd->__reserved)))
		return -EINVAL;
	id = rdmachan_cm_id_lock(call->file, cmd->handle);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (!id->cm_id->device) {
		ret = -EINVAL;
		goto out;
	}
	attr.qp_state = cmd->qp_state;
	/* The CM's handlers write what it reads (the qkey of a UD id). */
	rdma_lock_handler(id->cm_id);
	ret = rdma_init_qp_attr(id->cm_id, &attr, &mask);
	rdma_unlock_handler(id->cm_id);
	if (ret)
		goto out;
	cmd->out_attr_mask = mask;
	cmd->out_qkey = attr.qkey;
	cmd->out_rq_psn = attr.rq_psn;
	cmd->out_sq_psn = attr.sq_psn;
	cmd->out_dest_qp_num = attr.dest_qp_num;
	cmd->out_qp_access_flags = attr.qp_access_flags;
	cmd->out_pkey_index = attr.pkey_index;
	cmd->out_path_mtu = attr.path_mtu;
	cmd->out_port_num = attr.port_num;
	cmd->out_max_rd_atomic = attr.max_rd_atomic;
	cmd->out_max_dest_rd_atomic = attr.max_dest_rd_atomic;
	cmd->out_min_rnr_timer = attr.min_rnr_timer;
	cmd->out_timeout = attr.timeout;
	cmd->out_retry_cnt = attr.retry_cnt;
	cmd->out_rnr_retry = attr.rnr_retry;
	rdmachan_cm_fill_ah_attr(&attr.ah_attr, &cmd->out_ah_attr);
out:
	rdmachan_cm_id_unlock(id);
	return ret;
}
