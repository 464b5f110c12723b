#
# SQL tests: the extension (tracestore.so) in the real sqlite3 shell.
#
# sql_setup imports the ftrace text capture with the tracestore command
# into a session under the build tree; every other case is one
# Tests/Sql/NAME.sql run by Tests/Sql/run_sql_test.sh against that session
# (see the driver for how a case is checked).  Expected output comes from an
# oracle computed at test time from the capture itself (NAME.oracle: sed,
# awk, ls, stat), or for push-down cases from the same query over a plain
# SQLite copy of the table (the .expected file only says "equal").
#
# TestSqlLive (sql_live_*) runs the extension in one process with a writer
# that appends while statements are half-way through, to check that a
# statement sees one snapshot and the next one sees what was committed.
#
#   ctest -L integration -R sql_            all of them
#   ctest -R sql_error_                     the error cases
#

add_executable(TestSqlLive ${CMAKE_CURRENT_SOURCE_DIR}/Sql/TestSqlLive.c)
target_link_libraries(TestSqlLive PRIVATE TracerSqlite3ExtStatic)
target_compile_options(TestSqlLive PRIVATE ${TRACER_WARNINGS})

foreach(Case scan_keeps_snapshot statement_one_snapshot two_tables_one_store
             ts_ranges_while_growing join_plan_after_growth)
  add_test(NAME sql_live_${Case} COMMAND TestSqlLive ${Case})
  set_tests_properties(sql_live_${Case} PROPERTIES
    LABELS integration
    TIMEOUT 120)
endforeach()

#
# TestSqlPushdown (sql_pushdown_*) checks push-down: generated queries over
# stores of every ts shape against plain SQLite copies, rows visited on
# 10-million-record stores, join plans, and ORDER BY ts on a store that
# turned unsorted after the statement was planned.
#
add_executable(TestSqlPushdown ${CMAKE_CURRENT_SOURCE_DIR}/Sql/TestSqlPushdown.c)
target_link_libraries(TestSqlPushdown PRIVATE TracerSqlite3ExtStatic)
target_compile_options(TestSqlPushdown PRIVATE ${TRACER_WARNINGS})

foreach(Case equiv_sorted equiv_shuffled equiv_shuffled_dups equiv_two_runs
             equiv_random equiv_descending equiv_all_equal equiv_one_row
             equiv_empty order_ts_after_unsorted order_ts_ties_after_unsorted
             visited_sorted_10m
             visited_unsorted_10m joins)
  add_test(NAME sql_pushdown_${Case} COMMAND TestSqlPushdown ${Case})
  set_tests_properties(sql_pushdown_${Case} PROPERTIES
    LABELS integration
    TIMEOUT 180)
endforeach()

find_program(TRACER_SQLITE3_SHELL sqlite3)
if(NOT TRACER_SQLITE3_SHELL)
  message(WARNING "sqlite3 shell not found: the SQL tests are not run")
  return()
endif()

set(TRACER_SQL_DIR ${CMAKE_CURRENT_SOURCE_DIR}/Sql)
set(TRACER_SQL_WORK ${CMAKE_CURRENT_BINARY_DIR}/sql)
set(TRACER_SQL_SESSION ${TRACER_SQL_WORK}/capture-1.trace)
set(TRACER_SQL_FTRACE ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt)

set(TRACER_SQL_DRIVER
  sh ${TRACER_SQL_DIR}/run_sql_test.sh
  --sqlite3 ${TRACER_SQLITE3_SHELL}
  --ext $<TARGET_FILE:tracestore_ext>
  --tracestore $<TARGET_FILE:tracestore>
  --session ${TRACER_SQL_SESSION}
  --ftrace ${TRACER_SQL_FTRACE}
  --work ${TRACER_SQL_WORK})

add_test(NAME sql_setup COMMAND ${TRACER_SQL_DRIVER} setup)
set_tests_properties(sql_setup PROPERTIES
  FIXTURES_SETUP tracer_sql_session
  LABELS integration
  TIMEOUT 120)

#
# Cases checked against an oracle or an expected output.
#
set(TRACER_SQL_CASES
  attach
  attach_schema
  attach_switch
  manual_create
  columns
  page_fault_counts
  page_fault_rows
  sched_switch_count
  sched_switch_rows
  ftrace_event_kvm_counts
  ftrace_event_rows
  all_events_accounted
  store_info_names
  store_info_records
  store_info_bytes
  rowid_pushdown
  ts_pushdown
  pushdown_plan
  joins)

#
# Cases that must fail with an SQL error that names the cause, and must
# never crash sqlite3.
#
set(TRACER_SQL_ERROR_CASES
  error_missing_path
  error_not_a_session
  error_file_not_session
  error_session_header
  error_corrupt_magic
  error_bad_version
  error_header_checksum
  error_commit_slots
  error_truncated_header
  error_truncated_records
  error_dangling_string
  error_no_such_store
  error_vtab_arguments
  error_null_path
  error_no_such_schema
  error_name_conflict
  error_read_only
  error_attach_in_use
  error_attach_other_session)

foreach(Case IN LISTS TRACER_SQL_CASES TRACER_SQL_ERROR_CASES)
  add_test(NAME sql_${Case} COMMAND ${TRACER_SQL_DRIVER} run ${Case})
  set_tests_properties(sql_${Case} PROPERTIES
    FIXTURES_REQUIRED tracer_sql_session
    LABELS integration
    TIMEOUT 60)
endforeach()

#
# Benchmark (ctest -L bench): push-down against a scan without it, a full
# aggregate against a native SQLite table, and RssAnon while scanning a
# 10 GB store.  Needs about 21 GB free in the build directory.  Directly:
#   BenchSql [--window-rows N] [--scan-rows N] [--big-gb G] [--only wsm] DIR
#
add_executable(BenchSql ${CMAKE_CURRENT_SOURCE_DIR}/Bench/BenchSql.c)
target_link_libraries(BenchSql PRIVATE TracerSqlite3ExtStatic pthread)
target_compile_options(BenchSql PRIVATE ${TRACER_WARNINGS})
add_test(NAME bench.sql
  COMMAND BenchSql ${CMAKE_CURRENT_BINARY_DIR}/bench-sql)
set_tests_properties(bench.sql PROPERTIES LABELS bench TIMEOUT 1800 RUN_SERIAL TRUE)
