# mmsim validate: the real benchmark here beside the prediction.  Included from
# tests/CMakeLists.txt after cli_tests.cmake (it uses mmsim_cli and MMSIM_CLI_DIR).

# ---- misuse: fast, nothing runs ---------------------------------------------

mmsim_cli(validate_no_tasks fail
  PATTERNS "^mmsim: validate: --tasks LIST is required"
  ARGS validate --scenario page_fault1_vma_lock)
mmsim_cli(validate_no_scenario fail
  PATTERNS "^mmsim: validate: --scenario VARIANT is required"
  ARGS validate --tasks 1)
mmsim_cli(validate_no_benchmark fail
  PATTERNS "^mmsim: validate: no benchmark mirrors variant 'v' \\(validate/ has page_fault1-4"
  ARGS validate --scenario ${MMSIM_CLI_DIR}/tiny.scn --tasks 1)
mmsim_cli(validate_whole_scenario fail
  PATTERNS "validate: 'pin_fast' is a scenario; name one of its variants \\(has_pinned_write, has_pinned_check\\)"
  ARGS validate --scenario pin_fast --tasks 1)
mmsim_cli(validate_bad_duration fail
  PATTERNS "--duration '0': expected seconds"
  ARGS validate --scenario page_fault1_vma_lock --tasks 1 --duration 0)
mmsim_cli(validate_bad_tasks fail
  PATTERNS "--tasks 'one': expected task counts"
  ARGS validate --scenario page_fault1_vma_lock --tasks one)
mmsim_cli(validate_no_measured fail
  PATTERNS "validate measures its own CSV"
  ARGS validate --scenario page_fault1_vma_lock --tasks 1 --measured x.csv)
# the benchmarks are looked up in MMSIM_VALIDATE_BIN_DIR when it is set
add_test(NAME cli_validate_missing_bin_dir
  COMMAND sh -c "${MMSIM_CLI_SH}" env fail
    "^mmsim: validate: no executable /nonexistent-dir/wis_page_fault1 \\(MMSIM_VALIDATE_BIN_DIR=/nonexistent-dir\\)"
    -- MMSIM_VALIDATE_BIN_DIR=/nonexistent-dir $<TARGET_FILE:mmsim>
    validate --scenario page_fault1_vma_lock --tasks 1)
set_tests_properties(cli_validate_missing_bin_dir PROPERTIES LABELS fast TIMEOUT 60)

