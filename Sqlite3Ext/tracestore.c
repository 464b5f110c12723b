/*
** tracestore.c: the Tracer SQLite extension.
**
** This file turns the stores of a Tracer session (a directory written by
** `tracestore import` or `tracestore record`) into read-only virtual
** tables.  It reads the memory-mapped store files directly, through the
** store API of TraceStore/TraceStore.h, so a query runs in constant memory
** and may run while a writer is still appending to the session.
**
** Usage:
**
**     .load tracestore
**     SELECT tracestore_attach('run.trace');
**     SELECT name, count(*) FROM page_fault GROUP BY name;
**     SELECT reason, count(*), sum(dur) FROM kvm_exit GROUP BY reason;
**     SELECT * FROM store_info;
**
**   tracestore_attach(PATH [, SCHEMA])
**
**     Opens the session at PATH read-only, checks it, and creates in SCHEMA
**     ("temp" if omitted, so that it works on read-only and in-memory
**     databases) one virtual table per store, named like the store
**     (page_fault, kvm_exit, sched_switch, ftrace_event, thread, process,
**     source, ...), plus store_info.  The string stores are not tables:
**     their text appears in the columns that refer to it.  Returns the
**     number of tables that show the session, store_info included (tables
**     an earlier call made for the same session are kept, not made again).
**     Tracestore tables of the same names that show another session are
**     replaced, so attaching another session switches to it; a table or
**     view of the same name that is not a tracestore table is an error.  A
**     call that fails leaves SCHEMA as it was.  To look at two sessions
**     side by side, attach the second one into another schema:
**
**         ATTACH ':memory:' AS b;
**         SELECT tracestore_attach('other.trace', 'b');
**
**   CREATE VIRTUAL TABLE temp.NAME USING tracestore(PATH [, STORE])
**
**     One store as a table.  STORE defaults to NAME.  The columns are the
**     store's own, read from the column descriptors in the store header,
**     after a first column `id`: the record's index in the store (0-based),
**     which is also the rowid.  Column types: INTEGER, REAL for double
**     columns, and TEXT for string ids, which are resolved through the
**     session's string store.  Values the store marks as NULL are NULL.
**     Unsigned 64-bit columns (addresses) come back as the int64 with the
**     same bits: kernel addresses are negative; printf('%x', address)
**     prints them as expected.
**
**   CREATE VIRTUAL TABLE temp.NAME USING tracestore_info(PATH)
**
**     One row per store of the session, string stores included:
**       name         store name
**       records      committed records
**       bytes        bytes of committed data in the file: the header page
**                    plus records * record_size
**       record_size  bytes per record
**       generation   times a writer has opened the store
**       first_ts     smallest and largest ts over the records, ns; NULL if
**       last_ts      the store is empty or has no ts column
**       sorted       1 if ts never decreases from one record to the next,
**                    0 if it does, NULL for stores without a ts column
**       dropped      events the source reported lost, or the reader dropped
**       repaired     records the reader completed from the trace bounds
**                    (e.g. spans whose entry or exit was not recorded)
**
** How it works:
**
**   Each virtual table opens its own read-only TRACE_SESSION (which maps
**   every store file of the session, and the string stores) and keeps a
**   private copy of its store's column descriptors.  A scan (xFilter)
**   takes a snapshot of the store's commit slots and visits records
**   [0, RecordCount) of that snapshot only, so the row count of a scan is
**   fixed even while the writer appends; the next statement sees what was
**   committed since.  A cursor keeps its snapshot until it is closed (when
**   its statement is reset or finalized), also when SQLite filters it again
**   as the inner loop of a join, and cursors of one table that are open at
**   the same time (a self-join, a correlated subquery) share the snapshot
**   of the first of them: one statement sees one snapshot of each store.
**   (So does a statement that starts while another one on the same table
**   is still open, e.g. an unfinished Python cursor: it sees that one's
**   snapshot until it is reset.)
**   Records are addressed as Base + index * RecordSize at the moment they
**   are read, never through a saved pointer: a snapshot or a string lookup
**   may remap the file.  Text is handed to SQLite with SQLITE_TRANSIENT for
**   the same reason.
**
**   xBestIndex pushes down equality and range constraints on the rowid
**   (or `id`), answered by narrowing the range of records visited, and on
**   `ts` when the store is sorted by ts, answered by binary search.  It
**   never sets `omit`: SQLite checks every row it receives again, so the
**   bounds only need to be conservative, which is how values that are not
**   integers (rowid > 2.5, ts < '100') are handled.  Everything else is
**   left to SQLite; a query never fails because of its shape.
**
**   The core is reached only through TraceStore.h; it never sees SQLite.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <string.h>

#include "../TraceStore/TraceStore.h"
#include "tracestore.h"

/*
** The RTL shared by every connection, filled in once by
** sqlite3_tracestore_init().
*/
static RTL tsRtl;
static int tsRtlReady = 0;

#define TS_INT64_MAX ((sqlite3_int64)0x7fffffffffffffffLL)
#define TS_INT64_MIN (-TS_INT64_MAX - 1)

/*
** idxNum bits of the tracestore module.  xBestIndex sets one bit for each
** constraint it hands to xFilter (at most one constraint per bit).  The
** values of those constraints are in xFilter's argv[] in the order of the
** bits, lowest bit first: argv[0] belongs to the lowest bit set in idxNum,
** argv[1] to the next one, and so on.  TS_ORDER_DESC has no argv entry.
*/
#define TS_ROWID_EQ    0x0001   /* rowid = ?  (rowid and id alike)        */
#define TS_ROWID_GT    0x0002   /* rowid > ?                              */
#define TS_ROWID_GE    0x0004   /* rowid >= ?                             */
#define TS_ROWID_LT    0x0008   /* rowid < ?                              */
#define TS_ROWID_LE    0x0010   /* rowid <= ?                             */
#define TS_TS_EQ       0x0020   /* ts = ?   (binary search; sorted stores) */
#define TS_TS_GT       0x0040   /* ts > ?                                 */
#define TS_TS_GE       0x0080   /* ts >= ?                                */
#define TS_TS_LT       0x0100   /* ts < ?                                 */
#define TS_TS_LE       0x0200   /* ts <= ?                                */
#define TS_ORDER_DESC  0x0400   /* visit records in descending rowid order */

/*
** The constraint bits above, in argv order, with what they mean.
*/
static const struct {
  int mask;          /* TS_ROWID_* or TS_TS_* */
  int bTs;           /* true: a constraint on ts; false: on the rowid */
  unsigned char op;  /* SQLITE_INDEX_CONSTRAINT_* */
} aTsConstraintBit[] = {
  { TS_ROWID_EQ, 0, SQLITE_INDEX_CONSTRAINT_EQ },
  { TS_ROWID_GT, 0, SQLITE_INDEX_CONSTRAINT_GT },
  { TS_ROWID_GE, 0, SQLITE_INDEX_CONSTRAINT_GE },
  { TS_ROWID_LT, 0, SQLITE_INDEX_CONSTRAINT_LT },
  { TS_ROWID_LE, 0, SQLITE_INDEX_CONSTRAINT_LE },
  { TS_TS_EQ,    1, SQLITE_INDEX_CONSTRAINT_EQ },
  { TS_TS_GT,    1, SQLITE_INDEX_CONSTRAINT_GT },
  { TS_TS_GE,    1, SQLITE_INDEX_CONSTRAINT_GE },
  { TS_TS_LT,    1, SQLITE_INDEX_CONSTRAINT_LT },
  { TS_TS_LE,    1, SQLITE_INDEX_CONSTRAINT_LE },
};
#define TS_N_CONSTRAINT_BIT \
  ((int)(sizeof(aTsConstraintBit)/sizeof(aTsConstraintBit[0])))

