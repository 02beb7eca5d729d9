// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the transfers of a stream rsocket share, its data (rsocket_data.c)
 * and its iomap writes (rsocket_iomap.c): a connect still under way,
 * waiting for room to send, the size of the next write, and staging its
 * data in the send buffer.
 */
#include <errno.h>

#include "internal.h"
#include "rsocket.h"

/* A nonblocking connect still under way is EAGAIN, as rdma-core's. */
int rs_ready_to_transfer(struct rsock *rs)
{
	if (rs->phase >= RS_RESOLVING_ADDR && rs->phase <= RS_CONNECTING) {
		if (rs_connect_step(rs))
			return errno == EINPROGRESS ? rs_err(EAGAIN) : -1;
	}
	if (rs->phase != RS_CONNECTED && rs->phase != RS_DISCONNECTED)
		return rs_err(ENOTCONN);
	return 0;
}

/*
 * Waits (or not) until a send can go: 0, or the errno that ends it
 * (ECONNRESET once the connection or our writing side is over).
 */
int rs_wait_to_send(struct rsock *rs, bool nonblock)
{
	if (!rs_can_send(rs) && rs_wait_for(rs, rs_sendable, nonblock))
		return errno;
	if (rs->phase != RS_CONNECTED || !rs->can_write)
		return ECONNRESET;
	return 0;
}

/*
 * The size of the next write of @left bytes: pieces that grow from 2 KB,
 * so that the first arrives soon and the later ones fill the pipe, and
 * that fit the send buffer.
 */
uint32_t rs_next_piece(struct rsock *rs, uint32_t *piece, size_t left)
{
	uint32_t len = left < *piece ? (uint32_t)left : *piece;

	if (*piece < RS_MAX_XFER)
		*piece <<= 1;
	return len < rs->sbuf_free ? len : rs->sbuf_free;
}

/*
 * Points @sgl at the next @len bytes of @it: in place when they are few
 * enough to go inline and lie in one iovec, else copied into the send
 * buffer's ring (two pieces where it wraps). Returns the number of pieces.
 */
int rs_stage(struct rsock *rs, struct rs_iter *it, uint32_t len,
	     struct ibv_sge *sgl)
{
	const void *flat = len <= rs->inline_size ? rs_iter_flat(it, len) : NULL;
	uint32_t first = rs->sbuf_size - rs->sbuf_head;

	if (flat) {
		sgl[0].addr = (uintptr_t)flat;
		sgl[0].length = len;
		sgl[0].lkey = 0;
		it->off += len;
		return 1;
	}
	if (first > len)
		first = len;
	sgl[0].addr = (uintptr_t)(rs->sbuf + rs->sbuf_head);
	sgl[0].length = first;
	sgl[0].lkey = rs->smr->lkey;
	rs_iter_copy(it, rs->sbuf + rs->sbuf_head, first, true);
	rs->sbuf_head = (rs->sbuf_head + len) % rs->sbuf_size;
	rs->sbuf_free -= len;
	if (first == len)
		return 1;
	sgl[1].addr = (uintptr_t)rs->sbuf;
	sgl[1].length = len - first;
	sgl[1].lkey = rs->smr->lkey;
	rs_iter_copy(it, rs->sbuf, len - first, true);
	return 2;
}
