/*++

Module Name:

    KvmExitReason.h

Abstract:

    The names of KVM exit reasons, VMX and SVM, in one place: the kernel's
    (what the kvm_exit tracepoint's print fmt prints, so what `reason`
    holds for ftrace text and trace.dat) and libtraceevent's kvm plugin's
    (what `trace-cmd report` prints in the event's text).  The trace.dat
    reader renders the plugin's text from it; the SQLite extension's
    kvm_exit_reason_name() decodes raw exit codes (kvmtrace) with it.

Environment:

    Core: no C runtime, no state, no OS service.  Included by the
    trace.dat reader (Readers/Decoders/Ftrace/TraceEventImport.c) and the
    SQLite extension (tracestore_views.c); includes only Rtl/Rtl.h.

--*/

#ifndef _TRACER_KVM_EXIT_REASON_H_
#define _TRACER_KVM_EXIT_REASON_H_

#include "Rtl/Rtl.h"

//
// The instruction set of an exit code, as the kvm_exit tracepoint's `isa`
// field numbers it.
//

#define KVM_EXIT_ISA_VMX 1
#define KVM_EXIT_ISA_SVM 2

//
// VMX: bit 31 of the exit reason marks a failed VM entry; the kernel
// names the basic reason (the low 16 bits) and prints this flag after it.
//

#define KVM_EXIT_VMX_BASIC_MASK       0xffffu
#define KVM_EXIT_VMX_FAILED_VMENTRY   0x80000000u

typedef enum _KVM_EXIT_NAMES {
    KvmExitNamesKernel = 0,     // the kernel's print fmt (Linux 6.18)
    KvmExitNamesPlugin = 1,     // libtraceevent's plugin_kvm.c
} KVM_EXIT_NAMES;

//
// Returns the name of exit code Code of instruction set Isa
// (KVM_EXIT_ISA_*), as Names names it, or NULL if it has none.  With
// KvmExitNamesKernel, a VMX code is looked up by its basic reason (the low
// 16 bits), as the kernel's print fmt does; the plugin compares the whole
// code.
//

typedef PCSZ (KVM_EXIT_REASON_NAME)(ULONG Isa, ULONG Code,
                                    KVM_EXIT_NAMES Names);
typedef KVM_EXIT_REASON_NAME *PKVM_EXIT_REASON_NAME;

KVM_EXIT_REASON_NAME KvmExitReasonName;

#endif // _TRACER_KVM_EXIT_REASON_H_
