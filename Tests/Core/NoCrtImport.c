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

--*/

#include "Readers/Shared/TraceImport.h"

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "    xor %rbp, %rbp\n"
        "    mov %rsp, %rdi\n"
        "    and $-16, %rsp\n"
        "    call NoCrtMain\n"
        "    mov %eax, %edi\n"
        "    mov $231, %eax\n"       // exit_group
        "    syscall\n"
        "    hlt\n");

static RTL Rtl;
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

    Rtl.WriteFile(&Rtl, 2, 0, Buffer, Length);
}

int NoCrtMain(LONG_PTR *Stack) __attribute__((used));

int
NoCrtMain(
    LONG_PTR *Stack
    )
{
    LONG_PTR ArgumentCount = Stack[0];
    PCSZ *Arguments = (PCSZ *)(Stack + 1);
    TRACE_IMPORT Import;
    RTL_ERROR Error;
    RTL_STATUS Status;
    ULONGLONG Expected;
    ULONGLONG Found = 0;
    ULONG Index;

    InitializeRtl(&Rtl);

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

    Status = TraceImportRun(&Import, TraceFindFormat(TraceFormatFtraceText));
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
