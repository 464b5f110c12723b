/*
** PlotScan.c: reads a session's page faults into the PlotModel that
** PlotDraw.c draws: per category the counts of hard code, hard data, soft
** code and soft data faults, and the faults binned per pixel.
**
** Zone: hosted (Outputs/Plot/, an output): libc, POSIX regex.  Owns
** the seed's rules for which fault counts where (see docs/outputs.md, "tracestore
** plot").  Calls the store API only (TraceStore/TraceStore.h: the session,
** its column descriptors, TraceStoreReadColumn, the string table, the hash
** table) - never SQL - so ten million faults are read straight from the
** mapped store in bounded memory.
**
** How it works: up to three passes over the page_fault store.  A fault is
** first put through -p and -m (plotFaultRead).  The origin of the time
** axis is the first start of a process that has a fault in the picture;
** with --from/--to the window is relative to it, so a first pass finds it
** (the origin pass); without them the counting pass finds it too.  The
** counting pass makes the categories and their counts, and the ranges of
** both axes; the binning pass then sets one bit per pixel per category and
** class, and counts hard code faults per pixel column for the cumulative
** panel.  Pages already read are dropped from the process's mapping as the
** passes go (Rtl.DiscardMemory), so the resident set does not grow with
** the store.
*/
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Outputs/Plot/Plot.h"

#define PLOT_PAGE 4096ULL
#define PLOT_CHUNK 65536            /* records between discards */
#define PLOT_NULL_KEY (1ULL<<40)    /* category key of a NULL pid/tid/module */
#define PLOT_COMM_KEY (1ULL<<41)    /* | comm id: a fault without a pid */

/* A column of a store, found by name in its descriptors (0 if absent). */
typedef PCTRACE_COLUMN_DESCRIPTOR PlotColumn;

/* One row of the process store. */
typedef struct PlotProcess {
  unsigned iPid;
  long long iStart;
  unsigned iNameId;                 /* or TRACE_STRING_NULL */
  long long iLabelTs;               /* when iLabelId was seen */
  unsigned iLabelId;                /* the name it is shown with (below) */
  int bMatch;                       /* -p matches its name or file name */
  int bSeen;                        /* its pid has a fault in the picture */
} PlotProcess;

/* Bits of the value kept per module string id. */
#define PLOT_MODULE_MATCH 0x1       /* -m matches (or there is no -m) */
#define PLOT_MODULE_DATA  0x2       /* a --data-start names it */
#define PLOT_MODULE_SHIFT 8         /* its index in aDataStart */

/* One fault, as the passes see it. */
typedef struct PlotFault {
  long long iTs;
  unsigned long long iKey;          /* its category's key */
  int iProcess;                     /* its process row, or -1 */
  unsigned iCommId;
  int eClass;                       /* PLOT_* class */
  int bUnclassified;                /* hard was NULL */
  int bOffset;                      /* iPage is known */
  unsigned long long iPage;         /* module offset, page aligned */
} PlotFault;

typedef struct PlotScan {
  const PlotOptions *pOpt;
  PlotModel *pModel;
  PTRACE_SESSION pSession;
  PTRACE_STORE pFaults;
  unsigned long long nRecords;      /* the snapshot the passes read */
  PlotColumn cTs, cPid, cTid, cComm, cModule, cOffset, cHard, cCode;
  PlotProcess *aProc;               /* sorted by pid, then start */
  int nProc;
  TRACE_HASH_TABLE procIndex;       /* pid + 1 -> first row in aProc + 1 */
  TRACE_HASH_TABLE modules;         /* module id + 1 -> PLOT_MODULE_* */
  TRACE_HASH_TABLE comms;           /* comm id + 1 -> 1 + (-p matches) */
  TRACE_HASH_TABLE cats;            /* category key -> index + 1 */
  int bWindow;                      /* --from or --to */
  long long iLo, iHi;               /* the window, ns (with bWindow) */
  long long iFirstTs, iLastTs;      /* of the faults counted */
} PlotScan;

