// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: protection domains and memory regions.
 *
 * A kernel PD comes with a local DMA lkey that reaches all of memory; it
 * is never handed out, and the data path accepts only lkeys of MRs that
 * this file registered on the QP's PD (the PD's @mrs). MRs pin the
 * caller's pages through ib_umem, as uverbs does.
 */
#include <linux/slab.h>

#include "rdmachan.h"

void rdmachan_pd_release(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_pd *pd = container_of(v, struct rdmachan_pd, v);

	rdmachan_async_queue_put(pd->async);
	xa_destroy(&pd->mrs);
}

void rdmachan_pd_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_pd *pd = container_of(v, struct rdmachan_pd, v);

	WARN_ON(atomic_read(&v->users) || !xa_empty(&pd->mrs));
	ib_dealloc_pd(pd->ib);
	pd->ib = NULL;
}

int rdmachan_cmd_alloc_pd(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_alloc_pd *cmd = arg;
	struct rdmachan_async_queue *async;
	struct rdmachan_device *dev;
	struct ib_device *ibdev;
	struct rdmachan_pd *pd;
	struct ib_pd *ibpd;
	int ret;

	dev = rdmachan_context_device(call->file, cmd->context, &async);
	if (!dev)
		return -ENOENT;
	pd = rdmachan_verbs_alloc(call->file, struct rdmachan_pd,
				  RDMACHAN_OBJ_PD);
	if (!pd) {
		rdmachan_async_queue_put(async);
		ret = -ENOMEM;
		goto out_dev;
	}
	pd->async = async;
	xa_init(&pd->mrs);
	ret = rdmachan_verbs_reserve(call, &pd->v, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&pd->v.obj);
		goto out_dev;
	}

	ibdev = rdmachan_device_enter(dev);
	if (!ibdev) {
		ret = -ENODEV;
		goto out_dev;
	}
	ret = rdmachan_verbs_charge(&pd->v, dev, ibdev);
	if (ret)
		goto out_exit;
	ibpd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(ibpd)) {
		ret = PTR_ERR(ibpd);
	} else {
		pd->ib = ibpd;
		rdmachan_verbs_add(&pd->v, dev);
	}
out_exit:
	rdmachan_device_exit(dev);
out_dev:
	rdmachan_device_put(dev);
	return ret;
}

void rdmachan_mr_release(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_mr *mr = container_of(v, struct rdmachan_mr, v);

	if (mr->pd)
		rdmachan_object_put(&mr->pd->v.obj);
}

void rdmachan_mr_teardown(struct rdmachan_verbs_obj *v)
{
	struct rdmachan_mr *mr = container_of(v, struct rdmachan_mr, v);

	xa_erase(&mr->pd->mrs, mr->lkey);
	ib_dereg_mr(mr->ib);
	mr->ib = NULL;
	atomic_dec(&mr->pd->v.users);
}

/* IBV_ACCESS_* bits that an MR may have; optional ones are dropped. */
#define RDMACHAN_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_RELAXED_ORDERING)
#define RDMACHAN_MR_ACCESS_UNSUPPORTED	(IB_ACCESS_MW_BIND | \
					 IB_ZERO_BASED | \
					 IB_ACCESS_ON_DEMAND | \
					 IB_ACCESS_HUGETLB)

/*
 * The start of every create on a PD: the file's verbs_lock held for read,
 * the live PD @handle names in *@pdp, its device entered, and the new
 * object @v charged to the caller's RDMA cgroup. Undone by
 * rdmachan_pd_exit(); on failure nothing is held.
 */
struct ib_device *rdmachan_pd_enter(struct rdmachan_file *file, u32 handle,
				    struct rdmachan_verbs_obj *v,
				    struct rdmachan_pd **pdp)
{
	struct ib_device *ibdev;
	struct rdmachan_pd *pd;
	int ret;

	down_read(&file->verbs_lock);
	pd = rdmachan_pd_find(file, handle);
	ret = rdmachan_verbs_usable(pd ? &pd->v : NULL);
	if (ret)
		goto out_unlock;
	ret = -ENOENT;
	if (pd->v.dead)
		goto out_unlock;
	ret = -ENODEV;
	ibdev = rdmachan_device_enter(pd->v.dev);
	if (!ibdev)
		goto out_unlock;
	ret = rdmachan_verbs_charge(v, pd->v.dev, ibdev);
	if (ret) {
		rdmachan_device_exit(pd->v.dev);
		goto out_unlock;
	}
	*pdp = pd;
	return ibdev;
out_unlock:
	up_read(&file->verbs_lock);
	return ERR_PTR(ret);
}

