/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rsockets (rsocket(7)) on librdmachan's CM: what the rsocket_*.c files
 * share. The wire protocol is rdma-core's (librdmacm/docs/rsocket), so
 * that either end of a connection may be the stock librdmacm.
 */
#ifndef RDMACHAN_LIB_RSOCKET_H
#define RDMACHAN_LIB_RSOCKET_H

#include <endian.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "mode.h"

/*
 * The wire. Every message is the 32-bit immediate of an RDMA write (of
 * data, or of nothing): its top three bits say what it is, the rest
 * carries a length, a credit sequence number or a control code. iWARP has
 * no immediate data: there a message is a 4-byte inline send in the
 * sender's byte order, after the write it tells of (rdma-core's
 * RS_OPT_MSG_SEND), and every receive has a 4-byte slot for it.
 */
#define RS_WIRE_VERSION		1
#define RS_WIRE_BIG_ENDIAN	(1 << 0)
#define RS_WIRE_HAS_IOMAP	(1 << 1)

enum rs_wire_op {
	RS_OP_DATA = 0,
	/* a write to an iomap, never sent as a message */
	RS_OP_WRITE = 2,
	RS_OP_CREDITS = 4,
	RS_OP_IOMAP = 6,
	RS_OP_CTRL = 7,
};

enum rs_wire_ctrl {
	RS_CTRL_DISCONNECT = 0,
	RS_CTRL_KEEPALIVE = 1,
	RS_CTRL_SHUTDOWN = 2,
};

#define RS_MSG(op, value)	(((uint32_t)(op) << 29) | ((value) & 0x1fffffffu))
#define RS_MSG_OP(msg)		((msg) >> 29)
#define RS_MSG_VALUE(msg)	((msg) & 0x1fffffffu)

/* A buffer the peer may write into: in the sender's byte order. */
struct rs_wire_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

/* An iomap entry: writes to [offset, offset + sge.length) land in sge. */
struct rs_wire_iomap {
	uint64_t offset;
	struct rs_wire_sge sge;
};

/* The private data of the connect request and of its reply, big-endian. */
struct rs_wire_conn {
	uint8_t version;
	uint8_t flags;
	__be16 credits;
	uint8_t reserved[3];
	uint8_t iomap_scale;
	struct rs_wire_sge target_sgl;
	struct rs_wire_sge data_buf;
};

_Static_assert(sizeof(struct rs_wire_conn) == 40, "rsocket connect data");

/* Entries of the target SGL each end publishes, fixed by the protocol. */
#define RS_TARGET_SGES		2
/* Send queue entries kept for credit and control messages. */
#define RS_CTRL_SLOTS		4
/* The largest write of data, and the send space worth waiting for. */
#define RS_MAX_XFER		65536u
#define RS_SEND_LOWAT		2048u
#define RS_FIRST_XFER		2048u

/*
 * Work request ids: receives (with their message slot's index), sends
 * whose data sits in the send buffer, and the message sends of iWARP
 */
#define RS_WR_RECV		(1ull << 63)
#define RS_WR_SBUF		(1ull << 62)
#define RS_WR_MSG		(1ull << 61)
#define RS_MSG_SIZE		sizeof(uint32_t)

/* How long a wait polls the CQ before it sleeps, as rdma-core's rsockets. */
#define RS_SPIN_US		10
/* How long a connect's address and route resolutions may take each. */
#define RS_RESOLVE_TIMEOUT_MS	2000

#define RS_DEFAULT_QUEUE	384u
#define RS_MIN_QUEUE		16u
#define RS_MAX_QUEUE		0xfffeu
#define RS_DEFAULT_INLINE	64u
#define RS_DEFAULT_BUF		(1u << 17)

enum rs_phase {
	RS_NEW,
	RS_BOUND,
	RS_LISTENING,
	RS_RESOLVING_ADDR,
	RS_RESOLVING_ROUTE,
	RS_CONNECTING,
	RS_CONNECTED,
	RS_CONNECT_FAILED,
	/* the connection is gone; data already received can still be read */
	RS_DISCONNECTED,
};

struct rs_dgram;

struct rs_iomap_region {
	struct rs_iomap_region *next;
	struct ibv_mr *mr;
	uint64_t offset;
	/* the peer's target iomap entry, -1 for a region only read locally */
	int index;
	bool published;
};

/*
 * A thread asleep on an rsocket (in rpoll(), or a datagram rsocket's
 * waiter): whoever takes in an event of the rsocket (a channel's, which
 * then no longer wakes the sleeper) writes to @fd, the sleeper's eventfd.
 */
struct rs_sleeper {
	struct rs_sleeper *next;
	int fd;
	/* written to since the sleep began */
	bool woken;
};

