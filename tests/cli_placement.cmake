# CLI tests of task placement (--placement, 'placement' in a scenario) and of package hop matrices
# ([machine] package_hops, [latency] remote_far).  Included from tests/CMakeLists.txt after
# cli_tests.cmake, whose mmsim_cli() and MMSIM_CLI_DIR they use.

set(HOP_MACHINE_HEAD
  "[machine]\nname = eight\ndescription = 8 sockets, 3 links each\ntopology = pack:8 numa:1 l3:1 core:2 pu:1\n")
string(CONCAT HOP_MACHINE_TAIL
  "[latency]\nself = 1\nsmt = 10\nl3 = 50\npackage = 50\nremote = 160\nremote_far = 215\n"
  "memory_local = 90\nmemory_remote = 150\natomic = 5\n"
  "[coherence]\narbitration = local-first\nbatch_limit = 8\nhome_snoop = 0\n"
  "[bandwidth]\nnode_gbs = 50\ntask_gbs = 10\n[frequency]\n1 = 2.8\n"
  "[cpu]\nsmt_factor = 1.5\npause_ns = 10\nwakeup_ns = 5000\njitter = 0.02\n")
# the Wagner graph: package p one hop from p +- 1 and p + 4 (mod 8), two hops from the rest
set(WAGNER "0 1 2 2 1 2 2 1/1 0 1 2 2 1 2 2/2 1 0 1 2 2 1 2/2 2 1 0 1 2 2 1/1 2 2 1 0 1 2 2/2 1 2 2 1 0 1 2/2 2 1 2 2 1 0 1/1 2 2 1 2 2 1 0")
file(WRITE ${MMSIM_CLI_DIR}/eight.conf "${HOP_MACHINE_HEAD}package_hops = ${WAGNER}\n${HOP_MACHINE_TAIL}")
file(WRITE ${MMSIM_CLI_DIR}/eight_asym.conf
  "${HOP_MACHINE_HEAD}package_hops = 0 1 2 2 1 2 2 1/2 0 1 2 2 1 2 2/2 1 0 1 2 2 1 2/2 2 1 0 1 2 2 1/1 2 2 1 0 1 2 2/2 1 2 2 1 0 1 2/2 2 1 2 2 1 0 1/1 2 2 1 2 2 1 0\n${HOP_MACHINE_TAIL}")
file(WRITE ${MMSIM_CLI_DIR}/eight_small.conf "${HOP_MACHINE_HEAD}package_hops = 0 1/1 0\n${HOP_MACHINE_TAIL}")
string(REPLACE "remote_far = 215\n" "" HOP_TAIL_NO_FAR "${HOP_MACHINE_TAIL}")
file(WRITE ${MMSIM_CLI_DIR}/eight_no_far.conf "${HOP_MACHINE_HEAD}package_hops = ${WAGNER}\n${HOP_TAIL_NO_FAR}")
file(WRITE ${MMSIM_CLI_DIR}/eight_ones.conf
  "${HOP_MACHINE_HEAD}package_hops = 0 1 1 1 1 1 1 1/1 0 1 1 1 1 1 1/1 1 0 1 1 1 1 1/1 1 1 0 1 1 1 1/1 1 1 1 0 1 1 1/1 1 1 1 1 0 1 1/1 1 1 1 1 1 0 1/1 1 1 1 1 1 1 0\n${HOP_TAIL_NO_FAR}")
file(WRITE ${MMSIM_CLI_DIR}/spread.scn
  "scenario spreadtest\nplacement spread\nvariant v kernel 5.11 \"test\"\nfield f scope mm\nbegin\n  fn atomic f\n"
  "  fn compute gup_test_ioctl_exit\n")
file(WRITE ${MMSIM_CLI_DIR}/bad_placement.scn
  "scenario badplace\nplacement sideways\nvariant v kernel 5.11 \"test\"\nfield f scope mm\nbegin\n  fn atomic f\n")

# ---- placement --------------------------------------------------------------------------------

