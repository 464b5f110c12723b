/*
** CmdTop.c: `tracestore top`: a live terminal view of a session, from its
** rollups, like perf top and htop.
**
** Zone: hosted (Outputs/Top/, an output): libc, POSIX terminals
** (termios, poll, SIGWINCH), SQLite's API.  Owns the views top shows, their
** columns and rates, the terminal's raw mode and the frames.  Calls SQLite
** and the extension's public header (Sqlite3Ext/tracestore.h) only: every
** number on the screen is a row of one of the SQL views (span_self_time,
** page_fault_traffic, kvm_exit_reasons, syscall_counts, span_running,
** event_counts), which read the rollups; and HostUtil.c, HostPort.h.
**
** Each frame runs the views' SQL again (a few milliseconds at any size:
** the rollups are O(groups)), and a rate is the change of a count since
** the frame before, over the time between them, as top's %CPU is.
*/
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "Host/Host.h"
#include "Sqlite3Ext/tracestore.h"
#include "Outputs/Outputs.h"

static const char zTopHelp[] =
"usage: tracestore top [--interval S] [--view V] [--limit N] SESSION\n"
"       tracestore top --once [--json] [--limit N] SESSION\n"
"       tracestore top --batch [-n FRAMES] [--interval S] [--limit N] SESSION\n"
"\n"
"A live view of SESSION, which another process may be writing (record,\n"
"trace-python, import) or has written, refreshed every S seconds (1) from\n"
"its rollups, as perf top and htop are.  The views:\n"
"\n"
"  1 overview   events per store and name, and per second (event_counts)\n"
"  2 functions  where the time goes: self and total time per function, calls\n"
"               and calls per second, self time per second as %% of a CPU\n"
"               (span_self_time)\n"
"  3 faults     page faults per process and module, per second, hard/soft\n"
"               and code/data (page_fault_traffic)\n"
"  4 kvm        KVM exit reasons: exits per second, mean, p50, p99, max of\n"
"               the time in the host (kvm_exit_reasons)\n"
"  5 syscalls   system calls and calls per second (syscall_counts)\n"
"  6 running    what each thread is doing now: the calls still running\n"
"               (span_running)\n"
"\n"
"The header shows each store's records and records per second, and the\n"
"events the source lost (dropped).  Keys: 1-6 or Tab switch the view, s\n"
"sorts by the next column, r reverses it, + and - change the interval, q\n"
"or Ctrl-C quits.  The screen is redrawn in place and fits the terminal\n"
"(80x24 and up; over ssh too).\n"
"\n"
"  --interval S  seconds between frames (0.1 and up; default 1)\n"
"  --view V      the first view: overview, functions, faults, kvm,\n"
"                syscalls, running (or 1-6)\n"
"  --limit N     rows per view (default: what fits; --once: all)\n"
"  --once        print every view once as plain text and exit: the rows\n"
"                of the SQL views; no rates (they need two frames)\n"
"  --json        with --once: the views as one JSON object\n"
"  --batch       print frames as plain text (every view, --limit rows\n"
"                each, default 10) every interval, as top -b does; also\n"
"                when standard output is not a terminal\n"
"  -n FRAMES     with --batch: stop after FRAMES frames\n";

/* What a column shows. */
#define TOP_TEXT      0     /* text */
#define TOP_BASENAME  1     /* text: the part after the last '/' */
#define TOP_INT       2     /* an integer as it is */
#define TOP_MS        3     /* ns, shown in ms */
#define TOP_US        4     /* ns, shown in us */
#define TOP_RATE      5     /* the change of column iSrc per second */
#define TOP_CPU       6     /* the change of ns column iSrc per second, as
                            ** % of one CPU */
#define TOP_INDENT    7     /* text indented by column iAux's value */

typedef struct TopColumn TopColumn;
struct TopColumn {
  const char *zHead;
  int eKind;                /* TOP_* */
  int iSrc;                 /* column of the view's query */
  int nWidth;               /* width; 0: the text column that takes the rest */
  int iAux;                 /* TOP_INDENT: the depth column */
};

#define TOP_MAX_COLUMNS 10
#define TOP_MAX_QUERY   10

typedef struct TopView TopView;
struct TopView {
  const char *zName;
  const char *zTitle;
  const char *zView;        /* the SQL view it needs */
  const char *zSql;
  int nKey;                 /* leading query columns naming a row */
  int iSortRate;            /* default sort column with rates, and without */
  int iSort;
  int nCol;
  TopColumn aCol[TOP_MAX_COLUMNS];
};

