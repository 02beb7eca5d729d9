// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The drop-in libibverbs.so.1/librdmacm.so.1 (build/compat), linked the
 * way an rdma-core program links: one object under both names, so a CM
 * id's verbs context is one the ibv_* calls take; rdma-core symbols that
 * rdmachan does not implement fail with EOPNOTSUPP in their API's
 * convention, old-ABI versions included; and the few helpers the stock
 * programs need besides (rpoll, ibv_read_sysfs_file, ibv_query_gid_type,
 * the GID table entries, the rate conversions).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "../lib/rdma_core_compat.h"
#include "cm_test.h"
#include "kselftest_harness.h"

/* libibverbs exports these without declaring them in verbs.h */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

TEST(one_object_for_both_names)
{
	void *verbs = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *cm = dlopen("librdmacm.so.1", RTLD_NOW | RTLD_NOLOAD);

	Dl_info info;

	ASSERT_NE(NULL, verbs);
	ASSERT_NE(NULL, cm);
	EXPECT_EQ(verbs, cm);
	/* built against rdma-core, it runs on ours */
	ASSERT_NE(0, dladdr(dlsym(cm, "rdma_create_id"), &info));
	EXPECT_NE(NULL, strstr(info.dli_fname, "/compat/librdmacm.so.1"));
	TH_LOG("rdma_create_id from %s", info.dli_fname);
	EXPECT_NE(NULL, dlvsym(cm, "rdma_create_id", "RDMACM_1.0"));
	EXPECT_NE(NULL, dlvsym(verbs, "ibv_alloc_pd", "IBVERBS_1.1"));
	dlclose(verbs);
	dlclose(cm);
}

/* A CM id's verbs context is the one ibv_* calls accept. */
TEST(cm_id_context_is_a_verbs_context)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ibv_device_attr attr;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(1, inet_pton(AF_INET, cm_test_addr(), &sin.sin_addr));
	ASSERT_EQ(0, rdma_bind_addr(id, (struct sockaddr *)&sin));
	ASSERT_NE(NULL, id->verbs);
	EXPECT_EQ(0, ibv_query_device(id->verbs, &attr));
	pd = ibv_alloc_pd(id->verbs);
	ASSERT_NE(NULL, pd);
	EXPECT_EQ(id->verbs, pd->context);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/* The stand-ins: each API's error convention, errno EOPNOTSUPP. */
