# mmsim sweep and mmsim merge (tests/check_sweep.sh): a sweep run here and the same sweep run point
# by point from --emit-jobs (GNU parallel when installed, else sh) and merged give the same bytes;
# and the bad inputs are refused with their file and line.  Included from tests/CMakeLists.txt.
foreach(case IN ITEMS bytes extras errors)
  add_test(NAME cli_sweep_${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_sweep.sh $<TARGET_FILE:mmsim> ${CMAKE_CURRENT_BINARY_DIR} ${case})
  set_tests_properties(cli_sweep_${case} PROPERTIES LABELS fast TIMEOUT 120)
endforeach()
