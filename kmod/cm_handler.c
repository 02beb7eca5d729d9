// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the CM's event handler of every id: what each event does to
 * the id, its QP and its joins before it goes on the file's queue, and the
 * new id of a connect request.
 */
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "rdmachan.h"

static void rdmachan_cm_fill_event(struct rdmachan_cm_event *uevent,
				   struct rdma_cm_id *cm_id,
				   const struct rdma_cm_event *event)
{
	const struct rdma_conn_param *conn = &event->param.conn;
	const struct rdma_ud_param *ud = &event->param.ud;
	const void *private_data;
	u8 len;

	uevent->event = event->event;
	uevent->status = event->status;
	uevent->valid = RDMACHAN_CM_EVENT_ROUTE;
	rdmachan_cm_fill_route(cm_id, &uevent->route);

	if (cm_id->qp_type == IB_QPT_UD) {
		uevent->valid |= RDMACHAN_CM_EVENT_UD;
		rdmachan_cm_fill_ah_attr(&ud->ah_attr, &uevent->ah_attr);
		uevent->qp_num = ud->qp_num;
		uevent->qkey = ud->qkey;
		private_data = ud->private_data;
		len = ud->private_data_len;
	} else {
		uevent->valid |= RDMACHAN_CM_EVENT_CONN;
		uevent->qp_num = conn->qp_num;
		uevent->responder_resources = conn->responder_resources;
		uevent->initiator_depth = conn->initiator_depth;
		uevent->flow_control = conn->flow_control;
		uevent->retry_count = conn->retry_count;
		uevent->rnr_retry_count = conn->rnr_retry_count;
		uevent->srq = conn->srq;
		private_data = conn->private_data;
		len = conn->private_data_len;
	}
	if (private_data && len) {
		uevent->private_data_len = len;
		memcpy(uevent->private_data, private_data, len);
	}
}

static int rdmachan_cm_connect_request(struct rdmachan_cm_id *listen,
				       struct rdma_cm_id *cm_id,
				       struct rdma_cm_event *event)
{
	struct rdmachan_cm_event_entry *entry;
	struct mem_cgroup *old_memcg;

	/* Beyond the backlog a request is refused, not queued. */
	if (!atomic_add_unless(&listen->backlog, -1, 0))
		return -ENOMEM;
	/* The new id's handle and the request go to one file. */
	mutex_lock(&listen->request_lock);
	old_memcg = set_active_memcg(listen->file->memcg);
	entry = kzalloc(sizeof(*entry), RDMACHAN_GFP);
	if (entry)
		entry->new_id = rdmachan_cm_id_new_child(listen, cm_id);
	set_active_memcg(old_memcg);
	if (!entry || !entry->new_id)
		goto err_entry;
	kref_get(&listen->obj.ref);
	entry->id = listen;
	rdmachan_cm_fill_event(&entry->uevent, cm_id, event);
	rdmachan_cm_queue(listen->file, entry);
	mutex_unlock(&listen->request_lock);
	return 0;

err_entry:
	mutex_unlock(&listen->request_lock);
	kfree(entry);
	atomic_inc(&listen->backlog);
	/* The CM destroys the new rdma_cm_id and rejects the request. */
	return -ENOMEM;
}

/*
 * What an event does before it is queued: the QP goes to the error state
 * on the end of a connection, a join attaches, a bound uverbs QP is
 * completed; the entry may change to say how that went.
 */
static void rdmachan_cm_event_effects(struct rdmachan_cm_id *id,
				      struct rdmachan_cm_event_entry *entry,
				      struct rdma_cm_event *event)
{
	struct rdmachan_mcast *mc;
	int ret;

	switch (event->event) {
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rdmachan_bound_qp_flush(id, RDMACHAN_QP_FLUSH_EARLY);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * The QP has flushed its work requests when this is read.
		 * Only this id's own QP: when the CM disconnects it as a
		 * stale connection, a REQ named its QP number, which only a
		 * file owning the QP may send (rdmachan_qp_num_hold()),
		 * or the peer restarted and the connection is dead anyway.
		 */
		rdmachan_bound_qp_flush(id, RDMACHAN_QP_FLUSH_ENDED);
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		mc = (struct rdmachan_mcast *)event->param.ud.private_data;
		kref_get(&mc->obj.ref);
		entry->mcast = mc;
		entry->uevent.mcast_handle = mc->handle;
		entry->uevent.mcast_context = mc->user_context;
		ret = rdmachan_mcast_joined(id, mc, event);
		if (ret) {
			entry->uevent.event = RDMA_CM_EVENT_MULTICAST_ERROR;
			entry->uevent.status = ret;
		}
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		ret = rdmachan_bound_qp_connected(id);
		if (ret > 0) {
			/* The REP came: ESTABLISH may send the RTU. */
			atomic_cmpxchg(&id->conn_end, RDMACHAN_CONN_ACTIVE,
				       RDMACHAN_CONN_REPLIED);
			break;
		}
		/* A bound uverbs QP: the module sent the RTU, or rejected. */
		atomic_set(&id->conn_end, RDMACHAN_CONN_ANSWERED);
		entry->uevent.event = ret ? RDMA_CM_EVENT_CONNECT_ERROR :
					    RDMA_CM_EVENT_ESTABLISHED;
		entry->uevent.status = ret;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		/*
		 * The CM is back where it takes rdma_resolve_addr(), unless
		 * this error is a SIDR reply's, which leaves the id connecting.
		 */
		if (READ_ONCE(id->addr_resolving))
			WRITE_ONCE(id->addr_fixed, false);
		break;
	default:
		break;
	}
}

