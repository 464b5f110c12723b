/*++

Module Name:

    ChromeJson.c

Abstract:

    This module decodes Chrome trace-event JSON (the Trace Event Format of
    chrome://tracing and Perfetto; `uftrace dump --chrome` writes it): the
    object form {"traceEvents": [...], other keys} and the bare array form
    [...], which may be cut off after any complete event (Chrome's viewer
    accepts such a file, since tracers write the array as they go; the
    object form must be complete).

    Events, by phase ("ph"):

        B, E        a span begins / the innermost open span of the thread
                    ends (span store, through the shared span builder)
        X           a span with its duration ("dur")
        i, I, R     an instant: a span of dur 0 flagged instant; thread
                    scope ("s":"t", the default) nests it in what is open,
                    "g" and "p" put it at depth 0
        C           counters: each member of "args" is one sample in the
                    counter store, named as Perfetto names them:
                    "NAME KEY", or "NAME id: ID KEY" when the event has an
                    "id"
        M           process_name / thread_name: names for the process and
                    thread rows (other metadata is ignored)
        others      (async, flow, object events) kept in ftrace_event, with
                    the whole event's JSON as args, so that nothing read is
                    dropped

    "ts" and "dur" are microseconds, possibly fractional; they become
    nanoseconds exactly (the decimal digits are shifted, never rounded
    through a double).  "displayTimeUnit" does not change them (it is a
    display hint, and Perfetto ignores it too).  A missing "tid" is the
    "pid" (as in Perfetto); a missing "pid" is NULL.

    The input is read twice through the streaming tokenizer (Json.h), in
    constant memory: a first pass finds, per thread, the ends without a
    begin (a recording that started inside calls) so that the span builder
    can open those spans first, at the trace's first ts, and nest the
    thread's earlier spans inside them; the second pass imports.  Nesting
    follows the file's order: events of one thread are expected in begin
    order, as uftrace and most tracers write them.

--*/

#include "TraceImport.h"
#include "Json.h"

#define CHROME_BUFFER_SIZE 65536

#define FIELD_PH        0x0001
#define FIELD_NAME      0x0002
#define FIELD_CAT       0x0004
#define FIELD_TS        0x0008
#define FIELD_DUR       0x0010
#define FIELD_PID       0x0020
#define FIELD_TID       0x0040
#define FIELD_ARGS      0x0080
#define FIELD_SCOPE     0x0100
#define FIELD_ID        0x0200

typedef enum _CHROME_STATE {
    ChromeStateTop,         // in the top-level object, between members
    ChromeStateEvents,      // in the events array
    ChromeStateAfter,       // the top-level value ended
    ChromeStateDone,
} CHROME_STATE;

typedef struct _CHROME_EVENT {
    PCSZ Start;             // the event's '{'
    PCSZ End;               // past its '}'
    ULONG Fields;           // FIELD_*
    ULONG Members;
    CHAR Phase;
    BOOL PhaseIsOneChar;
    JSON_STRING Name;
    JSON_STRING Category;
    JSON_STRING Scope;
    JSON_STRING Id;         // the id's text (a number's digits, or a string)
    PCSZ ArgsStart;
    PCSZ ArgsEnd;
    LONGLONG Ts;
    LONGLONG Dur;
    ULONG Pid;
    ULONG Tid;
} CHROME_EVENT, *PCHROME_EVENT;

typedef struct _CHROME_ID_CACHE {
    ULONGLONG Bytes;        // the 8 bytes where the last value began
    ULONGLONG Mask;         // its digits and the byte after; 0 if none
    ULONG Length;           // digits
    ULONG Value;
} CHROME_ID_CACHE, *PCHROME_ID_CACHE;

typedef struct _CHROME_READER {
    PTRACE_IMPORT Import;
    PCSZ Start;
    PCSZ Cursor;
    PCSZ End;
    CHROME_STATE State;
    BOOL ArrayForm;
    BOOL FirstTop;
    BOOL FirstEvent;
    BOOL Scanning;
    ULONG Padding;
    SIZE_T ScanDiscarded;           // input dropped behind the scan
    CHROME_ID_CACHE PidCache;
    CHROME_ID_CACHE TidCache;
    PCHAR Buffer;                   // CHROME_BUFFER_SIZE bytes
    TRACE_HASH_TABLE ThreadNames;   // ThreadKey(pid, tid) -> name id
    JSON_ERROR Json;
} CHROME_READER, *PCHROME_READER;

static
RTL_STATUS
ChromeError(
    PCHROME_READER Reader,
    RTL_STATUS Status,
    PCSZ At,
    PCSZ Reason
    )
{
    ULONGLONG Offset = (ULONGLONG)(At - Reader->Start);

    return RtlSetError(&Reader->Import->Error, Status, 0, Offset,
                       "%s: offset %llu: %s", Reader->Import->Path, Offset,
                       Reason);
}

static
RTL_STATUS
JsonError(
    PCHROME_READER Reader
    )
{
    return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Reader->Json.At,
                       Reader->Json.Reason);
}

static
ULONGLONG
ThreadKey(
    ULONG Pid,
    ULONG Tid
    )
{
    return (((ULONGLONG)Pid << 32) | Tid) ^ 0x8000000000000000ULL;
}

