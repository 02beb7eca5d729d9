// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An rsocket's state: made (by rsocket(), or by raccept() for an accepted
 * connection) with its CM event channel or, for a datagram rsocket, its
 * UDP socket, and freed with everything it holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket_dgram.h"

/*
 * A new rsocket: a stream with its own channel (an accepted one, of
 * listener @parent, inherits its sizes and options), or a datagram
 * rsocket with its UDP socket.
 */
struct rsock *rs_alloc(int domain, int type, struct rsock *parent)
{
	struct rsock *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->fd = -1;
	rs->spare_wake_fd = -1;
	rs->domain = domain;
	/* the caller's: rs_add() takes the table's, rs_put() drops this one */
	rs->refs = 1;
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->progressed, NULL);
	rs->can_read = true;
	rs->can_write = true;
	rs->cm_pending = true;
	if (parent) {
		rs->sq_size = parent->sq_size;
		rs->rq_size = parent->rq_size;
		rs->inline_size = parent->inline_size;
		rs->rbuf_size = parent->rbuf_size;
		rs->sbuf_size = parent->sbuf_size;
		rs->iomap_entries = parent->iomap_entries;
		rs->keepidle = parent->keepidle;
		rs->nodelay = parent->nodelay;
		rs->nonblock = parent->nonblock;
	} else {
		rs->sq_size = RS_DEFAULT_QUEUE;
		rs->rq_size = RS_DEFAULT_QUEUE;
		rs->inline_size = RS_DEFAULT_INLINE;
		rs->rbuf_size = RS_DEFAULT_BUF;
		rs->sbuf_size = RS_DEFAULT_BUF;
		rs->keepidle = 7200;
	}
	if (type == SOCK_DGRAM) {
		if (rs_dg_init(rs))
			goto err;
		return rs;
	}
	rs->chan = rdma_create_event_channel();
	if (!rs->chan)
		goto err;
	rs->fd = rs->chan->fd;
	/* events are taken without waiting; waits are rpoll()'s and ours */
	rs_set_fd_nonblock(rs->fd, true);
	return rs;

err:
	{
		int err = errno;

		rs_dg_free(rs);
		pthread_mutex_destroy(&rs->lock);
		pthread_cond_destroy(&rs->progressed);
		free(rs);
		errno = err;
	}
	return NULL;
}

/* Frees @rs and everything it holds, once no table or call refers to it. */
static void rs_release(struct rsock *rs)
{
	rs_dg_free(rs);
	rs_destroy_endpoint(rs);
	if (rs->id)
		rdma_destroy_id(rs->id);
	if (rs->chan)
		rdma_destroy_event_channel(rs->chan);
	free(rs->route);
	if (rs->spare_wake_fd >= 0)
		close(rs->spare_wake_fd);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->progressed);
	free(rs);
}

/* The last reference frees @rs; errno is the caller's answer, kept. */
void rs_put(struct rsock *rs)
{
	int err = errno;

	if (rs && !__atomic_sub_fetch(&rs->refs, 1, __ATOMIC_ACQ_REL)) {
		rs_release(rs);
		errno = err;
	}
}

void rs_put_held(struct rsock **rs)
{
	rs_put(*rs);
}
