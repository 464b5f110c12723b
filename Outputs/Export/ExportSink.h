/*
** ExportSink.h: between the walk of a session (ExportWalk.c) and the file
** formats it is written in (ExportChrome.c, ExportPerfetto.c).
**
** Zone: hosted (Outputs/Export/, an output).  The walk decides what is
** exported (the stores, the window, ts order, names of processes and
** threads, each CPU's sched slices, the args of every row); a format only
** says how.  Arrows: ExportWalk.c calls a sink's table; the sinks call
** back only exportIdText (string ids to text).
**
** Times are the session's ns, absolute; a sink that writes relative times
** subtracts EXPORT_HEADER.Origin.  The walk hands events in ts order,
** except as each call below says.
*/
#ifndef TRACER_EXPORT_SINK_H
#define TRACER_EXPORT_SINK_H

#include <stdio.h>

#include "Host/Host.h"
#include "TraceStore/TraceStore.h"

/* What an arg's value is, and how it reads. */
enum {
  EXPORT_ARG_INT,       /* u.i, signed */
  EXPORT_ARG_UINT,      /* u.u, unsigned */
  EXPORT_ARG_ADDRESS,   /* u.u, an address (hex where text) */
  EXPORT_ARG_DOUBLE,    /* u.r */
  EXPORT_ARG_STRING,    /* u.id, a string id (never TRACE_STRING_NULL) */
  EXPORT_ARG_TEXT       /* u.t, text */
};

/*
** Keys are numbered for the whole export, so that a sink encodes each key
** once (Chrome's "name": text, Perfetto's interned name): the walk's own
** keys first, then one per column of each exported store.
*/
enum {
  EXPORT_KEY_TID, EXPORT_KEY_PRIO, EXPORT_KEY_END_STATE, EXPORT_KEY_FAULT,
  EXPORT_KEY_ENDED_BY,          /* a kvm exit without an entry: how it ends */
  EXPORT_KEY_ARGS,              /* a span's args text, where a format names it */
  EXPORT_KEY_FIRST_COLUMN
};
#define EXPORT_N_KEYS (EXPORT_KEY_FIRST_COLUMN + 6*TRACE_STORE_MAX_COLUMNS)

typedef struct EXPORT_ARG {
  unsigned short Key;           /* < EXPORT_N_KEYS */
  unsigned char Type;           /* EXPORT_ARG_* */
  unsigned char KeyLength;
  const char *KeyText;          /* the key's name, KeyLength bytes */
  union {
    long long i;
    unsigned long long u;
    double r;
    unsigned id;
    struct { const char *z; unsigned n; } t;
  } u;
} EXPORT_ARG;

/*
** A name: a string id, or Text (not 0-terminated) when Text is not 0.
** Strings of the walk's own ("kvm exited", "tid 12") are Text.
*/
typedef struct EXPORT_NAME {
  unsigned Id;
  unsigned Length;
  const char *Text;
} EXPORT_NAME;

/* One event.  Pid and Tid say its thread; a counter's Tid is unused. */
typedef struct EXPORT_EVENT {
  long long Ts;
  long long Dur;                /* slices: >= 0 */
  unsigned Pid, Tid;
  EXPORT_NAME Name;
  EXPORT_NAME Category;         /* Id TRACE_STRING_NULL, Text 0: none */
  int Cpu;                      /* counters: the CPU, or -1 */
  double Value;                 /* counters */
  const char *SpanArgs;         /* a span's args text, or 0 */
  unsigned SpanArgsLength;
  int SpanArgsIsObject;         /* the text is one JSON object */
  int NumberOfArgs;
  const EXPORT_ARG *Args;       /* 0: a span's (SpanArgs instead) */
} EXPORT_EVENT;

typedef struct EXPORT_HEADER {
  const char *SessionPath;
  const char *ClockName;
  long long Origin;             /* the first exported event's ts */
  long long From, To;           /* the window, when HasFrom, HasTo */
  int HasFrom, HasTo;
  unsigned long long NumberOfStrings;  /* string ids are below it */
} EXPORT_HEADER;

/*
** A format.  Each call returns nothing; a sink that fails (out of memory,
** a write error) says so in End's return.  Context is the sink's own.
*/
typedef struct EXPORT_SINK {
  void (*Begin)(void *Context, const EXPORT_HEADER *Header);
  /* A process's or thread's name, once each, before its first event. */
  void (*NameProcess)(void *Context, unsigned Pid, const EXPORT_NAME *Name);
  void (*NameThread)(void *Context, unsigned Pid, unsigned Tid,
                     const EXPORT_NAME *Name);
  /* A slice of known Dur, at its start. */
  void (*Slice)(void *Context, const EXPORT_EVENT *Event);
  void (*Instant)(void *Context, const EXPORT_EVENT *Event);
  /* A counter's value; its track is (Pid, Name, Cpu). */
  void (*Counter)(void *Context, const EXPORT_EVENT *Event);
  /*
  ** A slice whose end is not known when it begins (a CPU's sched slice,
  ** a kvm exit without an entry): OpenBegin at its start (Ts, Name, the
  ** Args known then), OpenEnd when it ends (Event->Ts its start again,
  ** Dur, Name, all of its Args, in the order the walk ends them, not by
  ** start).  Events of other tracks come between the two; on its own
  ** track (Pid, Tid, Lane) none.
  */
  void (*OpenBegin)(void *Context, const EXPORT_EVENT *Event);
  void (*OpenEnd)(void *Context, const EXPORT_EVENT *Event);
  /* The end: 0, or 1 after saying why (hostFail). */
  int (*End)(void *Context, unsigned long long *pEvents,
             unsigned long long *pBytes);
} EXPORT_SINK;

/* The text of string id (0 for TRACE_STRING_NULL or a damaged id). */
const char *exportIdText(void *Walk, unsigned Id, ULONG *pLength);

/* The formats: a sink table and the size of its context; the context
** zeroed, then Open. */
typedef struct EXPORT_FORMAT {
  const char *Name;
  const EXPORT_SINK *Sink;
  size_t ContextSize;
  int (*Open)(void *Context, FILE *Out, void *Walk);
} EXPORT_FORMAT;

extern const EXPORT_FORMAT ExportChromeFormat;
extern const EXPORT_FORMAT ExportPerfettoFormat;

#endif /* TRACER_EXPORT_SINK_H */
