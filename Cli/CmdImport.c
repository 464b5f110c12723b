/*
** CmdImport.c: `tracestore import`: decode input files into a session.
**
** Zone: hosted (the command-line front end): libc.  Owns the import
** command line, progress output and the summary.  Calls the core through
** Readers/TraceFormats.h (the decoders, TraceFormatFromName),
** Readers/Import/TraceImport.h (TraceImportRun) and TraceStore/TraceStore.h
** (the session); Host/ (TraceZstd.c for trace.dat v7, HostUtil.c,
** Workers.c) and Live/LiveRollups.c (the thread that folds the rollups).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Cli/Cli.h"
#include "Readers/TraceFormats.h"
#include "Readers/Decoders/Ftrace/TraceEvent.h"
#include "Host/HostSync.h"
#include "Host/TraceZstd.h"
#include "Live/LiveRollups.h"
#include "TraceStore/TraceSchema.h"

static const char zImportHelp[] =
"usage: tracestore import [--format FORMAT] [--reorder-window EVENTS]\n"
"                         [--host NAME] [--formats DIR]\n"
"                         [--sync-interval SECONDS] [--sync-log FILE]\n"
"                         -o SESSION [CLOCK OPTIONS] FILE...\n"
"\n"
"Decodes each FILE and appends its events to SESSION (a directory, created\n"
"if missing; importing into an existing session adds to it).  The format\n"
"is detected from the content; --format forces one of:\n";

static const char zImportHelpTail[] =
"\n"
"Clock options apply to the files that follow them on the command line\n"
"(until changed; 0 turns one off) and are kept in the source table:\n"
"  --tsc-mhz MHZ, --tsc-khz KHZ   TSC rate: TSC-clocked inputs (kvmtrace,\n"
"                 perf stat rdtsc lines, and uftrace or Chrome JSON\n"
"                 recorded in TSC) are converted to ns; without it their\n"
"                 ts holds raw TSC counts\n"
"  --tsc-offset N|auto   a guest's TSC offset, subtracted from each raw ts\n"
"                 before the conversion (signed 64-bit; a value above\n"
"                 2^63 is read as its two's complement, as KVM prints\n"
"                 it); auto: the `next` of the last kvm_write_tsc_offset\n"
"                 event already in SESSION (import the host trace first)\n"
"  --clock-offset NS   ns added to each ts after the conversion\n"
"\n"
"--host NAME is the host name kept in a new session (default: this\n"
"machine's); sessions pushed into one ClickHouse are told apart by it.\n"
"\n"
"--formats DIR reads the events' tracefs format files, DIR/SYSTEM/EVENT/\n"
"format (DIR: /sys/kernel/tracing/events, or a copy of it from the machine\n"
"that recorded).  Text inputs (ftrace, trace-cmd-report, perf-script) then\n"
"keep each event's record bytes, rebuilt from its text, and its format, as\n"
"binary inputs do: `tracestore script` runs over them (docs/script.md).\n"
"\n"
"--reorder-window sets how many span events (Chrome JSON) may be held to\n"
"put them in time order (default 1048576, 56 bytes each); an event that\n"
"comes later than that is placed under its open enclosing span and flagged\n"
"8 in span.flags.\n"
"\n"
"On bad input the import stops with FILE:LINE (or the byte offset) and the\n"
"reason, exits 1, and keeps everything read before the error.\n"
"\n"
"Durability (docs/durability.md): the session is synced (every store\n"
"flushed, then session.durable replaced) when the import opens and closes\n"
"it, and every --sync-interval:\n";

static const char zImportHelpDurable[] =
"After a power cut at any instant, the session opens; each store holds at\n"
"least what the last sync made durable and never a record that was not\n"
"committed; `tracestore info` counts what the cut took.  A sync costs a\n"
"device flush per store.\n";

static void importHelp(FILE *out){
  const PCTRACE_FORMAT *pp;
  fputs(zImportHelp, out);
  for(pp=TraceFormats; *pp; pp++){
    fprintf(out, "  %-17s %s\n", (*pp)->Name, (*pp)->Description);
  }
  fputs(zImportHelpTail, out);
  hostSyncHelp(out, "0, open and close only");
  fputs(zImportHelpDurable, out);
}

typedef struct ProgressState {
  const char *zPath;
  double tStart;
  double tShown;      /* when the line was last redrawn */
  int bShown;
} ProgressState;

