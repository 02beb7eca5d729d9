# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Minimal TAP for shell selftests, in the format of kselftest_harness.h.
tap_pass=0
tap_fail=0
tap_skipped=0
tap_n=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

# tap_test NAME COMMAND...: runs COMMAND, reports it as one test case.
tap_test() {
	name=$1
	shift
	tap_n=$((tap_n + 1))
	echo "#  RUN           $name ..."
	if "$@"; then
		tap_pass=$((tap_pass + 1))
		echo "ok $tap_n $name"
	else
		tap_fail=$((tap_fail + 1))
		echo "not ok $tap_n $name"
	fi
}

# tap_skip NAME REASON: a test case that cannot run here, counted apart.
tap_skip() {
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n $1 # SKIP $2"
}

tap_done() {
	echo "# Totals: pass:$tap_pass fail:$tap_fail xfail:0 xpass:0 skip:$tap_skipped error:0"
	[ $tap_fail -eq 0 ]
}
