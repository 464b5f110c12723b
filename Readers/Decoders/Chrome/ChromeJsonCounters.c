/*++

Module Name:

    ChromeJsonCounters.c

Abstract:

    "C" events: each member of "args" is one sample in the counter store,
    named as Perfetto names them: "NAME KEY", or "NAME id: ID KEY" when
    the event has an "id"; a number nested in objects (Node writes
    "args":{"data":{...}}) is named by its path, "NAME KEY.SUBKEY".  A
    value that is not a number (or a string holding exactly one) is not a
    sample: it counts in the counter store's dropped.

Environment:

    Core: no C runtime, no OS service (only the RTL's CopyMemory and
    FillMemory).  Called by ChromeJson.c; calls ChromeJsonParse.c
    (errors), Json.h, TextParse.h and TraceImport.h's counter store.

--*/

#include "ChromeJsonReader.h"

#define CHROME_COUNTER_DEPTH 32

static
RTL_STATUS
CounterSkipped(
    PCHROME_READER Reader,
    ULONG Count
    )
/*++

Routine Description:

    Counts samples a counter event gave that are not numbers (strings,
    booleans, arrays, null, names too long): the counter store's
    `dropped` (store_info).  The import goes on.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    RTL_STATUS Status;
    PTRACE_STORE Store;

    Status = TraceImportOpenStore(Import, TraceRecordCounter, &Store);
    if (RTL_SUCCESS(Status)) {
        TraceStoreAddDropped(Store, Count);
    }
    return Status;
}

static
BOOL
ParseCounterValue(
    PCSZ Cursor,
    PCSZ End,
    PDOUBLE Value
    )
/*++

Routine Description:

    A counter value: a number, or a string holding exactly one (unescaped).

--*/
{
    JSON_NUMBER Number;
    JSON_STRING String;
    JSON_ERROR Error;

    if (*Cursor == '"') {
        if (JsonScanString(Cursor, End, &String, &Error) == NULL ||
            String.Escaped ||
            JsonScanNumber(String.Start, String.End, &Number, &Error) !=
                String.End) {
            return FALSE;
        }
    } else if (JsonScanNumber(Cursor, End, &Number, &Error) == NULL) {
        return FALSE;
    }

    return TextParseDouble(Number.Start, Number.End, Value) == Number.End;
}

RTL_STATUS
ChromeImportCounters(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    A "C" event: one counter sample per number in "args", named as
    Perfetto names them, "NAME KEY" or "NAME id: ID KEY"; a number nested
    in objects (Node writes "args":{"data":{...}}) is named by its path,
    "NAME KEY.SUBKEY".  A value that is not a number (or a string holding
    one) skips that sample and counts it in the counter store's dropped;
    so does an event whose "args" is not an object.

--*/
{
    PCSZ Cursor = Event->ArgsStart;
    PCSZ End = Event->ArgsEnd;
    PCHAR Buffer = Reader->Buffer;
    ULONG Length;
    ULONG Depth = 0;
    ULONG Prefix[CHROME_COUNTER_DEPTH];
    BOOL First = TRUE;
    JSON_STRING Key;
    JSON_STEP Step;
    RTL_STATUS Status;
    COUNTER_RECORD Record;

    if (!(Event->Fields & FIELD_ARGS) || *Cursor != '{') {
        return CounterSkipped(Reader, 1);
    }

    //
    // The name prefix: NAME, and " id: ID" when there is an id.
    //

    Prefix[0] = 0;
    if (Event->Fields & FIELD_NAME) {
        Prefix[0] = JsonDecodeString(&Event->Name, Buffer,
                                     CHROME_BUFFER_SIZE / 2);
    }
    if (Prefix[0] != ~0u && (Event->Fields & FIELD_ID)) {
        if (Prefix[0] + 5 > CHROME_BUFFER_SIZE / 2) {
            Prefix[0] = ~0u;
        } else {
            Reader->Import->Rtl->CopyMemory(Buffer + Prefix[0], " id: ", 5);
            Prefix[0] += 5;
            Length = JsonDecodeString(&Event->Id, Buffer + Prefix[0],
                                      CHROME_BUFFER_SIZE / 2 - Prefix[0]);
            Prefix[0] = (Length == ~0u) ? ~0u : Prefix[0] + Length;
        }
    }
    if (Prefix[0] == ~0u) {
        return CounterSkipped(Reader, 1);
    }

    Reader->Import->Rtl->FillMemory(&Record.RunningPercent,
                                    sizeof(Record.RunningPercent), 0xff);
    Record.UnitId = TRACE_NULL_ULONG;
    Record.Pid = Context->Pid;
    Record.Cpu = TRACE_NULL_ULONG;

    //
    // The members, depth first; Prefix[Depth] is the name's length at each
    // level.  The args were checked by the parser: the steps cannot fail.
    //

    Cursor++;
    for (;;) {
        CHAR Separator = (Depth == 0) ? ' ' : '.';
        ULONG Room;

        Step = JsonObjectNext(&Cursor, End, &First, &Key, &Reader->Json);
        if (Step == JsonStepDone) {
            if (Depth == 0) {
                return RTL_STATUS_OK;
            }
            Depth--;
            First = FALSE;
            continue;
        }
        if (Step != JsonStepItem) {
            return ChromeJsonError(Reader);
        }

        Room = CHROME_BUFFER_SIZE - Prefix[Depth] - 1;
        Buffer[Prefix[Depth]] = Separator;
        Length = JsonDecodeString(&Key, Buffer + Prefix[Depth] + 1, Room);

        if (*Cursor == '{' && Length != ~0u &&
            Depth + 1 < CHROME_COUNTER_DEPTH) {
            Prefix[Depth + 1] = Prefix[Depth] + 1 + Length;
            Depth++;
            Cursor++;
            First = TRUE;
            continue;
        }

        if (Length != ~0u && *Cursor != '{' && *Cursor != '[' &&
            ParseCounterValue(Cursor, End, &Record.Value)) {
            Status = TraceImportIntern(Reader->Import, Buffer,
                                       Prefix[Depth] + 1 + Length,
                                       &Record.NameId);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportCounter(Reader->Import, Context, &Record);
            }
        } else {
            Status = CounterSkipped(Reader, 1);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Cursor = JsonSkipValue(Cursor, End, &Reader->Json);
        if (Cursor == NULL) {
            return ChromeJsonError(Reader);
        }
    }
}
