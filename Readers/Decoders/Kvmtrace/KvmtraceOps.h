/*++

Module Name:

    KvmtraceOps.h

Abstract:

    What a rule of the `formats` file compiles to, shared by the compiler
    (KvmtraceRules.c) and the renderer (KvmtraceFormat.c): the keys of the
    seed's args dict, the ops of a rule (literal text, a conversion, or
    the point where Python would raise), and the limits both keep to.

Environment:

    Core: no C runtime, no OS service.  Included by KvmtraceRules.c and
    KvmtraceFormat.c; declares what KvmtraceFormat.c defines
    (KvmtraceKeyNames).

--*/

#ifndef _TRACER_KVMTRACE_OPS_H_
#define _TRACER_KVMTRACE_OPS_H_

#include "Rtl/Rtl.h"

#define MAX_FIELD            (1u << 20)     // width, precision
#define MAX_RULE_LENGTH      (16u << 20)    // bytes one rule may render
#define DICT_REPR_BOUND      256            // repr of the args dict

//
// Keys of the args dict, in the seed's insertion order (its repr).
//

#define KEY_TSC         0
#define KEY_EVENT       1
#define KEY_RELTSC      2
#define KEY_PID         3
#define KEY_VCPU        4
#define KEY_DATA1       5
#define KEY_COUNT       10
#define KEY_MAPPING     10      // a positional conversion: the dict itself

//
// The keys' names in the seed's dict, in its insertion order (its repr).
//

extern const PCSZ KvmtraceKeyNames[KEY_COUNT];

//
// Ops.
//

#define OP_LITERAL      0
#define OP_CONVERT      1
#define OP_FAIL         2

#define FLAG_LJUST      0x01
#define FLAG_SIGN       0x02
#define FLAG_BLANK      0x04
#define FLAG_ALT        0x08
#define FLAG_ZERO       0x10

typedef enum _FAIL_REASON {
    FailIncompleteKey = 1,      // ValueError: incomplete format key
    FailKey,                    // KeyError
    FailIncomplete,             // ValueError: incomplete format
    FailNotEnoughArguments,     // TypeError
    FailStar,                   // TypeError: * wants int
    FailUnsupported,            // ValueError: unsupported format character
    FailIntegerRequired,        // TypeError: %x format: an integer is required
    FailRealRequired,           // TypeError: %d format: a real number is ...
    FailMustBeReal,             // TypeError: must be real number, not dict
    FailCharRequired,           // TypeError: %c requires int or char
    FailTooWide,                // our limit on width and precision
    FailTooLong,                // our limit on a rendered rule
} FAIL_REASON;

//
// One op (KvmtraceFormat.h declares the type).
//

struct _KVMTRACE_OP {
    UCHAR Kind;
    UCHAR Key;                  // CONVERT: KEY_*
    UCHAR Type;                 // CONVERT: the conversion character
    UCHAR Flags;                // CONVERT: FLAG_*
    LONG Width;                 // -1 when absent
    LONG Precision;             // -1 when absent
    ULONG Offset;               // LITERAL: bytes in the text; FAIL: key
    ULONG Length;
    ULONG Reason;               // FAIL: FAIL_REASON
    ULONG CodePoint;            // FAIL: the offending character
    ULONG Index;                // FAIL: its index (characters) in the rule
};

#endif // _TRACER_KVMTRACE_OPS_H_
