/*++

Module Name:

    KvmtracePython.h

Abstract:

    What Python does with the text of the kvmtrace `formats` file before
    any % formatting: its strict UTF-8 decoder, its notion of whitespace
    (str.isspace, the re module's \s), and int(ID, 0) for the event ids.

Environment:

    Core: no C runtime, no OS service.  Included by KvmtraceRules.c (the
    file's lines and ids, an unsupported character of a format).

--*/

#ifndef _TRACER_KVMTRACE_PYTHON_H_
#define _TRACER_KVMTRACE_PYTHON_H_

#include "Rtl/Rtl.h"

//
// The length of the well-formed UTF-8 sequence at Bytes (Available bytes
// there), or 0 if it is not one (Python's strict decoder: no overlong
// forms, no surrogates, nothing above U+10FFFF).
//

ULONG KvmtraceUtf8Length(const BYTE *Bytes, SIZE_T Available);

//
// Decodes one character of validated UTF-8 text; returns its length.
//

ULONG KvmtraceUtf8Decode(PCSZ Text, PCSZ End, PULONG CodePoint);

//
// Skips characters that are whitespace (Space TRUE) or that are not.
//

PCSZ KvmtraceSkipSpace(PCSZ Text, PCSZ End, BOOL Space);

//
// Parses an int(ID, 0) literal as Python 3.11 does; FALSE where int()
// would raise.  *Matchable is FALSE for a valid literal no event id
// equals (negative, or too large).
//

BOOL KvmtraceParseEventId(PCSZ Start, PCSZ End, PULONG Event, PBOOL Matchable);

#endif // _TRACER_KVMTRACE_PYTHON_H_
