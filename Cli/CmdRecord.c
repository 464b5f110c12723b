/*
** CmdRecord.c: `tracestore record`: the command line and usage of the live
** recorder; the recording itself is Live/Record.c (recordRun).
**
** Zone: hosted (the command-line front end): libc.  Owns the parsing of
** the record arguments into a RecordOptions and their error messages
** (exit status 2); calls recordRun (Live/Record.h), hostFailV and
** hostStartWorkers (HostUtil.c, Workers.c).  The recorder reports its own
** errors through recordFail below, so every "tracestore record: " line is
** printed by one routine of the CLI.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Cli/Cli.h"
#include "Live/Record.h"

static const char zRecordHelp[] =
"usage: tracestore record [-e SYSTEM[:EVENT]]... [-f FILTER] [-p PID]\n"
"                         [--duration SEC] [--max-size BYTES] [-b KB]\n"
"                         [--sync-interval SECONDS] [--sync-log FILE]\n"
"                         -o SESSION [-- COMMAND ARGS...]\n"
"\n"
"Records kernel trace events live from a private tracefs instance\n"
"(instances/tracestore-PID) into SESSION, committing every few ms so\n"
"that `tracestore sql` and sqlite3 see the stores grow while it runs.\n"
"\n"
"  -e SYSTEM[:EVENT]  events to record, as in trace-cmd (repeatable;\n"
"                     EVENT may be a glob; default: sched:sched_switch)\n"
"  -f FILTER          ftrace filter for the events of the preceding -e\n"
"  -p PID             only events of PID (default: the whole system)\n"
"  -- COMMAND ARGS    run COMMAND; record it and its children; stop when\n"
"                     it exits\n"
"  --duration SEC     stop after SEC seconds\n"
"  --max-size BYTES   stop when the session holds BYTES of records and\n"
"                     strings (K, M, G)\n"
"  -b KB              ring buffer per CPU (default 4096)\n"
"  --host NAME        the host name kept in the session (default: this\n"
"                     machine's; tags sessions pushed to one fleet)\n"
"\n"
"Ctrl-C stops too.  A COMMAND still running at the stop gets SIGTERM.\n"
"On stop the buffers are drained and a summary is\n"
"printed: events per store, events lost (overruns in\n"
"per_cpu/cpuN/stats, also kept as the ftrace_event store's dropped\n"
"count), bytes and rate.  Needs root (tracefs).\n"
"\n"
"Durability (docs/durability.md): the session is synced (every store\n"
"flushed, then session.durable replaced) when record opens and closes it,\n"
"and every --sync-interval:\n";

static const char zRecordHelpDurable[] =
"After a power cut at any instant, the session opens; each store holds at\n"
"least what the last sync made durable (a second or so before the cut,\n"
"by default) and never a record that was not committed; `tracestore info`\n"
"counts what the cut took.  A sync costs a device flush per store.\n";

static void recordHelp(FILE *out){
  fputs(zRecordHelp, out);
  hostSyncHelp(out, "1");
  fputs(zRecordHelpDurable, out);
}

/* "tracestore record: " and the message: the recorder's xFail. */
static void recordFail(const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  hostFailV("tracestore record", zFormat, ap);
  va_end(ap);
}

int cmdRecord(int argc, char **argv){
  const char *azSpec[256];
  const char *azFilter[256];
  RecordOptions o;
  TRACE_SESSION_HOST host;
  const char *zHost = 0;
  HostSync sync;
  int i, rc;

  memset(&o, 0, sizeof(o));
  o.azSpec = azSpec;
  o.azFilter = azFilter;
  o.nBufferKb = 4096;
  o.xFail = recordFail;
  memset(&sync, 0, sizeof(sync));
  sync.rInterval = 1.0;
  o.pSync = &sync;
  for(i=0; i<argc; i++){
    const char *z = argv[i];
    int nSync = hostSyncOption(&sync, argc, argv, i);
    if( nSync<0 ){
      recordFail("%s", sync.zError);
      return 2;
    }
    if( nSync ){
      i += nSync - 1;
      continue;
    }
    if( strcmp(z, "--")==0 ){
      o.azCmd = &argv[i+1];
      if( o.azCmd[0]==0 ){ recordFail("-- needs a COMMAND"); return 2; }
      break;
    }else if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
      recordHelp(stdout);
      return 0;
    }else if( i+1>=argc ){
      recordFail("unknown option or missing value: '%s'", z);
      recordHelp(stderr);
      return 2;
    }else if( strcmp(z, "-e")==0 ){
      if( o.nSpec>=256 ){ recordFail("too many -e"); return 2; }
      azFilter[o.nSpec] = 0;
      azSpec[o.nSpec++] = argv[++i];
    }else if( strcmp(z, "-f")==0 ){
      if( o.nSpec==0 ){ recordFail("-f FILTER must follow an -e"); return 2; }
      azFilter[o.nSpec-1] = argv[++i];
    }else if( strcmp(z, "-o")==0 ){
      o.zOut = argv[++i];
    }else if( strcmp(z, "--host")==0 ){
      zHost = argv[++i];
    }else if( strcmp(z, "-p")==0 ){
      char *zEnd;
      o.iPid = strtol(argv[++i], &zEnd, 10);
      if( *zEnd || o.iPid<=0 ){
        recordFail("-p: '%s' is not a pid", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "-b")==0 ){
      char *zEnd;
      o.nBufferKb = strtol(argv[++i], &zEnd, 10);
      if( *zEnd || o.nBufferKb<=0 ){
        recordFail("-b: '%s' is not a size in KB", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--duration")==0 ){
      char *zEnd;
      o.rDuration = strtod(argv[++i], &zEnd);
      if( *zEnd || !(o.rDuration>0) ){
        recordFail("--duration: '%s' is not a number of seconds", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--max-size")==0 ){
      char *zEnd;
      o.mxBytes = strtoull(argv[++i], &zEnd, 10);
      if( *zEnd=='K' || *zEnd=='k' ){ o.mxBytes <<= 10; zEnd++; }
      else if( *zEnd=='M' || *zEnd=='m' ){ o.mxBytes <<= 20; zEnd++; }
      else if( *zEnd=='G' || *zEnd=='g' ){ o.mxBytes <<= 30; zEnd++; }
      if( *zEnd || o.mxBytes==0 ){
        recordFail("--max-size: '%s' is not a size", argv[i]);
        return 2;
      }
    }else{
      recordFail("unknown option '%s'", z);
      recordHelp(stderr);
      return 2;
    }
  }
  if( o.zOut==0 ){
    recordHelp(stderr);
    return 2;
  }
  if( o.iPid && o.azCmd ){
    recordFail("-p and -- COMMAND exclude each other");
    return 2;
  }
  if( o.nSpec==0 ){
    azFilter[0] = 0;
    azSpec[o.nSpec++] = "sched:sched_switch";
  }
  hostGatherHost(zHost, &host);
  o.pHost = &host;
  if( hostSyncStart(&sync, &Rtl) ){
    recordFail("%s", sync.zError);
    return 2;
  }
  hostStartWorkers();
  rc = recordRun(&Rtl, &o);
  hostSyncAfterClose(&sync, 0);
  return rc;
}
