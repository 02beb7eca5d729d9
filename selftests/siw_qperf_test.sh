#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# qperf's RC tests over the CM's connections (-cm1), which iWARP needs, on
# soft-iWARP, as siw_programs_test.sh runs the CM's own programs: against
# themselves and the stock stack, in both modes.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/siw_programs_test.sh" t_qperf
