/*
** CmdInfo.c: `tracestore info`: a session's stores, as a table or JSON.
**
** Zone: hosted (the command-line front end): libc.  Owns the layout of
** the table and the JSON.  Calls the store API (TraceStore/TraceStore.h:
** TraceSessionOpenReader) and HostUtil.c (errors, JSON strings).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Cli/Cli.h"
#include "TraceStore/TraceRollup.h"

static const char zInfoHelp[] =
"usage: tracestore info [--json] SESSION\n"
"\n"
"Shows the machine SESSION was made on (host name or --host tag, boot id,\n"
"kernel release; NULL for sessions made before they were kept), then\n"
"lists the stores of SESSION: records, bytes, time span, whether records\n"
"are in time order, and events the source reported lost; then each\n"
"imported source with its clock and the alignment import applied (TSC\n"
"rate, guest TSC offset, clock offset) and the facts it stated about its\n"
"recording (the metadata store: a perf.data's host, command line, CPUs);\n"
"and the rollup of each event\n"
"store, which the views read: how many records its file covers, or why\n"
"it is not used (missing, damaged, of another version: the views then\n"
"fold every record).  --json prints one JSON object for scripts.\n";

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
    hostJsonString(p->Name);
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

/*
** The facts each input stated about its recording (the metadata store:
** a perf.data's header), by source.
*/
static void infoMetadata(PTRACE_SESSION pSession, int bJson){
  static const char *const azCol[] = {
    "source_id", "name", "int_value", "str_value"
  };
  PTRACE_STORE p = TraceSessionFindStore(pSession, "metadata");
  PCTRACE_COLUMN_DESCRIPTOR aCol[4];
  unsigned long long i, n;
  int k;
  if( p==0 ) return;
  for(k=0; k<4; k++){
    aCol[k] = TraceStoreFindColumn(p->Header, azCol[k]);
    if( aCol[k]==0 ) return;
  }
  n = p->Snapshot.RecordCount;
  if( bJson ){
    printf(",\n  \"metadata\": [");
  }else if( n ){
    printf("\nrecorded (metadata):\n");
  }
  for(i=0; i<n; i++){
    LONGLONG v[4];
    int bHave[4];
    PCSZ azText[2] = { 0, 0 };
    ULONG nz;
    for(k=0; k<4; k++){
      bHave[k] = TraceStoreReadColumn(p, i, aCol[k], &v[k]);
    }
    if( bHave[1] ) TraceStringLookup(&pSession->Strings, (ULONG)v[1],
                                     &azText[0], &nz);
    if( bHave[3] ) TraceStringLookup(&pSession->Strings, (ULONG)v[3],
                                     &azText[1], &nz);
    if( bJson ){
      printf("%s\n    {\"source_id\": %lld, \"name\": ", i ? "," : "",
             (long long)v[0]);
      if( azText[0] ) hostJsonString(azText[0]); else printf("null");
      printf(", \"value\": ");
      if( azText[1] ) hostJsonString(azText[1]);
      else if( bHave[2] ) printf("%lld", (long long)v[2]);
      else printf("null");
      printf("}");
    }else{
      printf("  %-4lld %-28s ", (long long)v[0], azText[0] ? azText[0] : "-");
      if( azText[1] ) printf("%s\n", azText[1]);
      else if( bHave[2] ) printf("%lld\n", (long long)v[2]);
      else printf("NULL\n");
    }
  }
  if( bJson ) printf("%s]", n ? "\n  " : "");
}

