#
# Concurrency stress (Tests/Stress/TestStress.c): one writer thread per
# store of one session, 8 reader processes running random SQL through the
# extension (linked in) and checking every result from arithmetic.
#
#   ctest -R stress.                       the CI run (integration)
#   build/TestStress --records 50000000 --pace 0
#                                          the long run (docs/reliability.md)
#
add_executable(TestStress ${CMAKE_CURRENT_SOURCE_DIR}/Stress/TestStress.c)
target_link_libraries(TestStress PRIVATE TracerSqlite3ExtStatic pthread)
target_include_directories(TestStress PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/Store ${CMAKE_SOURCE_DIR})
target_compile_options(TestStress PRIVATE ${TRACER_WARNINGS})

#
# 3 million records over 15 s (RelWithDebInfo); under ASan+UBSan, where a
# reader checks a tenth as many rows per second, 600,000.
#
if(TRACER_SANITIZE)
  set(TRACER_STRESS_RECORDS 600000)
else()
  set(TRACER_STRESS_RECORDS 3000000)
endif()
add_test(NAME stress.sql_readers
  COMMAND TestStress --records ${TRACER_STRESS_RECORDS} --readers 8
          --pace 15)
set_tests_properties(stress.sql_readers PROPERTIES
  LABELS integration
  TIMEOUT 180)
