#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading rdmachan.ko: rmmod is refused while a file is open
# and works after close; repeated load/unload cycles, with and without
# device contexts and IB devices, leave the kernel log clean. Leaves the
# module loaded, as it found it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
ko=${RDMACHAN_KO:-$here/../rdmachan.ko}
devinfo=$here/../build/bin/rdmachan-devinfo

fail() {
	echo "# $*"
	return 1
}

loaded() {
	grep -q '^rdmachan ' /proc/modules
}

log_problems() {
	dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace:|rdmachan.*(leak|error)'
}

rmmod_refused_while_open() {
	loaded || insmod "$ko" || return 1
	exec 3<>/dev/rdmachan
	if rmmod rdmachan 2>/dev/null; then
		exec 3>&-
		fail "rmmod succeeded with /dev/rdmachan open"
		return 1
	fi
	loaded || fail "module gone after refused rmmod" || return 1
	exec 3>&-
	rmmod rdmachan || fail "rmmod after close failed" || return 1
	! loaded && [ ! -e /dev/rdmachan ] || fail "module or device still there"
}

twenty_load_unload_cycles() {
	before=$(log_problems)
	i=0
	while [ $i -lt 20 ]; do
		insmod "$ko" || fail "insmod $i" || return 1
		# use it on every other cycle: a device context, then close
		if [ $((i % 2)) -eq 0 ]; then
			"$devinfo" >/dev/null || fail "devinfo $i" || return 1
		fi
		rmmod rdmachan || fail "rmmod $i" || return 1
		i=$((i + 1))
	done
	[ "$(log_problems)" -eq "$before" ] || fail "kernel log grew warnings"
}

load_without_ib_devices() {
	netdev=${RDMACHAN_NETDEV:-rdmachan0}
	rdma link delete rxe0 || return 1
	insmod "$ko" || return 1
	out=$("$devinfo")
	echo "$out" | grep -q 'No IB devices found' || fail "devinfo: $out" || return 1
	# a device that appears while the module is loaded is followed
	rdma link add rxe0 type rxe netdev "$netdev" || return 1
	"$devinfo" | grep -q 'hca_id:	rxe0' || fail "rxe0 not seen after add" || return 1
	rmmod rdmachan
}

unload_with_device_removed_under_a_context() {
	netdev=${RDMACHAN_NETDEV:-rdmachan0}
	insmod "$ko" || return 1
	exec 3<>/dev/rdmachan
	rdma link delete rxe0 || return 1
	exec 3>&-
	rdma link add rxe0 type rxe netdev "$netdev" || return 1
	rmmod rdmachan
}

tap_plan 4
loaded || insmod "$ko"
tap_test rmmod_refused_while_open rmmod_refused_while_open
tap_test twenty_load_unload_cycles twenty_load_unload_cycles
tap_test load_without_ib_devices load_without_ib_devices
tap_test unload_with_device_removed_under_a_context unload_with_device_removed_under_a_context
loaded || insmod "$ko"
tap_done
