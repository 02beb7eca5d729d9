// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' descriptors: an rsocket is named by the descriptor of its CM
 * event channel, so its number can never be an ordinary descriptor's, and
 * rpoll()/rselect() can mix both. This file maps descriptors to rsockets,
 * makes and frees them (rsocket, rclose).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket_dgram.h"

#define RS_TABLE_PAGE_SHIFT	10
#define RS_TABLE_PAGE		(1u << RS_TABLE_PAGE_SHIFT)
#define RS_TABLE_PAGES		1024u

/* Two levels: descriptors up to 2^20, pages made on first use. */
static struct rsock **rs_table[RS_TABLE_PAGES];
static pthread_mutex_t rs_table_lock = PTHREAD_MUTEX_INITIALIZER;

int rs_err(int err)
{
	errno = err;
	return -1;
}

struct rsock *rs_get(int fd)
{
	struct rsock **page;

	if (fd < 0 || (unsigned int)fd >= RS_TABLE_PAGE * RS_TABLE_PAGES)
		return NULL;
	page = __atomic_load_n(&rs_table[fd >> RS_TABLE_PAGE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!page)
		return NULL;
	return __atomic_load_n(&page[fd & (RS_TABLE_PAGE - 1)],
			       __ATOMIC_ACQUIRE);
}

static int rs_table_set(int fd, struct rsock *rs)
{
	struct rsock **page;
	unsigned int p;

	if (fd < 0 || (unsigned int)fd >= RS_TABLE_PAGE * RS_TABLE_PAGES)
		return rs_err(EMFILE);
	p = (unsigned int)fd >> RS_TABLE_PAGE_SHIFT;
	pthread_mutex_lock(&rs_table_lock);
	page = rs_table[p];
	if (!page) {
		page = calloc(RS_TABLE_PAGE, sizeof(*page));
		if (!page) {
			pthread_mutex_unlock(&rs_table_lock);
			return rs_err(ENOMEM);
		}
		__atomic_store_n(&rs_table[p], page, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&page[fd & (RS_TABLE_PAGE - 1)], rs, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rs_table_lock);
	return 0;
}

void rs_set_fd_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	fcntl(fd, F_SETFL, flags);
}

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
	rs->domain = domain;
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

int rs_add(struct rsock *rs)
{
	return rs_table_set(rs->fd, rs);
}

/* Frees @rs and everything it holds; the caller took it out of the table. */
void rs_release(struct rsock *rs)
{
	rs_dg_free(rs);
	rs_destroy_endpoint(rs);
	if (rs->id)
		rdma_destroy_id(rs->id);
	if (rs->chan)
		rdma_destroy_event_channel(rs->chan);
	free(rs->route);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->progressed);
	free(rs);
}

RDMACHAN_EXPORT int rsocket(int domain, int type, int protocol)
{
	int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rsock *rs;

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
	return rs->fd;

err:
	{
		int err = errno;

		rs_release(rs);
		return rs_err(err);
	}
}

RDMACHAN_EXPORT int rclose(int socket)
{
	struct rsock *rs = rs_get(socket);

	if (!rs)
		return rs_err(EBADF);
	if (rs->keepalive)
		rs_keepalive_remove(rs);
	pthread_mutex_lock(&rs->lock);
	if (rs->dg)
		rs_dg_drain(rs);
	else if (rs->phase == RS_CONNECTED)
		rs_disconnect(rs);
	pthread_mutex_unlock(&rs->lock);
	rs_table_set(socket, NULL);
	rs_release(rs);
	return 0;
}