/*
** The layout of seeds/000's figure (GenerateGraph's add_axes), in pixels
** with y downwards.
*/
void plotLayout(const PlotOptions *pOpt, PlotLayout *pLay){
  double w = pOpt->rWidth*pOpt->rDpi, h = pOpt->rHeight*pOpt->rDpi;
  pLay->nFigW = (int)(w + 0.5);
  pLay->nFigH = (int)(h + 0.5);
  w = pLay->nFigW;
  h = pLay->nFigH;
  pLay->rMainX = 0.10*w; pLay->rMainW = 0.75*w;
  pLay->rMainY = (1.0-0.90)*h; pLay->rMainH = 0.70*h;
  pLay->rCumX = 0.10*w; pLay->rCumW = 0.75*w;
  pLay->rCumY = (1.0-0.20)*h; pLay->rCumH = 0.10*h;
  pLay->rBarX = 0.85*w; pLay->rBarW = 0.05*w;
  pLay->rBarY = (1.0-0.90)*h; pLay->rBarH = 0.80*h;
  pLay->nPlotW = (int)pLay->rMainW;
  pLay->nPlotH = (int)pLay->rMainH;
  if( pLay->nPlotW<1 ) pLay->nPlotW = 1;
  if( pLay->nPlotH<1 ) pLay->nPlotH = 1;
}

int plotGridSet(PlotModel *pModel, PlotGrid *pGrid, int x, int y){
  int tx = x/PLOT_TILE, ty = y/PLOT_TILE, bit;
  unsigned char **pp;
  if( pGrid->apTile==0 ){
    pGrid->apTile = calloc((size_t)pModel->nTileX*pModel->nTileY,
                           sizeof(unsigned char*));
    if( pGrid->apTile==0 ) return 0;
  }
  pp = &pGrid->apTile[ty*pModel->nTileX + tx];
  if( *pp==0 ){
    *pp = calloc(PLOT_TILE*PLOT_TILE/8, 1);
    if( *pp==0 ) return 0;
  }
  bit = (y%PLOT_TILE)*PLOT_TILE + x%PLOT_TILE;
  (*pp)[bit>>3] |= (unsigned char)(1u<<(bit&7));
  return 1;
}

int plotGridGet(const PlotModel *pModel, const PlotGrid *pGrid, int x, int y){
  const unsigned char *pTile;
  int bit;
  if( pGrid->apTile==0 ) return 0;
  pTile = pGrid->apTile[(y/PLOT_TILE)*pModel->nTileX + x/PLOT_TILE];
  if( pTile==0 ) return 0;
  bit = (y%PLOT_TILE)*PLOT_TILE + x%PLOT_TILE;
  return (pTile[bit>>3]>>(bit&7)) & 1;
}

/* Reads column c of record i: 1 and *pv, or 0 if absent or NULL. */
static int plotRead(PTRACE_STORE pStore, unsigned long long i, PlotColumn c,
                    long long *pv){
  LONGLONG v;
  if( c==0 ) return 0;
  if( !TraceStoreReadColumn(pStore, i, c, &v) ) return 0;
  *pv = v;
  return 1;
}

/* The bytes of string id, or "" (an id the store cannot resolve). */
static const char *plotString(PlotScan *p, long long id){
  PCSZ z = 0;
  ULONG n = 0;
  if( id<0 || id>=0xffffffffLL ) return "";
  if( !RTL_SUCCESS(TraceStringLookup(&p->pSession->Strings, (ULONG)id,
                                     &z, &n)) || z==0 ){
    return "";
  }
  return z;
}

static int plotRegexMatches(regex_t *pRe, const char *z){
  return pRe==0 || regexec(pRe, z, 0, 0, 0)==0;
}

static int plotProcessCompare(const void *a, const void *b){
  const PlotProcess *x = a, *y = b;
  if( x->iPid!=y->iPid ) return x->iPid<y->iPid ? -1 : 1;
  if( x->iStart!=y->iStart ) return x->iStart<y->iStart ? -1 : 1;
  return 0;
}

static int plotProcessAt(PlotScan *p, unsigned iPid, long long ts);