static const TopView aTopView[] = {
  { "overview", "Events per store and name", "event_counts",
    "SELECT store, name, count FROM event_counts",
    2, 0, 1, 4, {
      { "EVENTS/S", TOP_RATE, 2, 10, 0 },
      { "COUNT", TOP_INT, 2, 12, 0 },
      { "STORE", TOP_TEXT, 0, 13, 0 },
      { "NAME", TOP_TEXT, 1, 0, 0 } } },
  { "functions", "Functions by self time", "span_self_time",
    "SELECT name, calls, self_dur, total_dur, avg_dur FROM span_self_time",
    1, 0, 1, 7, {
      { "SELF%", TOP_CPU, 2, 6, 0 },
      { "SELF ms", TOP_MS, 2, 11, 0 },
      { "TOTAL ms", TOP_MS, 3, 11, 0 },
      { "CALLS", TOP_INT, 1, 10, 0 },
      { "CALLS/S", TOP_RATE, 1, 9, 0 },
      { "AVG us", TOP_US, 4, 9, 0 },
      { "NAME", TOP_TEXT, 0, 0, 0 } } },
  { "faults", "Page faults per process and module", "page_fault_traffic",
    "SELECT pid, comm, module, faults, hard, soft, hard_code, hard_data "
    "FROM page_fault_traffic",
    3, 0, 1, 9, {
      { "FAULTS/S", TOP_RATE, 3, 9, 0 },
      { "FAULTS", TOP_INT, 3, 9, 0 },
      { "HARD", TOP_INT, 4, 7, 0 },
      { "SOFT", TOP_INT, 5, 8, 0 },
      { "H.CODE", TOP_INT, 6, 7, 0 },
      { "H.DATA", TOP_INT, 7, 7, 0 },
      { "PID", TOP_INT, 0, 7, 0 },
      { "COMM", TOP_TEXT, 1, 15, 0 },
      { "MODULE", TOP_BASENAME, 2, 0, 0 } } },
  { "kvm", "KVM exit reasons", "kvm_exit_reasons",
    "SELECT reason, exit_code, count, avg_dur, p50_dur, p99_dur, max_dur "
    "FROM kvm_exit_reasons",
    2, 0, 1, 8, {
      { "EXITS/S", TOP_RATE, 2, 9, 0 },
      { "COUNT", TOP_INT, 2, 10, 0 },
      { "AVG us", TOP_US, 3, 9, 0 },
      { "P50 us", TOP_US, 4, 9, 0 },
      { "P99 us", TOP_US, 5, 9, 0 },
      { "MAX us", TOP_US, 6, 10, 0 },
      { "CODE", TOP_INT, 1, 5, 0 },
      { "REASON", TOP_TEXT, 0, 0, 0 } } },
  { "syscalls", "System calls", "syscall_counts",
    "SELECT name, id, count FROM syscall_counts",
    2, 0, 1, 4, {
      { "CALLS/S", TOP_RATE, 2, 10, 0 },
      { "COUNT", TOP_INT, 2, 12, 0 },
      { "NR", TOP_INT, 1, 6, 0 },
      { "NAME", TOP_TEXT, 0, 0, 0 } } },
  { "running", "Calls running now", "span_running",
    "SELECT pid, tid, depth, dur, name, id FROM span_running "
    "ORDER BY pid, tid, depth",
    6, -1, -1, 5, {
      { "PID", TOP_INT, 0, 8, 0 },
      { "TID", TOP_INT, 1, 8, 0 },
      { "DEPTH", TOP_INT, 2, 6, 0 },
      { "FOR ms", TOP_MS, 3, 12, 0 },
      { "CALL", TOP_INDENT, 4, 0, 2 } } },
};

#define TOP_N_VIEW ((int)(sizeof(aTopView)/sizeof(aTopView[0])))

/* One row of a view's query: its values as text (NULL: SQL NULL) and,
** where they are numbers, as doubles. */
typedef struct TopRow TopRow;
struct TopRow {
  char *zKey;                       /* the key columns joined by '\t' */
  char *az[TOP_MAX_QUERY];
  double ar[TOP_MAX_QUERY];
  int abNum[TOP_MAX_QUERY];
  double arRate[TOP_MAX_COLUMNS];   /* per display column, or NAN */
};

typedef struct TopRows TopRows;
struct TopRows {
  int nRow;
  int nAlloc;
  TopRow *aRow;
  double rTime;                     /* when it was read (monotonic s) */
  int bOk;                          /* the view exists and was read */
  int bRates;                       /* arRate holds rates (a frame before) */
  char *zError;
};

/* The state of a run. */
typedef struct Top Top;
struct Top {
  sqlite3 *db;
  const char *zSession;
  double rInterval;
  int iView;
  int nLimit;
  int iSort[TOP_N_VIEW];            /* display column, -1: the default */
  int bReverse[TOP_N_VIEW];
  int abHave[TOP_N_VIEW];           /* the session has the view */
  TopRows aPrev[TOP_N_VIEW];        /* the last frame's rows */
  TopRows stores, prevStores;       /* store_info */
  int nWidth, nHeight;
};

static volatile sig_atomic_t topQuit = 0;
static volatile sig_atomic_t topResized = 0;

static void topOnSignal(int sig){
  if( sig==SIGWINCH ) topResized = 1; else topQuit = 1;
}

/* -------------------------------------------------------------------------
** Reading the views.
*/

static void topRowsFree(TopRows *p){
  int i, k;
  for(i=0; i<p->nRow; i++){
    free(p->aRow[i].zKey);
    for(k=0; k<TOP_MAX_QUERY; k++) free(p->aRow[i].az[k]);
  }
  free(p->aRow);
  free(p->zError);
  memset(p, 0, sizeof(*p));
}

static char *topDup(const char *z){
  char *p;
  size_t n;
  if( z==0 ) return 0;
  n = strlen(z);
  p = malloc(n+1);
  if( p==0 ){ hostFail("out of memory"); exit(1); }
  memcpy(p, z, n+1);
  return p;
}

