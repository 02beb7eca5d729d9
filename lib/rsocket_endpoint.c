// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An rsocket's endpoint: its CQ and RC QP, the buffers the peer writes
 * into (receive buffer, target SGL and iomap) and the send buffer, and the
 * connect data that tells the peer where they are. Its teardown frees the
 * iomaps registered on it (riomap(), rsocket_iomap.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rsocket.h"

static uint8_t rs_iomap_to_scale(uint32_t entries)
{
	return entries <= 128 ? entries : 128 | (entries >> 8);
}

static uint32_t rs_scale_to_iomap(uint8_t scale)
{
	return scale <= 128 ? scale : (uint32_t)(scale & 127) << 8;
}

static uint32_t rs_clamp_queue(uint32_t want, uint32_t device_max)
{
	uint32_t max = device_max < RS_MAX_QUEUE ? device_max : RS_MAX_QUEUE;

	if (want > max)
		return max;
	return want < RS_MIN_QUEUE ? RS_MIN_QUEUE : want;
}

/* A receive for the peer's next message: its 4-byte slot on iWARP. */
int rs_post_recv(struct rsock *rs)
{
	struct ibv_recv_wr wr = { .wr_id = RS_WR_RECV }, *bad;
	struct ibv_sge sge;

	if (rs->msg_send) {
		wr.wr_id |= rs->rmsg_slot;
		sge.addr = (uintptr_t)(rs->rbuf + rs->rbuf_size +
				       RS_MSG_SIZE * rs->rmsg_slot);
		sge.length = RS_MSG_SIZE;
		sge.lkey = rs->rmr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		rs->rmsg_slot = (rs->rmsg_slot + 1) % rs->rq_size;
	}
	return ibv_post_recv(rs->id->qp, &wr, &bad);
}

static int rs_alloc_buffers(struct rsock *rs)
{
	size_t tlen = sizeof(struct rs_wire_sge) * RS_TARGET_SGES +
		      sizeof(struct rs_wire_iomap) * rs->iomap_entries;
	size_t slen = rs->sbuf_size + sizeof(struct rs_wire_sge) * RS_CTRL_SLOTS;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	/* the receives' message slots follow the receive buffer */
	size_t rlen = rs->rbuf_size + (rs->msg_send ? RS_MSG_SIZE * rs->rq_size : 0);
	struct ibv_pd *pd = rs->id->pd;
	uint8_t *tbuf;

	rs->rmsg = calloc(rs->rq_size + 1, sizeof(*rs->rmsg));
	rs->sbuf = calloc(1, slen + RS_RXE_MAP_GUARD);
	rs->rbuf = calloc(1, rlen + RS_RXE_MAP_GUARD);
	tbuf = calloc(1, tlen);
	rs->target_sgl = (volatile struct rs_wire_sge *)tbuf;
	if (!rs->rmsg || !rs->sbuf || !rs->rbuf || !tbuf)
		return rs_err(ENOMEM);
	if (rs->iomap_entries)
		rs->target_iomap = (volatile struct rs_wire_iomap *)
				   (tbuf + sizeof(struct rs_wire_sge) * RS_TARGET_SGES);
	rs->smr = ibv_reg_mr(pd, rs->sbuf, slen + RS_RXE_MAP_GUARD,
			     IBV_ACCESS_LOCAL_WRITE);
	if (!rs->smr)
		return -1;
	rs->rmr = ibv_reg_mr(pd, rs->rbuf, rlen + RS_RXE_MAP_GUARD, access);
	if (!rs->rmr)
		return -1;
	rs->tmr = ibv_reg_mr(pd, tbuf, tlen, access);
	if (!rs->tmr)
		return -1;

	rs->sbuf_free = rs->sbuf_size;
	rs->sqe_free = rs->sq_size - RS_CTRL_SLOTS;
	rs->ctrl_free = RS_CTRL_SLOTS;
	/* The first half is the peer's from the start; the second comes next. */
	rs->rbuf_publish_at = rs->rbuf_size / 2;
	rs->rbuf_unpublished = rs->rbuf_size / 2;
	rs->rseq_grant_at = rs->rq_size / 2;
	return 0;
}

/* The CQ, the RC QP and the buffers of a connection; the QP in INIT. */
int rs_create_endpoint(struct rsock *rs)
{
	struct ibv_context *verbs = rs->id->verbs;
	struct ibv_qp_init_attr attr;
	struct ibv_device_attr dev;
	uint32_t i;

	if (!verbs || !rs->id->pd)
		return rs_err(ENODEV);
	switch (verbs->device->transport_type) {
	case IBV_TRANSPORT_IB:
		break;
	case IBV_TRANSPORT_IWARP:
		/* no RDMA write with immediate: messages are inline sends */
		rs->msg_send = true;
		if (rs->inline_size < RS_MSG_SIZE)
			rs->inline_size = RS_MSG_SIZE;
		break;
	default:
		return rs_err(EOPNOTSUPP);
	}
	if (ibv_query_device(verbs, &dev))
		return -1;
	rs->sq_size = rs_clamp_queue(rs->sq_size, (uint32_t)dev.max_qp_wr);
	rs->rq_size = rs_clamp_queue(rs->rq_size, (uint32_t)dev.max_qp_wr);

	rs->comp = ibv_create_comp_channel(verbs);
	if (!rs->comp)
		return -1;
	rs->cq = ibv_create_cq(verbs, (int)(rs->sq_size + rs->rq_size), rs,
			       rs->comp, 0);
	if (!rs->cq)
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.qp_context = rs;
	attr.send_cq = rs->cq;
	attr.recv_cq = rs->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = rs->sq_size;
	attr.cap.max_recv_wr = rs->rq_size;
	attr.cap.max_send_sge = 2;
	attr.cap.max_recv_sge = 1;
	attr.cap.max_inline_data = rs->inline_size;
	if (rdma_create_qp(rs->id, NULL, &attr))
		return -1;
	rs->inline_size = attr.cap.max_inline_data;
	if (rs->msg_send && rs->inline_size < RS_MSG_SIZE)
		return rs_err(EOPNOTSUPP);

	if (rs_alloc_buffers(rs))
		return -1;
	for (i = 0; i < rs->rq_size; i++)
		if (rs_post_recv(rs))
			return -1;
	return 0;
}

static void rs_free_iomaps(struct rsock *rs)
{
	while (rs->iomaps) {
		struct rs_iomap_region *r = rs->iomaps;

		rs->iomaps = r->next;
		ibv_dereg_mr(r->mr);
		free(r);
	}
}

/*
 * @cq, then the completion channel @comp it was made on (either may be
 * NULL). uverbs destroys a CQ before it copies out its reply, so a fault
 * there fails ibv_destroy_cq() with the CQ gone, and libibverbs, still
 * counting the CQ on the channel, then refuses the channel for good: its
 * fd is closed here, and what libibverbs allocated for both stays.
 */
void rs_destroy_cq_channel(struct ibv_cq *cq, struct ibv_comp_channel *comp)
{
	int tries = 0, ret = 0;

	while (cq && (ret = ibv_destroy_cq(cq)) &&
	       verbs_destroy_may_repeat(ret) && ++tries < RS_DESTROY_TRIES)
		;
	if (!comp)
		return;
	if (ret)
		close(comp->fd);
	else
		RS_DESTROY(ibv_destroy_comp_channel(comp));
}

void rs_destroy_endpoint(struct rsock *rs)
{
	rs_free_iomaps(rs);
	if (rs->id && rs->id->qp)
		rdma_destroy_qp(rs->id);
	if (rs->cq && rs->cq_events)
		ibv_ack_cq_events(rs->cq, rs->cq_events);
	rs_destroy_cq_channel(rs->cq, rs->comp);
	if (rs->smr)
		RS_DESTROY(ibv_dereg_mr(rs->smr));
	if (rs->rmr)
		RS_DESTROY(ibv_dereg_mr(rs->rmr));
	if (rs->tmr)
		RS_DESTROY(ibv_dereg_mr(rs->tmr));
	free(rs->sbuf);
	free(rs->rbuf);
	free((void *)rs->target_sgl);
	free(rs->rmsg);
	rs->cq = NULL;
	rs->comp = NULL;
	rs->smr = rs->rmr = rs->tmr = NULL;
	rs->sbuf = rs->rbuf = NULL;
	rs->target_sgl = NULL;
	rs->target_iomap = NULL;
	rs->rmsg = NULL;
}

void rs_format_conn(struct rsock *rs, struct rs_wire_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->version = RS_WIRE_VERSION;
	c->flags = RS_WIRE_HAS_IOMAP |
		   (__BYTE_ORDER == __BIG_ENDIAN ? RS_WIRE_BIG_ENDIAN : 0);
	c->credits = htobe16((uint16_t)rs->rq_size);
	c->iomap_scale = rs_iomap_to_scale(rs->iomap_entries);
	c->target_sgl.addr = htobe64((uintptr_t)rs->target_sgl);
	c->target_sgl.key = htobe32(rs->tmr->rkey);
	c->target_sgl.length = htobe32(RS_TARGET_SGES);
	c->data_buf.addr = htobe64((uintptr_t)rs->rbuf);
	c->data_buf.key = htobe32(rs->rmr->rkey);
	c->data_buf.length = htobe32(rs->rbuf_size / 2);
}

/* The peer's connect data: where to write, how much, how many messages. */
int rs_take_conn(struct rsock *rs, const void *data, uint8_t len)
{
	struct rs_wire_conn c;
	bool peer_big;

	if (!data || len < sizeof(c))
		return rs_err(EPROTO);
	memcpy(&c, data, sizeof(c));
	if (c.version != RS_WIRE_VERSION)
		return rs_err(EPROTO);
	peer_big = c.flags & RS_WIRE_BIG_ENDIAN;
	rs->swap = peer_big != (__BYTE_ORDER == __BIG_ENDIAN);
	rs->remote_sgl.addr = be64toh(c.target_sgl.addr);
	rs->remote_sgl.key = be32toh(c.target_sgl.key);
	rs->remote_sgl.length = be32toh(c.target_sgl.length);
	if (!rs->remote_sgl.length)
		return rs_err(EPROTO);
	rs->remote_sgl_idx = 1;
	if (c.flags & RS_WIRE_HAS_IOMAP) {
		rs->remote_iomap_addr = rs->remote_sgl.addr +
			sizeof(struct rs_wire_sge) * rs->remote_sgl.length;
		rs->remote_iomap_key = rs->remote_sgl.key;
		rs->remote_iomap_entries = rs_scale_to_iomap(c.iomap_scale);
	}
	rs->target_sgl[0].addr = be64toh(c.data_buf.addr);
	rs->target_sgl[0].key = be32toh(c.data_buf.key);
	rs->target_sgl[0].length = be32toh(c.data_buf.length);
	rs->sseq_comp = be16toh(c.credits);
	return 0;
}