TEST(unimplemented_calls_fail_cleanly)
{
	struct ibv_context *ctx;
	struct ibv_device **list;
	struct ibv_pd *pd;
	struct ibv_ece ece = {};
	void *(*old_get_device_list)(int *num);
	int (*old_query_pkey)(void);
	/* looked up by version: the release's headers may predate them */
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	int (*qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				uint32_t flags);

	list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, list);
	ASSERT_NE(NULL, list[0]);
	ctx = ibv_open_device(list[0]);
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);

	/* pointer results: NULL */
	reg_dmabuf_mr = dlvsym(RTLD_DEFAULT, "ibv_reg_dmabuf_mr", "IBVERBS_1.12");
	ASSERT_NE(NULL, reg_dmabuf_mr);
	errno = 0;
	EXPECT_EQ(NULL, reg_dmabuf_mr(pd, 0, 4096, 0, 3, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_import_device(3));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* verbs returning an errno value */
	EXPECT_EQ(EOPNOTSUPP, ibv_query_ece(NULL, &ece));
	EXPECT_EQ(EOPNOTSUPP, ibv_attach_mcast(NULL, NULL, 0));
	EXPECT_EQ(EOPNOTSUPP, ibv_resize_cq(NULL, 16));
	/* librdmacm's: -1 and errno */
	errno = 0;
	EXPECT_EQ(-1, rdma_set_local_ece(NULL, &ece));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, rsocket(AF_INET, SOCK_SEQPACKET, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* the old (IBVERBS_1.0) ABI is there, and fails the same way */
	old_get_device_list = dlvsym(RTLD_DEFAULT, "ibv_get_device_list",
				     "IBVERBS_1.0");
	ASSERT_NE(NULL, old_get_device_list);
	EXPECT_NE((void *)ibv_get_device_list, (void *)old_get_device_list);
	errno = 0;
	EXPECT_EQ(NULL, old_get_device_list(NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	old_query_pkey = dlvsym(RTLD_DEFAULT, "ibv_query_pkey", "IBVERBS_1.0");
	ASSERT_NE(NULL, old_query_pkey);
	EXPECT_EQ(EOPNOTSUPP, old_query_pkey());
	/* predicates answer 0 ("not guaranteed"), void calls only set errno */
	qp_data_in_order = dlvsym(RTLD_DEFAULT, "ibv_query_qp_data_in_order",
				  "IBVERBS_1.14");
	ASSERT_NE(NULL, qp_data_in_order);
	errno = 0;
	EXPECT_EQ(0, qp_data_in_order(NULL, IBV_WR_RDMA_WRITE, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	ibv_unimport_pd(NULL);
	EXPECT_EQ(EOPNOTSUPP, errno);

	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(ctx));
	ibv_free_device_list(list);
}

/* The first port's GID table as rdmachan's ibv_query_gid reads it. */
static int open_first(struct ibv_context **ctx, struct ibv_device ***list)
{
	*list = ibv_get_device_list(NULL);
	if (!*list || !(*list)[0])
		return -1;
	*ctx = ibv_open_device((*list)[0]);
	return *ctx ? 0 : -1;
}

/*
 * ibv_query_gid_ex(3): "returns 0 on success or errno value on error";
 * ibv_query_gid_table(3): "the number of entries that were read on
 * success or negative errno value on error", and "If there are more
 * valid GID entries than the provided value of max_entries ..., the call
 * will fail".
 */
/*
 * rdma-core 59's buffer calls (65's pingpong programs use them): page
 * aligned memory of the process, registered only within itself and only
 * with its own PD. The rdma-core this test is built against may be older,
 * so they are looked up by their version, as a newer program binds them.
 */
TEST(alloc_buf_registers_inside_its_buffer)
{
	__typeof__(ibv_alloc_buf) *alloc_buf = dlvsym(RTLD_DEFAULT, "ibv_alloc_buf", "IBVERBS_1.17");
	__typeof__(ibv_reg_buf_mr) *reg_buf_mr = dlvsym(RTLD_DEFAULT, "ibv_reg_buf_mr", "IBVERBS_1.17");
	__typeof__(ibv_free_buf) *free_buf = dlvsym(RTLD_DEFAULT, "ibv_free_buf", "IBVERBS_1.17");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct ibv_mr *whole, *half;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *other;
	struct ibv_buf *buf;
	char *p;

	ASSERT_NE(NULL, alloc_buf);
	ASSERT_NE(NULL, reg_buf_mr);
	ASSERT_NE(NULL, free_buf);
	ASSERT_EQ(0, open_first(&ctx, &list));
	pd = ibv_alloc_pd(ctx);
	other = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	ASSERT_NE(NULL, other);
	p = alloc_buf(pd, 2 * page, &buf);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, (uintptr_t)p % page);
	memset(p, 0xa5, 2 * page);
	whole = reg_buf_mr(pd, buf, p, 2 * page, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, whole);
	EXPECT_EQ(p, whole->addr);
	EXPECT_EQ(2 * page, whole->length);
	half = reg_buf_mr(pd, buf, p + page, page, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, half);
	EXPECT_EQ(p + page, half->addr);
	errno = 0;
	EXPECT_EQ(NULL, reg_buf_mr(pd, buf, p + page, page + 1, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, reg_buf_mr(pd, buf, p - 1, 1, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, reg_buf_mr(other, buf, p, page, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, alloc_buf(pd, 0, &buf));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_dereg_mr(half));
	EXPECT_EQ(0, ibv_dereg_mr(whole));
	free_buf(buf);
	EXPECT_EQ(0, ibv_dealloc_pd(other));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	ibv_close_device(ctx);
	ibv_free_device_list(list);
}

TEST(gid_queries_keep_their_conventions)
{
	struct ibv_gid_entry e, table[64];
	struct ibv_port_attr port;
	struct ibv_device **list;
	struct ibv_context *ctx;
	union ibv_gid gid;
	ssize_t n;
	int i, unused = -1;

	ASSERT_EQ(0, open_first(&ctx, &list));
	ASSERT_EQ(0, ibv_query_port(ctx, 1, &port));
	ASSERT_EQ(0, ibv_query_gid_ex(ctx, 1, 0, &e, 0));
	ASSERT_EQ(0, ibv_query_gid(ctx, 1, 0, &gid));
	EXPECT_EQ(0, memcmp(&gid, &e.gid, sizeof(gid)));
	EXPECT_EQ(0, e.gid_index);
	EXPECT_EQ(1, e.port_num);
	EXPECT_TRUE(e.gid_type == IBV_GID_TYPE_ROCE_V1 ||
		    e.gid_type == IBV_GID_TYPE_ROCE_V2);
	EXPECT_NE(0, e.ndev_ifindex);
	EXPECT_EQ(EINVAL, ibv_query_gid_ex(ctx, 1, 0, &e, 1));
	EXPECT_EQ(EINVAL, ibv_query_gid_ex(ctx, 1, port.gid_tbl_len, &e, 0));

	n = ibv_query_gid_table(ctx, table, 64, 0);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ibv_query_gid_ex(ctx, 1, table[i].gid_index, &e,
					      0));
		EXPECT_EQ(0, memcmp(&e, &table[i], sizeof(e)));
	}
	/* an entry not in use is ENODATA, and not in the table */
	for (i = 0; i < port.gid_tbl_len && unused < 0; i++)
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0) == ENODATA)
			unused = i;
	ASSERT_LE(0, unused);
	for (i = 0; i < n; i++)
		EXPECT_NE(unused, table[i].gid_index);
	EXPECT_EQ(-EINVAL, ibv_query_gid_table(ctx, table, 64, 1));
	if (n > 1)
		EXPECT_EQ(-EINVAL, ibv_query_gid_table(ctx, table, 1, 0));
	EXPECT_EQ(0, ibv_close_device(ctx));
	ibv_free_device_list(list);
}

/* ibv_rate_to_mult(3), ibv_rate_to_mbps(3) */
TEST(rate_conversions)
{
	EXPECT_EQ(4, ibv_rate_to_mult(IBV_RATE_10_GBPS));
	EXPECT_EQ(48, ibv_rate_to_mult(IBV_RATE_120_GBPS));
	EXPECT_EQ(-1, ibv_rate_to_mult(IBV_RATE_25_GBPS));
	EXPECT_EQ(IBV_RATE_40_GBPS, mult_to_ibv_rate(16));
	EXPECT_EQ(IBV_RATE_MAX, mult_to_ibv_rate(3));
	EXPECT_EQ(25781, ibv_rate_to_mbps(IBV_RATE_25_GBPS));
	EXPECT_EQ(2500, ibv_rate_to_mbps(IBV_RATE_2_5_GBPS));
	EXPECT_EQ(-1, ibv_rate_to_mbps(IBV_RATE_MAX));
	EXPECT_EQ(IBV_RATE_100_GBPS, mbps_to_ibv_rate(103125));
	EXPECT_EQ(IBV_RATE_MAX, mbps_to_ibv_rate(12345));
}

/* A query mask is a hint, as in libibverbs: bits it does not know too. */
TEST(query_qp_mask_is_a_hint)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	ASSERT_EQ(0, open_first(&ctx, &list));
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	ASSERT_NE(NULL, qp);
	memset(&attr, 0xff, sizeof(attr));
	EXPECT_EQ(0, ibv_query_qp(qp, &attr, 0x7fffffff, &init));
	EXPECT_EQ(IBV_QPS_RESET, attr.qp_state);
	EXPECT_EQ(1, init.cap.max_send_sge);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(ctx));
	ibv_free_device_list(list);
}

