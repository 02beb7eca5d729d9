// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ibv_alloc_buf(), ibv_free_buf() and ibv_reg_buf_mr() (rdma-core 59). */
#include <infiniband/verbs.h>

void *probe(struct ibv_pd *pd, struct ibv_buf **buf);
void *probe(struct ibv_pd *pd, struct ibv_buf **buf)
{
	return ibv_alloc_buf(pd, 4096, buf);
}
