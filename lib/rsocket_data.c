// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' stream data: rsend/rrecv and their iovec, msghdr and
 * read/write forms. Data is written into the peer's receive buffer with
 * RDMA writes, each announced by an immediate; reads copy it out of ours.
 */
#include <errno.h>
#include <sys/uio.h>

#include "internal.h"
#include "rsocket_dgram.h"

/* Writes the next @len bytes of @it to the peer, as one data message. */
static int rs_write_data(struct rsock *rs, struct rs_iter *it, uint32_t len)
{
	volatile struct rs_wire_sge *target = &rs->target_sgl[rs->target_idx];
	uint64_t addr = target->addr;
	uint32_t key = target->key;
	struct ibv_sge sgl[2];
	int nsge = rs_stage(rs, it, len, sgl);

	rs->sseq_no++;
	rs->sqe_free -= rs_message_entries(rs);
	target->addr = addr + len;
	target->length -= len;
	if (!target->length)
		rs->target_idx = (rs->target_idx + 1) % RS_TARGET_SGES;
	return rs_post_write(rs, sgl, nsge, RS_MSG(RS_OP_DATA, len), true,
			     addr, key);
}

/*
 * The rsocket of a call on @iov, held, and the bytes it holds; NULL and
 * errno.
 */
static struct rsock *rs_iov_call(int socket, const struct iovec *iov,
				 int iovcnt, size_t *total)
{
	struct rsock *rs = rs_get(socket);
	int err = EINVAL;

	if (!rs) {
		errno = EBADF;
		return NULL;
	}
	if (iovcnt >= 0 && (!iovcnt || iov)) {
		err = 0;
		*total = rs_iov_total(iov, iovcnt, &err);
	}
	if (err) {
		rs_put(rs);
		errno = err;
		return NULL;
	}
	return rs;
}

static ssize_t rs_sendv(int socket, const struct iovec *iov, int iovcnt,
			int flags, const struct sockaddr *to, socklen_t tolen)
{
	struct rs_iter it = { .iov = iov, .cnt = iovcnt };
	uint32_t piece = RS_FIRST_XFER;
	size_t total, left;
	struct rsock *rs RS_HELD;
	bool nonblock;
	int err = 0;

	rs = rs_iov_call(socket, iov, iovcnt, &total);
	if (!rs)
		return -1;
	pthread_mutex_lock(&rs->lock);
	if (rs->dg) {
		ssize_t ret = rs_dg_sendv(rs, iov, iovcnt, total, flags, to,
					  tolen);

		pthread_mutex_unlock(&rs->lock);
		return ret;
	}
	nonblock = rs->nonblock || (flags & MSG_DONTWAIT);
	if (rs_ready_to_transfer(rs)) {
		err = errno;
		goto out;
	}
	if (rs_publish_iomaps(rs, nonblock)) {
		err = errno;
		goto out;
	}
	for (left = total; left;) {
		uint32_t len;

		err = rs_wait_to_send(rs, nonblock);
		if (err)
			break;
		len = rs_next_piece(rs, &piece, left);
		if (len > rs->target_sgl[rs->target_idx].length)
			len = rs->target_sgl[rs->target_idx].length;
		if (rs_write_data(rs, &it, len)) {
			err = errno;
			rs->phase = RS_DISCONNECTED;
			break;
		}
		left -= len;
	}
	total -= left;
out:
	pthread_mutex_unlock(&rs->lock);
	if (!total && err)
		return rs_err(err);
	return (ssize_t)total;
}

/* Copies out what has arrived, up to @want bytes; @peek leaves it there. */
static size_t rs_copy_out(struct rsock *rs, struct rs_iter *it, size_t want,
			  bool peek)
{
	unsigned int head = rs->rmsg_head;
	uint32_t offset = rs->rbuf_read;
	size_t done = 0;

	while (done < want && head != rs->rmsg_tail) {
		uint32_t len = rs->rmsg[head];
		uint32_t n = want - done < len ? (uint32_t)(want - done) : len;
		uint32_t first = rs->rbuf_size - offset;

		if (first > n)
			first = n;
		rs_iter_copy(it, rs->rbuf + offset, first, false);
		if (first < n)
			rs_iter_copy(it, rs->rbuf, n - first, false);
		offset = (offset + n) % rs->rbuf_size;
		done += n;
		if (n < len) {
			if (peek)
				break;
			rs->rmsg[head] -= n;
			continue;
		}
		head = (head + 1) % (rs->rq_size + 1);
		if (!peek)
			rs->rseq_no++;
	}
	if (!peek) {
		rs->rmsg_head = head;
		rs->rbuf_read = offset;
		rs->rbuf_unpublished += done;
	}
	return done;
}

