#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compat_interop_cm_rdmachan_server_test.sh in bypass mode: server on rdmachan in bypass mode, client on stock.
here=$(cd "$(dirname "$0")" && pwd)
RDMACHAN_MODE=bypass
export RDMACHAN_MODE
exec "$here/compat_interop_cm_rdmachan_server_test.sh"
