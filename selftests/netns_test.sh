#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Network namespaces, as ib_uverbs applies them: with "rdma system set
# netns exclusive" a process in another network namespace sees no device
# (rdmachan's list and stock ibv_devices alike), opening the device by its
# index fails with EPERM, and a CM id there cannot bind to rxe0's
# address. In shared mode (the default) every namespace sees and opens
# the device, as on stock. The initial namespace keeps the device in both
# modes. Leaves the system in shared mode with no extra namespace.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
probe=$here/../build/selftests/netns_probe
ns=rdmachan-netns-test
addr=${RDMACHAN_ADDR:-10.77.0.1}
index=$(rdma dev show rxe0 | sed -n 's/^\([0-9]*\): rxe0:.*/\1/p')

fail() {
	echo "# $*"
	return 1
}

# probe_in NAMESPACE: the probe's three lines, run there ("" = initial).
probe_in() {
	if [ -n "$1" ]; then
		ip netns exec "$1" "$probe" "$index" "$addr"
	else
		"$probe" "$index" "$addr"
	fi
}

# expect_probe NAMESPACE DEVICES OPEN BIND
expect_probe() {
	out=$(probe_in "$1") || fail "probe failed: $out" || return 1
	want=$(printf 'devices %s\nopen %s\nbind %s' "$2" "$3" "$4")
	[ "$out" = "$want" ] ||
		fail "in namespace '${1:-init}': got $(echo "$out" | tr '\n' ' ')," \
			"want $(echo "$want" | tr '\n' ' ')"
}

stock_devices_in() {
	ip netns exec "$1" ibv_devices | grep -c rxe0
}

# Mode changes are refused while other namespaces exist, and a deleted
# namespace goes away asynchronously.
set_mode() {
	i=0
	until rdma system set netns "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "rdma system set netns $1 refused" || return 1
		sleep 0.1
	done
	rdma system show | grep -q "netns $1" || fail "mode is not $1"
}

cleanup() {
	ip netns del "$ns" 2>/dev/null
	set_mode shared
}

shared_mode_every_namespace_sees_the_device() {
	if ! set_mode shared || ! ip netns add "$ns"; then
		cleanup
		return 1
	fi
	[ "$(stock_devices_in "$ns")" = 1 ] || fail "stock sees no rxe0" ||
		{ cleanup; return 1; }
	# EADDRNOTAVAIL (99): the address is not in the new namespace
	expect_probe "$ns" 1 0 99 && expect_probe "" 1 0 0
	rc=$?
	cleanup
	return $rc
}

exclusive_mode_hides_the_device() {
	if ! set_mode exclusive || ! ip netns add "$ns"; then
		cleanup
		return 1
	fi
	[ "$(stock_devices_in "$ns")" = 0 ] || fail "stock sees rxe0" ||
		{ cleanup; return 1; }
	# EPERM (1) as ib_uverbs gives it for the device's open
	expect_probe "$ns" 0 1 99 && expect_probe "" 1 0 0
	rc=$?
	cleanup
	return $rc
}

tap_plan 2
[ -n "$index" ] || fail "no index for rxe0"
tap_test "shared netns mode: every namespace sees and opens rxe0" \
	shared_mode_every_namespace_sees_the_device
tap_test "exclusive netns mode: another namespace neither lists nor opens rxe0" \
	exclusive_mode_hides_the_device
tap_done
