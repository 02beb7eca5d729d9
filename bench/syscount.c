// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD shim for the benchmarks: counts, per thread, the system calls
 * a CM library makes through libc (ioctl, read, write, poll and friends),
 * so the benchmark reports kernel crossings it measured, not guessed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

static __thread unsigned long syscount_calls;

/* Read by the benchmark through dlsym(): this thread's count so far. */
unsigned long syscount_thread(void)
{
	return syscount_calls;
}

#define REAL(name) \
	static __typeof__(name) *real; \
	if (!real) \
		real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name); \
	syscount_calls++

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	REAL(ioctl);
	return real(fd, request, arg);
}

ssize_t read(int fd, void *buf, size_t count)
{
	REAL(read);
	return real(fd, buf, count);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	REAL(write);
	return real(fd, buf, count);
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	REAL(poll);
	return real(fds, nfds, timeout);
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
	       int timeout)
{
	REAL(epoll_wait);
	return real(epfd, events, maxevents, timeout);
}

int close(int fd)
{
	REAL(close);
	return real(fd);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	REAL(open);
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	REAL(open64);
	return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	REAL(openat);
	return real(dirfd, path, flags, mode);
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	REAL(fcntl);
	return real(fd, cmd, arg);
}
