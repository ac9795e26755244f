# CLI tests of mmsim calibrate.  Included from tests/CMakeLists.txt after cli_tests.cmake, whose
# mmsim_cli() and MMSIM_CLI_SH they use.  The fast ones fail before any measuring; those that
# measure this machine or fit are labelled harness.
set(MMSIM_CAL_DIR ${CMAKE_CURRENT_BINARY_DIR}/cli_calibrate)
file(MAKE_DIRECTORY ${MMSIM_CAL_DIR})

mmsim_cli(calibrate_bad_fit_tasks fail
  PATTERNS "^mmsim: --fit-tasks: 'x' is not a task count"
  ARGS calibrate --fit-tasks 1,x)
mmsim_cli(calibrate_unwritable_output fail
  PATTERNS "^mmsim: --out-kernel /nonexistent/dir/k.conf: cannot create a file beside it"
  ARGS calibrate --out-kernel /nonexistent/dir/k.conf)
mmsim_cli(calibrate_missing_measured_dir fail
  PATTERNS "^mmsim: --measured-dir /nonexistent/dir: cannot open"
  ARGS calibrate --machine local --measured-dir /nonexistent/dir)
mmsim_cli(calibrate_csv_not_in_dir fail
  PATTERNS "no page_fault1-\\*\\.csv"
  ARGS calibrate --machine local --measured-dir ${PROJECT_SOURCE_DIR}/scenarios)
mmsim_cli(calibrate_fit_task_not_measured fail
  PATTERNS "no threads result at 3 tasks"
  ARGS calibrate --machine icelake-48c --measured-dir ${PROJECT_SOURCE_DIR}/data/measured --fit-tasks 3)
mmsim_cli(calibrate_machine_and_out_machine fail
  PATTERNS "--out-machine writes a measured profile"
  ARGS calibrate --machine local --out-machine ${MMSIM_CAL_DIR}/never.conf)
mmsim_cli(calibrate_one_file_for_both fail
  PATTERNS "^mmsim: --out-machine and --out-kernel name one file \\(.*/both\\.conf\\): two are written"
  ARGS calibrate --out-machine ${MMSIM_CAL_DIR}/both.conf --out-kernel ${MMSIM_CAL_DIR}/both.conf)
mmsim_cli(calibrate_in_help ok
  PATTERNS "mmsim calibrate \\[--out-machine FILE\\]" "--measured-dir DIR"
  ARGS --help)

# From this machine's earlier runs (data/measured), quick fit: the fitted kernel profile must be
# accepted by --kernel and show its [fitted] costs with their provenance; the report holds the
# held-out 2-task points as predictions and says why the USL is not shown with one training count.
# (--accept-disturbed: the stored runs have training points measured beside other load, which
# without it is not published.  --no-fault-read-point: the what-if that leaves mmsim-measure's
# fault_read out of the fit says so.)
mmsim_cli(calibrate_from_measured ok LABEL harness
  PATTERNS "fault_entry_exit +450 +[0-9]+ " "page_fault1_vma_lock +2 .* prediction$"
           "USL baseline not shown: .*three training task counts \\(1 given\\)"
           "populate_read_nothp: left out: mmsim-measure's fault_read is not fitted to with --no-fault-read-point"
           "written: ${MMSIM_CAL_DIR}/fitted.conf"
  ARGS calibrate --quick --machine local --measured-dir ${PROJECT_SOURCE_DIR}/data/measured
       --out-kernel ${MMSIM_CAL_DIR}/fitted.conf --force --accept-disturbed --no-fault-read-point)
set_tests_properties(cli_calibrate_from_measured PROPERTIES FIXTURES_SETUP calibrated_kernel)
mmsim_cli(calibrate_kernel_accepted ok LABEL harness
  PATTERNS "fault_entry_exit .* fitted .*\\[fitted\\] by mmsim calibrate" "thps_per_map"
  ARGS show --kernel ${MMSIM_CAL_DIR}/fitted.conf)
set_tests_properties(cli_calibrate_kernel_accepted PROPERTIES FIXTURES_REQUIRED calibrated_kernel)

# The whole pipeline on this machine: mmsim-measure --quick, the benchmarks (short runs), the fit;
# both profiles accepted by --machine and --kernel (the fit takes mmsim-measure's fault_read too).  A test of the pipeline, not of the machine's
# quiet: --accept-disturbed, so that other load here marks the profiles instead of failing it.
mmsim_cli(calibrate_here ok LABEL harness
  PATTERNS "measuring this machine" "benchmark 6/6"
           "populate_read_nothp: calibrate/mmsim-measure's fault_read, [0-9.e+]+ ns a page" "written: "
  ARGS calibrate --quick --out-machine ${MMSIM_CAL_DIR}/here_machine.conf
       --out-kernel ${MMSIM_CAL_DIR}/here_kernel.conf --force --accept-disturbed)
