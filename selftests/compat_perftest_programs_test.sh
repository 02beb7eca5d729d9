#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified perftest programs on rdmachan, both ends, through
# build/bin/rdmachan-run: every transfer type (SEND, RDMA WRITE, RDMA READ,
# atomics) for latency and bandwidth, over RC, UC and UD, with the QPs
# connected by perftest over TCP or made by the CM (-R), with completion
# events, several QPs, an SRQ, and both directions at once; the raw
# Ethernet programs fail as on stock.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/perftest-common.sh"

rc="Connection type : RC"
cm="rdma_cm QPs[[:space:]]*: ON"

tap_plan 23
tap_test "ib_send_lat RC, 32 bytes" perftest r r 18601 32 200 "ib_send_lat -s 32 -n 200" "$rc"
tap_test "ib_send_lat RC, 1024 bytes" perftest r r 18602 1024 200 "ib_send_lat -s 1024 -n 200"
tap_test "ib_send_bw RC" perftest r r 18603 4096 200 "ib_send_bw -s 4096 -n 200" "$rc"
tap_test "ib_write_lat RC" perftest r r 18604 32 200 "ib_write_lat -s 32 -n 200"
tap_test "ib_write_bw RC" perftest r r 18605 4096 200 "ib_write_bw -s 4096 -n 200"
tap_test "ib_read_lat RC" perftest r r 18606 32 200 "ib_read_lat -s 32 -n 200"
tap_test "ib_read_bw RC" perftest r r 18607 4096 200 "ib_read_bw -s 4096 -n 200"
tap_test "ib_atomic_lat fetch-and-add" perftest r r 18608 8 200 "ib_atomic_lat -n 200" \
	"Atomic FETCH_AND_ADD Latency Test"
tap_test "ib_atomic_lat compare-and-swap" perftest r r 18609 8 200 \
	"ib_atomic_lat -A CMP_AND_SWAP -n 200" "Atomic CMP_AND_SWAP Latency Test"
tap_test "ib_atomic_bw" perftest r r 18610 8 200 "ib_atomic_bw -n 200"
tap_test "ib_send_lat -R (QPs from the CM)" perftest r r 18611 32 200 \
	"ib_send_lat -R -s 32 -n 200" "$cm"
tap_test "ib_write_bw -R" perftest r r 18612 4096 200 "ib_write_bw -R -s 4096 -n 200" "$cm"
tap_test "ib_read_lat -R" perftest r r 18613 32 200 "ib_read_lat -R -s 32 -n 200" "$cm"
tap_test "ib_send_lat UD" perftest r r 18614 32 200 "ib_send_lat -c UD -s 32 -n 200" \
	"Connection type : UD"
tap_test "ib_send_bw UD" perftest r r 18615 1024 200 "ib_send_bw -c UD -s 1024 -n 200" \
	"Connection type : UD"
tap_test "ib_send_bw UD -R (RDMA_PS_UDP)" perftest r r 18616 1024 200 \
	"ib_send_bw -c UD -R -s 1024 -n 200" "Connection type : UD" "$cm"
tap_test "ib_send_lat UC" perftest r r 18617 32 200 "ib_send_lat -c UC -s 32 -n 200" \
	"Connection type : UC"
tap_test "ib_write_bw UC" perftest r r 18618 4096 200 "ib_write_bw -c UC -s 4096 -n 200" \
	"Connection type : UC"
# -e: perftest sleeps in ibv_get_cq_event (its header does not say so)
tap_test "ib_send_lat -e (completion events)" perftest r r 18619 32 200 \
	"ib_send_lat -e -s 32 -n 200"
tap_test "ib_send_bw -q 4 (four QPs)" perftest r r 18620 4096 800 \
	"ib_send_bw -q 4 -s 4096 -n 200" "Number of qps[[:space:]]*: 4"
tap_test "ib_send_bw --use-srq" perftest r r 18621 4096 200 \
	"ib_send_bw --use-srq -s 4096 -n 200" "Using SRQ[[:space:]]*: ON"
tap_test "ib_write_bw -b (both directions)" perftest r r 18622 4096 200 \
	"ib_write_bw -b -s 4096 -n 200"
tap_test "raw_ethernet_bw and _lat fail as on stock (no raw packet QPs)" t_raw_ethernet
tap_done
