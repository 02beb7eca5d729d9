// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: the post ops behind the inline ibv_post_send, ibv_post_recv
 * and ibv_post_srq_recv, and the context's op table.
 *
 * A chain of work requests goes to the kernel as one POST ioctl: the
 * requests and their SGEs are laid out in arrays on the stack, no memory
 * is allocated. A chain longer than those arrays goes in several posts, in
 * order, stopping at the first that fails. As libibverbs, a failure returns
 * an errno value and points *bad_wr at the first request not posted.
 */
#include <stdbool.h>
#include <stddef.h>

#include "verbs_internal.h"

#define VB_POST_WRS 32
#define VB_POST_SGES 64

/* SGEs are handed to the kernel in their ibv_sge layout. */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct rdmachan_sge) &&
	       offsetof(struct ibv_sge, addr) ==
	       offsetof(struct rdmachan_sge, addr) &&
	       offsetof(struct ibv_sge, length) ==
	       offsetof(struct rdmachan_sge, length) &&
	       offsetof(struct ibv_sge, lkey) ==
	       offsetof(struct rdmachan_sge, lkey),
	       "struct ibv_sge and struct rdmachan_sge differ");

struct vb_post {
	int fd;
	unsigned long ioc;
	uint32_t handle;
	unsigned int num_wrs;
	unsigned int num_sges;
	struct rdmachan_sge sges[VB_POST_SGES];
};

/* Not an initializer: clearing sges[] would cost every post a kilobyte. */
static void vb_post_init(struct vb_post *post, int fd, unsigned long ioc,
			 uint32_t handle)
{
	post->fd = fd;
	post->ioc = ioc;
	post->handle = handle;
	post->num_wrs = 0;
	post->num_sges = 0;
}

/* A request whose SGE list the kernel could not be handed. */
static bool vb_bad_sges(const struct ibv_sge *sg_list, int num_sge)
{
	return num_sge < 0 || num_sge > VB_POST_SGES || (num_sge && !sg_list);
}

/* Whether a request of @num_sge SGEs still fits in the post. */
static bool vb_post_fits(const struct vb_post *post, int num_sge)
{
	return post->num_wrs < VB_POST_WRS &&
	       post->num_sges + (unsigned int)num_sge <= VB_POST_SGES;
}

static void vb_post_add_sges(struct vb_post *post,
			     const struct ibv_sge *sg_list, int num_sge)
{
	struct rdmachan_sge *dst = &post->sges[post->num_sges];
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = sg_list[i].addr;
		dst[i].length = sg_list[i].length;
		dst[i].lkey = sg_list[i].lkey;
	}
	post->num_sges += (unsigned int)num_sge;
}

/*
 * Post the @post->num_wrs requests at @wrs. Returns 0, or an errno value
 * with *@bad_index set to the first request not posted.
 */
static int vb_post_flush(struct vb_post *post, const void *wrs,
			 size_t wr_size, unsigned int *bad_index)
{
	struct rdmachan_post cmd = {
		.size = sizeof(cmd),
		.handle = post->handle,
		.num_wrs = post->num_wrs,
		.wrs = (uintptr_t)wrs,
		.sges = (uintptr_t)post->sges,
		.wr_size = (uint32_t)wr_size,
		.num_sges = post->num_sges,
	};

	if (!post->num_wrs)
		return 0;
	if (rdmachan_ioctl(post->fd, post->ioc, &cmd)) {
		*bad_index = cmd.out_num_posted < post->num_wrs ?
			     cmd.out_num_posted : 0;
		return errno;
	}
	post->num_wrs = 0;
	post->num_sges = 0;
	return 0;
}

static void vb_fill_send_wr(struct rdmachan_send_wr *k,
			    const struct ibv_send_wr *wr, bool ud)
{
	*k = (struct rdmachan_send_wr){
		.wr_id = wr->wr_id,
		.opcode = wr->opcode,
		.send_flags = wr->send_flags,
		.num_sge = (uint32_t)wr->num_sge,
		.imm_data = wr->invalidate_rkey,
	};
	if (ud) {
		k->ah = wr->wr.ud.ah->handle;
		k->remote_qpn = wr->wr.ud.remote_qpn;
		k->remote_qkey = wr->wr.ud.remote_qkey;
		return;
	}
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		k->remote_addr = wr->wr.rdma.remote_addr;
		k->rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		k->remote_addr = wr->wr.atomic.remote_addr;
		k->rkey = wr->wr.atomic.rkey;
		k->compare_add = wr->wr.atomic.compare_add;
		k->swap = wr->wr.atomic.swap;
		break;
	default:
		break;
	}
}

