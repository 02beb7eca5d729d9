// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: ibv_create_cq_ex(3) in kernel-owned mode, and the extended
 * poll API of the CQ it makes (start_poll, next_poll, end_poll, read_*).
 *
 * Each completion comes from the CQ's ordinary poll, one at a time, into
 * the CQ; the read_* calls return its fields. So a CQ offers the standard
 * work completion fields (IBV_WC_STANDARD_FLAGS) and nothing a device adds
 * (timestamps, flow tags, ...): those, and the create flags, fail with
 * EOPNOTSUPP, as libibverbs fails what a provider lacks.
 */
#include <limits.h>

#include "verbs_internal.h"

static struct vb_cq *ex_to_vb_cq(struct ibv_cq_ex *ex)
{
	return (struct vb_cq *)ex;
}

static struct ibv_wc *ex_wc(struct ibv_cq_ex *ex)
{
	return &ex_to_vb_cq(ex)->ex_wc;
}

/* The next completion into the CQ: 0, ENOENT when there is none, or errno. */
static int vb_cq_ex_take(struct ibv_cq_ex *ex)
{
	struct vb_cq *cq = ex_to_vb_cq(ex);
	int n = vb_poll_cq(&cq->ibv, 1, &cq->ex_wc);

	if (n < 0)
		return -n;
	if (!n)
		return ENOENT;
	ex->wr_id = cq->ex_wc.wr_id;
	ex->status = cq->ex_wc.status;
	return 0;
}

/* The CQ is the caller's from a start_poll that found one to end_poll. */
static int vb_start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_mutex_lock(&ex_to_vb_cq(ex)->ex_lock);
	ret = vb_cq_ex_take(ex);
	if (ret)
		pthread_mutex_unlock(&ex_to_vb_cq(ex)->ex_lock);
	return ret;
}

static int vb_next_poll(struct ibv_cq_ex *ex)
{
	return vb_cq_ex_take(ex);
}

static void vb_end_poll(struct ibv_cq_ex *ex)
{
	pthread_mutex_unlock(&ex_to_vb_cq(ex)->ex_lock);
}

static enum ibv_wc_opcode vb_read_opcode(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->opcode;
}

static uint32_t vb_read_vendor_err(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->vendor_err;
}

static uint32_t vb_read_byte_len(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->byte_len;
}

static __be32 vb_read_imm_data(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->imm_data;
}

static uint32_t vb_read_qp_num(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->qp_num;
}

static uint32_t vb_read_src_qp(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->src_qp;
}

static unsigned int vb_read_wc_flags(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->wc_flags;
}

static uint32_t vb_read_slid(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->slid;
}

static uint8_t vb_read_sl(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->sl;
}

static uint8_t vb_read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return ex_wc(ex)->dlid_path_bits;
}

struct ibv_cq_ex *vb_create_cq_ex(struct ibv_context *context,
				  struct ibv_cq_init_attr_ex *attr)
{
	/* a hint only: the CQ locks the extended poll all the same */
	const uint32_t flags_known = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	struct ibv_cq_ex *ex;
	struct ibv_cq *cq;

	if ((attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~flags_known)) ||
	    (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT_MAX || attr->comp_vector > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	cq = vb_create_cq(context, (int)attr->cqe, attr->cq_context,
			  attr->channel, (int)attr->comp_vector);
	if (!cq)
		return NULL;
	ex = &to_vb_cq(cq)->ex;
	ex->start_poll = vb_start_poll;
	ex->next_poll = vb_next_poll;
	ex->end_poll = vb_end_poll;
	ex->read_opcode = vb_read_opcode;
	ex->read_vendor_err = vb_read_vendor_err;
	ex->read_byte_len = vb_read_byte_len;
	ex->read_imm_data = vb_read_imm_data;
	ex->read_qp_num = vb_read_qp_num;
	ex->read_src_qp = vb_read_src_qp;
	ex->read_wc_flags = vb_read_wc_flags;
	ex->read_slid = vb_read_slid;
	ex->read_sl = vb_read_sl;
	ex->read_dlid_path_bits = vb_read_dlid_path_bits;
	return ex;
}
