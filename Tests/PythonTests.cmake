#
# The Python call tracer (Live/Python/, `tracestore trace-python`),
# on every interpreter the module was built for (TRACER_PYTHON_MODULES,
# Live/Python/PythonModule.cmake: Debian's python3 and the pyenv
# 3.12 and 3.13 when present).  The test driver runs on Debian's python3
# (TRACER_PYTHON3) and reads the sessions through the extension.
#
#   python.tree.VERSION.PROGRAM  call trees = a pure-Python sys.setprofile
#                                recorder's, counts = cProfile's ncalls,
#                                output and exit status unchanged
#   python.tree_c.VERSION.PROGRAM the same with --c-calls: C functions' calls
#                                = the recorder's c_call .. c_return
#   python.live.VERSION          count(*)/max(ts) seen growing from another
#                                process while the program runs
#   python.lines.VERSION         --lines: per-line hits = a pure-Python
#                                sys.settrace counter's, other modules no
#                                rows, calls unchanged, line_time
#   python.lines_live.VERSION    --lines: line's count(*)/max(ts) growing
#   python.kernprof.VERSION      --lines hits = line_profiler's (kernprof
#                                -l; Debian packages it for 3.11 only: the
#                                others skip)
#   python.kill.VERSION          a SIGKILLed program's committed calls
#                                (and lines) intact
#   python.cli.VERSION           -m, the script's view, errors
#   python.clock.VERSION         the kernel's getppid events (tracestore
#                                record, root) inside the Python calls
#                                that made them: one clock
#   python.api.VERSION           start()/stop() in a program: filters,
#                                threads started before start(), fork
#
if(NOT TRACER_PYTHON3 OR NOT TRACER_PYTHON_MODULES)
  return()
endif()
set(TRACER_PY_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/Python)
set(TRACER_PY_ENV "")
if(TRACER_SANITIZE)
  # The module is instrumented; the interpreter is not.
  set(TRACER_PY_ENV "LD_PRELOAD=${TRACER_LIBASAN};ASAN_OPTIONS=detect_leaks=0")
endif()
#
# Benchmark (ctest -L bench -R python): per-call overhead next to cProfile,
# a sys.setprofile recorder and the floor (hooks that only read the TSC:
# Bench/PyHookFloor.c, a module per interpreter in build/python-bench/),
# and the RSS of a 100 M-call run.  docs/benchmarks-history.md, "Python tracer".
# bench.python_lines: --lines per line next to line_profiler and the floor
# of a PyEval_SetTrace line profiler, and with a prefix that matches
# nothing; _long: the RSS of 10^8 lines.  BENCHMARKS.md.
#
foreach(entry ${TRACER_PYTHON_MODULES})
  string(REPLACE "|" ";" parts ${entry})
  list(GET parts 0 version)
  list(GET parts 1 python)
  list(GET parts 2 module_dir)
  list(GET parts 3 include_dir)
  list(GET parts 4 suffix)
  string(REPLACE "." "" tag ${version})
  set(floor_dir ${CMAKE_BINARY_DIR}/python-bench/${version})
  add_library(tracestore_floor_py${tag} MODULE
              ${CMAKE_CURRENT_SOURCE_DIR}/Bench/PyHookFloor.c)
  set_target_properties(tracestore_floor_py${tag} PROPERTIES
    OUTPUT_NAME tracestore_floor PREFIX "" SUFFIX ${suffix}
    LIBRARY_OUTPUT_DIRECTORY ${floor_dir} C_VISIBILITY_PRESET hidden)
  target_include_directories(tracestore_floor_py${tag} PRIVATE ${include_dir})
  target_compile_options(tracestore_floor_py${tag} PRIVATE ${TRACER_WARNINGS})
  add_test(NAME bench.python.${version}
    COMMAND ${python} ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_python.py
            ${CMAKE_CURRENT_BINARY_DIR}/bench-python-${version})
  add_test(NAME bench.python_long.${version}
    COMMAND ${python} ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_python.py
            ${CMAKE_CURRENT_BINARY_DIR}/bench-python-${version} --long 100000000)
  add_test(NAME bench.python_lines.${version}
    COMMAND ${python} ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_python_lines.py
            ${CMAKE_CURRENT_BINARY_DIR}/bench-python-lines-${version})
  add_test(NAME bench.python_lines_long.${version}
    COMMAND ${python} ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_python_lines.py
            ${CMAKE_CURRENT_BINARY_DIR}/bench-python-lines-${version}
            --long 100000000)
  set_tests_properties(bench.python.${version} bench.python_long.${version}
    bench.python_lines.${version} bench.python_lines_long.${version}
    PROPERTIES LABELS bench TIMEOUT 1800 RUN_SERIAL TRUE
    ENVIRONMENT "PYTHONPATH=${module_dir}:${floor_dir}")