struct rsock {
	int fd;
	int domain;
	/*
	 * References: the descriptor table's, and one per call using the
	 * rsocket, so that rclose() in one thread never frees it under a
	 * call of another (rs_get() and rs_put())
	 */
	unsigned int refs;
	/* rclose() has taken it; guarded by the keepalive list's lock */
	bool closed;
	/* a datagram rsocket's state; NULL for a stream */
	struct rs_dgram *dg;
	struct rdma_event_channel *chan;
	struct rdma_cm_id *id;
	/* guards everything below; dropped while waiting */
	pthread_mutex_t lock;
	pthread_cond_t progressed;
	bool waiting;
	enum rs_phase phase;
	bool nonblock;
	bool can_read;
	bool can_write;
	/* SO_ERROR: a failed connect's errno, read once */
	int so_error;

	/* sizes, settable before the connection exists */
	uint32_t sq_size, rq_size, inline_size;
	uint32_t rbuf_size, sbuf_size;
	uint32_t iomap_entries;
	bool keepalive, nodelay, reuseaddr;
	struct rsock *keepalive_next;
	int keepidle;
	void *route;
	size_t route_len;

	/* the endpoint, once connecting or accepted */
	/* messages are sends, not immediates (iWARP) */
	bool msg_send;
	/* the next receive's message slot, after the receive buffer */
	uint32_t rmsg_slot;
	struct ibv_comp_channel *comp;
	struct ibv_cq *cq;
	unsigned int cq_events;
	bool cq_armed;
	/* the CM channel may hold events (once connected, read only then) */
	bool cm_pending;
	uint8_t *sbuf, *rbuf;
	struct ibv_mr *smr, *rmr, *tmr;
	/* the target SGL (and iomap) the peer writes into */
	volatile struct rs_wire_sge *target_sgl;
	volatile struct rs_wire_iomap *target_iomap;
	bool swap;

	/* sending */
	uint32_t sbuf_head, sbuf_free;
	uint32_t sqe_free, ctrl_free, ctrl_seq;
	uint16_t sseq_no, sseq_comp;
	unsigned int target_idx;
	struct rs_wire_sge remote_sgl;
	unsigned int remote_sgl_idx;
	uint64_t remote_iomap_addr;
	uint32_t remote_iomap_key, remote_iomap_entries;
	uint64_t last_send_ms;

	/* receiving: a ring of the lengths of data messages not yet read */
	uint32_t *rmsg;
	unsigned int rmsg_head, rmsg_tail;
	uint32_t rbuf_read, rbuf_unpublished, rbuf_publish_at;
	uint16_t rseq_no, rseq_grant_at;

	struct rs_iomap_region *iomaps;
	/* the progress counter rpoll() and waiters look for */
	uint64_t progress;
	/* the threads asleep on this rsocket with an eventfd */
	struct rs_sleeper *sleepers;
	/* an eventfd to sleep with, kept between sleeps; or -1 */
	int spare_wake_fd;
};

/* A position in an iovec array. */
struct rs_iter {
	const struct iovec *iov;
	int cnt;
	size_t off;
};

/*
 * A page registered after what is copied into or out of a buffer, and
 * never used: 6.1's rxe reads one entry past an MR's page map when a copy
 * touches the last page of an MR of 256 pages (or a multiple), as a
 * page-aligned 1 MB buffer is (KASAN: slab-out-of-bounds in rxe_mr_copy).
 */
#define RS_RXE_MAP_GUARD	((size_t)sysconf(_SC_PAGESIZE))

/*
 * A destroy that fails mostly does so before it starts (an allocation, a
 * user copy of the command): it is tried again, or its object would stay
 * until exit. A verbs destroy (@call returns an errno) is tried again
 * only where the object's handle cannot have gone to another thread's
 * object (verbs_destroy_may_repeat()); a CM id's handle never can. A CQ
 * is the exception: see rs_destroy_cq_channel().
 */
#define RS_DESTROY_TRIES	3
#define RS_DESTROY(call) do {						\
	int tries_ = 0, ret_;						\
									\
	while ((ret_ = (call)) && verbs_destroy_may_repeat(ret_) &&	\
	       ++tries_ < RS_DESTROY_TRIES)				\
		;							\
} while (0)
#define RS_DESTROY_ID(id) do {						\
	int tries_ = 0;							\
									\
	while (rdma_destroy_id(id) && ++tries_ < RS_DESTROY_TRIES)	\
		;							\
} while (0)

/* Send queue entries a message of data takes: iWARP's write and send. */
static inline uint32_t rs_message_entries(const struct rsock *rs)
{
	return rs->msg_send ? 2 : 1;
}

/*
 * The rsocket files in layers, from the top: a file calls only files of
 * the layers below its own, so no call goes round (check-kmod-layers lib).
 *
 *   1  rsocket_socket.c: rsocket() and rclose()
 *   2  rsocket_data.c, rsocket_poll.c, rsocket_opts.c: the data calls,
 *      rpoll() and rselect(), the options
 *   3  rsocket_conn.c, rsocket_iomap.c: the connection calls, the iomaps
 *   4  rsocket_transfer.c, rsocket_alloc.c, rsocket_keepalive.c,
 *      rsocket_dgram_io.c: what stream transfers share, an rsocket's
 *      state, the keepalive thread, the datagrams' data
 *   5  rsocket_wire.c, rsocket_dgram.c: the engine (posts, completions,
 *      credits, waits), the datagrams' endpoints
 *   6  rsocket_cm.c: the CM events of an rsocket's channel
 *   7  rsocket_endpoint.c: the CQ, QP, buffers and connect data
 *   8  rsocket_table.c, rsocket_iov.c: descriptors and helpers, iovecs
 *
 * The declarations below go from the bottom up; rsocket_dgram.h has the
 * datagram files'.
 */

