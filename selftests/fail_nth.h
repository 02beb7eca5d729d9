/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fail-nth sweep engine, in the manner of the kernel's iommufd
 * selftests: for nth = 1, 2, ... the state a call needs is made first,
 * then /proc/self/task/<tid>/fail-nth is armed with nth and the call is
 * made, so its nth fault-injection point (a slab or page allocation, a
 * user copy) fails. The sweep of a call ends when it gets through its
 * whole path without reaching the armed point. A path can be a point or
 * two longer now and then (a new xarray node, a random port's slot), which
 * shifts its last points, so the sweep steps back over them a few times
 * (SWEEP_TAIL, SWEEP_BACK) before it ends.
 *
 * Each injected fault that fails the call must leave things as they were:
 *  - a clean errno: ENOMEM (an allocation), EFAULT (a user copy), or for
 *    calls that make the RDMA core look up an IP route (SW_ROUTE) ENOBUFS,
 *    which is how the IP stack's route lookup reports a failed dst
 *    allocation, and for calls that make rxe create a kernel socket
 *    (SW_SOCKET, a QP's UDP socket) ENFILE, which is how sock_alloc()
 *    reports a failed inode allocation;
 *  - no object or event behind: the module's counters (debugfs
 *    rdmachan/objects) and the debugfs entries of the files involved
 *    (objects and unacknowledged events) are unchanged, but for what the
 *    sweep's expect() says the failed call took;
 *  - the next identical call (the same struct, as the failed call left
 *    it), without a fault, succeeds, unless the sweep's failed() knows
 *    better (an RDMA-core behaviour, counted in core_rejects).
 *
 * A fault the call absorbs (it succeeds although the armed point was
 * reached: an allocation with a fallback, a best-effort one in the RDMA
 * core) is counted too; the call's result must still be right.
 *
 * Skips without fail-nth (a kernel without CONFIG_FAULT_INJECTION, such as
 * the stock kernel of make check); runs under make check-debug. The
 * fault-injection knobs it sets, and arming and disarming fail-nth, are
 * fail_nth_knobs.h's.
 *
 * The including file defines, before it includes this header,
 * union sweep_arg (the argument structs of the calls it sweeps) and
 * SWEEP_CTX_FIELDS (its own members of struct ctx: objects of a sweep or
 * of one step).
 */
#ifndef RDMACHAN_FAIL_NTH_H
#define RDMACHAN_FAIL_NTH_H

#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>

#include "rdmachan_cm_raw.h"
#include "kselftest_harness.h"
#include "fail_nth_knobs.h"

#define SWEEP_MAX		500
/*
 * The end of a sweep: after a call passed the armed point, step back a
 * few points and go on; the sweep ends at the SWEEP_TAIL-th such call.
 */
#define SWEEP_TAIL		4
#define SWEEP_BACK		2
#define EVENT_MS		5000
#define SWEEP_TIMEOUT_S		280
#define max(a, b)		((a) > (b) ? (a) : (b))

/* What a sweep works on: the file under test, a peer file, the call. */
struct ctx {
	int fd;
	int peer;
	int nth_fd;
	/* the file the call goes to when not fd (a channel, an async fd) */
	int call_fd;
	char dbg[2][128];
	__u32 dev_index;
	__u32 dev_ctx;
	const struct sweep_ops *ops;
	unsigned int nth;
	/* the armed point was reached; the call's errno then, or absorbed */
	bool fired;
	int err;
	bool absorbed;
	bool bad;
	/*
	 * calls under test made, and how often the RDMA core's own answer
	 * to a failure was seen
	 */
	unsigned int calls;
	unsigned int core_rejects;
	/* findings reported (nth, line, first line of text): printed once */
	unsigned int seen[64];
	unsigned int nseen;
	union sweep_arg arg, saved;
	SWEEP_CTX_FIELDS
};

#define SW_ROUTE	0x1	/* the RDMA core looks up IP routes: ENOBUFS */
#define SW_PEER_EVENTS	0x2	/* a failure may send the peer a CM event */
#define SW_SOCKET	0x4	/* rxe makes a kernel socket: ENFILE */

struct snap;

struct sweep_ops {
	const char *name;
	unsigned long ioc;
	unsigned int flags;
	/* once per pair of files: state every step shares */
	void (*init)(struct __test_metadata *_metadata, struct ctx *c);
	/* per step, before the fault is armed: fills c->arg */
	void (*prepare)(struct __test_metadata *_metadata, struct ctx *c);
	/* after the call succeeded: checks its result, undoes it */
	void (*done)(struct __test_metadata *_metadata, struct ctx *c);
	/*
	 * After it failed and the generic checks: the next identical call,
	 * then undo. Default: that call must succeed, then done().
	 */
	void (*failed)(struct __test_metadata *_metadata, struct ctx *c);
	/*
	 * After it failed: what the failed call may have taken out of the
	 * state snapped before it, as its struct says.
	 */
	void (*expect)(struct ctx *c, struct snap *before);
};

static void finding(struct __test_metadata *_metadata, struct ctx *c,
		    int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finding(struct __test_metadata *_metadata, struct ctx *c,
		    int line, const char *fmt, ...)
{
	unsigned int key = c->nth, i;
	char msg[1024], *line_start, *nl;
	va_list ap;

	_metadata->passed = 0;
	c->bad = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; msg[i] && msg[i] != '\n'; i++)
		key = key * 33 + msg[i];
	key = key * 33 + line;
	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == key)
			return;
	if (c->nseen < ARRAY_SIZE(c->seen))
		c->seen[c->nseen++] = key;
	if (c->fired)
		ksft_print_msg("FINDING %s, fault at injection point %u (%s%s), line %d:\n",
			       c->ops->name, c->nth,
			       c->err ? "the call failed with " : "absorbed",
			       c->err ? fail_nth_errname(c->err) : "", line);
	else
		ksft_print_msg("FINDING %s, without a fault (after %u injection points), line %d:\n",
			       c->ops->name, c->nth - 1, line);
	for (line_start = msg; *line_start; line_start = nl + 1) {
		nl = strchrnul(line_start, '\n');
		ksft_print_msg("  %.*s\n", (int)(nl - line_start), line_start);
		if (!*nl)
			break;
	}
}

