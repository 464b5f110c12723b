# Tests of the perf.data reader (Readers/Decoders/Perf/PerfData*.c); see
# Tests/ReaderTests.cmake for the conventions.
#
# Oracle: perf itself.  Each case records here with `perf record` and
# compares the import with what `perf script` (and `perf report --stats`)
# print from the same file (Readers/perf_data_test.py says what each case
# checks).  They need root and a kernel that lets perf record: else 77.
set(PERF_DATA_TEST ${CMAKE_CURRENT_SOURCE_DIR}/Readers/perf_data_test.py)

foreach(case tracepoints pipe zstd zstd_callgraph faults callgraph report dwarf count1 header lost damaged)
  add_test(NAME reader.perf_data.${case}
    COMMAND python3 ${PERF_DATA_TEST} $<TARGET_FILE:tracestore>
            ${READER_WORK}/perf-data-${case} ${case})
  set_tests_properties(reader.perf_data.${case} PROPERTIES LABELS integration
                       TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endforeach()

# Benchmark (ctest -L bench): import against perf script on the same
# files, and 10^6..10^8 events (Tests/Bench/bench_perf_data.sh).
add_test(NAME bench.perf_data
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_perf_data.sh $<TARGET_FILE:tracestore>
          ${CMAKE_CURRENT_BINARY_DIR}/bench-perf-data "6 60")
set_tests_properties(bench.perf_data PROPERTIES LABELS bench TIMEOUT 3600
                     RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
