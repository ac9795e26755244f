#!/bin/sh
# Does the harness measure what a plain loop measures?  Runs
# wis_page_fault1 at 1 thread for 2 s, then check_independent for 2 s,
# and requires ns per fault to agree within TOL percent.  Other load on a
# small shared VM can disturb one pair of runs, so up to 3 pairs are
# tried; every pair is printed, and one agreeing pair passes.  A harness
# that is systematically off fails all three.
# Usage: test_agreement.sh WIS_PAGE_FAULT1 CHECK_INDEPENDENT TOL_PCT
set -u
wis=$1
chk=$2
tol=$3
csv=$(mktemp "${TMPDIR:-/tmp}/wis-agree.XXXXXX")
trap 'rm -f "$csv"' EXIT
for attempt in 1 2 3; do
	"$wis" --mode threads --tasks 1 --duration 2 --warmup 1 --time-limit 30 \
		--out "$csv" 2>/dev/null || { echo "FAIL: $wis failed"; exit 1; }
	ops=$(grep -v '^#' "$csv" | awk -F, '$1 == 1 { print $4 }')
	idle=$(grep -v '^#' "$csv" | awk -F, '$1 == 1 { print $5 }')
	line=$("$chk" --seconds 2) || { echo "FAIL: $chk failed"; exit 1; }
	ns_chk=$(printf '%s\n' "$line" | sed -n 's/.*ns_per_fault=\([0-9.]*\).*/\1/p')
	echo "attempt $attempt: wis_page_fault1 $ops ops/s at 1 thread (machine idle $idle%); check_independent: $line"
	if awk -v ops="$ops" -v chk="$ns_chk" -v tol="$tol" 'BEGIN {
		if (!(ops > 0) || !(chk > 0)) { print "  missing numbers"; exit 1 }
		wis = 1e9 / ops
		d = 100 * (wis - chk) / chk
		printf "  ns per fault: harness %.1f, independent %.1f, difference %+.1f%% (tolerance %s%%)\n", wis, chk, d, tol
		exit (d > tol || d < -tol) }'; then
		echo "ok"
		exit 0
	fi
done
echo "FAIL: harness and independent check disagree in 3 attempts"
exit 1
