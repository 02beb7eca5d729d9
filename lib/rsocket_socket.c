// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsocket() and rclose(): the calls that make an rsocket and its
 * descriptor, and that end both. They stand above every other rsocket
 * file: a close ends the connection, the keepalive and the datagrams.
 */
#include <errno.h>
#include <fcntl.h>

#include "internal.h"
#include "rsocket_dgram.h"

RDMACHAN_EXPORT int rsocket(int domain, int type, int protocol)
{
	RS_CANCEL_OFF(true);
	int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rsock *rs;
	int fd;

	/* EOPNOTSUPP for all of them, as rdma-core's rsocket() */
	if ((domain != AF_INET && domain != AF_INET6) ||
	    (kind == SOCK_STREAM && protocol && protocol != IPPROTO_TCP) ||
	    (kind == SOCK_DGRAM && protocol && protocol != IPPROTO_UDP) ||
	    (kind != SOCK_STREAM && kind != SOCK_DGRAM))
		return rs_err(EOPNOTSUPP);

	rs = rs_alloc(domain, kind, NULL);
	if (!rs)
		return -1;
	if (!rs->dg && rdma_create_id(rs->chan, &rs->id, rs, RDMA_PS_TCP))
		goto err;
	if (type & SOCK_NONBLOCK)
		rs->nonblock = true;
	if (type & SOCK_CLOEXEC)
		fcntl(rs->fd, F_SETFD, FD_CLOEXEC);
	if (rs_add(rs))
		goto err;
	fd = rs->fd;
	rs_put(rs);
	return fd;

err:
	rs_put(rs);
	return -1;
}

RDMACHAN_EXPORT int rclose(int socket)
{
	RS_CANCEL_OFF(false);
	/*
	 * The descriptor is gone at once; the rsocket (and the descriptor's
	 * number) stays until the calls of other threads using it return.
	 */
	struct rsock *rs = rs_take(socket);

	if (!rs)
		return rs_err(EBADF);
	rs_keepalive_end(rs);
	pthread_mutex_lock(&rs->lock);
	if (rs->dg)
		rs_dg_drain(rs);
	else if (rs->phase == RS_CONNECTED)
		rs_disconnect(rs);
	rs_tell_progress(rs);
	pthread_mutex_unlock(&rs->lock);
	rs_put(rs);
	return 0;
}
