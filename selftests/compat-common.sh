# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by the compat_*_programs_test.sh and compat_interop_*_test.sh: runs
# Debian's stock rdma-core programs (rdmacm-utils, ibverbs-utils) in the
# guest, each end either on rdmachan (through build/bin/rdmachan-run and
# the drop-in libraries) or on the stock stack (librdmacm + ucma, libibverbs
# + the rxe provider), and checks each end's success lines, not only its
# exit status. Sourced after tap.sh, with $here the selftests directory.
run=$here/../build/bin/rdmachan-run
# Each script tests one mode of the drop-ins: kernel-owned unless it says
# bypass (compat_bypass_*_test.sh).
RDMACHAN_MODE=${RDMACHAN_MODE:-kernel}
export RDMACHAN_MODE
mode_tool=$here/../build/bin/rdmachan-mode
# bypass_offered: the module offers bypass mode, so that librdmachan picks
# it by default (RDMACHAN_FEATURE_USER_QP: not on Debian 11's 5.10)
bypass_offered() {
	[ "$(env -u RDMACHAN_MODE "$mode_tool")" = bypass ]
}
# A bypass-mode script is one case, skipped, where there is no bypass mode.
if [ "$RDMACHAN_MODE" = bypass ] && ! bypass_offered; then
	tap_plan 1
	tap_skip "$(basename "$0")" "the module offers no bypass mode on this kernel (no RDMACHAN_FEATURE_USER_QP)"
	tap_done
	exit 0
