/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the rdmachan selftests. They run in the test guest,
 * as root, with rxe0 (or $RDMACHAN_DEVICE: siw0 in a siw run) on
 * $RDMACHAN_NETDEV and rdmachan.ko loaded.
 */
#ifndef RDMACHAN_SELFTEST_H
#define RDMACHAN_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../uapi/rdmachan.h"

/* The device the tests use: rxe0, or the run's (selftests/run-in-guest --siw). */
static inline const char *rdmachan_test_device(void)
{
	const char *dev = getenv("RDMACHAN_DEVICE");

	return dev && *dev ? dev : "rxe0";
}

#define RDMACHAN_TEST_DEVICE rdmachan_test_device()
#define __maybe_unused __attribute__((unused))

/*
 * Written once at file scope by a test of the module's own verbs objects:
 * librdmachan then runs kernel-owned in it whatever the module offers (in
 * bypass mode its verbs would be uverbs').
 */
#define RDMACHAN_TEST_KERNEL_OWNED					\
	static void __attribute__((constructor)) test_kernel_owned(void) \
	{								\
		setenv("RDMACHAN_MODE", "kernel", 1);			\
	}

/* Value of @name in a file of "key value" lines, or -1. */
static __maybe_unused long read_key_value(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char key[32];
	long val, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", key, &val) == 2) {
		if (!strcmp(key, name))
			ret = val;
	}
	fclose(f);
	return ret;
}

/* Value of one module-wide counter in debugfs rdmachan/objects, or -1. */
static __maybe_unused long rdmachan_counter(const char *name)
{
	return read_key_value("/sys/kernel/debug/rdmachan/objects", name);
}

/* RDMACHAN_IOC_QUERY_PORT on @handle: 0 or the errno. */
static __maybe_unused int rdmachan_query_port(int fd, __u32 handle, __u32 port)
{
	struct rdmachan_query_port cmd = {
		.size = sizeof(cmd), .handle = handle, .port_num = port,
	};

	return ioctl(fd, RDMACHAN_IOC_QUERY_PORT, &cmd) ? errno : 0;
}

/* First line of a sysfs file, without the newline; "" when unreadable. */
static __maybe_unused const char *read_line(const char *path, char *buf,
					    size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Device index of @name through RDMACHAN_IOC_LIST_DEVICES, or -1. */
static __maybe_unused long rdmachan_device_index(int fd, const char *name)
{
	struct rdmachan_device_entry entries[16];
	struct rdmachan_list_devices cmd = {
		.size = sizeof(cmd),
		.entry_size = sizeof(entries[0]),
		.max_entries = 16,
		.entries = (uintptr_t)entries,
	};
	unsigned int i;

	if (ioctl(fd, RDMACHAN_IOC_LIST_DEVICES, &cmd))
		return -1;
	for (i = 0; i < cmd.out_num_devices && i < 16; i++)
		if (!strcmp(entries[i].name, name))
			return entries[i].device_index;
	return -1;
}

/* Opens a device context on @name; returns its handle or 0. */
static __maybe_unused __u32 rdmachan_open_context(int fd, const char *name)
{
	struct rdmachan_open_device cmd = { .size = sizeof(cmd) };
	long index = rdmachan_device_index(fd, name);

	if (index < 0)
		return 0;
	cmd.device_index = (__u32)index;
	if (ioctl(fd, RDMACHAN_IOC_OPEN_DEVICE, &cmd))
		return 0;
	return cmd.out_handle;
}

static __maybe_unused int run_cmd(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static __maybe_unused int run_cmd(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	return ret == -1 ? -1 : WEXITSTATUS(ret);
}

/*
 * Where module NAME stands in /proc/modules, which lists the newest first:
 * its line number, -2 when built in (in /sys/module only), -1 when absent.
 */
static __maybe_unused int module_position(const char *name)
{
	size_t len = strlen(name);
	char line[512], path[64];
	int pos = 0, found = -1;
	FILE *f;

	f = fopen("/proc/modules", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, len) && line[len] == ' ') {
			found = pos;
			break;
		}
		pos++;
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/sys/module/%s", name);
	if (found < 0 && !access(path, F_OK))
		return -2;
	return found;
}

/*
 * Whether a device's removal reaches ib_uverbs before rdma_cm. The RDMA
 * core removes its clients in the reverse order of their registration, and
 * ib_uverbs then waits, on a device without disassociate (rxe), for every
 * process to close its device context: on the stock stack rdma_cm's
 * DEVICE_REMOVAL comes only after that. rdmachan's own removal comes
 * before both (its client registers after ib_uverbs') and sends
 * DEVICE_REMOVAL itself, so there it makes no difference. Since 7.x's rxe
 * no longer loads ib_uverbs, rdma_cm may well be registered first. Built
 * in, rdma_cm registers first (link order).
 */
static __maybe_unused bool uverbs_removed_before_cm(void)
{
	int uverbs = module_position("ib_uverbs");
	int cm = module_position("rdma_cm");

	if (uverbs == -1 || cm == -1)
		return false;
	if (uverbs >= 0 && cm >= 0)
		return uverbs < cm;
	return cm == -2;
}

/* The command that deletes the test device, for a child to run. */
static __maybe_unused const char *test_device_delete_cmd(void)
{
	static char cmd[64];

	snprintf(cmd, sizeof(cmd), "rdma link delete %s", RDMACHAN_TEST_DEVICE);
	return cmd;
}

/*
 * Puts the test device back on the test netdev (if missing) and waits for
 * ACTIVE: rxe0, or $RDMACHAN_DEVICE of type $RDMACHAN_DEVICE_TYPE.
 */
static __maybe_unused int rxe_restore(void)
{
	const char *netdev = getenv("RDMACHAN_NETDEV");
	const char *type = getenv("RDMACHAN_DEVICE_TYPE");
	char path[128], state[64];
	int i;

	if (!netdev)
		netdev = "rdmachan0";
	if (!type)
		type = "rxe";
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s",
		 RDMACHAN_TEST_DEVICE);
	if (access(path, F_OK) &&
	    run_cmd("rdma link add %s type %s netdev %s",
		    RDMACHAN_TEST_DEVICE, type, netdev))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/state",
		 RDMACHAN_TEST_DEVICE);
	for (i = 0; i < 200; i++) {
		read_line(path, state, sizeof(state));
		if (strstr(state, "ACTIVE"))
			return 0;
		usleep(50000);
	}
	return -1;
}

#endif /* RDMACHAN_SELFTEST_H */
