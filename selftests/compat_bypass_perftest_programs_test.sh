#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's unmodified perftest programs with their QPs made and connected
# by the CM (-R), in bypass mode (the only perftest runs whose QPs reach
# rdmachan's CM there): both ends on rdmachan, and against the stock stack
# both ways.
here=$(cd "$(dirname "$0")" && pwd)
RDMACHAN_MODE=bypass
export RDMACHAN_MODE
. "$here/tap.sh"
. "$here/compat-common.sh"
. "$here/perftest-common.sh"

cm="rdma_cm QPs[[:space:]]*: ON"

tap_plan 6
tap_test "ib_send_lat -R, both ends in bypass mode" perftest r r 18631 32 200 \
	"ib_send_lat -R -s 32 -n 200" "$cm"
tap_test "ib_write_bw -R, both ends in bypass mode" perftest r r 18632 4096 200 \
	"ib_write_bw -R -s 4096 -n 200" "$cm"
tap_test "ib_read_lat -R, both ends in bypass mode" perftest r r 18633 32 200 \
	"ib_read_lat -R -s 32 -n 200" "$cm"
tap_test "ib_send_bw UD -R, both ends in bypass mode" perftest r r 18634 1024 200 \
	"ib_send_bw -c UD -R -s 1024 -n 200" "Connection type : UD" "$cm"
tap_test "ib_send_lat -R, server in bypass mode, client on stock" perftest r s 18635 32 200 \
	"ib_send_lat -R -s 32 -n 200" "$cm"
tap_test "ib_send_lat -R, server on stock, client in bypass mode" perftest s r 18636 32 200 \
	"ib_send_lat -R -s 32 -n 200" "$cm"
tap_done
