#!/bin/sh
#
# check_zones_catches.sh CHECK_ZONES_SH
#
# Shows that check_zones.sh fails, naming file and line, on a tree that
# breaks each of its rules once, and passes the includes the zones allow.
# The expected lines are written by hand from the files made below.
#
set -eu
check=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p Rtl/Linux TraceStore Readers/Shared Readers/Decoders/Perf \
         Readers/Live Readers/Cli Sqlite3Ext

# Allowed: every one of these stays silent.
printf '#include <stddef.h>\n#include <stdint.h>\n' > Rtl/Rtl.h
printf '#include "Rtl.h"\n#include <stdlib.h>\n#include <string.h>\n#include <xxhash.h>\n' \
    > Rtl/RtlMemory.c
printf '#include "Rtl/Rtl.h"\n#include <sys/mman.h>\n' > Rtl/Linux/RtlLinux.c
printf '#include "Rtl/Rtl.h"\n' > TraceStore/TraceStore.h
printf '#include "TraceStore/TraceStore.h"\n' > Readers/Shared/TraceImport.h
printf '#include <stdio.h>\n#include "Readers/Shared/TraceImport.h"\n#include "Sqlite3Ext/tracestore.h"\n' \
    > Readers/Cli/CmdSql.c
printf '#include <pthread.h>\n#include "Readers/Shared/TraceImport.h"\n' > Readers/Live/Record.c
printf '#include <sqlite3.h>\n' > Sqlite3Ext/tracestore.h
printf '#include "tracestore_int.h"\n#include "TraceStore/TraceStore.h"\n' > Sqlite3Ext/tracestore.c
printf '#include <string.h>\n' > Sqlite3Ext/tracestore_int.h

# One violation of each rule (line numbers matter).
printf '#include "Rtl/Rtl.h"\n#include "Sqlite3Ext/tracestore.h"\n' > TraceStore/Bad1.c
printf '#include "../../../Sqlite3Ext/tracestore_int.h"\n' > Readers/Decoders/Perf/Bad1.c
printf '#include "Sqlite3Ext/tracestore.h"\n' > Readers/Live/Bad1.c
printf '#include "Cli.h"\n#include "Sqlite3Ext/tracestore_int.h"\n' > Readers/Cli/Bad2.c
printf '#include "Readers/Shared/TraceImport.h"\n' > TraceStore/Bad3.c
printf '#include "Readers/Shared/TraceImport.h"\n' > Sqlite3Ext/bad3.c
printf '#  include "Readers/Live/Record.h"\n' > Readers/Shared/Bad4.c
printf '#include "Readers/Cli/Cli.h"\n' > Rtl/Bad4.c
printf '#include "Rtl/Rtl.h"\n#include <stdio.h>\n' > Readers/Decoders/Perf/Bad5.c
printf '#include <sys/mman.h>\n' > TraceStore/Bad5.c
printf '#include <string.h>\n' > Rtl/RtlString.c

cat > expected <<'EOF'
Readers/Cli/Bad2.c:2: rule 2
Readers/Decoders/Perf/Bad1.c:1: rule 1
Readers/Decoders/Perf/Bad5.c:2: rule 5
Readers/Live/Bad1.c:1: rule 1
Readers/Shared/Bad4.c:1: rule 4
Rtl/Bad4.c:1: rule 3
Rtl/Bad4.c:1: rule 4
Rtl/RtlString.c:1: rule 5
Sqlite3Ext/bad3.c:1: rule 3
TraceStore/Bad1.c:2: rule 1
TraceStore/Bad3.c:1: rule 3
TraceStore/Bad5.c:1: rule 5
EOF

status=0
"$check" "$tmp" > output || status=$?
cat output
if [ "$status" != 1 ]; then
  echo "FAIL: check_zones.sh exited $status on a tree with violations (want 1)"
  exit 1
fi
grep ': rule ' output | sed 's/^\([^:]*:[0-9]*: rule [0-9]\).*/\1/' | LC_ALL=C sort > got
if ! diff -u expected got; then
  echo "FAIL: check_zones.sh did not report exactly the planted violations"
  exit 1
fi
echo "check_zones.sh caught all $(wc -l < expected) planted violations, nothing else"
