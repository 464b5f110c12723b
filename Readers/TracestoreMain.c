/*
** tracestore: the command-line front end (a hosted edge: libc, threads).
**
** Usage:
**   tracestore import [--format F] -o SESSION FILE...
**   tracestore record [-e SYSTEM[:EVENT]]... -o SESSION [-- COMMAND...]
**   tracestore info [--json] SESSION
**   tracestore sql [-c|--csv|--json] SESSION ["SQL" | -f FILE | - < FILE]
**   tracestore kvmtrace-format FORMATS [-c MHZ] < BINARY
**   tracestore schema [--markdown]
**
** Decoding and appending happen in the CRT-free core (Readers/, TraceStore/)
** through the RTL; this file parses arguments, prints, and provides the
** store's pre-fault worker thread.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "TraceImport.h"
#include "TraceZstd.h"
#include "KvmtraceFormat.h"
#include "Record.h"
#include "../Sqlite3Ext/tracestore.h"
#include "../Sqlite3Ext/tracestore_views.h"

static RTL Rtl;

/*
** Pre-fault and write-back workers.  The store asks for the pages just
** ahead of the writer to be faulted in (Rtl.PrefaultMemoryAsync); a thread
** does it so the writer never waits on page faults.  If its queue is full
** the request runs inline, which is only slower, never wrong.  A second
** thread starts the write-back of the records behind the writer
** (Rtl.WriteBackAsync), so that closing has less to flush; those requests
** are dropped when their queue is full (close writes everything anyway).
** Two threads, because a write-back can block for a millisecond while the
** device takes the pages, and a pre-fault that waited behind it would
** leave the writer to fault the pages itself.
*/
#define PREFAULT_QUEUE 16
typedef struct PrefaultQueue PrefaultQueue;
struct PrefaultQueue {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  struct { void *p; size_t n; HANDLE h; ULONGLONG iOff; } a[PREFAULT_QUEUE];
  unsigned nHead, nTail;
};
static PrefaultQueue prefaultQueue;   /* pre-faults */
static PrefaultQueue writeBackQueue;  /* write-backs */

static void *prefaultMain(void *pArg){
  PrefaultQueue *q = (PrefaultQueue*)pArg;
  for(;;){
    void *p; size_t n; HANDLE h; ULONGLONG iOff;
    pthread_mutex_lock(&q->mutex);
    while( q->nHead==q->nTail ){
      pthread_cond_wait(&q->cond, &q->mutex);
    }
    p = q->a[q->nHead % PREFAULT_QUEUE].p;
    n = q->a[q->nHead % PREFAULT_QUEUE].n;
    h = q->a[q->nHead % PREFAULT_QUEUE].h;
    iOff = q->a[q->nHead % PREFAULT_QUEUE].iOff;
    q->nHead++;
    pthread_mutex_unlock(&q->mutex);
    if( p ){
      Rtl.PrefaultMemory(&Rtl, p, n);
    }else{
      Rtl.WriteBack(&Rtl, h, iOff, n);
    }
  }
  return 0;
}

static void writeBackAsync(PRTL pRtl, HANDLE h, ULONGLONG iOff, ULONGLONG n){
  PrefaultQueue *q = &writeBackQueue;
  (void)pRtl;
  pthread_mutex_lock(&q->mutex);
  if( q->nTail - q->nHead < PREFAULT_QUEUE ){
    q->a[q->nTail % PREFAULT_QUEUE].p = 0;
    q->a[q->nTail % PREFAULT_QUEUE].n = (size_t)n;
    q->a[q->nTail % PREFAULT_QUEUE].h = h;
    q->a[q->nTail % PREFAULT_QUEUE].iOff = iOff;
    q->nTail++;
    pthread_cond_signal(&q->cond);
  }
  pthread_mutex_unlock(&q->mutex);
}

static void prefaultAsync(PRTL pRtl, PVOID p, SIZE_T n){
  PrefaultQueue *q = &prefaultQueue;
  int inline_ = 0;
  pthread_mutex_lock(&q->mutex);
  if( q->nTail - q->nHead >= PREFAULT_QUEUE ){
    inline_ = 1;
  }else{
    q->a[q->nTail % PREFAULT_QUEUE].p = p;
    q->a[q->nTail % PREFAULT_QUEUE].n = n;
    q->nTail++;
    pthread_cond_signal(&q->cond);
  }
  pthread_mutex_unlock(&q->mutex);
  if( inline_ ) pRtl->PrefaultMemory(pRtl, p, n);
}

/*
** Jobs a reader overlaps with its own work (TRACE_WORKER: the trace.dat
** reader indexes kallsyms while it parses the event formats).  A few per
** import, each milliseconds long, so a thread each.
*/
typedef struct ImportJob ImportJob;
struct ImportJob {
  pthread_t thread;
  PTRACE_JOB_ROUTINE xRoutine;
  PVOID pContext;
  int bDone;                  /* set, with release, when xRoutine returned */
};

static void *importJobMain(void *pArg){
  ImportJob *p = (ImportJob*)pArg;
  p->xRoutine(p->pContext);
  __atomic_store_n(&p->bDone, 1, __ATOMIC_RELEASE);
  return 0;
}

static BOOL importJobDone(PVOID pJob){
  return __atomic_load_n(&((ImportJob*)pJob)->bDone, __ATOMIC_ACQUIRE)!=0;
}

static PVOID importJobStart(PTRACE_JOB_ROUTINE xRoutine, PVOID pContext){
  ImportJob *p = malloc(sizeof(*p));
  if( p==0 ) return 0;
  p->xRoutine = xRoutine;
  p->pContext = pContext;
  p->bDone = 0;
  if( pthread_create(&p->thread, 0, importJobMain, p)!=0 ){
    free(p);
    return 0;
  }
  return p;
}