/* Columns of tracestore_info, in declaration order. */
#define TSI_COLUMN_NAME         0
#define TSI_COLUMN_RECORDS      1
#define TSI_COLUMN_BYTES        2
#define TSI_COLUMN_RECORD_SIZE  3
#define TSI_COLUMN_GENERATION   4
#define TSI_COLUMN_FIRST_TS     5
#define TSI_COLUMN_LAST_TS      6
#define TSI_COLUMN_SORTED       7
#define TSI_COLUMN_DROPPED      8
#define TSI_COLUMN_REPAIRED     9

/*
** A tracestore virtual table: one store of a session.
*/
typedef struct tracestore_vtab tracestore_vtab;
struct tracestore_vtab {
  sqlite3_vtab base;            /* Base class.  Must be first */
  TRACE_SESSION *pSession;      /* The session, open read-only */
  PTRACE_STORE pStore;          /* The store, inside pSession */
  char *zPath;                  /* Session directory, for messages */
  char *zStore;                 /* Store name */
  int iIdColumn;                /* Column index of `id`, or -1 */
  int iFirstStoreColumn;        /* Column index of aCol[0] */
  int nCol;                     /* Entries in aCol */
  int iTsCol;                   /* aCol index of a usable ts column, or -1 */
  int nSharedSnapshot;          /* Cursors scanning sharedSnapshot */
  TRACE_STORE_SNAPSHOT sharedSnapshot;  /* Snapshot of the open scans */
  TRACE_COLUMN_DESCRIPTOR aCol[TRACE_STORE_MAX_COLUMNS];  /* Private copy */
};

/*
** A cursor over a tracestore table: records iFirst .. iLast (inclusive)
** of one snapshot, empty if iFirst > iLast.
*/
typedef struct tracestore_cursor tracestore_cursor;
struct tracestore_cursor {
  sqlite3_vtab_cursor base;     /* Base class.  Must be first */
  sqlite3_int64 iRowid;         /* Current record index */
  sqlite3_int64 iFirst;         /* First record to visit */
  sqlite3_int64 iLast;          /* Last record to visit */
  int bDesc;                    /* Visit iLast down to iFirst */
  int bShared;                  /* Counted in pVtab->nSharedSnapshot */
};

/*
** A tracestore_info virtual table: every store of a session.
*/
typedef struct tracestore_info_vtab tracestore_info_vtab;
struct tracestore_info_vtab {
  sqlite3_vtab base;            /* Base class.  Must be first */
  TRACE_SESSION *pSession;      /* The session, open read-only */
  int nStore;                   /* Entries in apStore */
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];  /* + string stores */
};

/*
** A cursor over tracestore_info: row iRow is apStore[iRow], with the
** snapshot aSnapshot[iRow] taken by xFilter.
*/
typedef struct tracestore_info_cursor tracestore_info_cursor;
struct tracestore_info_cursor {
  sqlite3_vtab_cursor base;     /* Base class.  Must be first */
  int iRow;                     /* Current row */
  int nRow;                     /* Rows in this scan */
  TRACE_STORE_SNAPSHOT aSnapshot[TRACE_SESSION_MAX_STORES + 2];
};

/* -------------------------------------------------------------------------
** Helpers.
*/

/*
** Copies a fixed-size name field of a store header, which need not be
** NUL-terminated in a damaged file, into z (TRACE_NAME_SIZE+1 bytes).
*/
static void tsCopyName(char *z, const char *zField){
  memcpy(z, zField, TRACE_NAME_SIZE);
  z[TRACE_NAME_SIZE] = 0;
}

