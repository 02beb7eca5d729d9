// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' connections: the calls that make and end one (rbind, rlisten,
 * raccept, rconnect, rshutdown) and the names, each driven by the events
 * of the rsocket's own CM channel (taken by rsocket_cm.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket_dgram.h"

/* How long a close waits for its last messages to be acknowledged. */
#define RS_CLOSE_WAIT_MS	10000

/*
 * Waits, @rs locked, for its CM channel; rpoll() in another thread may
 * take in the event, and then wakes the wait. @flags: rs_poll_unlocked's.
 */
static int rs_wait_channel(struct rsock *rs, int timeout_ms,
			   unsigned int flags)
{
	struct pollfd pfd[2] = { { .fd = rs->fd, .events = POLLIN } };
	int ret;

	ret = rs_poll_unlocked(rs, pfd, 1, timeout_ms, flags);
	if (ret < 0)
		return -1;
	return ret ? 0 : rs_err(ETIMEDOUT);
}

/* The rsocket of a call naming an address, held and locked; NULL and errno. */
static struct rsock *rs_addr_call(int socket, const struct sockaddr *addr,
				  socklen_t addrlen)
{
	struct rsock *rs = rs_get(socket);

	if (!rs) {
		errno = EBADF;
		return NULL;
	}
	if (!addr || addrlen < sizeof(struct sockaddr_in) ||
	    (addr->sa_family == AF_INET6 &&
	     addrlen < sizeof(struct sockaddr_in6))) {
		rs_put(rs);
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&rs->lock);
	return rs;
}

RDMACHAN_EXPORT int rconnect(int socket, const struct sockaddr *addr,
			     socklen_t addrlen)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_addr_call(socket, addr, addrlen);
	int ret;

	if (!rs)
		return -1;
	if (rs->dg) {
		ret = rs_dg_connect(rs, addr, addrlen);
		goto out;
	}
	switch (rs->phase) {
	case RS_NEW:
	case RS_BOUND:
		if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr,
				      RS_RESOLVE_TIMEOUT_MS)) {
			ret = -1;
			goto out;
		}
		rs->phase = RS_RESOLVING_ADDR;
		/* as rdma-core's and TCP's: the outcome comes later */
		if (rs->nonblock) {
			ret = rs_err(EINPROGRESS);
			goto out;
		}
		break;
	case RS_RESOLVING_ADDR:
	case RS_RESOLVING_ROUTE:
	case RS_CONNECTING:
		if (rs->nonblock) {
			ret = rs_connect_step(rs);
			if (ret && errno == EINPROGRESS)
				errno = EALREADY;
			goto out;
		}
		break;
	case RS_CONNECTED:
	case RS_DISCONNECTED:
		ret = rs_err(EISCONN);
		goto out;
	default:
		ret = rs_err(rs->phase == RS_LISTENING ? EINVAL : ECONNABORTED);
		goto out;
	}
	for (;;) {
		ret = rs_connect_step(rs);
		if (!ret || errno != EINPROGRESS || rs->nonblock)
			break;
		if (rs_wait_channel(rs, -1, 0)) {
			ret = -1;
			break;
		}
	}
	if (ret && errno != EINPROGRESS)
		rs->so_error = 0;
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

