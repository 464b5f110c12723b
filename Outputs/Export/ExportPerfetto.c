/*
** ExportPerfetto.c: Perfetto's own trace format for `tracestore export
** --format perfetto`: a protobuf `Trace` (a sequence of TracePacket), the
** file Perfetto UI and trace_processor open natively, with none of JSON's
** 2 GB ceiling.  The encoder is ours, written from the schema
** (../shared/reference/perfetto/perfetto_trace.proto, Apache-2.0).
**
** Zone: hosted (Outputs/Export/, an output): libc.  A sink of the walk
** (ExportSink.h: ExportWalk.c decides what is written and in what order;
** this file only how).
**
** What the file holds, on one packet sequence (trusted_packet_sequence_id
** 1):
**
**   the first packet   SEQ_INCREMENTAL_STATE_CLEARED, a ClockSnapshot that
**                      ties clock 64 (sequence-scoped, incremental) to
**                      BOOTTIME at the first event's ts, and defaults that
**                      put every later packet on clock 64: each packet's
**                      timestamp is the ns since the packet before (1 or 2
**                      bytes, not 9).  BOOTTIME carries the session's own
**                      ts unchanged, whatever its clock.
**   tracks             a TrackDescriptor per process (ProcessDescriptor:
**                      pid, name), thread (ThreadDescriptor: pid, tid,
**                      name) and counter track (CounterDescriptor, child
**                      of its process), before their first event; uuids
**                      are numbered from 1.
**   slices             TYPE_SLICE_BEGIN at the start, TYPE_SLICE_END at the
**                      end.  Slices known whole (spans, kvm exits) wait for
**                      their end in a heap ordered by end ts; slices that
**                      begin at the same ts are written longest first, so
**                      that a parent opens before its child as Chrome's X
**                      events nest.
**   instants           TYPE_INSTANT; counters TYPE_COUNTER with
**                      double_counter_value.
**   names, categories, InternedData (event_names, event_categories,
**   arg keys, and      debug_annotation_names, debug_annotation_string_values),
**   string args        each defined once, in a packet of its own before its
**                      first use; iids are even for a string id (2 id + 2:
**                      the session's ids are unique) and odd for a name the
**                      walk makes ("kvm exited", "tid 12"), numbered.
**   args               DebugAnnotations: int_value, uint_value,
**                      pointer_value (addresses), double_value,
**                      string_value_iid; a span's JSON args text as
**                      legacy_json_value.
**
** Memory: the open slices (the heap), the batch of slices at one ts, the
** interned-so-far sets (a bit per string id) and the tracks: none grows
** with the number of events.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Outputs/Export/ExportOut.h"
#include "Outputs/Export/ExportSink.h"

/*
** ---------------------------------------------------------------------------
** Protobuf encoding into a growable buffer.
** ---------------------------------------------------------------------------
*/
typedef struct Pb {
  unsigned char *a;
  size_t n, nAlloc;
} Pb;

static unsigned char *pbGrow(Pb *b, size_t nNeed){
  size_t nNew = (b->nAlloc ? b->nAlloc*2 : 4096) + nNeed;
  unsigned char *aNew = realloc(b->a, nNew);
  if( aNew==0 ){ hostFail("out of memory"); exit(1); }
  b->a = aNew;
  b->nAlloc = nNew;
  return b->a + b->n;
}

/* Room for nNeed more bytes at b->a + b->n (inline: the hot path). */
static inline unsigned char *pbRoom(Pb *b, size_t nNeed){
  if( b->n + nNeed > b->nAlloc ) return pbGrow(b, nNeed);
  return b->a + b->n;
}

static inline int varintLen(unsigned long long u){
  int n = 1;
  while( u>=0x80 ){ u >>= 7; n++; }
  return n;
}

static inline int putVarint(unsigned char *z, unsigned long long u){
  int n = 0;
  while( u>=0x80 ){
    z[n++] = (unsigned char)(u | 0x80);
    u >>= 7;
  }
  z[n++] = (unsigned char)u;
  return n;
}

static inline void pbVarint(Pb *b, unsigned long long u){
  b->n += (size_t)putVarint(pbRoom(b, 10), u);
}

/* Wire types. */
#define WT_VARINT 0
#define WT_I64    1
#define WT_LEN    2

static inline void pbTag(Pb *b, unsigned field, unsigned wt){
  pbVarint(b, ((unsigned long long)field<<3) | wt);
}

/* An integer field (int64 as its two's complement, as protobuf does). */
static inline void pbUint(Pb *b, unsigned field, unsigned long long u){
  pbTag(b, field, WT_VARINT);
  pbVarint(b, u);
}

static void pbDouble(Pb *b, unsigned field, double r){
  pbTag(b, field, WT_I64);
  memcpy(pbRoom(b, 8), &r, 8);    /* little-endian, as the wire is */
  b->n += 8;
}

static void pbBytes(Pb *b, unsigned field, const void *z, size_t n){
  pbTag(b, field, WT_LEN);
  pbVarint(b, n);
  if( n ) memcpy(pbRoom(b, n), z, n);
  b->n += n;
}

