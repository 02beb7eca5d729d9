// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' connections: the endpoint (CQ, QP, the registered buffers),
 * the connect data both ends exchange, and the calls that make and end a
 * connection (rbind, rlisten, raccept, rconnect, rshutdown), each driven
 * by the events of the rsocket's own CM channel.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket.h"

#define RS_RESOLVE_TIMEOUT_MS	2000
/* How long a close waits for its last messages to be acknowledged. */
#define RS_CLOSE_WAIT_MS	10000

static uint8_t rs_iomap_to_scale(uint32_t entries)
{
	return entries <= 128 ? entries : 128 | (entries >> 8);
}

static uint32_t rs_scale_to_iomap(uint8_t scale)
{
	return scale <= 128 ? scale : (uint32_t)(scale & 127) << 8;
}

static uint32_t rs_clamp_queue(uint32_t want, uint32_t device_max)
{
	uint32_t max = device_max < RS_MAX_QUEUE ? device_max : RS_MAX_QUEUE;

	if (want > max)
		return max;
	return want < RS_MIN_QUEUE ? RS_MIN_QUEUE : want;
}

static int rs_post_recv(struct rsock *rs)
{
	struct ibv_recv_wr wr = { .wr_id = RS_WR_RECV }, *bad;

	return ibv_post_recv(rs->id->qp, &wr, &bad);
}

static int rs_alloc_buffers(struct rsock *rs)
{
	size_t tlen = sizeof(struct rs_wire_sge) * RS_TARGET_SGES +
		      sizeof(struct rs_wire_iomap) * rs->iomap_entries;
	size_t slen = rs->sbuf_size + sizeof(struct rs_wire_sge) * RS_CTRL_SLOTS;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_pd *pd = rs->id->pd;
	uint8_t *tbuf;

	rs->rmsg = calloc(rs->rq_size + 1, sizeof(*rs->rmsg));
	rs->sbuf = calloc(1, slen);
	rs->rbuf = calloc(1, rs->rbuf_size);
	tbuf = calloc(1, tlen);
	rs->target_sgl = (volatile struct rs_wire_sge *)tbuf;
	if (!rs->rmsg || !rs->sbuf || !rs->rbuf || !tbuf)
		return rs_err(ENOMEM);
	if (rs->iomap_entries)
		rs->target_iomap = (volatile struct rs_wire_iomap *)
				   (tbuf + sizeof(struct rs_wire_sge) * RS_TARGET_SGES);
	rs->smr = ibv_reg_mr(pd, rs->sbuf, slen, IBV_ACCESS_LOCAL_WRITE);
	if (!rs->smr)
		return -1;
	rs->rmr = ibv_reg_mr(pd, rs->rbuf, rs->rbuf_size, access);
	if (!rs->rmr)
		return -1;
	rs->tmr = ibv_reg_mr(pd, tbuf, tlen, access);
	if (!rs->tmr)
		return -1;

	rs->sbuf_free = rs->sbuf_size;
	rs->sqe_free = rs->sq_size - RS_CTRL_SLOTS;
	rs->ctrl_free = RS_CTRL_SLOTS;
	/* The first half is the peer's from the start; the second comes next. */
	rs->rbuf_publish_at = rs->rbuf_size / 2;
	rs->rbuf_unpublished = rs->rbuf_size / 2;
	rs->rseq_grant_at = rs->rq_size / 2;
	return 0;
}

