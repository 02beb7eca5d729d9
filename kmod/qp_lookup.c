// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: QPs found by their number in the device's resource tracker,
 * and whose they are: a QP number a CONNECT or ACCEPT names, and bypass
 * mode's uverbs QPs, which the binding to a CM id (qp_binding.c) finds
 * again for each step.
 *
 * A uverbs QP is held only during a step. That is safe where a QP's
 * destroy begins the tracker's delete before the driver destroys the QP
 * (the build probes for rdma_restrack_begin_del()): the destroy then
 * waits for the held entry, and a QP whose destroy has begun is not
 * found. What is found must still be a QP of the bound uverbs file, so a
 * number that another process's QP took over is never touched.
 *
 * During a step the QP's uobject is also held shared, as a uverbs
 * command that uses the QP holds it: ib_destroy_qp_user() reads the QP's
 * address-vector GID attributes before it waits for the tracker, so a
 * move to RTR while it waits would leave it putting stale ones (a GID
 * reference leaked or put twice). Held, a racing ibv_destroy_qp() gets
 * EBUSY, as it does racing the process's own ibv_modify_qp(); a destroy
 * under way keeps the uobject from being held, and the QP counts as gone.
 */
#include "rdmachan.h"

/*
 * The event handler of the module's QPs, also of one the CM made; and
 * their mark: a QP made with it is the module's (rdmachan_qp_num_hold()).
 */
void rdmachan_qp_event(struct ib_event *event, void *context)
{
	struct rdmachan_qp *qp = context;

	rdmachan_async_report(&qp->async, event->event);
}

/**
 * rdmachan_qp_num_hold() - the QP that @qpn names, if @file may name it
 * @file: the caller's file
 * @ibdev: the CM id's device
 * @qpn: the QP number the caller named
 *
 * The CM trusts the number: a REQ naming a QP another connection uses is
 * taken for a stale copy of it, and the CM then disconnects that
 * connection. So a number that names a QP must name one the caller's
 * process made: through any of its files (an id's file is its event
 * channel, a QP's the device context's), or through uverbs (bypass mode,
 * which drives its own QPs with rdma_init_qp_attr()). One that names no
 * QP is the caller's own business, as on the stock stack. The QP found is
 * held until the CM message has taken its number, so that the number
 * cannot pass to another process's QP meanwhile.
 *
 * Return: NULL for a number of no QP; the QP's tracker entry, held (undo
 * with rdma_restrack_put()); or ERR_PTR(-EACCES) for a QP that is not the
 * caller's.
 */
struct rdma_restrack_entry *rdmachan_qp_num_hold(struct rdmachan_file *file,
						 struct ib_device *ibdev,
						 u32 qpn)
{
	struct rdma_restrack_entry *res;
	struct rdmachan_qp *qp;
	struct ib_qp *ibqp;
	bool ours = false;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return NULL;
	ibqp = container_of(res, struct ib_qp, res);
	/*
	 * Our event handler makes it one of our QPs, and its context ours;
	 * the tracker's reference keeps both until the put.
	 */
	if (rdmachan_qp_created_with(ibqp, rdmachan_qp_event)) {
		qp = ibqp->qp_context;
		ours = qp->v.file->owner == file->owner;
	} else if (!rdma_is_kernel_res(res) && res->task) {
		/* its creator's task stays while the entry is held */
		ours = task_tgid(res->task) == file->owner;
	}
	if (ours)
		return res;
	rdma_restrack_put(res);
	return ERR_PTR(-EACCES);
}

#ifdef RDMACHAN_HAVE_RESTRACK_BEGIN_DEL

bool rdmachan_user_qp_supported(void)
{
	return true;
}

/*
 * The uobject of a uverbs QP: ib_uqp_object begins with ib_uevent_object,
 * which begins with ib_uobject (drivers/infiniband/core/uverbs.h).
 */
static struct ib_uobject *rdmachan_user_qp_uobject(struct ib_qp *qp)
{
	return (struct ib_uobject *)qp->uobject;
}

/*
 * uverbs' shared lock of a uobject (uverbs_try_lock_object(), READ): a
 * count above zero; -1 while a destroy holds it exclusively.
 */
static bool rdmachan_user_qp_hold_uobject(struct ib_qp *qp)
{
	return atomic_fetch_add_unless(&rdmachan_user_qp_uobject(qp)->usecnt,
				       1, -1) != -1;
}

