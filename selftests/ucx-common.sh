# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by the compat_*ucx*_test.sh: Debian's unmodified UCX (ucx-utils:
# ucx_info, ucx_perftest) over its rc_verbs transport on rxe0, each end on
# rdmachan or on the stock stack. UCX opens a device only when its node
# /dev/infiniband/<ibv_device.dev_name> exists (udev/90-rdmachan.rules).
# Sourced after tap.sh and compat-common.sh.

ucx_dev=$dev:1

# Debian unstable's UCX (1.23) is built without its verbs and rdmacm
# transports (no ucx/libuct_ib.so.0 beside libuct): there each UCX test
# case is skipped, saying why, on either stack alike.
ucx_missing=
ucx_lib=$(ldd "$(command -v ucx_info)" 2>/dev/null | awk '$1 ~ /^libuct\.so/ { print $3 }')
if [ -z "$ucx_lib" ]; then
	ucx_missing="no UCX here (ucx_info)"
elif [ ! -e "$(dirname "$ucx_lib")/ucx/libuct_ib.so.0" ]; then
	ucx_missing="this UCX is built without verbs (no $(dirname "$ucx_lib")/ucx/libuct_ib.so.0)"
fi

# ucx_test NAME COMMAND...: tap_test, or tap_skip where UCX has no verbs
ucx_test() {
	if [ -n "$ucx_missing" ]; then
		tap_skip "$1" "$ucx_missing"
		return 0
	fi
	tap_test "$@"
}

# A ucx_perftest built with MPI (Debian 13's) runs as an MPI program,
# with one process here, when its stdin is not a terminal; -P 0, which
# only such a build knows, is the socket exchange that Debian 12's
# always uses. (Asking the program itself would start MPI.)
ucx_mpi_off=
ldd "$(command -v ucx_perftest)" 2>/dev/null | grep -q 'libmpi\.' && ucx_mpi_off="-P 0"

# ucx SSTACK CSTACK PORT ITERS "TEST OPTIONS": one ucx_perftest run of a
# UCT test over rc_verbs on $ucx_dev, the server on SSTACK and the client
# on CSTACK, exchanging addresses over TCP port PORT. Both ends must
# succeed, and the client must print its "Final:" row for ITERS iterations
# with a latency (typical or, for UCX 1.10 which prints its typical one as
# 0.000, average) and an overall message rate above zero (its bandwidth in
# MB/s rounds to 0.00 for 8-byte atomics under the debug kernel, its
# average rate may be -nan).
ucx() {
	ux_argv="ucx_perftest $ucx_mpi_off -d $ucx_dev -x rc_verbs -p $3 -n $4 -w 100 $5"
	# An MPI build starts MPI first (12 to 20 s in a busy guest), and its
	# server does not end after its run: MPI is still up.
	ux_limit=$limit ux_ready=$ready_limit
	if [ -n "$ucx_mpi_off" ]; then
		persistent_server=either
		ready_limit=90
		limit=$((limit + 120))
	fi
	pair "$1" "$2" "tcp_listening $3" "$ux_argv" "$ux_argv $addr"
	ux_rc=$?
	persistent_server=
	limit=$ux_limit ready_limit=$ux_ready
	[ $ux_rc -eq 0 ] || return 1
	statuses 0 0 || return 1
	has_row "Final: row for $4 iterations" \
		"\$1 == \"Final:\" && \$2 == $4 && (\$3 > 0 || \$4 > 0) && \$9 > 0" || return 1
	ucx_no_lines "UCX +(ERROR|WARN)"
}

# ucx_no_lines PATTERN: no line of either end's log matches the extended
# regex PATTERN, but for UCX 1.10's warning that rxe has no PCI vendor id
# in sysfs (rxe has no PCI device; either stack alike); shows those that do
ucx_no_lines() {
	! grep -hE -- "$1" "$work/server.log" "$work/client.log" |
		grep -vF "could not read device/vendor id from sysfs" | sed 's/^/# /' | grep .
}

# ucx_teardown_abort LOG STATUS DONE: the run whose output is LOG, which
# has DONE (the line of a finished run), ended with STATUS 134 on UCX's
# assertion that a QP's last-WQE event comes once. rxe on Debian 13's
# kernel reports it again for each packet or flush that reaches a QP in
# the error state, and UCX up to 1.20 aborts on the repeat while it tears
# the QP down (openucx/ucx#10432, fixed after 1.20). The stock stack ends
# the same way, so it is said and not counted against rdmachan.
ucx_teardown_abort() {
	[ "$2" -eq 134 ] && grep -qF -- "$3" "$1" || return 1
	# (the async thread's report may come before DONE in the log)
	grep -qF "Assertion \`wait_ctx->cb_id == UCS_CALLBACKQ_ID_NULL' failed" "$1" ||
		return 1
	echo "# $(basename "$1" .log): UCX's known abort on a repeated last-WQE event, after its run was done"
}

