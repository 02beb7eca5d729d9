#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified UCX with rdmachan in bypass mode: ucx_perftest over
# rc_verbs on the provider's own QPs, and UCP's io_demo connected over
# rdmacm (UCX's CM ids carry no QP: it names a QP of its own in the
# connection parameters), both ends on rdmachan and against the stock
# stack both ways. The data path is the provider's, as on stock, so the
# UCT tests are the few that show the verbs are the system's.
here=$(cd "$(dirname "$0")" && pwd)
RDMACHAN_MODE=bypass
export RDMACHAN_MODE
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/ucx-common.sh"

tap_plan 5
ucx_test "ucx_perftest am_lat, both ends on rdmachan" ucx r r 18831 1000 "-t am_lat"
ucx_test "ucx_perftest put_bw zero-copy, both ends on rdmachan" \
	ucx r r 18832 200 "-t put_bw -D zcopy -s 65536"
ucx_test "io_demo over rdmacm, both ends on rdmachan" t_io_demo r r 18835
ucx_test "io_demo over rdmacm, server on rdmachan, client on stock" t_io_demo r s 18836
ucx_test "io_demo over rdmacm, server on stock, client on rdmachan" t_io_demo s r 18837
tap_done