/* A failed check is reported, and the sweep goes on with fresh files. */
#define CHECK(cond, ...) do {						\
	if (!(cond))							\
		finding(_metadata, c, __LINE__, __VA_ARGS__);		\
} while (0)

/* The call on its struct as it is. */
static int call_again(struct ctx *c)
{
	c->calls++;
	return ioctl(c->call_fd >= 0 ? c->call_fd : c->fd, c->ops->ioc,
		     &c->arg) ? errno : 0;
}

/* The call as prepared. */
static int do_call(struct ctx *c)
{
	memcpy(&c->arg, &c->saved, sizeof(c->arg));
	return call_again(c);
}

static __maybe_unused bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

/* Opens /dev/rdmachan and finds its debugfs entry, the newest of ours. */
static int open_file(struct __test_metadata *_metadata, char *dbg, size_t len)
{
	char pattern[64];
	long seq, best = -1;
	glob_t g;
	size_t i;
	int fd;

	fd = open("/dev/rdmachan", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open /dev/rdmachan: %s", strerror(errno));
	snprintf(pattern, sizeof(pattern), DEBUGFS "/rdmachan/files/%d-*",
		 getpid());
	ASSERT_EQ(0, glob(pattern, 0, NULL, &g));
	for (i = 0; i < g.gl_pathc; i++) {
		seq = strtol(strrchr(g.gl_pathv[i], '-') + 1, NULL, 10);
		if (seq > best) {
			best = seq;
			snprintf(dbg, len, "%s", g.gl_pathv[i]);
		}
	}
	globfree(&g);
	return fd;
}

static void ctx_close(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->peer >= 0)
		close(c->peer);
	c->fd = c->peer = -1;
}

