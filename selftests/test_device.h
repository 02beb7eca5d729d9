/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The test device through whichever libibverbs the program is linked
 * with: the system's (stock, bypass mode) or librdmachan's.
 */
#ifndef RDMACHAN_TEST_DEVICE_H
#define RDMACHAN_TEST_DEVICE_H

#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "rdmachan_test.h"

/* A context of RDMACHAN_TEST_DEVICE, or NULL with errno set. */
static __maybe_unused struct ibv_context *open_test_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i, err = ENODEV;

	for (i = 0; list && list[i]; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), RDMACHAN_TEST_DEVICE)) {
			ctx = ibv_open_device(list[i]);
			err = errno;
		}
	}
	if (list)
		ibv_free_device_list(list);
	errno = err;
	return ctx;
}

#endif /* RDMACHAN_TEST_DEVICE_H */
