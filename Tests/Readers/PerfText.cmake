# Tests of the PerfText reader(s); see Tests/ReaderTests.cmake for the conventions.
#
# perf script and perf stat text (Readers/Decoders/Perf/PerfScript.c, Readers/Decoders/Perf/PerfStat.c),
# checked with grep/awk over the same text (Readers/perf_oracle.sh), on the
# capture-1 samples, on small real captures in Tests/Data, and on variants
# derived from them with sed in the test (Readers/perf_derive.sh).
#
set(PERF_ORACLE ${CMAKE_CURRENT_SOURCE_DIR}/Readers/perf_oracle.sh)
set(PERF_DERIVE ${CMAKE_CURRENT_SOURCE_DIR}/Readers/perf_derive.sh)
set(CAPTURE_1 ${TRACER_SHARED_DIR}/data/capture-1)

# perf_oracle_test(NAME INPUT CHECKS CHECK... [DERIVE KIND SOURCE [SEP]]
#                  [STAT SEP LEADING]): one test per CHECK of perf_oracle.sh
# on INPUT, or on the file perf_derive.sh KIND makes from SOURCE.  (A ';'
# separator is spelled "semicolon": CMake splits lists at ';'.)
function(perf_oracle_test name input)
  cmake_parse_arguments(P "" "" "CHECKS;DERIVE;STAT" ${ARGN})
  foreach(check ${P_CHECKS})
    set(work ${READER_WORK}/perf-${name}-${check})
    set(prepare "true")
    if(P_DERIVE)
      set(input ${work}/input.txt)
      list(GET P_DERIVE 0 kind)
      list(GET P_DERIVE 1 source)
      list(LENGTH P_DERIVE nderive)
      set(sep "")
      if(nderive GREATER 2)
        list(GET P_DERIVE 2 sep)
      endif()
      set(prepare "rm -rf '${work}' && mkdir -p '${work}' && '${PERF_DERIVE}' ${kind} '${source}' '${input}' '${sep}'")
    endif()
    add_test(NAME reader.perf.${name}.${check}
      COMMAND sh -c "${prepare} && exec \"$0\" \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" \"$6\""
              ${PERF_ORACLE} $<TARGET_FILE:tracestore> ${input} ${work} ${check} ${P_STAT})
    set_tests_properties(reader.perf.${name}.${check} PROPERTIES LABELS integration TIMEOUT 120)
  endforeach()
endfunction()

# perf script: the three capture-1 samples.
perf_oracle_test(kvm ${CAPTURE_1}/perf-kvm.txt CHECKS counts timestamps tasks)
perf_oracle_test(kvm_time_event ${CAPTURE_1}/perf-kvm-time-event.txt CHECKS counts timestamps tasks)
perf_oracle_test(pagefaults ${CAPTURE_1}/perf-pagefaults.txt CHECKS counts timestamps tasks samples)

# perf script: real perf 6.1 output (tracepoint page faults, sched_switch,
# exec; page-fault samples with call chains and periods).
perf_oracle_test(sched_faults ${TRACER_DATA_DIR}/perf-sched-faults.txt
  CHECKS counts timestamps tasks tpfaults sched)
perf_oracle_test(callchain ${TRACER_DATA_DIR}/perf-callchain.txt
  CHECKS counts timestamps tasks frames)

# perf record -a run here: exited threads' samples (":-1  -1"), execs.
add_executable(ShortThreads ${CMAKE_CURRENT_SOURCE_DIR}/Workloads/ShortThreads.c)
target_link_libraries(ShortThreads PRIVATE pthread)
add_test(NAME reader.perf.record_all
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/perf_record.sh $<TARGET_FILE:tracestore>
          $<TARGET_FILE:ShortThreads> ${PERF_ORACLE} ${READER_WORK}/perf-record-all)
