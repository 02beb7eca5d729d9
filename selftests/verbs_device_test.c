// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The libibverbs device calls of librdmachan against what the kernel says
 * elsewhere: sysfs, `rdma link show`, and the stock stack's ibv_devinfo.
 */
#include <dirent.h>
#include <endian.h>
#include <inttypes.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rdmachan_test.h"
#include "kselftest_harness.h"

RDMACHAN_TEST_KERNEL_OWNED

#define SYSFS_IB "/sys/class/infiniband/"

/* @file in the test device's sysfs directory (one at a time) */
static const char *dev_path(const char *file)
{
	static char path[256];

	snprintf(path, sizeof(path), SYSFS_IB "%s%s%s", RDMACHAN_TEST_DEVICE,
		 *file ? "/" : "", file);
	return path;
}

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

/* "30eb:b0ff:fe2d:3f87" as sysfs and ibv_devinfo print a GUID */
static void format_guid(__be64 guid, char *buf, size_t len)
{
	uint64_t g = be64toh(guid);

	snprintf(buf, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

/* "fe80:0000:...": the sysfs form of a GID */
static void format_gid(const union ibv_gid *gid, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	for (i = 0; i < 16; i += 2)
		off += snprintf(buf + off, len - off, "%s%02x%02x",
				i ? ":" : "", gid->raw[i], gid->raw[i + 1]);
}

FIXTURE(verbs) {
	struct ibv_device **list;
	int num;
	struct ibv_device *dev;
	struct ibv_context *ctx;
};

FIXTURE_SETUP(verbs)
{
	self->list = ibv_get_device_list(&self->num);
	ASSERT_NE(NULL, self->list);
	self->dev = find_device(self->list, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(NULL, self->dev);
	self->ctx = ibv_open_device(self->dev);
	ASSERT_NE(NULL, self->ctx);
}

FIXTURE_TEARDOWN(verbs)
{
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	ibv_free_device_list(self->list);
}

TEST_F(verbs, device_list_matches_sysfs)
{
	struct dirent *d;
	DIR *dir = opendir(SYSFS_IB);
	char path[512], line[128], guid[64];
	int in_sysfs = 0;

	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		in_sysfs++;
		EXPECT_NE(NULL, find_device(self->list, d->d_name))
			TH_LOG("%s is in sysfs but not in the list", d->d_name);
	}
	closedir(dir);
	EXPECT_EQ(in_sysfs, self->num);
	EXPECT_EQ(NULL, self->list[self->num]);

	read_line(dev_path("node_guid"), line, sizeof(line));
	format_guid(ibv_get_device_guid(self->dev), guid, sizeof(guid));
	EXPECT_STREQ(line, guid);

	/* "1: CA" */
	read_line(dev_path("node_type"), line, sizeof(line));
	EXPECT_EQ(atoi(line), self->dev->node_type);
	EXPECT_EQ(IBV_NODE_CA, self->dev->node_type);
	EXPECT_EQ(IBV_TRANSPORT_IB, self->dev->transport_type);
	snprintf(path, sizeof(path), "%s", self->dev->ibdev_path);
	EXPECT_STREQ(dev_path(""), path);
}

/*
 * Verbs consumers (UCX) use a device only when /dev/infiniband/<dev_name>
 * is a character device they may open read-write: udev/90-rdmachan.rules
 * links it to /dev/rdmachan.
 */
TEST_F(verbs, dev_name_is_a_node_in_dev_infiniband)
{
	struct stat node, ours;
	char path[512];

	EXPECT_STREQ("rdmachan", self->dev->dev_name);
	EXPECT_STREQ("/dev/rdmachan", self->dev->dev_path);
	snprintf(path, sizeof(path), "/dev/infiniband/%s", self->dev->dev_name);
	ASSERT_EQ(0, stat(path, &node)) TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_TRUE(S_ISCHR(node.st_mode));
	EXPECT_EQ(0, access(path, R_OK | W_OK));
	ASSERT_EQ(0, stat("/dev/rdmachan", &ours));
	EXPECT_EQ(ours.st_rdev, node.st_rdev);
}

/* Every "link DEV/PORT state STATE" line of `rdma link show`. */
TEST_F(verbs, ports_match_rdma_link_show)
{
	FILE *p = popen("rdma link show", "r");
	char line[512], dev[64], state[64];
	struct ibv_port_attr attr;
	unsigned int port;
	int links = 0;

	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "link %63[^/]/%u state %63s", dev, &port,
			   state) != 3)
			continue;
		links++;
		ASSERT_NE(NULL, find_device(self->list, dev));
		if (strcmp(dev, RDMACHAN_TEST_DEVICE))
			continue;
		ASSERT_EQ(0, ibv_query_port(self->ctx, (uint8_t)port, &attr));
		EXPECT_STREQ("ACTIVE", state);
		EXPECT_EQ(IBV_PORT_ACTIVE, attr.state);
	}
	pclose(p);
	EXPECT_EQ(self->num, links);
}

