// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: posting work requests to kernel QPs and SRQs.
 *
 * A kernel QP trusts its lkeys: the PD's local DMA lkey reaches all of
 * memory. So every SGE is checked before the chain is handed over: its
 * lkey must name an MR this file registered on the QP's (SRQ's) PD, the
 * range must lie in that MR, and memory the device writes needs local
 * write access. Inline payloads are copied into the kernel at post time
 * (drivers copy inline data from the SGE's address when the request is
 * posted). Small chains live on the stack; the checks take no locks
 * beyond the file's verbs_lock, which keeps MRs, AHs and QPs in place.
 */
#include <linux/bottom_half.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rdmachan.h"

/* libibverbs' IBV_WR_DRIVER1, where uverbs has RDMA_READ_WITH_INV */
#define RDMACHAN_IBV_WR_DRIVER1	11

/*
 * Room on the stack, for the common small post. It is written before it
 * is read, so it is left out of CONFIG_INIT_STACK_ALL_ZERO's zeroing
 * (__uninitialized), which would otherwise clear it on every post.
 */
#define RDMACHAN_POST_STACK_WRS		4
#define RDMACHAN_POST_STACK_SGES	8
#define RDMACHAN_POST_STACK_INLINE	128

#define RDMACHAN_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/* struct rdmachan_sge is struct ib_sge: SGEs are read straight into place. */
static_assert(sizeof(struct rdmachan_sge) == sizeof(struct ib_sge));
static_assert(offsetof(struct rdmachan_sge, addr) ==
	      offsetof(struct ib_sge, addr));
static_assert(offsetof(struct rdmachan_sge, length) ==
	      offsetof(struct ib_sge, length));
static_assert(offsetof(struct rdmachan_sge, lkey) ==
	      offsetof(struct ib_sge, lkey));

union rdmachan_ib_send_wr {
	struct ib_send_wr wr;
	struct ib_rdma_wr rdma;
	struct ib_atomic_wr atomic;
	struct ib_ud_wr ud;
};

/* The user's arrays of one post, and where their kernel copies are. */
struct rdmachan_post_bufs {
	void *uwrs;
	void *wrs;
	struct ib_sge *sges;
	u8 *inline_data;
	size_t inline_len;
	size_t inline_used;
};

static int rdmachan_post_check(const struct rdmachan_post *cmd,
			       size_t wr_size)
{
	if (cmd->__reserved || !cmd->num_wrs ||
	    cmd->num_wrs > RDMACHAN_MAX_POST_WRS ||
	    cmd->num_sges > RDMACHAN_MAX_POST_SGES || cmd->wr_size < wr_size ||
	    cmd->wr_size > RDMACHAN_MAX_STRIDE)
		return -EINVAL;
	return 0;
}

/* Work requests of a newer, longer layout must have a zero tail. */
static int rdmachan_copy_wrs(void *dst, size_t size,
			     const struct rdmachan_post *cmd)
{
	const void __user *src = u64_to_user_ptr(cmd->wrs);
	u32 i;
	int ret;

	if (cmd->wr_size == size)
		return copy_from_user(dst, src, cmd->num_wrs * size) ?
		       -EFAULT : 0;
	for (i = 0; i < cmd->num_wrs; i++) {
		ret = copy_struct_from_user(dst + i * size, size,
					    src + (size_t)i * cmd->wr_size,
					    cmd->wr_size);
		if (ret)
			return ret;
	}
	return 0;
}

static int rdmachan_copy_sges(struct ib_sge *dst,
			      const struct rdmachan_post *cmd)
{
	if (copy_from_user(dst, u64_to_user_ptr(cmd->sges),
			   cmd->num_sges * sizeof(*dst)))
		return -EFAULT;
	return 0;
}