/*
 * @qp is a uverbs QP made on @ufile: its PD is then one of that file's
 * objects. The pointers are only compared: no type of ib_uverbs is used.
 * With the QP's tracker entry held.
 */
static bool rdmachan_user_qp_owned(const struct ib_qp *qp,
				   const struct file *ufile)
{
	return !rdma_is_kernel_res(&qp->res) && qp->uobject &&
	       qp->pd->uobject && qp->pd->uobject->ufile == ufile->private_data;
}

/*
 * QP @qpn of @ibdev, held, if it is a uverbs QP made on @ufile
 * and, when @bound is given, that very QP. Else an ERR_PTR: -ENOENT for
 * no such QP, -EACCES for someone else's, or for one being destroyed.
 * Undo with rdmachan_user_qp_put().
 */
struct ib_qp *rdmachan_user_qp_find(struct ib_device *ibdev, struct file *ufile,
				    u32 qpn, const struct ib_qp *bound)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return ERR_PTR(-ENOENT);
	qp = container_of(res, struct ib_qp, res);
	if (!rdmachan_user_qp_owned(qp, ufile)) {
		rdma_restrack_put(res);
		return ERR_PTR(-EACCES);
	}
	if ((bound && qp != bound) || !rdmachan_user_qp_hold_uobject(qp)) {
		rdma_restrack_put(res);
		return ERR_PTR(-ENOENT);
	}
	return qp;
}

/* Ends what rdmachan_user_qp_find() or rdmachan_user_qp_hold() holds. */
void rdmachan_user_qp_put(struct ib_qp *qp)
{
	atomic_dec(&rdmachan_user_qp_uobject(qp)->usecnt);
	rdma_restrack_put(&qp->res);
}

/*
 * The id's bound QP, found again and held for one step: NULL when the id
 * has none, ERR_PTR(-ENOENT) when its QP is gone; a QP that took over the
 * number is never it. Whatever uses the QP's number (a REQ, a REP, a
 * SIDR reply) is sent before rdmachan_user_qp_put(), so the number
 * cannot change hands meanwhile. With the id's CM handler lock held.
 */
struct ib_qp *rdmachan_user_qp_hold(struct rdmachan_cm_id *id)
{
	struct ib_qp *qp;

	if (!id->user_qp_file)
		return NULL;
	qp = rdmachan_user_qp_find(id->cm_id->device, id->user_qp_file,
				   id->user_qp_num, id->user_qp);
	return IS_ERR(qp) ? ERR_PTR(-ENOENT) : qp;
}

/*
 * The bound QP's state, read as the RDMA netlink's resource dump reads
 * it: with only the tracker entry held (its QP cannot be destroyed
 * meanwhile, so its PD can be compared), so the process's own destroy of
 * the QP is never refused for it. -ENOENT when the QP is gone. With the
 * id's @lock held.
 */
int rdmachan_user_qp_state(struct rdmachan_cm_id *id, enum ib_qp_state *state)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;
	int ret = -ENOENT;

	lockdep_assert_held(&id->lock);
	if (!id->user_qp_file || !id->cm_id)
		return -ENOENT;
	res = rdma_restrack_get_byid(id->cm_id->device, RDMA_RESTRACK_QP,
				     id->user_qp_num);
	if (IS_ERR(res))
		return -ENOENT;
	qp = container_of(res, struct ib_qp, res);
	/* the same QP of the same file: never another process's */
	if (qp == id->user_qp && rdmachan_user_qp_owned(qp, id->user_qp_file))
		ret = rdmachan_qp_query_state(qp, state);
	rdma_restrack_put(res);
	return ret;
}

#else

bool rdmachan_user_qp_supported(void)
{
	return false;
}

struct ib_qp *rdmachan_user_qp_hold(struct rdmachan_cm_id *id)
{
	return NULL;
}

void rdmachan_user_qp_put(struct ib_qp *qp)
{
}

int rdmachan_user_qp_state(struct rdmachan_cm_id *id, enum ib_qp_state *state)
{
	return -ENOENT;
}

struct ib_qp *rdmachan_user_qp_find(struct ib_device *ibdev, struct file *ufile,
				    u32 qpn, const struct ib_qp *bound)
{
	return ERR_PTR(-EOPNOTSUPP);
}

#endif /* RDMACHAN_HAVE_RESTRACK_BEGIN_DEL */