static void importProgress(PVOID pCtx, ULONGLONG nDone, ULONGLONG nTotal,
                           ULONGLONG nEvents){
  ProgressState *p = (ProgressState*)pCtx;
  double tNow = hostNowSeconds();
  double t = tNow - p->tStart;
  if( t<1.0 || tNow - p->tShown < 0.1 ) return;
  p->tShown = tNow;
  fprintf(stderr, "\rimporting %s: %3.0f%%  %llu events  %.0f MB/s ",
          p->zPath, nTotal ? 100.0*nDone/nTotal : 100.0,
          (unsigned long long)nEvents, nDone/1e6/t);
  p->bShown = 1;
}

/* What the import options say about every file. */
typedef struct ImportOptions {
  PCTRACE_FORMAT pForced;     /* --format, or 0 to detect */
  double rTscMhz;             /* --tsc-mhz (or --tsc-khz / 1000), or 0 */
  unsigned nReorderWindow;    /* --reorder-window, or 0 for the default */
  int bClockOffset;           /* --clock-offset given (non-zero) */
  int eTscOffset;             /* 0 none, 1 iTscOffset, 2 auto */
  long long iClockOffset;     /* --clock-offset NS */
  long long iTscOffset;       /* --tsc-offset N (or the auto value) */
  PTRACE_EVENT_TABLE pFormats;  /* --formats, or 0 */
  HostSync sync;              /* --sync-interval, --sync-log */
} ImportOptions;

/* --formats DIR: the events' format files (TraceEventFormatDir.c). */
static PTRACE_EVENT_TABLE loadFormats(const char *zDir){
  PTRACE_EVENT_TABLE pTable = calloc(1, sizeof(TRACE_EVENT_TABLE));
  RTL_ERROR err;
  if( pTable==0
   || !RTL_SUCCESS(TraceEventTableInitialize(&Rtl, 8, pTable)) ){
    free(pTable);
    hostFail("--formats: out of memory");
    return 0;
  }
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceEventTableAddDirectory(pTable, zDir, &err)) ){
    hostFail("--formats: %s", err.Message);
    TraceEventTableRelease(pTable);
    free(pTable);
    return 0;
  }
  return pTable;
}

/*
** Parses a signed 64-bit integer; a decimal above 2^63-1 and below 2^64
** is read as its two's complement (kvm_write_tsc_offset prints the offset
** unsigned).  0 if z is not one.
*/
static int parseInt64(const char *z, long long *pv){
  char *zEnd;
  errno = 0;
  if( z[0]=='-' ){
    long long v = strtoll(z, &zEnd, 10);
    if( errno || *zEnd!=0 || zEnd==z ) return 0;
    *pv = v;
  }else{
    unsigned long long u = strtoull(z, &zEnd, 10);
    if( errno || *zEnd!=0 || zEnd==z || z[0]<'0' || z[0]>'9' ) return 0;
    *pv = (long long)u;
  }
  return 1;
}

