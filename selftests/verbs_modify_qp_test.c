// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MODIFY_QP with attribute masks the RDMA core reads more of than they
 * name. An address vector without IB_QP_PORT (a new path in SQD) makes
 * the AV's port the QP's: the core then reads that port's data, so the
 * module must hand it the AV's port, not whatever port_num holds: the
 * answer is then the same whatever port_num holds. Under KASAN the read of
 * a port that does not exist is an out-of-bounds report.
 */
#include <pthread.h>

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
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(qp, av_without_port_uses_the_av_port)
{
	struct rdmachan_qp_attr a = {}, q;
	unsigned int port, i;
	int want;

	ah_to_self(self->fd, self->ctx, &a.ah_attr);
	for (i = 0; i < 2; i++) {
		/*
		 * What the device says to an AV with the port it names: rxe
		 * up to Linux 6.3 refuses any change in RESET (EINVAL), since
		 * 6.4 it checks only the attributes' values and takes it. A
		 * port_num beside it must change nothing, as it is not used.
		 */
		a.port_num = a.ah_attr.port_num;
		want = raw_modify_qp(self->fd, self->qp[i], IBV_QP_AV, &a);
		EXPECT_TRUE(want == 0 || want == EINVAL) {
			TH_LOG("the AV's own port: %s", strerror(want));
		}
		for (port = 2; port < 256; port += 37) {
			a.port_num = port;
			EXPECT_EQ(want, raw_modify_qp(self->fd, self->qp[i],
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

struct modify_race {
	int fd;
	__u32 qp;
	pthread_barrier_t start, done;
	int rounds;
	int ret[2];
	int successes;
	int other_errors;
};

/* INIT to RTR of an RC QP, with what makes the core and rxe allocate. */
static int init_to_rtr(struct modify_race *r, const struct rdmachan_ah_attr *ah)
{
	return raw_rc_init_to_rtr(r->fd, r->qp, ah, RAW_RC_RTR_MASK, 4);
}

struct modify_racer {
	struct modify_race *race;
	struct rdmachan_ah_attr ah;
	int id;
};

static void *modify_racer(void *arg)
{
	struct modify_racer *m = arg;
	struct modify_race *r = m->race;
	int i;

	for (i = 0; i < r->rounds; i++) {
		pthread_barrier_wait(&r->start);
		r->ret[m->id] = init_to_rtr(r, &m->ah);
		pthread_barrier_wait(&r->done);
	}
	return NULL;
}

static int count_ref_leaks(void)
{
	return run_cmd("exit $(dmesg | grep -c 'ref leak')");
}

/*
 * Two modifies of one QP at once. Neither the core nor rxe serialises
 * them: two INIT to RTR could both pass the state check, and one would
 * leave its GID reference behind (a WARN when the device goes) and leak
 * rxe's responder resources. Exactly one of the two may succeed.
 */
TEST_F_TIMEOUT(qp, concurrent_modifies_one_wins_and_leak_nothing, 300)
{
	struct modify_racer m[2];
	struct modify_race r = {
		.fd = self->fd, .qp = self->qp[0], .rounds = 300,
	};
	pthread_t thr[2];
	int i, leaks;

	leaks = count_ref_leaks();
	pthread_barrier_init(&r.start, NULL, 3);
	pthread_barrier_init(&r.done, NULL, 3);
	for (i = 0; i < 2; i++) {
		m[i].race = &r;
		m[i].id = i;
		ah_to_self(self->fd, self->ctx, &m[i].ah);
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, modify_racer, &m[i]));
	}
	for (i = 0; i < r.rounds; i++) {
		ASSERT_EQ(0, raw_rc_reset_to_init(self->fd, r.qp));
		pthread_barrier_wait(&r.start);
		pthread_barrier_wait(&r.done);
		r.successes += !r.ret[0] + !r.ret[1];
		if ((r.ret[0] && r.ret[0] != EINVAL) ||
		    (r.ret[1] && r.ret[1] != EINVAL))
			r.other_errors++;
	}
	for (i = 0; i < 2; i++)
		pthread_join(thr[i], NULL);
	EXPECT_EQ(r.rounds, r.successes);
	EXPECT_EQ(0, r.other_errors);
	EXPECT_EQ(IBV_QPS_RTR, raw_qp_state(self->fd, r.qp));

	/* The device's GID table reports references left when it goes. */
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, run_cmd("rdma link delete %s", RDMACHAN_TEST_DEVICE));
	EXPECT_EQ(leaks, count_ref_leaks());
	ASSERT_EQ(0, rxe_restore());
}

/* Responder resources rxe has after a QP's INIT to RTR, or -errno. */
static int responder_resources(int fd, __u32 qp)
{
	struct rdmachan_qp_attr q = {};
	int ret = raw_query_qp(fd, qp, &q);

	return ret ? -ret : q.max_dest_rd_atomic;
}

/*
 * Linux 5.10's rxe clears the entries of a QP's old responder-resource
 * array up to the new count: a larger one writes past the array (KASAN:
 * slab-out-of-bounds in rxe_qp_from_attr), an array of none is written
 * through ZERO_SIZE_PTR. No kernel says whether its rxe has the fix, so
 * on every one a QP is never given more than it has (rxe rounds up to a
 * power of two); a refusal is EINVAL and changes nothing.
 */
TEST_F(qp, responder_resources_never_outgrow_rxe_array)
{
	const unsigned int mask = RAW_RC_RTR_MASK;
	struct rdmachan_ah_attr ah;
	int fd = self->fd;
	__u32 qp = self->qp[0];

	ah_to_self(fd, self->ctx, &ah);
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, qp));
	ASSERT_EQ(0, raw_rc_init_to_rtr(fd, qp, &ah, mask, 2));
	ASSERT_EQ(2, responder_resources(fd, qp));
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, qp));
	EXPECT_EQ(EINVAL, raw_rc_init_to_rtr(fd, qp, &ah, mask, 64));
	EXPECT_EQ(EINVAL, raw_rc_init_to_rtr(fd, qp, &ah, mask, 3));
	EXPECT_EQ(IBV_QPS_INIT, raw_qp_state(fd, qp));
	EXPECT_EQ(2, responder_resources(fd, qp));
	/* as many, or fewer: rxe's array is then large enough */
	EXPECT_EQ(0, raw_rc_init_to_rtr(fd, qp, &ah, mask, 2));
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, qp));
	EXPECT_EQ(0, raw_rc_init_to_rtr(fd, qp, &ah, mask, 1));
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, qp));
	EXPECT_EQ(EINVAL, raw_rc_init_to_rtr(fd, qp, &ah, mask, 2));
	/* none: the array is ZERO_SIZE_PTR, and only none fits it */
	EXPECT_EQ(0, raw_rc_init_to_rtr(fd, qp, &ah, mask, 0));
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, qp));
	EXPECT_EQ(EINVAL, raw_rc_init_to_rtr(fd, qp, &ah, mask, 1));
	EXPECT_EQ(0, raw_rc_init_to_rtr(fd, qp, &ah, mask, 0));
	EXPECT_EQ(IBV_QPS_RTR, raw_qp_state(fd, qp));
}

