#
# Rollups (TraceStore/TraceRollup.h): the views read from them equal the
# views computed from every row (tracestore_attach's 'scan' mode), on every
# sample, on generated sessions written every way a writer writes, on
# damaged rollup files, after writers are killed, and while writers run;
# and tracestore top shows what the views answer.
#
#   ctest -L rollup
#
#   rollup.unit.*            the fold's arithmetic (TestRollup.c)
#   rollup.samples           every sample imported, several into one session
#   rollup.generated.CASE    GenSession's sessions (rollup_generated.sh)
#   rollup.damaged.CASE      damaged rollup files (rollup_damaged.py)
#   rollup.kill.STYLE        writers SIGKILLed at random (rollup_kill.py)
#   rollup.live.WRITER       a reader while GenSession, record or
#                            trace-python writes (rollup_live.py)
#   rollup.top.MODE          tracestore top (rollup_top_test.py)
#
# The crash torture (Tests/Crash/torture.sh) checks the views after each
# kill of import and record too.
#
add_executable(GenSession ${CMAKE_CURRENT_SOURCE_DIR}/Rollup/GenSession.c)
target_link_libraries(GenSession PRIVATE TracerStore pthread m)
target_compile_options(GenSession PRIVATE ${TRACER_WARNINGS})

add_executable(RollupTamper ${CMAKE_CURRENT_SOURCE_DIR}/Rollup/RollupTamper.c)
target_link_libraries(RollupTamper PRIVATE TracerStore)
target_compile_options(RollupTamper PRIVATE ${TRACER_WARNINGS})

add_executable(TestRollup ${CMAKE_CURRENT_SOURCE_DIR}/Rollup/TestRollup.c)
target_link_libraries(TestRollup PRIVATE TracerStore ${SQLITE3_LIBRARY})
target_include_directories(TestRollup PRIVATE ${SQLITE3_INCLUDE_DIR})
target_compile_options(TestRollup PRIVATE ${TRACER_WARNINGS})

foreach(case sql_integer histogram)
  add_test(NAME rollup.unit.${case} COMMAND TestRollup ${case})
  set_tests_properties(rollup.unit.${case} PROPERTIES
    LABELS "unit;rollup" TIMEOUT 120)
endforeach()

if(NOT TRACER_PYTHON3)
  message(WARNING "python3 not found: the rollup tests are not run")
  return()
endif()

set(ROLLUP_DIR ${CMAKE_CURRENT_SOURCE_DIR}/Rollup)
set(ROLLUP_WORK ${CMAKE_CURRENT_BINARY_DIR}/rollup)
set(ROLLUP_ENV "")
if(TRACER_SANITIZE)
  # The extension is instrumented; the interpreter is not.
  set(ROLLUP_ENV "LD_PRELOAD=${TRACER_LIBASAN};ASAN_OPTIONS=detect_leaks=0")
endif()

add_test(NAME rollup.samples
  COMMAND sh ${ROLLUP_DIR}/rollup_samples.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:tracestore_ext> ${TRACER_PYTHON3} ${TRACER_DATA_DIR}
          ${TRACER_SHARED_DIR} ${ROLLUP_WORK}/samples)
set_tests_properties(rollup.samples PROPERTIES
  LABELS "integration;rollup" TIMEOUT 300 ENVIRONMENT "${ROLLUP_ENV}")

foreach(case import python python_open dup_names fold_thread appended coarse
        recursion lines lines_open lines_thread)
  add_test(NAME rollup.generated.${case}
    COMMAND sh ${ROLLUP_DIR}/rollup_generated.sh $<TARGET_FILE:GenSession>
            $<TARGET_FILE:tracestore_ext> ${TRACER_PYTHON3}
            ${ROLLUP_WORK}/generated-${case} ${case})
  set_tests_properties(rollup.generated.${case} PROPERTIES
    LABELS "integration;rollup" TIMEOUT 300 ENVIRONMENT "${ROLLUP_ENV}")
endforeach()

foreach(case flip_latest flip_both flip_slots flip_header truncated
        truncated_image empty garbage version missing directory other_store
        ahead)
  add_test(NAME rollup.damaged.${case}
    COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_damaged.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext>
            $<TARGET_FILE:GenSession> $<TARGET_FILE:RollupTamper>
            ${ROLLUP_WORK}/damaged-${case} ${case})
  set_tests_properties(rollup.damaged.${case} PROPERTIES
    LABELS "integration;rollup" TIMEOUT 300 ENVIRONMENT "${ROLLUP_ENV}")
endforeach()

