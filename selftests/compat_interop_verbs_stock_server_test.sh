#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop on the wire: Debian's rdma-core 44 client/server programs
# (rdma_server/client, rdma_xserver/xclient, the rc/ud/srq/uc pingpongs) with the server on stock and the client on
# rdmachan (rdmachan: through build/bin/rdmachan-run; stock: librdmacm + ucma,
# libibverbs + the rxe provider), over the guest's one rxe device.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

interop_verbs s r