fi
addr=${RDMACHAN_ADDR:-10.77.0.1}
dev=${RDMACHAN_DEVICE:-rxe0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# each end's time limit; the debug guest (vm/debug-suite) gives more
limit=${RDMACHAN_COMPAT_LIMIT:-60}

# The index of the RoCE v2 GID of $addr (the pingpong programs' -g): the
# entry ::ffff:a.b.c.d of $dev's port 1. Read without a fork per entry:
# rxe has 1024, and a device without that GID (siw) has them all read,
# which took minutes under the debug kernel with two forks each.
gid_index() {
	want=$(echo "$addr" | awk -F. '{
		printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for g in "/sys/class/infiniband/$dev/ports/1/gids/"*; do
		i=${g##*/}
		read -r gi_gid <"$g" 2>/dev/null || continue
		[ "$gi_gid" = "$want" ] || continue
		read -r gi_type <"/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null ||
			continue
		[ "$gi_type" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}
gid=$(gid_index) || gid=
[ -n "$gid" ] || echo "# no RoCE v2 GID for $addr on $dev"

# on STACK COMMAND...: COMMAND on rdmachan (STACK r) or on stock (s)
on() {
	if [ "$1" = r ]; then
		shift
		"$run" "$@"
	else
		shift
		"$@"
	fi
}

stack_name() {
	[ "$1" = r ] && echo rdmachan || echo stock
}

# expect LOG TEXT...: every TEXT (a fixed string) is a line of LOG, or a
# part of one; says which is missing
expect() {
	e_log=$1
	shift
	for e_text; do
		grep -qF -- "$e_text" "$e_log" && continue
		echo "# missing in $(basename "$e_log"): $e_text"
		return 1
	done
}

# expect_count LOG N PATTERN: PATTERN (extended regex) matches N lines
expect_count() {
	ec_n=$(grep -cE -- "$3" "$1")
	[ "$ec_n" -eq "$2" ] && return 0
	echo "# $(basename "$1"): $ec_n lines match '$3', want $2"
	return 1
}

show() {
	sed 's/^/#   /' "$1"
}

# A listener of the CM on port $1 exists (either stack: rdma_cm ids show
# in the RDMA core's resource tracking whoever owns them).
# The kernel shows a CM id in LISTEN a moment before its listen is in
# place (rdma_listen() sets the state first), so a client connecting then
# is rejected (REJ reason 8, invalid service ID). The server is taken as
# ready once it is seen listening and then has gone back to sleep (every
# thread of the program pair() started waits, none on a lock), or, for a
# server that polls its channel without sleeping (perftest -R), once it
# has been seen listening for three polls of wait_for in a row: rdma_listen
# needs microseconds of CPU to finish, the polls take 0.2 s.
#
# A server on rdmachan needs none of that: the module records an id as
# listening only once rdma_listen() has returned, and shows it in the
# fdinfo of the server's /dev/rdmachan file.
cm_listening() {
	if [ "${srv_stack:-}" = r ]; then
		# pair() runs this with globbing off
		case $- in *f*) cl_noglob=1 ;; *) cl_noglob= ;; esac
		set +f
		grep -qsE "^cm_id:.* state=listening .* src=[^ ]*:$1 " \
			/proc/[0-9]*/fdinfo/* 2>/dev/null
		cl_rc=$?
		[ -z "$cl_noglob" ] || set -f
		return $cl_rc
	fi
	# On iWARP the driver's TCP listen is made inside rdma_listen(), once
	# the id listens: no look at the CM's ids, which under the debug
	# kernel came back empty for minutes at a time with a stock server
	# listening on siw.
	if [ "${RDMACHAN_TRANSPORT:-}" = iwarp ]; then
		tcp_listening "$1"
		return
	fi
	if ! rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [^ ]*:$1 "; then
		cl_seen=0
		return 1
	fi
	cl_seen=$((${cl_seen:-0} + 1))
	server_sleeps || [ "$cl_seen" -ge 3 ] || return 1
	cl_seen=0
}

server_sleeps() {
	[ -n "${srv_pid:-}" ] || return 0
	ss_prog=$(pgrep -P "$srv_pid" | head -n 1)
	[ -n "$ss_prog" ] || return 1
	for ss_task in /proc/$ss_prog/task/*; do
		ss_state=$(sed 's/.*) //' "$ss_task/stat" 2>/dev/null | cut -d' ' -f1)
		[ "$ss_state" = S ] || return 1
		grep -qE 'mutex|rwsem|lock' "$ss_task/wchan" 2>/dev/null && return 1
	done
	return 0
}

# A TCP socket listens on port $1, over IPv4 or IPv6 (rdma-core 65's
# ibv_rc_pingpong listens on ::).
tcp_listening() {
	grep -qE ":$(printf '%04X' "$1") 0+:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# now_s: $now is the seconds since boot (no fork, however busy the guest)
now_s() {
	read -r now _ </proc/uptime
	now=${now%.*}
}

# wait_for CHECK ARG...: until CHECK succeeds, or $ready_limit s (45, less
# than a server's $limit, so that a stuck one is still there to look at);
# the server's process ($srv_pid) must stay alive meanwhile
ready_limit=45
wait_for() {
	now_s
	wf_end=$((now + ready_limit))
	until "$@"; do
		kill -0 "$srv_pid" 2>/dev/null || return 1
		now_s
		[ "$now" -lt $wf_end ] ||
			{ echo "# timed out waiting for: $*"; return 1; }
		sleep 0.1
	done
}

# where_stuck PID: each thread of PID's processes, with its state and
# the kernel function it sleeps in, and its user stack where gdb exists:
# what a server that never got ready was doing
where_stuck() {
	ws_pids="$1 $(pgrep -P "$1" | tr '\n' ' ')"
	for ws_child in $ws_pids; do
		ws_pids="$ws_pids $(pgrep -P "$ws_child" | tr '\n' ' ')"
	done
	for ws_pid in $(echo "$ws_pids" | tr ' ' '\n' | sort -un); do
		[ -d "/proc/$ws_pid" ] || continue
		echo "#   process $ws_pid: $(tr '\0' ' ' <"/proc/$ws_pid/cmdline" | cut -c1-120)"
		for ws_task in /proc/"$ws_pid"/task/*; do
			echo "#     thread ${ws_task##*/} $(cat "$ws_task/comm") state $(sed 's/.*) //' "$ws_task/stat" |
				cut -d' ' -f1) in $(cat "$ws_task/wchan")"
		done
		command -v gdb >/dev/null || continue
		timeout 60 gdb -p "$ws_pid" -batch -ex "thread apply all bt 12" 2>/dev/null |
			grep -E '^(Thread|#[0-9])' | cut -c1-160 | head -n 80 | sed 's/^/#     /'
	done
}

# stuck_watch PID SECONDS: where PID (a client under timeout(1)) is
# stuck, if it still runs after SECONDS, before its time limit ends it
stuck_watch() {
	trap 'kill "$sw_sleep" 2>/dev/null; exit 0' TERM
	sleep "$2" &
	sw_sleep=$!
	wait "$sw_sleep"
	kill -0 "$1" 2>/dev/null || exit 0
	echo "# the client still runs after $2 s:"
	where_stuck "$1"
}

log_has() {
	grep -qF -- "$1" "$work/server.log"
}

# pair SSTACK CSTACK "READY ARG" "SERVER ARGV" "CLIENT ARGV": starts the
# server on SSTACK, waits until READY ARG holds (cm_listening PORT,
# tcp_listening PORT or log_has TEXT), runs the client on CSTACK to its
# end, then waits for the server. The argvs are split on blanks. Logs in
# $work/server.log and client.log (line-buffered), exit statuses in
# $srv_rc and $cli_rc. With persistent_server=1 the server is one that
# never ends (cmtime's): it must still run when the client is done, and
# is then stopped, which counts as exit 0; with persistent_server=either
# it may also have ended by itself, with its own status. With
# client_runs=N the client is run again, up to N runs in all, while each
# run succeeds and the server has not ended (client.log keeps every run).
persistent_server=
client_runs=1
pair() {
	srv_rc=255 cli_rc=255 srv_stack=$1
	set -f
	# a simple command, so that $! is the server's timeout(1) itself
	p_cmd="timeout -k 5 $limit stdbuf -oL $4"
	[ "$1" = r ] && p_cmd="$run $p_cmd"
	# shellcheck disable=SC2086
	$p_cmd >"$work/server.log" 2>&1 &
	srv_pid=$!
	# shellcheck disable=SC2086
	if ! wait_for $3; then
		set +f
		kill -0 "$srv_pid" 2>/dev/null && where_stuck "$srv_pid"
		kill "$srv_pid" 2>/dev/null
		wait "$srv_pid"
		srv_rc=$?
		echo "# the $(stack_name "$1") server did not get ready (exit $srv_rc)"
		show "$work/server.log"
		echo "# the CM's ids then:"
		rdma res show cm_id 2>&1 | sed 's/^/#   /'
		return 1
	fi
	: >"$work/client.log"
	p_runs=0
	while :; do
		# shellcheck disable=SC2086
		on "$2" timeout -k 5 "$limit" stdbuf -oL $5 >>"$work/client.log" 2>&1 &
		cli_pid=$!
		stuck_watch "$cli_pid" $((limit - 10)) &
		p_watch=$!
		wait "$cli_pid"
		cli_rc=$?
		kill "$p_watch" 2>/dev/null
		wait "$p_watch"
		p_runs=$((p_runs + 1))
		if [ $cli_rc -ne 0 ] || [ $p_runs -ge "$client_runs" ]; then
			break
		fi
		# a server that has what it waited for gets 2 s to end
		p_i=0
		while kill -0 "$srv_pid" 2>/dev/null && [ $p_i -lt 20 ]; do
			sleep 0.1
			p_i=$((p_i + 1))
		done
		kill -0 "$srv_pid" 2>/dev/null || break
	done
	[ $p_runs -eq 1 ] || echo "# the client ran $p_runs times"
	set +f
	if [ $cli_rc -eq 124 ]; then
		# where the server's side of the connection stands
		echo "# the client timed out after $limit s; the CM's ids and QPs then:"
		rdma res show cm_id 2>&1 | sed 's/^/#   /'
		rdma res show qp 2>&1 | sed 's/^/#   /'
	fi
	if [ -n "$persistent_server" ]; then
		if kill -0 "$srv_pid" 2>/dev/null; then
			kill "$srv_pid"
			# (no "Terminated" from the shell in the TAP)
			{ wait "$srv_pid"; } 2>/dev/null
			srv_rc=0
		else
			wait "$srv_pid"
			srv_rc=$?
			[ "$persistent_server" = either ] && return 0
			echo "# the server ended by itself (exit $srv_rc)"
			[ $srv_rc -ne 0 ] || srv_rc=1
		fi
		return 0
	fi
	wait "$srv_pid"
	srv_rc=$?
	return 0
}

# pair_acked ARG...: pair ARG..., once more if a stock end was left
# retransmitting. rxe completes a receive before it sends the ACK, and
# rdma_server/client and rdma_xserver/xclient disconnect (their QP goes
# to ERR) as soon as they have their last message, so that ACK can be
# dropped. rxe takes librdmacm's retry count of 7 as "retry forever",
# and a stock peer blocked on its CQ never reads the DREQ: it hangs, on
# stock <-> stock too (an rdmachan peer is flushed by the DREQ instead).
# The end that disconnected then waits in rdma_disconnect until its DREQ
# times out, unanswered, which can take longer than the time limit. Such
# a run is one where the stock end timed out, the other end exited 0 or
# timed out too, and rxe's completer_retry_err counter grew meanwhile.
rxe_retries() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/completer_retry_err" 2>/dev/null ||
		echo 0
}