foreach(style import python thread)
  add_test(NAME rollup.kill.${style}
    COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_kill.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext>
            $<TARGET_FILE:GenSession> ${ROLLUP_WORK}/kill-${style} ${style} 6 1)
  set_tests_properties(rollup.kill.${style} PROPERTIES
    LABELS "integration;crash;rollup" TIMEOUT 600 ENVIRONMENT "${ROLLUP_ENV}")
  # The long variant: 60 kills (not in the default run: ctest -L long).
  add_test(NAME rollup.kill_long.${style}
    COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_kill.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext>
            $<TARGET_FILE:GenSession> ${ROLLUP_WORK}/kill-long-${style}
            ${style} 60 2)
  set_tests_properties(rollup.kill_long.${style} PROPERTIES
    LABELS "long;crash;rollup" TIMEOUT 3600 ENVIRONMENT "${ROLLUP_ENV}")
endforeach()

# Live readers.  GenSession: importer-style rows folded on a thread, and
# Python-style rows (running calls' dur growing) folded at each commit.
add_test(NAME rollup.live.gen_import
  COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_live.py
          $<TARGET_FILE:tracestore_ext> ${ROLLUP_WORK}/live-import/s --
          $<TARGET_FILE:GenSession> --spans 150000 --faults 150000
          --kvm 150000 --events 150000 --commit-every 2000 --slow 4000
          --fold-thread ${ROLLUP_WORK}/live-import/s)
add_test(NAME rollup.live.gen_python
  COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_live.py
          $<TARGET_FILE:tracestore_ext> ${ROLLUP_WORK}/live-python/s --
          $<TARGET_FILE:GenSession> --python 400000 --lines 400000
          --commit-every 1000 --slow 3000 ${ROLLUP_WORK}/live-python/s)
set_tests_properties(rollup.live.gen_import rollup.live.gen_python PROPERTIES
  LABELS "integration;rollup" TIMEOUT 300 ENVIRONMENT "${ROLLUP_ENV}")

# `tracestore record` (root and tracefs; 77 otherwise): page faults,
# system calls and switches of a busy shell.
add_test(NAME rollup.live.record
  COMMAND sh ${ROLLUP_DIR}/rollup_live_record.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:tracestore_ext> ${TRACER_PYTHON3}
          ${ROLLUP_WORK}/live-record)
set_tests_properties(rollup.live.record PROPERTIES
  LABELS "integration;rollup" TIMEOUT 300 SKIP_RETURN_CODE 77
  RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel ENVIRONMENT "${ROLLUP_ENV}")

# trace-python --lines on every interpreter the module was built for:
# live, and SIGKILLed once the counts have grown.
foreach(entry ${TRACER_PYTHON_MODULES})
  string(REPLACE "|" ";" parts ${entry})
  list(GET parts 0 version)
  list(GET parts 1 python)
  foreach(mode live kill)
    set(kill "")
    set(seconds 2)
    if(mode STREQUAL "kill")
      set(kill --kill-after 10)
      set(seconds 100)
    endif()
    set(s ${ROLLUP_WORK}/python-${mode}-${version}/s)
    add_test(NAME rollup.python_${mode}.${version}
      COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_live.py
              $<TARGET_FILE:tracestore_ext> ${s} ${kill} --
              $<TARGET_FILE:tracestore> trace-python --python ${python}
              --lines __main__ -o ${s} --
              ${CMAKE_CURRENT_SOURCE_DIR}/Python/programs/json_loop.py
              ${seconds})
    set_tests_properties(rollup.python_${mode}.${version} PROPERTIES
      LABELS "integration;rollup" TIMEOUT 120 ENVIRONMENT "${TRACER_PY_ENV}")
  endforeach()
endforeach()

foreach(mode once batch tmux)
  add_test(NAME rollup.top.${mode}
    COMMAND ${TRACER_PYTHON3} ${ROLLUP_DIR}/rollup_top_test.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext>
            $<TARGET_FILE:GenSession> ${ROLLUP_WORK}/top-${mode} ${mode})
  set_tests_properties(rollup.top.${mode} PROPERTIES
    LABELS "integration;rollup" TIMEOUT 120 SKIP_RETURN_CODE 77
    ENVIRONMENT "${ROLLUP_ENV}")
endforeach()

# The views through the rollups next to the full scan at 10^6..10^8 rows
# (docs/benchmarks-history.md, "Rollups"; about 15 minutes and 25 GB).
add_test(NAME bench.rollup
  COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_rollup.py
          ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/bench-rollup)
set_tests_properties(bench.rollup PROPERTIES LABELS bench TIMEOUT 3600 RUN_SERIAL TRUE)
