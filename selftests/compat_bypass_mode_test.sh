#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What makes bypass mode (RDMACHAN_MODE=bypass rdmachan-run): the program
# loads rdmachan's librdmacm.so.1 and the system's libibverbs.so.1, and its
# QPs are its own uverbs QPs, not the module's.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"
RDMACHAN_MODE=bypass
export RDMACHAN_MODE

bypass_libraries_load() {
	# shellcheck disable=SC2016
	out=$("$run" sh -c 'ldd "$(command -v rping)"')
	echo "$out" | grep -q "librdmacm.so.1 => .*/build/bypass/librdmacm.so.1" ||
		{ echo "# $out"; return 1; }
	echo "$out" | grep -q "libibverbs.so.1 => /lib/" ||
		{ echo "# $out"; return 1; }
}

# While rping runs, its QPs show as rping's in the RDMA core's resource
# tracking (a kernel QP of the module's would not), and the module counts
# no QP of its own.
qps_are_the_programs() {
	"$run" rping -s -a "$addr" -p 7491 -C 3000 -S 1024 >"$work/s.log" 2>&1 &
	s_pid=$!
	sleep 1
	"$run" rping -c -a "$addr" -p 7491 -C 3000 -S 1024 >"$work/c.log" 2>&1 &
	c_pid=$!
	seen=0 i=0
	while [ $i -lt 100 ] && [ "$seen" -lt 2 ]; do
		seen=$(rdma res show qp 2>/dev/null | grep -c "type RC .*comm rping")
		i=$((i + 1))
		sleep 0.1
	done
	kqps=$(awk '$1 == "qps" { print $2 }' /sys/kernel/debug/rdmachan/objects)
	wait $c_pid
	c_rc=$?
	wait $s_pid
	s_rc=$?
	[ "$seen" -ge 2 ] || { echo "# rping's RC QPs seen: $seen, want 2"; return 1; }
	[ "$kqps" = 0 ] || { echo "# the module has $kqps QPs"; return 1; }
	if [ $c_rc -ne 0 ] || [ $s_rc -ne 0 ]; then
		echo "# rping exits $s_rc and $c_rc"
		show "$work/s.log"
		return 1
	fi
}

tap_plan 2
tap_test "bypass mode: rdmachan's librdmacm over the system's libibverbs" \
	bypass_libraries_load
tap_test "bypass mode: rping's QPs are its own uverbs QPs" qps_are_the_programs
tap_done