pair_acked() {
	pa_before=$(rxe_retries)
	pair "$@" || return 1
	if { [ "$1" = s ] && [ "$srv_rc" -eq 124 ] &&
		{ [ "$cli_rc" -eq 0 ] || [ "$cli_rc" -eq 124 ]; }; } ||
		{ [ "$2" = s ] && [ "$cli_rc" -eq 124 ] &&
			{ [ "$srv_rc" -eq 0 ] || [ "$srv_rc" -eq 124 ]; }; }; then
		[ "$(rxe_retries)" -gt $((pa_before + 2)) ] || return 0
		echo "# the stock end retransmitted to a peer that had disconnected (an ACK rxe dropped): once more"
		pair "$@"
	fi
}

# statuses WANT_SERVER WANT_CLIENT: the exit statuses were these; shows
# both logs otherwise
statuses() {
	[ "$srv_rc" -eq "$1" ] && [ "$cli_rc" -eq "$2" ] && return 0
	echo "# server exit $srv_rc (want $1), client exit $cli_rc (want $2)"
	echo "# server log:"
	show "$work/server.log"
	echo "# client log:"
	show "$work/client.log"
	return 1
}

# has_row WHAT CONDITION: a line of the client's log meets the awk
# CONDITION (its result row); says "no WHAT" and shows the log otherwise
has_row() {
	awk "$2 { found = 1 } END { exit !found }" "$work/client.log" && return 0
	echo "# no $1"
	show "$work/client.log"
	return 1
}