//
// ---------------------------------------------------------------------------
// The top level: finding the events
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
ChromeStart(
    PCHROME_READER Reader
    )
{
    PCSZ Cursor = Reader->Start;

    if (Reader->End - Cursor >= 3 && (BYTE)Cursor[0] == 0xEF &&
        (BYTE)Cursor[1] == 0xBB && (BYTE)Cursor[2] == 0xBF) {
        Cursor += 3;
    }
    Cursor = JsonSkipSpace(Cursor, Reader->End);

    if (Cursor < Reader->End && *Cursor == '[') {
        Reader->ArrayForm = TRUE;
        Reader->State = ChromeStateEvents;
        Reader->FirstEvent = TRUE;
    } else if (Cursor < Reader->End && *Cursor == '{') {
        Reader->ArrayForm = FALSE;
        Reader->State = ChromeStateTop;
        Reader->FirstTop = TRUE;
    } else {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                           "not a JSON object or array");
    }

    Reader->Cursor = Cursor + 1;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ChromeNextEvent(
    PCHROME_READER Reader,
    PCSZ *Event
    )
/*++

Routine Description:

    Advances to the next element of the events array.

Return Value:

    RTL_STATUS_OK with *Event at the element's first character, or NULL
    when there are no more events; or an error.

--*/
{
    JSON_STRING Key;
    JSON_STEP Step;
    PCSZ Cursor;

    for (;;) {
        switch (Reader->State) {
        case ChromeStateEvents:
            Step = JsonArrayNext(&Reader->Cursor, Reader->End,
                                 &Reader->FirstEvent, &Reader->Json);
            if (Step == JsonStepItem) {
                if (*Reader->Cursor != '{') {
                    return ChromeError(Reader, RTL_STATUS_BAD_FORMAT,
                                       Reader->Cursor,
                                       "an element of the event array is "
                                       "not an object");
                }
                *Event = Reader->Cursor;
                return RTL_STATUS_OK;
            }
            if (Step == JsonStepDone) {
                Reader->State = Reader->ArrayForm ? ChromeStateAfter :
                                                    ChromeStateTop;
                continue;
            }
            if (Step == JsonStepEndOfInput && Reader->ArrayForm) {

                //
                // A bare array cut off after a complete event (or its
                // comma): the end of the trace, as Chrome reads it.
                //

                Reader->State = ChromeStateDone;
                continue;
            }
            return JsonError(Reader);

        case ChromeStateTop:
            Step = JsonObjectNext(&Reader->Cursor, Reader->End,
                                  &Reader->FirstTop, &Key, &Reader->Json);
            if (Step == JsonStepItem) {
                if (JsonStringIs(&Key, "traceEvents", 11)) {
                    if (*Reader->Cursor != '[') {
                        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT,
                                           Reader->Cursor,
                                           "\"traceEvents\" is not an array");
                    }
                    Reader->Cursor++;
                    Reader->FirstEvent = TRUE;
                    Reader->State = ChromeStateEvents;
                    continue;
                }

                //
                // displayTimeUnit, metadata, systemTraceEvents, stackFrames,
                // ...: not events.
                //

                Reader->Cursor = JsonSkipValue(Reader->Cursor, Reader->End,
                                               &Reader->Json);
                if (Reader->Cursor == NULL) {
                    return JsonError(Reader);
                }
                continue;
            }
            if (Step == JsonStepDone) {
                Reader->State = ChromeStateAfter;
                continue;
            }
            return JsonError(Reader);

        case ChromeStateAfter:
            Cursor = JsonSkipSpace(Reader->Cursor, Reader->End);
            if (Cursor != Reader->End) {
                return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                                   "data after the end of the JSON value");
            }
            Reader->State = ChromeStateDone;
            continue;

        default:
            *Event = NULL;
            return RTL_STATUS_OK;
        }
    }
}

//
// ---------------------------------------------------------------------------
// One event
// ---------------------------------------------------------------------------
//

static inline __attribute__((always_inline))
RTL_STATUS
ParseStringField(
    PCHROME_READER Reader,
    PCSZ *Cursor,
    PJSON_STRING String,
    PCSZ Reason
    )
{
    if (**Cursor != '"') {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, *Cursor, Reason);
    }
    *Cursor = JsonScanString(*Cursor, Reader->End, String, &Reader->Json);
    if (*Cursor == NULL) {
        return JsonError(Reader);
    }
    return RTL_STATUS_OK;
}

static inline __attribute__((always_inline))
RTL_STATUS
ParseNumberField(
    PCHROME_READER Reader,
    PCSZ *Cursor,
    ULONG Scale,
    PLONGLONG Value,
    PCSZ Reason
    )
/*++

Routine Description:

    Parses a number, or a string holding exactly a number (some producers
    quote them), scaled by 10^Scale exactly.

--*/
{
    PCSZ At = *Cursor;
    JSON_NUMBER Number;
    JSON_STRING String;
    PCSZ After;

    if (*At == '"') {
        After = JsonScanString(At, Reader->End, &String, &Reader->Json);
        if (After == NULL) {
            return JsonError(Reader);
        }
        if (String.Escaped ||
            JsonScanNumber(String.Start, String.End, &Number,
                           &Reader->Json) != String.End) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, At, Reason);
        }
        if (!JsonNumberToScaled(&Number, Scale, Value)) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, At,
                               "number out of range");
        }
    } else {
        After = JsonScanScaled(At, Reader->End, Scale, Value, &Reader->Json);
        if (After == NULL) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, At,
                               RtlStringEqual(Reader->Json.Reason,
                                              "number out of range") ?
                                   Reader->Json.Reason : Reason);
        }
    }

    *Cursor = After;
    return RTL_STATUS_OK;
}

