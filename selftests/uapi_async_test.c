// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The asynchronous event ioctls without the library: what an event says,
 * acknowledgments that must be refused (twice, never delivered, wrong
 * type, another object or another file's handle), the async file's
 * owner and life (one per context, ENODEV once the context is gone),
 * queued events dropped with their object, the debugfs lines, and the
 * one log line of a destroy that waits.
 */
#include <glob.h>
#include <poll.h>
#include <pthread.h>

#include "rdmachan_verbs_raw.h"
#include "kselftest_harness.h"

#define TIMEOUT_MS	10000

FIXTURE(async) {
	int fd;
	__u32 ctx;
	int afd;
	__u32 pd, cq;
};

FIXTURE_SETUP(async)
{
	self->fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, self->fd);
	self->ctx = rdmachan_open_context(self->fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, self->ctx);
	ASSERT_EQ(0, raw_open_async_fd(self->fd, self->ctx, &self->afd));
	ASSERT_EQ(0, raw_alloc_pd(self->fd, self->ctx, &self->pd));
	ASSERT_EQ(0, raw_create_cq(self->fd, self->ctx, 16, RDMACHAN_NO_FD, 0,
				   &self->cq));
}

FIXTURE_TEARDOWN(async)
{
	close(self->fd);
	if (self->afd >= 0)
		close(self->afd);
}

/* One event on @afd within the timeout, not acknowledged: 0 or errno. */
static int take_event(int afd, struct rdmachan_get_async_event *ev)
{
	struct pollfd pfd = { .fd = afd, .events = POLLIN };

	if (poll(&pfd, 1, TIMEOUT_MS) != 1)
		return ETIMEDOUT;
	return raw_get_async_event(afd, 0, ev);
}

/* Whether this process's file debugfs entries have a line with @what. */
static bool debugfs_has(const char *what)
{
	char cmd[256], line[256];
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "cat /sys/kernel/debug/rdmachan/files/%d-* 2>/dev/null",
		 getpid());
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			found = true;
	pclose(f);
	return found;
}

TEST_F(async, event_says_what_and_whom)
{
	struct rdmachan_get_async_event ev;
	char line[64];
	__u32 qp;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(0, take_event(self->afd, &ev));
	EXPECT_EQ(IBV_EVENT_SQ_DRAINED, ev.out_event_type);
	EXPECT_EQ(RDMACHAN_ASYNC_ELEMENT_QP, ev.out_element);
	EXPECT_EQ(qp, ev.out_handle);
	EXPECT_EQ(0, ev.out_port_num);
	EXPECT_EQ(0x5150, ev.out_user_context);
	EXPECT_EQ(1, rdmachan_counter("async_fds"));
	snprintf(line, sizeof(line), "async_unacked SQ_DRAINED qp %u 1", qp);
	EXPECT_TRUE(debugfs_has(line));
	EXPECT_EQ(0, raw_ack_async_event(self->fd, qp, IBV_EVENT_SQ_DRAINED));
	EXPECT_FALSE(debugfs_has(line));
	EXPECT_EQ(0, raw_destroy(self->fd, qp));
}

TEST_F(async, refused_acknowledgments)
{
	struct pollfd pfd = { .events = POLLIN };
	struct rdmachan_get_async_event ev;
	__u32 qp, qp2;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(0, take_event(self->afd, &ev));
	ASSERT_EQ(qp, ev.out_handle);

	/* a type that was not delivered for it, or no type at all */
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, qp, IBV_EVENT_QP_FATAL));
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, qp, IBV_EVENT_CQ_ERR));
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, qp, 20));
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, qp, 0xffffffff));
	/* objects without async events, and no object */
	EXPECT_EQ(ENOENT, raw_ack_async_event(self->fd, self->pd,
					      IBV_EVENT_SQ_DRAINED));
	EXPECT_EQ(ENOENT, raw_ack_async_event(self->fd, self->ctx,
					      IBV_EVENT_SQ_DRAINED));
	EXPECT_EQ(ENOENT, raw_ack_async_event(self->fd, 0,
					      IBV_EVENT_SQ_DRAINED));
	EXPECT_EQ(ENOENT, raw_ack_async_event(self->fd, 0x7ffffff0,
					      IBV_EVENT_SQ_DRAINED));
	/* the CQ has had no event */
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, self->cq,
					      IBV_EVENT_CQ_ERR));

	/* once, then no more */
	EXPECT_EQ(0, raw_ack_async_event(self->fd, qp, IBV_EVENT_SQ_DRAINED));
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, qp,
					      IBV_EVENT_SQ_DRAINED));

	/* queued but never read: nothing to acknowledge */
	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp2));
	pfd.fd = self->afd;
	ASSERT_EQ(1, poll(&pfd, 1, TIMEOUT_MS));
	EXPECT_EQ(EINVAL, raw_ack_async_event(self->fd, qp2,
					      IBV_EVENT_SQ_DRAINED));
	ASSERT_EQ(0, raw_get_async_event(self->afd, 0, &ev));
	EXPECT_EQ(qp2, ev.out_handle);
	EXPECT_EQ(0, raw_ack_async_event(self->fd, qp2, IBV_EVENT_SQ_DRAINED));

	/* a destroyed QP's handle */
	EXPECT_EQ(0, raw_destroy(self->fd, qp));
	EXPECT_EQ(ENOENT, raw_ack_async_event(self->fd, qp,
					      IBV_EVENT_SQ_DRAINED));
	EXPECT_EQ(0, raw_destroy(self->fd, qp2));
}

