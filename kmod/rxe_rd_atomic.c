// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: keeps rxe's responder resources inside their array.
 *
 * A modify with IB_QP_MAX_DEST_RD_ATOMIC makes rxe free the QP's array of
 * responder resources and allocate one of the new size. Linux 5.10's rxe
 * stores the new size first, then clears the old array's entries up to
 * it: a larger size writes zeroes past the array's end (KASAN:
 * slab-out-of-bounds in rxe_qp_from_attr), and an array of size 0 is
 * ZERO_SIZE_PTR, written through. 6.1's rxe frees first. No header or
 * symbol tells the two apart, so on every rxe a QP that may already have
 * an array is not given a larger one: the modify fails with EINVAL and
 * changes nothing. A new QP has no array, so the first INIT to RTR, and
 * the CM's on connect and accept, are never refused.
 *
 * Kernel-owned QPs only: a uverbs QP in bypass mode is the user's to
 * modify, as it is with the stock stack.
 */
#include <linux/log2.h>

#include "rdmachan.h"

/* The CM takes the responder resources of the peer's REP: up to this. */
#define RDMACHAN_RD_ATOMIC_MAX_FROM_PEER U8_MAX

/* Of the QP types the module makes, only RC has responder resources. */
static bool rdmachan_rxe_rc_qp(struct rdmachan_qp *qp)
{
	return qp->type == IB_QPT_RC && rdmachan_device_is_rxe(qp->ib->device);
}

/* rxe allocates a power of two of them, from the one asked for. */
static unsigned int rdmachan_rd_atomic_entries(unsigned int responder_resources)
{
	return responder_resources ? roundup_pow_of_two(responder_resources) : 0;
}

/* The size rxe keeps, the one its array has when it has one. */
static int rdmachan_rxe_rd_atomic_size(struct rdmachan_qp *qp,
				       unsigned int *size)
{
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr attr = {};
	int ret;

	ret = ib_query_qp(qp->ib, &attr, IB_QP_MAX_DEST_RD_ATOMIC, &init);
	if (!ret)
		*size = attr.max_dest_rd_atomic;
	return ret;
}

/*
 * Before a modify of @qp with @mask and @responder_resources: -EINVAL when
 * rxe would clear entries past its array. With the QP's modifies
 * serialised (see rdmachan_qp.rd_atomic_sized).
 */
int rdmachan_rxe_rd_atomic_check(struct rdmachan_qp *qp, u32 mask,
				 unsigned int responder_resources)
{
	unsigned int size;
	int ret;

	if (!(mask & IB_QP_MAX_DEST_RD_ATOMIC) || !qp->rd_atomic_sized ||
	    !rdmachan_rxe_rc_qp(qp))
		return 0;
	ret = rdmachan_rxe_rd_atomic_size(qp, &size);
	if (ret)
		return ret;
	return rdmachan_rd_atomic_entries(responder_resources) > size ?
	       -EINVAL : 0;
}

/*
 * After that modify, which returned @result. A failed one may have
 * reached rxe's allocation, which stores the size first: the QP then has
 * an array unless the size is still another one.
 */
void rdmachan_rxe_rd_atomic_done(struct rdmachan_qp *qp, u32 mask,
				 unsigned int responder_resources, int result)
{
	unsigned int size;

	if (!(mask & IB_QP_MAX_DEST_RD_ATOMIC) || qp->rd_atomic_sized ||
	    !rdmachan_rxe_rc_qp(qp))
		return;
	if (result && !rdmachan_rxe_rd_atomic_size(qp, &size) &&
	    size != rdmachan_rd_atomic_entries(responder_resources))
		return;
	qp->rd_atomic_sized = true;
}

/*
 * A connect: the CM moves the bound QP to RTR when the REP comes, with the
 * peer's responder resources, which nothing here sees first.
 */
int rdmachan_rxe_rd_atomic_connect_check(struct rdmachan_qp *qp)
{
	return rdmachan_rxe_rd_atomic_check(qp, IB_QP_MAX_DEST_RD_ATOMIC,
					    RDMACHAN_RD_ATOMIC_MAX_FROM_PEER);
}

/* After a connect whose REQ went: the REP may size the array at any time. */
void rdmachan_rxe_rd_atomic_connected(struct rdmachan_qp *qp)
{
	if (rdmachan_rxe_rc_qp(qp))
		qp->rd_atomic_sized = true;
}
