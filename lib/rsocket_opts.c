// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' options (rsetsockopt, rgetsockopt, rfcntl): the sizes of the
 * queues and buffers, settable until a connection or a QP makes them, the
 * socket's and TCP's flags, and SO_KEEPALIVE, which rsocket_keepalive.c
 * keeps. A datagram rsocket's options are its UDP socket's, but for sizes.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rsocket_dgram.h"

static int rs_int_opt(const void *optval, socklen_t optlen, int *value)
{
	if (!optval)
		return rs_err(EFAULT);
	if (optlen < sizeof(int))
		return rs_err(EINVAL);
	memcpy(value, optval, sizeof(int));
	return 0;
}

/* Queues and buffers are sized once, by the first connection or QP. */
static bool rs_sized(struct rsock *rs)
{
	return rs->cq || (rs->dg && rs->dg->sbuf);
}

static int rs_set_rdma_opt(struct rsock *rs, int optname, const void *optval,
			   socklen_t optlen, int value)
{
	if (rs_sized(rs))
		return rs_err(EINVAL);
	switch (optname) {
	case RDMA_SQSIZE:
		rs->sq_size = (uint32_t)value;
		return 0;
	case RDMA_RQSIZE:
		rs->rq_size = (uint32_t)value;
		return 0;
	case RDMA_INLINE:
		rs->inline_size = (uint32_t)value;
		return 0;
	case RDMA_IOMAPSIZE:
		rs->iomap_entries = value > 0 ? (uint32_t)value : 0;
		if (rs->iomap_entries > 128)
			rs->iomap_entries &= ~0xffu;
		if (rs->iomap_entries > (127u << 8))
			rs->iomap_entries = 127u << 8;
		return 0;
	case RDMA_ROUTE:
		free(rs->route);
		rs->route = malloc(optlen);
		if (!rs->route)
			return rs_err(ENOMEM);
		memcpy(rs->route, optval, optlen);
		rs->route_len = optlen;
		return 0;
	default:
		return rs_err(EOPNOTSUPP);
	}
}