/*
** The clock of each imported source and the alignment applied to it
** (import --tsc-mhz/--tsc-khz, --tsc-offset, --clock-offset), read by
** column name so that a session from before those columns still prints.
*/
static void infoSources(PTRACE_SESSION pSession, int bJson){
  static const char *const azCol[] = {
    "path", "format", "clock", "tsc_mhz", "tsc_offset", "clock_offset"
  };
  PTRACE_STORE p = TraceSessionFindStore(pSession, "source");
  PCTRACE_COLUMN_DESCRIPTOR aCol[6];
  unsigned long long i, n;
  int k;
  if( p==0 ) return;
  for(k=0; k<6; k++) aCol[k] = TraceStoreFindColumn(p->Header, azCol[k]);
  n = p->Snapshot.RecordCount;
  if( bJson ){
    printf(",\n  \"sources\": [");
  }else if( n ){
    printf("\n%-40s %-16s %-8s %10s %20s %14s\n", "source", "format",
           "clock", "tsc_mhz", "tsc_offset", "clock_offset");
  }
  for(i=0; i<n; i++){
    const char *az[3] = { 0, 0, 0 };
    LONGLONG v[6];
    int bHave[6];
    for(k=0; k<6; k++){
      bHave[k] = aCol[k] && TraceStoreReadColumn(p, i, aCol[k], &v[k]);
      if( k<3 && bHave[k] ){
        PCSZ z;
        ULONG nz;
        if( RTL_SUCCESS(TraceStringLookup(&pSession->Strings, (ULONG)v[k],
                                          &z, &nz)) ){
          az[k] = z;
        }
      }
    }
    if( bJson ){
      double r;
      printf("%s\n    {", i ? "," : "");
      for(k=0; k<3; k++){
        printf("%s\"%s\": ", k ? ", " : "", azCol[k]);
        if( az[k] ) hostJsonString(az[k]); else printf("null");
      }
      if( bHave[3] ){
        memcpy(&r, &v[3], sizeof(r));
        printf(", \"tsc_mhz\": %.17g", r);
      }else{
        printf(", \"tsc_mhz\": null");
      }
      for(k=4; k<6; k++){
        if( bHave[k] ){
          printf(", \"%s\": %lld", azCol[k], (long long)v[k]);
        }else{
          printf(", \"%s\": null", azCol[k]);
        }
      }
      printf("}");
    }else{
      char zMhz[32] = "-", zTsc[32] = "-", zClk[32] = "-";
      double r;
      if( bHave[3] ){
        memcpy(&r, &v[3], sizeof(r));
        snprintf(zMhz, sizeof(zMhz), "%g", r);
      }
      if( bHave[4] ) snprintf(zTsc, sizeof(zTsc), "%lld", (long long)v[4]);
      if( bHave[5] ) snprintf(zClk, sizeof(zClk), "%lld", (long long)v[5]);
      printf("%-40s %-16s %-8s %10s %20s %14s\n", az[0] ? az[0] : "-",
             az[1] ? az[1] : "-", az[2] ? az[2] : "-", zMhz, zTsc, zClk);
    }
  }
  if( bJson ) printf("\n  ]");
}

/*
** The rollup each event store's views read (TraceStore/TraceRollup.h):
** how much of the store its file covers, or why the views do without it.
*/
static void infoRollups(PTRACE_SESSION pSession, int bJson){
  static const char *const azSource[] = {
    "file", "missing", "damaged", "other_version", "other_store", "ahead",
    "not_kept"
  };
  int i, n = 0;
  for(i=0; i<(int)pSession->NumberOfStores; i++){
    PTRACE_STORE p = &pSession->Stores[i];
    TRACE_ROLLUP_STATUS st;
    const char *zSource;
    char zName[TRACE_NAME_SIZE + 2];
    /* "NAME:" — a line whose first field is no store name, so that
    ** scripts reading the store table above are not misled. */
    snprintf(zName, sizeof(zName), "%s:", p->Name);
    if( !RTL_SUCCESS(TraceRollupInspect(&Rtl, pSession->Path, p, &st))
     || st.Source==TraceRollupNotKept ){
      continue;
    }
    zSource = azSource[st.Source];
    if( bJson ){
      printf("%s\n    {\"store\": ", n ? "," : "");
      hostJsonString(p->Name);
      printf(", \"source\": \"%s\", \"covers\": %llu, \"records\": %llu, "
             "\"detail\": ", zSource,
             st.Source==TraceRollupFromFile ? st.Watermark : 0ULL,
             (unsigned long long)st.Records);
      if( st.Detail[0] ) hostJsonString(st.Detail); else printf("null");
      printf("}");
    }else{
      if( n==0 ) printf("\nrollups (the views read them):\n");
      if( st.Source==TraceRollupFromFile ){
        printf("  %-15s file, %llu of %llu records", zName,
               (unsigned long long)st.Watermark,
               (unsigned long long)st.Records);
        if( st.Watermark<st.Records ){
          printf(" (the views fold the other %llu)",
                 (unsigned long long)(st.Records - st.Watermark));
        }
        printf("\n");
      }else{
        printf("  %-15s %s: the views fold all %llu records%s%s%s\n",
               zName, zSource, (unsigned long long)st.Records,
               st.Detail[0] ? " (" : "", st.Detail, st.Detail[0] ? ")" : "");
      }
    }
    n++;
  }
}

