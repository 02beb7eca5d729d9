// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: completion channels, the event queues of CQs' completions.
 *
 * A CQ's completion handler, in whatever context the driver calls it,
 * queues the CQ on its channel once; RDMACHAN_IOC_GET_CQ_EVENT on the
 * channel takes it off and counts the event on the CQ until it is
 * acknowledged. The channel and its CQs may go in either order: CQs hold
 * references to the channel, a closed channel queues nothing, and a CQ
 * being destroyed leaves the queue first.
 */
#include <linux/slab.h>

#include "rdmachan.h"

static struct rdmachan_comp_channel *
rdmachan_comp_channel_of(struct rdmachan_event_queue *q)
{
	return container_of(q, struct rdmachan_comp_channel, eq);
}

static struct rdmachan_cq *rdmachan_comp_channel_cq(struct list_head *entry)
{
	return container_of(entry, struct rdmachan_cq, channel_entry);
}

void rdmachan_comp_channel_put(struct rdmachan_comp_channel *ch)
{
	rdmachan_event_queue_put(&ch->eq);
}

/* With the lock held: a CQ is queued at most once, while it may be read. */
static bool rdmachan_comp_channel_admit(struct rdmachan_event_queue *q,
					struct list_head *entry)
{
	struct rdmachan_cq *cq = rdmachan_comp_channel_cq(entry);

	return !rdmachan_comp_channel_of(q)->closed && !cq->dying &&
	       list_empty(entry);
}

/* The event is counted on its CQ, which the reader holds a reference to. */
static void rdmachan_comp_channel_taken(struct rdmachan_event_queue *q,
					struct list_head *entry,
					union rdmachan_event_arg *arg)
{
	struct rdmachan_cq *cq = rdmachan_comp_channel_cq(entry);

	cq->events_unacked++;
	/* Queued CQs are not torn down yet: the reference is good. */
	kref_get(&cq->v.obj.ref);
	arg->cq.out_cq = cq->v.handle;
	arg->cq.out_user_context = cq->user_context;
}

static void rdmachan_comp_channel_handed_out(struct list_head *entry)
{
	rdmachan_object_put(&rdmachan_comp_channel_cq(entry)->v.obj);
}

static bool rdmachan_comp_channel_give_back(struct rdmachan_event_queue *q,
					    struct list_head *entry)
{
	rdmachan_comp_channel_cq(entry)->events_unacked--;
	return rdmachan_comp_channel_admit(q, entry);
}

/* A destroy waiting for the CQ's acks sees the count go down. */
static void rdmachan_comp_channel_given_back(struct list_head *entry,
					     bool requeued)
{
	struct rdmachan_cq *cq = rdmachan_comp_channel_cq(entry);

	wake_up(&cq->ack_wait);
	rdmachan_object_put(&cq->v.obj);
}

static bool rdmachan_comp_channel_arg_valid(const union rdmachan_event_arg *arg)
{
	return !arg->cq.__reserved;
}

/* The file goes: nothing is queued any more. */
static void rdmachan_comp_channel_release(struct rdmachan_event_queue *q,
					  struct file *filp)
{
	struct list_head *entry, *tmp;

	spin_lock_irq(&q->lock);
	rdmachan_comp_channel_of(q)->closed = true;
	list_for_each_safe(entry, tmp, &q->events)
		list_del_init(entry);
	spin_unlock_irq(&q->lock);
}

static void rdmachan_comp_channel_free(struct rdmachan_event_queue *q)
{
	struct rdmachan_comp_channel *ch = rdmachan_comp_channel_of(q);

	/* A completion handler may still be reading it: wait a grace period. */
	kfree_rcu(ch, rcu);
	rdmachan_count_dec(RDMACHAN_COUNT_COMP_CHANNELS);
}

static const struct rdmachan_event_queue_ops rdmachan_comp_channel_ops = {
	.name = "[rdmachan-comp-channel]",
	RDMACHAN_EVENT_IOCTL(GET_CQ_EVENT, struct rdmachan_get_cq_event,
			     out_user_context),
	.arg_valid = rdmachan_comp_channel_arg_valid,
	.admit = rdmachan_comp_channel_admit,
	.taken = rdmachan_comp_channel_taken,
	.handed_out = rdmachan_comp_channel_handed_out,
	.give_back = rdmachan_comp_channel_give_back,
	.given_back = rdmachan_comp_channel_given_back,
	.release = rdmachan_comp_channel_release,
	.free = rdmachan_comp_channel_free,
};

/* The channel open as @fd in this process, with a reference. */
struct rdmachan_comp_channel *rdmachan_comp_channel_get(int fd)
{
	struct rdmachan_event_queue *q =
		rdmachan_event_queue_get(fd, &rdmachan_comp_channel_ops);

	return IS_ERR(q) ? ERR_CAST(q) : rdmachan_comp_channel_of(q);
}

/* The CQ's completion handler: any context, the CQ is still there. */
void rdmachan_comp_channel_notify(struct rdmachan_cq *cq)
{
	if (cq->channel)
		rdmachan_event_queue_add(&cq->channel->eq, &cq->channel_entry);
}

/*
 * @dying: the CQ's destroy has begun, or its teardown; its queued event
 * goes and none comes. Undone when the destroy fails.
 */
void rdmachan_comp_channel_dying(struct rdmachan_cq *cq, bool dying)
{
	struct rdmachan_comp_channel *ch = cq->channel;

	if (!ch)
		return;
	spin_lock_irq(&ch->eq.lock);
	cq->dying = dying;
	if (dying)
		list_del_init(&cq->channel_entry);
	spin_unlock_irq(&ch->eq.lock);
}

/* Acknowledges all @num events taken for the CQ, or none. */
int rdmachan_comp_channel_ack(struct rdmachan_cq *cq, u32 num)
{
	struct rdmachan_comp_channel *ch = cq->channel;
	int ret = 0;

	if (!num)
		return 0;
	if (!ch)
		return -EINVAL;
	spin_lock_irq(&ch->eq.lock);
	if (num > cq->events_unacked)
		ret = -EINVAL;
	else
		cq->events_unacked -= num;
	spin_unlock_irq(&ch->eq.lock);
	if (!ret)
		wake_up(&cq->ack_wait);
	return ret;
}

/* Writes out_fd itself, before the descriptor is installed. */
int rdmachan_cmd_create_comp_channel(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_comp_channel __user *ucmd = call->uarg;
	struct rdmachan_create_comp_channel *cmd = arg;
	struct rdmachan_comp_channel *ch;

	if (cmd->__reserved)
		return -EINVAL;
	ch = kzalloc(sizeof(*ch), RDMACHAN_GFP);
	if (!ch)
		return -ENOMEM;
	rdmachan_count_inc(RDMACHAN_COUNT_COMP_CHANNELS);
	rdmachan_event_queue_init(&ch->eq, &rdmachan_comp_channel_ops,
				  call->file->owner);
	return rdmachan_event_queue_open(&ch->eq, &ucmd->out_fd);
}