/*
** The name a process is shown with: its main thread's latest comm (the
** thread store has a row per (tid, comm)), when that is newer than the
** process row's name: an exec the process store did not see (ftrace text
** without sched_process_exec), or a prctl(PR_SET_NAME) rename.
*/
static void plotLoadThreadNames(PlotScan *p){
  PTRACE_STORE pStore = TraceSessionFindStore(p->pSession, "thread");
  PlotColumn cStart, cTid, cPid, cComm;
  unsigned long long i, n;
  if( pStore==0 ) return;
  cStart = TraceStoreFindColumn(pStore->Header, "start_ts");
  cTid = TraceStoreFindColumn(pStore->Header, "tid");
  cPid = TraceStoreFindColumn(pStore->Header, "pid");
  cComm = TraceStoreFindColumn(pStore->Header, "comm");
  n = pStore->Snapshot.RecordCount;
  for(i=0; i<n; i++){
    long long ts, tid, pid, comm;
    int k;
    if( !plotRead(pStore, i, cStart, &ts) || !plotRead(pStore, i, cTid, &tid)
     || !plotRead(pStore, i, cPid, &pid) || !plotRead(pStore, i, cComm, &comm)
     || tid!=pid ){
      continue;
    }
    k = plotProcessAt(p, (unsigned)pid, 0x7fffffffffffffffLL);
    if( k>=0 && ts>=p->aProc[k].iLabelTs ){
      p->aProc[k].iLabelTs = ts;
      p->aProc[k].iLabelId = (unsigned)comm;
    }
  }
}

/*
** Loads the process store (if any): every row, whether -p matches its
** name or executable path, and an index by pid.
*/
static int plotLoadProcesses(PlotScan *p){
  PTRACE_STORE pStore = TraceSessionFindStore(p->pSession, "process");
  PlotColumn cStart, cPid, cName, cFile;
  unsigned long long i, n;
  int k;
  if( pStore==0 ) return 0;
  cStart = TraceStoreFindColumn(pStore->Header, "start_ts");
  cPid = TraceStoreFindColumn(pStore->Header, "pid");
  cName = TraceStoreFindColumn(pStore->Header, "name");
  cFile = TraceStoreFindColumn(pStore->Header, "filename");
  n = pStore->Snapshot.RecordCount;
  if( cStart==0 || cPid==0 || n==0 ) return 0;
  p->aProc = calloc((size_t)n, sizeof(PlotProcess));
  if( p->aProc==0 ) return 1;
  for(i=0; i<n; i++){
    PlotProcess *q = &p->aProc[p->nProc];
    long long v, name = -1, file = -1;
    if( !plotRead(pStore, i, cPid, &v) ) continue;
    q->iPid = (unsigned)v;
    if( !plotRead(pStore, i, cStart, &q->iStart) ) continue;
    plotRead(pStore, i, cName, &name);
    plotRead(pStore, i, cFile, &file);
    q->iNameId = name<0 ? TRACE_STRING_NULL : (unsigned)name;
    q->bMatch = p->pOpt->pProcess==0
             || (name>=0 && plotRegexMatches(p->pOpt->pProcess,
                                             plotString(p, name)))
             || (file>=0 && plotRegexMatches(p->pOpt->pProcess,
                                             plotString(p, file)));
    p->nProc++;
  }
  qsort(p->aProc, (size_t)p->nProc, sizeof(PlotProcess), plotProcessCompare);
  for(k=p->nProc-1; k>=0; k--){
    /* Walking down, the last Set for a pid leaves its first row. */
    if( !RTL_SUCCESS(TraceHashSet(&p->procIndex,
                                  (ULONGLONG)p->aProc[k].iPid + 1,
                                  (ULONGLONG)k + 1)) ){
      return 1;
    }
    p->aProc[k].iLabelId = p->aProc[k].iNameId;
    p->aProc[k].iLabelTs = p->aProc[k].iStart;
  }
  plotLoadThreadNames(p);
  return 0;
}

/*
** The process row of pid in effect at time ts: the last one that started
** at or before ts (an exec starts a new row), else the first; -1 if the
** pid has none.
*/
static int plotProcessAt(PlotScan *p, unsigned iPid, long long ts){
  ULONGLONG cursor = 0, v;
  int k, best;
  if( !TraceHashFind(&p->procIndex, (ULONGLONG)iPid + 1, &cursor, &v) ){
    return -1;
  }
  best = k = (int)v - 1;
  for(k++; k<p->nProc && p->aProc[k].iPid==iPid; k++){
    if( p->aProc[k].iStart<=ts ) best = k;
  }
  return best;
}

/* The file name of a path, Linux's or Windows' (\\Device\\...\\clr.dll). */
const char *plotBaseName(const char *zPath){
  const char *z, *zBase = zPath;
  if( zPath[0]=='/' && zPath[1]=='/' ) return zPath;    /* perf's //anon */
  for(z=zPath; *z; z++){
    if( *z=='/' || *z=='\\' ) zBase = z+1;
  }
  return *zBase ? zBase : zPath;
}

