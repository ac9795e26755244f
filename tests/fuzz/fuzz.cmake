# The fuzz smoke tests.  Included from tests/fuzz/CMakeLists.txt (a clang tree with MMSIM_FUZZ=ON)
# and from tests/CMakeLists.txt (any other tree, when clang is present: the harnesses are then built
# in a second tree, BUILD/fuzz, by the fuzz_build test).
#
# mmsim_fuzz_test(NAME FUZZER RUNS [EXPECT regex] SEEDS dir...): run FUZZER over the seed
# directories, then over RUNS inputs in all; fails when the harness crashes, leaks, hangs or a
# sanitizer reports (or, with EXPECT, when it does not fail with output matching the regex).
set(MMSIM_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(MMSIM_FUZZ_HARNESSES fuzz_scenario fuzz_profile fuzz_measured fuzz_selftest)
set(MMSIM_FUZZ_SEEDS_fuzz_scenario ${PROJECT_SOURCE_DIR}/scenarios ${MMSIM_FUZZ_DIR}/corpus/scenario)
set(MMSIM_FUZZ_SEEDS_fuzz_profile
  ${PROJECT_SOURCE_DIR}/data/machines ${PROJECT_SOURCE_DIR}/data/kernels ${MMSIM_FUZZ_DIR}/corpus/profile)
set(MMSIM_FUZZ_SEEDS_fuzz_measured
  ${PROJECT_SOURCE_DIR}/data/reference ${PROJECT_SOURCE_DIR}/data/measured ${MMSIM_FUZZ_DIR}/corpus/measured)
set(MMSIM_FUZZ_SEEDS_fuzz_selftest ${MMSIM_FUZZ_DIR}/corpus/selftest)
# Inputs each harness runs, seeds included: 1 to 4 s of one idle core each.
set(MMSIM_FUZZ_RUNS 20000 CACHE STRING "inputs each fuzz smoke test runs, seeds included")

function(mmsim_fuzz_test name fuzzer runs)
  cmake_parse_arguments(F "" "EXPECT" "SEEDS" ${ARGN})
  string(JOIN "|" seeds ${F_SEEDS})
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DFUZZER=${fuzzer} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/${name}.run
            -DRUNS=${runs} -DSEEDS=${seeds} "-DEXPECT=${F_EXPECT}" -P ${MMSIM_FUZZ_DIR}/run.cmake)
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()

# mmsim_fuzz_tests(DIR): one smoke test per harness, the harness binaries being DIR/NAME (a
# generator expression is fine).
function(mmsim_fuzz_tests dir)
  foreach(h IN LISTS MMSIM_FUZZ_HARNESSES)
    if(h STREQUAL fuzz_selftest)
      # a harness with a planted heap overflow: run.cmake must report it
      mmsim_fuzz_test(${h} ${dir}/${h} 100 EXPECT "AddressSanitizer: heap-buffer-overflow"
        SEEDS ${MMSIM_FUZZ_SEEDS_${h}})
    else()
      mmsim_fuzz_test(${h} ${dir}/${h} ${MMSIM_FUZZ_RUNS} SEEDS ${MMSIM_FUZZ_SEEDS_${h}})
    endif()
  endforeach()
endfunction()