/* A message field opened: its length is filled in by pbClose.  One byte
** is kept for the length; a longer body moves up. */
static size_t pbOpen(Pb *b, unsigned field){
  pbTag(b, field, WT_LEN);
  pbRoom(b, 1);
  return b->n++;
}

static void pbClose(Pb *b, size_t iLen){
  size_t n = b->n - iLen - 1;
  int k = varintLen(n);
  if( k>1 ){
    pbRoom(b, (size_t)k - 1);
    memmove(b->a + iLen + k, b->a + iLen + 1, n);
    b->n += (size_t)k - 1;
  }
  putVarint(b->a + iLen, n);
}

/*
** ---------------------------------------------------------------------------
** The schema's numbers (perfetto_trace.proto).
** ---------------------------------------------------------------------------
*/
#define TRACE_PACKET                 1    /* Trace.packet */
#define PKT_TIMESTAMP                8
#define PKT_SEQUENCE_ID              10   /* trusted_packet_sequence_id */
#define PKT_TRACK_EVENT              11
#define PKT_INTERNED_DATA            12
#define PKT_SEQUENCE_FLAGS           13
#define PKT_CLOCK_SNAPSHOT           6
#define PKT_TIMESTAMP_CLOCK_ID       58
#define PKT_DEFAULTS                 59   /* trace_packet_defaults */
#define PKT_TRACK_DESCRIPTOR         60
#define PKT_FIRST_ON_SEQUENCE        87
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE  2
#define CLOCK_CLOCKS                 1    /* ClockSnapshot.clocks */
#define CLOCK_PRIMARY                2    /* primary_trace_clock */
#define CLOCK_ID                     1
#define CLOCK_TIMESTAMP              2
#define CLOCK_INCREMENTAL            3
#define CLOCK_BOOTTIME               6
#define CLOCK_SEQUENCE               64   /* ours: incremental ns */
#define TE_CATEGORY_IIDS             3
#define TE_DEBUG_ANNOTATIONS         4
#define TE_TYPE                      9
#define TE_NAME_IID                  10
#define TE_TRACK_UUID                11
#define TE_DOUBLE_COUNTER_VALUE      44
#define TE_SLICE_BEGIN               1
#define TE_SLICE_END                 2
#define TE_INSTANT                   3
#define TE_COUNTER                   4
#define DA_NAME_IID                  1
#define DA_UINT                      3
#define DA_INT                       4
#define DA_DOUBLE                    5
#define DA_STRING                    6
#define DA_POINTER                   7
#define DA_LEGACY_JSON               9
#define DA_STRING_IID                17
#define ID_EVENT_CATEGORIES          1    /* InternedData */
#define ID_EVENT_NAMES               2
#define ID_ANNOTATION_NAMES          3
#define ID_ANNOTATION_STRINGS        29
#define TD_UUID                      1    /* TrackDescriptor */
#define TD_NAME                      2
#define TD_PROCESS                   3
#define TD_THREAD                    4
#define TD_PARENT_UUID               5
#define TD_COUNTER                   8
#define PD_PID                       1    /* ProcessDescriptor */
#define PD_NAME                      6
#define THD_PID                      1    /* ThreadDescriptor */
#define THD_TID                      2
#define THD_NAME                     5

/*
** ---------------------------------------------------------------------------
** The sink's state.
** ---------------------------------------------------------------------------
*/

/* Interned-so-far: a bit per string id, for each kind of interned data. */
enum { NS_NAME, NS_CATEGORY, NS_STRING, N_NS };

/* The iids: a string id's and a text's, apart (odd and even), small. */
#define ID_IID(id)    (2*(unsigned long long)(id) + 2)
#define TEXT_IID(k)   (2*(unsigned long long)(k) + 1)

/* A name the walk made, interned by its text. */
typedef struct TextName {
  unsigned long long hash;
  unsigned off, len;              /* in zText */
  unsigned k;                     /* its number: TEXT_IID(k) */
  unsigned char abDefined[N_NS];
} TextName;

/* A counter track: (pid, name id, cpu) -> uuid. */
typedef struct CounterTrack {
  unsigned pid, nameId;
  int cpu;
  unsigned long long uuid;        /* 0: free slot */
} CounterTrack;

/* A slice begun whose end is known, waiting for it.  (Two equal ends of
** one track need no order: an end names no slice, only its track.) */
typedef struct PendingEnd {
  long long end;
  unsigned long long uuid;
} PendingEnd;

/* A slice begin of the batch at one ts: its packet body in batch.a. */
typedef struct BatchEntry {
  long long dur;
  size_t off, len;
  unsigned long long uuid;
  unsigned idx;
} BatchEntry;

#define BATCH_MAX 4096