/*
** --tsc-offset auto: the `next=` value of the latest kvm_write_tsc_offset
** event in the session's ftrace_event store (merge.py's get_offset reads
** the last one trace-cmd reports).  0 and a message if there is none.
*/
static int autoTscOffset(PTRACE_SESSION pSession, const char *zSession,
                         long long *pOffset){
  PTRACE_STORE p = TraceSessionFindStore(pSession, "ftrace_event");
  PCTRACE_COLUMN_DESCRIPTOR cTs, cName, cArgs;
  unsigned long long i, n;
  long long iBestTs = 0;
  int bFound = 0;
  RTL_ERROR err;
  char zPath[TRACE_PATH_SIZE];

  if( p==0 && TraceJoinPath(zPath, sizeof(zPath), zSession, "ftrace_event",
                            TRACE_STORE_FILE_SUFFIX)
   && access(zPath, F_OK)==0 ){
    memset(&err, 0, sizeof(err));
    if( !RTL_SUCCESS(TraceSessionOpenStore(pSession, &TraceFtraceEventSchema,
                                           &p, &err)) ){
      hostFail("%s", err.Message);
      return 0;
    }
  }
  if( p ){
    cTs = TraceStoreFindColumn(p->Header, "ts");
    cName = TraceStoreFindColumn(p->Header, "name");
    cArgs = TraceStoreFindColumn(p->Header, "args");
    n = p->CommittedCount;
    for(i=0; i<n && cTs && cName && cArgs; i++){
      LONGLONG ts, name, args;
      PCSZ z;
      ULONG nz;
      const char *zNext;
      if( !TraceStoreReadColumn(p, i, cName, &name) ) continue;
      if( !RTL_SUCCESS(TraceStringLookup(&pSession->Strings, (ULONG)name,
                                         &z, &nz)) ) continue;
      if( nz<20 || strcmp(z+nz-20, "kvm_write_tsc_offset")!=0 ) continue;
      if( !TraceStoreReadColumn(p, i, cTs, &ts) ) continue;
      if( bFound && ts<iBestTs ) continue;
      if( !TraceStoreReadColumn(p, i, cArgs, &args) ) continue;
      if( !RTL_SUCCESS(TraceStringLookup(&pSession->Strings, (ULONG)args,
                                         &z, &nz)) ) continue;
      zNext = strstr(z, "next=");
      if( zNext==0 ) continue;
      {
        char zNum[24];
        size_t k = 0;
        zNext += 5;
        while( k<sizeof(zNum)-1 && zNext[k]>='0' && zNext[k]<='9' ){
          zNum[k] = zNext[k];
          k++;
        }
        zNum[k] = 0;
        if( !parseInt64(zNum, pOffset) ) continue;
      }
      iBestTs = ts;
      bFound = 1;
    }
  }
  if( !bFound ){
    hostFail("--tsc-offset auto: no kvm_write_tsc_offset event in %s "
            "(import the host's KVM trace before the guest's files)",
            zSession);
  }
  return bFound;
}

static int importOne(PTRACE_SESSION pSession, const char *zPath,
                     ImportOptions *pOpt,
                     PTRACE_SESSION_HOST pRecorded){
  TRACE_IMPORT imp;
  ProgressState prog;
  RTL_STATUS rc;
  double t0 = hostNowSeconds();

  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = zPath;
  imp.TscMhz = pOpt->rTscMhz;
  imp.HaveClockOffset = pOpt->bClockOffset;
  imp.ClockOffset = pOpt->iClockOffset;
  imp.HaveTscOffset = pOpt->eTscOffset!=0;
  imp.TscOffset = pOpt->iTscOffset;
  imp.ReorderWindow = pOpt->nReorderWindow;
  imp.EventFormats = pOpt->pFormats;
  imp.Zstd = TraceZstdDecompressor();
  imp.HostSymbols = 1;
  imp.Worker = &hostImportWorker;
  imp.SyncEveryNs = (LONGLONG)(pOpt->sync.rInterval*1e9);
  imp.Synced = hostSyncLogged;
  imp.SyncedContext = &pOpt->sync;

  prog.zPath = zPath;
  prog.tStart = t0;
  prog.tShown = 0;
  prog.bShown = 0;
  if( isatty(2) ){
    imp.Progress = importProgress;
    imp.ProgressContext = &prog;
  }

  rc = TraceImportRun(&imp, pOpt->pForced, TraceFormats);
  if( prog.bShown ) fprintf(stderr, "\r\033[K");
  if( !RTL_SUCCESS(rc) && imp.FormatName==0 ){
    hostFail("%s (use --format; see tracestore import --help)",
            imp.Error.Message);
    return 1;
  }
  if( imp.Spans.Reorder.Late ){
    fprintf(stderr, "tracestore: %s: %llu span events came after a window of "
            "%u; placed under their open enclosing span, flagged 8 (a "
            "larger --reorder-window orders them)\n", zPath,
            (unsigned long long)imp.Spans.Reorder.Late,
            imp.Spans.Reorder.Limit);
  }

  *pRecorded = imp.RecordedHost;
  if( !RTL_SUCCESS(rc) ){
    hostFail("%s", imp.Error.Message);
    fprintf(stderr, "tracestore: kept %llu events read before the error\n",
            (unsigned long long)imp.Events);
    return 1;
  }

  {
    double t = hostNowSeconds() - t0;
    if( imp.Lines ){
      fprintf(stderr, "%s: %llu events from %llu lines (%s) in %.2f s\n",
              zPath, (unsigned long long)imp.Events,
              (unsigned long long)imp.Lines, imp.FormatName, t);
    }else{
      fprintf(stderr, "%s: %llu events (%s) in %.2f s\n", zPath,
              (unsigned long long)imp.Events, imp.FormatName, t);
    }
  }
  return 0;
}

