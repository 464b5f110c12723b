/*++

Module Name:

    ChromeJsonReader.h

Abstract:

    What the files of the Chrome trace-event JSON reader share: the
    reader's state, one parsed event, and the routines one file offers
    the others.

        ChromeJson.c            the import: two passes over the events,
                                each event to spans, counters, names or
                                ftrace_event
        ChromeJsonParse.c       the top level (object or bare array) and
                                the members of one event
        ChromeJsonCounters.c    "C" events: counter samples

Environment:

    Core: no C runtime; the OS only through PRTL.  Included by the
    ChromeJson*.c files only; the reader's entry points (ChromeJsonDetect,
    ChromeJsonImport) are declared in Readers/Decoders/Decoders.h.

--*/

#ifndef _TRACER_CHROME_JSON_READER_H_
#define _TRACER_CHROME_JSON_READER_H_

#include "Readers/Import/TraceImport.h"
#include "Readers/Text/Json.h"

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
    LONGLONG OriginNs;              // otherData.origin_ns, added to ts
    CHROME_ID_CACHE PidCache;
    CHROME_ID_CACHE TidCache;
    PCHAR Buffer;                   // CHROME_BUFFER_SIZE bytes
    TRACE_HASH_TABLE ThreadNames;   // ThreadKey(pid, tid) -> name id
    JSON_ERROR Json;
} CHROME_READER, *PCHROME_READER;

//
// ---------------------------------------------------------------------------
// ChromeJsonParse.c
// ---------------------------------------------------------------------------
//

//
// Records "PATH: offset N: Reason" for the byte At, and returns Status.
// ChromeJsonError does so for the tokenizer's error (Reader->Json).
//

RTL_STATUS ChromeError(PCHROME_READER Reader, RTL_STATUS Status, PCSZ At,
                       PCSZ Reason);

RTL_STATUS ChromeJsonError(PCHROME_READER Reader);

//
// The top level: ChromeStart finds the object or the array;
// ChromeNextEvent gives each element of the events array (NULL after the
// last); ChromeParseEvent reads its members.
//

RTL_STATUS ChromeStart(PCHROME_READER Reader);

RTL_STATUS ChromeNextEvent(PCHROME_READER Reader, PCSZ *Event);

RTL_STATUS ChromeParseEvent(PCHROME_READER Reader, PCSZ At,
                            PCHROME_EVENT Event);

//
// ---------------------------------------------------------------------------
// ChromeJsonCounters.c
// ---------------------------------------------------------------------------
//

RTL_STATUS ChromeImportCounters(PCHROME_READER Reader, PCHROME_EVENT Event,
                                PTRACE_EVENT_CONTEXT Context);

#endif // _TRACER_CHROME_JSON_READER_H_