/*
** Removes the quotes SQLite leaves on a module argument ('x', "x", `x`,
** [x]) and surrounding white space, in place.
*/
static void tsDequote(char *z){
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
static char *tsErrorText(RTL_STATUS status, RTL_ERROR *pError){
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
static int tsSessionOpen(
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

static void tsSessionClose(TRACE_SESSION *pSession){
  if( pSession ){
    TraceSessionClose(pSession);
    sqlite3_free(pSession);
  }
}

/*
** Returns the store named zName, including the string stores, which a
** session may keep apart from its other stores.
*/
static PTRACE_STORE tsFindStore(TRACE_SESSION *pSession, const char *zName){
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
static int tsListStores(TRACE_SESSION *pSession, PTRACE_STORE *apStore){
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

/*
** Returns the width in bytes of a column type, or 0 if the type is not
** one this extension knows.
*/
static ULONG tsTypeWidth(ULONG eType){
  switch( eType ){
    case TraceColumnInt32:
    case TraceColumnUInt32:  return 4;
    case TraceColumnInt64:
    case TraceColumnUInt64:
    case TraceColumnDouble:  return 8;
    case TraceColumnUInt16:  return 2;
    case TraceColumnUInt8:   return 1;
  }
  return 0;
}

/*
** Converts a REAL to the nearest int64 at or below it (bCeil==0) or at
** or above it (bCeil!=0), saturating.  Returns 0 for NaN.
*/
static int tsRealToInt(double r, int bCeil, sqlite3_int64 *piOut){
  sqlite3_int64 i;
  if( r!=r ) return 0;
  if( r>=9223372036854775807.0 ){
    *piOut = TS_INT64_MAX;
  }else if( r<=-9223372036854775808.0 ){
    *piOut = TS_INT64_MIN;
  }else{
    i = (sqlite3_int64)r;               /* Truncates toward zero */
    if( bCeil ){
      if( (double)i<r ) i++;
    }else{
      if( (double)i>r ) i--;
    }
    *piOut = i;
  }
  return 1;
}

/*
** Narrows the inclusive range [*piLo, *piHi] of integer values x by the
** constraint "x OP pVal".  The range after the call contains every x that
** satisfies the constraint and is in the range before it, and maybe more:
** SQLite checks each row again.  A NULL value satisfies no comparison, so
** it empties the range.  Text that does not look like a number and blobs
** compare greater than every integer; they narrow nothing.
*/
static void tsNarrow(
  sqlite3_value *pVal,
  int op,
  sqlite3_int64 *piLo,
  sqlite3_int64 *piHi
){
  sqlite3_int64 iLower = TS_INT64_MIN;    /* Bounds implied by the value */
  sqlite3_int64 iUpper = TS_INT64_MAX;
  sqlite3_int64 v;
  double r;

  switch( sqlite3_value_numeric_type(pVal) ){
    case SQLITE_NULL: {
      *piLo = TS_INT64_MAX;
      *piHi = TS_INT64_MIN;
      return;
    }
    case SQLITE_INTEGER: {
      v = sqlite3_value_int64(pVal);
      switch( op ){
        case SQLITE_INDEX_CONSTRAINT_EQ: iLower = iUpper = v;  break;
        case SQLITE_INDEX_CONSTRAINT_GE: iLower = v;           break;
        case SQLITE_INDEX_CONSTRAINT_LE: iUpper = v;           break;
        case SQLITE_INDEX_CONSTRAINT_GT:
          if( v==TS_INT64_MAX ){ iLower = TS_INT64_MAX; iUpper = TS_INT64_MIN; }
          else iLower = v+1;
          break;
        case SQLITE_INDEX_CONSTRAINT_LT:
          if( v==TS_INT64_MIN ){ iLower = TS_INT64_MAX; iUpper = TS_INT64_MIN; }
          else iUpper = v-1;
          break;
      }
      break;
    }
    case SQLITE_FLOAT: {
      r = sqlite3_value_double(pVal);
      if( op==SQLITE_INDEX_CONSTRAINT_EQ || op==SQLITE_INDEX_CONSTRAINT_GT
       || op==SQLITE_INDEX_CONSTRAINT_GE ){
        if( !tsRealToInt(r, 0, &iLower) ) return;
      }
      if( op==SQLITE_INDEX_CONSTRAINT_EQ || op==SQLITE_INDEX_CONSTRAINT_LT
       || op==SQLITE_INDEX_CONSTRAINT_LE ){
        if( !tsRealToInt(r, 1, &iUpper) ) return;
      }
      break;
    }
    default: {
      return;
    }
  }
  if( iLower>*piLo ) *piLo = iLower;
  if( iUpper<*piHi ) *piHi = iUpper;
}

/*
** Returns the first record index in [0, nRecord) whose ts is greater than
** iTs (bAfter) or at least iTs (!bAfter), or nRecord if there is none.
** The store must be sorted by ts over those records.
*/
static sqlite3_int64 tsSearchTs(
  tracestore_vtab *pTab,
  sqlite3_int64 nRecord,
  sqlite3_int64 iTs,
  int bAfter
){
  sqlite3_int64 lo = 0, hi = nRecord, mid;
  LONGLONG ts;
  PCTRACE_COLUMN_DESCRIPTOR pCol = &pTab->aCol[pTab->iTsCol];
  while( lo<hi ){
    mid = lo + (hi-lo)/2;
    if( !TraceStoreReadColumn(pTab->pStore, (ULONGLONG)mid, pCol, &ts) ){
      ts = TS_INT64_MIN;
    }
    if( bAfter ? ts<=iTs : ts<iTs ){
      lo = mid+1;
    }else{
      hi = mid;
    }
  }
  return lo;
}

/*
** Returns true if zSql, the CREATE statement of a table, creates a
** tracestore or tracestore_info virtual table.
*/
static int tsIsTracestoreTable(const char *zSql){
  const char *z;
  if( zSql==0 || sqlite3_strnicmp(zSql, "CREATE VIRTUAL TABLE ", 21)!=0 ){
    return 0;
  }
  for(z=zSql+21; *z; z++){
    if( sqlite3_strnicmp(z, " USING ", 7)==0 ) break;
  }
  if( *z==0 ) return 0;
  z += 7;
  while( *z==' ' ) z++;
  if( sqlite3_strnicmp(z, "tracestore_info", 15)==0 ){
    z += 15;
  }else if( sqlite3_strnicmp(z, "tracestore", 10)==0 ){
    z += 10;
  }else{
    return 0;
  }
  while( *z==' ' ) z++;
  return *z=='(';
}

/* -------------------------------------------------------------------------
** The tracestore module.
*/

/*
** xConnect (also xCreate): argv[3] is the session path, argv[4] the store
** name (default: the table name, argv[2]).
*/
static int tracestoreConnect(
  sqlite3 *db,
  void *pAux,
  int argc, const char *const*argv,
  sqlite3_vtab **ppVtab,
  char **pzErr
){
  tracestore_vtab *pNew = 0;
  sqlite3_str *pDecl = 0;
  char *zDecl = 0;
  char zName[TRACE_NAME_SIZE+1];
  TRACE_STORE_HEADER *pHeader;
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];
  int nStore, i, rc;

  (void)pAux;
  *ppVtab = 0;
  if( argc<4 || argc>5 ){
    *pzErr = sqlite3_mprintf(
        "wrong number of arguments to tracestore: use "
        "CREATE VIRTUAL TABLE %s USING tracestore(SESSION_PATH [, STORE])",
        argv[2]);
    return SQLITE_ERROR;
  }
  pNew = sqlite3_malloc64(sizeof(*pNew));
  if( pNew==0 ) return SQLITE_NOMEM;
  memset(pNew, 0, sizeof(*pNew));
  pNew->zPath = sqlite3_mprintf("%s", argv[3]);
  pNew->zStore = sqlite3_mprintf("%s", argc>4 ? argv[4] : argv[2]);
  if( pNew->zPath==0 || pNew->zStore==0 ){
    rc = SQLITE_NOMEM;
    goto connect_error;
  }
  tsDequote(pNew->zPath);
  tsDequote(pNew->zStore);

  rc = tsSessionOpen(pNew->zPath, &pNew->pSession, pzErr);
  if( rc!=SQLITE_OK ) goto connect_error;

  pNew->pStore = tsFindStore(pNew->pSession, pNew->zStore);
  if( pNew->pStore==0 ){
    pDecl = sqlite3_str_new(db);
    sqlite3_str_appendf(pDecl, "trace session '%s' has no store named '%s'"
                        "; its stores are:", pNew->zPath, pNew->zStore);
    nStore = tsListStores(pNew->pSession, apStore);
    for(i=0; i<nStore; i++){
      tsCopyName(zName, apStore[i]->Name);
      sqlite3_str_appendf(pDecl, "%s %s", i ? "," : "", zName);
    }
    *pzErr = sqlite3_str_finish(pDecl);
    pDecl = 0;
    rc = SQLITE_ERROR;
    goto connect_error;
  }

  /*
  ** Check the column table before trusting it, and keep a copy: the
  ** header is in the mapping, which may move when the store is remapped.
  */
  pHeader = pNew->pStore->Header;
  if( pHeader->NumberOfColumns>TRACE_STORE_MAX_COLUMNS
   || pNew->pStore->RecordSize==0 ){
    *pzErr = sqlite3_mprintf("corrupt store header in %s: %u columns, "
                             "record size %u", pNew->pStore->Path,
                             (unsigned)pHeader->NumberOfColumns,
                             (unsigned)pNew->pStore->RecordSize);
    rc = SQLITE_ERROR;
    goto connect_error;
  }
  pNew->nCol = (int)pHeader->NumberOfColumns;
  memcpy(pNew->aCol, pHeader->Columns,
         sizeof(pNew->aCol[0]) * (size_t)pNew->nCol);
  pNew->iTsCol = -1;
  pNew->iIdColumn = 0;
  for(i=0; i<pNew->nCol; i++){
    PCTRACE_COLUMN_DESCRIPTOR pCol = &pNew->aCol[i];
    ULONG nWidth = tsTypeWidth(pCol->Type);
    if( nWidth==0 || pCol->Width!=nWidth
     || pCol->Offset>pNew->pStore->RecordSize
     || pNew->pStore->RecordSize-pCol->Offset<pCol->Width
     || ((pCol->Flags & TRACE_COLUMN_STRING_ID)!=0
         && pCol->Type==TraceColumnDouble) ){
      tsCopyName(zName, pCol->Name);
      *pzErr = sqlite3_mprintf("corrupt store header in %s: column %d "
                               "(\"%s\") has type %u, offset %u, width %u "
                               "in a record of %u bytes", pNew->pStore->Path,
                               i, zName, (unsigned)pCol->Type,
                               (unsigned)pCol->Offset, (unsigned)pCol->Width,
                               (unsigned)pNew->pStore->RecordSize);
      rc = SQLITE_ERROR;
      goto connect_error;
    }
    tsCopyName(zName, pCol->Name);
    if( sqlite3_stricmp(zName, "id")==0 ) pNew->iIdColumn = -1;
  }
  pNew->iFirstStoreColumn = pNew->iIdColumn==0 ? 1 : 0;
  if( pHeader->TimestampColumn<(ULONG)pNew->nCol ){
    PCTRACE_COLUMN_DESCRIPTOR pTs = &pNew->aCol[pHeader->TimestampColumn];
    if( pTs->Type==TraceColumnInt64
     && (pTs->Flags & (TRACE_COLUMN_NULLABLE|TRACE_COLUMN_STRING_ID))==0 ){
      pNew->iTsCol = (int)pHeader->TimestampColumn;
    }
  }

  pDecl = sqlite3_str_new(db);
  sqlite3_str_appendall(pDecl, "CREATE TABLE x(");
  if( pNew->iIdColumn==0 ){
    sqlite3_str_appendall(pDecl, "id INTEGER");
  }
  for(i=0; i<pNew->nCol; i++){
    PCTRACE_COLUMN_DESCRIPTOR pCol = &pNew->aCol[i];
    const char *zType = "INTEGER";
    if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
      zType = "TEXT";
    }else if( pCol->Type==TraceColumnDouble ){
      zType = "REAL";
    }
    tsCopyName(zName, pCol->Name);
    sqlite3_str_appendf(pDecl, "%s\"%w\" %s",
                        (i>0 || pNew->iIdColumn==0) ? ", " : "",
                        zName, zType);
  }
  sqlite3_str_appendall(pDecl, ")");
  zDecl = sqlite3_str_finish(pDecl);
  pDecl = 0;
  if( zDecl==0 ){
    rc = SQLITE_NOMEM;
    goto connect_error;
  }
  rc = sqlite3_declare_vtab(db, zDecl);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("cannot declare table for store '%s' of %s: "
                             "%s", pNew->zStore, pNew->zPath,
                             sqlite3_errmsg(db));
    goto connect_error;
  }
  sqlite3_free(zDecl);
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &pNew->base;
  return SQLITE_OK;

connect_error:
  sqlite3_free(sqlite3_str_finish(pDecl));
  sqlite3_free(zDecl);
  if( pNew ){
    tsSessionClose(pNew->pSession);
    sqlite3_free(pNew->zPath);
    sqlite3_free(pNew->zStore);
    sqlite3_free(pNew);
  }
  return rc;
}

/*
** xBestIndex: chooses at most one usable constraint per idxNum bit on the
** rowid (column -1, or `id`) and on ts, and consumes ORDER BY rowid.
*/
static int tracestoreBestIndex(sqlite3_vtab *tab, sqlite3_index_info *pIdxInfo){
  tracestore_vtab *pTab = (tracestore_vtab*)tab;
  int aiConstraint[TS_N_CONSTRAINT_BIT];  /* aConstraint[] index per bit */
  int iTsColumn = -2;                      /* SQL column index of ts */
  int idxNum = 0;
  int nArg = 0;
  int i, j, bTs, op;
  double nRow, nVisit;
  int bSorted;

  if( pTab->iTsCol>=0 ) iTsColumn = pTab->iTsCol + pTab->iFirstStoreColumn;
  for(j=0; j<TS_N_CONSTRAINT_BIT; j++) aiConstraint[j] = -1;

  for(i=0; i<pIdxInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *p = &pIdxInfo->aConstraint[i];
    if( !p->usable ) continue;
    if( p->iColumn==-1 || (pTab->iIdColumn>=0 && p->iColumn==pTab->iIdColumn) ){
      bTs = 0;
    }else if( p->iColumn==iTsColumn ){
      bTs = 1;
    }else{
      continue;
    }
    op = p->op;
    for(j=0; j<TS_N_CONSTRAINT_BIT; j++){
      if( aTsConstraintBit[j].bTs==bTs && aTsConstraintBit[j].op==op ){
        if( aiConstraint[j]<0 ) aiConstraint[j] = i;
        break;
      }
    }
  }

  /* Hand the chosen constraints to xFilter in bit order; SQLite rechecks. */
  for(j=0; j<TS_N_CONSTRAINT_BIT; j++){
    if( aiConstraint[j]<0 ) continue;
    idxNum |= aTsConstraintBit[j].mask;
    pIdxInfo->aConstraintUsage[aiConstraint[j]].argvIndex = ++nArg;
    pIdxInfo->aConstraintUsage[aiConstraint[j]].omit = 0;
  }

  if( pIdxInfo->nOrderBy==1
   && (pIdxInfo->aOrderBy[0].iColumn==-1
       || (pTab->iIdColumn>=0
           && pIdxInfo->aOrderBy[0].iColumn==pTab->iIdColumn)) ){
    pIdxInfo->orderByConsumed = 1;
    if( pIdxInfo->aOrderBy[0].desc ) idxNum |= TS_ORDER_DESC;
  }

  /*
  ** Cost: one unit per record visited, from the count of the last
  ** snapshot.  A bound on either side is guessed to keep a quarter of the
  ** records; ts bounds count only if the store is sorted now.
  */
  nRow = (double)pTab->pStore->Snapshot.RecordCount;
  if( nRow<1.0 ) nRow = 1.0;
  bSorted = (pTab->pStore->Snapshot.Flags & TRACE_SLOT_SORTED)!=0;
  nVisit = nRow;
  if( idxNum & TS_ROWID_EQ ){
    nVisit = 1.0;
  }else{
    if( idxNum & (TS_ROWID_GT|TS_ROWID_GE) ) nVisit /= 4.0;
    if( idxNum & (TS_ROWID_LT|TS_ROWID_LE) ) nVisit /= 4.0;
    if( bSorted ){
      if( idxNum & TS_TS_EQ ){
        nVisit = nVisit<4.0 ? nVisit : 4.0;
      }else{
        if( idxNum & (TS_TS_GT|TS_TS_GE) ) nVisit /= 4.0;
        if( idxNum & (TS_TS_LT|TS_TS_LE) ) nVisit /= 4.0;
      }
    }
  }
  if( nVisit<1.0 ) nVisit = 1.0;
  pIdxInfo->estimatedRows = (sqlite3_int64)nVisit;
  pIdxInfo->estimatedCost = nVisit + (nVisit<nRow ? 10.0 : 0.0);
  if( idxNum & TS_ROWID_EQ ){
    pIdxInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }
  pIdxInfo->idxNum = idxNum;
  return SQLITE_OK;
}

static int tracestoreOpen(sqlite3_vtab *p, sqlite3_vtab_cursor **ppCursor){
  tracestore_cursor *pCur;
  (void)p;
  pCur = sqlite3_malloc64(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->iFirst = 0;
  pCur->iLast = -1;
  pCur->iRowid = 0;
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

/*
** Stops counting the cursor among those that share the table's snapshot.
*/
static void tracestoreReleaseSnapshot(tracestore_cursor *pCur){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  if( pCur->bShared ){
    pCur->bShared = 0;
    pTab->nSharedSnapshot--;
  }
}

/*
** xFilter: takes (or shares) a snapshot and sets the range of records to
** visit from the constraints in argv, whose order idxNum tells (see the
** TS_* bits).
*/
static int tracestoreFilter(
  sqlite3_vtab_cursor *cur,
  int idxNum, const char *idxStr,
  int argc, sqlite3_value **argv
){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  tracestore_vtab *pTab = (tracestore_vtab*)cur->pVtab;
  TRACE_STORE_SNAPSHOT *pSnap = &pTab->sharedSnapshot;
  sqlite3_int64 nRecord;
  sqlite3_int64 iLo, iHi;                       /* Range of rowids */
  sqlite3_int64 iTsLo = TS_INT64_MIN;           /* Range of ts */
  sqlite3_int64 iTsHi = TS_INT64_MAX;
  sqlite3_int64 iFrom, iTo;
  int bTsBound = 0;
  int iArg = 0;
  int j;
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;

  (void)idxStr;
  pCur->iFirst = 0;
  pCur->iLast = -1;
  pCur->iRowid = 0;
  pCur->bDesc = (idxNum & TS_ORDER_DESC)!=0;

  /*
  ** A cursor lives as long as its statement runs: once it has a snapshot
  ** it keeps it when filtered again (the inner loop of a join), and while
  ** any cursor of this table holds one, new cursors share it.
  */
  if( !pCur->bShared ){
    if( pTab->nSharedSnapshot==0 ){
      memset(&error, 0, sizeof(error));
      status = TraceStoreTakeSnapshot(pTab->pStore, pSnap, &error);
      if( !RTL_SUCCESS(status) ){
        zReason = tsErrorText(status, &error);
        sqlite3_free(pTab->base.zErrMsg);
        pTab->base.zErrMsg = sqlite3_mprintf("cannot read store '%s' of "
                                             "trace session '%s': %s",
                                             pTab->zStore, pTab->zPath,
                                             zReason);
        sqlite3_free(zReason);
        return SQLITE_ERROR;
      }
    }
    pTab->nSharedSnapshot++;
    pCur->bShared = 1;
  }

  nRecord = (sqlite3_int64)pSnap->RecordCount;
  if( nRecord<0 ) nRecord = TS_INT64_MAX;
  iLo = 0;
  iHi = nRecord-1;
  for(j=0; j<TS_N_CONSTRAINT_BIT; j++){
    if( (idxNum & aTsConstraintBit[j].mask)==0 ) continue;
    if( iArg>=argc ) break;
    if( aTsConstraintBit[j].bTs ){
      tsNarrow(argv[iArg], aTsConstraintBit[j].op, &iTsLo, &iTsHi);
      bTsBound = 1;
    }else{
      tsNarrow(argv[iArg], aTsConstraintBit[j].op, &iLo, &iHi);
    }
    iArg++;
  }

  /*
  ** ts bounds narrow the range only if the records of this snapshot are
  ** sorted by ts; otherwise every record is visited and SQLite filters.
  ** An empty ts range (or a NULL value) is empty whatever the order.
  */
  if( bTsBound && iLo<=iHi ){
    if( iTsLo>iTsHi ){
      iHi = iLo-1;
    }else if( pTab->iTsCol>=0 && (pSnap->Flags & TRACE_SLOT_SORTED)!=0 ){
      iFrom = iTsLo==TS_INT64_MIN ? 0 : tsSearchTs(pTab, nRecord, iTsLo, 0);
      iTo = iTsHi==TS_INT64_MAX ? nRecord : tsSearchTs(pTab, nRecord, iTsHi, 1);
      if( iFrom>iLo ) iLo = iFrom;
      if( iTo-1<iHi ) iHi = iTo-1;
    }
  }

  if( iLo<0 ) iLo = 0;
  if( iHi>nRecord-1 ) iHi = nRecord-1;
  pCur->iFirst = iLo;
  pCur->iLast = iHi;
  pCur->iRowid = pCur->bDesc ? iHi : iLo;
  return SQLITE_OK;
}

static int tracestoreNext(sqlite3_vtab_cursor *cur){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  if( pCur->bDesc ){
    pCur->iRowid--;
  }else{
    pCur->iRowid++;
  }
  return SQLITE_OK;
}

static int tracestoreEof(sqlite3_vtab_cursor *cur){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  if( pCur->iFirst>pCur->iLast ) return 1;
  if( pCur->bDesc ) return pCur->iRowid<pCur->iFirst;
  return pCur->iRowid>pCur->iLast;
}

/*
** xColumn: column 0 is `id` (unless the store has its own id column);
** the others are read from the record at the time of the call.
*/
static int tracestoreColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  tracestore_vtab *pTab = (tracestore_vtab*)cur->pVtab;
  PCTRACE_COLUMN_DESCRIPTOR pCol;
  LONGLONG value;
  double r;
  PCSZ zText;
  ULONG nText;
  RTL_STATUS status;
  char zName[TRACE_NAME_SIZE+1];

  if( i==pTab->iIdColumn ){
    sqlite3_result_int64(ctx, pCur->iRowid);
    return SQLITE_OK;
  }
  i -= pTab->iFirstStoreColumn;
  if( i<0 || i>=pTab->nCol ) return SQLITE_OK;
  pCol = &pTab->aCol[i];
  if( !TraceStoreReadColumn(pTab->pStore, (ULONGLONG)pCur->iRowid, pCol,
                            &value) ){
    return SQLITE_OK;                           /* NULL */
  }
  if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
    if( (ULONGLONG)value==TRACE_STRING_NULL ) return SQLITE_OK;
    status = RTL_STATUS_CORRUPT;
    zText = 0;
    nText = 0;
    if( (ULONGLONG)value<TRACE_STRING_NULL ){
      status = TraceStringLookup(&pTab->pSession->Strings, (ULONG)value,
                                 &zText, &nText);
    }
    if( !RTL_SUCCESS(status) || zText==0 ){
      tsCopyName(zName, pCol->Name);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf(
          "string id %llu in column \"%s\" of %s row %lld is not in the "
          "string store of trace session '%s' (%s)",
          (unsigned long long)value, zName, pTab->zStore, pCur->iRowid,
          pTab->zPath, RtlStatusText(status));
      return SQLITE_ERROR;
    }
    sqlite3_result_text64(ctx, zText, nText, SQLITE_TRANSIENT, SQLITE_UTF8);
    return SQLITE_OK;
  }
  if( pCol->Type==TraceColumnDouble ){
    memcpy(&r, &value, sizeof(r));
    sqlite3_result_double(ctx, r);
    return SQLITE_OK;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)value);
  return SQLITE_OK;
}

static int tracestoreRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  *pRowid = pCur->iRowid;
  return SQLITE_OK;
}

