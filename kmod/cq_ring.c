// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: completion rings, mapped read-only into the process, so that
 * polling a CQ costs no system call.
 *
 * The device's CQ stays armed for every completion. Its completion
 * handler only schedules a poll in softirq context (irq_poll, as ib_core's
 * IB_POLL_SOFTIRQ CQs do): drivers may call it with their own CQ lock held
 * (rxe in 6.12 does), which ib_poll_cq() takes. The poll moves what the
 * CQ has into the ring and re-arms it, until the device reports nothing
 * missed.
 *
 * The process hands back its consumer index only when the ring runs out
 * of room (RDMACHAN_IOC_UPDATE_CQ_RING); until then completions wait in
 * the device, so none is ever written over. The ring's memory has a
 * reference of its own for each mapping and one for the CQ, and lives
 * until the last of them is gone.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rdmachan.h"

/* Completions polled from the device at a time, on the stack. */
#define RDMACHAN_RING_BATCH	8
/* Completions one softirq poll takes before it yields (IB_POLL_BUDGET_IRQ) */
#define RDMACHAN_RING_BUDGET	256

struct rdmachan_cq_ring_mem {
	struct kref ref;
	struct rdmachan_cq_ring *ring;
	u32 entries;
	size_t size;
};

static void rdmachan_cq_ring_mem_free(struct kref *ref)
{
	struct rdmachan_cq_ring_mem *mem =
		container_of(ref, struct rdmachan_cq_ring_mem, ref);

	vfree(mem->ring);
	kfree(mem);
	rdmachan_count_dec(RDMACHAN_COUNT_CQ_RINGS);
}

static void rdmachan_cq_ring_mem_put(struct rdmachan_cq_ring_mem *mem)
{
	kref_put(&mem->ref, rdmachan_cq_ring_mem_free);
}

static int rdmachan_cq_ring_poll(struct irq_poll *iop, int budget);

/* A ring with room for more than @cqe completions. */
int rdmachan_cq_ring_create(struct rdmachan_cq *cq, u32 cqe)
{
	struct rdmachan_cq_ring_mem *mem;
	u32 entries;

	if (cqe >= SZ_1M)
		return -EINVAL;
	entries = roundup_pow_of_two(cqe + 1);
	mem = kzalloc(sizeof(*mem), RDMACHAN_GFP);
	if (!mem)
		return -ENOMEM;
	mem->size = PAGE_ALIGN(RDMACHAN_CQ_RING_WCS_OFFSET +
			       (size_t)entries * sizeof(struct rdmachan_wc));
	mem->ring = vmalloc_user(mem->size);
	if (!mem->ring) {
		kfree(mem);
		return -ENOMEM;
	}
	rdmachan_count_inc(RDMACHAN_COUNT_CQ_RINGS);
	kref_init(&mem->ref);
	mem->entries = entries;
	mem->ring->entries = entries;
	spin_lock_init(&cq->ring_lock);
	irq_poll_init(&cq->ring_poll, RDMACHAN_RING_BUDGET,
		      rdmachan_cq_ring_poll);
	cq->ring = mem;
	return 0;
}

void rdmachan_cq_ring_put(struct rdmachan_cq *cq)
{
	if (cq->ring)
		rdmachan_cq_ring_mem_put(cq->ring);
}

void rdmachan_cq_ring_describe(struct rdmachan_cq *cq,
			       struct rdmachan_create_cq *cmd)
{
	cmd->out_ring_entries = cq->ring->entries;
	cmd->out_ring_size = cq->ring->size;
	cmd->out_ring_offset = (u64)cq->v.handle << PAGE_SHIFT;
}

static u32 rdmachan_cq_ring_room(struct rdmachan_cq *cq)
{
	return cq->ring->entries - (cq->ring_prod - cq->ring_cons);
}

/* The completions below ring_prod are written: the process may read them. */
static void rdmachan_cq_ring_publish(struct rdmachan_cq *cq)
{
	/* Pairs with the process's acquire load of the producer index. */
	smp_store_release(&cq->ring->ring->producer, cq->ring_prod);
}

static void rdmachan_cq_ring_set_stalled(struct rdmachan_cq *cq, bool stalled)
{
	cq->ring_stalled = stalled;
	WRITE_ONCE(cq->ring->ring->flags,
		   stalled ? RDMACHAN_CQ_RING_STALLED : 0);
}

/*
 * With ring_lock held: moves up to @max of the device's completions into
 * the ring, and returns how many. Fewer than @max when the device's CQ
 * was found empty or the ring ran out of room (it is then stalled).
 */