/* Runs zSql into p (nKey leading columns make the key). */
static void topQuery(Top *pTop, const char *zSql, int nKey, TopRows *p){
  sqlite3_stmt *pStmt = 0;
  int rc, k, nCol;
  memset(p, 0, sizeof(*p));
  p->rTime = hostNowSeconds();
  if( sqlite3_prepare_v2(pTop->db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    p->zError = topDup(sqlite3_errmsg(pTop->db));
    return;
  }
  nCol = sqlite3_column_count(pStmt);
  if( nCol>TOP_MAX_QUERY ) nCol = TOP_MAX_QUERY;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    TopRow *r;
    size_t nKeyLen = 0;
    if( p->nRow==p->nAlloc ){
      int nNew = p->nAlloc ? p->nAlloc*2 : 64;
      TopRow *aNew = realloc(p->aRow, sizeof(TopRow)*(size_t)nNew);
      if( aNew==0 ){ hostFail("out of memory"); exit(1); }
      p->aRow = aNew;
      p->nAlloc = nNew;
    }
    r = &p->aRow[p->nRow++];
    memset(r, 0, sizeof(*r));
    for(k=0; k<nCol; k++){
      int t = sqlite3_column_type(pStmt, k);
      r->az[k] = topDup((const char*)sqlite3_column_text(pStmt, k));
      r->abNum[k] = t==SQLITE_INTEGER || t==SQLITE_FLOAT;
      r->ar[k] = sqlite3_column_double(pStmt, k);
      if( k<nKey ) nKeyLen += (r->az[k] ? strlen(r->az[k]) : 4) + 1;
    }
    r->zKey = malloc(nKeyLen + 1);
    if( r->zKey==0 ){ hostFail("out of memory"); exit(1); }
    r->zKey[0] = 0;
    for(k=0; k<nKey && k<nCol; k++){
      strcat(r->zKey, r->az[k] ? r->az[k] : "\1NUL");
      strcat(r->zKey, "\t");
    }
    for(k=0; k<TOP_MAX_COLUMNS; k++) r->arRate[k] = NAN;
  }
  if( rc!=SQLITE_DONE ){
    p->zError = topDup(sqlite3_errmsg(pTop->db));
  }else{
    p->bOk = 1;
  }
  sqlite3_finalize(pStmt);
}

static int topKeyCmp(const void *a, const void *b){
  return strcmp(((const TopRow*)a)->zKey, ((const TopRow*)b)->zKey);
}

/* The rates of p's rows against the same rows of pPrev. */
static void topRates(const TopView *pView, TopRows *p, TopRows *pPrev){
  double dt = p->rTime - pPrev->rTime;
  int i, c;
  if( !pPrev->bOk || dt<=0 ) return;
  p->bRates = 1;
  if( pPrev->nRow>1 ){
    qsort(pPrev->aRow, (size_t)pPrev->nRow, sizeof(TopRow), topKeyCmp);
  }
  for(i=0; i<p->nRow; i++){
    TopRow *r = &p->aRow[i];
    TopRow *q = pPrev->nRow==0 ? 0 :
                bsearch(r, pPrev->aRow, (size_t)pPrev->nRow, sizeof(TopRow),
                        topKeyCmp);
    for(c=0; c<pView->nCol; c++){
      const TopColumn *pCol = &pView->aCol[c];
      double before;
      if( pCol->eKind!=TOP_RATE && pCol->eKind!=TOP_CPU ) continue;
      before = q && q->abNum[pCol->iSrc] ? q->ar[pCol->iSrc] : 0.0;
      r->arRate[c] = (r->ar[pCol->iSrc] - before) / dt;
      if( pCol->eKind==TOP_CPU ) r->arRate[c] *= 100.0 / 1e9;
    }
  }
}

/* Sorting by display column iSortCol (numbers: largest first). */
static const TopView *topSortView;
static int topSortCol;
static int topSortReverse;

static double topSortValue(const TopRow *r, int c){
  const TopColumn *pCol = &topSortView->aCol[c];
  if( pCol->eKind==TOP_RATE || pCol->eKind==TOP_CPU ){
    return isnan(r->arRate[c]) ? -INFINITY : r->arRate[c];
  }
  return r->abNum[pCol->iSrc] ? r->ar[pCol->iSrc] : -INFINITY;
}

static int topSortCmp(const void *a, const void *b){
  const TopRow *x = (const TopRow*)a, *y = (const TopRow*)b;
  const TopColumn *pCol = &topSortView->aCol[topSortCol];
  int rc;
  if( pCol->eKind==TOP_TEXT || pCol->eKind==TOP_BASENAME
   || pCol->eKind==TOP_INDENT ){
    const char *zx = x->az[pCol->iSrc] ? x->az[pCol->iSrc] : "";
    const char *zy = y->az[pCol->iSrc] ? y->az[pCol->iSrc] : "";
    rc = strcmp(zx, zy);
  }else{
    double vx = topSortValue(x, topSortCol), vy = topSortValue(y, topSortCol);
    rc = vx<vy ? 1 : vx>vy ? -1 : 0;
  }
  if( rc==0 ) rc = strcmp(x->zKey, y->zKey);
  return topSortReverse ? -rc : rc;
}

