// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CQs with a mapped completion ring (RDMACHAN_CREATE_CQ_RING) through raw
 * ioctls, over rxe: the ring wraps many times without losing or repeating
 * a completion, never writes over one the process has not handed back,
 * takes flushes and the completions of a removed device, and its mapping
 * outlives the CQ, the file and fork; bad mappings are refused.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

#define BUF_SIZE 4096
#define LOCAL_WRITE IBV_ACCESS_LOCAL_WRITE

/* The process's side of a ring, as librdmachan keeps it. */
struct ring {
	int fd;
	__u32 cq;
	__u32 entries;
	__u32 size;
	__u64 offset;
	struct rdmachan_cq_ring *r;
	__u32 consumer;
	unsigned int updates;
	/* the most completions ever seen unread at once */
	__u32 most;
};

static int ring_create(int fd, __u32 ctx, __u32 cqe, struct ring *ring)
{
	struct rdmachan_create_cq out = {};
	int ret;

	memset(ring, 0, sizeof(*ring));
	ret = raw_create_cq_ring(fd, ctx, cqe, &out, &ring->cq);
	if (ret)
		return ret;
	ring->fd = fd;
	ring->entries = out.out_ring_entries;
	ring->size = out.out_ring_size;
	ring->offset = out.out_ring_offset;
	ring->r = mmap(NULL, ring->size, PROT_READ, MAP_SHARED, fd,
		       (off_t)ring->offset);
	return ring->r == MAP_FAILED ? errno : 0;
}

/* Up to @max completions; -errno when the ring says something impossible. */
static int ring_poll(struct ring *ring, struct rdmachan_wc *wc, int max)
{
	__u32 prod = __atomic_load_n(&ring->r->producer, __ATOMIC_ACQUIRE);
	__u32 avail = prod - ring->consumer;
	int n = 0, ret;

	if (!avail && (__atomic_load_n(&ring->r->flags, __ATOMIC_RELAXED) &
		       RDMACHAN_CQ_RING_STALLED)) {
		ret = raw_update_cq_ring(ring->fd, ring->cq, ring->consumer);
		if (ret)
			return -ret;
		ring->updates++;
		prod = __atomic_load_n(&ring->r->producer, __ATOMIC_ACQUIRE);
		avail = prod - ring->consumer;
	}
	if (avail > ring->entries)
		return -EOVERFLOW;
	if (avail > ring->most)
		ring->most = avail;
	while (avail-- && n < max)
		wc[n++] = ring->r->wcs[ring->consumer++ & (ring->entries - 1)];
	return n;
}

/* How many completions the ring holds that were not read yet. */
static __u32 ring_unread(struct ring *ring)
{
	return __atomic_load_n(&ring->r->producer, __ATOMIC_ACQUIRE) - ring->consumer;
}

/* Polls until @n completions arrived or about 5 s passed. */
static int ring_poll_n(struct ring *ring, struct rdmachan_wc *wc, int n)
{
	int got = 0, ret, i;

	for (i = 0; i < 5000 && got < n; i++) {
		ret = ring_poll(ring, wc + got, n - got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got < n)
			usleep(1000);
	}
	return got;
}

/* Everything the ring has and will get: until it stays empty for 200 ms. */
static int ring_drain(struct ring *ring, struct rdmachan_wc *wc, int max)
{
	int got = 0, quiet = 0, ret;

	while (quiet < 4 && got < max) {
		ret = ring_poll(ring, wc + got, max - got);
		if (ret < 0)
			return ret;
		got += ret;
		quiet = ret ? 0 : quiet + 1;
		if (!ret)
			usleep(50000);
	}
	return got;
}

static void ring_unmap(struct ring *ring)
{
	if (ring->r && ring->r != MAP_FAILED)
		munmap(ring->r, ring->size);
	ring->r = NULL;
}

/*
 * Two RC QPs of one file connected to each other. QP 1 receives into
 * @ring (cqe @RING_CQE); everything else completes on @cq.
 */
#define RING_CQE 8