mmsim_cli(placement_bad_option fail
  PATTERNS "^mmsim: --placement 'pinned': expected wis \\(pinned as will-it-scale pins them\\) or spread"
  ARGS --scenario has_pinned_write --placement pinned)
mmsim_cli(placement_bad_in_scenario fail
  PATTERNS "bad_placement\\.scn:2:11: expected 'wis' .* or 'spread' .* after 'placement', found 'sideways'"
  ARGS --scenario ${MMSIM_CLI_DIR}/bad_placement.scn --tasks 2)
# the NUMA allowance keeps 2 threads on package 0 of the 2-socket AMD machine (imb_numa_nr 16)
mmsim_cli(placement_explain_spread ok
  PATTERNS "^  placement spread \\(unpinned, where the scheduler's balancing leaves them\\): tasks per package 2 0, 0 cores"
  ARGS explain --machine amd-2s-128c --scenario has_pinned_write --tasks 2 --placement spread --events 20000)
mmsim_cli(placement_explain_csv ok
  PATTERNS "^# placement spread .*: tasks per package 3 2, 0 cores"
  ARGS explain --machine amd-2s-128c --scenario has_pinned_write --tasks 5 --placement spread --format csv
       --events 20000)
mmsim_cli(placement_from_scenario ok
  PATTERNS "; tasks placed: spread \\(unpinned" "^ +4 +[1-9]"
  ARGS --machine amd-2s-128c --scenario ${MMSIM_CLI_DIR}/spread.scn --tasks 1,4 --events 20000)
mmsim_cli(placement_option_over_scenario ok
  PATTERNS "^# machine: amd-2s-128c .* 256 CPUs$"
  ARGS --machine amd-2s-128c --scenario ${MMSIM_CLI_DIR}/spread.scn --tasks 1,4 --placement wis --events 20000)
mmsim_cli(placement_mixed_curves ok
  PATTERNS "; tasks placed: has_pinned_write wis, spreadtest:v spread$|; tasks placed: has_pinned_write wis, v spread$"
  ARGS --machine nehalem-i7-920 --scenario has_pinned_write,${MMSIM_CLI_DIR}/spread.scn --tasks 2 --events 20000)

# ---- packages two hops apart ------------------------------------------------------------------

mmsim_cli(hops_machine_runs ok
  PATTERNS "^# machine: eight .*8 packages" "^ +16 +[1-9]"
  ARGS --machine ${MMSIM_CLI_DIR}/eight.conf --scenario has_pinned_write --tasks 1,16 --events 20000)
mmsim_cli(hops_show ok
  PATTERNS "^machine +package_hops +0 1 2 2 1 2 2 1/" "^latency +remote_far +215 "
  ARGS show --machine ${MMSIM_CLI_DIR}/eight.conf)
mmsim_cli(hops_asymmetric fail
  PATTERNS "eight_asym\\.conf:5: \\[machine\\] package_hops: 1 hops from package 0 to 1 but 2 back \\(expected a symmetric matrix\\)"
  ARGS --machine ${MMSIM_CLI_DIR}/eight_asym.conf --scenario has_pinned_write --tasks 2)
mmsim_cli(hops_wrong_size fail
  PATTERNS "eight_small\\.conf:5: \\[machine\\] package_hops: 2 rows for 2 packages, but the topology has 8"
  ARGS --machine ${MMSIM_CLI_DIR}/eight_small.conf --scenario has_pinned_write --tasks 2)
mmsim_cli(hops_need_remote_far fail
  PATTERNS "eight_no_far\\.conf: missing key 'remote_far' in section \\[latency\\]: package_hops \\(line 5\\) puts packages 0 and 2 two hops apart"
  ARGS --machine ${MMSIM_CLI_DIR}/eight_no_far.conf --scenario has_pinned_write --tasks 2)
mmsim_cli(hops_all_one_without_remote_far ok
  PATTERNS "^# machine: eight "
  ARGS --machine ${MMSIM_CLI_DIR}/eight_ones.conf --scenario has_pinned_write --tasks 2 --events 20000)
