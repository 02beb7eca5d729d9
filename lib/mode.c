// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan's choice of data-path mode, made once per process before
 * its first verbs object: bypass when the module can drive a uverbs QP
 * (RDMACHAN_FEATURE_USER_QP) and the system's libibverbs loads, else
 * kernel-owned. RDMACHAN_MODE=kernel forces kernel-owned; =bypass asks
 * for bypass, which stays kernel-owned where either is missing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rdmachan/rdmachan.h>

#include "internal.h"
#include "mode.h"

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static bool bypass;

static void choose_mode(void)
{
	const char *forced = getenv("RDMACHAN_MODE");

	if (forced && !strcmp(forced, "kernel"))
		bypass = false;
	else
		bypass = rdmachan_has_features(RDMACHAN_FEATURE_USER_QP);
	if (bypass && !system_verbs())
		bypass = false;
}

bool lib_bypass(void)
{
	pthread_once(&mode_once, choose_mode);
	return bypass;
}

const struct cm_verbs *cm_verbs(void)
{
	return lib_bypass() ? &system_cm_verbs : &kernel_cm_verbs;
}

RDMACHAN_EXPORT enum rdmachan_mode rdmachan_get_mode(void)
{
	return lib_bypass() ? RDMACHAN_MODE_BYPASS : RDMACHAN_MODE_KERNEL;
}
