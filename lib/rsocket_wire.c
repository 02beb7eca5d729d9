// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' engine: posting the protocol's writes, taking completions,
 * granting credits and receive space to the peer, and waiting for any of
 * it on the rsocket's completion and CM channels.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "rsocket.h"

/* Completion events acknowledged in batches, as ibv_ack_cq_events allows. */
#define RS_CQ_EVENT_BATCH	64

static void rs_connection_lost(struct rsock *rs)
{
	if (rs->phase == RS_CONNECTED)
		rs->phase = RS_DISCONNECTED;
}

/*
 * Posts @write (NULL for none) and, with @with_msg, iWARP's message send
 * of @msg behind it: 0, or -1 with errno.
 */
static int rs_post(struct rsock *rs, struct ibv_send_wr *write, uint32_t msg,
		   bool with_msg)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&msg, .length = RS_MSG_SIZE,
	};
	struct ibv_send_wr send = {
		.wr_id = msg | RS_WR_MSG, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE,
	}, *bad;
	int err;

	if (write && with_msg)
		write->next = &send;
	rs->last_send_ms = 0;
	/* ibv_post_send() returns its errno; errno itself may be stale */
	err = ibv_post_send(rs->id->qp, write ? write : &send, &bad);
	if (!err)
		return 0;
	/*
	 * The write went without the message that tells of it: the peer
	 * cannot know of the data, and the queue's count is off by one.
	 */
	if (write && bad == &send)
		rs_connection_lost(rs);
	return rs_err(err > 0 ? err : EIO);
}

/*
 * An RDMA write of @sgl to @addr/@rkey; with @with_imm, @msg tells the
 * peer of it: the write's immediate, or on iWARP a message send behind
 * it, which takes a second send queue entry (a control slot for credits).
 */
int rs_post_write(struct rsock *rs, struct ibv_sge *sgl, int nsge,
		  uint32_t msg, bool with_imm, uint64_t addr, uint32_t rkey)
{
	struct ibv_send_wr wr;
	uint32_t len = 0;
	int i;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = msg;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	wr.opcode = with_imm && !rs->msg_send ? IBV_WR_RDMA_WRITE_WITH_IMM :
						 IBV_WR_RDMA_WRITE;
	wr.imm_data = htobe32(msg);
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	for (i = 0; i < nsge; i++) {
		len += sgl[i].length;
		if (sgl[i].lkey == rs->smr->lkey)
			wr.wr_id |= RS_WR_SBUF;
	}
	if (len && len <= rs->inline_size && !(wr.wr_id & RS_WR_SBUF))
		wr.send_flags = IBV_SEND_INLINE;
	return rs_post(rs, &wr, msg, with_imm && rs->msg_send);
}

/*
 * A message alone: a write of nothing with the message as its immediate,
 * or on iWARP the message's send.
 */
int rs_post_ctrl(struct rsock *rs, uint32_t msg)
{
	if (rs->msg_send)
		return rs_post(rs, NULL, msg, true);
	return rs_post_write(rs, NULL, 0, msg, true, rs->remote_sgl.addr,
			     rs->remote_sgl.key);
}

/*
 * Grants the peer more messages (credits) once half of the receive queue
 * has been read, and the next half of the receive buffer once it is free,
 * by writing its address into the peer's target SGL.
 */
