// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: asynchronous events of device contexts.
 *
 * Each device context has an event queue (event_queue.c), read through
 * its file (RDMACHAN_IOC_OPEN_ASYNC_FD). The event handlers of its QPs,
 * CQs and SRQs, in whatever context the driver calls them, and the
 * device's event handler (ports, and DEVICE_FATAL when the device goes)
 * queue entries on it while that file is open. Reading an object's event counts it on the
 * object until RDMACHAN_IOC_ACK_ASYNC_EVENT; the object's destroy drops
 * its queued events and waits for the count, as a CM id's destroy does.
 * An entry holds a reference on its object, so the object's handle and
 * user_context are there to report.
 */
#include <linux/slab.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>

#include "rdmachan.h"

struct rdmachan_async_event {
	struct list_head list;
	/* the QP, CQ or SRQ, with a reference; NULL for port and device */
	struct rdmachan_async_obj *ao;
	u32 type;
	u32 element;
	u32 port_num;
};

/* What an event of @type is about, as libibverbs decides it; 0: none of ours. */
static u32 rdmachan_async_element_of(u32 type)
{
	switch (type) {
	case IB_EVENT_CQ_ERR:
		return RDMACHAN_ASYNC_ELEMENT_CQ;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_PATH_MIG:
	case IB_EVENT_PATH_MIG_ERR:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		return RDMACHAN_ASYNC_ELEMENT_QP;
	case IB_EVENT_SRQ_ERR:
	case IB_EVENT_SRQ_LIMIT_REACHED:
		return RDMACHAN_ASYNC_ELEMENT_SRQ;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		return RDMACHAN_ASYNC_ELEMENT_PORT;
	case IB_EVENT_DEVICE_FATAL:
		return RDMACHAN_ASYNC_ELEMENT_DEVICE;
	default:
		return 0;
	}
}

static const struct rdmachan_event_queue_ops rdmachan_async_ops;

static struct rdmachan_async_queue *
rdmachan_async_queue_of(struct rdmachan_event_queue *eq)
{
	return container_of(eq, struct rdmachan_async_queue, eq);
}

static struct rdmachan_async_event *rdmachan_async_event_of(struct list_head *entry)
{
	return container_of(entry, struct rdmachan_async_event, list);
}

struct rdmachan_async_queue *rdmachan_async_queue_new(struct rdmachan_device *dev,
						      struct pid *owner)
{
	struct rdmachan_async_queue *q = kzalloc(sizeof(*q), RDMACHAN_GFP);

	if (!q)
		return NULL;
	rdmachan_event_queue_init(&q->eq, &rdmachan_async_ops, owner);
	q->memcg = get_mem_cgroup_from_mm(current->mm);
	kref_get(&dev->ref);
	q->dev = dev;
	INIT_LIST_HEAD(&q->dev_entry);
	return q;
}

static void rdmachan_async_queue_free(struct rdmachan_event_queue *eq)
{
	struct rdmachan_async_queue *q = rdmachan_async_queue_of(eq);

	WARN_ON(!list_empty(&eq->events));
	mem_cgroup_put(q->memcg);
	rdmachan_device_put(q->dev);
	kfree(q);
}

void rdmachan_async_queue_put(struct rdmachan_async_queue *q)
{
	rdmachan_event_queue_put(&q->eq);
}

static void rdmachan_async_event_free(struct rdmachan_async_event *ev)
{
	if (ev->ao)
		rdmachan_object_put(&ev->ao->v->obj);
	kfree(ev);
	rdmachan_count_dec(RDMACHAN_COUNT_ASYNC_EVENTS);
}

static void rdmachan_async_free_list(struct list_head *list)
{
	struct rdmachan_async_event *ev, *tmp;

	list_for_each_entry_safe(ev, tmp, list, list)
		rdmachan_async_event_free(ev);
}

