// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Datagram rsockets' endpoints: the UDP socket that names the rsocket and
 * carries first contacts, one UD QP per local address (a CM id of the
 * library, bound to the UDP socket's port in the UDP port space), and one
 * destination per peer address with the address handle to reach it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket_dgram.h"

#define RS_DG_HOP_LIMIT		64

int rs_dg_init(struct rsock *rs)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct rs_dgram *dg = calloc(1, sizeof(*dg));

	if (!dg)
		return rs_err(ENOMEM);
	rs->dg = dg;
	dg->epfd = -1;
	dg->udp = socket(rs->domain, SOCK_DGRAM, 0);
	if (dg->udp < 0)
		return -1;
	rs->fd = dg->udp;
	dg->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (dg->epfd < 0)
		return -1;
	ev.data.ptr = NULL;
	return epoll_ctl(dg->epfd, EPOLL_CTL_ADD, dg->udp, &ev);
}

/* Sizes the queues and buffers once, as the first QP needs them. */
static int rs_dg_size(struct rsock *rs, struct ibv_context *verbs)
{
	struct rs_dgram *dg = rs->dg;
	struct ibv_device_attr dev;
	uint32_t max, i;

	/* sized once: the buffers, all or none, exist from then on */
	if (dg->sbuf)
		return 0;
	if (ibv_query_device(verbs, &dev))
		return -1;
	max = (uint32_t)dev.max_qp_wr < RS_MAX_QUEUE ?
	      (uint32_t)dev.max_qp_wr : RS_MAX_QUEUE;
	/* as rdma-core's: the buffer sizes bound the queues, in slots */
	if (rs->sq_size > rs->sbuf_size / RS_DG_SLOT)
		rs->sq_size = rs->sbuf_size / RS_DG_SLOT;
	if (rs->rq_size > rs->rbuf_size / RS_DG_SLOT)
		rs->rq_size = rs->rbuf_size / RS_DG_SLOT;
	rs->sq_size = rs->sq_size < RS_MIN_QUEUE ? RS_MIN_QUEUE :
		      rs->sq_size > max ? max : rs->sq_size;
	rs->rq_size = rs->rq_size < RS_MIN_QUEUE ? RS_MIN_QUEUE :
		      rs->rq_size > max ? max : rs->rq_size;

	/* one CQ takes a QP's sends and receives */
	if (rs->sq_size + rs->rq_size > (uint32_t)dev.max_cqe)
		rs->rq_size = rs->sq_size = (uint32_t)dev.max_cqe / 2;
	rs->sbuf_size = rs->sq_size * RS_DG_SLOT;
	rs->rbuf_size = rs->rq_size * RS_DG_SLOT;

	dg->sbuf = calloc(1, rs->sbuf_size + RS_RXE_MAP_GUARD);
	dg->free_slots = calloc(rs->sq_size, sizeof(*dg->free_slots));
	dg->ring = calloc(rs->rq_size + 1, sizeof(*dg->ring));
	if (!dg->sbuf || !dg->free_slots || !dg->ring) {
		free(dg->sbuf);
		free(dg->free_slots);
		free(dg->ring);
		dg->sbuf = NULL;
		dg->free_slots = NULL;
		dg->ring = NULL;
		return rs_err(ENOMEM);
	}
	for (i = 0; i < rs->sq_size; i++)
		dg->free_slots[i] = rs->sq_size - 1 - i;
	dg->nfree = rs->sq_size;
	return 0;
}

static void rs_dg_format_hdr(struct rs_dg_wire_hdr *hdr,
			     const struct sockaddr *addr)
{
	memset(hdr, 0, sizeof(*hdr));
	if (addr->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)addr;

		hdr->version = 4;
		hdr->length = RS_DG_HDR_V4;
		hdr->port = sin->sin_port;
		hdr->addr.ipv4 = sin->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)addr;

		hdr->version = 6;
		hdr->length = RS_DG_HDR_V6;
		hdr->port = sin6->sin6_port;
		hdr->addr.ipv6.flowinfo = sin6->sin6_flowinfo;
		memcpy(hdr->addr.ipv6.addr, &sin6->sin6_addr, 16);
	}
}

static uint32_t rs_dg_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 256u;
}

int rs_dg_post_recv(struct rsock *rs, struct rs_dg_qp *qp, uint32_t offset)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)qp->rbuf + rs->rbuf_size,
		  .length = sizeof(struct ibv_grh), .lkey = qp->rmr->lkey },
		{ .addr = (uintptr_t)qp->rbuf + offset,
		  .length = RS_DG_SLOT, .lkey = qp->rmr->lkey },
	};
	struct ibv_recv_wr wr = { .wr_id = RS_WR_RECV | offset,
				  .sg_list = sge, .num_sge = 2 }, *bad;

	return ibv_post_recv(qp->id->qp, &wr, &bad);
}