/* The PLOT_MODULE_* bits of module string id (looked up once per id). */
static int plotModuleFlags(PlotScan *p, unsigned long long id,
                           unsigned long long *pFlags){
  PTRACE_HASH_ENTRY e = TraceHashLookup(&p->modules, id + 1);
  const char *zPath, *zBase;
  unsigned long long f = 0;
  int k;
  if( e ){
    *pFlags = e->Value;
    return 0;
  }
  zPath = plotString(p, (long long)id);
  zBase = plotBaseName(zPath);
  if( plotRegexMatches(p->pOpt->pModule, zPath) ) f |= PLOT_MODULE_MATCH;
  for(k=p->pOpt->nDataStart-1; k>=0; k--){
    const char *z = p->pOpt->aDataStart[k].zModule;
    if( strcmp(z, zPath)==0 || strcmp(z, zBase)==0 ){
      f |= PLOT_MODULE_DATA | ((unsigned long long)k<<PLOT_MODULE_SHIFT);
      if( p->pModel->abDataStartUsed ) p->pModel->abDataStartUsed[k] = 1;
      break;
    }
  }
  if( !RTL_SUCCESS(TraceHashSet(&p->modules, id + 1, f)) ) return 1;
  *pFlags = f;
  return 0;
}

/* Whether -p matches a fault without a process row: by its comm. */
static int plotCommMatches(PlotScan *p, long long iComm){
  PTRACE_HASH_ENTRY e;
  int bMatch;
  if( p->pOpt->pProcess==0 ) return 1;
  if( iComm<0 ) return 0;
  e = TraceHashLookup(&p->comms, (ULONGLONG)iComm + 1);
  if( e ) return (int)e->Value - 1;
  bMatch = plotRegexMatches(p->pOpt->pProcess, plotString(p, iComm));
  TraceHashSet(&p->comms, (ULONGLONG)iComm + 1, (ULONGLONG)bMatch + 1);
  return bMatch;
}

/*
** Reads fault i into *f: 1 if -p and -m let it in, 0 if not, -1 on an
** error (out of memory).  The seed's rules: hard only when the source
** says so (hard NULL counts as soft, and as unclassified); code when the
** module offset is below the module's --data-start, else when the mapping
** is executable, and when neither is known (the seed's default) too.
*/
static int plotFaultRead(PlotScan *p, unsigned long long i, PlotFault *f){
  PTRACE_STORE s = p->pFaults;
  long long pid = -1, tid = -1, comm = -1, module = -1, off = 0, hard, code;
  unsigned long long flags = PLOT_MODULE_MATCH;
  int bHard, bCode = 1;

  if( !plotRead(s, i, p->cTs, &f->iTs) ) return 0;
  plotRead(s, i, p->cPid, &pid);
  plotRead(s, i, p->cComm, &comm);
  f->iCommId = comm<0 ? TRACE_STRING_NULL : (unsigned)comm;
  f->iProcess = pid<0 ? -1 : plotProcessAt(p, (unsigned)pid, f->iTs);
  if( (f->iProcess<0 || !p->aProc[f->iProcess].bMatch)
   && !plotCommMatches(p, comm) ){
    return 0;
  }
  if( plotRead(s, i, p->cModule, &module) ){
    if( plotModuleFlags(p, (unsigned long long)module, &flags) ) return -1;
  }else if( p->pOpt->pModule ){
    flags = 0;
  }
  if( (flags & PLOT_MODULE_MATCH)==0 ) return 0;

  f->bOffset = plotRead(s, i, p->cOffset, &off);
  f->iPage = (unsigned long long)off & ~(PLOT_PAGE-1);
  f->bUnclassified = !plotRead(s, i, p->cHard, &hard);
  bHard = !f->bUnclassified && hard==1;
  if( (flags & PLOT_MODULE_DATA) && f->bOffset ){
    bCode = (unsigned long long)off
          < p->pOpt->aDataStart[flags>>PLOT_MODULE_SHIFT].iOffset;
  }else if( plotRead(s, i, p->cCode, &code) ){
    bCode = code!=0;
  }
  f->eClass = bHard ? (bCode ? PLOT_HARD_CODE : PLOT_HARD_DATA)
                    : (bCode ? PLOT_SOFT_CODE : PLOT_SOFT_DATA);

  switch( p->pOpt->eCategorize ){
    case PLOT_BY_PROCESS:
      /* Without a pid (ftrace text shows only the tid), the comm stands in. */
      f->iKey = pid>=0 ? (unsigned long long)pid + 1
              : comm>=0 ? PLOT_COMM_KEY | (unsigned long long)comm
              : PLOT_NULL_KEY;
      break;
    case PLOT_BY_MODULE:
      f->iKey = module<0 ? PLOT_NULL_KEY : (unsigned long long)module + 1;
      break;
    default:
      plotRead(s, i, p->cTid, &tid);
      f->iKey = tid<0 ? PLOT_NULL_KEY : (unsigned long long)tid + 1;
      break;
  }
  return 1;
}