/* Handles and async files of another file or process are not the caller's. */
TEST_F(async, foreign_handles_and_files)
{
	struct rdmachan_get_async_event ev;
	int fd2, afd2, status;
	__u32 ctx2, qp;
	pid_t pid;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(0, take_event(self->afd, &ev));

	fd2 = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd2);
	ctx2 = rdmachan_open_context(fd2, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, ctx2);
	/* fd2 has only its context: the QP's handle names nothing there */
	ASSERT_NE(qp, ctx2);
	EXPECT_EQ(ENOENT, raw_ack_async_event(fd2, qp, IBV_EVENT_SQ_DRAINED));
	/* a handle of fd that is no context of fd2 */
	EXPECT_EQ(ENOENT, raw_open_async_fd(fd2, self->pd, &afd2));
	/* the event is still there to acknowledge on its own file */
	EXPECT_EQ(0, raw_ack_async_event(self->fd, qp, IBV_EVENT_SQ_DRAINED));
	close(fd2);

	/* another process may not read the async file */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(raw_get_async_event(self->afd,
					  RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
					  &ev));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EACCES, WEXITSTATUS(status));
	EXPECT_EQ(0, raw_destroy(self->fd, qp));
}

TEST_F(async, commands_on_the_wrong_file)
{
	char buf[64] = {};

	*(__u32 *)buf = sizeof(struct rdmachan_get_async_event);
	EXPECT_EQ(-1, ioctl(self->fd, RDMACHAN_IOC_GET_ASYNC_EVENT, buf));
	EXPECT_EQ(ENOTTY, errno);
	*(__u32 *)buf = sizeof(struct rdmachan_ack_async_event);
	EXPECT_EQ(-1, ioctl(self->afd, RDMACHAN_IOC_ACK_ASYNC_EVENT, buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->afd, RDMACHAN_IOC_GET_CQ_EVENT, buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->afd, FIONREAD, buf));
	EXPECT_EQ(ENOTTY, errno);
	/* its own command with another type or direction */
	*(__u32 *)buf = sizeof(struct rdmachan_get_async_event);
	EXPECT_EQ(-1, ioctl(self->afd, _IOWR('x', RDMACHAN_CMD_GET_ASYNC_EVENT,
					     struct rdmachan_get_async_event),
			    buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->afd, _IOR(RDMACHAN_IOCTL_TYPE,
					    RDMACHAN_CMD_GET_ASYNC_EVENT,
					    struct rdmachan_get_async_event),
			    buf));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(async, one_async_file_per_context)
{
	struct rdmachan_get_async_event ev;
	struct pollfd pfd = { .events = POLLIN };
	int afd2 = -1;

	EXPECT_EQ(EBUSY, raw_open_async_fd(self->fd, self->ctx, &afd2));
	EXPECT_EQ(ENOENT, raw_open_async_fd(self->fd, self->pd, &afd2));
	EXPECT_EQ(ENOENT, raw_open_async_fd(self->fd, 0x7ffffff0, &afd2));
	close(self->afd);
	self->afd = -1;
	ASSERT_EQ(0, raw_open_async_fd(self->fd, self->ctx, &afd2));
	EXPECT_EQ(EAGAIN, raw_get_async_event(afd2,
					      RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
					      &ev));
	EXPECT_EQ(EINVAL, raw_get_async_event(afd2, 0x2, &ev));

	/* the context goes: its async file says so */
	ASSERT_EQ(0, raw_destroy(self->fd, self->ctx));
	EXPECT_EQ(ENODEV, raw_get_async_event(afd2, 0, &ev));
	pfd.fd = afd2;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	self->afd = afd2;
}

/* The main file closes first: a blocked reader wakes up with ENODEV. */
static void *closer(void *arg)
{
	usleep(300000);
	close(*(int *)arg);
	return NULL;
}

TEST_F(async, blocked_reader_wakes_when_file_closes)
{
	struct rdmachan_get_async_event ev;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, closer, &self->fd));
	EXPECT_EQ(ENODEV, raw_get_async_event(self->afd, 0, &ev));
	pthread_join(t, NULL);
	self->fd = open("/dev/rdmachan", O_RDWR);
}