static void ctx_open(struct __test_metadata *_metadata, struct ctx *c)
{
	long index;

	c->fd = open_file(_metadata, c->dbg[0], sizeof(c->dbg[0]));
	c->peer = open_file(_metadata, c->dbg[1], sizeof(c->dbg[1]));
	index = rdmachan_device_index(c->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_LE(0, index);
	c->dev_index = index;
	c->dev_ctx = rdmachan_open_context(c->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, c->dev_ctx);
}

/* What must not change when a call fails. */
struct snap {
	long counters[16];
	char file[2][2048];
	/* open file descriptors: a failed call makes no fd */
	int fds;
};

static const char *const counter_names[] = {
	"files", "devices", "contexts", "cm_ids", "cm_events",
	"comp_channels", "pds", "mrs", "cqs", "qps", "srqs", "ahs", "mcasts",
	"async_fds", "async_events", "cq_rings", "user_qps",
};
#define CM_EVENTS 4	/* counter_names[] */

static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static void snap_take(struct ctx *c, struct snap *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s->counters); i++)
		s->counters[i] = rdmachan_counter(counter_names[i]);
	for (i = 0; i < 2; i++)
		read_file(c->dbg[i], s->file[i], sizeof(s->file[i]));
	s->fds = count_fds();
}

static void snap_check(struct __test_metadata *_metadata, struct ctx *c,
		       const struct snap *orig)
{
	struct snap after, before = *orig;
	size_t i;

	if (c->ops->expect)
		c->ops->expect(c, &before);
	snap_take(c, &after);
	for (i = 0; i < ARRAY_SIZE(after.counters); i++) {
		if (i == CM_EVENTS && (c->ops->flags & SW_PEER_EVENTS))
			continue;
		CHECK(before.counters[i] == after.counters[i],
		      "module counter %s went from %ld to %ld",
		      counter_names[i], before.counters[i],
		      after.counters[i]);
	}
	CHECK(before.fds == after.fds, "%d open fds, were %d", after.fds,
	      before.fds);
	for (i = 0; i < 2; i++)
		CHECK(!strcmp(before.file[i], after.file[i]),
		      "%s file's debugfs entry is not as expected:\nexpected:\n%sfound:\n%s",
		      i ? "peer" : "calling", before.file[i], after.file[i]);
}

static bool errno_ok(const struct sweep_ops *ops, int err)
{
	return err == ENOMEM || err == EFAULT ||
	       (err == ENOBUFS && (ops->flags & SW_ROUTE)) ||
	       (err == ENFILE && (ops->flags & SW_SOCKET));
}

