/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The other processes of the QP-ownership tests (cm_qp_owner_test,
 * uapi_user_qp_test, qp_number_reuse_test): qp_owner_intruder and
 * qp_reuse_victim, exec'd as the user nobody.
 */
#ifndef RDMACHAN_QP_OWNER_H
#define RDMACHAN_QP_OWNER_H

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

#define NOBODY		65534
/* The intruder's CM waits are bounded at 10 s each; a few of them. */
#define INTRUDER_MS	40000

/* @pid's exit status within INTRUDER_MS, or -1 (and @pid killed). */
static __maybe_unused int intruder_wait(pid_t pid)
{
	int status, ms;

	for (ms = 0; ms < INTRUDER_MS; ms += 20) {
		pid_t ret = waitpid(pid, &status, WNOHANG);

		if (ret == pid)
			return status;
		if (ret < 0)
			return -1;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/*
 * Program @argv[0], next to this program, started as nobody; with @io
 * set, io[0] is a pipe to its stdin and io[1] one from its stdout. Its
 * pid, or -1.
 */
static __maybe_unused pid_t spawn_as_nobody(char *const argv[], int io[2])
{
	char self[PATH_MAX], path[PATH_MAX + 32], *slash;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd, to[2] = { -1, -1 }, from[2] = { -1, -1 };
	pid_t pid;

	if (len <= 0)
		return -1;
	self[len] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/%s", self, argv[0]);
	/* opened as root: nobody may not be able to walk the build path */
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (io && (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))) {
		close(fd);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (io && (dup2(to[0], 0) < 0 || dup2(from[1], 1) < 0))
			_exit(125);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    chdir("/"))
			_exit(126);
		fexecve(fd, argv, environ);
		_exit(127);
	}
	close(fd);
	if (io) {
		close(to[0]);
		close(from[1]);
		io[0] = to[1];
		io[1] = from[0];
		if (pid < 0) {
			close(io[0]);
			close(io[1]);
		}
	}
	return pid;
}

/* The intruder run as nobody: its exit status. */
static __maybe_unused int intruder(const char *call, const char *type, const char *qpn)
{
	char *argv[] = { "qp_owner_intruder", (char *)call, (char *)type,
			 (char *)qpn, NULL };
	pid_t pid = spawn_as_nobody(argv, NULL);
	int status;

	if (pid < 0)
		return -1;
	status = intruder_wait(pid);
	if (status < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* RDMACHAN_QP_OWNER_H */
