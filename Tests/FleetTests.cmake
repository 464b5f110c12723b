#
# Issue 19: host identity in the session header, many sessions in one SQL
# query (tracestore_attach_sessions), and tracestore push into a real
# clickhouse-server (Tests/Fleet/fleet_test.py; the server is started by
# the fixture below on free loopback ports in a temporary directory, shared
# by the cases, and stopped after them; `sharded` starts two of its own).
# Cases that need the server exit 77 when clickhouse-server is missing
# (CI installs clickhouse-server and clickhouse-client).
#
#   ctest -R fleet\\.
#
if(NOT TRACER_PYTHON3)
  return()
endif()
set(TRACER_FLEET_WORK ${CMAKE_CURRENT_BINARY_DIR}/fleet-work)
add_test(NAME fleet.server_start
  COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Fleet/chserver.py
          start ${TRACER_FLEET_WORK}/server)
set_tests_properties(fleet.server_start PROPERTIES LABELS integration TIMEOUT 180
  FIXTURES_SETUP fleet_server)
add_test(NAME fleet.server_stop
  COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Fleet/chserver.py
          stop ${TRACER_FLEET_WORK}/server)
set_tests_properties(fleet.server_stop PROPERTIES LABELS integration TIMEOUT 60
  FIXTURES_CLEANUP fleet_server)

foreach(case host_header sessions_union sessions_live push_samples push_record push_python
             exactly_once follow server_errors sharded)
  add_test(NAME fleet.${case}
    COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Fleet/fleet_test.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext>
            $<TARGET_FILE:LiveWriter> ${TRACER_DATA_DIR} ${TRACER_SHARED_DIR}
            ${TRACER_FLEET_WORK}/${case} ${case})
  set_tests_properties(fleet.${case} PROPERTIES LABELS integration TIMEOUT 300
    SKIP_RETURN_CODE 77)
  # Python loads the extension: under sanitizers it needs the ASan runtime
  # first (chserver.py starts clickhouse-server without it).
  if(TRACER_SANITIZE AND TRACER_LIBASAN)
    set_tests_properties(fleet.${case} PROPERTIES ENVIRONMENT
      "LD_PRELOAD=${TRACER_LIBASAN};ASAN_OPTIONS=detect_leaks=0")
  endif()
  if(NOT case MATCHES "^(host_header|sessions_union|sessions_live|sharded)$")
    set_tests_properties(fleet.${case} PROPERTIES FIXTURES_REQUIRED fleet_server)
  endif()
  # tracestore record (as root) uses tracefs, as the record tests do.
  if(case MATCHES "^(push_record|follow)$")
    set_tests_properties(fleet.${case} PROPERTIES RESOURCE_LOCK tracefs_toplevel)
  endif()
endforeach()

# Benchmark: push of a 10 M-row session against clickhouse-client loading
# the same rows from TSV, and a fleet query in ClickHouse and SQLite.
# `ctest -L bench -R push -V`, or Tests/Bench/bench_push.sh TRACESTORE EXT
# BENCHPLOTSESSION N DIR.
add_test(NAME bench.push
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_push.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:tracestore_ext> $<TARGET_FILE:BenchPlotSession> 10000000
          ${CMAKE_CURRENT_BINARY_DIR}/bench-push)
set_tests_properties(bench.push PROPERTIES LABELS bench TIMEOUT 1800 RUN_SERIAL TRUE
  SKIP_RETURN_CODE 77)