/* rpoll on ordinary fds is poll: an event channel becomes readable. */
TEST(rpoll_waits_on_an_event_channel)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *event;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct pollfd pfd;
	struct rdma_cm_id *id;

	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, rpoll(&pfd, 1, 0));
	ASSERT_EQ(1, inet_pton(AF_INET, cm_test_addr(), &dst.sin_addr));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       2000));
	EXPECT_EQ(1, rpoll(&pfd, 1, 5000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, rdma_get_cm_event(ch, &event));
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, event->event);
	EXPECT_EQ(0, rdma_ack_cm_event(event));
	EXPECT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/* The kernel pins registered memory: fork needs no help from us. */
TEST(fork_support_is_unneeded)
{
	enum ibv_fork_status (*is_fork_initialized)(void) =
		dlvsym(RTLD_DEFAULT, "ibv_is_fork_initialized", "IBVERBS_1.13");

	ASSERT_NE(NULL, is_fork_initialized);
	EXPECT_EQ(0, ibv_fork_init());
	EXPECT_EQ(IBV_FORK_UNNEEDED, is_fork_initialized());
}

TEST(sysfs_helpers)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	char buf[64], want[64], path[300];
	int type = -1, empty = -1, i, n;
	union ibv_gid gid;
	FILE *f;

	ASSERT_NE(NULL, list);
	ASSERT_NE(NULL, list[0]);
	ctx = ibv_open_device(list[0]);
	ASSERT_NE(NULL, ctx);

	/* the file's text without its newline */
	n = ibv_read_sysfs_file(list[0]->ibdev_path, "node_guid", buf,
				sizeof(buf));
	ASSERT_LT(0, n);
	snprintf(path, sizeof(path), "%s/node_guid", list[0]->ibdev_path);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	EXPECT_EQ(strlen(want), (size_t)n);
	EXPECT_STREQ(want, buf);
	/* too small a buffer for the text: -1 */
	EXPECT_EQ(-1, ibv_read_sysfs_file(list[0]->ibdev_path, "node_guid",
					  buf, 4));
	errno = 0;
	EXPECT_EQ(-1, ibv_read_sysfs_file(list[0]->ibdev_path, "no_such",
					  buf, sizeof(buf)));
	EXPECT_EQ(ENOENT, errno);

	/* rxe's IPv4 GIDs are RoCE v2 (1); an empty entry counts as v1 (0) */
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, ibv_query_gid(ctx, 1, i, &gid));
		if (gid.global.interface_id == 0 &&
		    gid.global.subnet_prefix == 0) {
			EXPECT_EQ(0, ibv_query_gid_type(ctx, 1, i, &empty));
			break;
		}
		EXPECT_EQ(0, ibv_query_gid_type(ctx, 1, i, &type));
		EXPECT_EQ(1, type);
	}
	EXPECT_EQ(0, empty);
	EXPECT_EQ(0, ibv_close_device(ctx));
	ibv_free_device_list(list);
}

TEST_HARNESS_MAIN