# no_lines GREP_OPTIONS... PATTERN: no line of either end's log matches;
# shows those that do
no_lines() {
	! grep -h "$@" "$work/server.log" "$work/client.log" | sed 's/^/# /' | grep .
}

# The client/server programs, each a check of one run with the server on
# stack $1 and the client on stack $2.

t_rping() {
	pair "$1" "$2" "cm_listening 7174" "rping -s -v -V -C 10 -a $addr -p 7174" \
		"rping -c -v -V -C 10 -a $addr -p 7174" || return 1
	statuses 0 0 || return 1
	# one line per iteration, each checked against the pattern (-V)
	expect_count "$work/client.log" 10 '^ping data: rdma-ping-[0-9]+: ' &&
		expect_count "$work/server.log" 10 '^server ping data: rdma-ping-[0-9]+: ' &&
		expect "$work/client.log" "ping data: rdma-ping-9: JKLMNOPQRSTUVWXYZ" &&
		! grep -i 'mismatch\|error\|fail' "$work/client.log" "$work/server.log"
}

# rping before rdma-core 40 (its fix "Make rping with external qp compliant
# to IB spec") posts its first receive while its own QP is still in RESET,
# which the IB spec forbids (C10-22). rxe's provider takes it in user
# space; rdmachan's kernel-owned verbs hand it to rxe's kernel verbs, which
# refuse it with EINVAL, as spec-compliant devices do (the rdmachan end
# says "ibv_post_recv failed: 22" and ends).
rping_posts_in_reset() {
	rp_version=$(dpkg-query -W -f='${Version}' rdmacm-utils 2>/dev/null) || return 1
	[ "${rp_version%%.*}" -lt 40 ] 2>/dev/null
}

rping_q_server="rping -s -q -v -V -C 5 -a $addr -p 7175"
rping_q_client="rping -c -q -v -V -C 5 -a $addr -p 7175"

# t_rping_q_refused SSTACK CSTACK: that refusal, on whichever end is
# rdmachan's and gets to its receive first. A client posts before it
# connects, and the server, waiting in vain, is stopped; a server posts
# once it has the request, and its stock client is rejected.
t_rping_q_refused() {
	[ "$2" = r ] && persistent_server=1
	pair "$1" "$2" "cm_listening 7175" "$rping_q_server" "$rping_q_client"
	rq_rc=$?
	persistent_server=
	[ $rq_rc -eq 0 ] || return 1
	if [ "$2" = r ]; then
		statuses 0 22 && expect "$work/client.log" "ibv_post_recv failed: 22"
	else
		statuses 22 255 && expect "$work/server.log" "ibv_post_recv failed: 22" &&
			expect "$work/client.log" "RDMA_CM_EVENT_REJECTED"
	fi
}

# rping -q: the program makes its own QP and moves it with
# rdma_init_qp_attr/ibv_modify_qp, then rdma_establish/rdma_accept
t_rping_q() {
	if [ "$RDMACHAN_MODE" = kernel ] && { [ "$1" = r ] || [ "$2" = r ]; } &&
		rping_posts_in_reset; then
		echo "# rdma-core $rp_version's rping -q posts to a QP in RESET: refused in kernel-owned mode"
		t_rping_q_refused "$1" "$2"
		return
	fi
	pair "$1" "$2" "cm_listening 7175" "$rping_q_server" "$rping_q_client" || return 1
	statuses 0 0 || return 1
	expect_count "$work/client.log" 5 '^ping data: rdma-ping-[0-9]+: ' &&
		expect_count "$work/server.log" 5 '^server ping data: rdma-ping-[0-9]+: ' &&
		! grep -i 'mismatch\|error\|fail' "$work/client.log" "$work/server.log"
}