void rdmachan_pd_exit(struct rdmachan_file *file, struct rdmachan_pd *pd)
{
	rdmachan_device_exit(pd->v.dev);
	up_read(&file->verbs_lock);
}

/* A new object of @pd holds it, and keeps its destroy from going first. */
struct rdmachan_pd *rdmachan_pd_hold(struct rdmachan_pd *pd)
{
	kref_get(&pd->v.obj.ref);
	atomic_inc(&pd->v.users);
	return pd;
}

static int rdmachan_mr_check(struct rdmachan_reg_mr *cmd, u32 *access)
{
	u32 flags = cmd->access & ~(IB_ACCESS_OPTIONAL &
				    ~IB_ACCESS_RELAXED_ORDERING);

	if (cmd->__reserved || !cmd->length ||
	    cmd->addr + cmd->length < cmd->addr ||
	    cmd->iova + cmd->length < cmd->iova)
		return -EINVAL;
	if (flags & RDMACHAN_MR_ACCESS_UNSUPPORTED)
		return -EOPNOTSUPP;
	if (flags & ~RDMACHAN_MR_ACCESS)
		return -EINVAL;
	/* Remote write and atomics need local write. */
	if ((flags & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(flags & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	*access = flags;
	return 0;
}

/*
 * rxe pins an MR's pages from its address; since its page list became an
 * xarray it counts them from the iova's page. Where the iova's range ends
 * in a later page than the address's does, an access to that page is
 * past the list: EFAULT, and on 7.2 a WARN in rxe_mr_iova_to_index, then
 * a wild pointer. 6.1 counts from the address and copes, but no header
 * tells the two apart, so such an MR is refused on every rxe.
 */
static bool rdmachan_mr_past_rxe_pages(struct ib_device *ibdev,
				       const struct rdmachan_reg_mr *cmd)
{
	u64 addr_last = ((cmd->addr & ~PAGE_MASK) + cmd->length - 1) >> PAGE_SHIFT;
	u64 iova_last = ((cmd->iova & ~PAGE_MASK) + cmd->length - 1) >> PAGE_SHIFT;

	return rdmachan_device_is_rxe(ibdev) && iova_last > addr_last;
}

int rdmachan_cmd_reg_mr(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_reg_mr *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct ib_device *ibdev;
	struct rdmachan_pd *pd;
	struct rdmachan_mr *mr;
	struct ib_mr *ibmr;
	u32 access;
	int ret;

	ret = rdmachan_mr_check(cmd, &access);
	if (ret)
		return ret;
	mr = rdmachan_verbs_alloc(file, struct rdmachan_mr, RDMACHAN_OBJ_MR);
	if (!mr)
		return -ENOMEM;
	ret = rdmachan_verbs_reserve(call, &mr->v, &cmd->out_handle);
	if (ret) {
		rdmachan_object_put(&mr->v.obj);
		return ret;
	}

	ibdev = rdmachan_pd_enter(file, cmd->pd, &mr->v, &pd);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	if (rdmachan_mr_past_rxe_pages(ibdev, cmd)) {
		ret = -EINVAL;
		goto out_exit;
	}
	/* Pins the pages of current->mm: unmapped memory is -EFAULT. */
	ibmr = ib_reg_user_mr(pd->ib, cmd->addr, cmd->length, cmd->iova,
			      access);
	if (IS_ERR(ibmr)) {
		ret = PTR_ERR(ibmr);
		goto out_exit;
	}
	ret = xa_insert(&pd->mrs, ibmr->lkey, mr, RDMACHAN_GFP);
	if (ret) {
		ib_dereg_mr(ibmr);
		goto out_exit;
	}
	mr->ib = ibmr;
	mr->pd = rdmachan_pd_hold(pd);
	mr->iova = cmd->iova;
	mr->length = cmd->length;
	mr->access = access;
	mr->lkey = ibmr->lkey;
	cmd->out_lkey = ibmr->lkey;
	cmd->out_rkey = ibmr->rkey;
	rdmachan_verbs_add(&mr->v, pd->v.dev);
out_exit:
	rdmachan_pd_exit(file, pd);
	return ret;
}