FIXTURE(rc) {
	int fd;
	__u32 ctx, pd, cq, qp[2], qpn[2];
	struct ring ring;
	char *buf;
	struct raw_mr mr;
	long objects;
};

/* The fixture with a ring of @ring_cqe and QPs of @max_wr. */
static void rc_open(struct __test_metadata *_metadata, FIXTURE_DATA(rc) *self,
		    __u32 ring_cqe, __u32 max_wr)
{
	struct raw_qp_init init = { .qp_type = IBV_QPT_RC, .max_wr = max_wr };
	struct rdmachan_ah_attr ah;
	int i;

	self->objects = raw_cq_objects();
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 256, RDMACHAN_NO_FD,
				   0, &self->cq));
	ASSERT_EQ(0, ring_create(self->fd, self->ctx, ring_cqe, &self->ring));
	self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, self->buf, BUF_SIZE,
				LOCAL_WRITE, &self->mr));
	init.pd = self->pd;
	init.send_cq = self->cq;
	init.recv_cq = self->cq;
	ASSERT_EQ(0, raw_create_qp(self->fd, &init, &self->qp[0],
				   &self->qpn[0], NULL));
	init.recv_cq = self->ring.cq;
	ASSERT_EQ(0, raw_create_qp(self->fd, &init, &self->qp[1],
				   &self->qpn[1], NULL));
	ah_to_self(self->fd, self->ctx, &ah);
	for (i = 0; i < 2; i++)
		/* a sender gives up soon once its peer's ring is full */
		ASSERT_EQ(0, raw_rc_connect_with(self->fd, self->qp[i],
						 self->qpn[!i], &ah,
						 RAW_RC_FAIL_FAST));
}

static void rc_close(struct __test_metadata *_metadata, FIXTURE_DATA(rc) *self)
{
	close(self->fd);
	ring_unmap(&self->ring);
	munmap(self->buf, BUF_SIZE);
	EXPECT_EQ(self->objects, raw_cq_objects());
}

FIXTURE_SETUP(rc)
{
	rc_open(_metadata, self, RING_CQE, 64);
}

FIXTURE_TEARDOWN(rc)
{
	rc_close(_metadata, self);
}

/* @n receives on QP 1, then @n sends from QP 0, wr_ids from @first. */
static int exchange(FIXTURE_DATA(rc) *self, __u64 first, int n)
{
	struct rdmachan_send_wr wr = {
		.opcode = IBV_WR_SEND, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = raw_post_recv1(self->fd, self->qp[1], first + i,
				     self->buf, 64, self->mr.lkey);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		wr.wr_id = first + i;
		ret = raw_post_send1(self->fd, self->qp[0], &wr,
				     self->buf + 128, 16, self->mr.lkey);
		if (ret)
			return ret;
	}
	return 0;
}