RDMACHAN_EXPORT int rbind(int socket, const struct sockaddr *addr,
			  socklen_t addrlen)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_addr_call(socket, addr, addrlen);
	int ret;

	if (!rs)
		return -1;
	if (rs->dg) {
		ret = bind(rs->dg->udp, addr, addrlen);
	} else if (rs->phase != RS_NEW) {
		ret = rs_err(EINVAL);
	} else {
		ret = rdma_bind_addr(rs->id, (struct sockaddr *)addr);
		if (!ret)
			rs->phase = RS_BOUND;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

RDMACHAN_EXPORT int rlisten(int socket, int backlog)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_get(socket);
	int ret = 0;

	if (!rs)
		return rs_err(EBADF);
	/* as UDP's */
	if (rs->dg)
		return rs_err(EOPNOTSUPP);
	pthread_mutex_lock(&rs->lock);
	if (rs->phase == RS_BOUND || rs->phase == RS_NEW) {
		ret = rdma_listen(rs->id, backlog);
		if (!ret)
			rs->phase = RS_LISTENING;
	} else if (rs->phase != RS_LISTENING) {
		ret = rs_err(EINVAL);
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/*
 * Accepts the connect request @ev of listener @ls on a new rsocket with a
 * channel of its own, and waits for the connection to be established.
 */
static struct rsock *rs_accept_request(struct rsock *ls,
				       struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct rdma_conn_param param = ev->param.conn;
	struct rs_wire_conn req, rep;
	struct rdma_cm_event *est;
	struct rsock *rs;
	int err = EPROTO;

	if (!param.private_data || param.private_data_len < sizeof(req)) {
		rdma_ack_cm_event(ev);
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return NULL;
	}
	memcpy(&req, param.private_data, sizeof(req));
	rdma_ack_cm_event(ev);

	rs = rs_alloc(ls->domain, SOCK_STREAM, ls);
	if (!rs) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return NULL;
	}
	id->context = rs;
	if (rdma_migrate_id(id, rs->chan)) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		rs_put(rs);
		return NULL;
	}
	rs->id = id;
	pthread_mutex_lock(&rs->lock);
	if (rs_create_endpoint(rs) ||
	    rs_take_conn(rs, &req, sizeof(req))) {
		err = errno;
		goto reject;
	}
	rs_format_conn(rs, &rep);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	if (rdma_accept(id, &param)) {
		err = errno;
		goto reject;
	}
	/* As rdma-core's rsockets: an accepted rsocket is established. */
	for (;;) {
		if (!rdma_get_cm_event(rs->chan, &est)) {
			bool ok = est->event == RDMA_CM_EVENT_ESTABLISHED;

			err = rs_event_errno(est);
			rdma_ack_cm_event(est);
			if (!ok)
				goto drop;
			break;
		}
		/* not a cancellation point: @ls is locked too */
		if (errno != EAGAIN ||
		    rs_wait_channel(rs, RS_CLOSE_WAIT_MS,
				    RS_SLEEP_UNCANCELLABLE)) {
			err = errno;
			goto drop;
		}
	}
	rs->phase = RS_CONNECTED;
	pthread_mutex_unlock(&rs->lock);
	return rs;

reject:
	rdma_reject(id, NULL, 0);
drop:
	pthread_mutex_unlock(&rs->lock);
	rs_put(rs);
	errno = err;
	return NULL;
}

static void rs_copy_addr(struct sockaddr *to, socklen_t *to_len,
			 const struct sockaddr *from)
{
	socklen_t len = from->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	if (*to_len)
		memcpy(to, from, *to_len < len ? *to_len : len);
	*to_len = len;
}

RDMACHAN_EXPORT int raccept(int socket, struct sockaddr *addr,
			    socklen_t *addrlen)
{
	RS_CANCEL_OFF(true);
	struct rsock *ls RS_HELD = rs_get(socket);
	struct rsock *rs = NULL;
	struct rdma_cm_event *ev;
	int ret = -1;

	if (!ls)
		return rs_err(EBADF);
	if (ls->dg)
		return rs_err(EOPNOTSUPP);
	if (addr && !addrlen)
		return rs_err(EFAULT);
	pthread_mutex_lock(&ls->lock);
	if (ls->phase != RS_LISTENING) {
		pthread_mutex_unlock(&ls->lock);
		return rs_err(EINVAL);
	}
	while (!rs) {
		if (rdma_get_cm_event(ls->chan, &ev)) {
			if (errno != EAGAIN)
				break;
			if (ls->nonblock)
				break;
			if (rs_wait_channel(ls, -1, 0))
				break;
			continue;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			continue;
		}
		rs = rs_accept_request(ls, ev);
		/* a request that failed is dropped; a nonblocking caller hears of it */
		if (!rs && ls->nonblock) {
			errno = ECONNABORTED;
			break;
		}
	}
	pthread_mutex_unlock(&ls->lock);
	if (!rs)
		return -1;
	if (rs_add(rs)) {
		rs_put(rs);
		return -1;
	}
	ret = rs->fd;
	/* another thread may rclose() it from here: the reference holds it */
	if (ls->keepalive)
		rs_keepalive_add(rs);
	if (addr)
		rs_copy_addr(addr, addrlen, rdma_get_peer_addr(rs->id));
	rs_put(rs);
	return ret;
}

