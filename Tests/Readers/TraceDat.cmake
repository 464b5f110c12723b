#
# The trace-cmd trace.dat reader (Readers/Decoders/Ftrace/TraceDat.c, Readers/TraceEvent*.c).
#
# Oracle: `trace-cmd report` run in the test on the same file
# (tracedat_oracle.py): per-name counts, every event's ns timestamp, CPU,
# pid and comm, and every event's fields and text.  Inputs: the three
# capture-1 samples (v7 zstd, v6, v7 uncompressed), synthetic files from
# gen_tracedat.py with events the capture lacks (kvm_exit/kvm_entry, ...;
# the plugin-printed events: the function tracer's, trace_printk's, kmem,
# tlb, futex, jbd2) converted to v7 by trace-cmd, and fresh captures when
# tracefs allows.
#
set(TRACEDAT_SAMPLES ${TRACER_SHARED_DIR}/data/capture-1)
set(TRACEDAT_TEMPLATE ${TRACEDAT_SAMPLES}/trace-v6.dat)
set(TRACEDAT_DATA ${READER_WORK}/tracedat-data)
set(TRACEDAT_ORACLE ${CMAKE_CURRENT_SOURCE_DIR}/Readers/tracedat_oracle.py)

add_test(NAME reader.tracedat.make_synthetic
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/tracedat_data.sh ${TRACEDAT_DATA}
          ${TRACEDAT_TEMPLATE})
set_tests_properties(reader.tracedat.make_synthetic PROPERTIES LABELS integration
  TIMEOUT 120 FIXTURES_SETUP tracedat_data)

set(TRACEDAT_INPUTS
  "capture_v7zstd=${TRACEDAT_SAMPLES}/trace.dat"
  "capture_v6=${TRACEDAT_SAMPLES}/trace-v6.dat"
  "capture_v7none=${TRACEDAT_SAMPLES}/trace-v7-none.dat"
  "synthetic_v6=${TRACEDAT_DATA}/syn.dat"
  "synthetic_v7zstd=${TRACEDAT_DATA}/syn-v7zstd.dat"
  "synthetic_v7none=${TRACEDAT_DATA}/syn-v7none.dat"
  "synthetic_plugins=${TRACEDAT_DATA}/plugins.dat"
  "synthetic_plugins_v7zstd=${TRACEDAT_DATA}/plugins-v7zstd.dat")
foreach(input ${TRACEDAT_INPUTS})
  string(REPLACE "=" ";" parts ${input})
  list(GET parts 0 name)
  list(GET parts 1 file)
  foreach(check counts events fields clock)
    add_test(NAME reader.tracedat.${name}.${check}
      COMMAND python3 ${TRACEDAT_ORACLE} $<TARGET_FILE:tracestore> ${file}
              ${READER_WORK}/tracedat-${name}-${check} ${check})
    set_tests_properties(reader.tracedat.${name}.${check} PROPERTIES
      LABELS integration TIMEOUT 120)
    if(name MATCHES "^synthetic")
      set_tests_properties(reader.tracedat.${name}.${check} PROPERTIES
        FIXTURES_REQUIRED tracedat_data)
    endif()
  endforeach()
endforeach()
# The synthetic pages hold missed-event counts.
foreach(name synthetic_v6 synthetic_v7zstd)
  set(file ${TRACEDAT_DATA}/syn.dat)
  if(name STREQUAL synthetic_v7zstd)
    set(file ${TRACEDAT_DATA}/syn-v7zstd.dat)
  endif()
  add_test(NAME reader.tracedat.${name}.lost
    COMMAND python3 ${TRACEDAT_ORACLE} $<TARGET_FILE:tracestore> ${file}
            ${READER_WORK}/tracedat-${name}-lost lost)
  set_tests_properties(reader.tracedat.${name}.lost PROPERTIES LABELS integration
    TIMEOUT 120 FIXTURES_REQUIRED tracedat_data)
endforeach()

# A fresh capture with ../shared/tools/capture.sh (root, tracefs, /dev/kvm;
# skipped with a message when they are missing).
add_test(NAME reader.tracedat.fresh_capture
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/tracedat_capture.sh $<TARGET_FILE:tracestore>
          ${TRACER_SHARED_DIR}/tools/capture.sh ${TRACEDAT_ORACLE}
          ${READER_WORK}/tracedat-fresh-capture)
set_tests_properties(reader.tracedat.fresh_capture PROPERTIES LABELS integration
  TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE RESOURCE_LOCK tracefs)

# A fresh capture of the events trace-cmd prints through libtraceevent's
# plugins (kmem, tlb, futex, jbd2 on a loop-mounted ext4, trace_marker,
# the function tracer when the kernel allows it), recorded in the test
# with tracefs and `trace-cmd extract`; every event checked against
# `trace-cmd report` of the file.  Skipped without root, tracefs or
# trace-cmd.
add_executable(FutexOps ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/FutexOps.c)
target_link_libraries(FutexOps PRIVATE pthread)
add_test(NAME reader.tracedat.plugins_capture
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/tracedat_plugins.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:FutexOps> ${TRACEDAT_ORACLE} ${READER_WORK}/tracedat-plugins-capture)
set_tests_properties(reader.tracedat.plugins_capture PROPERTIES LABELS integration
  TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE RESOURCE_LOCK tracefs)