static inline __attribute__((always_inline))
RTL_STATUS
ParseIdField(
    PCHROME_READER Reader,
    PCSZ *Cursor,
    PULONG Value,
    PCHROME_ID_CACHE Cache,
    PCSZ Reason
    )
/*++

Routine Description:

    Parses a pid or tid.  Most events repeat the previous event's value:
    when the eight bytes at the cursor start with the same digits and the
    same byte after them as last time, the value is the same.

--*/
{
    PCSZ At = *Cursor;
    LONGLONG Number;
    RTL_STATUS Status;
    ULONGLONG Word = 0;
    ULONG Length;

    if (Reader->End - At >= 8) {
        __builtin_memcpy(&Word, At, 8);
        if (Cache->Mask != 0 && ((Word ^ Cache->Bytes) & Cache->Mask) == 0) {
            *Value = Cache->Value;
            *Cursor = At + Cache->Length;
            return RTL_STATUS_OK;
        }
    }

    Status = ParseNumberField(Reader, Cursor, 0, &Number, Reason);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Number < 0 || Number >= (LONGLONG)TRACE_NULL_ULONG) {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, At, Reason);
    }
    *Value = (ULONG)Number;

    //
    // Remember plain digits (up to 7, and the byte after them).
    //

    Length = (ULONG)(*Cursor - At);
    Cache->Mask = 0;
    if (Reader->End - At >= 8 && Length <= 7) {
        ULONG Index;

        for (Index = 0; Index < Length; Index++) {
            if (At[Index] < '0' || At[Index] > '9') {
                return RTL_STATUS_OK;
            }
        }
        Cache->Bytes = Word;
        Cache->Mask = (Length == 7) ? ~0ULL :
                                      (1ULL << (8 * (Length + 1))) - 1;
        Cache->Length = Length;
        Cache->Value = *Value;
    }

    return RTL_STATUS_OK;
}

typedef enum _CHROME_KEY {
    ChromeKeyOther = 0,
    ChromeKeyPh,
    ChromeKeyTs,
    ChromeKeyDur,
    ChromeKeyPid,
    ChromeKeyTid,
    ChromeKeyName,
    ChromeKeyCat,
    ChromeKeyArgs,
    ChromeKeyScope,
    ChromeKeyId,
} CHROME_KEY;

#define KEY_BYTES(a, b, c, d, e, f)                                          \
    ((ULONGLONG)(BYTE)(a) | ((ULONGLONG)(BYTE)(b) << 8) |                     \
     ((ULONGLONG)(BYTE)(c) << 16) | ((ULONGLONG)(BYTE)(d) << 24) |            \
     ((ULONGLONG)(BYTE)(e) << 32) | ((ULONGLONG)(BYTE)(f) << 40))

static inline __attribute__((always_inline))
CHROME_KEY
MatchKey(
    PCSZ Quote,
    PCSZ End,
    PCSZ *After
    )
/*++

Routine Description:

    Recognizes the keys of the Trace Event Format as they are usually
    written (no escapes, the colon right after the closing quote) from the
    eight bytes after the opening quote, without scanning the string.
    Including the closing quote in the comparison makes "ph" differ from
    "phase".  Returns ChromeKeyOther when the general path must decide.

--*/
{
    ULONGLONG Word;

    if (End - Quote < 9) {
        return ChromeKeyOther;
    }
    __builtin_memcpy(&Word, Quote + 1, 8);

    switch (Word & 0xFFFFFFFFULL) {
    case KEY_BYTES('p', 'h', '"', ':', 0, 0):
        *After = Quote + 5;
        return ChromeKeyPh;
    case KEY_BYTES('t', 's', '"', ':', 0, 0):
        *After = Quote + 5;
        return ChromeKeyTs;
    case KEY_BYTES('i', 'd', '"', ':', 0, 0):
        *After = Quote + 5;
        return ChromeKeyId;
    }

    switch (Word & 0xFFFFFFFFFFULL) {
    case KEY_BYTES('p', 'i', 'd', '"', ':', 0):
        *After = Quote + 6;
        return ChromeKeyPid;
    case KEY_BYTES('t', 'i', 'd', '"', ':', 0):
        *After = Quote + 6;
        return ChromeKeyTid;
    case KEY_BYTES('d', 'u', 'r', '"', ':', 0):
        *After = Quote + 6;
        return ChromeKeyDur;
    case KEY_BYTES('c', 'a', 't', '"', ':', 0):
        *After = Quote + 6;
        return ChromeKeyCat;
    }

    switch (Word & 0xFFFFFFFFFFFFULL) {
    case KEY_BYTES('n', 'a', 'm', 'e', '"', ':'):
        *After = Quote + 7;
        return ChromeKeyName;
    case KEY_BYTES('a', 'r', 'g', 's', '"', ':'):
        *After = Quote + 7;
        return ChromeKeyArgs;
    }

    if ((Word & 0xFFFFFFULL) == KEY_BYTES('s', '"', ':', 0, 0, 0)) {
        *After = Quote + 4;
        return ChromeKeyScope;
    }

    return ChromeKeyOther;
}