/*
 * An INIT to RTR the core refuses never reaches rxe: the QP has no array
 * yet and takes any number after it. A second QP is not limited by the
 * first's.
 */
TEST_F(qp, refused_rtr_leaves_responder_resources_free)
{
	const unsigned int mask = RAW_RC_RTR_MASK;
	struct raw_qp_init init = {
		.qp_type = IBV_QPT_RC, .pd = self->pd,
		.send_cq = self->cq, .recv_cq = self->cq,
	};
	struct rdmachan_ah_attr ah;
	int fd = self->fd;
	__u32 qp2;

	ah_to_self(fd, self->ctx, &ah);
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, self->qp[0]));
	EXPECT_EQ(EINVAL, raw_rc_init_to_rtr(fd, self->qp[0], &ah,
					     mask & ~IBV_QP_AV, 1));
	EXPECT_EQ(0, raw_rc_init_to_rtr(fd, self->qp[0], &ah, mask, 64));
	EXPECT_EQ(64, responder_resources(fd, self->qp[0]));

	ASSERT_EQ(0, raw_create_qp(fd, &init, &qp2, NULL, NULL));
	ASSERT_EQ(0, raw_rc_reset_to_init(fd, qp2));
	EXPECT_EQ(0, raw_rc_init_to_rtr(fd, qp2, &ah, mask, 128));
}

TEST_HARNESS_MAIN