# not RUN_SERIAL: the load of the tests beside it only marks the profiles
set_tests_properties(cli_calibrate_here PROPERTIES FIXTURES_SETUP calibrated_here)
mmsim_cli(calibrate_here_accepted ok LABEL harness
  PATTERNS "^ +2 +[0-9]+"
  ARGS --machine ${MMSIM_CAL_DIR}/here_machine.conf --kernel ${MMSIM_CAL_DIR}/here_kernel.conf
       --scenario populate_mmap_thp_step --tasks 1,2)
set_tests_properties(cli_calibrate_here_accepted PROPERTIES FIXTURES_REQUIRED calibrated_here)
# the costs calibrate times itself on this machine, with their provenance: GUP's step over a page
# mapped already (the populate family's _mthp variants), the user's first touch of a mapped page
mmsim_cli(calibrate_here_measured_costs ok LABEL harness
  PATTERNS "gup_present_page +[0-9]+ +measured .*MADV_POPULATE_WRITE again over 64 MiB"
           "touch_mapped_shared +[0-9]+ +measured"
           "zap_zero_pte +[0-9]+ +measured .*munmap_zero_pte"
  ARGS show --kernel ${MMSIM_CAL_DIR}/here_kernel.conf)
set_tests_properties(cli_calibrate_here_measured_costs PROPERTIES FIXTURES_REQUIRED calibrated_here)

# compare's USL baseline, a known answer: points generated from X(N) = 1000 N / (1 + 0.05 (N-1) +
# 0.001 N (N-1)); fitted to N = 1, 2, 4, it must give back those parameters and predict 8 and 16
# exactly.  With fewer than three training task counts it says why it is not shown.
file(WRITE ${MMSIM_CAL_DIR}/usl.csv
  "# synthetic: USL lambda 1000, sigma 0.05, kappa 0.001\n"
  "tasks,processes,processes_idle,threads,threads_idle,linear\n"
  "1,0,0,1000,0,1000\n2,0,0,1901.141,0,2000\n4,0,0,3442.341,0,4000\n"
  "8,0,0,5689.900,0,8000\n16,0,0,8040.201,0,16000\n")
mmsim_cli(compare_usl_baseline ok
  PATTERNS "role +usl_err%$" "^ +8 .*prediction +[+-]0\\.0$" "^ +16 .*prediction +[+-]0\\.0$"
           "USL on the same training points \\(lambda 1000, sigma 0\\.05, kappa 0\\.001\\)"
  ARGS compare --measured ${MMSIM_CAL_DIR}/usl.csv --cores 16 --scenario has_pinned_write
       --fit-tasks 1,2,4 --mode threads)
mmsim_cli(compare_usl_needs_three ok
  PATTERNS "USL baseline not shown: .*needs at least three training task counts \\(2 given\\)"
  ARGS compare --measured ${MMSIM_CAL_DIR}/usl.csv --cores 16 --scenario has_pinned_write
       --fit-tasks 1,2 --mode threads)

# compare on a CSV of validate/'s: the count check of its '#counts' lines against the scenario's
# own counts (page_fault1: one fault per op), as validate prints it; a count off by half is a
# MISMATCH.
mmsim_cli(compare_counts_of_stored_csv ok
  PATTERNS "^event counts per operation" "^  threads +2 faults +1 +1 +1\\.000  ok$"
  ARGS compare --measured ${PROJECT_SOURCE_DIR}/data/measured/page_fault1-devvm-20261130.csv
       --machine icelake-48c --scenario page_fault1_vma_lock --mode threads)
# the same file with a '#' line of 5000 characters first: read whole (a 4 KiB line buffer cut it,
# its tail ended the '#' lines, and the counts check was skipped without a word)
file(READ ${PROJECT_SOURCE_DIR}/data/measured/page_fault1-devvm-20261130.csv MMSIM_PF1_CSV)
string(REPEAT "x" 5000 MMSIM_LONG_NOTE)
file(WRITE ${MMSIM_CAL_DIR}/long_note.csv "# a long note: ${MMSIM_LONG_NOTE}\n${MMSIM_PF1_CSV}")
mmsim_cli(compare_counts_after_a_long_line ok
  PATTERNS "^event counts per operation" "^  threads +2 faults +1 +1 +1\\.000  ok$"
  ARGS compare --measured ${MMSIM_CAL_DIR}/long_note.csv
       --machine icelake-48c --scenario page_fault1_vma_lock --mode threads)