# cmtime, in the three forms rdma-core has shipped. Up to rdma-core 55
# its server (-b) serves until it is stopped and the client (-s) prints
# one "step : avg ..." table. From 56 both ends run a pass with QPs and one
# without, in which each end announces QP numbers counted from -q; they
# must differ between the ends, or the CM, seeing both on this one host,
# takes the second connection for a stale copy of the first (REJ reason
# 10). The server then ends by itself, and the client prints a table per
# pass, "step  avg ...". From 59 the ends are peers (the server with -L)
# that meet at a controller (-C): the first to bind the controller's
# address and port (-p) is it, here the server; the rest is as in 56.
t_cmtime() {
	tc_usage=$(cmtime -h 2>&1)
	tc_srv='' tc_cli='' tc_oob=''
	case $tc_usage in
	*controller*)
		# rdma-core 59 and later: the server (-L) is also the controller
		# the client syncs with over TCP
		tc_srv="cmtime -L -b $addr -C $addr -p 7471 -c 10 -q 4194304"
		tc_cli="cmtime -b $addr -C $addr -p 7471 -c 10 -q 4259840"
		tc_oob="Running as OOB root"
		;;
	*base_qpn*)
		# the client syncs with the server over TCP on the same port
		tc_srv="cmtime -b $addr -c 10 -q 4194304"
		tc_cli="cmtime -s $addr -c 10 -q 4259840"
		;;
	*)
		persistent_server=1
		pair "$1" "$2" "cm_listening 7471" "cmtime -b $addr -c 10" \
			"cmtime -s $addr -c 10"
		tc_rc=$?
		persistent_server=
		[ $tc_rc -eq 0 ] || return 1
		statuses 0 0 || return 1
		tc_sep=':' tc_tables=1
		tc_steps="create_id resolve_addr resolve_route create_qp connect disconnect destroy"
		;;
	esac
	if [ -n "$tc_srv" ]; then
		pair "$1" "$2" "tcp_listening 7471" "$tc_srv" "$tc_cli" || return 1
		statuses 0 0 || return 1
		[ -z "$tc_oob" ] || expect "$work/server.log" "$tc_oob" || return 1
		expect "$work/client.log" "Connect (10) QPs test" \
			"Connect (10) test - no QPs" || return 1
		tc_sep='' tc_tables=2
		tc_steps="create_id resolve_addr resolve_route create_qp cm_connect disconnect destroy_id"
	fi
	for step in $tc_steps; do
		step=$(echo "$step" | tr _ ' ')
		tc_rows=$(grep -cE "^$step *$tc_sep( +-?[0-9.]+){4,6}$" "$work/client.log")
		[ "$tc_rows" -eq "$tc_tables" ] || {
			echo "# $tc_rows '$step' rows in cmtime's tables, want $tc_tables"
			show "$work/client.log"
			return 1
		}
	done
}

t_ucmatose() {
	pair "$1" "$2" "cm_listening 7471" "ucmatose -b $addr -c 4 -C 20" \
		"ucmatose -s $addr -c 4 -C 20" || return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "cmatose: connecting" "receiving data transfers" \
		"sending replies" "data transfers complete" "return status 0" &&
		expect "$work/server.log" "initiating data transfers" "completing sends" \
			"data transfers complete" "disconnected" "return status 0"
}

# -m: the server migrates its ids to a new event channel
t_ucmatose_migrate() {
	pair "$1" "$2" "cm_listening 7471" "ucmatose -m -b $addr" "ucmatose -m -s $addr" ||
		return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "migrating to new event channel" "return status 0" &&
		expect "$work/server.log" "migrating to new event channel" "disconnected" \
			"return status 0"
}

# -P ib: the RDMA_PS_IB port space
t_ucmatose_ps_ib() {
	pair "$1" "$2" "cm_listening 7471" "ucmatose -P ib -b $addr" "ucmatose -P ib -s $addr" ||
		return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "data transfers complete" "return status 0" &&
		expect "$work/server.log" "data transfers complete" "return status 0"
}

t_udaddy() {
	pair "$1" "$2" "cm_listening 7174" "udaddy -b $addr" "udaddy -s $addr" || return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "udaddy: connecting" "initiating data transfers" \
		"receiving data transfers" "data transfers complete" "return status 0" &&
		expect "$work/server.log" "receiving data transfers" "sending replies" \
			"data transfers complete" "return status 0"
}

