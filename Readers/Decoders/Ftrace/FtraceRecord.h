/*++

Module Name:

    FtraceRecord.h

Abstract:

    The one builder of the dedicated ftrace stores (page_fault, kvm_exit,
    sched_switch, process), shared by the two ftrace paths: the text one
    (EventText.c: tracefs text, trace-cmd report, perf script) and the
    binary one (Decoders/Ftrace/TraceEventImport.c: trace.dat, live
    recording).  Which events fill which store, and the field behind each
    column, is the record type's TRACE_FTRACE_MAP (TraceStore/TraceSchema.c);
    a path only says how it reads a field, through a TRACE_FIELD_SOURCE.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by EventText.c
    and TraceEventImport.c; calls the sinks of TraceImport.h.

--*/

#ifndef _TRACER_FTRACE_RECORD_H_
#define _TRACER_FTRACE_RECORD_H_

#include "Readers/Import/TraceImport.h"

//
// A field's value as a source reads it; which parts are set depends on the
// field's conversion:
//
//     Number, OptionalNumber   Number
//     String, StateLetters     Text, Length
//     Symbol                   Number (TRACE_NULL_ULONGLONG if printed as
//                              a name), Text/Length (the symbol, or NULL)
//     ExitReason               Text/Length (the name), Number (the code,
//                              TRACE_NULL_ULONGLONG if unknown)
//
// Text points into the event or into Buffer, and stays valid until the
// builder has interned it.
//

typedef struct _TRACE_FIELD_VALUE {
    ULONGLONG Number;
    PCSZ Text;
    ULONG Length;
    CHAR Buffer[20];
} TRACE_FIELD_VALUE, *PTRACE_FIELD_VALUE;
typedef const TRACE_FIELD_VALUE *PCTRACE_FIELD_VALUE;

typedef struct _TRACE_FIELD_SOURCE TRACE_FIELD_SOURCE, *PTRACE_FIELD_SOURCE;

struct _TRACE_FIELD_SOURCE {

    //
    // Reads field Index of Map (a conversion with a field); FALSE when the
    // event lacks it or it does not read as its conversion says (the event
    // is then kept as ftrace_event, unless the field is optional).
    //

    BOOL (*Read)(PTRACE_FIELD_SOURCE Source, PCTRACE_FTRACE_MAP Map,
                 ULONG Index, PTRACE_FIELD_VALUE Value);

    //
    // The string id of the event's text (TraceFtraceEventArgs).
    //

    RTL_STATUS (*ArgsId)(PTRACE_FIELD_SOURCE Source, PULONG Id);

    //
    // Optional (NULL: a text source): the string id of the event record's
    // bytes (TraceFtraceEventRaw).
    //

    RTL_STATUS (*RawId)(PTRACE_FIELD_SOURCE Source, PULONG Id);

    //
    // Optional (NULL): what a binary source knows beyond the fields.  The
    // mapping (module string id) of Address in process Pid, or NULL, with
    // Address's module offset and TRACE_MAPPING_* flags (as the event
    // resolver's ModuleOf); and a comm learned for a task (from
    // sched_switch), for later events.
    //

    ULONG (*ModuleOf)(PTRACE_FIELD_SOURCE Source, ULONG Pid,
                      ULONGLONG Address, PULONGLONG Offset, PULONG Flags);
    RTL_STATUS (*LearnComm)(PTRACE_FIELD_SOURCE Source, ULONG Tid,
                            ULONG CommId);
};

//
// The record type whose ftrace map takes event Name (System NULL: any;
// the text readers print bare names), or NULL.  *IsEnd is TRUE when Name
// is the map's EndEvent.
//

PCTRACE_RECORD_TYPE TraceFtraceFindType(PCSZ System, PCSZ Name,
                                        ULONG NameLength, PBOOL IsEnd);

//
// Builds the record of Type from the event's fields and hands it to the
// type's sink (page faults, KVM exits, switches, execs).  *Handled is FALSE
// when a field is missing, or the map says the event is an ftrace_event
// row too: the caller then records it as one.  NameId is the event's name.
//

RTL_STATUS TraceFtraceBuild(PTRACE_IMPORT Import, PCTRACE_RECORD_TYPE Type,
                            PTRACE_FIELD_SOURCE Source,
                            PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                            PBOOL Handled);

//
// An event that is its map's EndEvent: completes the task's last record
// (kvm_entry: the exit's dur, and the entry's record bytes RawId, or
// NULL).  *Handled is FALSE when none waits.
//

RTL_STATUS TraceFtraceEnd(PTRACE_IMPORT Import, PCTRACE_RECORD_TYPE Type,
                          PTRACE_EVENT_CONTEXT Event, ULONG RawId,
                          PBOOL Handled);

//
// An event printed as text by the kernel's print format (ftrace text,
// trace-cmd report, perf script): Name is the bare event name, Args its
// fields as printed.  Page faults, KVM exits and entries, context switches
// and execs go to their own stores (EventText.c), everything else to
// ftrace_event.  The caller has set Event's task fields, CommId and
// FlagsId, and calls TraceImportEventDone afterwards.  Latency is the
// line's latency-flags column ("d..2."), Start NULL if it has none.
//

RTL_STATUS TraceImportTextEvent(PTRACE_IMPORT Import,
                                PTRACE_EVENT_CONTEXT Event, TEXT_SPAN Name,
                                TEXT_SPAN Args, TEXT_SPAN Latency);

#endif // _TRACER_FTRACE_RECORD_H_
