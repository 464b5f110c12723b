/*
** CheckDurable.c: checks a session found after a power cut against the
** writer's sync log (--sync-log; Host/HostSync.h).  The oracle of the
** power-cut tests (Tests/PowerLoss/powercut.sh).
**
**   CheckDurable SESSION LOG [--mutable STORE]... [--cut | --no-cut]
**                [--reference SESSION]
**
** The session is opened as every reader opens it (TraceSessionOpenReader).
** With S the sequence of the sync in its session.durable:
**   - it opens at all (0 sessions that fail to open);
**   - --cut: the reader knows the machine went down since (another boot),
**     --no-cut: it does not;
**   - each store holds at least the records the log says syncs up to S
**     made durable (0 durable records lost), and exactly that many if the
**     log has the line of sync S itself (the file and the log agree; a
**     line can be missing only at the log's end, where the cut fell);
**   - every logged segment [FROM, TO) of those syncs hashes (XXH3-64) as
**     the writer's mapping did when it logged it: the rows are the ones
**     committed, bit for bit (a --mutable store, whose rows change after
**     commit, the Python tracer's running calls, has its counts checked);
**   - in every row of every store, every string id resolves (rows past
**     the last logged sync are checked this way only);
**   - --reference: every row of every store (but --mutable ones) equals
**     the row of the same index in the reference, a session the same
**     deterministic writer made without a cut (an import of the same
**     input): the rows past the log too, so a row that was never
**     committed (zeros, bytes of an earlier write) cannot pass.
** Prints one line of figures; exit 0, or 1 with the first failure.
**
** Zone: tests (hosted): libc and the store API.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TraceStore/TraceStore.h"

static RTL Rtl;

typedef struct Segment Segment;
struct Segment {
  unsigned long long iSeq;
  char zStore[TRACE_NAME_SIZE];
  unsigned long long iFrom, iTo, h;
};

static Segment *aSeg = 0;
static int nSeg = 0, nSegAlloc = 0;
static unsigned long long mxLoggedSeq = 0;
static unsigned long long *aSeq = 0;    /* every sync the log has */
static int nSeq = 0;

static void fail(const char *zFormat, ...)
  __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  printf("FAIL: ");
  vprintf(zFormat, ap);
  printf("\n");
  va_end(ap);
  exit(1);
}

/* Reads the log's "sync SEQ STORE=FROM-TO:HASH ..." lines into aSeg. */
static void readLog(const char *zLog){
  FILE *f = fopen(zLog, "r");
  char zLine[16384];
  if( f==0 ) fail("%s: cannot open the sync log", zLog);
  while( fgets(zLine, sizeof(zLine), f) ){
    char *z = strstr(zLine, "sync ");
    char *zTok, *zSave = 0;
    unsigned long long iSeq;
    if( z==0 || sscanf(z, "sync %llu", &iSeq)!=1 ) continue;
    if( strchr(z, '\n')==0 ) continue;          /* cut off by the kill */
    if( iSeq>mxLoggedSeq ) mxLoggedSeq = iSeq;
    aSeq = realloc(aSeq, (size_t)(nSeq+1)*sizeof(*aSeq));
    if( aSeq==0 ) fail("out of memory");
    aSeq[nSeq++] = iSeq;
    strtok_r(z, " \r\n", &zSave);
    strtok_r(0, " \r\n", &zSave);
    while( (zTok = strtok_r(0, " \r\n", &zSave))!=0 ){
      Segment s;
      char *zEq = strchr(zTok, '=');
      if( zEq==0 || zEq-zTok>=TRACE_NAME_SIZE ) continue;
      memset(&s, 0, sizeof(s));
      memcpy(s.zStore, zTok, (size_t)(zEq-zTok));
      if( sscanf(zEq+1, "%llu-%llu:%llx", &s.iFrom, &s.iTo, &s.h)!=3 ){
        fail("%s: bad segment in the sync log", zTok);
      }
      s.iSeq = iSeq;
      if( nSeg==nSegAlloc ){
        nSegAlloc = nSegAlloc ? 2*nSegAlloc : 256;
        aSeg = realloc(aSeg, (size_t)nSegAlloc*sizeof(Segment));
        if( aSeg==0 ) fail("out of memory");
      }
      aSeg[nSeg++] = s;
    }
  }
  fclose(f);
}