/* rsocket_table.c */
struct rsock *rs_get(int fd);
struct rsock *rs_take(int fd);
int rs_err(int err);
int rs_add(struct rsock *rs);
void rs_set_fd_nonblock(int fd, bool on);
uint64_t rs_now_us(void);

/* rsocket_iov.c */
size_t rs_iov_total(const struct iovec *iov, int cnt, int *err);
void rs_iter_copy(struct rs_iter *it, uint8_t *buf, size_t len, bool out);
const void *rs_iter_flat(struct rs_iter *it, size_t len);

/* rsocket_endpoint.c */
int rs_create_endpoint(struct rsock *rs);
void rs_destroy_endpoint(struct rsock *rs);
void rs_destroy_cq_channel(struct ibv_cq *cq, struct ibv_comp_channel *comp);
void rs_format_conn(struct rsock *rs, struct rs_wire_conn *c);
int rs_take_conn(struct rsock *rs, const void *data, uint8_t len);
int rs_post_recv(struct rsock *rs);

/* rsocket_cm.c */
int rs_event_errno(const struct rdma_cm_event *ev);
void rs_take_cm_events(struct rsock *rs);
int rs_connect_step(struct rsock *rs);

/* rsocket_wire.c */
void rs_poll_completions(struct rsock *rs);
void rs_take_cq_event(struct rsock *rs);
void rs_count_cq_event(struct rsock *rs);
bool rs_can_send(struct rsock *rs);
bool rs_readable_now(struct rsock *rs);
bool rs_sends_done(struct rsock *rs);
bool rs_ctrl_free(struct rsock *rs);
int rs_post_ctrl(struct rsock *rs, uint32_t msg);
int rs_post_write(struct rsock *rs, struct ibv_sge *sgl, int nsge,
		  uint32_t msg, bool with_imm, uint64_t addr, uint32_t rkey);
int rs_wait_until(struct rsock *rs, bool (*ready)(struct rsock *rs),
		  int timeout_ms);
int rs_wait_for(struct rsock *rs, bool (*ready)(struct rsock *rs),
		bool nonblock);
bool rs_sendable(struct rsock *rs);
void rs_update_credits(struct rsock *rs);

/* rsocket_transfer.c */
int rs_ready_to_transfer(struct rsock *rs);
int rs_wait_to_send(struct rsock *rs, bool nonblock);
uint32_t rs_next_piece(struct rsock *rs, uint32_t *piece, size_t left);
int rs_stage(struct rsock *rs, struct rs_iter *it, uint32_t len,
	     struct ibv_sge *sgl);

/* rsocket_alloc.c */
struct rsock *rs_alloc(int domain, int type, struct rsock *parent);
void rs_put(struct rsock *rs);
void rs_put_held(struct rsock **rs);

/* An rs_get() reference put when the variable goes out of scope. */
#define RS_HELD __attribute__((cleanup(rs_put_held)))

/* rsocket_keepalive.c */
int rs_keepalive_add(struct rsock *rs);
void rs_keepalive_remove(struct rsock *rs);
void rs_keepalive_end(struct rsock *rs);

/* rsocket_iomap.c */
int rs_publish_iomaps(struct rsock *rs, bool nonblock);

/* rsocket_wake.c */
void rs_sleeper_add(struct rsock *rs, struct rs_sleeper *s);
bool rs_sleeper_remove(struct rsock *rs, struct rs_sleeper *s);
void rs_wake_sleepers(struct rsock *rs);
void rs_tell_progress(struct rsock *rs);
int rs_wake_fd_take(struct rsock *rs);
void rs_wake_fd_give(struct rsock *rs, int fd);
void rs_wait_for_waiter(struct rsock *rs);

/* rs_poll_unlocked()'s flags */
#define RS_SLEEP_WAITER		0x1	/* the caller is @rs's one waiter */
#define RS_SLEEP_UNCANCELLABLE	0x2	/* not a cancellation point */
int rs_poll_unlocked(struct rsock *rs, struct pollfd *pfd, int n,
		     int timeout_ms, unsigned int flags);

/* rsocket_cancel.c */
int rs_cancel_off(bool cancellable);
void rs_cancel_restore(int *unused);
bool rs_sleep_cancellable_begin(void);
void rs_sleep_cancellable_end(bool began);

/*
 * The first line of an exported rsocket call: no cancellation in it but
 * in its sleeps, and there only if @cancellable and its caller allows it.
 */
#define RS_CANCEL_OFF(cancellable)					\
	int rs_cancel_off_ __attribute__((cleanup(rs_cancel_restore),	\
					  unused)) =			\
		rs_cancel_off(cancellable)

/* rsocket_conn.c */
int rs_disconnect(struct rsock *rs);

#endif
