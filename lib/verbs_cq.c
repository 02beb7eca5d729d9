// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: completion channels and completion queues
 * (ibv_create_comp_channel, ibv_destroy_comp_channel, ibv_create_cq,
 * ibv_destroy_cq, ibv_get_cq_event, ibv_ack_cq_events, and the poll_cq and
 * req_notify_cq ops behind the inline ibv_poll_cq and ibv_req_notify_cq).
 *
 * A completion channel is a file of its own. The kernel counts the
 * completion events taken from it per CQ until they are acknowledged, and
 * destroying the CQ waits for that, in the kernel; acknowledgements ride
 * on the CQ's next REQ_NOTIFY_CQ, which saves a crossing per event.
 */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "verbs_internal.h"
#include "mode.h"

/* The kernel writes completions straight into the caller's ibv_wc array. */
#define VB_SAME_FIELD(f) \
	(offsetof(struct ibv_wc, f) == offsetof(struct rdmachan_wc, f) && \
	 sizeof(((struct ibv_wc *)0)->f) == sizeof(((struct rdmachan_wc *)0)->f))
_Static_assert(sizeof(struct ibv_wc) == sizeof(struct rdmachan_wc) &&
	       VB_SAME_FIELD(wr_id) && VB_SAME_FIELD(status) &&
	       VB_SAME_FIELD(opcode) && VB_SAME_FIELD(vendor_err) &&
	       VB_SAME_FIELD(byte_len) && VB_SAME_FIELD(imm_data) &&
	       VB_SAME_FIELD(qp_num) && VB_SAME_FIELD(src_qp) &&
	       VB_SAME_FIELD(wc_flags) && VB_SAME_FIELD(pkey_index) &&
	       VB_SAME_FIELD(slid) && VB_SAME_FIELD(sl) &&
	       VB_SAME_FIELD(dlid_path_bits),
	       "struct ibv_wc and struct rdmachan_wc differ");

struct ibv_comp_channel *vb_create_comp_channel(struct ibv_context *context)
{
	struct rdmachan_create_comp_channel cmd = { .size = sizeof(cmd) };
	struct ibv_comp_channel *channel;
	int err;

	channel = calloc(1, sizeof(*channel));
	if (!channel) {
		errno = ENOMEM;
		return NULL;
	}
	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_CREATE_COMP_CHANNEL,
			   &cmd)) {
		err = errno;
		free(channel);
		errno = err;
		return NULL;
	}
	channel->context = context;
	channel->fd = cmd.out_fd;
	channel->refcnt = 0;
	return channel;
}

RDMACHAN_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	RETURN_IF_BYPASS(ibv_create_comp_channel, context);
	return vb_create_comp_channel(context);
}

/* As libibverbs: EBUSY while CQs use the channel. */
int vb_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context = channel->context;

	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt) {
		pthread_mutex_unlock(&context->mutex);
		return EBUSY;
	}
	close(channel->fd);
	free(channel);
	pthread_mutex_unlock(&context->mutex);
	return 0;
}

RDMACHAN_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	RETURN_IF_BYPASS(ibv_destroy_comp_channel, channel);
	return vb_destroy_comp_channel(channel);
}

/*
 * Rings are opt-in (RDMACHAN_CQ_RING=1): over rxe a completion reaches the
 * ring only through the device's completion tasklet, which made ping-pong
 * latency worse than polling with an ioctl.
 */
static bool vb_cq_ring_wanted(void)
{
	const char *v = getenv("RDMACHAN_CQ_RING");

	return v && v[0] == '1';
}

