#!/bin/sh
# mmsim reproduce seeds --format csv --no-sensitivity: every published seed
# number has a row, and the bars of issue 3 hold.  The bars are worked out from
# the predicted column; the published values are only compared with, never
# used as input.  The sensitivity section (about 800 more simulations, 97% of
# the command's time) is left out: test_reproduce checks which numbers it
# varies, and that a change of one reaches the simulation.
#   check_reproduce.sh MMSIM SOURCE_DIR [KEEP.csv]
# KEEP.csv: the CSV is also written there (the paper's generator test reuses it).
set -u
mmsim=$1
src=$2
out=$("$mmsim" reproduce seeds --format csv --no-sensitivity 2>/dev/null) || { echo "FAIL: mmsim reproduce seeds failed"; exit 1; }
if [ $# -ge 3 ]; then
	printf '%s\n' "$out" >"$3.tmp" && mv "$3.tmp" "$3" || { echo "FAIL: cannot write $3"; exit 1; }
fi
fail=0
# every id of the reference file has its row
for id in $(grep -v '^#' "$src/data/reference/seed_measurements.csv" | cut -d, -f1); do
	printf '%s\n' "$out" | grep -q "^seed_measurements,$id," || { echo "FAIL: no row for $id"; fail=1; }
done
n=$(grep -v '^#' "$src/data/reference/madv_populate_seed003.csv" | grep -c '^[0-9]')
m=$(printf '%s\n' "$out" | grep -c '^madv_populate_seed003,.*,\(predicted\|fitted\),')
[ "$n" = "$m" ] || { echo "FAIL: seed 003 has $n published numbers, the output $m predicted or fitted rows"; fail=1; }
# seed 001's profile: every kernel of the reference file has rows
for k in before after; do
	printf '%s\n' "$out" | grep -q "^seed001_profile,$k/" || { echo "FAIL: no seed001_profile row for $k"; fail=1; }
done
printf '%s\n' "$out" | awk -F, '
	function pred(id) { return p[id] + 0 }
	$1 == "seed_measurements" { p[$2] = $8; meas[$2] = $7 }
	$1 == "seed003_ratio" { r[$2] = $9; role[$2] = $10 }
	$1 == "seed001_profile" { prof[$2] = $8 }
	$1 == "seed003_summary" && $2 == "ratios_within_25pct" { counted = $7; within = $8 }
	$1 == "seed003_statement" && $2 ~ / faster than / && $2 !~ / no faster than / { faster++; if ($11 ~ /^"?right/) faster_right++ }
	$1 == "sensitivity" { sens[$3]++ }
	function bar(name, v, lo, hi) {
		ok = v >= lo && v <= hi
		printf "%s %s = %.3f (bar %g..%g)\n", ok ? "ok:  " : "FAIL:", name, v, lo, hi
		if (!ok) bad = 1
	}
	END {
		loop = pred("pop-3.6.11-loop")
		bar("seed 004 write_locked/loop (3.6.11)", pred("pop-3.6.11-mmap") / loop, 1.16, 2.47)
		bar("seed 004 read_4k/loop (3.7.1 + series)", pred("pop-3.7.1series-mmap") / loop, 0.95, 1.40)
		bar("seed 004 none/loop", pred("pop-3.6.11-none") / loop, 0, 0.01)
		bar("seed 001 page_fault4 vma_lock/mmap_lock gain %", (pred("pf4-after") / pred("pf4-before") - 1) * 100, 5, 25)
		bar("seed 001 before, predicted/published", pred("pf4-before") / meas["pf4-before"], 0.5, 2)
		bar("seed 001 after, predicted/published", pred("pf4-after") / meas["pf4-after"], 0.5, 2)
		if (!("after/down_read" in prof)) { print "FAIL: no seed001_profile row after/down_read"; bad = 1 }
		bar("seed 001 after, on-CPU mmap_lock share %", prof["after/down_read"] + 0, 0, 5)
		bar("seed 001 before, on-CPU mmap_lock share %", prof["before/down_read_trylock+down_read+up_read+find_vma"] + 0, 25, 60)
		A = "/MAP_PRIVATE/Anonymous/"
		bar("seed 003 Read/POPULATE_READ 128 MiB private anonymous error %", r["128" A "Read/POPULATE_READ"], -20, 20)
		bar("seed 003 Write/POPULATE_WRITE 128 MiB private anonymous error %", r["128" A "Write/POPULATE_WRITE"], -20, 20)
		bar("seed 003 Write/POPULATE_WRITE 4096 MiB private anonymous error %", r["4096" A "Write/POPULATE_WRITE"], -20, 20)
		if (role["4096" A "Read/POPULATE_READ"] != "fitted") { print "FAIL: the fitted pair is not marked fitted"; bad = 1 }
		if (role["128" A "Read/POPULATE_READ"] != "predicted") { print "FAIL: 128 MiB is not marked predicted"; bad = 1 }
		# issue 18: the ratios within each backing within 25% on at least 80% of the predicted ones
		bar("seed 003 predicted ratios within 25% (share)", within / counted, 0.8, 1)
		# and every published "X is faster than Y" right
		if (faster == 0 || faster_right != faster) { printf "FAIL: seed 003 statements X faster than Y: %d of %d right\n", faster_right, faster; bad = 1 }
		else printf "ok:   seed 003 statements X faster than Y: %d of %d right\n", faster_right, faster
		nv = 0
		for (v in sens) nv++
		if (nv) { printf "FAIL: sensitivity rows for %d points with --no-sensitivity\n", nv; bad = 1 }
		exit bad
	}' || fail=1
exit $fail
