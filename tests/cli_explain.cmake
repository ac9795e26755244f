# explain --verify, --locks, --c2c, mmsim c2c and --relieve (issue 16 items 4 and 5)

# the named limiter, relieved, moves throughput more than every other candidate relieved (each
# checked in its own --relieve run), on the seeds' points and page_fault3_vma_lock at 96 threads
add_test(NAME cli_explain_verify
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_verify.sh $<TARGET_FILE:mmsim> ${CMAKE_CURRENT_BINARY_DIR}/verify)
set_tests_properties(cli_explain_verify PROPERTIES TIMEOUT 400)

# by default explain verifies: the table of reliefs, and the limiter with its measured effect (the
# table as printed; check_verify.sh holds its numbers against side runs, here the same point as its
# pf3 case: the mmap_lock convoy, about a third of the CPU time of seed 001's 96-thread point)
mmsim_cli(explain_verify_table ok
  PATTERNS "^verify: each candidate relieved in a side run" "^ +[+-][0-9.]+%  read:mm\\.mmap_lock "
           "^limiter: lock mm\\.mmap_lock: its readers' time \\(relieved x0\\.5: throughput \\+[0-9.]+%\\)"
  LABEL slow ARGS explain --cores 256 --kernel linux-6.16 --scenario page_fault3_vma_lock --tasks 48)

# perf c2c's view of seed 001: has_pinned and write_protect_seq on one line (the 5.11 layout),
# the writer of one and the readers of the other, transfers by distance, false sharing
mmsim_cli(c2c_has_pinned ok
  PATTERNS "^  line mm\\.line1: [0-9.]+ transfers per op, [0-9]+ per second; per op from .*remote [0-9.]+"
           "^    field mm\\.has_pinned$" "^      write  store +1024 per op  internal_get_user_pages_fast"
           "^    field mm\\.write_protect_seq$" "^      read   load +1024 per op  lockless_pages_from_mm"
           "false sharing: mm\\.has_pinned, written 1024 times per op, shares the line with mm\\.write_protect_seq"
  ARGS c2c --machine amd-2s-128c --scenario has_pinned_write --tasks 256)
# the fixed kernel reads has_pinned: no store, so no false sharing is flagged on its line
mmsim_cli(c2c_has_pinned_check ok
  PATTERNS "^    field mm\\.has_pinned$" "^      read   load +1024 per op  internal_get_user_pages_fast"
  ARGS c2c --machine amd-2s-128c --scenario has_pinned_check --tasks 256)
# every fault reads mm->pgd (__handle_mm_fault's pgd_offset); 6.4-6.8 lay it out on the line that
# every fault's prefetchw(&mm->mmap_lock) takes exclusive, 6.16+ (pgd @120) on the line before
mmsim_cli(c2c_pgd_beside_prefetchw ok
  PATTERNS "^  line mm\\.line2: " "^    field mm\\.pgd$" "^      read   load +1 per op  __handle_mm_fault"
           "false sharing: mm\\.mmap_lock\\.count, written 1 times per op, shares the line with mm\\.pgd"
  ARGS c2c --machine icelake-48c --scenario page_fault1_vma_lock --tasks 4)
mmsim_cli(show_pgd_off_the_count_line ok
  PATTERNS "^layout +mm\\.pgd +mm\\.line1 +derived +\\[derived\\] pgd @120"
  ARGS show --kernel linux-6.16)

# perf lock contention's view: the convoy's waits asleep (most of them, at 16 threads of
# page_fault2), a log2 histogram
mmsim_cli(explain_locks ok
  PATTERNS "^  +[0-9]+ +[0-9]+ +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s .*mm\\.mmap_lock \\(rwsem\\)$"
           "^  mm\\.mmap_lock: wait times \\(ns\\) of its [0-9]+ contended acquisitions; [5-9][0-9]% of the waiting time asleep"
           "^ +[0-9]+ \\.\\. [0-9]+ +[0-9]+ \\|#+ *\\|$"
  ARGS explain --machine icelake-48c --scenario page_fault2_mmap_lock --tasks 16 --locks --no-verify)

# --relieve: a run's what-if; the named resource must exist; the argument's form is checked
mmsim_cli(relieve_unknown_lock fail
  PATTERNS "page_fault\\.scn: no lock 'nosuch' to relieve \\(it has: mm\\.mmap_lock, "
  ARGS --machine icelake-48c --scenario page_fault4_vma_lock --tasks 2 --relieve hold:nosuch --events 20000)
mmsim_cli(relieve_bad_kind fail
  PATTERNS "--relieve bogus:x: expected line:NAME, hold:LOCK, read:LOCK or wake:LOCK"
  ARGS --scenario page_fault4_vma_lock --tasks 2 --relieve bogus:x)
mmsim_cli(relieve_bad_factor fail
  PATTERNS "--relieve line:mm\\.line1=2: factor '2': expected a number above 0, at most 1"
  ARGS --scenario page_fault4_vma_lock --tasks 2 --relieve line:mm.line1=2)
mmsim_cli(verify_not_for_run fail
  PATTERNS "--no-verify is for mmsim explain"
  ARGS --scenario page_fault4_vma_lock --tasks 2 --no-verify)

# --layout-what-if: every curve again under its kernel with a field moved, and the gain table
# (a layout what-if in one command, issue 16 item 3); a field the scenario lacks is refused
mmsim_cli(layout_whatif ok
  PATTERNS "^has_pinned_write@layout +\\[pin_fast, kernel linux-5\\.11, threads\\]"
           "^has_pinned_write@layout over has_pinned_write +\\[threads\\]"
  ARGS --machine amd-2s-128c --scenario has_pinned_write --tasks 1,64 --layout-what-if mm.has_pinned=own-line
       --events 20000)
mmsim_cli(layout_whatif_unknown_field fail
  PATTERNS "--layout-what-if: builtin:scenarios/pin_fast\\.scn has no field 'mm\\.has_pined' \\(did you mean 'mm\\.has_pinned'\\?\\)"
  ARGS --machine amd-2s-128c --scenario has_pinned_write --tasks 2 --layout-what-if mm.has_pined=own-line)
mmsim_cli(layout_whatif_malformed fail
  PATTERNS "--layout-what-if 'mm\\.has_pinned': expected FIELD=own-line or FIELD=LINE"
  ARGS --machine amd-2s-128c --scenario has_pinned_write --tasks 2 --layout-what-if mm.has_pinned)

# explain shows the memory bandwidth of the first SIM_MAX_BW_NODES (64) NUMA nodes and says how
# many more a machine has (it showed the first 8 and said nothing of the rest)
file(READ ${PROJECT_SOURCE_DIR}/data/machines/icelake-48c.conf MMSIM_ICX_HW)
string(REGEX REPLACE "\ntopology = [^\n]*\n" "\ntopology = pack:1 numa:66 l3:1 core:1 pu:1\n" MMSIM_MANY_NODES_HW
       "${MMSIM_ICX_HW}")
file(WRITE ${MMSIM_CLI_DIR}/many_nodes.conf "${MMSIM_MANY_NODES_HW}")
mmsim_cli(explain_many_nodes ok
  PATTERNS "^  memory bandwidth of node 63 " "^  \\(and 2 NUMA node\\(s\\) more, whose memory bandwidth is not shown"
  ARGS explain --machine ${MMSIM_CLI_DIR}/many_nodes.conf --scenario page_fault1_mmap_lock --mode processes --tasks 66
       --no-verify --events 20000)
