#
# Tests of the Windows cross build (cmake/Windows.cmake), run by
# `ctest --test-dir build-windows` under wine (Tests/run-tests.sh --windows
# prepares the prefix and keeps wineserver up).  Label windows.
#
#   windows.core_imports    WinCoreTest.exe (the core, no C runtime)
#                           imports from kernel32/ntdll only (objdump -p)
#   windows.core_import     ftrace text into a session, read back
#   windows.store_grow      a store grown through many chunks, reopened
#   windows.store_two_processes   writer and reader processes at once
#   windows.store_crash_recovery  a writer killed, its store reopened
#   windows.same_answers.*  each sample imported on Linux and under wine
#                           answer the same queries and export the same
#                           timeline (and each side opens the other's
#                           sessions)
#   windows.sqlite3_load    sqlite3.exe: .load tracestore
#   windows.edges_linux_only  record, plot, zstd say they are not here
#   windows.vs_projects     Tracer.sln and the .vcxproj files = CMake targets
#   windows.corrupt_store.* damaged stores: clear errors from the .exe/.dll
#
set(TRACER_SHARED_DIR ${CMAKE_SOURCE_DIR}/../shared)
set(TRACER_WINDOWS_TEST_DIR ${CMAKE_SOURCE_DIR}/Tests/Windows)

add_executable(WinCoreTest ${TRACER_WINDOWS_TEST_DIR}/WinCoreTest.c
               ${CMAKE_SOURCE_DIR}/Tests/Core/NoCrtImport.c)
target_include_directories(WinCoreTest PRIVATE ${CMAKE_SOURCE_DIR} ${XXHASH_INCLUDE_DIR})
target_compile_options(WinCoreTest PRIVATE ${TRACER_CORE_FLAGS})
target_link_options(WinCoreTest PRIVATE -nostdlib -e WinCoreTestStart -Wl,--no-undefined)
target_link_libraries(WinCoreTest PRIVATE TracerReaders TracerKernel TracerStore TracerRtl
                      TracerRtlCompilerSupport kernel32 gcc)

add_test(NAME windows.core_imports
  COMMAND ${TRACER_WINDOWS_TEST_DIR}/check_imports.sh $<TARGET_FILE:WinCoreTest>)
set_tests_properties(windows.core_imports PROPERTIES LABELS "windows;unit" TIMEOUT 60)

# Expected: the number of event lines, counted by grep on the sample (as
# core.nocrt_import does on Linux).
set(TRACER_WINDOWS_FTRACE ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt)
add_test(NAME windows.core_import
  COMMAND sh -c "rm -rf \"$2\" && exec wine \"$0\" import \"$1\" \"$2\" $(grep -c ': [a-z_0-9]*: ' \"$1\")"
          $<TARGET_FILE:WinCoreTest> ${TRACER_WINDOWS_FTRACE}
          ${CMAKE_CURRENT_BINARY_DIR}/wincore.session)

# 3,000,000 records (96 MB): the view swapped at every chunk (64 KiB
# doubling to 64 MiB), trimmed at close, reopened for append.  Oracle: the
# records' contents follow from their index.
add_test(NAME windows.store_grow
  COMMAND sh -c "rm -f \"$1\" && exec wine \"$0\" grow \"$1\" 3000000"
          $<TARGET_FILE:WinCoreTest> ${CMAKE_CURRENT_BINARY_DIR}/wingrow.store)

add_test(NAME windows.store_two_processes
  COMMAND ${TRACER_WINDOWS_TEST_DIR}/two_processes.sh $<TARGET_FILE:WinCoreTest>
          ${CMAKE_CURRENT_BINARY_DIR}/wintwo.store 2000000)

add_test(NAME windows.store_crash_recovery
  COMMAND ${TRACER_WINDOWS_TEST_DIR}/crash_recovery.sh $<TARGET_FILE:WinCoreTest>
          ${CMAKE_CURRENT_BINARY_DIR}/wincrash.store)