TEST_F(rc, create_reply_and_ring_header)
{
	struct rdmachan_create_cq old = {
		.size = 40, .flags = RDMACHAN_CREATE_CQ_RING,
		.context = self->ctx, .cqe = 4,
		.comp_channel = RDMACHAN_NO_FD,
	};
	struct rdmachan_create_cq with_channel = {
		.size = sizeof(with_channel), .flags = RDMACHAN_CREATE_CQ_RING,
		.context = self->ctx, .cqe = 4,
	};
	struct rdmachan_wc wc;
	__u32 cq = 0;
	int chfd = -1;

	/* more entries than the device's CQ, a power of two, all mapped */
	EXPECT_LT(RING_CQE, self->ring.entries);
	EXPECT_EQ(0, self->ring.entries & (self->ring.entries - 1));
	EXPECT_EQ(0, self->ring.size % getpagesize());
	EXPECT_LE(RDMACHAN_CQ_RING_WCS_OFFSET +
		  self->ring.entries * sizeof(struct rdmachan_wc),
		  self->ring.size);
	EXPECT_EQ(self->ring.entries, self->ring.r->entries);
	EXPECT_EQ(0, self->ring.r->producer);
	EXPECT_EQ(0, self->ring.r->flags);

	/* a ring CQ is read from its ring; it arms nothing */
	EXPECT_EQ(-EINVAL, raw_poll_cq(self->fd, self->ring.cq, &wc, 1));
	EXPECT_EQ(0, raw_notify_cq(self->fd, self->ring.cq, 0));
	EXPECT_EQ(EINVAL, raw_notify_cq(self->fd, self->ring.cq, 1));
	/* no completion channel with a ring */
	ASSERT_EQ(0, raw_create_channel(self->fd, &chfd));
	with_channel.comp_channel = chfd;
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_CREATE_CQ, &with_channel));
	EXPECT_EQ(EINVAL, errno);
	close(chfd);
	/* the first layout makes a ring CQ too, and gets no ring fields */
	ASSERT_EQ(0, ioctl(self->fd, RDMACHAN_IOC_CREATE_CQ, &old));
	EXPECT_EQ(-EINVAL, raw_poll_cq(self->fd, old.out_handle, &wc, 1));
	EXPECT_EQ(0, raw_destroy(self->fd, old.out_handle));

	/* the consumer index only moves forward, and not past the producer */
	EXPECT_EQ(EINVAL, raw_update_cq_ring(self->fd, self->ring.cq, 1));
	EXPECT_EQ(EINVAL, raw_update_cq_ring(self->fd, self->ring.cq, -1u));
	EXPECT_EQ(0, raw_update_cq_ring(self->fd, self->ring.cq, 0));
	/* a CQ without a ring, a handle that is no CQ, no handle */
	EXPECT_EQ(EINVAL, raw_update_cq_ring(self->fd, self->cq, 0));
	EXPECT_EQ(ENOENT, raw_update_cq_ring(self->fd, self->pd, 0));
	EXPECT_EQ(ENOENT, raw_update_cq_ring(self->fd, 0x7fff0000, 0));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 4, RDMACHAN_NO_FD, 0,
				   &cq));
	EXPECT_EQ(0, raw_destroy(self->fd, cq));
}

/*
 * Many times round a 16-entry ring, at most 8 completions outstanding:
 * every completion comes once, in order, with its QP's number, and the
 * ring stalls and is refilled each time round.
 */
TEST_F(rc, wraps_around_many_times)
{
	struct rdmachan_wc wc[RING_CQE], swc[RING_CQE];
	const int rounds = 200;
	__u64 next = 0;
	int r, i;

	for (r = 0; r < rounds; r++) {
		ASSERT_EQ(0, exchange(self, next, RING_CQE));
		ASSERT_EQ(RING_CQE, ring_poll_n(&self->ring, wc, RING_CQE));
		for (i = 0; i < RING_CQE; i++) {
			ASSERT_EQ(IBV_WC_SUCCESS, wc[i].status);
			ASSERT_EQ(IBV_WC_RECV, wc[i].opcode);
			ASSERT_EQ(next + i, wc[i].wr_id);
			ASSERT_EQ(self->qpn[1], wc[i].qp_num);
			ASSERT_EQ(16, wc[i].byte_len);
		}
		ASSERT_EQ(RING_CQE, raw_poll_n(self->fd, self->cq, swc,
					       RING_CQE));
		next += RING_CQE;
	}
	/* nothing more, and the ring went round more than 100 times */
	EXPECT_EQ(0, ring_poll(&self->ring, wc, 1));
	EXPECT_LT(100 * self->ring.entries, (__u64)rounds * RING_CQE + 1);
	EXPECT_EQ((__u32)next, self->ring.r->producer);
	EXPECT_LE(rounds * RING_CQE / self->ring.entries - 1,
		  self->ring.updates);
	EXPECT_GE(self->ring.entries, self->ring.most);
}

/*
 * Receives complete while nobody polls: the ring fills and stalls, the
 * rest wait in the device's CQ until it overflows, which puts the QP in
 * the error state as rxe does for any CQ. Nothing is written over: the
 * completions read are the first ones, each once, in order, then only
 * flushes of later receives.
 */
