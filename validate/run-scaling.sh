#!/bin/sh
# run-scaling.sh: run every validate/ benchmark at 1, 2, 4, 8 and 16 tasks
# (capped at the CPUs this shell may use), processes then threads, with
# per-op perf counts, and leave all CSVs in one folder.  Made for a
# bigger machine; the whole run stays within 10 minutes.
#
# Usage: validate/run-scaling.sh OUTDIR [BUILD_DIR]
#   BUILD_DIR: an existing build tree holding validate/wis_* (or the
#   binaries directly).  Without it the script builds build-validate/ with
#   cmake, and if the root project does not configure, compiles the
#   benchmarks with gcc into OUTDIR/bin.
# Environment: BUDGET_S (default 570) total seconds for the runs.
# A CSV already in OUTDIR is kept: its benchmark refuses to run (exit 2).
set -u

die() { echo "run-scaling: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: $0 OUTDIR [BUILD_DIR]"
out=$1
build=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
budget=${BUDGET_S:-570}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
log=$out/run.log
# SIGINT/TERM/HUP to this script (not only to its process group) stops the benchmark running, which
# cleans up after itself: it runs in the background and the script waits for it, so that the trap
# runs at once
child=
on_signal() {
	trap - INT TERM HUP
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
	exit 143
}
trap on_signal INT TERM HUP
: >"$log"
t_start=$(date +%s)

# --- binaries -------------------------------------------------------------
benches="page_fault1 page_fault2 page_fault3 page_fault4 mmap1 mmap2 populate pin_fast"
bindir=
find_bins() {
	for d in "$1/validate" "$1"; do
		if [ -x "$d/wis_page_fault1" ] && [ -x "$d/wis_populate" ]; then
			bindir=$d
			return 0
		fi
	done
	return 1
}
if [ -n "$build" ]; then
	find_bins "$build" || die "no wis_* binaries under $build"
else
	build=$root/build-validate
	echo "building in $build ..."
	if cmake -S "$root" -B "$build" -DBUILD_TESTING=OFF >>"$log" 2>&1 &&
	   cmake --build "$build" -j"$(nproc)" --target $(for b in $benches; do printf 'wis_%s ' "$b"; done) >>"$log" 2>&1; then
		find_bins "$build" || die "build finished but binaries are missing"
	else
		echo "cmake build of the root project failed (see $log); compiling validate/ with gcc"
		mkdir -p "$out/bin"
		for b in $benches; do
			gcc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
				-Wno-unused-parameter $(pkg-config --cflags hwloc) \
				"$here/wis.c" "$here/$b.c" -o "$out/bin/wis_$b" \
				$(pkg-config --libs hwloc) -lpthread -lm >>"$log" 2>&1 ||
				die "gcc failed for $b (see $log)"
		done
		bindir=$out/bin
	fi
fi

. "$here/tmpdir.sh"
use_shm_tmpdir 16
# --- plan -------------------------------------------------------------------
ncpu=$(nproc)
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
tasks=
for n in 1 2 4 8 16; do
	[ "$n" -le "$ncpu" ] && tasks="$tasks${tasks:+,}$n"
done
# populate maps 640 MiB per task; keep within the default 0.25 x MemTotal.
pop_tasks=
for n in $(echo "$tasks" | tr , ' '); do
	[ $((n * 640 * 1024)) -le $((mem_kb / 4)) ] && pop_tasks="$pop_tasks${pop_tasks:+,}$n"
done
npoints=$(echo "$tasks" | tr , '\n' | wc -l)
npop=$(echo "$pop_tasks" | tr , '\n' | grep -c .)

warmup=1
duration=2
pop_rounds=3
# Rough cost model (seconds): rate point = warmup + duration + 1.5 (start,
# counts); populate point = (rounds + 1) x 0.6 + 1.5.
rate_est=$(awk -v n="$npoints" -v w=$warmup -v d=$duration 'BEGIN { printf "%d", 7 * 2 * n * (w + d + 1.5) }')
pop_est=$(awk -v n="$npop" -v r=$pop_rounds 'BEGIN { printf "%d", 9 * 2 * n * ((r + 1) * 0.6 + 1.5) }')
if [ $((rate_est + pop_est)) -gt "$budget" ]; then
	duration=1
	pop_rounds=2
	rate_est=$(awk -v n="$npoints" -v w=$warmup -v d=$duration 'BEGIN { printf "%d", 7 * 2 * n * (w + d + 1.5) }')
	pop_est=$(awk -v n="$npop" -v r=$pop_rounds 'BEGIN { printf "%d", 9 * 2 * n * ((r + 1) * 0.6 + 1.5) }')
fi

{
	echo "run-scaling plan ($(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n), $ncpu CPUs, MemTotal $mem_kb kB)"
	echo "  binaries:      $bindir"
	echo "  output:        $out"
	echo "  task counts:   $tasks (populate: ${pop_tasks:-none fit in 0.25 x MemTotal})"
	echo "  modes:         processes then threads at each task count"
	echo "  rate benchmarks (page_fault1..4, mmap1, mmap2, pin_fast): --warmup $warmup --duration $duration --counts"
	echo "  populate: methods loop map_populate madv_populate_write madv_populate_read x thp off/on, and none,"
	echo "            one warm-up round + $pop_rounds measured rounds, --counts"
	echo "  estimate:      ${rate_est} s rate + ${pop_est} s populate; hard budget ${budget} s (later runs are skipped, not cut, when it is spent)"
} | tee "$out/plan.txt"

# --- runs ---------------------------------------------------------------------
failures=0
run_one() {		# name estimate_s binary args...
	name=$1
	est=$2
	bin=$3
	shift 3
	now=$(date +%s)
	left=$((budget - (now - t_start)))
	if [ "$left" -lt "$est" ]; then
		echo "skipped: $name: ${left}s of the budget left, needs about ${est}s" | tee -a "$log"
		return
	fi
	limit=$((est * 3 + 10))
	[ "$limit" -gt "$left" ] && limit=$left
	echo "== $name ($*)" | tee -a "$log"
	"$bindir/$bin" "$@" --counts --time-limit "$limit" --out "$out/$name.csv" \
		>>"$log" 2>&1 &
	child=$!
	wait "$child"
	rc=$?
	child=
	case $rc in
	0) grep -v '^#' "$out/$name.csv" | sed 's/^/   /' ;;
	77) echo "   $(tail -n 1 "$log")" ;;
	3) echo "   stopped by its time limit; partial CSV kept"; failures=$((failures + 1)) ;;
	2) echo "   refused (exit 2: an existing $name.csv is kept, or see $log)"; failures=$((failures + 1)) ;;
	*) echo "   FAILED with exit $rc (see $log)"; failures=$((failures + 1)) ;;
	esac
}