static
CHROME_KEY
ClassifyKey(
    PJSON_STRING Key
    )
{
    CHAR Text[8];
    ULONG Length;
    PCSZ Bytes = Key->Start;

    Length = (ULONG)(Key->End - Key->Start);
    if (Key->Escaped) {
        Length = JsonDecodeString(Key, Text, sizeof(Text));
        if (Length == ~0u) {
            return ChromeKeyOther;
        }
        Bytes = Text;
    }

#define IS(Literal) (Length == sizeof(Literal) - 1 &&                         \
                     __builtin_memcmp(Bytes, Literal, sizeof(Literal) - 1) == 0)

    if (IS("ph")) return ChromeKeyPh;
    if (IS("ts")) return ChromeKeyTs;
    if (IS("dur")) return ChromeKeyDur;
    if (IS("pid")) return ChromeKeyPid;
    if (IS("tid")) return ChromeKeyTid;
    if (IS("name")) return ChromeKeyName;
    if (IS("cat")) return ChromeKeyCat;
    if (IS("args")) return ChromeKeyArgs;
    if (IS("s")) return ChromeKeyScope;
    if (IS("id")) return ChromeKeyId;

#undef IS

    return ChromeKeyOther;
}

static
RTL_STATUS
ChromeParseEvent(
    PCHROME_READER Reader,
    PCSZ At,
    PCHROME_EVENT Event
    )
/*++

Routine Description:

    Reads the members of one event object, remembering where the values
    of interest are; members in any order, unknown members skipped (and
    validated).  The usual keys are recognized without scanning them
    (MatchKey); any other spelling goes through the general path.

--*/
{
    PCSZ Cursor;
    PCSZ End = Reader->End;
    PCSZ After;
    JSON_STRING Key;
    JSON_STRING String;
    RTL_STATUS Status;
    CHROME_KEY Which;

    Event->Start = At;
    Event->Fields = 0;
    Event->Members = 0;
    Reader->Import->EventOffset = (ULONGLONG)(At - Reader->Start);

    Cursor = JsonSkipSpace(At + 1, End);
    if (Cursor < End && *Cursor == '}') {
        Event->End = Cursor + 1;
        return RTL_STATUS_OK;
    }

    for (;;) {
        if (Cursor >= End) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                               "unexpected end of input");
        }
        if (*Cursor != '"') {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                               "expected a string");
        }

        Which = MatchKey(Cursor, End, &After);
        if (Which == ChromeKeyOther) {
            After = JsonScanString(Cursor, End, &Key, &Reader->Json);
            if (After == NULL) {
                return JsonError(Reader);
            }
            After = JsonSkipSpace(After, End);
            if (After >= End || *After != ':') {
                return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, After,
                                   After >= End ? "unexpected end of input" :
                                                  "expected ':' after a key");
            }
            After++;
            Which = ClassifyKey(&Key);
        }

        Cursor = JsonSkipSpace(After, End);
        if (Cursor >= End) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                               "unexpected end of input");
        }
        Event->Members++;
        Status = RTL_STATUS_OK;

        switch (Which) {
        case ChromeKeyPh:

            //
            // The usual one-character phase, then anything else.
            //

            if (End - Cursor >= 3 && Cursor[0] == '"' && Cursor[2] == '"' &&
                (BYTE)Cursor[1] >= 0x20 && Cursor[1] != '\\' &&
                Cursor[1] != '"') {
                Event->Phase = Cursor[1];
                Event->PhaseIsOneChar = TRUE;
                Cursor += 3;
            } else {
                Status = ParseStringField(Reader, &Cursor, &String,
                                          "\"ph\" is not a string");
                if (RTL_SUCCESS(Status)) {
                    CHAR Phase[2];
                    ULONG PhaseLength = JsonDecodeString(&String, Phase, 2);

                    Event->Phase = (PhaseLength >= 1 && PhaseLength != ~0u) ?
                                   Phase[0] : 0;
                    Event->PhaseIsOneChar = (PhaseLength == 1);
                }
            }
            Event->Fields |= FIELD_PH;
            break;

        case ChromeKeyTs:
            Status = ParseNumberField(Reader, &Cursor, 3, &Event->Ts,
                                      "\"ts\" is not a number");
            Event->Fields |= FIELD_TS;
            break;

        case ChromeKeyDur:
            Status = ParseNumberField(Reader, &Cursor, 3, &Event->Dur,
                                      "\"dur\" is not a number");
            Event->Fields |= FIELD_DUR;
            break;

        case ChromeKeyPid:
            Status = ParseIdField(Reader, &Cursor, &Event->Pid,
                                  &Reader->PidCache,
                                  "\"pid\" is not a process id");
            Event->Fields |= FIELD_PID;
            break;

        case ChromeKeyTid:
            Status = ParseIdField(Reader, &Cursor, &Event->Tid,
                                  &Reader->TidCache,
                                  "\"tid\" is not a thread id");
            Event->Fields |= FIELD_TID;
            break;

        case ChromeKeyName:
            Status = ParseStringField(Reader, &Cursor, &Event->Name,
                                      "\"name\" is not a string");
            Event->Fields |= FIELD_NAME;
            break;

        case ChromeKeyCat:
            Status = ParseStringField(Reader, &Cursor, &Event->Category,
                                      "\"cat\" is not a string");
            Event->Fields |= FIELD_CAT;
            break;

        case ChromeKeyArgs:
            Event->ArgsStart = Cursor;
            Cursor = JsonSkipValue(Cursor, End, &Reader->Json);
            if (Cursor == NULL) {
                return JsonError(Reader);
            }
            Event->ArgsEnd = Cursor;
            Event->Fields |= FIELD_ARGS;
            break;

        case ChromeKeyScope:
            Status = ParseStringField(Reader, &Cursor, &Event->Scope,
                                      "\"s\" is not a string");
            Event->Fields |= FIELD_SCOPE;
            break;

        case ChromeKeyId:
            if (*Cursor == '"') {
                Status = ParseStringField(Reader, &Cursor, &Event->Id, "");
            } else {
                JSON_NUMBER Number;

                After = JsonScanNumber(Cursor, End, &Number, &Reader->Json);
                if (After == NULL) {
                    return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                                       "\"id\" is not a string or number");
                }
                Event->Id.Start = Number.Start;
                Event->Id.End = Number.End;
                Event->Id.Escaped = FALSE;
                Cursor = After;
            }
            Event->Fields |= FIELD_ID;
            break;

        default:
            Cursor = JsonSkipValue(Cursor, End, &Reader->Json);
            if (Cursor == NULL) {
                return JsonError(Reader);
            }
            break;
        }

        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Cursor = JsonSkipSpace(Cursor, End);
        if (Cursor < End && *Cursor == ',') {
            Cursor = JsonSkipSpace(Cursor + 1, End);
            continue;
        }
        if (Cursor < End && *Cursor == '}') {
            Event->End = Cursor + 1;
            return RTL_STATUS_OK;
        }
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                           Cursor >= End ? "unexpected end of input" :
                                           "expected ',' or '}'");
    }
}