/*
 * @event on the id's queue, after its effects. Every event other than a
 * connect request must reach userspace; it is small enough. It is charged
 * to the opener's cgroup but at its limit: forced, the charge would leave
 * the cgroup over it, and the process's next page fault to the OOM killer.
 * With the id's CM handler lock held.
 */
static void rdmachan_cm_report(struct rdmachan_cm_id *id,
			       struct rdma_cm_id *cm_id,
			       struct rdma_cm_event *event)
{
	struct rdmachan_cm_event_entry *entry;
	struct mem_cgroup *old_memcg;

	old_memcg = set_active_memcg(id->file->memcg);
	entry = kzalloc(sizeof(*entry), RDMACHAN_GFP | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (!entry)
		entry = kzalloc(sizeof(*entry), GFP_KERNEL | __GFP_NOFAIL);
	kref_get(&id->obj.ref);
	entry->id = id;
	rdmachan_cm_fill_event(&entry->uevent, cm_id, event);
	rdmachan_cm_event_effects(id, entry, event);
	rdmachan_cm_queue(id->file, entry);
}

/* The CM's event handler of every id; it runs under the id's handler lock. */
int rdmachan_cm_event_handler(struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *event)
{
	struct rdmachan_cm_id *id = cm_id->context;

	/* After the module's DEVICE_REMOVAL, the id hears nothing more. */
	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return id->removal_reported ? -ENODEV :
		       rdmachan_cm_connect_request(id, cm_id, event);
	if (!id->removal_reported)
		rdmachan_cm_report(id, cm_id, event);
	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		kref_get(&id->obj.ref);
		if (!queue_work(system_unbound_wq, &id->removal_work))
			rdmachan_object_put(&id->obj);
	}
	return 0;
}

/*
 * The device of @id goes: DEVICE_REMOVAL is queued now, as the CM would
 * queue it, its QP moved to ERR first, and a bound uverbs QP's file let
 * go, so that a program which tears down on the event closes its uverbs
 * context and ib_uverbs' removal, which waits for that, can end. The
 * CM's own DEVICE_REMOVAL, later, only tears the id down.
 */
static void rdmachan_cm_id_device_removal(struct rdmachan_cm_id *id,
					  struct ib_device *ibdev)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	struct rdmachan_qp_unbound uverbs = {};
	struct rdma_cm_id *cm_id;

	mutex_lock(&id->lock);
	cm_id = id->cm_id;
	if (!cm_id)
		goto out;
	rdma_lock_handler(cm_id);
	if (cm_id->device == ibdev && !id->removal_reported) {
		rdmachan_cm_report(id, cm_id, &event);
		id->removal_reported = true;
		rdmachan_qp_unbind_id(id, BIT(RDMACHAN_QP_UVERBS), &uverbs);
	}
	rdma_unlock_handler(cm_id);
out:
	mutex_unlock(&id->lock);
	rdmachan_qp_unbound_release(&uverbs);
}

static void rdmachan_cm_file_device_removal(struct rdmachan_file *file,
					    void *ibdev)
{
	struct rdmachan_object *entry, *obj;
	unsigned long handle;

	xa_for_each(&file->objects, handle, entry) {
		/* with a reference, and only if it is a CM id */
		obj = rdmachan_object_get(file, handle, RDMACHAN_OBJ_CM_ID);
		if (!obj)
			continue;
		rdmachan_cm_id_device_removal(container_of(obj,
							   struct rdmachan_cm_id,
							   obj), ibdev);
		rdmachan_object_put(obj);
	}
}

struct rdmachan_cm_removal_walk {
	struct work_struct work;
	struct ib_device *ibdev;
};

static void rdmachan_cm_removal_walk(struct work_struct *work)
{
	struct rdmachan_cm_removal_walk *walk =
		container_of(work, struct rdmachan_cm_removal_walk, work);

	rdmachan_files_for_each(rdmachan_cm_file_device_removal, walk->ibdev);
}

/*
 * From the module's removal of @ibdev, which comes before ib_uverbs' and
 * rdma_cm's: every id on the device gets its DEVICE_REMOVAL. Device
 * removal is rare, so every open file's ids are looked at.
 *
 * The walk runs in a worker: a uverbs file it lets go of may be the last
 * reference, and fput() in the task removing the device would defer the
 * release to that task's return to user space, after ib_uverbs' removal,
 * which waits for the release. A worker's fput() leaves the release to
 * the kernel's delayed-fput work, which does not wait for us.
 */
void rdmachan_cm_device_removal(struct ib_device *ibdev)
{
	struct rdmachan_cm_removal_walk walk = { .ibdev = ibdev };

	INIT_WORK_ONSTACK(&walk.work, rdmachan_cm_removal_walk);
	queue_work(system_unbound_wq, &walk.work);
	flush_work(&walk.work);
	destroy_work_on_stack(&walk.work);
}
