#!/bin/sh
# Builds Tracer and runs the whole test suite (everything but benchmarks
# and the long variants: ctest -L bench, ctest -L long).
#   Tests/run-tests.sh              release build in build/
#   Tests/run-tests.sh --sanitize   ASan + UBSan build in build-asan/
#   Tests/run-tests.sh --windows    mingw-w64 cross build in build-windows/
#                                   (tracestore.exe, tracestore.dll), its
#                                   tests under wine (ctest label windows)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--windows" ]; then
  Tests/install-deps.sh --windows
  # The Linux build is the oracle of the cross-platform tests.
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j"$(nproc)" --target tracestore tracestore_ext StoreTamper >/dev/null
  cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRACER_LINUX_BUILD_DIR="$PWD/build" >/dev/null
  cmake --build build-windows -j"$(nproc)"
  # A fresh wine prefix of our own; wineserver stays up between the tests
  # (a process starts in ~0.03 s instead of ~0.4 s) and is stopped at the end.
  WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/tracer-wine.XXXXXX")
  export WINEPREFIX WINEDEBUG=-all
  trap 'wineserver -k 2>/dev/null || true; rm -rf "$WINEPREFIX"' EXIT
  wineboot -i >/dev/null 2>&1
  wineserver -p 2>/dev/null || true   # (exit 2: already up after wineboot)
  wine cmd /c exit >/dev/null 2>&1 || true
  ctest --test-dir build-windows -j"$(nproc)" --output-on-failure
  exit 0
fi
Tests/install-deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan; flags="-DTRACER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
else
  dir=build; flags="-DCMAKE_BUILD_TYPE=RelWithDebInfo"
fi
cmake -S . -B "$dir" $flags >/dev/null
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" -LE "bench|long" -j"$(nproc)" --output-on-failure
