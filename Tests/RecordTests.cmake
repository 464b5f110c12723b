#
# tracestore record: live capture from tracefs (needs root and tracefs;
# the tests exit 77, a CTest skip, without them).
#
#   TouchPages    the page-toucher workload (Tests/Workloads)
#   KvmGuest      a one-vCPU KVM guest making a known number of exits
#
add_executable(TouchPages ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/TouchPages.c)
target_compile_options(TouchPages PRIVATE ${TRACER_WARNINGS})
add_executable(KvmGuest ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/KvmGuest.c)
target_compile_options(KvmGuest PRIVATE ${TRACER_WARNINGS})

add_test(NAME record_vs_toplevel
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_vs_toplevel.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
          $<TARGET_FILE:KvmGuest> ${CMAKE_CURRENT_BINARY_DIR}/record_vs_toplevel)
set_tests_properties(record_vs_toplevel PROPERTIES
  LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)

if(TRACER_SQLITE3)
  add_test(NAME record_live_count
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_live_count.sh
            $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
            ${TRACER_SQLITE3} $<TARGET_FILE:tracestore_ext>
            ${CMAKE_CURRENT_BINARY_DIR}/record_live_count)
  set_tests_properties(record_live_count PROPERTIES
    LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)

  add_test(NAME record_kvm_live
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_kvm_live.sh
            $<TARGET_FILE:tracestore> $<TARGET_FILE:KvmGuest>
            ${TRACER_SQLITE3} $<TARGET_FILE:tracestore_ext>
            ${CMAKE_CURRENT_BINARY_DIR}/record_kvm_live)
  set_tests_properties(record_kvm_live PROPERTIES
    LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)
endif()

add_test(NAME record_sigkill
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_sigkill.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
          ${CMAKE_CURRENT_BINARY_DIR}/record_sigkill)
set_tests_properties(record_sigkill PROPERTIES
  LABELS "integration;crash" TIMEOUT 120 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)

add_test(NAME record_maps
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_maps.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
          ${CMAKE_CURRENT_BINARY_DIR}/record_maps)
set_tests_properties(record_maps PROPERTIES
  LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)

add_test(NAME record_stops
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_stops.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
          ${CMAKE_CURRENT_BINARY_DIR}/record_stops)
set_tests_properties(record_stops PROPERTIES
  LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)

add_test(NAME record_lost
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_lost.sh
          $<TARGET_FILE:tracestore> ${CMAKE_CURRENT_BINARY_DIR}/record_lost)
set_tests_properties(record_lost PROPERTIES
  LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)

add_test(NAME record_tasks
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_tasks.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
          ${CMAKE_CURRENT_BINARY_DIR}/record_tasks)
set_tests_properties(record_tasks PROPERTIES
  LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)
