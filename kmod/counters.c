// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: the live-object counters, which debugfs.c shows. A leaf of
 * their own: the objects layer counts what it allocates and frees, and
 * debugfs.c, which also walks a file's objects, stands above it.
 */
#include <linux/atomic.h>

#include "rdmachan.h"

static atomic_t rdmachan_counters[RDMACHAN_NR_COUNTERS];

void rdmachan_count_inc(enum rdmachan_counter counter)
{
	atomic_inc(&rdmachan_counters[counter]);
}

void rdmachan_count_dec(enum rdmachan_counter counter)
{
	WARN_ON_ONCE(atomic_dec_return(&rdmachan_counters[counter]) < 0);
}

int rdmachan_count_read(enum rdmachan_counter counter)
{
	return atomic_read(&rdmachan_counters[counter]);
}
