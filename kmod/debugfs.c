// SPDX-License-Identifier: GPL-2.0
/*
 * rdmachan: live-object counters in debugfs (rdmachan/objects), so tests
 * and users can see leaks and objects that outlive their files.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "rdmachan.h"

static atomic_t rdmachan_counters[RDMACHAN_NR_COUNTERS];

static const char *const rdmachan_counter_names[RDMACHAN_NR_COUNTERS] = {
	[RDMACHAN_COUNT_FILES] = "files",
	[RDMACHAN_COUNT_DEVICES] = "devices",
	[RDMACHAN_COUNT_CONTEXTS] = "contexts",
};

static struct dentry *rdmachan_debugfs_dir;

void rdmachan_count_inc(enum rdmachan_counter counter)
{
	atomic_inc(&rdmachan_counters[counter]);
}

void rdmachan_count_dec(enum rdmachan_counter counter)
{
	WARN_ON_ONCE(atomic_dec_return(&rdmachan_counters[counter]) < 0);
}

static int objects_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < RDMACHAN_NR_COUNTERS; i++)
		seq_printf(s, "%s %d\n", rdmachan_counter_names[i],
			   atomic_read(&rdmachan_counters[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(objects);

void rdmachan_debugfs_init(void)
{
	rdmachan_debugfs_dir = debugfs_create_dir("rdmachan", NULL);
	debugfs_create_file("objects", 0444, rdmachan_debugfs_dir, NULL,
			    &objects_fops);
}

void rdmachan_debugfs_exit(void)
{
	debugfs_remove_recursive(rdmachan_debugfs_dir);
}