static u32 rdmachan_cq_ring_take_device(struct rdmachan_cq *cq, u32 max)
{
	struct rdmachan_cq_ring_mem *mem = cq->ring;
	struct ib_wc wc[RDMACHAN_RING_BATCH];
	u32 room, want, taken = 0;
	int got, i;

	lockdep_assert_held(&cq->ring_lock);
	while (taken < max) {
		room = rdmachan_cq_ring_room(cq);
		if (!room) {
			rdmachan_cq_ring_set_stalled(cq, true);
			break;
		}
		want = min3(room, max - taken, (u32)RDMACHAN_RING_BATCH);
		got = ib_poll_cq(cq->ib, want, wc);
		for (i = 0; i < got; i++)
			rdmachan_wc_from_ib(cq, &mem->ring->wcs[cq->ring_prod++ &
							       (mem->entries - 1)],
					    &wc[i], false);
		if (got > 0) {
			rdmachan_cq_ring_publish(cq);
			taken += got;
		}
		if (got < (int)want)
			break;
	}
	return taken;
}

/* Arms the device's CQ; true when completions may have been missed. */
static bool rdmachan_cq_ring_arm(struct rdmachan_cq *cq)
{
	return ib_req_notify_cq(cq->ib, IB_CQ_NEXT_COMP |
				IB_CQ_REPORT_MISSED_EVENTS) > 0;
}

/*
 * With ring_lock held (interrupts off) and the device's CQ usable, in
 * process context: empties it into the ring and arms it again, unless the
 * ring is full. A ring and a device CQ can hold millions of completions,
 * so the lock is let go between budgets; a stop meanwhile ends the drain.
 */
static void rdmachan_cq_ring_drain(struct rdmachan_cq *cq)
	__must_hold(&cq->ring_lock)
{
	lockdep_assert_held(&cq->ring_lock);
	for (;;) {
		if (rdmachan_cq_ring_take_device(cq, RDMACHAN_RING_BUDGET) ==
		    RDMACHAN_RING_BUDGET) {
			spin_unlock_irq(&cq->ring_lock);
			cond_resched();
			spin_lock_irq(&cq->ring_lock);
			if (!cq->ring_device)
				return;
			continue;
		}
		if (cq->ring_stalled || !rdmachan_cq_ring_arm(cq))
			return;
	}
}

/*
 * The softirq poll: up to @budget completions. Taking fewer means the
 * device's CQ is empty, the ring is stalled or the CQ is going away, and
 * the poll is then complete; a missed completion schedules it again.
 */
static int rdmachan_cq_ring_poll(struct irq_poll *iop, int budget)
{
	struct rdmachan_cq *cq = container_of(iop, struct rdmachan_cq,
					      ring_poll);
	unsigned long flags;
	u32 taken = 0;

	spin_lock_irqsave(&cq->ring_lock, flags);
	if (cq->ring_device && !cq->ring_stalled)
		taken = rdmachan_cq_ring_take_device(cq, budget);
	if (taken < budget) {
		irq_poll_complete(iop);
		if (cq->ring_device && !cq->ring_stalled &&
		    rdmachan_cq_ring_arm(cq))
			irq_poll_sched(iop);
	}
	spin_unlock_irqrestore(&cq->ring_lock, flags);
	return taken;
}

/* The device's completion handler of a CQ with a ring: any context. */
void rdmachan_cq_ring_comp_handler(struct rdmachan_cq *cq)
{
	irq_poll_sched(&cq->ring_poll);
}

/* The device's CQ exists: from now on its completions go to the ring. */
void rdmachan_cq_ring_start(struct rdmachan_cq *cq)
{
	spin_lock_irq(&cq->ring_lock);
	cq->ring_device = true;
	rdmachan_cq_ring_drain(cq);
	spin_unlock_irq(&cq->ring_lock);
}

/*
 * Before the device's CQ is destroyed, in process context: no poll uses
 * it from now on, and none is running or scheduled once this returns.
 */
void rdmachan_cq_ring_stop(struct rdmachan_cq *cq)
{
	spin_lock_irq(&cq->ring_lock);
	cq->ring_device = false;
	spin_unlock_irq(&cq->ring_lock);
	irq_poll_disable(&cq->ring_poll);
}

/*
 * With poll_lock and ring_lock held: completions kept at device removal
 * go first, in order. True when none is left.
 */
static bool rdmachan_cq_ring_take_saved(struct rdmachan_cq *cq)
{
	struct rdmachan_cq_ring_mem *mem = cq->ring;
	u32 n = 0;

	lockdep_assert_held(&cq->poll_lock);
	lockdep_assert_held(&cq->ring_lock);
	while (cq->saved_next < cq->saved_num && rdmachan_cq_ring_room(cq)) {
		mem->ring->wcs[cq->ring_prod++ & (mem->entries - 1)] =
			cq->saved[cq->saved_next++];
		n++;
	}
	if (n)
		rdmachan_cq_ring_publish(cq);
	if (cq->saved_next < cq->saved_num) {
		rdmachan_cq_ring_set_stalled(cq, true);
		return false;
	}
	cq->saved_next = 0;
	cq->saved_num = 0;
	return true;
}

