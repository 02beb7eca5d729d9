#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified rdma-core 44 programs (rdmacm-utils, ibverbs-utils)
# on rdmachan, both ends, through build/bin/rdmachan-run: each run must end
# well and print its success lines. compat_interop_test.sh pairs each with
# the stock stack.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"

# ibv_devices and ibv_devinfo -v print what the stock stack prints, and the
# program really ran on rdmachan (the loader took the drop-in libraries).
t_devices() {
	on s ibv_devices >"$work/stock.log" 2>&1 &&
		on r ibv_devices >"$work/rdmachan.log" 2>&1 || return 1
	guid=$(tr -d : <"/sys/class/infiniband/$dev/node_guid")
	expect "$work/rdmachan.log" "$dev" "$guid" &&
		diff "$work/stock.log" "$work/rdmachan.log" | sed 's/^/# /' &&
		cmp -s "$work/stock.log" "$work/rdmachan.log"
}

t_devinfo() {
	on s ibv_devinfo -v >"$work/stock.log" 2>&1 &&
		on r ibv_devinfo -v >"$work/rdmachan.log" 2>&1 || return 1
	expect "$work/rdmachan.log" "hca_id:	$dev" "PORT_ACTIVE" \
		"GID[  $gid]:		::ffff:$addr, RoCE v2" &&
		diff "$work/stock.log" "$work/rdmachan.log" | sed 's/^/# /' &&
		cmp -s "$work/stock.log" "$work/rdmachan.log"
}

t_loads_drop_in() {
	LD_DEBUG=libs on r ibv_devices 2>&1 >/dev/null |
		grep -q "calling init: .*/build/compat/libibverbs.so.1" ||
		{ echo "# ibv_devices did not load build/compat/libibverbs.so.1"; return 1; }
	LD_DEBUG=libs on r rping -h 2>&1 >/dev/null | grep -c "calling init: .*/build/compat/" |
		grep -qx 1 || { echo "# rping did not load the drop-in object once"; return 1; }
}

# ucmatose -p takes a port number: "-p 0x0111" (RDMA_PS_UDP's value) is
# no service name, and rdma_getaddrinfo fails as on stock. ucmatose has no
# UD mode; udaddy is the UD program.
t_ucmatose_p() {
	on s ucmatose -p 0x0111 -s "$addr" >"$work/stock.log" 2>&1
	s_rc=$?
	on r ucmatose -p 0x0111 -s "$addr" >"$work/rdmachan.log" 2>&1
	r_rc=$?
	[ $s_rc -eq $r_rc ] && [ $r_rc -ne 0 ] &&
		expect "$work/rdmachan.log" "getaddrinfo error: Servname not supported" &&
		cmp -s "$work/stock.log" "$work/rdmachan.log" ||
		{ echo "# exit $r_rc, stock $s_rc"; show "$work/rdmachan.log"; return 1; }
}

# rdmachan has no XRC, nor has rxe: the XRC client fails in rdma_create_ep
# with EOPNOTSUPP as on stock, and the server does too.
t_xrc() {
	on s rdma_xclient -s "$addr" -c x >"$work/stock.log" 2>&1
	s_rc=$?
	on r rdma_xclient -s "$addr" -c x >"$work/rdmachan.log" 2>&1
	r_rc=$?
	[ $s_rc -eq $r_rc ] &&
		expect "$work/rdmachan.log" "rdma_create_ep: Operation not supported" \
			"rdma_xclient: end -1" &&
		cmp -s "$work/stock.log" "$work/rdmachan.log" ||
		{ echo "# exit $r_rc, stock $s_rc"; show "$work/rdmachan.log"; return 1; }
	on r timeout 20 rdma_xserver -c x >"$work/server.log" 2>&1
	expect "$work/server.log" "rdma_create_ep: Operation not supported" \
		"rdma_xserver: end -1"
}

tap_plan 18
tap_test "ibv_devices on rdmachan prints what stock prints" t_devices
tap_test "ibv_devinfo -v on rdmachan prints what stock prints" t_devinfo
tap_test "rdmachan-run loads the drop-in library, one object for both names" t_loads_drop_in
tap_test "rping -V -C 10, both ends on rdmachan" t_rping r r
tap_test "rping -q (own QP, rdma_init_qp_attr), both ends on rdmachan" t_rping_q r r
tap_test "cmtime -c 20, both ends on rdmachan" t_cmtime r r
tap_test "ucmatose -c 4 -C 20 (RC), both ends on rdmachan" t_ucmatose r r
tap_test "ucmatose -m (migrate), both ends on rdmachan" t_ucmatose_migrate r r
tap_test "ucmatose -P ib, both ends on rdmachan" t_ucmatose_ps_ib r r
tap_test "ucmatose -p 0x0111 fails as on stock (a port number, not UD)" t_ucmatose_p
tap_test "udaddy (UD), both ends on rdmachan" t_udaddy r r
tap_test "mckey, both ends on rdmachan" t_mckey r r
tap_test "rdma_server + rdma_client, both ends on rdmachan" t_rdma_server r r
tap_test "rdma_xserver + rdma_xclient, both ends on rdmachan" t_rdma_xserver r r
tap_test "ibv_rc_pingpong, both ends on rdmachan" t_rc_pingpong r r
tap_test "ibv_ud_pingpong, both ends on rdmachan" t_ud_pingpong r r
tap_test "ibv_srq_pingpong, both ends on rdmachan" t_srq_pingpong r r
tap_test "rdma_xserver -c x (XRC) fails as on stock" t_xrc
tap_done