typedef struct Perfetto {
  Out out;
  void *pWalk;
  Pb pkt;                         /* the packet being built */
  Pb intern;                      /* its InternedData, when it has any */
  Pb batch;                       /* begins at batchTs, not yet written */
  BatchEntry *aBatch;
  unsigned nBatch;
  long long batchTs;
  long long iShift;               /* added to every ts (none below 0) */
  long long lastTs;               /* clock 64's time */
  unsigned long long nEvents;
  unsigned long long nextUuid;
  unsigned long long nStrings;    /* string ids are below it */
  unsigned char abNullDefined[N_NS];  /* TRACE_STRING_NULL, as "" */
  unsigned char *aBits[N_NS];     /* per string id: defined */
  size_t anBits[N_NS];            /* bytes of each */
  unsigned char aKeyIid[EXPORT_N_KEYS];  /* arg keys' iids, 0: not yet */
  unsigned nKeyIid;
  TRACE_HASH_TABLE processes;     /* pid + 1 -> uuid */
  TRACE_HASH_TABLE threads;       /* (pid<<32 | tid) + 1 -> uuid */
  unsigned long long lastThreadKey, lastThreadUuid;
  TextName *aText;                /* open addressing, nTextSlots */
  unsigned char abLastText[N_NS]; /* textIid's last hit of each kind */
  unsigned aiLastText[N_NS];
  unsigned nText, nTextSlots;
  char *zText;                    /* the texts */
  size_t nTextBytes, nTextAlloc;
  CounterTrack *aCounter;         /* open addressing */
  unsigned nCounter, nCounterSlots;
  PendingEnd *aEnd;               /* min-heap by end */
  size_t nEnd, nEndAlloc;
} Perfetto;

static void *growArray(void *a, size_t *pnAlloc, size_t nNeed, size_t sz){
  size_t nNew;
  void *aNew;
  if( nNeed<=*pnAlloc ) return a;
  nNew = *pnAlloc ? *pnAlloc*2 : 64;
  while( nNew<nNeed ) nNew *= 2;
  aNew = realloc(a, nNew*sz);
  if( aNew==0 ){ hostFail("out of memory"); exit(1); }
  *pnAlloc = nNew;
  return aNew;
}

/* 1 the first time id is seen in namespace ns, then 0.  An id past the
** string store's (a damaged session) is said once, by the walk, and never
** defined: the export fails. */
static int firstUse(Perfetto *p, int ns, unsigned id){
  size_t iByte = id>>3;
  if( id==TRACE_STRING_NULL ){            /* (a string column's NULL: "") */
    if( p->abNullDefined[ns] ) return 0;
    p->abNullDefined[ns] = 1;
    return 1;
  }
  if( id>=p->nStrings ){
    ULONG n;
    exportIdText(p->pWalk, id, &n);
    return 0;
  }
  if( iByte>=p->anBits[ns] ){
    size_t nOld = p->anBits[ns];
    p->aBits[ns] = growArray(p->aBits[ns], &p->anBits[ns], iByte+1, 1);
    memset(p->aBits[ns] + nOld, 0, p->anBits[ns] - nOld);
  }
  if( p->aBits[ns][iByte] & (1u<<(id&7)) ) return 0;
  p->aBits[ns][iByte] |= (unsigned char)(1u<<(id&7));
  return 1;
}

/*
** ---------------------------------------------------------------------------
** Packets.
** ---------------------------------------------------------------------------
*/

/* A packet body begun in p->pkt: the sequence, and the flag that it needs
** the sequence's interned data and clock. */
static void packetBegin(Perfetto *p){
  p->pkt.n = 0;
  pbUint(&p->pkt, PKT_SEQUENCE_ID, 1);
  pbUint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
}

/* The packet: body z[0..n) after its timestamp (bTs), into the file. */
static void packetWrite(Perfetto *p, int bTs, long long ts,
                        const unsigned char *z, size_t n){
  unsigned char aTs[24];
  unsigned char *zOut;
  int k = 0, nTs = 0;
  if( bTs ){
    ts += p->iShift;
    aTs[nTs++] = PKT_TIMESTAMP<<3;
    if( ts>=p->lastTs ){
      nTs += putVarint(aTs+nTs, (unsigned long long)(ts - p->lastTs));
      p->lastTs = ts;
    }else{
      /* (Never: the walk and the heap are in ts order.  Absolute, on
      ** BOOTTIME, if it were not.) */
      nTs += putVarint(aTs+nTs, (unsigned long long)ts);
      nTs += putVarint(aTs+nTs, (PKT_TIMESTAMP_CLOCK_ID<<3) | WT_VARINT);
      nTs += putVarint(aTs+nTs, CLOCK_BOOTTIME);
    }
  }
  zOut = (unsigned char*)outRoom(&p->out, 11 + (size_t)nTs + n);
  zOut[k++] = (TRACE_PACKET<<3) | WT_LEN;
  k += putVarint(zOut+k, n + (size_t)nTs);
  memcpy(zOut+k, aTs, (size_t)nTs);
  memcpy(zOut+k+nTs, z, n);
  p->out.n += (size_t)k + (size_t)nTs + n;
}

/* The interned data gathered while building an event, as a packet of its
** own ahead of it. */
static void internFlush(Perfetto *p){
  Pb b;
  size_t iData;
  if( p->intern.n==0 ) return;
  b = p->pkt;                     /* (the event's body stays in pkt) */
  p->pkt.a = 0; p->pkt.n = p->pkt.nAlloc = 0;
  packetBegin(p);
  iData = pbOpen(&p->pkt, PKT_INTERNED_DATA);
  memcpy(pbRoom(&p->pkt, p->intern.n), p->intern.a, p->intern.n);
  p->pkt.n += p->intern.n;
  pbClose(&p->pkt, iData);
  packetWrite(p, 0, 0, p->pkt.a, p->pkt.n);
  free(p->pkt.a);
  p->pkt = b;
  p->intern.n = 0;
}

