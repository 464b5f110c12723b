#
# The tracestore command: corrupt stores, --help on every verb.
#
add_executable(StoreTamper ${CMAKE_CURRENT_SOURCE_DIR}/Cli/StoreTamper.c)
target_include_directories(StoreTamper PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(StoreTamper PRIVATE TracerStore)

foreach(case truncated_header bad_magic bad_version record_size count_beyond_file)
  add_test(NAME cli.corrupt_store.${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Cli/corrupt_store.sh $<TARGET_FILE:tracestore>
            $<TARGET_FILE:StoreTamper> $<TARGET_FILE:tracestore_ext>
            ${TRACER_DATA_DIR}/ftrace-capture-1.txt
            ${CMAKE_CURRENT_BINARY_DIR}/cli-work/corrupt-${case} ${case})
  set_tests_properties(cli.corrupt_store.${case} PROPERTIES LABELS integration TIMEOUT 60
    ENVIRONMENT "SQLITE3=${TRACER_SQLITE3}")
endforeach()

foreach(verb import info sql export push record trace-python top)
  add_test(NAME cli.help.${verb} COMMAND $<TARGET_FILE:tracestore> ${verb} --help)
  set_tests_properties(cli.help.${verb} PROPERTIES LABELS unit TIMEOUT 10
    PASS_REGULAR_EXPRESSION "usage: tracestore ${verb}")
endforeach()

#
# tracestore sql: output modes (table, -c/--csv, --json), SQL from the
# argument, -f FILE or stdin, and errors that name the statement.
#
if(TRACER_PYTHON3)
  foreach(case json_values json_rows csv table input_sources errors)
    add_test(NAME cli.sql.${case}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Cli/sql_cli_test.py
              $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt
              ${CMAKE_CURRENT_BINARY_DIR}/cli-work/sql-${case} ${case})
    set_tests_properties(cli.sql.${case} PROPERTIES LABELS integration TIMEOUT 60)
  endforeach()
endif()

#
# tracestore plot: files any reader takes, of the requested size (a PNG
# decoder written from the spec, xml, pdfinfo/pdftoppm), atomic
# replacement, errors; and --summary against awk over the perf script text
# of a real perf record run of two processes (Cli/plot_perf.sh).
#
add_test(NAME cli.help.plot COMMAND $<TARGET_FILE:tracestore> plot --help)
set_tests_properties(cli.help.plot PROPERTIES LABELS unit TIMEOUT 10
  PASS_REGULAR_EXPRESSION "usage: tracestore plot")
# Only plot loads cairo (Outputs/Plot/PlotCairo.h): the executable
# does not name it, so no other command pays for loading it.
add_test(NAME cli.plot.cairo_on_demand
  COMMAND sh -c "objdump -p \"$0\" | grep NEEDED; objdump -p \"$0\" | grep -E 'NEEDED +lib(cairo|fontconfig)' && exit 1 || echo 'cairo is not linked'"
          $<TARGET_FILE:tracestore>)
set_tests_properties(cli.plot.cairo_on_demand PROPERTIES LABELS unit TIMEOUT 10
  PASS_REGULAR_EXPRESSION "cairo is not linked")
if(TRACER_PYTHON3)
  foreach(case png svg pdf atomic no_store empty unwritable bad_regex bad_extension many_threads)
    add_test(NAME cli.plot.${case}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Cli/plot_files.py
              $<TARGET_FILE:tracestore> ${TRACER_DATA_DIR}/ftrace-capture-1.txt
              ${TRACER_DATA_DIR}/perf-stat-percore.txt
              ${CMAKE_CURRENT_BINARY_DIR}/cli-work/plot-${case} ${case})
    set_tests_properties(cli.plot.${case} PROPERTIES LABELS integration TIMEOUT 60)
  endforeach()
endif()
# What a reader sees (Cli/plot_view.py): labels inside the figure, the
# legend by fault count, a filter that matches nothing, --data-start by a
# Windows module's base name.
if(TRACER_PYTHON3)
  foreach(case labels volume no_match data_start mmap)
    add_test(NAME cli.plot.view_${case}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Cli/plot_view.py
              $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR}
              ${CMAKE_CURRENT_BINARY_DIR}/cli-work/plot-view-${case} ${case})
    set_tests_properties(cli.plot.view_${case} PROPERTIES LABELS integration TIMEOUT 120)
  endforeach()
endif()
add_executable(FaultPair ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/FaultPair.c)
foreach(case process thread module filter_p filter_m filter_pm window colors data_start)
  add_test(NAME cli.plot.perf_${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Cli/plot_perf.sh $<TARGET_FILE:tracestore>
            $<TARGET_FILE:FaultPair> ${CMAKE_CURRENT_SOURCE_DIR}/Cli/plot_oracle.awk
            ${TRACER_PYTHON3} ${CMAKE_CURRENT_BINARY_DIR}/cli-work/plot-perf-${case} ${case})
  set_tests_properties(cli.plot.perf_${case} PROPERTIES LABELS integration TIMEOUT 120
    SKIP_RETURN_CODE 77)
endforeach()

# Benchmark: tracestore plot of a 10 M-fault session, seconds and peak RSS,
# against matplotlib's scatter of the same points and the seed's one plot
# call per point (100 k points).  `ctest -L bench -R plot -V`, or
# Tests/Bench/bench_plot.sh TRACESTORE BENCHPLOTSESSION N DIR.
add_executable(BenchPlotSession ${CMAKE_CURRENT_SOURCE_DIR}/Bench/BenchPlotSession.c)
target_include_directories(BenchPlotSession PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(BenchPlotSession PRIVATE TracerStore)
target_compile_options(BenchPlotSession PRIVATE ${TRACER_WARNINGS})
add_test(NAME bench.plot
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_plot.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:BenchPlotSession> 10000000 ${CMAKE_CURRENT_BINARY_DIR}/bench-plot)
set_tests_properties(bench.plot PROPERTIES LABELS bench TIMEOUT 1800 RUN_SERIAL TRUE)
add_test(NAME cli.plot.watch
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/Cli/plot_watch.sh $<TARGET_FILE:tracestore>
          ${CMAKE_CURRENT_BINARY_DIR}/cli-work/plot-watch)
set_tests_properties(cli.plot.watch PROPERTIES LABELS integration TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
# tracestore export: the Chrome trace-event timeline against seeds/001's
# merge.py (../shared/tools/merge_reference.py, run in the test) and
# trace-cmd report; JSON parsing, escaping, round trip, bad input.
#
if(TRACER_PYTHON3)
  foreach(case oracle_full window_kvm counters json_samples escaping round_trip
          bad_input guest_tsc oracle_tsc snapshot kvm_exits hard_column
          unsorted)
    add_test(NAME cli.export.${case}
      COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Cli/export_test.py
              $<TARGET_FILE:tracestore> ${TRACER_SHARED_DIR} ${TRACER_DATA_DIR}
              ${CMAKE_CURRENT_BINARY_DIR}/cli-work/export-${case} ${case}
              $<TARGET_FILE:LiveWriter> $<TARGET_FILE:FaultPair>)
    set_tests_properties(cli.export.${case} PROPERTIES LABELS integration
      TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
endif()