/* @msg_flags: rrecvmsg()'s, told of a datagram that did not fit */
static ssize_t rs_recvv(int socket, const struct iovec *iov, int iovcnt,
			int flags, struct sockaddr *from, socklen_t *fromlen,
			int *msg_flags)
{
	struct rs_iter it = { .iov = iov, .cnt = iovcnt };
	size_t total, done = 0;
	struct rsock *rs RS_HELD;
	bool nonblock;
	int err = 0;

	rs = rs_iov_call(socket, iov, iovcnt, &total);
	if (!rs)
		return -1;
	if (flags & ~(MSG_PEEK | MSG_WAITALL | MSG_DONTWAIT))
		return rs_err(EOPNOTSUPP);
	pthread_mutex_lock(&rs->lock);
	if (rs->dg) {
		ssize_t ret = rs_dg_recvv(rs, iov, iovcnt, total, flags, from,
					  fromlen, msg_flags);

		pthread_mutex_unlock(&rs->lock);
		return ret;
	}
	nonblock = rs->nonblock || (flags & MSG_DONTWAIT);
	if (rs_ready_to_transfer(rs)) {
		err = errno;
		goto out;
	}
	while (done < total) {
		if (rs_wait_for(rs, rs_readable_now, nonblock)) {
			err = errno;
			break;
		}
		if (rs->rmsg_head == rs->rmsg_tail)
			break;	/* the end of the stream */
		done += rs_copy_out(rs, &it, total - done, flags & MSG_PEEK);
		rs_update_credits(rs);
		if ((flags & MSG_PEEK) || !(flags & MSG_WAITALL))
			break;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	if (!done && err)
		return rs_err(err);
	return (ssize_t)done;
}

RDMACHAN_EXPORT ssize_t rsend(int socket, const void *buf, size_t len,
			      int flags)
{
	RS_CANCEL_OFF(true);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rs_sendv(socket, &iov, 1, flags, NULL, 0);
}

/* A stream rsocket ignores the address, as a connected TCP socket does. */
RDMACHAN_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len,
				int flags, const struct sockaddr *dest_addr,
				socklen_t addrlen)
{
	RS_CANCEL_OFF(true);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rs_sendv(socket, &iov, 1, flags, dest_addr, addrlen);
}

RDMACHAN_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg,
				 int flags)
{
	RS_CANCEL_OFF(true);
	if (!msg)
		return rs_err(EFAULT);
	return rs_sendv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags,
			msg->msg_name, msg->msg_namelen);
}

RDMACHAN_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	RS_CANCEL_OFF(true);
	return rsend(socket, buf, count, 0);
}

RDMACHAN_EXPORT ssize_t rwritev(int socket, const struct iovec *iov,
				int iovcnt)
{
	RS_CANCEL_OFF(true);
	return rs_sendv(socket, iov, iovcnt, 0, NULL, 0);
}

RDMACHAN_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	RS_CANCEL_OFF(true);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rs_recvv(socket, &iov, 1, flags, NULL, NULL, NULL);
}

RDMACHAN_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len,
				  int flags, struct sockaddr *src_addr,
				  socklen_t *addrlen)
{
	RS_CANCEL_OFF(true);
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct rsock *rs RS_HELD = rs_get(socket);
	ssize_t ret;

	if (rs && rs->dg)
		return rs_recvv(socket, &iov, 1, flags, src_addr, addrlen,
				NULL);
	ret = rs_recvv(socket, &iov, 1, flags, NULL, NULL, NULL);
	if (ret >= 0 && src_addr && addrlen &&
	    rgetpeername(socket, src_addr, addrlen))
		return -1;
	return ret;
}

RDMACHAN_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	RS_CANCEL_OFF(true);
	if (!msg)
		return rs_err(EFAULT);
	msg->msg_flags = 0;
	return rs_recvv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags,
			msg->msg_name, msg->msg_name ? &msg->msg_namelen : NULL,
			&msg->msg_flags);
}

RDMACHAN_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	RS_CANCEL_OFF(true);
	return rrecv(socket, buf, count, 0);
}

RDMACHAN_EXPORT ssize_t rreadv(int socket, const struct iovec *iov,
			       int iovcnt)
{
	RS_CANCEL_OFF(true);
	return rs_recvv(socket, iov, iovcnt, 0, NULL, NULL, NULL);
}