TEST_F(verbs, port1_is_active_ethernet)
{
	struct ibv_port_attr attr;
	char line[128];
	struct dirent *d;
	DIR *dir;
	int gids = 0;

	memset(&attr, 0xff, sizeof(attr));
	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &attr));
	EXPECT_EQ(IBV_PORT_ACTIVE, attr.state);
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, attr.link_layer);
	EXPECT_STREQ("active", ibv_port_state_str(attr.state));
	/* "4: ACTIVE", "5: LinkUp", "Ethernet" */
	EXPECT_EQ(atoi(read_line(dev_path("ports/1/state"), line,
				 sizeof(line))), attr.state);
	EXPECT_EQ(atoi(read_line(dev_path("ports/1/phys_state"), line,
				 sizeof(line))), attr.phys_state);
	EXPECT_STREQ("Ethernet", read_line(dev_path("ports/1/link_layer"),
					   line, sizeof(line)));
	EXPECT_EQ(strtoul(read_line(dev_path("ports/1/cap_mask"), line,
				    sizeof(line)), NULL, 16),
		  attr.port_cap_flags);
	dir = opendir(dev_path("ports/1/gids"));
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir)))
		gids += d->d_name[0] != '.';
	closedir(dir);
	EXPECT_EQ(gids, attr.gid_tbl_len);
	EXPECT_EQ(0, attr.flags & ~IBV_QPF_GRH_REQUIRED);
}

TEST_F(verbs, gids_match_sysfs)
{
	char path[256], line[128], mine[128];
	union ibv_gid gid;
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/%d", dev_path("ports/1/gids"), i);
		read_line(path, line, sizeof(line));
		memset(&gid, 0xab, sizeof(gid));
		ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, i, &gid));
		format_gid(&gid, mine, sizeof(mine));
		EXPECT_STREQ(line, mine) TH_LOG("GID %d", i);
	}
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, 0, &gid));
	EXPECT_EQ(0xfe, gid.raw[0]);
	EXPECT_EQ(0x80, gid.raw[1]);
}

TEST_F(verbs, query_device_matches_sysfs)
{
	struct ibv_device_attr attr;
	char line[128], guid[64];
	struct dirent *d;
	DIR *dir;
	int ports = 0;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	format_guid(attr.sys_image_guid, guid, sizeof(guid));
	EXPECT_STREQ(read_line(dev_path("sys_image_guid"), line, sizeof(line)),
		     guid);
	EXPECT_EQ(ibv_get_device_guid(self->dev), attr.node_guid);
	dir = opendir(dev_path("ports"));
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir)))
		ports += d->d_name[0] != '.';
	closedir(dir);
	EXPECT_EQ(ports, attr.phys_port_cnt);
	EXPECT_LT(0, attr.max_qp);
	EXPECT_LT(0, attr.max_cqe);
	EXPECT_LT(0, attr.max_pd);
}

