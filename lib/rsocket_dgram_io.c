// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Datagram rsockets' data: sending over UD (or over UDP until the peer's
 * QP is known), the UDP side of the protocol (a datagram that comes over
 * UDP is answered with our QP number, so that the peer can switch to UD,
 * and tells us the peer's), receiving from both, waiting on both, and
 * draining the sends before a QP or an address handle goes. It stands on
 * the endpoints of rsocket_dgram.c, which call nothing here.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "internal.h"
#include "rsocket_dgram.h"

#define RS_DG_CLOSE_WAIT_MS	1000

static size_t rs_dg_max_data(const struct rs_dg_qp *qp)
{
	return RS_DG_SLOT - qp->hdr.length;
}

/* Sends @len bytes of @data to @dest over UDP, behind our QP's number. */
static ssize_t rs_dg_udp_send(struct rsock *rs, struct rs_dg_dest *dest,
			      uint8_t op, const void *data, size_t len,
			      bool nonblock)
{
	const struct rs_dg_qp *qp = dest->qp;
	struct rs_udp_wire_hdr hdr;
	struct iovec iov[2];
	struct msghdr msg;
	ssize_t ret;

	memset(&hdr, 0, sizeof(hdr));
	hdr.tag = htobe32(RS_UDP_TAG);
	hdr.version = qp->hdr.version;
	hdr.op = op;
	hdr.qpn = htobe32(qp->id->qp->qp_num & 0xffffff);
	if (qp->hdr.version == 4) {
		hdr.length = RS_UDP_HDR_V4;
		hdr.addr.ipv4 = qp->hdr.addr.ipv4;
	} else {
		hdr.length = RS_UDP_HDR_V6;
		memcpy(hdr.addr.ipv6, qp->hdr.addr.ipv6.addr, 16);
	}
	iov[0].iov_base = &hdr;
	iov[0].iov_len = hdr.length;
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = &dest->addr;
	msg.msg_namelen = dest->addrlen;
	msg.msg_iov = iov;
	msg.msg_iovlen = len ? 2 : 1;
	ret = sendmsg(rs->dg->udp, &msg, nonblock ? MSG_DONTWAIT : 0);
	return ret < 0 ? -1 : (ssize_t)len;
}

static bool rs_dg_udp_valid(const struct rs_udp_wire_hdr *hdr, ssize_t len,
			    const struct sockaddr *from)
{
	if (len < (ssize_t)RS_UDP_HDR_V4 || hdr->tag != htobe32(RS_UDP_TAG))
		return false;
	if (hdr->version == 4)
		return (from->sa_family == AF_INET ||
			(from->sa_family == AF_INET6 &&
			 IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)
						from)->sin6_addr))) &&
		       hdr->length == RS_UDP_HDR_V4;
	return hdr->version == 6 && from->sa_family == AF_INET6 &&
	       hdr->length == RS_UDP_HDR_V6 && len >= (ssize_t)RS_UDP_HDR_V6;
}

static void rs_dg_queue_udp(struct rsock *rs, const struct sockaddr *from,
			    socklen_t fromlen, const uint8_t *data, size_t len)
{
	struct rs_dgram *dg = rs->dg;
	struct rs_dg_udp_msg *msg;

	/* a datagram may be dropped; a reader that does not read drops */
	if (!rs->can_read || dg->udp_queued >= rs->rq_size)
		return;
	msg = malloc(sizeof(*msg) + len);
	if (!msg)
		return;
	memcpy(&msg->from, from, fromlen);
	msg->fromlen = fromlen;
	msg->len = (uint32_t)len;
	memcpy(msg->data, data, len);
	msg->next = NULL;
	if (dg->udp_last)
		dg->udp_last->next = msg;
	else
		dg->udp_first = msg;
	dg->udp_last = msg;
	dg->udp_queued++;
}

/* The peer's QP is @qpn: the address handle to reach it, made once. */
static void rs_dg_learn_qpn(struct rsock *rs, struct rs_dg_dest *dest,
			    uint32_t qpn)
{
	if (dest->ah && dest->qpn == qpn)
		return;
	if (rs_now_us() < dest->resolve_after)
		return;
	/* a new QP at the same address: the old handle may be in use */
	if (dest->ah)
		rs_dg_drain(rs);
	/* a route that cannot be resolved now is not tried on every datagram */
	if (rs_dg_make_ah(dest, qpn))
		dest->resolve_after = rs_now_us() + RS_DG_RESOLVE_MS * 1000ull;
}

/*
 * Takes what came over UDP: answers data with our QP, learns the peer's.
 * At most a queue's worth a call, so that a flood cannot hold the caller.
 */
