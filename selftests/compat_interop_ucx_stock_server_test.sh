#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop on the wire: Debian's UCX (ucx_perftest over rc_verbs) with
# the server on stock and the client on rdmachan (rdmachan: through
# build/bin/rdmachan-run; stock: libibverbs + the rxe provider), over the
# guest's one rxe device.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/ucx-common.sh"

interop_ucx s r
