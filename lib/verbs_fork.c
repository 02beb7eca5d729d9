// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: ibv_fork_init and its companions. Memory is registered by
 * the kernel, which pins it (ib_umem, FOLL_LONGTERM) and gives a forked
 * child copies of pinned pages: nothing to do in user space, as
 * libibverbs reports for kernels with fork support (IBV_FORK_UNNEEDED).
 */
#include "internal.h"
#include "mode.h"

RDMACHAN_EXPORT int ibv_fork_init(void)
{
	RETURN_IF_BYPASS(ibv_fork_init);
	return 0;
}

RDMACHAN_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	RETURN_IF_BYPASS(ibv_is_fork_initialized);
	return IBV_FORK_UNNEEDED;
}

RDMACHAN_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	RETURN_IF_BYPASS(ibv_dontfork_range, base, size);
	(void)base;
	(void)size;
	return 0;
}

RDMACHAN_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	RETURN_IF_BYPASS(ibv_dofork_range, base, size);
	(void)base;
	(void)size;
	return 0;
}
