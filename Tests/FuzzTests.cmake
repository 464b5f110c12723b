#
# Fuzzing (Tests/Fuzz): libFuzzer targets built from two harnesses that
# share Tests/Fuzz/FuzzCommon.c:
#
#   FuzzImport.c   one target per reader, the format a compile definition:
#                  an input is a trace file, imported and read back;
#   FuzzSession.c  session_store, session_sql, session_export and
#                  session_duckdb: an input is a session (a template
#                  imported from small samples, one of its files replaced),
#                  opened through the store API, attached in SQLite through
#                  the extension and queried, exported in both formats, or
#                  scanned as the DuckDB extension scans it.
#
#   fuzz build (-DTRACER_FUZZ=ON, CC=clang):  fuzz_NAME, and the ctest test
#       fuzz_NAME (label fuzz) that runs it for FUZZ_SECONDS (default 15) on
#       a corpus seeded from Tests/Data and shared/data (or, for the
#       session targets, from the template's files).
#   regular build:  fuzz_replay_NAME, the same harness with a main() that
#       runs each input once, and the test fuzz_regressions_NAME (label
#       integration) that replays the seeds and every input under
#       Tests/Data/fuzz-regressions/NAME/ (the crashes found, once fixed).
#
set(FUZZ_DIR ${CMAKE_SOURCE_DIR}/Tests/Fuzz)
set(FUZZ_SAMPLES ${TRACER_SHARED_DIR}/data)
set(FUZZ_DATA ${CMAKE_SOURCE_DIR}/Tests/Data)
set(FUZZ_REGRESSIONS ${FUZZ_DATA}/fuzz-regressions)
find_library(FUZZ_ZSTD_LIBRARY zstd REQUIRED)
if(NOT DEFINED ENV{FUZZ_SECONDS})
  set(FUZZ_SECONDS 15)
else()
  set(FUZZ_SECONDS $ENV{FUZZ_SECONDS})
endif()