/* The label of a new category of fault f. */
static char *plotLabel(PlotScan *p, const PlotFault *f){
  char *z = 0;
  const char *zName;
  if( f->iKey==PLOT_NULL_KEY ){
    static const char *azNone[] = { "(no pid)", "(no module)", "(no tid)" };
    return strdup(azNone[p->pOpt->eCategorize]);
  }
  if( f->iKey & PLOT_COMM_KEY ){
    if( asprintf(&z, "%s (no pid)", plotString(p, f->iCommId))<0 ) z = 0;
    return z;
  }
  switch( p->pOpt->eCategorize ){
    case PLOT_BY_MODULE:
      return strdup(plotBaseName(plotString(p, (long long)f->iKey - 1)));
    case PLOT_BY_PROCESS:
      zName = plotString(p, f->iCommId);
      if( f->iProcess>=0 ){
        /* The name after the pid's last exec: what the process became. */
        int k = f->iProcess;
        while( k+1<p->nProc && p->aProc[k+1].iPid==p->aProc[k].iPid ) k++;
        if( p->aProc[k].iLabelId!=TRACE_STRING_NULL ){
          zName = plotString(p, p->aProc[k].iLabelId);
        }
      }
      break;
    default:
      zName = plotString(p, f->iCommId);
      break;
  }
  if( asprintf(&z, "%llu %s", f->iKey - 1, zName)<0 ) z = 0;
  return z;
}

/* The index of fault f's category, made on first sight; -1 if no memory. */
static int plotCategory(PlotScan *p, const PlotFault *f){
  PlotModel *m = p->pModel;
  PTRACE_HASH_ENTRY e = TraceHashLookup(&p->cats, f->iKey);
  PlotCategory *c;
  if( e ) return (int)e->Value - 1;
  if( m->nCat==m->nCatAlloc ){
    int nNew = m->nCatAlloc ? 2*m->nCatAlloc : 16;
    PlotCategory *aNew = realloc(m->aCat, nNew*sizeof(PlotCategory));
    if( aNew==0 ) return -1;
    m->aCat = aNew;
    m->nCatAlloc = nNew;
  }
  c = &m->aCat[m->nCat];
  memset(c, 0, sizeof(*c));
  c->iKey = f->iKey;
  c->iFirstTs = f->iTs;
  c->zLabel = plotLabel(p, f);
  if( c->zLabel==0 ) return -1;
  if( p->pOpt->eCategorize==PLOT_BY_MODULE && f->iKey!=PLOT_NULL_KEY ){
    c->zPath = strdup(plotString(p, (long long)f->iKey - 1));
    if( c->zPath==0 ){
      free(c->zLabel);
      return -1;
    }
  }
  if( !RTL_SUCCESS(TraceHashSet(&p->cats, f->iKey,
                                (ULONGLONG)m->nCat + 1)) ){
    free(c->zLabel);
    return -1;
  }
  return m->nCat++;
}

/* Marks the pid of a fault in the picture (its start line, the origin). */
static void plotSeeProcess(PlotScan *p, const PlotFault *f){
  ULONGLONG cursor = 0, v;
  if( f->iProcess<0 ) return;
  if( TraceHashFind(&p->procIndex, (ULONGLONG)p->aProc[f->iProcess].iPid+1,
                    &cursor, &v) ){
    p->aProc[v-1].bSeen = 1;
  }
}

/* The three passes. */
#define PLOT_PASS_ORIGIN 0
#define PLOT_PASS_COUNT  1
#define PLOT_PASS_BIN    2

