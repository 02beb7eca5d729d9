// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bypass mode's verbs: the system's libibverbs and provider, so that the
 * data path never enters rdmachan. Only the QP of a CM id differs from
 * librdmacm's way: it is bound to its id (RDMACHAN_IOC_BIND_USER_QP), and
 * the module then drives its state, as it does for its own QPs.
 *
 * The functions are looked up in libibverbs.so.1 itself, never by plain
 * name: in librdmachan the plain names are librdmachan's own exports.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "internal.h"
#include "mode.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static struct system_verbs loaded;
static const struct system_verbs *loaded_ok;

static void load_system_verbs(void)
{
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return;
#define LOAD_SYSTEM_VERB(fn)						\
	do {								\
		loaded.fn = (__typeof__(loaded.fn))dlsym(lib, #fn);	\
		if (!loaded.fn)						\
			goto missing;					\
	} while (0);
	SYSTEM_VERBS(LOAD_SYSTEM_VERB)
#undef LOAD_SYSTEM_VERB
#define LOAD_OPTIONAL_SYSTEM_VERB(fn)					\
	loaded.fn = (__typeof__(loaded.fn))dlsym(lib, #fn);
	SYSTEM_VERBS_OPTIONAL(LOAD_OPTIONAL_SYSTEM_VERB)
#undef LOAD_OPTIONAL_SYSTEM_VERB
	/* dlopen's reference is kept: the functions stay for the process */
	loaded_ok = &loaded;
	return;

missing:
	dlclose(lib);
}

const struct system_verbs *system_verbs(void)
{
	pthread_once(&load_once, load_system_verbs);
	return loaded_ok;
}

#define SYS(fn) (system_verbs()->fn)

static struct ibv_device **sys_get_device_list(int *num)
{
	return SYS(ibv_get_device_list)(num);
}

static void sys_free_device_list(struct ibv_device **list)
{
	SYS(ibv_free_device_list)(list);
}

static uint32_t sys_device_index(struct ibv_device *device)
{
	return (uint32_t)SYS(ibv_get_device_index)(device);
}

static struct ibv_context *sys_open_device(struct ibv_device *device)
{
	return SYS(ibv_open_device)(device);
}

static int sys_close_device(struct ibv_context *context)
{
	return SYS(ibv_close_device)(context);
}

static int sys_query_device(struct ibv_context *context,
			    struct ibv_device_attr *attr)
{
	return SYS(ibv_query_device)(context, attr);
}

static struct ibv_pd *sys_alloc_pd(struct ibv_context *context)
{
	return SYS(ibv_alloc_pd)(context);
}

static struct ibv_comp_channel *
sys_create_comp_channel(struct ibv_context *context)
{
	return SYS(ibv_create_comp_channel)(context);
}

static int sys_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return SYS(ibv_destroy_comp_channel)(channel);
}

static struct ibv_cq *sys_create_cq(struct ibv_context *context, int cqe,
				    void *cq_context,
				    struct ibv_comp_channel *channel,
				    int comp_vector)
{
	return SYS(ibv_create_cq)(context, cqe, cq_context, channel,
				  comp_vector);
}

static int sys_destroy_cq(struct ibv_cq *cq)
{
	return SYS(ibv_destroy_cq)(cq);
}

/* libibverbs makes the QP; the module binds it to the id and drives it. */
static struct ibv_qp *sys_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr,
				    int cm_fd, uint32_t cm_id)
{
	struct rdmachan_bind_user_qp cmd = {
		.size = sizeof(cmd), .handle = cm_id,
		.uverbs_fd = pd->context->cmd_fd,
	};
	struct ibv_qp *qp;
	int err;

	qp = SYS(ibv_create_qp)(pd, attr);
	if (!qp || cm_fd < 0)
		return qp;
	cmd.qp_num = qp->qp_num;
	if (rdmachan_ioctl(cm_fd, RDMACHAN_IOC_BIND_USER_QP, &cmd)) {
		err = errno;
		SYS(ibv_destroy_qp)(qp);
		errno = err;
		return NULL;
	}
	return qp;
}

static void sys_unbind_qp(int cm_fd, uint32_t cm_id)
{
	struct rdmachan_bind_user_qp cmd = {
		.size = sizeof(cmd), .flags = RDMACHAN_BIND_USER_QP_UNBIND,
		.handle = cm_id,
	};

	/* an id whose QP was never bound says EINVAL: nothing to undo */
	rdmachan_ioctl(cm_fd, RDMACHAN_IOC_BIND_USER_QP, &cmd);
}

static int sys_destroy_qp(struct ibv_qp *qp)
{
	return SYS(ibv_destroy_qp)(qp);
}

/* As librdmacm: the QP joins the group when MULTICAST_JOIN comes. */
static int sys_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid)
{
	return SYS(ibv_attach_mcast)(qp, gid, lid);
}

static void sys_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			     uint16_t lid)
{
	SYS(ibv_detach_mcast)(qp, gid, lid);
}

static struct ibv_srq *sys_create_srq(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr)
{
	return SYS(ibv_create_srq)(pd, attr);
}

static int sys_destroy_srq(struct ibv_srq *srq)
{
	return SYS(ibv_destroy_srq)(srq);
}

const struct cm_verbs system_cm_verbs = {
	.get_device_list = sys_get_device_list,
	.free_device_list = sys_free_device_list,
	.device_index = sys_device_index,
	.open_device = sys_open_device,
	.close_device = sys_close_device,
	.query_device = sys_query_device,
	.alloc_pd = sys_alloc_pd,
	.create_comp_channel = sys_create_comp_channel,
	.destroy_comp_channel = sys_destroy_comp_channel,
	.create_cq = sys_create_cq,
	.destroy_cq = sys_destroy_cq,
	.create_qp = sys_create_qp,
	.unbind_qp = sys_unbind_qp,
	.destroy_qp = sys_destroy_qp,
	.attach_mcast = sys_attach_mcast,
	.detach_mcast = sys_detach_mcast,
	.create_srq = sys_create_srq,
	.destroy_srq = sys_destroy_srq,
};