static void rs_dg_free_qp(struct rs_dg_qp *qp)
{
	if (qp->id && qp->id->qp)
		rdma_destroy_qp(qp->id);
	rs_destroy_cq_channel(qp->cq, qp->comp);
	if (qp->smr)
		RS_DESTROY(ibv_dereg_mr(qp->smr));
	if (qp->rmr)
		RS_DESTROY(ibv_dereg_mr(qp->rmr));
	if (qp->id)
		RS_DESTROY_ID(qp->id);
	free(qp->rbuf);
	free(qp);
}

/* The UD QP of local address @src (port included), all receives posted. */
static struct rs_dg_qp *rs_dg_create_qp(struct rsock *rs,
					const struct sockaddr *src)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct rs_dg_qp *qp = calloc(1, sizeof(*qp));
	struct ibv_qp_init_attr attr;
	struct ibv_port_attr port;
	struct ibv_context *verbs;
	uint32_t i;
	int err;

	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	if (rdma_create_id(NULL, &qp->id, qp, RDMA_PS_UDP) ||
	    rdma_bind_addr(qp->id, (struct sockaddr *)src))
		goto err;
	verbs = qp->id->verbs;
	if (!verbs || !qp->id->pd) {
		errno = ENODEV;
		goto err;
	}
	if (rs_dg_size(rs, verbs) || ibv_query_port(verbs, qp->id->port_num,
						    &port))
		goto err;
	qp->ud_max = rs_dg_mtu_bytes(port.active_mtu);
	rs_dg_format_hdr(&qp->hdr, src);

	qp->comp = ibv_create_comp_channel(verbs);
	if (!qp->comp)
		goto err;
	rs_set_fd_nonblock(qp->comp->fd, true);
	qp->cq = ibv_create_cq(verbs, (int)(rs->sq_size + rs->rq_size), qp,
			       qp->comp, 0);
	if (!qp->cq)
		goto err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_context = qp;
	attr.send_cq = qp->cq;
	attr.recv_cq = qp->cq;
	attr.qp_type = IBV_QPT_UD;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = rs->sq_size;
	attr.cap.max_recv_wr = rs->rq_size;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 2;
	attr.cap.max_inline_data = rs->inline_size;
	if (rdma_create_qp(qp->id, NULL, &attr))
		goto err;
	qp->inline_size = attr.cap.max_inline_data;

	qp->rbuf = calloc(1, rs->rbuf_size + sizeof(struct ibv_grh) +
			      RS_RXE_MAP_GUARD);
	if (!qp->rbuf) {
		errno = ENOMEM;
		goto err;
	}
	qp->smr = ibv_reg_mr(qp->id->pd, rs->dg->sbuf,
			     rs->sbuf_size + RS_RXE_MAP_GUARD,
			     IBV_ACCESS_LOCAL_WRITE);
	qp->rmr = ibv_reg_mr(qp->id->pd, qp->rbuf,
			     rs->rbuf_size + sizeof(struct ibv_grh) +
			     RS_RXE_MAP_GUARD, IBV_ACCESS_LOCAL_WRITE);
	if (!qp->smr || !qp->rmr)
		goto err;
	for (i = 0; i < rs->rq_size; i++)
		if (rs_dg_post_recv(rs, qp, i * RS_DG_SLOT))
			goto err;
	/* armed for good (re-armed as each event is taken), so that a
	 * sleeper in any thread hears of the next completion */
	if (ibv_req_notify_cq(qp->cq, 0))
		goto err;
	ev.data.ptr = qp;
	if (epoll_ctl(rs->dg->epfd, EPOLL_CTL_ADD, qp->comp->fd, &ev))
		goto err;
	qp->next = rs->dg->qps;
	rs->dg->qps = qp;
	return qp;

err:
	err = errno;
	rs_dg_free_qp(qp);
	errno = err;
	return NULL;
}

static bool rs_dg_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a,
					  *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
	}
	return false;
}

/*
 * @a, or the IPv4 address it maps when it is a v4-mapped IPv6 one (how a
 * dual-stack AF_INET6 rsocket names an IPv4 peer, as a UDP socket does):
 * the RDMA side (the QP's bind, address resolution, the header on the
 * wire) knows IPv4 addresses in that form only.
 */