# Damaged files: exit 1, the file and byte offset named, earlier events kept.
add_test(NAME reader.tracedat.bad_input.plugins_truncated_data
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/tracedat_bad.sh $<TARGET_FILE:tracestore>
          ${TRACEDAT_DATA}/plugins.dat ${READER_WORK}/tracedat-bad-plugins truncated_data)
set_tests_properties(reader.tracedat.bad_input.plugins_truncated_data PROPERTIES
  LABELS integration TIMEOUT 60 FIXTURES_REQUIRED tracedat_data)
foreach(case truncated_data truncated_header version cpu_count format_size format_field
        zstd_chunk zstd_kallsyms)
  set(file ${TRACEDAT_DATA}/syn.dat)
  if(case MATCHES "^zstd_")
    set(file ${TRACEDAT_DATA}/syn-v7zstd.dat)
  elseif(case STREQUAL format_field)
    set(file ${TRACEDAT_TEMPLATE})
  endif()
  add_test(NAME reader.tracedat.bad_input.${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/tracedat_bad.sh $<TARGET_FILE:tracestore>
            ${file} ${READER_WORK}/tracedat-bad-${case} ${case})
  set_tests_properties(reader.tracedat.bad_input.${case} PROPERTIES LABELS integration
    TIMEOUT 60 FIXTURES_REQUIRED tracedat_data)
endforeach()

# Every prefix and 3000 damaged copies against a guard page: the small
# synthetic files whole, the capture samples' first 64 KB.
reader_guard_test(tracedat_small_v6 trace-dat ${TRACEDAT_DATA}/small.dat 1000000 3000)
reader_guard_test(tracedat_small_v7zstd trace-dat ${TRACEDAT_DATA}/small-v7zstd.dat 1000000 3000)
reader_guard_test(tracedat_small_v7none trace-dat ${TRACEDAT_DATA}/small-v7none.dat 1000000 3000)
reader_guard_test(tracedat_capture_v7none trace-dat ${TRACEDAT_SAMPLES}/trace-v7-none.dat 65536 3000)
reader_guard_test(tracedat_capture_v6 trace-dat ${TRACEDAT_SAMPLES}/trace-v6.dat 65536 3000)
reader_guard_test(tracedat_capture_v7zstd trace-dat ${TRACEDAT_SAMPLES}/trace.dat 65536 3000)
reader_guard_test(tracedat_plugins trace-dat ${TRACEDAT_DATA}/plugins.dat 1000000 3000)
set_tests_properties(reader.guard.tracedat_small_v6 reader.guard.tracedat_small_v7zstd
  reader.guard.tracedat_small_v7none reader.guard.tracedat_plugins
  PROPERTIES FIXTURES_REQUIRED tracedat_data)

# Unit tests: no decompressor (the core alone), printf against snprintf,
# hand-built ring pages.
add_executable(TestTraceDat ${CMAKE_CURRENT_SOURCE_DIR}/Readers/TestTraceDat.c)
target_include_directories(TestTraceDat PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestTraceDat PRIVATE TracerReaders)
add_test(NAME reader.tracedat.no_zstd_decompressor
  COMMAND sh -c "rm -rf \"$2\" && exec \"$0\" nozstd \"$1\" \"$2\""
          $<TARGET_FILE:TestTraceDat> ${TRACEDAT_SAMPLES}/trace.dat ${READER_WORK}/tracedat-nozstd)
add_test(NAME reader.tracedat.printf COMMAND TestTraceDat printf)
add_test(NAME reader.tracedat.ring_page COMMAND TestTraceDat ringpage)
add_test(NAME reader.tracedat.kallsyms COMMAND TestTraceDat kallsyms)
add_test(NAME reader.tracedat.type_size COMMAND TestTraceDat typesize)
set_tests_properties(reader.tracedat.no_zstd_decompressor reader.tracedat.printf
  reader.tracedat.ring_page reader.tracedat.kallsyms reader.tracedat.type_size
  PROPERTIES LABELS unit TIMEOUT 60)

# Benchmark (ctest -L bench): a fresh capture (as root) and a million
# events, import vs trace-cmd report.
add_test(NAME bench.import_tracedat
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_tracedat.sh $<TARGET_FILE:tracestore>
          ${TRACEDAT_TEMPLATE} 450 ${CMAKE_CURRENT_BINARY_DIR}/bench-tracedat
          ${TRACER_SHARED_DIR}/tools/capture.sh)
set_tests_properties(bench.import_tracedat PROPERTIES LABELS bench TIMEOUT 900 RUN_SERIAL TRUE
  RESOURCE_LOCK tracefs)