/* With the queue's lock held: whether @ev may wait in the queue. */
static bool rdmachan_async_wanted(struct rdmachan_async_queue *q,
				  struct rdmachan_async_event *ev)
{
	lockdep_assert_held(&q->eq.lock);
	return q->reader && !q->eq.gone && !(ev->ao && ev->ao->dying);
}

/* A new event: only DEVICE_FATAL goes past the limit of unread events. */
static bool rdmachan_async_admit(struct rdmachan_event_queue *eq,
				 struct list_head *entry)
{
	struct rdmachan_async_queue *q = rdmachan_async_queue_of(eq);
	struct rdmachan_async_event *ev = rdmachan_async_event_of(entry);

	if (!rdmachan_async_wanted(q, ev))
		return false;
	if (q->queued >= RDMACHAN_ASYNC_MAX_QUEUED &&
	    ev->type != IB_EVENT_DEVICE_FATAL) {
		q->dropped++;
		return false;
	}
	if (ev->ao)
		kref_get(&ev->ao->v->obj.ref);
	q->queued++;
	rdmachan_count_inc(RDMACHAN_COUNT_ASYNC_EVENTS);
	return true;
}

/*
 * Queues an event of @type about @ao (NULL: a port or the device),
 * allocated with @gfp and charged to the queue's memory cgroup; one that
 * cannot be allocated is counted as dropped, but DEVICE_FATAL (the
 * device's, in process context) must get through, uncharged at the limit.
 */
static void rdmachan_async_queue_event(struct rdmachan_async_queue *q,
				       struct rdmachan_async_obj *ao, u32 type,
				       u32 element, u32 port_num, gfp_t gfp)
{
	struct rdmachan_async_event *ev;
	struct mem_cgroup *old_memcg;
	unsigned long flags;

	old_memcg = set_active_memcg(q->memcg);
	ev = kzalloc(sizeof(*ev), gfp);
	set_active_memcg(old_memcg);
	if (!ev && type == IB_EVENT_DEVICE_FATAL)
		ev = kzalloc(sizeof(*ev), GFP_KERNEL | __GFP_NOFAIL);
	if (!ev) {
		spin_lock_irqsave(&q->eq.lock, flags);
		q->dropped++;
		spin_unlock_irqrestore(&q->eq.lock, flags);
		return;
	}
	ev->ao = ao;
	ev->type = type;
	ev->element = element;
	ev->port_num = port_num;
	if (!rdmachan_event_queue_add(&q->eq, &ev->list))
		kfree(ev);
}

void rdmachan_async_obj_init(struct rdmachan_async_obj *ao,
			     struct rdmachan_verbs_obj *v, u32 element,
			     struct rdmachan_async_queue *q, u64 user_context)
{
	ao->v = v;
	ao->element = element;
	ao->user_context = user_context;
	init_waitqueue_head(&ao->ack_wait);
	kref_get(&q->eq.ref);
	ao->queue = q;
}

/* For the objects' free functions. */
void rdmachan_async_obj_release(struct rdmachan_async_obj *ao)
{
	if (ao->queue)
		rdmachan_async_queue_put(ao->queue);
}

/*
 * The event handler of a QP, CQ or SRQ: any context, the IB object still
 * exists, so our object does too. Events of other elements are not ours.
 */
void rdmachan_async_report(struct rdmachan_async_obj *ao, u32 type)
{
	struct rdmachan_async_queue *q = ao->queue;

	if (!q || rdmachan_async_element_of(type) != ao->element)
		return;
	/* Nobody reads: no allocation (checked again under the lock). */
	if (!READ_ONCE(q->reader))
		return;
	rdmachan_async_queue_event(q, ao, type, ao->element, 0,
				   GFP_ATOMIC | __GFP_ACCOUNT);
}

/* The device's event handler: every queue being read gets its events. */
static void rdmachan_async_device_event(struct ib_event_handler *handler,
					struct ib_event *event)
{
	struct rdmachan_device *dev =
		container_of(handler, struct rdmachan_device, event_handler);
	u32 element = rdmachan_async_element_of(event->event);
	struct rdmachan_async_queue *q;