# ---- the count check against canned benchmark output (fast, known answers) --
# Fake benchmarks in MMSIM_VALIDATE_BIN_DIR: wis_page_fault1 writes a fixed CSV (faults per op
# 0.5 where the scenario has 1: a mismatch; mmap_lock as the scenario's static count, which at 2
# threads lacks the simulated fallbacks to mmap_lock: a mismatch; counts unavailable at 4 tasks),
# wis_page_fault2 cannot run here, wis_page_fault3 fails.
set(FAKE_SRC ${MMSIM_CLI_DIR}/fake-src)
set(FAKE_BIN ${MMSIM_CLI_DIR}/fake-bin)
file(WRITE ${FAKE_SRC}/wis_page_fault1 [=[#!/bin/sh
out=
while [ "$#" -gt 0 ]
do
  if [ "$1" = --out ]
  then
    out=$2
    shift
  fi
  shift
done
[ -n "$out" ] || exit 2
cat > "$out" <<'CSV'
# wis page_fault1: a canned result for the tests
# kernel: 6.4.0 (canned)
#run mode=threads tasks=1 ops=3500000 window_s=5.000 samples=5 sample_ops_per_s_min=690000.0 sample_ops_per_s_max=710000.0 other_cpus=0.010
#run mode=threads tasks=2 ops=6500000 window_s=5.000 samples=5 sample_ops_per_s_min=900000.0 sample_ops_per_s_max=1700000.0 other_cpus=0.500
#counts mode=threads tasks=1 ops=6553600 faults_per_op=0.5 mmap_lock_per_op=9.1553e-05 tlb_flushes_per_op=0.0002 raw=0-0/0-0/0-0
#counts mode=threads tasks=2 ops=6553600 faults_per_op=1 mmap_lock_per_op=9.1553e-05 tlb_flushes_per_op=0.0004 raw=0-0/0-0/0-0
#counts mode=threads tasks=4 unavailable: perf not found in PATH or /usr/bin/perf
tasks,processes,processes_idle,threads,threads_idle,linear
1,0,0,700000,50.00,700000
2,0,0,1300000,0.00,1400000
CSV
]=])
file(WRITE ${FAKE_SRC}/wis_page_fault2 "#!/bin/sh\necho 'skipped: canned reason'\nexit 77\n")
file(WRITE ${FAKE_SRC}/wis_page_fault3 "#!/bin/sh\necho 'wis_page_fault3: canned failure' >&2\nexit 1\n")
file(REMOVE_RECURSE ${FAKE_BIN})
file(COPY ${FAKE_SRC}/wis_page_fault1 ${FAKE_SRC}/wis_page_fault2 ${FAKE_SRC}/wis_page_fault3
  DESTINATION ${FAKE_BIN}
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# mmsim_validate_fake(NAME ok|fail PATTERNS ... ARGS ...): mmsim validate with the fake benchmarks
function(mmsim_validate_fake name want)
  cmake_parse_arguments(C "" "" "PATTERNS;ARGS" ${ARGN})
  add_test(NAME cli_${name}
    COMMAND sh -c "${MMSIM_CLI_SH}" env ${want} ${C_PATTERNS}
      -- MMSIM_VALIDATE_BIN_DIR=${FAKE_BIN} $<TARGET_FILE:mmsim> validate ${C_ARGS})
  set_tests_properties(cli_${name} PROPERTIES LABELS fast TIMEOUT 60)
endfunction()

mmsim_validate_fake(validate_counts_check ok
  PATTERNS
    "^   tasks +measured +predicted +error%"
    "^ +1 +700000 +[0-9]+ +[-+][0-9]+\\.[0-9] "
    "^  kernel( mismatch)?: the scenario models linux-6\\.4"
    "^  threads +1 faults +0\\.5 +1 +0\\.500  MISMATCH \\(faults\\)$"
    "^  threads +1 mmap_lock +9\\.1553e-05 +9\\.1553e-05 +1\\.000  ok; 0 fallbacks/op \\(a task alone in its mm\\)$"
    # a task alone: 1 to 2 tracepoint events per flush; 0.0002 lies inside
    "^  threads +1 tlb_flush +0\\.0002 +0\\.00013052-0\\.00026104 +1\\.000  ok$"
    # two threads: the other's munmap and mmap write-lock the merged VMA, faults fall back
    "^  threads +2 mmap_lock +9\\.1553e-05 +0\\.000[12][0-9.e-]* +0\\.[0-9]+  MISMATCH \\(mmap_lock\\); simulated [0-9.]+e-05 fallbacks/op$"
    "^  threads +4 all .*unavailable: perf not found"
    "^  2 count\\(s\\) differ"
    "^  other load: threads at 2 task\\(s\\) ran beside 0\\.50 CPUs"
    # its samples 0.9 to 1.7 M ops/s: 1.89x, past 1.3x
    "^  unsteady: threads at 2 task\\(s\\): its 5 samples ran from 9e\\+05 to 1\\.7e\\+06 ops/s \\(1\\.89x"
  ARGS --scenario page_fault1_vma_lock --machine nehalem-i7-920 --tasks 1,2
    --out ${MMSIM_CLI_DIR}/validate-fake-out)
# Two threads' TLB flushes: since 6.0 (aa44284960d5) the interrupted CPU may return untraced, so 2
# to 3 events per flush; before it, always 3.  The same counts under a 6.x and a 5.x kernel line.
foreach(k 6.4.0 5.15.0)
  file(WRITE ${MMSIM_CLI_DIR}/flush-${k}.csv "# kernel: ${k} (canned)
#counts mode=threads tasks=2 ops=6553600 faults_per_op=1 mmap_lock_per_op=9.1553e-05 tlb_flushes_per_op=0.00028 raw=0-0/0-0/0-0
tasks,processes,processes_idle,threads,threads_idle,linear
1,0,0,700000,50.00,700000
2,0,0,1300000,0.00,1400000
")
endforeach()
mmsim_cli(compare_flush_receiver_untraced ok
  PATTERNS "^  threads +2 tlb_flush +0\\.00028 +0\\.00026104-0\\.0003915[56] +1\\.000  ok$"
  ARGS compare --measured ${MMSIM_CLI_DIR}/flush-6.4.0.csv --scenario page_fault1_mmap_lock
    --machine nehalem-i7-920 --mode threads)
mmsim_cli(compare_flush_receiver_traced ok
  PATTERNS "^  threads +2 tlb_flush +0\\.00028 +0\\.0003915[56] +0\\.715  MISMATCH \\(tlb_flush\\)$"
  ARGS compare --measured ${MMSIM_CLI_DIR}/flush-5.15.0.csv --scenario page_fault1_mmap_lock
    --machine nehalem-i7-920 --mode threads)
mmsim_validate_fake(validate_skipped fail
  PATTERNS "^skipped: canned reason$"
  ARGS --scenario page_fault2_vma_lock --machine nehalem-i7-920 --tasks 1
    --out ${MMSIM_CLI_DIR}/validate-fake-out)
# exit 77, and nothing but the skip line on stdout
add_test(NAME cli_validate_skipped_status
  COMMAND sh -c "MMSIM_VALIDATE_BIN_DIR=${FAKE_BIN} \"$0\" validate --scenario page_fault2_vma_lock --machine nehalem-i7-920 --tasks 1 --out ${MMSIM_CLI_DIR}/validate-fake-out > ${MMSIM_CLI_DIR}/skip.out 2>/dev/null
rc=$?
cat ${MMSIM_CLI_DIR}/skip.out
test $rc -eq 77 && test \"$(cat ${MMSIM_CLI_DIR}/skip.out)\" = 'skipped: canned reason'"
    $<TARGET_FILE:mmsim>)
set_tests_properties(cli_validate_skipped_status PROPERTIES LABELS fast TIMEOUT 60)
mmsim_validate_fake(validate_bench_fails fail
  PATTERNS "wis_page_fault3: canned failure" "^mmsim: validate: wis_page_fault3 failed \\(exit 1"
  ARGS --scenario page_fault3_vma_lock --machine nehalem-i7-920 --tasks 1
    --out ${MMSIM_CLI_DIR}/validate-fake-out)

# --fs: a directory that is not there is refused before anything runs, naming it
mmsim_validate_fake(validate_fs_missing fail
  PATTERNS "^mmsim: --fs '/nonexistent/mmsim': expected tmpfs, here, or a writable directory$"
  ARGS --scenario page_fault3_ext4 --fs /nonexistent/mmsim --machine nehalem-i7-920 --tasks 1
    --out ${MMSIM_CLI_DIR}/validate-fake-out)
# compare reads the filesystem of a validate CSV and says when the variant models another backing
file(WRITE ${MMSIM_CLI_DIR}/pf3_ext4fs.csv
  "# tmpdir: /tmp (ext2/3/4)\ntasks,processes,processes_idle,threads,threads_idle,linear\n"
  "0,0,100,0,100,0\n1,300000,50,300000,50,300000\n")
mmsim_cli(compare_backing_4k_on_ext4 ok
  PATTERNS "^compare: the measured benchmark put its files on ext2/3/4$"
    "^  note: +page_fault3_vma_lock models a file of 4 KiB folios \\(tmpfs\\); on ext2/3/4 .*the _ext4 variants model that$"
  ARGS compare --measured ${MMSIM_CLI_DIR}/pf3_ext4fs.csv --scenario page_fault3_vma_lock ${SMALL} --events 20000)
# ... and nothing when it models that backing: the line, and no note
add_test(NAME cli_compare_backing_ext4_agrees
  COMMAND sh -c "out=$(\"$0\" compare --measured ${MMSIM_CLI_DIR}/pf3_ext4fs.csv --scenario page_fault3_ext4 --machine nehalem-i7-920 --events 20000) || exit 1
printf '%s\\n' \"$out\" | grep -q '^compare: the measured benchmark put its files on ext2/3/4$' || { echo 'FAIL: no filesystem line'; exit 1; }
if printf '%s\\n' \"$out\" | grep 'note:'; then echo 'FAIL: a note for a backing the variant models'; exit 1; fi"
    $<TARGET_FILE:mmsim>)
set_tests_properties(cli_compare_backing_ext4_agrees PROPERTIES LABELS fast TIMEOUT 60)
# --fs for a benchmark that maps no file is refused
mmsim_validate_fake(validate_fs_not_a_file_bench fail
  PATTERNS "^mmsim: --fs is for the benchmarks that map a file \\(page_fault2-4, mmap2\\); page_fault1_vma_lock's makes none$"
  ARGS --scenario page_fault1_vma_lock --fs /tmp --machine nehalem-i7-920 --tasks 1
    --out ${MMSIM_CLI_DIR}/validate-fake-out)

# ---- real runs (label harness): the benchmark runs on this machine -----------

file(WRITE ${MMSIM_CLI_DIR}/validate_run.sh [=[
# validate_run.sh MMSIM OUTDIR: page_fault1_vma_lock at 1 task, then check the files and the tables.
mmsim=$1
dir=$2
fail() {
  echo "FAIL: $*"
  exit 1
}
rm -rf "$dir"
out=$("$mmsim" validate --scenario page_fault1_vma_lock --tasks 1 --duration 1 --warmup 0.5 --out "$dir" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "[mmsim exit status: $rc]"
[ "$rc" -eq 0 ] || fail "expected exit status 0"
csv=$(ls "$dir"/page_fault1_vma_lock-*-*.csv 2>/dev/null)
png=$(ls "$dir"/page_fault1_vma_lock-*-*.png 2>/dev/null)
[ -n "$csv" ] && [ -s "$csv" ] || fail "no CSV <variant>-<host>-<yyyymmdd-hhmmss>.csv in $dir"
[ -n "$png" ] && [ -s "$png" ] || fail "no PNG beside the CSV in $dir"
head -n 1 "$csv" | grep -q '^# mmsim validate: variant page_fault1_vma_lock (models linux-6.4)' ||
  fail "the CSV does not start with mmsim's '#' lines"
grep -q '^# kernel: ' "$csv" || fail "the CSV lacks the benchmark's '# kernel:' metadata"
grep -q '^tasks,processes,processes_idle,threads,threads_idle,linear$' "$csv" || fail "no will-it-scale header"
grep -Eq '^1,0,0(\.00)?,[1-9][0-9]*,' "$csv" || fail "no threads result at 1 task"
[ "$(od -An -c -N4 "$png" | tr -d ' ')" = '211PNG' ] || fail "$png is not a PNG"
printf '%s\n' "$out" | grep -Eq '^ +tasks +measured +predicted +error%' || fail "no error column"
printf '%s\n' "$out" | grep -Eq '^ +1 +[0-9]+ +[0-9]+ +[-+][0-9]+\.[0-9] ' || fail "no row with an error at 1 task"
printf '%s\n' "$out" | grep -Eq '^  (kernel|kernel mismatch): ' || fail "no kernel line"
# perf may be missing on a machine: then the count check must say why
if printf '%s\n' "$out" | grep -Eq 'threads +1 +all .*unavailable: '
then
  echo "(event counts unavailable here)"
else
  printf '%s\n' "$out" | grep -Eq '^  threads +1 faults +[0-9.e+-]+ +1 +1\.0[0-9]* +ok' ||
    fail "the fault count per op is not about 1, as the scenario's"
  printf '%s\n' "$out" | grep -Eq '^  threads +1 mmap_lock ' || fail "no mmap_lock count"
  printf '%s\n' "$out" | grep -Eq '^  threads +1 tlb_flush ' || fail "no tlb_flush count"
fi
exit 0
]=])
add_test(NAME validate_page_fault1
  COMMAND sh ${MMSIM_CLI_DIR}/validate_run.sh $<TARGET_FILE:mmsim> ${MMSIM_CLI_DIR}/validate-out)
# not RUN_SERIAL: it checks event counts, which other load does not change
set_tests_properties(validate_page_fault1 PROPERTIES LABELS harness TIMEOUT 240)

# Seed 003's benchmark (wis_prefault) through validate: the variant's name picks its backing,
# mapping and method; on a private memfd only the first of ten write rounds faults (the COW copies
# survive the hole punch), so the kernel's fault count per op is the region's pages, 32768, as
# the scenario's, not ten times that.
file(WRITE ${MMSIM_CLI_DIR}/validate_prefault.sh [=[
mmsim=$1
dir=$2
rm -rf "$dir"
out=$("$mmsim" validate --scenario prefault_memfd_private_touch_write --tasks 1 --out "$dir" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "[mmsim exit status: $rc]"
[ "$rc" -eq 0 ] || { echo "FAIL: expected exit status 0"; exit 1; }
printf '%s\n' "$out" | grep -q 'wis_prefault .*--backing memfd --mapping private --method touch_write' ||
  { echo "FAIL: the benchmark did not get the variant's backing, mapping and method"; exit 1; }
if printf '%s\n' "$out" | grep -Eq 'threads +1 +all .*unavailable: '
then
  echo "(event counts unavailable here)"
  exit 0
fi
printf '%s\n' "$out" | grep -Eq '^  threads +1 faults +327[0-9][0-9] +32768 +(0\.99|1\.00)[0-9]* +ok' ||
  { echo "FAIL: the fault count per op is not about 32768, as the scenario's"; exit 1; }
exit 0
]=])
add_test(NAME validate_prefault
  COMMAND sh ${MMSIM_CLI_DIR}/validate_prefault.sh $<TARGET_FILE:mmsim> ${MMSIM_CLI_DIR}/validate-prefault-out)
set_tests_properties(validate_prefault PROPERTIES LABELS harness TIMEOUT 240)

# pin_fast needs CONFIG_GUP_TEST: 'skipped: <reason>', exit 77, no numbers; elsewhere it runs.
file(WRITE ${MMSIM_CLI_DIR}/validate_skip.sh [=[
mmsim=$1
dir=$2
out=$("$mmsim" validate --scenario has_pinned_write --tasks 1 --duration 1 --warmup 0.5 --out "$dir" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "[mmsim exit status: $rc]"
if [ "$rc" -eq 77 ]
then
  printf '%s\n' "$out" | grep -Eq '^skipped: .+' || { echo "FAIL: exit 77 without 'skipped: <reason>'"; exit 1; }
  if printf '%s\n' "$out" | grep -Eq 'error%|predicted'
  then
    echo "FAIL: numbers printed for a skipped benchmark"
    exit 1
  fi
  exit 0
fi
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -Eq 'error%' && exit 0
echo "FAIL: expected 'skipped' with exit 77, or a comparison with exit 0"
exit 1
]=])
add_test(NAME validate_pin_fast_skip
  COMMAND sh ${MMSIM_CLI_DIR}/validate_skip.sh $<TARGET_FILE:mmsim> ${MMSIM_CLI_DIR}/validate-skip-out)
set_tests_properties(validate_pin_fast_skip PROPERTIES LABELS harness TIMEOUT 120)

# ---- results are whole or absent, and nothing outlives mmsim (issue 14) -----

# validate_kill.sh MMSIM WORKDIR SIG: mmsim validate (mmap1, 1 task, 60 s) stopped by SIG once its
# benchmark runs.  No process may survive (the out dir's name, unique to this run, is in the
# benchmark's command line), and --out must hold no file; after SIGKILL mmsim cannot clean up,
# so the benchmark must die by PR_SET_PDEATHSIG and only an empty temporary name may be left.
file(WRITE ${MMSIM_CLI_DIR}/validate_kill.sh [=[
mmsim=$1
sig=$3
mark=vkill-$sig-$$
dir=$2/$mark
fail() {
  echo "FAIL: $*"
  pkill -KILL -f -- "$mark" 2>/dev/null
  rm -rf "$dir"
  exit 1
}
rm -rf "$dir"
# a non-interactive shell starts background jobs with SIGINT ignored; mmsim keeps an ignored
# signal ignored (as under nohup), so give it the default back
env --default-signal=INT "$mmsim" validate --scenario mmap1 --tasks 1 --duration 60 --warmup 0 --out "$dir" \
  >"$dir.log" 2>&1 &
pid=$!
# wait (at most 20 s, for a loaded machine) until the benchmark runs
i=0
until pgrep -f -- "wis_mmap1 .*$mark" >/dev/null 2>&1
do
  i=$((i + 1))
  [ $i -le 200 ] || fail "the benchmark did not start: $(cat "$dir.log")"
  sleep 0.1
done
sleep 0.5
kill -"$sig" $pid
wait $pid
rc=$?
echo "mmsim after SIG$sig: exit status $rc"
# a survivor of SIGKILL dies by PDEATHSIG, but not at once: poll for 5 s
i=0
while pgrep -f -- "$mark" >/dev/null 2>&1
do
  i=$((i + 1))
  [ $i -le 50 ] || fail "processes survived SIG$sig: $(pgrep -af -- "$mark")"
  sleep 0.1
done
echo "no process of the run is left"
left=$(ls -A "$dir" 2>/dev/null)
if [ "$sig" = KILL ]
then
  # the empty name mmsim reserved for the benchmark: not a result name, and empty
  for f in $left
  do
    case $f in
    *.csv.tmp-*) [ ! -s "$dir/$f" ] || fail "SIGKILL left a temporary file with data: $f" ;;
    *) fail "SIGKILL left $f in --out" ;;
    esac
  done
  echo "left in --out: ${left:-nothing} (no result name)"
else
  want=130
  [ "$sig" = TERM ] && want=143
  [ "$rc" -eq $want ] || fail "exit status $rc, expected $want (128 + SIG$sig)"
  [ -z "$left" ] || fail "SIG$sig left files in --out: $left"
  # mmsim made --out: with no result in it, it is not left either
  [ ! -e "$dir" ] || fail "SIG$sig left the directory --out, which mmsim made"
  echo "--out holds no file, and the directory made for it is gone"
fi
rm -rf "$dir" "$dir.log"
exit 0
]=])
foreach(sig INT TERM KILL)
  add_test(NAME validate_killed_${sig}
    COMMAND sh ${MMSIM_CLI_DIR}/validate_kill.sh $<TARGET_FILE:mmsim> ${MMSIM_CLI_DIR} ${sig})
  set_tests_properties(validate_killed_${sig} PROPERTIES LABELS harness TIMEOUT 90)
endforeach()

# A benchmark that writes its CSV and then fails: its raw output must not land in --out.
file(WRITE ${FAKE_BIN}/wis_page_fault4 [=[#!/bin/sh
while [ "$#" -gt 0 ]
do
  [ "$1" = --out ] && printf 'tasks,processes,processes_idle,threads,threads_idle,linear\n1,0,0,5,0,5\n' >"$2"
  shift
done
echo 'wis_page_fault4: canned failure after writing' >&2
exit 1
]=])
file(CHMOD ${FAKE_BIN}/wis_page_fault4 PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
  GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
add_test(NAME cli_validate_failed_bench_leaves_nothing
  COMMAND sh -c "d=${MMSIM_CLI_DIR}/validate-failed-out
rm -rf $d
MMSIM_VALIDATE_BIN_DIR=${FAKE_BIN} \"$0\" validate --scenario page_fault4_vma_lock --machine nehalem-i7-920 --tasks 1 --out $d
rc=$?
echo \"[mmsim exit status: $rc] in --out: $(ls -A $d)\"
test $rc -ne 0 && test -z \"$(ls -A $d)\" && rm -rf $d"
    $<TARGET_FILE:mmsim>)
set_tests_properties(cli_validate_failed_bench_leaves_nothing PROPERTIES LABELS fast TIMEOUT 60)

# An existing result is not replaced without --force: the names of the next 30 seconds exist.
file(WRITE ${MMSIM_CLI_DIR}/validate_exists.sh [=[
mmsim=$1
bin=$2
dir=$3/validate-exists-out
fail() {
  echo "FAIL: $*"
  rm -rf "$dir"
  exit 1
}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
host=$(uname -n | tr '/ ' '__')
now=$(date -u +%s)
for i in $(seq 0 30)
do
  echo old >"$dir/page_fault1_vma_lock-$host-$(date -u -d @$((now + i)) +%Y%m%d-%H%M%S).csv"
done
run() {
  MMSIM_VALIDATE_BIN_DIR=$bin "$mmsim" validate --scenario page_fault1_vma_lock --machine nehalem-i7-920 \
    --tasks 1,2 --out "$dir" "$@" >"$dir.log" 2>&1
}
run
rc=$?
cat "$dir.log"
[ "$rc" -ne 0 ] || fail "an existing result was replaced without --force"
grep -q 'exists: not overwritten (--force to replace it)' "$dir.log" || fail "no message for the existing result"
[ "$(cat "$dir"/*.csv | sort -u)" = old ] || fail "an existing result changed"
[ -z "$(ls "$dir" | grep -v '\.csv$')" ] || fail "files left beside the results: $(ls "$dir")"
run --force || fail "--force: exit status $?: $(cat "$dir.log")"
[ "$(grep -l '^# mmsim validate: variant page_fault1_vma_lock' "$dir"/*.csv | wc -l)" -eq 1 ] ||
  fail "--force did not replace exactly one result"
echo "ok: refused without --force, replaced with it"
rm -rf "$dir" "$dir.log"
]=])
add_test(NAME cli_validate_keeps_existing
  COMMAND sh ${MMSIM_CLI_DIR}/validate_exists.sh $<TARGET_FILE:mmsim> ${FAKE_BIN} ${MMSIM_CLI_DIR})
set_tests_properties(cli_validate_keeps_existing PROPERTIES LABELS fast TIMEOUT 60)

# The plot fails after the measurement: the whole result is kept, and the error says so.
file(MAKE_DIRECTORY ${MMSIM_CLI_DIR}/failing-gnuplot)
file(WRITE ${MMSIM_CLI_DIR}/failing-gnuplot/gnuplot "#!/bin/sh\nexit 1\n")
file(CHMOD ${MMSIM_CLI_DIR}/failing-gnuplot/gnuplot PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
add_test(NAME cli_validate_plot_fails_result_kept
  COMMAND sh -c [=[
dir=$3/validate-plotfail-out
rm -rf "$dir"
PATH="$2:$PATH" MMSIM_VALIDATE_BIN_DIR=$1 "$0" validate --scenario page_fault1_vma_lock --machine nehalem-i7-920 \
  --tasks 1,2 --out "$dir" >"$dir.log" 2>&1 && { cat "$dir.log"; echo "FAIL: a failed plot gave status 0"; exit 1; }
grep -q "the measured result $dir/.*\.csv is kept" "$dir.log" || { cat "$dir.log"; echo "FAIL: not said"; exit 1; }
ls "$dir"/*.csv >/dev/null && ! ls "$dir"/*.png >/dev/null 2>&1 || { ls "$dir"; echo "FAIL: files"; exit 1; }
echo "ok: the result kept and said so: $(tail -1 "$dir.log")"
rm -rf "$dir" "$dir.log"
]=] $<TARGET_FILE:mmsim> ${FAKE_BIN} ${MMSIM_CLI_DIR}/failing-gnuplot ${MMSIM_CLI_DIR})
set_tests_properties(cli_validate_plot_fails_result_kept PROPERTIES LABELS fast TIMEOUT 60)

# A --tasks list longer than the recorded command can hold is an error, not a cut record.
string(REPEAT "1," 2600 LONG_TASKS)
mmsim_validate_fake(validate_long_tasks fail
  PATTERNS "validate: the benchmark's command line is over [0-9]+ bytes"
  ARGS --scenario page_fault1_vma_lock --machine nehalem-i7-920 --tasks ${LONG_TASKS}1
    --out ${MMSIM_CLI_DIR}/validate-fake-out)

# --out with more directories to make than validate keeps track of (8): refused, and the ones it
# made removed again (they were all left behind when the ninth went unrecorded)
add_test(NAME validate_out_too_deep
  COMMAND sh -c [=[
rm -rf "$1/deep"
out=$("$0" validate --scenario mmap1 --tasks 1 --duration 1 --warmup 0 --out "$1/deep/1/2/3/4/5/6/7/8/9" 2>&1) &&
  { echo "FAIL: accepted"; exit 1; }
printf '%s\n' "$out" | grep -q -- "--out $1/deep/1/2/3/4/5/6/7/8/9: more than 8 directories to make for it" ||
  { echo "FAIL: $out"; exit 1; }
[ ! -e "$1/deep" ] || { echo "FAIL: left: $(find "$1/deep")"; exit 1; }
echo "ok: refused, nothing left"
]=] $<TARGET_FILE:mmsim> ${MMSIM_CLI_DIR})
set_tests_properties(validate_out_too_deep PROPERTIES LABELS harness TIMEOUT 60)
