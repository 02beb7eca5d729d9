/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fault-injection set-up of the fail-nth sweeps (fail_nth.h's over
 * the module's ioctls, fail_nth_rsocket_test.c's over librdmachan's
 * rsockets), and arming and disarming /proc/self/task/<tid>/fail-nth.
 *
 * fail-nth counts only the calling task's injection points and the
 * probability of random faults stays 0, so nothing else fails. What is
 * changed, and restored at exit: ignore-gfp-wait N for failslab and
 * fail_page_alloc (GFP_KERNEL allocations are fault points too),
 * ignore-gfp-highmem N for fail_page_alloc, and verbose 0 for every fail*
 * attribute: a fault's stack dump would read as a kernel report in the
 * guest's log. With RDMACHAN_FAIL_NTH_STACKS set, verbose is 2 instead, so
 * the kernel log shows where each fault hit (and the run reads as dirty).
 * Without fail-nth (a kernel without CONFIG_FAULT_INJECTION) fi.totals
 * stays NULL and fi.skip_reason says why.
 */
#ifndef RDMACHAN_FAIL_NTH_KNOBS_H
#define RDMACHAN_FAIL_NTH_KNOBS_H

#include <glob.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "rdmachan_test.h"
#include "kselftest_harness.h"

#define DEBUGFS			"/sys/kernel/debug"

/* Fault injection set-up, shared by every test; done once in the parent. */
#define MAX_KNOBS 16
static struct {
	pid_t parent;
	char skip_reason[128];
	int nknobs;
	struct {
		char path[128];
		char saved[32];
	} knobs[MAX_KNOBS];
	/* across the forked tests */
	struct totals {
		/* the test running now, for fi_on_signal() */
		pid_t running;
		unsigned int calls;
		unsigned int points;
		unsigned int failed;
		unsigned int absorbed;
	} *totals;
} fi;

/* An errno's name: strerrorname_np() is glibc 2.32's, before it the number. */
static const char *fail_nth_errname(int err)
{
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32)
	return strerrorname_np(err);
#else
	static char name[24];

	snprintf(name, sizeof(name), "errno %d", err);
	return name;
#endif
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* Sets @path to @val and remembers its value for fi_restore_knobs(). */
static int knob_set(const char *path, const char *val)
{
	char buf[32];

	if (fi.nknobs == MAX_KNOBS)
		return -1;
	read_line(path, buf, sizeof(buf));
	if (!buf[0] || write_str(path, val))
		return -1;
	snprintf(fi.knobs[fi.nknobs].path, sizeof(fi.knobs[0].path), "%s",
		 path);
	snprintf(fi.knobs[fi.nknobs].saved, sizeof(fi.knobs[0].saved), "%s",
		 buf);
	fi.nknobs++;
	return 0;
}

static void fi_restore_knobs(void)
{
	while (fi.nknobs > 0) {
		fi.nknobs--;
		write_str(fi.knobs[fi.nknobs].path, fi.knobs[fi.nknobs].saved);
	}
}

/* Killed (by a time limit): the test in progress goes first, then the knobs. */
static void fi_on_signal(int sig)
{
	if (getpid() == fi.parent) {
		if (fi.totals && fi.totals->running > 0)
			kill(fi.totals->running, SIGKILL);
		fi_restore_knobs();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void __attribute__((constructor)) fi_setup(void)
{
	char path[64];
	glob_t g;
	size_t i;

	fi.parent = getpid();
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	if (access(path, W_OK)) {
		snprintf(fi.skip_reason, sizeof(fi.skip_reason),
			 "no /proc/self/task/<tid>/fail-nth: kernel without fault injection");
		return;
	}
	if (knob_set(DEBUGFS "/failslab/ignore-gfp-wait", "N") ||
	    knob_set(DEBUGFS "/fail_page_alloc/ignore-gfp-wait", "N") ||
	    knob_set(DEBUGFS "/fail_page_alloc/ignore-gfp-highmem", "N")) {
		fi_restore_knobs();
		snprintf(fi.skip_reason, sizeof(fi.skip_reason),
			 "cannot set failslab and fail_page_alloc in debugfs");
		return;
	}
	/* To see where each fault hit: its stack in the kernel log. */
	if (!glob(DEBUGFS "/fail*/verbose", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			knob_set(g.gl_pathv[i],
				 getenv("RDMACHAN_FAIL_NTH_STACKS") ? "2" : "0");
		globfree(&g);
	}
	fi.totals = mmap(NULL, sizeof(*fi.totals), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fi.totals == MAP_FAILED) {
		fi.totals = NULL;
		fi_restore_knobs();
		snprintf(fi.skip_reason, sizeof(fi.skip_reason), "mmap: %s",
			 strerror(errno));
		return;
	}
	signal(SIGTERM, fi_on_signal);
	signal(SIGINT, fi_on_signal);
}

static void __attribute__((destructor)) fi_teardown(void)
{
	if (getpid() != fi.parent)
		return;
	fi_restore_knobs();
	if (fi.totals && fi.totals->calls)
		ksft_print_msg("fail-nth: %u faults injected in %u calls under test: %u failed the call, %u absorbed\n",
			       fi.totals->points, fi.totals->calls,
			       fi.totals->failed, fi.totals->absorbed);
}

/* Arms fail-nth: the @nth injection point of this task fails. */
static bool nth_arm(int fd, unsigned int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", nth);

	return pwrite(fd, buf, len, 0) == len;
}

/*
 * Disarms fail-nth; true when the armed point was reached. Reading it
 * back gives 0 once the fault fired. The read's and the write's own user
 * copies are injection points as well: the last count going off there
 * shows as EFAULT and means the call did not reach it.
 */
static bool nth_disarm(int fd)
{
	char buf[16] = "";
	bool fired = false;
	ssize_t n;
	int i;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0)
		fired = strtoul(buf, NULL, 10) == 0;
	for (i = 0; i < 3 && pwrite(fd, "0", 1, 0) != 1; i++)
		;
	return fired;
}

/* The descriptors this process has open. */
static __maybe_unused int count_fds(void)
{
	glob_t g;
	int n = 0;

	if (!glob("/proc/self/fd/*", 0, NULL, &g)) {
		n = g.gl_pathc;
		globfree(&g);
	}
	return n;
}

/* "fd:what it is" of each open descriptor, space apart, into @buf. */
static __maybe_unused void describe_fds(char *buf, size_t len)
{
	char target[128];
	size_t used = 0;
	glob_t g;
	size_t i;

	buf[0] = '\0';
	if (glob("/proc/self/fd/*", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc && used < len; i++) {
		ssize_t n = readlink(g.gl_pathv[i], target, sizeof(target) - 1);
		int w;

		target[n > 0 ? n : 0] = '\0';
		w = snprintf(buf + used, len - used, "%s%s:%s", used ? " " : "",
			     strrchr(g.gl_pathv[i], '/') + 1, target);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	globfree(&g);
}

#endif /* RDMACHAN_FAIL_NTH_KNOBS_H */