RDMACHAN_EXPORT int rsetsockopt(int socket, int level, int optname,
				const void *optval, socklen_t optlen)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_get(socket);
	int value = 0, ret = 0;

	if (!rs)
		return rs_err(EBADF);
	if (!(level == SOL_RDMA && optname == RDMA_ROUTE) &&
	    rs_int_opt(optval, optlen, &value))
		return -1;
	if (level == SOL_RDMA && optname == RDMA_ROUTE && (!optval || !optlen))
		return rs_err(EINVAL);
	/* a datagram rsocket's options are its UDP socket's, but for sizes */
	if (rs->dg && level != SOL_RDMA) {
		if (setsockopt(rs->dg->udp, level, optname, optval, optlen))
			return -1;
		if (level != SOL_SOCKET ||
		    (optname != SO_RCVBUF && optname != SO_SNDBUF))
			return 0;
	}
	if (level == SOL_SOCKET && optname == SO_KEEPALIVE) {
		if (value)
			return rs_keepalive_add(rs);
		rs_keepalive_remove(rs);
		return 0;
	}
	pthread_mutex_lock(&rs->lock);
	switch (level) {
	case SOL_SOCKET:
		switch (optname) {
		case SO_REUSEADDR:
			rs->reuseaddr = value;
			ret = rdma_set_option(rs->id, RDMA_OPTION_ID,
					      RDMA_OPTION_ID_REUSEADDR,
					      &value, sizeof(value));
			/* as rdma-core's: too late once bound, and said nothing */
			if (ret && rs->phase != RS_NEW)
				ret = 0;
			break;
		case SO_RCVBUF:
			if (!rs_sized(rs) && value > 0)
				rs->rbuf_size = (uint32_t)value << 1;
			break;
		case SO_SNDBUF:
			if (!rs_sized(rs) && value > 0)
				rs->sbuf_size = (uint32_t)value << 1;
			if (rs->sbuf_size < RS_SEND_LOWAT * 2)
				rs->sbuf_size = RS_SEND_LOWAT * 2;
			break;
		case SO_KEEPALIVE:
			/* set below, outside the rsocket's lock */
			break;
		case SO_LINGER:
		case SO_OOBINLINE:
			break;
		default:
			ret = rs_err(EOPNOTSUPP);
		}
		break;
	case IPPROTO_TCP:
		switch (optname) {
		case TCP_NODELAY:
			rs->nodelay = value;
			break;
		case TCP_KEEPIDLE:
			if (value <= 0)
				ret = rs_err(EINVAL);
			else
				rs->keepidle = value;
			break;
		case TCP_KEEPCNT:
		case TCP_KEEPINTVL:
		case TCP_MAXSEG:
			/* RC retries and acknowledges by itself */
			break;
		default:
			ret = rs_err(EOPNOTSUPP);
		}
		break;
	case SOL_RDMA:
		ret = rs_set_rdma_opt(rs, optname, optval, optlen, value);
		break;
	default:
		ret = rs_err(EOPNOTSUPP);
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

static int rs_rdma_opt(struct rsock *rs, int optname)
{
	switch (optname) {
	case RDMA_SQSIZE:
		return (int)rs->sq_size;
	case RDMA_RQSIZE:
		return (int)rs->rq_size;
	case RDMA_INLINE:
		return (int)rs->inline_size;
	case RDMA_IOMAPSIZE:
		return (int)rs->iomap_entries;
	default:
		return -1;
	}
}

RDMACHAN_EXPORT int rgetsockopt(int socket, int level, int optname,
				void *optval, socklen_t *optlen)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_get(socket);
	int value = -1;

	if (!rs)
		return rs_err(EBADF);
	if (!optval || !optlen)
		return rs_err(EFAULT);
	if (*optlen < sizeof(int))
		return rs_err(EINVAL);
	if (rs->dg && level != SOL_RDMA &&
	    !(level == SOL_SOCKET && (optname == SO_RCVBUF ||
				      optname == SO_SNDBUF || optname == SO_TYPE)))
		return getsockopt(rs->dg->udp, level, optname, optval, optlen);
	pthread_mutex_lock(&rs->lock);
	if (level == SOL_SOCKET) {
		switch (optname) {
		case SO_REUSEADDR:
			value = rs->reuseaddr;
			break;
		case SO_KEEPALIVE:
			value = rs->keepalive;
			break;
		case SO_RCVBUF:
			value = (int)rs->rbuf_size;
			break;
		case SO_SNDBUF:
			value = (int)rs->sbuf_size;
			break;
		case SO_ERROR:
			if (rs->phase >= RS_RESOLVING_ADDR &&
			    rs->phase <= RS_CONNECTING)
				rs_connect_step(rs);
			value = rs->so_error;
			rs->so_error = 0;
			break;
		case SO_TYPE:
			value = rs->dg ? SOCK_DGRAM : SOCK_STREAM;
			break;
		}
	} else if (level == IPPROTO_TCP) {
		if (optname == TCP_NODELAY)
			value = rs->nodelay;
		else if (optname == TCP_KEEPIDLE)
			value = rs->keepidle;
	} else if (level == SOL_RDMA) {
		value = rs_rdma_opt(rs, optname);
	}
	pthread_mutex_unlock(&rs->lock);
	if (value < 0)
		return rs_err(EOPNOTSUPP);
	memcpy(optval, &value, sizeof(value));
	*optlen = sizeof(value);
	return 0;
}

RDMACHAN_EXPORT int rfcntl(int socket, int cmd, ...)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_get(socket);
	va_list ap;
	long arg;

	if (!rs)
		return rs_err(EBADF);
	switch (cmd) {
	case F_GETFL:
		return O_RDWR | (rs->nonblock ? O_NONBLOCK : 0);
	case F_SETFL:
		va_start(ap, cmd);
		arg = va_arg(ap, long);
		va_end(ap);
		pthread_mutex_lock(&rs->lock);
		rs->nonblock = arg & O_NONBLOCK;
		pthread_mutex_unlock(&rs->lock);
		return 0;
	case F_GETFD:
		return fcntl(socket, F_GETFD);
	case F_SETFD:
		va_start(ap, cmd);
		arg = va_arg(ap, long);
		va_end(ap);
		return fcntl(socket, F_SETFD, arg);
	default:
		return rs_err(EINVAL);
	}
}