set_tests_properties(reader.perf.record_all PROPERTIES LABELS integration TIMEOUT 300
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# perf script layouts derived with sed from the ftrace sample (same events:
# kvm, exceptions, sched).
foreach(kind script-default script-pidtid-ns script-time-ns)
  perf_oracle_test(${kind} derived
    CHECKS counts timestamps tasks tpfaults sched
    DERIVE ${kind} ${TRACER_DATA_DIR}/ftrace-capture-1.txt)
endforeach()

# KVM exit/entry pairs, against values derived by hand: the ftrace pairing
# sample in perf's layout, and perf's own kvm_exit forms (exit codes, comms
# with spaces).
add_test(NAME reader.perf.kvm_pairs.rows
  COMMAND sh -c "rm -rf \"$3\" && mkdir -p \"$3\" && \"$4\" script-default \"$1\" \"$3/in.txt\" &&
                 \"$0\" import -o \"$3/s\" \"$3/in.txt\" &&
                 \"$0\" sql --csv \"$3/s\" 'SELECT ts, dur, reason, vcpu, tid, rip FROM kvm_exit ORDER BY id' |
                 tail -n +2 | diff - \"$2\""
          $<TARGET_FILE:tracestore> ${TRACER_DATA_DIR}/kvm-exit-entry.txt
          ${TRACER_DATA_DIR}/kvm-exit-entry.expected ${READER_WORK}/perf-kvm-pairs ${PERF_DERIVE})
add_test(NAME reader.perf.kvm_exits.rows
  COMMAND sh -c "rm -rf \"$2\" && \"$0\" import -o \"$2\" \"$1\" &&
                 \"$0\" sql --csv \"$2\" \"SELECT ts, dur, reason, exit_code, vcpu, tid, comm, printf('0x%x', rip)
                                          FROM kvm_exit ORDER BY id\" | tail -n +2 | diff - \"$3\" &&
                 test \"$(\"$0\" sql --csv \"$2\" \"SELECT name || ':' || tid FROM ftrace_event\" | tail -1)\" = kvm_entry:2001"
          $<TARGET_FILE:tracestore> ${TRACER_DATA_DIR}/perf-kvm-exits.txt ${READER_WORK}/perf-kvm-exits
          ${TRACER_DATA_DIR}/perf-kvm-exits.expected)
perf_oracle_test(kvm_exits ${TRACER_DATA_DIR}/perf-kvm-exits.txt CHECKS counts timestamps tasks)
set_tests_properties(reader.perf.kvm_pairs.rows reader.perf.kvm_exits.rows
  PROPERTIES LABELS integration TIMEOUT 60)

# perf stat -I -x SEP: the seeds/001 sample ('#'), real -A and --per-core
# output (<not supported> rows), and sed-derived variants: ';', a two-byte
# separator, ',' with seeds/001's rdtsc first line, <not counted> and
# <not supported> rows, an -A CPU column.
perf_oracle_test(stat ${CAPTURE_1}/perf-stat.txt CHECKS stat STAT "#" 0)
perf_oracle_test(stat_percpu ${TRACER_DATA_DIR}/perf-stat-percpu.txt CHECKS stat STAT "," 1)
perf_oracle_test(stat_percore ${TRACER_DATA_DIR}/perf-stat-percore.txt CHECKS stat STAT "#" 2)
perf_oracle_test(stat_semicolon derived CHECKS stat
  DERIVE stat-sep ${CAPTURE_1}/perf-stat.txt semicolon STAT semicolon 0)
perf_oracle_test(stat_twobyte derived CHECKS stat
  DERIVE stat-sep ${CAPTURE_1}/perf-stat.txt "::" STAT "::" 0)
perf_oracle_test(stat_rdtsc derived CHECKS stat
  DERIVE stat-rdtsc ${CAPTURE_1}/perf-stat.txt "," STAT "," 0)
perf_oracle_test(stat_notcounted derived CHECKS stat
  DERIVE stat-notcounted ${CAPTURE_1}/perf-stat.txt STAT "#" 0)
perf_oracle_test(stat_percpu_derived derived CHECKS stat
  DERIVE stat-percpu ${CAPTURE_1}/perf-stat.txt STAT "#" 1)

# <not counted> rows are NULL (not 0), and with --tsc-mhz the rdtsc line
# moves the interval times onto the TSC clock: ts = interval + N / MHz us.
add_test(NAME reader.perf.stat_nulls_and_rdtsc
  COMMAND sh -c "rm -rf \"$2\" && mkdir -p \"$2\" &&
                 \"$3\" stat-notcounted \"$1\" \"$2/nc.txt\" && \"$0\" import -o \"$2/nc\" \"$2/nc.txt\" &&
                 test \"$(\"$0\" sql --csv \"$2/nc\" \"SELECT count(*) FROM counter WHERE value IS NULL\" | tail -1)\" = \"$(grep -c '<not' \"$2/nc.txt\")\" &&
                 \"$3\" stat-rdtsc \"$1\" \"$2/r.txt\" , && \"$0\" import --tsc-mhz 2000 -o \"$2/r\" \"$2/r.txt\" &&
                 test \"$(\"$0\" sql --csv \"$2/r\" \"SELECT min(ts) || ' ' || max(ts) FROM counter\" | tail -1)\" = \"$((100209798 + 4159316478 / 2)) $((323215060 + 4159316478 / 2))\" &&
                 test \"$(\"$0\" sql --csv \"$2/r\" \"SELECT clock FROM source\" | tail -1)\" = x86-tsc"
          $<TARGET_FILE:tracestore> ${CAPTURE_1}/perf-stat.txt ${READER_WORK}/perf-stat-nulls ${PERF_DERIVE})
set_tests_properties(reader.perf.stat_nulls_and_rdtsc PROPERTIES LABELS integration TIMEOUT 60)

# Every text sample is detected as its own format and no other.
add_executable(TestDetect ${CMAKE_CURRENT_SOURCE_DIR}/Readers/TestDetect.c)
target_include_directories(TestDetect PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(TestDetect PRIVATE TracerReaders)
add_test(NAME reader.detect.samples
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/detect_samples.sh $<TARGET_FILE:TestDetect>
          $<TARGET_FILE:tracestore> ${READER_WORK}/detect ${CAPTURE_1} ${TRACER_DATA_DIR})
set_tests_properties(reader.detect.samples PROPERTIES LABELS integration TIMEOUT 60)

# Bad input: an error naming FILE:LINE and the byte offset, exit 1, the
# events before the bad line kept.
foreach(case truncated garbage orphan flipped)
  add_test(NAME reader.perf.bad_input.script_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/perf_bad_input.sh $<TARGET_FILE:tracestore>
            ${CAPTURE_1}/perf-kvm.txt ${READER_WORK}/perf-bad-script-${case} perf-script ${case})
  set_tests_properties(reader.perf.bad_input.script_${case} PROPERTIES LABELS integration TIMEOUT 60)
endforeach()
foreach(case truncated garbage columns)
  add_test(NAME reader.perf.bad_input.stat_${case}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/Readers/perf_bad_input.sh $<TARGET_FILE:tracestore>
            ${CAPTURE_1}/perf-stat.txt ${READER_WORK}/perf-bad-stat-${case} perf-stat ${case})
  set_tests_properties(reader.perf.bad_input.stat_${case} PROPERTIES LABELS integration TIMEOUT 60)
endforeach()

# Every prefix up to 8 KB and 2000 damaged copies, against a guard page.
reader_guard_test(perf_kvm perf-script ${CAPTURE_1}/perf-kvm.txt 8192 2000)
reader_guard_test(perf_kvm_time_event perf-script ${CAPTURE_1}/perf-kvm-time-event.txt 8192 2000)
reader_guard_test(perf_pagefaults perf-script ${CAPTURE_1}/perf-pagefaults.txt 8192 2000)
reader_guard_test(perf_callchain perf-script ${TRACER_DATA_DIR}/perf-callchain.txt 8192 2000)
reader_guard_test(perf_kvm_exits perf-script ${TRACER_DATA_DIR}/perf-kvm-exits.txt 8192 2000)
reader_guard_test(perf_stat perf-stat ${CAPTURE_1}/perf-stat.txt 8192 2000)
reader_guard_test(perf_stat_percpu perf-stat ${TRACER_DATA_DIR}/perf-stat-percpu.txt 8192 2000)
reader_guard_test(perf_stat_percore perf-stat ${TRACER_DATA_DIR}/perf-stat-percore.txt 8192 2000)