/* Writes the session's host (a no-op when it has one); 0 after a message
** if the header cannot be written. */
static int setHost(PTRACE_SESSION pSession, PCTRACE_SESSION_HOST pHost,
                   const char *zOut){
  if( !RTL_SUCCESS(TraceSessionSetHost(pSession, pHost)) ){
    hostFail("%s: cannot write the session header", zOut);
    return 0;
  }
  return 1;
}

static int isClockOption(const char *z){
  return strcmp(z, "--tsc-mhz")==0 || strcmp(z, "--tsc-khz")==0
      || strcmp(z, "--tsc-offset")==0 || strcmp(z, "--clock-offset")==0;
}

/*
** Applies clock option zOpt with value zVal to p (from here on, the files
** that follow); 0, or 2 after a message if zVal is not a valid value.
*/
static int clockOption(ImportOptions *p, const char *zOpt, const char *zVal){
  char *zEnd;
  if( strcmp(zOpt, "--tsc-mhz")==0 || strcmp(zOpt, "--tsc-khz")==0 ){
    int bKhz = zOpt[6]=='k';
    double r = strtod(zVal, &zEnd);
    if( bKhz ) r /= 1000.0;
    if( *zEnd!=0 || zEnd==zVal || !(r==0 || (r>=1 && r<1e7)) ){
      hostFail("%s: '%s' is not a rate in %s (1 MHz .. 10 THz, 0: none)",
              zOpt, zVal, bKhz ? "kHz" : "MHz");
      return 2;
    }
    p->rTscMhz = r;
  }else if( strcmp(zOpt, "--tsc-offset")==0 ){
    if( strcmp(zVal, "auto")==0 ){
      p->eTscOffset = 2;
    }else if( parseInt64(zVal, &p->iTscOffset) ){
      p->eTscOffset = p->iTscOffset!=0;
    }else{
      hostFail("--tsc-offset: '%s' is not a signed 64-bit offset or auto",
              zVal);
      return 2;
    }
  }else{
    if( !parseInt64(zVal, &p->iClockOffset) ){
      hostFail("--clock-offset: '%s' is not a number of ns", zVal);
      return 2;
    }
    p->bClockOffset = p->iClockOffset!=0;
  }
  return 0;
}