# mckey: the "server" is the receiver, joined before the sender sends,
# and waits for one message. The sender posts its sends unsignaled and at
# once destroys its AH and QP; since rxe sends from a work queue (Linux
# 6.4), its 10 sends often all stay behind, on the stock stack too
# (Debian 13: 0 to 2 of 10 left with a receiver joined). With 200 the
# posting outlasts the work queue's start, and the sender runs again
# should none arrive.
t_mckey() {
	tm_limit=$limit
	limit=$((limit * 3)) client_runs=15
	pair "$1" "$2" "log_has receiving data transfers" \
		"mckey -m 239.1.1.1 -b $addr -C 1" "mckey -m 239.1.1.1 -b $addr -C 200 -s"
	tm_rc=$?
	limit=$tm_limit client_runs=1
	[ $tm_rc -eq 0 ] || return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "mckey: joined dgid: ::ffff:239.1.1.1" \
		"initiating data transfers" "data transfers complete" "return status 0" &&
		expect "$work/server.log" "mckey: joined dgid: ::ffff:239.1.1.1" \
			"receiving data transfers" "data transfers complete" "return status 0"
}

t_rdma_server() {
	pair_acked "$1" "$2" "cm_listening 7471" "rdma_server -s $addr" "rdma_client -s $addr" ||
		return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "rdma_client: start" "rdma_client: end 0" &&
		expect "$work/server.log" "rdma_server: start" "rdma_server: end 0"
}

t_rdma_xserver() {
	pair_acked "$1" "$2" "cm_listening 7471" "rdma_xserver -c r" "rdma_xclient -s $addr -c r" ||
		return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "rdma_xclient: start" "rdma_xclient: end 0" &&
		expect "$work/server.log" "rdma_xserver: start" "rdma_xserver: end 0"
}

# the pingpong programs exchange QP numbers over TCP port 18515
pingpong() {
	[ -n "$gid" ] || return 1
	pair "$1" "$2" "tcp_listening 18515" "$3 -d $dev -g $gid $4" \
		"$3 -d $dev -g $gid $4 $addr" || return 1
	statuses 0 0 || return 1
	for log in "$work/server.log" "$work/client.log"; do
		expect "$log" "remote address: LID 0x0000" "GID ::ffff:$addr" &&
			expect_count "$log" 1 "^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" &&
			expect_count "$log" 1 "^$5 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" ||
			return 1
	done
}

t_rc_pingpong() {
	pingpong "$1" "$2" ibv_rc_pingpong "-n 200" 200
}

t_ud_pingpong() {
	pingpong "$1" "$2" ibv_ud_pingpong "-n 200" 200
}

t_uc_pingpong() {
	pingpong "$1" "$2" ibv_uc_pingpong "-n 200" 200
}

t_srq_pingpong() {
	pingpong "$1" "$2" ibv_srq_pingpong "-n 200 -q 4" 200
}

# qperf: its server serves until it is stopped, on TCP port 19765 for
# its own messages; its RC test runs over a connection the CM makes (-cm1,
# which iWARP requires) and prints one result line. rc_lat is the test
# that runs on siw: the others fail there on the stock stack too (siw
# refuses their QPs' attributes, or they write with immediate data).
t_qperf() {
	persistent_server=1
	# -to: each end's wait for the other's messages (5 s by default, too
	# short for a debug guest's stock server)
	pair "$1" "$2" "tcp_listening 19765" "qperf" "qperf -cm1 -to 60 -t 2 -m 64 $addr rc_lat"
	tq_rc=$?
	persistent_server=
	[ $tq_rc -eq 0 ] || return 1
	statuses 0 0 || return 1
	expect "$work/client.log" "rc_lat:" &&
		expect_count "$work/client.log" 1 '^ *latency *= *[0-9.]+ [mun]?s(ec)?$' &&
		no_lines -iE "failed|error|unable"
}

# The programs' own checks (compat_*_programs_test.sh)

# ibv_devices and ibv_devinfo -v print what the stock stack prints, and the
# program really ran on rdmachan (the loader took the drop-in libraries).
t_devices() {
	on s ibv_devices >"$work/stock.log" 2>&1 &&
		on r ibv_devices >"$work/rdmachan.log" 2>&1 || return 1
	guid=$(tr -d : <"/sys/class/infiniband/$dev/node_guid")
	expect "$work/rdmachan.log" "$dev" "$guid" &&
		diff "$work/stock.log" "$work/rdmachan.log" | sed 's/^/# /' &&
		cmp -s "$work/stock.log" "$work/rdmachan.log"
}

