/*
** tracestore_session.c: opening a Tracer session for the extension.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API; reads
** sessions only through the store API of TraceStore/TraceStore.h;
** included by nothing outside Sqlite3Ext/.
** Owns: what every connection of the process shares: SQLite's routines
** for a loadable extension (sqlite3_api, which every file of the
** extension calls SQLite through; set by sqlite3_tracestore_init()) and
** the RTL.  The opening and closing of a session read-only, with the
** messages a person at the prompt sees when that fails; the list of a
** session's stores, string stores included.
** Calls: TraceStore/ (sessions), Guard/StoreGuard.c (which the RTL's
** read-only mappings go through).  Called by the files of the virtual
** tables (tracestore.c, tracestore_info.c) and by tracestore_attach();
** declared in tracestore_int.h.
**
** Usage:
**
**     rc = tsInitializeRtl(pzErrMsg);           (once, at .load)
**     tsDequote(zPath);                         (a module argument)
**     rc = tsSessionOpen(zPath, &pSession, pzErr);
**     nStore = tsListStores(pSession, apStore);
**     tsSessionClose(pSession);
**
** How it works:
**
**   Each virtual table opens a session of its own (TraceSessionOpenReader
**   maps every store file, and the string stores), so tables are
**   independent: one may be dropped, or see another session, while others
**   are read.  The RTL they open it with is one per process, filled in by
**   the first sqlite3_tracestore_init() under SQLite's main mutex, with
**   the SIGBUS guard of Guard/StoreGuard.c installed before anything is
**   mapped.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1          /* sqlite3_api: defined here, the lowest file */

#include <string.h>

#include "TraceStore/TraceStore.h"
#include "tracestore_int.h"
#include "Guard/StoreGuard.h"

/*
** The RTL shared by every connection, filled in once by
** sqlite3_tracestore_init() (tsInitializeRtl).
*/
static RTL tsRtl;
static int tsRtlReady = 0;

