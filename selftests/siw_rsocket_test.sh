#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rsockets on soft-iWARP, where a message is a send rather than an RDMA
# write's immediate: Debian's rstream, riostream and rcopy, as
# siw_programs_test.sh runs the CM's programs: against themselves and the
# stock stack, in both modes.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/siw_programs_test.sh" p_rstream p_rstream_nonblocking p_riostream p_rcopy
