// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completions of a QP destroyed before they are polled. A kernel CQ's
 * work completion points at its QP, which the destroy frees: POLL_CQ
 * must report such completions with the QP's number and never read the
 * QP (under KASAN such a read is a use-after-free report, and on any
 * kernel the freed QP's memory may already hold another object).
 */
#include <sys/mman.h>

#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

#define BUF_SIZE	4096
#define NRECV		4
#define QKEY		0x11110000u

FIXTURE(dead) {
	int fd;
	__u32 ctx, pd, cq, other_cq;
	char *buf;
	struct raw_mr mr;
};

FIXTURE_SETUP(dead)
{
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 64, RDMACHAN_NO_FD, 1,
				   &self->cq));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 64, RDMACHAN_NO_FD, 2,
				   &self->other_cq));
	self->buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	ASSERT_EQ(0, raw_reg_mr(self->fd, self->pd, self->buf, BUF_SIZE,
				IBV_ACCESS_LOCAL_WRITE, &self->mr));
}

FIXTURE_TEARDOWN(dead)
{
	close(self->fd);
	munmap(self->buf, BUF_SIZE);
}

/* A UD QP on @cq with NRECV receives posted, moved to the error state. */
static void flushed_qp(struct __test_metadata *_metadata,
		       FIXTURE_DATA(dead) *self, __u32 cq, __u32 *qp,
		       __u32 *qpn)
{
	struct raw_qp_init init = {
		.qp_type = IBV_QPT_UD, .pd = self->pd, .send_cq = cq,
		.recv_cq = cq,
	};
	struct rdmachan_qp_attr err = { .qp_state = IBV_QPS_ERR };
	int i;

	ASSERT_EQ(0, raw_create_qp(self->fd, &init, qp, qpn, NULL));
	ASSERT_EQ(0, ud_ready(self->fd, *qp, QKEY));
	for (i = 0; i < NRECV; i++)
		ASSERT_EQ(0, raw_post_recv1(self->fd, *qp, 100 + i, self->buf,
					    BUF_SIZE, self->mr.lkey));
	ASSERT_EQ(0, raw_modify_qp(self->fd, *qp, IBV_QP_STATE, &err));
	/* rxe flushes from its tasks: give it the time */
	usleep(200 * 1000);
}

static void expect_flushed(struct __test_metadata *_metadata, int fd,
			   __u32 cq, __u32 qpn)
{
	struct rdmachan_wc wc[NRECV + 1];
	int i;

	ASSERT_EQ(NRECV, raw_poll_n(fd, cq, wc, NRECV));
	for (i = 0; i < NRECV; i++) {
		EXPECT_EQ(100 + i, wc[i].wr_id);
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status);
		EXPECT_EQ(qpn, wc[i].qp_num);
	}
	EXPECT_EQ(0, raw_poll_cq(fd, cq, wc, NRECV + 1));
}

/*
 * rxe in 5.10 gives a freed QP number to the next QP at once (6.1's
 * moves on); the completions must then still come, in order, though
 * their number cannot tell the two QPs apart.
 */
static void same_number_note(struct __test_metadata *_metadata, __u32 qpn,
			     __u32 qpn2)
{
	if (qpn == qpn2)
		TH_LOG("the new QP has the destroyed one's number %u", qpn);
}

TEST_F(dead, flushed_completions_outlive_their_qp)
{
	__u32 qp, qpn;

	flushed_qp(_metadata, self, self->cq, &qp, &qpn);
	ASSERT_EQ(0, raw_destroy(self->fd, qp));
	expect_flushed(_metadata, self->fd, self->cq, qpn);
}

/* The freed QP's memory is likely the next QP's: on another CQ here. */
TEST_F(dead, a_new_qp_on_another_cq_does_not_take_them)
{
	struct raw_qp_init init = {
		.qp_type = IBV_QPT_UD, .pd = self->pd,
		.send_cq = self->other_cq, .recv_cq = self->other_cq,
	};
	__u32 qp, qpn, qp2, qpn2;

	flushed_qp(_metadata, self, self->cq, &qp, &qpn);
	ASSERT_EQ(0, raw_destroy(self->fd, qp));
	ASSERT_EQ(0, raw_create_qp(self->fd, &init, &qp2, &qpn2, NULL));
	same_number_note(_metadata, qpn, qpn2);
	expect_flushed(_metadata, self->fd, self->cq, qpn);
	EXPECT_EQ(0, raw_destroy(self->fd, qp2));
}

/*
 * On the same CQ, the new QP likely sits where the destroyed one was:
 * the old completions keep the old number, the new QP's get its own.
 */
TEST_F(dead, a_new_qp_on_the_same_cq_does_not_take_them)
{
	__u32 qp, qpn, qp2, qpn2, i;
	struct rdmachan_wc wc[NRECV];

	flushed_qp(_metadata, self, self->cq, &qp, &qpn);
	ASSERT_EQ(0, raw_destroy(self->fd, qp));
	flushed_qp(_metadata, self, self->cq, &qp2, &qpn2);
	same_number_note(_metadata, qpn, qpn2);
	ASSERT_EQ(0, raw_destroy(self->fd, qp2));
	ASSERT_EQ(NRECV, raw_poll_n(self->fd, self->cq, wc, NRECV));
	for (i = 0; i < NRECV; i++)
		EXPECT_EQ(qpn, wc[i].qp_num);
	expect_flushed(_metadata, self->fd, self->cq, qpn2);
}

/* Closing the file with such completions still queued frees them all. */
TEST_F(dead, file_closes_with_them_unpolled)
{
	__u32 qp, qpn;

	flushed_qp(_metadata, self, self->cq, &qp, &qpn);
	ASSERT_EQ(0, raw_destroy(self->fd, qp));
}

TEST_HARNESS_MAIN
