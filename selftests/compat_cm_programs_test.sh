#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified rdma-core 44 programs on rdmachan, both ends, through
# build/bin/rdmachan-run, each run checked for its success lines: the
# connection-manager programs rping, cmtime and ucmatose.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

tap_plan 7
tap_test "rping -V -C 10, both ends on rdmachan" t_rping r r
tap_test "rping -q (own QP, rdma_init_qp_attr), both ends on rdmachan" t_rping_q r r
tap_test "cmtime -c 10, both ends on rdmachan" t_cmtime r r
tap_test "ucmatose -c 4 -C 20 (RC), both ends on rdmachan" t_ucmatose r r
tap_test "ucmatose -m (migrate), both ends on rdmachan" t_ucmatose_migrate r r
tap_test "ucmatose -P ib, both ends on rdmachan" t_ucmatose_ps_ib r r
tap_test "ucmatose -p 0x0111 fails as on stock (a port number, not UD)" t_ucmatose_p
tap_done