# compare notes the points whose own samples moved (sample_ops_per_s_min/_max of the '#run' line)
# by more than 1.3x: page_fault4 from /tmp on the busy VM of devvm-20261207b, 2 threads at 1.90x,
# 1 process at 1.45x; its 1-thread point (1.10x) is not named
mmsim_cli(compare_notes_unsteady_points ok
  PATTERNS "^  unsteady: threads at 2 task\\(s\\): its 5 samples ran from 9\\.03e\\+06 to 1\\.71e\\+07 ops/s \\(1\\.90x"
           "^  unsteady: processes at 1 task\\(s\\): .* \\(1\\.45x"
           "^  unsteady: processes at 2 task"
           "^compare: page_fault4_ext4 on devvm-20261207b-sysfs-llc, threads"
  ARGS compare --measured
       ${PROJECT_SOURCE_DIR}/data/measured/devvm-20261207b/page_fault4_ext4-vm-20261207-062127.csv
       --machine ${PROJECT_SOURCE_DIR}/data/measured/devvm-20261207b/machine-sysfs-llc.conf
       --kernel ${PROJECT_SOURCE_DIR}/data/measured/devvm-20261207b/kernel-618.conf
       --scenario page_fault4_ext4 --mode both)
# seed 003's private anonymous Read+Write at 2 threads, measured on 6.18: a COW flush at every fault
# in both threads traces 2.04 events per flush (the receiver caught up already, aa44284960d5)
mmsim_cli(compare_counts_cow_flush_6x ok
  PATTERNS "^  threads +2 tlb_flush +6\\.6955e\\+05 +6\\.5545e\\+05-9\\.8317e\\+05 +1\\.000  ok$"
  ARGS compare --measured
       ${PROJECT_SOURCE_DIR}/data/measured/devvm-20261206e/prefault-anon-private-touch_read_write-devvm-20261206-153735.csv
       --machine ${PROJECT_SOURCE_DIR}/data/measured/devvm-20261206e/machine.conf
       --kernel ${PROJECT_SOURCE_DIR}/data/measured/devvm-20261206e/kernel.conf
       --scenario prefault618_anon_private_touch_read_write --mode threads)
file(WRITE ${MMSIM_CAL_DIR}/half_faults.csv
  "# kernel: 6.18.0 #1 SMP x86_64\n"
  "#counts mode=threads tasks=1 ops=65536 faults_per_op=0.5 mmap_lock_per_op=0 tlb_flushes_per_op=0\n"
  "tasks,processes,processes_idle,threads,threads_idle,linear\n1,0,0,700000,0,700000\n")
mmsim_cli(compare_counts_mismatch ok
  PATTERNS "^  threads +1 faults +0\\.5 +1 +0\\.500  MISMATCH \\(faults\\)$"
           "1 count\\(s\\) differ: .*or the kernel this machine runs"
  ARGS compare --measured ${MMSIM_CAL_DIR}/half_faults.csv --machine icelake-48c
       --scenario page_fault1_vma_lock --mode threads)


# --band: the columns, the CSV's '# band:' lines, and the note when no cost carries a range.
mmsim_cli(band_without_fitted_costs ok
  PATTERNS "band_low +band_high$" "has no \\[fitted\\] cost with a 1-sigma range"
  ARGS --cores 2 --scenario page_fault1_vma_lock --tasks 1,2 --band)
mmsim_cli(band_csv ok
  PATTERNS "^tasks,processes,processes_idle,threads,threads_idle,linear$" "^# band: 2,0,0,[0-9]+,[0-9]+$"
  ARGS --cores 2 --scenario page_fault1_vma_lock --tasks 1,2 --band --format csv)

# Several invocations of each benchmark in --measured-dir are averaged point by point: a copy of
# data/measured's CSVs with every ops/s x 1.1 beside the originals gives means of x 1.05 and sigmas
# of 1/sqrt(2) of one invocation's (read with --no-fit: the points as a fit would take them).
add_test(NAME calibrate_averages_invocations
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_calibrate_average.sh $<TARGET_FILE:mmsim> ${PROJECT_SOURCE_DIR}
          ${MMSIM_CAL_DIR})
