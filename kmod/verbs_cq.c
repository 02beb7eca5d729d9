// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: completion queues: create, arm, acknowledge their completion
 * events, poll, destroy.
 */
#include <linux/hash.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rdmachan.h"

void rdmachan_cq_release(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_cq *cq = container_of(v, struct rdmachan_cq, v);

	rdmachan_async_obj_release(&cq->async);
	rdmachan_cq_ring_put(cq);
	if (cq->channel)
		rdmachan_comp_channel_put(cq->channel);
	kvfree(cq->saved);
	xa_destroy(&cq->qps);
	mutex_destroy(&cq->poll_lock);
}

void rdmachan_cq_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_cq *cq = container_of(v, struct rdmachan_cq, v);

	rdmachan_comp_channel_dying(cq, true);
	if (cq->ring)
		rdmachan_cq_ring_stop(cq);
	rdmachan_rxe_cq_before_destroy(cq);
	ib_destroy_cq(cq->ib);
	cq->ib = NULL;
}

static void rdmachan_cq_comp_handler(struct ib_cq *ibcq, void *context)
{
	struct rdmachan_cq *cq = context;

	if (cq->ring)
		rdmachan_cq_ring_comp_handler(cq);
	else
		rdmachan_comp_channel_notify(cq);
}

static void rdmachan_cq_event(struct ib_event *event, void *context)
{
	struct rdmachan_cq *cq = context;

	rdmachan_async_report(&cq->async, event->event);
}

/*
 * A CQ that QPs use cannot go. Otherwise it queues no more completion or
 * async events, and the destroy waits until the events taken from its
 * channel and its async events read are acknowledged, with the handle
 * still there to acknowledge them.
 */
int rdmachan_cq_destroy_begin(struct rdmachan_object *obj)
{
	struct rdmachan_cq *cq = container_of(obj, struct rdmachan_cq, v.obj);
	struct rdmachan_file *file = cq->v.file;
	int ret = 0;

	down_write(&file->verbs_lock);
	if (atomic_read(&cq->v.users)) {
		ret = -EBUSY;
	} else {
		cq->v.dead = true;
		rdmachan_comp_channel_dying(cq, true);
		rdmachan_async_obj_dying(&cq->async, true);
	}
	up_write(&file->verbs_lock);
	if (ret)
		return ret;

	if (cq->channel)
		ret = rdmachan_wait_acks(&cq->ack_wait, &cq->events_unacked,
					 &cq->async.destroy_waiting, "CQ",
					 cq->v.handle, NULL, NULL);
	if (!ret)
		ret = rdmachan_async_obj_wait(&cq->async, "CQ");
	if (ret) {
		down_write(&file->verbs_lock);
		cq->v.dead = false;
		if (cq->v.live)
			rdmachan_comp_channel_dying(cq, false);
		rdmachan_async_obj_dying(&cq->async, false);
		up_write(&file->verbs_lock);
	}
	return ret;
}

/* A CQ object for @cmd, with a reserved handle; it takes over @ch. */
static struct rdmachan_cq *rdmachan_cq_new(struct rdmachan_call *call,
					   struct rdmachan_create_cq *cmd,
					   struct rdmachan_comp_channel *ch,
					   struct rdmachan_async_queue *async)
{
	struct rdmachan_cq *cq;
	int ret;

	cq = rdmachan_verbs_alloc(call->file, struct rdmachan_cq,
				  RDMACHAN_OBJ_CQ);
	if (!cq) {
		if (ch)
			rdmachan_comp_channel_put(ch);
		return ERR_PTR(-ENOMEM);
	}
	cq->channel = ch;
	cq->user_context = cmd->user_context;
	INIT_LIST_HEAD(&cq->channel_entry);
	init_waitqueue_head(&cq->ack_wait);
	mutex_init(&cq->poll_lock);
	xa_init(&cq->qps);
	rdmachan_async_obj_init(&cq->async, &cq->v, RDMACHAN_ASYNC_ELEMENT_CQ,
				async, cmd->user_context);
	ret = rdmachan_verbs_reserve(call, &cq->v, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&cq->v.obj);
		return ERR_PTR(ret);
	}
	return cq;
}

/* The device's CQ and, if asked for, its ring; @dev is entered as @ibdev. */
static int rdmachan_cq_create_ib(struct rdmachan_cq *cq,
				 struct rdmachan_create_cq *cmd,
				 struct rdmachan_device *dev,
				 struct ib_device *ibdev)
{
	struct ib_cq_init_attr attr = {
		.cqe = cmd->cqe, .comp_vector = cmd->comp_vector,
	};
	struct ib_cq *ibcq;
	int ret;

