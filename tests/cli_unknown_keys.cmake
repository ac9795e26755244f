# A misspelled profile key is refused (issue 16): every section of a machine and of a kernel
# profile, by a run and by show, with FILE:LINE:COL and the nearest name; included at the end of
# cli_tests.cmake.
add_test(NAME cli_unknown_profile_keys
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_unknown_keys.sh $<TARGET_FILE:mmsim> ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/unknown_keys)
set_tests_properties(cli_unknown_profile_keys PROPERTIES LABELS fast TIMEOUT 120)
