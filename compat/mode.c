// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The drop-in libibverbs.so.1 is built for one mode: it is the verbs
 * library, so every verbs object is the module's (kernel-owned).
 */
#include "../lib/mode.h"

bool lib_bypass(void)
{
	return false;
}

const struct cm_verbs *cm_verbs(void)
{
	return &kernel_cm_verbs;
}
