/*++

Module Name:

    ChromeJsonParse.c

Abstract:

    The structure of Chrome trace-event JSON: the object form
    {"traceEvents": [...], other keys} and the bare array form [...],
    which may be cut off after any complete event (Chrome's viewer accepts
    such a file, since tracers write the array as they go; the object
    form must be complete), and the members of one event: "ph", "ts" and
    "dur" (microseconds, possibly fractional, made nanoseconds exactly:
    the decimal digits are shifted, never rounded through a double),
    "pid", "tid", "name", "cat", "args", "s" and "id", in any order;
    other members are skipped (and validated).

    Events are read in place through the streaming tokenizer (Json.h);
    the usual keys are recognized from the bytes after their quote
    without scanning them, and a pid or tid equal to the last event's in
    its first eight bytes without parsing it.

Environment:

    Core: no C runtime, no OS service.  Called by ChromeJson.c (the
    passes) and ChromeJsonCounters.c (errors); calls Json.h.

--*/

#include "ChromeJsonReader.h"

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

RTL_STATUS
ChromeJsonError(
    PCHROME_READER Reader
    )
{
    //
    // What the tokenizer expected where the input ends: the file is cut.
    //

    if (Reader->Json.At >= Reader->End ||
        RtlStringEqual(Reader->Json.Reason, JSON_END_OF_INPUT)) {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT,
                           (Reader->Json.At >= Reader->End) ? Reader->End :
                                                              Reader->Json.At,
                           JSON_END_OF_INPUT " (the file is cut)");
    }
    return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Reader->Json.At,
                       Reader->Json.Reason);
}

//
// ---------------------------------------------------------------------------
// The top level: finding the events
// ---------------------------------------------------------------------------
//

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
ScanOtherData(
    PCHROME_READER Reader
    )
/*++

Routine Description:

    Reads the top-level "otherData" object at Reader->Cursor, for the one
    key that changes the events: "origin_ns", the ns that ts 0 stands for
    (tracestore export writes it, before "traceEvents", so that its ts
    count from the first event and a double keeps every ns).  Every event
    after it gets it added to its ts; other keys are skipped.

--*/
{
    PCSZ End = Reader->End;
    JSON_STRING Key;
    JSON_STEP Step;
    BOOL First = TRUE;
    LONGLONG Value;

    Reader->Cursor++;
    for (;;) {
        Step = JsonObjectNext(&Reader->Cursor, End, &First, &Key,
                              &Reader->Json);
        if (Step == JsonStepDone) {
            return RTL_STATUS_OK;
        }
        if (Step != JsonStepItem) {
            return ChromeJsonError(Reader);
        }
        if (JsonStringIs(&Key, "origin_ns", 9) &&
            (*Reader->Cursor == '-' ||
             (*Reader->Cursor >= '0' && *Reader->Cursor <= '9'))) {
            Reader->Cursor = JsonScanScaled(Reader->Cursor, End, 0, &Value,
                                            &Reader->Json);
            if (Reader->Cursor == NULL) {
                return ChromeJsonError(Reader);
            }
            Reader->OriginNs = Value;
            continue;
        }
        Reader->Cursor = JsonSkipValue(Reader->Cursor, End, &Reader->Json);
        if (Reader->Cursor == NULL) {
            return ChromeJsonError(Reader);
        }
    }
}

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
    RTL_STATUS Status;

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
            return ChromeJsonError(Reader);

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
                if (JsonStringIs(&Key, "otherData", 9) &&
                    *Reader->Cursor == '{') {
                    Status = ScanOtherData(Reader);
                    if (!RTL_SUCCESS(Status)) {
                        return Status;
                    }
                    continue;
                }

                //
                // displayTimeUnit, metadata, systemTraceEvents, stackFrames,
                // ...: not events.
                //

                Reader->Cursor = JsonSkipValue(Reader->Cursor, Reader->End,
                                               &Reader->Json);
                if (Reader->Cursor == NULL) {
                    return ChromeJsonError(Reader);
                }
                continue;
            }
            if (Step == JsonStepDone) {
                Reader->State = ChromeStateAfter;
                continue;
            }
            return ChromeJsonError(Reader);

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
        return ChromeJsonError(Reader);
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
            return ChromeJsonError(Reader);
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
        if (After == NULL &&
            RtlStringEqual(Reader->Json.Reason, JSON_END_OF_INPUT)) {
            return ChromeJsonError(Reader);
        }
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

static inline __attribute__((always_inline))
RTL_STATUS
ParseMember(
    PCHROME_READER Reader,
    CHROME_KEY Which,
    PCSZ *Cursor,
    PCHROME_EVENT Event
    )
