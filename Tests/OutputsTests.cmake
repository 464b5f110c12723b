#
# Outputs in real third-party viewers (Outputs/viewers/): every sample,
# exported with `tracestore export`, loaded into Chrome DevTools' trace
# engine (@paulirish/trace_engine) and speedscope's importer under Node
# (load_trace.mjs), and what each viewer shows (threads, events, calls,
# nesting, warnings) compared with what the file holds, read in Python
# (viewers_test.py).
#
# outputs.viewers.npm installs the two packages, pinned, into
# ${CMAKE_BINARY_DIR}/npm-viewers once (network to the npm registry);
# it is skipped when npm is not installed, and so then is outputs.viewers
# (which also skips by itself when node or the packages are missing).
#
add_test(NAME outputs.viewers.npm
  COMMAND sh -c "test -f \"$0/node_modules/speedscope/package.json\" && exit 0; command -v npm >/dev/null 2>&1 || { echo 'npm is not installed'; exit 77; }; mkdir -p \"$0\" && exec npm install --prefix \"$0\" @paulirish/trace_engine@0.0.65 speedscope@1.25.0 --no-audit --no-fund"
          ${CMAKE_BINARY_DIR}/npm-viewers)
set_tests_properties(outputs.viewers.npm PROPERTIES LABELS integration TIMEOUT 300
  FIXTURES_SETUP viewers_npm SKIP_RETURN_CODE 77)

if(TRACER_PYTHON3)
  add_test(NAME outputs.viewers
    COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Outputs/viewers/viewers_test.py
            $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR} ${TRACER_DATA_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/outputs-work/viewers
            ${CMAKE_BINARY_DIR}/npm-viewers)
  set_tests_properties(outputs.viewers PROPERTIES LABELS integration TIMEOUT 300
    FIXTURES_REQUIRED viewers_npm SKIP_RETURN_CODE 77)
  if(TRACER_SANITIZE)
    # trace-python's module is instrumented, the interpreter is not: the
    # test preloads the runtime for that one command (not for node).
    set_tests_properties(outputs.viewers PROPERTIES
      ENVIRONMENT "VIEWERS_PY_PRELOAD=${TRACER_LIBASAN}")
  endif()
endif()

#
# `tracestore export --format perfetto` decoded by protoc against Perfetto's
# own schema (../shared/reference/perfetto) and replayed as trace_processor
# reads a packet sequence; the slices, instants, counters and names compared
# with the session read through SQL (Outputs/perfetto/perfetto_test.py).
# Skipped where protoc (Debian protobuf-compiler) is not installed.
#
if(TRACER_PYTHON3)
  foreach(case capture etw kvmtrace nesting window formats)
    add_test(NAME outputs.perfetto.${case}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Outputs/perfetto/perfetto_test.py
              $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR} ${TRACER_DATA_DIR}
              ${CMAKE_CURRENT_BINARY_DIR}/outputs-work/perfetto-${case} ${case})
    set_tests_properties(outputs.perfetto.${case} PROPERTIES LABELS integration
      TIMEOUT 180 SKIP_RETURN_CODE 77)
  endforeach()
endif()

# The Perfetto export against the JSON one on the same generated sessions
# (docs/benchmarks-history.md, "Exporting to Perfetto's format"); label
# bench, not in the default run.
add_test(NAME bench.export_perfetto
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_export_perfetto.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:GenSession> "1000000 10000000"
          ${CMAKE_CURRENT_BINARY_DIR}/bench-export-perfetto)
set_tests_properties(bench.export_perfetto PROPERTIES LABELS bench TIMEOUT 1800 RUN_SERIAL TRUE)

#
# `tracestore script` (Outputs/Script/) against perf script -s on the same
# perf.data (Outputs/script/script_test.py says what each case runs).  They
# need root, perf and Debian's python3 with the tracestore_script module:
# else 77.
#
if(TRACER_PYTHON3)
  foreach(case syscalls fields faults check tracedat futex stackcollapse
               samples text etw kvm skeleton follow errors)
    add_test(NAME outputs.script.${case}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Outputs/script/script_test.py
              $<TARGET_FILE:tracestore> ${CMAKE_CURRENT_BINARY_DIR}/outputs-work/script-${case}
              ${case} ${TRACER_SHARED_DIR})
    set_tests_properties(outputs.script.${case} PROPERTIES LABELS integration
      TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
    if(TRACER_SANITIZE)
      # The module is instrumented, the interpreter is not.
      set_tests_properties(outputs.script.${case} PROPERTIES
        ENVIRONMENT "SCRIPT_PY_PRELOAD=${TRACER_LIBASAN}")
    endif()
  endforeach()
endif()

# Benchmark (ctest -L bench): tracestore script against perf script -s on
# the same perf.data, and 10^6..10^8 events (Tests/Bench/bench_script.sh).
add_test(NAME bench.script
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_script.sh $<TARGET_FILE:tracestore>
          ${CMAKE_CURRENT_BINARY_DIR}/bench-script "6 60")
set_tests_properties(bench.script PROPERTIES LABELS bench TIMEOUT 3600
                     RUN_SERIAL TRUE SKIP_RETURN_CODE 77)

#
# The DuckDB extension (DuckDbExt/): every store table of sessions from real
# captures, read through tracestore_scan in an unmodified DuckDB, equals
# SQLite's answer through the tracestore extension
# (Tests/DuckDb/duckdb_test.py says what it imports and checks).
#
if(TARGET tracestore_duckdb)
  add_test(NAME outputs.duckdb.tables
    COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/DuckDb/duckdb_test.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:duckdb_host>
            ${TRACER_DUCKDB_EXTENSION} ${TRACER_SHARED_DIR} ${TRACER_DATA_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/outputs-work/duckdb
            ${TRACER_DUCKDB_NODE_MODULES})
  set_tests_properties(outputs.duckdb.tables PROPERTIES LABELS integration
    TIMEOUT 300 ENVIRONMENT TRACER_GENSESSION=$<TARGET_FILE:GenSession>)
  # A session being written (GenSession, as import and the Python tracer
  # write), and damaged ones (Tests/DuckDb/duckdb_live_test.py).
  foreach(mode live damaged)
    add_test(NAME outputs.duckdb.${mode}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/DuckDb/duckdb_live_test.py
              ${mode} $<TARGET_FILE:tracestore> $<TARGET_FILE:duckdb_host>
              ${TRACER_DUCKDB_EXTENSION} $<TARGET_FILE:GenSession>
              ${TRACER_SHARED_DIR} ${CMAKE_CURRENT_BINARY_DIR}/outputs-work/duckdb-${mode})
    set_tests_properties(outputs.duckdb.${mode} PROPERTIES LABELS integration
      TIMEOUT 300)
  endforeach()
endif()
