// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: completion channels, each an anonymous-inode file.
 *
 * A CQ's completion handler, in whatever context the driver calls it,
 * queues the CQ on its channel once; RDMACHAN_IOC_GET_CQ_EVENT on the
 * channel takes it off and counts the event on the CQ until it is
 * acknowledged. The channel and its CQs may go in either order: CQs hold
 * references to the channel, a closed channel queues nothing, and a CQ
 * being destroyed leaves the queue first.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ioctl_args.h"
#include "rdmachan.h"

static const struct file_operations rdmachan_comp_channel_fops;

static void rdmachan_comp_channel_free(struct kref *ref)
{
	struct rdmachan_comp_channel *ch =
		container_of(ref, struct rdmachan_comp_channel, ref);

	put_pid(ch->owner);
	/* A completion handler may still be reading it: wait a grace period. */
	kfree_rcu(ch, rcu);
	rdmachan_count_dec(RDMACHAN_COUNT_COMP_CHANNELS);
}

void rdmachan_comp_channel_put(struct rdmachan_comp_channel *ch)
{
	kref_put(&ch->ref, rdmachan_comp_channel_free);
}

/* The channel open as @fd in this process, with a reference. */
struct rdmachan_comp_channel *rdmachan_comp_channel_get(struct rdmachan_file *file,
							int fd)
{
	struct rdmachan_comp_channel *ch;
	struct fd f = fdget(fd);

	if (!fd_file(f))
		return ERR_PTR(-EBADF);
	if (fd_file(f)->f_op != &rdmachan_comp_channel_fops) {
		ch = ERR_PTR(-EINVAL);
	} else {
		ch = fd_file(f)->private_data;
		if (ch->owner != file->owner)
			ch = ERR_PTR(-EACCES);
		else
			kref_get(&ch->ref);
	}
	fdput(f);
	return ch;
}