static void importJobWait(PVOID pJob){
  ImportJob *p = (ImportJob*)pJob;
  pthread_join(p->thread, 0);
  free(p);
}

static const TRACE_WORKER importWorker = {
  importJobStart, importJobDone, importJobWait
};

static int startQueueThread(PrefaultQueue *q){
  pthread_t t;
  pthread_mutex_init(&q->mutex, 0);
  pthread_cond_init(&q->cond, 0);
  if( pthread_create(&t, 0, prefaultMain, q)!=0 ) return 0;
  pthread_detach(t);
  return 1;
}

static void startPrefaultWorker(void){
  if( startQueueThread(&prefaultQueue) ){
    Rtl.PrefaultMemoryAsync = prefaultAsync;
  }
  if( startQueueThread(&writeBackQueue) ){
    Rtl.WriteBackAsync = writeBackAsync;
  }
}

static void fail(const char *zFormat, ...){
  va_list ap;
  fprintf(stderr, "tracestore: ");
  va_start(ap, zFormat);
  vfprintf(stderr, zFormat, ap);
  va_end(ap);
  fprintf(stderr, "\n");
}

static double nowSeconds(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec/1e9;
}

/* Allocates a TRACE_SESSION (large) or exits. */
static PTRACE_SESSION newSession(void){
  PTRACE_SESSION p = calloc(1, sizeof(*p));
  if( p==0 ){ fail("out of memory"); exit(1); }
  return p;
}

