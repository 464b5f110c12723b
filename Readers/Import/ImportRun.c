/*++

Module Name:

    ImportRun.c

Abstract:

    This module runs an import and ends it: TraceImportRun (map the input,
    take the decoder it is given or detect one of those it is given,
    begin, let the decoder import, end), the periodic
    commits while a reader appends (TraceImportEventDone,
    TraceImportCommit: each commit first sets the kvm_exit and span
    stores' commit limits), and TraceImportEnd (drain the span reorder
    window, release unpaired exits, close open spans, write the `source`
    row, commit).  It is the top of the import context: the sinks and the
    span builder never call it.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by every reader
    (EventDone), by TraceImportRun's caller and by the hosted edges that
    drive an import themselves (the live recorder).  Calls TraceImport.c
    (begin, map, intern), the Detect and Import routines of the decoders
    it is handed (TRACE_FORMAT; it names none), ImportSinks.c,
    ImportFaults.c and SpanBuilder.c (commit limits, closing spans and
    waiting faults), SpanReorder.c (drain), and the store API.

--*/

#include "TraceImport.h"
#include "ImportInternal.h"

static
RTL_STATUS
Commit(
    PTRACE_IMPORT Import
    )
{
    RTL_STATUS Status;

    TraceImportSetKvmCommitLimit(Import);
    TraceImportSetSpanCommitLimit(Import);
    TraceImportSetFaultCommitLimit(Import);

    Status = TraceSessionCommit(Import->Session);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines,
                           ~0ULL, "%s: commit failed: %s", Import->Path,
                           RtlStatusText(Status));
    }

    Import->SinceCommit = 0;

    if (Import->SyncEveryNs > 0) {
        PRTL Rtl = Import->Rtl;
        LONGLONG Now = Rtl->QueryTime(Rtl, RtlClockMonotonic);

        if (Import->LastSyncNs == 0) {
            Import->LastSyncNs = Now;
        } else if (Now - Import->LastSyncNs >= Import->SyncEveryNs) {
            RTL_ERROR SyncError;

            SyncError.Message[0] = '\0';
            Status = TraceSessionSync(Import->Session, &SyncError);
            if (!RTL_SUCCESS(Status)) {
                return RtlSetError(&Import->Error, Status,
                                   (ULONG)Import->Lines, ~0ULL,
                                   "%s: sync failed: %s", Import->Path,
                                   SyncError.Message);
            }
            Import->LastSyncNs = Now;
            if (Import->Synced != NULL) {
                Import->Synced(Import->SyncedContext, Import->Session);
            }
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportEventDone(
    PTRACE_IMPORT Import,
    SIZE_T BytesDone
    )
{
    Import->Events++;

    if (++Import->SinceCommit < Import->CommitEvery) {
        return RTL_STATUS_OK;
    }

    if (Import->Progress != NULL) {
        Import->Progress(Import->ProgressContext, BytesDone, Import->Length,
                         Import->Events);
    }

    //
    // The input is read front to back: unmap what lies well behind.
    //

    if (Import->Buffer != NULL &&
        BytesDone >= Import->DiscardedBytes + 2 * TRACE_DISCARD_BEHIND) {
        Import->Rtl->DiscardMemory(Import->Rtl,
                                   Import->Buffer + Import->DiscardedBytes,
                                   BytesDone - TRACE_DISCARD_BEHIND -
                                   Import->DiscardedBytes);
        Import->DiscardedBytes = BytesDone - TRACE_DISCARD_BEHIND;
    }

    return Commit(Import);
}

RTL_STATUS
TraceImportCommit(
    PTRACE_IMPORT Import
    )
{
    return Commit(Import);
}

RTL_STATUS
TraceImportEnd(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Finishes an import, successful or not: exits still waiting for an
    entry are released with a NULL dur, spans still open are closed at the
    trace's last ts, the `source` row is written, and everything is
    committed.  Import->Error is only overwritten if it held
    no error yet.

--*/
{
    PRTL Rtl = Import->Rtl;
    RTL_STATUS Status;
    RTL_STATUS CommitStatus;
    SOURCE_RECORD Source;
    RTL_ERROR Saved = Import->Error;
    BOOL HadError = (Import->Error.Status != RTL_STATUS_OK);

    //
    // Span events still held in the reorder window come before the end of
    // the input (or the error that stopped it).
    //

    if (!RTL_SUCCESS(TraceImportSpanReorderDrain(Import)) && !HadError) {
        Saved = Import->Error;
        HadError = TRUE;
    }
    TraceImportSpanReorderFree(Import);

    if (Import->PendingExits.Entries != NULL) {
        ULONGLONG Index;

        for (Index = 0; Index <= Import->PendingExits.Mask; Index++) {
            if (Import->PendingExits.Entries[Index].Key != 0 &&
                Import->PendingExits.Entries[Index].Value !=
                    NO_PENDING_EXIT) {
                Import->UnpairedExits++;
            }
        }
    }
    TraceHashDestroy(&Import->PendingExits);
    TraceImportPageFaultsEnd(Import);
    TraceHashDestroy(&Import->Threads);
    TraceHashDestroy(&Import->Processes);
    TraceHashDestroy(&Import->ProcessNames);

    if (Import->Stores[TraceRecordKvmExit] != NULL) {
        Import->Stores[TraceRecordKvmExit]->CommitLimit = TRACE_COMMIT_ALL;
    }

    TraceImportSpanFinish(Import);

    if (Import->Stores[TraceRecordFtraceEvent] != NULL &&
        Import->LostEvents != 0) {
        TraceStoreAddDropped(Import->Stores[TraceRecordFtraceEvent],
                             (ULONG)Import->LostEvents);
    }

    Status = RTL_STATUS_OK;

    if (Import->Stores[TraceRecordSource] != NULL &&
        Import->FormatName != NULL) {
        Source.ImportedRealtimeNs = Import->ImportedRealtimeNs;
        Source.FirstTs = TRACE_NULL_LONGLONG;
        Source.LastTs = TRACE_NULL_LONGLONG;
        if (Import->Events != 0) {
            Source.FirstTs = Import->FirstTs;
            Source.LastTs = Import->LastTs;
        }
        Source.Bytes = Import->Length;
        Source.Lines = Import->Lines;
        Source.Events = Import->Events;
        Source.ClockId = Import->ClockId;
        Source.Padding = 0;
        Source.TscMhz = 0;
        if (Import->TscMhz > 0) {
            Source.TscMhz = Import->TscMhz;
        } else {
            Rtl->FillMemory(&Source.TscMhz, sizeof(Source.TscMhz), 0xff);
        }

        Source.ClockOffset = Import->HaveClockOffset ? Import->ClockOffset
                                                     : TRACE_NULL_LONGLONG;
        Source.TscOffset = Import->HaveTscOffset ? Import->TscOffset
                                                 : TRACE_NULL_LONGLONG;

        Status = TraceImportIntern(Import, Import->Path,
                                   (ULONG)RtlStringLength(Import->Path),
                                   &Source.PathId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportIntern(Import, Import->FormatName,
                                       (ULONG)RtlStringLength(
                                           Import->FormatName),
                                       &Source.FormatId);
        }
        if (RTL_SUCCESS(Status)) {
            Status = AppendRecord(Import, Import->Stores[TraceRecordSource],
                                  &Source, NULL);
        }
    }

    CommitStatus = Commit(Import);
    if (RTL_SUCCESS(Status)) {
        Status = CommitStatus;
    }

    if (HadError) {
        Import->Error = Saved;
        return Saved.Status;
    }

    return Status;
}

static
RTL_STATUS
SetUpAlignment(
    PTRACE_IMPORT Import,
    PCTRACE_FORMAT Format
    )
/*++

Routine Description:

    The clock alignment of this input: the offsets the caller set, and the
    TSC conversion at Import->TscMhz for the formats that have none of
    their own (uftrace and Chrome JSON recorded in TSC; kvmtrace and perf
    stat convert their TSC values themselves).

--*/
{
    PTRACE_CLOCK_ALIGN Align = &Import->Align;

    Align->Active = FALSE;
    Align->Convert = FALSE;
    Align->TscOffset = Import->HaveTscOffset ? Import->TscOffset : 0;
    Align->ClockOffset = Import->HaveClockOffset ? Import->ClockOffset : 0;
    Align->Clock.Convert = FALSE;

    if (Import->TscMhz > 0 && (Format->Flags & TRACE_FORMAT_TSC_CLOCK)) {
        if (!TscClockSetUp(&Align->Clock, Import->TscMhz)) {
            return RtlSetError(&Import->Error, RTL_STATUS_INVALID_PARAMETER,
                               0, 0, "%s: a TSC rate below 1 MHz or above "
                               "1 THz is not supported", Import->Path);
        }
        Align->Convert = TRUE;
    }

    Align->Active = Align->Convert || Align->TscOffset != 0 ||
                    Align->ClockOffset != 0;
    return RTL_STATUS_OK;
}

PCTRACE_FORMAT
TraceDetectFormat(
    PTRACE_IMPORT Import,
    const PCTRACE_FORMAT *Formats
    )
{
    for (; *Formats != NULL; Formats++) {
        if ((*Formats)->Detect(Import)) {
            return *Formats;
        }
    }

    return NULL;
}

RTL_STATUS
TraceImportRun(
    PTRACE_IMPORT Import,
    PCTRACE_FORMAT Format,
    const PCTRACE_FORMAT *Formats
    )
{
    RTL_STATUS Status;

    Import->FormatName = NULL;
    Status = TraceImportMapInput(Import);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Format == NULL && Formats != NULL) {
        Format = TraceDetectFormat(Import, Formats);
    }
    if (Format == NULL) {

        //
        // Nothing is read, but the session gets the tables of an import
        // (empty), as after an error in the first event: a query of
        // `source` finds no row rather than no table.
        //

        RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                    "%s: unrecognized format", Import->Path);
        if (RTL_SUCCESS(TraceImportBegin(Import))) {
            TraceImportEnd(Import);
        }
        TraceImportUnmapInput(Import);
        return RTL_STATUS_BAD_FORMAT;
    }
    Import->FormatName = Format->Name;

    Status = SetUpAlignment(Import, Format);
    if (!RTL_SUCCESS(Status)) {
        TraceImportUnmapInput(Import);
        return Status;
    }

    Status = TraceImportBegin(Import);
    if (RTL_SUCCESS(Status)) {
        Status = Format->Import(Import);
    }
    Status = TraceImportEnd(Import);
    TraceImportUnmapInput(Import);

    return Status;
}