static
RTL_STATUS
InternText(
    PCHROME_READER Reader,
    PCSZ Start,
    PCSZ End,
    PULONG Id
    )
/*++

Routine Description:

    Interns text of the input (a name, the JSON of args or of a whole
    event), with an error naming its offset when it exceeds what the
    string store holds.

--*/
{
    if ((SIZE_T)(End - Start) > TRACE_STRING_MAX_LENGTH) {
        return ChromeError(Reader, RTL_STATUS_TOO_LARGE, Start,
                           "string longer than the 1 MB a string may hold");
    }
    return TraceImportIntern(Reader->Import, Start, (ULONG)(End - Start), Id);
}

static
RTL_STATUS
InternString(
    PCHROME_READER Reader,
    PJSON_STRING String,
    PULONG Id
    )
{
    ULONG Length;

    if (!String->Escaped) {
        return InternText(Reader, String->Start, String->End, Id);
    }

    Length = JsonDecodeString(String, Reader->Buffer, CHROME_BUFFER_SIZE);
    if (Length == ~0u) {
        return ChromeError(Reader, RTL_STATUS_TOO_LARGE, String->Start - 1,
                           "escaped string longer than 65536 bytes");
    }
    return TraceImportIntern(Reader->Import, Reader->Buffer, Length, Id);
}

static
RTL_STATUS
InternSpanStrings(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PULONG NameId,
    PULONG CategoryId,
    PULONG ArgsId
    )
{
    RTL_STATUS Status = RTL_STATUS_OK;

    *NameId = TRACE_NULL_ULONG;
    *CategoryId = TRACE_NULL_ULONG;
    *ArgsId = TRACE_NULL_ULONG;

    if (Event->Fields & FIELD_NAME) {
        Status = InternString(Reader, &Event->Name, NameId);
    }
    if (RTL_SUCCESS(Status) && (Event->Fields & FIELD_CAT)) {
        Status = InternString(Reader, &Event->Category, CategoryId);
    }
    if (RTL_SUCCESS(Status) && (Event->Fields & FIELD_ARGS)) {

        //
        // Arguments are kept as the JSON text the producer wrote.
        //

        Status = InternText(Reader, Event->ArgsStart, Event->ArgsEnd, ArgsId);
    }

    return Status;
}

