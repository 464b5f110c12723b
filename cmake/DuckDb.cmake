#
# DuckDB for the DuckDB extension (DuckDbExt/) and its test host.  Debian
# does not package it; the npm registry does: the `duckdb` package carries
# the C headers (package/src/duckdb/src/include/duckdb.h and
# duckdb_extension.h, C extension API v1.2.0), `@duckdb/node-bindings-
# linux-x64` the shared library (package/libduckdb.so) of the same DuckDB
# release.  Each is fetched once with `npm pack` at a pinned version, its
# SHA-256 checked, and kept in the build directory, as
# cmake/SqliteAmalgamation.cmake does for SQLite.
#
# Sets TRACER_DUCKDB_FOUND, TRACER_DUCKDB_INCLUDE_DIR (the two headers
# alone) and TRACER_DUCKDB_LIBRARY (libduckdb.so).  Without the npm
# registry it says so and the DuckDB targets are not built.
#
# The tests' second host, Node's DuckDB (@duckdb/node-api of the same
# release, which npm checks against the registry's integrity hash), is
# installed into TRACER_DUCKDB_NODE_MODULES when node and npm are there.
#
include(${CMAKE_CURRENT_LIST_DIR}/Sha256.cmake)

set(TRACER_DUCKDB_VERSION 1.4.4)
set(TRACER_DUCKDB_SHA256
    5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed)
set(TRACER_DUCKDB_BINDINGS_VERSION 1.4.4-r.4)
set(TRACER_DUCKDB_BINDINGS_SHA256
    732fac4dc6b8f198870b9c4bb6ddf13544466daca00ad28ba2f1d80de5d7aa4b)

set(TRACER_DUCKDB_WORK ${CMAKE_BINARY_DIR}/duckdb)
set(TRACER_DUCKDB_INCLUDE_DIR ${TRACER_DUCKDB_WORK}/include)
set(TRACER_DUCKDB_LIBRARY ${TRACER_DUCKDB_WORK}/lib/libduckdb.so)
set(TRACER_DUCKDB_FOUND FALSE)

# tracer_duckdb_fetch(SPEC TGZ SHA256): npm pack SPEC into TGZ, checked.
function(tracer_duckdb_fetch Spec Tgz Sha256)
  if(NOT EXISTS ${Tgz})
    find_program(TRACER_NPM npm)
    if(NOT TRACER_NPM)
      return()
    endif()
    message(STATUS "Fetching ${Spec} with npm pack")
    execute_process(COMMAND ${TRACER_NPM} pack ${Spec}
                    WORKING_DIRECTORY ${TRACER_DUCKDB_WORK}
                    RESULT_VARIABLE Result OUTPUT_QUIET ERROR_VARIABLE Errors)
    if(NOT Result EQUAL 0 OR NOT EXISTS ${Tgz})
      message(WARNING "npm pack ${Spec} failed: ${Errors}")
      return()
    endif()
  endif()
  tracer_check_sha256(${Tgz} ${Sha256})
endfunction()

if(NOT EXISTS ${TRACER_DUCKDB_LIBRARY}
   OR NOT EXISTS ${TRACER_DUCKDB_INCLUDE_DIR}/duckdb_extension.h)
  file(MAKE_DIRECTORY ${TRACER_DUCKDB_WORK})
  set(Headers ${TRACER_DUCKDB_WORK}/duckdb-${TRACER_DUCKDB_VERSION}.tgz)
  set(Bindings ${TRACER_DUCKDB_WORK}/duckdb-node-bindings-linux-x64-${TRACER_DUCKDB_BINDINGS_VERSION}.tgz)
  tracer_duckdb_fetch(duckdb@${TRACER_DUCKDB_VERSION} ${Headers}
                      ${TRACER_DUCKDB_SHA256})
  tracer_duckdb_fetch(@duckdb/node-bindings-linux-x64@${TRACER_DUCKDB_BINDINGS_VERSION}
                      ${Bindings} ${TRACER_DUCKDB_BINDINGS_SHA256})
  if(EXISTS ${Headers} AND EXISTS ${Bindings})
    set(Include package/src/duckdb/src/include)
    file(ARCHIVE_EXTRACT INPUT ${Headers} DESTINATION ${TRACER_DUCKDB_WORK}
         PATTERNS ${Include}/duckdb.h ${Include}/duckdb_extension.h)
    file(ARCHIVE_EXTRACT INPUT ${Bindings} DESTINATION ${TRACER_DUCKDB_WORK}
         PATTERNS package/libduckdb.so)
    file(COPY ${TRACER_DUCKDB_WORK}/${Include}/duckdb.h
              ${TRACER_DUCKDB_WORK}/${Include}/duckdb_extension.h
         DESTINATION ${TRACER_DUCKDB_INCLUDE_DIR})
    file(COPY ${TRACER_DUCKDB_WORK}/package/libduckdb.so
         DESTINATION ${TRACER_DUCKDB_WORK}/lib)
  endif()
endif()

set(TRACER_DUCKDB_NODE_API_VERSION 1.4.4-r.4)
set(TRACER_DUCKDB_NODE_MODULES ${TRACER_DUCKDB_WORK}/node/node_modules)
find_program(TRACER_NODE node)
find_program(TRACER_NPM npm)
if(TRACER_NODE AND TRACER_NPM
   AND NOT EXISTS ${TRACER_DUCKDB_NODE_MODULES}/@duckdb/node-api)
  message(STATUS "Installing @duckdb/node-api@${TRACER_DUCKDB_NODE_API_VERSION}")
  execute_process(COMMAND ${TRACER_NPM} install --no-save --no-audit --no-fund
                          --prefix ${TRACER_DUCKDB_WORK}/node
                          @duckdb/node-api@${TRACER_DUCKDB_NODE_API_VERSION}
                  RESULT_VARIABLE Result OUTPUT_QUIET ERROR_VARIABLE Errors)
  if(NOT Result EQUAL 0)
    message(WARNING "npm install @duckdb/node-api failed: ${Errors}")
  endif()
endif()

if(EXISTS ${TRACER_DUCKDB_LIBRARY}
   AND EXISTS ${TRACER_DUCKDB_INCLUDE_DIR}/duckdb_extension.h)
  set(TRACER_DUCKDB_FOUND TRUE)
else()
  message(WARNING "DuckDB ${TRACER_DUCKDB_VERSION} could not be fetched "
                  "(npm registry): the DuckDB extension is not built")
endif()