/* What the binning pass does with one fault (of category c). */
static int plotBin(PlotScan *p, PlotCategory *c, const PlotFault *f){
  PlotModel *m = p->pModel;
  double rX = (f->iTs - m->iOrigin)/1e9;
  int x = (int)((rX - m->rX0)/(m->rX1 - m->rX0)*m->lay.nPlotW), y;
  if( x<0 ) x = 0;
  if( x>=m->lay.nPlotW ) x = m->lay.nPlotW-1;
  if( f->eClass==PLOT_HARD_CODE ){
    if( c->aHardCode==0 ){
      c->aHardCode = calloc((size_t)m->lay.nPlotW, sizeof(unsigned));
      if( c->aHardCode==0 ) return 1;
    }
    c->aHardCode[x]++;
  }
  if( !f->bOffset ) return 0;
  y = (int)((double)f->iPage/(double)m->iMaxAddr*m->lay.nPlotH);
  if( y>=m->lay.nPlotH ) y = m->lay.nPlotH-1;
  return !plotGridSet(m, &c->aGrid[f->eClass], x, y);
}

/* One pass over the snapshot's faults.  Returns 0, or 1 (no memory). */
static int plotPass(PlotScan *p, int ePass){
  PlotModel *m = p->pModel;
  unsigned long long i, iChunk;
  PlotFault f;
  for(iChunk=0; iChunk<p->nRecords; iChunk+=PLOT_CHUNK){
    unsigned long long iEnd = iChunk + PLOT_CHUNK;
    if( iEnd>p->nRecords ) iEnd = p->nRecords;
    for(i=iChunk; i<iEnd; i++){
      int rc = plotFaultRead(p, i, &f), iCat;
      PlotCategory *c;
      if( rc<0 ) return 1;
      if( rc==0 ) continue;
      if( ePass==PLOT_PASS_ORIGIN ){
        plotSeeProcess(p, &f);
        if( f.iTs<p->iFirstTs ) p->iFirstTs = f.iTs;
        continue;
      }
      if( p->bWindow && (f.iTs<p->iLo || f.iTs>p->iHi) ) continue;
      iCat = plotCategory(p, &f);
      if( iCat<0 ) return 1;
      c = &m->aCat[iCat];
      if( ePass==PLOT_PASS_BIN ){
        if( plotBin(p, iCat<PLOT_MAX_DRAWN ? c : &m->other, &f) ) return 1;
        continue;
      }
      c->aCount[f.eClass]++;
      c->nUnclassified += f.bUnclassified;
      c->nNoOffset += !f.bOffset;
      m->nNoOffset += !f.bOffset;
      if( f.iTs<c->iFirstTs ) c->iFirstTs = f.iTs;
      m->nCounted++;
      plotSeeProcess(p, &f);
      if( f.iTs<p->iFirstTs ) p->iFirstTs = f.iTs;
      if( f.iTs>p->iLastTs ) p->iLastTs = f.iTs;
      if( f.bOffset && f.iPage + PLOT_PAGE>m->iMaxAddr ){
        m->iMaxAddr = f.iPage + PLOT_PAGE;
      }
    }
    /* Read: let the kernel drop these pages from our resident set. */
    Rtl.DiscardMemory(&Rtl, p->pFaults->Base + iChunk*p->pFaults->RecordSize,
                      (SIZE_T)((iEnd - iChunk)*p->pFaults->RecordSize));
  }
  return 0;
}

/*
** The origin: the first start of a process with a fault in the picture,
** or the first such fault if that is earlier (a fault without a process
** row, or one older than its row).
*/
static long long plotOrigin(PlotScan *p){
  long long iOrigin = p->iFirstTs;
  int k;
  for(k=0; k<p->nProc; k++){
    if( p->aProc[k].bSeen && p->aProc[k].iStart<iOrigin ){
      iOrigin = p->aProc[k].iStart;
    }
  }
  return iOrigin;
}

static unsigned long long plotCategoryFaults(const PlotCategory *c){
  return c->aCount[0] + c->aCount[1] + c->aCount[2] + c->aCount[3];
}

/* Most faults first; then the first to fault; then the key. */
static int plotCategoryCompare(const void *a, const void *b){
  const PlotCategory *x = a, *y = b;
  unsigned long long nx = plotCategoryFaults(x), ny = plotCategoryFaults(y);
  if( nx!=ny ) return nx>ny ? -1 : 1;
  if( x->iFirstTs!=y->iFirstTs ) return x->iFirstTs<y->iFirstTs ? -1 : 1;
  return x->iKey<y->iKey ? -1 : x->iKey>y->iKey;
}

