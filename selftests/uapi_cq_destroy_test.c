// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Armed CQs destroyed while their completions arrive. rxe of 5.10 and 6.1
 * calls an armed CQ's completion handler from a tasklet that its CQ
 * destroy never kills, so the module lets each CPU run its queued
 * tasklets before an armed CQ goes (kmod/rxe_cq_tasklet.c). Each round
 * sends a UD message to itself through such a CQ, waits a varying few
 * microseconds and destroys the QP and the CQ, with a busy thread taking
 * a CPU. Every destroy succeeds and the objects go back to zero; the
 * debug guest's KASAN watches the CQs' memory.
 *
 * The use-after-free itself needs the CPU with the queued tasklet to stop
 * for longer than the two destroys take (a vCPU the host does not run),
 * which no program in the guest can arrange: this test does not reproduce
 * it on demand, it runs the rule on every round.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#include "rdmachan_cm_raw.h"
#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

#define ROUNDS	300
#define QKEY	0x11
#define MSG	64
/* a UD receive starts with the 40-byte GRH */
#define GRH	40

static atomic_bool busy_stop;

static void *busy(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&busy_stop, memory_order_relaxed))
		;
	return NULL;
}

/* Spins for about @us microseconds. */
static void spin_us(unsigned int us)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000L +
		 (now.tv_nsec - start.tv_nsec) / 1000 < (long)us);
}

FIXTURE(armed) {
	long objects;
	int fd;
	int chfd;
	__u32 ctx;
	__u32 pd;
	struct raw_mr mr;
	__u32 ah;
	char *buf;
	pthread_t busy;
};

FIXTURE_VARIANT(armed) {
	bool ring;	/* a completion ring, whose device CQ is always armed */
};

FIXTURE_VARIANT_ADD(armed, on_a_channel) {
	.ring = false,
};

FIXTURE_VARIANT_ADD(armed, with_a_ring) {
	.ring = true,
};

FIXTURE_SETUP(armed)
{
	struct rdmachan_ah_attr ah;

	self->objects = raw_cq_objects();
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	self->buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, self->buf, 4096,
				IBV_ACCESS_LOCAL_WRITE, &self->mr));
	ASSERT_EQ(0, raw_create_channel(self->fd, &self->chfd));
	ah_to_self(self->fd, self->ctx, &ah);
	ASSERT_EQ(0, create_ah(self->fd, self->pd, &ah, &self->ah));
	atomic_store(&busy_stop, false);
	ASSERT_EQ(0, pthread_create(&self->busy, NULL, busy, NULL));
}

FIXTURE_TEARDOWN(armed)
{
	atomic_store(&busy_stop, true);
	pthread_join(self->busy, NULL);
	close(self->chfd);
	close(self->fd);
	munmap(self->buf, 4096);
	EXPECT_EQ(self->objects, raw_cq_objects());
}

/* A UD QP on @cq in RTS, a receive posted and a message sent to itself. */
static __attribute__((noinline)) int send_to_self(FIXTURE_DATA(armed) *self, __u32 cq, __u32 *qp)
{
	struct raw_qp_init init = {
		.pd = self->pd, .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_UD, .max_wr = 4, .max_sge = 1,
	};
	struct rdmachan_send_wr wr = {
		.wr_id = 2, .opcode = IBV_WR_SEND, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .ah = self->ah,
		.remote_qkey = QKEY,
	};
	__u32 qpn = 0;
	int ret;

	ret = raw_create_qp(self->fd, &init, qp, &qpn, NULL);
	if (ret)
		return ret;
	wr.remote_qpn = qpn;
	ret = ud_ready(self->fd, *qp, QKEY);
	if (!ret)
		ret = raw_post_recv1(self->fd, *qp, 1, self->buf + MSG,
				     MSG + GRH, self->mr.lkey);
	if (!ret)
		ret = raw_post_send1(self->fd, *qp, &wr, self->buf, MSG,
				     self->mr.lkey);
	return ret;
}

/* One CQ's round; 0, or the errno of the step named in *@step. */
static __attribute__((noinline)) int one_round(FIXTURE_DATA(armed) *self, bool ring, unsigned int us,
		     const char **step)
{
	__u32 cq = 0, qp = 0;
	int ret;

	*step = "create the CQ";
	if (ring)
		ret = raw_create_cq_ring(self->fd, self->ctx, 8, NULL, &cq);
	else
		ret = raw_create_cq(self->fd, self->ctx, 8, self->chfd, 0, &cq);
	if (ret)
		return ret;
	*step = "arm the CQ";
	if (!ring)
		ret = raw_notify_cq(self->fd, cq, 0);
	if (!ret) {
		*step = "send to itself";
		ret = send_to_self(self, cq, &qp);
	}
	if (ret)
		return ret;
	spin_us(us);
	*step = "destroy the QP";
	ret = raw_destroy(self->fd, qp);
	if (!ret) {
		*step = "destroy the CQ";
		ret = raw_destroy(self->fd, cq);
	}
	return ret;
}

TEST_F(armed, destroyed_as_its_completions_arrive)
{
	const char *step = "";
	unsigned int round;
	int ret = 0;

	for (round = 0; round < ROUNDS && !ret; round++)
		ret = one_round(self, variant->ring, round % 50, &step);
	ASSERT_EQ(0, ret) {
		TH_LOG("round %u: %s: %s", round, step, strerror(ret));
	}
}

TEST_HARNESS_MAIN
