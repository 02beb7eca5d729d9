// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: rdma_getaddrinfo and rdma_freeaddrinfo.
 *
 * Pure userspace, on top of getaddrinfo(3): the node and service are
 * resolved as IP addresses, the QP type and port space come from the hints
 * or from the socket type and protocol of the answer. There is no route
 * resolution through ibacm, so ai_route and ai_connect stay empty. An
 * active side's source address, unless the hints give one, is the one the
 * routing table picks for the destination (a connected UDP socket's local
 * address, which sends nothing), and none when there is no route.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm.h"

static int cm_copy_sockaddr(struct sockaddr **dst, socklen_t *dst_len,
			    const struct sockaddr *src, socklen_t src_len)
{
	*dst = malloc(src_len);
	if (!*dst)
		return cm_err(ENOMEM);
	memcpy(*dst, src, src_len);
	*dst_len = src_len;
	return 0;
}

/*
 * The local address the kernel would send from to @dst, port 0. Returns
 * 0 and leaves @rai alone when there is none: that is not an error.
 */
static int cm_find_source(struct rdma_addrinfo *rai)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd, ret = 0;

	if (rai->ai_dst_addr->sa_family != AF_INET &&
	    rai->ai_dst_addr->sa_family != AF_INET6)
		return 0;
	fd = socket(rai->ai_dst_addr->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (!connect(fd, rai->ai_dst_addr, rai->ai_dst_len) &&
	    !getsockname(fd, (struct sockaddr *)&ss, &len) &&
	    len <= sizeof(ss)) {
		if (ss.ss_family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = 0;
		ret = cm_copy_sockaddr(&rai->ai_src_addr, &rai->ai_src_len,
				       (struct sockaddr *)&ss, len);
	}
	close(fd);
	return ret;
}

static void cm_hints_to_ai(struct addrinfo *ai, const struct rdma_addrinfo *h)
{
	memset(ai, 0, sizeof(*ai));
	if (h->ai_flags & RAI_PASSIVE)
		ai->ai_flags |= AI_PASSIVE;
	if (h->ai_flags & RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	ai->ai_family = h->ai_family;

	switch (h->ai_qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		ai->ai_socktype = SOCK_STREAM;
		break;
	case IBV_QPT_UD:
		ai->ai_socktype = SOCK_DGRAM;
		break;
	default:
		break;
	}

	switch (h->ai_port_space) {
	case RDMA_PS_TCP:
		ai->ai_protocol = IPPROTO_TCP;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		ai->ai_protocol = IPPROTO_UDP;
		break;
	case RDMA_PS_IB:
		if (ai->ai_socktype == SOCK_STREAM)
			ai->ai_protocol = IPPROTO_TCP;
		else if (ai->ai_socktype == SOCK_DGRAM)
			ai->ai_protocol = IPPROTO_UDP;
		break;
	default:
		break;
	}
}

/* Returns 0, an EAI_* code, or -1 with errno set. */
static int cm_resolve(const char *node, const char *service,
		      const struct rdma_addrinfo *h, bool have_hints,
		      struct rdma_addrinfo *rai)
{
	struct addrinfo ai_hints, *ai;
	int ret;

	cm_hints_to_ai(&ai_hints, h);
	ret = getaddrinfo(node, service, have_hints ? &ai_hints : NULL, &ai);
	if (ret)
		return ret;

	rai->ai_family = ai->ai_family;
	if (h->ai_qp_type)
		rai->ai_qp_type = h->ai_qp_type;
	else if (ai->ai_socktype == SOCK_STREAM)
		rai->ai_qp_type = IBV_QPT_RC;
	else if (ai->ai_socktype == SOCK_DGRAM)
		rai->ai_qp_type = IBV_QPT_UD;
	if (h->ai_port_space)
		rai->ai_port_space = h->ai_port_space;
	else if (ai->ai_protocol == IPPROTO_TCP)
		rai->ai_port_space = RDMA_PS_TCP;
	else if (ai->ai_protocol == IPPROTO_UDP)
		rai->ai_port_space = RDMA_PS_UDP;

	if (h->ai_flags & RAI_PASSIVE) {
		rai->ai_flags = RAI_PASSIVE;
		ret = cm_copy_sockaddr(&rai->ai_src_addr, &rai->ai_src_len,
				       ai->ai_addr, ai->ai_addrlen);
		if (!ret && ai->ai_canonname) {
			rai->ai_src_canonname = strdup(ai->ai_canonname);
			if (!rai->ai_src_canonname)
				ret = cm_err(ENOMEM);
		}
	} else {
		ret = cm_copy_sockaddr(&rai->ai_dst_addr, &rai->ai_dst_len,
				       ai->ai_addr, ai->ai_addrlen);
		if (!ret && ai->ai_canonname) {
			rai->ai_dst_canonname = strdup(ai->ai_canonname);
			if (!rai->ai_dst_canonname)
				ret = cm_err(ENOMEM);
		}
	}
	freeaddrinfo(ai);
	return ret;
}

static void cm_freeaddrinfo(struct rdma_addrinfo *res);

RDMACHAN_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
				     const struct rdma_addrinfo *hints,
				     struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo nohints;
	const struct rdma_addrinfo *h = hints ? hints : &nohints;
	struct rdma_addrinfo *rai;
	int ret = 0, err;

	if (!res || (!node && !service && !hints))
		return cm_err(EINVAL);
	/* AF_IB names need ibacm or the IB SA: not supported. */
	if (h->ai_family == AF_IB && (node || service)) {
		errno = EAI_FAMILY;
		return EAI_FAMILY;
	}

	rai = calloc(1, sizeof(*rai));
	if (!rai)
		return cm_err(ENOMEM);

	if (node || service) {
		ret = cm_resolve(node, service, h, hints != NULL, rai);
	} else {
		rai->ai_flags = h->ai_flags;
		rai->ai_family = h->ai_family;
		rai->ai_qp_type = h->ai_qp_type;
		rai->ai_port_space = h->ai_port_space;
		if (h->ai_dst_len)
			ret = cm_copy_sockaddr(&rai->ai_dst_addr,
					       &rai->ai_dst_len,
					       h->ai_dst_addr, h->ai_dst_len);
	}
	if (!ret && !rai->ai_src_len && h->ai_src_len)
		ret = cm_copy_sockaddr(&rai->ai_src_addr, &rai->ai_src_len,
				       h->ai_src_addr, h->ai_src_len);
	if (!ret && !rai->ai_src_len && rai->ai_dst_len &&
	    !(rai->ai_flags & RAI_PASSIVE))
		ret = cm_find_source(rai);
	if (ret)
		goto err;
	*res = rai;
	return 0;

err:
	/* The EAI_* codes are returned as such, as the man page has it. */
	err = ret == -1 || ret == EAI_SYSTEM ? errno : ret;
	cm_freeaddrinfo(rai);
	errno = err;
	return ret;
}

static void cm_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *next;

	for (; res; res = next) {
		next = res->ai_next;
		free(res->ai_connect);
		free(res->ai_route);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res);
	}
}

RDMACHAN_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	cm_freeaddrinfo(res);
}