/* The CQ, the RC QP and the buffers of a connection; the QP in INIT. */
static int rs_create_endpoint(struct rsock *rs)
{
	struct ibv_context *verbs = rs->id->verbs;
	struct ibv_qp_init_attr attr;
	struct ibv_device_attr dev;
	uint32_t i;

	if (!verbs || !rs->id->pd)
		return rs_err(ENODEV);
	/* iWARP has no RDMA write with immediate: rdma-core sends messages. */
	if (verbs->device->transport_type != IBV_TRANSPORT_IB)
		return rs_err(EOPNOTSUPP);
	if (ibv_query_device(verbs, &dev))
		return -1;
	rs->sq_size = rs_clamp_queue(rs->sq_size, (uint32_t)dev.max_qp_wr);
	rs->rq_size = rs_clamp_queue(rs->rq_size, (uint32_t)dev.max_qp_wr);

	rs->comp = ibv_create_comp_channel(verbs);
	if (!rs->comp)
		return -1;
	rs->cq = ibv_create_cq(verbs, (int)(rs->sq_size + rs->rq_size), rs,
			       rs->comp, 0);
	if (!rs->cq)
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.qp_context = rs;
	attr.send_cq = rs->cq;
	attr.recv_cq = rs->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = rs->sq_size;
	attr.cap.max_recv_wr = rs->rq_size;
	attr.cap.max_send_sge = 2;
	attr.cap.max_recv_sge = 1;
	attr.cap.max_inline_data = rs->inline_size;
	if (rdma_create_qp(rs->id, NULL, &attr))
		return -1;
	rs->inline_size = attr.cap.max_inline_data;

	if (rs_alloc_buffers(rs))
		return -1;
	for (i = 0; i < rs->rq_size; i++)
		if (rs_post_recv(rs))
			return -1;
	return 0;
}

void rs_destroy_endpoint(struct rsock *rs)
{
	rs_free_iomaps(rs);
	if (rs->id && rs->id->qp)
		rdma_destroy_qp(rs->id);
	if (rs->cq) {
		if (rs->cq_events)
			ibv_ack_cq_events(rs->cq, rs->cq_events);
		ibv_destroy_cq(rs->cq);
	}
	if (rs->comp)
		ibv_destroy_comp_channel(rs->comp);
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->tmr)
		ibv_dereg_mr(rs->tmr);
	free(rs->sbuf);
	free(rs->rbuf);
	free((void *)rs->target_sgl);
	free(rs->rmsg);
	rs->cq = NULL;
	rs->comp = NULL;
	rs->smr = rs->rmr = rs->tmr = NULL;
	rs->sbuf = rs->rbuf = NULL;
	rs->target_sgl = NULL;
	rs->target_iomap = NULL;
	rs->rmsg = NULL;
}

static void rs_format_conn(struct rsock *rs, struct rs_wire_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->version = RS_WIRE_VERSION;
	c->flags = RS_WIRE_HAS_IOMAP |
		   (__BYTE_ORDER == __BIG_ENDIAN ? RS_WIRE_BIG_ENDIAN : 0);
	c->credits = htobe16((uint16_t)rs->rq_size);
	c->iomap_scale = rs_iomap_to_scale(rs->iomap_entries);
	c->target_sgl.addr = htobe64((uintptr_t)rs->target_sgl);
	c->target_sgl.key = htobe32(rs->tmr->rkey);
	c->target_sgl.length = htobe32(RS_TARGET_SGES);
	c->data_buf.addr = htobe64((uintptr_t)rs->rbuf);
	c->data_buf.key = htobe32(rs->rmr->rkey);
	c->data_buf.length = htobe32(rs->rbuf_size / 2);
}

/* The peer's connect data: where to write, how much, how many messages. */
static int rs_take_conn(struct rsock *rs, const void *data, uint8_t len)
{
	struct rs_wire_conn c;
	bool peer_big;

	if (!data || len < sizeof(c))
		return rs_err(EPROTO);
	memcpy(&c, data, sizeof(c));
	if (c.version != RS_WIRE_VERSION)
		return rs_err(EPROTO);
	peer_big = c.flags & RS_WIRE_BIG_ENDIAN;
	rs->swap = peer_big != (__BYTE_ORDER == __BIG_ENDIAN);
	rs->remote_sgl.addr = be64toh(c.target_sgl.addr);
	rs->remote_sgl.key = be32toh(c.target_sgl.key);
	rs->remote_sgl.length = be32toh(c.target_sgl.length);
	if (!rs->remote_sgl.length)
		return rs_err(EPROTO);
	rs->remote_sgl_idx = 1;
	if (c.flags & RS_WIRE_HAS_IOMAP) {
		rs->remote_iomap_addr = rs->remote_sgl.addr +
			sizeof(struct rs_wire_sge) * rs->remote_sgl.length;
		rs->remote_iomap_key = rs->remote_sgl.key;
		rs->remote_iomap_entries = rs_scale_to_iomap(c.iomap_scale);
	}
	rs->target_sgl[0].addr = be64toh(c.data_buf.addr);
	rs->target_sgl[0].key = be32toh(c.data_buf.key);
	rs->target_sgl[0].length = be32toh(c.data_buf.length);
	rs->sseq_comp = be16toh(c.credits);
	return 0;
}

