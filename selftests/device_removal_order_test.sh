#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Device removal with rdma_cm registered before ib_uverbs (issue 42). The
# RDMA core removes its clients last-registered first, so in that order
# ib_uverbs' removal comes before rdma_cm's and waits, on rxe (which cannot
# disassociate), for every uverbs file of the device to close: on the
# stock stack DEVICE_REMOVAL comes only after the processes ended on their
# own. rdmachan registers its client after ib_uverbs' (its init loads
# ib_uverbs), so its own removal comes first: every id gets DEVICE_REMOVAL
# with its QP in ERR, and the uverbs files the module holds are let go.
#
# The guest loads ib_uverbs before rdma_cm (vm/guest-init), as most
# systems do. This script reloads the RDMA modules the other way round:
# rdma_cm, then rdmachan (which must load ib_uverbs itself), then rxe.
# There it runs the device removal tests in both modes (none may skip)
# and uapi_user_qp_test (a binding refused after DEVICE_REMOVAL, or to
# an id that came to the device while ib_uverbs' removal waits), and
# deletes rxe0 under a connected rping pair through rdmachan-run, in both
# modes: the delete ends within 20 s, and so do both rpings. Then it puts
# the guest's order back and leaves the module loaded.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
ko=${RDMACHAN_KO:-$here/../rdmachan.ko}
netdev=${RDMACHAN_NETDEV:-rdmachan0}
addr=${RDMACHAN_ADDR:-10.77.0.1}
run=$here/../build/bin/rdmachan-run
tests=$here/../build/selftests
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the debug guest gives programs more time (vm/debug-suite)
limit=${RDMACHAN_TEST_TIMEOUT:-300}

fail() {
	echo "# $*"
	return 1
}

# Where module $1 stands in /proc/modules (the newest first), 0 if absent.
position() {
	awk -v m="$1" '$1 == m { n = NR } END { print n + 0 }' /proc/modules
}

rxe_up() {
	rdma link add rxe0 type rxe netdev "$netdev" || return 1
	i=0
	until grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "rxe0 never became ACTIVE" || return 1
		sleep 0.05
	done
}

stack_down() {
	[ ! -e /sys/class/infiniband/rxe0 ] || rdma link delete rxe0 || return 1
	! grep -q '^rdmachan ' /proc/modules || rmmod rdmachan || return 1
	for m in rdma_ucm rdma_rxe rdma_cm ib_uverbs; do
		! grep -q "^$m " /proc/modules || modprobe -r "$m" ||
			fail "modprobe -r $m" || return 1
	done
}

# rdma_cm, rdmachan, rxe: ib_uverbs must come with rdmachan, before it
# registers its client; rdma_cm is then registered before ib_uverbs.
cm_first() {
	stack_down || return 1
	modprobe rdma_cm || return 1
	insmod "$ko" || return 1
	[ "$(position ib_uverbs)" -gt 0 ] ||
		fail "insmod rdmachan did not load ib_uverbs" || return 1
	modprobe rdma_rxe && modprobe rdma_ucm && rxe_up || return 1
	u=$(position ib_uverbs)
	c=$(position rdma_cm)
	[ "$u" -lt "$c" ] || fail "ib_uverbs ($u) is not newer than rdma_cm ($c)"
}

# The guest's order (vm/guest-init): ib_uverbs, then rdma_cm.
uverbs_first() {
	stack_down || return 1
	for m in rdma_rxe ib_uverbs rdma_cm rdma_ucm; do
		modprobe "$m" || return 1
	done
	insmod "$ko" && rxe_up || return 1
	u=$(position ib_uverbs)
	c=$(position rdma_cm)
	[ "$u" -gt "$c" ] || fail "ib_uverbs ($u) is newer than rdma_cm ($c)"
}

# $1, a test program, in mode $2 (bypass or kernel): all passed, none
# skipped unless $3 says "skips" (a program with cases for other kernels).
program() {
	out=$work/$(basename "$1")-$2.log
	if [ "$2" = kernel ]; then
		RDMACHAN_MODE=kernel timeout -k 5 "$limit" "$1" >"$out" 2>&1
	else
		env -u RDMACHAN_MODE timeout -k 5 "$limit" "$1" >"$out" 2>&1
	fi
	rc=$?
	sed 's/^/# /' "$out"
	[ $rc -eq 0 ] || fail "$(basename "$1") exited with $rc" || return 1
	[ "${3:-}" = skips ] || ! grep -q '# SKIP' "$out" ||
		fail "a test skipped in this order"
}

# Has program $1 ended within $2 seconds? 0 when it has.
ended_within() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		[ $i -lt $(($2 * 10)) ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# A connected rping pair through rdmachan-run in mode $1; rxe0 deleted
# under it: the delete and both rpings end within 20 s, each rping having
# heard of the removal.
rping_pair_removal() {
	RDMACHAN_MODE=$1 "$run" rping -s -v -a "$addr" -p 7181 >"$work/server.log" 2>&1 &
	srv=$!
	sleep 1
	RDMACHAN_MODE=$1 "$run" rping -c -v -a "$addr" -p 7181 >"$work/client.log" 2>&1 &
	cli=$!
	i=0
	until [ "$(grep -c 'ping data' "$work/client.log")" -gt 10 ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 0.1
	done
	ok=1
	[ $i -lt 300 ] || { echo "# the pair never pinged"; ok=0; }
	t0=$(date +%s)
	timeout 60 rdma link delete rxe0
	rc=$?
	echo "# rdma link delete took $(($(date +%s) - t0)) s (exit $rc)"
	[ $rc -eq 0 ] && [ $(($(date +%s) - t0)) -le 20 ] || ok=0
	ended_within "$srv" 20 || { echo "# the server did not end"; ok=0; }
	ended_within "$cli" 20 || { echo "# the client did not end"; ok=0; }
	kill -KILL "$srv" "$cli" 2>/dev/null
	wait "$srv" "$cli" 2>/dev/null
	for log in server client; do
		grep -q 'device removal' "$work/$log.log" ||
			{ echo "# the $log did not hear of the removal"; ok=0; }
		tail -n 3 "$work/$log.log" | sed "s/^/# $log: /"
	done
	[ -e /sys/class/infiniband/rxe0 ] || rxe_up || ok=0
	[ $ok -eq 1 ]
}

# without bypass mode (Debian 11's 5.10) only kernel-owned mode counts
modes=kernel
[ "$(env -u RDMACHAN_MODE "$here/../build/bin/rdmachan-mode")" != bypass ] ||
	modes="bypass kernel"
# shellcheck disable=SC2086
set -- $modes
tap_plan $((1 + 5 * $#))
tap_test "rdma_cm, then rdmachan (loading ib_uverbs), then rxe" cm_first
for t in verbs_removal_test verbs_async_removal_test cm_events_test; do
	for mode in $modes; do
		tap_test "$t ($mode) in that order" program "$tests/$t" "$mode"
	done
done
for mode in $modes; do
	tap_test "rping pair through rdmachan-run ($mode), rxe0 deleted under it" \
		rping_pair_removal "$mode"
done
# the module side of bypass mode, a binding refused after DEVICE_REMOVAL
# among it (the system's libibverbs: no mode of librdmachan's)
user_qp_program() {
	program "$tests/uapi_user_qp_test" bypass skips || return 1
	! grep -q "rdma_cm's removal comes before" "$out" ||
		fail "the binding of an id that came late was not tried"
}
[ "$modes" = kernel ] ||
	tap_test "uapi_user_qp_test in that order" user_qp_program
tap_test "the guest's order back: ib_uverbs, then rdma_cm" uverbs_first
tap_done
