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
    TRACE_HASH_TABLE ProcessNames;  // pid + 1 -> name id
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

    *NameId = 0;
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
    Context->CommId = 0;
    Context->FlagsId = TRACE_NULL_ULONG;
    Context->Padding = 0;

    Key = ThreadKey(Context->Pid, Context->Tid);
    if (!Reader->Scanning && Key != 0 && Reader->ThreadNames.Count != 0 &&
        TraceHashFind(&Reader->ThreadNames, Key, &Cursor, &Value)) {
        Context->CommId = (ULONG)Value;
    }
}

static
RTL_STATUS
NoteProcess(
    PCHROME_READER Reader,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Before a process's first event, writes its process row under the name
    a process_name metadata event gave it (otherwise the shared sinks name
    it after the thread).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONGLONG Cursor = 0;
    ULONGLONG Value;

    if (Context->Pid == TRACE_NULL_ULONG || Reader->ProcessNames.Count == 0 ||
        TraceHashFind(&Import->Processes, (ULONGLONG)Context->Pid + 1,
                      &Cursor, &Value)) {
        return RTL_STATUS_OK;
    }

    Cursor = 0;
    if (!TraceHashFind(&Reader->ProcessNames, (ULONGLONG)Context->Pid + 1,
                       &Cursor, &Value)) {
        return RTL_STATUS_OK;
    }

    return TraceImportProcessExec(Import, Context->Timestamp, Context->Pid,
                                  (ULONG)Value, TRACE_NULL_ULONG);
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

    A "C" event: one counter sample per member of "args", named
    "NAME KEY" or "NAME id: ID KEY" (Perfetto's names for them).

--*/
{
    PCSZ Cursor = Event->ArgsStart;
    PCSZ End = Event->ArgsEnd;
    PCHAR Buffer = Reader->Buffer;
    ULONG Prefix = 0;
    ULONG Length;
    BOOL First = TRUE;
    JSON_STRING Key;
    JSON_STEP Step;
    RTL_STATUS Status;

    if (!(Event->Fields & FIELD_ARGS) || *Cursor != '{') {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                           "counter event without an \"args\" object");
    }

    //
    // The name prefix: NAME, and " id: ID" when there is an id.
    //

    if (Event->Fields & FIELD_NAME) {
        Prefix = JsonDecodeString(&Event->Name, Buffer, CHROME_BUFFER_SIZE / 2);
    }
    if (Prefix != ~0u && (Event->Fields & FIELD_ID)) {
        if (Prefix + 5 > CHROME_BUFFER_SIZE / 2) {
            Prefix = ~0u;
        } else {
            Reader->Import->Rtl->CopyMemory(Buffer + Prefix, " id: ", 5);
            Prefix += 5;
            Length = JsonDecodeString(&Event->Id, Buffer + Prefix,
                                      CHROME_BUFFER_SIZE / 2 - Prefix);
            Prefix = (Length == ~0u) ? ~0u : Prefix + Length;
        }
    }
    if (Prefix == ~0u) {
        return ChromeError(Reader, RTL_STATUS_TOO_LARGE, Event->Start,
                           "counter name longer than 32768 bytes");
    }

    Cursor++;
    for (;;) {
        COUNTER_RECORD Record;
        JSON_NUMBER Number;
        JSON_STRING String;
        PCSZ Value;
        PCSZ After;

        Step = JsonObjectNext(&Cursor, End, &First, &Key, &Reader->Json);
        if (Step == JsonStepDone) {
            return RTL_STATUS_OK;
        }
        if (Step != JsonStepItem) {
            return JsonError(Reader);
        }

        Buffer[Prefix] = ' ';
        Length = JsonDecodeString(&Key, Buffer + Prefix + 1,
                                  CHROME_BUFFER_SIZE - Prefix - 1);
        if (Length == ~0u) {
            return ChromeError(Reader, RTL_STATUS_TOO_LARGE, Key.Start,
                               "counter name longer than 65536 bytes");
        }

        //
        // The value: a number, or a string holding one.
        //

        Value = Cursor;
        if (*Cursor == '"') {
            After = JsonScanString(Cursor, End, &String, &Reader->Json);
            if (After == NULL || String.Escaped ||
                JsonScanNumber(String.Start, String.End, &Number,
                               &Reader->Json) != String.End) {
                return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Value,
                                   "counter value is not a number");
            }
        } else {
            After = JsonScanNumber(Cursor, End, &Number, &Reader->Json);
            if (After == NULL) {
                return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Value,
                                   "counter value is not a number");
            }
        }
        Cursor = After;

        if (TextParseDouble(Number.Start, Number.End, &Record.Value) !=
            Number.End) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Value,
                               "counter value out of range");
        }

        Status = TraceImportIntern(Reader->Import, Buffer,
                                   Prefix + 1 + Length, &Record.NameId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Reader->Import->Rtl->FillMemory(&Record.RunningPercent,
                                        sizeof(Record.RunningPercent), 0xff);
        Record.UnitId = TRACE_NULL_ULONG;
        Record.Pid = Context->Pid;
        Record.Cpu = TRACE_NULL_ULONG;

        Status = TraceImportCounter(Reader->Import, Context, &Record);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
}