void rs_update_credits(struct rsock *rs)
{
	uint32_t half = rs->rbuf_size / 2;
	struct rs_wire_sge sge;
	struct ibv_sge isge;
	bool publish;
	uint32_t msg;

	if (rs->phase != RS_CONNECTED || !rs->ctrl_free)
		return;
	publish = rs->rbuf_unpublished >= half;
	if (!publish && (int16_t)(rs->rseq_no - rs->rseq_grant_at) < 0)
		return;
	/* on iWARP a write and its message: a control slot each */
	if (publish && rs->ctrl_free < rs_message_entries(rs))
		return;
	rs->ctrl_free--;
	rs->rseq_grant_at = (uint16_t)(rs->rseq_no + rs->rq_size / 2);
	msg = RS_MSG(RS_OP_CREDITS, (uint16_t)(rs->rseq_no + rs->rq_size));
	if (!publish) {
		/* not posted: no completion gives the slot back */
		if (rs_post_ctrl(rs, msg))
			rs->ctrl_free++;
		return;
	}
	sge.addr = (uintptr_t)(rs->rbuf + rs->rbuf_publish_at);
	sge.key = rs->rmr->rkey;
	sge.length = half;
	if (rs->swap) {
		sge.addr = __builtin_bswap64(sge.addr);
		sge.key = __builtin_bswap32(sge.key);
		sge.length = __builtin_bswap32(sge.length);
	}
	isge.length = sizeof(sge);
	if (rs->inline_size >= sizeof(sge)) {
		isge.addr = (uintptr_t)&sge;
		isge.lkey = 0;
	} else {
		/* the slot after the send buffer this message may use */
		uint8_t *slot = rs->sbuf + rs->sbuf_size +
				sizeof(sge) * (rs->ctrl_seq++ % RS_CTRL_SLOTS);

		memcpy(slot, &sge, sizeof(sge));
		isge.addr = (uintptr_t)slot;
		isge.lkey = rs->smr->lkey;
	}
	/* iWARP's message behind the write */
	if (rs->msg_send)
		rs->ctrl_free--;
	/* not posted: the slots back, and the half is published next time */
	if (rs_post_write(rs, &isge, 1, msg, true,
			  rs->remote_sgl.addr + rs->remote_sgl_idx * sizeof(sge),
			  rs->remote_sgl.key)) {
		rs->ctrl_free += rs_message_entries(rs);
		return;
	}
	rs->rbuf_unpublished -= half;
	rs->rbuf_publish_at = (rs->rbuf_publish_at + half) % rs->rbuf_size;
	rs->remote_sgl_idx = (rs->remote_sgl_idx + 1) % rs->remote_sgl.length;
}

static void rs_take_message(struct rsock *rs, uint32_t msg)
{
	unsigned int next;

	switch (RS_MSG_OP(msg)) {
	case RS_OP_DATA:
		next = (rs->rmsg_tail + 1) % (rs->rq_size + 1);
		/*
		 * More messages than credits given, or more data than the half
		 * of the buffer it was written into: the peer broke the
		 * protocol, and its lengths cannot be trusted to read by.
		 */
		if (next == rs->rmsg_head ||
		    RS_MSG_VALUE(msg) > rs->rbuf_size / 2) {
			rs_connection_lost(rs);
			break;
		}
		rs->rmsg[rs->rmsg_tail] = RS_MSG_VALUE(msg);
		rs->rmsg_tail = next;
		break;
	case RS_OP_CREDITS:
		rs->sseq_comp = (uint16_t)RS_MSG_VALUE(msg);
		break;
	case RS_OP_CTRL:
		if (RS_MSG_VALUE(msg) == RS_CTRL_DISCONNECT) {
			rs_connection_lost(rs);
		} else if (RS_MSG_VALUE(msg) == RS_CTRL_SHUTDOWN) {
			/* the peer writes no more: our reads end after its data */
			rs->can_read = false;
			if (!rs->can_write)
				rs_connection_lost(rs);
		}
		break;
	default:
		/* an iomap update is read from the target iomap when used */
		break;
	}
}

static void rs_take_send_completion(struct rsock *rs, const struct ibv_wc *wc)
{
	uint32_t msg = (uint32_t)wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS)
		rs_connection_lost(rs);
	/* iWARP's message after a write: its queue entry, no buffer */
	if (wc->wr_id & RS_WR_MSG) {
		if (RS_MSG_OP(msg) == RS_OP_CREDITS || RS_MSG_OP(msg) == RS_OP_CTRL)
			rs->ctrl_free++;
		else
			rs->sqe_free++;
		return;
	}
	switch (RS_MSG_OP(msg)) {
	case RS_OP_CREDITS:
	case RS_OP_CTRL:
		rs->ctrl_free++;
		break;
	case RS_OP_IOMAP:
		rs->sqe_free++;
		if (wc->wr_id & RS_WR_SBUF)
			rs->sbuf_free += sizeof(struct rs_wire_iomap);
		break;
	default:
		rs->sqe_free++;
		if (wc->wr_id & RS_WR_SBUF)
			rs->sbuf_free += RS_MSG_VALUE(msg);
		break;
	}
}

/* The message a successful receive brought, if any: true and *@msg. */
static bool rs_received_message(struct rsock *rs, const struct ibv_wc *wc,
				uint32_t *msg)
{
	const uint32_t *slots = (const uint32_t *)(rs->rbuf + rs->rbuf_size);

	if (wc->wc_flags & IBV_WC_WITH_IMM) {
		*msg = be32toh(wc->imm_data);
		return true;
	}
	if (!rs->msg_send || wc->byte_len != RS_MSG_SIZE)
		return false;
	/* in the sender's byte order, as rdma-core's */
	*msg = slots[(uint32_t)wc->wr_id % rs->rq_size];
	if (rs->swap)
		*msg = __builtin_bswap32(*msg);
	return true;
}

