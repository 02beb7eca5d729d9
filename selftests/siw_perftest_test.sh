#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perftest's RC programs with the CM's connections (-R), which iWARP needs,
# on soft-iWARP, as siw_programs_test.sh runs the CM's own programs:
# against themselves and the stock stack, in both modes.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/siw_programs_test.sh" p_send_lat p_write_bw p_read_lat