int main(int argc, char **argv){
  PTRACE_SESSION pSession;
  PTRACE_STORE aStore[TRACE_SESSION_MAX_STORES + 2];
  const char *azMutable[8];
  int nMutable = 0, nStore = 0, i, j, eCut = -1;
  unsigned long long iSeq, nRows = 0, nHashed = 0, nUnlogged = 0;
  unsigned long long nStrings;
  int bLogHasS = 0;
  const char *zRef = 0;
  PTRACE_SESSION pRef = 0;
  unsigned long long nMatched = 0;
  RTL_ERROR err;

  if( argc<3 ){
    fprintf(stderr, "usage: CheckDurable SESSION LOG [--mutable STORE]... "
                    "[--cut | --no-cut]\n");
    return 2;
  }
  for(i=3; i<argc; i++){
    if( strcmp(argv[i], "--mutable")==0 && i+1<argc && nMutable<8 ){
      azMutable[nMutable++] = argv[++i];
    }else if( strcmp(argv[i], "--reference")==0 && i+1<argc ){
      zRef = argv[++i];
    }else if( strcmp(argv[i], "--cut")==0 ){
      eCut = 1;
    }else if( strcmp(argv[i], "--no-cut")==0 ){
      eCut = 0;
    }else{
      fprintf(stderr, "CheckDurable: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  InitializeRtl(&Rtl);
  readLog(argv[2]);

  pSession = calloc(1, sizeof(*pSession));
  memset(&err, 0, sizeof(err));
  if( pSession==0
   || !RTL_SUCCESS(TraceSessionOpenReader(&Rtl, argv[1], pSession, &err)) ){
    fail("the session does not open: %s", err.Message);
  }
  if( !pSession->HasDurable ) fail("%s: no session.durable", argv[1]);
  if( eCut>=0 && pSession->PowerCut!=eCut ){
    fail("the reader %s a power cut (session.durable's boot id: %s)",
         eCut ? "does not see" : "sees", pSession->Durable.BootId);
  }
  if( zRef ){
    pRef = calloc(1, sizeof(*pRef));
    if( pRef==0
     || !RTL_SUCCESS(TraceSessionOpenReader(&Rtl, zRef, pRef, &err)) ){
      fail("the reference %s does not open: %s", zRef, err.Message);
    }
  }
  iSeq = pSession->Durable.Sequence;
  for(i=0; i<nSeq; i++) if( aSeq[i]==iSeq ) bLogHasS = 1;

  aStore[nStore++] = &pSession->Strings.Index;
  aStore[nStore++] = &pSession->Strings.Data;
  for(i=0; i<(int)pSession->NumberOfStores; i++) aStore[nStore++] = &pSession->Stores[i];
  nStrings = pSession->Strings.Index.Snapshot.RecordCount;

  /* Every store the log names up to sync S exists, holds its durable
  ** records, and they hash as logged. */
  for(j=0; j<nSeg; j++){
    Segment *s = &aSeg[j];
    PTRACE_STORE t = 0;
    unsigned long long n;
    int bMutable = 0;
    if( s->iSeq>iSeq ) continue;
    for(i=0; i<nStore; i++){
      if( strcmp(aStore[i]->Name, s->zStore)==0 ) t = aStore[i];
    }
    if( t==0 ) fail("%s: made durable by a sync (records up to %llu), not in the "
                   "session", s->zStore, s->iTo);
    n = t->Snapshot.RecordCount;
    if( n<s->iTo ){
      fail("%s: %llu records, but the log says %llu were made durable",
           t->Name, n, s->iTo);
    }
    for(i=0; i<nMutable; i++) if( strcmp(azMutable[i], t->Name)==0 ) bMutable = 1;
    if( !bMutable ){
      unsigned long long h = Rtl.Hash64(t->Base + s->iFrom*t->RecordSize,
                                        (size_t)(s->iTo - s->iFrom)*t->RecordSize);
      if( h!=s->h ){
        fail("%s: records [%llu, %llu) differ from what the writer made durable",
             t->Name, s->iFrom, s->iTo);
      }
      nHashed += s->iTo - s->iFrom;
    }
  }

  /* Every string id of every row resolves. */
  for(i=0; i<nStore; i++){
    PTRACE_STORE t = aStore[i];
    const TRACE_STORE_HEADER *h = t->Header;
    unsigned long long n = t->Snapshot.RecordCount, r, mxTo = 0;
    int bLogged = 0;
    for(j=0; j<nSeg; j++){
      if( aSeg[j].iSeq<=iSeq && strcmp(aSeg[j].zStore, t->Name)==0 ){
        bLogged = 1;
        if( aSeg[j].iTo>mxTo ) mxTo = aSeg[j].iTo;
      }
    }
    if( bLogHasS && bLogged && n!=mxTo ){
      fail("%s: %llu records, but the log's line of the session's sync "
           "made %llu durable", t->Name, n, mxTo);
    }
    nRows += n;
    nUnlogged += n - mxTo;
    if( pRef ){
      PTRACE_STORE u = TraceSessionFindStore(pRef, t->Name);
      int bMutable = 0, k;
      for(k=0; k<nMutable; k++) if( strcmp(azMutable[k], t->Name)==0 ) bMutable = 1;
      if( !bMutable && n>0 ){
        if( u==0 || u->Snapshot.RecordCount<n || u->RecordSize!=t->RecordSize ){
          fail("%s: %llu rows, more than the reference's", t->Name, n);
        }
        for(r=0; r<n; r++){
          if( memcmp(t->Base + r*t->RecordSize, u->Base + r*u->RecordSize,
                     t->RecordSize)!=0 ){
            fail("%s: row %llu is not the reference's (of %llu; %llu logged)",
                 t->Name, r, n, mxTo);
          }
        }
        nMatched += n;
      }
    }
    for(j=0; j<(int)h->NumberOfColumns; j++){
      const TRACE_COLUMN_DESCRIPTOR *c = &h->Columns[j];
      if( !(c->Flags & TRACE_COLUMN_STRING_ID) || c->Width!=4 ) continue;
      for(r=0; r<n; r++){
        unsigned int id;
        memcpy(&id, t->Base + r*t->RecordSize + c->Offset, 4);
        if( id>=nStrings && id!=TRACE_STRING_NULL ){
          fail("%s: row %llu has string id %u, past the string store",
               t->Name, r, id);
        }
      }
    }
  }

  printf("ok: sync %llu (log to %llu), %d stores, %llu rows: %llu as logged, "
         "%llu past the log, %llu as the reference's; power cut seen: %s; "
         "unsynced not shown:",
         (unsigned long long)iSeq, mxLoggedSeq, nStore, nRows, nHashed,
         nUnlogged, nMatched, pSession->PowerCut ? "yes" : "no");
  for(i=0; i<nStore; i++){
    if( aStore[i]->Unsynced ){
      printf(" %s %llu", aStore[i]->Name,
             (unsigned long long)aStore[i]->Unsynced);
    }
  }
  printf("\n");
  TraceSessionClose(pSession);
  free(pSession);
  if( pRef ){
    TraceSessionClose(pRef);
    free(pRef);
  }
  free(aSeg);
  free(aSeq);
  return 0;
}