/* An InternedData entry {iid, name} of field ns's kind. */
static void internDefine(Perfetto *p, unsigned field, unsigned long long iid,
                         const char *z, size_t n){
  size_t i = pbOpen(&p->intern, field);
  pbUint(&p->intern, 1, iid);
  pbBytes(&p->intern, 2, z, n);
  pbClose(&p->intern, i);
}

static unsigned long long textHash(const char *z, unsigned n){
  unsigned long long h = 0xcbf29ce484222325ull;
  unsigned i;
  for(i=0; i<n; i++) h = (h ^ (unsigned char)z[i]) * 0x100000001b3ull;
  return h | 1;
}

/* The iid of a name the walk made (its text), defined in field's kind the
** first time it is used there. */
static unsigned long long textIid(Perfetto *p, int ns, unsigned field,
                                  const char *z, unsigned n){
  unsigned long long h;
  unsigned i;
  TextName *t;
  /* (The same name as the last of this kind: most runs of events.) */
  t = p->abLastText[ns] ? &p->aText[p->aiLastText[ns]] : 0;
  if( t && t->len==n && memcmp(p->zText + t->off, z, n)==0 ){
    return TEXT_IID(t->k);
  }
  h = textHash(z, n);
  if( p->nText*2 >= p->nTextSlots ){
    unsigned nOld = p->nTextSlots, k;
    TextName *aOld = p->aText;
    p->nTextSlots = nOld ? nOld*2 : 256;
    memset(p->abLastText, 0, sizeof(p->abLastText));
    p->aText = calloc(p->nTextSlots, sizeof(TextName));
    if( p->aText==0 ){ hostFail("out of memory"); exit(1); }
    for(k=0; k<nOld; k++){
      if( aOld[k].hash==0 ) continue;
      i = (unsigned)aOld[k].hash & (p->nTextSlots-1);
      while( p->aText[i].hash ) i = (i+1) & (p->nTextSlots-1);
      p->aText[i] = aOld[k];
    }
    free(aOld);
  }
  i = (unsigned)h & (p->nTextSlots-1);
  for(;;){
    t = &p->aText[i];
    if( t->hash==0 ) break;
    if( t->hash==h && t->len==n && memcmp(p->zText+t->off, z, n)==0 ) break;
    i = (i+1) & (p->nTextSlots-1);
  }
  if( t->hash==0 ){
    p->zText = growArray(p->zText, &p->nTextAlloc, p->nTextBytes + n + 1, 1);
    memcpy(p->zText + p->nTextBytes, z, n);
    t->hash = h;
    t->off = (unsigned)p->nTextBytes;
    t->len = n;
    t->k = p->nText;
    p->nTextBytes += n;
    p->nText++;
  }
  p->abLastText[ns] = 1;
  p->aiLastText[ns] = (unsigned)(t - p->aText);
  if( !t->abDefined[ns] ){
    t->abDefined[ns] = 1;
    internDefine(p, field, TEXT_IID(t->k),
                 z, n);
  }
  return TEXT_IID(t->k);
}

/* The iid of a name (an event's name, or a category). */
static unsigned long long nameIid(Perfetto *p, int ns, unsigned field,
                                  const EXPORT_NAME *pName){
  if( pName->Text ) return textIid(p, ns, field, pName->Text, pName->Length);
  if( pName->Id==TRACE_STRING_NULL ) return textIid(p, ns, field, "", 0);
  if( firstUse(p, ns, pName->Id) ){
    ULONG n;
    const char *z = exportIdText(p->pWalk, pName->Id, &n);
    internDefine(p, field, ID_IID(pName->Id), z ? z : "",
                 z ? n : 0);
  }
  return ID_IID(pName->Id);
}

/*
** ---------------------------------------------------------------------------
** Tracks.
** ---------------------------------------------------------------------------
*/
static void nameField(Perfetto *p, Pb *b, unsigned field,
                      const EXPORT_NAME *pName){
  ULONG n = pName->Length;
  const char *z = pName->Text;
  if( z==0 ) z = exportIdText(p->pWalk, pName->Id, &n);
  if( z==0 ){ z = ""; n = 0; }
  pbBytes(b, field, z, n);
}

/* A TrackDescriptor packet for uuid begun in p->pkt; descriptorEnd
** closes it and writes it (no timestamp: a track is not an event). */
static size_t descriptorBegin(Perfetto *p, unsigned long long uuid){
  size_t iTd;
  p->pkt.n = 0;
  pbUint(&p->pkt, PKT_SEQUENCE_ID, 1);
  iTd = pbOpen(&p->pkt, PKT_TRACK_DESCRIPTOR);
  pbUint(&p->pkt, TD_UUID, uuid);
  return iTd;
}

static void descriptorEnd(Perfetto *p, size_t iTd){
  pbClose(&p->pkt, iTd);
  packetWrite(p, 0, 0, p->pkt.a, p->pkt.n);
}

/* A new track: the next uuid, kept in pTable under key. */
static unsigned long long trackNew(Perfetto *p, TRACE_HASH_TABLE *pTable,
                                   unsigned long long key){
  unsigned long long uuid = p->nextUuid++;
  if( !RTL_SUCCESS(TraceHashSet(pTable, key, uuid)) ){
    hostFail("out of memory");
    exit(1);
  }
  return uuid;
}