	if (cmd->comp_vector >= ibdev->num_comp_vectors)
		return -EINVAL;
	ret = rdmachan_verbs_charge(&cq->v, dev, ibdev);
	if (ret)
		return ret;
	ibcq = ib_create_cq(ibdev, rdmachan_cq_comp_handler,
			    rdmachan_cq_event, cq, &attr);
	if (IS_ERR(ibcq))
		return PTR_ERR(ibcq);
	/* Room for all the device's CQ holds, so the ring never drops one. */
	if (cmd->flags & RDMACHAN_CREATE_CQ_RING) {
		ret = rdmachan_cq_ring_create(cq, ibcq->cqe);
		if (ret) {
			ib_destroy_cq(ibcq);
			return ret;
		}
	}
	cq->ib = ibcq;
	cmd->out_cqe = ibcq->cqe;
	rdmachan_verbs_add(&cq->v, dev);
	if (cq->ring) {
		rdmachan_cq_ring_start(cq);
		rdmachan_cq_ring_describe(cq, cmd);
	}
	return 0;
}

int rdmachan_cmd_create_cq(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_cq *cmd = arg;
	struct rdmachan_comp_channel *ch = NULL;
	struct rdmachan_async_queue *async;
	struct rdmachan_device *dev;
	struct ib_device *ibdev;
	struct rdmachan_cq *cq;
	int ret;

	if (!cmd->cqe || cmd->cqe > INT_MAX)
		return -EINVAL;
	/* A ring CQ's device CQ is always armed: no solicited-only events. */
	if ((cmd->flags & RDMACHAN_CREATE_CQ_RING) &&
	    cmd->comp_channel != RDMACHAN_NO_FD)
		return -EINVAL;
	dev = rdmachan_context_device(call->file, cmd->context, &async);
	if (!dev)
		return -ENOENT;
	if (cmd->comp_channel != RDMACHAN_NO_FD) {
		ch = rdmachan_comp_channel_get(cmd->comp_channel);
		if (IS_ERR(ch)) {
			ret = PTR_ERR(ch);
			goto out_dev;
		}
	}
	cq = rdmachan_cq_new(call, cmd, ch, async);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out_dev;
	}
	ibdev = rdmachan_device_enter(dev);
	if (!ibdev) {
		ret = -ENODEV;
		goto out_dev;
	}
	ret = rdmachan_cq_create_ib(cq, cmd, dev, ibdev);
	rdmachan_device_exit(dev);
out_dev:
	rdmachan_async_queue_put(async);
	rdmachan_device_put(dev);
	return ret;
}

