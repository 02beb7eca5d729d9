// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bypass mode's librdmacm: the verbs the connection manager needs,
 * from the system's libibverbs and provider, so that the data path never
 * enters rdmachan. Only the QP differs from librdmacm's way: it is bound
 * to its CM id (RDMACHAN_IOC_BIND_USER_QP), and the module then drives
 * its state, as it does for its own QPs. Built into build/bypass's
 * librdmacm.so.1 in place of librdmachan's verbs, which must not be
 * linked with it: their ibv_* would take these calls.
 */
#include <errno.h>

#include <infiniband/verbs.h>

#include "../internal.h"
#include "../verbs_internal.h"

struct ibv_device **rdmachan_get_device_list(int *num)
{
	return ibv_get_device_list(num);
}

void rdmachan_free_device_list(struct ibv_device **list)
{
	ibv_free_device_list(list);
}

uint32_t rdmachan_device_index(struct ibv_device *device)
{
	return (uint32_t)ibv_get_device_index(device);
}

struct ibv_context *rdmachan_open_device(struct ibv_device *device)
{
	return ibv_open_device(device);
}

int rdmachan_close_device(struct ibv_context *context)
{
	return ibv_close_device(context);
}

int rdmachan_query_device(struct ibv_context *context,
			  struct ibv_device_attr *attr)
{
	return ibv_query_device(context, attr);
}

struct ibv_pd *vb_alloc_pd(struct ibv_context *context)
{
	return ibv_alloc_pd(context);
}

struct ibv_comp_channel *vb_create_comp_channel(struct ibv_context *context)
{
	return ibv_create_comp_channel(context);
}

int vb_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return ibv_destroy_comp_channel(channel);
}

struct ibv_cq *vb_create_cq(struct ibv_context *context, int cqe,
			    void *cq_context, struct ibv_comp_channel *channel,
			    int comp_vector)
{
	return ibv_create_cq(context, cqe, cq_context, channel, comp_vector);
}

int vb_destroy_cq(struct ibv_cq *cq)
{
	return ibv_destroy_cq(cq);
}

/* libibverbs makes the QP; the module binds it to the id and drives it. */
struct ibv_qp *vb_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr,
			    int cm_fd, uint32_t cm_id)
{
	struct rdmachan_bind_user_qp cmd = {
		.size = sizeof(cmd), .handle = cm_id,
		.uverbs_fd = pd->context->cmd_fd,
	};
	struct ibv_qp *qp;
	int err;

	qp = ibv_create_qp(pd, attr);
	if (!qp || cm_fd < 0)
		return qp;
	cmd.qp_num = qp->qp_num;
	if (rdmachan_ioctl(cm_fd, RDMACHAN_IOC_BIND_USER_QP, &cmd)) {
		err = errno;
		ibv_destroy_qp(qp);
		errno = err;
		return NULL;
	}
	return qp;
}

/* As librdmacm: the QP joins the group when MULTICAST_JOIN comes. */
int vb_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		    uint16_t lid)
{
	return ibv_attach_mcast(qp, gid, lid);
}

void vb_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	ibv_detach_mcast(qp, gid, lid);
}

void vb_unbind_qp(int cm_fd, uint32_t cm_id)
{
	struct rdmachan_bind_user_qp cmd = {
		.size = sizeof(cmd), .flags = RDMACHAN_BIND_USER_QP_UNBIND,
		.handle = cm_id,
	};

	/* an id whose QP was never bound says EINVAL: nothing to undo */
	rdmachan_ioctl(cm_fd, RDMACHAN_IOC_BIND_USER_QP, &cmd);
}

int vb_destroy_qp(struct ibv_qp *qp)
{
	return ibv_destroy_qp(qp);
}

struct ibv_srq *vb_create_srq(struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr)
{
	return ibv_create_srq(pd, attr);
}

int vb_destroy_srq(struct ibv_srq *srq)
{
	return ibv_destroy_srq(srq);
}
