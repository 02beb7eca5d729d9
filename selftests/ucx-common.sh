# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by the compat_*ucx*_test.sh: Debian's unmodified UCX (ucx-utils:
# ucx_info, ucx_perftest) over its rc_verbs transport on rxe0, each end on
# rdmachan or on the stock stack. UCX opens a device only when its node
# /dev/infiniband/<ibv_device.dev_name> exists (udev/90-rdmachan.rules).
# Sourced after tap.sh and compat-common.sh.

ucx_dev=$dev:1

# ucx SSTACK CSTACK PORT ITERS "TEST OPTIONS": one ucx_perftest run of a
# UCT test over rc_verbs on $ucx_dev, the server on SSTACK and the client
# on CSTACK, exchanging addresses over TCP port PORT. Both ends must
# succeed, and the client must print its "Final:" row for ITERS iterations
# with a latency and a message rate above zero (its bandwidth in MB/s
# rounds to 0.00 for 8-byte atomics under the debug kernel).
ucx() {
	ux_argv="ucx_perftest -d $ucx_dev -x rc_verbs -p $3 -n $4 -w 100 $5"
	pair "$1" "$2" "tcp_listening $3" "$ux_argv" "$ux_argv $addr" || return 1
	statuses 0 0 || return 1
	has_row "Final: row for $4 iterations" \
		"\$1 == \"Final:\" && \$2 == $4 && \$3 > 0 && \$8 > 0" || return 1
	no_lines -E "UCX +(ERROR|WARN)"
}

# interop_ucx SSTACK CSTACK: UCX's rc_verbs across the stacks
# (compat_interop_ucx_*_test.sh)
interop_ucx() {
	tap_plan 4
	d="server on $(stack_name "$1"), client on $(stack_name "$2")"
	tap_test "ucx_perftest am_lat, $d" ucx "$1" "$2" 18801 1000 "-t am_lat"
	tap_test "ucx_perftest put_bw zero-copy, $d" \
		ucx "$1" "$2" 18802 200 "-t put_bw -D zcopy -s 65536"
	tap_test "ucx_perftest get zero-copy, $d" \
		ucx "$1" "$2" 18803 1000 "-t get -D zcopy -s 4096"
	tap_test "ucx_perftest fadd, $d" ucx "$1" "$2" 18804 1000 "-t fadd"
	tap_done
}
