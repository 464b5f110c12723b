# Tests of the Kvmtrace reader(s); see Tests/ReaderTests.cmake for the conventions.
#
# Oracles: the seed's expected text files (data/kvmtrace/*.expected.txt),
# the seed's rules as a Python 3 reference decoder run here on generated
# inputs (tools/kvmtrace_format_reference.py, tools/gen_kvmtrace.py), and
# grep -c / awk over the reference's text.  Never our own output.
set(KVMTRACE_TEST ${CMAKE_CURRENT_SOURCE_DIR}/Readers/kvmtrace_test.sh)
set(KVMTRACE_REFERENCE ${TRACER_SHARED_DIR}/tools/kvmtrace_format_reference.py)

function(kvmtrace_test name)
  add_test(NAME reader.kvmtrace.${name}
    COMMAND sh ${KVMTRACE_TEST} $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR}
            ${READER_WORK}/kvmtrace-${name} ${ARGN})
  set_tests_properties(reader.kvmtrace.${name} PROPERTIES LABELS integration TIMEOUT 300)
endfunction()

# kvmtrace-format: byte for byte.
kvmtrace_test(format_sample format_sample)
kvmtrace_test(format_generated_1 format_generated 50000 1)
kvmtrace_test(format_generated_2 format_generated 50000 20261121)
kvmtrace_test(format_errors format_errors)
kvmtrace_test(truncated truncated)

# Random rules and records against the reference (each case also with -c).
foreach(mode specs files floats)
  add_test(NAME reader.kvmtrace.fuzz_${mode}
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/Readers/kvmtrace_fuzz.py
            $<TARGET_FILE:tracestore> ${KVMTRACE_REFERENCE}
            ${READER_WORK}/kvmtrace-fuzz-${mode} 20261121 60 ${mode})
  set_tests_properties(reader.kvmtrace.fuzz_${mode} PROPERTIES LABELS integration TIMEOUT 300)
endforeach()

# The renderer's fast path against the full emulation, byte for byte (the
# emulation is held to the Python reference by the fuzz tests above).
add_executable(TestKvmtraceRender ${CMAKE_CURRENT_SOURCE_DIR}/Readers/TestKvmtraceRender.c)
target_include_directories(TestKvmtraceRender PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestKvmtraceRender PRIVATE TracerReaders)
add_test(NAME reader.kvmtrace.render_fast_path
  COMMAND TestKvmtraceRender ${TRACER_SHARED_DIR}/data/kvmtrace/formats 200)
set_tests_properties(reader.kvmtrace.render_fast_path PROPERTIES LABELS unit TIMEOUT 300)

# import: store rows against the reference's text.
kvmtrace_test(import_sample import 0 0)
kvmtrace_test(import_generated import 30000 5)
kvmtrace_test(import_tsc_mhz import 30000 6 2893.437)
kvmtrace_test(import_tsc_mhz_integer import 30000 7 2400)
kvmtrace_test(detect detect)
kvmtrace_test(damaged damaged)

reader_guard_test(kvmtrace kvmtrace ${TRACER_SHARED_DIR}/data/kvmtrace/sample.bin 8192 3000)

# Benchmark (not in the default run: ctest -L bench): import and
# kvmtrace-format throughput, and their ratio to the Python reference.
add_test(NAME bench.kvmtrace
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_kvmtrace.sh $<TARGET_FILE:tracestore>
          ${TRACER_SHARED_DIR} 200 ${CMAKE_CURRENT_BINARY_DIR}/bench-kvmtrace)
set_tests_properties(bench.kvmtrace PROPERTIES LABELS bench TIMEOUT 1200 RUN_SERIAL TRUE)