/* The display column p's rows are sorted by, or -1 for the view's order. */
static int topSortColumn(const Top *pTop, int iView, int bRates){
  const TopView *pView = &aTopView[iView];
  if( pTop->iSort[iView]>=0 ) return pTop->iSort[iView];
  return bRates ? pView->iSortRate : pView->iSort;
}

static void topSort(const Top *pTop, int iView, TopRows *p, int bRates){
  int c = topSortColumn(pTop, iView, bRates);
  if( c<0 && !pTop->bReverse[iView] ) return;
  topSortView = &aTopView[iView];
  topSortCol = c<0 ? 0 : c;
  topSortReverse = pTop->bReverse[iView];
  if( c<0 || p->nRow<2 ) return;
  qsort(p->aRow, (size_t)p->nRow, sizeof(TopRow), topSortCmp);
}

/* -------------------------------------------------------------------------
** Formatting.
*/

/* The value of display column c of row r, into z (n bytes). */
static void topCell(const TopView *pView, const TopRow *r, int c,
                    char *z, size_t n){
  const TopColumn *pCol = &pView->aCol[c];
  const char *zv = r->az[pCol->iSrc];
  double v = r->ar[pCol->iSrc];
  switch( pCol->eKind ){
    case TOP_TEXT:
      snprintf(z, n, "%s", zv ? zv : "NULL");
      break;
    case TOP_BASENAME: {
      const char *zSlash = zv ? strrchr(zv, '/') : 0;
      snprintf(z, n, "%s", zv==0 ? "NULL" : zSlash && zSlash[1] ? zSlash+1 :
               zv);
      break;
    }
    case TOP_INDENT: {
      int d = r->abNum[pCol->iAux] ? (int)r->ar[pCol->iAux] : 0;
      if( d>20 ) d = 20;
      snprintf(z, n, "%*s%s", 2*d, "", zv ? zv : "NULL");
      break;
    }
    case TOP_INT:
      snprintf(z, n, "%s", zv ? zv : "-");
      break;
    case TOP_MS:
      if( r->abNum[pCol->iSrc] ) snprintf(z, n, "%.3f", v/1e6);
      else snprintf(z, n, "-");
      break;
    case TOP_US:
      if( r->abNum[pCol->iSrc] ) snprintf(z, n, "%.3f", v/1e3);
      else snprintf(z, n, "-");
      break;
    case TOP_RATE:
    case TOP_CPU:
      if( isnan(r->arRate[c]) ) snprintf(z, n, "-");
      else snprintf(z, n, r->arRate[c]>=100 || r->arRate[c]<=-100 ?
                    "%.0f" : "%.1f", r->arRate[c]);
      break;
  }
}

/*
** A cell that does not fit its column's width: a number as fits (%g with
** fewer digits: 9e+18), text cut to the width.  The columns stay where
** the header puts them.
*/
static void topFit(const TopColumn *pCol, const TopRow *r, char *z,
                   size_t n){
  int w = pCol->nWidth, p;
  if( w<=0 || (int)strlen(z)<=w ) return;
  if( pCol->eKind!=TOP_TEXT && pCol->eKind!=TOP_BASENAME
   && r->abNum[pCol->iSrc] ){
    double v = pCol->eKind==TOP_MS ? r->ar[pCol->iSrc]/1e6 :
               pCol->eKind==TOP_US ? r->ar[pCol->iSrc]/1e3 :
               r->ar[pCol->iSrc];
    for(p=w; p>=1; p--){
      snprintf(z, n, "%.*g", p, v);
      if( (int)strlen(z)<=w ) return;
    }
  }
  z[w] = 0;
}

/* A line of at most nWidth columns into a growing buffer. */
typedef struct TopOut TopOut;
struct TopOut {
  char *z;
  size_t n, nAlloc;
};

static void topPut(TopOut *p, const char *z, size_t n){
  if( p->n + n + 1 > p->nAlloc ){
    size_t nNew = (p->n + n + 1)*2 + 1024;
    char *zNew = realloc(p->z, nNew);
    if( zNew==0 ){ hostFail("out of memory"); exit(1); }
    p->z = zNew;
    p->nAlloc = nNew;
  }
  memcpy(p->z + p->n, z, n);
  p->n += n;
  p->z[p->n] = 0;
}

/* Appends z cut to nWidth display columns (bytes of UTF-8 sequences past
** the first count as nothing), then the line's end. */
static void topLine(TopOut *p, const char *z, int nWidth, int bTerm){
  int nCols = 0;
  size_t i;
  for(i=0; z[i]; i++){
    if( (z[i] & 0xc0)!=0x80 ){
      if( nWidth>0 && nCols>=nWidth ) break;
      nCols++;
    }
  }
  topPut(p, z, i);
  if( bTerm ) topPut(p, "\033[K", 3);
  topPut(p, "\n", 1);
}