static void sweep(struct __test_metadata *_metadata, struct ctx *c,
		  const struct sweep_ops *ops)
{
	unsigned int points = 0, failed = 0, absorbed = 0, misses = 0;
	unsigned int deepest = 0;
	struct {
		int err;
		unsigned int count;
	} errs[8] = {};
	char errnos[128] = "";
	struct snap before;
	size_t i, len = 0;
	bool fired;
	int err;

	if (!fi.totals)
		SKIP(return, "%s", fi.skip_reason);
	c->ops = ops;
	c->calls = 0;
	c->core_rejects = 0;
	c->nseen = 0;
	if (ops->init)
		ops->init(_metadata, c);
	for (c->nth = 1; misses < SWEEP_TAIL; c->nth++) {
		ASSERT_GT(SWEEP_MAX, c->nth)
			TH_LOG("%s: more than %d injection points", ops->name,
			       SWEEP_MAX);
		c->bad = false;
		c->fired = false;
		c->absorbed = false;
		c->err = 0;
		memset(&c->arg, 0, sizeof(c->arg));
		c->call_fd = -1;
		ops->prepare(_metadata, c);
		memcpy(&c->saved, &c->arg, sizeof(c->arg));
		snap_take(c, &before);

		ASSERT_TRUE(nth_arm(c->nth_fd, c->nth));
		err = do_call(c);
		fired = nth_disarm(c->nth_fd);
		c->fired = fired;

		if (!fired) {
			/* The whole path ran without reaching the fault. */
			ASSERT_EQ(0, err)
				TH_LOG("%s fails with %s without a fault",
				       ops->name, strerror(err));
			ops->done(_metadata, c);
			if (++misses < SWEEP_TAIL)
				c->nth -= c->nth > SWEEP_BACK ? SWEEP_BACK + 1 : c->nth;
		} else if (!err) {
			deepest = max(deepest, c->nth);
			points++;
			absorbed++;
			c->absorbed = true;
			ops->done(_metadata, c);
		} else {
			deepest = max(deepest, c->nth);
			points++;
			failed++;
			c->err = err;
			for (i = 0; i < ARRAY_SIZE(errs) - 1; i++)
				if (!errs[i].err || errs[i].err == err)
					break;
			errs[i].err = err;
			errs[i].count++;
			CHECK(errno_ok(ops, err), "unexpected errno %s",
			      fail_nth_errname(err));
			snap_check(_metadata, c, &before);
			if (ops->failed) {
				ops->failed(_metadata, c);
			} else {
				err = call_again(c);
				CHECK(!err, "the next identical call fails with %s",
				      strerror(err));
				if (!err)
					ops->done(_metadata, c);
			}
		}
		if (c->bad) {
			/* Closing the files drops whatever was left. */
			ctx_close(c);
			ctx_open(_metadata, c);
			if (ops->init)
				ops->init(_metadata, c);
		}
	}
	for (i = 0; i < ARRAY_SIZE(errs) && errs[i].err; i++)
		len += snprintf(errnos + len, sizeof(errnos) - len, " %s x%u",
				fail_nth_errname(errs[i].err), errs[i].count);
	ksft_print_msg("%-34s %3u points, %3u faults: %3u failed the call (%s), %3u absorbed\n",
		       ops->name, deepest, points, failed,
		       errnos[0] ? errnos + 1 : "", absorbed);
	if (c->core_rejects)
		ksft_print_msg("%-34s %3u of the failed calls left the object unusable (RDMA core)\n",
			       ops->name, c->core_rejects);
	fi.totals->calls += c->calls;
	fi.totals->points += points;
	fi.totals->failed += failed;
	fi.totals->absorbed += absorbed;
}

FIXTURE(failnth) {
	struct ctx c;
};

FIXTURE_SETUP(failnth)
{
	char path[64];

	self->c.fd = self->c.peer = self->c.nth_fd = -1;
	if (!fi.totals)
		return;
	fi.totals->running = getpid();
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	self->c.nth_fd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->c.nth_fd);
	ctx_open(_metadata, &self->c);
}

FIXTURE_TEARDOWN(failnth)
{
	ctx_close(&self->c);
	if (self->c.nth_fd >= 0)
		close(self->c.nth_fd);
	if (fi.totals)
		fi.totals->running = 0;
}

static void destroy_ok(struct __test_metadata *_metadata, struct ctx *c,
		       int fd, __u32 handle)
{
	int err = raw_destroy(fd, handle);

	CHECK(!err, "DESTROY of %u: %s", handle, strerror(err));
}

static __maybe_unused void nothing_done(struct __test_metadata *_metadata,
					struct ctx *c)
{
}

#define SWEEP_TEST(_test, _ops)						\
TEST_F_TIMEOUT(failnth, _test, SWEEP_TIMEOUT_S)			\
{									\
	sweep(_metadata, &self->c, &_ops);				\
}

#endif /* RDMACHAN_FAIL_NTH_H */