int rdmachan_cmd_req_notify_cq(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_notify_cq *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdmachan_cq *cq;
	int ret;

	down_read(&file->verbs_lock);
	cq = rdmachan_cq_find(file, cmd->cq);
	ret = rdmachan_verbs_usable(cq ? &cq->v : NULL);
	if (!ret)
		ret = rdmachan_comp_channel_ack(cq, cmd->num_acks);
	/* A ring CQ has no channel, and its device CQ is armed already. */
	if (!ret && !cq->ring) {
		WRITE_ONCE(cq->device_armed, true);
		ret = ib_req_notify_cq(cq->ib,
				       cmd->flags & RDMACHAN_NOTIFY_SOLICITED ?
				       IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
	}
	up_read(&file->verbs_lock);
	return ret < 0 ? ret : 0;
}

/* Works after device removal too, so that the CQ's destroy can finish. */
int rdmachan_cmd_ack_cq_events(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_notify_cq *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdmachan_cq *cq;
	int ret = -ENOENT;

	down_read(&file->verbs_lock);
	cq = rdmachan_cq_find(file, cmd->cq);
	if (cq)
		ret = rdmachan_comp_channel_ack(cq, cmd->num_acks);
	up_read(&file->verbs_lock);
	return ret;
}

/* Device removal, with the file's verbs_lock held. */
int rdmachan_cq_save(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_cq *cq = container_of(v, struct rdmachan_cq, v);
	int taken;

	lockdep_assert_held(&v->file->verbs_lock);
	mutex_lock(&cq->poll_lock);
	if (cq->ring)
		taken = rdmachan_cq_ring_save(cq);
	else
		taken = rdmachan_cq_save_locked(cq);
	mutex_unlock(&cq->poll_lock);
	return taken;
}

/*
 * A new QP of the CQ, with the file's verbs_lock held. A QP destroyed
 * earlier at the same address may still have completions here: they are
 * taken from the device first, with their own QP's number.
 */
int rdmachan_cq_add_qp(struct rdmachan_cq *cq, struct ib_qp *ibqp)
{
	void *old;
	int ret;

	lockdep_assert_held(&cq->v.file->verbs_lock);
	mutex_lock(&cq->poll_lock);
	old = xa_load(&cq->qps, (unsigned long)ibqp);
	if (old) {
		if (cq->ring)
			rdmachan_cq_ring_save(cq);
		else
			rdmachan_cq_save_locked(cq);
		cq->qps_gone--;
	}
	ret = xa_err(xa_store(&cq->qps, (unsigned long)ibqp,
			      xa_mk_value((unsigned long)ibqp->qp_num << 1),
			      RDMACHAN_GFP));
	if (ret && old)
		xa_erase(&cq->qps, (unsigned long)ibqp);
	mutex_unlock(&cq->poll_lock);
	return ret;
}

/*
 * The QP is being destroyed, with the file's verbs_lock held: for write
 * by a destroy, for read by a create that failed.
 */
void rdmachan_cq_qp_gone(struct rdmachan_cq *cq, struct ib_qp *ibqp)
{
	void *entry;

	lockdep_assert_held(&cq->v.file->verbs_lock);
	mutex_lock(&cq->poll_lock);
	entry = xa_load(&cq->qps, (unsigned long)ibqp);
	if (entry && !(xa_to_value(entry) & 1)) {
		/* Replacing an entry allocates nothing. */
		xa_store(&cq->qps, (unsigned long)ibqp,
			 xa_mk_value(xa_to_value(entry) | 1), GFP_NOWAIT);
		cq->qps_gone++;
	}
	mutex_unlock(&cq->poll_lock);
}

/*
 * A QP of the CQ was destroyed. A ring CQ has no polls that would find
 * the device's CQ empty: it is emptied here (into the ring, the rest kept
 * in order behind it), so no completion there names a destroyed QP.
 */
void rdmachan_cq_settle(struct rdmachan_cq *cq)
{
	if (!cq->ring)
		return;
	mutex_lock(&cq->poll_lock);
	rdmachan_cq_ring_save(cq);
	if (cq->qps_gone)
		rdmachan_cq_forget_gone(cq);
	mutex_unlock(&cq->poll_lock);
}

/* Completions kept at device removal, up to @max, into @uwc. */
static int rdmachan_cq_take_saved(struct rdmachan_cq *cq,
				  struct rdmachan_wc *uwc, u32 max)
{
	int n;

	lockdep_assert_held(&cq->poll_lock);
	n = min(max, cq->saved_num - cq->saved_next);
	memcpy(uwc, &cq->saved[cq->saved_next], n * sizeof(*uwc));
	cq->saved_next += n;
	/* All taken: the room is free for the next ones kept. */
	if (cq->saved_next == cq->saved_num) {
		cq->saved_next = 0;
		cq->saved_num = 0;
	}
	return n;
}

static int rdmachan_wc_copy_out(void __user *dst, u32 stride,
				const struct rdmachan_wc *wc, int n)
{
	int i;

	if (stride == sizeof(*wc))
		return copy_to_user(dst, wc, n * sizeof(*wc)) ? -EFAULT : 0;
	for (i = 0; i < n; i++, dst += stride) {
		if (copy_to_user(dst, &wc[i], sizeof(*wc)) ||
		    clear_user(dst + sizeof(*wc), stride - sizeof(*wc)))
			return -EFAULT;
	}
	return 0;
}

/*
 * A thread that drained a CQ and polls it again right away, with no other
 * CQ polled in between, is busy-polling it: an empty poll then watches the
 * CQ in the kernel for a while (busy_poll_us), as a socket's busy polling
 * does. A system call per empty poll takes longer than rxe takes to
 * complete a request, so without this a completion waits for the next poll
 * to come around. It ends at the first completion, a signal, or when
 * another task wants the CPU.
 */
#define RDMACHAN_BUSY_POLL_GAP_NS	(5 * NSEC_PER_USEC)

static unsigned int busy_poll_us = 20;
module_param(busy_poll_us, uint, 0644);
MODULE_PARM_DESC(busy_poll_us,
		 "how long an empty CQ polled in a loop is watched in the kernel (us, 0: never)");

/* Whether this poll of @cq by the current thread continues a busy poll. */
static bool rdmachan_cq_busy_polled(struct rdmachan_file *file, u32 handle)
{
	pid_t pid = task_pid_nr(current);
	u64 *slot = &file->last_poll[hash_32(pid, RDMACHAN_POLL_THREADS_BITS)];
	u64 me = (u64)pid << 32 | handle;
	bool again = READ_ONCE(*slot) == me;

	if (!again)
		WRITE_ONCE(*slot, me);
	return again;
}

/* With poll_lock held and the CQ found empty: whether to look again. */
static bool rdmachan_cq_busy_poll(struct rdmachan_cq *cq, bool busy,
				  u64 *deadline)
{
	u64 now = local_clock();

	lockdep_assert_held(&cq->poll_lock);
	if (!*deadline) {
		if (!busy || !cq->last_empty_ns || !READ_ONCE(busy_poll_us) ||
		    now - cq->last_empty_ns > RDMACHAN_BUSY_POLL_GAP_NS)
			return false;
		*deadline = now + READ_ONCE(busy_poll_us) * NSEC_PER_USEC;
	}
	if (now >= *deadline || need_resched() || signal_pending(current))
		return false;
	cpu_relax();
	return true;
}

/*
 * Completions go out in batches. A bad @wcs loses the batch that could
 * not be written; the ones written before it are reported.
 */
/* Completions kept at device removal go first: into @dst from *@n on. */
static int rdmachan_cq_poll_saved(struct rdmachan_cq *cq, void __user *dst,
				  u32 stride, u32 max, struct rdmachan_wc *uwc,
				  u32 *n)
{
	int got, ret = 0;

	while (!ret && unlikely(cq->saved) && *n < max) {
		got = rdmachan_cq_take_saved(cq, uwc, min_t(u32, max - *n,
							    RDMACHAN_POLL_BATCH));
		if (!got)
			break;
		ret = rdmachan_wc_copy_out(dst + (size_t)*n * stride, stride,
					   uwc, got);
		if (!ret)
			*n += got;
	}
	return ret;
}

/* The device's completions into @dst from *@n on, until it is empty. */
static int rdmachan_cq_poll_device(struct rdmachan_cq *cq, void __user *dst,
				   u32 stride, u32 max, struct rdmachan_wc *uwc,
				   u32 *n)
{
	struct ib_wc wc[RDMACHAN_POLL_BATCH] __uninitialized;
	int got, i, ret;
	u32 want;

	while (cq->v.live && *n < max) {
		want = min_t(u32, max - *n, RDMACHAN_POLL_BATCH);
		got = ib_poll_cq(cq->ib, want, wc);
		if (got < 0)
			return got;
		for (i = 0; i < got; i++)
			rdmachan_wc_from_ib(cq, &uwc[i], &wc[i], true);
		/* Empty: no completion names a destroyed QP any more. */
		if (got < want && cq->qps_gone)
			rdmachan_cq_forget_gone(cq);
		if (!got)
			break;
		ret = rdmachan_wc_copy_out(dst + (size_t)*n * stride, stride,
					   uwc, got);
		if (ret)
			return ret;
		*n += got;
		if (got < want)
			break;
	}
	return 0;
}

int rdmachan_cmd_poll_cq(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_poll_cq *cmd = arg;
	struct rdmachan_file *file = call->file;
	void __user *dst = u64_to_user_ptr(cmd->wcs);
	/* Written before read, and a struct rdmachan_wc has no padding. */
	struct rdmachan_wc uwc[RDMACHAN_POLL_BATCH] __uninitialized;
	struct rdmachan_cq *cq;
	u64 deadline = 0;
	u32 n = 0;
	bool busy;
	int ret;

	if (cmd->wc_size < sizeof(struct rdmachan_wc) ||
	    cmd->wc_size > RDMACHAN_MAX_STRIDE)
		return -EINVAL;
	down_read(&file->verbs_lock);
	cq = rdmachan_cq_find(file, cmd->cq);
	if (!cq) {
		up_read(&file->verbs_lock);
		return -ENOENT;
	}
	/* A ring CQ is read from its ring. */
	if (cq->ring) {
		up_read(&file->verbs_lock);
		return -EINVAL;
	}
	busy = rdmachan_cq_busy_polled(file, cmd->cq);
	mutex_lock(&cq->poll_lock);
	ret = rdmachan_cq_poll_saved(cq, dst, cmd->wc_size, cmd->max_wc, uwc,
				     &n);
	if (!ret && !cq->v.live && !n)
		ret = -ENODEV;
	do {
		if (!ret)
			ret = rdmachan_cq_poll_device(cq, dst, cmd->wc_size,
						      cmd->max_wc, uwc, &n);
	} while (!ret && !n && cq->v.live &&
		 rdmachan_cq_busy_poll(cq, busy, &deadline));
	/* It was drained: polling it again right away is busy polling. */
	cq->last_empty_ns = n < cmd->max_wc ? local_clock() : 0;
	mutex_unlock(&cq->poll_lock);
	up_read(&file->verbs_lock);
	if (ret && n)
		ret = 0;
	cmd->out_num_wc = n;
	return ret;
}
