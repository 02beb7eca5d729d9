#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop on the wire: Debian's rdma-core 44 client/server programs
# (rping, cmtime, ucmatose, udaddy, mckey) with the server on rdmachan and the client on
# stock (rdmachan: through build/bin/rdmachan-run; stock: librdmacm + ucma,
# libibverbs + the rxe provider), over the guest's one rxe device.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

interop_cm r s