static int tracestoreClose(sqlite3_vtab_cursor *cur){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  tracestoreReleaseSnapshot(pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int tracestoreDisconnect(sqlite3_vtab *pVtab){
  tracestore_vtab *pTab = (tracestore_vtab*)pVtab;
  tsSessionClose(pTab->pSession);
  sqlite3_free(pTab->zPath);
  sqlite3_free(pTab->zStore);
  sqlite3_free(pTab);
  return SQLITE_OK;
}

static sqlite3_module tracestoreModule = {
  .iVersion    = 0,
  .xCreate     = tracestoreConnect,
  .xConnect    = tracestoreConnect,
  .xBestIndex  = tracestoreBestIndex,
  .xDisconnect = tracestoreDisconnect,
  .xDestroy    = tracestoreDisconnect,
  .xOpen       = tracestoreOpen,
  .xClose      = tracestoreClose,
  .xFilter     = tracestoreFilter,
  .xNext       = tracestoreNext,
  .xEof        = tracestoreEof,
  .xColumn     = tracestoreColumn,
  .xRowid      = tracestoreRowid,
};

/* -------------------------------------------------------------------------
** The tracestore_info module.
*/

/*
** xConnect (also xCreate): argv[3] is the session path.
*/
static int tracestoreInfoConnect(
  sqlite3 *db,
  void *pAux,
  int argc, const char *const*argv,
  sqlite3_vtab **ppVtab,
  char **pzErr
){
  tracestore_info_vtab *pNew;
  char *zPath;
  int rc;

  (void)pAux;
  *ppVtab = 0;
  if( argc!=4 ){
    *pzErr = sqlite3_mprintf(
        "wrong number of arguments to tracestore_info: use "
        "CREATE VIRTUAL TABLE %s USING tracestore_info(SESSION_PATH)",
        argv[2]);
    return SQLITE_ERROR;
  }
  rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(name TEXT, records INTEGER, bytes INTEGER,"
      " record_size INTEGER, generation INTEGER, first_ts INTEGER,"
      " last_ts INTEGER, sorted INTEGER, dropped INTEGER, repaired INTEGER)");
  if( rc!=SQLITE_OK ) return rc;
  pNew = sqlite3_malloc64(sizeof(*pNew));
  zPath = sqlite3_mprintf("%s", argv[3]);
  if( pNew==0 || zPath==0 ){
    sqlite3_free(pNew);
    sqlite3_free(zPath);
    return SQLITE_NOMEM;
  }
  memset(pNew, 0, sizeof(*pNew));
  tsDequote(zPath);
  rc = tsSessionOpen(zPath, &pNew->pSession, pzErr);
  sqlite3_free(zPath);
  if( rc!=SQLITE_OK ){
    sqlite3_free(pNew);
    return rc;
  }
  pNew->nStore = tsListStores(pNew->pSession, pNew->apStore);
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &pNew->base;
  return SQLITE_OK;
}

/*
** xBestIndex: a handful of rows; every constraint is left to SQLite.
*/
static int tracestoreInfoBestIndex(
  sqlite3_vtab *tab,
  sqlite3_index_info *pIdxInfo
){
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)tab;
  pIdxInfo->estimatedCost = (double)pTab->nStore + 1.0;
  pIdxInfo->estimatedRows = pTab->nStore;
  pIdxInfo->idxNum = 0;
  return SQLITE_OK;
}

static int tracestoreInfoOpen(sqlite3_vtab *p, sqlite3_vtab_cursor **ppCursor){
  tracestore_info_cursor *pCur;
  (void)p;
  pCur = sqlite3_malloc64(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

/*
** xFilter: a fresh snapshot of every store.
*/
static int tracestoreInfoFilter(
  sqlite3_vtab_cursor *cur,
  int idxNum, const char *idxStr,
  int argc, sqlite3_value **argv
){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)cur->pVtab;
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;
  char zName[TRACE_NAME_SIZE+1];
  int i;

  (void)idxNum; (void)idxStr; (void)argc; (void)argv;
  pCur->iRow = 0;
  pCur->nRow = 0;
  for(i=0; i<pTab->nStore; i++){
    memset(&error, 0, sizeof(error));
    status = TraceStoreTakeSnapshot(pTab->apStore[i], &pCur->aSnapshot[i],
                                    &error);
    if( !RTL_SUCCESS(status) ){
      zReason = tsErrorText(status, &error);
      tsCopyName(zName, pTab->apStore[i]->Name);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read store '%s' of trace "
                                           "session '%s': %s", zName,
                                           pTab->pSession->Path, zReason);
      sqlite3_free(zReason);
      return SQLITE_ERROR;
    }
  }
  pCur->nRow = pTab->nStore;
  return SQLITE_OK;
}

static int tracestoreInfoNext(sqlite3_vtab_cursor *cur){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  pCur->iRow++;
  return SQLITE_OK;
}

static int tracestoreInfoEof(sqlite3_vtab_cursor *cur){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  return pCur->iRow>=pCur->nRow;
}

static int tracestoreInfoColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)cur->pVtab;
  PTRACE_STORE pStore = pTab->apStore[pCur->iRow];
  const TRACE_STORE_SNAPSHOT *pSnap = &pCur->aSnapshot[pCur->iRow];
  char zName[TRACE_NAME_SIZE+1];
  int bHasTs;

  bHasTs = pSnap->RecordCount>0
        && pStore->Header->TimestampColumn!=TRACE_NO_COLUMN;
  switch( i ){
    case TSI_COLUMN_NAME:
      tsCopyName(zName, pStore->Name);
      sqlite3_result_text(ctx, zName, -1, SQLITE_TRANSIENT);
      break;
    case TSI_COLUMN_RECORDS:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->RecordCount);
      break;
    case TSI_COLUMN_BYTES:
      sqlite3_result_int64(ctx, (sqlite3_int64)(
          (ULONGLONG)pStore->Header->HeaderSize
          + pSnap->RecordCount * (ULONGLONG)pStore->RecordSize));
      break;
    case TSI_COLUMN_RECORD_SIZE:
      sqlite3_result_int64(ctx, (sqlite3_int64)pStore->RecordSize);
      break;
    case TSI_COLUMN_GENERATION:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->Generation);
      break;
    case TSI_COLUMN_FIRST_TS:
      if( bHasTs ) sqlite3_result_int64(ctx, pSnap->FirstTs);
      break;
    case TSI_COLUMN_LAST_TS:
      if( bHasTs ) sqlite3_result_int64(ctx, pSnap->LastTs);
      break;
    case TSI_COLUMN_SORTED:
      if( pStore->TimestampOffset!=TRACE_NO_COLUMN ){
        sqlite3_result_int(ctx, (pSnap->Flags & TRACE_SLOT_SORTED)!=0);
      }
      break;
    case TSI_COLUMN_DROPPED:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->Dropped);
      break;
    case TSI_COLUMN_REPAIRED:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->Repaired);
      break;
  }
  return SQLITE_OK;
}

