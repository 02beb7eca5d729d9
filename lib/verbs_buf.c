// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: ibv_alloc_buf, ibv_free_buf and ibv_reg_buf_mr (rdma-core
 * 59 on; rdma-core 65's pingpong programs allocate their buffers so).
 *
 * The module registers ordinary process memory only, so a buffer is
 * anonymous memory mapped for it (page aligned, as the API promises) and
 * its registration is ibv_reg_mr() of a range inside it. In bypass mode
 * the buffers are the system libibverbs' own.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"
#include "mode.h"

struct ibv_buf {
	struct ibv_pd *pd;
	void *addr;
	size_t size;
};

RDMACHAN_EXPORT void *ibv_alloc_buf(struct ibv_pd *pd, size_t size,
				    struct ibv_buf **buf)
{
	struct ibv_buf *b;
	int err;

	if (lib_bypass()) {
		if (system_verbs()->ibv_alloc_buf)
			return system_verbs()->ibv_alloc_buf(pd, size, buf);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!pd || !size || !buf) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->addr = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->addr == MAP_FAILED) {
		err = errno;
		free(b);
		errno = err;
		return NULL;
	}
	b->pd = pd;
	b->size = size;
	*buf = b;
	return b->addr;
}

RDMACHAN_EXPORT void ibv_free_buf(struct ibv_buf *buf)
{
	if (lib_bypass()) {
		if (system_verbs()->ibv_free_buf)
			system_verbs()->ibv_free_buf(buf);
		return;
	}
	if (!buf)
		return;
	munmap(buf->addr, buf->size);
	free(buf);
}

RDMACHAN_EXPORT struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd,
					      struct ibv_buf *buf, void *addr,
					      size_t length, int access)
{
	uintptr_t start = (uintptr_t)addr, base;

	if (lib_bypass()) {
		if (system_verbs()->ibv_reg_buf_mr)
			return system_verbs()->ibv_reg_buf_mr(pd, buf, addr,
							      length, access);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!pd || !buf || pd != buf->pd) {
		errno = EINVAL;
		return NULL;
	}
	/* [addr, addr + length) within the buffer */
	base = (uintptr_t)buf->addr;
	if (start < base || start - base > buf->size ||
	    length > buf->size - (start - base)) {
		errno = EINVAL;
		return NULL;
	}
	return (ibv_reg_mr)(pd, addr, length, access);
}
