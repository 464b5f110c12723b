/*++

Module Name:

    NoCrtImport.c

Abstract:

    A program made only of the core: Rtl, TraceStore and the reader
    decoders, linked with -nostdlib -static -Wl,--no-undefined.  If any of
    them needed the C runtime the link would fail, so building this target
    is the proof; running it shows the core works alone:

        NoCrtImport INPUT SESSION EXPECTED_EVENTS

    imports INPUT (ftrace text) into SESSION, reopens the session read-only
    and checks that the stores hold EXPECTED_EVENTS event lines (kvm_exit
    rows count twice when paired).  Exit status 0 on success.

    This file is the platform-neutral body (NoCrtImportMain); the entry
    points are NoCrtStartLinux.c (a _start of its own, raw syscalls) and
    Tests/Windows/WinCoreTest.c (kernel32 only).

--*/

#include "Readers/TraceFormats.h"

RTL Rtl;

//
// Where Print writes: the entry point (NoCrtStartLinux.c, or the Windows
// test's) sets it to standard error before calling NoCrtImportMain.
//

HANDLE NoCrtErrorHandle = 2;
static TRACE_SESSION Session;

static
VOID
Print(
    PCSZ Format,
    ...
    )
{
    CHAR Buffer[1024];
    va_list Args;
    SIZE_T Length;

    va_start(Args, Format);
    Length = RtlFormatV(Buffer, sizeof(Buffer), Format, Args);
    va_end(Args);

    Rtl.WriteFile(&Rtl, NoCrtErrorHandle, 0, Buffer, Length);
}

int
NoCrtImportMain(
    LONG_PTR ArgumentCount,
    PCSZ *Arguments
    )
{
    TRACE_IMPORT Import;
    RTL_ERROR Error;
    RTL_STATUS Status;
    ULONGLONG Expected;
    ULONGLONG Found = 0;
    ULONG Index;

    if (ArgumentCount != 4 ||
        TextParseUnsigned(Arguments[3],
                          Arguments[3] + RtlStringLength(Arguments[3]),
                          FALSE, &Expected) == NULL) {
        Print("usage: NoCrtImport INPUT SESSION EXPECTED_EVENTS\n");
        return 2;
    }

    Status = TraceSessionOpenWriter(&Rtl, Arguments[2], &Session, &Error);
    if (!RTL_SUCCESS(Status)) {
        Print("%s\n", Error.Message);
        return 1;
    }

    Rtl.FillMemory(&Import, sizeof(Import), 0);
    Import.Rtl = &Rtl;
    Import.Session = &Session;
    Import.Path = Arguments[1];
    Import.FormatName = "ftrace";

    Status = TraceImportRun(&Import, TraceFormatFromName("ftrace"), NULL);
    TraceSessionClose(&Session);

    if (!RTL_SUCCESS(Status)) {
        Print("%s\n", Import.Error.Message);
        return 1;
    }

    Status = TraceSessionOpenReader(&Rtl, Arguments[2], &Session, &Error);
    if (!RTL_SUCCESS(Status)) {
        Print("%s\n", Error.Message);
        return 1;
    }

    for (Index = 0; Index < Session.NumberOfStores; Index++) {
        PTRACE_STORE Store = &Session.Stores[Index];
        ULONGLONG Count = Store->Snapshot.RecordCount;
        PCTRACE_COLUMN_DESCRIPTOR Dur;
        ULONGLONG Row;

        if (Store->TimestampOffset == TRACE_NO_COLUMN) {
            continue;
        }

        Found += Count;

        //
        // A paired kvm_exit row stands for two lines.
        //

        Dur = TraceStoreFindColumn(Store->Header, "dur");
        for (Row = 0; Dur != NULL && Row < Count; Row++) {
            LONGLONG Value;
            if (TraceStoreReadColumn(Store, Row, Dur, &Value)) {
                Found++;
            }
        }
    }

    TraceSessionClose(&Session);

    if (Found != Expected) {
        Print("NoCrtImport: %llu event lines stored, expected %llu\n", Found,
              Expected);
        return 1;
    }

    Print("NoCrtImport: %llu event lines stored, as expected\n", Found);
    return 0;
}
