// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Who may set a QKEY with the high bit set changes with the kernel:
 * CAP_NET_RAW in the initial user namespace, the RDMA core's
 * privileged-qkey switch, CAP_NET_RAW over the device's network namespace
 * (6.17). The module applies the running kernel's uverbs rule
 * (rdmachan_may_use_privileged_qkey() in kmod/compat/compat.h). Here the
 * same QKEY is set on a UD QP of the module and on one the system's
 * libibverbs makes on uverbs, with and without CAP_NET_RAW, and both must
 * answer alike. Linked with the stock libibverbs, not librdmachan.
 */
#include <linux/capability.h>
#include <sys/syscall.h>

#include "rdmachan_verbs_raw.h"
#include "test_device.h"
#include "kselftest_harness.h"

#define PRIVILEGED_QKEY	0x80010000U
#define PLAIN_QKEY	0x00011111U

/* 0, or the errno of moving a new UD QP of the module to INIT with @qkey */
static int module_qkey(__u32 qkey)
{
	struct raw_qp_init init = { .qp_type = IBV_QPT_UD };
	struct rdmachan_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey,
	};
	__u32 ctx, cq = 0, qp = 0;
	int fd, ret;

	fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ctx = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ret = ctx ? raw_alloc_pd(fd, ctx, &init.pd) : -1;
	if (!ret)
		ret = raw_create_cq(fd, ctx, 16, -1, 0, &cq);
	if (!ret) {
		init.send_cq = cq;
		init.recv_cq = cq;
		ret = raw_create_qp(fd, &init, &qp, NULL, NULL);
	}
	if (!ret)
		ret = raw_modify_qp(fd, qp, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_QKEY, &a);
	close(fd);
	return ret;
}

/* The same through the system's libibverbs and the kernel's uverbs. */
static int uverbs_qkey(__u32 qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey,
	};
	struct ibv_context *ctx = open_test_device();
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_pd *pd = NULL;
	struct ibv_qp *qp = NULL;
	int ret = -1;

	if (!ctx)
		return -1;
	pd = ibv_alloc_pd(ctx);
	qa.send_cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	qa.recv_cq = qa.send_cq;
	if (qa.send_cq)
		qp = ibv_create_qp(pd, &qa);
	if (qp)
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_QKEY);
	if (qp)
		ibv_destroy_qp(qp);
	if (qa.send_cq)
		ibv_destroy_cq(qa.send_cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret;
}

/* Takes CAP_NET_RAW out of this process's effective set. */
static int drop_cap_net_raw(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_TO_INDEX(CAP_NET_RAW)].effective &= ~CAP_TO_MASK(CAP_NET_RAW);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/* Each test runs in a child of its own: a dropped capability stays there. */
TEST(privileged_qkey_with_cap_net_raw)
{
	int uverbs = uverbs_qkey(PRIVILEGED_QKEY);

	ASSERT_EQ(0, geteuid()) TH_LOG("the suite runs as root");
	/* every kernel's rule lets CAP_NET_RAW in the initial namespace in */
	ASSERT_EQ(0, uverbs);
	EXPECT_EQ(uverbs, module_qkey(PRIVILEGED_QKEY));
}

TEST(privileged_qkey_without_cap_net_raw)
{
	int uverbs, module;

	ASSERT_EQ(0, drop_cap_net_raw());
	uverbs = uverbs_qkey(PRIVILEGED_QKEY);
	module = module_qkey(PRIVILEGED_QKEY);
	TH_LOG("uverbs: %d, module: %d (%d: refused)", uverbs, module, EPERM);
	/* EPERM, or 0 with the RDMA core's privileged-qkey switch on */
	ASSERT_TRUE(uverbs == 0 || uverbs == EPERM);
	EXPECT_EQ(uverbs, module);
}

TEST(plain_qkey_without_cap_net_raw)
{
	ASSERT_EQ(0, drop_cap_net_raw());
	EXPECT_EQ(0, uverbs_qkey(PLAIN_QKEY));
	EXPECT_EQ(0, module_qkey(PLAIN_QKEY));
}

TEST_HARNESS_MAIN
