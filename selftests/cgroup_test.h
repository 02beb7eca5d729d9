/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgroup v2 helpers for the container selftests: a cgroup of the test's
 * own under /sys/fs/cgroup (mounted if the guest has not), with the
 * memory and RDMA controllers enabled for it.
 */
#ifndef RDMACHAN_CGROUP_TEST_H
#define RDMACHAN_CGROUP_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define CG_ROOT	"/sys/fs/cgroup"

/* Writes @val to @dir/@file: 0 or the errno. */
static __attribute__((unused)) int cg_write(const char *dir, const char *file,
					    const char *val)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The number after "@key" in @dir/@file (a "key value" or "key=value" file). */
static __attribute__((unused)) long cg_read_key(const char *dir,
						const char *file,
						const char *line_prefix,
						const char *key)
{
	char path[256], line[512], *p;
	long val = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, line_prefix, strlen(line_prefix)))
			continue;
		p = strstr(line, key);
		if (p)
			val = strtol(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return val;
}

/* The single number in @dir/@file, or -1. */
static __attribute__((unused)) long cg_read_long(const char *dir,
						 const char *file)
{
	return cg_read_key(dir, file, "", "");
}

/*
 * @dir, a fresh cgroup with the memory and RDMA controllers: 0 or the
 * errno of what failed.
 */
static __attribute__((unused)) int cg_create(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cgroup.controllers", CG_ROOT);
	if (access(path, F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
		return errno;
	if (cg_write(CG_ROOT, "cgroup.subtree_control", "+memory") ||
	    cg_write(CG_ROOT, "cgroup.subtree_control", "+rdma"))
		return errno ? errno : EIO;
	rmdir(dir);
	return mkdir(dir, 0755) ? errno : 0;
}

/* Moves the calling process into @dir: 0 or the errno. */
static __attribute__((unused)) int cg_join(const char *dir)
{
	return cg_write(dir, "cgroup.procs", "0");
}

/* Back to the root cgroup, then @dir goes (its processes must be gone). */
static __attribute__((unused)) int cg_destroy(const char *dir)
{
	int i;

	cg_write(CG_ROOT, "cgroup.procs", "0");
	for (i = 0; i < 100; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		usleep(50000);
	}
	return errno;
}

#endif /* RDMACHAN_CGROUP_TEST_H */
