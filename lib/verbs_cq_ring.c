// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: polling a CQ from its completion ring, without a system
 * call. The module writes completions to the ring as the device reports
 * them and publishes its producer index with release semantics; the
 * library keeps the consumer index and hands it back only when the ring
 * ran out of room (RDMACHAN_CQ_RING_STALLED), which refills it.
 */
#include <string.h>
#include <sys/mman.h>

#include "verbs_internal.h"

int vb_cq_ring_map(struct vb_cq *cq, int fd,
		   const struct rdmachan_create_cq *cmd)
{
	void *ring;

	if (!cmd->out_ring_entries ||
	    (cmd->out_ring_entries & (cmd->out_ring_entries - 1))) {
		errno = EPROTO;
		return -1;
	}
	ring = mmap(NULL, cmd->out_ring_size, PROT_READ, MAP_SHARED,
		    fd, (off_t)cmd->out_ring_offset);
	if (ring == MAP_FAILED)
		return -1;
	cq->ring = ring;
	cq->ring_size = cmd->out_ring_size;
	cq->ring_mask = cmd->out_ring_entries - 1;
	cq->ring_consumer = 0;
	pthread_spin_init(&cq->ring_lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

void vb_cq_ring_unmap(struct vb_cq *cq)
{
	if (!cq->ring)
		return;
	munmap(cq->ring, cq->ring_size);
	pthread_spin_destroy(&cq->ring_lock);
	cq->ring = NULL;
}

/* The ring is empty and stalled: hand back what was taken, to refill it. */
static int vb_cq_ring_update(struct vb_cq *cq)
{
	struct rdmachan_update_cq_ring cmd = {
		.size = sizeof(cmd),
		.cq = cq->ibv.handle,
		.consumer = cq->ring_consumer,
	};

	if (rdmachan_ioctl(cq->ibv.context->cmd_fd,
			   RDMACHAN_IOC_UPDATE_CQ_RING, &cmd))
		return -errno;
	return 0;
}

/* Copies @n completions from the consumer index on; the ring may wrap. */
static void vb_cq_ring_take(struct vb_cq *cq, uint32_t n, struct ibv_wc *wc)
{
	uint32_t at = cq->ring_consumer & cq->ring_mask;
	uint32_t first = cq->ring_mask + 1 - at;

	if (first > n)
		first = n;
	memcpy(wc, &cq->ring->wcs[at], first * sizeof(*wc));
	memcpy(wc + first, &cq->ring->wcs[0], (n - first) * sizeof(*wc));
	cq->ring_consumer += n;
}

int vb_cq_ring_poll(struct vb_cq *cq, int num_entries, struct ibv_wc *wc)
{
	uint32_t producer, avail;
	int ret = 0;

	pthread_spin_lock(&cq->ring_lock);
	producer = __atomic_load_n(&cq->ring->producer, __ATOMIC_ACQUIRE);
	avail = producer - cq->ring_consumer;
	if (!avail &&
	    (__atomic_load_n(&cq->ring->flags, __ATOMIC_RELAXED) &
	     RDMACHAN_CQ_RING_STALLED)) {
		ret = vb_cq_ring_update(cq);
		producer = __atomic_load_n(&cq->ring->producer,
					   __ATOMIC_ACQUIRE);
		avail = producer - cq->ring_consumer;
	}
	if (avail > cq->ring_mask + 1) {
		/* The module never writes past the consumer index. */
		ret = -EIO;
	} else if (avail) {
		if (avail > (uint32_t)num_entries)
			avail = (uint32_t)num_entries;
		vb_cq_ring_take(cq, avail, wc);
		ret = (int)avail;
	}
	pthread_spin_unlock(&cq->ring_lock);
	return ret;
}