/*
** What the session promises after a power cut (TraceStore/TraceDurable.c,
** docs/durability.md): its last sync, whether this reader sees the
** session after one (records past the sync not shown), and what earlier
** cuts took (rolled back by the next writer).
*/
static void infoDurable(PTRACE_SESSION pSession, int bJson){
  PTRACE_DURABLE d = &pSession->Durable;
  PTRACE_STORE aAll[TRACE_SESSION_MAX_STORES + 2];
  unsigned long long nLost = 0;
  int nAll = 0, i, n;
  char zWhen[64];
  time_t t;
  struct tm *pTm;
  if( !pSession->HasDurable ){
    if( bJson ) printf(",\n  \"durable\": null");
    else printf("\ndurability: no session.durable (made before issue 30)\n");
    return;
  }
  for(i=0; i<(int)pSession->NumberOfStores; i++) aAll[nAll++] = &pSession->Stores[i];
  aAll[nAll++] = &pSession->Strings.Index;
  aAll[nAll++] = &pSession->Strings.Data;
  for(i=0; i<(int)d->NumberOfEntries; i++) nLost += d->Entries[i].Lost;
  t = (time_t)(d->SyncedRealtimeNs/1000000000LL);
  pTm = gmtime(&t);
  if( pTm==0 || strftime(zWhen, sizeof(zWhen), "%Y-%m-%d %H:%M:%S UTC", pTm)==0 ){
    snprintf(zWhen, sizeof(zWhen), "%lld ns", (long long)d->SyncedRealtimeNs);
  }
  if( bJson ){
    printf(",\n  \"durable\": {\"sequence\": %llu, \"synced_ns\": %lld, "
           "\"closed\": %s, \"boot_id\": ", (unsigned long long)d->Sequence,
           (long long)d->SyncedRealtimeNs,
           (d->Flags & TRACE_DURABLE_CLOSED) ? "true" : "false");
    if( d->BootId[0] ) hostJsonString(d->BootId); else printf("null");
    printf(", \"power_cut\": %s, \"unsynced\": {",
           pSession->PowerCut ? "true" : "false");
    for(i=n=0; i<nAll; i++){
      if( aAll[i]->Unsynced==0 ) continue;
      printf("%s", n++ ? ", " : "");
      hostJsonString(aAll[i]->Name);
      printf(": %llu", (unsigned long long)aAll[i]->Unsynced);
    }
    printf("}, \"skipped_stores\": %u, \"recoveries\": %u, \"lost\": {",
           pSession->SkippedStores, d->Recoveries);
    for(i=n=0; i<(int)d->NumberOfEntries; i++){
      if( d->Entries[i].Lost==0 ) continue;
      printf("%s", n++ ? ", " : "");
      hostJsonString(d->Entries[i].Name);
      printf(": %llu", (unsigned long long)d->Entries[i].Lost);
    }
    printf("}, \"removed_stores\": %u}", d->RemovedStores);
    return;
  }
  printf("\ndurability (docs/durability.md):\n");
  printf("  last sync:  %s, sync %llu, %s\n", zWhen,
         (unsigned long long)d->Sequence,
         (d->Flags & TRACE_DURABLE_CLOSED) ? "at its writer's close"
         : "by a writer still writing, killed, or cut off");
  if( pSession->PowerCut ){
    printf("  power cut:  the last sync was made on boot %s, not this one:\n"
           "              the stores are shown as it left them\n", d->BootId);
    for(i=0; i<nAll; i++){
      if( aAll[i]->Unsynced==0 ) continue;
      printf("              %s: %llu records committed after it not shown\n",
             aAll[i]->Name, (unsigned long long)aAll[i]->Unsynced);
    }
    if( pSession->SkippedStores ){
      printf("              %u store files created after it not opened\n",
             pSession->SkippedStores);
    }
  }
  if( d->Recoveries ){
    printf("  recovered:  %u power cuts; they took %llu records", d->Recoveries,
           nLost);
    for(i=n=0; i<(int)d->NumberOfEntries; i++){
      if( d->Entries[i].Lost==0 ) continue;
      printf("%s%s %llu", n++ ? ", " : " (", d->Entries[i].Name,
             (unsigned long long)d->Entries[i].Lost);
    }
    printf("%s and %u store files\n", n ? ")" : "", d->RemovedStores);
  }
}