static
RTL_STATUS
ImportMetadata(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An "M" event.  process_name and thread_name give the names used for
    the process and thread rows of the events that follow; other metadata
    (sort indexes, labels) is not imported.

--*/
{
    PCSZ Cursor = Event->ArgsStart;
    BOOL First = TRUE;
    BOOL Process;
    JSON_STRING Key;
    JSON_STRING Name;
    JSON_STEP Step;
    RTL_STATUS Status;
    ULONG NameId;
    ULONGLONG ThreadKeyValue;

    if (!(Event->Fields & FIELD_NAME)) {
        return RTL_STATUS_OK;
    }
    if (JsonStringIs(&Event->Name, "process_name", 12)) {
        Process = TRUE;
    } else if (JsonStringIs(&Event->Name, "thread_name", 11)) {
        Process = FALSE;
    } else {
        return RTL_STATUS_OK;
    }

    if (!(Event->Fields & FIELD_ARGS) || *Cursor != '{') {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                           "metadata event without an \"args\" object");
    }

    Cursor++;
    for (;;) {
        Step = JsonObjectNext(&Cursor, Event->ArgsEnd, &First, &Key,
                              &Reader->Json);
        if (Step == JsonStepDone) {
            return RTL_STATUS_OK;
        }
        if (Step != JsonStepItem) {
            return JsonError(Reader);
        }
        if (JsonStringIs(&Key, "name", 4) && *Cursor == '"') {
            break;
        }
        Cursor = JsonSkipValue(Cursor, Event->ArgsEnd, &Reader->Json);
        if (Cursor == NULL) {
            return JsonError(Reader);
        }
    }

    if (JsonScanString(Cursor, Event->ArgsEnd, &Name, &Reader->Json) == NULL) {
        return JsonError(Reader);
    }
    Status = InternString(Reader, &Name, &NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Process) {
        if (Context->Pid == TRACE_NULL_ULONG) {
            return RTL_STATUS_OK;
        }
        Status = TraceHashSet(&Reader->ProcessNames,
                              (ULONGLONG)Context->Pid + 1, NameId);
    } else {
        ThreadKeyValue = ThreadKey(Context->Pid, Context->Tid);
        if (ThreadKeyValue == 0) {
            return RTL_STATUS_OK;
        }
        Status = TraceHashSet(&Reader->ThreadNames, ThreadKeyValue, NameId);
    }
    if (!RTL_SUCCESS(Status)) {
        return ChromeError(Reader, Status, Event->Start,
                           "out of memory for names");
    }

    return RTL_STATUS_OK;
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
    RTL_STATUS Status;
    ULONG NameId;
    ULONG CategoryId;
    ULONG ArgsId;
    CHAR Phase = Event->PhaseIsOneChar ? Event->Phase : 0;

    if (!(Event->Fields & FIELD_PH)) {

        //
        // Writers often end the array with an empty object ({}) so that
        // every event can be followed by a comma.
        //

        if (Event->Members != 0) {
            Import->LostEvents++;
        }
        return RTL_STATUS_OK;
    }

    FillContext(Reader, Event, &Context);

    if (Phase == 'M') {
        return ImportMetadata(Reader, Event, &Context);
    }

    if (!(Event->Fields & FIELD_TS)) {
        if (Phase == 'B' || Phase == 'E' || Phase == 'X' || Phase == 'C' ||
            Phase == 'i' || Phase == 'I' || Phase == 'R') {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                               "event without \"ts\"");
        }
        Import->LostEvents++;
        return RTL_STATUS_OK;
    }

    Status = NoteProcess(Reader, &Context);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Phase == 'C') {
        return ImportCounters(Reader, Event, &Context);
    }

    if (Phase == 'B' || Phase == 'E' || Phase == 'X' || Phase == 'i' ||
        Phase == 'I' || Phase == 'R') {
        Status = InternSpanStrings(Reader, Event, &NameId, &CategoryId,
                                   &ArgsId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    switch (Phase) {
    case 'B':
        return TraceImportSpanBegin(Import, &Context, NameId, CategoryId,
                                    ArgsId);

    case 'E':
        return TraceImportSpanEnd(Import, &Context, NameId, CategoryId,
                                  ArgsId);

    case 'X':
        if (!(Event->Fields & FIELD_DUR) || Event->Dur < 0) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                               "complete event (X) without a \"dur\" of "
                               "zero or more");
        }
        return TraceImportSpanComplete(Import, &Context, Event->Dur, NameId,
                                       CategoryId, ArgsId);

    case 'i':
    case 'I':
    case 'R':
        return TraceImportInstant(
            Import, &Context, NameId, CategoryId, ArgsId,
            !(Event->Fields & FIELD_SCOPE) ||
                !(JsonStringIs(&Event->Scope, "g", 1) ||
                  JsonStringIs(&Event->Scope, "p", 1)));

    default:

        //
        // Async, flow, object and sample events: kept whole.
        //

        NameId = 0;
        if (Event->Fields & FIELD_NAME) {
            Status = InternString(Reader, &Event->Name, &NameId);
        }
        if (RTL_SUCCESS(Status)) {
            Status = InternText(Reader, Event->Start, Event->End, &ArgsId);
        }
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportGenericEvent(Import, &Context, NameId, ArgsId);
        }
        return Status;
    }
}