# odp_caps FILE: ibv_devinfo -v's output without what its *_odp_caps
# sections list; with ODP=1, only what they list.
odp_caps() {
	awk -v odp="${ODP:-}" '
		/^\t[a-z]+_odp_caps:$/ { in_odp = 1; if (!odp) print; next }
		in_odp && /^\t\t\t\t\t/ { if (odp) print; next }
		{ in_odp = 0; if (!odp) print }' "$1"
}

# Kernel-owned verbs register no on-demand-paging MRs: where the kernel's
# rxe offers ODP (7.x), rdmachan's sections say NO SUPPORT and the rest of
# the output is stock's.
t_devinfo() {
	on s ibv_devinfo -v >"$work/stock.log" 2>&1 &&
		on r ibv_devinfo -v >"$work/rdmachan.log" 2>&1 || return 1
	expect "$work/rdmachan.log" "hca_id:	$dev" "PORT_ACTIVE" \
		"GID[  $gid]:		::ffff:$addr, RoCE v2" || return 1
	if cmp -s "$work/stock.log" "$work/rdmachan.log"; then
		return 0
	fi
	odp_caps "$work/stock.log" >"$work/stock-no-odp.log"
	odp_caps "$work/rdmachan.log" >"$work/rdmachan-no-odp.log"
	diff "$work/stock-no-odp.log" "$work/rdmachan-no-odp.log" | sed 's/^/# /'
	cmp -s "$work/stock-no-odp.log" "$work/rdmachan-no-odp.log" || return 1
	if ODP=1 odp_caps "$work/rdmachan.log" | grep -v "NO SUPPORT$" | grep -q .; then
		echo "# rdmachan claims on-demand paging:"
		ODP=1 odp_caps "$work/rdmachan.log" | sed 's/^/# /'
		return 1
	fi
}

t_loads_drop_in() {
	LD_DEBUG=libs on r ibv_devices 2>&1 >/dev/null |
		grep -q "calling init: .*/build/compat/libibverbs.so.1" ||
		{ echo "# ibv_devices did not load build/compat/libibverbs.so.1"; return 1; }
	LD_DEBUG=libs on r rping -h 2>&1 >/dev/null | grep -c "calling init: .*/build/compat/" |
		grep -qx 1 || { echo "# rping did not load the drop-in object once"; return 1; }
}

# ucmatose -p takes a port number: "-p 0x0111" (RDMA_PS_UDP's value) is
# no service name, and rdma_getaddrinfo fails as on stock. ucmatose has no
# UD mode; udaddy is the UD program.
t_ucmatose_p() {
	on s ucmatose -p 0x0111 -s "$addr" >"$work/stock.log" 2>&1
	s_rc=$?
	on r ucmatose -p 0x0111 -s "$addr" >"$work/rdmachan.log" 2>&1
	r_rc=$?
	[ $s_rc -eq $r_rc ] && [ $r_rc -ne 0 ] &&
		expect "$work/rdmachan.log" "getaddrinfo error: Servname not supported" &&
		cmp -s "$work/stock.log" "$work/rdmachan.log" ||
		{ echo "# exit $r_rc, stock $s_rc"; show "$work/rdmachan.log"; return 1; }
}

# rdmachan has no XRC, nor has rxe: the XRC client fails in rdma_create_ep
# with EOPNOTSUPP as on stock, and the server does too. Debian 11's stock
# stack refuses the client's QP with EINVAL instead (rxe in 5.10 checks for
# a receive CQ, which an XRC send QP has none of, before anything else):
# the same output but for that errno.
t_xrc() {
	on s rdma_xclient -s "$addr" -c x >"$work/stock.log" 2>&1
	s_rc=$?
	on r rdma_xclient -s "$addr" -c x >"$work/rdmachan.log" 2>&1
	r_rc=$?
	sed 's/^rdma_create_ep: Invalid argument$/rdma_create_ep: Operation not supported/' \
		"$work/stock.log" >"$work/stock-eopnotsupp.log"
	cmp -s "$work/stock.log" "$work/stock-eopnotsupp.log" ||
		echo "# the stock stack says EINVAL where rdmachan says EOPNOTSUPP"
	[ $s_rc -eq $r_rc ] &&
		expect "$work/rdmachan.log" "rdma_create_ep: Operation not supported" \
			"rdma_xclient: end -1" &&
		cmp -s "$work/stock-eopnotsupp.log" "$work/rdmachan.log" ||
		{ echo "# exit $r_rc, stock $s_rc"; show "$work/rdmachan.log"; return 1; }
	on r timeout 20 rdma_xserver -c x >"$work/server.log" 2>&1
	expect "$work/server.log" "rdma_create_ep: Operation not supported" \
		"rdma_xserver: end -1"
}

