#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop on the wire: each client/server pair of Debian's rdma-core 44
# programs with the server on rdmachan and the client on stock (rdmachan:
# through build/bin/rdmachan-run; stock: librdmacm + ucma, libibverbs +
# the rxe provider), over the guest's one rxe device looping back to
# itself. compat_interop_stock_server_test.sh is the other way round.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

interop r s