/*
** Fills in the shared RTL once per process.
*/
int tsInitializeRtl(char **pzErrMsg){
  sqlite3_mutex *pMutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_MAIN);
  RTL_STATUS status = RTL_STATUS_OK;
  sqlite3_mutex_enter(pMutex);
  if( !tsRtlReady ){
    memset(&tsRtl, 0, sizeof(tsRtl));
    status = InitializeRtl(&tsRtl);
    if( RTL_SUCCESS(status) ){
      storeGuardInstall(&tsRtl);
      tsRtlReady = 1;
    }
  }
  sqlite3_mutex_leave(pMutex);
  if( !RTL_SUCCESS(status) ){
    *pzErrMsg = sqlite3_mprintf("tracestore: cannot initialize the runtime: "
                                "%s", RtlStatusText(status));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/*
** Copies a fixed-size name field of a store header, which need not be
** NUL-terminated in a damaged file, into z (TRACE_NAME_SIZE+1 bytes).
*/
void tsCopyName(char *z, const char *zField){
  memcpy(z, zField, TRACE_NAME_SIZE);
  z[TRACE_NAME_SIZE] = 0;
}

/*
** Removes the quotes SQLite leaves on a module argument ('x', "x", `x`,
** [x]) and surrounding white space, in place.
*/
void tsDequote(char *z){
  size_t n, i, j;
  char cQuote;
  while( z[0]==' ' || z[0]=='\t' || z[0]=='\n' || z[0]=='\r' ){
    memmove(z, z+1, strlen(z));
  }
  n = strlen(z);
  while( n>0 && (z[n-1]==' ' || z[n-1]=='\t' || z[n-1]=='\n' || z[n-1]=='\r') ){
    z[--n] = 0;
  }
  if( n<2 ) return;
  cQuote = z[0];
  if( cQuote=='[' ){
    if( z[n-1]!=']' ) return;
    memmove(z, z+1, n-2);
    z[n-2] = 0;
    return;
  }
  if( (cQuote!='\'' && cQuote!='"' && cQuote!='`') || z[n-1]!=cQuote ) return;
  for(i=1, j=0; i<n-1; i++){
    if( z[i]==cQuote && z[i+1]==cQuote ) i++;
    z[j++] = z[i];
  }
  z[j] = 0;
}

/*
** Returns the text of a failed core call, for a person at the prompt:
** the core's message (which names the file) when there is one, or the
** status text.  The result is from sqlite3_mprintf().
*/
char *tsErrorText(RTL_STATUS status, RTL_ERROR *pError){
  pError->Message[RTL_ERROR_MESSAGE_SIZE-1] = 0;
  if( pError->Message[0] ){
    return sqlite3_mprintf("%s", pError->Message);
  }
  return sqlite3_mprintf("%s (status %d)", RtlStatusText(status), (int)status);
}

/*
** Opens the session at zPath read-only into a new TRACE_SESSION.  On
** failure *pzErr holds a message naming zPath and the reason.
*/
int tsSessionOpen(
  const char *zPath,
  TRACE_SESSION **ppSession,
  char **pzErr
){
  TRACE_SESSION *pSession;
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;

  *ppSession = 0;
  if( strlen(zPath)>=TRACE_PATH_SIZE ){
    *pzErr = sqlite3_mprintf("cannot open trace session '%s': "
                             "the path is longer than %d bytes",
                             zPath, TRACE_PATH_SIZE-1);
    return SQLITE_ERROR;
  }
  pSession = sqlite3_malloc64(sizeof(*pSession));
  if( pSession==0 ) return SQLITE_NOMEM;
  memset(pSession, 0, sizeof(*pSession));
  memset(&error, 0, sizeof(error));
  status = TraceSessionOpenReader(&tsRtl, zPath, pSession, &error);
  if( !RTL_SUCCESS(status) ){
    /* The core's message names the file; add the session if it doesn't. */
    zReason = tsErrorText(status, &error);
    if( zReason && strstr(zReason, zPath)!=0 ){
      *pzErr = zReason;
    }else{
      *pzErr = sqlite3_mprintf("cannot open trace session '%s': %s",
                               zPath, zReason ? zReason : "out of memory");
      sqlite3_free(zReason);
    }
    sqlite3_free(pSession);
    return status==RTL_STATUS_NO_MEMORY ? SQLITE_NOMEM : SQLITE_ERROR;
  }
  *ppSession = pSession;
  return SQLITE_OK;
}

void tsSessionClose(TRACE_SESSION *pSession){
  if( pSession ){
    TraceSessionClose(pSession);
    sqlite3_free(pSession);
  }
}

/*
** Returns the store named zName, including the string stores, which a
** session may keep apart from its other stores.
*/
PTRACE_STORE tsFindStore(TRACE_SESSION *pSession, const char *zName){
  PTRACE_STORE pStore = TraceSessionFindStore(pSession, zName);
  if( pStore==0 && pSession->Strings.Index.Header!=0
   && strcmp(zName, "string")==0 ){
    pStore = &pSession->Strings.Index;
  }
  if( pStore==0 && pSession->Strings.Data.Header!=0
   && strcmp(zName, "string_data")==0 ){
    pStore = &pSession->Strings.Data;
  }
  return pStore;
}

/*
** Returns true if apStore[0..n) holds a store named zName.
*/
static int tsHasStore(PTRACE_STORE *apStore, int n, const char *zName){
  int i;
  for(i=0; i<n; i++){
    if( strncmp(apStore[i]->Name, zName, TRACE_NAME_SIZE)==0 ) return 1;
  }
  return 0;
}

/*
** Fills apStore with every open store of the session, string stores
** included (the session keeps those apart from the others), in name
** order.  Returns the count.
*/
int tsListStores(TRACE_SESSION *pSession, PTRACE_STORE *apStore){
  int n = 0, i, j;
  PTRACE_STORE pSwap;
  for(i=0; i<(int)pSession->NumberOfStores && i<TRACE_SESSION_MAX_STORES; i++){
    if( pSession->Stores[i].Header!=0 ) apStore[n++] = &pSession->Stores[i];
  }
  if( pSession->Strings.Index.Header!=0
   && !tsHasStore(apStore, n, pSession->Strings.Index.Name) ){
    apStore[n++] = &pSession->Strings.Index;
  }
  if( pSession->Strings.Data.Header!=0
   && !tsHasStore(apStore, n, pSession->Strings.Data.Name) ){
    apStore[n++] = &pSession->Strings.Data;
  }
  for(i=1; i<n; i++){
    for(j=i; j>0 && strncmp(apStore[j-1]->Name, apStore[j]->Name,
                            TRACE_NAME_SIZE)>0; j--){
      pSwap = apStore[j];
      apStore[j] = apStore[j-1];
      apStore[j-1] = pSwap;
    }
  }
  return n;
}
