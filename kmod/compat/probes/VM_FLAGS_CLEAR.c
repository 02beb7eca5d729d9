// SPDX-License-Identifier: GPL-2.0
/* vma->vm_flags is read-only; it changes through vm_flags_clear() and co. */
#include <linux/mm.h>

void rdmachan_probe(struct vm_area_struct *vma);
void rdmachan_probe(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYWRITE);
}
