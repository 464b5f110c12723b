#!/bin/sh
#
# check_zones_catches.sh CHECK_ZONES_PY
#
# Shows that check_zones.py fails, naming the place, on a scratch tree that
# breaks each of its rules: by an #include, and by the references an
# #include does not show (a table of function pointers, an extern variable,
# a function pointer taken, a call through a hand-written prototype), read
# from objects compiled into a CMake-like build tree; and that it passes
# the references the rooms allow.  The expected lines are written by hand
# from the files made below.
#
set -eu
check=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p src build
cd src
mkdir -p Rtl/Linux TraceStore Kernel Readers/Text Readers/Import \
         Readers/Decoders/Perf Readers/Decoders/Ftrace Sqlite3Ext Host Live \
         Outputs/Top Outputs/Plot Cli

# Allowed includes: every one of these stays silent.
printf '#include <stddef.h>\n#include <stdint.h>\n' > Rtl/Rtl.h
printf '#include "Rtl.h"\n#include <stdlib.h>\n#include <string.h>\n#include <xxhash.h>\n' \
    > Rtl/RtlMemory.c
printf '#include "Rtl/Rtl.h"\n#include <sys/mman.h>\n' > Rtl/Linux/RtlLinux.h
printf '#include "Rtl/Rtl.h"\n' > TraceStore/TraceStore.h
printf '#include "Rtl/Rtl.h"\n' > Kernel/KvmExitReason.h
printf '#include "TraceStore/TraceStore.h"\n' > Readers/Text/TextParse.h
printf '#include "Readers/Text/TextParse.h"\n#include "Kernel/KvmExitReason.h"\n' \
    > Readers/Import/TraceImport.h
printf '#include "Readers/Import/TraceImport.h"\n' > Readers/Decoders/Decoders.h
printf '#include "Readers/Decoders/Decoders.h"\n#include "../Ftrace/Ftrace.h"\n' \
    > Readers/Decoders/Perf/Perf.h
printf '#include "Readers/Import/TraceImport.h"\n' > Readers/Decoders/Ftrace/Ftrace.h
printf '#include "Readers/Decoders/Decoders.h"\n' > Readers/TraceFormats.h
printf '#include <sqlite3.h>\n#include "TraceStore/TraceStore.h"\n' > Sqlite3Ext/tracestore.h
printf '#include "tracestore_int.h"\n#include "Kernel/KvmExitReason.h"\n' > Sqlite3Ext/tracestore_x.h
printf '#include <string.h>\n' > Sqlite3Ext/tracestore_int.h
printf '#include <stdio.h>\n#include "Readers/Import/TraceImport.h"\n' > Host/Host.h
printf '#include <pthread.h>\n#include "Host/Host.h"\n#include "Readers/Decoders/Ftrace/Ftrace.h"\n' \
    > Live/Record.h
printf '#include "Host/Host.h"\n#include "Sqlite3Ext/tracestore.h"\n' > Outputs/Top/Top.h
printf '#include "Outputs/Top/Top.h"\n#include "Live/Record.h"\n#include "Readers/TraceFormats.h"\n' \
    > Cli/Cli.h

# One include breaking each rule (line numbers matter).
printf '#include "Rtl/Rtl.h"\n#include "Sqlite3Ext/tracestore.h"\n' > TraceStore/Bad1.h
printf '#include "../../../Sqlite3Ext/tracestore_int.h"\n' > Readers/Decoders/Perf/Bad1.h
printf '#include "Outputs/Top/Top.h"\n' > Live/Bad1.h
printf '#include "Cli.h"\n#include "Sqlite3Ext/tracestore_int.h"\n' > Cli/Bad2.h
printf '#include "Readers/Import/TraceImport.h"\n' > TraceStore/Bad3.h
printf '#include "Readers/Import/TraceImport.h"\n' > Sqlite3Ext/bad3.h
printf '#  include "Live/Record.h"\n' > Readers/Import/Bad4.h
printf '#include "Cli/Cli.h"\n' > Rtl/Bad4.h
printf '#include "Rtl/Rtl.h"\n#include <stdio.h>\n' > Readers/Decoders/Perf/Bad5.h
printf '#include <sys/mman.h>\n' > TraceStore/Bad5.h
printf '#include <string.h>\n' > Rtl/RtlString.h
printf '#include "Readers/Decoders/Decoders.h"\n' > Readers/Import/Bad6.h
printf '#include "Outputs/Top/Top.h"\n' > Outputs/Plot/Bad7.h
printf '#include "TraceStore/TraceStore.h"\n' > Kernel/Bad8.h

