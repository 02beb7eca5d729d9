// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the life of a CM id: made by CREATE_ID or for a connect
 * request, torn down by destroy, file release or device removal, freed
 * when its last reference goes. A destroy waits for its events' acks.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>

#include "rdmachan.h"

void rdmachan_cm_id_release(struct rdmachan_object *obj)
{
	struct rdmachan_cm_id *id = container_of(obj, struct rdmachan_cm_id, obj);

	WARN_ON(id->cm_id || id->qp);
	mutex_destroy(&id->lock);
	mutex_destroy(&id->request_lock);
}

/*
 * A QP bound to the id stays as a standalone QP. The joins the CM could
 * still report stay referenced until rdma_destroy_id() has left them.
 */
static void rdmachan_cm_id_teardown(struct rdmachan_cm_id *id)
{
	struct rdmachan_qp_unbound bindings = {};
	struct rdmachan_mcast *mc, *tmp;
	struct rdma_cm_id *cm_id;
	LIST_HEAD(mcasts);

	mutex_lock(&id->lock);
	cm_id = id->cm_id;
	if (cm_id && rdmachan_qp_bound(id)) {
		rdma_lock_handler(cm_id);
		rdmachan_qp_unbind_id(id, RDMACHAN_QP_ANY_KIND, &bindings);
		rdma_unlock_handler(cm_id);
	}
	list_splice_init(&id->mcasts, &mcasts);
	id->cm_id = NULL;
	mutex_unlock(&id->lock);
	if (cm_id) {
		/*
		 * 6.1's device removal cancels an address request by the
		 * state it saw, and rdma_destroy_id() not at all after it: a
		 * request RESOLVE_ADDR queued meanwhile would outlive the id.
		 * Not under the handler lock: a running request takes it.
		 */
		rdma_addr_cancel(&cm_id->route.addr.dev_addr);
		/* Waits for running handlers; no event is reported after it. */
		rdma_destroy_id(cm_id);
	}
	list_for_each_entry_safe(mc, tmp, &mcasts, id_entry) {
		list_del_init(&mc->id_entry);
		rdmachan_object_put(&mc->obj);
	}
	rdmachan_qp_unbound_release(&bindings);
}

/* The CM waits in device removal until every id on the device is gone. */
static void rdmachan_cm_removal_work(struct work_struct *work)
{
	struct rdmachan_cm_id *id =
		container_of(work, struct rdmachan_cm_id, removal_work);

	rdmachan_cm_id_teardown(id);
	rdmachan_object_put(&id->obj);
}

/* Ends the id's life in the CM and drops its unread events. */
static void rdmachan_cm_id_kill(struct rdmachan_cm_id *id)
{
	rdmachan_cm_id_teardown(id);
	if (cancel_work_sync(&id->removal_work))
		rdmachan_object_put(&id->obj);
	rdmachan_cm_drop_events(id);
}

static void rdmachan_cm_describe_unacked(void *arg, char *buf, size_t len)
{
	struct rdmachan_cm_id *id = arg;

	spin_lock(&id->ack_lock);
	rdmachan_format_types(buf, len, id->unacked_by_type,
			      RDMACHAN_CM_EVENT_TYPES, rdmachan_cm_event_name);
	spin_unlock(&id->ack_lock);
}

int rdmachan_cm_wait_acks(struct rdmachan_cm_id *id, bool *waiting)
{
	return rdmachan_wait_acks(&id->ack_wait, &id->unacked, waiting, "CM id",
				  id->handle, rdmachan_cm_describe_unacked, id);
}

int rdmachan_cm_id_destroy(struct rdmachan_object *obj, bool wait)
{
	struct rdmachan_cm_id *id = container_of(obj, struct rdmachan_cm_id, obj);

	rdmachan_cm_id_kill(id);
	return wait ? rdmachan_cm_wait_acks(id, &id->destroy_waiting) : 0;
}

struct rdmachan_cm_id *rdmachan_cm_id_alloc(struct rdmachan_file *file)
{
	struct rdmachan_cm_id *id;

	id = rdmachan_object_alloc(struct rdmachan_cm_id, obj,
				   RDMACHAN_OBJ_CM_ID);
	if (!id)
		return NULL;
	id->file = file;
	mutex_init(&id->lock);
	mutex_init(&id->request_lock);
	INIT_WORK(&id->removal_work, rdmachan_cm_removal_work);
	spin_lock_init(&id->ack_lock);
	init_waitqueue_head(&id->ack_wait);
	INIT_LIST_HEAD(&id->mcasts);
	INIT_LIST_HEAD(&id->queued);
	id->state = RDMACHAN_ID_IDLE;
	return id;
}

/*
 * A connect request's new id, made from the CM's handler. It gets its
 * handle now, unreadable until the request is read, so the events that
 * may follow the request already name it.
 */
struct rdmachan_cm_id *rdmachan_cm_id_new_child(struct rdmachan_cm_id *listen,
						struct rdma_cm_id *cm_id)
{
	struct rdmachan_file *file = listen->file;
	struct rdmachan_cm_id *id;

	id = rdmachan_cm_id_alloc(file);
	if (!id)
		return NULL;
	if (rdmachan_object_alloc_handle(file, &id->handle)) {
		rdmachan_object_put(&id->obj);
		return NULL;
	}
	id->user_context = READ_ONCE(listen->user_context);
	id->addr_fixed = true;
	id->state = RDMACHAN_ID_REQUEST;
	atomic_set(&id->conn_end, RDMACHAN_CONN_REQUEST);
	id->cm_id = cm_id;
	cm_id->context = id;
	return id;
}