static int tracestoreInfoRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  *pRowid = pCur->iRow;
  return SQLITE_OK;
}

static int tracestoreInfoClose(sqlite3_vtab_cursor *cur){
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int tracestoreInfoDisconnect(sqlite3_vtab *pVtab){
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)pVtab;
  tsSessionClose(pTab->pSession);
  sqlite3_free(pTab);
  return SQLITE_OK;
}

static sqlite3_module tracestoreInfoModule = {
  .iVersion    = 0,
  .xCreate     = tracestoreInfoConnect,
  .xConnect    = tracestoreInfoConnect,
  .xBestIndex  = tracestoreInfoBestIndex,
  .xDisconnect = tracestoreInfoDisconnect,
  .xDestroy    = tracestoreInfoDisconnect,
  .xOpen       = tracestoreInfoOpen,
  .xClose      = tracestoreInfoClose,
  .xFilter     = tracestoreInfoFilter,
  .xNext       = tracestoreInfoNext,
  .xEof        = tracestoreInfoEof,
  .xColumn     = tracestoreInfoColumn,
  .xRowid      = tracestoreInfoRowid,
};

/* -------------------------------------------------------------------------
** tracestore_attach(PATH [, SCHEMA])
**
** For each table the session needs (one per store but the string stores,
** and store_info) the function finds what SCHEMA already holds under that
** name: nothing (create it), the very table it would create (keep it), a
** tracestore table of another session or store (replace it), or anything
** else (refuse, before changing anything).  Tables that an earlier call
** made for stores this session does not have are dropped, so that no
** table of the previous session stays behind.  The old tables are all
** dropped first, then the new ones created; if any step fails, what was
** done is undone and the old tables are put back from their CREATE text,
** so a failed call leaves SCHEMA as it was.  (A table cannot be dropped
** while a statement that reads it is still running.)
*/

