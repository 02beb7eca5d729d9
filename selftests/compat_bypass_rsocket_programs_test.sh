#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compat_rsocket_programs_test.sh (rstream, riostream, rcopy,
# librspreload) in bypass mode: rdmachan's librdmacm.so.1 over the
# system's libibverbs.so.1.
here=$(cd "$(dirname "$0")" && pwd)
RDMACHAN_MODE=bypass
export RDMACHAN_MODE
exec "$here/compat_rsocket_programs_test.sh"