struct ibv_cq *vb_create_cq(struct ibv_context *context, int cqe,
			    void *cq_context, struct ibv_comp_channel *channel,
			    int comp_vector)
{
	struct rdmachan_create_cq cmd = {
		.size = sizeof(cmd),
		.context = vb_ctx_handle(context),
		.cqe = (uint32_t)cqe,
		.comp_channel = channel ? channel->fd : RDMACHAN_NO_FD,
		.comp_vector = (uint32_t)comp_vector,
	};
	struct vb_cq *cq;
	int err;

	/* The kernel would take a negative size for a huge one. */
	if (cqe < 0 || comp_vector < 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.user_context = (uintptr_t)cq;
	/* Completion channels need solicited-only events: no ring for them. */
	if (!channel && vb_cq_ring_wanted() &&
	    rdmachan_has_features(RDMACHAN_FEATURE_CQ_RING))
		cmd.flags = RDMACHAN_CREATE_CQ_RING;
	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_CREATE_CQ, &cmd)) {
		err = errno;
		free(cq);
		errno = err;
		return NULL;
	}
	if (cmd.flags && vb_cq_ring_map(cq, context->cmd_fd, &cmd)) {
		err = errno;
		vb_destroy_handle(context, cmd.out_handle);
		free(cq);
		errno = err;
		return NULL;
	}
	cq->ibv.context = context;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	cq->ibv.handle = cmd.out_handle;
	cq->ibv.cqe = (int)cmd.out_cqe;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	pthread_mutex_init(&cq->ex_lock, NULL);
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	return &cq->ibv;
}

RDMACHAN_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context,
					     int cqe, void *cq_context,
					     struct ibv_comp_channel *channel,
					     int comp_vector)
{
	RETURN_IF_BYPASS(ibv_create_cq,
			 context, cqe, cq_context, channel, comp_vector);
	return vb_create_cq(context, cqe, cq_context, channel, comp_vector);
}

/* Acknowledge @num events of @cq in the kernel now. */
static int vb_send_acks(struct vb_cq *cq, unsigned int num)
{
	struct rdmachan_notify_cq cmd = {
		.size = sizeof(cmd),
		.cq = cq->ibv.handle,
		.num_acks = num,
	};

	if (!num)
		return 0;
	return rdmachan_ioctl(cq->ibv.context->cmd_fd,
			      RDMACHAN_IOC_ACK_CQ_EVENTS, &cmd);
}

/* Sends the CQ's pending acknowledgements now: the kernel's count is exact. */
int vb_cq_flush_acks(struct ibv_cq *ibcq)
{
	struct vb_cq *cq = to_vb_cq(ibcq);
	unsigned int num;
	int ret;

	pthread_mutex_lock(&ibcq->mutex);
	num = cq->acks_pending;
	cq->acks_pending = 0;
	ret = vb_send_acks(cq, num);
	if (ret)
		cq->acks_pending = num;
	pthread_mutex_unlock(&ibcq->mutex);
	return ret;
}

/* Acknowledgements the kernel did not take: keep them, or send them now. */
static void vb_keep_acks(struct vb_cq *cq, unsigned int num)
{
	int err = errno;

	pthread_mutex_lock(&cq->ibv.mutex);
	cq->acks_pending += num;
	if (cq->destroy_waiters) {
		num = cq->acks_pending;
		cq->acks_pending = 0;
		if (vb_send_acks(cq, num))
			cq->acks_pending = num;
	}
	pthread_mutex_unlock(&cq->ibv.mutex);
	errno = err;
}

/*
 * Waits in the kernel, killably, until every completion event taken for
 * the CQ is acknowledged. EBUSY, and the CQ stays, while QPs or SRQs use it.
 */
int vb_destroy_cq(struct ibv_cq *ibcq)
{
	struct ibv_comp_channel *channel = ibcq->channel;
	struct vb_cq *cq = to_vb_cq(ibcq);
	unsigned int num;
	int ret;

	pthread_mutex_lock(&ibcq->mutex);
	cq->destroy_waiters++;
	num = cq->acks_pending;
	cq->acks_pending = 0;
	pthread_mutex_unlock(&ibcq->mutex);
	if (vb_send_acks(cq, num)) {
		/* Not taken: they go again with whatever comes next. */
		pthread_mutex_lock(&ibcq->mutex);
		cq->acks_pending += num;
		pthread_mutex_unlock(&ibcq->mutex);
	}

	ret = vb_destroy_handle(ibcq->context, ibcq->handle);

	pthread_mutex_lock(&ibcq->mutex);
	cq->destroy_waiters--;
	pthread_mutex_unlock(&ibcq->mutex);
	if (ret)
		return ret;

	if (channel) {
		pthread_mutex_lock(&channel->context->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&channel->context->mutex);
	}
	vb_cq_ring_unmap(cq);
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	pthread_mutex_destroy(&cq->ex_lock);
	free(cq);
	return 0;
}

