#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified programs on soft-iWARP (make check-siw; skipped on any
# other run), each with both ends on the stock stack (the reference), both
# ends on rdmachan, and rdmachan against stock both ways, in each of
# librdmachan's modes (compat-common.sh's checks of each end's success
# lines). The programs are the arguments, compat-common.sh's t_* or the
# perftest runs below; by default the CM's own: rping, ucmatose,
# rdma_server/rdma_client and cmtime (siw_perftest_test.sh,
# siw_qperf_test.sh and siw_rsocket_test.sh run the others). Not rping -q:
# its rdma_establish() fails on iWARP with EINVAL, on stock as on
# rdmachan, and its server then waits out its time limit.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
if [ "${RDMACHAN_TRANSPORT:-}" != iwarp ]; then
	tap_plan 1
	tap_skip "$(basename "$0")" "the run is not on iWARP (make check-siw)"
	tap_done
	exit 0
fi
. "$here/compat-common.sh"
. "$here/perftest-common.sh"
. "$here/rsocket-common.sh"

# in_mode MODE COMMAND...: COMMAND with librdmachan in MODE
in_mode() {
	im_old=$RDMACHAN_MODE
	RDMACHAN_MODE=$1
	shift
	"$@"
	im_rc=$?
	RDMACHAN_MODE=$im_old
	return $im_rc
}

# perftest's RC programs with the CM's connections (-R), which iWARP needs
cm_qps="rdma_cm QPs[[:space:]]*: ON"
p_send_lat() {
	perftest "$1" "$2" 18731 32 200 "ib_send_lat -R -d $dev -s 32 -n 200" "$cm_qps"
}
p_write_bw() {
	perftest "$1" "$2" 18732 4096 200 "ib_write_bw -R -d $dev -s 4096 -n 200" "$cm_qps"
}
p_read_lat() {
	perftest "$1" "$2" 18733 32 200 "ib_read_lat -R -d $dev -s 32 -n 200" "$cm_qps"
}

# rsockets, whose messages are sends on iWARP; a stock client's rpoll
# (-T a) takes a prompt goodbye for an error (rsocket-common.sh), so the
# clients here block (-T b) or do not (-T n). Small transfers: siw's data
# path under the debug kernel moves about a megabyte a second.
p_rstream() {
	t_rstream "$1" "$2" rstream 100 "-S 4096 -T b -T v"
}
p_rstream_nonblocking() {
	t_rstream "$1" "$2" rstream 10 "-S 65536 -T n -T v"
}
p_riostream() {
	t_rstream "$1" "$2" riostream 20 "-S 16384 -T v"
}
p_rcopy() {
	rcopy_bytes=300000 t_rcopy "$1" "$2"
}

[ $# -gt 0 ] || set -- t_rping t_ucmatose t_rdma_server t_cmtime
modes=kernel
! bypass_offered || modes="kernel bypass"
nmodes=$(echo "$modes" | wc -w)
# the stock pair, then per mode: both ends, server, client on rdmachan
tap_plan $(($# * (1 + 3 * nmodes)))
for prog; do
	tap_test "$prog, both ends on stock" "$prog" s s
	for mode in $modes; do
		tap_test "$prog, both ends on rdmachan ($mode)" in_mode "$mode" "$prog" r r
		tap_test "$prog, server on rdmachan ($mode), client on stock" \
			in_mode "$mode" "$prog" r s
		tap_test "$prog, server on stock, client on rdmachan ($mode)" \
			in_mode "$mode" "$prog" s r
	done
done
tap_done
