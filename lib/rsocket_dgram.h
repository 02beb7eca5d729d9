/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Datagram rsockets: what rsocket_dgram.c and rsocket_dgram_io.c share,
 * the second standing on the first (the layers are in rsocket.h). The
 * wire is rdma-core's (librdmacm/docs/rsocket, "datagram").
 */
#ifndef RDMACHAN_LIB_RSOCKET_DGRAM_H
#define RDMACHAN_LIB_RSOCKET_DGRAM_H

#include "rsocket.h"

/*
 * Datagram rsockets (rsocket_dgram*.c). A datagram goes over a UD QP with
 * its sender's address in front (struct rs_dg_wire_hdr); until the sender
 * knows the receiver's QP it goes over the rsocket's UDP socket instead,
 * behind a struct rs_udp_wire_hdr naming the sender's QP, and the
 * receiver answers with its own.
 */
#define RS_UDP_TAG		0x55555555u
#define RS_DG_SLOT		2048u
/* How long an address handle's resolution may take, and is not retried. */
#define RS_DG_RESOLVE_MS	2000

struct rs_dg_wire_hdr {
	uint8_t version;
	uint8_t length;
	__be16 port;
	union {
		__be32 ipv4;
		struct {
			__be32 flowinfo;
			uint8_t addr[16];
		} ipv6;
	} addr;
};

#define RS_DG_HDR_V4		8u
#define RS_DG_HDR_V6		24u

struct rs_udp_wire_hdr {
	__be32 tag;
	uint8_t version;
	uint8_t op;
	uint8_t length;
	uint8_t reserved;
	/* the sender's QP number in the low 24 bits */
	__be32 qpn;
	union {
		__be32 ipv4;
		uint8_t ipv6[16];
	} addr;
};

#define RS_UDP_HDR_V4		16u
#define RS_UDP_HDR_V6		28u

_Static_assert(sizeof(struct rs_dg_wire_hdr) == RS_DG_HDR_V6, "ds header");
_Static_assert(sizeof(struct rs_udp_wire_hdr) == RS_UDP_HDR_V6, "udp header");

/* A local address's UD QP, with its CQ and receive slots. */
struct rs_dg_qp {
	struct rs_dg_qp *next;
	struct rdma_cm_id *id;
	struct ibv_comp_channel *comp;
	struct ibv_cq *cq;
	struct ibv_mr *smr, *rmr;
	/* rq_size slots of RS_DG_SLOT, then the GRH every receive starts with */
	uint8_t *rbuf;
	/* what every datagram sent from here starts with */
	struct rs_dg_wire_hdr hdr;
	/* the largest datagram the port's MTU carries, header included */
	uint32_t ud_max;
	uint32_t inline_size;
};

/* A peer address: the QP we send to it from, and its QP once known. */
struct rs_dg_dest {
	struct rs_dg_dest *next;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct rs_dg_qp *qp;
	struct ibv_ah *ah;
	uint32_t qpn;
	/* the largest datagram the path carries over UD, header included */
	uint32_t ud_max;
	/* a failed resolution is not tried again before this (rs_now_us) */
	uint64_t resolve_after;
};

/* A datagram received on a UD QP, not yet read. */
struct rs_dg_recv {
	struct rs_dg_qp *qp;
	uint32_t offset, len;
};

/* A datagram that came over UDP, not yet read. */
struct rs_dg_udp_msg {
	struct rs_dg_udp_msg *next;
	struct sockaddr_storage from;
	socklen_t fromlen;
	uint32_t len;
	uint8_t data[];
};

struct rs_dgram {
	int udp;
	/* the UDP socket and every QP's completion channel, for sleeping */
	int epfd;
	struct rs_dg_qp *qps;
	struct rs_dg_dest *dests;
	/* rconnect()'s peer */
	struct rs_dg_dest *conn_dest;
	/* sq_size send slots of RS_DG_SLOT, shared by the QPs */
	uint8_t *sbuf;
	uint32_t *free_slots;
	uint32_t nfree;
	struct rs_dg_recv *ring;
	unsigned int head, tail;
	struct rs_dg_udp_msg *udp_first, *udp_last;
	unsigned int udp_queued;
};

/* rsocket_dgram.c */
int rs_dg_init(struct rsock *rs);
void rs_dg_free(struct rsock *rs);
int rs_dg_post_recv(struct rsock *rs, struct rs_dg_qp *qp, uint32_t offset);
struct rs_dg_dest *rs_dg_dest_for(struct rsock *rs, const struct sockaddr *to,
				  socklen_t tolen);
int rs_dg_make_ah(struct rs_dg_dest *dest, uint32_t qpn);
int rs_dg_connect(struct rsock *rs, const struct sockaddr *addr,
		  socklen_t addrlen);

/* rsocket_dgram_io.c */
void rs_dg_progress(struct rsock *rs, bool udp_too);
void rs_dg_drain(struct rsock *rs);
bool rs_dg_readable(struct rsock *rs);
bool rs_dg_writable(struct rsock *rs);
int rs_dg_wait(struct rsock *rs, bool (*ready)(struct rsock *rs),
	       bool nonblock);
void rs_dg_take_cq_events(struct rsock *rs);
ssize_t rs_dg_sendv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		    size_t total, int flags, const struct sockaddr *to,
		    socklen_t tolen);
ssize_t rs_dg_recvv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		    size_t total, int flags, struct sockaddr *from,
		    socklen_t *fromlen, int *msg_flags);
int rs_dg_shutdown(struct rsock *rs, int how);

#endif