static void rs_dg_unmap(const struct sockaddr *a,
			struct sockaddr_storage *out)
{
	const struct sockaddr_in6 *sin6 = (const void *)a;
	struct sockaddr_in *sin = (void *)out;

	memset(out, 0, sizeof(*out));
	if (a->sa_family != AF_INET6 ||
	    !IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
		memcpy(out, a, a->sa_family == AF_INET6 ? sizeof(*sin6) :
							  sizeof(*sin));
		return;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = sin6->sin6_port;
	memcpy(&sin->sin_addr, &sin6->sin6_addr.s6_addr[12], 4);
}

static bool rs_dg_any_addr(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &in6addr_any, 16);
}

/*
 * The local address datagrams to @to leave from: the UDP socket's (bound
 * now if it is not, so that replies have a port to come to), with the
 * routed source address when it is bound to any.
 */
static int rs_dg_source(struct rsock *rs, const struct sockaddr *to,
			socklen_t tolen, struct sockaddr_storage *src)
{
	socklen_t len = sizeof(*src);
	struct sockaddr_storage any;
	in_port_t port;
	int probe, ret;

	if (getsockname(rs->dg->udp, (struct sockaddr *)src, &len))
		return -1;
	port = ((struct sockaddr_in *)src)->sin_port;
	if (!port) {
		memset(&any, 0, sizeof(any));
		any.ss_family = (sa_family_t)rs->domain;
		len = sizeof(*src);
		if (bind(rs->dg->udp, (struct sockaddr *)&any,
			 rs->domain == AF_INET6 ? sizeof(struct sockaddr_in6) :
						  sizeof(struct sockaddr_in)) ||
		    getsockname(rs->dg->udp, (struct sockaddr *)src, &len))
			return -1;
		port = ((struct sockaddr_in *)src)->sin_port;
		/* IP_BIND_ADDRESS_NO_PORT leaves it without one */
		if (!port)
			return rs_err(EADDRNOTAVAIL);
	}
	if (!rs_dg_any_addr((struct sockaddr *)src))
		return 0;
	probe = socket(to->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return -1;
	len = sizeof(*src);
	ret = connect(probe, to, tolen);
	if (!ret)
		ret = getsockname(probe, (struct sockaddr *)src, &len);
	close(probe);
	/* the port is the same in both sockaddrs' layouts */
	((struct sockaddr_in *)src)->sin_port = port;
	return ret;
}

/* The destination for @to, made with its QP on first use. */
struct rs_dg_dest *rs_dg_dest_for(struct rsock *rs, const struct sockaddr *to,
				  socklen_t tolen)
{
	struct rs_dgram *dg = rs->dg;
	struct sockaddr_storage src, local;
	struct rs_dg_dest *dest;
	struct rs_dg_qp *qp;
	socklen_t len;

	if (to->sa_family != AF_INET && to->sa_family != AF_INET6) {
		errno = EINVAL;
		return NULL;
	}
	len = to->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
					 sizeof(struct sockaddr_in6);
	if (tolen < len) {
		errno = EINVAL;
		return NULL;
	}
	for (dest = dg->dests; dest; dest = dest->next)
		if (rs_dg_same_addr((struct sockaddr *)&dest->addr, to))
			return dest;
	if (rs_dg_source(rs, to, len, &src))
		return NULL;
	rs_dg_unmap((struct sockaddr *)&src, &local);
	for (qp = dg->qps; qp; qp = qp->next)
		if (rs_dg_same_addr(rdma_get_local_addr(qp->id),
				    (struct sockaddr *)&local))
			break;
	if (!qp)
		qp = rs_dg_create_qp(rs, (struct sockaddr *)&local);
	if (!qp)
		return NULL;
	dest = calloc(1, sizeof(*dest));
	if (!dest) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(&dest->addr, to, len);
	dest->addrlen = len;
	dest->qp = qp;
	dest->next = dg->dests;
	dg->dests = dest;
	return dest;
}

/* The GID table index of @gid on @qp's port, RoCE v2's when it has both. */
static int rs_dg_sgid_index(struct rs_dg_qp *qp, const union ibv_gid *gid,
			    int table_len)
{
	int i, first = -1;

	for (i = 0; i < table_len && i < 256; i++) {
		struct ibv_gid_entry entry;

		if (ibv_query_gid_ex(qp->id->verbs, qp->id->port_num, (uint32_t)i,
				     &entry, 0))
			continue;
		if (memcmp(&entry.gid, gid, sizeof(*gid)))
			continue;
		if (entry.gid_type == IBV_GID_TYPE_ROCE_V2)
			return i;
		if (first < 0)
			first = i;
	}
	return first;
}

/*
 * The address handle to @dest's QP number @qpn, from a route resolved as
 * any connection's. A RoCE port needs the GRH on every packet; rdma-core's
 * rsockets leave it out when the path has one hop, which works on
 * InfiniBand only.
 */
int rs_dg_make_ah(struct rs_dg_dest *dest, uint32_t qpn)
{
	struct rs_dg_qp *qp = dest->qp;
	struct sockaddr_storage src, dst;
	struct ibv_sa_path_rec *path;
	struct ibv_port_attr port;
	struct ibv_ah_attr attr;
	struct rdma_cm_id *id;
	struct ibv_ah *ah;
	int ret = -1, sgid;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP))
		return -1;
	memcpy(&src, rdma_get_local_addr(qp->id), sizeof(src));
	((struct sockaddr_in *)&src)->sin_port = 0;
	rs_dg_unmap((struct sockaddr *)&dest->addr, &dst);
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, RS_DG_RESOLVE_MS) ||
	    rdma_resolve_route(id, RS_DG_RESOLVE_MS) ||
	    ibv_query_port(qp->id->verbs, qp->id->port_num, &port))
		goto out;
	if (!id->route.num_paths || !id->route.path_rec) {
		errno = EHOSTUNREACH;
		goto out;
	}
	path = id->route.path_rec;
	memset(&attr, 0, sizeof(attr));
	if (path->hop_limit > 1 || port.link_layer == IBV_LINK_LAYER_ETHERNET) {
		sgid = rs_dg_sgid_index(qp, &path->sgid, port.gid_tbl_len);
		if (sgid < 0) {
			errno = EADDRNOTAVAIL;
			goto out;
		}
		attr.is_global = 1;
		attr.grh.dgid = path->dgid;
		attr.grh.flow_label = be32toh(path->flow_label);
		attr.grh.sgid_index = (uint8_t)sgid;
		attr.grh.hop_limit = path->hop_limit > 1 ? path->hop_limit :
				     RS_DG_HOP_LIMIT;
		attr.grh.traffic_class = path->traffic_class;
	}
	attr.dlid = be16toh(path->dlid);
	attr.sl = path->sl;
	attr.src_path_bits = be16toh(path->slid) & ((1u << port.lmc) - 1);
	attr.static_rate = path->rate;
	attr.port_num = qp->id->port_num;
	ah = ibv_create_ah(qp->id->pd, &attr);
	if (!ah)
		goto out;
	if (dest->ah)
		RS_DESTROY(ibv_destroy_ah(dest->ah));
	dest->ah = ah;
	dest->qpn = qpn;
	dest->ud_max = qp->ud_max;
	if (path->mtu && rs_dg_mtu_bytes((enum ibv_mtu)path->mtu) < dest->ud_max)
		dest->ud_max = rs_dg_mtu_bytes((enum ibv_mtu)path->mtu);
	ret = 0;