static unsigned long long processUuid(Perfetto *p, unsigned pid,
                                      const EXPORT_NAME *pName){
  PTRACE_HASH_ENTRY e = TraceHashLookup(&p->processes,
                                        (unsigned long long)pid + 1);
  unsigned long long uuid;
  size_t iTd, iPd;
  if( e ) return e->Value;
  uuid = trackNew(p, &p->processes, (unsigned long long)pid + 1);
  iTd = descriptorBegin(p, uuid);
  iPd = pbOpen(&p->pkt, TD_PROCESS);
  pbUint(&p->pkt, PD_PID, pid);
  if( pName ) nameField(p, &p->pkt, PD_NAME, pName);
  pbClose(&p->pkt, iPd);
  descriptorEnd(p, iTd);
  return uuid;
}

static void perfettoNameProcess(void *pCtx, unsigned pid,
                                const EXPORT_NAME *pName){
  processUuid(pCtx, pid, pName);
}

static void perfettoNameThread(void *pCtx, unsigned pid, unsigned tid,
                               const EXPORT_NAME *pName){
  Perfetto *p = pCtx;
  unsigned long long key = (((unsigned long long)pid<<32) | tid) + 1;
  size_t iTd, iThd;
  if( TraceHashLookup(&p->threads, key) ) return;
  iTd = descriptorBegin(p, trackNew(p, &p->threads, key));
  iThd = pbOpen(&p->pkt, TD_THREAD);
  pbUint(&p->pkt, THD_PID, pid);
  pbUint(&p->pkt, THD_TID, tid);
  nameField(p, &p->pkt, THD_NAME, pName);
  pbClose(&p->pkt, iThd);
  descriptorEnd(p, iTd);
}

/* The uuid of an event's thread (the walk named it first). */
static unsigned long long threadUuid(Perfetto *p, unsigned pid, unsigned tid){
  unsigned long long key = (((unsigned long long)pid<<32) | tid) + 1;
  PTRACE_HASH_ENTRY e;
  if( key==p->lastThreadKey ) return p->lastThreadUuid;
  e = TraceHashLookup(&p->threads, key);
  if( e==0 ){
    EXPORT_NAME name;
    char zName[32];
    snprintf(zName, sizeof(zName), "tid %u", tid);
    name.Id = TRACE_STRING_NULL;
    name.Text = zName;
    name.Length = (unsigned)strlen(zName);
    perfettoNameThread(p, pid, tid, &name);
    e = TraceHashLookup(&p->threads, key);
  }
  p->lastThreadKey = key;
  p->lastThreadUuid = e->Value;
  return e->Value;
}

/* The uuid of a counter track (pid, name, cpu), described when new. */
static unsigned long long counterUuid(Perfetto *p, const EXPORT_EVENT *e){
  unsigned h, i, k;
  CounterTrack *c;
  size_t iTd;
  if( p->nCounter*2 >= p->nCounterSlots ){
    unsigned nOld = p->nCounterSlots;
    CounterTrack *aOld = p->aCounter;
    p->nCounterSlots = nOld ? nOld*2 : 64;
    p->aCounter = calloc(p->nCounterSlots, sizeof(CounterTrack));
    if( p->aCounter==0 ){ hostFail("out of memory"); exit(1); }
    for(k=0; k<nOld; k++){
      if( aOld[k].uuid==0 ) continue;
      h = (aOld[k].pid*31u + aOld[k].nameId)*31u + (unsigned)aOld[k].cpu;
      i = h & (p->nCounterSlots-1);
      while( p->aCounter[i].uuid ) i = (i+1) & (p->nCounterSlots-1);
      p->aCounter[i] = aOld[k];
    }
    free(aOld);
  }
  h = (e->Pid*31u + e->Name.Id)*31u + (unsigned)e->Cpu;
  i = h & (p->nCounterSlots-1);
  for(;;){
    c = &p->aCounter[i];
    if( c->uuid==0 ) break;
    if( c->pid==e->Pid && c->nameId==e->Name.Id && c->cpu==e->Cpu ){
      return c->uuid;
    }
    i = (i+1) & (p->nCounterSlots-1);
  }
  c->pid = e->Pid;
  c->nameId = e->Name.Id;
  c->cpu = e->Cpu;
  c->uuid = p->nextUuid++;
  p->nCounter++;
  {
    unsigned long long parent = processUuid(p, e->Pid, 0);
    iTd = descriptorBegin(p, c->uuid);
    pbUint(&p->pkt, TD_PARENT_UUID, parent);
    nameField(p, &p->pkt, TD_NAME, &e->Name);
    pbBytes(&p->pkt, TD_COUNTER, "", 0);
    descriptorEnd(p, iTd);
  }
  return c->uuid;
}