/* What tracestore_attach() does with one table. */
#define TS_TARGET_CREATE   0    /* No such table: create it */
#define TS_TARGET_KEEP     1    /* Exactly this table exists: keep it */
#define TS_TARGET_REPLACE  2    /* Another tracestore table: replace it */
#define TS_TARGET_DROP     3    /* Made for a store this session lacks */

typedef struct tracestore_target tracestore_target;
struct tracestore_target {
  char zName[TRACE_NAME_SIZE+1];  /* Table (and store) name */
  int bInfo;                      /* store_info: a tracestore_info table */
  int eAction;                    /* TS_TARGET_* */
  char *zOldSql;                  /* CREATE text of the table replaced */
  int bDropped;                   /* The old table has been dropped */
  int bCreated;                   /* The new table has been created */
};

/*
** Returns the CREATE text SQLite keeps for the table tracestore_attach()
** creates for pTarget (the statement from the table name on, without the
** schema).  From sqlite3_mprintf().
*/
static char *tsTargetSql(tracestore_target *pTarget, const char *zPath){
  if( pTarget->bInfo ){
    return sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                           "tracestore_info(%Q)", pTarget->zName, zPath);
  }
  return sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                         "tracestore(%Q, %Q)", pTarget->zName, zPath,
                         pTarget->zName);
}