/* With the file's verbs_lock held: the SGE is memory of an MR of @pd. */
static int rdmachan_sge_check(struct rdmachan_pd *pd, const struct ib_sge *sge,
			      bool device_writes)
{
	struct rdmachan_mr *mr = xa_load(&pd->mrs, sge->lkey);

	lockdep_assert_held(&pd->v.file->verbs_lock);
	if (!mr)
		return -EINVAL;
	if (device_writes && !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (sge->addr < mr->iova || sge->length > mr->length ||
	    sge->addr - mr->iova > mr->length - sge->length)
		return -EINVAL;
	return 0;
}

static int rdmachan_sges_check(struct rdmachan_pd *pd,
			       const struct ib_sge *sges, u32 n,
			       bool device_writes)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = rdmachan_sge_check(pd, &sges[i], device_writes);
		if (ret)
			return ret;
	}
	return 0;
}

/* Copies an inline payload in; the SGEs then point at the kernel copy. */
static int rdmachan_inline_copy(struct rdmachan_qp *qp, struct ib_sge *sges,
				u32 n, struct rdmachan_post_bufs *bufs)
{
	size_t total = 0;
	u8 *dst;
	u32 i;

	for (i = 0; i < n; i++)
		total += sges[i].length;
	if (total > qp->max_inline ||
	    total > bufs->inline_len - bufs->inline_used)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		dst = bufs->inline_data + bufs->inline_used;
		if (copy_from_user(dst, u64_to_user_ptr(sges[i].addr),
				   sges[i].length))
			return -EFAULT;
		sges[i].addr = (uintptr_t)dst;
		sges[i].lkey = 0;
		bufs->inline_used += sges[i].length;
	}
	return 0;
}

/*
 * The opcode's part of a send request, if @qp's type allows it;
 * *@device_writes when the device writes into the local SGEs.
 */
static int rdmachan_send_opcode_in(const struct rdmachan_qp *qp,
				   const struct rdmachan_send_wr *u,
				   union rdmachan_ib_send_wr *w,
				   bool *device_writes)
{
	switch (u->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (qp->type == IB_QPT_UD)
			return -EINVAL;
		w->rdma.remote_addr = u->remote_addr;
		w->rdma.rkey = u->rkey;
		break;
	case IB_WR_RDMA_READ:
		if (qp->type != IB_QPT_RC)
			return -EINVAL;
		w->rdma.remote_addr = u->remote_addr;
		w->rdma.rkey = u->rkey;
		*device_writes = true;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (qp->type != IB_QPT_RC)
			return -EINVAL;
		w->atomic.remote_addr = u->remote_addr;
		w->atomic.compare_add = u->compare_add;
		w->atomic.swap = u->swap;
		w->atomic.rkey = u->rkey;
		*device_writes = true;
		break;
	/* libibverbs' opcodes are the uverbs ABI's up to TSO */
	case IB_UVERBS_WR_LOCAL_INV:
	case IB_UVERBS_WR_BIND_MW:
	case IB_UVERBS_WR_SEND_WITH_INV:
	case IB_UVERBS_WR_TSO:
	case RDMACHAN_IBV_WR_DRIVER1:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	return 0;
}

/* An rdmachan_send_wr as the IB core's work request, checked. */
static int rdmachan_send_wr_in(struct rdmachan_file *file,
			       struct rdmachan_qp *qp,
			       const struct rdmachan_send_wr *u,
			       union rdmachan_ib_send_wr *w,
			       struct ib_sge *sges,
			       struct rdmachan_post_bufs *bufs)
{
	bool device_writes = false;
	struct rdmachan_ah *ah;
	int ret;

	if (u->__reserved || u->__reserved2 ||
	    (u->send_flags & ~RDMACHAN_SEND_FLAGS) ||
	    u->num_sge > qp->max_send_sge)
		return -EINVAL;

	memset(w, 0, sizeof(*w));
	ret = rdmachan_send_opcode_in(qp, u, w, &device_writes);
	if (ret)
		return ret;

	if (qp->type == IB_QPT_UD) {
		ah = rdmachan_ah_find(file, u->ah);
		ret = rdmachan_verbs_usable(ah ? &ah->v : NULL);
		if (ret)
			return ret;
		if (ah->pd != qp->pd)
			return -EINVAL;
		w->ud.ah = ah->ib;
		w->ud.remote_qpn = u->remote_qpn & RDMACHAN_QPN_MASK;
		w->ud.remote_qkey = u->remote_qkey;
	}

	if (u->send_flags & IB_SEND_INLINE) {
		if (device_writes)
			return -EINVAL;
		ret = rdmachan_inline_copy(qp, sges, u->num_sge, bufs);
	} else {
		ret = rdmachan_sges_check(qp->pd, sges, u->num_sge,
					  device_writes);
	}
	if (ret)
		return ret;

	w->wr.wr_id = u->wr_id;
	w->wr.opcode = u->opcode;
	w->wr.send_flags = u->send_flags;
	w->wr.num_sge = u->num_sge;
	w->wr.sg_list = sges;
	w->wr.ex.imm_data = (__force __be32)u->imm_data;
	return 0;
}

/* The requests' SGE counts must add up to the SGEs given. */
static int rdmachan_count_sges(const struct rdmachan_post *cmd,
			       const void *uwrs, size_t wr_size,
			       size_t num_sge_offset)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < cmd->num_wrs; i++)
		total += *(const u32 *)(uwrs + i * wr_size + num_sge_offset);
	return total == cmd->num_sges ? 0 : -EINVAL;
}

