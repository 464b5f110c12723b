#
# The SQLite amalgamation for the Windows build.  No Debian package ships
# it for mingw; the npm registry's `sqlite3` package carries the official
# sqlite-autoconf tarball (package/deps/sqlite-autoconf-*.tar.gz: sqlite3.c,
# shell.c, sqlite3.h, sqlite3ext.h).  It is fetched once with `npm pack`
# at a pinned version, both tarballs' SHA-256 are checked, and it is kept
# in the build directory.  -DTRACER_SQLITE_NPM_TGZ=FILE uses a tarball
# fetched before (offline builds); it is checked all the same.
#
# Sets TRACER_SQLITE_DIR (sqlite3.c, shell.c) and TRACER_SQLITE_INCLUDE_DIR
# (sqlite3.h and sqlite3ext.h alone).
#
set(TRACER_SQLITE_NPM_VERSION 5.1.7)
set(TRACER_SQLITE_NPM_SHA256
    44cc9bdee02705a7b636f76968d745e21c1d0b2f1c62810c678bc3b0ececab1b)
set(TRACER_SQLITE_AUTOCONF sqlite-autoconf-3440200)
set(TRACER_SQLITE_AUTOCONF_SHA256
    1c6719a148bc41cf0f2bbbe3926d7ce3f5ca09d878f1246fcc20767b175bb407)

set(TRACER_SQLITE_WORK ${CMAKE_BINARY_DIR}/sqlite-amalgamation)
set(TRACER_SQLITE_DIR ${TRACER_SQLITE_WORK}/${TRACER_SQLITE_AUTOCONF})
set(TRACER_SQLITE_INCLUDE_DIR ${TRACER_SQLITE_WORK}/include)

include(${CMAKE_CURRENT_LIST_DIR}/Sha256.cmake)

if(NOT EXISTS ${TRACER_SQLITE_DIR}/sqlite3.c)
  file(MAKE_DIRECTORY ${TRACER_SQLITE_WORK})
  set(Tgz ${TRACER_SQLITE_WORK}/sqlite3-${TRACER_SQLITE_NPM_VERSION}.tgz)
  if(TRACER_SQLITE_NPM_TGZ)
    file(COPY_FILE ${TRACER_SQLITE_NPM_TGZ} ${Tgz})
  elseif(NOT EXISTS ${Tgz})
    find_program(TRACER_NPM npm REQUIRED)
    message(STATUS "Fetching sqlite3@${TRACER_SQLITE_NPM_VERSION} with npm pack")
    execute_process(COMMAND ${TRACER_NPM} pack sqlite3@${TRACER_SQLITE_NPM_VERSION}
                    WORKING_DIRECTORY ${TRACER_SQLITE_WORK}
                    RESULT_VARIABLE Result OUTPUT_QUIET ERROR_VARIABLE NpmErrors)
    if(NOT Result EQUAL 0 OR NOT EXISTS ${Tgz})
      message(FATAL_ERROR "npm pack sqlite3@${TRACER_SQLITE_NPM_VERSION} failed "
                          "(needs the npm registry, or -DTRACER_SQLITE_NPM_TGZ=FILE):\n"
                          "${NpmErrors}")
    endif()
  endif()
  tracer_check_sha256(${Tgz} ${TRACER_SQLITE_NPM_SHA256})
  file(ARCHIVE_EXTRACT INPUT ${Tgz} DESTINATION ${TRACER_SQLITE_WORK}
       PATTERNS package/deps/${TRACER_SQLITE_AUTOCONF}.tar.gz)
  set(Inner ${TRACER_SQLITE_WORK}/package/deps/${TRACER_SQLITE_AUTOCONF}.tar.gz)
  tracer_check_sha256(${Inner} ${TRACER_SQLITE_AUTOCONF_SHA256})
  file(ARCHIVE_EXTRACT INPUT ${Inner} DESTINATION ${TRACER_SQLITE_WORK})
endif()

# The headers alone: the amalgamation's directory also holds files that
# must not shadow anything.
file(COPY ${TRACER_SQLITE_DIR}/sqlite3.h ${TRACER_SQLITE_DIR}/sqlite3ext.h
     DESTINATION ${TRACER_SQLITE_INCLUDE_DIR})