/* The header and rows of a view, nRows at most (0: all). */
static void topTable(TopOut *pOut, const Top *pTop, int iView,
                     TopRows *pRows, int nRows, int nWidth, int bTerm,
                     int bRates){
  const TopView *pView = &aTopView[iView];
  char zLine[4096], zCell[1024];
  int i, c, iSort = topSortColumn(pTop, iView, bRates);
  size_t n = 0;
  for(c=0; c<pView->nCol; c++){
    const TopColumn *pCol = &pView->aCol[c];
    char zHead[64];
    snprintf(zHead, sizeof(zHead), "%s%s", pCol->zHead,
             c==iSort ? (pTop->bReverse[iView] ? "^" : "v") : "");
    if( pCol->nWidth ){
      n += (size_t)snprintf(zLine+n, sizeof(zLine)-n, "%*s ", pCol->nWidth,
                            zHead);
    }else{
      n += (size_t)snprintf(zLine+n, sizeof(zLine)-n, "%s", zHead);
    }
    if( n>=sizeof(zLine) ) n = sizeof(zLine)-1;
  }
  if( bTerm ) topPut(pOut, "\033[7m", 4);
  if( bTerm ){
    /* The header bar spans the width. */
    while( (int)n<nWidth && n<sizeof(zLine)-1 ) zLine[n++] = ' ';
    zLine[n] = 0;
  }
  topLine(pOut, zLine, nWidth, 0);
  if( bTerm ){
    pOut->n--;
    topPut(pOut, "\033[0m\033[K\n", 8);
  }
  for(i=0; i<pRows->nRow && (nRows<=0 || i<nRows); i++){
    n = 0;
    for(c=0; c<pView->nCol; c++){
      const TopColumn *pCol = &pView->aCol[c];
      topCell(pView, &pRows->aRow[i], c, zCell, sizeof(zCell));
      topFit(pCol, &pRows->aRow[i], zCell, sizeof(zCell));
      if( pCol->nWidth ){
        n += (size_t)snprintf(zLine+n, sizeof(zLine)-n, "%*s ",
                              pCol->nWidth, zCell);
      }else{
        n += (size_t)snprintf(zLine+n, sizeof(zLine)-n, "%s", zCell);
      }
      if( n>=sizeof(zLine) ) n = sizeof(zLine)-1;
    }
    topLine(pOut, zLine, nWidth, bTerm);
  }
}

static void topHumanCount(char *z, size_t n, double v){
  if( v>=1e9 ) snprintf(z, n, "%.2fG", v/1e9);
  else if( v>=1e6 ) snprintf(z, n, "%.2fM", v/1e6);
  else if( v>=1e4 ) snprintf(z, n, "%.1fk", v/1e3);
  else snprintf(z, n, "%.0f", v);
}

/* The header: session, writer, time; each event store's records, rate and
** the events it dropped. */
static void topHeader(TopOut *pOut, Top *pTop, int nWidth, int bTerm,
                      double dt){
  char zLine[4096], zRest[128], zNum[32], zRate[32];
  time_t now = time(0);
  struct tm tm;
  size_t n;
  int i, j;
  const char *zSession = pTop->zSession;
  size_t nSession = strlen(zSession), nHead = sizeof("tracestore top - ")-1;
  localtime_r(&now, &tm);
  /* What follows the session's name comes first, so that a long path gives
  ** way to the writer's state: the path loses its head ("...top-tmux/t"),
  ** the line keeps its tail. */
  n = (size_t)snprintf(zRest, sizeof(zRest), " - writer %s - %02d:%02d:%02d"
                       " - every %.1f s",
                       hostWriterRuns(zSession) ? "running" : "done",
                       tm.tm_hour, tm.tm_min, tm.tm_sec, pTop->rInterval);
  if( nWidth>0 && nHead+nSession+n>(size_t)nWidth
   && (size_t)nWidth>=nHead+3+8+n ){
    zSession += nSession - ((size_t)nWidth - nHead - 3 - n);
    while( (*zSession & 0xc0)==0x80 ) zSession++;   /* a whole character */
    snprintf(zLine, sizeof(zLine), "tracestore top - ...%s%s", zSession,
             zRest);
  }else{
    snprintf(zLine, sizeof(zLine), "tracestore top - %s%s", zSession, zRest);
  }
  topLine(pOut, zLine, nWidth, bTerm);
  n = 0;
  for(i=0; i<pTop->stores.nRow; i++){
    TopRow *r = &pTop->stores.aRow[i];
    double rate = NAN;
    if( r->ar[1]<=0 ) continue;
    for(j=0; dt>0 && j<pTop->prevStores.nRow; j++){
      if( strcmp(pTop->prevStores.aRow[j].az[0], r->az[0])==0 ){
        rate = (r->ar[1] - pTop->prevStores.aRow[j].ar[1]) / dt;
      }
    }
    topHumanCount(zNum, sizeof(zNum), r->ar[1]);
    zRate[0] = 0;
    if( !isnan(rate) ){
      topHumanCount(zRate+2, sizeof(zRate)-3, rate);
      zRate[0] = ' ';
      zRate[1] = '+';
      strcat(zRate, "/s");
    }
    n += (size_t)snprintf(zLine+n, sizeof(zLine)-n, "%s%s %s%s%s",
                          n ? ", " : "", r->az[0], zNum, zRate,
                          r->ar[2]>0 ? " (dropped " : "");
    if( n>=sizeof(zLine) ) n = sizeof(zLine)-1;
    if( r->ar[2]>0 ){
      n += (size_t)snprintf(zLine+n, sizeof(zLine)-n, "%s)", r->az[2]);
      if( n>=sizeof(zLine) ) n = sizeof(zLine)-1;
    }
  }
  if( n==0 ) snprintf(zLine, sizeof(zLine), "no events yet");
  topLine(pOut, zLine, nWidth, bTerm);
}

