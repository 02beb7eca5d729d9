#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A short run of the ioctl fuzzer (build/bin/rdmachan-fuzz) as one test:
# RDMACHAN_FUZZ_SECONDS long (default 20; vm/debug-suite makes it 180),
# with the seed RDMACHAN_FUZZ_SEED (default: from the clock, printed) and
# fail-nth kernel faults in RDMACHAN_FUZZ_KFAULT percent of the calls
# (default 10) where the kernel has fault injection. It fails on any
# check the fuzzer makes, a hang, or a leaked object; its closing figures
# are what make check and make check-debug print at the end. Then the
# rsocket fuzzer (build/bin/rdmachan-rsocket-fuzz: random rsocket(7) calls
# through librdmachan, half the time in each mode) for as long, with the
# same seed: it fails on an errno no socket call gives, a hang, or an
# object or descriptor left behind.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
fuzz=$here/../build/bin/rdmachan-fuzz
rsocket_fuzz=$here/../build/bin/rdmachan-rsocket-fuzz

run_fuzz() {
	[ -x "$fuzz" ] || { echo "# $fuzz is not built"; return 1; }
	set -- -t "${RDMACHAN_FUZZ_SECONDS:-20}" -F "${RDMACHAN_FUZZ_KFAULT:-10}"
	[ -z "$RDMACHAN_FUZZ_SEED" ] || set -- "$@" -s "$RDMACHAN_FUZZ_SEED"
	"$fuzz" "$@"
}

run_rsocket_fuzz() {
	[ -x "$rsocket_fuzz" ] || { echo "# $rsocket_fuzz is not built"; return 1; }
	set -- -t "${RDMACHAN_FUZZ_SECONDS:-20}"
	[ -z "$RDMACHAN_FUZZ_SEED" ] || set -- "$@" -s "$RDMACHAN_FUZZ_SEED"
	"$rsocket_fuzz" "$@"
}

tap_plan 2
tap_test fuzz run_fuzz
tap_test "rsocket fuzz" run_rsocket_fuzz
tap_done