static int rs_event_errno(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		return ECONNREFUSED;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return ENODEV;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (ev->status < 0)
			return -ev->status;
		return ETIMEDOUT;
	default:
		return EPROTO;
	}
}

static void rs_connect_failed(struct rsock *rs, int err)
{
	rs->phase = RS_CONNECT_FAILED;
	rs->so_error = err;
	rs->progress++;
}

/* The next step of an active connect, on @ev (the caller acknowledges). */
static void rs_connect_event(struct rsock *rs, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	struct rs_wire_conn c;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rs->phase != RS_RESOLVING_ADDR)
			break;
		if (rs->route && !rdma_set_option(rs->id, RDMA_OPTION_IB,
						  RDMA_OPTION_IB_PATH, rs->route,
						  rs->route_len)) {
			rs->phase = RS_RESOLVING_ROUTE;
			/* a route set by hand completes at once */
			break;
		}
		if (rdma_resolve_route(rs->id, RS_RESOLVE_TIMEOUT_MS))
			rs_connect_failed(rs, errno);
		else
			rs->phase = RS_RESOLVING_ROUTE;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rs->phase != RS_RESOLVING_ROUTE)
			break;
		if (rs_create_endpoint(rs)) {
			rs_connect_failed(rs, errno);
			break;
		}
		rs_format_conn(rs, &c);
		memset(&param, 0, sizeof(param));
		param.private_data = &c;
		param.private_data_len = sizeof(c);
		param.flow_control = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (rdma_connect(rs->id, &param))
			rs_connect_failed(rs, errno);
		else
			rs->phase = RS_CONNECTING;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (rs->phase != RS_CONNECTING)
			break;
		if (rs_take_conn(rs, ev->param.conn.private_data,
				 ev->param.conn.private_data_len)) {
			rs_connect_failed(rs, errno);
			rdma_disconnect(rs->id);
			break;
		}
		rs->phase = RS_CONNECTED;
		rs->progress++;
		break;
	default:
		rs_connect_failed(rs, rs_event_errno(ev));
		break;
	}
}

/* Takes the events the CM queued for @rs, without waiting. */
void rs_take_cm_events(struct rsock *rs)
{
	struct rdma_cm_event *ev;

	if (rs->phase == RS_LISTENING ||
	    (rs->phase >= RS_CONNECTED && !rs->cm_pending))
		return;
	rs->cm_pending = false;
	while (!rdma_get_cm_event(rs->chan, &ev)) {
		rs->progress++;
		if (rs->phase >= RS_RESOLVING_ADDR && rs->phase <= RS_CONNECTING) {
			rs_connect_event(rs, ev);
		} else if (rs->phase == RS_CONNECTED &&
			   (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)) {
			rs->phase = RS_DISCONNECTED;
		}
		rdma_ack_cm_event(ev);
	}
}

/* Moves a connect on; 0 once connected, else -1 with errno. */
int rs_connect_step(struct rsock *rs)
{
	rs_take_cm_events(rs);
	switch (rs->phase) {
	case RS_CONNECTED:
	case RS_DISCONNECTED:
		return 0;
	case RS_CONNECT_FAILED:
		return rs_err(rs->so_error ? rs->so_error : ECONNREFUSED);
	case RS_RESOLVING_ADDR:
	case RS_RESOLVING_ROUTE:
	case RS_CONNECTING:
		return rs_err(EINPROGRESS);
	default:
		return rs_err(ENOTCONN);
	}
}

static int rs_wait_channel(struct rsock *rs, int timeout_ms)
{
	struct pollfd pfd = { .fd = rs->fd, .events = POLLIN };
	int ret;

	pthread_mutex_unlock(&rs->lock);
	ret = poll(&pfd, 1, timeout_ms);
	pthread_mutex_lock(&rs->lock);
	if (ret < 0)
		return -1;
	return ret ? 0 : rs_err(ETIMEDOUT);
}