/* Finds room for the post's arrays: on the stack if it fits. */
static int rdmachan_post_alloc(const struct rdmachan_post *cmd,
			       size_t uwr_size, size_t wr_size,
			       struct rdmachan_post_bufs *bufs)
{
	if (cmd->num_wrs > RDMACHAN_POST_STACK_WRS) {
		bufs->uwrs = kvmalloc_array(cmd->num_wrs, uwr_size, GFP_KERNEL);
		bufs->wrs = kvmalloc_array(cmd->num_wrs, wr_size, GFP_KERNEL);
		if (!bufs->uwrs || !bufs->wrs)
			return -ENOMEM;
	}
	if (cmd->num_sges > RDMACHAN_POST_STACK_SGES) {
		bufs->sges = kvmalloc_array(cmd->num_sges, sizeof(*bufs->sges),
					    GFP_KERNEL);
		if (!bufs->sges)
			return -ENOMEM;
	}
	return 0;
}

static void rdmachan_post_free(struct rdmachan_post_bufs *bufs,
			       void *stack_uwrs, void *stack_wrs,
			       void *stack_sges, void *stack_inline)
{
	if (bufs->uwrs != stack_uwrs)
		kvfree(bufs->uwrs);
	if (bufs->wrs != stack_wrs)
		kvfree(bufs->wrs);
	if (bufs->sges != stack_sges)
		kvfree(bufs->sges);
	if (bufs->inline_data != stack_inline)
		kfree(bufs->inline_data);
}

/* Room for every inline payload of the post, at most max_inline each. */
static int rdmachan_inline_alloc(struct rdmachan_qp *qp,
				 const struct rdmachan_send_wr *uwrs, u32 n,
				 struct rdmachan_post_bufs *bufs)
{
	size_t need = 0;
	u32 i;

	for (i = 0; i < n; i++)
		if (uwrs[i].send_flags & IB_SEND_INLINE)
			need += qp->max_inline;
	if (need <= bufs->inline_len)
		return 0;
	bufs->inline_data = kmalloc(need, GFP_KERNEL);
	if (!bufs->inline_data)
		return -ENOMEM;
	bufs->inline_len = need;
	return 0;
}

static u32 __user *rdmachan_post_out(struct rdmachan_call *call)
{
	struct rdmachan_post __user *ucmd = call->uarg;

	return &ucmd->out_num_posted;
}

/*
 * What every post does before it looks at its QP or SRQ: the argument is
 * checked, out_num_posted is set to 0 so that a reply that cannot be
 * written fails the call before anything is posted, and the requests and
 * their SGEs are copied in. The caller frees @bufs whatever the result.
 */
static int rdmachan_post_begin(struct rdmachan_call *call,
			       const struct rdmachan_post *cmd,
			       size_t uwr_size, size_t wr_size,
			       size_t num_sge_offset,
			       struct rdmachan_post_bufs *bufs)
{
	int ret;