out:
	RS_DESTROY_ID(id);
	return ret;
}

int rs_dg_connect(struct rsock *rs, const struct sockaddr *addr,
		  socklen_t addrlen)
{
	struct rs_dg_dest *dest;

	if (connect(rs->dg->udp, addr, addrlen))
		return -1;
	/* as a UDP socket's: AF_UNSPEC ends the association */
	if (addr->sa_family == AF_UNSPEC) {
		rs->dg->conn_dest = NULL;
		return 0;
	}
	dest = rs_dg_dest_for(rs, addr, addrlen);
	if (!dest)
		return -1;
	rs->dg->conn_dest = dest;
	return 0;
}

void rs_dg_free(struct rsock *rs)
{
	struct rs_dgram *dg = rs->dg;

	if (!dg)
		return;
	while (dg->dests) {
		struct rs_dg_dest *dest = dg->dests;

		dg->dests = dest->next;
		if (dest->ah)
			RS_DESTROY(ibv_destroy_ah(dest->ah));
		free(dest);
	}
	while (dg->qps) {
		struct rs_dg_qp *qp = dg->qps;

		dg->qps = qp->next;
		rs_dg_free_qp(qp);
	}
	while (dg->udp_first) {
		struct rs_dg_udp_msg *msg = dg->udp_first;

		dg->udp_first = msg->next;
		free(msg);
	}
	if (dg->epfd >= 0)
		close(dg->epfd);
	if (dg->udp >= 0)
		close(dg->udp);
	free(dg->sbuf);
	free(dg->free_slots);
	free(dg->ring);
	free(dg);
	rs->dg = NULL;
}