int cmdImport(int argc, char **argv){
  const char *zOut = 0;
  const char *zHost = 0;
  TRACE_SESSION_HOST host, recorded;
  int bHostSet;
  ImportOptions opt;
  PTRACE_SESSION pSession;
  LiveRollups *pRollups;
  RTL_ERROR err;
  int i, nFiles = 0, rc = 0, bClockPending = 0;

  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "--help")==0 || strcmp(argv[i], "-h")==0 ){
      importHelp(stdout);
      return 0;
    }
  }
  memset(&opt, 0, sizeof(opt));
  for(i=0; i<argc; i++){
    int nSync = hostSyncOption(&opt.sync, argc, argv, i);
    if( nSync<0 ){
      hostFail("import: %s", opt.sync.zError);
      return 2;
    }
    if( nSync ){
      i += nSync - 1;
    }else if( strcmp(argv[i], "-o")==0 && i+1<argc ){
      zOut = argv[++i];
    }else if( strcmp(argv[i], "--host")==0 && i+1<argc ){
      zHost = argv[++i];
    }else if( strcmp(argv[i], "--formats")==0 && i+1<argc ){
      if( opt.pFormats ){
        hostFail("import: --formats is given twice");
        return 2;
      }
      if( (opt.pFormats = loadFormats(argv[++i]))==0 ) return 2;
    }else if( strcmp(argv[i], "--format")==0 && i+1<argc ){
      opt.pForced = TraceFormatFromName(argv[++i]);
      if( opt.pForced==0 ){
        hostFail("unknown format '%s' (see tracestore import --help)", argv[i]);
        return 2;
      }
    }else if( isClockOption(argv[i]) && i+1<argc ){
      if( clockOption(&opt, argv[i], argv[i+1]) ) return 2;
      bClockPending = 1;
      i++;
    }else if( strcmp(argv[i], "--reorder-window")==0 && i+1<argc ){
      char *zEnd;
      unsigned long n = strtoul(argv[++i], &zEnd, 10);
      if( *zEnd!=0 || argv[i][0]=='-' || n<1 || n>(1ul<<26) ){
        hostFail("--reorder-window: '%s' is not a number of events from 1 to "
             "%lu", argv[i], 1ul<<26);
        return 2;
      }
      opt.nReorderWindow = (unsigned)n;
    }else if( argv[i][0]=='-' && argv[i][1]!=0 ){
      hostFail("import: unknown option '%s'", argv[i]);
      importHelp(stderr);
      return 2;
    }else{
      nFiles++;
      bClockPending = 0;
    }
  }
  if( zOut==0 || nFiles==0 ){
    importHelp(stderr);
    return 2;
  }
  if( bClockPending ){
    hostFail("import: clock options apply to the files after them; none "
            "follows the last one");
    return 2;
  }
  /* The clock options were checked; the import applies them in order. */
  opt.rTscMhz = 0;
  opt.bClockOffset = 0;
  opt.eTscOffset = 0;
  opt.iClockOffset = 0;
  opt.iTscOffset = 0;

  if( hostSyncStart(&opt.sync, &Rtl) ){
    hostFail("import: %s", opt.sync.zError);
    return 2;
  }
  hostStartWorkers();
  pSession = hostNewSession();
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zOut, pSession, &err)) ){
    hostFail("%s", err.Message);
    hostSyncAfterClose(&opt.sync, 0);
    free(pSession);
    return 1;
  }
  hostSyncLogged(&opt.sync, pSession);   /* the open's sync */
  /* The session's host (written once, when the session has none): --host,
  ** else the machine the first input was recorded on when it says (a
  ** perf.data's HOSTNAME), else this machine. */
  hostGatherHost(zHost, &host);
  if( zHost && !setHost(pSession, &host, zOut) ) rc = 1;
  bHostSet = zHost!=0;
  pRollups = liveRollupsStart(pSession);

  for(i=0; i<argc && rc==0; i++){
    if( strcmp(argv[i], "-o")==0 || strcmp(argv[i], "--format")==0
     || strcmp(argv[i], "--reorder-window")==0
     || strcmp(argv[i], "--host")==0 || strcmp(argv[i], "--formats")==0
     || strcmp(argv[i], "--sync-interval")==0
     || strcmp(argv[i], "--sync-log")==0 ){
      i++;
      continue;
    }
    if( isClockOption(argv[i]) ){
      clockOption(&opt, argv[i], argv[i+1]);
      i++;
      continue;
    }
    if( opt.eTscOffset==2 && !autoTscOffset(pSession, zOut, &opt.iTscOffset) ){
      rc = 1;
      break;
    }
    memset(&recorded, 0, sizeof(recorded));
    rc = importOne(pSession, argv[i], &opt, &recorded);
    if( !bHostSet ){
      bHostSet = 1;
      if( !setHost(pSession, recorded.HostName[0] ? &recorded : &host, zOut) ){
        rc = 1;
      }
    }
  }
  if( !bHostSet && !setHost(pSession, &host, zOut) ) rc = 1;

  liveRollupsStop(pRollups);
  hostSyncBeforeClose(&opt.sync, pSession);
  TraceSessionClose(pSession);
  hostSyncAfterClose(&opt.sync, pSession);
  free(pSession);
  if( opt.pFormats ){
    TraceEventTableRelease(opt.pFormats);
    free(opt.pFormats);
  }
  return rc;
}
