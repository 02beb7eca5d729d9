/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * <rdmachan/rdmachan.h>: what librdmachan offers beyond the rdma-core API.
 */
#ifndef RDMACHAN_RDMACHAN_H
#define RDMACHAN_RDMACHAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * rdmachan_get_info - ABI version and feature bits of the loaded module
 * @abi_version: set to the module's RDMACHAN_ABI_VERSION
 * @features: set to its RDMACHAN_FEATURE_* bits (<rdmachan/uapi.h>)
 *
 * Returns 0, or -1 with errno set (ENOSYS when the module is not loaded).
 */
int rdmachan_get_info(uint32_t *abi_version, uint64_t *features);

/* Where this process's verbs objects live (README: "Two modes"). */
enum rdmachan_mode {
	/* the module's; each post and poll is an ioctl on /dev/rdmachan */
	RDMACHAN_MODE_KERNEL = 1,
	/* the system libibverbs' and its provider's; CM ids' QPs driven by
	 * the module */
	RDMACHAN_MODE_BYPASS = 2,
};

/**
 * rdmachan_get_mode - the data-path mode of librdmachan in this process
 *
 * Chosen once, at the first call of the library that needs it: bypass
 * when the loaded module offers it (RDMACHAN_FEATURE_USER_QP) and the
 * system's libibverbs.so.1 loads, kernel-owned otherwise; the environment
 * variable RDMACHAN_MODE=kernel or =bypass forces one.
 */
enum rdmachan_mode rdmachan_get_mode(void);

#ifdef __cplusplus
}
#endif

#endif /* RDMACHAN_RDMACHAN_H */
