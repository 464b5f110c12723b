# Tests of the ETW (.etl) reader; see Tests/ReaderTests.cmake for the conventions.
#
# Oracle: ../shared/tools/etw-oracle/etw_pagefaults.py (airbus-cert/etl-parser
# framing + an XPRESS decompressor), run by Readers/etw_oracle.py under
# Debian's /usr/bin/python3 (python3-construct), which adds from the same
# framing what the tests need besides its lines (perfinfo-header images,
# thread events, event counts).  Never our own output.
set(ETW_TEST ${CMAKE_CURRENT_SOURCE_DIR}/Readers/etw_test.py)

function(etw_test name)
  add_test(NAME reader.etw.${name}
    COMMAND python3 ${ETW_TEST} $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR}
            ${READER_WORK}/etw-${name} ${ARGN})
  set_tests_properties(reader.etw.${name} PROPERTIES LABELS integration TIMEOUT 300)
endfunction()

# Every HardFault, image and unload record vs the oracle, line for line;
# every event counted; the PerfView log (XPRESS buffers) also plotted.
etw_test(records_shutdown records ShutdownPerfDiagLogger.etl)
etw_test(records_net_plot records net.4.5.2.x64.etl.zip plot)
# Cut and damaged logs: exit 1, the byte offset, the events before kept.
etw_test(truncated_shutdown truncated ShutdownPerfDiagLogger.etl)
etw_test(damaged_shutdown damaged ShutdownPerfDiagLogger.etl)
etw_test(truncated_net truncated net.4.5.2.x64.etl.zip)
etw_test(damaged_net damaged net.4.5.2.x64.etl.zip)
etw_test(zero_tail zero_tail)
# TypeGroup1 (no public sample has them): a generated log vs the oracle.
etw_test(typegroup1 typegroup1)
etw_test(typegroup1_32bit typegroup1 32)
# Thread and image starts in a buffer after the faults they explain.
etw_test(late_start late_start)

# The XPRESS decompressor on MS-XCA's examples and on damaged streams.
add_executable(TestEtwXpress ${CMAKE_CURRENT_SOURCE_DIR}/Readers/TestEtwXpress.c)
target_include_directories(TestEtwXpress PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestEtwXpress PRIVATE TracerReaders)
add_test(NAME reader.etw.xpress COMMAND TestEtwXpress)
set_tests_properties(reader.etw.xpress PROPERTIES LABELS unit TIMEOUT 60)

# Both real logs are claimed by the ETW reader and no other.
add_test(NAME reader.etw.detect
  COMMAND sh -c "for f in \"$1\" \"$2\"; do got=$(\"$0\" \"$f\" | tr '\\n' ' '); [ \"$got\" = 'etw ' ] || { echo \"FAIL: $f claimed by '$got'\"; exit 1; }; done; echo ok"
          $<TARGET_FILE:TestDetect> ${TRACER_SHARED_DIR}/data/etw/ShutdownPerfDiagLogger.etl
          ${CMAKE_CURRENT_SOURCE_DIR}/Data/etw/net-slice.etl)
set_tests_properties(reader.etw.detect PROPERTIES LABELS integration TIMEOUT 60)

reader_guard_test(etw etw ${CMAKE_CURRENT_SOURCE_DIR}/Data/etw/net-slice.etl 4096 2000)

# Benchmark (not in the default run: ctest -L bench): import throughput
# next to the oracle's, and MB/s of decompressed buffers.
add_test(NAME bench.etw
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_etw.sh $<TARGET_FILE:tracestore>
          ${TRACER_SHARED_DIR} ${CMAKE_CURRENT_BINARY_DIR}/bench-etw)
set_tests_properties(bench.etw PROPERTIES LABELS bench TIMEOUT 1200 RUN_SERIAL TRUE)