static void rs_dg_take_udp(struct rsock *rs)
{
	uint8_t buf[RS_UDP_HDR_V6 + RS_DG_SLOT];
	const struct rs_udp_wire_hdr *hdr = (const void *)buf;
	uint32_t n;

	for (n = 0; n < rs->rq_size; n++) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		struct rs_dg_dest *dest;
		uint32_t qpn;
		ssize_t len;

		len = recvfrom(rs->dg->udp, buf, sizeof(buf), MSG_DONTWAIT,
			       (struct sockaddr *)&from, &fromlen);
		if (len <= 0)
			break;
		if (!rs_dg_udp_valid(hdr, len, (struct sockaddr *)&from))
			continue;
		dest = rs_dg_dest_for(rs, (struct sockaddr *)&from, fromlen);
		if (!dest)
			continue;
		qpn = be32toh(hdr->qpn) & 0xffffff;
		if (hdr->op == RS_OP_DATA && rs->can_write)
			rs_dg_udp_send(rs, dest, RS_OP_CTRL, NULL, 0, true);
		rs_dg_learn_qpn(rs, dest, qpn);
		if (hdr->op == RS_OP_DATA &&
		    (size_t)(len - hdr->length) <= rs_dg_max_data(dest->qp))
			rs_dg_queue_udp(rs, (struct sockaddr *)&from, fromlen,
					buf + hdr->length,
					(size_t)(len - hdr->length));
	}
	/* what it took, the socket no longer wakes its sleepers with */
	if (n)
		rs_wake_sleepers(rs);
}

static bool rs_dg_recv_valid(const struct rs_dg_qp *qp, const struct ibv_wc *wc,
			     uint32_t offset)
{
	const struct rs_dg_wire_hdr *hdr = (const void *)(qp->rbuf + offset);

	if (wc->status != IBV_WC_SUCCESS ||
	    wc->byte_len < sizeof(struct ibv_grh) + RS_DG_HDR_V4)
		return false;
	return (hdr->version == 4 && hdr->length == RS_DG_HDR_V4) ||
	       (hdr->version == 6 && hdr->length == RS_DG_HDR_V6 &&
		wc->byte_len >= sizeof(struct ibv_grh) + RS_DG_HDR_V6);
}

static void rs_dg_resume_qp(struct rs_dg_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTS };

	ibv_modify_qp(qp->id->qp, &attr, IBV_QP_STATE);
}

static void rs_dg_poll_cq(struct rsock *rs, struct rs_dg_qp *qp)
{
	struct rs_dgram *dg = rs->dg;
	struct ibv_wc wc[8];
	int n, i;

	while ((n = ibv_poll_cq(qp->cq, 8, wc)) > 0) {
		for (i = 0; i < n; i++) {
			/* a send slot's index, or a receive slot's offset */
			uint32_t offset = (uint32_t)wc[i].wr_id;
			unsigned int next = (dg->tail + 1) % (rs->rq_size + 1);

			if (!(wc[i].wr_id & RS_WR_RECV)) {
				dg->free_slots[dg->nfree++] = offset;
				/* a failed send leaves a UD QP in SQE */
				if (wc[i].status != IBV_WC_SUCCESS)
					rs_dg_resume_qp(qp);
				continue;
			}
			/* no room, or not ours: the datagram is dropped */
			if (next == dg->head || !rs->can_read ||
			    !rs_dg_recv_valid(qp, &wc[i], offset)) {
				rs_dg_post_recv(rs, qp, offset);
				continue;
			}
			dg->ring[dg->tail].qp = qp;
			dg->ring[dg->tail].offset = offset;
			dg->ring[dg->tail].len = wc[i].byte_len -
						 (uint32_t)sizeof(struct ibv_grh);
			dg->tail = next;
		}
	}
}

void rs_dg_progress(struct rsock *rs, bool udp_too)
{
	struct rs_dg_qp *qp;

	if (udp_too)
		rs_dg_take_udp(rs);
	for (qp = rs->dg->qps; qp; qp = qp->next)
		rs_dg_poll_cq(rs, qp);
}

static bool rs_dg_sends_done(struct rsock *rs)
{
	return !rs->dg->sbuf || rs->dg->nfree == rs->sq_size;
}

/* What was posted leaves before its QP goes; called by rclose, locked. */
void rs_dg_drain(struct rsock *rs)
{
	uint64_t deadline = rs_now_us() + RS_DG_CLOSE_WAIT_MS * 1000ull;

	while (!rs_dg_sends_done(rs) && rs_now_us() < deadline)
		rs_dg_progress(rs, false);
}

bool rs_dg_readable(struct rsock *rs)
{
	return rs->dg->head != rs->dg->tail || rs->dg->udp_first ||
	       !rs->can_read;
}

bool rs_dg_writable(struct rsock *rs)
{
	return !rs->dg->sbuf || rs->dg->nfree || !rs->can_write;
}

