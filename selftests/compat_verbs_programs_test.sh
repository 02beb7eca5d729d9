#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified rdma-core 44 programs on rdmachan, both ends, through
# build/bin/rdmachan-run, each run checked for its success lines: the
# ibverbs-utils programs (ibv_devices, ibv_devinfo, the pingpongs,
# ibv_asyncwatch).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

tap_plan 9
tap_test "ibv_devices on rdmachan prints what stock prints" t_devices
tap_test "ibv_devinfo -v on rdmachan prints what stock prints" t_devinfo
tap_test "rdmachan-run loads the drop-in library, one object for both names" t_loads_drop_in
tap_test "ibv_rc_pingpong, both ends on rdmachan" t_rc_pingpong r r
tap_test "ibv_ud_pingpong, both ends on rdmachan" t_ud_pingpong r r
tap_test "ibv_srq_pingpong, both ends on rdmachan" t_srq_pingpong r r
tap_test "ibv_uc_pingpong, both ends on rdmachan" t_uc_pingpong r r
tap_test "ibv_xsrq_pingpong (XRC) fails as on stock" t_xsrq
tap_test "ibv_asyncwatch sees PORT_ERR and PORT_ACTIVE as stock does" t_asyncwatch
tap_done