	if (element != RDMACHAN_ASYNC_ELEMENT_PORT &&
	    element != RDMACHAN_ASYNC_ELEMENT_DEVICE)
		return;
	mutex_lock(&dev->async_lock);
	list_for_each_entry(q, &dev->async_queues, dev_entry)
		rdmachan_async_queue_event(q, NULL, event->event, element,
					   element == RDMACHAN_ASYNC_ELEMENT_PORT ?
					   event->element.port_num : 0,
					   RDMACHAN_GFP | __GFP_NOWARN);
	mutex_unlock(&dev->async_lock);
}

/* Before the device can be found; its async_lock and list are ready. */
void rdmachan_async_device_add(struct rdmachan_device *dev,
			       struct ib_device *ibdev)
{
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev,
			      rdmachan_async_device_event);
	ib_register_event_handler(&dev->event_handler);
}

/*
 * The device goes away: its handler goes, and every queue being read
 * gets DEVICE_FATAL before the objects are torn down, as ib_uverbs does
 * (the core sends none for a device that is unregistered).
 */
void rdmachan_async_device_remove(struct rdmachan_device *dev)
{
	struct rdmachan_async_queue *q;

	ib_unregister_event_handler(&dev->event_handler);
	mutex_lock(&dev->async_lock);
	dev->async_removed = true;
	list_for_each_entry(q, &dev->async_queues, dev_entry)
		rdmachan_async_queue_event(q, NULL, IB_EVENT_DEVICE_FATAL,
					   RDMACHAN_ASYNC_ELEMENT_DEVICE, 0,
					   RDMACHAN_GFP | __GFP_NOWARN);
	mutex_unlock(&dev->async_lock);
}

/*
 * @dying: the object's destroy has begun; its unread events go, and no
 * more are queued. Undone when the destroy fails.
 */
void rdmachan_async_obj_dying(struct rdmachan_async_obj *ao, bool dying)
{
	struct rdmachan_async_queue *q = ao->queue;
	struct rdmachan_async_event *ev, *tmp;
	LIST_HEAD(dropped);

	if (!q)
		return;
	spin_lock_irq(&q->eq.lock);
	ao->dying = dying;
	if (dying) {
		list_for_each_entry_safe(ev, tmp, &q->eq.events, list) {
			if (ev->ao != ao)
				continue;
			list_move_tail(&ev->list, &dropped);
			q->queued--;
		}
	}
	spin_unlock_irq(&q->eq.lock);
	/* The destroy holds a reference: these are not the last. */
	rdmachan_async_free_list(&dropped);
}

static void rdmachan_async_describe_unacked(void *arg, char *buf, size_t len)
{
	struct rdmachan_async_obj *ao = arg;

	spin_lock_irq(&ao->queue->eq.lock);
	rdmachan_format_types(buf, len, ao->unacked_by_type,
			      RDMACHAN_ASYNC_EVENT_TYPES,
			      rdmachan_async_event_name);
	spin_unlock_irq(&ao->queue->eq.lock);
}

/* Killably, until the object's events read are all acknowledged. */
int rdmachan_async_obj_wait(struct rdmachan_async_obj *ao, const char *what)
{
	if (!ao->queue)
		return 0;
	return rdmachan_wait_acks(&ao->ack_wait, &ao->unacked,
				  &ao->destroy_waiting, what,
				  ao->v->handle,
				  rdmachan_async_describe_unacked, ao);
}

/* What the object's events wait for: RDMACHAN_IOC_QUERY_ASYNC_EVENTS. */
void rdmachan_async_obj_query(struct rdmachan_async_obj *ao,
			      struct rdmachan_query_async_events *out)
{
	struct rdmachan_async_queue *q = READ_ONCE(ao->queue);
	struct rdmachan_async_event *ev;
	u32 type;

