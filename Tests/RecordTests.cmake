#
# tracestore record: live capture from tracefs (needs root and tracefs;
# the tests exit 77, a CTest skip, without them).
#
#   TouchPages    the page-toucher workload (Tests/Workloads)
#   KvmGuest      a one-vCPU KVM guest making a known number of exits
#   FileFaults    hard and soft faults, with its own getrusage counts
#
add_executable(TouchPages ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/TouchPages.c)
target_compile_options(TouchPages PRIVATE ${TRACER_WARNINGS})
add_executable(KvmGuest ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/KvmGuest.c)
target_compile_options(KvmGuest PRIVATE ${TRACER_WARNINGS})
add_executable(FileFaults ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/FileFaults.c)
target_compile_options(FileFaults PRIVATE ${TRACER_WARNINGS})

# record_test(NAME [LABELS] ARGS...): Tests/Record/NAME.sh run as
# `sh NAME.sh ARGS... WORKDIR`.  They share the tracefs top-level buffer
# (record_vs_toplevel) or at least the machine's event rate, so one at a
# time.
function(record_test name labels)
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/${name}.sh ${ARGN}
            ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set_tests_properties(${name} PROPERTIES
    LABELS "${labels}" TIMEOUT 120 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)
endfunction()

set(TS $<TARGET_FILE:tracestore>)
set(TP $<TARGET_FILE:TouchPages>)
set(KG $<TARGET_FILE:KvmGuest>)
record_test(record_vs_toplevel integration ${TS} ${TP} ${KG})
if(TRACER_SQLITE3)
  set(EXT ${TRACER_SQLITE3} $<TARGET_FILE:tracestore_ext>)
  record_test(record_live_count integration ${TS} ${TP} ${EXT})
  record_test(record_kvm_live integration ${TS} ${KG} ${EXT})
endif()
record_test(record_sigkill "integration;crash" ${TS} ${TP})
record_test(record_maps integration ${TS} ${TP})
record_test(record_stops integration ${TS} ${TP})
record_test(record_lost integration ${TS})
record_test(record_tasks integration ${TS} ${TP})
# Hard/soft faults against the workload's getrusage, recorded live (user
# faults; user and kernel-mode faults) and by perf record + perf script
# (one script, three cases).
set(FF $<TARGET_FILE:FileFaults>)
foreach(mode record kernel perf)
  add_test(NAME page_fault_classes.${mode}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Record/record_fault_classes.sh
            ${mode} ${TS} ${FF}
            ${CMAKE_CURRENT_BINARY_DIR}/page_fault_classes.${mode})
  set_tests_properties(page_fault_classes.${mode} PROPERTIES
    LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)
endforeach()

#
# Benchmark (ctest -L bench; not in the default run): sustained recording
# of raw_syscalls:sys_enter without loss next to perf record and trace-cmd
# record, and event-to-SQL latency.  Private tracefs instances only; about
# 13 minutes (2 runs of each case).  Directly:
#   Tests/Bench/bench_record.sh build/tracestore build/Tests/SyscallLoop \
#     build/Tests/BenchRecordLatency [WORKDIR]
#
add_executable(SyscallLoop ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/SyscallLoop.c)
target_compile_options(SyscallLoop PRIVATE ${TRACER_WARNINGS})
add_executable(BenchRecordLatency ${CMAKE_CURRENT_SOURCE_DIR}/Bench/BenchRecordLatency.c)
target_link_libraries(BenchRecordLatency PRIVATE TracerSqlite3ExtStatic)
target_compile_options(BenchRecordLatency PRIVATE ${TRACER_WARNINGS})
add_test(NAME bench.record
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_record.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:SyscallLoop>
          $<TARGET_FILE:BenchRecordLatency> ${CMAKE_CURRENT_BINARY_DIR}/bench-record)
set_tests_properties(bench.record PROPERTIES
  LABELS bench TIMEOUT 3600 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
# What classifying page faults hard/soft costs (issue 15): tracestore record
# of TouchPages with and without the fault counts (docs/benchmarks-history.md).
add_test(NAME bench.fault_classes
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_fault_classes.sh
          $<TARGET_FILE:tracestore> $<TARGET_FILE:TouchPages>
          ${CMAKE_CURRENT_BINARY_DIR}/bench-fault-classes)
set_tests_properties(bench.fault_classes PROPERTIES
  LABELS bench TIMEOUT 600 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  RESOURCE_LOCK tracefs_toplevel)
