#!/bin/sh
# Tests of mmsim-measure, run by ctest (calibrate/CMakeLists.txt):
#   test_measure.sh quick    MEASURE CONF CSV   a --quick run: exit 0, well-formed figures
#   test_measure.sh check    CSV CONF           those checks alone, on a given CSV and profile
#   test_measure.sh accepted MMSIM CONF         mmsim accepts the profile it wrote
#   test_measure.sh badargs  MEASURE PREFIX     bad arguments: clear error, non-zero exit, no file
mode=$1
shift

fail() {
  echo "FAIL: $*"
  exit 1
}

# figures_or_reason WHAT Q...: every figure Q in $csv, or none of them and mmsim-measure's line on
# $conf.stderr saying why the WHAT figures are left out
figures_or_reason() {
  what=$1
  shift
  if grep -q "^mmsim-measure: the $what figures are left out: " "$conf.stderr"; then
    for q in "$@"; do
      grep -q "^$q," "$csv" && fail "$q in $csv, though its figures were said to be left out"
    done
  else
    for q in "$@"; do
      grep -q "^$q,[0-9.e+-]*,ns," "$csv" || fail "no $q in $csv, and no reason for it on stderr"
    done
  fi
}

check_csv() { # CSV CONF [ROWS]: the format and the method's own consistency; figures printed, not judged
  # ROWS: figures wanted beyond the list below (what a run of today's mmsim-measure also writes; the
  # canned CSV predates them)
  csv=$1 conf=$2 extra=${3:-}
  cat "$csv"
  # every number finite and positive, the statistics in their order (min <= median <= p90: the
  # method sorts the samples), outliers among the samples; the usual range of each figure is
  # printed as a note when a figure lies outside it (load on the machine moves timings), never failed.
  # A difference of two passes (mkwrite_*, dirty_zap_*, shmem_write_less_anon) has a median above 0
  # (mmsim-measure leaves its set out otherwise) but single samples beside load may fall below it:
  # its min and p90 need only be finite; op_variation's value (op_jitter) may be 0
  awk -F, -v extra="$extra" '
    function bad(msg) { print "FAIL: " $1 ": " msg; failed = 1 }
    function num(s) { return s ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
    function snum(s) { return s ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
    function diff(q) { return q ~ /^(mkwrite_|dirty_zap_)/ || q == "shmem_write_less_anon" }
    /^#/ { next }
    !hdr { hdr = 1
           if ($0 != "quantity,value,unit,median,min,p90,outliers,samples,method") bad("bad header: " $0)
           next }
    {
      seen[$1] = 1
      if (NF != 9) bad(NF " fields, expected 9")
      for (i = 2; i <= 6; i++) {
        if (i == 3) continue
        if (diff($1) && i >= 5) { if (!snum($i)) bad("field " i " = " $i ": not a finite number") }
        else if ($1 == "op_variation" && i == 2) { if (!num($i) || $i + 0 > 0.5) bad("op_jitter " $i ": not in 0..0.5") }
        else if ($1 == "herd_serve") { if (!num($i)) bad("field " i " = " $i ": not a finite number >= 0") }
        else if ($1 ~ /^keep_after_/) { if (!snum($i)) bad("field " i " = " $i ": not a finite number") }
        else if (!num($i) || $i + 0 <= 0) bad("field " i " = " $i ": not a positive finite number")
      }
      if (!num($7) || !num($8) || $8 + 0 < 1) bad("outliers/samples = " $7 "/" $8)
      else if ($7 + 0 > $8 + 0) bad("more outliers (" $7 ") than samples (" $8 ")")
      if (!($5 + 0 <= $4 + 0 && $4 + 0 <= $6 + 0)) bad("min " $5 ", median " $4 ", p90 " $6 ": not in order")
      if ($9 == "") bad("no method")
      lo = -1
      if ($1 == "timer") { lo = 0.5; hi = 10000 }
      else if ($1 ~ /^line_/) { lo = 0.1; hi = 10000 }
      else if ($1 == "atomic_uncontended" || $1 == "plain_rmw") { lo = 0.1; hi = 1000 }
      else if ($1 == "atomic_contended") { lo = 0.1; hi = 100000 }
      else if ($1 == "atomic_contended_total") { lo = 0.01; hi = 100000 }
      else if ($1 == "atomic_handoff") { lo = 0.1; hi = 100000 }
      else if ($1 == "pause") { lo = 0.1; hi = 10000 }
      else if ($1 ~ /^freq_/) { lo = 0.1; hi = 10 }
      else if ($1 == "syscall") { lo = 20; hi = 20000 }
      else if ($1 == "futex_wakeup") { lo = 100; hi = 10000000 }
      else if ($1 ~ /^tlb_flush_/) { lo = 50; hi = 1000000 }
      else if ($1 == "fault_around_page") { lo = 1; hi = 100000 }
      else if ($1 ~ /^fault_/) { lo = 100; hi = 100000 }
      else if ($1 ~ /^munmap_/) { lo = 1; hi = 100000 }
      else if ($1 == "zero_4k") { lo = 10; hi = 100000 }
      else if ($1 == "zero_2m") { lo = 1000; hi = 100000000 }
      else if ($1 == "memory_latency") { lo = 1; hi = 10000 }
      else if ($1 == "llc_capacity") { lo = 0.25; hi = 4096 }
      else if ($1 ~ /^cold_base_/ || $1 ~ /_cold$/) { lo = 0.5; hi = 100000 }
      else if ($1 ~ /^bw_/ || $1 ~ /^clear_/) { lo = 0.1; hi = 1000 }
      if (lo >= 0 && ($2 + 0 < lo || $2 + 0 > hi))
        print "note: " $1 " = " $2 " " $3 ", outside its usual " lo " to " hi " (a loaded machine?)"
    }
    END {
      n = split("timer line_load_self line_store_self line_atomic_self atomic_uncontended plain_rmw " \
                "atomic_contended atomic_contended_total atomic_handoff freq_1 freq_all syscall futex_wakeup fault_read " \
                "fault_write munmap_anon_pte zero_4k zero_2m memory_latency bw_task bw_all " \
                "cold_base_fault_around cold_base_reread cold_base_munmap fault_around_page_cold reread_page_cold " \
                "munmap_file_pte_cold" (extra == "" ? "" : " " extra), want, " ")
      for (i = 1; i <= n; i++) if (!(want[i] in seen)) { print "FAIL: no row for " want[i]; failed = 1 }
      exit failed
    }' "$csv" || fail "malformed or missing figures in $csv"
  grep -q '^# \[measured\]' "$conf" || fail "no [measured] key in $conf"
  grep -q '^topology = local$' "$conf" || fail "no 'topology = local' in $conf"
  grep -q '^name = measure-test$' "$conf" || fail "--name not used in $conf"
  for h in date host kernel cpu topology 'virtual machine' command; do
    grep -q "^# $h: " "$conf" || fail "no '# $h:' header line in $conf"
    grep -q "^# $h: " "$csv" || fail "no '# $h:' header line in $csv"
  done
}

case $mode in
quick)
  exe=$1 conf=$2 csv=$3
  rm -f "$conf" "$csv"
  t0=$(date +%s)
  "$exe" --quick --out "$conf" --raw "$csv" --name measure-test 2>"$conf.stderr"
  rc=$?
  cat "$conf.stderr" >&2
  t1=$(date +%s)
  # the time is printed, not judged: load makes it longer (ctest's TIMEOUT bounds it)
  echo "[mmsim-measure exit status: $rc, $((t1 - t0)) s; meant to be under 10 s on a quiet machine]"
  [ "$rc" -eq 0 ] || fail "expected exit status 0"
  [ -s "$conf" ] || fail "no profile written to $conf"
  [ -s "$csv" ] || fail "no CSV written to $csv"
  ls "$conf".tmp.* "$csv".tmp.* 2>/dev/null && fail "a temporary file was left behind"
  # with a second CPU: the TLB shootdown's two passes, and ipi_ns derived from them
  if [ "$(nproc)" -ge 2 ]; then
    check_csv "$csv" "$conf" "clear_user tlb_flush_alone tlb_flush_ipi munmap_zero_pte fault_cow_zero"
    grep -q '^ipi_ns = ' "$conf" || fail "no ipi_ns in $conf"
    grep -q '^# \[derived\] a TLB shootdown' "$conf" || fail "ipi_ns not derived from the two passes in $conf"
  else
    check_csv "$csv" "$conf" "clear_user munmap_zero_pte fault_cow_zero"
  fi
  # the large-folio file where will-it-scale runs: its ten figures, or why it has none (tmpfs, a
  # file system of 4 KiB folios)
  lf="mkwrite_pmd_page dirty_zap_pmd_page mkwrite_64k_page dirty_zap_64k_page munmap_64k_pte mkwrite_1m_page"
  lf="$lf dirty_zap_1m_page munmap_1m_pte read_64k_page read_1m_page"
  figures_or_reason "large-folio file" $lf
  # a memfd's write fault against an anonymous one's, and its hole punch: both, or why neither
  figures_or_reason shmem shmem_write_less_anon shmem_punch_page
  # a write fault on a cached page of a shared /dev/shm mapping
  figures_or_reason "shared file fault" fault_shared_file
  # a herd of readers on one line (three readers on other cores of one package): both, or why neither
  figures_or_reason herd herd_last herd_serve
  # a contended line's second access after a grant (another core, x86's counter): all three, or why not
  figures_or_reason keep keep_add keep_after_load keep_after_add
  rm -f "$conf.stderr"
  # the cache a task gets: listed among the figures, and llc_mib's note points to it (llc_mib stays
  # the size sysfs lists: calibrate/README.md)
  if grep -q '^llc_capacity,' "$csv"; then
    grep -q '^#   llc_capacity  *[0-9.e+-]* MiB ' "$conf" || fail "llc_capacity in $csv but not listed in $conf"
    grep -q '^# \[derived\] the largest cache .*left the cache at llc_capacity' "$conf" ||
      fail "llc_mib's note does not name llc_capacity in $conf"
  fi
  # task_gbs: the kernel's clearing (clear_kernel) or, where it cannot be timed, clear_page's loop
  grep -q '^# method (clear_\(kernel\|user\)): ' "$conf" || fail "task_gbs not from clear_kernel or clear_user in $conf"
  echo "ok"
  ;;
check)
  # the checks alone, on a given CSV and profile (a canned run from a loaded machine)
  check_csv "$1" "$2"
  echo "ok"
  ;;