static
VOID
FillContext(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
{
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    ULONGLONG Key;

    Context->Timestamp = Event->Ts;
    Context->Pid = (Event->Fields & FIELD_PID) ? Event->Pid : TRACE_NULL_ULONG;
    Context->Tid = (Event->Fields & FIELD_TID) ? Event->Tid :
                   (Event->Fields & FIELD_PID) ? Event->Pid : 0;
    Context->Cpu = TRACE_NULL_ULONG;
    Context->CommId = TRACE_NULL_ULONG;
    Context->FlagsId = TRACE_NULL_ULONG;
    Context->Padding = 0;

    Key = ThreadKey(Context->Pid, Context->Tid);
    if (!Reader->Scanning && Key != 0 && Reader->ThreadNames.Count != 0 &&
        TraceHashFind(&Reader->ThreadNames, Key, &Cursor, &Value)) {
        Context->CommId = (ULONG)Value;
    }
}

//
// ---------------------------------------------------------------------------
// Counters
// ---------------------------------------------------------------------------
//

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

    Status = TraceImportOpenStore(Import, &TraceCounterSchema,
                                  &Import->Counter);
    if (RTL_SUCCESS(Status)) {
        TraceStoreAddDropped(Import->Counter, Count);
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

static
RTL_STATUS
ImportCounters(
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
            return JsonError(Reader);
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
            return JsonError(Reader);
        }
    }
}

//
// ---------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------
//

static
BOOL
MetadataName(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PJSON_STRING Name
    )
/*++

Routine Description:

    The "name" member of a metadata event's "args", if it is a string.

--*/
{
    PCSZ Cursor = Event->ArgsStart;
    BOOL First = TRUE;
    JSON_STRING Key;
    JSON_ERROR Error;

    if (!(Event->Fields & FIELD_ARGS) || *Cursor != '{') {
        return FALSE;
    }

    Cursor++;
    while (JsonObjectNext(&Cursor, Event->ArgsEnd, &First, &Key, &Error) ==
           JsonStepItem) {
        if (JsonStringIs(&Key, "name", 4) && *Cursor == '"') {
            return JsonScanString(Cursor, Event->ArgsEnd, Name, &Error) !=
                   NULL;
        }
        Cursor = JsonSkipValue(Cursor, Event->ArgsEnd, &Error);
        if (Cursor == NULL) {
            break;
        }
    }

    return FALSE;
}

static
BOOL
IsNamingMetadata(
    PCHROME_EVENT Event,
    PBOOL Process
    )
{
    if (!(Event->Fields & FIELD_NAME)) {
        return FALSE;
    }
    *Process = JsonStringIs(&Event->Name, "process_name", 12);
    return *Process || JsonStringIs(&Event->Name, "thread_name", 11);
}

static
RTL_STATUS
NoteMetadata(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An "M" event seen by the scan.  process_name and thread_name name the
    process and thread rows of the whole input, wherever they are written
    (the last one of a process or thread wins, as in Perfetto).  Other
    metadata is imported as it comes (ChromeImportEvent).

--*/
{
    BOOL Process;
    JSON_STRING Name;
    RTL_STATUS Status;
    ULONG NameId;
    ULONGLONG Key;

    if (!IsNamingMetadata(Event, &Process) ||
        !MetadataName(Reader, Event, &Name)) {
        return RTL_STATUS_OK;
    }

    if (Process) {
        if (Context->Pid == TRACE_NULL_ULONG) {
            return RTL_STATUS_OK;
        }
        Key = (ULONGLONG)Context->Pid + 1;
    } else {
        Key = ThreadKey(Context->Pid, Context->Tid);
        if (Key == 0) {
            return RTL_STATUS_OK;
        }
    }

    Status = InternString(Reader, &Name, &NameId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashSet(Process ? &Reader->Import->ProcessNames :
                                        &Reader->ThreadNames, Key, NameId);
        if (!RTL_SUCCESS(Status)) {
            Status = ChromeError(Reader, Status, Event->Start,
                                 "out of memory for names");
        }
    }

    return Status;
}

static
BOOL
MetadataConsumed(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Whether an "M" event is one NoteMetadata took as a name (it is not
    imported again); other metadata goes to ftrace_event.

--*/
{
    BOOL Process;
    JSON_STRING Name;

    return IsNamingMetadata(Event, &Process) &&
           MetadataName(Reader, Event, &Name) &&
           (Process ? Context->Pid != TRACE_NULL_ULONG :
                      ThreadKey(Context->Pid, Context->Tid) != 0);
}

//
// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------
//

static
BOOL
SpanKind(
    PCHROME_EVENT Event,
    PULONG Kind
    )
/*++

Routine Description:

    The span builder's kind of a B, E, X or instant event.

--*/
{
    if (!Event->PhaseIsOneChar) {
        return FALSE;
    }

    switch (Event->Phase) {
    case 'B':
        *Kind = TraceSpanBegin;
        return TRUE;
    case 'E':
        *Kind = TraceSpanEnd;
        return TRUE;
    case 'X':
        *Kind = TraceSpanComplete;
        return TRUE;
    case 'i':
    case 'I':
    case 'R':
        *Kind = TraceSpanInstant;
        if ((Event->Fields & FIELD_SCOPE) &&
            (JsonStringIs(&Event->Scope, "g", 1) ||
             JsonStringIs(&Event->Scope, "p", 1))) {
            *Kind = TraceSpanInstantGlobal;
        }
        return TRUE;
    }

    return FALSE;
}

static
RTL_STATUS
CheckEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PBOOL Skip
    )
/*++

Routine Description:

    What both passes require of an event: B, E, X, C and instants have a
    "ts", and X a "dur" of zero or more.  *Skip is TRUE for an event to
    leave out: {} (writers end the array with one so that every event can
    be followed by a comma), one without "ph" (counted as dropped), one of
    another phase without "ts" (dropped).  Metadata needs no ts.

--*/
{
    CHAR Phase = Event->PhaseIsOneChar ? Event->Phase : 0;

    *Skip = FALSE;

    if (!(Event->Fields & FIELD_PH)) {
        *Skip = TRUE;
        if (Event->Members != 0 && !Reader->Scanning) {
            Reader->Import->LostEvents++;
        }
        return RTL_STATUS_OK;
    }

    if (Phase == 'M') {
        return RTL_STATUS_OK;
    }

    if (!(Event->Fields & FIELD_TS)) {
        if (Phase == 'B' || Phase == 'E' || Phase == 'X' || Phase == 'C' ||
            Phase == 'i' || Phase == 'I' || Phase == 'R') {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                               "event without \"ts\"");
        }
        *Skip = TRUE;
        if (!Reader->Scanning) {
            Reader->Import->LostEvents++;
        }
        return RTL_STATUS_OK;
    }

    if (Phase == 'X' && (!(Event->Fields & FIELD_DUR) || Event->Dur < 0)) {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                           "complete event (X) without a \"dur\" of zero or "
                           "more");
    }

    return RTL_STATUS_OK;
}

