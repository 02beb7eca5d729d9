#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The installed kselftest tree (make -C selftests install, built by make
# into build/kselftest-install) as a user's CI VM runs it: with no rdmachan
# module loaded, no rxe device and no test netdev, the kernel's own
# run_kselftest.sh runs one of its programs, which makes its environment
# (modprobe rdmachan, the dummy netdev, rxe0) and passes. Leaves the guest
# as it found it: the module loaded from $RDMACHAN_KO, rxe0 on its netdev.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
tree=$here/../build/kselftest-install
netdev=${RDMACHAN_NETDEV:-rdmachan0}
ko=${RDMACHAN_KO:-$here/../rdmachan.ko}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

fail() {
	echo "# $*"
	return 1
}

# The modules index with the module in it: vm/run's, made on the host
# from the same $ko (depmod here reads every module over 9p, minutes under
# TCG), or depmod's own.
index_modules() {
	if [ -r "${RDMACHAN_MODULE_INDEX:-/nonexistent}/modules.dep.bin" ]; then
		cp "$RDMACHAN_MODULE_INDEX"/modules.* "$1/"
	else
		depmod -a
	fi
}

# What a fresh VM has: the module installed (as DKMS or a package would),
# not loaded; no rxe device, no test netdev.
fresh_vm() {
	kdir=/lib/modules/$(uname -r)
	# a Debian release's guest has it from its own dkms install already
	if ! grep -q '^updates/dkms/rdmachan.ko[^:]*:' "$kdir/modules.dep" 2>/dev/null; then
		mkdir -p "$kdir/updates" && cp "$ko" "$kdir/updates/" && index_modules "$kdir" &&
			grep -q '^updates/rdmachan.ko:' "$kdir/modules.dep" ||
			fail "cannot install the module for modprobe" || return 1
	fi
	rdma link delete rxe0 2>/dev/null
	ip link del "$netdev" 2>/dev/null
	rmmod rdmachan 2>/dev/null
	[ ! -e /dev/rdmachan ] && [ ! -e /sys/class/infiniband/rxe0 ] &&
		[ ! -e "/sys/class/net/$netdev" ] || fail "could not tear the environment down"
}

run_kselftest_runs_one() {
	[ -x "$tree/run_kselftest.sh" ] || fail "no installed tree at $tree" || return 1
	"$tree/run_kselftest.sh" -t rdmachan:verbs_flush_test >"$log" 2>&1
	rc=$?
	sed 's/^/#   /' "$log" | tail -n 12
	[ $rc -eq 0 ] || fail "run_kselftest.sh exit $rc" || return 1
	grep -q '^ok 1 selftests: rdmachan: verbs_flush_test$' "$log" ||
		fail "the runner did not report the program passed"
}

environment_was_made() {
	[ -c /dev/rdmachan ] || fail "no /dev/rdmachan" || return 1
	[ "$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0 2>/dev/null)" = "$netdev" ] ||
		fail "rxe0 is not on $netdev"
}

# the list names every program, as the kernel's install writes it
list_is_complete() {
	n=$(grep -c '^rdmachan:' "$tree/kselftest-list.txt")
	[ "$n" -ge 30 ] && [ -r "$tree/rdmachan/settings" ] && [ -r "$tree/rdmachan/config" ] ||
		fail "$n programs listed, settings and config present?"
}

# back to what run-in-guest expects: the module from $RDMACHAN_KO
restore() {
	rmmod rdmachan && insmod "$ko" || fail "cannot reload $ko"
}

tap_plan 5
tap_test "a fresh VM: no module loaded, no rxe0, no $netdev" fresh_vm
tap_test "run_kselftest.sh runs verbs_flush_test and it passes" run_kselftest_runs_one
tap_test "the program made its environment: module, $netdev, rxe0 on it" environment_was_made
tap_test "kselftest-list.txt, settings and config are installed" list_is_complete
tap_test "the module is reloaded from \$RDMACHAN_KO" restore
tap_done
