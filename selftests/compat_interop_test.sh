#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop on the wire: each client/server pair of Debian's rdma-core 44
# programs with one end on rdmachan (build/bin/rdmachan-run) and the other
# on the stock stack (librdmacm + ucma, libibverbs + the rxe provider),
# both ways round, over the guest's one rxe device looping back to itself.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

tap_plan 24
for dir in "r s" "s r"; do
	# shellcheck disable=SC2086
	set -- $dir
	d="server on $(stack_name "$1"), client on $(stack_name "$2")"
	tap_test "rping -V -C 10, $d" t_rping "$1" "$2"
	tap_test "rping -q, $d" t_rping_q "$1" "$2"
	tap_test "cmtime -c 20, $d" t_cmtime "$1" "$2"
	tap_test "ucmatose -c 4 -C 20, $d" t_ucmatose "$1" "$2"
	tap_test "udaddy, $d" t_udaddy "$1" "$2"
	tap_test "mckey, $d" t_mckey "$1" "$2"
	tap_test "rdma_server + rdma_client, $d" t_rdma_server "$1" "$2"
	tap_test "rdma_xserver + rdma_xclient, $d" t_rdma_xserver "$1" "$2"
	tap_test "ibv_rc_pingpong, $d" t_rc_pingpong "$1" "$2"
	tap_test "ibv_ud_pingpong, $d" t_ud_pingpong "$1" "$2"
	tap_test "ibv_srq_pingpong, $d" t_srq_pingpong "$1" "$2"
	tap_test "ibv_uc_pingpong, $d" t_uc_pingpong "$1" "$2"
done
tap_done