	ret = rdmachan_post_check(cmd, uwr_size);
	if (ret)
		return ret;
	if (put_user(0, rdmachan_post_out(call)))
		return -EFAULT;
	return rdmachan_post_alloc(cmd, uwr_size, wr_size, bufs) ?:
	       rdmachan_copy_wrs(bufs->uwrs, uwr_size, cmd) ?:
	       rdmachan_copy_sges(bufs->sges, cmd) ?:
	       rdmachan_count_sges(cmd, bufs->uwrs, uwr_size, num_sge_offset);
}

/* How many went in is reported also when the post failed. */
static int rdmachan_post_end(struct rdmachan_call *call, u32 posted, int ret)
{
	return put_user(posted, rdmachan_post_out(call)) ? -EFAULT : ret;
}

/*
 * Chains the send requests of @bufs, up to the first that fails a check
 * (its error in *@ret); returns how many are chained.
 */
static u32 rdmachan_send_chain(struct rdmachan_file *file,
			       struct rdmachan_qp *qp,
			       struct rdmachan_post_bufs *bufs, u32 num,
			       int *ret)
{
	struct rdmachan_send_wr *uwrs = bufs->uwrs;
	union rdmachan_ib_send_wr *wrs = bufs->wrs;
	struct ib_sge *sges = bufs->sges;
	u32 n;

	for (n = 0; n < num; n++) {
		*ret = rdmachan_send_wr_in(file, qp, &uwrs[n], &wrs[n], sges,
					   bufs);
		if (*ret)
			break;
		if (n)
			wrs[n - 1].wr.next = &wrs[n].wr;
		sges += uwrs[n].num_sge;
	}
	return n;
}

/* Posts a chain of @n; returns how many the device took, its error in *@ret. */
static u32 rdmachan_send_post(struct rdmachan_qp *qp,
			      union rdmachan_ib_send_wr *wrs, u32 n, int *ret)
{
	const struct ib_send_wr *bad = NULL;
	int err;

	/* rxe runs its send task when bottom halves come back on. */
	local_bh_disable();
	err = ib_post_send(qp->ib, &wrs[0].wr, &bad);
	local_bh_enable();
	if (!err)
		return n;
	*ret = err;
	return (union rdmachan_ib_send_wr *)bad - wrs;
}

int rdmachan_cmd_post_send(struct rdmachan_call *call, void *arg)
{
	struct rdmachan_post *cmd = arg;
	struct rdmachan_file *file = call->file;
	struct rdmachan_send_wr stack_uwrs[RDMACHAN_POST_STACK_WRS] __uninitialized;
	union rdmachan_ib_send_wr stack_wrs[RDMACHAN_POST_STACK_WRS] __uninitialized;
	struct ib_sge stack_sges[RDMACHAN_POST_STACK_SGES] __uninitialized;
	u8 stack_inline[RDMACHAN_POST_STACK_INLINE] __uninitialized;
	struct rdmachan_post_bufs bufs = {
		.uwrs = stack_uwrs, .wrs = stack_wrs, .sges = stack_sges,
		.inline_data = stack_inline,
		.inline_len = sizeof(stack_inline),
	};
	struct rdmachan_qp *qp;
	u32 n = 0, posted = 0;
	int ret;

	ret = rdmachan_post_begin(call, cmd, sizeof(struct rdmachan_send_wr),
				  sizeof(union rdmachan_ib_send_wr),
				  offsetof(struct rdmachan_send_wr, num_sge),
				  &bufs);
	if (ret)
		goto out_free;

	down_read(&file->verbs_lock);
	qp = rdmachan_qp_find(file, cmd->handle);
	ret = rdmachan_verbs_usable(qp ? &qp->v : NULL) ?:
	      rdmachan_inline_alloc(qp, bufs.uwrs, cmd->num_wrs, &bufs);
	if (!ret)
		n = rdmachan_send_chain(file, qp, &bufs, cmd->num_wrs, &ret);
	if (n)
		posted = rdmachan_send_post(qp, bufs.wrs, n, &ret);
	up_read(&file->verbs_lock);
	ret = rdmachan_post_end(call, posted, ret);
out_free:
	rdmachan_post_free(&bufs, stack_uwrs, stack_wrs, stack_sges,
			   stack_inline);
	return ret;
}

