#
# Disk full and I/O errors (Tests/DiskFull): imports onto small tmpfs and
# ext4 (loop) file systems that fill up, read-only file systems, and a
# sqlite3 shell whose session files are deleted or truncated underneath
# it.  The scripts mount what they need (root) and exit 77, a CTest skip,
# where they cannot.
#
set(DISKFULL_DIR ${CMAKE_CURRENT_SOURCE_DIR}/DiskFull)
set(DISKFULL_SRC ${TRACER_SHARED_DIR}/data/capture-1/ftrace.txt)

# The store writer on a simulated disk (GrowFile fails past a budget).
add_executable(TestGrowFailure ${DISKFULL_DIR}/TestGrowFailure.c)
target_link_libraries(TestGrowFailure PRIVATE TracerStore)
target_include_directories(TestGrowFailure PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/Store)
target_compile_options(TestGrowFailure PRIVATE ${TRACER_WARNINGS})
foreach(Case fill_one fill_batch)
  add_test(NAME diskfull_grow_${Case} COMMAND TestGrowFailure ${Case})
  set_tests_properties(diskfull_grow_${Case} PROPERTIES
    LABELS unit TIMEOUT 30)
endforeach()

# diskfull_test(NAME SCRIPT ARGS...): `sh SCRIPT.sh ARGS... WORKDIR`.
function(diskfull_test name script)
  add_test(NAME ${name}
    COMMAND sh ${DISKFULL_DIR}/${script}.sh ${ARGN}
            ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set_tests_properties(${name} PROPERTIES
    LABELS integration TIMEOUT 60 SKIP_RETURN_CODE 77)
endfunction()

if(TRACER_SQLITE3)
  set(TS $<TARGET_FILE:tracestore>)
  set(EXT ${TRACER_SQLITE3} $<TARGET_FILE:tracestore_ext>)
  # 16 KB: the session cannot open; 64 KB: its stores cannot all be made.
  diskfull_test(diskfull_import_tmpfs_16k import_full tmpfs 16 ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_tmpfs_64k import_full tmpfs 64 ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_tmpfs_256k import_full tmpfs 256 ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_tmpfs_1m import_full tmpfs 1024 ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_tmpfs_3m import_full tmpfs 3072 ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_ext4_4m import_full ext4 4096 ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_repeat import_repeat ${TS} ${EXT}
                ${DISKFULL_SRC})
  diskfull_test(diskfull_import_sweep import_sweep ${TS}
                ${TRACER_SHARED_DIR}/data)
  diskfull_test(diskfull_readonly readonly ${TS} ${EXT} ${DISKFULL_SRC})
  # tracefs: one recorder at a time, as in RecordTests.cmake.
  diskfull_test(diskfull_record_full record_full ${TS}
                $<TARGET_FILE:TouchPages> ${EXT})
  set_tests_properties(diskfull_record_full PROPERTIES
    RUN_SERIAL TRUE RESOURCE_LOCK tracefs_toplevel)
  # A file cut while a statement reads it (the extension's SIGBUS guard).
  add_executable(TestCutWhileReading ${DISKFULL_DIR}/TestCutWhileReading.c)
  target_link_libraries(TestCutWhileReading PRIVATE TracerSqlite3ExtStatic)
  target_include_directories(TestCutWhileReading PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/Sql)
  target_compile_options(TestCutWhileReading PRIVATE ${TRACER_WARNINGS})
  foreach(Case records header strings foreign chained)
    add_test(NAME diskfull_cut_${Case}
      COMMAND TestCutWhileReading ${Case} ${TS} ${DISKFULL_SRC}
              ${CMAKE_CURRENT_BINARY_DIR}/diskfull_cut_${Case})
    set_tests_properties(diskfull_cut_${Case} PROPERTIES
      LABELS integration TIMEOUT 60)
  endforeach()
  foreach(Case unlinked truncated truncated_header truncated_strings)
    diskfull_test(diskfull_reader_${Case} reader_live ${Case} ${TS} ${EXT}
                  ${DISKFULL_SRC})
  endforeach()
endif()