/*
** The colors of the PLOT_MAX_DRAWN categories with the most faults: Okabe
** and Ito's palette, whose colors stay apart for readers with any common
** color vision deficiency, most faults first (its yellow, the faintest on
** white, last).  The rest are one gray layer, "other".
*/
static void plotColors(PlotModel *m){
  static const double aPalette[PLOT_MAX_DRAWN][3] = {
    {0.000, 0.447, 0.698},          /* blue #0072B2 */
    {0.835, 0.369, 0.000},          /* vermillion #D55E00 */
    {0.000, 0.620, 0.451},          /* bluish green #009E73 */
    {0.800, 0.475, 0.655},          /* reddish purple #CC79A7 */
    {0.337, 0.706, 0.914},          /* sky blue #56B4E9 */
    {0.902, 0.624, 0.000},          /* orange #E69F00 */
    {0.000, 0.000, 0.000},          /* black */
    {0.941, 0.894, 0.259},          /* yellow #F0E442 */
  };
  int k;
  for(k=0; k<m->nCat; k++){
    if( k<PLOT_MAX_DRAWN ){
      memcpy(m->aCat[k].aRgb, aPalette[k], sizeof(aPalette[k]));
    }else{
      m->aCat[k].aRgb[0] = m->aCat[k].aRgb[1] = m->aCat[k].aRgb[2] = 0.6;
    }
  }
}

/*
** Opens the session and finds the page_fault store's columns: 0, 1 after
** printing an error, or 2 with the reason there is nothing to draw yet.
*/
static int plotOpen(PlotScan *p){
  const char *zSession = p->pOpt->zSession;
  p->pSession = hostOpenSession(zSession, "plot");
  if( p->pSession==0 ) return 1;
  p->pFaults = TraceSessionFindStore(p->pSession, "page_fault");
  if( p->pFaults==0 ){
    snprintf(p->pModel->zEmpty, sizeof(p->pModel->zEmpty),
             "%s: no page_fault store (record or import page faults: "
             "exceptions:page_fault_user, perf's page-faults)", zSession);
    return 2;
  }
  p->nRecords = p->pFaults->Snapshot.RecordCount;
  p->pModel->nFaults = p->nRecords;
  if( p->nRecords==0 ){
    snprintf(p->pModel->zEmpty, sizeof(p->pModel->zEmpty),
             "%s: the page_fault store holds no fault", zSession);
    return 2;
  }
#define PLOT_COLUMN(v, name) v = TraceStoreFindColumn(p->pFaults->Header, name)
  PLOT_COLUMN(p->cTs, "ts");
  PLOT_COLUMN(p->cPid, "pid");
  PLOT_COLUMN(p->cTid, "tid");
  PLOT_COLUMN(p->cComm, "comm");
  PLOT_COLUMN(p->cModule, "module");
  PLOT_COLUMN(p->cOffset, "module_offset");
  PLOT_COLUMN(p->cHard, "hard");
  PLOT_COLUMN(p->cCode, "code");
#undef PLOT_COLUMN
  if( p->cTs==0 ){
    hostFail("plot: %s: the page_fault store has no ts column", zSession);
    return 1;
  }
  return 0;
}

/* The start lines: processes in the picture that start after the origin. */
static int plotProcessStarts(PlotScan *p){
  PlotModel *m = p->pModel;
  int k;
  m->aProcessStart = calloc((size_t)p->nProc + 1, sizeof(double));
  if( m->aProcessStart==0 ) return 1;
  for(k=0; k<p->nProc; k++){
    if( p->aProc[k].bSeen && p->aProc[k].iStart>m->iOrigin ){
      m->aProcessStart[m->nProcessStart++] =
        (p->aProc[k].iStart - m->iOrigin)/1e9;
    }
  }
  return 0;
}

/* After the counting pass: origin, axes, category order and colors. */
static int plotArrange(PlotScan *p){
  PlotModel *m = p->pModel;
  int k;
  if( !p->bWindow ) m->iOrigin = plotOrigin(p);
  m->rX0 = p->pOpt->bFrom ? p->pOpt->rFrom : 0.0;
  m->rX1 = p->pOpt->bTo ? p->pOpt->rTo
         : m->nCounted ? (p->iLastTs - m->iOrigin)/1e9 : 0.0;
  if( m->rX1<=m->rX0 ) m->rX1 = m->rX0 + 1e-3;
  if( m->iMaxAddr==0 ) m->iMaxAddr = PLOT_PAGE;
  if( m->nCat>0 ){
    qsort(m->aCat, (size_t)m->nCat, sizeof(PlotCategory), plotCategoryCompare);
  }
  for(k=0; k<m->nCat; k++){
    if( !RTL_SUCCESS(TraceHashSet(&p->cats, m->aCat[k].iKey,
                                  (ULONGLONG)k + 1)) ){
      return 1;
    }
  }
  plotColors(m);
  m->other.aRgb[0] = m->other.aRgb[1] = m->other.aRgb[2] = 0.6;
  return plotProcessStarts(p);
}