set_tests_properties(calibrate_averages_invocations PROPERTIES LABELS fast TIMEOUT 60)

# --no-fit: the stored runs' points, training and held out, and nothing written; other commands refuse it
mmsim_cli(calibrate_no_fit ok
  PATTERNS "^threads: the measured points a fit would take \\(--no-fit: nothing fitted\\)$"
           "^  page_fault1_vma_lock +1 +737128 +3\\.0  training$" "^  page_fault1_vma_lock +2 +1\\.31784e\\+06 +3\\.1  held out$"
  ARGS calibrate --no-fit --machine local --measured-dir ${PROJECT_SOURCE_DIR}/data/measured)
mmsim_cli(calibrate_no_fit_writes_nothing fail
  PATTERNS "^mmsim: --no-fit writes no profile: not with --out-kernel"
  ARGS calibrate --no-fit --machine local --measured-dir ${PROJECT_SOURCE_DIR}/data/measured
       --out-kernel ${MMSIM_CAL_DIR}/never-no-fit.conf)
mmsim_cli(no_fit_elsewhere fail
  PATTERNS "^mmsim: --no-fit is for mmsim calibrate"
  ARGS --no-fit --scenario page_fault1_vma_lock)

# ---- a profile is published only when it describes the machine (issue 14) -----

# An existing profile is kept without --force, refused before any work.
file(WRITE ${MMSIM_CAL_DIR}/existing.conf "# an earlier calibration, to be kept\n")
mmsim_cli(calibrate_keeps_existing_output fail
  PATTERNS "^mmsim: --out-kernel .*/existing\\.conf exists: not overwritten \\(--force to replace it\\)"
  ARGS calibrate --quick --machine local --measured-dir ${PROJECT_SOURCE_DIR}/data/measured
       --out-kernel ${MMSIM_CAL_DIR}/existing.conf)

# calibrate_disturbed.sh MMSIM SOURCE_DIR WORK_DIR refuse|accept|bound: data/measured's CSVs of the
# six benchmarks, with page_fault1's threads point at 1 task (a training point) measured beside
# other load (other_cpus 0.50; refuse, accept), or 1000 times slower than measured, which puts
# fault_entry_exit at the bound of its search (bound).
file(WRITE ${MMSIM_CAL_DIR}/calibrate_disturbed.sh [=[
mmsim=$1 src=$2 dir=$3/disturbed-$4 mode=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/csv" || exit 1
for p in page_fault1- populate-none-thpoff- populate-loop-thpon- populate-madv_populate_write-thpon- \
	populate-madv_populate_write-thpoff- populate-madv_populate_read-thpoff-; do
  cp "$(ls "$src/data/measured/$p"*.csv | sort | tail -1)" "$dir/csv/"
done
f=$(ls "$dir"/csv/page_fault1-*.csv)
if [ "$mode" = bound ]; then
  awk -F, -v OFS=, '/^1,/ { $4 = $4 / 1000 } { print }' "$f" >"$f.new"
else
  sed '/^#run mode=threads tasks=1 /s/other_cpus=[0-9.]*/other_cpus=0.500/' "$f" >"$f.new"
fi
mv "$f.new" "$f"
run() {
  "$mmsim" calibrate --quick --machine local --measured-dir "$dir/csv" --out-kernel "$dir/k.conf" "$@"     >"$dir/out" 2>&1
  rc=$?
  cat "$dir/out"
  echo "[mmsim exit status: $rc]"
}
case $mode in
refuse)
  run
  [ "$rc" -ne 0 ] || fail "a fit to a disturbed training point was published (exit 0)"
  grep -q "1 training point(s) were measured beside other load" "$dir/out" || fail "no reason given"
  [ ! -e "$dir/k.conf" ] || fail "a profile was written"
  ;;
bound)
  run
  [ "$rc" -ne 0 ] || fail "a fit at the bound of its search was published (exit 0)"
  grep -q "fault_entry_exit [0-9]* ended at the bound of the search" "$dir/out" || fail "no reason given"
  [ ! -e "$dir/k.conf" ] || fail "a profile was written"
  ;;
accept)
  run --accept-disturbed
  [ "$rc" -eq 0 ] || fail "--accept-disturbed: exit status $rc"
  grep -q '^# UNTRUSTED: written with --accept-disturbed: 1 training point' "$dir/k.conf" ||
    fail "the profile's header does not say it is untrusted"
  [ "$(grep -c '^# UNTRUSTED: fitted to runs beside other load' "$dir/k.conf")" -eq 5 ] ||
    fail "not every fitted entry is marked: $(grep -B1 '^# \[fitted\]' "$dir/k.conf")"
  out=$("$mmsim" --cores 2 --kernel "$dir/k.conf" --scenario page_fault1_vma_lock --tasks 1,2 --band 2>&1)
  printf '%s\n' "$out"
  printf '%s\n' "$out" | grep -q "band is not trustworthy" || fail "--band does not warn"
  ;;
