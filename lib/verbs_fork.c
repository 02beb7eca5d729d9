// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: ibv_fork_init and its companions. Memory is registered by
 * the kernel, which pins it (ib_umem, FOLL_LONGTERM) and gives a forked
 * child copies of pinned pages: nothing to do in user space, as
 * libibverbs reports for kernels with fork support (IBV_FORK_UNNEEDED).
 */
#include "internal.h"
#include "mode.h"

/* In bypass mode, whether the system's ibv_fork_init() succeeded. */
static bool system_fork_init_done;

RDMACHAN_EXPORT int ibv_fork_init(void)
{
	if (lib_bypass()) {
		int ret = system_verbs()->ibv_fork_init();

		if (!ret)
			system_fork_init_done = true;
		return ret;
	}
	return 0;
}

RDMACHAN_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	if (lib_bypass()) {
		if (system_verbs()->ibv_is_fork_initialized)
			return system_verbs()->ibv_is_fork_initialized();
		/* rdma-core before 35 cannot tell: what this process asked for */
		return system_fork_init_done ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
	}
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
