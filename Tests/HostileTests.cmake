#
# Hostile stores in SQL (issue 6, item 5): crafted session directories, made
# at test time from a session imported from committed samples, opened
# through the extension, `tracestore info` and `tracestore sql`.  Each case
# must give an error naming the file, or correct results; never a crash,
# a hang or an out-of-bounds read.  Tests/Hostile/hostile_test.py drives
# them and holds the cases and the oracle (an independent reader of the
# store format, in Python).
#
#   ctest -R hostile\\.            every case
#   ctest -R hostile.string_       one family
#
# Reads past the end of a mapped store do not show under ASan (the next
# pages are usually another store's mapping): the extension and command the
# cases run are builds linked with Hostile/FencedMappings.c, which puts an
# inaccessible region after every read-only mapping so that such a read
# faults.
#
add_executable(StoreSeal ${CMAKE_CURRENT_SOURCE_DIR}/Hostile/StoreSeal.c)
target_include_directories(StoreSeal PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(StoreSeal PRIVATE TracerStore)
target_compile_options(StoreSeal PRIVATE ${TRACER_WARNINGS})

add_executable(HostileQuery ${CMAKE_CURRENT_SOURCE_DIR}/Hostile/HostileQuery.c)
target_include_directories(HostileQuery PRIVATE ${SQLITE3_INCLUDE_DIR})
target_link_libraries(HostileQuery PRIVATE ${SQLITE3_LIBRARY})
target_compile_options(HostileQuery PRIVATE ${TRACER_WARNINGS})

set(TRACER_FENCED_MAPPINGS ${CMAKE_CURRENT_SOURCE_DIR}/Hostile/FencedMappings.c)
list(TRANSFORM TRACER_SQLITE3EXT_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/
     OUTPUT_VARIABLE TRACER_HOSTILE_EXT_SOURCES)

# The extension, as tracestore.so in its own directory (the name gives
# SQLite the entry point), with fenced mappings.
add_library(tracestore_fenced MODULE ${TRACER_HOSTILE_EXT_SOURCES} ${TRACER_FENCED_MAPPINGS})
add_dependencies(tracestore_fenced TracerSyscallTable)
set_target_properties(tracestore_fenced PROPERTIES OUTPUT_NAME tracestore PREFIX ""
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/hostile-fenced)
target_include_directories(tracestore_fenced PRIVATE ${CMAKE_SOURCE_DIR}
  ${SQLITE3_INCLUDE_DIR} ${TRACER_GENERATED_DIR})
target_link_libraries(tracestore_fenced PRIVATE TracerReaders TracerStore pthread)
target_link_options(tracestore_fenced PRIVATE -Wl,--no-undefined -Wl,--wrap=InitializeRtl)
target_compile_options(tracestore_fenced PRIVATE ${TRACER_WARNINGS})

# The tracestore command, with fenced mappings (info, sql).
add_executable(tracestore_fenced_cli ${TRACESTORE_CLI_SOURCES}
  ${TRACER_FENCED_MAPPINGS})
target_include_directories(tracestore_fenced_cli PRIVATE ${CMAKE_SOURCE_DIR}
  ${TRACESTORE_CLI_INCLUDES})
target_link_libraries(tracestore_fenced_cli PRIVATE TracerReaders TracerSqlite3ExtStatic
  pthread ${ZSTD_LIBRARY} ${TRACESTORE_CLI_LIBRARIES})
target_link_options(tracestore_fenced_cli PRIVATE -Wl,--wrap=InitializeRtl)
target_compile_options(tracestore_fenced_cli PRIVATE ${TRACER_WARNINGS})

if(NOT TRACER_PYTHON3)
  message(WARNING "python3 not found: the hostile-store tests are not run")
  return()
endif()

execute_process(COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Hostile/hostile_test.py --list
                OUTPUT_VARIABLE TRACER_HOSTILE_CASES OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE TRACER_HOSTILE_LIST_RC)
if(NOT TRACER_HOSTILE_LIST_RC EQUAL 0)
  message(FATAL_ERROR "Tests/Hostile/hostile_test.py --list failed")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_CURRENT_SOURCE_DIR}/Hostile/hostile_test.py)
string(REPLACE "\n" ";" TRACER_HOSTILE_CASES "${TRACER_HOSTILE_CASES}")

foreach(Case IN LISTS TRACER_HOSTILE_CASES)
  add_test(NAME hostile.${Case}
    COMMAND ${TRACER_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/Hostile/hostile_test.py
            --tracestore $<TARGET_FILE:tracestore>
            --fenced-cli $<TARGET_FILE:tracestore_fenced_cli>
            --fenced-ext $<TARGET_FILE:tracestore_fenced>
            --ext $<TARGET_FILE:tracestore_ext>
            --query $<TARGET_FILE:HostileQuery>
            --seal $<TARGET_FILE:StoreSeal>
            --sqlite3 ${TRACER_SQLITE3}
            --data ${TRACER_DATA_DIR}
            --work ${CMAKE_CURRENT_BINARY_DIR}/hostile-work
            ${Case})
  set_tests_properties(hostile.${Case} PROPERTIES LABELS integration TIMEOUT 120)
endforeach()
