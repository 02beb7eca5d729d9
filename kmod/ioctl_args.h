/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The argument rules every rdmachan ioctl shares, on /dev/rdmachan and on
 * the completion channel and async event files alike.
 */
#ifndef RDMACHAN_IOCTL_ARGS_H
#define RDMACHAN_IOCTL_ARGS_H

#include <linux/ioctl.h>
#include <linux/uaccess.h>

#include "../uapi/rdmachan.h"

/*
 * An ioctl number names its command by type, direction and number; the
 * size field is the caller's sizeof(), which may be an older or newer
 * layout than the module's.
 */
#define RDMACHAN_IOC_SIZE_FIELD (_IOC_SIZEMASK << _IOC_SIZESHIFT)

static inline bool rdmachan_ioctl_is(unsigned int cmd, unsigned int ioctl_num)
{
	return (cmd & ~RDMACHAN_IOC_SIZE_FIELD) ==
	       (ioctl_num & ~RDMACHAN_IOC_SIZE_FIELD);
}

/*
 * Every argument begins with its own size, *@usize. The module reads
 * @ksize bytes of it: what a shorter caller lacks reads as zero, and what
 * a longer one adds must be zero (copy_struct_from_user()). Anything
 * shorter than the first layout, @min_size, is EINVAL.
 */
static inline int rdmachan_copy_args(void *kbuf, size_t ksize,
				     size_t min_size, const void __user *uarg,
				     u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (*usize < min_size)
		return -EINVAL;
	return copy_struct_from_user(kbuf, ksize, uarg, *usize);
}

/* Results go back only within the caller's layout. */
static inline int rdmachan_copy_result(void __user *uarg, u32 usize,
				       const void *kbuf, size_t ksize)
{
	return copy_to_user(uarg, kbuf, min_t(size_t, usize, ksize)) ?
	       -EFAULT : 0;
}

#endif /* RDMACHAN_IOCTL_ARGS_H */
