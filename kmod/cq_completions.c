// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: a CQ's completions as the process sees them: converted from
 * the device's, with the numbers of QPs that may be destroyed by now, and
 * kept at device removal. Shared by polled CQs and rings; a leaf.
 */
#include <linux/slab.h>

#include "rdmachan.h"

/* ibv_wc_flags, as struct rdmachan_wc carries them */
#define RDMACHAN_WC_GRH		0x1
#define RDMACHAN_WC_WITH_IMM	0x2
#define RDMACHAN_WC_IP_CSUM_OK	0x4
#define RDMACHAN_WC_WITH_INV	0x8

/*
 * The number of the QP at @ibqp, live or destroyed. A destroyed QP's
 * memory is not read: it is read only when @qps_held says that no QP can
 * be destroyed meanwhile and none of the CQ's QPs is marked destroyed.
 * Else the number comes from the table, whose lookup by address walks
 * many levels of the xarray: about a microsecond of a poll under TCG.
 */
static u32 rdmachan_cq_qp_num(struct rdmachan_cq *cq, struct ib_qp *ibqp,
			      bool qps_held)
{
	void *entry;

	if (!ibqp)
		return 0;
	if (qps_held && !cq->qps_gone)
		return ibqp->qp_num;
	entry = xa_load(&cq->qps, (unsigned long)ibqp);
	return entry ? xa_to_value(entry) >> 1 : 0;
}

/* Every byte of a completion is set: it goes out to the process. */
static_assert(sizeof(struct rdmachan_wc) == 48);

/*
 * @qps_held: the caller holds the file's verbs_lock and the CQ's
 * poll_lock, which keep QPs from being destroyed and qps_gone as it is.
 */
void rdmachan_wc_from_ib(struct rdmachan_cq *cq, struct rdmachan_wc *dst,
			 const struct ib_wc *src, bool qps_held)
{
	u32 flags = 0;

	if (src->wc_flags & IB_WC_GRH)
		flags |= RDMACHAN_WC_GRH;
	if (src->wc_flags & IB_WC_WITH_IMM)
		flags |= RDMACHAN_WC_WITH_IMM;
	if (src->wc_flags & IB_WC_IP_CSUM_OK)
		flags |= RDMACHAN_WC_IP_CSUM_OK;
	if (src->wc_flags & IB_WC_WITH_INVALIDATE)
		flags |= RDMACHAN_WC_WITH_INV;

	dst->wr_id = src->wr_id;
	dst->status = src->status;
	dst->opcode = src->opcode;
	dst->vendor_err = src->vendor_err;
	dst->byte_len = src->byte_len;
	dst->imm_data = (__force u32)src->ex.imm_data;
	dst->qp_num = rdmachan_cq_qp_num(cq, src->qp, qps_held);
	dst->src_qp = src->src_qp;
	dst->wc_flags = flags;
	dst->pkey_index = src->pkey_index;
	dst->slid = src->slid;
	dst->sl = src->sl;
	dst->dlid_path_bits = src->dlid_path_bits;
	dst->network_hdr_type =
		src->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE ?
		src->network_hdr_type : 0;
	dst->__reserved = 0;
}

/*
 * With @poll_lock held: the CQ's completions are taken from the device
 * and kept for POLL_CQ. Returns how many.
 */
int rdmachan_cq_save_locked(struct rdmachan_cq *cq)
{
	struct ib_wc wc[RDMACHAN_POLL_BATCH];
	struct rdmachan_wc *saved;
	u32 room = cq->ib->cqe;
	int got, i, taken = 0;

	lockdep_assert_held(&cq->poll_lock);
	if (!cq->saved) {
		saved = kvcalloc(room, sizeof(*saved), GFP_KERNEL);
		cq->saved = saved;
		if (!saved)
			return 0;
	}
	do {
		got = ib_poll_cq(cq->ib, RDMACHAN_POLL_BATCH, wc);
		for (i = 0; i < got; i++) {
			/* No more fit than the CQ holds; the rest are dropped. */
			if (cq->saved_num == room)
				break;
			rdmachan_wc_from_ib(cq, &cq->saved[cq->saved_num++],
					    &wc[i], false);
		}
		taken += max(got, 0);
	} while (got == RDMACHAN_POLL_BATCH);
	return taken;
}

/* The CQ was found empty: no completion names a destroyed QP any more. */
void rdmachan_cq_forget_gone(struct rdmachan_cq *cq)
{
	unsigned long index;
	void *entry;

	lockdep_assert_held(&cq->poll_lock);
	xa_for_each(&cq->qps, index, entry)
		if (xa_to_value(entry) & 1)
			xa_erase(&cq->qps, index);
	cq->qps_gone = 0;
}
