#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What makes bypass mode (RDMACHAN_MODE=bypass rdmachan-run): the program
# loads rdmachan's librdmacm.so.1 and the system's libibverbs.so.1, and its
# QPs are its own uverbs QPs, not the module's. And how the mode is chosen:
# bypass by default on a module that offers it, RDMACHAN_MODE forcing
# either, for rdmachan-run and librdmachan alike (rdmachan-mode).
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
	# the system's, under /lib or (merged /usr, Debian 14) /usr/lib
	echo "$out" | grep -Eq "libibverbs.so.1 => (/usr)?/lib/" ||
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

# ldd_rping: which libraries rping gets through rdmachan-run
ldd_rping() {
	# shellcheck disable=SC2016
	"$run" sh -c 'ldd "$(command -v rping)"'
}

# ... and kernel-owned where it does not; a forced bypass mode stays
# kernel-owned there, with nothing to drive the program's QPs
no_bypass_here() {
	for m in "" bypass; do
		[ "$(RDMACHAN_MODE=$m "$mode_tool")" = kernel ] ||
			{ echo "# RDMACHAN_MODE=$m rdmachan-mode: $(RDMACHAN_MODE=$m "$mode_tool")"; return 1; }
		out=$(RDMACHAN_MODE=$m ldd_rping)
		echo "$out" | grep -q "librdmacm.so.1 => .*/build/compat/librdmacm.so.1" ||
			{ echo "# $out"; return 1; }
	done
}

# "bypass mode is the default where the kernel supports it": rdmachan-mode
# said so (bypass_offered); rdmachan-run follows it
default_is_bypass() {
	out=$(RDMACHAN_MODE='' ldd_rping)
	echo "$out" | grep -q "librdmacm.so.1 => .*/build/bypass/librdmacm.so.1" ||
		{ echo "# $out"; return 1; }
}

# "an environment variable forces either"
kernel_mode_forced() {
	[ "$(RDMACHAN_MODE=kernel "$mode_tool")" = kernel ] || return 1
	out=$(RDMACHAN_MODE=kernel ldd_rping)
	echo "$out" | grep -q "librdmacm.so.1 => .*/build/compat/librdmacm.so.1" ||
		{ echo "# $out"; return 1; }
}

# "no extra process on the start path": rdmachan-run reads the module's
# features from sysfs and runs rdmachan-mode only where it cannot; a copy
# whose rdmachan-mode leaves a mark tells which, and both ways choose the
# same libraries
mode_read_without_a_process() {
	printf '#!/bin/sh\necho called >>%s\nexec %s\n' "$work/tool-calls" \
		"$mode_tool" >"$work/mode-tool"
	chmod +x "$work/mode-tool"
	sed "s|^mode_tool=.*|mode_tool=$work/mode-tool|" "$run" >"$work/run"
	chmod +x "$work/run"
	rm -f "$work/tool-calls"
	# shellcheck disable=SC2016
	direct=$(RDMACHAN_MODE='' "$work/run" sh -c 'echo "$LD_LIBRARY_PATH"')
	[ ! -e "$work/tool-calls" ] ||
		{ echo "# rdmachan-mode ran with the features readable"; return 1; }
	# shellcheck disable=SC2016
	probed=$(RDMACHAN_MODE='' RDMACHAN_FEATURES_FILE=/nonexistent \
		"$work/run" sh -c 'echo "$LD_LIBRARY_PATH"')
	[ -e "$work/tool-calls" ] ||
		{ echo "# rdmachan-mode did not run without the features"; return 1; }
	[ "$direct" = "$probed" ] ||
		{ echo "# sysfs chose $direct, rdmachan-mode $probed"; return 1; }
}

unknown_mode_refused() {
	RDMACHAN_MODE=fast "$run" true 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] || { echo "# exit $rc"; return 1; }
	grep -q "RDMACHAN_MODE must be kernel or bypass" "$work/err"
}

offered=
bypass_offered && offered=1
tap_plan 6
if [ -n "$offered" ]; then
	tap_test "bypass mode: rdmachan's librdmacm over the system's libibverbs" \
		bypass_libraries_load
	tap_test "without RDMACHAN_MODE, bypass where the module offers it" default_is_bypass
else
	tap_test "no bypass mode offered: kernel-owned, forced bypass too" no_bypass_here
	tap_skip "without RDMACHAN_MODE, bypass where the module offers it" \
		"the module offers no bypass mode on this kernel"
fi
tap_test "RDMACHAN_MODE=kernel: the kernel-owned drop-ins" kernel_mode_forced
tap_test "an unknown RDMACHAN_MODE is refused" unknown_mode_refused
tap_test "rdmachan-run chooses the mode without a process of its own" \
	mode_read_without_a_process
if [ -n "$offered" ]; then
	tap_test "bypass mode: rping's QPs are its own uverbs QPs" qps_are_the_programs
else
	tap_skip "bypass mode: rping's QPs are its own uverbs QPs" \
		"the module offers no bypass mode on this kernel"
fi
tap_done