/* -------------------------------------------------------------------------
** Frames.
*/

static const char *zTopStores =
  "SELECT name, records, dropped FROM store_info WHERE name IN "
  "('ftrace_event', 'page_fault', 'kvm_exit', 'sched_switch', 'span', "
  "'counter') ORDER BY name";

/* Reads every view top shows in this frame (bAll) or the current one. */
static void topRead(Top *pTop, int bAll, TopRows *aNow){
  int v;
  topRowsFree(&pTop->prevStores);
  pTop->prevStores = pTop->stores;
  topQuery(pTop, zTopStores, 1, &pTop->stores);
  for(v=0; v<TOP_N_VIEW; v++){
    memset(&aNow[v], 0, sizeof(aNow[v]));
    if( !pTop->abHave[v] || (!bAll && v!=pTop->iView) ) continue;
    topQuery(pTop, aTopView[v].zSql, aTopView[v].nKey, &aNow[v]);
    topRates(&aTopView[v], &aNow[v], &pTop->aPrev[v]);
  }
}

/* Keeps this frame's rows for the next frame's rates. */
static void topKeep(Top *pTop, TopRows *aNow){
  int v;
  for(v=0; v<TOP_N_VIEW; v++){
    if( aNow[v].bOk ){
      topRowsFree(&pTop->aPrev[v]);
      pTop->aPrev[v] = aNow[v];
    }else{
      topRowsFree(&aNow[v]);
    }
  }
}

/* One view's section: its title, then its table or why there is none. */
static void topSection(TopOut *pOut, Top *pTop, int v, TopRows *pRows,
                       int nRows, int nWidth, int bTerm){
  char zLine[512];
  int bRates = pRows->bRates;
  if( !pTop->abHave[v] ){
    snprintf(zLine, sizeof(zLine), "%d %s: the session has no %s", v+1,
             aTopView[v].zName, aTopView[v].zView);
    topLine(pOut, zLine, nWidth, bTerm);
    return;
  }
  if( !pRows->bOk ){
    snprintf(zLine, sizeof(zLine), "%d %s: %s", v+1, aTopView[v].zName,
             pRows->zError ? pRows->zError : "cannot be read");
    topLine(pOut, zLine, nWidth, bTerm);
    return;
  }
  snprintf(zLine, sizeof(zLine), "%d %s: %s (%s), %d rows", v+1,
           aTopView[v].zName, aTopView[v].zTitle, aTopView[v].zView,
           pRows->nRow);
  topLine(pOut, zLine, nWidth, bTerm);
  topSort(pTop, v, pRows, bRates);
  topTable(pOut, pTop, v, pRows, nRows, nWidth, bTerm, bRates);
}

/* The interactive screen: header, view bar, the current view to fit. */
static void topScreen(Top *pTop, TopRows *aNow, double dt){
  TopOut out;
  char zBar[512];
  size_t n = 0;
  int v, nRows;
  memset(&out, 0, sizeof(out));
  topPut(&out, "\033[H", 3);
  topHeader(&out, pTop, pTop->nWidth, 1, dt);
  for(v=0; v<TOP_N_VIEW; v++){
    n += (size_t)snprintf(zBar+n, sizeof(zBar)-n, "%s%d %s%s ",
                          v==pTop->iView ? "[" : " ", v+1, aTopView[v].zName,
                          v==pTop->iView ? "]" : " ");
    if( n>=sizeof(zBar) ) n = sizeof(zBar)-1;
  }
  topLine(&out, zBar, pTop->nWidth, 1);
  nRows = pTop->nHeight - 6;
  if( pTop->nLimit>0 && pTop->nLimit<nRows ) nRows = pTop->nLimit;
  if( nRows<1 ) nRows = 1;
  topSection(&out, pTop, pTop->iView, &aNow[pTop->iView], nRows,
             pTop->nWidth, 1);
  topPut(&out, "\033[J", 3);
  /* The keys, on the last line. */
  snprintf(zBar, sizeof(zBar), "\033[%d;1H\033[7m1-6/Tab view  s sort  r "
           "reverse  +/- interval  q quit\033[0m\033[K", pTop->nHeight);
  topPut(&out, zBar, strlen(zBar));
  fwrite(out.z, 1, out.n, stdout);
  fflush(stdout);
  free(out.z);
}

/* Plain text: every view, nRows each (0: all). */
static void topPlain(Top *pTop, TopRows *aNow, int nRows, double dt){
  TopOut out;
  int v;
  memset(&out, 0, sizeof(out));
  topHeader(&out, pTop, 0, 0, dt);
  for(v=0; v<TOP_N_VIEW; v++){
    topPut(&out, "\n", 1);
    topSection(&out, pTop, v, &aNow[v], nRows, 0, 0);
  }
  fwrite(out.z, 1, out.n, stdout);
  fflush(stdout);
  free(out.z);
}

