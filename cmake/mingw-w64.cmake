#
# Toolchain file for the Windows x64 cross build with Debian's mingw-w64
# (gcc-mingw-w64-x86-64):
#
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
#
# Tests/run-tests.sh --windows does this and runs the result under wine.
#
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(TRACER_MINGW_PREFIX x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${TRACER_MINGW_PREFIX}-gcc)
set(CMAKE_RC_COMPILER ${TRACER_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${TRACER_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Programs built here run under wine (ctest, try_run).
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
