// SPDX-License-Identifier: GPL-2.0
/* The file of a struct fd is read with fd_file() (the layout is private). */
#include <linux/file.h>

struct file *rdmachan_probe(struct fd f);
struct file *rdmachan_probe(struct fd f)
{
	return fd_file(f);
}
