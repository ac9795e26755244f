# The fuzz_build test: configures and builds the libFuzzer harnesses in a second tree with clang.
# cmake -DSRC=DIR -DBIN=DIR -DCLANG=PATH -P build.cmake
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_C_COMPILER=${CLANG} -DMMSIM_FUZZ=ON -DBUILD_TESTING=OFF
          -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the fuzz tree ${BIN} failed")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BIN} --parallel 2 --target fuzz_scenario fuzz_profile fuzz_measured fuzz_selftest
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the fuzz harnesses in ${BIN} failed")
endif()