/* A destroyed QP's unread event goes with it; none stays counted. */
TEST_F(async, destroy_drops_unread_events)
{
	struct pollfd pfd = { .fd = self->afd, .events = POLLIN };
	struct rdmachan_get_async_event ev;
	__u32 qp;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(1, poll(&pfd, 1, TIMEOUT_MS));
	EXPECT_EQ(1, rdmachan_counter("async_events"));
	EXPECT_EQ(0, raw_destroy(self->fd, qp));
	EXPECT_EQ(0, rdmachan_counter("async_events"));
	EXPECT_EQ(EAGAIN, raw_get_async_event(self->afd,
					      RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
					      &ev));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

/* Events waiting when the file closes go with it. */
TEST_F(async, close_drops_unread_events)
{
	struct pollfd pfd = { .fd = self->afd, .events = POLLIN };
	struct rdmachan_get_async_event ev;
	__u32 qp, qp2;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(0, take_event(self->afd, &ev));
	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp2));
	ASSERT_EQ(1, poll(&pfd, 1, TIMEOUT_MS));
	close(self->fd);
	self->fd = -1;
	close(self->afd);
	self->afd = -1;
	EXPECT_EQ(0, rdmachan_counter("async_events"));
	EXPECT_EQ(0, rdmachan_counter("async_fds"));
	EXPECT_EQ(0, rdmachan_counter("qps"));
}

struct destroy_arg {
	int fd;
	__u32 handle;
	int ret;
};

static void *destroyer(void *arg)
{
	struct destroy_arg *d = arg;

	d->ret = raw_destroy(d->fd, d->handle);
	return NULL;
}

/* Lines of the kernel log that contain @what. */
static int klog_count(const char *what)
{
	char line[512];
	int n = 0;
	FILE *f = popen("dmesg", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			n++;
	pclose(f);
	return n;
}

/*
 * A destroy that waits more than 5 s says once, in the kernel log, what
 * it waits for: the object and its unacknowledged event types.
 */
TEST_F(async, waiting_destroy_logs_once)
{
	struct rdmachan_get_async_event ev;
	struct destroy_arg d = { .fd = self->fd };
	char what[128];
	pthread_t t;
	__u32 qp;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	ASSERT_EQ(0, take_event(self->afd, &ev));
	snprintf(what, sizeof(what),
		 "pid %d: QP %u waits for 1 unacknowledged event(s): SQ_DRAINED",
		 getpid(), qp);
	d.handle = qp;
	ASSERT_EQ(0, pthread_create(&t, NULL, destroyer, &d));
	sleep(12);
	EXPECT_EQ(1, klog_count(what));
	EXPECT_EQ(0, raw_ack_async_event(self->fd, qp, IBV_EVENT_SQ_DRAINED));
	pthread_join(t, NULL);
	EXPECT_EQ(0, d.ret);
}

/*
 * At most RDMACHAN_ASYNC_MAX_QUEUED events wait unread; the rest are
 * dropped and counted in debugfs, and the ones kept are all delivered.
 * A thousand drains take minutes under the debug kernel on a busy host.
 */
/*
 * The context's "async_queue <ctx> <queued> <dropped>" line in this
 * process's debugfs files (read directly: the test reads it a thousand
 * times): 0 and the two counts, or -1 when the line is not there.
 */
static int async_queue_counts(__u32 ctx, unsigned long *queued,
			      unsigned long *dropped)
{
	char pattern[128], line[256];
	unsigned int handle;
	int ret = -1;
	glob_t files;
	size_t i;
	FILE *f;

	snprintf(pattern, sizeof(pattern),
		 "/sys/kernel/debug/rdmachan/files/%d-*", getpid());
	if (glob(pattern, 0, NULL, &files))
		return -1;
	for (i = 0; i < files.gl_pathc; i++) {
		f = fopen(files.gl_pathv[i], "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "async_queue %u %lu %lu", &handle,
				   queued, dropped) == 3 && handle == ctx)
				ret = 0;
		fclose(f);
	}
	globfree(&files);
	return ret;
}