static
VOID
FillSpanEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context,
    ULONG Kind,
    PTRACE_SPAN_EVENT Span
    )
{
    Span->Timestamp = Context->Timestamp;
    Span->Duration = (Kind == TraceSpanComplete) ? Event->Dur : 0;
    Span->Sequence = (ULONGLONG)(Event->Start - Reader->Start);
    Span->Pid = Context->Pid;
    Span->Tid = Context->Tid;
    Span->CommId = Context->CommId;
    Span->NameId = TRACE_NULL_ULONG;
    Span->CategoryId = TRACE_NULL_ULONG;
    Span->ArgsId = TRACE_NULL_ULONG;
    Span->Kind = Kind;
    Span->Padding = 0;
}

static
RTL_STATUS
ImportOther(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An event kept whole in ftrace_event, with its JSON as args: async,
    flow, object and sample events, and metadata other than names.

--*/
{
    RTL_STATUS Status = RTL_STATUS_OK;
    ULONG NameId = TRACE_NULL_ULONG;
    ULONG ArgsId;

    if (Event->Fields & FIELD_NAME) {
        Status = InternString(Reader, &Event->Name, &NameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = InternText(Reader, Event->Start, Event->End, &ArgsId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportGenericEvent(Reader->Import, Context, NameId,
                                         ArgsId);
    }
    return Status;
}

static
RTL_STATUS
ChromeImportEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    TRACE_SPAN_EVENT Span;
    RTL_STATUS Status;
    ULONG Kind;
    BOOL Skip;

    Status = CheckEvent(Reader, Event, &Skip);
    if (!RTL_SUCCESS(Status) || Skip) {
        return Status;
    }

    FillContext(Reader, Event, &Context);

    if (Event->PhaseIsOneChar && Event->Phase == 'M') {
        if (MetadataConsumed(Reader, Event, &Context)) {
            return RTL_STATUS_OK;
        }

        //
        // Metadata is not an event in time: it is placed at the trace's
        // first ts (its own "ts" is often 0 or absent).
        //

        if (Import->Spans.ScanFirstTs != 0x7fffffffffffffffLL) {
            Context.Timestamp = Import->Spans.ScanFirstTs;
        } else if (!(Event->Fields & FIELD_TS)) {
            Context.Timestamp = 0;
        }
        return ImportOther(Reader, Event, &Context);
    }

    if (Event->PhaseIsOneChar && Event->Phase == 'C') {
        return ImportCounters(Reader, Event, &Context);
    }

    if (!SpanKind(Event, &Kind)) {
        return ImportOther(Reader, Event, &Context);
    }

    FillSpanEvent(Reader, Event, &Context, Kind, &Span);
    Status = InternSpanStrings(Reader, Event, &Span.NameId, &Span.CategoryId,
                               &Span.ArgsId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportSpanEvent(Import, &Span);
    }

    return Status;
}

static
RTL_STATUS
ChromeScanEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event
    )
/*++

Routine Description:

    The first pass: names from metadata, begins and ends per thread, the
    order of span events, and the time span.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    TRACE_SPAN_EVENT Span;
    RTL_STATUS Status;
    BOOL Unmatched;
    BOOL Skip;
    ULONG NameId;
    ULONG CategoryId;
    ULONG ArgsId;
    ULONG Kind;

    //
    // Stop where the import will stop, so that the scan finds no end the
    // import does not reach.
    //

    Status = CheckEvent(Reader, Event, &Skip);
    if (!RTL_SUCCESS(Status) || Skip) {
        return Status;
    }

    FillContext(Reader, Event, &Context);

    if (Event->Phase == 'M' && Event->PhaseIsOneChar) {
        return NoteMetadata(Reader, Event, &Context);
    }

    TraceImportSpanScanTime(Import, Context.Timestamp);
    if (!SpanKind(Event, &Kind)) {
        return RTL_STATUS_OK;
    }

    FillSpanEvent(Reader, Event, &Context, Kind, &Span);
    TraceImportSpanScanOrder(Import, &Span);

    if (Kind == TraceSpanBegin) {
        return TraceImportSpanScanBegin(Import, &Context);
    }

    if (Kind == TraceSpanEnd) {
        Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
        if (RTL_SUCCESS(Status) && Unmatched) {
            Status = InternSpanStrings(Reader, Event, &NameId, &CategoryId,
                                       &ArgsId);
            if (RTL_SUCCESS(Status)) {
                TraceImportSpanScanUnmatched(Import, NameId, CategoryId,
                                             ArgsId);
            }
        }
        return Status;
    }

    if (Kind == TraceSpanComplete) {
        TraceImportSpanScanTime(Import, Context.Timestamp + Event->Dur);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ChromePass(
    PCHROME_READER Reader,
    BOOL Scanning
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    CHROME_EVENT Event;
    RTL_STATUS Status;
    PCSZ At = NULL;

    Reader->Scanning = Scanning;
    Status = ChromeStart(Reader);

    while (RTL_SUCCESS(Status)) {
        Status = ChromeNextEvent(Reader, &At);
        if (!RTL_SUCCESS(Status) || At == NULL) {
            break;
        }

        Status = ChromeParseEvent(Reader, At, &Event);
        if (!RTL_SUCCESS(Status)) {
            break;
        }
        Reader->Cursor = Event.End;

        if (Scanning) {
            Status = ChromeScanEvent(Reader, &Event);

            //
            // Keep the resident set small during the scan too: what lies
            // well behind is dropped (and read again by the import).
            //

            if ((SIZE_T)(Event.End - Reader->Start) >=
                Reader->ScanDiscarded + 2 * TRACE_DISCARD_BEHIND) {
                SIZE_T Upto = (SIZE_T)(Event.End - Reader->Start) -
                              TRACE_DISCARD_BEHIND;

                Import->Rtl->DiscardMemory(Import->Rtl,
                                           Reader->Start +
                                               Reader->ScanDiscarded,
                                           Upto - Reader->ScanDiscarded);
                Reader->ScanDiscarded = Upto;
            }
        } else {
            Status = ChromeImportEvent(Reader, &Event);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportEventDone(Import,
                                              (SIZE_T)(Event.End -
                                                       Reader->Start));
            }
        }
    }

    return Status;
}

BOOL
ChromeJsonDetect(
    PTRACE_IMPORT Import
    )
{
    PCSZ Cursor = (PCSZ)Import->Buffer;
    PCSZ End;

    if (Import->IsDirectory || Cursor == NULL) {
        return FALSE;
    }
    End = Cursor + (Import->Length < 65536 ? Import->Length : 65536);

    if (End - Cursor >= 3 && (BYTE)Cursor[0] == 0xEF &&
        (BYTE)Cursor[1] == 0xBB && (BYTE)Cursor[2] == 0xBF) {
        Cursor += 3;
    }
    Cursor = JsonSkipSpace(Cursor, End);
    if (Cursor >= End) {
        return FALSE;
    }

    if (*Cursor == '{') {
        return TextFindString(Cursor, End, "\"traceEvents\"", 13) != NULL;
    }

    if (*Cursor == '[') {
        Cursor = JsonSkipSpace(Cursor + 1, End);
        if (Cursor < End && *Cursor == ']') {
            return TRUE;
        }
        if (Cursor < End && *Cursor == '{') {
            PCSZ Limit = (End - Cursor > 4096) ? Cursor + 4096 : End;
            PCSZ Close = TextFindChar(Cursor, Limit, '}');

            return TextFindString(Cursor, Close, "\"ph\"", 4) != NULL;
        }
    }

    return FALSE;
}

RTL_STATUS
ChromeJsonImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports Chrome trace-event JSON from Import->Buffer: a scan for ends
    without begins, then the import.  Call between TraceImportBegin and
    TraceImportEnd.

Return Value:

    RTL_STATUS_OK, or an error in Import->Error naming the byte offset;
    the events before it have been imported.

--*/
{
    PRTL Rtl = Import->Rtl;
    CHROME_READER Reader;
    RTL_STATUS Status;
    PVOID Buffer;

    Rtl->FillMemory(&Reader, sizeof(Reader), 0);
    Reader.Import = Import;
    Reader.Start = (PCSZ)Import->Buffer;
    Reader.End = Reader.Start + Import->Length;

    Status = Rtl->AllocatePages(Rtl, CHROME_BUFFER_SIZE, &Buffer);
    if (RTL_SUCCESS(Status)) {
        Reader.Buffer = (PCHAR)Buffer;
        Status = TraceHashInitialize(Rtl, &Reader.ThreadNames);
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }

    //
    // The scan stops at the first error without reporting it: the import
    // pass meets the same error at the same event and reports it, after
    // importing everything before it.
    //

    ChromePass(&Reader, TRUE);
    Rtl->FillMemory(&Import->Error, sizeof(Import->Error), 0);

    Status = TraceImportSpanScanDone(Import);
    if (RTL_SUCCESS(Status)) {
        Status = ChromePass(&Reader, FALSE);
    }

End:
    if (Reader.Buffer != NULL) {
        Rtl->Unmap(Rtl, Reader.Buffer, CHROME_BUFFER_SIZE);
    }
    TraceHashDestroy(&Reader.ThreadNames);

    return Status;
}
