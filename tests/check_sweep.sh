#!/bin/sh
# mmsim sweep and mmsim merge (src/sweep_cmd.c):
#   check_sweep.sh MMSIM WORKDIR bytes    the points run here (mmsim sweep FILE) and run one by one
#                                         from --emit-jobs's lines (GNU parallel, else sh), then
#                                         merged: the same bytes, as table, CSV and JSON; and each
#                                         run's table is what mmsim run prints for it
#   check_sweep.sh MMSIM WORKDIR extras   the same with --seeds, sensitivity, mode both and a
#                                         kernel file
#   check_sweep.sh MMSIM WORKDIR errors   a malformed sweep file (FILE:LINE:COL), a missing point, a
#                                         point twice, a point of another sweep, an existing
#                                         output, --max-work: an error, nothing on stdout
set -u
mmsim=$1
dir=$2/sweep_$3
rm -rf "$dir"
mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
fail=0

# run_points LINES: every line of --emit-jobs, two at a time
run_points() {
	if command -v parallel >/dev/null 2>&1; then
		parallel --will-cite -j2 --halt now,fail=1 <"$1" || { echo "FAIL: a point failed under GNU parallel"; exit 1; }
	else
		echo "note: GNU parallel is not installed (scripts/deps.sh installs it): the lines run with sh"
		sh -e "$1" || { echo "FAIL: a point failed"; exit 1; }
	fi
}