RDMACHAN_EXPORT int rconnect(int socket, const struct sockaddr *addr,
			     socklen_t addrlen)
{
	struct rsock *rs = rs_get(socket);
	int ret;

	if (!rs)
		return rs_err(EBADF);
	if (!addr || addrlen < sizeof(struct sockaddr_in) ||
	    (addr->sa_family == AF_INET6 && addrlen < sizeof(struct sockaddr_in6)))
		return rs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
	switch (rs->phase) {
	case RS_NEW:
	case RS_BOUND:
		if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr,
				      RS_RESOLVE_TIMEOUT_MS)) {
			ret = -1;
			goto out;
		}
		rs->phase = RS_RESOLVING_ADDR;
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
		if (rs_wait_channel(rs, -1)) {
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
	struct rsock *rs = rs_get(socket);
	int ret;

	if (!rs)
		return rs_err(EBADF);
	if (!addr || addrlen < sizeof(struct sockaddr_in) ||
	    (addr->sa_family == AF_INET6 && addrlen < sizeof(struct sockaddr_in6)))
		return rs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
	if (rs->phase != RS_NEW) {
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
	struct rsock *rs = rs_get(socket);
	int ret = 0;

	if (!rs)
		return rs_err(EBADF);
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

	rs = rs_alloc(ls->domain, ls);
	if (!rs) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return NULL;
	}
	id->context = rs;
	if (rdma_migrate_id(id, rs->chan)) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		rs_release(rs);
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
		if (errno != EAGAIN || rs_wait_channel(rs, RS_CLOSE_WAIT_MS)) {
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
	rs_release(rs);
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
	struct rsock *ls = rs_get(socket), *rs = NULL;
	struct rdma_cm_event *ev;
	int ret = -1;

	if (!ls)
		return rs_err(EBADF);
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
			if (rs_wait_channel(ls, -1))
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
		rs_release(rs);
		return -1;
	}
	ret = rs->fd;
	if (ls->keepalive)
		rs_keepalive_add(rs);
	if (addr)
		rs_copy_addr(addr, addrlen, rdma_get_peer_addr(rs->id));
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
	if (!rs->ctrl_free)
		rs_wait_until(rs, rs_ctrl_free, RS_CLOSE_WAIT_MS);
	if (rs->phase == RS_CONNECTED && rs->ctrl_free) {
		rs->ctrl_free--;
		rs_post_ctrl(rs, RS_MSG(RS_OP_CTRL, RS_CTRL_DISCONNECT));
	}
	rs_wait_until(rs, rs_sends_done, RS_CLOSE_WAIT_MS);
	rs->phase = RS_DISCONNECTED;
	rs->progress++;
	return rdma_disconnect(rs->id);
}

RDMACHAN_EXPORT int rshutdown(int socket, int how)
{
	struct rsock *rs = rs_get(socket);
	int ret = 0;

	if (!rs)
		return rs_err(EBADF);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return rs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
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
			}
		}
	}
	if (!rs->can_read && !rs->can_write)
		ret = rs_disconnect(rs);
	rs->progress++;
	pthread_cond_broadcast(&rs->progressed);
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

static int rs_name(int socket, struct sockaddr *addr, socklen_t *addrlen,
		   bool peer)
{
	struct rsock *rs = rs_get(socket);
	struct sockaddr *sa;

	if (!rs)
		return rs_err(EBADF);
	/* a NULL address with no room asks only for the length */
	if (!addrlen || (!addr && *addrlen))
		return rs_err(EFAULT);
	if (peer && rs->phase != RS_CONNECTED && rs->phase != RS_DISCONNECTED)
		return rs_err(ENOTCONN);
	sa = peer ? rdma_get_peer_addr(rs->id) : rdma_get_local_addr(rs->id);
	rs_copy_addr(addr, addrlen, sa);
	return 0;
}

RDMACHAN_EXPORT int rgetpeername(int socket, struct sockaddr *addr,
				 socklen_t *addrlen)
{
	return rs_name(socket, addr, addrlen, true);
}

RDMACHAN_EXPORT int rgetsockname(int socket, struct sockaddr *addr,
				 socklen_t *addrlen)
{
	return rs_name(socket, addr, addrlen, false);
}
