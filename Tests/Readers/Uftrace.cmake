# Tests of the uftrace and Chrome trace-event JSON readers; see
# Tests/ReaderTests.cmake for the conventions.  The oracle is uftrace itself
# (replay, dump, dump --chrome), and rows derived by hand for the
# hand-written JSON files in Tests/Data/chrome.

set(UFTRACE_SAMPLE ${TRACER_SHARED_DIR}/data/capture-1/uftrace.data)
set(UFTRACE_CHROME_SAMPLE ${TRACER_SHARED_DIR}/data/capture-1/uftrace-chrome.json)
# Three threads, arguments and return values recorded (-A/-R): see
# Tests/Data/uftrace-mt.c.
set(UFTRACE_MT_SAMPLE ${TRACER_DATA_DIR}/uftrace-mt.data)
set(UFTRACE_ORACLE ${CMAKE_CURRENT_SOURCE_DIR}/Readers/uftrace_oracle.sh)

foreach(check replay dump chrome lost)
  add_test(NAME reader.uftrace.${check}.capture
    COMMAND ${UFTRACE_ORACLE} $<TARGET_FILE:tracestore> ${UFTRACE_SAMPLE}
            ${READER_WORK}/uftrace-${check}-capture ${check})
  add_test(NAME reader.uftrace.${check}.mt
    COMMAND ${UFTRACE_ORACLE} $<TARGET_FILE:tracestore> ${UFTRACE_MT_SAMPLE}
            ${READER_WORK}/uftrace-${check}-mt ${check})
  set_tests_properties(reader.uftrace.${check}.capture reader.uftrace.${check}.mt
    PROPERTIES LABELS integration TIMEOUT 120)
endforeach()

# The real producer, here: Tests/Data/uftrace-args.c (gcc -pg) recorded
# with uftrace, every span row compared with uftrace replay (--flat: times,
# depths, context switches; --no-merge: arguments and return values) and
# span_self_time with uftrace report.  See uftrace_producer.sh.
foreach(case specs auto glob sched nosched damage cut)
  add_test(NAME reader.uftrace.producer.${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/uftrace_producer.sh $<TARGET_FILE:tracestore>
            ${TRACER_DATA_DIR}/uftrace-args.c ${READER_WORK}/uftrace-producer-${case} ${case})
  set_tests_properties(reader.uftrace.producer.${case} PROPERTIES LABELS integration TIMEOUT 120)
endforeach()

# The argument module against the C library uftrace prints and matches
# with: printf's %#f/%#Lf, regcomp/regexec, fnmatch (random inputs).
add_executable(TestUftraceArgs ${CMAKE_CURRENT_SOURCE_DIR}/Readers/TestUftraceArgs.c)
target_include_directories(TestUftraceArgs PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestUftraceArgs PRIVATE TracerReaders)
foreach(case floats regex glob)
  add_test(NAME reader.uftrace.args_${case} COMMAND TestUftraceArgs ${case})
  set_tests_properties(reader.uftrace.args_${case} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# The shared Chrome JSON of the capture (uftrace dump --chrome of the same
# run) gives the same spans as its uftrace.data: same ts to the ns.
add_test(NAME reader.chrome.same_as_uftrace
  COMMAND ${UFTRACE_ORACLE} $<TARGET_FILE:tracestore> ${UFTRACE_SAMPLE}
          ${READER_WORK}/chrome-same chrome ${UFTRACE_CHROME_SAMPLE})
set_tests_properties(reader.chrome.same_as_uftrace PROPERTIES LABELS integration TIMEOUT 120)

foreach(case events repair bare truncated cut-event cut-object cut-anywhere order late boundary)
  add_test(NAME reader.chrome.${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/chrome_cases.sh $<TARGET_FILE:tracestore>
            ${TRACER_DATA_DIR}/chrome ${READER_WORK}/chrome-${case} ${case})
  set_tests_properties(reader.chrome.${case} PROPERTIES LABELS integration TIMEOUT 60)
endforeach()

# Damaged copies of a record directory: cut task files, changed bytes, a
# bad info header, task.txt and symbol file.
foreach(sample capture mt)
  if(sample STREQUAL capture)
    set(dir ${UFTRACE_SAMPLE})
  else()
    set(dir ${UFTRACE_MT_SAMPLE})
  endif()
  add_test(NAME reader.uftrace.damage.${sample}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/uftrace_damage.sh $<TARGET_FILE:tracestore>
            ${dir} ${READER_WORK}/uftrace-damage-${sample} 300)
  set_tests_properties(reader.uftrace.damage.${sample} PROPERTIES LABELS integration TIMEOUT 300)
endforeach()

# Files written by the real producers (clang -ftime-trace, Node.js trace
# events), every row against chrome_oracle.py's reading of the same file,
# and the same files cut short.
foreach(case clang node cut)
  add_test(NAME reader.chrome.producer.${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/chrome_producers.sh $<TARGET_FILE:tracestore>
            ${CMAKE_SOURCE_DIR} ${READER_WORK}/chrome-producer-${case} ${case})
  set_tests_properties(reader.chrome.producer.${case} PROPERTIES LABELS integration TIMEOUT 300)
endforeach()

reader_guard_test(chrome_json chrome-json ${UFTRACE_CHROME_SAMPLE} 8192 3000)
# A bare array (whose prefixes are accepted: Chrome's truncated form) with
# every kind of event, escapes, and ends without begins; small enough that
# the flips land anywhere in it.
reader_guard_test(chrome_array chrome-json ${TRACER_DATA_DIR}/chrome/guard-array.json 8192 3000)

# Benchmark (ctest -L bench): a generated Chrome JSON file of about 1 GB.
add_test(NAME bench.import_chrome
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Bench/bench_chrome.sh $<TARGET_FILE:tracestore> 1000
          ${CMAKE_CURRENT_BINARY_DIR}/bench-chrome)
set_tests_properties(bench.import_chrome PROPERTIES LABELS bench TIMEOUT 1200 RUN_SERIAL TRUE)
