/*
** Export.h: what `tracestore export` (CmdExport.c) hands the walk of a
** session (ExportWalk.c), which writes it in a format (ExportSink.h).
**
** Zone: hosted (Outputs/Export/, an output): libc.  Reads a session only
** through the store API (TraceStore/TraceStore.h, TraceSchema.h), never
** SQL.  Arrows: CmdExport.c -> ExportWalk.c -> ExportChrome.c and
** ExportPerfetto.c (through ExportSink.h) -> HostUtil.c; ExportWalk.c ->
** the store API, Readers/Import/TimeMerge.h.
*/
#ifndef TRACER_EXPORT_H
#define TRACER_EXPORT_H

#include <stdio.h>

#include "Host/Host.h"

/* The stores export writes, in the order of ties between equal ts. */
#define EXPORT_STORE_SPAN         0x01
#define EXPORT_STORE_KVM_EXIT     0x02
#define EXPORT_STORE_FTRACE_EVENT 0x04
#define EXPORT_STORE_PAGE_FAULT   0x08
#define EXPORT_STORE_SCHED_SWITCH 0x10
#define EXPORT_STORE_COUNTER      0x20
#define EXPORT_STORE_ALL          0x7f

/* The store bit of zName, or 0 if export does not write such a store. */
unsigned exportStoreBit(const char *zName);

/* The names of the stores export writes, for messages ("span, ..."). */
extern const char zExportStoreNames[];

/*
** Synthetic tracks (Chrome needs a pid for every event): sched_switch
** slices live on one thread per CPU of the process EXPORT_CPU_PID
** (tid EXPORT_CPU_TID(cpu)); counters without a pid on EXPORT_COUNTER_PID.
** Both far above any kernel pid (PID_MAX_LIMIT is 2^22).
*/
#define EXPORT_CPU_PID        2147483000u
#define EXPORT_CPU_TID(c)     (2147483000u - 1u - (unsigned)(c))
#define EXPORT_COUNTER_PID    2147483001u

/*
** A thread whose kvm exits come from several vcpus (kvmtrace records the
** VM's pid for all of them) gets a thread per vcpu, "vcpu N (tid T)", of
** the same process: tid EXPORT_VCPU_TID(k) for its k-th lane.
*/
#define EXPORT_VCPU_TID(k)    (2147000000u - (unsigned)(k))

struct EXPORT_FORMAT;

typedef struct ExportOptions {
  const struct EXPORT_FORMAT *pFormat;  /* ExportSink.h: chrome, perfetto */
  unsigned mStores;           /* EXPORT_STORE_* bits to write */
  long long iFrom, iTo;       /* the window, ns, inclusive */
  int bWindowKvm;             /* --window kvm: cut to the KVM trace */
} ExportOptions;

/* What the export wrote, for the summary line. */
typedef struct ExportCounts {
  unsigned long long nEvents; /* trace events written (M included) */
  unsigned long long nBytes;  /* bytes of the file */
  long long iFrom, iTo;       /* the window used (after --window kvm) */
} ExportCounts;

/*
** Writes pSession (opened as a reader; each store's snapshot taken at open
** is what is exported) to out in pOpt->pFormat (ExportWalk.c).  Returns
** 0, or 1 after printing the reason (hostFail).
*/
int exportSession(PTRACE_SESSION pSession, const ExportOptions *pOpt,
                  FILE *out, ExportCounts *pCounts);

#endif /* TRACER_EXPORT_H */