	if (READ_ONCE(ao->destroy_waiting))
		out->out_flags |= RDMACHAN_ASYNC_STATE_DESTROY_WAITING;
	if (!q)
		return;
	spin_lock_irq(&q->eq.lock);
	list_for_each_entry(ev, &q->eq.events, list)
		if (ev->ao == ao)
			out->out_queued++;
	out->out_unacked = ao->unacked;
	for (type = 0; type < RDMACHAN_ASYNC_EVENT_TYPES; type++)
		if (ao->unacked_by_type[type])
			out->out_unacked_types |= BIT_ULL(type);
	if (ao->unacked)
		out->out_unacked_age_ns = ktime_get_ns() - ao->unacked_since_ns;
	spin_unlock_irq(&q->eq.lock);
}

/* Counts an event read (@delta 1) or given back (-1); under the lock. */
static void rdmachan_async_account(struct rdmachan_async_event *ev, int delta)
{
	struct rdmachan_async_obj *ao = ev->ao;

	if (!ao)
		return;
	if (!ao->unacked && delta > 0)
		ao->unacked_since_ns = ktime_get_ns();
	ao->unacked += delta;
	ao->unacked_by_type[ev->type] += delta;
	ao->reported += delta;
}

static void rdmachan_async_taken(struct rdmachan_event_queue *eq,
				 struct list_head *entry,
				 union rdmachan_event_arg *arg)
{
	struct rdmachan_async_event *ev = rdmachan_async_event_of(entry);

	rdmachan_async_queue_of(eq)->queued--;
	rdmachan_async_account(ev, 1);
	arg->async.out_event_type = ev->type;
	arg->async.out_element = ev->element;
	arg->async.out_port_num = ev->port_num;
	arg->async.out_handle = ev->ao ? ev->ao->v->handle : 0;
	arg->async.out_user_context = ev->ao ? ev->ao->user_context : 0;
}

static void rdmachan_async_handed_out(struct list_head *entry)
{
	rdmachan_async_event_free(rdmachan_async_event_of(entry));
}

static bool rdmachan_async_give_back(struct rdmachan_event_queue *eq,
				     struct list_head *entry)
{
	struct rdmachan_async_queue *q = rdmachan_async_queue_of(eq);
	struct rdmachan_async_event *ev = rdmachan_async_event_of(entry);

	rdmachan_async_account(ev, -1);
	if (!rdmachan_async_wanted(q, ev))
		return false;
	q->queued++;
	return true;
}

/*
 * A requeued event is the queue's again: another reader or a destroy may
 * free it at once, so it is not touched. Its object was not dying then,
 * so no destroy waited for its ack; otherwise one waits for this wakeup.
 */
static void rdmachan_async_given_back(struct list_head *entry, bool requeued)
{
	struct rdmachan_async_event *ev = rdmachan_async_event_of(entry);

	if (requeued)
		return;
	if (ev->ao)
		wake_up(&ev->ao->ack_wait);
	rdmachan_async_event_free(ev);
}

/*
 * Stops queueing: for the async file's release (@filp) or the context's
 * end (NULL). Returns the events that were waiting, for the caller to free.
 */
static void rdmachan_async_stop(struct rdmachan_async_queue *q,
				struct file *filp, struct list_head *dropped)
{
	struct rdmachan_device *dev = q->dev;
	bool detached = false;

	mutex_lock(&dev->async_lock);
	spin_lock_irq(&q->eq.lock);
	if (filp) {
		/* A file that never became the reader (a failed open) */
		detached = q->reader == filp;
		if (detached)
			WRITE_ONCE(q->reader, NULL);
	} else {
		q->eq.gone = true;
	}
	if (detached || !filp) {
		list_del_init(&q->dev_entry);
		list_splice_init(&q->eq.events, dropped);
		q->queued = 0;
	}
	spin_unlock_irq(&q->eq.lock);
	mutex_unlock(&dev->async_lock);
	if (detached)
		rdmachan_count_dec(RDMACHAN_COUNT_ASYNC_FDS);
}

static void rdmachan_async_release(struct rdmachan_event_queue *eq,
				   struct file *filp)
{
	LIST_HEAD(dropped);

