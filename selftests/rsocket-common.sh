# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by the compat_*rsocket_programs_test.sh: Debian's rsocket
# programs (rstream, riostream, rcopy) and librspreload under a plain
# socket program, each end on rdmachan (r) or on stock (s). Sourced after
# tap.sh and compat-common.sh.
#
# rdma-core's rsockets register a calloc()ed receive buffer of twice
# SO_RCVBUF (1 MB for rstream's default); one that glibc places
# page-aligned spans 256 pages, where 6.1's rxe reads past the MR's page
# map (KASAN: slab-out-of-bounds in rxe_mr_copy; compatibility.md). A
# fixed mmap threshold makes that rarer but did not prevent it, so rstream
# and riostream run with -B 500000: a 1,000,000-byte buffer spans 245 or
# 246 pages wherever it lies; the threshold stays for the programs
# without such an option.
# rdmachan's rsockets register a page more and need none of this.
MALLOC_MMAP_THRESHOLD_=131072
export MALLOC_MMAP_THRESHOLD_
rs_buffer="-B 500000"
preload=
for p in /usr/lib/*/rsocket/librspreload.so /usr/lib/rsocket/librspreload.so; do
	[ -r "$p" ] && preload=$p && break
done
socket_echo=$here/../build/selftests/socket_echo

# rs_results LOG XFERS: rstream/riostream printed their header and one
# result line, with the transfer count asked for (1000 shown as 1k)
rs_results() {
	rr_xfers=$2
	[ "$2" -lt 1000 ] || rr_xfers=$(($2 / 1000))k
	expect "$1" "name      bytes   xfers" &&
		expect_count "$1" 1 "^custom +[0-9.]+[kmg]? +$rr_xfers +1 +"
}

# t_rstream SSTACK CSTACK PROG XFERS "ARGS": PROG (rstream or riostream)
# with ARGS at both ends, XFERS transfers, both ends report them
t_rstream() {
	port=$((7480 + ${rs_case:=0}))
	rs_case=$((rs_case + 1))
	pair "$1" "$2" "cm_listening $port" \
		"$3 -b $addr -p $port -C $4 $rs_buffer $5" \
		"$3 -s $addr -p $port -C $4 $rs_buffer $5" || return 1
	statuses 0 0 || return 1
	rs_results "$work/server.log" "$4" && rs_results "$work/client.log" "$4" ||
		{ show "$work/server.log"; show "$work/client.log"; return 1; }
}

# t_rcopy SSTACK CSTACK: a file of random bytes ($rcopy_bytes, 3 MB by
# default) arrives byte for byte
t_rcopy() {
	head -c "${rcopy_bytes:-3000000}" /dev/urandom >"$work/source"
	rm -f "$work/copy"
	persistent_server=1
	pair "$1" "$2" "cm_listening 7491" "rcopy -p 7491" \
		"rcopy $work/source $addr:$work/copy -p 7491"
	rc=$?
	persistent_server=
	[ $rc -eq 0 ] && statuses 0 0 || return 1
	cmp "$work/source" "$work/copy" ||
		{ show "$work/client.log"; show "$work/server.log"; return 1; }
}

t_rcopy_both_ways() {
	t_rcopy s r && t_rcopy r s
}

# tcp_sockets_on PORT: the TCP sockets (any state) of PORT, one a line
tcp_sockets_on() {
	ss -tanH 2>/dev/null | awk -v p=":$1" '$4 ~ p"$" || $5 ~ p"$"'
}

# t_preload: socket_echo, a plain TCP program, both ends on rdmachan
# through librspreload: the bytes come back, and no TCP socket of its
# port exists meanwhile (it really runs over RDMA)
t_preload() {
	[ -n "$preload" ] || { echo "# no librspreload.so"; return 1; }
	ss -tanH >/dev/null || { echo "# ss cannot list TCP sockets"; return 1; }
	: >"$work/tcp"
	( while :; do tcp_sockets_on 7492 >>"$work/tcp"; sleep 0.05; done ) &
	ss_pid=$!
	pair r r "cm_listening 7492" \
		"env LD_PRELOAD=$preload $socket_echo server $addr 7492 300000" \
		"env LD_PRELOAD=$preload $socket_echo client $addr 7492 300000"
	rc=$?
	kill "$ss_pid"
	wait "$ss_pid" 2>/dev/null
	[ $rc -eq 0 ] && statuses 0 0 || return 1
	expect "$work/client.log" "socket_echo: 300000 bytes came back" &&
		expect "$work/server.log" "socket_echo: echoed 300000 bytes" || return 1
	if [ -s "$work/tcp" ]; then
		echo "# TCP sockets of port 7492 while it ran (not on rsockets):"
		show "$work/tcp"
		return 1
	fi
}

# udp_bound PORT: a UDP socket is bound to PORT (a datagram rsocket's)
udp_bound() {
	grep -qE ":$(printf '%04X' "$1") 0+:0000 07" /proc/net/udp /proc/net/udp6 2>/dev/null
}

# t_udpong XFERS "ARGS" [noecho]: udpong (datagram rsockets), both ends
# on rdmachan, ARGS at both ends; the server sees the client log in, and
# answers every echo (XFERS each way) or, without echoes, counts at least
# one datagram (a datagram may be dropped: it is UD). The first datagram
# goes over UDP, the rest over UD, but over the path MTU (1 KB on rxe).
# Counts stay small: udpong resends an echo not answered within 1 ms and
# takes the late answer for a reason to resend the next, so a guest too
# slow for a while can keep it resending until its time limit.
t_udpong() {
	# a port of its own: a server still leaving on the last one's port
	# would pass for this one's, and its going refuse the client
	port=$((7495 + ${ud_case:=0}))
	ud_case=$((ud_case + 1))
	persistent_server=1
	pair r r "udp_bound $port" "udpong -b $addr -p $port $2" \
		"udpong -s $addr -p $port -C $1 $2"
	rc=$?
	persistent_server=
	[ $rc -eq 0 ] && statuses 0 0 || return 1
	rr_xfers=$(($1 * 2))
	[ "$rr_xfers" -lt 1000 ] || rr_xfers=$((rr_xfers / 1000))k
	[ -z "$3" ] || rr_xfers='[1-9][0-9.]*[k]?'
	expect "$work/server.log" "client login from $addr" &&
		expect_count "$work/client.log" 1 "^custom +[0-9.]+[kmg]? +$rr_xfers +" ||
		{ show "$work/server.log"; show "$work/client.log"; return 1; }
}

# t_udpong_stock_client: stock's datagram rsockets cannot run on RoCE at
# all (each rsocket's own loopback address handle has no GRH, which a
# RoCE port refuses), so there is no stock end to test against: its
# client ends at rconnect, which is what this checks.
t_udpong_stock_client() {
	on s timeout 20 udpong -s "$addr" -p 7494 -C 10 -S 64 >"$work/rs.log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && expect "$work/rs.log" "rconnect:" ||
		{ echo "# stock udpong exit $rc"; show "$work/rs.log"; return 1; }
}

# rsocket_programs: the whole set, rdmachan both ends and against stock
# both ways. A stock client polls (-T a) only against a stock server:
# rstream's do_poll() takes POLLHUP for an error, and stock's rpoll()
# reports it with the last data when the server's goodbye came right
# behind it, which a server may always do (rdmachan's rpoll() reports
# POLLHUP only once the data is read).
rsocket_programs() {
	tap_plan 18
	tap_test "rstream 64 B x 1000, both ends on rdmachan" t_rstream r r rstream 1000 "-S 64"
	tap_test "rstream 1 MB x 20 verified, both ends on rdmachan" t_rstream r r rstream 20 "-S 1000000 -T v"
	tap_test "rstream async (rpoll) verified, both ends on rdmachan" t_rstream r r rstream 100 "-S 10000 -T a -T v"
	tap_test "rstream nonblocking verified, both ends on rdmachan" t_rstream r r rstream 100 "-S 10000 -T n -T v"
	tap_test "rstream blocking with keepalive, both ends on rdmachan" t_rstream r r rstream 100 "-S 4096 -T b -k 1"
	tap_test "rstream verified, rdmachan client, stock server" t_rstream s r rstream 20 "-S 1000000 -T v"
	tap_test "rstream async verified, rdmachan client, stock server" t_rstream s r rstream 100 "-S 10000 -T a -T v"
	tap_test "rstream nonblocking verified, stock client, rdmachan server" t_rstream r s rstream 100 "-S 10000 -T n -T v"
	tap_test "riostream verified, both ends on rdmachan" t_rstream r r riostream 50 "-S 100000 -T v"
	tap_test "riostream nonblocking, stock client, rdmachan server" t_rstream r s riostream 50 "-S 100000 -T n -T v"
	tap_test "riostream async, rdmachan client, stock server" t_rstream s r riostream 50 "-S 100000 -T a -T v"
	tap_test "rcopy, both ends on rdmachan" t_rcopy r r
	tap_test "rcopy, rdmachan client, stock server; and back" t_rcopy_both_ways
	tap_test "librspreload: a plain socket program over rsockets on rdmachan" t_preload
	tap_test "udpong blocking echo 64 B, both ends on rdmachan" t_udpong 100 "-S 64 -T b -T e"
	tap_test "udpong nonblocking 1 KB without echoes, both ends on rdmachan" t_udpong 500 "-S 1000 -T n" noecho
	tap_test "udpong async (rpoll) echo 1500 B over UDP, both ends on rdmachan" t_udpong 50 "-S 1500 -T a -T e"
	tap_test "udpong: stock cannot run datagram rsockets on RoCE" t_udpong_stock_client
	tap_done
}