# same_bytes FILE: mmsim sweep FILE and the merge of its points, in every format
same_bytes() {
	"$mmsim" sweep "$1" --emit-jobs --out points >jobs.txt || { echo "FAIL: --emit-jobs"; exit 1; }
	n=$(wc -l <jobs.txt)
	echo "$1: $n points"
	run_points jobs.txt
	m=$(ls points | wc -l)
	[ "$m" -eq "$n" ] || { echo "FAIL: $n lines made $m files"; fail=1; }
	for f in $2; do
		"$mmsim" sweep "$1" --format "$f" >"here.$f" 2>/dev/null || { echo "FAIL: mmsim sweep --format $f"; exit 1; }
		"$mmsim" merge points --format "$f" >"merged.$f" || { echo "FAIL: mmsim merge --format $f"; exit 1; }
		if [ -s "here.$f" ] && cmp "here.$f" "merged.$f"; then
			echo "ok:   $f: mmsim sweep and the merge of $n points are the same $(wc -c <"here.$f") bytes"
		else
			echo "FAIL: $f: mmsim sweep and mmsim merge differ"
			fail=1
		fi
	done
	"$mmsim" merge --sweep "$1" points/*.json >merged2.table || { echo "FAIL: merge --sweep FILE"; fail=1; }
	[ "$fail" -ne 0 ] || cmp here.table merged2.table || { echo "FAIL: merge --sweep differs"; fail=1; }
}

# run_block N: the table of run N of here.table, without its '# run' line
run_block() {
	awk -v n="$1" '/^# run [0-9]+ of/ { r++; skip = 1 } r == n && !skip { print } { skip = 0 }' here.table |
		sed -e '${/^$/d}'
}

case $3 in
bytes)
	cat >s.sweep <<'EOF'
# 2 machines x 2 variants x 3 task counts (and the one-task point) x 2 seeds
machine nehalem-i7-920, amd-2s-128c
scenario has_pinned_write,has_pinned_check
tasks 2,4,8
seed 1-2
events 20000
EOF
	same_bytes s.sweep "table csv json"
	# run 3 is amd-2s-128c under seed 1: what mmsim run prints for it
	"$mmsim" --machine amd-2s-128c --scenario has_pinned_write,has_pinned_check --tasks 2,4,8 --events 20000 \
		>run3.table
	run_block 3 >block3.table
	cmp block3.table run3.table && echo "ok:   run 3's table is mmsim run's" ||
		{ echo "FAIL: run 3's table is not what mmsim run prints"; fail=1; }
	# machine and kernel items too long for a run's name: the seed comes first and both are
	# shortened, so that runs that differ only in their seed still read apart
	long=$(printf 'k%.0s' $(seq 200))
	mkdir -p "$long" && printf '[kernel]\nbase = linux-6.8\n' >"$long/$long.conf" &&
		cp "$(dirname "$0")/../data/machines/generic.conf" "$long/m$long.conf" ||
		{ echo "FAIL: cannot write the long-named profiles"; fail=1; }
	printf 'machine %s\nscenario page_fault2_vma_lock\nkernel %s\ntasks 1\ncores 4\nseed 1-2\nevents 20000\n' \
		"$PWD/$long/m$long.conf" "$PWD/$long/$long.conf" >long.sweep
	out=$("$mmsim" sweep long.sweep 2>&1)
	printf '%s\n' "$out" | grep -q '^# run 1 of 2: seed 1, machine .*\.\.\., kernel .*\.\.\.$' &&
		printf '%s\n' "$out" | grep -q '^# run 2 of 2: seed 2, machine ' &&
		echo "ok:   long machine and kernel items: each run named with its seed" ||
		{ echo "FAIL: long items: $(printf '%s\n' "$out" | grep '^# run' | cut -c1-80)"; fail=1; }
	;;
extras)
	cat >k2.conf <<'EOF'
# a kernel for the test: linux-5.11 with a slower pin
[kernel]
# [assumed] test
name = k2
# [assumed] every entry not set here is linux-5.11's
base = linux-5.11
[costs]
# [assumed] test: twice linux-5.11's
gup_fast_walk = 140
EOF
	cat >s.sweep <<'EOF'
machine nehalem-i7-920
kernel linux-5.11,k2.conf
scenario has_pinned_check
tasks 2
mode both
seeds 2
seed 3
events 20000
sensitivity        # every unmeasured number at 0.5x and 2x: points of their own
EOF
	same_bytes s.sweep table
	"$mmsim" --machine nehalem-i7-920 --kernel k2.conf --scenario has_pinned_check --tasks 2 --mode both \
		--seeds 2 --seed 3 --events 20000 --sensitivity >run2.table
	run_block 2 >block2.table
	cmp block2.table run2.table && echo "ok:   run 2's table (sensitivity, seeds) is mmsim run's" ||
		{ echo "FAIL: run 2's table is not what mmsim run prints"; fail=1; }
	;;
errors)
	# expect_error PATTERN CMD...: a non-zero status (not a crash), PATTERN in stderr, no stdout
	expect_error() {
		pat=$1
		shift
		"$@" >out.txt 2>err.txt
		rc=$?
		if [ "$rc" -eq 0 ] || [ "$rc" -gt 125 ] || [ -s out.txt ] || ! grep -E -q -e "$pat" err.txt; then
			echo "FAIL: $* (status $rc): expected an error matching '$pat' and no output; got:"
			cat err.txt out.txt
			fail=1
		else
			echo "ok:   $(cat err.txt)"
		fi
	}
	printf 'machine nehalem-i7-920\nscenario has_pinned_write\ntasks 1,2 3\n' >bad.sweep
	expect_error "^mmsim: bad\\.sweep:3:9: '2 3': one value per item" "$mmsim" sweep bad.sweep
	printf 'machine nehalem-i7-920\n# a comment\nscenario has_pinned_write\nthreads 4\n' >bad.sweep
	expect_error "^mmsim: bad\\.sweep:4:1: unknown key 'threads'" "$mmsim" sweep bad.sweep --emit-jobs
	printf 'machine nehalem-i7-920,no-such-machine\nscenario has_pinned_write\n' >bad.sweep
	expect_error "^mmsim: bad\\.sweep:1:24: unknown machine profile 'no-such-machine'" "$mmsim" sweep bad.sweep
	printf 'machine nehalem-i7-920\nscenario has_pinned_write\ntasks 4,16\n' >bad.sweep
	expect_error "^mmsim: bad\\.sweep:3:9: 16 tasks, but machine nehalem-i7-920 has 8 logical CPUs" \
		"$mmsim" sweep bad.sweep
	printf 'scenario has_pinned_write\nseed 1-20000\n' >bad.sweep
	expect_error "^mmsim: bad\\.sweep:2:6: '1-20000': more seeds than a sweep may have points" \
		"$mmsim" sweep bad.sweep
	printf 'machine nehalem-i7-920\nscenario has_pinned_write\ntasks 1,2,4,8\nseed 1-4\n' >big.sweep
	expect_error "^mmsim: big\\.sweep: this sweep would simulate about .* more than --max-work 1e\\+06" \
		"$mmsim" sweep big.sweep --max-work 1e6
	expect_error "^mmsim: big\\.sweep: point 3 \\(.*8 tasks\\) would simulate about .* more than --max-work 100000" \
		"$mmsim" sweep big.sweep --emit-jobs --max-work 1e5
	# more seeds than a list may have items: the sweep text a point carries still reads back
	printf 'machine nehalem-i7-920\nscenario has_pinned_write\ntasks 1\nevents 2000\nseed 1-70\n' >seeds.sweep
	"$mmsim" sweep seeds.sweep --job 0 --out seedpts 2>/dev/null || { echo "FAIL: --job 0 of seeds.sweep"; exit 1; }
	expect_error "^mmsim: merge: 69 of the 70 points of seedpts/0\\.json \\(its sweep_text\\) have no result" \
		"$mmsim" merge seedpts
	# the points of a small sweep, and of another one
	printf 'machine nehalem-i7-920\nscenario has_pinned_write\ntasks 1,2\n' >s.sweep
	printf 'machine nehalem-i7-920\nscenario has_pinned_write\ntasks 1,2\nseed 2\n' >other.sweep
	"$mmsim" sweep s.sweep --emit-jobs --out points >jobs.txt && sh -e jobs.txt ||
		{ echo "FAIL: the points"; exit 1; }
	"$mmsim" sweep other.sweep --job 0 >other.json || { echo "FAIL: --job 0 to stdout"; exit 1; }
	expect_error "^mmsim: --out points/1\\.json exists: not overwritten" "$mmsim" sweep s.sweep --job 1 --out points
	expect_error "^mmsim: --job '2': expected a point of s\\.sweep, 0 to 1" "$mmsim" sweep s.sweep --job 2
	expect_error "^mmsim: other\\.json: a point of another sweep" "$mmsim" merge points other.json
	expect_error "^mmsim: points/0\\.json: a point of another sweep .* from other\\.sweep" \
		"$mmsim" merge --sweep other.sweep points
	cp points/1.json again.json
	expect_error "^mmsim: again\\.json: point 1 again \\(already in points/1\\.json\\)" "$mmsim" merge points again.json
	head -c 300 points/1.json >cut.json
	expect_error "^mmsim: cut\\.json:[0-9]+:[0-9]+: expected " "$mmsim" merge points/0.json cut.json
	rm points/1.json
	expect_error "^mmsim: merge: 1 of the 2 points of .* have no result .* point 1 \\(run 1 of 1: machine nehalem-i7-920, .*has_pinned_write, threads, 2 tasks\\)" \
		"$mmsim" merge points
	;;
*)
	echo "check_sweep.sh: unknown case '$3'"
	exit 2
	;;
esac
exit $fail