/*
** import
*/
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
  double tNow = nowSeconds();
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
  PCTRACE_FORMAT pFormat;
  RTL_STATUS rc;
  double t0 = nowSeconds();

  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = zPath;
  imp.TscMhz = pOpt->rTscMhz;
  imp.ReorderWindow = pOpt->nReorderWindow;
  imp.Zstd = TraceZstdDecompressor();
  imp.Worker = &importWorker;
  rc = TraceImportMapInput(&imp);
  if( !RTL_SUCCESS(rc) ){
    fail("%s", imp.Error.Message);
    return 1;
  }

  pFormat = pOpt->pForced ? pOpt->pForced : TraceDetectFormat(&imp);
  if( pFormat==0 ){
    fail("%s: unrecognized format (use --format; see tracestore import "
         "--help)", zPath);
    TraceImportUnmapInput(&imp);
    return 1;
  }
  imp.FormatName = pFormat->Name;

  prog.zPath = zPath;
  prog.tStart = t0;
  prog.tShown = 0;
  prog.bShown = 0;
  if( isatty(2) ){
    imp.Progress = importProgress;
    imp.ProgressContext = &prog;
  }

  rc = TraceImportBegin(&imp);
  if( RTL_SUCCESS(rc) ){
    rc = pFormat->Import(&imp);
  }
  rc = TraceImportEnd(&imp);
  if( prog.bShown ) fprintf(stderr, "\r\033[K");
  TraceImportUnmapInput(&imp);
  if( imp.Spans.Reorder.Late ){
    fprintf(stderr, "tracestore: %s: %llu span events came after a window of "
            "%u; placed under their open enclosing span, flagged 8 (a "
            "larger --reorder-window orders them)\n", zPath,
            (unsigned long long)imp.Spans.Reorder.Late,
            imp.Spans.Reorder.Limit);
  }

  if( !RTL_SUCCESS(rc) ){
    fail("%s", imp.Error.Message);
    fprintf(stderr, "tracestore: kept %llu events read before the error\n",
            (unsigned long long)imp.Events);
    return 1;
  }

  {
    double t = nowSeconds() - t0;
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

static int cmdImport(int argc, char **argv){
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
        fail("unknown format '%s' (see tracestore import --help)", argv[i]);
        return 2;
      }
    }else if( strcmp(argv[i], "--tsc-mhz")==0 && i+1<argc ){
      char *zEnd;
      opt.rTscMhz = strtod(argv[++i], &zEnd);
      if( *zEnd!=0 || !(opt.rTscMhz>0 && opt.rTscMhz<1e7) ){
        fail("--tsc-mhz: '%s' is not a rate in MHz", argv[i]);
        return 2;
      }
    }else if( strcmp(argv[i], "--reorder-window")==0 && i+1<argc ){
      char *zEnd;
      unsigned long n = strtoul(argv[++i], &zEnd, 10);
      if( *zEnd!=0 || argv[i][0]=='-' || n<1 || n>(1ul<<26) ){
        fail("--reorder-window: '%s' is not a number of events from 1 to "
             "%lu", argv[i], 1ul<<26);
        return 2;
      }
      opt.nReorderWindow = (unsigned)n;
    }else if( argv[i][0]=='-' && argv[i][1]!=0 ){
      fail("import: unknown option '%s'", argv[i]);
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

  startPrefaultWorker();
  pSession = newSession();
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zOut, pSession, &err)) ){
    fail("%s", err.Message);
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

/*
** info
*/
static const char zInfoHelp[] =
"usage: tracestore info [--json] SESSION\n"
"\n"
"Lists the stores of SESSION: records, bytes, time span, whether records\n"
"are in time order, and events the source reported lost.  --json prints\n"
"one JSON object for scripts.\n";

/*
** Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms,
** no surrogates, nothing above U+10FFFF) at z[0..n), or 0 if there is none.
*/
static int utf8SequenceLength(const unsigned char *z, int n){
  unsigned char c = z[0], lo = 0x80, hi = 0xbf;
  int len, k;
  if( c<0x80 ) return 1;
  if( c>=0xc2 && c<=0xdf ){
    len = 2;
  }else if( c>=0xe0 && c<=0xef ){
    len = 3;
    if( c==0xe0 ) lo = 0xa0;
    if( c==0xed ) hi = 0x9f;
  }else if( c>=0xf0 && c<=0xf4 ){
    len = 4;
    if( c==0xf0 ) lo = 0x90;
    if( c==0xf4 ) hi = 0x8f;
  }else{
    return 0;
  }
  if( n<len ) return 0;
  if( z[1]<lo || z[1]>hi ) return 0;
  for(k=2; k<len; k++){
    if( z[k]<0x80 || z[k]>0xbf ) return 0;
  }
  return len;
}

/*
** Prints z[0..n) as a JSON string: quote, backslash and control characters
** escaped, well-formed UTF-8 copied, each other byte replaced by U+FFFD.
*/
static void jsonText(const unsigned char *z, int n){
  int i = 0, len;
  putchar('"');
  while( i<n ){
    unsigned char c = z[i];
    if( c=='"' || c=='\\' ){
      putchar('\\');
      putchar(c);
      i++;
    }else if( c<0x20 || c==0x7f ){
      switch( c ){
        case '\b': fputs("\\b", stdout); break;
        case '\f': fputs("\\f", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:   printf("\\u%04x", c); break;
      }
      i++;
    }else if( (len = utf8SequenceLength(z+i, n-i))>0 ){
      fwrite(z+i, 1, (size_t)len, stdout);
      i += len;
    }else{
      fputs("\\ufffd", stdout);
      i++;
    }
  }
  putchar('"');
}

static void jsonString(const char *z){
  jsonText((const unsigned char*)z, (int)strlen(z));
}

static void infoStore(PTRACE_STORE p, int bJson, int bFirst,
                      LONGLONG *pFirst, LONGLONG *pLast){
  PTRACE_STORE_SNAPSHOT s = &p->Snapshot;
  unsigned long long nBytes = TRACE_STORE_HEADER_SIZE
                            + s->RecordCount*(ULONGLONG)p->RecordSize;
  int bTs = p->TimestampOffset!=TRACE_NO_COLUMN && s->RecordCount>0;
  if( bTs ){
    if( s->FirstTs < *pFirst ) *pFirst = s->FirstTs;
    if( s->LastTs > *pLast ) *pLast = s->LastTs;
  }
  if( bJson ){
    printf("%s\n    {\"name\": ", bFirst ? "" : ",");
    jsonString(p->Name);
    printf(", \"records\": %llu, \"bytes\": %llu, \"record_size\": %u, "
           "\"generation\": %llu, \"sorted\": %s, \"dropped\": %u, "
           "\"repaired\": %llu",
           (unsigned long long)s->RecordCount, nBytes, p->RecordSize,
           (unsigned long long)s->Generation,
           p->TimestampOffset==TRACE_NO_COLUMN ? "null" :
           (s->Flags & TRACE_SLOT_SORTED) ? "true" : "false", s->Dropped,
           (unsigned long long)s->Repaired);
    if( bTs ){
      printf(", \"first_ts\": %lld, \"last_ts\": %lld",
             (long long)s->FirstTs, (long long)s->LastTs);
    }else{
      printf(", \"first_ts\": null, \"last_ts\": null");
    }
    printf("}");
  }else{
    char zFirst[32] = "-", zLast[32] = "-";
    if( bTs ){
      snprintf(zFirst, sizeof(zFirst), "%.9f", s->FirstTs/1e9);
      snprintf(zLast, sizeof(zLast), "%.9f", s->LastTs/1e9);
    }
    printf("%-14s %10llu %12llu %20s %20s %6s %7u %8llu\n", p->Name,
           (unsigned long long)s->RecordCount, nBytes, zFirst, zLast,
           (p->TimestampOffset==TRACE_NO_COLUMN) ? "-" :
           (s->Flags & TRACE_SLOT_SORTED) ? "yes" : "no", s->Dropped,
           (unsigned long long)s->Repaired);
  }
}

static int cmdInfo(int argc, char **argv){
  int bJson = 0, i;
  const char *zSession = 0;
  PTRACE_SESSION pSession;
  RTL_ERROR err;
  LONGLONG iFirst = 0x7fffffffffffffffLL, iLast = -0x7fffffffffffffffLL;
  PTRACE_STORE aAll[TRACE_SESSION_MAX_STORES + 2];
  int nAll = 0;

  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "--help")==0 || strcmp(argv[i], "-h")==0 ){
      fputs(zInfoHelp, stdout);
      return 0;
    }else if( strcmp(argv[i], "--json")==0 ){
      bJson = 1;
    }else if( argv[i][0]=='-' ){
      fail("info: unknown option '%s'", argv[i]);
      return 2;
    }else if( zSession==0 ){
      zSession = argv[i];
    }else{
      fputs(zInfoHelp, stderr);
      return 2;
    }
  }
  if( zSession==0 ){
    fputs(zInfoHelp, stderr);
    return 2;
  }

  pSession = newSession();
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(&Rtl, zSession, pSession, &err)) ){
    fail("%s", err.Message);
    free(pSession);
    return 1;
  }

  for(i=0; i<(int)pSession->NumberOfStores; i++){
    aAll[nAll++] = &pSession->Stores[i];
  }
  aAll[nAll++] = &pSession->Strings.Index;
  aAll[nAll++] = &pSession->Strings.Data;

  if( bJson ){
    printf("{\n  \"session\": ");
    jsonString(pSession->Path);
    printf(",\n  \"clock\": ");
    jsonString(pSession->Header.ClockName);
    printf(",\n  \"stores\": [");
  }else{
    printf("session: %s\nclock:   %s\n\n", pSession->Path,
           pSession->Header.ClockName);
    printf("%-14s %10s %12s %20s %20s %6s %7s %8s\n", "store", "records",
           "bytes", "first_ts (s)", "last_ts (s)", "sorted", "dropped",
           "repaired");
  }
  for(i=0; i<nAll; i++){
    infoStore(aAll[i], bJson, i==0, &iFirst, &iLast);
  }
  if( bJson ){
    printf("\n  ],\n");
    if( iFirst<=iLast ){
      /* Unsigned: from -2^63 to 2^63-1 is 2^64-1 ns, not an overflow. */
      printf("  \"first_ts\": %lld,\n  \"last_ts\": %lld,\n"
             "  \"duration_ns\": %llu\n}\n", (long long)iFirst,
             (long long)iLast,
             (unsigned long long)iLast - (unsigned long long)iFirst);
    }else{
      printf("  \"first_ts\": null,\n  \"last_ts\": null,\n"
             "  \"duration_ns\": null\n}\n");
    }
  }else if( iFirst<=iLast ){
    printf("\ntime span: %.9f .. %.9f s (%.6f s)\n", iFirst/1e9, iLast/1e9,
           ((double)iLast - (double)iFirst)/1e9);
  }

  TraceSessionClose(pSession);
  free(pSession);
  return 0;
}