# The Linux build's tracestore and tracestore.so are the oracle of the
# cross-platform tests (Tests/run-tests.sh --windows passes its build/);
# without them those tests skip.
set(TRACER_LINUX_BUILD_DIR "" CACHE PATH "A Linux build of this tree (oracle of windows.same_answers)")
set(TRACER_WINDOWS_SAMPLES
  ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt
  ${TRACER_SHARED_DIR}/data/capture-1/trace-v6.dat
  ${TRACER_SHARED_DIR}/data/capture-1/trace-v7-none.dat
  ${TRACER_SHARED_DIR}/data/capture-1/perf-kvm.txt
  ${TRACER_SHARED_DIR}/data/capture-1/perf-kvm-time-event.txt
  ${TRACER_SHARED_DIR}/data/capture-1/perf-pagefaults.txt
  ${TRACER_SHARED_DIR}/data/capture-1/perf-stat.txt
  ${TRACER_SHARED_DIR}/data/capture-1/uftrace.data
  ${TRACER_SHARED_DIR}/data/capture-1/uftrace-chrome.json
  ${CMAKE_SOURCE_DIR}/Tests/Data/ftrace-syscalls.txt
  ${CMAKE_SOURCE_DIR}/Tests/Data/kvm-exit-entry.txt
  ${CMAKE_SOURCE_DIR}/Tests/Data/perf-callchain.txt
  ${CMAKE_SOURCE_DIR}/Tests/Data/perf-raw-syscalls.txt
  ${CMAKE_SOURCE_DIR}/Tests/Data/perf-sched-faults.txt
  ${CMAKE_SOURCE_DIR}/Tests/Data/perf-stat-percore.txt
  ${CMAKE_SOURCE_DIR}/Tests/Data/chrome/events.json)
# The ETW reader's logs (issue 18 item 4), once that reader is in the tree:
# the uncompressed log as it is, PerfView's unzipped at configure time.
if(EXISTS ${CMAKE_SOURCE_DIR}/Readers/Decoders/Etw)
  file(ARCHIVE_EXTRACT INPUT ${TRACER_SHARED_DIR}/data/etw/net.4.5.2.x64.etl.zip
       DESTINATION ${CMAKE_CURRENT_BINARY_DIR}/etw-samples PATTERNS *.etl)
  list(APPEND TRACER_WINDOWS_SAMPLES
    ${TRACER_SHARED_DIR}/data/etw/ShutdownPerfDiagLogger.etl
    ${CMAKE_CURRENT_BINARY_DIR}/etw-samples/net.4.5.2.x64.etl)
endif()
# One test per sample (windows.same_answers.NAME), each with its own time:
# all of them in one test took 225 s of its 240 on a loaded machine.
set(TRACER_SAME_ANSWERS_TESTS)
foreach(Sample IN LISTS TRACER_WINDOWS_SAMPLES)
  get_filename_component(Name ${Sample} NAME)
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" Name ${Name})
  add_test(NAME windows.same_answers.${Name}
    COMMAND sh -c "[ -x \"$0\" ] || { echo \"no Linux build (-DTRACER_LINUX_BUILD_DIR)\"; exit 77; }; exec \"$@\""
            ${TRACER_LINUX_BUILD_DIR}/tracestore
            ${TRACER_WINDOWS_TEST_DIR}/same_answers.sh ${TRACER_LINUX_BUILD_DIR}/tracestore
            $<TARGET_FILE:tracestore> ${CMAKE_CURRENT_BINARY_DIR}/same-answers-${Name}
            ${Sample})
  list(APPEND TRACER_SAME_ANSWERS_TESTS windows.same_answers.${Name})
endforeach()

