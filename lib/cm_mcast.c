// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: multicast (rdma_join_multicast, rdma_join_multicast_ex,
 * rdma_leave_multicast).
 *
 * A join is a kernel object of the id's channel file. The kernel attaches
 * the id's QP to the group before MULTICAST_JOIN is delivered and detaches
 * it on leave, so the library keeps only the joins' addresses and handles;
 * leaving destroys the handle, which waits for the join's events to be
 * acknowledged. A QP the module does not own (bypass mode) is attached by
 * the library as MULTICAST_JOIN is read (cm_event.c) and detached here.
 */
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "verbs_internal.h"

static int cm_join(struct cm_id *cid, const struct sockaddr *addr,
		   socklen_t addrlen, uint16_t join_flags, void *context)
{
	struct rdmachan_join_mcast cmd;
	struct cm_mcast *mc;
	int err;

	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return cm_err(ENOMEM);
	memcpy(&mc->addr, addr, addrlen);
	mc->addrlen = addrlen;

	memset(&cmd, 0, sizeof(cmd));
	cmd.size = sizeof(cmd);
	cmd.id = cid->handle;
	cmd.join_flags = join_flags;
	cmd.user_context = (uintptr_t)context;
	memcpy(&cmd.addr, addr, addrlen);

	if (rdmachan_ioctl(cid->chan->ch.fd, RDMACHAN_IOC_JOIN_MCAST, &cmd)) {
		err = errno;
		free(mc);
		return cm_err(err);
	}
	mc->handle = cmd.out_handle;
	pthread_mutex_lock(&cid->mc_lock);
	mc->next = cid->mc_list;
	cid->mc_list = mc;
	pthread_mutex_unlock(&cid->mc_lock);
	/* As librdmacm: a failed join of a synchronous id stays listed. */
	return cm_complete(cid);
}

RDMACHAN_EXPORT int rdma_join_multicast(struct rdma_cm_id *id,
					struct sockaddr *addr, void *context)
{
	socklen_t addrlen = cm_addr_len(addr);

	if (!id || !addrlen)
		return cm_err(EINVAL);
	return cm_join(to_cm_id(id), addr, addrlen,
		       RDMA_MC_JOIN_FLAG_FULLMEMBER, context);
}

RDMACHAN_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id,
					   struct rdma_cm_join_mc_attr_ex *attr,
					   void *context)
{
	socklen_t addrlen;

	if (!id || !attr)
		return cm_err(EINVAL);
	if (attr->comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED)
		return cm_err(ENOTSUP);
	if (!(attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS))
		return cm_err(EINVAL);
	if (!(attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED)
		return cm_err(EINVAL);
	addrlen = cm_addr_len(attr->addr);
	if (!addrlen)
		return cm_err(EINVAL);
	return cm_join(to_cm_id(id), attr->addr, addrlen,
		       (uint16_t)attr->join_flags, context);
}

/* Leave the group of @mc, which is no longer listed; frees @mc. */
static int cm_leave(struct cm_id *cid, struct cm_mcast *mc)
{
	struct rdma_cm_event *event = cid->id.event;
	int ret = 0;

	/* A synchronous id may still hold the join's event: it is done. */
	if (event && to_cm_event(event)->mcast_handle == mc->handle) {
		cid->id.event = NULL;
		cm_ack_event(to_cm_event(event));
	}
	if (mc->attached && cid->id.qp)
		cm_verbs()->detach_mcast(cid->id.qp, &mc->mgid, mc->mlid);
	if (cm_destroy_kernel_id(cid->chan, mc->handle))
		ret = -1;
	free(mc);
	return ret;
}

RDMACHAN_EXPORT int rdma_leave_multicast(struct rdma_cm_id *id,
					 struct sockaddr *addr)
{
	struct cm_mcast *mc, **pos;
	socklen_t addrlen;
	struct cm_id *cid;

	addrlen = cm_addr_len(addr);
	if (!id || !addrlen)
		return cm_err(EINVAL);
	cid = to_cm_id(id);

	/* As librdmacm: the join whose address starts the same. */
	pthread_mutex_lock(&cid->mc_lock);
	for (pos = &cid->mc_list; *pos; pos = &(*pos)->next) {
		if (!memcmp(&(*pos)->addr, addr, addrlen))
			break;
	}
	mc = *pos;
	if (mc)
		*pos = mc->next;
	pthread_mutex_unlock(&cid->mc_lock);
	if (!mc)
		return cm_err(EADDRNOTAVAIL);
	return cm_leave(cid, mc);
}

/* Leave every group the id joined, before the id goes. */
void cm_leave_all(struct cm_id *cid)
{
	struct cm_mcast *mc;
	int err = errno;

	for (;;) {
		pthread_mutex_lock(&cid->mc_lock);
		mc = cid->mc_list;
		if (mc)
			cid->mc_list = mc->next;
		pthread_mutex_unlock(&cid->mc_lock);
		if (!mc)
			break;
		cm_leave(cid, mc);
	}
	errno = err;
}
