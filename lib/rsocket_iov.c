// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iovec arrays, as the data calls of stream and datagram rsockets take
 * them: their total, and a position in one (struct rs_iter) to copy data
 * to and from. It calls no other rsocket file.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "rsocket.h"

size_t rs_iov_total(const struct iovec *iov, int cnt, int *err)
{
	size_t total = 0;
	int i;

	for (i = 0; i < cnt; i++) {
		if (!iov[i].iov_base && iov[i].iov_len) {
			*err = EFAULT;
			return 0;
		}
		total += iov[i].iov_len;
	}
	return total;
}

/* Copies @len bytes between @it and @buf (to @buf when @out), advancing. */
void rs_iter_copy(struct rs_iter *it, uint8_t *buf, size_t len, bool out)
{
	while (len) {
		size_t n = it->iov->iov_len - it->off;
		uint8_t *p = (uint8_t *)it->iov->iov_base + it->off;

		if (!n) {
			it->iov++;
			it->cnt--;
			it->off = 0;
			continue;
		}
		if (n > len)
			n = len;
		if (out)
			memcpy(buf, p, n);
		else
			memcpy(p, buf, n);
		buf += n;
		len -= n;
		it->off += n;
	}
}

/* The next @len bytes of @it lie in one iovec: where, or NULL. */
const void *rs_iter_flat(struct rs_iter *it, size_t len)
{
	while (it->cnt && it->off == it->iov->iov_len) {
		it->iov++;
		it->cnt--;
		it->off = 0;
	}
	if (!it->cnt || it->iov->iov_len - it->off < len)
		return NULL;
	return (const uint8_t *)it->iov->iov_base + it->off;
}