/*++

Routine Description:

    The value of one member at *Cursor: kept in Event when it is one of
    the members of interest (Which), else skipped (and validated).
    *Cursor moves past it.

--*/
{
    PCSZ At = *Cursor;
    PCSZ End = Reader->End;
    PCSZ After;
    JSON_STRING String;
    RTL_STATUS Status = RTL_STATUS_OK;

    switch (Which) {
    case ChromeKeyPh:

        //
        // The usual one-character phase, then anything else.
        //

        if (End - At >= 3 && At[0] == '"' && At[2] == '"' &&
            (BYTE)At[1] >= 0x20 && At[1] != '\\' &&
            At[1] != '"') {
            Event->Phase = At[1];
            Event->PhaseIsOneChar = TRUE;
            At += 3;
        } else {
            Status = ParseStringField(Reader, &At, &String,
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
        Status = ParseNumberField(Reader, &At, 3, &Event->Ts,
                                  "\"ts\" is not a number");
        if (RTL_SUCCESS(Status) &&
            __builtin_add_overflow(Event->Ts, Reader->OriginNs, &Event->Ts)) {
            Status = ChromeError(Reader, RTL_STATUS_BAD_FORMAT, At,
                                 "\"ts\" + otherData.origin_ns is out of "
                                 "range");
        }
        Event->Fields |= FIELD_TS;
        break;

    case ChromeKeyDur:
        Status = ParseNumberField(Reader, &At, 3, &Event->Dur,
                                  "\"dur\" is not a number");
        Event->Fields |= FIELD_DUR;
        break;

    case ChromeKeyPid:
        Status = ParseIdField(Reader, &At, &Event->Pid,
                              &Reader->PidCache,
                              "\"pid\" is not a process id");
        Event->Fields |= FIELD_PID;
        break;

    case ChromeKeyTid:
        Status = ParseIdField(Reader, &At, &Event->Tid,
                              &Reader->TidCache,
                              "\"tid\" is not a thread id");
        Event->Fields |= FIELD_TID;
        break;

    case ChromeKeyName:
        Status = ParseStringField(Reader, &At, &Event->Name,
                                  "\"name\" is not a string");
        Event->Fields |= FIELD_NAME;
        break;

    case ChromeKeyCat:
        Status = ParseStringField(Reader, &At, &Event->Category,
                                  "\"cat\" is not a string");
        Event->Fields |= FIELD_CAT;
        break;

    case ChromeKeyArgs:
        Event->ArgsStart = At;
        At = JsonSkipValue(At, End, &Reader->Json);
        if (At == NULL) {
            return ChromeJsonError(Reader);
        }
        Event->ArgsEnd = At;
        Event->Fields |= FIELD_ARGS;
        break;

    case ChromeKeyScope:
        Status = ParseStringField(Reader, &At, &Event->Scope,
                                  "\"s\" is not a string");
        Event->Fields |= FIELD_SCOPE;
        break;

    case ChromeKeyId:
        if (*At == '"') {
            Status = ParseStringField(Reader, &At, &Event->Id, "");
        } else {
            JSON_NUMBER Number;

            After = JsonScanNumber(At, End, &Number, &Reader->Json);
            if (After == NULL) {
                return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, At,
                                   "\"id\" is not a string or number");
            }
            Event->Id.Start = Number.Start;
            Event->Id.End = Number.End;
            Event->Id.Escaped = FALSE;
            At = After;
        }
        Event->Fields |= FIELD_ID;
        break;

    default:
        At = JsonSkipValue(At, End, &Reader->Json);
        if (At == NULL) {
            return ChromeJsonError(Reader);
        }
        break;
    }
    *Cursor = At;
    return Status;
}

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
                               JSON_END_OF_INPUT);
        }
        if (*Cursor != '"') {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                               "expected a string");
        }

        Which = MatchKey(Cursor, End, &After);
        if (Which == ChromeKeyOther) {
            After = JsonScanString(Cursor, End, &Key, &Reader->Json);
            if (After == NULL) {
                return ChromeJsonError(Reader);
            }
            After = JsonSkipSpace(After, End);
            if (After >= End || *After != ':') {
                return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, After,
                                   After >= End ? JSON_END_OF_INPUT :
                                                  "expected ':' after a key");
            }
            After++;
            Which = ClassifyKey(&Key);
        }

        Cursor = JsonSkipSpace(After, End);
        if (Cursor >= End) {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Cursor,
                               JSON_END_OF_INPUT);
        }
        Event->Members++;

        Status = ParseMember(Reader, Which, &Cursor, Event);
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
                           Cursor >= End ? JSON_END_OF_INPUT :
                                           "expected ',' or '}'");
    }
}