RDMACHAN_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	RETURN_IF_BYPASS(ibv_destroy_cq, cq);
	return vb_destroy_cq(cq);
}

RDMACHAN_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
				     struct ibv_cq **cq, void **cq_context)
{
	RETURN_IF_BYPASS(ibv_get_cq_event, channel, cq, cq_context);
	struct rdmachan_get_cq_event cmd = { .size = sizeof(cmd) };
	struct ibv_cq *ibcq;

	if (rdmachan_ioctl(channel->fd, RDMACHAN_IOC_GET_CQ_EVENT, &cmd))
		return -1;
	ibcq = (struct ibv_cq *)(uintptr_t)cmd.out_user_context;
	pthread_mutex_lock(&ibcq->mutex);
	to_vb_cq(ibcq)->events_taken++;
	pthread_mutex_unlock(&ibcq->mutex);
	*cq = ibcq;
	*cq_context = ibcq->cq_context;
	return 0;
}

/*
 * Counts as libibverbs does (comp_events_completed), and hands the kernel
 * no more acknowledgements than events were taken: too many would make it
 * refuse them all.
 */
RDMACHAN_EXPORT void ibv_ack_cq_events(struct ibv_cq *ibcq,
				       unsigned int nevents)
{
	RETURN_VOID_IF_BYPASS(ibv_ack_cq_events, ibcq, nevents);
	struct vb_cq *cq = to_vb_cq(ibcq);
	unsigned int unacked, num;

	pthread_mutex_lock(&ibcq->mutex);
	ibcq->comp_events_completed += nevents;
	unacked = cq->events_taken - cq->events_acked;
	if (nevents > unacked)
		nevents = unacked;
	cq->events_acked += nevents;
	cq->acks_pending += nevents;
	if (cq->destroy_waiters) {
		num = cq->acks_pending;
		cq->acks_pending = 0;
		if (vb_send_acks(cq, num))
			cq->acks_pending = num;
	}
	pthread_cond_broadcast(&ibcq->cond);
	pthread_mutex_unlock(&ibcq->mutex);
}

int vb_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct vb_cq *cq = to_vb_cq(ibcq);
	struct rdmachan_notify_cq cmd = {
		.size = sizeof(cmd),
		.flags = solicited_only ? RDMACHAN_NOTIFY_SOLICITED : 0,
		.cq = ibcq->handle,
	};
	int err;

	if (__atomic_load_n(&cq->acks_pending, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&ibcq->mutex);
		cmd.num_acks = cq->acks_pending;
		cq->acks_pending = 0;
		pthread_mutex_unlock(&ibcq->mutex);
	}
	if (!rdmachan_ioctl(ibcq->context->cmd_fd, RDMACHAN_IOC_REQ_NOTIFY_CQ,
			    &cmd))
		return 0;
	err = errno;
	/* The kernel checks everything before it takes acknowledgements. */
	if (cmd.num_acks)
		vb_keep_acks(cq, cmd.num_acks);
	errno = err;
	return err;
}

/* Never blocks; returns the number of completions, or -errno. */
int vb_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct rdmachan_poll_cq cmd = {
		.size = sizeof(cmd),
		.cq = cq->handle,
		.max_wc = (uint32_t)num_entries,
		.wcs = (uintptr_t)wc,
		.wc_size = sizeof(struct rdmachan_wc),
	};

	if (num_entries <= 0)
		return num_entries < 0 ? -EINVAL : 0;
	if (to_vb_cq(cq)->ring)
		return vb_cq_ring_poll(to_vb_cq(cq), num_entries, wc);
	if (rdmachan_ioctl(cq->context->cmd_fd, RDMACHAN_IOC_POLL_CQ, &cmd))
		return -errno;
	return (int)cmd.out_num_wc;
}
