// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: event queues, each read through an anonymous-inode file of its
 * own: completion channels and async event files are its two kinds.
 *
 * The file's one ioctl takes the oldest event, waiting for one unless the
 * caller asked not to, and counts it as read through the kind's hooks; an
 * event whose copy to userspace fails is given back, uncounted.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "ioctl_args.h"
#include "rdmachan.h"

static const struct file_operations rdmachan_event_queue_fops;

void rdmachan_event_queue_init(struct rdmachan_event_queue *q,
			       const struct rdmachan_event_queue_ops *ops,
			       struct pid *owner)
{
	kref_init(&q->ref);
	q->ops = ops;
	q->owner = get_pid(owner);
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->events);
	init_waitqueue_head(&q->wait);
}

static void rdmachan_event_queue_free(struct kref *ref)
{
	struct rdmachan_event_queue *q =
		container_of(ref, struct rdmachan_event_queue, ref);

	put_pid(q->owner);
	q->ops->free(q);
}

void rdmachan_event_queue_put(struct rdmachan_event_queue *q)
{
	kref_put(&q->ref, rdmachan_event_queue_free);
}

/* The queue of kind @ops open as @fd in this process, with a reference. */
struct rdmachan_event_queue *
rdmachan_event_queue_get(int fd, const struct rdmachan_event_queue_ops *ops)
{
	struct rdmachan_event_queue *q;
	struct fd f = fdget(fd);

	if (!fd_file(f))
		return ERR_PTR(-EBADF);
	q = fd_file(f)->private_data;
	if (fd_file(f)->f_op != &rdmachan_event_queue_fops || q->ops != ops)
		q = ERR_PTR(-EINVAL);
	else if (!rdmachan_caller_owns(q->owner))
		q = ERR_PTR(-EACCES);
	else
		kref_get(&q->ref);
	fdput(f);
	return q;
}

/*
 * Queues @entry last, in any context, if the kind admits it, and wakes the
 * readers; false when it was not wanted.
 */
bool rdmachan_event_queue_add(struct rdmachan_event_queue *q,
			      struct list_head *entry)
{
	unsigned long flags;
	bool added;

	spin_lock_irqsave(&q->lock, flags);
	added = q->ops->admit(q, entry);
	if (added)
		list_add_tail(entry, &q->events);
	spin_unlock_irqrestore(&q->lock, flags);
	if (added)
		wake_up_interruptible(&q->wait);
	return added;
}

/*
 * The oldest event, counted as read and reported in @arg; *@gone when
 * none will come.
 */
static struct list_head *rdmachan_event_queue_take(struct rdmachan_event_queue *q,
						   union rdmachan_event_arg *arg,
						   bool *gone)
{
	struct list_head *entry = NULL;

	spin_lock_irq(&q->lock);
	if (!list_empty(&q->events)) {
		entry = q->events.next;
		list_del_init(entry);
		q->ops->taken(q, entry, arg);
	}
	*gone = q->gone;
	spin_unlock_irq(&q->lock);
	return entry;
}

/* An event that could not be handed out goes back to the front. */
static void rdmachan_event_queue_untake(struct rdmachan_event_queue *q,
					struct list_head *entry)
{
	bool requeued;

	spin_lock_irq(&q->lock);
	requeued = q->ops->give_back(q, entry);
	if (requeued)
		list_add(entry, &q->events);
	spin_unlock_irq(&q->lock);
	q->ops->given_back(entry, requeued);
}

static bool rdmachan_event_queue_ready(struct rdmachan_event_queue *q)
{
	bool ready;

	spin_lock_irq(&q->lock);
	ready = !list_empty(&q->events) || q->gone;
	spin_unlock_irq(&q->lock);
	return ready;
}

static int rdmachan_event_queue_read(struct file *filp, void __user *uarg)
{
	struct rdmachan_event_queue *q = filp->private_data;
	const struct rdmachan_event_queue_ops *ops = q->ops;
	union rdmachan_event_arg arg;
	struct list_head *entry;
	bool nonblock, gone;
	u32 usize;
	int ret;

	ret = rdmachan_copy_args(&arg, ops->arg_size, ops->arg_min_size, uarg,
				 &usize);
	if (ret)
		return ret;
	if ((arg.head.flags & ~ops->nonblock_flag) ||
	    (ops->arg_valid && !ops->arg_valid(&arg)))
		return -EINVAL;
	nonblock = (arg.head.flags & ops->nonblock_flag) ||
		   (filp->f_flags & O_NONBLOCK);

	while (!(entry = rdmachan_event_queue_take(q, &arg, &gone))) {
		if (gone)
			return -ENODEV;
		if (nonblock)
			return -EAGAIN;
		ret = wait_event_interruptible(q->wait,
					       rdmachan_event_queue_ready(q));
		if (ret)
			return ret;
	}
	ret = rdmachan_copy_result(uarg, usize, &arg, ops->arg_size);
	if (ret)
		rdmachan_event_queue_untake(q, entry);
	else
		ops->handed_out(entry);
	return ret;
}

static long rdmachan_event_queue_ioctl(struct file *filp, unsigned int cmd,
				       unsigned long arg)
{
	struct rdmachan_event_queue *q = filp->private_data;

	if (!rdmachan_ioctl_is(cmd, q->ops->ioctl_num))
		return -ENOTTY;
	if (!rdmachan_caller_owns(q->owner))
		return -EACCES;
	return rdmachan_event_queue_read(filp, (void __user *)arg);
}

static __poll_t rdmachan_event_queue_poll(struct file *filp,
					  struct poll_table_struct *wait)
{
	struct rdmachan_event_queue *q = filp->private_data;
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

static int rdmachan_event_queue_release(struct inode *inode,
					struct file *filp)
{
	struct rdmachan_event_queue *q = filp->private_data;

	q->ops->release(q, filp);
	rdmachan_event_queue_put(q);
	return 0;
}

static const struct file_operations rdmachan_event_queue_fops = {
	.owner = THIS_MODULE,
	.release = rdmachan_event_queue_release,
	.poll = rdmachan_event_queue_poll,
	.unlocked_ioctl = rdmachan_event_queue_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/*
 * Gives @q its file, writing the descriptor to @out_fd before it is
 * installed (a handler that writes its result itself). The caller's
 * reference to @q goes to the file, or is dropped on failure.
 */
int rdmachan_event_queue_open(struct rdmachan_event_queue *q,
			      s32 __user *out_fd)
{
	struct file *filp;
	int fd, ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		rdmachan_event_queue_put(q);
		return fd;
	}
	filp = anon_inode_getfile(q->ops->name, &rdmachan_event_queue_fops, q,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(filp)) {
		rdmachan_event_queue_put(q);
		ret = PTR_ERR(filp);
		goto err_fd;
	}
	/* From here the file's release drops the reference. */
	ret = q->ops->attach ? q->ops->attach(q, filp) : 0;
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
