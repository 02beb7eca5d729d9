# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The two-host test, sourced by selftests/check after check-common.sh.
#
# Two test VMs joined by a QEMU socket netdev, rxe1 on each: guest a runs
# "two_hosts_peer server", guest b "two_hosts_peer client" (one accepted
# connection, one request left unanswered). Once b is ready, a's QEMU is
# killed: the host is gone without a word. b must get DISCONNECTED for the
# connection (its DREQ times out) and UNREACHABLE or REJECTED for the
# request, tear down, and leave the module with no live objects and
# unloadable, its kernel log clean.

# th_wait FILE PATTERN SECONDS: until FILE has a line matching PATTERN.
th_wait() {
	th_i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		th_i=$((th_i + 1))
		[ $th_i -le $(($3 * 5)) ] || return 1
		sleep 0.2
	done
}

run_two_hosts() {
	th_dir=$1
	th_peer=$top/build/selftests/two_hosts_peer
	# a port of our own for the socket netdev, from the pid
	th_port=$((20000 + $$ % 20000))
	mkdir -p "$th_dir"
	vm/run --logdir "$th_dir/a" --peer-net "a:$th_port" --timeout 600 -- \
		"$th_peer" server 10.78.0.1 7470 >"$th_dir/a.out" 2>&1 &
	th_a=$!
	th_wait "$th_dir/a.out" 'server: listening' 300
	result $? "two hosts: guest a listens on its peer link"
	th_job="'$th_peer' client 10.78.0.1 7470; rc=\$?
		awk '\$1 != \"devices\" && \$2 != 0 { print \"leaked: \" \$0; bad = 1 }
		     END { exit bad }' /sys/kernel/debug/rdmachan/objects || rc=1
		rmmod rdmachan || rc=1
		exit \$rc"
	vm/run --logdir "$th_dir/b" --peer-net "b:$th_port" --timeout 900 -- \
		sh -c "$th_job" >"$th_dir/b.out" 2>&1 &
	th_b=$!
	th_wait "$th_dir/b.out" 'client: ready' 300 &&
		th_wait "$th_dir/a.out" 'server: holding the second request' 30
	th_rc=$?
	result $th_rc "two hosts: b connects to a and has a request pending"
	# Power a off: no DREQ, no REJ, nothing more from that host.
	kill -9 "$(cat "$th_dir/a/qemu.pid" 2>/dev/null)" 2>/dev/null
	wait $th_a
	wait $th_b
	th_rc=$?
	sed 's/^/# b: /' "$th_dir/b.out" | grep -E 'client:|leaked|rdmachan-vm'
	[ $th_rc -eq 0 ]
	result $? "two hosts: b gets DISCONNECTED and UNREACHABLE after a dies, tears down, module unloads (exit $th_rc)"
}
