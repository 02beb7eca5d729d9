# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by selftests/check and selftests/check-debug: counting results,
# building the module warning-free, running the suite in the test VM.
# Sourced from the top of the tree, after vm/common.sh.
pass=0 fail=0

getvar() {
	sed -n "s/^$2 := //p" "$1"
}

result() {
	if [ "$1" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok - $2"
	else
		fail=$((fail + 1))
		echo "not ok - $2"
	fi
}

# build_module KDIR DIR LOG: a full W=1 build of the module in DIR (which
# holds Kbuild, kmod/ and uapi/) against KDIR; fails on any warning.
build_module() {
	rm -f "$2"/kmod/*.o "$2"/rdmachan.o "$2"/rdmachan.ko
	make -s -C "$1" M="$2" W=1 modules >"$3" 2>&1
	bm_rc=$?
	bm_warnings=$(grep -c 'warning:' "$3")
	[ "$bm_warnings" -eq 0 ] || grep 'warning:' "$3" | sed 's/^/# /'
	[ $bm_rc -ne 0 ] && [ "$bm_warnings" -eq 0 ] && sed 's/^/# /' "$3" | tail -n 20
	[ $bm_rc -eq 0 ] && [ "$bm_warnings" -eq 0 ]
}

# add_counts LOG: adds LOG's closing "N passed, N failed" to the counts;
# fails when LOG has no such line
add_counts() {
	ac_summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)
	[ -n "$ac_summary" ] || return 1
	pass=$((pass + ${ac_summary%% passed*}))
	ac_failed=${ac_summary#* passed, }
	fail=$((fail + ${ac_failed%% failed}))
}

# run_suite LOGDIR JOB [VM/RUN OPTION...]: JOB (selftests/run-in-guest or
# a wrapper of it) in the test VM, its TAP on stdout and in
# LOGDIR/selftests.log; adds the suite's counts, then checks the guest's
# kernel log and that the VM finished. With $suite_label set, each
# result's name starts with it.
run_suite() {
	rs_logdir=$1
	rs_job=$2
	shift 2
	mkdir -p "$rs_logdir"
	{
		vm/run --logdir "$rs_logdir" "$@" -- "$rs_job"
		echo $? >"$rs_logdir/run-status"
	} | sed "s/^\(\(not \)\{0,1\}ok [0-9]* \)/\1${suite_label:+$suite_label: }/" |
		tee "$rs_logdir/selftests.log"
	suite_results "$rs_logdir" "$suite_label"
}

# start_suite_shards LOGDIR N JOB [VM/RUN OPTION...]: as run_suite, with
# the programs dealt by their expected time over N test VMs side by side
# (JOB --shard I/N, logs in LOGDIR/shard-I), started in the background:
# most programs wait on the CM, rxe or a timer rather than compute, so one
# guest leaves the host's cores partly idle. finish_suite_shards LOGDIR N
# waits for them and prints and counts each shard's TAP, one after the
# other.
start_suite_shards() {
	ss_logdir=$1
	ss_n=$2
	ss_job=$3
	shift 3
	ss_i=1
	while [ "$ss_i" -le "$ss_n" ]; do
		ss_dir=$ss_logdir/shard-$ss_i
		mkdir -p "$ss_dir"
		rm -f "$ss_dir/run-status"
		{
			vm/run --logdir "$ss_dir" "$@" -- "$ss_job" --shard "$ss_i/$ss_n" \
				>"$ss_dir/selftests.raw" 2>&1
			echo $? >"$ss_dir/run-status"
		} &
		ss_i=$((ss_i + 1))
	done
}

finish_suite_shards() {
	fs_i=1
	while [ "$fs_i" -le "$2" ]; do
		fs_dir=$1/shard-$fs_i
		while [ ! -s "$fs_dir/run-status" ]; do
			sleep 2
		done
		fs_label="${suite_label:+$suite_label }shard $fs_i/$2"
		sed "s|^\(\(not \)\{0,1\}ok [0-9]* \)|\1$fs_label: |" "$fs_dir/selftests.raw" |
			tee "$fs_dir/selftests.log"
		suite_results "$fs_dir" "$fs_label"
		fs_i=$((fs_i + 1))
	done
}

# suite_results LOGDIR LABEL: counts a finished suite run in LOGDIR and
# checks its guest's kernel log and exit.
suite_results() {
	sr_rc=$(cat "$1/run-status")
	if ! add_counts "$1/selftests.log"; then
		echo "# the guest did not finish the suite (vm/run exit $sr_rc)"
		fail=$((fail + 1))
	fi
	grep -q 'kernel_log=clean' "$1/verdict" 2>/dev/null
	result $? "${2:+$2: }guest kernel log has no oops, BUG, WARN, hung task or lockdep report"
	[ "$sr_rc" -eq 0 ] || [ "$sr_rc" -eq 1 ] || [ "$sr_rc" -eq 125 ]
	result $? "${2:+$2: }test VM ran to the end (vm/run exit $sr_rc)"
}

# build_debug_module LOG [DIR]: the module, with W=1, against the cached
# debug kernel (vm/build-debug-kernel), in DIR (build/debug-module/) so the
# stock build in the tree is left alone. Runs that may overlap (make fuzz
# beside make check-debug) each use a DIR of their own: it is remade here.
build_debug_module() {
	bdm_kdir=$(getvar "$CACHE/debug-kernel/env.mk" DEBUG_KDIR)
	bdm_dir=$(pwd)/${2:-build/debug-module}
	rm -rf "$bdm_dir"
	mkdir -p "$bdm_dir"
	cp -r Kbuild kmod uapi "$bdm_dir/"
	rm -f "$bdm_dir"/kmod/*.o "$bdm_dir"/kmod/.*.cmd
	build_module "$bdm_kdir" "$bdm_dir" "$1"
}

# fuzz_figures LOG: the closing figures of the fuzzer's run in the suite.
fuzz_figures() {
	ff=$(sed -n 's/^# *\(rdmachan-fuzz: \([0-9]* calls in\|faults injected:\|kernel faults injected:\|kills survived:\|errors found:\|live objects after:\|verdict:\)\)/\1/p' "$1")
	[ -n "$ff" ] || return 0
	echo "# the fuzzer's run:"
	echo "$ff" | sed 's/^/#   /'
}

summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
