#
# The `tracestore_script` CPython module (Outputs/Script/ScriptModule.c)
# behind `tracestore script`, built beside the tracer module for each
# interpreter Live/Python/PythonModule.cmake found (TRACER_PYTHON_MODULES),
# into the same build/python/VERSION/ directory and installed beside it.
# The Perf-Trace-Util helpers scripts import (Core.py, Util.py,
# EventClass.py) are copied
# to build/perf-exec/, the PERF_EXEC_PATH the command sets, and installed
# to PREFIX/share/tracestore/perf-exec/.
#
foreach(entry ${TRACER_PYTHON_MODULES})
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 version)
  list(GET fields 2 dir)
  list(GET fields 3 include_dir)
  list(GET fields 4 suffix)
  string(REPLACE "." "" tag ${version})
  set(target tracestore_script_py${tag})
  add_library(${target} MODULE ${CMAKE_SOURCE_DIR}/Outputs/Script/ScriptModule.c
              ${CMAKE_SOURCE_DIR}/Host/HostPortPosix.c
              ${CMAKE_SOURCE_DIR}/Host/HostIdentity.c)
  add_dependencies(${target} TracerSyscallTable)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME tracestore_script
    PREFIX "" SUFFIX ${suffix} LIBRARY_OUTPUT_DIRECTORY ${dir}
    C_VISIBILITY_PRESET hidden)
  target_include_directories(${target} PRIVATE ${include_dir} ${CMAKE_SOURCE_DIR}
                             ${TRACER_GENERATED_DIR})
  target_link_libraries(${target} PRIVATE TracerReaders)
  target_compile_options(${target} PRIVATE ${TRACER_WARNINGS})
  if(TARGET tracestore_py${tag} AND DEFINED TRACER_PYTHON_MODULE_DIR
     AND "${version}" STREQUAL "${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}")
    install(TARGETS ${target} LIBRARY DESTINATION ${TRACER_PYTHON_MODULE_DIR})
  endif()
endforeach()

set(TRACER_PERF_EXEC_LIB scripts/python/Perf-Trace-Util/lib/Perf/Trace)
foreach(file Core.py Util.py EventClass.py)
  configure_file(${CMAKE_SOURCE_DIR}/Outputs/Script/perf-exec/${TRACER_PERF_EXEC_LIB}/${file}
                 ${CMAKE_BINARY_DIR}/perf-exec/${TRACER_PERF_EXEC_LIB}/${file} COPYONLY)
  install(FILES ${CMAKE_SOURCE_DIR}/Outputs/Script/perf-exec/${TRACER_PERF_EXEC_LIB}/${file}
          DESTINATION share/tracestore/perf-exec/${TRACER_PERF_EXEC_LIB})
endforeach()
