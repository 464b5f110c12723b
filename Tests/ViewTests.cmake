#
# The Perfetto-familiar schema and the analysis views (issue 4): the views
# and SQL functions of Sqlite3Ext/tracestore_views.c, tracestore_args,
# the module store, the exit reason table and docs/schema.md.
#
# Most cases are Tests/Sql/view_*.sql run by the SQL driver of
# SqlTests.cmake (run_sql_test.sh); their .prepare imports the samples
# they need into the case's scratch directory, their .oracle computes the
# expected output from the samples' text with awk/sed/grep (shared parts in
# Tests/Sql/views_oracle_lib.sh), from `uftrace dump`/`uftrace report`, or
# from the kernel headers; .expected files are derived by hand.
#
#   ctest -R 'view_|schema|kvm_exit_reason'
#

#
# The kernel names of Kernel/KvmExitReason.c against VMX_EXIT_REASONS and
# SVM_EXIT_REASONS of the installed kernel headers.
#
add_executable(TestKvmExitReason ${CMAKE_CURRENT_SOURCE_DIR}/Core/TestKvmExitReason.c)
target_include_directories(TestKvmExitReason PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestKvmExitReason PRIVATE TracerKernel)
target_compile_options(TestKvmExitReason PRIVATE ${TRACER_WARNINGS})
add_test(NAME kvm_exit_reason.header COMMAND TestKvmExitReason)
set_tests_properties(kvm_exit_reason.header PROPERTIES LABELS unit TIMEOUT 60)

#
# docs/schema.md is the output of `tracestore schema --markdown`: regenerate it
# with `build/tracestore schema --markdown > docs/schema.md` when this fails.
#
add_test(NAME schema_md
  COMMAND sh -c "\"$0\" schema --markdown | diff -u \"$1\" - &&
                 echo 'docs/schema.md is up to date' ||
                 { echo 'docs/schema.md differs: run tracestore schema --markdown > docs/schema.md'; exit 1; }"
          $<TARGET_FILE:tracestore> ${CMAKE_SOURCE_DIR}/docs/schema.md)
add_test(NAME schema_text
  COMMAND sh -c "\"$0\" schema | grep -q '^kvm_exit_reasons (view): ' &&
                 \"$0\" schema --help | grep -q '^usage: tracestore schema' &&
                 ! \"$0\" schema --bogus 2>/dev/null"
          $<TARGET_FILE:tracestore>)
set_tests_properties(schema_md schema_text PROPERTIES LABELS unit TIMEOUT 60)

if(NOT TRACER_SQLITE3_SHELL)
  return()
endif()

set(TRACER_VIEW_CASES
  view_names
  view_event_rows
  view_event_ts_range
  view_args_rows
  view_args_lookup
  view_tracestore_args_cases
  view_tracestore_args_fuzz
  view_kvm_exit_reasons_text
  view_kvm_exit_reasons_kvmtrace
  view_page_fault_summary_ftrace
  view_page_fault_summary_perf
  view_page_fault_traffic_ftrace
  view_old_session
  view_span_self_time_uftrace
  view_span_self_time_report
  view_syscall_counts_raw
  view_syscall_counts_ftrace
  view_functions
  view_module_rows
  view_module_maps_lines
  view_attach_rules
  view_schema_columns
  error_view_reason_isa
  error_view_name_conflict)

foreach(Case IN LISTS TRACER_VIEW_CASES)
  add_test(NAME sql_${Case} COMMAND ${TRACER_SQL_DRIVER} run ${Case})
  set_tests_properties(sql_${Case} PROPERTIES
    FIXTURES_REQUIRED tracer_sql_session
    LABELS integration
    TIMEOUT 120)
endforeach()

#
# Query plans: the event view is flattened into the query (ORDER BY ts is
# a merge of the stores' tables, not a sort of the view), and
# args WHERE arg_set_id = N reads one ftrace_event row by its rowid (the
# scan of e has a non-zero idxNum: a constraint was pushed down).
#
set(TRACER_VIEW_PLAN
  ${TRACER_SQLITE3_SHELL} -batch :memory:
  -cmd ".load $<TARGET_FILE_DIR:tracestore_ext>/tracestore"
  -cmd ".output /dev/null"
  -cmd "SELECT tracestore_attach('${TRACER_SQL_SESSION}')"
  -cmd ".output")
add_test(NAME sql_view_event_plan
  COMMAND sh -c "\"$@\" 'EXPLAIN QUERY PLAN SELECT * FROM event ORDER BY ts' |
                 tee /dev/stderr | grep -q 'MERGE (UNION ALL)'"
          sh ${TRACER_VIEW_PLAN})
add_test(NAME sql_view_args_plan
  COMMAND sh -c "\"$@\" 'EXPLAIN QUERY PLAN SELECT * FROM args WHERE arg_set_id = 3' |
                 tee /dev/stderr | grep -q 'SCAN e VIRTUAL TABLE INDEX [1-9]'"
          sh ${TRACER_VIEW_PLAN})
set_tests_properties(sql_view_event_plan sql_view_args_plan PROPERTIES
  FIXTURES_REQUIRED tracer_sql_session
  LABELS integration
  TIMEOUT 60)