TEST_F_TIMEOUT(async, unread_events_are_capped, 300)
{
	struct rdmachan_qp_attr a = {};
	struct rdmachan_get_async_event ev;
	int i, tries, n = 0, loops = RDMACHAN_ASYNC_MAX_QUEUED + 8;
	unsigned long queued = 0, dropped = 0;
	__u32 qp;

	ASSERT_EQ(0, raw_drained_qp(self->fd, self->pd, self->cq, &qp));
	for (i = 1; i < loops; i++) {
		/*
		 * Drain i has ended when its SQ_DRAINED is queued or, past
		 * the cap, dropped: only then may the QP go back to RTS.
		 */
		for (tries = 0; tries < 10000; tries++) {
			if (!async_queue_counts(self->ctx, &queued, &dropped) &&
			    queued + dropped >= (unsigned long)i)
				break;
			usleep(100);
		}
		ASSERT_EQ(i, queued + dropped);
		ASSERT_EQ(i > RDMACHAN_ASYNC_MAX_QUEUED ?
			  RDMACHAN_ASYNC_MAX_QUEUED : i, queued);
		a.qp_state = IBV_QPS_RTS;
		ASSERT_EQ(0, raw_modify_qp(self->fd, qp, IBV_QP_STATE, &a));
		a.qp_state = IBV_QPS_SQD;
		ASSERT_EQ(0, raw_modify_qp(self->fd, qp, IBV_QP_STATE, &a));
	}
	for (tries = 0; tries < 10000; tries++) {
		if (!async_queue_counts(self->ctx, &queued, &dropped) &&
		    queued + dropped >= (unsigned long)loops)
			break;
		usleep(100);
	}
	/* "at most RDMACHAN_ASYNC_MAX_QUEUED ... wait unread (more are dropped" */
	EXPECT_EQ(RDMACHAN_ASYNC_MAX_QUEUED, queued);
	EXPECT_EQ(loops - RDMACHAN_ASYNC_MAX_QUEUED, dropped);
	EXPECT_EQ(RDMACHAN_ASYNC_MAX_QUEUED, rdmachan_counter("async_events"));
	while (!raw_get_async_event(self->afd, RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
				    &ev)) {
		ASSERT_EQ(qp, ev.out_handle);
		ASSERT_EQ(0, raw_ack_async_event(self->fd, qp,
						 IBV_EVENT_SQ_DRAINED));
		n++;
	}
	EXPECT_EQ(RDMACHAN_ASYNC_MAX_QUEUED, n);
	EXPECT_EQ(0, raw_destroy(self->fd, qp));
}

struct churn {
	int fd, afd;
	__u32 pd, cq;
	int stop;
	int errors;
	int acked;
};

/* Makes QPs that report SQ_DRAINED and destroys them at once. */
static void *churn_qps(void *arg)
{
	struct churn *c = arg;
	__u32 qp;
	int i;

	for (i = 0; i < 40; i++) {
		if (raw_drained_qp(c->fd, c->pd, c->cq, &qp) ||
		    raw_destroy(c->fd, qp))
			__atomic_add_fetch(&c->errors, 1, __ATOMIC_RELAXED);
		if (i % 3 == 0)
			usleep(1000);
	}
	return NULL;
}

/* Takes every event and acknowledges it: a destroy waits for that. */
static void *take_and_ack(void *arg)
{
	struct churn *c = arg;
	struct rdmachan_get_async_event ev;
	struct pollfd pfd = { .fd = c->afd, .events = POLLIN };

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, 50) != 1)
			continue;
		if (raw_get_async_event(c->afd, RDMACHAN_GET_ASYNC_EVENT_NONBLOCK,
					&ev))
			continue;
		if (raw_ack_async_event(c->fd, ev.out_handle, ev.out_event_type))
			__atomic_add_fetch(&c->errors, 1, __ATOMIC_RELAXED);
		else
			c->acked++;
	}
	return NULL;
}

/*
 * QPs destroyed while their events are queued, being read or read:
 * every event read can be acknowledged, every destroy finishes, and
 * nothing is left.
 */
TEST_F(async, events_race_destroys)
{
	struct churn c = {
		.fd = self->fd, .afd = self->afd, .pd = self->pd, .cq = self->cq,
	};
	pthread_t makers[2], reader;
	int i;

	ASSERT_EQ(0, pthread_create(&reader, NULL, take_and_ack, &c));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&makers[i], NULL, churn_qps, &c));
	for (i = 0; i < 2; i++)
		pthread_join(makers[i], NULL);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(reader, NULL);
	EXPECT_EQ(0, c.errors);
	TH_LOG("%d events read and acknowledged", c.acked);
	EXPECT_EQ(0, rdmachan_counter("qps"));
	EXPECT_EQ(0, rdmachan_counter("async_events"));
}

TEST_HARNESS_MAIN
