# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by the compat_*perftest*_test.sh: Debian's unmodified perftest
# programs (ib_send_lat, ib_write_bw, ...), each end on rdmachan or on the
# stock stack. Sourced after tap.sh and compat-common.sh.

# perftest SSTACK CSTACK PORT SIZE ITERS "PROGRAM OPTIONS" [REGEX...]: one
# run, the server on SSTACK and the client on CSTACK, exchanging over TCP
# port PORT (over the CM's port PORT with -R). Both ends must succeed and
# the client must print its result row for SIZE bytes and ITERS
# iterations with a typical latency or message rate above zero; each
# REGEX (extended) must match a line of both ends' headers, which shows
# that the option took effect.
#
# perftest calibrates its clock against gettimeofday() and reports nothing
# when the fit is poor ("Correlation coefficient r^2: ... < 0.9"), which
# TCG's jitter sometimes causes on either stack (more often under the
# debug kernel): such a run is repeated, at most four times.
#
# With -R, perftest 4.5 connects twice on the same port: a connection for
# its own messages, then, after one exchange, the measured QPs. Its server
# listens for the second only after that exchange, so a client that gets
# there first is rejected with reason 8 (no listener, IB_CM_REJ_INVALID_
# SERVICE_ID), on either stack; the client's retry then uses ids it has
# freed and may crash (fixed upstream by perftest's commit 3d9d8d0). Such
# a run is repeated once.
perftest() {
	pt_s=$1 pt_c=$2 pt_port=$3 pt_size=$4 pt_iters=$5 pt_argv=$6
	shift 6
	case " $pt_argv " in
	*" -R "*) pt_ready="cm_listening $pt_port" pt_raced= ;;
	*) pt_ready="tcp_listening $pt_port" pt_raced=n/a ;;
	esac
	pt_try=0
	while :; do
		pair "$pt_s" "$pt_c" "$pt_ready" "$pt_argv -p $pt_port" \
			"$pt_argv -p $pt_port $addr" || return 1
		if [ -z "$pt_raced" ] &&
			grep -q "RDMA_CM_EVENT_REJECTED; error: 8\." "$work/client.log"; then
			pt_raced=1
			echo "# the client connected before perftest's server listened again (perftest's race); again"
			continue
		fi
		grep -q "^Correlation coefficient r^2" "$work/server.log" "$work/client.log" ||
			break
		pt_try=$((pt_try + 1))
		[ $pt_try -lt 5 ] || { echo "# perftest could not calibrate its clock"; return 1; }
		echo "# perftest could not calibrate its clock; again"
	done
	statuses 0 0 || return 1
	for pt_re; do
		for pt_log in "$work/server.log" "$work/client.log"; do
			grep -qE -- "$pt_re" "$pt_log" ||
				{ echo "# no '$pt_re' in $(basename "$pt_log")"; show "$pt_log"; return 1; }
		done
	done
	# the fifth figure is a latency program's typical latency and a
	# bandwidth program's message rate, never rounded to 0 (MB/s of 8-byte
	# atomics are, under the debug kernel)
	has_row "result row for $pt_size bytes, $pt_iters iterations" \
		"\$1 == $pt_size && \$2 == $pt_iters && \$5 > 0" || return 1
	no_lines -iE "couldn't|failed|unable|error"
}

# interop_perftest SSTACK CSTACK: the perftest programs across the stacks
# (compat_interop_perftest_*_test.sh)
interop_perftest() {
	tap_plan 6
	d="server on $(stack_name "$1"), client on $(stack_name "$2")"
	tap_test "ib_send_lat RC, $d" \
		perftest "$1" "$2" 18701 32 200 "ib_send_lat -s 32 -n 200"
	tap_test "ib_write_bw RC, $d" \
		perftest "$1" "$2" 18702 4096 200 "ib_write_bw -s 4096 -n 200"
	tap_test "ib_read_lat RC, $d" \
		perftest "$1" "$2" 18703 32 200 "ib_read_lat -s 32 -n 200"
	tap_test "ib_atomic_lat RC, $d" \
		perftest "$1" "$2" 18704 8 200 "ib_atomic_lat -n 200"
	tap_test "ib_send_bw UD, $d" \
		perftest "$1" "$2" 18705 1024 200 "ib_send_bw -c UD -s 1024 -n 200" \
		"Connection type : UD"
	tap_test "ib_send_lat -R (rdma_cm) RC, $d" \
		perftest "$1" "$2" 18706 32 200 "ib_send_lat -R -s 32 -n 200" \
		"rdma_cm QPs[[:space:]]*: ON"
	tap_done
}

# rxe in Linux 5.10 makes a raw packet QP, as the stock stack asks it to,
# but cannot steer a flow to it: stock fails a step later, in the attach
raw_qp_unsteered() {
	grep -qxF "error: Operation not supported" "$work/stock.log" &&
		grep -qxF "Couldn't attach QP" "$work/stock.log" &&
		echo "# stock made the raw packet QP and could not steer a flow to it"
}

# Raw Ethernet QPs: rdmachan has none, nor has rxe from 6.1, so the
# raw_ethernet_* programs fail to create their QP on rdmachan exactly as on
# stock (on 5.10, stock fails at the flow attach instead).
t_raw_ethernet() {
	for prog in raw_ethernet_bw raw_ethernet_lat; do
		set -- "$prog" -d "$dev" -B 02:00:00:00:00:01 -E 02:00:00:00:00:02 --server
		on s timeout 20 "$@" >"$work/stock.log" 2>&1
		s_rc=$?
		on r timeout 20 "$@" >"$work/rdmachan.log" 2>&1
		r_rc=$?
		[ $s_rc -eq $r_rc ] && [ $r_rc -ne 0 ] && [ $r_rc -lt 124 ] &&
			expect "$work/rdmachan.log" "Unable to create QP." &&
			{ cmp -s "$work/stock.log" "$work/rdmachan.log" || raw_qp_unsteered; } ||
			{
				echo "# $prog: exit $r_rc, stock $s_rc; stock's output, then how rdmachan's differs:"
				show "$work/stock.log"
				diff "$work/stock.log" "$work/rdmachan.log" | sed 's/^/#   /'
				return 1
			}
	done
}