# t_io_demo SSTACK CSTACK PORT: UCX's UCP client/server demo (io_demo),
# whose endpoints connect through a socket address. With rdmacm the only
# such transport UCX may use, its listener and connections are rdma_cm ids
# on the ends' CM (a listener on rdmachan's CM is what cm_listening waits
# for), and rc_verbs carries 200 reads and writes of 1-16 KiB, each
# checked (-q). The server serves until it is stopped.
t_io_demo() {
	io_argv="env UCX_NET_DEVICES=$ucx_dev UCX_TLS=rc_verbs,self
		UCX_SOCKADDR_TLS_PRIORITY=rdmacm io_demo -p $3 -i 200 -o read,write -d 1024:16384 -q"
	persistent_server=1
	pair "$1" "$2" "cm_listening $3" "$io_argv" "$io_argv $addr"
	io_rc=$?
	persistent_server=
	[ $io_rc -eq 0 ] || return 1
	# the client's last words, or those before its disconnect if UCX
	# aborted in the disconnect
	io_done="Client exit with status 'OK'"
	if ucx_teardown_abort "$work/client.log" "$cli_rc" 'due to "End of the Client run"'; then
		cli_rc=0
		io_done='due to "End of the Client run"'
	fi
	ucx_teardown_abort "$work/server.log" "$srv_rc" "Remote id is" && srv_rc=0
	statuses 0 0 || return 1
	# the server's word that a client came: UCX 1.10 logs the request
	io_came="Remote id is"
	grep -qF "got new connection request" "$work/server.log" &&
		! grep -qF "$io_came" "$work/server.log" && io_came="got new connection request"
	expect "$work/client.log" "Connected to server [0] $addr" "$io_done" &&
		expect "$work/server.log" "$io_came" &&
		ucx_no_lines "UCX +(ERROR|WARN)|data corruption|[Mm]ismatch"
}

# ucx_stock_cannot_open: the stock stack's UCX cannot open rc_verbs on
# $ucx_dev (ucx_info -d says "< failed to open interface >" there). Debian
# 11's UCX 1.10 makes its CQs with ibv_create_cq_ex and falls back to
# ibv_create_cq only on ENOSYS, and rdma-core 33's rxe provider has no
# create_cq_ex (34 added it), so every stock UCX end fails with "ibv_create_cq
# ... Operation not supported"; rdmachan's drop-in has it.
ucx_stock_cannot_open() {
	timeout 60 ucx_info -d 2>&1 | awk -v d="$ucx_dev" '
		$2 == "Transport:" { tl = ($3 == "rc_verbs"); on_dev = 0; next }
		tl && $2 == "Device:" { on_dev = ($3 == d); next }
		tl && on_dev && /< failed to open interface >/ { failed = 1 }
		END { exit !failed }'
}

# interop_ucx SSTACK CSTACK: UCX's rc_verbs across the stacks
# (compat_interop_ucx_*_test.sh)
interop_ucx() {
	tap_plan 5
	d="server on $(stack_name "$1"), client on $(stack_name "$2")"
	if [ -z "$ucx_missing" ] && ucx_stock_cannot_open; then
		ucx_missing="the stock stack's UCX cannot open rc_verbs on $ucx_dev here (UCX 1.10 with an rxe provider without ibv_create_cq_ex)"
	fi
	ucx_test "ucx_perftest am_lat, $d" ucx "$1" "$2" 18801 1000 "-t am_lat"
	ucx_test "ucx_perftest put_bw zero-copy, $d" \
		ucx "$1" "$2" 18802 200 "-t put_bw -D zcopy -s 65536"
	ucx_test "ucx_perftest get zero-copy, $d" \
		ucx "$1" "$2" 18803 1000 "-t get -D zcopy -s 4096"
	ucx_test "ucx_perftest fadd, $d" ucx "$1" "$2" 18804 1000 "-t fadd"
	ucx_test "io_demo (UCP over rdmacm), $d" t_io_demo "$1" "$2" 18805
	tap_done
}
