/*
** CmdExport.c: `tracestore export`: a session as one timeline file.
**
** Zone: hosted (Outputs/Export/, an output): libc.  Owns the export
** command line (options, the window, the output file written under a
** temporary name and renamed, so that no partial file ever has the final
** name).  Calls the store API (TraceSessionOpenReader), ExportWalk.c with
** the format's sink (ExportSink.h), and HostUtil.c for errors.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Host/HostPort.h"
#include "Outputs/Export/Export.h"
#include "Outputs/Export/ExportSink.h"
#include "Outputs/Outputs.h"

static const char zExportHelp[] =
"usage: tracestore export [--format chrome|perfetto] [-o FILE|-] [--from T]\n"
"                         [--to T] [--window kvm] [--store NAME]... SESSION\n"
"\n"
"Writes SESSION as one timeline file, in ts order: spans as slices,\n"
"kvm_exit rows as \"kvm exited\" slices on the vcpu thread, other kvm and\n"
"ftrace events, page faults and samples as instants with their columns as\n"
"args, sched_switch as per-CPU slices of the running task, counters as\n"
"counter tracks, and process and thread names.\n"
"\n"
"  --format chrome    Chrome trace-event JSON (the default): chrome://tracing,\n"
"                     DevTools, speedscope and Perfetto UI open it; ts in\n"
"                     microseconds from the first event, the ns exact\n"
"  --format perfetto  Perfetto's protobuf trace (TrackEvent): Perfetto UI and\n"
"                     trace_processor open it, with no size limit; smaller\n"
"                     and faster than JSON.  The default for -o *.pftrace\n"
"                     and *.perfetto-trace\n"
"  -o FILE        output file (default, or -: standard output); written\n"
"                 under a temporary name and renamed when complete\n"
"  --from T       keep what lies at or after T (ns, or a number followed\n"
"  --to T         by s, ms, us or ns); spans crossing it are cut to it\n"
"  --window kvm   keep what lies between the first KVM event and the last\n"
"                 event of its trace (merge.py's -F)\n"
"  --store NAME   only these stores (repeatable): span, kvm_exit,\n"
"                 ftrace_event, page_fault, sched_switch, counter, sample\n"
"\n"
"A session being written is exported as it was when export opened it.\n"
"docs/outputs.md says how each store maps to each format.\n";

/* The format a file name asks for: perfetto for *.pftrace and
** *.perfetto-trace, else chrome. */
static const EXPORT_FORMAT *formatOfName(const char *zOut){
  size_t n = strlen(zOut);
  if( (n>8 && strcmp(zOut+n-8, ".pftrace")==0)
   || (n>15 && strcmp(zOut+n-15, ".perfetto-trace")==0) ){
    return &ExportPerfettoFormat;
  }
  return &ExportChromeFormat;
}

/*
** Parses a time: an integer of ns, or a decimal number with a unit (s, ms,
** us, ns), exactly (no rounding through a double).  0 if it is not one.
*/
static int parseTime(const char *z, long long *pNs){
  int bNeg = 0, nFrac = 0, nDigits = 0, i;
  unsigned long long whole = 0, frac = 0, scale, fracScale = 1;
  const char *zUnit;
  if( *z=='-' ){ bNeg = 1; z++; }
  while( *z>='0' && *z<='9' ){
    if( whole > 922337203685477580ull ) return 0;
    whole = whole*10 + (unsigned long long)(*z++ - '0');
    nDigits++;
  }
  if( *z=='.' ){
    z++;
    while( *z>='0' && *z<='9' ){
      if( nFrac<9 ){
        frac = frac*10 + (unsigned long long)(*z - '0');
        fracScale *= 10;
      }else if( *z!='0' ){
        return 0;           /* below a nanosecond */
      }
      nFrac++;
      z++;
      nDigits++;
    }
  }
  if( nDigits==0 ) return 0;
  zUnit = z;
  if( strcmp(zUnit, "")==0 ){
    if( nFrac ) return 0;   /* a bare number is ns */
    scale = 1;
  }else if( strcmp(zUnit, "ns")==0 ){
    scale = 1;
  }else if( strcmp(zUnit, "us")==0 ){
    scale = 1000;
  }else if( strcmp(zUnit, "ms")==0 ){
    scale = 1000000;
  }else if( strcmp(zUnit, "s")==0 ){
    scale = 1000000000;
  }else{
    return 0;
  }
  if( whole > 0x7fffffffffffffffull/scale ) return 0;
  whole *= scale;
  /* frac/fracScale of a unit: exact when scale/fracScale is whole. */
  for(i=0; fracScale>1 && scale%10==0; i++){
    scale /= 10;
    fracScale /= 10;
  }
  if( fracScale>1 && frac%fracScale!=0 ) return 0;
  frac = frac/fracScale*scale;
  if( whole + frac > 0x7fffffffffffffffull ) return 0;
  *pNs = bNeg ? -(long long)(whole + frac) : (long long)(whole + frac);
  return 1;
}

