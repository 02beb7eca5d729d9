#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified rdma-core 44 programs (rdmacm-utils, ibverbs-utils)
# on rdmachan, both ends, through build/bin/rdmachan-run: each run must end
# well and print its success lines. compat_interop_*_test.sh pair each with
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

# ibv_xsrq_pingpong needs an XRC domain: ibv_open_xrcd fails with
# EOPNOTSUPP, the program says so and ends, as on stock.
t_xsrq() {
	on s timeout 20 ibv_xsrq_pingpong -d "$dev" -g "$gid" >"$work/stock.log" 2>&1
	s_rc=$?
	on r timeout 20 ibv_xsrq_pingpong -d "$dev" -g "$gid" >"$work/rdmachan.log" 2>&1
	r_rc=$?
	[ $s_rc -eq $r_rc ] && expect "$work/rdmachan.log" "Couldn't Open the XRC Domain 95" &&
		cmp -s "$work/stock.log" "$work/rdmachan.log" ||
		{ echo "# exit $r_rc, stock $s_rc"; show "$work/rdmachan.log"; return 1; }
}

# The rsocket programs load and fail cleanly: rsocket() is EOPNOTSUPP.
t_rsocket_programs() {
	for prog in "rstream -s $addr" "riostream -s $addr" "udpong -s $addr" \
		"rcopy /etc/hostname $addr:$work/copy"; do
		set -f
		# shellcheck disable=SC2086
		on r timeout 20 $prog >"$work/rs.log" 2>&1
		rc=$?
		set +f
		# an exit status, not the time limit (124) nor a signal (128 + n)
		{ [ $rc -lt 124 ] || [ $rc -eq 255 ]; } &&
			expect "$work/rs.log" "rsocket failed: Operation not supported" ||
			{ echo "# $prog: exit $rc"; show "$work/rs.log"; return 1; }
	done
}

# ibv_asyncwatch on rdmachan and on stock at once, while rdmachan0 goes
# down and up: both print PORT_ERR, then PORT_ACTIVE, for port 1.
t_asyncwatch() {
	stdbuf -oL ibv_asyncwatch -d "$dev" >"$work/stock.log" 2>&1 &
	s_pid=$!
	"$run" stdbuf -oL ibv_asyncwatch -d "$dev" >"$work/rdmachan.log" 2>&1 &
	r_pid=$!
	srv_pid=$r_pid
	wait_for grep -q "async event FD" "$work/rdmachan.log"
	a_rc=$?
	srv_pid=$s_pid
	wait_for grep -q "async event FD" "$work/stock.log" || a_rc=1
	ip link set rdmachan0 down && sleep 1 && ip link set rdmachan0 up
	srv_pid=$r_pid
	wait_for grep -q PORT_ACTIVE "$work/rdmachan.log"
	srv_pid=$s_pid
	wait_for grep -q PORT_ACTIVE "$work/stock.log"
	kill "$s_pid" "$r_pid"
	{ wait "$s_pid" "$r_pid"; } 2>/dev/null
	# the port and its GIDs are back before the next program
	i=0
	until grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" &&
		[ "$(gid_index)" = "$gid" ] || [ $i -ge 200 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	[ $a_rc -eq 0 ] || return 1
	for log in "$work/stock.log" "$work/rdmachan.log"; do
		grep event_type "$log" >"$log.events"
		printf '  event_type IBV_EVENT_PORT_ERR (10), port 1\n  event_type IBV_EVENT_PORT_ACTIVE (9), port 1\n' |
			cmp -s - "$log.events" ||
			{ echo "# $(basename "$log"):"; show "$log"; return 1; }
	done
}

tap_plan 22
tap_test "ibv_devices on rdmachan prints what stock prints" t_devices
tap_test "ibv_devinfo -v on rdmachan prints what stock prints" t_devinfo
tap_test "rdmachan-run loads the drop-in library, one object for both names" t_loads_drop_in
tap_test "rping -V -C 10, both ends on rdmachan" t_rping r r
tap_test "rping -q (own QP, rdma_init_qp_attr), both ends on rdmachan" t_rping_q r r
tap_test "cmtime -c 10, both ends on rdmachan" t_cmtime r r
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
tap_test "ibv_uc_pingpong, both ends on rdmachan" t_uc_pingpong r r
tap_test "rdma_xserver -c x (XRC) fails as on stock" t_xrc
tap_test "ibv_xsrq_pingpong (XRC) fails as on stock" t_xsrq
tap_test "rstream, riostream, udpong, rcopy fail cleanly (no rsockets)" t_rsocket_programs
tap_test "ibv_asyncwatch sees PORT_ERR and PORT_ACTIVE as stock does" t_asyncwatch
tap_done
