// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rsockets' descriptors: an rsocket is named by the descriptor of its CM
 * event channel, so its number can never be an ordinary descriptor's, and
 * rpoll()/rselect() can mix both. This file maps descriptors to rsockets
 * and holds the helpers every rsocket file uses (errno, a descriptor's
 * O_NONBLOCK, the clock): the lowest of the rsocket files, it calls none
 * of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"
#include "rsocket.h"

#define RS_TABLE_PAGE_SHIFT	10
#define RS_TABLE_PAGE		(1u << RS_TABLE_PAGE_SHIFT)
#define RS_TABLE_PAGES		1024u

/* Two levels: descriptors up to 2^20, pages made on first use. */
static struct rsock **rs_table[RS_TABLE_PAGES];
static pthread_mutex_t rs_table_lock = PTHREAD_MUTEX_INITIALIZER;

int rs_err(int err)
{
	errno = err;
	return -1;
}

struct rsock *rs_get(int fd)
{
	struct rsock **page;

	if (fd < 0 || (unsigned int)fd >= RS_TABLE_PAGE * RS_TABLE_PAGES)
		return NULL;
	page = __atomic_load_n(&rs_table[fd >> RS_TABLE_PAGE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!page)
		return NULL;
	return __atomic_load_n(&page[fd & (RS_TABLE_PAGE - 1)],
			       __ATOMIC_ACQUIRE);
}

int rs_table_set(int fd, struct rsock *rs)
{
	struct rsock **page;
	unsigned int p;

	if (fd < 0 || (unsigned int)fd >= RS_TABLE_PAGE * RS_TABLE_PAGES)
		return rs_err(EMFILE);
	p = (unsigned int)fd >> RS_TABLE_PAGE_SHIFT;
	pthread_mutex_lock(&rs_table_lock);
	page = rs_table[p];
	if (!page) {
		page = calloc(RS_TABLE_PAGE, sizeof(*page));
		if (!page) {
			pthread_mutex_unlock(&rs_table_lock);
			return rs_err(ENOMEM);
		}
		__atomic_store_n(&rs_table[p], page, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&page[fd & (RS_TABLE_PAGE - 1)], rs, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rs_table_lock);
	return 0;
}

int rs_add(struct rsock *rs)
{
	return rs_table_set(rs->fd, rs);
}

void rs_set_fd_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	fcntl(fd, F_SETFL, flags);
}

/* The monotonic clock, in microseconds: spins, deadlines, retries. */
uint64_t rs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