/* --once --json: every view's rows, as the SQL views give them. */
static int topJson(Top *pTop){
  int v, i, k, rc = 0;
  printf("{\"session\": ");
  hostJsonString(pTop->zSession);
  printf(", \"views\": {");
  for(v=0; v<TOP_N_VIEW; v++){
    sqlite3_stmt *pStmt = 0;
    char *zSql;
    if( !pTop->abHave[v] ) continue;
    zSql = sqlite3_mprintf("SELECT * FROM %s", aTopView[v].zView);
    if( zSql==0 || sqlite3_prepare_v2(pTop->db, zSql, -1, &pStmt, 0) ){
      hostFail("top: %s", sqlite3_errmsg(pTop->db));
      sqlite3_free(zSql);
      return 1;
    }
    sqlite3_free(zSql);
    printf("%s\n  \"%s\": [", v ? "," : "", aTopView[v].zView);
    for(i=0; sqlite3_step(pStmt)==SQLITE_ROW; i++){
      if( pTop->nLimit>0 && i>=pTop->nLimit ) continue;
      printf("%s\n    {", i ? "," : "");
      for(k=0; k<sqlite3_column_count(pStmt); k++){
        printf("%s\"%s\": ", k ? ", " : "", sqlite3_column_name(pStmt, k));
        switch( sqlite3_column_type(pStmt, k) ){
          case SQLITE_NULL: printf("null"); break;
          case SQLITE_INTEGER:
            printf("%lld", (long long)sqlite3_column_int64(pStmt, k));
            break;
          case SQLITE_FLOAT: {
            double r = sqlite3_column_double(pStmt, k);
            if( isfinite(r) ) printf("%.17g", r); else printf("null");
            break;
          }
          default:
            hostJsonText(sqlite3_column_text(pStmt, k),
                        sqlite3_column_bytes(pStmt, k));
        }
      }
      printf("}");
    }
    if( sqlite3_finalize(pStmt)!=SQLITE_OK ){
      fflush(stdout);
      hostFail("top: %s: %s", aTopView[v].zView, sqlite3_errmsg(pTop->db));
      rc = 1;
    }
    printf("\n  ]");
  }
  printf("\n}}\n");
  return rc;
}

/* -------------------------------------------------------------------------
** The terminal.
*/

static struct termios topSaved;
static int topRaw = 0;

static void topRestore(void){
  if( !topRaw ) return;
  tcsetattr(STDIN_FILENO, TCSAFLUSH, &topSaved);
  fputs("\033[?25h\033[?1049l", stdout);
  fflush(stdout);
  topRaw = 0;
}

static int topEnterRaw(void){
  struct termios t;
  if( tcgetattr(STDIN_FILENO, &topSaved)!=0 ) return 0;
  t = topSaved;
  t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  if( tcsetattr(STDIN_FILENO, TCSAFLUSH, &t)!=0 ) return 0;
  topRaw = 1;
  atexit(topRestore);
  fputs("\033[?1049h\033[?25l\033[2J", stdout);
  fflush(stdout);
  return 1;
}

static void topSize(Top *pTop){
  struct winsize ws;
  pTop->nWidth = 80;
  pTop->nHeight = 24;
  if( ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)==0 && ws.ws_col>0
   && ws.ws_row>0 ){
    pTop->nWidth = ws.ws_col;
    pTop->nHeight = ws.ws_row;
  }
}

/* Waits up to rSeconds for a key; handles it.  1 to redraw now. */
static int topKeys(Top *pTop, double rSeconds){
  struct pollfd pfd;
  char z[16];
  int i, n, nMs = (int)(rSeconds*1000);
  pfd.fd = STDIN_FILENO;
  pfd.events = POLLIN;
  if( nMs<0 ) nMs = 0;
  if( poll(&pfd, 1, nMs)<=0 ) return 0;
  n = (int)read(STDIN_FILENO, z, sizeof(z));
  for(i=0; i<n; i++){
    int v = pTop->iView;
    switch( z[i] ){
      case 'q': case 'Q': case 3: topQuit = 1; break;
      case '\t': pTop->iView = (pTop->iView + 1) % TOP_N_VIEW; break;
      case 's': {
        int c = topSortColumn(pTop, v, pTop->aPrev[v].bRates);
        pTop->iSort[v] = (c + 1) % aTopView[v].nCol;
        break;
      }
      case 'r': pTop->bReverse[v] = !pTop->bReverse[v]; break;
      case '+': pTop->rInterval *= 2; if( pTop->rInterval>60 ) pTop->rInterval = 60; break;
      case '-': pTop->rInterval /= 2; if( pTop->rInterval<0.1 ) pTop->rInterval = 0.1; break;
      default:
        if( z[i]>='1' && z[i]<='0'+TOP_N_VIEW ) pTop->iView = z[i]-'1';
        break;
    }
  }
  return 1;
}

/* -------------------------------------------------------------------------
** The command.
*/

static int topViewIndex(const char *z){
  int v;
  for(v=0; v<TOP_N_VIEW; v++){
    if( strcmp(z, aTopView[v].zName)==0 ) return v;
  }
  if( z[0]>='1' && z[0]<='0'+TOP_N_VIEW && z[1]==0 ) return z[0]-'1';
  return -1;
}

static int topOpen(Top *pTop){
  int v;
  pTop->db = hostOpenSql(pTop->zSession);
  if( pTop->db==0 ) return 1;
  for(v=0; v<TOP_N_VIEW; v++){
    sqlite3_stmt *p = 0;
    if( sqlite3_prepare_v2(pTop->db, "SELECT 1 FROM sqlite_temp_master "
                           "WHERE type = 'view' AND name = ?1", -1, &p,
                           0)==SQLITE_OK ){
      sqlite3_bind_text(p, 1, aTopView[v].zView, -1, SQLITE_STATIC);
      pTop->abHave[v] = sqlite3_step(p)==SQLITE_ROW;
    }
    sqlite3_finalize(p);
    pTop->iSort[v] = -1;
  }
  return 0;
}