/*
** sql
*/
static const char zSqlHelp[] =
"usage: tracestore sql [-c|--csv|--json] SESSION \"SQL\"\n"
"       tracestore sql [-c|--csv|--json] SESSION -f FILE\n"
"       tracestore sql [-c|--csv|--json] SESSION [-] < FILE\n"
"\n"
"Runs SQL against SESSION with the tracestore extension loaded and the\n"
"session attached (one table per store, plus store_info).  The SQL is the\n"
"argument, the file given with -f/--file, or standard input when there is\n"
"no SQL argument or it is \"-\".  It may hold several statements; they run\n"
"in order and each one's rows are printed:\n"
"\n"
"  (default)     an aligned table with a header, a blank line between tables\n"
"  -c, --csv     CSV (RFC 4180) with a header row; NULL is an empty field\n"
"  --json        a JSON array of objects, one per row, the column names as\n"
"                keys: INTEGER and REAL as numbers (NaN and infinities as\n"
"                null), NULL as null, TEXT as a string (bytes that are not\n"
"                UTF-8 become U+FFFD), BLOB as a string of hex digits.  One\n"
"                array per statement that returns columns, so one SELECT\n"
"                prints one JSON document (several print a stream of\n"
"                arrays, as `jq` reads them).\n"
"\n"
"-c is short for --csv (it is not sqlite3's -cmd).  An SQL error stops at\n"
"the statement, names it (number, line, text) and exits with status 1;\n"
"what earlier statements printed stays printed.\n"
"\n"
"example: tracestore sql run.trace \\\n"
"  \"SELECT name, count(*) FROM page_fault GROUP BY name\"\n";

typedef enum SqlMode { SQL_MODE_TABLE, SQL_MODE_CSV, SQL_MODE_JSON } SqlMode;

typedef struct ResultBuf {
  int nCol;
  int nRow, nAlloc;
  char **az;          /* nRow*nCol cells, NULL for SQL NULL */
} ResultBuf;

static void csvField(const char *z){
  if( z==0 ) return;
  if( strpbrk(z, ",\"\r\n")==0 ){
    fputs(z, stdout);
    return;
  }
  putchar('"');
  for(; *z; z++){
    if( *z=='"' ) putchar('"');
    putchar(*z);
  }
  putchar('"');
}

static int isNumber(const char *z){
  if( z==0 ) return 1;              /* NULL does not make a column text */
  if( *z=='-' ) z++;
  if( *z<'0' || *z>'9' ) return 0;
  while( (*z>='0' && *z<='9') || *z=='.' || *z=='e' || *z=='E'
      || *z=='+' || *z=='-' ) z++;
  return *z==0;
}

/* Prints buffered rows as an aligned table; numeric columns align right. */
static void printTable(sqlite3_stmt *pStmt, ResultBuf *p){
  int *aW = calloc(p->nCol, sizeof(int));
  int *aRight = calloc(p->nCol, sizeof(int));
  int i, j;
  for(j=0; j<p->nCol; j++){
    aW[j] = (int)strlen(sqlite3_column_name(pStmt, j));
    aRight[j] = p->nRow>0;
  }
  for(i=0; i<p->nRow; i++){
    for(j=0; j<p->nCol; j++){
      const char *z = p->az[i*p->nCol+j];
      int n = (int)strlen(z ? z : "NULL");
      if( n>aW[j] ) aW[j] = n;
      if( !isNumber(z) ) aRight[j] = 0;
    }
  }
  for(j=0; j<p->nCol; j++){
    printf("%s%*s", j ? "  " : "", aRight[j] ? aW[j] : -aW[j],
           sqlite3_column_name(pStmt, j));
  }
  printf("\n");
  for(j=0; j<p->nCol; j++){
    int k;
    printf("%s", j ? "  " : "");
    for(k=0; k<aW[j]; k++) putchar('-');
  }
  printf("\n");
  for(i=0; i<p->nRow; i++){
    for(j=0; j<p->nCol; j++){
      const char *z = p->az[i*p->nCol+j];
      printf("%s%*s", j ? "  " : "", aRight[j] ? aW[j] : -aW[j],
             z ? z : "NULL");
    }
    printf("\n");
  }
  free(aW);
  free(aRight);
}

