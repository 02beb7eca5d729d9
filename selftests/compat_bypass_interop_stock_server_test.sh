#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compat_interop_cm_stock_server_test.sh in bypass mode: server on stock, client on rdmachan in bypass mode.
here=$(cd "$(dirname "$0")" && pwd)
RDMACHAN_MODE=bypass
export RDMACHAN_MODE
exec "$here/compat_interop_cm_stock_server_test.sh"