/*
** Sets pTarget->eAction (and zOldSql) from what zSchema holds under
** pTarget->zName.  Returns an error, with a message in *pzErr, if the name
** is taken by something that is not a tracestore table, or if there is no
** such schema.
*/
static int tsCheckTarget(
  sqlite3 *db,
  const char *zSchema,
  const char *zPath,
  tracestore_target *pTarget,
  char **pzErr
){
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  char *zWanted;
  int rc;

  pTarget->eAction = TS_TARGET_CREATE;
  zSql = sqlite3_mprintf("SELECT type, sql FROM \"%w\".sqlite_master "
                         "WHERE name=?1 COLLATE NOCASE", zSchema);
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("there is no database named '%s' to create the "
                             "tables in (ATTACH one first, e.g. "
                             "ATTACH ':memory:' AS \"%w\")", zSchema, zSchema);
    return rc;
  }
  sqlite3_bind_text(pStmt, 1, pTarget->zName, -1, SQLITE_STATIC);
  rc = sqlite3_step(pStmt);
  if( rc==SQLITE_ROW ){
    const char *zType = (const char*)sqlite3_column_text(pStmt, 0);
    const char *zCreate = (const char*)sqlite3_column_text(pStmt, 1);
    rc = SQLITE_OK;
    if( zType==0 || strcmp(zType, "table")!=0
     || !tsIsTracestoreTable(zCreate) ){
      *pzErr = sqlite3_mprintf("%s.%s already exists and is not a "
                               "tracestore table: drop it, or attach into "
                               "another schema with tracestore_attach(PATH, "
                               "SCHEMA)", zSchema, pTarget->zName);
      rc = SQLITE_ERROR;
    }else{
      zWanted = tsTargetSql(pTarget, zPath);
      if( zWanted==0 ){
        rc = SQLITE_NOMEM;
      }else if( strcmp(zWanted, zCreate)==0 ){
        pTarget->eAction = TS_TARGET_KEEP;
      }else{
        pTarget->eAction = TS_TARGET_REPLACE;
        pTarget->zOldSql = sqlite3_mprintf("%s", zCreate);
        if( pTarget->zOldSql==0 ) rc = SQLITE_NOMEM;
      }
      sqlite3_free(zWanted);
    }
  }else if( rc==SQLITE_DONE ){
    rc = SQLITE_OK;
  }else{
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Returns true if zSql is the CREATE text of a table that
** tracestore_attach() made under the name zName (for any session).
*/
static int tsMadeByAttach(const char *zName, const char *zSql){
  char *zPrefix, *zSuffix;
  size_t nSql, nPrefix, nSuffix;
  int bMatch = 0;
  if( sqlite3_stricmp(zName, "store_info")==0 ){
    zPrefix = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                              "tracestore_info(", zName);
    zSuffix = sqlite3_mprintf(")");
  }else{
    zPrefix = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                              "tracestore(", zName);
    zSuffix = sqlite3_mprintf(", %Q)", zName);
  }
  if( zPrefix && zSuffix && zSql ){
    nSql = strlen(zSql);
    nPrefix = strlen(zPrefix);
    nSuffix = strlen(zSuffix);
    bMatch = nSql>nPrefix+nSuffix
          && memcmp(zSql, zPrefix, nPrefix)==0
          && memcmp(zSql+nSql-nSuffix, zSuffix, nSuffix)==0;
  }
  sqlite3_free(zPrefix);
  sqlite3_free(zSuffix);
  return bMatch;
}