accepted)
  mmsim=$1 conf=$2
  [ -s "$conf" ] || fail "no profile $conf (measure_quick makes it)"
  out=$("$mmsim" show --machine "$conf" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 0 ] || fail "mmsim show --machine $conf: exit status $rc"
  printf '%s\n' "$out" | grep -E -q '^latency +self .* measured ' || fail "[latency] self not shown as measured"
  # a run derives every number (show only parses): it must accept them too
  out=$("$mmsim" --machine "$conf" --scenario has_pinned_write --tasks 1,2 --events 20000 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 0 ] || fail "mmsim --machine $conf --scenario has_pinned_write: exit status $rc"
  echo "ok"
  ;;
badargs)
  exe=$1 prefix=$2
  check() { # WANT_RC PATTERN ARGS...
    want=$1 pat=$2
    shift 2
    out=$("$exe" "$@" 2>&1)
    rc=$?
    echo "\$ mmsim-measure $*"
    printf '%s\n[exit status: %s]\n' "$out" "$rc"
    [ "$rc" -eq "$want" ] || fail "expected exit status $want"
    printf '%s\n' "$out" | grep -E -q -e "$pat" || fail "no line of the output matches: $pat"
  }
  rm -rf "$prefix.dir"
  check 2 "^mmsim-measure: unknown option '--bogus' \(see mmsim-measure --help\)" --bogus
  check 2 "^mmsim-measure: --out needs a value" --out
  check 2 "^mmsim-measure: --raw: empty value" --raw=
  check 2 "^mmsim-measure: --quick takes no value" --quick=1
  check 2 "^mmsim-measure: unexpected argument 'stray'" stray
  check 2 "^mmsim-measure: --name 'two words': expected 1 to 63 letters" --name 'two words'
  check 2 "^mmsim-measure: --out and --raw name the same file" --out "$prefix.x" --raw "$prefix.x"
  check 1 "^mmsim-measure: --out $prefix.dir/no/such/dir/x.conf: cannot create a temporary file beside it: No such file" \
    --quick --out "$prefix.dir/no/such/dir/x.conf"
  mkdir -p "$prefix.dir"
  check 1 "^mmsim-measure: --raw $prefix.dir/no/x.csv: cannot create a temporary file beside it" \
    --quick --out "$prefix.dir/p.conf" --raw "$prefix.dir/no/x.csv"
  [ -z "$(ls -A "$prefix.dir")" ] || fail "files left behind: $(ls -A "$prefix.dir")"
  check 0 "^usage: mmsim-measure" --help
  # a run stopped by a signal leaves neither its files nor their temporary files
  "$exe" --out "$prefix.dir/p.conf" --raw "$prefix.dir/p.csv" 2>/dev/null &
  pid=$!
  sleep 1
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  echo "killed with SIGTERM after 1 s: exit status $rc"
  [ "$rc" -ne 0 ] || fail "expected a non-zero exit status after SIGTERM"
  [ -z "$(ls -A "$prefix.dir")" ] || fail "files left behind after SIGTERM: $(ls -A "$prefix.dir")"
  rm -rf "$prefix.dir"
  echo "ok"
  ;;
*)
  fail "unknown mode '$mode'"
  ;;
esac
