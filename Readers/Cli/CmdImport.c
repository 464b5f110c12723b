/*
** CmdImport.c: `tracestore import`: decode input files into a session.
**
** Zone: hosted (the command-line front end): libc.  Owns the import
** command line, progress output and the summary.  Calls the core through
** Readers/Shared/TraceImport.h (TraceFormatFromName, TraceImportRun) and
** TraceStore/TraceStore.h (the session), TraceZstd.c for trace.dat v7,
** and CliUtil.c, Workers.c (helpers, worker threads).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Cli.h"
#include "Readers/Cli/TraceZstd.h"

static const char zImportHelp[] =
"usage: tracestore import [--format FORMAT] [--tsc-mhz MHZ]\n"
"                         [--reorder-window EVENTS] -o SESSION FILE...\n"
"\n"
"Decodes each FILE and appends its events to SESSION (a directory, created\n"
"if missing; importing into an existing session adds to it).  The format\n"
"is detected from the content; --format forces one of:\n";

static const char zImportHelpTail[] =
"\n"
"--tsc-mhz converts TSC-clocked inputs (kvmtrace) to ns at MHZ; without\n"
"it their ts column holds raw TSC counts.\n"
"\n"
"--reorder-window sets how many span events (Chrome JSON) may be held to\n"
"put them in time order (default 1048576, 56 bytes each); an event that\n"
"comes later than that is placed under its open enclosing span and flagged\n"
"8 in span.flags.\n"
"\n"
"On bad input the import stops with FILE:LINE (or the byte offset) and the\n"
"reason, exits 1, and keeps everything read before the error.\n";

static void importHelp(FILE *out){
  PCTRACE_FORMAT p;
  fputs(zImportHelp, out);
  for(p=TraceFormats; p->Name; p++){
    fprintf(out, "  %-17s %s\n", p->Name, p->Description);
  }
  fputs(zImportHelpTail, out);
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
  double tNow = cliNowSeconds();
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
  double rTscMhz;             /* --tsc-mhz, or 0 */
  unsigned nReorderWindow;    /* --reorder-window, or 0 for the default */
} ImportOptions;

static int importOne(PTRACE_SESSION pSession, const char *zPath,
                     const ImportOptions *pOpt){
  TRACE_IMPORT imp;
  ProgressState prog;
  RTL_STATUS rc;
  double t0 = cliNowSeconds();

  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = zPath;
  imp.TscMhz = pOpt->rTscMhz;
  imp.ReorderWindow = pOpt->nReorderWindow;
  imp.Zstd = TraceZstdDecompressor();
  imp.Worker = &cliImportWorker;

  prog.zPath = zPath;
  prog.tStart = t0;
  prog.tShown = 0;
  prog.bShown = 0;
  if( isatty(2) ){
    imp.Progress = importProgress;
    imp.ProgressContext = &prog;
  }

  rc = TraceImportRun(&imp, pOpt->pForced);
  if( prog.bShown ) fprintf(stderr, "\r\033[K");
  if( !RTL_SUCCESS(rc) && imp.FormatName==0 ){
    cliFail("%s (use --format; see tracestore import --help)",
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

  if( !RTL_SUCCESS(rc) ){
    cliFail("%s", imp.Error.Message);
    fprintf(stderr, "tracestore: kept %llu events read before the error\n",
            (unsigned long long)imp.Events);
    return 1;
  }

  {
    double t = cliNowSeconds() - t0;
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

int cmdImport(int argc, char **argv){
  const char *zOut = 0;
  ImportOptions opt;
  PTRACE_SESSION pSession;
  RTL_ERROR err;
  int i, nFiles = 0, rc = 0;

  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "--help")==0 || strcmp(argv[i], "-h")==0 ){
      importHelp(stdout);
      return 0;
    }
  }
  memset(&opt, 0, sizeof(opt));
  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "-o")==0 && i+1<argc ){
      zOut = argv[++i];
    }else if( strcmp(argv[i], "--format")==0 && i+1<argc ){
      opt.pForced = TraceFormatFromName(argv[++i]);
      if( opt.pForced==0 ){
        cliFail("unknown format '%s' (see tracestore import --help)", argv[i]);
        return 2;
      }
    }else if( strcmp(argv[i], "--tsc-mhz")==0 && i+1<argc ){
      char *zEnd;
      opt.rTscMhz = strtod(argv[++i], &zEnd);
      if( *zEnd!=0 || !(opt.rTscMhz>0 && opt.rTscMhz<1e7) ){
        cliFail("--tsc-mhz: '%s' is not a rate in MHz", argv[i]);
        return 2;
      }
    }else if( strcmp(argv[i], "--reorder-window")==0 && i+1<argc ){
      char *zEnd;
      unsigned long n = strtoul(argv[++i], &zEnd, 10);
      if( *zEnd!=0 || argv[i][0]=='-' || n<1 || n>(1ul<<26) ){
        cliFail("--reorder-window: '%s' is not a number of events from 1 to "
             "%lu", argv[i], 1ul<<26);
        return 2;
      }
      opt.nReorderWindow = (unsigned)n;
    }else if( argv[i][0]=='-' && argv[i][1]!=0 ){
      cliFail("import: unknown option '%s'", argv[i]);
      importHelp(stderr);
      return 2;
    }else{
      nFiles++;
    }
  }
  if( zOut==0 || nFiles==0 ){
    importHelp(stderr);
    return 2;
  }

  cliStartWorkers();
  pSession = cliNewSession();
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zOut, pSession, &err)) ){
    cliFail("%s", err.Message);
    free(pSession);
    return 1;
  }

  for(i=0; i<argc && rc==0; i++){
    if( strcmp(argv[i], "-o")==0 || strcmp(argv[i], "--format")==0
     || strcmp(argv[i], "--tsc-mhz")==0
     || strcmp(argv[i], "--reorder-window")==0 ){
      i++;
      continue;
    }
    rc = importOne(pSession, argv[i], &opt);
  }

  TraceSessionClose(pSession);
  free(pSession);
  return rc;
}