esac
rm -rf "$dir"
echo ok
]=])
add_test(NAME calibrate_refuses_disturbed
  COMMAND sh ${MMSIM_CAL_DIR}/calibrate_disturbed.sh $<TARGET_FILE:mmsim> ${PROJECT_SOURCE_DIR} ${MMSIM_CAL_DIR} refuse)
set_tests_properties(calibrate_refuses_disturbed PROPERTIES LABELS fast TIMEOUT 60)
# (mode bound, a fit of over a minute here, is for a manual run: tests/test_calibrate.c checks the
# bound test itself)
add_test(NAME calibrate_accept_disturbed_marks
  COMMAND sh ${MMSIM_CAL_DIR}/calibrate_disturbed.sh $<TARGET_FILE:mmsim> ${PROJECT_SOURCE_DIR} ${MMSIM_CAL_DIR} accept)
set_tests_properties(calibrate_accept_disturbed_marks PROPERTIES LABELS harness TIMEOUT 300)

# --band of a profile whose fitted cost sits at the bound of calibrate's search (written before
# profiles were marked): the band is said to be untrustworthy.
file(WRITE ${MMSIM_CAL_DIR}/at_bound.conf [=[
[kernel]
name = at_bound
base = linux-6.8

[costs]
# [fitted] by mmsim calibrate on 2026-12-01T00:00:00Z to the threads runs at tasks 1; 1-sigma 113500..115200+ cycles (linux-6.8 had 450)
fault_entry_exit = 115200
]=])
mmsim_cli(band_at_bound_not_trusted ok
  PATTERNS "band_low +band_high$"
           "--band: WARNING: .*band is not trustworthy: 1 fitted cost.*fault_entry_exit = 115200: at the bound of calibrate's search"
  ARGS --cores 2 --kernel ${MMSIM_CAL_DIR}/at_bound.conf --scenario page_fault1_vma_lock --tasks 1,2 --band)

# calibrate_kill.sh MMSIM WORKDIR SIG: mmsim calibrate stopped by SIG while a benchmark runs; no
# process of the run may survive (the private TMPDIR, unique to this run, is in the benchmark's
# command line) and calibrate's temporary directory must be gone.
file(WRITE ${MMSIM_CAL_DIR}/calibrate_kill.sh [=[
mmsim=$1
sig=$3
mark=ckill-$sig-$$
tmp=$2/$mark
fail() {
  echo "FAIL: $*"
  pkill -KILL -f -- "$mark" 2>/dev/null
  rm -rf "$tmp"
  exit 1
}
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
# background jobs of a non-interactive shell start with SIGINT ignored: give mmsim the default
TMPDIR=$tmp env --default-signal=INT "$mmsim" calibrate --quick --machine local >"$tmp.log" 2>&1 &
pid=$!
i=0
until pgrep -f -- "wis_.*$mark" >/dev/null 2>&1
do
  i=$((i + 1))
  [ $i -le 200 ] || fail "no benchmark started: $(cat "$tmp.log")"
  sleep 0.1
done
kill -"$sig" $pid
wait $pid
echo "mmsim calibrate after SIG$sig: exit status $?"
i=0
while pgrep -f -- "$mark" >/dev/null 2>&1
do
  i=$((i + 1))
  [ $i -le 50 ] || fail "processes survived SIG$sig: $(pgrep -af -- "$mark")"
  sleep 0.1
done
[ -z "$(ls -A "$tmp")" ] || fail "left in TMPDIR: $(ls -AR "$tmp")"
echo "no process and no temporary file left"
rm -rf "$tmp" "$tmp.log"
]=])
foreach(sig INT TERM)
  add_test(NAME calibrate_killed_${sig}
    COMMAND sh ${MMSIM_CAL_DIR}/calibrate_kill.sh $<TARGET_FILE:mmsim> ${MMSIM_CAL_DIR} ${sig})
  set_tests_properties(calibrate_killed_${sig} PROPERTIES LABELS harness TIMEOUT 90)
endforeach()