/* A header field, or NULL (sessions made before issue 19 have none). */
static void infoHostField(const char *zKey, const char *z, int bJson){
  if( bJson ){
    printf(",\n  \"%s\": ", zKey);
    if( z[0] ) hostJsonString(z); else printf("null");
  }else{
    printf("%-8s %s\n", zKey, z[0] ? z : "NULL (not recorded)");
  }
}

/* The machine the session was made on (TRACE_SESSION_HOST). */
static void infoHost(PCTRACE_SESSION_HOST pHost, int bJson){
  infoHostField(bJson ? "host" : "host:", pHost->HostName, bJson);
  infoHostField(bJson ? "boot_id" : "boot_id:", pHost->BootId, bJson);
  infoHostField(bJson ? "kernel" : "kernel:", pHost->KernelRelease, bJson);
}

int cmdInfo(int argc, char **argv){
  int bJson = 0, i;
  const char *zSession = 0;
  PTRACE_SESSION pSession;
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
      hostFail("info: unknown option '%s'", argv[i]);
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

  pSession = hostOpenSession(zSession, 0);
  if( pSession==0 ) return 1;

  for(i=0; i<(int)pSession->NumberOfStores; i++){
    aAll[nAll++] = &pSession->Stores[i];
  }
  aAll[nAll++] = &pSession->Strings.Index;
  aAll[nAll++] = &pSession->Strings.Data;

  if( bJson ){
    printf("{\n  \"session\": ");
    hostJsonString(pSession->Path);
    printf(",\n  \"clock\": ");
    hostJsonString(pSession->Header.ClockName);
    infoHost(&pSession->Header.Host, 1);
    printf(",\n  \"stores\": [");
  }else{
    printf("session: %s\nclock:   %s\n", pSession->Path,
           pSession->Header.ClockName);
    infoHost(&pSession->Header.Host, 0);
    printf("\n");
    printf("%-14s %10s %12s %20s %20s %6s %7s %8s\n", "store", "records",
           "bytes", "first_ts (s)", "last_ts (s)", "sorted", "dropped",
           "repaired");
  }
  for(i=0; i<nAll; i++){
    infoStore(aAll[i], bJson, i==0, &iFirst, &iLast);
  }
  if( bJson ){
    printf("\n  ]");
    infoSources(pSession, 1);
    infoMetadata(pSession, 1);
    printf(",\n  \"rollups\": [");
    infoRollups(pSession, 1);
    printf("\n  ]");
    infoDurable(pSession, 1);
    printf(",\n");
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
  }else{
    if( iFirst<=iLast ){
      printf("\ntime span: %.9f .. %.9f s (%.6f s)\n", iFirst/1e9,
             iLast/1e9, ((double)iLast - (double)iFirst)/1e9);
    }
    infoSources(pSession, 0);
    infoMetadata(pSession, 0);
    infoRollups(pSession, 0);
    infoDurable(pSession, 0);
  }

  TraceSessionClose(pSession);
  free(pSession);
  return 0;
}