/*
 * Says goodbye the rsocket way (a DISCONNECT message, which the peer reads
 * as the end of the stream), lets the last writes land, then disconnects:
 * the kernel moves both ends' QPs to ERR. Called with @rs locked.
 */
int rs_disconnect(struct rsock *rs)
{
	rs->can_read = false;
	rs->can_write = false;
	if (rs->phase != RS_CONNECTED)
		return 0;
	/*
	 * The goodbye goes once the data has landed, so that a peer polling
	 * for it sees the data before the end, as with rdma-core's, which
	 * is slower to say goodbye.
	 */
	rs_wait_until(rs, rs_sends_done, RS_CLOSE_WAIT_MS);
	if (!rs->ctrl_free)
		rs_wait_until(rs, rs_ctrl_free, RS_CLOSE_WAIT_MS);
	if (rs->phase == RS_CONNECTED && rs->ctrl_free) {
		rs->ctrl_free--;
		if (rs_post_ctrl(rs, RS_MSG(RS_OP_CTRL, RS_CTRL_DISCONNECT)))
			rs->ctrl_free++;
	}
	rs_wait_until(rs, rs_sends_done, RS_CLOSE_WAIT_MS);
	rs->phase = RS_DISCONNECTED;
	rs->progress++;
	return rdma_disconnect(rs->id);
}

RDMACHAN_EXPORT int rshutdown(int socket, int how)
{
	RS_CANCEL_OFF(false);
	struct rsock *rs RS_HELD = rs_get(socket);
	int ret = 0;

	if (!rs)
		return rs_err(EBADF);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return rs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (rs->dg) {
		ret = rs_dg_shutdown(rs, how);
		goto out;
	}
	if (rs->phase == RS_DISCONNECTED) {
		rs->can_read = rs->can_read && how == SHUT_WR;
		rs->can_write = rs->can_write && how == SHUT_RD;
		goto out;
	}
	if (rs->phase != RS_CONNECTED) {
		ret = rs_err(ENOTCONN);
		goto out;
	}
	if (how != SHUT_WR)
		rs->can_read = false;
	if (how != SHUT_RD && rs->can_write) {
		rs->can_write = false;
		if (rs->can_read) {
			/* half close: the peer reads the end, we go on reading */
			if (!rs->ctrl_free)
				rs_wait_until(rs, rs_ctrl_free,
					      RS_CLOSE_WAIT_MS);
			if (rs->ctrl_free) {
				rs->ctrl_free--;
				ret = rs_post_ctrl(rs, RS_MSG(RS_OP_CTRL,
							      RS_CTRL_SHUTDOWN));
				/* not posted: no completion gives it back */
				if (ret)
					rs->ctrl_free++;
			}
		}
	}
	if (!rs->can_read && !rs->can_write)
		ret = rs_disconnect(rs);
	rs_tell_progress(rs);
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

static int rs_name(int socket, struct sockaddr *addr, socklen_t *addrlen,
		   bool peer)
{
	struct rsock *rs RS_HELD = rs_get(socket);
	struct sockaddr *sa;

	if (!rs)
		return rs_err(EBADF);
	/* a NULL address with no room asks only for the length */
	if (!addrlen || (!addr && *addrlen))
		return rs_err(EFAULT);
	if (rs->dg)
		return peer ? getpeername(rs->dg->udp, addr, addrlen) :
			      getsockname(rs->dg->udp, addr, addrlen);
	if (peer && rs->phase != RS_CONNECTED && rs->phase != RS_DISCONNECTED)
		return rs_err(ENOTCONN);
	sa = peer ? rdma_get_peer_addr(rs->id) : rdma_get_local_addr(rs->id);
	rs_copy_addr(addr, addrlen, sa);
	return 0;
}

RDMACHAN_EXPORT int rgetpeername(int socket, struct sockaddr *addr,
				 socklen_t *addrlen)
{
	RS_CANCEL_OFF(true);
	return rs_name(socket, addr, addrlen, true);
}

RDMACHAN_EXPORT int rgetsockname(int socket, struct sockaddr *addr,
				 socklen_t *addrlen)
{
	RS_CANCEL_OFF(true);
	return rs_name(socket, addr, addrlen, false);
}