/*
** Prints a REAL as a JSON number that reads back as the same double (the
** shortest of %.15g, %.16g, %.17g that does), with ".0" added to whole
** numbers so that they still read as REAL; NaN and infinities as null.
*/
static void jsonReal(double r){
  char z[40];
  int nDigit;
  if( r!=r || r-r!=0.0 ){
    fputs("null", stdout);
    return;
  }
  for(nDigit=15; nDigit<17; nDigit++){
    snprintf(z, sizeof(z), "%.*g", nDigit, r);
    if( strtod(z, 0)==r ) break;
  }
  if( nDigit==17 ) snprintf(z, sizeof(z), "%.17g", r);
  if( strpbrk(z, ".eE")==0 ) strcat(z, ".0");
  fputs(z, stdout);
}

/* Prints column j of the current row of pStmt as a JSON value. */
static void jsonValue(sqlite3_stmt *pStmt, int j){
  static const char zHex[] = "0123456789abcdef";
  switch( sqlite3_column_type(pStmt, j) ){
    case SQLITE_INTEGER:
      printf("%lld", (long long)sqlite3_column_int64(pStmt, j));
      break;
    case SQLITE_FLOAT:
      jsonReal(sqlite3_column_double(pStmt, j));
      break;
    case SQLITE_TEXT: {
      const unsigned char *z = sqlite3_column_text(pStmt, j);
      jsonText(z, sqlite3_column_bytes(pStmt, j));
      break;
    }
    case SQLITE_BLOB: {
      const unsigned char *z = sqlite3_column_blob(pStmt, j);
      int n = sqlite3_column_bytes(pStmt, j), k;
      putchar('"');
      for(k=0; k<n; k++){
        putchar(zHex[z[k]>>4]);
        putchar(zHex[z[k]&15]);
      }
      putchar('"');
      break;
    }
    default:
      fputs("null", stdout);
      break;
  }
}

/*
** Steps pStmt to the end, printing its rows in mode eMode.  Returns the
** last sqlite3_step() result (SQLITE_DONE on success).  *pbTable is set
** once a table has been printed, so that the next one is set apart.
*/
static int runStatement(sqlite3_stmt *pStmt, SqlMode eMode, int *pbTable){
  ResultBuf res;
  int rc, i, j, nRow = 0;
  memset(&res, 0, sizeof(res));
  res.nCol = sqlite3_column_count(pStmt);
  if( eMode==SQL_MODE_CSV && res.nCol>0 ){
    for(j=0; j<res.nCol; j++){
      if( j ) putchar(',');
      csvField(sqlite3_column_name(pStmt, j));
    }
    putchar('\n');
  }
  if( eMode==SQL_MODE_JSON && res.nCol>0 ) putchar('[');
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    if( eMode==SQL_MODE_CSV ){
      for(j=0; j<res.nCol; j++){
        if( j ) putchar(',');
        csvField((const char*)sqlite3_column_text(pStmt, j));
      }
      putchar('\n');
      continue;
    }
    if( eMode==SQL_MODE_JSON ){
      fputs(nRow ? ",\n{" : "\n{", stdout);
      for(j=0; j<res.nCol; j++){
        if( j ) putchar(',');
        jsonString(sqlite3_column_name(pStmt, j));
        putchar(':');
        jsonValue(pStmt, j);
      }
      putchar('}');
      nRow++;
      continue;
    }
    if( res.nRow>=res.nAlloc ){
      res.nAlloc = res.nAlloc ? res.nAlloc*2 : 64;
      res.az = realloc(res.az, sizeof(char*)*res.nAlloc*res.nCol);
      if( res.az==0 ){ fail("out of memory"); exit(1); }
    }
    for(j=0; j<res.nCol; j++){
      const char *z = (const char*)sqlite3_column_text(pStmt, j);
      res.az[res.nRow*res.nCol+j] = z ? strdup(z) : 0;
    }
    res.nRow++;
  }
  if( rc==SQLITE_DONE && res.nCol>0 ){
    if( eMode==SQL_MODE_JSON ){
      fputs(nRow ? "\n]\n" : "]\n", stdout);
    }else if( eMode==SQL_MODE_TABLE ){
      if( *pbTable ) putchar('\n');
      printTable(pStmt, &res);
      *pbTable = 1;
    }
  }
  for(i=0; i<res.nRow*res.nCol; i++) free(res.az[i]);
  free(res.az);
  return rc;
}

/*
** Reads all of file zFile ("-": standard input) into a NUL-terminated
** buffer from malloc().  Returns NULL, with errno set, on failure.
*/
static char *readAllText(const char *zFile){
  FILE *in = strcmp(zFile, "-")==0 ? stdin : fopen(zFile, "rb");
  char *z = 0, *zNew;
  size_t n = 0, nAlloc = 0, nGot;
  int e;
  if( in==0 ) return 0;
  for(;;){
    if( nAlloc-n<4096 ){
      nAlloc = nAlloc ? nAlloc*2 : 65536;
      zNew = realloc(z, nAlloc);
      if( zNew==0 ){ e = ENOMEM; goto error; }
      z = zNew;
    }
    nGot = fread(z+n, 1, nAlloc-n-1, in);
    n += nGot;
    if( nGot==0 ) break;
  }
  if( ferror(in) ){ e = errno ? errno : EIO; goto error; }
  if( in!=stdin ) fclose(in);
  z[n] = 0;
  if( strlen(z)!=n ){ free(z); errno = EINVAL; return 0; }  /* a NUL byte */
  return z;
error:
  if( in!=stdin ) fclose(in);
  free(z);
  errno = e;
  return 0;
}