/*
** ---------------------------------------------------------------------------
** Events.
** ---------------------------------------------------------------------------
*/
/* An arg's key, by its iid: numbered as keys are first used, so that
** the few an export has take one byte. */
static void annotationKey(Perfetto *p, Pb *b, unsigned key, const char *z,
                          unsigned n){
  if( p->aKeyIid[key]==0 ){
    p->aKeyIid[key] = (unsigned char)++p->nKeyIid;
    internDefine(p, ID_ANNOTATION_NAMES, p->aKeyIid[key], z, n);
  }
  pbUint(b, DA_NAME_IID, p->aKeyIid[key]);
}

/* An annotation whose key is interned and whose value needs no
** definition, made in place (its length always fits a byte). */
static void annotationFast(Pb *b, unsigned iid, const EXPORT_ARG *a){
  unsigned char *z = pbRoom(b, 32);
  int n = 2;
  z[0] = (TE_DEBUG_ANNOTATIONS<<3) | WT_LEN;
  n += putVarint(z+n, (DA_NAME_IID<<3) | WT_VARINT);
  n += putVarint(z+n, iid);
  switch( a->Type ){
    case EXPORT_ARG_DOUBLE:
      n += putVarint(z+n, (DA_DOUBLE<<3) | WT_I64);
      memcpy(z+n, &a->u.r, 8);
      n += 8;
      break;
    case EXPORT_ARG_STRING:
      n += putVarint(z+n, (DA_STRING_IID<<3) | WT_VARINT);
      n += putVarint(z+n, ID_IID(a->u.id));
      break;
    default:
      n += putVarint(z+n, ((a->Type==EXPORT_ARG_INT ? DA_INT
                            : a->Type==EXPORT_ARG_UINT ? DA_UINT
                            : DA_POINTER)<<3) | WT_VARINT);
      n += putVarint(z+n, a->u.u);
      break;
  }
  z[1] = (unsigned char)(n - 2);
  b->n += (size_t)n;
}

/* 1 if id is defined in namespace ns already (firstUse without marking). */
static int isDefined(Perfetto *p, int ns, unsigned id){
  size_t iByte = id>>3;
  if( id==TRACE_STRING_NULL ) return p->abNullDefined[ns];
  return iByte<p->anBits[ns] && (p->aBits[ns][iByte] & (1u<<(id&7)))!=0;
}

static void annotations(Perfetto *p, Pb *b, const EXPORT_EVENT *e,
                        int bEndOnly){
  int i;
  if( e->SpanArgs ){
    size_t iDa = pbOpen(b, TE_DEBUG_ANNOTATIONS);
    annotationKey(p, b, EXPORT_KEY_ARGS, "args", 4);
    pbBytes(b, e->SpanArgsIsObject ? DA_LEGACY_JSON : DA_STRING,
            e->SpanArgs, e->SpanArgsLength);
    pbClose(b, iDa);
  }
  for(i=0; i<e->NumberOfArgs; i++){
    const EXPORT_ARG *a = &e->Args[i];
    size_t iDa;
    int bAtEnd = a->Key==EXPORT_KEY_END_STATE || a->Key==EXPORT_KEY_ENDED_BY;
    if( bEndOnly ? !bAtEnd : bAtEnd ) continue;
    if( a->Type!=EXPORT_ARG_TEXT && p->aKeyIid[a->Key]
     && (a->Type!=EXPORT_ARG_STRING || isDefined(p, NS_STRING, a->u.id)) ){
      annotationFast(b, p->aKeyIid[a->Key], a);
      continue;
    }
    iDa = pbOpen(b, TE_DEBUG_ANNOTATIONS);
    annotationKey(p, b, a->Key, a->KeyText, a->KeyLength);
    switch( a->Type ){
      case EXPORT_ARG_INT:     pbUint(b, DA_INT, a->u.u); break;
      case EXPORT_ARG_UINT:    pbUint(b, DA_UINT, a->u.u); break;
      case EXPORT_ARG_ADDRESS: pbUint(b, DA_POINTER, a->u.u); break;
      case EXPORT_ARG_DOUBLE:  pbDouble(b, DA_DOUBLE, a->u.r); break;
      case EXPORT_ARG_TEXT:    pbBytes(b, DA_STRING, a->u.t.z, a->u.t.n); break;
      case EXPORT_ARG_STRING:
        if( firstUse(p, NS_STRING, a->u.id) ){
          ULONG n;
          const char *z = exportIdText(p->pWalk, a->u.id, &n);
          internDefine(p, ID_ANNOTATION_STRINGS,
                       ID_IID(a->u.id), z ? z : "",
                       z ? n : 0);
        }
        pbUint(b, DA_STRING_IID, ID_IID(a->u.id));
        break;
    }
    pbClose(b, iDa);
  }
}

/* The body of a TrackEvent packet into p->pkt (its interned data into
** p->intern). */
static void trackEvent(Perfetto *p, int eType, unsigned long long uuid,
                       const EXPORT_EVENT *e, int bArgs){
  size_t iTe;
  packetBegin(p);
  iTe = pbOpen(&p->pkt, PKT_TRACK_EVENT);
  pbUint(&p->pkt, TE_TYPE, (unsigned)eType);
  pbUint(&p->pkt, TE_TRACK_UUID, uuid);
  if( eType==TE_SLICE_BEGIN || eType==TE_INSTANT ){
    if( e->Category.Text || e->Category.Id!=TRACE_STRING_NULL ){
      pbUint(&p->pkt, TE_CATEGORY_IIDS,
             nameIid(p, NS_CATEGORY, ID_EVENT_CATEGORIES, &e->Category));
    }
    pbUint(&p->pkt, TE_NAME_IID,
           nameIid(p, NS_NAME, ID_EVENT_NAMES, &e->Name));
  }
  if( eType==TE_COUNTER ){
    pbDouble(&p->pkt, TE_DOUBLE_COUNTER_VALUE, e->Value);
  }
  if( bArgs ) annotations(p, &p->pkt, e, eType==TE_SLICE_END);
  pbClose(&p->pkt, iTe);
  internFlush(p);
  p->nEvents++;
}

