/*
** TestRecordTypes.c: checks the record type declarations of
** TraceStore/TraceSchema.c (TraceRecordTypes) against the column tables
** they refer to, so that a new type declared wrong fails here rather than
** as a wrong column at import time.
**
** Zone: hosted test (libc), linked with the core's TracerStore.
**
** Usage: TestRecordTypes CASE   (CASE: table, event_view, ftrace_maps;
** "list" prints them).  Exit status 0 when the case passes.
**
** The oracle is the schema itself: every column a declaration names (the
** event view's, an ftrace field's offset and width) must be a column of
** the type's schema, of the kind the declaration says.
*/
#include <stdio.h>
#include <string.h>

#include "TraceStore/TraceSchema.h"

static int nFail = 0;

#define CHECK(cond, ...) do{                                               \
  if( !(cond) ){ fprintf(stderr, __VA_ARGS__); fputc('\n', stderr);       \
                 nFail++; }                                                \
}while(0)

/* The column of pSchema at byte Offset, or NULL. */
static PCTRACE_COLUMN_DESCRIPTOR columnAt(PCTRACE_STORE_SCHEMA pSchema,
                                          unsigned Offset){
  ULONG i;
  for(i=0; i<pSchema->NumberOfColumns; i++){
    if( pSchema->Columns[i].Offset==Offset ) return &pSchema->Columns[i];
  }
  return NULL;
}

/* Kinds index the table; names are unique; every schema is complete. */
static void caseTable(void){
  int i, j;
  for(i=0; i<TraceRecordKindMaximum; i++){
    PCTRACE_RECORD_TYPE p = &TraceRecordTypes[i];
    CHECK(p->Schema!=NULL, "kind %d: no schema", i);
    if( p->Schema==NULL ) continue;
    CHECK((int)p->Kind==i, "%s: Kind %d at index %d", p->Schema->Name,
          (int)p->Kind, i);
    CHECK(p->Schema->NumberOfColumns>0 && p->Schema->RecordSize>0,
          "%s: empty schema", p->Schema->Name);
    for(j=0; j<i; j++){
      CHECK(strcmp(TraceRecordTypes[j].Schema->Name, p->Schema->Name)!=0,
            "%s: declared twice", p->Schema->Name);
    }
  }
}

/* An event store has ts, and the columns its event view names. */
static void caseEventView(void){
  int i, k, nEvent = 0;
  for(i=0; i<TraceRecordKindMaximum; i++){
    PCTRACE_RECORD_TYPE p = &TraceRecordTypes[i];
    PCSZ az[4];
    if( (p->Flags & TRACE_RECORD_EVENT)==0 ){
      CHECK(p->EventView.Name==NULL && p->EventView.Pid==NULL
         && p->EventView.Tid==NULL && p->EventView.Cpu==NULL,
            "%s: an event view but not an event store", p->Schema->Name);
      continue;
    }
    nEvent++;
    CHECK(TraceSchemaFindColumn(p->Schema, "ts")!=NULL,
          "%s: an event store without ts", p->Schema->Name);
    az[0] = p->EventView.Name; az[1] = p->EventView.Pid;
    az[2] = p->EventView.Tid;  az[3] = p->EventView.Cpu;
    for(k=0; k<4; k++){
      PCTRACE_COLUMN_DESCRIPTOR pCol;
      if( az[k]==0 ) continue;
      pCol = TraceSchemaFindColumn(p->Schema, az[k]);
      CHECK(pCol!=NULL, "%s: event view names no column %s",
            p->Schema->Name, az[k]);
      if( pCol && k==0 ){
        CHECK(pCol->Flags & TRACE_COLUMN_STRING_ID,
              "%s: event name column %s is not a string", p->Schema->Name,
              az[k]);
      }
    }
  }
  CHECK(nEvent>0, "no event store");
}