/*
** Reports an error of the statement that starts at zStmt (inside zSql,
** the whole input, named zSource): its number, the line it starts on, and
** its first 200 characters with white space folded.
*/
static void sqlStatementError(const char *zSource, const char *zSql,
                              const char *zStmt, int iStmt,
                              const char *zMsg){
  const char *z;
  int iLine = 1, n = 0, bSpace = 0;
  char zText[208];
  while( *zStmt==' ' || *zStmt=='\t' || *zStmt=='\n' || *zStmt=='\r'
      || *zStmt=='\f' ){
    zStmt++;
  }
  for(z=zSql; z<zStmt; z++) iLine += *z=='\n';
  for(z=zStmt; *z && *z!=';' && n<200; z++){
    if( *z==' ' || *z=='\t' || *z=='\n' || *z=='\r' || *z=='\f' ){
      bSpace = 1;
      continue;
    }
    if( bSpace && n>0 ) zText[n++] = ' ';
    bSpace = 0;
    zText[n++] = *z;
  }
  zText[n] = 0;
  fail("statement %d (line %d of %s): %s\n    %s%s", iStmt, iLine, zSource,
       zMsg, zText, (*z && *z!=';') ? " ..." : "");
}

/* True if argument z is SQL (or a path) rather than an option. */
static int isOption(const char *z){
  return z[0]=='-' && z[1]!=0 && strpbrk(z, " \t\n\r")==0;
}

static int cmdSql(int argc, char **argv){
  SqlMode eMode = SQL_MODE_TABLE;
  int i, rc = 0, iStmt = 0, bTable = 0, bOptions = 1;
  const char *zSession = 0, *zArg = 0, *zFile = 0, *zTail, *zSource;
  const char *zStmt;
  char *zSql = 0;
  sqlite3 *db = 0;
  sqlite3_stmt *pStmt = 0;
  char *zErr = 0;

  for(i=0; i<argc; i++){
    const char *z = argv[i];
    if( bOptions && isOption(z) ){
      if( strcmp(z, "--")==0 ){
        bOptions = 0;
      }else if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
        fputs(zSqlHelp, stdout);
        return 0;
      }else if( strcmp(z, "--csv")==0 || strcmp(z, "-c")==0 ){
        eMode = SQL_MODE_CSV;
      }else if( strcmp(z, "--json")==0 ){
        eMode = SQL_MODE_JSON;
      }else if( strcmp(z, "-f")==0 || strcmp(z, "--file")==0 ){
        if( i+1>=argc ){
          fail("sql: %s needs a file name", z);
          return 2;
        }
        zFile = argv[++i];
      }else if( strncmp(z, "--file=", 7)==0 ){
        zFile = z+7;
      }else{
        fail("sql: unknown option '%s'", z);
        fputs(zSqlHelp, stderr);
        return 2;
      }
    }else if( zSession==0 ){
      zSession = z;
    }else if( zArg==0 ){
      zArg = z;
    }else{
      fputs(zSqlHelp, stderr);
      return 2;
    }
  }
  if( zSession==0 ){
    fputs(zSqlHelp, stderr);
    return 2;
  }
  if( zFile && zArg ){
    fail("sql: give the SQL either as an argument or with -f, not both");
    return 2;
  }

  /* The SQL: argument, -f FILE, or standard input. */
  if( zArg && strcmp(zArg, "-")!=0 ){
    zSource = "the SQL argument";
    zSql = strdup(zArg);
  }else{
    if( zFile==0 || strcmp(zFile, "-")==0 ){
      zFile = "-";
      zSource = "standard input";
      if( isatty(0) ){
        fprintf(stderr, "tracestore: reading SQL from standard input "
                        "(end it with Ctrl-D)\n");
      }
    }else{
      zSource = zFile;
    }
    zSql = readAllText(zFile);
    if( zSql==0 ){
      fail("cannot read SQL from %s: %s", strcmp(zFile, "-")==0 ?
           "standard input" : zFile,
           errno==EINVAL ? "it holds a NUL byte" : strerror(errno));
      return 1;
    }
  }

  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ){
    fail("cannot open SQLite");
    free(zSql);
    return 1;
  }
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    fail("cannot load the tracestore extension: %s", zErr ? zErr : "");
    sqlite3_free(zErr);
    rc = 1;
    goto done;
  }
  if( sqlite3_prepare_v2(db, "SELECT tracestore_attach(?1)", -1, &pStmt,
                         0)!=SQLITE_OK ){
    fail("%s", sqlite3_errmsg(db));
    rc = 1;
    goto done;
  }
  sqlite3_bind_text(pStmt, 1, zSession, -1, SQLITE_STATIC);
  if( sqlite3_step(pStmt)!=SQLITE_ROW ){
    fail("%s", sqlite3_errmsg(db));
    sqlite3_finalize(pStmt);
    rc = 1;
    goto done;
  }
  sqlite3_finalize(pStmt);

  zTail = zSql;
  while( rc==0 && zTail && *zTail ){
    zStmt = zTail;
    pStmt = 0;
    if( sqlite3_prepare_v2(db, zStmt, -1, &pStmt, &zTail)!=SQLITE_OK ){
      sqlStatementError(zSource, zSql, zStmt, iStmt+1, sqlite3_errmsg(db));
      rc = 1;
      break;
    }
    if( pStmt==0 ){         /* only white space, a comment or ';' */
      if( zTail==zStmt ) break;
      continue;
    }
    iStmt++;
    if( runStatement(pStmt, eMode, &bTable)!=SQLITE_DONE ){
      fflush(stdout);
      sqlStatementError(zSource, zSql, zStmt, iStmt, sqlite3_errmsg(db));
      rc = 1;
    }
    sqlite3_finalize(pStmt);
  }
