// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: protection domains and memory regions (ibv_alloc_pd,
 * ibv_dealloc_pd, ibv_reg_mr and its iova variants, ibv_dereg_mr).
 *
 * The kernel pins and registers the memory (ib_umem); the library only
 * fills in the struct ibv_mr programs read. As libibverbs, calls that
 * return int return an errno value.
 */
#include <stdlib.h>

#include "verbs_internal.h"
#include "mode.h"

struct ibv_pd *vb_alloc_pd(struct ibv_context *context)
{
	struct rdmachan_alloc_pd cmd = {
		.size = sizeof(cmd),
		.context = vb_ctx_handle(context),
	};
	struct ibv_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	if (rdmachan_ioctl(context->cmd_fd, RDMACHAN_IOC_ALLOC_PD, &cmd)) {
		err = errno;
		free(pd);
		errno = err;
		return NULL;
	}
	pd->context = context;
	pd->handle = cmd.out_handle;
	return pd;
}

RDMACHAN_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	RETURN_IF_BYPASS(ibv_alloc_pd, context);
	return vb_alloc_pd(context);
}

/* EBUSY, and the PD stays, while MRs, QPs, SRQs or AHs use it. */
int vb_dealloc_pd(struct ibv_pd *pd)
{
	int ret = vb_destroy_handle(pd->context, pd->handle);

	if (!ret)
		free(pd);
	return ret;
}

RDMACHAN_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	RETURN_IF_BYPASS(ibv_dealloc_pd, pd);
	return vb_dealloc_pd(pd);
}

/*
 * The optional access bits are hints a device may ignore (libibverbs drops
 * them for kernels that do not know them); the kernel sees only the rest.
 */
static struct ibv_mr *vb_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct rdmachan_reg_mr cmd = {
		.size = sizeof(cmd),
		.pd = pd->handle,
		.access = access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE,
		.addr = (uintptr_t)addr,
		.length = length,
		.iova = iova,
	};
	struct ibv_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	if (rdmachan_ioctl(pd->context->cmd_fd, RDMACHAN_IOC_REG_MR, &cmd)) {
		err = errno;
		free(mr);
		errno = err;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = cmd.out_handle;
	mr->lkey = cmd.out_lkey;
	mr->rkey = cmd.out_rkey;
	return mr;
}

/*
 * <infiniband/verbs.h> makes ibv_reg_mr() and ibv_reg_mr_iova() macros that
 * call these functions, or ibv_reg_mr_iova2() when the access flags are
 * not a constant without optional bits: all three are exported.
 */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

RDMACHAN_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
					  size_t length, int access)
{
	RETURN_IF_BYPASS(ibv_reg_mr, pd, addr, length, access);
	return vb_reg_mr(pd, addr, length, (uintptr_t)addr,
			 (unsigned int)access);
}

RDMACHAN_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					       size_t length, uint64_t iova,
					       int access)
{
	RETURN_IF_BYPASS(ibv_reg_mr_iova, pd, addr, length, iova, access);
	return vb_reg_mr(pd, addr, length, iova, (unsigned int)access);
}

RDMACHAN_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
						size_t length, uint64_t iova,
						unsigned int access)
{
	RETURN_IF_BYPASS(ibv_reg_mr_iova2, pd, addr, length, iova, access);
	return vb_reg_mr(pd, addr, length, iova, access);
}

RDMACHAN_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	RETURN_IF_BYPASS(ibv_dereg_mr, mr);
	int ret = vb_destroy_handle(mr->context, mr->handle);

	if (!ret)
		free(mr);
	return ret;
}
