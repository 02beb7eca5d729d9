// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: multicast joins of CM ids.
 *
 * A join is an object of the file, and the context the CM reports it
 * with. When the id has a QP, MULTICAST_JOIN attaches the QP to the
 * group before the event is queued; leaving detaches it first. The CM
 * may report a join until rdma_leave_multicast() or rdma_destroy_id()
 * returns, so the id's @mcasts list holds a reference until then.
 */
#include <linux/uaccess.h>
#include <rdma/ib_sa.h>

#include "rdmachan.h"

void rdmachan_mcast_release(struct rdmachan_object *obj)
{
	struct rdmachan_mcast *mc =
		container_of(obj, struct rdmachan_mcast, obj);

	WARN_ON(!list_empty(&mc->id_entry));
	if (mc->id)
		rdmachan_object_put(&mc->id->obj);
}

static void rdmachan_mcast_put(struct rdmachan_mcast *mc)
{
	rdmachan_object_put(&mc->obj);
}

/*
 * From the CM's event handler, under its handler lock: attaches the id's
 * QP to the group it joined. An error turns the event into
 * MULTICAST_ERROR, as librdmacm does when its attach fails.
 */
int rdmachan_mcast_joined(struct rdmachan_cm_id *id, struct rdmachan_mcast *mc,
			  struct rdma_cm_event *event)
{
	const struct rdma_ah_attr *ah = &event->param.ud.ah_attr;
	struct rdmachan_qp *qp = id->qp;
	int ret;

	if (event->event != RDMA_CM_EVENT_MULTICAST_JOIN || !qp ||
	    mc->leaving || mc->attached)
		return 0;
	mc->mgid = rdma_ah_read_grh(ah)->dgid;
	mc->mlid = rdma_ah_get_dlid(ah);
	ret = ib_attach_mcast(qp->ib, &mc->mgid, mc->mlid);
	if (!ret)
		mc->attached = true;
	return ret;
}

/* Leaves the group, once; the CM reports the join no more. */
static void rdmachan_mcast_leave(struct rdmachan_mcast *mc)
{
	struct rdmachan_cm_id *id = mc->id;
	bool joined;

	mutex_lock(&id->lock);
	/* On the list, the id still has its rdma_cm_id. */
	joined = !list_empty(&mc->id_entry);
	if (joined) {
		list_del_init(&mc->id_entry);
		rdma_lock_handler(id->cm_id);
		mc->leaving = true;
		if (mc->attached)
			ib_detach_mcast(id->qp->ib, &mc->mgid, mc->mlid);
		mc->attached = false;
		rdma_unlock_handler(id->cm_id);
		/* It waits for the join's handler: not under the handler lock. */
		rdma_leave_multicast(id->cm_id, (struct sockaddr *)&mc->addr);
	}
	mutex_unlock(&id->lock);
	if (joined)
		rdmachan_mcast_put(mc);
}

/*
 * DESTROY waits until the join's events read on the file are
 * acknowledged, then leaves the group; queued events of the join go.
 */
int rdmachan_mcast_destroy(struct rdmachan_object *obj, bool wait)
{
	struct rdmachan_mcast *mc =
		container_of(obj, struct rdmachan_mcast, obj);
	int ret = 0;

	/* A join that failed before it had its id */
	if (!mc->id)
		return 0;
	if (wait)
		ret = rdmachan_wait_acks(&mc->id->ack_wait, &mc->unacked,
					 &mc->destroy_waiting,
					 "multicast join", mc->handle, NULL,
					 NULL);
	rdmachan_mcast_leave(mc);
	rdmachan_cm_drop_mcast_events(mc);
	return ret;
}

static int rdmachan_mcast_join_state(u32 join_flags, u8 *state)
{
	/* RDMA_MC_JOIN_FLAG_FULLMEMBER and _SENDONLY_FULLMEMBER of rdma-core */
	switch (join_flags) {
	case 0:
		*state = BIT(FULLMEMBER_JOIN);
		return 0;
	case 1:
		*state = BIT(SENDONLY_FULLMEMBER_JOIN);
		return 0;
	default:
		return -EINVAL;
	}
}

static bool rdmachan_mcast_joined_already(struct rdmachan_cm_id *id,
					  const struct sockaddr *addr)
{
	struct rdmachan_mcast *mc;

	lockdep_assert_held(&id->lock);
	list_for_each_entry(mc, &id->mcasts, id_entry)
		if (!memcmp(&mc->addr, addr, rdma_addr_size(addr)))
			return true;
	return false;
}

/* Writes out_handle itself: nothing can fail once the CM has the join. */
int rdmachan_cmd_join_mcast(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_join_mcast __user *ucmd = call->uarg;
	u32 __user *out_handle = &ucmd->out_handle;
	struct rdmachan_join_mcast *cmd = arg;
	struct sockaddr *addr = (struct sockaddr *)&cmd->addr;
	struct rdmachan_cm_id *id;
	struct rdmachan_mcast *mc;
	u8 join_state;
	int ret;

	if (cmd->__reserved || !rdma_addr_size(addr))
		return -EINVAL;
	ret = rdmachan_mcast_join_state(cmd->join_flags, &join_state);
	if (ret)
		return ret;
	mc = rdmachan_object_alloc(struct rdmachan_mcast, obj,
				   RDMACHAN_OBJ_MCAST);
	if (!mc)
		return -ENOMEM;
	mc->user_context = cmd->user_context;
	memcpy(&mc->addr, &cmd->addr, sizeof(mc->addr));
	INIT_LIST_HEAD(&mc->id_entry);
	ret = rdmachan_object_reserve(call, &mc->obj, &mc->handle);
	if (ret) {
		rdmachan_object_put(&mc->obj);
		return ret;
	}
	if (put_user(mc->handle, out_handle))
		return -EFAULT;

	id = rdmachan_cm_id_lock(call->file, cmd->id);
	if (IS_ERR(id))
		return PTR_ERR(id);
	kref_get(&id->obj.ref);
	mc->id = id;
	/* The CM takes joins on UD ids only, and warns about kernel QPs. */
	if (id->cm_id->qp_type != IB_QPT_UD) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* Leaving goes by address: two joins of one group are ambiguous. */
	if (rdmachan_mcast_joined_already(id, addr)) {
		ret = -EADDRINUSE;
		goto out_unlock;
	}
	kref_get(&mc->obj.ref);
	list_add_tail(&mc->id_entry, &id->mcasts);
	ret = rdma_join_multicast(id->cm_id, addr, join_state, mc);
	if (ret) {
		list_del_init(&mc->id_entry);
		rdmachan_mcast_put(mc);
	}
out_unlock:
	rdmachan_cm_id_unlock(id);
	return ret;
}
