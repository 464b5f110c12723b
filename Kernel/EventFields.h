/*++

Module Name:

    EventFields.h

Abstract:

    The fields of an event's text as the kernel prints them: most
    tracepoints as `key=value key=value ...` (sched_process_exec:
    "filename=/bin/ls pid=7 old_pid=7"), the syscall tracepoints as
    `key: value, key: value`.  The parser behind the query extensions'
    `args` (Perfetto's args table: one row per field), shared by the SQLite
    extension (Sqlite3Ext/tracestore_args.c) and the DuckDB extension
    (DuckDbExt/tracestore_duckdb_views.c).

    The text is read as words separated by blanks, where a bracketed part
    ((...), [...], {...}) or a quoted string ("..." or '...' at the start
    of a word or value) is one piece, blanks and all, if it is closed
    before the end of the text.

      - A word `KEY=VALUE` starts a field; so does a word `KEY:` (the value
        is the next word, unless that one is itself a field).  A KEY is a
        letter or '_' followed by letters, digits, '_', '.', '-', '[' and
        ']'.  Other words before a field ("set" in "set reason=0") are not
        fields and are skipped.
      - The value runs on over the following words, blanks included, so
        that a comm such as "CPU 0/KVM" stays whole, unless the value so
        far is empty, a number or quoted, ends with ',', or the next word
        is a field or has no letter or digit ("==>" in sched_switch).  One
        ',' at the end of a value is a separator, not part of it.
      - A value that is a decimal integer, or 0x and 1 to 16 hex digits, is
        an integer; one above 2^63-1 (an unsigned 64-bit field) is the
        int64 with the same bits, as address columns are.

    Texts that are not fields ("pio_write at 0x3f8 size 1") have no
    fields.  Any text, including bytes that are not UTF-8 and NULs, is read
    without error: the matching of brackets and quotes is done once per
    text, in linear time, so the cost is linear in the text's length.

Environment:

    Core: no C runtime, no state, no OS service; the caller provides the
    scratch memory.  Includes only Rtl/Rtl.h.

--*/

#ifndef _TRACER_EVENT_FIELDS_H_
#define _TRACER_EVENT_FIELDS_H_

#include "Rtl/Rtl.h"

//
// A parse of one text.  Match[k] is the closer of an opener or opening
// quote at k, or -1; Stack holds the openers not closed yet while
// matching.  Both are the caller's scratch: 2 x Length LONGs.
//

typedef struct _EVENT_FIELDS {
    PCSZ Text;
    LONG Length;
    LONG Next;          // where the next field is looked for
    PLONG Match;
    PLONG Stack;
} EVENT_FIELDS, *PEVENT_FIELDS;

//
// One field: its key and value, in the text (not NUL-terminated).  Quoted:
// the value is one quoted string, quotes included.
//

typedef struct _EVENT_FIELD {
    PCSZ Key;
    LONG KeyLength;
    PCSZ Value;
    LONG ValueLength;
    BOOL Quoted;
} EVENT_FIELD, *PEVENT_FIELD;

//
// Starts parsing Text[0..Length) with Scratch (2 x Length LONGs).
//

VOID EventFieldsStart(PEVENT_FIELDS Fields, PCSZ Text, LONG Length,
                      PLONG Scratch);

//
// The next field into Field: TRUE, or FALSE when there is none left.
//

BOOL EventFieldsNext(PEVENT_FIELDS Fields, PEVENT_FIELD Field);

//
// TRUE if Text[0..Length) is an integer as a field's value is one (see
// the abstract), its value in *Value.
//

BOOL EventFieldInteger(PCSZ Text, LONG Length, PLONGLONG Value);

#endif // _TRACER_EVENT_FIELDS_H_