/* The stock stack (libibverbs + the rxe provider) must say the same. */
TEST_F(verbs, query_matches_stock_ibv_devinfo)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	char line[512], key[64], val[256], guid[64];
	FILE *p;
	int seen = 0;

	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));
	snprintf(line, sizeof(line), "env -u LD_LIBRARY_PATH ibv_devinfo -v -d %s",
		 RDMACHAN_TEST_DEVICE);
	p = popen(line, "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %63[^:]: %255[^\n]", key, val) != 2)
			continue;
		if (!strcmp(key, "fw_ver")) {
			EXPECT_STREQ(val, attr.fw_ver);
		} else if (!strcmp(key, "node_guid")) {
			format_guid(attr.node_guid, guid, sizeof(guid));
			EXPECT_STREQ(val, guid);
		} else if (!strcmp(key, "vendor_id")) {
			EXPECT_EQ(strtoul(val, NULL, 0), attr.vendor_id);
		} else if (!strcmp(key, "max_qp")) {
			EXPECT_EQ(atoi(val), attr.max_qp);
		} else if (!strcmp(key, "max_mr")) {
			EXPECT_EQ(atoi(val), attr.max_mr);
		} else if (!strcmp(key, "max_srq_wr")) {
			EXPECT_EQ(atoi(val), attr.max_srq_wr);
		} else if (!strcmp(key, "max_mr_size")) {
			EXPECT_EQ(strtoull(val, NULL, 0), attr.max_mr_size);
		} else if (!strcmp(key, "max_pkeys")) {
			EXPECT_EQ(atoi(val), attr.max_pkeys);
		} else if (!strcmp(key, "phys_port_cnt")) {
			EXPECT_EQ(atoi(val), attr.phys_port_cnt);
		} else if (!strcmp(key, "max_msg_sz")) {
			EXPECT_EQ(strtoul(val, NULL, 0), port.max_msg_sz);
		} else if (!strcmp(key, "gid_tbl_len")) {
			EXPECT_EQ(atoi(val), port.gid_tbl_len);
		} else if (!strcmp(key, "link_layer")) {
			EXPECT_STREQ("Ethernet", val);
		} else if (!strcmp(key, "active_mtu")) {
			/* "1024 (3)" */
			EXPECT_EQ(atoi(strchr(val, '(') + 1), port.active_mtu);
		} else if (!strcmp(key, "max_mtu")) {
			EXPECT_EQ(atoi(strchr(val, '(') + 1), port.max_mtu);
		} else if (!strcmp(key, "state")) {
			/* "PORT_ACTIVE (4)" */
			EXPECT_EQ(atoi(strchr(val, '(') + 1), port.state);
		} else {
			continue;
		}
		seen++;
	}
	EXPECT_EQ(0, pclose(p));
	EXPECT_EQ(15, seen);
}

TEST_F(verbs, bad_port_and_gid_index)
{
	struct ibv_port_attr attr;
	union ibv_gid gid;

	EXPECT_EQ(EINVAL, ibv_query_port(self->ctx, 0, &attr));
	EXPECT_EQ(EINVAL, ibv_query_port(self->ctx, 2, &attr));
	errno = 0;
	EXPECT_EQ(-1, ibv_query_gid(self->ctx, 1, -1, &gid));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, ibv_query_gid(self->ctx, 1, 1024, &gid));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, ibv_query_gid(self->ctx, 2, 0, &gid));
	EXPECT_EQ(EINVAL, errno);
	/* an unused entry reads as zero, as with libibverbs */
	memset(&gid, 0xab, sizeof(gid));
	EXPECT_EQ(0, ibv_query_gid(self->ctx, 1, 1023, &gid));
	EXPECT_EQ(0, gid.global.subnet_prefix);
	EXPECT_EQ(0, gid.global.interface_id);
}

/*
 * The P_Key table as libibverbs reads it (UCX up to 1.12 searches it on
 * every port): RoCE's one default key, 0xffff, at index 0, the rest as
 * sysfs has them, and ENOENT past the end or on a port that is not there.
 */
TEST_F(verbs, pkeys_match_sysfs)
{
	struct ibv_port_attr attr;
	char path[256], line[64];
	__be16 pkey;
	int i;

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &attr));
	ASSERT_LT(0, attr.pkey_tbl_len);
	for (i = 0; i < attr.pkey_tbl_len; i++) {
		snprintf(path, sizeof(path), "%s/%d", dev_path("ports/1/pkeys"), i);
		pkey = htobe16(0x1234);
		ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, i, &pkey));
		EXPECT_EQ(strtoul(read_line(path, line, sizeof(line)), NULL, 16),
			  be16toh(pkey)) TH_LOG("P_Key %d", i);
	}
	ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, 0, &pkey));
	EXPECT_EQ(0xffff, be16toh(pkey));
	EXPECT_EQ(0, ibv_get_pkey_index(self->ctx, 1, htobe16(0xffff)));

	errno = 0;
	EXPECT_EQ(-1, ibv_query_pkey(self->ctx, 1, attr.pkey_tbl_len, &pkey));
	EXPECT_EQ(ENOENT, errno);
	errno = 0;
	EXPECT_EQ(-1, ibv_query_pkey(self->ctx, 2, 0, &pkey));
	EXPECT_EQ(ENOENT, errno);
	/* a key that is in no entry */
	errno = 0;
	EXPECT_EQ(-1, ibv_get_pkey_index(self->ctx, 1, htobe16(0x7abc)));
	EXPECT_EQ(ENOENT, errno);
}

