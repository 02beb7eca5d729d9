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

/*
 * Two levels: descriptors up to 2^20, pages made on first use. Lookups
 * share the lock and take their reference under it, so that rclose(),
 * which empties the entry under it alone, cannot free an rsocket between
 * a lookup and its reference.
 */
static struct rsock **rs_table[RS_TABLE_PAGES];
static pthread_rwlock_t rs_table_lock = PTHREAD_RWLOCK_INITIALIZER;

int rs_err(int err)
{
	errno = err;
	return -1;
}

static struct rsock **rs_slot(int fd)
{
	struct rsock **page;

	if (fd < 0 || (unsigned int)fd >= RS_TABLE_PAGE * RS_TABLE_PAGES)
		return NULL;
	page = rs_table[fd >> RS_TABLE_PAGE_SHIFT];
	return page ? &page[fd & (RS_TABLE_PAGE - 1)] : NULL;
}

/* The rsocket of @fd with a reference for the caller (rs_put()), or NULL. */
struct rsock *rs_get(int fd)
{
	struct rsock **slot, *rs = NULL;

	pthread_rwlock_rdlock(&rs_table_lock);
	slot = rs_slot(fd);
	if (slot && *slot) {
		rs = *slot;
		__atomic_add_fetch(&rs->refs, 1, __ATOMIC_RELAXED);
	}
	pthread_rwlock_unlock(&rs_table_lock);
	return rs;
}

/* Takes @fd's rsocket out of the table, with the table's reference. */
struct rsock *rs_take(int fd)
{
	struct rsock **slot, *rs = NULL;

	pthread_rwlock_wrlock(&rs_table_lock);
	slot = rs_slot(fd);
	if (slot) {
		rs = *slot;
		*slot = NULL;
	}
	pthread_rwlock_unlock(&rs_table_lock);
	return rs;
}

/* Publishes @rs under its descriptor; the table takes a reference. */
int rs_add(struct rsock *rs)
{
	struct rsock **page;
	unsigned int p;

	if (rs->fd < 0 || (unsigned int)rs->fd >= RS_TABLE_PAGE * RS_TABLE_PAGES)
		return rs_err(EMFILE);
	p = (unsigned int)rs->fd >> RS_TABLE_PAGE_SHIFT;
	pthread_rwlock_wrlock(&rs_table_lock);
	page = rs_table[p];
	if (!page) {
		page = calloc(RS_TABLE_PAGE, sizeof(*page));
		if (!page) {
			pthread_rwlock_unlock(&rs_table_lock);
			return rs_err(ENOMEM);
		}
		rs_table[p] = page;
	}
	__atomic_add_fetch(&rs->refs, 1, __ATOMIC_RELAXED);
	page[rs->fd & (RS_TABLE_PAGE - 1)] = rs;
	pthread_rwlock_unlock(&rs_table_lock);
	return 0;
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