# fuzz_target(NAME [FORMAT format] [EVENTS dir] [DIR TEMPLATE FILE file]
#             [SESSION samples [ONLY suffix]] [SQL] [EXPORT] [DUCKDB]
#             [DURABLE] [SEEDS seed...])
# EVENTS: a tracefs events directory given to the import (--formats).
function(fuzz_target name)
  cmake_parse_arguments(F "SQL;EXPORT;DUCKDB;DURABLE" "FORMAT;EVENTS;DIR;FILE;SESSION;ONLY" "SEEDS" ${ARGN})
  set(source ${FUZZ_DIR}/FuzzImport.c)
  set(defs)
  set(libs TracerReaders)
  if(F_FORMAT)
    list(APPEND defs FUZZ_FORMAT="${F_FORMAT}")
  endif()
  if(F_EVENTS)
    list(APPEND defs FUZZ_EVENT_FORMATS="${F_EVENTS}")
  endif()
  if(F_DIR)
    list(APPEND defs FUZZ_DIR_TEMPLATE="${F_DIR}" FUZZ_DIR_FILE="${F_FILE}")
  endif()
  if(F_SESSION)
    set(source ${FUZZ_DIR}/FuzzSession.c)
    list(APPEND defs FUZZ_SESSION_SAMPLES="${F_SESSION}")
  endif()
  if(F_ONLY)
    list(APPEND defs FUZZ_SESSION_ONLY="${F_ONLY}")
  endif()
  if(F_DURABLE)
    list(APPEND defs FUZZ_SESSION_DURABLE)
  endif()
  if(F_SQL)
    list(APPEND defs FUZZ_SESSION_SQL)
    set(libs TracerSqlite3ExtStatic TracerReaders)
  endif()
  set(sources ${source} ${FUZZ_DIR}/FuzzCommon.c
              ${CMAKE_SOURCE_DIR}/Host/TraceZstd.c)
  if(F_EXPORT)
    # `tracestore export`'s walk and formats, and the host helpers they call.
    list(APPEND defs FUZZ_SESSION_EXPORT)
    set(libs TracerSqlite3ExtStatic TracerReaders)
    list(APPEND sources ${CMAKE_SOURCE_DIR}/Outputs/Export/ExportWalk.c
                ${CMAKE_SOURCE_DIR}/Outputs/Export/ExportChrome.c
                ${CMAKE_SOURCE_DIR}/Outputs/Export/ExportPerfetto.c
                ${CMAKE_SOURCE_DIR}/Host/HostUtil.c
                ${CMAKE_SOURCE_DIR}/Host/HostPortPosix.c
                ${CMAKE_SOURCE_DIR}/Host/HostText.c
                ${CMAKE_SOURCE_DIR}/Host/HostIdentity.c)
  endif()
  if(F_DUCKDB)
    # The DuckDB extension's scan, without DuckDB.
    list(APPEND defs FUZZ_SESSION_DUCKDB)
    list(APPEND sources ${CMAKE_SOURCE_DIR}/DuckDbExt/tracestore_duckdb_rows.c)
  endif()
  if(TRACER_FUZZ)
    # The fixed findings seed the corpus too, so the clang build (whose
    # UBSan checks more than gcc's) replays them before it mutates.
    file(GLOB found ${FUZZ_REGRESSIONS}/${name}/*)
    list(APPEND F_SEEDS ${found})
    add_executable(fuzz_${name} ${sources})
    target_compile_definitions(fuzz_${name} PRIVATE ${defs})
    target_link_libraries(fuzz_${name} PRIVATE ${libs} ${FUZZ_ZSTD_LIBRARY})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    add_test(NAME fuzz_${name}
      COMMAND sh ${FUZZ_DIR}/run-fuzz.sh $<TARGET_FILE:fuzz_${name}>
              ${CMAKE_BINARY_DIR}/fuzz/${name} ${FUZZ_SECONDS} ${F_SEEDS})
    math(EXPR limit "${FUZZ_SECONDS} + 120")
    set_tests_properties(fuzz_${name} PROPERTIES LABELS fuzz TIMEOUT ${limit})
  else()
    add_executable(fuzz_replay_${name} ${sources})
    target_compile_definitions(fuzz_replay_${name} PRIVATE ${defs} FUZZ_REPLAY_MAIN)
    target_link_libraries(fuzz_replay_${name} PRIVATE ${libs} ${FUZZ_ZSTD_LIBRARY})
    target_compile_options(fuzz_replay_${name} PRIVATE ${TRACER_WARNINGS})
    set(inputs)
    if(F_SESSION)
      list(APPEND inputs --seeds)
    endif()
    foreach(s ${F_SEEDS})
      file(SIZE ${s} size)
      if(size LESS 300000)      # the large samples are imported elsewhere
        list(APPEND inputs ${s})
      endif()
    endforeach()
    if(EXISTS ${FUZZ_REGRESSIONS}/${name})
      list(APPEND inputs ${FUZZ_REGRESSIONS}/${name})
    endif()
    if(inputs)        # trace_dat: its only seed is large, no finding yet
      add_test(NAME fuzz_regressions_${name}
        COMMAND fuzz_replay_${name} ${inputs})
      set_tests_properties(fuzz_regressions_${name} PROPERTIES
        LABELS integration TIMEOUT 60)
    endif()
  endif()
endfunction()

set(CAP ${FUZZ_SAMPLES}/capture-1)
fuzz_target(ftrace FORMAT ftrace SEEDS
  ${FUZZ_DATA}/ftrace-syscalls.txt ${FUZZ_DATA}/ftrace-capture-1.txt
  ${FUZZ_DATA}/kvm-exit-entry.txt ${FUZZ_DATA}/kvm-exit-codes.txt
  ${CAP}/ftrace.txt ${CAP}/trace-cmd-report.txt)
# Text rebuilt into records by the events' formats (TraceEventPrintScan.c).
fuzz_target(ftrace_formats FORMAT ftrace EVENTS ${FUZZ_DATA}/tracefs-events
  SEEDS ${FUZZ_DATA}/ftrace-formats.txt ${FUZZ_DATA}/ftrace-syscalls.txt
  ${CAP}/trace-cmd-report.txt)
fuzz_target(trace_dat FORMAT trace-dat SEEDS ${CAP}/trace.dat)
fuzz_target(perf_script FORMAT perf-script SEEDS
  ${FUZZ_DATA}/perf-callchain.txt ${FUZZ_DATA}/perf-kvm-exits.txt
  ${FUZZ_DATA}/perf-raw-syscalls.txt ${FUZZ_DATA}/perf-sched-faults.txt
  ${FUZZ_DATA}/perf-faults-mmap.txt
  ${CAP}/perf-pagefaults.txt ${CAP}/perf-kvm-time-event.txt)
set(PD ${FUZZ_DATA}/perf-data)
fuzz_target(perf_data FORMAT perf-data SEEDS
  ${PD}/tracepoints.data ${PD}/tracepoints-pipe.data ${PD}/faults.data
  ${PD}/callgraph.data ${PD}/samples-pipe.data)
fuzz_target(perf_stat FORMAT perf-stat SEEDS
  ${FUZZ_DATA}/perf-stat-percore.txt ${FUZZ_DATA}/perf-stat-percpu.txt
  ${CAP}/perf-stat.txt)
set(UFT ${FUZZ_DATA}/uftrace-mt.data)
fuzz_target(uftrace_dat FORMAT uftrace DIR ${UFT} FILE 17951.dat SEEDS
  ${UFT}/17951.dat ${UFT}/17953.dat ${CAP}/uftrace.data/11576.dat)
fuzz_target(uftrace_task FORMAT uftrace DIR ${UFT} FILE task.txt SEEDS
  ${UFT}/task.txt ${CAP}/uftrace.data/task.txt)
fuzz_target(uftrace_map FORMAT uftrace DIR ${UFT} FILE sid-0fd32bf6c55db5bb.map SEEDS
  ${UFT}/sid-0fd32bf6c55db5bb.map ${CAP}/uftrace.data/sid-ef9d53d587db8d3b.map)
fuzz_target(chrome_json FORMAT chrome-json SEEDS
  ${FUZZ_DATA}/chrome/events.json ${FUZZ_DATA}/chrome/repair.json
  ${FUZZ_DATA}/chrome/bare.json ${FUZZ_DATA}/chrome/guard-array.json
  ${FUZZ_DATA}/chrome/order.json ${FUZZ_DATA}/chrome/late.json
  ${CAP}/uftrace-chrome.json)
fuzz_target(kvmtrace FORMAT kvmtrace SEEDS ${FUZZ_SAMPLES}/kvmtrace/sample.bin)
fuzz_target(etw FORMAT etw SEEDS ${FUZZ_DATA}/etw/net-slice.etl)

# A session with a store of every kind: events, faults, switches and kvm
# exits (ftrace, perf script), counters (perf stat), spans, modules and
# sources (uftrace, Chrome JSON), the events' raw bytes and their formats
# (a perf.data of tracepoints: ftrace_event.raw, sched_switch.raw,
# event_format).
set(FUZZ_SESSION_SAMPLES
  "ftrace=${FUZZ_DATA}/ftrace-syscalls.txt,ftrace=${FUZZ_DATA}/kvm-exit-entry.txt,\
perf-script=${FUZZ_DATA}/perf-sched-faults.txt,perf-stat=${FUZZ_DATA}/perf-stat-percpu.txt,\
uftrace=${UFT},chrome-json=${FUZZ_DATA}/chrome/events.json,\
perf-data=${CMAKE_SOURCE_DIR}/Tests/Data/perf-data/tracepoints-pipe.data")
fuzz_target(session_store SESSION "${FUZZ_SESSION_SAMPLES}")
fuzz_target(session_sql SESSION "${FUZZ_SESSION_SAMPLES}" SQL)
# The same session exported, as Chrome JSON and as Perfetto's protobuf.
fuzz_target(session_export SESSION "${FUZZ_SESSION_SAMPLES}" EXPORT)
# The same session read as the DuckDB extension's tracestore_scan reads it.
fuzz_target(session_duckdb SESSION "${FUZZ_SESSION_SAMPLES}" DUCKDB)
# The same session, only its rollup files (NAME.rollup) replaced, read
# through the rollups (TraceRollupRead): the decoder of published images.
fuzz_target(rollup_file SESSION "${FUZZ_SESSION_SAMPLES}" ONLY .rollup)
# The same session, only its session.durable replaced (its checksum made
# right): what readers and the next writer do after a power cut.
fuzz_target(durable_file SESSION "${FUZZ_SESSION_SAMPLES}" ONLY .durable DURABLE)
