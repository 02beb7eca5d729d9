// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bypass mode's drop-in librdmacm.so.1 is built for one mode: its CM ids
 * get their verbs from the system's libibverbs.so.1, which it links.
 */
#include "../mode.h"

bool lib_bypass(void)
{
	return true;
}

const struct cm_verbs *cm_verbs(void)
{
	return &system_cm_verbs;
}
