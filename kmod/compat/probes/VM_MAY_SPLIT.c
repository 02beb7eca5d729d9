// SPDX-License-Identifier: GPL-2.0
/* The vm_operations hook that refuses a split is .may_split (was .split). */
#include <linux/mm.h>

static int rdmachan_probe_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

extern const struct vm_operations_struct rdmachan_probe_ops;
const struct vm_operations_struct rdmachan_probe_ops = {
	.may_split = rdmachan_probe_may_split,
};
