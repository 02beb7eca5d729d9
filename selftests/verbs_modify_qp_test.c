// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MODIFY_QP with attribute masks the RDMA core reads more of than they
 * name. An address vector without IB_QP_PORT (a new path in SQD) makes
 * the AV's port the QP's: the core then reads that port's data, so the
 * module must hand it the AV's port, not whatever port_num holds. On a
 * QP in RESET the device refuses the change; under KASAN the read of a
 * port that does not exist is an out-of-bounds report.
 */
#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

FIXTURE(qp) {
	int fd;
	__u32 ctx, pd, cq, qp[2];
};

FIXTURE_SETUP(qp)
{
	struct raw_qp_init init = { .qp_type = IBV_QPT_RC };
	int i;

	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 16, RDMACHAN_NO_FD, 0,
				   &self->cq));
	init.pd = self->pd;
	init.send_cq = self->cq;
	init.recv_cq = self->cq;
	for (i = 0; i < 2; i++) {
		init.qp_type = i ? IBV_QPT_UD : IBV_QPT_RC;
		ASSERT_EQ(0, raw_create_qp(self->fd, &init, &self->qp[i], NULL,
					   NULL));
	}
}

FIXTURE_TEARDOWN(qp)
{
	close(self->fd);
}

TEST_F(qp, av_without_port_uses_the_av_port)
{
	struct rdmachan_qp_attr a = {}, q;
	unsigned int port, i;

	ah_to_self(self->fd, self->ctx, &a.ah_attr);
	for (i = 0; i < 2; i++) {
		for (port = 2; port < 256; port += 37) {
			a.port_num = port;
			EXPECT_EQ(EINVAL, raw_modify_qp(self->fd, self->qp[i],
							IBV_QP_AV, &a));
		}
		/* the QP is where it was */
		memset(&q, 0xa5, sizeof(q));
		EXPECT_EQ(0, raw_query_qp(self->fd, self->qp[i], &q));
		EXPECT_EQ(IBV_QPS_RESET, q.qp_state);
	}
}

/* With IB_QP_PORT, a port_num other than the AV's is refused. */
TEST_F(qp, av_and_port_must_agree)
{
	struct rdmachan_qp_attr a = {};

	ah_to_self(self->fd, self->ctx, &a.ah_attr);
	a.port_num = 2;
	EXPECT_EQ(EINVAL, raw_modify_qp(self->fd, self->qp[0],
					IBV_QP_AV | IBV_QP_PORT, &a));
}

TEST_HARNESS_MAIN