# ibv_xsrq_pingpong needs an XRC domain: ibv_open_xrcd fails with
# EOPNOTSUPP, the program says so and ends, as on stock.
t_xsrq() {
	on s timeout 20 ibv_xsrq_pingpong -d "$dev" -g "$gid" >"$work/stock.log" 2>&1
	s_rc=$?
	on r timeout 20 ibv_xsrq_pingpong -d "$dev" -g "$gid" >"$work/rdmachan.log" 2>&1
	r_rc=$?
	[ $s_rc -eq $r_rc ] && expect "$work/rdmachan.log" "Couldn't Open the XRC Domain 95" &&
		cmp -s "$work/stock.log" "$work/rdmachan.log" ||
		{ echo "# exit $r_rc, stock $s_rc"; show "$work/rdmachan.log"; return 1; }
}

# ibv_asyncwatch on rdmachan and on stock at once, while rdmachan0 goes
# down and up: both print PORT_ERR, then PORT_ACTIVE, for port 1.
t_asyncwatch() {
	stdbuf -oL ibv_asyncwatch -d "$dev" >"$work/stock.log" 2>&1 &
	s_pid=$!
	"$run" stdbuf -oL ibv_asyncwatch -d "$dev" >"$work/rdmachan.log" 2>&1 &
	r_pid=$!
	srv_pid=$r_pid
	wait_for grep -q "async event FD" "$work/rdmachan.log"
	a_rc=$?
	srv_pid=$s_pid
	wait_for grep -q "async event FD" "$work/stock.log" || a_rc=1
	ip link set rdmachan0 down && sleep 1 && ip link set rdmachan0 up
	srv_pid=$r_pid
	wait_for grep -q PORT_ACTIVE "$work/rdmachan.log"
	srv_pid=$s_pid
	wait_for grep -q PORT_ACTIVE "$work/stock.log"
	kill "$s_pid" "$r_pid"
	{ wait "$s_pid" "$r_pid"; } 2>/dev/null
	# the port and its GIDs are back before the next program
	i=0
	until grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" &&
		[ "$(gid_index)" = "$gid" ] || [ $i -ge 200 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	[ $a_rc -eq 0 ] || return 1
	for log in "$work/stock.log" "$work/rdmachan.log"; do
		grep event_type "$log" >"$log.events"
		printf '  event_type IBV_EVENT_PORT_ERR (10), port 1\n  event_type IBV_EVENT_PORT_ACTIVE (9), port 1\n' |
			cmp -s - "$log.events" ||
			{ echo "# $(basename "$log"):"; show "$log"; return 1; }
	done
}

# interop_cm SSTACK CSTACK and interop_verbs SSTACK CSTACK: the
# client/server pairs, the server on SSTACK and the client on CSTACK
# (compat_interop_*_test.sh); each half stays well inside run-in-guest's
# time limit per program under the debug kernel.
interop_cm() {
	tap_plan 6
	d="server on $(stack_name "$1"), client on $(stack_name "$2")"
	tap_test "rping -V -C 10, $d" t_rping "$1" "$2"
	tap_test "rping -q, $d" t_rping_q "$1" "$2"
	tap_test "cmtime -c 10, $d" t_cmtime "$1" "$2"
	tap_test "ucmatose -c 4 -C 20, $d" t_ucmatose "$1" "$2"
	tap_test "udaddy, $d" t_udaddy "$1" "$2"
	tap_test "mckey, $d" t_mckey "$1" "$2"
	tap_done
}

interop_verbs() {
	tap_plan 6
	d="server on $(stack_name "$1"), client on $(stack_name "$2")"
	tap_test "rdma_server + rdma_client, $d" t_rdma_server "$1" "$2"
	tap_test "rdma_xserver + rdma_xclient, $d" t_rdma_xserver "$1" "$2"
	tap_test "ibv_rc_pingpong, $d" t_rc_pingpong "$1" "$2"
	tap_test "ibv_ud_pingpong, $d" t_ud_pingpong "$1" "$2"
	tap_test "ibv_srq_pingpong, $d" t_srq_pingpong "$1" "$2"
	tap_test "ibv_uc_pingpong, $d" t_uc_pingpong "$1" "$2"
	tap_done
}
