#
# Live and Python tests: the extension read by other processes while a
# capture appends (Tests/Sql/live_test.py drives them).
#
# LiveWriter is the capture: a hosted program that appends records whose
# content follows from their index (ts = 1000 + 10*i) and commits in a loop
# or on command.  The readers are Debian's python3 (its sqlite3 module,
# which can load extensions) and the sqlite3 shell.
#
#   ctest -R sql_python_          the Python cases
#   ctest -R sql_live_process_    the cross-process cases
#
add_executable(LiveWriter ${CMAKE_CURRENT_SOURCE_DIR}/Sql/LiveWriter.c)
target_link_libraries(LiveWriter PRIVATE TracerStore)
target_compile_options(LiveWriter PRIVATE ${TRACER_WARNINGS})

#
# Debian's python3 first: its sqlite3 module is built with extension
# loading (a python3 from pyenv or python.org often is not).
#
find_program(TRACER_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(TRACER_PYTHON3 python3)
if(NOT TRACER_PYTHON3 OR NOT TRACER_SQLITE3)
  message(WARNING "python3 or sqlite3 not found: the live and Python tests are not run")
  return()
endif()

set(TRACER_PROCESS_TESTS
  python_load_counts
  python_load_by_name
  python_snapshots
  live_python_reader
  live_shell_reader
  live_long_query)

foreach(Case IN LISTS TRACER_PROCESS_TESTS)
  add_test(NAME sql_${Case}
    COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Sql/process_tests.py
            --ext $<TARGET_FILE:tracestore_ext>
            --writer $<TARGET_FILE:LiveWriter>
            --tracestore $<TARGET_FILE:tracestore>
            --sqlite3 ${TRACER_SQLITE3}
            --ftrace ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt
            --work ${CMAKE_CURRENT_BINARY_DIR}/sql-process/${Case}
            ${Case})
  # The Python interpreter is not instrumented: under sanitizers it needs
  # the ASan runtime loaded first, as the sqlite3 shell does.
  set(Env "")
  if(TRACER_SANITIZE AND TRACER_LIBASAN)
    list(APPEND Env "LD_PRELOAD=${TRACER_LIBASAN}" "ASAN_OPTIONS=detect_leaks=0")
  endif()
  if(Case STREQUAL "python_load_by_name")
    list(APPEND Env "LD_LIBRARY_PATH=$<TARGET_FILE_DIR:tracestore_ext>")
  endif()
  set_tests_properties(sql_${Case} PROPERTIES
    LABELS integration
    TIMEOUT 120
    ENVIRONMENT "${Env}")
endforeach()
