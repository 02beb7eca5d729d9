#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified rdma-core 44 programs on rdmachan, both ends, through
# build/bin/rdmachan-run, each run checked for its success lines: udaddy,
# mckey, rdma_server/rdma_client, rdma_xserver/rdma_xclient, and what
# fails as on stock (XRC).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

tap_plan 5
tap_test "udaddy (UD), both ends on rdmachan" t_udaddy r r
tap_test "mckey, both ends on rdmachan" t_mckey r r
tap_test "rdma_server + rdma_client, both ends on rdmachan" t_rdma_server r r
tap_test "rdma_xserver + rdma_xclient, both ends on rdmachan" t_rdma_xserver r r
tap_test "rdma_xserver -c x (XRC) fails as on stock" t_xrc
tap_done
