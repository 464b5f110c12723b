#!/bin/sh
# Installs the Debian 12 packages Tracer needs to build and test, if any is
# missing.  Needs root (or sudo).
set -eu
pkgs="gcc cmake make libsqlite3-dev sqlite3 libxxhash-dev libzstd-dev linux-libc-dev trace-cmd python3 uftrace clang libclang-rt-14-dev nodejs linux-perf pkg-config libcairo2-dev poppler-utils python3-matplotlib clickhouse-server clickhouse-client curl"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
