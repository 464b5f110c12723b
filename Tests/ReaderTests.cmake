#
# Readers: ftrace text, checked against awk/grep over the same text.
#
set(FTRACE_SAMPLE ${TRACER_DATA_DIR}/ftrace-capture-1.txt)
set(REPORT_SAMPLE ${TRACER_SHARED_DIR}/data/capture-1/trace-cmd-report.txt)
set(ORACLE ${CMAKE_CURRENT_SOURCE_DIR}/Readers/ftrace_oracle.sh)
set(READER_WORK ${CMAKE_CURRENT_BINARY_DIR}/reader-work)

foreach(check counts timestamps pagefaults sched)
  add_test(NAME reader.ftrace.${check}
    COMMAND ${ORACLE} $<TARGET_FILE:tracestore> ${FTRACE_SAMPLE}
            ${READER_WORK}/ftrace-${check} ${check})
  add_test(NAME reader.tracecmd_report.${check}
    COMMAND ${ORACLE} $<TARGET_FILE:tracestore> ${REPORT_SAMPLE}
            ${READER_WORK}/report-${check} ${check})
  set_tests_properties(reader.ftrace.${check} reader.tracecmd_report.${check}
    PROPERTIES LABELS integration TIMEOUT 120)
endforeach()

foreach(check counts timestamps)
  add_test(NAME reader.kvm_pairs.${check}
    COMMAND ${ORACLE} $<TARGET_FILE:tracestore> ${TRACER_DATA_DIR}/kvm-exit-entry.txt
            ${READER_WORK}/kvm-${check} ${check})
  set_tests_properties(reader.kvm_pairs.${check} PROPERTIES LABELS integration TIMEOUT 60)
endforeach()

# Exit/entry pairs against the values derived by hand in the data file.
add_test(NAME reader.kvm_pairs.rows
  COMMAND sh -c "rm -rf \"$2\" && \"$0\" import -o \"$2\" \"$1\" &&
                 \"$0\" sql --csv \"$2\" 'SELECT ts, dur, reason, vcpu, tid, rip FROM kvm_exit ORDER BY id' |
                 tail -n +2 | diff - \"$3\""
          $<TARGET_FILE:tracestore> ${TRACER_DATA_DIR}/kvm-exit-entry.txt
          ${READER_WORK}/kvm-rows ${TRACER_DATA_DIR}/kvm-exit-entry.expected)
set_tests_properties(reader.kvm_pairs.rows PROPERTIES LABELS integration TIMEOUT 60)

# Importing twice appends: twice the events, two source rows, and the
# second file's earlier timestamps clear the sorted flag.
add_test(NAME reader.append_to_session
  COMMAND sh -c "rm -rf \"$2\" && mkdir -p \"$(dirname \"$2\")\" && \"$0\" import -o \"$2\" \"$1\" && \"$0\" import -o \"$2\" \"$1\" &&
                 test \"$(\"$0\" sql --csv \"$2\" 'SELECT count(*) FROM page_fault' | tail -1)\" = $((2 * $(grep -c ' page_fault_' \"$1\"))) &&
                 test \"$(\"$0\" sql --csv \"$2\" 'SELECT count(*) FROM source' | tail -1)\" = 2 &&
                 \"$0\" info --json \"$2\" | grep '\"page_fault\"' | grep -q '\"sorted\": false'"
          $<TARGET_FILE:tracestore> ${FTRACE_SAMPLE} ${READER_WORK}/append)
set_tests_properties(reader.append_to_session PROPERTIES LABELS integration TIMEOUT 60)

foreach(case truncated garbage hugeline nul empty fifo)
  add_test(NAME reader.bad_input.${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/bad_input.sh $<TARGET_FILE:tracestore>
            ${FTRACE_SAMPLE} ${READER_WORK}/bad-${case} ${case})
  set_tests_properties(reader.bad_input.${case} PROPERTIES LABELS integration TIMEOUT 60)
endforeach()

add_executable(TestReaderGuard ${CMAKE_CURRENT_SOURCE_DIR}/Readers/TestReaderGuard.c
               ${CMAKE_SOURCE_DIR}/Host/TraceZstd.c)
target_include_directories(TestReaderGuard PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestReaderGuard PRIVATE TracerReaders ${ZSTD_LIBRARY})
#
# reader_guard_test(NAME FORMAT SAMPLE [MAX_PREFIX [FLIPS]]): every prefix up
# to MAX_PREFIX bytes and FLIPS randomly damaged copies of SAMPLE, decoded
# against a guard page (Readers/TestReaderGuard.c).
#
function(reader_guard_test name format sample)
  add_test(NAME reader.guard.${name}
    COMMAND sh -c "rm -rf \"$1\" && exec \"$0\" \"$2\" \"$3\" \"$1\" $4 $5"
            $<TARGET_FILE:TestReaderGuard> ${READER_WORK}/guard-${name} ${format} ${sample}
            ${ARGN})
  set_tests_properties(reader.guard.${name} PROPERTIES LABELS unit TIMEOUT 600)
endfunction()

reader_guard_test(ftrace ftrace ${FTRACE_SAMPLE} 8192 2000)

# Benchmark (not in the default run: ctest -L bench).
add_test(NAME bench.import_ftrace
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_import.sh $<TARGET_FILE:tracestore> 200
          ${CMAKE_CURRENT_BINARY_DIR}/bench-import)
set_tests_properties(bench.import_ftrace PROPERTIES LABELS bench TIMEOUT 600 RUN_SERIAL TRUE)

# One file per reader (issue 3).
include(${CMAKE_CURRENT_SOURCE_DIR}/Readers/TraceDat.cmake)
include(${CMAKE_CURRENT_SOURCE_DIR}/Readers/PerfText.cmake)
include(${CMAKE_CURRENT_SOURCE_DIR}/Readers/PerfData.cmake)
include(${CMAKE_CURRENT_SOURCE_DIR}/Readers/Uftrace.cmake)
include(${CMAKE_CURRENT_SOURCE_DIR}/Readers/Kvmtrace.cmake)
include(${CMAKE_CURRENT_SOURCE_DIR}/Readers/Etw.cmake)

# Peak RSS of a 2 GB import stays under 100 MB (ctest -L bench).
add_test(NAME bench.import_rss
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_rss.sh $<TARGET_FILE:tracestore> 2000
          ${CMAKE_CURRENT_BINARY_DIR}/bench-rss)
set_tests_properties(bench.import_rss PROPERTIES LABELS bench TIMEOUT 900 RUN_SERIAL TRUE)

# tracestore export: events/s, MB/s and peak RSS on a 1000 MB Chrome
# session and a 10 M-event ftrace session, and merge.py on capture-1
# (ctest -L bench).
add_test(NAME bench.export
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_export.sh $<TARGET_FILE:tracestore>
          ${TRACER_SHARED_DIR} 1000 10 ${CMAKE_CURRENT_BINARY_DIR}/bench-export)
set_tests_properties(bench.export PROPERTIES LABELS bench TIMEOUT 1800 RUN_SERIAL TRUE)