# References no #include shows, compiled below.  Allowed first: a decoder
# calls the engine, the table above the decoders names one, an output
# calls the host, the command calls an output, the extension fills in its
# RTL from the back end.
cat > Readers/Import/Thing.c <<'EOF'
int TraceImportThing(void) { return 1; }
int ReaderCount = 3;
EOF
cat > Readers/Decoders/Perf/Decoder.c <<'EOF'
extern int TraceImportThing(void);
int DecoderDetect(void) { return TraceImportThing(); }
EOF
cat > Readers/TraceFormats.c <<'EOF'
extern int DecoderDetect(void);
int (*const FormatTable[])(void) = { DecoderDetect };
EOF
cat > Host/Util.c <<'EOF'
void hostFail(const char *z) { (void)z; }
EOF
cat > Outputs/Top/Top.c <<'EOF'
extern void hostFail(const char *z);
int cmdTop(void) { hostFail("top"); return 0; }
EOF
cat > Cli/Main.c <<'EOF'
extern int cmdTop(void);
int cmdImport(int argc, char **argv) { (void)argc; (void)argv; return cmdTop(); }
EOF
cat > Rtl/Linux/RtlLinux.c <<'EOF'
void InitializeRtl(void *Rtl) { (void)Rtl; }
EOF
cat > Sqlite3Ext/tracestore_ok.c <<'EOF'
extern void InitializeRtl(void *Rtl);
void tsInit(void *p) { InitializeRtl(p); }
EOF
# Then one of each kind the wrong way: the engine's table names a
# decoder; the store reads an extern of the engine; a decoder takes the
# address of a command; the extension calls the engine; one output calls
# another; a decoder calls a back end directly.
cat > Readers/Import/Table.c <<'EOF'
extern int DecoderDetect(void);
int (*const EngineTable[])(void) = { DecoderDetect };
EOF
cat > TraceStore/Extern.c <<'EOF'
extern int ReaderCount;
int StoreCount(void) { return ReaderCount; }
EOF
cat > Readers/Decoders/Perf/Pointer.c <<'EOF'
extern int cmdImport(int argc, char **argv);
void *DecoderHook;
void DecoderSet(void) { DecoderHook = (void *)cmdImport; }
EOF
cat > Sqlite3Ext/tracestore_call.c <<'EOF'
extern int TraceImportThing(void);
int tsCall(void) { return TraceImportThing(); }
EOF
cat > Outputs/Plot/Plot.c <<'EOF'
extern int cmdTop(void);
int cmdPlot(void) { return cmdTop(); }
EOF
cat > Readers/Decoders/Perf/Direct.c <<'EOF'
extern void InitializeRtl(void *Rtl);
void DecoderInit(void *p) { InitializeRtl(p); }
EOF

for c in $(find . -name '*.c' | sed 's|^\./||' | sort); do
  o=../build/CMakeFiles/Scratch.dir/$c.o
  mkdir -p "$(dirname "$o")"
  ${CC:-cc} -c -o "$o" "$c"
done
# An object of a test program (BUILD_DIR/Tests/...) is not the tree's.
mkdir -p ../build/Tests/CMakeFiles/T.dir/Readers/Import
cp ../build/CMakeFiles/Scratch.dir/Readers/Import/Table.c.o \
   ../build/Tests/CMakeFiles/T.dir/Readers/Import/Table.c.o

cat > ../expected <<'EOF'
Cli/Bad2.h:2: rule 3
Kernel/Bad8.h:1: rule 1
Live/Bad1.h:1: rule 1
Outputs/Plot/Bad7.h:1: rule 1
Readers/Decoders/Perf/Bad1.h:1: rule 3
Readers/Decoders/Perf/Bad5.h:2: rule 4
Readers/Import/Bad4.h:1: rule 2
Readers/Import/Bad6.h:1: rule 1
Rtl/Bad4.h:1: rule 2
Rtl/RtlString.h:1: rule 4
Sqlite3Ext/bad3.h:1: rule 1
TraceStore/Bad1.h:2: rule 2
TraceStore/Bad3.h:1: rule 1
TraceStore/Bad5.h:1: rule 4
Outputs/Plot/Plot.c: rule 1: cmdTop
Readers/Decoders/Perf/Direct.c: rule 2: InitializeRtl
Readers/Decoders/Perf/Pointer.c: rule 2: cmdImport
Readers/Import/Table.c: rule 1: DecoderDetect
Sqlite3Ext/tracestore_call.c: rule 1: TraceImportThing
TraceStore/Extern.c: rule 1: ReaderCount
EOF

status=0
python3 "$check" "$tmp/src" "$tmp/build" > ../output || status=$?
cat ../output
if [ "$status" != 1 ]; then
  echo "FAIL: check_zones.py exited $status on a tree with violations (want 1)"
  exit 1
fi
sed -n -e 's/^\([^:]*:[0-9][0-9]*\): \(rule [0-9]\).*/\1: \2/p' \
       -e 's/^\([^:]*\): \(rule [0-9]\):.* uses \([^ ]*\) (.*/\1: \2: \3/p' \
    ../output > ../got
if ! diff -u ../expected ../got; then
  echo "FAIL: check_zones.py did not report exactly the planted violations"
  exit 1
fi
echo "check_zones.py caught all $(wc -l < ../expected) planted violations" \
     "(includes, a table, an extern, a function pointer, calls), nothing else"
