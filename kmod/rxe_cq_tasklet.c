// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: lets rxe's completion tasklet run before its CQ is freed.
 *
 * rxe of Linux 5.10 and 6.1 calls a CQ's completion handler from a
 * tasklet, scheduled when a completion reaches the armed CQ, and its CQ
 * destroy never kills that tasklet: the core frees the CQ while the
 * tasklet may still be queued on some CPU, which then runs it on freed
 * memory (KASAN: use-after-free in tasklet_action_common). Since Linux
 * 6.4 (78b26a335310, "RDMA/rxe: Remove tasklet call from rxe_cq.c") rxe
 * calls the handler directly; no header or symbol tells the two apart,
 * so this is done on every rxe (kmod/compat/compat.h).
 *
 * A CQ can be destroyed only when no QP uses it, and a QP's destroy ends
 * its tasks, so nothing schedules the tasklet again: running once, on
 * each CPU, the tasklets queued there before the destroy is enough. Only
 * CQs the device was ever asked to arm pay for it.
 */
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>

#include "rdmachan.h"

struct rdmachan_tasklet_mark {
	struct tasklet_struct tasklet;
	struct completion ran;
};

static void rdmachan_tasklet_mark_ran(struct tasklet_struct *t)
{
	struct rdmachan_tasklet_mark *mark = from_tasklet(mark, t, tasklet);

	complete(&mark->ran);
}

/*
 * On the CPU the work is bound to: a CPU's tasklets run in the order they
 * were queued, so once a mark queued now has run, so have they.
 */
static void rdmachan_run_queued_tasklets(struct work_struct *work)
{
	struct rdmachan_tasklet_mark mark;

	init_completion(&mark.ran);
	tasklet_setup(&mark.tasklet, rdmachan_tasklet_mark_ran);
	tasklet_schedule(&mark.tasklet);
	wait_for_completion(&mark.ran);
	/* its state is written after its function returns: wait for that */
	tasklet_kill(&mark.tasklet);
}

/* Before the destroy of @cq's device CQ, with no QP using it. */
void rdmachan_rxe_cq_before_destroy(struct rdmachan_cq *cq)
{
	struct work_struct work;
	int cpu;

	if (!rdmachan_device_is_rxe(cq->ib->device) ||
	    !(READ_ONCE(cq->device_armed) || cq->ring))
		return;
	/* a dying CPU's tasklets move to a live one: none goes meanwhile */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK_ONSTACK(&work, rdmachan_run_queued_tasklets);
		queue_work_on(cpu, system_wq, &work);
		flush_work(&work);
		destroy_work_on_stack(&work);
	}
	cpus_read_unlock();
}
