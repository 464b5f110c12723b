#!/bin/sh
# Installs the Debian 12 packages Tracer needs to build and test, if any is
# missing.  Needs root (or sudo).
#   Tests/install-deps.sh             the Linux build and its suites
#   Tests/install-deps.sh --windows   the Windows cross build and wine
#                                     (Tests/run-tests.sh --windows)
set -eu
if [ "${1:-}" = "--windows" ]; then
  # mingw-w64 cross compiler, wine to run the result, xxhash.h (the core
  # uses it header-only), the kernel's syscall table (the extension's
  # syscall_name), mono-xbuild (Tests/Windows/check_vcxproj.sh), and npm to
  # fetch the SQLite amalgamation (NodeSource's nodejs carries its own npm;
  # Debian's is the npm package).
  pkgs="gcc-mingw-w64-x86-64 wine wine64 cmake make libxxhash-dev linux-libc-dev sqlite3 python3 mono-xbuild"
  command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
else
pkgs="gcc cmake make libsqlite3-dev sqlite3 libxxhash-dev libzstd-dev linux-libc-dev trace-cmd python3 python3-dev uftrace clang libclang-rt-14-dev nodejs linux-perf pkg-config libcairo2-dev poppler-utils python3-matplotlib python3-construct python3-audit clickhouse-server clickhouse-client curl tmux protobuf-compiler qemu-system-x86 linux-image-cloud-amd64 busybox-static python3-line-profiler"
# npm fetches the viewers the export is loaded into (Tests/OutputsTests.cmake).
command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
