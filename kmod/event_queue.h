/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmachan: the event queue behind a completion channel and an async event
 * file, one type for both as ib_uverbs has one ib_uverbs_event_queue.
 * Included by verbs.h.
 */
#ifndef RDMACHAN_EVENT_QUEUE_H
#define RDMACHAN_EVENT_QUEUE_H

/* The argument of the one ioctl of an event queue's file, of any kind. */
union rdmachan_event_arg {
	/* what every argument opens with */
	struct {
		u32 size;
		u32 flags;
	} head;
	struct rdmachan_get_cq_event cq;
	struct rdmachan_get_async_event async;
};

/*
 * Events wait on @events until the file's ioctl takes the oldest; the
 * file, and whoever else the kind lets hold the queue, hold references.
 */
struct rdmachan_event_queue {
	struct kref ref;
	const struct rdmachan_event_queue_ops *ops;
	/* a reference; only this process may read the queue */
	struct pid *owner;
	/* taken from event handlers, in any context; guards the rest */
	spinlock_t lock;
	struct list_head events;
	wait_queue_head_t wait;
	/* no event will come: reads fail with -ENODEV, poll says EPOLLERR */
	bool gone;
};

/*
 * What a kind of event queue supplies. An entry is the list_head of one
 * of its events; the hooks marked "locked" run with the queue's lock held.
 */
struct rdmachan_event_queue_ops {
	/* the file's inode name; its one ioctl, by RDMACHAN_EVENT_IOCTL() */
	const char *name;
	unsigned int ioctl_num;
	/* the ioctl's argument: the module's size, the first layout's end */
	size_t arg_size;
	size_t arg_min_size;
	/* the flag that asks not to wait; any other flag is -EINVAL */
	u32 nonblock_flag;
	/* optional: whether the rest of the argument is valid (-EINVAL) */
	bool (*arg_valid)(const union rdmachan_event_arg *arg);
	/* optional, once the file exists: -errno refuses it */
	int (*attach)(struct rdmachan_event_queue *q, struct file *filp);
	/* locked: whether a new @entry may be queued, and counts it if so */
	bool (*admit)(struct rdmachan_event_queue *q, struct list_head *entry);
	/*
	 * Locked: @entry was taken off to be read; counts it as read and
	 * fills the argument's out_* fields.
	 */
	void (*taken)(struct rdmachan_event_queue *q, struct list_head *entry,
		      union rdmachan_event_arg *arg);
	/* the taken @entry reached userspace */
	void (*handed_out)(struct list_head *entry);
	/*
	 * Locked: the taken @entry could not be handed out and is no longer
	 * read; whether it goes back to the front of the queue.
	 */
	bool (*give_back)(struct rdmachan_event_queue *q,
			  struct list_head *entry);
	/* after give_back, unlocked: @requeued is what it said */
	void (*given_back)(struct list_head *entry, bool requeued);
	/* the file is released, before it drops its reference */
	void (*release)(struct rdmachan_event_queue *q, struct file *filp);
	/* the last reference went: frees the kind's queue */
	void (*free)(struct rdmachan_event_queue *q);
};

/*
 * The ops' fields for command @name: its ioctl, whose argument is @type
 * with @last the end of its first layout, and RDMACHAN_@name_NONBLOCK.
 * The build fails if the ioctl's size is not @type's or the union lacks it.
 */
#define RDMACHAN_EVENT_IOCTL(name, type, last)				\
	.ioctl_num = RDMACHAN_IOC_##name +				\
		BUILD_BUG_ON_ZERO(_IOC_SIZE(RDMACHAN_IOC_##name) !=	\
				  sizeof(type)) +			\
		BUILD_BUG_ON_ZERO(sizeof(type) >			\
				  sizeof(union rdmachan_event_arg)),	\
	.arg_size = sizeof(type),					\
	.arg_min_size = offsetofend(type, last),			\
	.nonblock_flag = RDMACHAN_##name##_NONBLOCK

void rdmachan_event_queue_init(struct rdmachan_event_queue *q,
			       const struct rdmachan_event_queue_ops *ops,
			       struct pid *owner);
void rdmachan_event_queue_put(struct rdmachan_event_queue *q);
struct rdmachan_event_queue *
rdmachan_event_queue_get(int fd, const struct rdmachan_event_queue_ops *ops);
int rdmachan_event_queue_open(struct rdmachan_event_queue *q,
			      s32 __user *out_fd);
bool rdmachan_event_queue_add(struct rdmachan_event_queue *q,
			      struct list_head *entry);

#endif /* RDMACHAN_EVENT_QUEUE_H */
