#!/bin/sh
#
# sqlite3_load.sh TRACESTORE_EXE SQLITE3_EXE LINUX_BUILD_DIR SAMPLE SCRATCH
#
# A Windows sqlite3.exe (built from the amalgamation's shell.c) loads
# tracestore.dll by name (.load tracestore, found next to sqlite3.exe),
# attaches a session that tracestore.exe imported under wine and answers
# count, sum(ts) and a string column per table.  Oracle: the Linux
# sqlite3 shell with the Linux build's tracestore.so on the same session
# (skipped, exit 77, without a Linux build); and the page_fault count must
# be the sample's page_fault_user and page_fault_kernel lines (grep).
#
set -u
exe=$1; shell=$2; linux=$3; sample=$4; scratch=$5
rm -rf "$scratch"; mkdir -p "$scratch"; cd "$scratch" || exit 1
wine "$exe" import -o s "$sample" >/dev/null || exit 1
sql="SELECT count(*), sum(ts) FROM page_fault;
SELECT count(*), sum(ts), sum(cpu) FROM ftrace_event;
SELECT comm FROM thread ORDER BY tid, comm;"
wine "$shell" -bail -cmd ".load tracestore" -cmd "SELECT tracestore_attach('s');" \
  :memory: "$sql" | tr -d '\r' > wine.txt || { echo "sqlite3.exe failed"; exit 1; }
cat wine.txt
faults=$(grep -c ' page_fault_\(user\|kernel\):' "$sample")
[ "$(head -2 wine.txt | tail -1 | cut -d'|' -f1)" = "$faults" ] ||
  { echo "page_fault count is not the sample's $faults page_fault lines"; exit 1; }
[ -f "$linux/tracestore.so" ] || { echo "no Linux build: only the count checked"; exit 77; }
sqlite3 -bail -cmd ".load $linux/tracestore" -cmd "SELECT tracestore_attach('s');" \
  :memory: "$sql" > linux.txt || exit 1
diff linux.txt wine.txt && echo "sqlite3.exe and the Linux sqlite3 agree"
