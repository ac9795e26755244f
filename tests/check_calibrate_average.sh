#!/bin/sh
# mmsim calibrate --measured-dir with two invocations of each benchmark: the second a copy of
# data/measured's with every ops/s x 1.1, its name with a time (<date>-hhmmss.csv) beside the
# original's date-only name.  Each point must be their mean (x 1.05), and its sigma the one
# invocation's over sqrt(2); the timed file, later the same day, must be taken as the newest.
# Usage: check_calibrate_average.sh MMSIM SOURCE_DIR WORK_DIR
set -eu
mmsim=$1 src=$2 dir=$3/average
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/one" "$dir/two"
for p in page_fault1- populate-none-thpoff- populate-loop-thpon- populate-madv_populate_write-thpon- \
	populate-madv_populate_write-thpoff- populate-madv_populate_read-thpoff-; do
	f=$(ls "$src/data/measured/$p"*.csv | sort | tail -1)
	cp "$f" "$dir/one/"
	cp "$f" "$dir/two/"
	# the second invocation: ops/s (columns 2 and 4 of the data rows) x 1.1, measured later the
	# same day; named as mmsim validate names its files now (with the time), beside an older
	# date-only name
	second=$(basename "$f" .csv)-120000.csv
	awk -F, -v OFS=, '/^[0-9]/ { $2 = $2 * 1.1; $4 = $4 * 1.1 } { print }' "$f" >"$dir/two/$second"
	[ "$p" = page_fault1- ] && newest=$dir/two/$second
done
# --no-fit: the averaging is checked, not a fit (the points as a fit would take them)
"$mmsim" calibrate --no-fit --machine local --measured-dir "$dir/one" >"$dir/one.out" 2>&1 ||
	fail "one: $(tail -3 "$dir/one.out")"
"$mmsim" calibrate --no-fit --machine local --measured-dir "$dir/two" >"$dir/two.out" \
	2>"$dir/two.err" || fail "two: $(tail -3 "$dir/two.err")"
grep -q "and 1 more invocation(s), averaged" "$dir/two.err" || fail "the averaging is not said"
# the newest (which decides the points) is the one with the later time, not the date-only name
grep -qF "page_fault1_vma_lock: $newest and 1 more" "$dir/two.err" ||
	fail "$newest is not taken as the newest: $(grep 'page_fault1_vma_lock: ' "$dir/two.err")"
row() { grep -E "^  page_fault1_vma_lock +1 " "$1" | head -1; }
m1=$(row "$dir/one.out" | awk '{ print $3 }')
s1=$(row "$dir/one.out" | awk '{ print $4 }')
m2=$(row "$dir/two.out" | awk '{ print $3 }')
s2=$(row "$dir/two.out" | awk '{ print $4 }')
[ -n "$m1" ] && [ -n "$m2" ] || fail "no page_fault1 1-task row"
awk -v a="$m1" -v b="$m2" 'BEGIN { r = b / a; exit !(r > 1.0499 && r < 1.0501) }' ||
	fail "mean: $m2 is not 1.05 x $m1"
# sigma: rms of the two invocations' (each 'spread + 3%' of the same #run lines) / sqrt(2)
awk -v a="$s1" -v b="$s2" 'BEGIN { r = b / a; exit !(r > 0.66 && r < 0.76) }' ||
	fail "sigma: $s2 is not $s1 / sqrt(2)"
echo "ok: mean $m1 -> $m2, sigma $s1% -> $s2%"
