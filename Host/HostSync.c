/*
** HostSync.c: --sync-interval and --sync-log for the writers (HostSync.h).
**
** Zone: hosted (Host/, the process's services): libc only; the session
** through the store API.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Host/HostSync.h"

void hostSyncHelp(FILE *out, const char *zDefault){
  fprintf(out,
"  --sync-interval SECONDS  make committed records durable this often\n"
"                 (flush every store, then session.durable); default: %s\n"
"  --sync-log FILE  append a line per sync: its sequence and, per store,\n"
"                 the records it made durable and their hash\n", zDefault);
}

int hostSyncOption(HostSync *p, int argc, char **argv, int i){
  if( strcmp(argv[i], "--sync-interval")!=0 && strcmp(argv[i], "--sync-log")!=0 ){
    return 0;
  }
  if( i+1>=argc ){
    snprintf(p->zError, sizeof(p->zError), "%s: missing value", argv[i]);
    return -1;
  }
  if( argv[i][7]=='i' ){
    char *zEnd;
    double r = strtod(argv[i+1], &zEnd);
    if( *zEnd || zEnd==argv[i+1] || !(r>=0) || r>86400 ){
      snprintf(p->zError, sizeof(p->zError), "--sync-interval: '%s' is not "
               "a number of seconds from 0 (open and close only) to 86400",
               argv[i+1]);
      return -1;
    }
    p->rInterval = r;
  }else{
    p->zLog = argv[i+1];
  }
  return 2;
}

int hostSyncStart(HostSync *p, PRTL pRtl){
  p->pRtl = pRtl;
  p->nLogged = 0;
  p->zPending[0] = 0;
  if( p->zLog && (p->pLog = fopen(p->zLog, "a"))==0 ){
    snprintf(p->zError, sizeof(p->zError), "--sync-log: %s: cannot open "
             "for appending", p->zLog);
    return 1;
  }
  return 0;
}

/* The log's count for store zName (added at 0). */
static unsigned long long *loggedCount(HostSync *p, const char *zName){
  unsigned i;
  for(i=0; i<p->nLogged; i++){
    if( strcmp(p->azName[i], zName)==0 ) return &p->anLogged[i];
  }
  if( p->nLogged>=TRACE_DURABLE_MAX_ENTRIES ) return 0;
  snprintf(p->azName[p->nLogged], TRACE_NAME_SIZE, "%s", zName);
  p->anLogged[p->nLogged] = 0;
  return &p->anLogged[p->nLogged++];
}

/*
** Appends " STORE=FROM-TO:HASH" to z for each open store whose count
** (its Durable entry's, or the committed count if bCommitted) passed what
** the log has.
*/
static void appendSegments(HostSync *p, PTRACE_SESSION s, int bCommitted,
                           char *z, size_t n){
  PTRACE_STORE aStore[TRACE_DURABLE_MAX_ENTRIES];
  unsigned nStore = 0, i;
  size_t k = strlen(z);
  aStore[nStore++] = &s->Strings.Index;
  aStore[nStore++] = &s->Strings.Data;
  for(i=0; i<s->NumberOfStores; i++) aStore[nStore++] = &s->Stores[i];
  for(i=0; i<nStore; i++){
    PTRACE_STORE t = aStore[i];
    PTRACE_DURABLE_ENTRY e = 0;
    unsigned long long *pLogged, nTo, h;
    unsigned j;
    if( t->FileHandle==INVALID_HANDLE_VALUE || t->Base==0 ) continue;
    for(j=0; j<s->Durable.NumberOfEntries; j++){
      if( strcmp(s->Durable.Entries[j].Name, t->Name)==0 ) e = &s->Durable.Entries[j];
    }
    nTo = bCommitted ? t->CommittedCount : (e ? e->RecordCount : 0);
    pLogged = loggedCount(p, t->Name);
    if( pLogged==0 || nTo<=*pLogged ) continue;
    h = p->pRtl->Hash64(t->Base + *pLogged*t->RecordSize,
                        (size_t)(nTo - *pLogged)*t->RecordSize);
    k += (size_t)snprintf(z+k, k<n ? n-k : 0, " %s=%llu-%llu:%016llx",
                          t->Name, *pLogged, nTo, h);
    *pLogged = nTo;
  }
}

void hostSyncLogged(void *pCtx, PTRACE_SESSION pSession){
  HostSync *p = (HostSync*)pCtx;
  char z[sizeof(p->zPending)];
  if( p->pLog==0 ) return;
  z[0] = 0;
  appendSegments(p, pSession, 0, z, sizeof(z));
  fprintf(p->pLog, "sync %llu%s\n",
          (unsigned long long)pSession->Durable.Sequence, z);
  fflush(p->pLog);
}

void hostSyncBeforeClose(HostSync *p, PTRACE_SESSION pSession){
  if( p->pLog==0 || !pSession->HasDurable ) return;
  p->zPending[0] = 0;
  appendSegments(p, pSession, 1, p->zPending, sizeof(p->zPending));
}

void hostSyncAfterClose(HostSync *p, PTRACE_SESSION pSession){
  if( p->pLog==0 ) return;
  if( pSession && (pSession->Durable.Flags & TRACE_DURABLE_CLOSED) ){
    fprintf(p->pLog, "sync %llu%s closed\n",
            (unsigned long long)pSession->Durable.Sequence, p->zPending);
  }
  fclose(p->pLog);
  p->pLog = 0;
}
