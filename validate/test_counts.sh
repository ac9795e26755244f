#!/bin/sh
# --counts: with perf and the tracepoints, page_fault1 must show about one
# user page fault per op; without them the CSV must say "unavailable".
set -u
bin=$1
out=$2
rm -f "$out"
"$bin" --mode threads --tasks 1 --duration 1 --warmup 0 --counts --time-limit 50 --out "$out" || {
	echo "FAIL: $bin --counts failed"; exit 1; }
if grep -q '^#counts .*unavailable' "$out"; then
	grep '^# counts: \|^#counts ' "$out"
	echo "ok: counts reported as unavailable"
	exit 0
fi
line=$(grep '^#counts mode=threads tasks=1 ' "$out") || { echo "FAIL: no #counts line"; exit 1; }
echo "$line"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^faults_per_op=/) { split($i, a, "="); f = a[2] } }
	END { if (f < 0.95 || f > 1.05) { print "FAIL: faults_per_op " f " is not about 1"; exit 1 }
	      print "ok: faults_per_op " f }'
