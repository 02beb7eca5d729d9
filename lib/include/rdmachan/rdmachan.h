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

#ifdef __cplusplus
}
#endif

#endif /* RDMACHAN_RDMACHAN_H */
