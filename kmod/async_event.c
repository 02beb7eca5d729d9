// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: asynchronous events of device contexts.
 *
 * Each device context has a queue, read through an anonymous-inode file
 * (RDMACHAN_IOC_OPEN_ASYNC_FD). The event handlers of its QPs, CQs and
 * SRQs, in whatever context the driver calls them, and the device's event
 * handler (ports, and DEVICE_FATAL when the device goes) queue entries on
 * it while that file is open. Reading an object's event counts it on the
 * object until RDMACHAN_IOC_ACK_ASYNC_EVENT; the object's destroy drops
 * its queued events and waits for the count, as a CM id's destroy does.
 * An entry holds a reference on its object, so the object's handle and
 * user_context are there to report.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

#include "ioctl_args.h"
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

struct rdmachan_async_queue *rdmachan_async_queue_new(struct rdmachan_device *dev,
						      struct pid *owner)
{
	struct rdmachan_async_queue *q = kzalloc(sizeof(*q), RDMACHAN_GFP);

	if (!q)
		return NULL;
	kref_init(&q->ref);
	q->owner = get_pid(owner);
	q->memcg = get_mem_cgroup_from_mm(current->mm);
	kref_get(&dev->ref);
	q->dev = dev;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->events);
	init_waitqueue_head(&q->wait);
	INIT_LIST_HEAD(&q->dev_entry);
	return q;
}

static void rdmachan_async_queue_free(struct kref *ref)
{
	struct rdmachan_async_queue *q =
		container_of(ref, struct rdmachan_async_queue, ref);

	WARN_ON(!list_empty(&q->events));
	put_pid(q->owner);
	mem_cgroup_put(q->memcg);
	rdmachan_device_put(q->dev);
	kfree(q);
}

