#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# qperf's RC latency test over the CM's connection (-cm1), which iWARP
# needs, on soft-iWARP, as siw_programs_test.sh runs the CM's own
# programs: against itself and the stock stack, in both modes.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/siw_programs_test.sh" t_qperf