/* Takes the CQs' events (nonblocking channels) and arms them again. */
void rs_dg_take_cq_events(struct rsock *rs)
{
	struct rs_dg_qp *qp;

	for (qp = rs->dg->qps; qp; qp = qp->next) {
		struct ibv_cq *cq;
		void *ctx;

		if (!ibv_get_cq_event(qp->comp, &cq, &ctx)) {
			/* the channel no longer wakes them */
			rs_wake_sleepers(rs);
			ibv_ack_cq_events(cq, 1);
			ibv_req_notify_cq(cq, 0);
		}
	}
}

/*
 * Waits, @rs locked, until @ready; the lock is dropped while sleeping. One
 * thread sleeps in poll() at a time and tells the others what it took in,
 * as a stream rsocket's waits do: an event one thread takes in is then
 * never news only to it. An rpoll() that takes in what it slept on (the
 * UDP socket's datagram, a CQ's event) wakes it through its eventfd.
 */
int rs_dg_wait(struct rsock *rs, bool (*ready)(struct rsock *rs),
	       bool nonblock)
{
	uint64_t spin_end = rs_now_us() + RS_SPIN_US;

	rs_dg_progress(rs, true);
	while (!ready(rs)) {
		struct pollfd pfd[2] = { { .fd = rs->dg->epfd,
					   .events = POLLIN } };
		int ret, err;

		if (nonblock)
			return rs_err(EAGAIN);
		if (rs_now_us() < spin_end) {
			rs_dg_progress(rs, false);
			continue;
		}
		if (rs->waiting) {
			rs_wait_for_waiter(rs);
			rs_dg_progress(rs, false);
			continue;
		}
		/* rpoll() in another thread may take in what wakes us */
		ret = rs_poll_unlocked(rs, pfd, 1, -1, RS_SLEEP_WAITER);
		err = errno;
		rs_dg_take_cq_events(rs);
		rs_dg_progress(rs, true);
		rs_tell_progress(rs);
		/* a signal ends the wait with EINTR, as it does rdma-core's */
		if (ret < 0 && !ready(rs))
			return rs_err(err);
	}
	return 0;
}

static int rs_dg_post_send(struct rsock *rs, struct rs_dg_dest *dest,
			   struct rs_iter *it, size_t len)
{
	struct rs_dgram *dg = rs->dg;
	struct rs_dg_qp *qp = dest->qp;
	uint32_t slot = dg->free_slots[--dg->nfree];
	uint8_t *msg = dg->sbuf + (size_t)slot * RS_DG_SLOT;
	struct ibv_sge sge = {
		.addr = (uintptr_t)msg,
		.length = (uint32_t)(qp->hdr.length + len),
		.lkey = qp->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *bad;
	int ret;

	memcpy(msg, &qp->hdr, qp->hdr.length);
	rs_iter_copy(it, msg + qp->hdr.length, len, true);
	if (sge.length <= qp->inline_size)
		wr.send_flags = IBV_SEND_INLINE;
	wr.wr.ud.ah = dest->ah;
	wr.wr.ud.remote_qpn = dest->qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	ret = ibv_post_send(qp->id->qp, &wr, &bad);
	if (ret) {
		dg->free_slots[dg->nfree++] = slot;
		return rs_err(ret);
	}
	return 0;
}

ssize_t rs_dg_sendv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		    size_t total, int flags, const struct sockaddr *to,
		    socklen_t tolen)
{
	struct rs_iter it = { .iov = iov, .cnt = iovcnt };
	bool nonblock = rs->nonblock || (flags & MSG_DONTWAIT);
	struct rs_dgram *dg = rs->dg;
	struct rs_dg_dest *dest = dg->conn_dest;

	if (flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL))
		return rs_err(EOPNOTSUPP);
	if (!rs->can_write)
		return rs_err(EPIPE);
	/* as sendmsg(2): an empty name is no name */
	if (to && !tolen)
		to = NULL;
	if (to && !(dest && dest->addrlen <= tolen &&
		    !memcmp(&dest->addr, to, dest->addrlen)))
		dest = rs_dg_dest_for(rs, to, tolen);
	else if (!to && !dest)
		return rs_err(EDESTADDRREQ);
	if (!dest)
		return -1;
	if (total > rs_dg_max_data(dest->qp))
		return rs_err(EMSGSIZE);
	/* the peer's answer to an earlier datagram may have come */
	if (!dest->ah)
		rs_dg_progress(rs, true);
	/* before that, and for what the path MTU cannot carry: UDP */
	if (!dest->ah || dest->qp->hdr.length + total > dest->ud_max) {
		uint8_t data[RS_DG_SLOT];

		rs_iter_copy(&it, data, total, true);
		return rs_dg_udp_send(rs, dest, RS_OP_DATA, data, total,
				      nonblock);
	}
	if (rs_dg_wait(rs, rs_dg_writable, nonblock))
		return -1;
	if (!rs->can_write)
		return rs_err(EPIPE);
	if (rs_dg_post_send(rs, dest, &it, total))
		return -1;
	return (ssize_t)total;
}