static
RTL_STATUS
ChromeScanEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event
    )
/*++

Routine Description:

    The first pass: begins and ends per thread, and the time span.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;
    BOOL Unmatched;
    ULONG NameId;
    ULONG CategoryId;
    ULONG ArgsId;
    CHAR Phase = Event->PhaseIsOneChar ? Event->Phase : 0;

    if (!(Event->Fields & FIELD_PH) || Phase == 'M') {
        return RTL_STATUS_OK;
    }

    //
    // Stop where the import will stop, so that the scan finds no end the
    // import does not reach.
    //

    if (!(Event->Fields & FIELD_TS)) {
        if (Phase == 'B' || Phase == 'E' || Phase == 'X' || Phase == 'C' ||
            Phase == 'i' || Phase == 'I' || Phase == 'R') {
            return RTL_STATUS_BAD_FORMAT;
        }
        return RTL_STATUS_OK;
    }
    if (Phase == 'X' && (!(Event->Fields & FIELD_DUR) || Event->Dur < 0)) {
        return RTL_STATUS_BAD_FORMAT;
    }
    if (Phase == 'C' && (!(Event->Fields & FIELD_ARGS) ||
                         *Event->ArgsStart != '{')) {
        return RTL_STATUS_BAD_FORMAT;
    }

    FillContext(Reader, Event, &Context);

    if (Phase == 'B') {
        return TraceImportSpanScanBegin(Import, &Context);
    }

    if (Phase == 'E') {
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

    TraceImportSpanScanTime(Import, Context.Timestamp);
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

static
BOOL
HasEndEvents(
    PCHROME_READER Reader
    )
/*++

Routine Description:

    Whether the input holds the string "E" anywhere (a phase of an end
    event), written plainly or as "\u0045": a search for the letter (rare
    next to quotes) rather than for the quote (everywhere in JSON).

--*/
{
    PCSZ Cursor = Reader->Start;
    PCSZ End = Reader->End;

    while (End - Cursor >= 3) {
        Cursor = TextFindChar(Cursor + 1, End - 1, 'E');
        if (Cursor >= End - 1) {
            break;
        }
        if (Cursor[-1] == '"' && Cursor[1] == '"') {
            return TRUE;
        }
    }

    return TextFindString(Reader->Start, End, "\\u0045", 6) != NULL;
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
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Reader.ProcessNames);
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }

    //
    // The scan stops at the first error without reporting it: the import
    // pass meets the same error at the same event and reports it, after
    // importing everything before it.  An input without the string "E"
    // (written plainly or escaped) has no end events, so nothing for the
    // scan to find: traces of complete (X) events are read once.
    //

    if (HasEndEvents(&Reader)) {
        ChromePass(&Reader, TRUE);
        Rtl->FillMemory(&Import->Error, sizeof(Import->Error), 0);
    }

    Status = TraceImportSpanScanDone(Import);
    if (RTL_SUCCESS(Status)) {
        Status = ChromePass(&Reader, FALSE);
    }

End:
    if (Reader.Buffer != NULL) {
        Rtl->Unmap(Rtl, Reader.Buffer, CHROME_BUFFER_SIZE);
    }
    TraceHashDestroy(&Reader.ThreadNames);
    TraceHashDestroy(&Reader.ProcessNames);

    return Status;
}
