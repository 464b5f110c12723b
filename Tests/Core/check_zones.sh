#!/bin/sh
#
# check_zones.sh [SOURCE_DIR]
#
# Checks, on the #include lines alone, the arrows between the zones that
# ../shared/DESIGN.md draws (issue 14, "zones you can see"): CLI -> readers
# -> store -> Rtl, extension -> store -> Rtl.
#
#   core     Rtl/ (but Rtl/<Platform>/), TraceStore/, Readers/Shared/,
#            Readers/Decoders/: CRT-free, the OS only through PRTL
#   back end Rtl/<Platform>/ (Rtl/Linux/): the only files with platform
#            headers
#   hosted   Readers/Live/, Readers/Cli/, Sqlite3Ext/: libc
#
# The rules (each violation printed as FILE:LINE: why: the line):
#
#   1. Nothing but the CLI includes the extension: no Sqlite3Ext/ from
#      Readers/ (except Readers/Cli), TraceStore/ or Rtl/.
#   2. The CLI includes only the extension's public header,
#      Sqlite3Ext/tracestore.h, never an internal one.
#   3. The store, the Rtl and the extension include no reader: no
#      Readers/ from TraceStore/, Rtl/ or Sqlite3Ext/.
#   4. The core includes nothing hosted: no Readers/Live/ or Readers/Cli/
#      from Rtl/, TraceStore/, Readers/Shared/ or Readers/Decoders/.
#   5. The core includes no C library or platform header: only the
#      compiler's freestanding headers (stddef.h, stdint.h, stdarg.h,
#      stdbool.h, stdalign.h, stdnoreturn.h, float.h, limits.h, iso646.h).
#      One exception, explained in that file: Rtl/RtlMemory.c includes
#      xxhash.h (header-only, as CMakeLists.txt allows) and, before it,
#      stdlib.h and string.h.  Platform headers are for Rtl/<Platform>/.
#
# A quoted include is resolved as the compiler does here: a path starting
# with a top-level folder (Rtl/, TraceStore/, Readers/, Sqlite3Ext/) is
# root-relative, anything else is relative to the including file.
# Exit status: 0 if every rule holds, 1 otherwise.
#
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2

for d in Rtl TraceStore Readers Sqlite3Ext; do
  [ -d "$d" ] || { echo "check_zones.sh: no $d/ in $(pwd)"; exit 2; }
done

find Rtl TraceStore Readers Sqlite3Ext -type f \( -name '*.c' -o -name '*.h' \) |
  LC_ALL=C sort |
  xargs grep -nE '^[[:space:]]*#[[:space:]]*include' /dev/null |
  awk '
function zone(p) {
    if (p ~ /^Rtl\/[^\/]+\//) return "backend"
    if (p ~ /^(Rtl|TraceStore|Readers\/Shared|Readers\/Decoders)\//) return "core"
    if (p ~ /^Readers\/Live\//) return "live"
    if (p ~ /^Readers\/Cli\//) return "cli"
    if (p ~ /^Sqlite3Ext\//) return "ext"
    return "other"
}
function resolve(file, name,    dir, n, i, parts, out, k) {
    if (name ~ /^(Rtl|TraceStore|Readers|Sqlite3Ext)\//) {
        path = name
    } else {
        dir = file
        sub(/\/[^\/]*$/, "", dir)
        path = dir "/" name
    }
    n = split(path, parts, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "." || parts[i] == "") continue
        if (parts[i] == "..") { if (k > 0) k--; continue }
        out[++k] = parts[i]
    }
    path = out[1]
    for (i = 2; i <= k; i++) path = path "/" out[i]
    return path
}
function report(why) {
    printf "%s:%s: %s: %s\n", file, line, why, text
    bad++
}
BEGIN {
    split("stddef.h stdint.h stdarg.h stdbool.h stdalign.h stdnoreturn.h " \
          "float.h limits.h iso646.h", list, " ")
    for (i in list) freestanding[list[i]] = 1
    excepted["Rtl/RtlMemory.c", "stdlib.h"] = 1
    excepted["Rtl/RtlMemory.c", "string.h"] = 1
    excepted["Rtl/RtlMemory.c", "xxhash.h"] = 1
}
{
    # FILE:LINE:TEXT (TEXT may hold colons)
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    line = rest; sub(/:.*/, "", line)
    text = substr(rest, length(line) + 2)
    from = zone(file)

    if (match(text, /<[^>]*>/)) {
        header = substr(text, RSTART + 1, RLENGTH - 2)
        if (from == "core" && !(header in freestanding) &&
            !((file, header) in excepted)) {
            report("rule 5: the core includes a C library or platform " \
                   "header (only the compiler'"'"'s freestanding headers; " \
                   "platform headers belong in Rtl/<Platform>/)")
        }
        next
    }
    if (!match(text, /"[^"]*"/)) next
    target = resolve(file, substr(text, RSTART + 1, RLENGTH - 2))

    if (target ~ /^Sqlite3Ext\// &&
        (from == "core" || from == "backend" || from == "live")) {
        report("rule 1: only the CLI and the extension include Sqlite3Ext/")
    }
    if (from == "cli" && target ~ /^Sqlite3Ext\// &&
        target != "Sqlite3Ext/tracestore.h") {
        report("rule 2: the CLI includes an extension-internal header " \
               "(only Sqlite3Ext/tracestore.h is public)")
    }
    if (target ~ /^Readers\// &&
        (file ~ /^(TraceStore|Rtl)\// || from == "ext")) {
        report("rule 3: the store, the Rtl and the extension include no " \
               "reader")
    }
    if (target ~ /^Readers\/(Live|Cli)\// &&
        (from == "core" || from == "backend")) {
        report("rule 4: the core includes hosted code (Readers/Live, " \
               "Readers/Cli)")
    }
}
END {
    if (bad) {
        printf "%d include(s) cross a zone the wrong way\n", bad
        exit 1
    }
    print "zones: every include points the way DESIGN.md draws the arrows"
}'
