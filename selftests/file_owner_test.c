// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A /dev/rdmachan file belongs to the process that opened it: a forked
 * child, or a process the fd was passed to, gets EACCES, and the owner is
 * not affected by either.
 */
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <infiniband/verbs.h>

#include "rdmachan_test.h"
#include "kselftest_harness.h"

RDMACHAN_TEST_KERNEL_OWNED

static int get_info(int fd)
{
	struct rdmachan_get_info cmd = { .size = sizeof(cmd) };

	return ioctl(fd, RDMACHAN_IOC_GET_INFO, &cmd) ? errno : 0;
}

/* Runs @fn in a forked child; returns its exit status. */
static int in_child(int (*fn)(int fd, __u32 handle), int fd, __u32 handle)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(fd, handle));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Exit status 0 when every call in the child is refused with EACCES. */
static int child_is_refused(int fd, __u32 handle)
{
	struct rdmachan_destroy destroy = {
		.size = sizeof(destroy), .handle = handle,
	};

	if (get_info(fd) != EACCES || rdmachan_query_port(fd, handle, 1) != EACCES)
		return 1;
	if (ioctl(fd, RDMACHAN_IOC_DESTROY, &destroy) != -1 || errno != EACCES)
		return 2;
	if (rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE) != 0 ||
	    errno != EACCES)
		return 3;
	/* and closing its copy of the fd must not hurt the parent */
	close(fd);
	return 0;
}

TEST(forked_child_gets_eacces)
{
	long contexts = rdmachan_counter("contexts");
	int fd = open("/dev/rdmachan", O_RDWR);
	__u32 handle;

	ASSERT_LE(0, fd);
	handle = rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE);
	ASSERT_NE(0, handle);
	EXPECT_EQ(0, in_child(child_is_refused, fd, handle));
	/* the parent is unaffected, its object intact */
	EXPECT_EQ(0, get_info(fd));
	EXPECT_EQ(0, rdmachan_query_port(fd, handle, 1));
	EXPECT_EQ(contexts + 1, rdmachan_counter("contexts"));
	close(fd);
	EXPECT_EQ(contexts, rdmachan_counter("contexts"));
}

static struct ibv_context *shared_ctx;

static int child_uses_library(int fd, __u32 handle)
{
	struct ibv_port_attr attr;

	return ibv_query_port(shared_ctx, 1, &attr) == EACCES ? 0 : 1;
}

TEST(forked_child_gets_eacces_through_the_library)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr attr;
	struct ibv_context *ctx;

	ASSERT_NE(NULL, list);
	ASSERT_NE(NULL, list[0]);
	ctx = ibv_open_device(list[0]);
	ASSERT_NE(NULL, ctx);
	shared_ctx = ctx;
	EXPECT_EQ(0, in_child(child_uses_library, -1, 0));
	EXPECT_EQ(0, ibv_query_port(ctx, 1, &attr));
	EXPECT_EQ(0, ibv_close_device(ctx));
	ibv_free_device_list(list);
}

static void *thread_queries(void *arg)
{
	int *fd = arg;

	return (void *)(long)get_info(*fd);
}

TEST(threads_of_the_owner_are_allowed)
{
	int fd = open("/dev/rdmachan", O_RDWR);
	pthread_t thread;
	void *ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pthread_create(&thread, NULL, thread_queries, &fd));
	ASSERT_EQ(0, pthread_join(thread, &ret));
	EXPECT_EQ(NULL, ret);
	close(fd);
}

static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	char byte = 'x';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* A process that opened nothing itself receives the fd over a socket. */
TEST(fd_passed_to_another_process_gets_eacces)
{
	int sv[2], status, fd;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fd = recv_fd(sv[1]);
		_exit(fd >= 0 && get_info(fd) == EACCES ? 0 : 1);
	}
	fd = open("/dev/rdmachan", O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, send_fd(sv[0], fd));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, get_info(fd));
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

/* The child's exit, with the fd still open in it, leaves the parent's state. */
TEST(parent_closing_first_frees_everything_when_child_exits)
{
	long files = rdmachan_counter("files");
	long contexts = rdmachan_counter("contexts");
	int fd = open("/dev/rdmachan", O_RDWR);
	int pipefd[2], status;
	pid_t pid;
	char c;

	ASSERT_LE(0, fd);
	ASSERT_NE(0, rdmachan_open_context(fd, RDMACHAN_TEST_DEVICE));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pipefd[1]);
		/* hold the fd until the parent has closed its copy */
		_exit(read(pipefd[0], &c, 1) == 0 ? 0 : 1);
	}
	close(pipefd[0]);
	close(fd);
	/* the child still holds the file */
	EXPECT_EQ(files + 1, rdmachan_counter("files"));
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(files, rdmachan_counter("files"));
	EXPECT_EQ(contexts, rdmachan_counter("contexts"));
}

TEST_HARNESS_MAIN
