/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the rdma-core headers lib/ is built against lack, from rdma-core 33
 * (Debian 11) on: rdma_core_probes.h (generated from lib/probes/ by
 * the Makefile) says what they offer. librdmachan implements the newest
 * API whatever the headers, so the missing pieces are declared here with
 * rdma-core's own ABI.
 */
#ifndef RDMACHAN_RDMA_CORE_COMPAT_H
#define RDMACHAN_RDMA_CORE_COMPAT_H

#include <infiniband/verbs.h>

#include "rdma_core_probes.h"

#ifndef RDMACHAN_HAVE_IBV_FORK_STATUS
enum ibv_fork_status {
	IBV_FORK_DISABLED,
	IBV_FORK_ENABLED,
	IBV_FORK_UNNEEDED,
};

enum ibv_fork_status ibv_is_fork_initialized(void);
#endif

#ifndef RDMACHAN_HAVE_IBV_ALLOC_BUF
struct ibv_buf;

void *ibv_alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **buf);
void ibv_free_buf(struct ibv_buf *buf);
struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
			      void *addr, size_t length, int access);
#endif

#endif /* RDMACHAN_RDMA_CORE_COMPAT_H */
