// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: shared receive queues: create, modify, query, destroy.
 * Receives are posted with the data path (data_path.c).
 */
#include <linux/slab.h>

#include "rdmachan.h"

/* IBV_SRQ_MAX_WR and IBV_SRQ_LIMIT */
#define RDMACHAN_SRQ_ATTR_MASK	(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)

void rdmachan_srq_release(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_srq *srq = container_of(v, struct rdmachan_srq, v);

	rdmachan_async_obj_release(&srq->async);
	if (srq->pd)
		rdmachan_object_put(&srq->pd->v.obj);
}

void rdmachan_srq_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_srq *srq = container_of(v, struct rdmachan_srq, v);

	ib_destroy_srq(srq->ib);
	srq->ib = NULL;
	atomic_dec(&srq->pd->v.users);
}

static void rdmachan_srq_event(struct ib_event *event, void *context)
{
	struct rdmachan_srq *srq = context;

	rdmachan_async_report(&srq->async, event->event);
}

/*
 * An SRQ that QPs use cannot go. Otherwise its unread async events go,
 * and the destroy waits until those read are acknowledged.
 */
int rdmachan_srq_destroy_begin(struct rdmachan_object *obj)
{
	struct rdmachan_srq *srq =
		container_of(obj, struct rdmachan_srq, v.obj);
	int ret;

	ret = rdmachan_verbs_destroy_unused(obj);
	if (ret)
		return ret;
	rdmachan_async_obj_dying(&srq->async, true);
	ret = rdmachan_async_obj_wait(&srq->async, "SRQ");
	if (ret) {
		down_write(&srq->v.file->verbs_lock);
		srq->v.dead = false;
		up_write(&srq->v.file->verbs_lock);
		rdmachan_async_obj_dying(&srq->async, false);
	}
	return ret;
}

static void rdmachan_srq_attr_out(struct rdmachan_srq_attr *dst,
				  const struct ib_srq_attr *src)
{
	dst->max_wr = src->max_wr;
	dst->max_sge = src->max_sge;
	dst->srq_limit = src->srq_limit;
	dst->__reserved = 0;
}

int rdmachan_cmd_create_srq(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_create_srq *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct ib_srq_init_attr init = {};
	struct ib_device *ibdev;
	struct rdmachan_srq *srq;
	struct rdmachan_pd *pd;
	struct ib_srq *ibsrq;
	int ret;

	if (cmd->__reserved || cmd->__reserved2 || cmd->attr.__reserved)
		return -EINVAL;
	srq = rdmachan_verbs_alloc(file, struct rdmachan_srq,
				   RDMACHAN_OBJ_SRQ);
	if (!srq)
		return -ENOMEM;
	srq->user_context = cmd->user_context;
	ret = rdmachan_verbs_reserve(call, &srq->v, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&srq->v.obj);
		return ret;
	}

	ibdev = rdmachan_pd_enter(file, cmd->pd, &srq->v, &pd);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	rdmachan_async_obj_init(&srq->async, &srq->v,
				RDMACHAN_ASYNC_ELEMENT_SRQ, pd->async,
				srq->user_context);
	init.event_handler = rdmachan_srq_event;
	init.srq_context = srq;
	init.srq_type = IB_SRQT_BASIC;
	init.attr.max_wr = cmd->attr.max_wr;
	init.attr.max_sge = cmd->attr.max_sge;
	ibsrq = ib_create_srq(pd->ib, &init);
	if (IS_ERR(ibsrq)) {
		ret = PTR_ERR(ibsrq);
		goto out_exit;
	}
	srq->ib = ibsrq;
	srq->pd = rdmachan_pd_hold(pd);
	srq->max_sge = init.attr.max_sge;
	rdmachan_srq_attr_out(&cmd->out_attr, &init.attr);
	rdmachan_verbs_add(&srq->v, pd->v.dev);
out_exit:
	rdmachan_pd_exit(file, pd);
	return ret;
}

int rdmachan_cmd_modify_srq(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_modify_srq *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct ib_srq_attr attr = {};
	struct rdmachan_srq *srq;
	int ret;

	if (cmd->attr.__reserved || (cmd->attr_mask & ~RDMACHAN_SRQ_ATTR_MASK))
		return -EINVAL;
	attr.max_wr = cmd->attr.max_wr;
	attr.srq_limit = cmd->attr.srq_limit;
	down_read(&file->verbs_lock);
	srq = rdmachan_srq_find(file, cmd->srq);
	ret = rdmachan_verbs_usable(srq ? &srq->v : NULL);
	if (!ret)
		ret = ib_modify_srq(srq->ib, &attr, cmd->attr_mask);
	up_read(&file->verbs_lock);
	return ret;
}

int rdmachan_cmd_query_srq(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_query_srq *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct ib_srq_attr attr = {};
	struct rdmachan_srq *srq;
	int ret;

	if (cmd->out_attr.__reserved || cmd->__reserved)
		return -EINVAL;
	down_read(&file->verbs_lock);
	srq = rdmachan_srq_find(file, cmd->srq);
	ret = rdmachan_verbs_usable(srq ? &srq->v : NULL);
	if (!ret)
		ret = ib_query_srq(srq->ib, &attr);
	up_read(&file->verbs_lock);
	if (!ret)
		rdmachan_srq_attr_out(&cmd->out_attr, &attr);
	return ret;
}