endforeach()

foreach(entry ${TRACER_PYTHON_MODULES})
  string(REPLACE "|" ";" parts ${entry})
  list(GET parts 0 version)
  list(GET parts 1 python)
  list(GET parts 2 module_dir)
  add_test(NAME python.cli.${version}
    COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_cli_test.py
            $<TARGET_FILE:tracestore> ${python}
            ${CMAKE_CURRENT_BINARY_DIR}/python-work/cli-${version})
  set_tests_properties(python.cli.${version} PROPERTIES
    LABELS integration TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "${TRACER_PY_ENV}")
  add_test(NAME python.clock.${version}
    COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_clock_test.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext> ${python}
            ${CMAKE_CURRENT_BINARY_DIR}/python-work/clock-${version})
  set_tests_properties(python.clock.${version} PROPERTIES
    LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel
    ENVIRONMENT "${TRACER_PY_ENV}")
  add_test(NAME python.api.${version}
    COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_api_test.py
            $<TARGET_FILE:tracestore_ext> ${python} ${module_dir}
            ${CMAKE_CURRENT_BINARY_DIR}/python-work/api-${version})
  set_tests_properties(python.api.${version} PROPERTIES
    LABELS integration TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "${TRACER_PY_ENV}")
  foreach(program recursion generators async_prog exceptions threads callbacks)
    add_test(NAME python.tree.${version}.${program}
      COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_tree_test.py
              $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext> ${python}
              ${TRACER_PY_TESTS}/programs/${program}.py
              ${CMAKE_CURRENT_BINARY_DIR}/python-work/tree-${version}-${program})
    set_tests_properties(python.tree.${version}.${program} PROPERTIES
      LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
      ENVIRONMENT "${TRACER_PY_ENV}")
  endforeach()
  add_test(NAME python.lines.${version}
    COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_lines_test.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext> ${python}
            ${CMAKE_CURRENT_BINARY_DIR}/python-work/lines-${version})
  set_tests_properties(python.lines.${version} PROPERTIES
    LABELS integration TIMEOUT 180 SKIP_RETURN_CODE 77
    ENVIRONMENT "${TRACER_PY_ENV}")
  add_test(NAME python.kernprof.${version}
    COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_kernprof_test.py
            $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext> ${python}
            ${CMAKE_CURRENT_BINARY_DIR}/python-work/kernprof-${version})
  set_tests_properties(python.kernprof.${version} PROPERTIES
    LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    ENVIRONMENT "${TRACER_PY_ENV}")
  foreach(program callbacks generators exceptions async_prog)
    add_test(NAME python.tree_c.${version}.${program}
      COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_tree_test.py
              $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext> ${python}
              ${TRACER_PY_TESTS}/programs/${program}.py
              ${CMAKE_CURRENT_BINARY_DIR}/python-work/tree_c-${version}-${program}
              c-calls)
    set_tests_properties(python.tree_c.${version}.${program} PROPERTIES
      LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
      ENVIRONMENT "${TRACER_PY_ENV}")
  endforeach()
  foreach(mode live lines_live kill)
    add_test(NAME python.${mode}.${version}
      COMMAND ${TRACER_PYTHON3} ${TRACER_PY_TESTS}/python_live_test.py
              $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext> ${python}
              ${CMAKE_CURRENT_BINARY_DIR}/python-work/${mode}-${version} ${mode})
    set_tests_properties(python.${mode}.${version} PROPERTIES
      LABELS integration TIMEOUT 60 SKIP_RETURN_CODE 77
      ENVIRONMENT "${TRACER_PY_ENV}")
  endforeach()
endforeach()