TEST_F(rc, full_ring_overwrites_nothing)
{
	const int n = 48;
	struct rdmachan_wc wc[64];
	int got, i, sends = 0, tries;

	ASSERT_EQ(0, exchange(self, 0, n));
	/* wait for the senders' side to finish: success, error or flush */
	for (tries = 0; tries < 500 && sends < n; tries++) {
		got = raw_poll_cq(self->fd, self->cq, wc, 64);
		ASSERT_LE(0, got);
		sends += got;
		if (sends < n)
			usleep(10000);
	}
	EXPECT_EQ(n, sends);
	/* the module stopped at a full ring and said so */
	EXPECT_EQ(self->ring.entries, self->ring.r->producer);
	EXPECT_TRUE(self->ring.r->flags & RDMACHAN_CQ_RING_STALLED);
	EXPECT_EQ(IBV_QPS_ERR, raw_qp_state(self->fd, self->qp[1]));

	got = ring_drain(&self->ring, wc, 64);
	/*
	 * The successes come first, in order from the first receive, at
	 * least the device CQ's size worth. Where the device's CQ overflowed
	 * depends on how soon the ring's softirq poll emptied it: the
	 * completion that overflowed is lost, as on any CQ, and what comes
	 * after it are flushes of later receives, each once, in order.
	 */
	for (i = 0; i < got && wc[i].status == IBV_WC_SUCCESS; i++)
		EXPECT_EQ((__u64)i, wc[i].wr_id);
	ASSERT_LE(RING_CQE, i);
	for (; i < got; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
		EXPECT_LT(wc[i - 1].wr_id, wc[i].wr_id);
	}
	EXPECT_GT(n, got);
	EXPECT_GT((__u64)n, wc[got - 1].wr_id);
	EXPECT_GE(self->ring.entries, self->ring.most);
}

/*
 * More completions wait in the device's CQ than one poll budget (256)
 * while the ring is full: the refill after the ring is read empty moves
 * them in over several budgets, letting the lock go between them, and
 * nothing is lost, repeated or reordered.
 */
TEST(refill_takes_several_budgets)
{
	const __u32 cqe = 600, chunk = 100;
	FIXTURE_DATA(rc) rc = {}, *self = &rc;
	struct rdmachan_wc swc[100], *wc;
	__u32 n, done, got, i;

	rc_open(_metadata, self, cqe, chunk);
	/* a full ring and about 500 more in the device's CQ (600 or more) */
	n = (self->ring.entries + 500) / chunk * chunk;
	wc = calloc(n, sizeof(*wc));
	ASSERT_NE(NULL, wc);
	for (done = 0; done < n; done += chunk) {
		ASSERT_EQ(0, exchange(self, done, chunk));
		ASSERT_EQ(chunk, raw_poll_n(self->fd, self->cq, swc, chunk));
		for (i = 0; i < chunk; i++)
			ASSERT_EQ(IBV_WC_SUCCESS, swc[i].status);
	}
	EXPECT_EQ(self->ring.entries, self->ring.r->producer);
	EXPECT_TRUE(self->ring.r->flags & RDMACHAN_CQ_RING_STALLED);

	got = ring_drain(&self->ring, wc, n);
	EXPECT_EQ(n, got);
	for (i = 0; i < got; i++) {
		ASSERT_EQ(IBV_WC_SUCCESS, wc[i].status);
		ASSERT_EQ((__u64)i, wc[i].wr_id);
	}
	EXPECT_EQ(1, self->ring.updates);
	EXPECT_EQ(IBV_QPS_RTS, raw_qp_state(self->fd, self->qp[1]));
	free(wc);
	rc_close(_metadata, self);
}

/* A QP moved to the error state flushes its receives into the ring. */
TEST_F(rc, flushes_reach_the_ring)
{
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct rdmachan_wc wc[RING_CQE];
	int i;

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, raw_post_recv1(self->fd, self->qp[1], 100 + i,
					    self->buf, 64, self->mr.lkey));
	ASSERT_EQ(0, raw_modify_qp(self->fd, self->qp[1], IBV_QP_STATE, &a));
	ASSERT_EQ(5, ring_poll_n(&self->ring, wc, 5));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
		EXPECT_EQ(100 + i, wc[i].wr_id);
		EXPECT_EQ(self->qpn[1], wc[i].qp_num);
	}
	usleep(50000);
	EXPECT_EQ(0, ring_poll(&self->ring, wc, RING_CQE));
}