/* SLICE_END on uuid at ts: a packet of fixed shape, made here (half of
** a slice file is these). */
static void sliceEnd(Perfetto *p, long long ts, unsigned long long uuid){
  unsigned char a[32];
  int n = 0, nTe;
  a[n++] = (PKT_SEQUENCE_ID<<3) | WT_VARINT;
  a[n++] = 1;
  a[n++] = (PKT_SEQUENCE_FLAGS<<3) | WT_VARINT;
  a[n++] = SEQ_NEEDS_INCREMENTAL_STATE;
  a[n++] = (PKT_TRACK_EVENT<<3) | WT_LEN;
  nTe = n++;
  a[n++] = (TE_TYPE<<3) | WT_VARINT;
  a[n++] = TE_SLICE_END;
  a[n++] = (TE_TRACK_UUID<<3) | WT_VARINT;
  n += putVarint(a+n, uuid);
  a[nTe] = (unsigned char)(n - nTe - 1);
  packetWrite(p, 1, ts, a, (size_t)n);
  p->nEvents++;
}

/* The heap of ends: the earliest first. */
static int endBefore(const PendingEnd *a, const PendingEnd *b){
  return a->end < b->end;
}

static void endPush(Perfetto *p, long long end, unsigned long long uuid){
  size_t i;
  PendingEnd x;
  p->aEnd = growArray(p->aEnd, &p->nEndAlloc, p->nEnd+1, sizeof(PendingEnd));
  x.end = end;
  x.uuid = uuid;
  i = p->nEnd++;
  while( i>0 && endBefore(&x, &p->aEnd[(i-1)/2]) ){
    p->aEnd[i] = p->aEnd[(i-1)/2];
    i = (i-1)/2;
  }
  p->aEnd[i] = x;
}

static void endPop(Perfetto *p){
  PendingEnd x = p->aEnd[--p->nEnd];
  size_t i = 0, n = p->nEnd;
  for(;;){
    size_t c = 2*i + 1;
    if( c>=n ) break;
    if( c+1<n && endBefore(&p->aEnd[c+1], &p->aEnd[c]) ) c++;
    if( !endBefore(&p->aEnd[c], &x) ) break;
    p->aEnd[i] = p->aEnd[c];
    i = c;
  }
  if( n ) p->aEnd[i] = x;
}

/* Every end at or before ts written. */
static void endsUntil(Perfetto *p, long long ts){
  while( p->nEnd && p->aEnd[0].end<=ts ){
    PendingEnd x = p->aEnd[0];
    endPop(p);
    sliceEnd(p, x.end, x.uuid);
  }
}