/*
 * With poll_lock and the file's verbs_lock held, in process context: the
 * device's CQ is emptied, into the ring, and what does not fit is kept
 * behind it. The poll does nothing while the ring is stalled, so the
 * device is not polled twice at once. Returns how many were taken.
 */
int rdmachan_cq_ring_save(struct rdmachan_cq *cq)
{
	u32 before;
	int taken;

	lockdep_assert_held(&cq->poll_lock);
	if (!cq->ring_device)
		return 0;
	spin_lock_irq(&cq->ring_lock);
	before = cq->ring_prod;
	if (!cq->ring_stalled)
		rdmachan_cq_ring_drain(cq);
	taken = cq->ring_prod - before;
	spin_unlock_irq(&cq->ring_lock);
	if (cq->ring_stalled)
		taken += rdmachan_cq_save_locked(cq);
	return taken;
}

/*
 * With poll_lock held: refills the ring as far as there is room. True
 * when the device's CQ was found empty.
 */
static bool rdmachan_cq_ring_refill(struct rdmachan_cq *cq, u32 consumer)
{
	bool empty = false;

	lockdep_assert_held(&cq->poll_lock);
	spin_lock_irq(&cq->ring_lock);
	cq->ring_cons = consumer;
	rdmachan_cq_ring_set_stalled(cq, false);
	if (rdmachan_cq_ring_take_saved(cq)) {
		if (cq->ring_device) {
			rdmachan_cq_ring_drain(cq);
			empty = !cq->ring_stalled;
		}
	}
	spin_unlock_irq(&cq->ring_lock);
	return empty;
}

int rdmachan_cmd_update_cq_ring(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_update_cq_ring *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdmachan_cq *cq;
	int ret = 0;

	down_read(&file->verbs_lock);
	cq = rdmachan_cq_find(file, cmd->cq);
	if (!cq) {
		ret = -ENOENT;
		goto out;
	}
	if (!cq->ring) {
		ret = -EINVAL;
		goto out;
	}
	mutex_lock(&cq->poll_lock);
	/* Only forward, and not past what was written. */
	if (cmd->consumer - cq->ring_cons >
	    READ_ONCE(cq->ring_prod) - cq->ring_cons)
		ret = -EINVAL;
	else if (rdmachan_cq_ring_refill(cq, cmd->consumer) && cq->qps_gone)
		rdmachan_cq_forget_gone(cq);
	mutex_unlock(&cq->poll_lock);
out:
	up_read(&file->verbs_lock);
	return ret;
}

static void rdmachan_cq_ring_vm_open(struct vm_area_struct *vma)
{
	struct rdmachan_cq_ring_mem *mem = vma->vm_private_data;

	kref_get(&mem->ref);
}

static void rdmachan_cq_ring_vm_close(struct vm_area_struct *vma)
{
	rdmachan_cq_ring_mem_put(vma->vm_private_data);
}

/* A part of a ring is no ring: the mapping stays whole. */
static int rdmachan_cq_ring_vm_may_split(struct vm_area_struct *vma,
					 unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct rdmachan_cq_ring_vm_ops = {
	.open = rdmachan_cq_ring_vm_open,
	.close = rdmachan_cq_ring_vm_close,
	.may_split = rdmachan_cq_ring_vm_may_split,
};

/*
 * mmap() of the file: the ring of the CQ whose handle is the offset in
 * pages. Called with the mmap lock held, so no verbs_lock here: the
 * object's reference keeps the CQ and its ring.
 */
int rdmachan_cq_ring_mmap(struct rdmachan_file *file,
			  struct vm_area_struct *vma)
{
	struct rdmachan_cq_ring_mem *mem = NULL;
	struct rdmachan_object *obj;
	struct rdmachan_cq *cq;
	int ret;

	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff > U32_MAX)
		return -EINVAL;
	obj = rdmachan_object_get(file, vma->vm_pgoff, RDMACHAN_OBJ_CQ);
	if (!obj)
		return -EINVAL;
	cq = container_of(obj, struct rdmachan_cq, v.obj);
	if (cq->ring && vma->vm_end - vma->vm_start == cq->ring->size) {
		mem = cq->ring;
		kref_get(&mem->ref);
	}
	rdmachan_object_put(obj);
	if (!mem)
		return -EINVAL;

	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	ret = remap_vmalloc_range(vma, mem->ring, 0);
	if (ret) {
		rdmachan_cq_ring_mem_put(mem);
		return ret;
	}
	vma->vm_private_data = mem;
	vma->vm_ops = &rdmachan_cq_ring_vm_ops;
	return 0;
}
