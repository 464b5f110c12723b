#
# TraceStore tests: stores, the commit protocol, strings, sessions, corrupt
# files (unit); a writer and a reader process at once (integration);
# writers killed with SIGKILL (crash); and the append benchmark (bench).
#
# Test programs are hosted C (libc) linked with the core.  They make their
# scratch directories with mkdtemp under $TMPDIR (default /tmp) and remove
# them; TRACER_TEST_KEEP=1 keeps them, TRACER_TEST_SEED=N repeats a random
# run.
#

set(TRACER_STORE_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/Store)

function(tracer_store_test_program Name)
  add_executable(${Name} ${ARGN})
  target_link_libraries(${Name} PRIVATE TracerStore)
  target_include_directories(${Name} PRIVATE ${TRACER_STORE_TEST_DIR})
  target_compile_options(${Name} PRIVATE ${TRACER_WARNINGS})
endfunction()

tracer_store_test_program(TestStore ${TRACER_STORE_TEST_DIR}/TestStore.c)
tracer_store_test_program(TestStrings ${TRACER_STORE_TEST_DIR}/TestStrings.c)
tracer_store_test_program(TestStoreCorrupt
  ${TRACER_STORE_TEST_DIR}/TestStoreCorrupt.c)
tracer_store_test_program(TestStoreLive ${TRACER_STORE_TEST_DIR}/TestLive.c)
tracer_store_test_program(TestStoreCrash ${TRACER_STORE_TEST_DIR}/TestCrash.c)
tracer_store_test_program(CheckDurable
  ${CMAKE_CURRENT_SOURCE_DIR}/PowerLoss/CheckDurable.c)
tracer_store_test_program(BenchAppend
  ${CMAKE_CURRENT_SOURCE_DIR}/Bench/BenchAppend.c)
target_link_libraries(BenchAppend PRIVATE pthread)

#
# One CTest entry per case of TestStore, TestStrings and TestStoreCorrupt
# (`list` prints them).
# Cases that write hundreds of MiB get a longer timeout.
#
set(TRACER_STORE_UNIT_CASES
  create_reopen
  empty_store
  sorted_flag
  commit_tracked
  partial_commit
  reopen_recovers
  close_discards
  writer_locked
  bad_schema
  schema_mismatch
  open_missing
  )

# TestStoreCorrupt: corrupt and foreign files, torn commit slots.
set(TRACER_CORRUPT_UNIT_CASES
  corrupt_empty_file
  corrupt_truncated_header
  corrupt_magic
  corrupt_version
  corrupt_header_checksum
  corrupt_record_size
  corrupt_columns
  corrupt_count_beyond_file
  corrupt_both_slots
  slot1_fallback
  newer_slot_fallback
  corrupt_garbage)

# TestStrings: the string table, the hash table, sessions.
set(TRACER_STRINGS_UNIT_CASES
  hash_table
  strings
  strings_reopen
  string_collision
  session_roundtrip
  session_not_session
  session_power_cut
  session_durable_damaged)

set(TRACER_STORE_LONG_CASES
  growth
  growth_move
  prefault_covers
  reader_follows)

foreach(Case IN LISTS TRACER_STORE_UNIT_CASES TRACER_STORE_LONG_CASES
        TRACER_STRINGS_UNIT_CASES TRACER_CORRUPT_UNIT_CASES)
  if(Case IN_LIST TRACER_STRINGS_UNIT_CASES)
    add_test(NAME store.${Case} COMMAND TestStrings ${Case})
  elseif(Case IN_LIST TRACER_CORRUPT_UNIT_CASES)
    add_test(NAME store.${Case} COMMAND TestStoreCorrupt ${Case})
  else()
    add_test(NAME store.${Case} COMMAND TestStore ${Case})
  endif()
  if(Case IN_LIST TRACER_STORE_LONG_CASES)
    set(Timeout 300)
  else()
    set(Timeout 60)
  endif()
  set_tests_properties(store.${Case} PROPERTIES
    LABELS unit
    TIMEOUT ${Timeout}
    SKIP_RETURN_CODE 77)
endforeach()

#
# 10 million 32-byte records, a commit every 4096, a reader process
# checking every snapshot.
#
add_test(NAME store.live_reader COMMAND TestStoreLive 10000000 4096)
set_tests_properties(store.live_reader PROPERTIES
  LABELS integration
  TIMEOUT 600)

#
# 20 writers killed at random after 1-50 ms, each recovered and checked.
#
add_test(NAME store.crash_recovery COMMAND TestStoreCrash 20)
set_tests_properties(store.crash_recovery PROPERTIES
  LABELS crash
  TIMEOUT 600)

#
# Benchmark: not part of the default run (`ctest -LE bench`); run it with
# `ctest -L bench -V` or directly: BenchAppend [--size 1G]
# [--records-per-commit 4096] [--repeat 3] [DIR].
#
add_test(NAME bench.append
  COMMAND BenchAppend --size 1G --records-per-commit 4096
          ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(bench.append PROPERTIES
  LABELS bench
  TIMEOUT 1200
  RUN_SERIAL TRUE)

#
# The record type declarations (TraceRecordTypes) against their schemas:
# one CTest entry per case of TestRecordTypes.
#
tracer_store_test_program(TestRecordTypes
  ${TRACER_STORE_TEST_DIR}/TestRecordTypes.c)
foreach(Case table event_view ftrace_maps)
  add_test(NAME record_types.${Case} COMMAND TestRecordTypes ${Case})
  set_tests_properties(record_types.${Case} PROPERTIES
    LABELS unit
    TIMEOUT 30)
endforeach()