done:
  fflush(stdout);
  sqlite3_close(db);
  free(zSql);
  return rc;
}

/*
** kvmtrace-format
*/
static const char zKvmtraceFormatHelp[] =
"usage: tracestore kvmtrace-format FORMATS [-c MHZ] < BINARY\n"
"\n"
"Prints the kvmtrace binary record stream on stdin as text, one line per\n"
"record by the rules in FORMATS (lines `EVENT_ID FORMAT`, FORMAT a Python\n"
"%-format over tsc, event, reltsc, pid, vcpu and the data words 1..5), byte\n"
"for byte as the kvmtrace_format script of seeds/004 prints it: the rule\n"
"of the record's event id, or rule 0 for ids without one.  -c MHZ (an\n"
"integer) prints %(tsc) as seconds, tsc / (MHZ * 1e6).\n"
"\n"
"A record cut off by the end of the input is reported with its byte\n"
"offset and exit status 1, after every complete record is printed.\n";

#define KVMTRACE_WINDOW   (16u << 20)    /* mapped stdin fed per call */
#define KVMTRACE_CHUNK    (1u << 20)     /* read() size for a pipe */

static BOOL kvmtraceWrite(PVOID pCtx, PCSZ z, SIZE_T n){
  (void)pCtx;
  while( n>0 ){
    ssize_t w = write(1, z, n);
    if( w<0 ){
      if( errno==EINTR ) continue;
      return FALSE;
    }
    z += w;
    n -= (SIZE_T)w;
  }
  return TRUE;
}

/* Python's int(TEXT) for base 10: blanks around, a sign, digits with
** single underscores between them.  Fails outside the 64-bit range. */
static int parsePythonInt(const char *z, long long *pValue){
  unsigned long long v = 0;
  int neg = 0, nDigit = 0, bUnderscore = 0;
  while( *z==' ' || (*z>='\t' && *z<='\r') ) z++;
  if( *z=='+' || *z=='-' ) neg = (*z++=='-');
  for(; *z; z++){
    if( *z=='_' ){
      if( nDigit==0 || bUnderscore ) return 0;
      bUnderscore = 1;
      continue;
    }
    if( *z<'0' || *z>'9' ) break;
    if( v > (0x7fffffffffffffffULL - (unsigned)(*z-'0'))/10 ) return 0;
    v = v*10 + (unsigned)(*z-'0');
    nDigit++;
    bUnderscore = 0;
  }
  while( *z==' ' || (*z>='\t' && *z<='\r') ) z++;
  if( *z!=0 || nDigit==0 || bUnderscore ) return 0;
  *pValue = neg ? -(long long)v : (long long)v;
  return 1;
}

/* Reads a whole (small) file into memory. */
static char *readWholeFile(const char *zPath, size_t *pn){
  FILE *f = fopen(zPath, "rb");
  char *z = 0;
  size_t n = 0, nAlloc = 0;
  if( f==0 ) return 0;
  for(;;){
    size_t got;
    if( n==nAlloc ){
      char *zNew;
      nAlloc = nAlloc ? nAlloc*2 : 65536;
      zNew = realloc(z, nAlloc);
      if( zNew==0 ){ free(z); fclose(f); errno = ENOMEM; return 0; }
      z = zNew;
    }
    got = fread(z+n, 1, nAlloc-n, f);
    n += got;
    if( got==0 ) break;
  }
  if( ferror(f) ){ free(z); fclose(f); return 0; }
  fclose(f);
  *pn = n;
  return z;
}

/* Feeds stdin to the formatter: mapped when it is a regular file (in
** windows, unmapping what is behind), else read in chunks with the cut
** record carried over.  Memory stays constant either way. */
static RTL_STATUS kvmtraceFeedStdin(PKVMTRACE_FORMATTER pFmt){
  struct stat st;
  RTL_STATUS rc = RTL_STATUS_OK;
  SIZE_T nUsed;
  if( fstat(0, &st)==0 && S_ISREG(st.st_mode) && st.st_size>0 ){
    off_t iStart = lseek(0, 0, SEEK_CUR);
    size_t n = (size_t)st.st_size;
    const BYTE *p;
    size_t i;
    if( iStart<0 ) iStart = 0;
    if( (size_t)iStart>=n ){
      return KvmtraceFormatFeed(pFmt, (const BYTE*)"", 0, TRUE, &nUsed);
    }
    p = mmap(0, n, PROT_READ, MAP_PRIVATE, 0, 0);
    if( p!=MAP_FAILED ){
      madvise((void*)p, n, MADV_SEQUENTIAL);
      size_t iDiscarded = 0;
      for(i=(size_t)iStart; RTL_SUCCESS(rc); ){
        size_t nWin = n-i < KVMTRACE_WINDOW ? n-i : KVMTRACE_WINDOW;
        int bEnd = (i+nWin==n);
        rc = KvmtraceFormatFeed(pFmt, p+i, nWin, bEnd, &nUsed);
        i += nUsed;
        if( bEnd ) break;
        /* What was consumed is never read again. */
        Rtl.DiscardMemory(&Rtl, p+iDiscarded, i - iDiscarded);
        iDiscarded = i & ~(size_t)4095;
      }
      munmap((void*)p, n);
      return rc;
    }
  }
  {
    BYTE *buf = malloc(KVMTRACE_CHUNK);
    size_t nHave = 0;
    if( buf==0 ){ fail("out of memory"); return RTL_STATUS_NO_MEMORY; }
    for(;;){
      ssize_t got = read(0, buf+nHave, KVMTRACE_CHUNK-nHave);
      if( got<0 ){
        if( errno==EINTR ) continue;
        rc = RtlSetError(&pFmt->Error, RTL_STATUS_INVALID_PARAMETER, 0, ~0ULL,
                         "<stdin>: read error: %s", strerror(errno));
        break;
      }
      if( got==0 ){
        rc = KvmtraceFormatFeed(pFmt, buf, nHave, TRUE, &nUsed);
        break;
      }
      nHave += (size_t)got;
      rc = KvmtraceFormatFeed(pFmt, buf, nHave, FALSE, &nUsed);
      if( !RTL_SUCCESS(rc) ) break;
      memmove(buf, buf+nUsed, nHave-nUsed);
      nHave -= nUsed;
    }
    free(buf);
  }
  return rc;
}

