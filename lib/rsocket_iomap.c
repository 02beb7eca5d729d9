// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' iomaps (riomap, riounmap, riowrite): a buffer an end maps is
 * published into the peer's target iomap, and the peer's riowrite() then
 * writes straight into it, with no message and no copy on the receiver.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "rsocket.h"

static int rs_free_iomap_index(struct rsock *rs)
{
	struct rs_iomap_region *r;
	uint32_t i;

	for (i = 0; i < rs->remote_iomap_entries; i++) {
		for (r = rs->iomaps; r; r = r->next)
			if (r->index == (int)i)
				break;
		if (!r)
			return (int)i;
	}
	return -1;
}

/* Writes the mappings not yet published into the peer's target iomap. */
int rs_publish_iomaps(struct rsock *rs, bool nonblock)
{
	struct rs_iomap_region *r;
	int err;

	for (r = rs->iomaps; r; r = r->next) {
		struct rs_wire_iomap entry;
		struct iovec iov = { &entry, sizeof(entry) };
		struct rs_iter it = { &iov, 1, 0 };
		struct ibv_sge sgl[2];
		int nsge;

		if (r->index < 0 || r->published)
			continue;
		err = rs_wait_to_send(rs, nonblock);
		if (err)
			return rs_err(err);
		entry.offset = r->offset;
		entry.sge.addr = (uintptr_t)r->mr->addr;
		entry.sge.key = r->mr->rkey;
		entry.sge.length = (uint32_t)r->mr->length;
		if (rs->swap) {
			entry.offset = __builtin_bswap64(entry.offset);
			entry.sge.addr = __builtin_bswap64(entry.sge.addr);
			entry.sge.key = __builtin_bswap32(entry.sge.key);
			entry.sge.length = __builtin_bswap32(entry.sge.length);
		}
		nsge = rs_stage(rs, &it, sizeof(entry), sgl);
		rs->sseq_no++;
		rs->sqe_free -= rs_message_entries(rs);
		r->published = true;
		if (rs_post_write(rs, sgl, nsge,
				  RS_MSG(RS_OP_IOMAP, (uint32_t)r->index), true,
				  rs->remote_iomap_addr +
				  (uint64_t)r->index * sizeof(entry),
				  rs->remote_iomap_key))
			return -1;
	}
	return 0;
}

RDMACHAN_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot,
			     int flags, off_t offset)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_get(socket);
	int access = IBV_ACCESS_LOCAL_WRITE;
	struct rs_iomap_region *r;
	off_t ret = -1;

	if (!rs)
		return rs_err(EBADF);
	if ((prot & ~PROT_WRITE) || flags || !buf || !len)
		return rs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
	/* a datagram rsocket has no peer to map for */
	if (rs->dg || !rs->cq || !rs->id->pd) {
		errno = EINVAL;
		goto out;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		goto out;
	}
	r->index = -1;
	if (prot & PROT_WRITE) {
		r->index = rs_free_iomap_index(rs);
		if (r->index < 0) {
			free(r);
			errno = ENOMEM;
			goto out;
		}
		access |= IBV_ACCESS_REMOTE_WRITE;
	}
	r->mr = ibv_reg_mr(rs->id->pd, buf, len, access);
	if (!r->mr) {
		free(r);
		goto out;
	}
	r->offset = offset == -1 ? (uint64_t)(uintptr_t)buf : (uint64_t)offset;
	r->next = rs->iomaps;
	rs->iomaps = r;
	ret = (off_t)r->offset;
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

RDMACHAN_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	RS_CANCEL_OFF(true);
	struct rsock *rs RS_HELD = rs_get(socket);
	struct rs_iomap_region **p;
	int ret = rs_err(EINVAL);

	if (!rs)
		return rs_err(EBADF);
	pthread_mutex_lock(&rs->lock);
	for (p = &rs->iomaps; *p; p = &(*p)->next) {
		struct rs_iomap_region *r = *p;

		if (r->mr->addr != buf || r->mr->length != len)
			continue;
		*p = r->next;
		ibv_dereg_mr(r->mr);
		free(r);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/* The peer's mapping that holds @offset, copied out of the target iomap. */
static bool rs_find_target(struct rsock *rs, uint64_t offset,
			   struct rs_wire_iomap *found)
{
	uint32_t i;

	for (i = 0; rs->target_iomap && i < rs->iomap_entries; i++) {
		volatile struct rs_wire_iomap *e = &rs->target_iomap[i];

		if (e->sge.length && offset >= e->offset &&
		    offset - e->offset < e->sge.length) {
			found->offset = e->offset;
			found->sge.addr = e->sge.addr;
			found->sge.key = e->sge.key;
			found->sge.length = e->sge.length;
			return true;
		}
	}
	return false;
}

RDMACHAN_EXPORT size_t riowrite(int socket, const void *buf, size_t count,
				off_t offset, int flags)
{
	RS_CANCEL_OFF(true);
	struct iovec iov = { (void *)buf, count };
	struct rs_iter it = { &iov, 1, 0 };
	struct rsock *rs RS_HELD = rs_get(socket);
	uint32_t piece = RS_FIRST_XFER;
	struct rs_wire_iomap target;
	size_t left = count;
	bool nonblock;
	int err = 0;

	if (!rs)
		return (size_t)rs_err(EBADF);
	if (!buf && count)
		return (size_t)rs_err(EFAULT);
	pthread_mutex_lock(&rs->lock);
	nonblock = rs->nonblock || (flags & MSG_DONTWAIT);
	if (rs_ready_to_transfer(rs) || rs_publish_iomaps(rs, nonblock)) {
		err = errno;
		goto out;
	}
	while (left) {
		uint64_t at = (uint64_t)offset + (count - left);
		struct ibv_sge sgl[2];
		uint32_t len;
		int nsge;

		if (!rs_find_target(rs, at, &target)) {
			err = EINVAL;
			break;
		}
		err = rs_wait_to_send(rs, nonblock);
		if (err)
			break;
		len = rs_next_piece(rs, &piece, left);
		if (len > target.offset + target.sge.length - at)
			len = (uint32_t)(target.offset + target.sge.length - at);
		nsge = rs_stage(rs, &it, len, sgl);
		rs->sqe_free--;
		if (rs_post_write(rs, sgl, nsge, RS_MSG(RS_OP_WRITE, len), false,
				  target.sge.addr + (at - target.offset),
				  target.sge.key)) {
			err = errno;
			break;
		}
		left -= len;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	if (left == count && err)
		return (size_t)rs_err(err);
	return count - left;
}
