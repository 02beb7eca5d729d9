#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop on the wire: Debian's perftest programs with the server on
# rdmachan and the client on stock (rdmachan: through build/bin/rdmachan-run;
# stock: libibverbs + the rxe provider, librdmacm + ucma), over the
# guest's one rxe device.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/perftest-common.sh"

interop_perftest r s
