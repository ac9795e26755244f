# Every run bounded, nothing left behind (issue 14).  Included from tests/CMakeLists.txt, after
# cli_tests.cmake (mmsim_cli).

# refused before any simulation starts, naming the input that makes the run large
mmsim_cli(work_events_refused fail
  PATTERNS "more than --max-work 1e\\+11 allows" "1e\\+12 events measured \\(--events\\) at 1 task"
  ARGS --scenario has_pinned_write --tasks 1 --events 1000000000000)
mmsim_cli(work_ops_refused fail
  PATTERNS "1000000000000 operations per task \\(--ops-per-task"
  ARGS --scenario has_pinned_write --tasks 1 --ops-per-task 1000000000000)
mmsim_cli(work_nested_repeat_refused fail
  PATTERNS "one operation is 2.42e\\+24 steps: .*nested_repeat.scn:11: repeat 1099511627776, .*nested_repeat.scn:12: repeat 1099511627776"
  ARGS --scenario ${CMAKE_CURRENT_SOURCE_DIR}/data/nested_repeat.scn --tasks 1)
mmsim_cli(work_max_work_lowered fail
  PATTERNS "more than --max-work 1000 allows"
  ARGS --scenario has_pinned_write --tasks 1 --max-work 1000)
mmsim_cli(work_max_work_bad fail
  PATTERNS "--max-work '0': expected a number from 1 to 1e18"
  ARGS --scenario has_pinned_write --max-work 0)

# --plot: an existing file is kept without --force, replaced with it, and no side file remains
add_test(NAME cli_plot_not_overwritten
  COMMAND sh -c [=[
d=$1/plot_overwrite
rm -rf "$d" && mkdir -p "$d" || exit 1
echo keep > "$d/p.png"
"$0" --scenario has_pinned_write --tasks 1,2 --plot "$d/p.png" > "$d/out" 2>&1
rc=$?
cat "$d/out"
[ "$rc" -ne 0 ] || { echo "FAIL: an existing plot was overwritten without --force"; exit 1; }
grep -q 'exists: not overwritten (--force to replace it)' "$d/out" || { echo "FAIL: no message"; exit 1; }
[ "$(cat "$d/p.png")" = keep ] || { echo "FAIL: the file changed"; exit 1; }
"$0" --scenario has_pinned_write --tasks 1,2 --plot "$d/p.png" --force > /dev/null || exit 1
[ "$(cat "$d/p.png")" != keep ] || { echo "FAIL: --force did not replace it"; exit 1; }
[ "$(ls "$d" | grep -c tmp-)" -eq 0 ] || { echo "FAIL: a side file remains"; ls "$d"; exit 1; }
rm -rf "$d"
]=] $<TARGET_FILE:mmsim> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli_plot_not_overwritten PROPERTIES LABELS fast TIMEOUT 60)

foreach(sig IN ITEMS INT TERM)
  foreach(what IN ITEMS plot plotset run job)
    add_test(NAME cli_interrupted_${what}_${sig}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_interrupt.sh $<TARGET_FILE:mmsim>
              ${CMAKE_CURRENT_BINARY_DIR}/interrupt_${what}_${sig} ${what} ${sig})
    set_tests_properties(cli_interrupted_${what}_${sig} PROPERTIES LABELS fast TIMEOUT 120)
  endforeach()
endforeach()

# no fixed buffer cuts a long option: 3000 task counts then one too many for the machine (cut at
# 4 KiB, the last was never seen), and a scenario path of over 1 KiB
add_test(NAME cli_long_tasks_not_cut
  COMMAND sh -c [=[
list=$(awk 'BEGIN { for (i = 0; i < 3000; i++) printf "1,"; printf "999" }')
out=$("$0" --scenario has_pinned_write --tasks "$list" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: accepted (the tail of --tasks was dropped)"; exit 1; }
printf '%s\n' "$out" | grep -q '999 tasks, but the machine has 64 logical CPUs' || exit 1
]=] $<TARGET_FILE:mmsim>)
set_tests_properties(cli_long_tasks_not_cut PROPERTIES LABELS fast TIMEOUT 60)
add_test(NAME cli_long_scenario_not_cut
  COMMAND sh -c [=[
p=$(awk -v d="$1" 'BEGIN { printf "%s", d; for (i = 0; i < 600; i++) printf "/."; printf "/pin_fast.scn" }')
out=$("$0" --scenario "$p" --tasks 1 2>&1)
rc=$?
printf '%s\n' "$out" | tail -3
[ "$rc" -eq 0 ] || { echo "FAIL: a scenario path of ${#p} bytes was refused"; exit 1; }
]=] $<TARGET_FILE:mmsim> ${PROJECT_SOURCE_DIR}/scenarios)
set_tests_properties(cli_long_scenario_not_cut PROPERTIES LABELS fast TIMEOUT 60)
