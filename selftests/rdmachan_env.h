/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an installed kselftest tree (make -C selftests install) runs before
 * each test program, forced in with -include: the environment the tests
 * expect, made when it is missing, as the kernel's own selftests set up
 * theirs. rdmachan.ko loaded (modprobe), and rxe0 on a dummy netdev
 * $RDMACHAN_NETDEV (rdmachan0) with $RDMACHAN_ADDR (10.77.0.1/24). A
 * machine that cannot have them skips the program (exit 4, KSFT_SKIP),
 * saying why.
 */
#ifndef RDMACHAN_ENV_H
#define RDMACHAN_ENV_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *rdmachan_env_get(const char *name, const char *fallback)
{
	const char *value = getenv(name);

	return value && *value ? value : fallback;
}

static void rdmachan_env_skip(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(4);
}

static int __attribute__((format(printf, 1, 2))) rdmachan_env_run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* rxe0 must be on the tests' netdev: its address is the one they dial */
static void rdmachan_env_rxe(const char *netdev)
{
	char on[64] = "";
	FILE *f;

	f = fopen("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "r");
	if (f) {
		if (!fgets(on, sizeof(on), f))
			on[0] = '\0';
		on[strcspn(on, "\n")] = '\0';
		fclose(f);
	}
	if (!f) {
		if (rdmachan_env_run("modprobe rdma_rxe 2>/dev/null; modprobe rdma_ucm 2>/dev/null; "
				     "rdma link add rxe0 type rxe netdev %s", netdev))
			rdmachan_env_skip("cannot add rxe0 on the tests' netdev (CONFIG_RDMA_RXE)");
	} else if (strcmp(on, netdev)) {
		rdmachan_env_skip("rxe0 is on another netdev: set RDMACHAN_NETDEV and RDMACHAN_ADDR to it");
	}
}

static void __attribute__((constructor)) rdmachan_env_setup(void)
{
	const char *netdev = rdmachan_env_get("RDMACHAN_NETDEV", "rdmachan0");
	const char *addr = rdmachan_env_get("RDMACHAN_ADDR", "10.77.0.1");
	const char *dev = rdmachan_env_get("RDMACHAN_DEVICE", "rxe0");
	char path[256];
	FILE *f;
	int i;

	/* the helpers a test execs (as nobody, say) inherit a ready one */
	if (getenv("RDMACHAN_ENV_READY"))
		return;
	/* ib_uverbs first: see uverbs_removed_before_cm() (rdmachan_test.h) */
	if (access("/dev/rdmachan", F_OK) &&
	    rdmachan_env_run("modprobe ib_uverbs 2>/dev/null; modprobe rdmachan 2>/dev/null"))
		rdmachan_env_skip("rdmachan.ko is not loaded and modprobe cannot load it");
	snprintf(path, sizeof(path), "/sys/class/net/%s", netdev);
	if (access(path, F_OK) &&
	    (rdmachan_env_run("modprobe dummy 2>/dev/null; ip link add %s type dummy && "
			      "ip link set %s up", netdev, netdev) ||
	     rdmachan_env_run("ip addr add %s/24 dev %s", addr, netdev)))
		rdmachan_env_skip("cannot make the dummy netdev the tests use");
	if (strcmp(dev, "rxe0")) {
		/* another device the run set up (vm/run --siw) on that netdev */
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
		if (access(path, F_OK))
			rdmachan_env_skip("the run's RDMACHAN_DEVICE does not exist");
	} else {
		rdmachan_env_rxe(netdev);
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/state", dev);
	for (i = 0; i < 100; i++) {
		char state[32] = "";

		f = fopen(path, "r");
		if (f) {
			if (!fgets(state, sizeof(state), f))
				state[0] = '\0';
			fclose(f);
		}
		if (strstr(state, "ACTIVE"))
			break;
		usleep(100000);
	}
	if (i == 100)
		rdmachan_env_skip("the test device's port never became ACTIVE");
	setenv("RDMACHAN_ENV_READY", "1", 1);
}

#endif /* RDMACHAN_ENV_H */