static int cmdKvmtraceFormat(int argc, char **argv){
  const char *zFormats = 0, *zMhz = 0;
  long long iMhz = 0;
  char *zText;
  size_t nText = 0;
  KVMTRACE_RULES rules;
  KVMTRACE_FORMATTER fmt;
  RTL_ERROR err;
  RTL_STATUS rc;
  int i;

  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "--help")==0 || strcmp(argv[i], "-h")==0 ){
      fputs(zKvmtraceFormatHelp, stdout);
      return 0;
    }else if( strcmp(argv[i], "-c")==0 && i+1<argc ){
      zMhz = argv[++i];
    }else if( strncmp(argv[i], "-c", 2)==0 && argv[i][2]!=0 ){
      zMhz = argv[i]+2;
    }else if( argv[i][0]=='-' && argv[i][1]!=0 ){
      fail("kvmtrace-format: unknown option '%s'", argv[i]);
      fputs(zKvmtraceFormatHelp, stderr);
      return 2;
    }else if( zFormats==0 ){
      zFormats = argv[i];
    }else{
      fputs(zKvmtraceFormatHelp, stderr);
      return 2;
    }
  }
  if( zFormats==0 ){
    fputs(zKvmtraceFormatHelp, stderr);
    return 2;
  }
  if( zMhz && !parsePythonInt(zMhz, &iMhz) ){
    fail("kvmtrace-format: -c: '%s' is not an integer MHz rate", zMhz);
    return 2;
  }

  zText = readWholeFile(zFormats, &nText);
  if( zText==0 ){
    fail("%s: %s", zFormats, strerror(errno));
    return 1;
  }
  memset(&err, 0, sizeof(err));
  rc = KvmtraceRulesParse(&Rtl, zFormats, zText, nText, iMhz, &rules, &err);
  if( !RTL_SUCCESS(rc) ){
    fail("%s", err.Message);
    free(zText);
    return 1;
  }

  memset(&fmt, 0, sizeof(fmt));
  fmt.Rules = &rules;
  fmt.InputName = "<stdin>";
  fmt.Write = kvmtraceWrite;
  rc = KvmtraceFormatterInitialize(&fmt);
  if( RTL_SUCCESS(rc) ){
    kvmtraceFeedStdin(&fmt);
    rc = KvmtraceFormatterFinish(&fmt);
  }
  if( !RTL_SUCCESS(rc) ){
    fail("%s", fmt.Error.Message);
  }
  KvmtraceRulesFree(&rules);
  free(zText);
  return RTL_SUCCESS(rc) ? 0 : 1;
}

static const char zMainHelp[] =
"usage: tracestore COMMAND [ARGS]\n"
"\n"
"commands:\n"
"  import -o SESSION FILE...   decode traces into a session\n"
"  record [-e EVENT]... -o SESSION [-- COMMAND...]\n"
"                              record tracefs events live into a session\n"
"  info [--json] SESSION       list a session's stores\n"
"  sql [--csv|--json] SESSION \"SQL\"\n"
"                              query a session in SQL (or -f FILE, stdin)\n"
"  kvmtrace-format FORMATS [-c MHZ] < BINARY\n"
"                              print a kvmtrace stream as the seed's rules do\n"
"  schema [--markdown]         the SQL tables, views and functions (SCHEMA.md)\n"
"\n"
"`tracestore COMMAND --help` describes each command.  In sqlite3, the\n"
"same tables are available with .load tracestore and\n"
"SELECT tracestore_attach('SESSION').\n";

int main(int argc, char **argv){
  InitializeRtl(&Rtl);
  if( argc<2 ){
    fputs(zMainHelp, stderr);
    return 2;
  }
  if( strcmp(argv[1], "--help")==0 || strcmp(argv[1], "-h")==0
   || strcmp(argv[1], "help")==0 ){
    fputs(zMainHelp, stdout);
    return 0;
  }
  if( strcmp(argv[1], "import")==0 ) return cmdImport(argc-2, argv+2);
  if( strcmp(argv[1], "info")==0 ) return cmdInfo(argc-2, argv+2);
  if( strcmp(argv[1], "sql")==0 ) return cmdSql(argc-2, argv+2);
  if( strcmp(argv[1], "record")==0 ){
    startPrefaultWorker();
    return tracestoreRecord(&Rtl, argc-2, argv+2);
  }
  if( strcmp(argv[1], "schema")==0 ){
    return tracestoreSchemaCommand(argc-2, argv+2);
  }
  if( strcmp(argv[1], "kvmtrace-format")==0 ){
    return cmdKvmtraceFormat(argc-2, argv+2);
  }
  fail("unknown command '%s'", argv[1]);
  fputs(zMainHelp, stderr);
  return 2;
}
