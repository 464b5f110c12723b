#!/bin/sh
# Fails if the core archives need any symbol they do not define themselves
# (anything from the C runtime or another library).  _GLOBAL_OFFSET_TABLE_
# is made by the linker for position-independent code, not a library.
# usage: check_core_symbols.sh LIB.a...
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nm -u "$@" | awk '$1=="U" {print $2}' | sort -u > "$tmp/undefined"
nm --defined-only "$@" | awk 'NF==3 {print $3}' | sort -u > "$tmp/defined"
comm -23 "$tmp/undefined" "$tmp/defined" | grep -vx '_GLOBAL_OFFSET_TABLE_' > "$tmp/missing" || true
if [ -s "$tmp/missing" ]; then
  echo "core needs symbols from outside the core:"; cat "$tmp/missing"; exit 1
fi
echo "core archives are self-contained ($(wc -l < "$tmp/undefined") cross-object references, none external)"
