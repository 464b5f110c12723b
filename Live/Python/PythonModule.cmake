#
# The `tracestore` CPython extension module (Live/Python/), built
# once per interpreter found, each into build/python/VERSION/:
#
#   - Debian's python3 (find_package(Python3 ... Development.Module)):
#     the one `cmake --install` installs, into a directory its sys.path
#     holds (TRACER_PYTHON_MODULE_DIR, default
#     PREFIX/lib/python3.X/dist-packages);
#   - the pyenv interpreters 3.12 and later under ~/.pyenv/versions (or
#     TRACER_PYENV_ROOT), for the tests of sys.monitoring.
#
# TRACER_PYTHON_MODULES lists "VERSION|EXECUTABLE|MODULE_DIR|INCLUDE_DIR|SUFFIX"
# entries for Tests/PythonTests.cmake.  No headers found: no module, no
# tests.
#
set(TRACER_PYTHON_SOURCES
  ${CMAKE_SOURCE_DIR}/Live/Python/PyTraceModule.c
  ${CMAKE_SOURCE_DIR}/Live/Python/PyTraceWriter.c
  ${CMAKE_SOURCE_DIR}/Live/Python/PyTraceHooks.c
  ${CMAKE_SOURCE_DIR}/Host/HostIdentity.c
  ${CMAKE_SOURCE_DIR}/Host/HostSync.c)
set(TRACER_PYTHON_MODULES "")

function(tracer_python_module version executable include_dir suffix)
  string(REPLACE "." "" tag ${version})
  set(target tracestore_py${tag})
  set(dir ${CMAKE_BINARY_DIR}/python/${version})
  add_library(${target} MODULE ${TRACER_PYTHON_SOURCES})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME tracestore PREFIX ""
    SUFFIX ${suffix} LIBRARY_OUTPUT_DIRECTORY ${dir} C_VISIBILITY_PRESET hidden)
  target_include_directories(${target} PRIVATE ${include_dir} ${CMAKE_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE TracerStore pthread)
  target_compile_options(${target} PRIVATE ${TRACER_WARNINGS})
  list(APPEND TRACER_PYTHON_MODULES
       "${version}|${executable}|${dir}|${include_dir}|${suffix}")
  set(TRACER_PYTHON_MODULES ${TRACER_PYTHON_MODULES} PARENT_SCOPE)
endfunction()

# Python3_EXECUTABLE is Debian's interpreter (set in CMakeLists.txt).
find_package(Python3 COMPONENTS Interpreter Development.Module)
if(Python3_Development.Module_FOUND AND Python3_VERSION VERSION_GREATER_EQUAL 3.11)
  set(v ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR})
  tracer_python_module(${v} ${Python3_EXECUTABLE} "${Python3_INCLUDE_DIRS}"
                       ".${Python3_SOABI}.so")
  set(TRACER_PYTHON_MODULE_DIR
      ${CMAKE_INSTALL_PREFIX}/lib/python${v}/dist-packages CACHE PATH
      "Directory the tracestore Python module is installed into")
  install(TARGETS tracestore_py${Python3_VERSION_MAJOR}${Python3_VERSION_MINOR}
          LIBRARY DESTINATION ${TRACER_PYTHON_MODULE_DIR})
else()
  message(STATUS "tracestore Python module: no Python >= 3.11 headers "
                 "(Debian: python3-dev); not built")
endif()

if(NOT DEFINED TRACER_PYENV_ROOT)
  set(TRACER_PYENV_ROOT $ENV{HOME}/.pyenv/versions)
endif()
foreach(minor 12 13)
  file(GLOB roots LIST_DIRECTORIES true ${TRACER_PYENV_ROOT}/3.${minor}.*)
  foreach(root ${roots})
    set(inc ${root}/include/python3.${minor})
    set(exe ${root}/bin/python3.${minor})
    if(EXISTS ${inc}/Python.h AND EXISTS ${exe} AND NOT TARGET tracestore_py3${minor})
      tracer_python_module(3.${minor} ${exe} ${inc}
                           ".cpython-3${minor}-${CMAKE_LIBRARY_ARCHITECTURE}.so")
    endif()
  endforeach()
endforeach()