int cmdTop(int argc, char **argv){
  Top top;
  TopRows aNow[TOP_N_VIEW];
  int bOnce = 0, bJson = 0, bBatch = 0, nFrames = -1, i, rc = 0, v;
  double tLast = 0;
  struct sigaction sa;

  memset(&top, 0, sizeof(top));
  top.rInterval = 1.0;
  top.nLimit = -1;
  for(i=0; i<argc; i++){
    const char *z = argv[i];
    if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
      fputs(zTopHelp, stdout);
      return 0;
    }else if( strcmp(z, "--once")==0 ){
      bOnce = 1;
    }else if( strcmp(z, "--json")==0 ){
      bJson = 1;
    }else if( strcmp(z, "--batch")==0 || strcmp(z, "-b")==0 ){
      bBatch = 1;
    }else if( (strcmp(z, "--interval")==0 || strcmp(z, "-d")==0)
           && i+1<argc ){
      char *zEnd;
      top.rInterval = strtod(argv[++i], &zEnd);
      if( *zEnd || !(top.rInterval>=0.1) || top.rInterval>3600 ){
        hostFail("top: --interval takes seconds from 0.1 to 3600, not '%s'",
                argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--view")==0 && i+1<argc ){
      top.iView = topViewIndex(argv[++i]);
      if( top.iView<0 ){
        hostFail("top: no view '%s' (overview, functions, faults, kvm, "
                "syscalls, running)", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--limit")==0 && i+1<argc ){
      char *zEnd;
      top.nLimit = (int)strtol(argv[++i], &zEnd, 10);
      if( *zEnd || top.nLimit<0 ){
        hostFail("top: --limit takes a row count, not '%s'", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "-n")==0 && i+1<argc ){
      char *zEnd;
      nFrames = (int)strtol(argv[++i], &zEnd, 10);
      if( *zEnd || nFrames<1 ){
        hostFail("top: -n takes a frame count, not '%s'", argv[i]);
        return 2;
      }
    }else if( z[0]=='-' ){
      hostFail("top: unknown option '%s'", z);
      return 2;
    }else if( top.zSession==0 ){
      top.zSession = z;
    }else{
      fputs(zTopHelp, stderr);
      return 2;
    }
  }
  if( top.zSession==0 ){
    fputs(zTopHelp, stderr);
    return 2;
  }
  if( bJson && !bOnce ){
    hostFail("top: --json goes with --once");
    return 2;
  }
  if( topOpen(&top) ){
    sqlite3_close(top.db);
    return 1;
  }

  if( bOnce ){
    if( bJson ){
      rc = topJson(&top);
    }else{
      topRead(&top, 1, aNow);
      topPlain(&top, aNow, top.nLimit<0 ? 0 : top.nLimit, 0);
      for(v=0; v<TOP_N_VIEW; v++) topRowsFree(&aNow[v]);
    }
    goto done;
  }

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = topOnSignal;
  sigaction(SIGINT, &sa, 0);
  sigaction(SIGTERM, &sa, 0);
  sigaction(SIGHUP, &sa, 0);
  sigaction(SIGWINCH, &sa, 0);

  if( !bBatch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)
                  || !topEnterRaw()) ){
    bBatch = 1;
  }
  for(i=0; !topQuit && (nFrames<0 || i<nFrames); i++){
    double t = hostNowSeconds();
    double dt = i ? t - tLast : 0;
    tLast = t;
    if( bBatch ){
      topRead(&top, 1, aNow);
      if( i ) printf("\n");
      topPlain(&top, aNow, top.nLimit<0 ? 10 : top.nLimit, dt);
      topKeep(&top, aNow);
      if( nFrames>=0 && i+1>=nFrames ) break;
      while( !topQuit && hostNowSeconds() - t < top.rInterval ){
        double left = top.rInterval - (hostNowSeconds() - t);
        struct timespec ts;
        ts.tv_sec = (time_t)left;
        ts.tv_nsec = (long)((left - (double)ts.tv_sec)*1e9);
        nanosleep(&ts, 0);
      }
      continue;
    }
    topSize(&top);
    topRead(&top, 0, aNow);
    topScreen(&top, aNow, dt);
    topKeep(&top, aNow);
    /* Keys redraw at once, with the same rows' rates kept. */
    while( !topQuit ){
      double left = top.rInterval - (hostNowSeconds() - t);
      int iView = top.iView;
      if( left<=0 ) break;
      if( topResized ){
        topResized = 0;
        topSize(&top);
        fputs("\033[2J", stdout);
      }
      if( topKeys(&top, left) && !topQuit ){
        if( top.iView!=iView ) break;     /* another view: read it now */
        topSize(&top);
        topScreen(&top, top.aPrev, dt);   /* this frame's rows, sorted anew */
      }
    }
  }
  topRestore();

done:
  for(v=0; v<TOP_N_VIEW; v++) topRowsFree(&top.aPrev[v]);
  topRowsFree(&top.stores);
  topRowsFree(&top.prevStores);
  sqlite3_close(top.db);
  return rc;
}