/* The sender of @hdr, an IPv4 one v4-mapped for an AF_INET6 rsocket. */
static void rs_dg_set_from(const struct rsock *rs,
			   const struct rs_dg_wire_hdr *hdr,
			   struct sockaddr_storage *from, socklen_t *fromlen)
{
	memset(from, 0, sizeof(*from));
	if (hdr->version == 4 && rs->domain == AF_INET6) {
		struct sockaddr_in6 *sin6 = (void *)from;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = hdr->port;
		sin6->sin6_addr.s6_addr[10] = 0xff;
		sin6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&sin6->sin6_addr.s6_addr[12], &hdr->addr.ipv4, 4);
		*fromlen = sizeof(*sin6);
	} else if (hdr->version == 4) {
		struct sockaddr_in *sin = (void *)from;

		sin->sin_family = AF_INET;
		sin->sin_port = hdr->port;
		sin->sin_addr.s_addr = hdr->addr.ipv4;
		*fromlen = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (void *)from;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = hdr->port;
		sin6->sin6_flowinfo = hdr->addr.ipv6.flowinfo;
		memcpy(&sin6->sin6_addr, hdr->addr.ipv6.addr, 16);
		*fromlen = sizeof(*sin6);
	}
}

/* The next datagram: copied out (the rest of it dropped), its sender. */
static size_t rs_dg_take(struct rsock *rs, struct rs_iter *it, size_t total,
			 bool peek, struct sockaddr_storage *from,
			 socklen_t *fromlen, size_t *whole)
{
	struct rs_dgram *dg = rs->dg;
	size_t len;

	if (dg->udp_first) {
		struct rs_dg_udp_msg *msg = dg->udp_first;

		*whole = msg->len;
		len = msg->len < total ? msg->len : total;
		rs_iter_copy(it, msg->data, len, false);
		memcpy(from, &msg->from, msg->fromlen);
		*fromlen = msg->fromlen;
		if (!peek) {
			dg->udp_first = msg->next;
			if (!dg->udp_first)
				dg->udp_last = NULL;
			dg->udp_queued--;
			free(msg);
		}
	} else {
		struct rs_dg_recv *r = &dg->ring[dg->head];
		uint8_t *slot = r->qp->rbuf + r->offset;
		const struct rs_dg_wire_hdr *hdr = (const void *)slot;

		len = r->len - hdr->length;
		*whole = len;
		if (len > total)
			len = total;
		rs_iter_copy(it, slot + hdr->length, len, false);
		rs_dg_set_from(rs, hdr, from, fromlen);
		if (!peek) {
			rs_dg_post_recv(rs, r->qp, r->offset);
			dg->head = (dg->head + 1) % (rs->rq_size + 1);
		}
	}
	return len;
}

ssize_t rs_dg_recvv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		    size_t total, int flags, struct sockaddr *from,
		    socklen_t *fromlen, int *msg_flags)
{
	struct rs_iter it = { .iov = iov, .cnt = iovcnt };
	bool nonblock = rs->nonblock || (flags & MSG_DONTWAIT);
	struct sockaddr_storage src;
	socklen_t srclen;
	size_t len, whole;

	if (flags & ~(MSG_PEEK | MSG_WAITALL | MSG_DONTWAIT))
		return rs_err(EOPNOTSUPP);
	if (from && !fromlen)
		return rs_err(EFAULT);
	if (rs_dg_wait(rs, rs_dg_readable, nonblock))
		return -1;
	if (!rs->can_read)
		return 0;
	len = rs_dg_take(rs, &it, total, flags & MSG_PEEK, &src, &srclen,
			 &whole);
	/* as a UDP socket's recvmsg(): the rest of the datagram was lost */
	if (msg_flags && whole > len)
		*msg_flags |= MSG_TRUNC;
	if (from) {
		memcpy(from, &src, *fromlen < srclen ? *fromlen : srclen);
		*fromlen = srclen;
	}
	return (ssize_t)len;
}

int rs_dg_shutdown(struct rsock *rs, int how)
{
	if (how != SHUT_WR && rs->can_read) {
		rs->can_read = false;
		/* a shut UDP socket reads as ready for ever: sleep without it */
		epoll_ctl(rs->dg->epfd, EPOLL_CTL_DEL, rs->dg->udp, NULL);
	}
	if (how != SHUT_RD)
		rs->can_write = false;
	/* wakes whoever sleeps on the UDP socket; unconnected, it says
	 * ENOTCONN but shuts it down all the same */
	shutdown(rs->dg->udp, how);
	rs_tell_progress(rs);
	return 0;
}