/* Takes every completion there is, and reposts the receives it used. */
void rs_poll_completions(struct rsock *rs)
{
	unsigned int repost = 0;
	uint32_t msg;
	struct ibv_wc wc[16];
	int n, i;

	if (!rs->cq)
		return;
	while ((n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		rs->progress++;
		for (i = 0; i < n; i++) {
			if (!(wc[i].wr_id & RS_WR_RECV)) {
				rs_take_send_completion(rs, &wc[i]);
				continue;
			}
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* flushed: the QP is in ERR, the connection over */
				rs_connection_lost(rs);
				continue;
			}
			repost++;
			if (rs_received_message(rs, &wc[i], &msg))
				rs_take_message(rs, msg);
		}
	}
	/*
	 * A poll that failed may have taken completions it could not hand
	 * back (kernel-owned POLL_CQ loses them, as ib_uverbs' does): the
	 * stream's credits and sequence numbers cannot be trusted, and a
	 * waiter would sleep for events that never come.
	 */
	if (n < 0)
		rs_connection_lost(rs);
	while (rs->phase == RS_CONNECTED && repost--)
		if (rs_post_recv(rs))
			rs_connection_lost(rs);
}

bool rs_can_send(struct rsock *rs)
{
	return rs->phase == RS_CONNECTED && rs->can_write &&
	       rs->sqe_free >= rs_message_entries(rs) &&
	       rs->sbuf_free >= RS_SEND_LOWAT && rs->sseq_no != rs->sseq_comp &&
	       rs->target_sgl[rs->target_idx].length;
}

/* A send can go on, or will never: either way the sender stops waiting. */
bool rs_sendable(struct rsock *rs)
{
	return rs_can_send(rs) || rs->phase != RS_CONNECTED || !rs->can_write;
}

bool rs_readable_now(struct rsock *rs)
{
	return rs->rmsg_head != rs->rmsg_tail || !rs->can_read ||
	       rs->phase != RS_CONNECTED;
}

bool rs_ctrl_free(struct rsock *rs)
{
	return rs->ctrl_free || rs->phase != RS_CONNECTED;
}

bool rs_sends_done(struct rsock *rs)
{
	return (rs->ctrl_free == RS_CTRL_SLOTS &&
		rs->sqe_free == rs->sq_size - RS_CTRL_SLOTS) ||
	       rs->phase != RS_CONNECTED;
}

/* A completion event was read: the CQ needs arming again. */
void rs_count_cq_event(struct rsock *rs)
{
	rs->cq_armed = false;
	if (++rs->cq_events >= RS_CQ_EVENT_BATCH) {
		ibv_ack_cq_events(rs->cq, rs->cq_events);
		rs->cq_events = 0;
	}
}

/*
 * The event of an armed CQ whose channel poll(2) found readable, read by
 * rpoll() with @rs locked. The channel blocks (rs_wait reads it so), so it
 * is read only when no waiter will and it is still readable.
 */
