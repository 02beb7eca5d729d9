#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compat_cm_programs_test.sh in bypass mode: rdmachan's librdmacm.so.1 over
# the system's libibverbs.so.1 (RDMACHAN_MODE=bypass rdmachan-run), the
# QPs the rxe provider's and driven by the module.
here=$(cd "$(dirname "$0")" && pwd)
RDMACHAN_MODE=bypass
export RDMACHAN_MODE
exec "$here/compat_cm_programs_test.sh"
