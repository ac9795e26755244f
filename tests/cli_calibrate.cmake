# CLI tests of mmsim calibrate.  Included from tests/CMakeLists.txt after cli_tests.cmake, whose
# mmsim_cli() and MMSIM_CLI_SH they use.  The fast ones fail before any measuring; those that
# measure this machine or fit are labelled harness.
set(MMSIM_CAL_DIR ${CMAKE_CURRENT_BINARY_DIR}/cli_calibrate)
file(MAKE_DIRECTORY ${MMSIM_CAL_DIR})

mmsim_cli(calibrate_bad_fit_tasks fail
  PATTERNS "^mmsim: --fit-tasks: 'x' is not a task count"
  ARGS calibrate --fit-tasks 1,x)
mmsim_cli(calibrate_unwritable_output fail
  PATTERNS "^mmsim: /nonexistent/dir/k.conf: cannot be written"
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
mmsim_cli(calibrate_in_help ok
  PATTERNS "mmsim calibrate \\[--out-machine FILE\\]" "--measured-dir DIR"
  ARGS --help)

# From this machine's earlier runs (data/measured), quick fit: the fitted kernel profile must be
# accepted by --kernel and show its [fitted] costs with their provenance; the report holds the
# held-out 2-task points as predictions and says why the USL is not shown with one training count.
mmsim_cli(calibrate_from_measured ok LABEL harness
  PATTERNS "fault_entry_exit +450 +[0-9]+ " "page_fault1_vma_lock +2 .* prediction$"
           "USL baseline not shown: .*three training task counts \\(1 given\\)"
           "written: ${MMSIM_CAL_DIR}/fitted.conf"
  ARGS calibrate --quick --machine local --measured-dir ${PROJECT_SOURCE_DIR}/data/measured
       --out-kernel ${MMSIM_CAL_DIR}/fitted.conf)
set_tests_properties(cli_calibrate_from_measured PROPERTIES FIXTURES_SETUP calibrated_kernel)
mmsim_cli(calibrate_kernel_accepted ok LABEL harness
  PATTERNS "fault_entry_exit .* fitted .*\\[fitted\\] by mmsim calibrate" "thps_per_map"
  ARGS show --kernel ${MMSIM_CAL_DIR}/fitted.conf)
set_tests_properties(cli_calibrate_kernel_accepted PROPERTIES FIXTURES_REQUIRED calibrated_kernel)

# The whole pipeline on this machine: mmsim-measure --quick, the benchmarks (short runs), the fit;
# both profiles accepted by --machine and --kernel.
mmsim_cli(calibrate_here ok LABEL harness
  PATTERNS "measuring this machine" "benchmark 4/4" "written: "
  ARGS calibrate --quick --out-machine ${MMSIM_CAL_DIR}/here_machine.conf
       --out-kernel ${MMSIM_CAL_DIR}/here_kernel.conf)
set_tests_properties(cli_calibrate_here PROPERTIES FIXTURES_SETUP calibrated_here RUN_SERIAL TRUE)
mmsim_cli(calibrate_here_accepted ok LABEL harness
  PATTERNS "^ +2 +[0-9]+"
  ARGS --machine ${MMSIM_CAL_DIR}/here_machine.conf --kernel ${MMSIM_CAL_DIR}/here_kernel.conf
       --scenario populate_mmap_thp_step --tasks 1,2)
set_tests_properties(cli_calibrate_here_accepted PROPERTIES FIXTURES_REQUIRED calibrated_here)

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

# --band: the columns, the CSV's '# band:' lines, and the note when no cost carries a range.
mmsim_cli(band_without_fitted_costs ok
  PATTERNS "band_low +band_high$" "has no \\[fitted\\] cost with a 1-sigma range"
  ARGS --cores 2 --scenario page_fault1_vma_lock --tasks 1,2 --band)
mmsim_cli(band_csv ok
  PATTERNS "^tasks,processes,processes_idle,threads,threads_idle,linear$" "^# band: 2,0,0,[0-9]+,[0-9]+$"
  ARGS --cores 2 --scenario page_fault1_vma_lock --tasks 1,2 --band --format csv)

# Several invocations of each benchmark in --measured-dir are averaged point by point: a copy of
# data/measured's CSVs with every ops/s x 1.1 beside the originals gives means of x 1.05 and sigmas
# of 1/sqrt(2) of one invocation's.
add_test(NAME calibrate_averages_invocations
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_calibrate_average.sh $<TARGET_FILE:mmsim> ${PROJECT_SOURCE_DIR}
          ${MMSIM_CAL_DIR})
set_tests_properties(calibrate_averages_invocations PROPERTIES LABELS harness TIMEOUT 300)
