#
# The hosted edges on Windows (included by CMakeLists.txt in the mingw-w64
# cross build, after the core's targets, which are the same as on Linux
# but for the RTL back end):
#
#   tracestore.exe   the command: import, info, sql, export, schema,
#                    kvmtrace-format; record, trace-python, plot, push
#                    and top say they are Linux only (Cli/CliLinuxOnly.c)
#   tracestore.dll   the SQLite extension, for a Windows sqlite3.exe:
#                    .load tracestore
#   sqlite3.exe      that shell, from the same amalgamation's shell.c
#   WinCoreTest.exe  the core alone with no C runtime (Tests/Windows)
#
# SQLite comes from the amalgamation (cmake/SqliteAmalgamation.cmake).
# The C library of the hosted edges is mingw-w64's msvcrt with its C99
# stdio (__USE_MINGW_ANSI_STDIO: %lld, %zu and %g print as on Linux) and
# winpthreads for the worker threads, linked statically so that the
# programs need no DLL of the toolchain.
#
include(${CMAKE_SOURCE_DIR}/cmake/SqliteAmalgamation.cmake)

set(TRACER_WINDOWS_HOSTED_DEFINITIONS __USE_MINGW_ANSI_STDIO=1)

add_library(TracerSqlite3Amalgamation STATIC ${TRACER_SQLITE_DIR}/sqlite3.c)
target_include_directories(TracerSqlite3Amalgamation PUBLIC ${TRACER_SQLITE_INCLUDE_DIR})
target_compile_definitions(TracerSqlite3Amalgamation PRIVATE SQLITE_THREADSAFE=1
                           SQLITE_ENABLE_MATH_FUNCTIONS)

# The command's sources but the Linux-only ones (the recorder, plot, push,
# top, trace-python, zstd), and the Windows side of the portability layer
# (Host/HostPort.h) with the Linux-only commands' stubs.
set(TRACER_WINDOWS_CLI_SOURCES ${TRACESTORE_CLI_SOURCES})
list(FILTER TRACER_WINDOWS_CLI_SOURCES EXCLUDE REGEX
     "/Live/Record\\.c$|/Live/RecordTasks\\.c$|/Outputs/Plot/|/Outputs/Push/|/Outputs/Top/|/Outputs/Script/|/HostPython\\.c$|/CmdRecord\\.c$|/CmdTracePython\\.c$|/TraceZstd\\.c$|/HostPortPosix\\.c$|/HostIdentity\\.c$|/SqlDuckDb\\.c$")
list(APPEND TRACER_WINDOWS_CLI_SOURCES ${CMAKE_SOURCE_DIR}/Host/HostPortWindows.c
     ${CMAKE_SOURCE_DIR}/Cli/CliLinuxOnly.c)
# HostText.c (the read-a-whole-file loop the CLI shares with the recorder)
# opens with O_CLOEXEC, which msvcrt lacks; there the flag that matters is
# O_BINARY (no CRLF translation), so it stands in for it.
set_source_files_properties(${CMAKE_SOURCE_DIR}/Host/HostText.c
  PROPERTIES COMPILE_DEFINITIONS O_CLOEXEC=_O_BINARY)

add_executable(tracestore ${TRACER_WINDOWS_CLI_SOURCES} ${TRACER_SQLITE3EXT_SOURCES})
add_dependencies(tracestore TracerSyscallTable)
target_include_directories(tracestore PRIVATE ${TRACER_GENERATED_DIR})
target_compile_definitions(tracestore PRIVATE SQLITE_CORE=1
                           ${TRACER_WINDOWS_HOSTED_DEFINITIONS})
target_link_libraries(tracestore PRIVATE TracerReaders TracerSqlite3Amalgamation)
target_link_options(tracestore PRIVATE -static -pthread)
target_compile_options(tracestore PRIVATE ${TRACER_WARNINGS})

add_library(tracestore_ext MODULE ${TRACER_SQLITE3EXT_SOURCES})
add_dependencies(tracestore_ext TracerSyscallTable)
set_target_properties(tracestore_ext PROPERTIES OUTPUT_NAME tracestore PREFIX "")
target_include_directories(tracestore_ext PRIVATE ${TRACER_SQLITE_INCLUDE_DIR}
                           ${TRACER_GENERATED_DIR})
target_compile_definitions(tracestore_ext PRIVATE ${TRACER_WINDOWS_HOSTED_DEFINITIONS})
target_link_libraries(tracestore_ext PRIVATE TracerStore TracerKernel)
target_link_options(tracestore_ext PRIVATE -static -Wl,--no-undefined)
target_compile_options(tracestore_ext PRIVATE ${TRACER_WARNINGS})

add_executable(sqlite3 ${TRACER_SQLITE_DIR}/shell.c)
target_link_libraries(sqlite3 PRIVATE TracerSqlite3Amalgamation)
target_link_options(sqlite3 PRIVATE -static)

include(${CMAKE_SOURCE_DIR}/Tests/Windows/WindowsTests.cmake)

# The sources of each target, relative to the source tree (the amalgamation
# as $(TracerSqliteDir)), for Tests/Windows/vs_projects.py: the Visual
# Studio projects (Tracer.sln) must list exactly these.
set(TRACER_VS_TARGETS TracerRtl TracerRtlCompilerSupport TracerStore TracerKernel TracerReaders
    tracestore_ext tracestore TracerSqlite3Amalgamation WinCoreTest)
set(Lines "")
foreach(Target IN LISTS TRACER_VS_TARGETS)
  get_target_property(Sources ${Target} SOURCES)
  foreach(Source IN LISTS Sources)
    get_filename_component(Source ${Source} ABSOLUTE BASE_DIR ${CMAKE_SOURCE_DIR})
    if(Source MATCHES "^${TRACER_SQLITE_DIR}/")
      string(REPLACE "${TRACER_SQLITE_DIR}" "$(TracerSqliteDir)" Relative ${Source})
    else()
      file(RELATIVE_PATH Relative ${CMAKE_SOURCE_DIR} ${Source})
    endif()
    string(APPEND Lines "${Target}\t${Relative}\n")
  endforeach()
endforeach()
file(WRITE ${CMAKE_BINARY_DIR}/vs-targets.txt "${Lines}")