void rs_take_cq_event(struct rsock *rs)
{
	struct pollfd pfd = { .fd = rs->comp->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (rs->waiting || poll(&pfd, 1, 0) != 1)
		return;
	if (!ibv_get_cq_event(rs->comp, &cq, &ctx)) {
		rs_count_cq_event(rs);
		rs_wake_sleepers(rs);
	}
}

static void rs_make_progress(struct rsock *rs)
{
	rs_poll_completions(rs);
	rs_take_cm_events(rs);
	rs_update_credits(rs);
}

static int rs_ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

/* Cleanup handler of the waiter cancelled in its read of the channel. */
static void rs_waiter_cancelled(void *arg)
{
	struct rsock *rs = arg;

	pthread_mutex_lock(&rs->lock);
	rs->waiting = false;
	/* the wait goes to another thread */
	rs_tell_progress(rs);
	pthread_mutex_unlock(&rs->lock);
}

/* The waiter's blocking read of @rs's completion channel, @rs unlocked. */
static int rs_read_cq_event(struct rsock *rs)
{
	bool cancellable;
	struct ibv_cq *cq;
	int ret, err;
	void *ctx;

	rs->waiting = true;
	pthread_mutex_unlock(&rs->lock);
	pthread_cleanup_push(rs_waiter_cancelled, rs);
	cancellable = rs_sleep_cancellable_begin();
	ret = 1;
	/*
	 * libibverbs' read of the channel is a cancellation point, the
	 * module's ioctl is not: in kernel-owned mode the sleep is a poll().
	 */
	if (cancellable && !lib_bypass()) {
		struct pollfd pfd = { .fd = rs->comp->fd, .events = POLLIN };

		ret = poll(&pfd, 1, -1);
	}
	if (ret > 0)
		ret = ibv_get_cq_event(rs->comp, &cq, &ctx) ? -1 : 1;
	err = errno;
	rs_sleep_cancellable_end(cancellable);
	pthread_cleanup_pop(0);
	pthread_mutex_lock(&rs->lock);
	rs->waiting = false;
	errno = err;
	return ret;
}

/*
 * Waits, with @rs unlocked, for its CQ (or, while connecting or with a
 * time limit, its CM channel) to have something new. A connection that
 * ends flushes the QP, so a connected rsocket needs only its CQ's event:
 * one blocking read. One thread waits; the others wait for its news, and
 * only the waiter reads the completion channel (see rs_take_cq_event).
 */
static int rs_wait(struct rsock *rs, int timeout_ms)
{
	bool connected = rs->phase == RS_CONNECTED || rs->phase == RS_DISCONNECTED;
	struct pollfd pfd[3];
	uint64_t before = rs->progress;
	struct ibv_cq *cq;
	int n = 0, ret, err;
	void *ctx;

	if (rs->waiting) {
		rs_wait_for_waiter(rs);
		return 0;
	}
	if (rs->cq && !rs->cq_armed) {
		ibv_req_notify_cq(rs->cq, 0);
		rs->cq_armed = true;
		/* what completed before the arming raises no event */
		rs_make_progress(rs);
		if (rs->progress != before)
			return 0;
	}
	if (connected && rs->comp && timeout_ms < 0) {
		ret = rs_read_cq_event(rs);
		n = 2;
		pfd[0].revents = 0;
		pfd[1].revents = ret > 0 ? POLLIN : 0;
	} else {
		pfd[n].fd = rs->fd;
		pfd[n++].events = POLLIN;
		if (rs->comp) {
			pfd[n].fd = rs->comp->fd;
			pfd[n++].events = POLLIN;
		}
		ret = rs_poll_unlocked(rs, pfd, n, timeout_ms, RS_SLEEP_WAITER);
		/* the waiter no more, but no one reads the channel under us */
		if (ret > 0 && n > 1 && (pfd[1].revents & POLLIN) &&
		    ibv_get_cq_event(rs->comp, &cq, &ctx))
			pfd[1].revents = 0;
	}
	err = errno;
	if (ret > 0 && (pfd[0].revents & POLLIN))
		rs->cm_pending = true;
	if (ret > 0 && n > 1 && (pfd[1].revents & POLLIN))
		rs_count_cq_event(rs);
	rs_make_progress(rs);
	rs_tell_progress(rs);
	/* a signal ends the wait with EINTR, as it does rdma-core's */
	if (ret < 0)
		return rs_err(err);
	return ret ? 0 : rs_err(ETIMEDOUT);
}

int rs_wait_until(struct rsock *rs, bool (*ready)(struct rsock *rs),
		  int timeout_ms)
{
	struct timespec deadline;
	uint64_t spin_end;

	rs_make_progress(rs);
	if (ready(rs))
		return 0;
	if (!timeout_ms)
		return rs_err(EAGAIN);
	/* the answer is often a few microseconds away: poll before sleeping */
	spin_end = rs_now_us() + RS_SPIN_US;
	do {
		rs_poll_completions(rs);
		rs_update_credits(rs);
		if (ready(rs))
			return 0;
	} while (rs_now_us() < spin_end);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	while (!ready(rs)) {
		int left = timeout_ms < 0 ? -1 : rs_ms_left(&deadline);

		if (!left)
			return rs_err(ETIMEDOUT);
		if (rs_wait(rs, left) && errno != ETIMEDOUT)
			return -1;
	}
	return 0;
}

int rs_wait_for(struct rsock *rs, bool (*ready)(struct rsock *rs),
		bool nonblock)
{
	return rs_wait_until(rs, ready, nonblock ? 0 : -1);
}