static int batchCompare(const void *a, const void *b){
  const BatchEntry *x = a, *y = b;
  if( x->dur!=y->dur ) return x->dur > y->dur ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The begins at batchTs written, longest first, and their ends queued. */
static void batchFlush(Perfetto *p){
  unsigned i;
  if( p->nBatch==0 ) return;
  if( p->nBatch>1 ){
    qsort(p->aBatch, p->nBatch, sizeof(BatchEntry), batchCompare);
  }
  for(i=0; i<p->nBatch; i++){
    BatchEntry *b = &p->aBatch[i];
    packetWrite(p, 1, p->batchTs, p->batch.a + b->off, b->len);
    endPush(p, p->batchTs + b->dur, b->uuid);
  }
  p->nBatch = 0;
  p->batch.n = 0;
}

/* Before an event at ts that is not a slice of the batch. */
static void eventAt(Perfetto *p, long long ts){
  batchFlush(p);
  endsUntil(p, ts);
}

static void perfettoSlice(void *pCtx, const EXPORT_EVENT *e){
  Perfetto *p = pCtx;
  unsigned long long uuid = threadUuid(p, e->Pid, e->Tid);
  BatchEntry *b;
  if( p->nBatch && (e->Ts!=p->batchTs || p->nBatch==BATCH_MAX) ){
    batchFlush(p);
  }
  if( p->nBatch==0 ){
    endsUntil(p, e->Ts);
    p->batchTs = e->Ts;
  }
  trackEvent(p, TE_SLICE_BEGIN, uuid, e, 1);
  b = &p->aBatch[p->nBatch];
  b->dur = e->Dur;
  b->off = p->batch.n;
  b->len = p->pkt.n;
  b->uuid = uuid;
  b->idx = p->nBatch++;
  memcpy(pbRoom(&p->batch, p->pkt.n), p->pkt.a, p->pkt.n);
  p->batch.n += p->pkt.n;
}

/* A track event of type eType at ts on uuid, written now (after the begins
** and ends due before it). */
static void eventNow(Perfetto *p, int eType, unsigned long long uuid,
                     const EXPORT_EVENT *e, long long ts, int bArgs){
  eventAt(p, ts);
  trackEvent(p, eType, uuid, e, bArgs);
  packetWrite(p, 1, ts, p->pkt.a, p->pkt.n);
}

static void perfettoInstant(void *pCtx, const EXPORT_EVENT *e){
  Perfetto *p = pCtx;
  eventNow(p, TE_INSTANT, threadUuid(p, e->Pid, e->Tid), e, e->Ts, 1);
}

static void perfettoCounter(void *pCtx, const EXPORT_EVENT *e){
  Perfetto *p = pCtx;
  eventNow(p, TE_COUNTER, counterUuid(p, e), e, e->Ts, 0);
}

/* A slice whose end comes later (a CPU's task, a kvm exit without an
** entry): begun with the args known then, ended with those known at its
** end (end_state, ended_by), which Perfetto merges into the slice's. */
static void perfettoOpenBegin(void *pCtx, const EXPORT_EVENT *e){
  Perfetto *p = pCtx;
  eventNow(p, TE_SLICE_BEGIN, threadUuid(p, e->Pid, e->Tid), e, e->Ts, 1);
}

static void perfettoOpenEnd(void *pCtx, const EXPORT_EVENT *e){
  Perfetto *p = pCtx;
  eventNow(p, TE_SLICE_END, threadUuid(p, e->Pid, e->Tid), e,
           e->Ts + e->Dur, 1);
}

/*
** ---------------------------------------------------------------------------
** The file.
** ---------------------------------------------------------------------------
*/
static void clockField(Pb *b, unsigned id, unsigned long long ts,
                       int bIncremental){
  size_t i = pbOpen(b, CLOCK_CLOCKS);
  pbUint(b, CLOCK_ID, id);
  pbUint(b, CLOCK_TIMESTAMP, ts);
  if( bIncremental ) pbUint(b, CLOCK_INCREMENTAL, 1);
  pbClose(b, i);
}

static void perfettoBegin(void *pCtx, const EXPORT_HEADER *h){
  Perfetto *p = pCtx;
  size_t i;
  p->nStrings = h->NumberOfStrings;
  p->iShift = h->Origin<0 ? -h->Origin : 0;
  p->lastTs = h->Origin + p->iShift;
  p->pkt.n = 0;
  pbUint(&p->pkt, PKT_TIMESTAMP, (unsigned long long)p->lastTs);
  pbUint(&p->pkt, PKT_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
  pbUint(&p->pkt, PKT_SEQUENCE_ID, 1);
  pbUint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
  pbUint(&p->pkt, PKT_FIRST_ON_SEQUENCE, 1);
  i = pbOpen(&p->pkt, PKT_DEFAULTS);
  pbUint(&p->pkt, PKT_TIMESTAMP_CLOCK_ID, CLOCK_SEQUENCE);
  pbClose(&p->pkt, i);
  i = pbOpen(&p->pkt, PKT_CLOCK_SNAPSHOT);
  clockField(&p->pkt, CLOCK_SEQUENCE, (unsigned long long)p->lastTs, 1);
  clockField(&p->pkt, CLOCK_BOOTTIME, (unsigned long long)p->lastTs, 0);
  pbUint(&p->pkt, CLOCK_PRIMARY, CLOCK_BOOTTIME);
  pbClose(&p->pkt, i);
  packetWrite(p, 0, 0, p->pkt.a, p->pkt.n);
}

static int perfettoEnd(void *pCtx, unsigned long long *pEvents,
                       unsigned long long *pBytes){
  Perfetto *p = pCtx;
  int i;
  batchFlush(p);
  endsUntil(p, 0x7fffffffffffffffLL);
  outFlush(&p->out);
  *pEvents = p->nEvents;
  *pBytes = p->out.nBytes;
  outClose(&p->out);
  free(p->pkt.a);
  free(p->intern.a);
  free(p->batch.a);
  free(p->aBatch);
  for(i=0; i<N_NS; i++) free(p->aBits[i]);
  free(p->aText);
  free(p->zText);
  free(p->aCounter);
  free(p->aEnd);
  TraceHashDestroy(&p->processes);
  TraceHashDestroy(&p->threads);
  if( p->out.bErr ){
    hostFail("export: writing the output failed");
    return 1;
  }
  return 0;
}

static int perfettoOpen(void *pCtx, FILE *f, void *pWalk){
  Perfetto *p = pCtx;
  p->pWalk = pWalk;
  p->nextUuid = 1;
  p->aBatch = malloc(BATCH_MAX*sizeof(BatchEntry));
  if( p->aBatch==0 || outOpen(&p->out, f)
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &p->processes))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &p->threads)) ){
    return 1;
  }
  return 0;
}

static const EXPORT_SINK perfettoSink = {
  perfettoBegin, perfettoNameProcess, perfettoNameThread, perfettoSlice,
  perfettoInstant, perfettoCounter, perfettoOpenBegin, perfettoOpenEnd,
  perfettoEnd
};

const EXPORT_FORMAT ExportPerfettoFormat = {
  "perfetto", &perfettoSink, sizeof(Perfetto), perfettoOpen
};
