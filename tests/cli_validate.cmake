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
[ -n "$csv" ] && [ -s "$csv" ] || fail "no CSV <variant>-<host>-<date>.csv in $dir"
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
set_tests_properties(validate_page_fault1 PROPERTIES LABELS harness TIMEOUT 120 RUN_SERIAL TRUE)

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
set_tests_properties(validate_pin_fast_skip PROPERTIES LABELS harness TIMEOUT 120 RUN_SERIAL TRUE)
