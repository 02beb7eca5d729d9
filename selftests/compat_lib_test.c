// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The drop-in libibverbs.so.1/librdmacm.so.1 (build/compat), linked the
 * way an rdma-core program links: one object under both names, so a CM
 * id's verbs context is one the ibv_* calls take; rdma-core symbols that
 * rdmachan does not implement fail with EOPNOTSUPP in their API's
 * convention, old-ABI versions included; and the few helpers the stock
 * programs need besides (rpoll, ibv_read_sysfs_file, ibv_query_gid_type).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

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

	list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, list);
	ASSERT_NE(NULL, list[0]);
	ctx = ibv_open_device(list[0]);
	ASSERT_NE(NULL, ctx);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);

	/* pointer results: NULL */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 3,
					  IBV_ACCESS_LOCAL_WRITE));
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
	EXPECT_EQ(-1, rsocket(AF_INET, SOCK_STREAM, 0));
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
	EXPECT_EQ(0, ibv_fork_init());
	EXPECT_EQ(IBV_FORK_UNNEEDED, ibv_is_fork_initialized());
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
