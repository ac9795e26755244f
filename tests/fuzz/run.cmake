# One fuzz smoke test: cmake -DFUZZER=BIN -DWORK=DIR -DRUNS=N -DSEEDS="dir|dir..." [-DEXPECT=regex]
# -P run.cmake.  libFuzzer reads the seed directories, then runs until N inputs in all; inputs
# that reach new code go to WORK/corpus (emptied first, so every run starts from the seeds alone
# and the committed corpus is never written), a crashing one to WORK/.
string(REPLACE "|" ";" seeds "${SEEDS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
set(ENV{ASAN_OPTIONS} "detect_leaks=1:allocator_may_return_null=1")
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1")
execute_process(
  COMMAND ${FUZZER} -seed=1 -runs=${RUNS} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
          -artifact_prefix=${WORK}/ ${WORK}/corpus ${seeds}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(EXPECT)
  if(rc EQUAL 0 OR NOT out MATCHES "${EXPECT}")
    message(FATAL_ERROR "${FUZZER}: expected a failure matching '${EXPECT}', got status ${rc}")
  endif()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (status ${rc}); the input is in ${WORK}/ (crash-*, leak-*, "
                      "timeout-*): run '${FUZZER} FILE' to reproduce")
endif()