rate_point=$(awk -v w=$warmup -v d=$duration 'BEGIN { printf "%d", 2 * (w + d + 1.5) + 1 }')
pop_point=$(awk -v r=$pop_rounds 'BEGIN { printf "%d", 2 * ((r + 1) * 0.6 + 1.5) + 1 }')

for b in page_fault1 page_fault4 mmap1; do
	run_one "$b" $((rate_point * npoints)) "wis_$b" --mode both --tasks "$tasks" \
		--warmup $warmup --duration $duration
done
if [ -n "$pop_tasks" ]; then
	for thp in off on; do
		for m in loop map_populate madv_populate_write madv_populate_read none; do
			# "none" maps without populating: THP cannot matter.
			[ $m = none ] && [ $thp = on ] && continue
			run_one "populate-$m-thp$thp" $((pop_point * npop)) wis_populate \
				--method $m --thp $thp --mode both --tasks "$pop_tasks" \
				--warmup 0.001 --rounds $pop_rounds
		done
	done
else
	echo "skipped: populate: 640 MiB per task does not fit in 0.25 x MemTotal" | tee -a "$log"
fi
for b in page_fault2 page_fault3 mmap2 pin_fast; do
	run_one "$b" $((rate_point * npoints)) "wis_$b" --mode both --tasks "$tasks" \
		--warmup $warmup --duration $duration
done

t_end=$(date +%s)
echo "done in $((t_end - t_start)) s; CSVs in $out; log in $log; $failures run(s) failed"
[ "$failures" -eq 0 ]
