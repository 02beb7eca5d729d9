#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rsockets on rdmachan, kernel-owned mode: Debian's unmodified rstream,
# riostream and rcopy through build/bin/rdmachan-run, both ends on
# rdmachan and against stock both ways (the wire is rdma-core's), and a
# plain socket program on rsockets through librspreload.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/rsocket-common.sh"

rsocket_programs
