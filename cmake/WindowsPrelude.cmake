#
# The Windows cross build, before the core's targets (included by
# CMakeLists.txt when WIN32): the headers the core takes from the build
# host.  xxhash.h is used header-only (Rtl/RtlMemory.c) and is
# platform-neutral C, but /usr/include cannot be put on a mingw include
# path (its libc headers would shadow mingw's), so the one header is
# copied into a directory of its own.
#
find_file(TRACER_HOST_XXHASH_H xxhash.h PATHS /usr/include NO_DEFAULT_PATH
          NO_CMAKE_FIND_ROOT_PATH)
if(NOT TRACER_HOST_XXHASH_H)
  message(FATAL_ERROR "xxhash.h not found in /usr/include: install libxxhash-dev")
endif()
set(XXHASH_INCLUDE_DIR ${CMAKE_BINARY_DIR}/host-include)
file(COPY ${TRACER_HOST_XXHASH_H} DESTINATION ${XXHASH_INCLUDE_DIR})
