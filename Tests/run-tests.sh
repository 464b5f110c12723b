#!/bin/sh
# Builds Tracer and runs the whole test suite (everything but benchmarks).
#   Tests/run-tests.sh              release build in build/
#   Tests/run-tests.sh --sanitize   ASan + UBSan build in build-asan/
set -eu
cd "$(dirname "$0")/.."
Tests/install-deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan; flags="-DTRACER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
else
  dir=build; flags="-DCMAKE_BUILD_TYPE=RelWithDebInfo"
fi
cmake -S . -B "$dir" $flags >/dev/null
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" -LE bench -j"$(nproc)" --output-on-failure