/* Completions of a destroyed QP keep its number in the ring. */
TEST_F(rc, completions_of_a_destroyed_qp)
{
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct rdmachan_wc wc[4];
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, raw_post_recv1(self->fd, self->qp[1], i,
					    self->buf, 64, self->mr.lkey));
	ASSERT_EQ(0, raw_modify_qp(self->fd, self->qp[1], IBV_QP_STATE, &a));
	/*
	 * The driver flushes after the state change, in its own time, and a
	 * destroy need not complete what is not flushed yet (nor does a
	 * uverbs QP's): the flushes are in the ring, unread, before the QP
	 * goes.
	 */
	for (i = 0; i < 5000 && ring_unread(&self->ring) < 3; i++)
		usleep(1000);
	ASSERT_EQ(3, ring_unread(&self->ring));
	ASSERT_EQ(0, raw_destroy(self->fd, self->qp[1]));
	ASSERT_EQ(3, ring_poll_n(&self->ring, wc, 3));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
		EXPECT_EQ(self->qpn[1], wc[i].qp_num);
	}
}

/* The mapping stays, readable, after the CQ is destroyed. */
TEST_F(rc, destroy_cq_then_touch_and_unmap)
{
	struct rdmachan_wc wc[RING_CQE];
	long rings = rdmachan_counter("cq_rings");

	ASSERT_EQ(0, exchange(self, 7, 2));
	ASSERT_EQ(2, ring_poll_n(&self->ring, wc, 2));
	ASSERT_EQ(0, raw_destroy(self->fd, self->qp[1]));
	ASSERT_EQ(0, raw_destroy(self->fd, self->ring.cq));
	EXPECT_EQ(ENOENT, raw_update_cq_ring(self->fd, self->ring.cq, 2));
	/* the memory is the mapping's now */
	EXPECT_EQ(rings, rdmachan_counter("cq_rings"));
	EXPECT_EQ(2, self->ring.r->producer);
	EXPECT_EQ(self->ring.entries, self->ring.r->entries);
	EXPECT_EQ(8, self->ring.r->wcs[1].wr_id);
	/* the handle maps nothing any more */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, self->ring.size, PROT_READ,
				   MAP_SHARED, self->fd,
				   (off_t)self->ring.offset));
	ring_unmap(&self->ring);
	EXPECT_EQ(rings - 1, rdmachan_counter("cq_rings"));
}

/*
 * A forked child inherits the mapping and reads it, also after the
 * parent destroyed the CQ; it cannot map the parent's file itself.
 */
TEST_F(rc, fork_child_reads_the_ring)
{
	struct rdmachan_wc wc[2];
	int go[2], status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, exchange(self, 40, 2));
	ASSERT_EQ(2, ring_poll_n(&self->ring, wc, 2));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		void *p;

		close(go[1]);
		if (self->ring.r->producer != 2 || self->ring.r->wcs[0].wr_id != 40)
			_exit(10);
		p = mmap(NULL, self->ring.size, PROT_READ, MAP_SHARED,
			 self->fd, (off_t)self->ring.offset);
		if (p != MAP_FAILED || errno != EACCES)
			_exit(11);
		/* the parent destroys the CQ meanwhile */
		if (read(go[0], &c, 1) != 1)
			_exit(12);
		if (self->ring.r->producer != 2 ||
		    self->ring.r->wcs[1].wr_id != 41 ||
		    self->ring.r->entries != self->ring.entries)
			_exit(13);
		ring_unmap(&self->ring);
		_exit(0);
	}
	close(go[0]);
	ASSERT_EQ(0, raw_destroy(self->fd, self->qp[1]));
	ASSERT_EQ(0, raw_destroy(self->fd, self->ring.cq));
	ring_unmap(&self->ring);
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(go[1]);
}

