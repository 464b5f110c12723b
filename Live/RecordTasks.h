/*
** RecordTasks.h: the tasks and address spaces a live recording watches
** (RecordTasks.c).
**
** Zone: hosted (the live recorders): libc, perf_event_open, /proc.  Used
** by Record.c only.
**
** Tracefs events name a thread (common_pid is the tid) and, for page
** faults, an address.  To say which process a thread belongs to and which
** mapping holds an address, the recorder keeps a model of each process:
**
**   - when a thread is first seen, /proc/TID/status gives its process,
**     and /proc/PID/maps that process's mappings (also appended to the
**     module store);
**
**   - perf side-band records (a dummy software event with mmap, mmap_data,
**     comm_exec and task, on the CLOCK_MONOTONIC clock of the "mono"
**     trace clock) then keep it current in event time: every mmap (file
**     or anonymous), fork and exec.  They are applied in time order before
**     the events that follow them, so a fault is attributed to the mapping
**     that was there when it happened, even one made and removed before
**     /proc could be read.
**
** Without perf (perf_event_open refused) the model comes from /proc alone,
** re-read at each sched_process_exec the recording holds.
*/
#ifndef TRACER_RECORD_TASKS_H
#define TRACER_RECORD_TASKS_H

#include "Readers/Decoders/Ftrace/TraceEvent.h"

typedef struct RecTasks RecTasks;

/* A model that appends its module rows through pImport.  NULL: no memory. */
RecTasks *recTasksNew(PTRACE_IMPORT pImport);
void recTasksFree(RecTasks*);

/*
** Opens the perf side-band on each of the nCpu CPUs in aCpu, for process
** pid and its descendants (threads of pid: all of them), or the whole
** system if pid is -1.  Returns 0, or -1 with a reason in zErr (the model
** then relies on /proc).
*/
int recTasksOpenPerf(RecTasks*, int nCpu, const int *aCpu, int pid,
                     char *zErr, int nErr);
int recTasksHasPerf(RecTasks*);

/*
** Opens perf's minor-faults and major-faults software events, sampling
** every fault with its address, for the same scope, and feeds their
** samples, in time order with the events, to the import's page-fault
** classification (Readers/Import/ImportFaults.c).  Returns 0, or -1 with
** a reason in zErr (faults then stay unclassified).
*/
int recTasksOpenFaults(RecTasks*, int nCpu, const int *aCpu, int pid,
                       char *zErr, int nErr);
unsigned long long recTasksFaultLost(RecTasks*);

/*
** Moves the perf records written so far into the model's queue, and
** applies the queued ones up to time ts.  Returns 0, or -1 if the session
** failed (the reason is in the import's Error).
*/
int recTasksPoll(RecTasks*);
int recTasksApply(RecTasks*, long long ts);

/*
** The same, applying fault counts (and thread ends) only up to tsCounts:
** a count must not go by before the fault event it counts is decoded, and
** tracefs events can come later than the merge watermark (reader threads
** take whole pages), while perf's samples do not.
*/
int recTasksApplyTo(RecTasks*, long long ts, long long tsCounts);

/* Thread tid has an event at ts: learns its process the first time. */
int recTasksSeen(RecTasks*, int tid, long long ts);

/*
** Reads, as of ts, the threads of pid, or every process if pid is -1:
** what was mapped before the perf side-band started.
*/
int recTasksSnapshot(RecTasks*, int pid, long long ts);

/*
** Whether an exec seen by the perf side-band writes a process row (its new
** name, at its time): on when sched_process_exec is not recorded, which
** writes them otherwise.  Without it a command's process keeps the name it
** was first seen with: "tracestore", the recorder it was forked from.
*/
void recTasksExecRows(RecTasks*, int bOn);

/* Thread tid exec'd at ts (sched_process_exec, when there is no perf). */
int recTasksExec(RecTasks*, int tid, long long ts);

/* Perf records the kernel dropped (its buffer was full), and applied. */
unsigned long long recTasksLost(RecTasks*);
unsigned long long recTasksSideRecords(RecTasks*);

/* The resolver for the event sink: DescribeTask and ModuleOf. */
PTRACE_EVENT_RESOLVER recTasksResolver(RecTasks*);

#endif