/*
 * @num receive requests @uwrs as the device's chain @wrs, which ends
 * before the first that fails a check: returns how many are chained, and
 * in *@ret why the next one is not.
 */
static u32 rdmachan_recv_chain(struct rdmachan_pd *pd, u32 max_sge,
			       const struct rdmachan_recv_wr *uwrs,
			       struct ib_recv_wr *wrs, struct ib_sge *sges,
			       u32 num, int *ret)
{
	u32 n;

	for (n = 0; n < num; n++) {
		if (uwrs[n].__reserved || uwrs[n].num_sge > max_sge)
			*ret = -EINVAL;
		else
			*ret = rdmachan_sges_check(pd, sges, uwrs[n].num_sge,
						   true);
		if (*ret)
			break;
		wrs[n].next = NULL;
		wrs[n].wr_id = uwrs[n].wr_id;
		wrs[n].sg_list = sges;
		wrs[n].num_sge = uwrs[n].num_sge;
		if (n)
			wrs[n - 1].next = &wrs[n];
		sges += uwrs[n].num_sge;
	}
	return n;
}

/* Receive requests for a QP or an SRQ on @pd, with @max_sge SGEs each. */
static int rdmachan_post_recv_common(struct rdmachan_call *call,
				     struct rdmachan_post *cmd, bool srq)
{
	struct rdmachan_file *file = call->file;
	struct rdmachan_recv_wr stack_uwrs[RDMACHAN_POST_STACK_WRS] __uninitialized;
	struct ib_recv_wr stack_wrs[RDMACHAN_POST_STACK_WRS] __uninitialized;
	struct ib_sge stack_sges[RDMACHAN_POST_STACK_SGES] __uninitialized;
	struct rdmachan_post_bufs bufs = {
		.uwrs = stack_uwrs, .wrs = stack_wrs, .sges = stack_sges,
	};
	const struct ib_recv_wr *bad = NULL;
	struct rdmachan_recv_wr *uwrs;
	struct rdmachan_pd *pd = NULL;
	struct rdmachan_srq *s = NULL;
	struct rdmachan_qp *qp = NULL;
	struct ib_recv_wr *wrs;
	u32 n = 0, posted = 0, max_sge = 0;
	int ret;

	ret = rdmachan_post_begin(call, cmd, sizeof(*uwrs), sizeof(*wrs),
				  offsetof(struct rdmachan_recv_wr, num_sge),
				  &bufs);
	if (ret)
		goto out_free;
	uwrs = bufs.uwrs;
	wrs = bufs.wrs;

	down_read(&file->verbs_lock);
	if (srq) {
		s = rdmachan_srq_find(file, cmd->handle);
		ret = rdmachan_verbs_usable(s ? &s->v : NULL);
		if (!ret) {
			pd = s->pd;
			max_sge = s->max_sge;
		}
	} else {
		qp = rdmachan_qp_find(file, cmd->handle);
		ret = rdmachan_verbs_usable(qp ? &qp->v : NULL);
		if (!ret) {
			pd = qp->pd;
			max_sge = qp->max_recv_sge;
		}
	}
	if (!ret)
		n = rdmachan_recv_chain(pd, max_sge, uwrs, wrs, bufs.sges,
					cmd->num_wrs, &ret);
	if (n) {
		int err = srq ? ib_post_srq_recv(s->ib, wrs, &bad) :
				ib_post_recv(qp->ib, wrs, &bad);

		posted = n;
		if (err) {
			posted = bad - wrs;
			ret = err;
		}
	}
	up_read(&file->verbs_lock);
	ret = rdmachan_post_end(call, posted, ret);
out_free:
	rdmachan_post_free(&bufs, stack_uwrs, stack_wrs, stack_sges, NULL);
	return ret;
}

int rdmachan_cmd_post_recv(struct rdmachan_call *call, void *arg)
{
	return rdmachan_post_recv_common(call, arg, false);
}

int rdmachan_cmd_post_srq_recv(struct rdmachan_call *call, void *arg)
{
	return rdmachan_post_recv_common(call, arg, true);
}
