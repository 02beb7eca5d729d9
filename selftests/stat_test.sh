#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdmachan-stat against a program that holds an unacknowledged CM event
# (stat_holder): its ids with states, addresses and QPs in RTS (in both of
# librdmachan's modes), its events queued and unacknowledged with ages
# that grow, a destroy that waits, JSON, refresh, and who may see whom:
# a user sees their own processes, root everyone's, nobody else's.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
build=$here/../build
tmp=$(mktemp -d)
trap 'exec 4>&- 2>/dev/null; rm -rf "$tmp"' EXIT
# copies outside the build tree, which the user nobody may not reach
cp "$build/bin/rdmachan-stat" "$build/selftests/stat_holder" "$tmp/"
chmod 755 "$tmp" "$tmp/rdmachan-stat" "$tmp/stat_holder"
stat=$tmp/rdmachan-stat
as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"

fail() {
	echo "# $*"
	return 1
}

# start_holder PREFIX...: stat_holder $holder_arg run by PREFIX in the
# background, its input on fd 4; sets holder_pid once it printed "ready".
start_holder() {
	rm -f "$tmp/in" "$tmp/out"
	mkfifo "$tmp/in"
	"$@" "$tmp/stat_holder" $holder_arg <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
	holder_pid=$!
	exec 4>"$tmp/in"
	i=0
	while ! grep -q '^ready' "$tmp/out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $holder_pid 2>/dev/null; then
			cat "$tmp/err"
			return 1
		fi
		sleep 0.1
	done
	set -- $(cat "$tmp/out")
	client_qpn=$2
	server_qpn=$3
}

# Ends the holder: it acknowledges, cleans up and must exit 0.
stop_holder() {
	exec 4>&-
	wait $holder_pid || fail "stat_holder exited $? ($(cat "$tmp/err"))"
}

# The table for the holder: two connected ids with their QPs in RTS, the
# taken event unacknowledged, the other one queued.
table_is_right() {
	out=$1
	echo "$out" | grep -q "^pid $holder_pid (stat_holder) fd " ||
		fail "no file of pid $holder_pid: $out" || return 1
	for qpn in $client_qpn $server_qpn; do
		echo "$out" | grep -Eq " connected +TCP +RC +rxe0 .* $qpn RTS " ||
			fail "no connected id with QP $qpn in RTS: $out" || return 1
	done
	echo "$out" | grep -Eq "event ADDR_RESOLVED +id [0-9]+ +unacked " ||
		fail "no unacknowledged ADDR_RESOLVED: $out" || return 1
	echo "$out" | grep -Eq "event ADDR_RESOLVED +id [0-9]+ +queued " ||
		fail "no queued ADDR_RESOLVED: $out" || return 1
	echo "$out" | grep -q "1 queued, 0 unacknowledged" ||
		fail "no file with one queued event: $out" || return 1
	echo "$out" | grep -q "0 queued, 1 unacknowledged, 0 waited for" ||
		fail "no file with one unacknowledged event: $out"
}

# The age of the unacknowledged event, in ms, from the JSON.
unacked_age() {
	"$stat" -j -p "$holder_pid" | python3 -c '
import json, sys
files = json.load(sys.stdin)
ages = [e["age_ms"] for f in files for e in f["cm_events"] if e["state"] == "unacked"]
assert len(ages) == 1, ages
print(ages[0])'
}

table_in_mode() {
	start_holder env RDMACHAN_MODE="$1" || return 1
	out=$("$stat" -p "$holder_pid")
	table_is_right "$out" || { stop_holder; return 1; }
	stop_holder
}

kernel_owned_qps_in_table() {
	table_in_mode kernel
}

bypass_qps_in_table() {
	table_in_mode bypass
}

json_and_growing_ages() {
	start_holder env || return 1
	first=$(unacked_age) || { stop_holder; return 1; }
	sleep 1.2
	second=$(unacked_age) || { stop_holder; return 1; }
	"$stat" -j | python3 -c '
import json, sys
files = [f for f in json.load(sys.stdin) if f["pid"] == '"$holder_pid"']
ids = [i for f in files for i in f["cm_ids"]]
assert sum(1 for i in ids if i["state"] == "connected" and i["qp_state"] == "RTS") == 2, ids
assert all(i["ps"] == "TCP" and i["device"] == "rxe0" for i in ids), ids
totals = sorted((f["cm_events_total"]["queued"], f["cm_events_total"]["unacked"]) for f in files)
assert [t for t in totals if t != (0, 0)] == [(0, 1), (1, 0)], totals
' || { stop_holder; return 1; }
	stop_holder || return 1
	[ "$second" -ge $((first + 1000)) ] ||
		fail "age went from $first ms to $second ms in 1.2 s"
}

destroy_waiting_shown() {
	holder_arg=destroy
	start_holder env || return 1
	holder_arg=
	i=0
	until "$stat" -p "$holder_pid" | grep -Eq "unacked +[0-9.]+s  destroy waiting"; do
		i=$((i + 1))
		[ $i -lt 50 ] || { "$stat" -p "$holder_pid"; stop_holder; fail "no destroy waiting"; return 1; }
		sleep 0.1
	done
	"$stat" -p "$holder_pid" | grep -q "0 queued, 1 unacknowledged, 1 waited for by a destroy" ||
		{ stop_holder; fail "summary without the waiting destroy"; return 1; }
	# the ack lets the destroy return, and the holder exit
	stop_holder
}

own_processes_only() {
	# nobody's own process: nobody sees it
	start_holder $as_nobody || return 1
	out=$($as_nobody "$stat" -p "$holder_pid")
	echo "$out" | grep -q "^pid $holder_pid (stat_holder)" ||
		{ stop_holder; fail "nobody does not see their own process: $out"; return 1; }
	stop_holder || return 1
	# root's process: nobody does not see it, root does
	start_holder env || return 1
	out=$($as_nobody "$stat" -p "$holder_pid")
	echo "$out" | grep -q "^no /dev/rdmachan file open" ||
		{ stop_holder; fail "nobody sees root's process: $out"; return 1; }
	"$stat" -p "$holder_pid" | grep -q "^pid $holder_pid " ||
		{ stop_holder; fail "root does not see it"; return 1; }
	stop_holder
}

refresh_and_bad_arguments() {
	start_holder env || return 1
	n=$(timeout 2.5 "$stat" -w 1 -p "$holder_pid" | grep -c '^--- ')
	stop_holder || return 1
	[ "$n" -ge 2 ] || fail "$n snapshots in 2.5 s with -w 1" || return 1
	"$stat" -p $$ | grep -q "^no /dev/rdmachan file open" ||
		fail "a shell has no rdmachan file" || return 1
	for args in "-w 0" "-w x" "-p 0" "-p -3" "extra"; do
		"$stat" $args >/dev/null 2>&1
		[ $? -eq 2 ] || fail "rdmachan-stat $args did not exit 2" || return 1
	done
}

tap_plan 6
holder_arg=
tap_test kernel_owned_qps_in_table kernel_owned_qps_in_table
# bypass mode where the module offers it (not on Linux 5.10)
if [ "$("$build/bin/rdmachan-mode")" = bypass ]; then
	tap_test bypass_qps_in_table bypass_qps_in_table
else
	tap_skip bypass_qps_in_table "no bypass mode on this kernel"
fi
tap_test json_and_growing_ages json_and_growing_ages
tap_test destroy_waiting_shown destroy_waiting_shown
tap_test own_processes_only own_processes_only
tap_test refresh_and_bad_arguments refresh_and_bad_arguments
tap_done
