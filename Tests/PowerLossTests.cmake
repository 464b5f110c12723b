#
# Power cuts (Tests/PowerLoss/powercut.sh, docs/durability.md): import,
# record and trace-python run in a QEMU guest whose power the host cuts at
# random instants; each session is then checked against the writer's sync
# log (Tests/PowerLoss/CheckDurable.c).  3 cuts per writer here (label
# powerloss), 50 in the long variants (labels powerloss and long, not in
# the default run: `ctest -L long -R powerloss`).  Skipped (77) without
# root, QEMU, Debian's cloud kernel, busybox or virtiofsd.  Not in the
# sanitizer build: the guest would run the instrumented writer under TCG
# for no new coverage (the simulated cuts, store.session_power_cut, run
# there).  One guest at a time: each takes a core.
#
if(TRACER_SQLITE3 AND NOT TRACER_SANITIZE)
  foreach(Writer import record trace-python)
    string(REPLACE "-" "_" Name ${Writer})
    foreach(Variant default long)
      if(Variant STREQUAL "long")
        set(Test powerloss.${Name}.long)
        set(Cuts 50)
        set(Labels "powerloss;long")
        set(Timeout 5400)
      else()
        set(Test powerloss.${Name})
        set(Cuts 3)
        set(Labels "powerloss")
        set(Timeout 900)
      endif()
      add_test(NAME ${Test}
        COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/PowerLoss/powercut.sh
                ${Writer} $<TARGET_FILE:tracestore> $<TARGET_FILE:CheckDurable>
                $<TARGET_FILE:tracestore_ext> $<TARGET_FILE:TouchPages>
                ${TRACER_SHARED_DIR} ${CMAKE_CURRENT_BINARY_DIR}/${Test} ${Cuts})
      set_tests_properties(${Test} PROPERTIES
        LABELS "${Labels}" TIMEOUT ${Timeout} SKIP_RETURN_CODE 77
        RESOURCE_LOCK qemu_guest)
    endforeach()
  endforeach()
endif()