/*
** Appends to *paTarget (holding *pnTarget entries) a TS_TARGET_DROP entry
** for every table of zSchema that an earlier tracestore_attach() made and
** that is not already a target.
*/
static int tsFindStale(
  sqlite3 *db,
  const char *zSchema,
  tracestore_target **paTarget,
  int *pnTarget,
  char **pzErr
){
  sqlite3_stmt *pStmt = 0;
  tracestore_target *aNew;
  const char *zName, *zSql;
  char *zQuery;
  int rc, i;

  zQuery = sqlite3_mprintf("SELECT name, sql FROM \"%w\".sqlite_master "
                           "WHERE type='table'", zSchema);
  if( zQuery==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zQuery, -1, &pStmt, 0);
  sqlite3_free(zQuery);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    return rc;
  }
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    zName = (const char*)sqlite3_column_text(pStmt, 0);
    zSql = (const char*)sqlite3_column_text(pStmt, 1);
    if( zName==0 || strlen(zName)>TRACE_NAME_SIZE
     || !tsMadeByAttach(zName, zSql) ){
      continue;
    }
    for(i=0; i<*pnTarget; i++){
      if( sqlite3_stricmp((*paTarget)[i].zName, zName)==0 ) break;
    }
    if( i<*pnTarget ) continue;
    aNew = sqlite3_realloc64(*paTarget, sizeof(aNew[0])*(size_t)(*pnTarget+1));
    if( aNew==0 ){
      rc = SQLITE_NOMEM;
      break;
    }
    *paTarget = aNew;
    memset(&aNew[*pnTarget], 0, sizeof(aNew[0]));
    memcpy(aNew[*pnTarget].zName, zName, strlen(zName)+1);
    aNew[*pnTarget].eAction = TS_TARGET_DROP;
    aNew[*pnTarget].zOldSql = sqlite3_mprintf("%s", zSql);
    (*pnTarget)++;
    if( aNew[*pnTarget-1].zOldSql==0 ){
      rc = SQLITE_NOMEM;
      break;
    }
  }
  if( rc==SQLITE_DONE ){
    rc = SQLITE_OK;
  }else if( rc!=SQLITE_NOMEM ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Runs one statement built with sqlite3_mprintf() (which may have failed).
*/
static int tsExec(sqlite3 *db, char *zSql, char **pzErr){
  int rc;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(db, zSql, 0, 0, pzErr);
  sqlite3_free(zSql);
  return rc;
}

static void tracestoreAttachFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  TRACE_SESSION *pSession = 0;
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];
  tracestore_target *aTarget = 0;
  tracestore_target *pTarget;
  const char *zPath;
  const char *zSchema = "temp";
  char *zErr = 0;
  char *zMsg;
  int nTarget = 0, nTable, nStore, i, rc;

  zPath = (const char*)sqlite3_value_text(argv[0]);
  if( zPath==0 || zPath[0]==0 ){
    sqlite3_result_error(ctx, "tracestore_attach(PATH [, SCHEMA]): PATH "
                         "must name the directory of a trace session", -1);
    return;
  }
  if( argc>1 ){
    zSchema = (const char*)sqlite3_value_text(argv[1]);
    if( zSchema==0 || zSchema[0]==0 ){
      sqlite3_result_error(ctx, "tracestore_attach(PATH, SCHEMA): SCHEMA "
                           "must name a database, such as 'temp' or 'main'",
                           -1);
      return;
    }
  }

  /* Open the session once, to check it and to learn its store names. */
  rc = tsSessionOpen(zPath, &pSession, &zErr);
  if( rc!=SQLITE_OK ) goto attach_error;
  nStore = tsListStores(pSession, apStore);
  aTarget = sqlite3_malloc64(sizeof(aTarget[0]) * (size_t)(nStore+1));
  if( aTarget==0 ){
    rc = SQLITE_NOMEM;
    goto attach_error;
  }
  memset(aTarget, 0, sizeof(aTarget[0]) * (size_t)(nStore+1));
  for(i=0; i<nStore; i++){
    pTarget = &aTarget[nTarget];
    tsCopyName(pTarget->zName, apStore[i]->Name);
    if( strcmp(pTarget->zName, "string")==0
     || strcmp(pTarget->zName, "string_data")==0
     || pTarget->zName[0]==0 ){
      continue;
    }
    nTarget++;
  }
  memcpy(aTarget[nTarget].zName, "store_info", sizeof("store_info"));
  aTarget[nTarget++].bInfo = 1;
  tsSessionClose(pSession);
  pSession = 0;

  /* Change nothing unless every name is free or a tracestore table. */
  nTable = nTarget;
  for(i=0; i<nTarget; i++){
    rc = tsCheckTarget(db, zSchema, zPath, &aTarget[i], &zErr);
    if( rc!=SQLITE_OK ) goto attach_error;
  }
  rc = tsFindStale(db, zSchema, &aTarget, &nTarget, &zErr);
  if( rc!=SQLITE_OK ) goto attach_error;

  for(i=0; i<nTarget; i++){
    pTarget = &aTarget[i];
    if( pTarget->eAction!=TS_TARGET_REPLACE
     && pTarget->eAction!=TS_TARGET_DROP ){
      continue;
    }
    rc = tsExec(db, sqlite3_mprintf("DROP TABLE \"%w\".\"%w\"",
                                    zSchema, pTarget->zName), &zErr);
    if( rc!=SQLITE_OK ){
      if( rc==SQLITE_LOCKED ){
        sqlite3_free(zErr);
        zErr = sqlite3_mprintf("cannot replace %s.%s while a statement "
                               "that reads it is still running: finish "
                               "that statement, then attach again",
                               zSchema, pTarget->zName);
      }
      goto attach_undo;
    }
    pTarget->bDropped = 1;
  }
  for(i=0; i<nTarget; i++){
    pTarget = &aTarget[i];
    if( pTarget->eAction==TS_TARGET_KEEP
     || pTarget->eAction==TS_TARGET_DROP ){
      continue;
    }
    if( pTarget->bInfo ){
      zMsg = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".\"%w\" "
                             "USING tracestore_info(%Q)",
                             zSchema, pTarget->zName, zPath);
    }else{
      zMsg = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".\"%w\" "
                             "USING tracestore(%Q, %Q)",
                             zSchema, pTarget->zName, zPath, pTarget->zName);
    }
    rc = tsExec(db, zMsg, &zErr);
    if( rc!=SQLITE_OK ) goto attach_undo;
    pTarget->bCreated = 1;
  }
  sqlite3_result_int(ctx, nTable);
  goto attach_done;

attach_undo:
  /*
  ** Best effort, keeping the first error: drop what this call created and
  ** put back what it dropped ("CREATE VIRTUAL TABLE " and then the old
  ** text from the table name on, into the same schema).
  */
  for(i=0; i<nTarget; i++){
    pTarget = &aTarget[i];
    if( pTarget->bCreated ){
      tsExec(db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w\"",
                                 zSchema, pTarget->zName), 0);
    }
    if( pTarget->bDropped && pTarget->zOldSql ){
      tsExec(db, sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".%s", zSchema,
                                 pTarget->zOldSql + 21), 0);
    }
  }

attach_error:
  tsSessionClose(pSession);
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    zMsg = sqlite3_mprintf("tracestore_attach: %s",
                           zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, zMsg ? zMsg : "tracestore_attach failed", -1);
    sqlite3_free(zMsg);
  }

attach_done:
  if( aTarget ){
    for(i=0; i<nTarget; i++) sqlite3_free(aTarget[i].zOldSql);
    sqlite3_free(aTarget);
  }
  sqlite3_free(zErr);
}

/* -------------------------------------------------------------------------
** Entry point.
*/

/*
** Fills in the shared RTL once per process.
*/
static int tsInitializeRtl(char **pzErrMsg){
  sqlite3_mutex *pMutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_MAIN);
  RTL_STATUS status = RTL_STATUS_OK;
  sqlite3_mutex_enter(pMutex);
  if( !tsRtlReady ){
    memset(&tsRtl, 0, sizeof(tsRtl));
    status = InitializeRtl(&tsRtl);
    if( RTL_SUCCESS(status) ) tsRtlReady = 1;
  }
  sqlite3_mutex_leave(pMutex);
  if( !RTL_SUCCESS(status) ){
    *pzErrMsg = sqlite3_mprintf("tracestore: cannot initialize the runtime: "
                                "%s", RtlStatusText(status));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_tracestore_init(
  sqlite3 *db,
  char **pzErrMsg,
  const sqlite3_api_routines *pApi
){
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  rc = tsInitializeRtl(pzErrMsg);
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_module_v2(db, "tracestore", &tracestoreModule, 0, 0);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_module_v2(db, "tracestore_info",
                                  &tracestoreInfoModule, 0, 0);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function_v2(db, "tracestore_attach", 1,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                    tracestoreAttachFunc, 0, 0, 0);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function_v2(db, "tracestore_attach", 2,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                    tracestoreAttachFunc, 0, 0, 0);
  }
  return rc;
}
