#
# Crash torture (Tests/Crash/torture.sh): `tracestore import` and
# `tracestore record` SIGKILLed at random instants, every store checked
# after each kill and a new writer made to continue the session.  The store
# level (TestStoreCrash) runs as store.crash_recovery (StoreTests.cmake).
# TORTURE_TRIALS=N trials (20 here; the long mode is 200, run directly:
# `TORTURE_TRIALS=200 sh Tests/Crash/torture.sh all build WORKDIR`),
# TORTURE_SEED=N repeats a run.
#
if(TRACER_SQLITE3)
  set(TORTURE ${CMAKE_CURRENT_SOURCE_DIR}/Crash/torture.sh)
  add_test(NAME crash_torture_import
    COMMAND sh ${TORTURE} import $<TARGET_FILE:tracestore> ${TRACER_SQLITE3}
            $<TARGET_FILE:tracestore_ext> ${TRACER_SHARED_DIR} ${TRACER_DATA_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/crash_torture_import)
  set_tests_properties(crash_torture_import PROPERTIES
    LABELS "integration;crash" TIMEOUT 600)
  if(TRACER_SANITIZE)
    # Python loads the instrumented extension to check the views.
    set_tests_properties(crash_torture_import PROPERTIES
      ENVIRONMENT "TORTURE_PRELOAD=${TRACER_LIBASAN}")
  endif()
  # tracefs: one recorder at a time, as in RecordTests.cmake.
  add_test(NAME crash_torture_record
    COMMAND sh ${TORTURE} record $<TARGET_FILE:tracestore> ${TRACER_SQLITE3}
            $<TARGET_FILE:tracestore_ext> $<TARGET_FILE:TouchPages>
            ${CMAKE_CURRENT_BINARY_DIR}/crash_torture_record)
  set_tests_properties(crash_torture_record PROPERTIES
    LABELS "integration;crash" TIMEOUT 600 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)
  if(TRACER_SANITIZE)
    set_tests_properties(crash_torture_record PROPERTIES
      ENVIRONMENT "TORTURE_PRELOAD=${TRACER_LIBASAN}")
  endif()
endif()

# A writer killed between creating session.tracer and writing it: the next
# writer continues the session (found by crash_torture_record).
if(TRACER_SQLITE3)
  add_test(NAME crash_interrupted_create
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Crash/interrupted_create.sh
            $<TARGET_FILE:tracestore> ${TRACER_SQLITE3}
            $<TARGET_FILE:tracestore_ext> ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt
            ${CMAKE_CURRENT_BINARY_DIR}/crash_interrupted_create)
  set_tests_properties(crash_interrupted_create PROPERTIES
    LABELS "integration;crash" TIMEOUT 60)
endif()