int cmdExport(int argc, char **argv){
  ExportOptions opt;
  ExportCounts counts;
  const char *zSession = 0, *zOut = "-";
  PTRACE_SESSION pSession;
  FILE *out = stdout;
  char *zTemp = 0;
  int i, rc, bFile = 0;

  memset(&opt, 0, sizeof(opt));
  opt.iFrom = (long long)0x8000000000000000ull;
  opt.iTo = 0x7fffffffffffffffLL;
  for(i=0; i<argc; i++){
    const char *z = argv[i];
    if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
      fputs(zExportHelp, stdout);
      return 0;
    }else if( strcmp(z, "--format")==0 && i+1<argc ){
      if( strcmp(argv[++i], "chrome")==0 ){
        opt.pFormat = &ExportChromeFormat;
      }else if( strcmp(argv[i], "perfetto")==0 ){
        opt.pFormat = &ExportPerfettoFormat;
      }else{
        hostFail("export: unknown format '%s' (chrome or perfetto)",
                argv[i]);
        return 2;
      }
    }else if( strcmp(z, "-o")==0 && i+1<argc ){
      zOut = argv[++i];
    }else if( (strcmp(z, "--from")==0 || strcmp(z, "--to")==0) && i+1<argc ){
      long long t;
      if( !parseTime(argv[i+1], &t) ){
        hostFail("export: %s: '%s' is not a time (ns, or a number with s, "
                "ms, us or ns)", z, argv[i+1]);
        return 2;
      }
      if( z[2]=='f' ) opt.iFrom = t; else opt.iTo = t;
      i++;
    }else if( strcmp(z, "--window")==0 && i+1<argc ){
      if( strcmp(argv[++i], "kvm")!=0 ){
        hostFail("export: --window: '%s' is not a window (kvm is)", argv[i]);
        return 2;
      }
      opt.bWindowKvm = 1;
    }else if( strcmp(z, "--store")==0 && i+1<argc ){
      unsigned m = exportStoreBit(argv[++i]);
      if( m==0 ){
        hostFail("export: unknown store '%s' (export writes %s)", argv[i],
                zExportStoreNames);
        return 1;
      }
      opt.mStores |= m;
    }else if( z[0]=='-' && z[1]!=0 ){
      hostFail("export: unknown option '%s'", z);
      fputs(zExportHelp, stderr);
      return 2;
    }else if( zSession==0 ){
      zSession = z;
    }else{
      fputs(zExportHelp, stderr);
      return 2;
    }
  }
  if( zSession==0 ){
    fputs(zExportHelp, stderr);
    return 2;
  }
  if( opt.mStores==0 ) opt.mStores = EXPORT_STORE_ALL;
  if( opt.pFormat==0 ) opt.pFormat = formatOfName(zOut);

  pSession = hostOpenSession(zSession, 0);
  if( pSession==0 ) return 1;

  if( strcmp(zOut, "-")!=0 && hostIsSpecialFile(zOut) ){
    /* /dev/null, a FIFO: written in place (a rename would replace it). */
    out = fopen(zOut, "wb");
    if( out==0 ){
      hostFail("export: cannot write %s: %s", zOut, strerror(errno));
      TraceSessionClose(pSession);
      free(pSession);
      return 1;
    }
    bFile = 1;
  }else if( strcmp(zOut, "-")!=0 ){
    size_t n = strlen(zOut);
    zTemp = malloc(n + 16);
    if( zTemp==0 ){ hostFail("out of memory"); exit(1); }
    memcpy(zTemp, zOut, n);
    memcpy(zTemp+n, ".tmp.XXXXXX", 12);
    bFile = 1;
    out = hostCreateTemp(zTemp);
    if( out==0 ){
      hostFail("export: cannot create %s: %s", zOut, strerror(errno));
      free(zTemp);
      TraceSessionClose(pSession);
      free(pSession);
      return 1;
    }
  }

  rc = exportSession(pSession, &opt, out, &counts);
  if( zTemp ){
    if( hostSyncFile(out)!=0 ){
      if( rc==0 ) hostFail("export: writing %s: %s", zOut, strerror(errno));
      rc = 1;
    }
    if( fclose(out)!=0 && rc==0 ){
      hostFail("export: writing %s: %s", zOut, strerror(errno));
      rc = 1;
    }
    if( rc==0 && hostReplaceFile(zTemp, zOut)!=0 ){
      hostFail("export: cannot rename %s to %s: %s", zTemp, zOut,
              strerror(errno));
      rc = 1;
    }
    if( rc!=0 ) unlink(zTemp);
    free(zTemp);
  }else if( bFile ){
    if( fclose(out)!=0 && rc==0 ){
      hostFail("export: writing %s: %s", zOut, strerror(errno));
      rc = 1;
    }
  }else if( fflush(out)!=0 && rc==0 ){
    hostFail("export: writing standard output: %s", strerror(errno));
    rc = 1;
  }
  if( rc==0 ){
    fprintf(stderr, "%s: %llu events, %llu bytes of %s\n",
            bFile ? zOut : "export", counts.nEvents, counts.nBytes,
            opt.pFormat==&ExportChromeFormat ? "JSON" : "protobuf");
  }
  TraceSessionClose(pSession);
  free(pSession);
  return rc;
}