static struct ibv_send_wr *vb_nth_send_wr(struct ibv_send_wr *wr,
					  unsigned int index)
{
	while (index--)
		wr = wr->next;
	return wr;
}

static struct ibv_recv_wr *vb_nth_recv_wr(struct ibv_recv_wr *wr,
					  unsigned int index)
{
	while (index--)
		wr = wr->next;
	return wr;
}

int vb_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr)
{
	struct rdmachan_send_wr kwrs[VB_POST_WRS];
	struct vb_post post;
	bool ud = qp->qp_type == IBV_QPT_UD;
	struct ibv_send_wr *first = wr, *cur;
	unsigned int bad;
	int err;

	vb_post_init(&post, qp->context->cmd_fd, RDMACHAN_IOC_POST_SEND,
		     qp->handle);
	for (cur = wr; cur; cur = cur->next) {
		if (vb_bad_sges(cur->sg_list, cur->num_sge) ||
		    (ud && !cur->wr.ud.ah)) {
			/* Those before it are posted, as the kernel would. */
			bad = post.num_wrs;
			err = vb_post_flush(&post, kwrs, sizeof(kwrs[0]), &bad);
			if (!err)
				err = EINVAL;
			goto fail;
		}
		if (!vb_post_fits(&post, cur->num_sge)) {
			err = vb_post_flush(&post, kwrs, sizeof(kwrs[0]), &bad);
			if (err)
				goto fail;
			first = cur;
		}
		vb_fill_send_wr(&kwrs[post.num_wrs++], cur, ud);
		vb_post_add_sges(&post, cur->sg_list, cur->num_sge);
	}
	err = vb_post_flush(&post, kwrs, sizeof(kwrs[0]), &bad);
	if (!err)
		return 0;
fail:
	*bad_wr = vb_nth_send_wr(first, bad);
	return err;
}

static int vb_post_recv_chain(struct vb_post *post, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct rdmachan_recv_wr kwrs[VB_POST_WRS];
	struct ibv_recv_wr *first = wr, *cur;
	unsigned int bad;
	int err;

	for (cur = wr; cur; cur = cur->next) {
		if (vb_bad_sges(cur->sg_list, cur->num_sge)) {
			bad = post->num_wrs;
			err = vb_post_flush(post, kwrs, sizeof(kwrs[0]), &bad);
			if (!err)
				err = EINVAL;
			goto fail;
		}
		if (!vb_post_fits(post, cur->num_sge)) {
			err = vb_post_flush(post, kwrs, sizeof(kwrs[0]), &bad);
			if (err)
				goto fail;
			first = cur;
		}
		kwrs[post->num_wrs++] = (struct rdmachan_recv_wr){
			.wr_id = cur->wr_id,
			.num_sge = (uint32_t)cur->num_sge,
		};
		vb_post_add_sges(post, cur->sg_list, cur->num_sge);
	}
	err = vb_post_flush(post, kwrs, sizeof(kwrs[0]), &bad);
	if (!err)
		return 0;
fail:
	*bad_wr = vb_nth_recv_wr(first, bad);
	return err;
}

int vb_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr)
{
	struct vb_post post;

	vb_post_init(&post, qp->context->cmd_fd, RDMACHAN_IOC_POST_RECV,
		     qp->handle);
	return vb_post_recv_chain(&post, wr, bad_wr);
}

int vb_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct vb_post post;

	vb_post_init(&post, srq->context->cmd_fd, RDMACHAN_IOC_POST_SRQ_RECV,
		     srq->handle);
	return vb_post_recv_chain(&post, wr, bad_wr);
}

void vb_init_context_ops(struct ibv_context *context)
{
	context->ops.poll_cq = vb_poll_cq;
	context->ops.req_notify_cq = vb_req_notify_cq;
	context->ops.post_send = vb_post_send;
	context->ops.post_recv = vb_post_recv;
	context->ops.post_srq_recv = vb_post_srq_recv;
}