void rdmachan_async_queue_put(struct rdmachan_async_queue *q)
{
	kref_put(&q->ref, rdmachan_async_queue_free);
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

/* With q->lock held: whether an event may be queued. */
static bool rdmachan_async_accepting(struct rdmachan_async_queue *q)
{
	lockdep_assert_held(&q->lock);
	return q->reader && !q->gone;
}

/*
 * Queues @ev, with q->lock held; false when it is not wanted. Only
 * DEVICE_FATAL (@always) goes past the limit of unread events.
 */
static bool rdmachan_async_enqueue(struct rdmachan_async_queue *q,
				   struct rdmachan_async_event *ev, bool always)
{
	lockdep_assert_held(&q->lock);
	if (!rdmachan_async_accepting(q) || (ev->ao && ev->ao->dying))
		return false;
	if (q->queued >= RDMACHAN_ASYNC_MAX_QUEUED && !always) {
		q->dropped++;
		return false;
	}
	if (ev->ao)
		kref_get(&ev->ao->v->obj.ref);
	list_add_tail(&ev->list, &q->events);
	q->queued++;
	rdmachan_count_inc(RDMACHAN_COUNT_ASYNC_EVENTS);
	return true;
}

void rdmachan_async_obj_init(struct rdmachan_async_obj *ao,
			     struct rdmachan_verbs_obj *v, u32 element,
			     struct rdmachan_async_queue *q, u64 user_context)
{
	ao->v = v;
	ao->element = element;
	ao->user_context = user_context;
	init_waitqueue_head(&ao->ack_wait);
	kref_get(&q->ref);
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
	struct rdmachan_async_event *ev;
	struct mem_cgroup *old_memcg;
	unsigned long flags;
	bool queued;

	if (!q || rdmachan_async_element_of(type) != ao->element)
		return;
	/* Nobody reads: no allocation (checked again under the lock). */
	if (!READ_ONCE(q->reader))
		return;
	old_memcg = set_active_memcg(q->memcg);
	ev = kzalloc(sizeof(*ev), GFP_ATOMIC | __GFP_ACCOUNT);
	set_active_memcg(old_memcg);
	spin_lock_irqsave(&q->lock, flags);
	if (!ev) {
		q->dropped++;
		spin_unlock_irqrestore(&q->lock, flags);
		return;
	}
	ev->ao = ao;
	ev->type = type;
	ev->element = ao->element;
	queued = rdmachan_async_enqueue(q, ev, false);
	spin_unlock_irqrestore(&q->lock, flags);
	if (queued)
		wake_up_interruptible(&q->wait);
	else
		kfree(ev);
}

/* A port or device event for one queue, in process context. */
static void rdmachan_async_queue_device_event(struct rdmachan_async_queue *q,
					      u32 type, u32 element,
					      u32 port_num)
{
	bool fatal = type == IB_EVENT_DEVICE_FATAL;
	struct rdmachan_async_event *ev;
	struct mem_cgroup *old_memcg;
	bool queued;

	/* DEVICE_FATAL must get through, uncharged at the cgroup's limit. */
	old_memcg = set_active_memcg(q->memcg);
	ev = kzalloc(sizeof(*ev), RDMACHAN_GFP | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (!ev && fatal)
		ev = kzalloc(sizeof(*ev), GFP_KERNEL | __GFP_NOFAIL);
	spin_lock_irq(&q->lock);
	if (!ev) {
		q->dropped++;
		spin_unlock_irq(&q->lock);
		return;
	}
	ev->type = type;
	ev->element = element;
	ev->port_num = port_num;
	queued = rdmachan_async_enqueue(q, ev, fatal);
	spin_unlock_irq(&q->lock);
	if (queued)
		wake_up_interruptible(&q->wait);
	else
		kfree(ev);
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
		rdmachan_async_queue_device_event(q, event->event, element,
						  element == RDMACHAN_ASYNC_ELEMENT_PORT ?
						  event->element.port_num : 0);
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
		rdmachan_async_queue_device_event(q, IB_EVENT_DEVICE_FATAL,
						  RDMACHAN_ASYNC_ELEMENT_DEVICE,
						  0);
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
	spin_lock_irq(&q->lock);
	ao->dying = dying;
	if (dying) {
		list_for_each_entry_safe(ev, tmp, &q->events, list) {
			if (ev->ao != ao)
				continue;
			list_move_tail(&ev->list, &dropped);
			q->queued--;
		}
	}
	spin_unlock_irq(&q->lock);
	/* The destroy holds a reference: these are not the last. */
	rdmachan_async_free_list(&dropped);
}

static void rdmachan_async_describe_unacked(void *arg, char *buf, size_t len)
{
	struct rdmachan_async_obj *ao = arg;

	spin_lock_irq(&ao->queue->lock);
	rdmachan_format_types(buf, len, ao->unacked_by_type,
			      RDMACHAN_ASYNC_EVENT_TYPES,
			      rdmachan_async_event_name);
	spin_unlock_irq(&ao->queue->lock);
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
	spin_lock_irq(&q->lock);
	list_for_each_entry(ev, &q->events, list)
		if (ev->ao == ao)
			out->out_queued++;
	out->out_unacked = ao->unacked;
	for (type = 0; type < RDMACHAN_ASYNC_EVENT_TYPES; type++)
		if (ao->unacked_by_type[type])
			out->out_unacked_types |= BIT_ULL(type);
	if (ao->unacked)
		out->out_unacked_age_ns = ktime_get_ns() - ao->unacked_since_ns;
	spin_unlock_irq(&q->lock);
}

/* Counts an event read (@delta 1) or given back (-1), with q->lock held. */
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

/* The oldest event, counted on its object; *@gone when none will come. */
static struct rdmachan_async_event *rdmachan_async_take(struct rdmachan_async_queue *q,
							bool *gone)
{
	struct rdmachan_async_event *ev;

	spin_lock_irq(&q->lock);
	ev = list_first_entry_or_null(&q->events, struct rdmachan_async_event,
				      list);
	if (ev) {
		list_del(&ev->list);
		q->queued--;
		rdmachan_async_account(ev, 1);
	}
	*gone = q->gone;
	spin_unlock_irq(&q->lock);
	return ev;
}

/* An event that could not be handed out goes back to the front. */
static void rdmachan_async_untake(struct rdmachan_async_queue *q,
				  struct rdmachan_async_event *ev)
{
	bool requeued = false;

	spin_lock_irq(&q->lock);
	rdmachan_async_account(ev, -1);
	if (rdmachan_async_accepting(q) && !(ev->ao && ev->ao->dying)) {
		list_add(&ev->list, &q->events);
		q->queued++;
		requeued = true;
	}
	spin_unlock_irq(&q->lock);
	if (ev->ao)
		wake_up(&ev->ao->ack_wait);
	if (!requeued)
		rdmachan_async_event_free(ev);
}

static bool rdmachan_async_ready(struct rdmachan_async_queue *q)
{
	bool ready;

	spin_lock_irq(&q->lock);
	ready = !list_empty(&q->events) || q->gone;
	spin_unlock_irq(&q->lock);
	return ready;
}

static int rdmachan_get_async_event(struct file *filp,
				    struct rdmachan_get_async_event __user *uarg)
{
	struct rdmachan_async_queue *q = filp->private_data;
	struct rdmachan_get_async_event out;
	struct rdmachan_async_event *ev;
	bool nonblock, gone;
	u32 usize;
	int ret;

	ret = rdmachan_copy_args(&out, sizeof(out),
				 offsetofend(typeof(out), out_user_context),
				 uarg, &usize);
	if (ret)
		return ret;
	if (out.flags & ~RDMACHAN_GET_ASYNC_EVENT_NONBLOCK)
		return -EINVAL;
	nonblock = (out.flags & RDMACHAN_GET_ASYNC_EVENT_NONBLOCK) ||
		   (filp->f_flags & O_NONBLOCK);

	while (!(ev = rdmachan_async_take(q, &gone))) {
		if (gone)
			return -ENODEV;
		if (nonblock)
			return -EAGAIN;
		ret = wait_event_interruptible(q->wait, rdmachan_async_ready(q));
		if (ret)
			return ret;
	}
	out.out_event_type = ev->type;
	out.out_element = ev->element;
	out.out_port_num = ev->port_num;
	out.out_handle = ev->ao ? ev->ao->v->handle : 0;
	out.out_user_context = ev->ao ? ev->ao->user_context : 0;
	ret = rdmachan_copy_result(uarg, usize, &out, sizeof(out));
	if (ret) {
		rdmachan_async_untake(q, ev);
		return ret;
	}
	rdmachan_async_event_free(ev);
	return 0;
}

static long rdmachan_async_ioctl(struct file *filp, unsigned int cmd,
				 unsigned long arg)
{
	struct rdmachan_async_queue *q = filp->private_data;

	if (!rdmachan_ioctl_is(cmd, RDMACHAN_IOC_GET_ASYNC_EVENT))
		return -ENOTTY;
	if (!rdmachan_caller_owns(q->owner))
		return -EACCES;
	return rdmachan_get_async_event(filp, (void __user *)arg);
}

static __poll_t rdmachan_async_poll(struct file *filp,
				    struct poll_table_struct *wait)
{
	struct rdmachan_async_queue *q = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &q->wait, wait);
	spin_lock_irq(&q->lock);
	if (!list_empty(&q->events))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (q->gone)
		mask |= EPOLLERR;
	spin_unlock_irq(&q->lock);
	return mask;
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
	spin_lock_irq(&q->lock);
	if (filp) {
		/* A file that never became the reader (a failed open) */
		detached = q->reader == filp;
		if (detached)
			WRITE_ONCE(q->reader, NULL);
	} else {
		q->gone = true;
	}
	if (detached || !filp) {
		list_del_init(&q->dev_entry);
		list_splice_init(&q->events, dropped);
		q->queued = 0;
	}
	spin_unlock_irq(&q->lock);
	mutex_unlock(&dev->async_lock);
	if (detached)
		rdmachan_count_dec(RDMACHAN_COUNT_ASYNC_FDS);
}

static int rdmachan_async_release(struct inode *inode, struct file *filp)
{
	struct rdmachan_async_queue *q = filp->private_data;
	LIST_HEAD(dropped);

	rdmachan_async_stop(q, filp, &dropped);
	rdmachan_async_free_list(&dropped);
	rdmachan_async_queue_put(q);
	return 0;
}

static const struct file_operations rdmachan_async_fops = {
	.owner = THIS_MODULE,
	.release = rdmachan_async_release,
	.poll = rdmachan_async_poll,
	.unlocked_ioctl = rdmachan_async_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* The context is destroyed: readers learn it, events go, none come. */
void rdmachan_async_queue_close(struct rdmachan_async_queue *q)
{
	LIST_HEAD(dropped);

	rdmachan_async_stop(q, NULL, &dropped);
	wake_up_interruptible(&q->wait);
	rdmachan_async_free_list(&dropped);
}

/* Makes @filp the queue's reader. */
static int rdmachan_async_attach(struct rdmachan_async_queue *q,
				 struct file *filp)
{
	struct rdmachan_device *dev = q->dev;
	int ret = 0;

	mutex_lock(&dev->async_lock);
	spin_lock_irq(&q->lock);
	if (q->gone)
		ret = -ENOENT;
	else if (q->reader)
		ret = -EBUSY;
	else if (dev->async_removed)
		ret = -ENODEV;
	else
		WRITE_ONCE(q->reader, filp);
	spin_unlock_irq(&q->lock);
	if (!ret)
		list_add_tail(&q->dev_entry, &dev->async_queues);
	mutex_unlock(&dev->async_lock);
	if (!ret)
		rdmachan_count_inc(RDMACHAN_COUNT_ASYNC_FDS);
	return ret;
}

/* Writes out_fd itself, before the descriptor is installed. */
int rdmachan_cmd_open_async_fd(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_open_async_fd __user *ucmd = call->uarg;
	s32 __user *out_fd = &ucmd->out_fd;
	struct rdmachan_open_async_fd *cmd = arg;
	struct rdmachan_async_queue *q;
	struct rdmachan_object *obj;
	struct file *filp;
	int fd, ret;

	obj = rdmachan_object_get(call->file, cmd->context,
				  RDMACHAN_OBJ_DEVICE_CONTEXT);
	if (!obj)
		return -ENOENT;
	q = container_of(obj, struct rdmachan_context, obj)->async;
	kref_get(&q->ref);
	rdmachan_object_put(obj);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		rdmachan_async_queue_put(q);
		return fd;
	}
	/* From here the file's release drops the queue. */
	filp = anon_inode_getfile("[rdmachan-async]", &rdmachan_async_fops, q,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(filp)) {
		rdmachan_async_queue_put(q);
		ret = PTR_ERR(filp);
		goto err_fd;
	}
	ret = rdmachan_async_attach(q, filp);
	if (!ret && put_user(fd, out_fd))
		ret = -EFAULT;
	if (ret) {
		fput(filp);
		goto err_fd;
	}
	fd_install(fd, filp);
	return 0;

err_fd:
	put_unused_fd(fd);
	return ret;
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

	spin_lock_irq(&ao->queue->lock);
	if (type >= RDMACHAN_ASYNC_EVENT_TYPES || !ao->unacked_by_type[type]) {
		ret = -EINVAL;
	} else {
		ao->unacked_by_type[type]--;
		ao->unacked--;
		ao->acked++;
	}
	spin_unlock_irq(&ao->queue->lock);
	if (!ret)
		wake_up(&ao->ack_wait);
	rdmachan_object_put(obj);
	return ret;
}