add_test(NAME windows.sqlite3_load
  COMMAND ${TRACER_WINDOWS_TEST_DIR}/sqlite3_load.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:sqlite3> ${TRACER_LINUX_BUILD_DIR}
          ${TRACER_WINDOWS_FTRACE} ${CMAKE_CURRENT_BINARY_DIR}/sqlite3-load)

add_test(NAME windows.edges_linux_only
  COMMAND ${TRACER_WINDOWS_TEST_DIR}/linux_only.sh $<TARGET_FILE:tracestore>
          ${TRACER_SHARED_DIR}/data/capture-1/trace.dat ${CMAKE_CURRENT_BINARY_DIR}/linux-only)

set_tests_properties(windows.core_import windows.store_grow windows.sqlite3_load
  windows.edges_linux_only PROPERTIES LABELS "windows;unit" TIMEOUT 120 SKIP_RETURN_CODE 77)
set_tests_properties(windows.store_two_processes windows.store_crash_recovery
  ${TRACER_SAME_ANSWERS_TESTS} PROPERTIES
  LABELS "windows;integration" TIMEOUT 300 SKIP_RETURN_CODE 77)

# Tracer.sln and its .vcxproj files against the CMake targets (sources both
# ways, GUIDs, references, CRT-free props; xbuild evaluates each project),
# and that check catching planted faults.
add_test(NAME windows.vs_projects
  COMMAND python3 ${TRACER_WINDOWS_TEST_DIR}/vs_projects.py check ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/vs-targets.txt)
add_test(NAME windows.vs_projects_catches
  COMMAND ${TRACER_WINDOWS_TEST_DIR}/vs_projects_catches.sh ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/vs-targets.txt)
set_tests_properties(windows.vs_projects windows.vs_projects_catches PROPERTIES
  LABELS "windows;unit" TIMEOUT 120)

# Corrupt stores (Tests/Cli/corrupt_store.sh, the Linux cases) through
# tracestore.exe and sqlite3.exe under wine: a clear error naming the file,
# exit status non-zero, no crash.  The files are tampered with by the Linux
# build's StoreTamper; the Windows programs run through wine wrappers
# (Windows/wine_run.sh: once more if wine could not reach its wineserver).
set(TRACER_WINE_TRACESTORE ${CMAKE_CURRENT_BINARY_DIR}/wine-tracestore)
set(TRACER_WINE_SQLITE3 ${CMAKE_CURRENT_BINARY_DIR}/wine-sqlite3)
file(GENERATE OUTPUT ${TRACER_WINE_TRACESTORE}
     CONTENT "#!/bin/sh\nexec ${CMAKE_SOURCE_DIR}/Tests/Windows/wine_run.sh $<TARGET_FILE:tracestore> \"$@\"\n"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
file(GENERATE OUTPUT ${TRACER_WINE_SQLITE3}
     CONTENT "#!/bin/sh\nexec ${CMAKE_SOURCE_DIR}/Tests/Windows/wine_run.sh $<TARGET_FILE:sqlite3> \"$@\"\n"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
foreach(case truncated_header bad_magic bad_version record_size count_beyond_file)
  add_test(NAME windows.corrupt_store.${case}
    COMMAND sh -c "[ -x \"$2\" ] || { echo 'no Linux build (StoreTamper)'; exit 77; }; exec \"$0\" \"$@\""
            ${CMAKE_SOURCE_DIR}/Tests/Cli/corrupt_store.sh ${TRACER_WINE_TRACESTORE}
            ${TRACER_LINUX_BUILD_DIR}/Tests/StoreTamper tracestore
            ${CMAKE_SOURCE_DIR}/Tests/Data/ftrace-capture-1.txt
            ${CMAKE_CURRENT_BINARY_DIR}/corrupt-${case} ${case})
  set_tests_properties(windows.corrupt_store.${case} PROPERTIES LABELS "windows;integration"
    TIMEOUT 60 SKIP_RETURN_CODE 77 ENVIRONMENT "SQLITE3=${TRACER_WINE_SQLITE3}")
endforeach()