/* The CQ's completion handler: any context, the CQ is still there. */
void rdmachan_comp_channel_notify(struct rdmachan_cq *cq)
{
	struct rdmachan_comp_channel *ch = cq->channel;
	unsigned long flags;
	bool queued = false;

	if (!ch)
		return;
	spin_lock_irqsave(&ch->lock, flags);
	if (!ch->closed && !cq->dying && list_empty(&cq->channel_entry)) {
		list_add_tail(&cq->channel_entry, &ch->ready);
		queued = true;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (queued)
		wake_up_interruptible(&ch->wait);
}

/* The CQ is being destroyed: its queued event goes, none comes. */
void rdmachan_comp_channel_detach(struct rdmachan_cq *cq)
{
	struct rdmachan_comp_channel *ch = cq->channel;

	if (!ch)
		return;
	spin_lock_irq(&ch->lock);
	cq->dying = true;
	list_del_init(&cq->channel_entry);
	spin_unlock_irq(&ch->lock);
}

static bool rdmachan_comp_channel_ready(struct rdmachan_comp_channel *ch)
{
	bool ready;

	spin_lock_irq(&ch->lock);
	ready = !list_empty(&ch->ready);
	spin_unlock_irq(&ch->lock);
	return ready;
}

/* The oldest event, counted on its CQ, with a reference on the CQ. */
static struct rdmachan_cq *rdmachan_comp_channel_take(struct rdmachan_comp_channel *ch)
{
	struct rdmachan_cq *cq;

	spin_lock_irq(&ch->lock);
	cq = list_first_entry_or_null(&ch->ready, struct rdmachan_cq,
				      channel_entry);
	if (cq) {
		list_del_init(&cq->channel_entry);
		cq->events_unacked++;
		/* Queued CQs are not torn down yet: the reference is good. */
		kref_get(&cq->v.obj.ref);
	}
	spin_unlock_irq(&ch->lock);
	return cq;
}

/* An event that could not be handed out stays queued. */
static void rdmachan_comp_channel_untake(struct rdmachan_comp_channel *ch,
					 struct rdmachan_cq *cq)
{
	spin_lock_irq(&ch->lock);
	cq->events_unacked--;
	if (!ch->closed && !cq->dying && list_empty(&cq->channel_entry))
		list_add(&cq->channel_entry, &ch->ready);
	spin_unlock_irq(&ch->lock);
	wake_up(&cq->ack_wait);
}

static int rdmachan_get_cq_event(struct file *filp,
				 struct rdmachan_get_cq_event __user *uarg)
{
	struct rdmachan_comp_channel *ch = filp->private_data;
	struct rdmachan_get_cq_event ev;
	struct rdmachan_cq *cq;
	bool nonblock;
	u32 usize;
	int ret;

	ret = rdmachan_copy_args(&ev, sizeof(ev),
				 offsetofend(typeof(ev), out_user_context),
				 uarg, &usize);
	if (ret)
		return ret;
	if ((ev.flags & ~RDMACHAN_GET_CQ_EVENT_NONBLOCK) || ev.__reserved)
		return -EINVAL;
	nonblock = (ev.flags & RDMACHAN_GET_CQ_EVENT_NONBLOCK) ||
		   (filp->f_flags & O_NONBLOCK);

	while (!(cq = rdmachan_comp_channel_take(ch))) {
		if (nonblock)
			return -EAGAIN;
		ret = wait_event_interruptible(ch->wait,
					       rdmachan_comp_channel_ready(ch));
		if (ret)
			return ret;
	}
	ev.out_cq = cq->v.handle;
	ev.out_user_context = cq->user_context;
	ret = rdmachan_copy_result(uarg, usize, &ev, sizeof(ev));
	if (ret)
		rdmachan_comp_channel_untake(ch, cq);
	rdmachan_object_put(&cq->v.obj);
	return ret;
}

static long rdmachan_comp_channel_ioctl(struct file *filp, unsigned int cmd,
					unsigned long arg)
{
	struct rdmachan_comp_channel *ch = filp->private_data;

	if (!rdmachan_ioctl_is(cmd, RDMACHAN_IOC_GET_CQ_EVENT))
		return -ENOTTY;
	if (!rdmachan_caller_owns(ch->owner))
		return -EACCES;
	return rdmachan_get_cq_event(filp, (void __user *)arg);
}

static __poll_t rdmachan_comp_channel_poll(struct file *filp,
					   struct poll_table_struct *wait)
{
	struct rdmachan_comp_channel *ch = filp->private_data;

	poll_wait(filp, &ch->wait, wait);
	return rdmachan_comp_channel_ready(ch) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int rdmachan_comp_channel_release(struct inode *inode,
					 struct file *filp)
{
	struct rdmachan_comp_channel *ch = filp->private_data;
	struct rdmachan_cq *cq, *tmp;

	spin_lock_irq(&ch->lock);
	ch->closed = true;
	list_for_each_entry_safe(cq, tmp, &ch->ready, channel_entry)
		list_del_init(&cq->channel_entry);
	spin_unlock_irq(&ch->lock);
	rdmachan_comp_channel_put(ch);
	return 0;
}

static const struct file_operations rdmachan_comp_channel_fops = {
	.owner = THIS_MODULE,
	.release = rdmachan_comp_channel_release,
	.poll = rdmachan_comp_channel_poll,
	.unlocked_ioctl = rdmachan_comp_channel_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* Writes out_fd itself, before the descriptor is installed. */
int rdmachan_cmd_create_comp_channel(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_comp_channel __user *ucmd = call->uarg;
	s32 __user *out_fd = &ucmd->out_fd;
	struct rdmachan_create_comp_channel *cmd = arg;
	struct rdmachan_comp_channel *ch;
	struct file *filp;
	int fd, ret;

	if (cmd->__reserved)
		return -EINVAL;
	ch = kzalloc(sizeof(*ch), RDMACHAN_GFP);
	if (!ch)
		return -ENOMEM;
	rdmachan_count_inc(RDMACHAN_COUNT_COMP_CHANNELS);
	kref_init(&ch->ref);
	ch->owner = get_pid(call->file->owner);
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->ready);
	init_waitqueue_head(&ch->wait);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put;
	}
	filp = anon_inode_getfile("[rdmachan-comp-channel]",
				  &rdmachan_comp_channel_fops, ch,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_fd;
	}
	if (put_user(fd, out_fd)) {
		/* The file's release drops the channel. */
		fput(filp);
		put_unused_fd(fd);
		return -EFAULT;
	}
	fd_install(fd, filp);
	return 0;

err_fd:
	put_unused_fd(fd);
err_put:
	rdmachan_comp_channel_put(ch);
	return ret;
}
