#
# The core links alone: no C runtime, no undefined symbols.  (Skipped under
# sanitizers, whose instrumentation is itself a runtime.)
#
if(NOT TRACER_SANITIZE)
  add_executable(NoCrtImport ${CMAKE_CURRENT_SOURCE_DIR}/Core/NoCrtImport.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/Core/NoCrtStartLinux.c)
  target_include_directories(NoCrtImport PRIVATE ${CMAKE_SOURCE_DIR} ${XXHASH_INCLUDE_DIR})
  target_compile_options(NoCrtImport PRIVATE ${TRACER_CORE_FLAGS})
  target_link_options(NoCrtImport PRIVATE -nostdlib -static -Wl,--no-undefined)
  target_link_libraries(NoCrtImport PRIVATE TracerReaders TracerKernel TracerStore TracerRtl
                        TracerRtlCompilerSupport)

  # Expected: the number of event lines, counted by grep on the sample.
  add_test(NAME core.nocrt_import
    COMMAND sh -c "rm -rf \"$1\" && exec \"$0\" \"$2\" \"$1\" $(grep -c ': [a-z_0-9]*: ' \"$2\")"
            $<TARGET_FILE:NoCrtImport> ${CMAKE_CURRENT_BINARY_DIR}/nocrt.session
            ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt)
  add_test(NAME core.nocrt_no_libc_symbols
    COMMAND sh -c "nm -u \"$0\" | grep . && exit 1 || echo 'no undefined symbols'"
            $<TARGET_FILE:NoCrtImport>)
  add_test(NAME core.archives_self_contained
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Core/check_core_symbols.sh
            $<TARGET_FILE:TracerRtl> $<TARGET_FILE:TracerStore> $<TARGET_FILE:TracerKernel>
            $<TARGET_FILE:TracerReaders>
            $<TARGET_FILE:TracerRtlCompilerSupport>)
  set_tests_properties(core.nocrt_import core.nocrt_no_libc_symbols
    core.archives_self_contained PROPERTIES LABELS unit TIMEOUT 60)
endif()

# The hosted programs keep the C library's memory routines: no memcpy,
# memmove, memset or memcmp defined in tracestore or tracestore.so.
add_test(NAME core.hosted_keeps_libc_memory
  COMMAND sh -c "nm --defined-only \"$0\" \"$1\" | grep -E ' [A-Za-z] (memcpy|memmove|memset|memcmp)$' && exit 1 || echo 'libc memory routines kept'"
          $<TARGET_FILE:tracestore> $<TARGET_FILE:tracestore_ext>)
set_tests_properties(core.hosted_keeps_libc_memory PROPERTIES LABELS unit TIMEOUT 60)

# The arrows between the rooms (docs/tree.md; issues 14 and 25): every
# #include, and every symbol one object of the tree takes from another (a
# table of function pointers, an extern, a call), points down the data
# flow.  zones.arrows_catches plants one violation of each rule, of each
# kind, in a scratch tree and expects exactly those.
add_test(NAME zones.arrows
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/Core/check_zones.py
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
add_test(NAME zones.arrows_catches
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Core/check_zones_catches.sh
          ${CMAKE_CURRENT_SOURCE_DIR}/Core/check_zones.py)
set_tests_properties(zones.arrows zones.arrows_catches PROPERTIES LABELS unit TIMEOUT 60)
