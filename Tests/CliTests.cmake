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

foreach(verb import info sql)
  add_test(NAME cli.help.${verb} COMMAND $<TARGET_FILE:tracestore> ${verb} --help)
  set_tests_properties(cli.help.${verb} PROPERTIES LABELS unit TIMEOUT 10
    PASS_REGULAR_EXPRESSION "usage: tracestore ${verb}")
endforeach()
