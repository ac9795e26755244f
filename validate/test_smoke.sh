#!/bin/sh
# Smoke test of one wis benchmark: run it, then check that the CSV has the
# metadata, the will-it-scale header and a positive number per mode.
# Usage: test_smoke.sh BINARY OUT.csv [benchmark options...]
# A benchmark that cannot run here must print "skipped: <reason>", no
# number and no CSV, and exit 77; this script then exits 77 too.
set -u
bin=$1
out=$2
shift 2
rm -f "$out"
stdout=$("$bin" --mode both --time-limit 50 --out "$out" "$@")
rc=$?
if [ $rc -eq 77 ]; then
	case $stdout in
	"skipped: "*) ;;
	*) echo "FAIL: exit 77 without a 'skipped: <reason>' line: $stdout"; exit 1 ;;
	esac
	if [ "$(printf '%s\n' "$stdout" | wc -l)" -ne 1 ]; then
		echo "FAIL: a skipped benchmark printed more than its reason"; exit 1
	fi
	if [ -e "$out" ]; then
		echo "FAIL: a skipped benchmark wrote $out"; exit 1
	fi
	echo "ok (skipped as it must be here): $stdout"
	exit 77
fi
if [ $rc -ne 0 ]; then
	echo "FAIL: $bin exited $rc"; exit 1
fi
for key in "# wis " "# op: " "# result: " "# idle: " "# date: " "# kernel: " \
	   "# config: " "# thp: " "# cpu: " "# virtual_machine: " "# topology: " \
	   "# placement: " "# memory: " "# command: " "#run mode=processes tasks=1 " \
	   "#run mode=threads tasks=1 "; do
	if ! grep -q "^$key" "$out"; then
		echo "FAIL: $out lacks a '$key' line"; exit 1
	fi
done
hdr=$(grep -v '^#' "$out" | head -n 1)
if [ "$hdr" != "tasks,processes,processes_idle,threads,threads_idle,linear" ]; then
	echo "FAIL: bad header '$hdr'"; exit 1
fi
grep -v '^#' "$out" | awk -F, '
	NR == 1 { next }
	$1 == 1 { rows++
		  if (!($2 > 0) || !($4 > 0)) { print "FAIL: non-positive result: " $0; bad = 1 }
		  # idle is a percentage, or -1 when the window held too few /proc/stat ticks to measure
		  # it (wis.c, WIS_MIN_IDLE_TICKS): a short point of a fast benchmark
		  if (($3 < 0 && $3 != -1) || $3 > 100 || ($5 < 0 && $5 != -1) || $5 > 100) {
			  print "FAIL: idle out of range: " $0; bad = 1 } }
	END { if (rows != 1) { print "FAIL: expected one row for 1 task"; exit 1 }
	      exit bad }' || exit 1
echo "ok: $(grep -v '^#' "$out" | tail -n 1)"