/* Binaries built before ibv_query_port() became a macro call the symbol. */
TEST_F(verbs, exported_query_port_keeps_the_old_struct_size)
{
	unsigned char buf[sizeof(struct ibv_port_attr) + 8];
	size_t old_size = offsetof(struct ibv_port_attr, port_cap_flags2);

	memset(buf, 0x5a, sizeof(buf));
	ASSERT_EQ(0, (ibv_query_port)(self->ctx, 1,
				      (struct _compat_ibv_port_attr *)buf));
	EXPECT_EQ(IBV_PORT_ACTIVE, ((struct ibv_port_attr *)buf)->state);
	EXPECT_EQ(0x5a, buf[old_size]);
	EXPECT_EQ(0x5a, buf[sizeof(buf) - 1]);
}

TEST_F(verbs, device_pointers_are_stable_and_survive_the_list)
{
	struct ibv_device **again;
	struct ibv_port_attr attr;
	int n;

	again = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, again);
	EXPECT_EQ(self->dev, find_device(again, RDMACHAN_TEST_DEVICE));
	ibv_free_device_list(again);

	/* An open device outlives the list it came from. */
	ibv_free_device_list(self->list);
	self->list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, self->list);
	EXPECT_STREQ(RDMACHAN_TEST_DEVICE,
		     ibv_get_device_name(self->ctx->device));
	EXPECT_EQ(0, ibv_query_port(self->ctx, 1, &attr));
}

TEST_F(verbs, context_fields)
{
	struct ibv_context *second;

	EXPECT_EQ(self->dev, self->ctx->device);
	EXPECT_LE(0, self->ctx->cmd_fd);
	EXPECT_LE(1, self->ctx->num_comp_vectors);
	/* Each context is a file of its own. */
	second = ibv_open_device(self->dev);
	ASSERT_NE(NULL, second);
	EXPECT_NE(self->ctx->cmd_fd, second->cmd_fd);
	EXPECT_EQ(0, ibv_close_device(second));
	EXPECT_EQ(0, rdmachan_counter("contexts") - 1);
}

TEST(enum_strings)
{
	EXPECT_STREQ("InfiniBand channel adapter", ibv_node_type_str(IBV_NODE_CA));
	EXPECT_STREQ("iWARP NIC", ibv_node_type_str(IBV_NODE_RNIC));
	EXPECT_STREQ("unspecified", ibv_node_type_str(IBV_NODE_UNSPECIFIED));
	EXPECT_STREQ("unknown", ibv_node_type_str(IBV_NODE_UNKNOWN));
	EXPECT_STREQ("unknown", ibv_node_type_str((enum ibv_node_type)42));
	EXPECT_STREQ("down", ibv_port_state_str(IBV_PORT_DOWN));
	EXPECT_STREQ("active", ibv_port_state_str(IBV_PORT_ACTIVE));
	EXPECT_STREQ("active defer", ibv_port_state_str(IBV_PORT_ACTIVE_DEFER));
	EXPECT_STREQ("no state change (NOP)", ibv_port_state_str(IBV_PORT_NOP));
	EXPECT_STREQ("unknown", ibv_port_state_str((enum ibv_port_state)42));
}

TEST(contexts_are_freed_when_closed)
{
	long contexts = rdmachan_counter("contexts");
	long files = rdmachan_counter("files");
	struct ibv_context *ctx[8];
	struct ibv_device **list;
	int i;

	list = ibv_get_device_list(NULL);
	ASSERT_NE(NULL, list);
	for (i = 0; i < 8; i++) {
		ctx[i] = ibv_open_device(find_device(list, RDMACHAN_TEST_DEVICE));
		ASSERT_NE(NULL, ctx[i]);
	}
	ibv_free_device_list(list);
	EXPECT_EQ(contexts + 8, rdmachan_counter("contexts"));
	EXPECT_EQ(files + 8, rdmachan_counter("files"));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, ibv_close_device(ctx[i]));
	EXPECT_EQ(contexts, rdmachan_counter("contexts"));
	EXPECT_EQ(files, rdmachan_counter("files"));
}

TEST_HARNESS_MAIN
