#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified rdma-core 44 programs on soft-iWARP (make check-siw;
# skipped on any other run): rping, with both ends on the stock stack (the
# reference), both ends on rdmachan, and rdmachan against stock both ways,
# in each of librdmachan's modes (compat-common.sh's checks of each end's
# success lines). RDMACHAN_SIW_PROGRAMS names others of compat-common.sh
# (t_cmtime, t_ucmatose, t_rdma_server) for a run by hand.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
if [ "${RDMACHAN_TRANSPORT:-}" != iwarp ]; then
	tap_plan 1
	tap_skip "$(basename "$0")" "the run is not on iWARP (make check-siw)"
	tap_done
	exit 0
fi
. "$here/compat-common.sh"

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

programs=${RDMACHAN_SIW_PROGRAMS:-t_rping}
# the stock pair, then per mode: both ends, server, client on rdmachan
modes=kernel
! bypass_offered || modes="kernel bypass"
nprog=$(echo "$programs" | wc -w)
nmodes=$(echo "$modes" | wc -w)
tap_plan $((nprog * (1 + 3 * nmodes)))
for prog in $programs; do
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
