#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified UCX on rdmachan, through build/bin/rdmachan-run:
# ucx_info finds rxe0 and its verbs transports, and ucx_perftest runs its
# UCT tests over rc_verbs with both ends on rdmachan: active messages
# (short, copied and zero-copy), RDMA write and read (put, get), and the
# atomics; UCP's io_demo connects over rdmacm.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/ucx-common.sh"

# ucx_info -d lists rxe0's memory domain and its verbs transports; before
# the device node, UCX skipped the device without a word.
t_ucx_info() {
	on r timeout 60 ucx_info -d >"$work/info.log" 2>&1 ||
		{ echo "# ucx_info failed"; show "$work/info.log"; return 1; }
	expect "$work/info.log" "Memory domain: $dev" || return 1
	for tl in rc_verbs ud_verbs; do
		awk -v tl="$tl" -v d="$ucx_dev" '
			$2 == "Transport:" && $3 == tl { t = 1; next }
			t && $2 == "Device:" { if ($3 == d) found = 1; t = 0 }
			END { exit !found }' "$work/info.log" ||
			{ echo "# no $tl on $ucx_dev"; show "$work/info.log"; return 1; }
	done
}

tap_plan 12
ucx_test "ucx_info -d lists $dev's rc_verbs and ud_verbs" t_ucx_info
ucx_test "ucx_perftest am_lat (short)" ucx r r 18811 1000 "-t am_lat"
ucx_test "ucx_perftest am_lat copied, 1024 bytes" ucx r r 18812 1000 "-t am_lat -D bcopy -s 1024"
ucx_test "ucx_perftest am_lat zero-copy, 4096 bytes" ucx r r 18813 1000 "-t am_lat -D zcopy -s 4096"
ucx_test "ucx_perftest am_bw" ucx r r 18814 1000 "-t am_bw"
ucx_test "ucx_perftest put_lat" ucx r r 18815 1000 "-t put_lat"
ucx_test "ucx_perftest put_bw zero-copy, 64 KiB" ucx r r 18816 200 "-t put_bw -D zcopy -s 65536"
ucx_test "ucx_perftest get zero-copy, 4096 bytes" ucx r r 18817 1000 "-t get -D zcopy -s 4096"
ucx_test "ucx_perftest add_lat" ucx r r 18818 1000 "-t add_lat"
ucx_test "ucx_perftest fadd" ucx r r 18819 1000 "-t fadd"
ucx_test "ucx_perftest cswap" ucx r r 18820 1000 "-t cswap"
ucx_test "io_demo (UCP connected over rdmacm)" t_io_demo r r 18821
tap_done