/* Closing the file with the ring mapped: the mapping keeps the file. */
TEST_F(rc, close_file_with_the_ring_mapped)
{
	struct rdmachan_wc wc[2];
	long files = rdmachan_counter("files");

	ASSERT_EQ(0, exchange(self, 3, 2));
	ASSERT_EQ(2, ring_poll_n(&self->ring, wc, 2));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(files, rdmachan_counter("files"));
	EXPECT_EQ(2, self->ring.r->producer);
	EXPECT_EQ(4, self->ring.r->wcs[1].wr_id);
	ring_unmap(&self->ring);
	/* the last reference to the file went with the mapping */
	EXPECT_EQ(files - 1, rdmachan_counter("files"));
}

/*
 * Mappings that are refused: writable, executable, private, of another
 * length or offset, of a CQ without a ring, of another file's CQ; a
 * ring mapping cannot be made writable or cut in parts.
 */
TEST_F(rc, bad_mappings_are_refused)
{
	size_t size, page = getpagesize();
	struct ring big;
	off_t off;
	void *p;
	int fd2;

	/* a ring of several pages */
	ASSERT_EQ(0, ring_create(self->fd, self->ctx, 200, &big));
	size = big.size;
	off = (off_t)big.offset;
	ASSERT_LT(page, size);

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, size, PROT_WRITE, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	/* EPERM when /dev is mounted noexec */
	EXPECT_TRUE(errno == EACCES || errno == EPERM);
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, size + page, PROT_READ, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, size - page, PROT_READ, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd, off + page);
	EXPECT_EQ(MAP_FAILED, p);
	/* the plain CQ, the PD, offset 0 */
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)self->cq * page);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)self->pd * page);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	/* another file: its handles are its own */
	fd2 = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd2);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd2, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	close(fd2);

	/* a good mapping stays read-only and whole */
	EXPECT_EQ(-1, mprotect(big.r, size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(big.r, page, PROT_NONE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap((char *)big.r + page, page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(big.entries, big.r->entries);
	/* a second mapping of the same ring is fine */
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fd, off);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(big.entries, ((struct rdmachan_cq_ring *)p)->entries);
	EXPECT_EQ(0, munmap(p, size));
	ring_unmap(&big);
	EXPECT_EQ(0, raw_destroy(self->fd, big.cq));
}

struct poller {
	struct ring *ring;
	pthread_mutex_t *lock;
	volatile int *stop;
	unsigned long seen[64];
	int bad;
};

/* Several threads poll one ring, taking turns under a lock. */
static void *poller_thread(void *arg)
{
	struct poller *p = arg;
	struct rdmachan_wc wc[4];
	int n, i;

	while (!*p->stop) {
		pthread_mutex_lock(p->lock);
		n = ring_poll(p->ring, wc, 4);
		pthread_mutex_unlock(p->lock);
		if (n < 0)
			p->bad = 1;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				p->bad = 1;
			p->seen[wc[i].wr_id % 64]++;
		}
	}
	return NULL;
}

TEST_F(rc, concurrent_pollers)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct poller p[3] = {};
	struct rdmachan_wc swc[RING_CQE];
	volatile int stop = 0;
	pthread_t t[3];
	unsigned long total;
	int i, r, k;

	for (i = 0; i < 3; i++) {
		p[i].ring = &self->ring;
		p[i].lock = &lock;
		p[i].stop = &stop;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, poller_thread, &p[i]));
	}
	for (r = 0; r < 64; r++) {
		ASSERT_EQ(0, exchange(self, r * 4, 4));
		ASSERT_EQ(4, raw_poll_n(self->fd, self->cq, swc, 4));
		/* wait until the pollers took them: the ring has 8 in flight at most */
		for (k = 0; k < 5000; k++) {
			total = 0;
			for (i = 0; i < 3; i++)
				for (int j = 0; j < 64; j++)
					total += p[i].seen[j];
			if (total == (unsigned long)(r + 1) * 4)
				break;
			usleep(1000);
		}
	}
	stop = 1;
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, p[i].bad);
	}
	/* each of the 256 completions came to exactly one poller */
	for (k = 0; k < 64; k++) {
		total = 0;
		for (i = 0; i < 3; i++)
			total += p[i].seen[k];
		EXPECT_EQ(4, total);
	}
}