/* Every ftrace field fills a column of its type of the right width. */
static void caseFtraceMaps(void){
  int i, nMap = 0;
  ULONG f;
  for(i=0; i<TraceRecordKindMaximum; i++){
    PCTRACE_RECORD_TYPE p = &TraceRecordTypes[i];
    PCTRACE_FTRACE_MAP pMap = p->Ftrace;
    const char *zStore = p->Schema->Name;
    if( pMap==0 ) continue;
    nMap++;
    CHECK(pMap->System && pMap->Events[0], "%s: ftrace map without events",
          zStore);
    CHECK(pMap->NumberOfFields<=TRACE_FTRACE_MAX_FIELDS,
          "%s: %u ftrace fields (at most %d)", zStore,
          (unsigned)pMap->NumberOfFields, TRACE_FTRACE_MAX_FIELDS);
    for(f=0; f<pMap->NumberOfFields; f++){
      PCTRACE_FTRACE_FIELD pF = &pMap->Fields[f];
      PCTRACE_COLUMN_DESCRIPTOR pCol = columnAt(p->Schema, pF->Offset);
      int bText = pF->Conversion==TraceFtraceString
               || pF->Conversion==TraceFtraceStateLetters
               || pF->Conversion==TraceFtraceExitReason
               || pF->Conversion==TraceFtraceEventName
               || pF->Conversion==TraceFtraceEventArgs;
      int bTwo = pF->Conversion==TraceFtraceSymbol
              || pF->Conversion==TraceFtraceExitReason;
      CHECK(pCol!=NULL, "%s: ftrace field %u fills no column (offset %u)",
            zStore, (unsigned)f, (unsigned)pF->Offset);
      if( pCol ){
        CHECK(pCol->Width==pF->Size, "%s.%s: width %u, field says %u",
              zStore, pCol->Name, (unsigned)pCol->Width,
              (unsigned)pF->Size);
        CHECK(!bText || (pCol->Flags & TRACE_COLUMN_STRING_ID),
              "%s.%s: text conversion into a column that is not a string",
              zStore, pCol->Name);
        CHECK(pF->Conversion!=TraceFtraceNull
              || (pCol->Flags & TRACE_COLUMN_NULLABLE),
              "%s.%s: NULL into a column that is not nullable", zStore,
              pCol->Name);
      }
      CHECK((pF->Field==NULL)==(pF->Conversion>=TraceFtraceEventName),
            "%s: field %u: a tracepoint field iff the conversion reads one",
            zStore, (unsigned)f);
      CHECK(pF->Field==NULL || pF->TextKey!=NULL,
            "%s: field %s has no text key", zStore, pF->Field);
      if( bTwo ){
        PCTRACE_COLUMN_DESCRIPTOR p2 = columnAt(p->Schema, pF->Offset2);
        CHECK(p2!=NULL && p2->Width==pF->Size2,
              "%s: field %s: no second column of width %u", zStore,
              pF->Field ? pF->Field : "?", (unsigned)pF->Size2);
      }
    }
  }
  CHECK(nMap>0, "no ftrace map");
}

int main(int argc, char **argv){
  static const struct { const char *zName; void (*x)(void); } aCase[] = {
    { "table", caseTable },
    { "event_view", caseEventView },
    { "ftrace_maps", caseFtraceMaps },
  };
  unsigned i;
  if( argc==2 && strcmp(argv[1], "list")==0 ){
    for(i=0; i<sizeof(aCase)/sizeof(aCase[0]); i++) puts(aCase[i].zName);
    return 0;
  }
  for(i=0; argc==2 && i<sizeof(aCase)/sizeof(aCase[0]); i++){
    if( strcmp(argv[1], aCase[i].zName)==0 ){
      aCase[i].x();
      if( nFail ) fprintf(stderr, "%s: %d checks failed\n", argv[1], nFail);
      return nFail ? 1 : 0;
    }
  }
  fprintf(stderr, "usage: TestRecordTypes list|CASE\n");
  return 2;
}