	rdmachan_async_stop(rdmachan_async_queue_of(eq), filp, &dropped);
	rdmachan_async_free_list(&dropped);
}

/* The context is destroyed: readers learn it, events go, none come. */
void rdmachan_async_queue_close(struct rdmachan_async_queue *q)
{
	LIST_HEAD(dropped);

	rdmachan_async_stop(q, NULL, &dropped);
	wake_up_interruptible(&q->eq.wait);
	rdmachan_async_free_list(&dropped);
}

/* Makes @filp the queue's reader. */
static int rdmachan_async_attach(struct rdmachan_event_queue *eq,
				 struct file *filp)
{
	struct rdmachan_async_queue *q = rdmachan_async_queue_of(eq);
	struct rdmachan_device *dev = q->dev;
	int ret = 0;

	mutex_lock(&dev->async_lock);
	spin_lock_irq(&q->eq.lock);
	if (q->eq.gone)
		ret = -ENOENT;
	else if (q->reader)
		ret = -EBUSY;
	else if (dev->async_removed)
		ret = -ENODEV;
	else
		WRITE_ONCE(q->reader, filp);
	spin_unlock_irq(&q->eq.lock);
	if (!ret)
		list_add_tail(&q->dev_entry, &dev->async_queues);
	mutex_unlock(&dev->async_lock);
	if (!ret)
		rdmachan_count_inc(RDMACHAN_COUNT_ASYNC_FDS);
	return ret;
}

static const struct rdmachan_event_queue_ops rdmachan_async_ops = {
	.name = "[rdmachan-async]",
	RDMACHAN_EVENT_IOCTL(GET_ASYNC_EVENT, struct rdmachan_get_async_event,
			     out_user_context),
	.attach = rdmachan_async_attach,
	.admit = rdmachan_async_admit,
	.taken = rdmachan_async_taken,
	.handed_out = rdmachan_async_handed_out,
	.give_back = rdmachan_async_give_back,
	.given_back = rdmachan_async_given_back,
	.release = rdmachan_async_release,
	.free = rdmachan_async_queue_free,
};

/* Writes out_fd itself, before the descriptor is installed. */
int rdmachan_cmd_open_async_fd(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_open_async_fd __user *ucmd = call->uarg;
	struct rdmachan_open_async_fd *cmd = arg;
	struct rdmachan_async_queue *q;
	struct rdmachan_object *obj;

	obj = rdmachan_object_get(call->file, cmd->context,
				  RDMACHAN_OBJ_DEVICE_CONTEXT);
	if (!obj)
		return -ENOENT;
	q = container_of(obj, struct rdmachan_context, obj)->async;
	kref_get(&q->eq.ref);
	rdmachan_object_put(obj);
	return rdmachan_event_queue_open(&q->eq, &ucmd->out_fd);
}

int rdmachan_cmd_ack_async_event(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_ack_async_event *cmd = arg;
	struct xarray *objects = &call->file->objects;
	struct rdmachan_async_obj *ao = NULL;
	struct rdmachan_object *obj;
	u32 type = cmd->event_type;
	int ret = 0;

	xa_lock(objects);
	obj = xa_load(objects, cmd->handle);
	if (obj)
		ao = rdmachan_async_obj_of(obj);
	if (ao)
		kref_get(&obj->ref);
	xa_unlock(objects);
	if (!ao || !ao->queue) {
		/* A handle reserved by a create in progress has no queue yet. */
		if (ao)
			rdmachan_object_put(obj);
		return -ENOENT;
	}

	spin_lock_irq(&ao->queue->eq.lock);
	if (type >= RDMACHAN_ASYNC_EVENT_TYPES || !ao->unacked_by_type[type]) {
		ret = -EINVAL;
	} else {
		ao->unacked_by_type[type]--;
		ao->unacked--;
		ao->acked++;
	}
	spin_unlock_irq(&ao->queue->eq.lock);
	if (!ret)
		wake_up(&ao->ack_wait);
	rdmachan_object_put(obj);
	return ret;
}