int plotScan(const PlotOptions *pOpt, PlotModel *pModel){
  PlotScan s;
  int rc = 1;

  memset(pModel, 0, sizeof(*pModel));
  memset(&s, 0, sizeof(s));
  pModel->pOpt = pOpt;
  plotLayout(pOpt, &pModel->lay);
  pModel->nTileX = (pModel->lay.nPlotW + PLOT_TILE-1)/PLOT_TILE;
  pModel->nTileY = (pModel->lay.nPlotH + PLOT_TILE-1)/PLOT_TILE;
  s.pOpt = pOpt;
  s.pModel = pModel;
  s.iFirstTs = 0x7fffffffffffffffLL;
  s.iLastTs = (long long)0x8000000000000000ULL;
  if( !RTL_SUCCESS(TraceHashInitialize(&Rtl, &s.procIndex))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &s.modules))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &s.comms))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &s.cats)) ){
    hostFail("plot: out of memory");
    goto end;
  }
  if( (rc = plotOpen(&s))!=0 ) goto end;
  rc = 1;
  if( pOpt->nDataStart ){
    pModel->abDataStartUsed = calloc((size_t)pOpt->nDataStart, 1);
    if( pModel->abDataStartUsed==0 ) goto oom;
  }
  if( plotLoadProcesses(&s) ) goto oom;

  s.bWindow = pOpt->bFrom || pOpt->bTo;
  if( s.bWindow ){
    if( plotPass(&s, PLOT_PASS_ORIGIN) ) goto oom;
    pModel->iOrigin = plotOrigin(&s);
    s.iLo = pOpt->bFrom ? pModel->iOrigin + (long long)(pOpt->rFrom*1e9)
                        : (long long)0x8000000000000000ULL;
    s.iHi = pOpt->bTo ? pModel->iOrigin + (long long)(pOpt->rTo*1e9)
                      : 0x7fffffffffffffffLL;
    s.iFirstTs = 0x7fffffffffffffffLL;
    for(rc=0; rc<s.nProc; rc++) s.aProc[rc].bSeen = 0;
    rc = 1;
  }
  if( plotPass(&s, PLOT_PASS_COUNT) ) goto oom;
  if( plotArrange(&s) ) goto oom;
  if( pModel->nCounted && plotPass(&s, PLOT_PASS_BIN) ) goto oom;
  rc = 0;
  goto end;

oom:
  hostFail("plot: out of memory");
end:
  TraceHashDestroy(&s.procIndex);
  TraceHashDestroy(&s.modules);
  TraceHashDestroy(&s.comms);
  TraceHashDestroy(&s.cats);
  free(s.aProc);
  if( s.pSession ){
    TraceSessionClose(s.pSession);
    free(s.pSession);
  }
  return rc;
}

int plotLayers(const PlotModel *pModel){
  return pModel->nCat>PLOT_MAX_DRAWN ? PLOT_MAX_DRAWN + 1 : pModel->nCat;
}

const PlotCategory *plotLayer(const PlotModel *pModel, int k){
  return k<PLOT_MAX_DRAWN ? &pModel->aCat[k] : &pModel->other;
}

void plotModelFree(PlotModel *pModel){
  int k, c, t;
  for(k=0; k<=pModel->nCat; k++){
    PlotCategory *pCat = k<pModel->nCat ? &pModel->aCat[k] : &pModel->other;
    for(c=0; c<PLOT_CLASSES; c++){
      if( pCat->aGrid[c].apTile==0 ) continue;
      for(t=0; t<pModel->nTileX*pModel->nTileY; t++){
        free(pCat->aGrid[c].apTile[t]);
      }
      free(pCat->aGrid[c].apTile);
    }
    free(pCat->aHardCode);
    free(pCat->zLabel);
    free(pCat->zPath);
  }
  free(pModel->aCat);
  free(pModel->aProcessStart);
  free(pModel->abDataStartUsed);
  memset(pModel, 0, sizeof(*pModel));
}