/* A QP of @ring's CQ in INIT, with @n receives posted from wr_id @first. */
static int init_qp_with_recvs(int fd, __u32 pd, struct ring *ring,
			      struct raw_mr *mr, char *buf, int n, __u64 first,
			      __u32 *qp, __u32 *qpn)
{
	struct raw_qp_init init = {
		.qp_type = IBV_QPT_RC, .max_wr = 32, .pd = pd,
		.send_cq = ring->cq, .recv_cq = ring->cq,
	};
	struct rdmachan_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int ret, i;

	ret = raw_create_qp(fd, &init, qp, qpn, NULL);
	if (!ret)
		ret = raw_modify_qp(fd, *qp, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, &a);
	for (i = 0; !ret && i < n; i++)
		ret = raw_post_recv1(fd, *qp, first + i, buf, 64, mr->lkey);
	return ret;
}

/*
 * The device goes away with receives posted: their flushes reach the
 * ring, which stays mapped and readable. The module has not been told
 * that the first 10 were read, so the ring fills after 6 more; the rest
 * are kept and come with RDMACHAN_IOC_UPDATE_CQ_RING, after the device
 * is gone. Destroy and unmap work after it.
 */
TEST(device_removal_with_a_mapped_ring)
{
	long objects = raw_cq_objects();
	struct rdmachan_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct rdmachan_wc wc[40];
	struct raw_mr mr;
	struct ring ring;
	__u32 ctx, pd = 0, qp[2] = {}, qpn[2] = {};
	char *buf;
	int fd, i, got;

	ASSERT_EQ(0, rxe_restore());
	fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd);
	buf = malloc(BUF_SIZE);
	ASSERT_NE(NULL, buf);
	ctx = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, ctx);
	ASSERT_EQ(0, raw_alloc_pd(fd, ctx, &pd));
	ASSERT_EQ(0, raw_reg_mr(fd, pd, buf, BUF_SIZE, LOCAL_WRITE, &mr));
	ASSERT_EQ(0, ring_create(fd, ctx, RING_CQE, &ring));
	ASSERT_EQ(16, ring.entries);

	ASSERT_EQ(0, init_qp_with_recvs(fd, pd, &ring, &mr, buf, 10, 0,
					&qp[0], &qpn[0]));
	ASSERT_EQ(0, raw_modify_qp(fd, qp[0], IBV_QP_STATE, &err));
	ASSERT_EQ(10, ring_poll_n(&ring, wc, 10));
	EXPECT_EQ(0, ring.updates);
	ASSERT_EQ(0, init_qp_with_recvs(fd, pd, &ring, &mr, buf, 12, 100,
					&qp[1], &qpn[1]));

	ASSERT_EQ(0, run_cmd("rdma link delete %s", RDMACHAN_TEST_DEVICE));
	got = ring_poll_n(&ring, wc, 12);
	EXPECT_EQ(12, got);
	for (i = 0; i < got; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
		EXPECT_EQ((__u64)100 + i, wc[i].wr_id);
		EXPECT_EQ(qpn[1], wc[i].qp_num);
	}
	EXPECT_EQ(1, ring.updates);
	EXPECT_EQ(0, ring_poll(&ring, wc, 1));
	EXPECT_EQ(ENODEV, raw_notify_cq(fd, ring.cq, 0));
	EXPECT_EQ(0, raw_destroy(fd, qp[0]));
	EXPECT_EQ(0, raw_destroy(fd, qp[1]));
	EXPECT_EQ(0, raw_destroy(fd, ring.cq));
	EXPECT_EQ(22, ring.r->producer);
	close(fd);
	ring_unmap(&ring);
	free(buf);
	EXPECT_EQ(objects, raw_cq_objects());
	ASSERT_EQ(0, rxe_restore());
}

TEST_HARNESS_MAIN
