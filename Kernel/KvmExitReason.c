/*++

Module Name:

    KvmExitReason.c

Abstract:

    This module holds the VMX and SVM exit reason tables (see
    KvmExitReason.h) and their lookup.

    Sources: the kernel names are those of the kvm_exit print fmt of Linux
    6.18 (VMX_EXIT_REASONS and SVM_EXIT_REASONS of arch/x86/include/uapi/
    asm/vmx.h and svm.h, which the test kvm_exit_reason.header checks
    against the installed linux-libc-dev headers); the plugin names those of
    libtraceevent 1.7's plugin_kvm.c.  A NULL name: that source has none.

Environment:

    Core: no C runtime, no OS service: constant tables and a lookup.
    Called by the trace.dat reader and the extension through
    KvmExitReason.h; calls nothing.

--*/

#include "KvmExitReason.h"

typedef struct _KVM_EXIT_REASON {
    ULONG Code;
    PCSZ Kernel;
    PCSZ Plugin;
} KVM_EXIT_REASON, *PKVM_EXIT_REASON;
typedef const KVM_EXIT_REASON *PCKVM_EXIT_REASON;

//
// Both tables are sorted by Code.
//

static const KVM_EXIT_REASON VmxExitReasons[] = {
    { 0, "EXCEPTION_NMI", "EXCEPTION_NMI" },
    { 1, "EXTERNAL_INTERRUPT", "EXTERNAL_INTERRUPT" },
    { 2, "TRIPLE_FAULT", "TRIPLE_FAULT" },
    { 3, "INIT_SIGNAL", NULL },
    { 4, "SIPI_SIGNAL", NULL },
    { 7, "INTERRUPT_WINDOW", "PENDING_INTERRUPT" },
    { 8, "NMI_WINDOW", "NMI_WINDOW" },
    { 9, "TASK_SWITCH", "TASK_SWITCH" },
    { 10, "CPUID", "CPUID" },
    { 12, "HLT", "HLT" },
    { 13, "INVD", "INVD" },
    { 14, "INVLPG", "INVLPG" },
    { 15, "RDPMC", "RDPMC" },
    { 16, "RDTSC", "RDTSC" },
    { 18, "VMCALL", "VMCALL" },
    { 19, "VMCLEAR", "VMCLEAR" },
    { 20, "VMLAUNCH", "VMLAUNCH" },
    { 21, "VMPTRLD", "VMPTRLD" },
    { 22, "VMPTRST", "VMPTRST" },
    { 23, "VMREAD", "VMREAD" },
    { 24, "VMRESUME", "VMRESUME" },
    { 25, "VMWRITE", "VMWRITE" },
    { 26, "VMOFF", "VMOFF" },
    { 27, "VMON", "VMON" },
    { 28, "CR_ACCESS", "CR_ACCESS" },
    { 29, "DR_ACCESS", "DR_ACCESS" },
    { 30, "IO_INSTRUCTION", "IO_INSTRUCTION" },
    { 31, "MSR_READ", "MSR_READ" },
    { 32, "MSR_WRITE", "MSR_WRITE" },
    { 33, "INVALID_STATE", NULL },
    { 34, "MSR_LOAD_FAIL", NULL },
    { 36, "MWAIT_INSTRUCTION", "MWAIT_INSTRUCTION" },
    { 37, "MONITOR_TRAP_FLAG", NULL },
    { 39, "MONITOR_INSTRUCTION", "MONITOR_INSTRUCTION" },
    { 40, "PAUSE_INSTRUCTION", "PAUSE_INSTRUCTION" },
    { 41, "MCE_DURING_VMENTRY", "MCE_DURING_VMENTRY" },
    { 43, "TPR_BELOW_THRESHOLD", "TPR_BELOW_THRESHOLD" },
    { 44, "APIC_ACCESS", "APIC_ACCESS" },
    { 45, "EOI_INDUCED", "EOI_INDUCED" },
    { 46, "GDTR_IDTR", NULL },
    { 47, "LDTR_TR", NULL },
    { 48, "EPT_VIOLATION", "EPT_VIOLATION" },
    { 49, "EPT_MISCONFIG", "EPT_MISCONFIG" },
    { 50, "INVEPT", "INVEPT" },
    { 51, "RDTSCP", NULL },
    { 52, "PREEMPTION_TIMER", "PREEMPTION_TIMER" },
    { 53, "INVVPID", NULL },
    { 54, "WBINVD", "WBINVD" },
    { 55, "XSETBV", "XSETBV" },
    { 56, "APIC_WRITE", "APIC_WRITE" },
    { 57, "RDRAND", NULL },
    { 58, "INVPCID", "INVPCID" },
    { 59, "VMFUNC", NULL },
    { 60, "ENCLS", NULL },
    { 61, "RDSEED", NULL },
    { 62, "PML_FULL", "PML_FULL" },
    { 63, "XSAVES", "XSAVES" },
    { 64, "XRSTORS", "XRSTORS" },
    { 67, "UMWAIT", NULL },
    { 68, "TPAUSE", NULL },
    { 74, "BUS_LOCK", NULL },
    { 75, "NOTIFY", NULL },
    { 77, "TDCALL", NULL },
    { 84, "MSR_READ_IMM", NULL },
    { 85, "MSR_WRITE_IMM", NULL },
};

static const KVM_EXIT_REASON SvmExitReasons[] = {
    { 0x000, "read_cr0", "EXIT_READ_CR0" },
    { 0x002, "read_cr2", NULL },
    { 0x003, "read_cr3", "EXIT_READ_CR3" },
    { 0x004, "read_cr4", "EXIT_READ_CR4" },
    { 0x008, "read_cr8", "EXIT_READ_CR8" },
    { 0x010, "write_cr0", "EXIT_WRITE_CR0" },
    { 0x012, "write_cr2", NULL },
    { 0x013, "write_cr3", "EXIT_WRITE_CR3" },
    { 0x014, "write_cr4", "EXIT_WRITE_CR4" },
    { 0x018, "write_cr8", "EXIT_WRITE_CR8" },
    { 0x020, "read_dr0", "EXIT_READ_DR0" },
    { 0x021, "read_dr1", "EXIT_READ_DR1" },
    { 0x022, "read_dr2", "EXIT_READ_DR2" },
    { 0x023, "read_dr3", "EXIT_READ_DR3" },
    { 0x024, "read_dr4", "EXIT_READ_DR4" },
    { 0x025, "read_dr5", "EXIT_READ_DR5" },
    { 0x026, "read_dr6", "EXIT_READ_DR6" },
    { 0x027, "read_dr7", "EXIT_READ_DR7" },
    { 0x030, "write_dr0", "EXIT_WRITE_DR0" },
    { 0x031, "write_dr1", "EXIT_WRITE_DR1" },
    { 0x032, "write_dr2", "EXIT_WRITE_DR2" },
    { 0x033, "write_dr3", "EXIT_WRITE_DR3" },
    { 0x034, "write_dr4", "EXIT_WRITE_DR4" },
    { 0x035, "write_dr5", "EXIT_WRITE_DR5" },
    { 0x036, "write_dr6", "EXIT_WRITE_DR6" },
    { 0x037, "write_dr7", "EXIT_WRITE_DR7" },
    { 0x040, "DE excp", "EXIT_EXCP_DE" },
    { 0x041, "DB excp", "EXIT_EXCP_DB" },
    { 0x043, "BP excp", "EXIT_EXCP_BP" },
    { 0x044, "OF excp", "EXIT_EXCP_OF" },
    { 0x045, "BR excp", "EXIT_EXCP_BR" },
    { 0x046, "UD excp", "EXIT_EXCP_UD" },
    { 0x047, "NM excp", "EXIT_EXCP_NM" },
    { 0x048, "DF excp", "EXIT_EXCP_DF" },
    { 0x04a, "TS excp", "EXIT_EXCP_TS" },
    { 0x04b, "NP excp", "EXIT_EXCP_NP" },
    { 0x04c, "SS excp", "EXIT_EXCP_SS" },
    { 0x04d, "GP excp", "EXIT_EXCP_GP" },
    { 0x04e, "PF excp", "EXIT_EXCP_PF" },
    { 0x050, "MF excp", "EXIT_EXCP_MF" },
    { 0x051, "AC excp", "EXIT_EXCP_AC" },
    { 0x052, "MC excp", "EXIT_EXCP_MC" },
    { 0x053, "XF excp", "EXIT_EXCP_XF" },
    { 0x060, "interrupt", "EXIT_INTR" },
    { 0x061, "nmi", "EXIT_NMI" },
    { 0x062, "smi", "EXIT_SMI" },
    { 0x063, "init", "EXIT_INIT" },
    { 0x064, "vintr", "EXIT_VINTR" },
    { 0x065, "cr0_sel_write", "EXIT_CR0_SEL_WRITE" },
    { 0x066, "read_idtr", "EXIT_IDTR_READ" },
    { 0x067, "read_gdtr", "EXIT_GDTR_READ" },
    { 0x068, "read_ldtr", "EXIT_LDTR_READ" },
    { 0x069, "read_rt", "EXIT_TR_READ" },
    { 0x06a, "write_idtr", "EXIT_IDTR_WRITE" },
    { 0x06b, "write_gdtr", "EXIT_GDTR_WRITE" },
    { 0x06c, "write_ldtr", "EXIT_LDTR_WRITE" },
    { 0x06d, "write_rt", "EXIT_TR_WRITE" },
    { 0x06e, "rdtsc", "EXIT_RDTSC" },
    { 0x06f, "rdpmc", "EXIT_RDPMC" },
    { 0x070, "pushf", "EXIT_PUSHF" },
    { 0x071, "popf", "EXIT_POPF" },
    { 0x072, "cpuid", "EXIT_CPUID" },
    { 0x073, "rsm", "EXIT_RSM" },
    { 0x074, "iret", "EXIT_IRET" },
    { 0x075, "swint", "EXIT_SWINT" },
    { 0x076, "invd", "EXIT_INVD" },
    { 0x077, "pause", "EXIT_PAUSE" },
    { 0x078, "hlt", "EXIT_HLT" },
    { 0x079, "invlpg", "EXIT_INVLPG" },
    { 0x07a, "invlpga", "EXIT_INVLPGA" },
    { 0x07b, "io", "EXIT_IOIO" },
    { 0x07c, "msr", "EXIT_MSR" },
    { 0x07d, "task_switch", "EXIT_TASK_SWITCH" },
    { 0x07e, "ferr_freeze", "EXIT_FERR_FREEZE" },
    { 0x07f, "shutdown", "EXIT_SHUTDOWN" },
    { 0x080, "vmrun", "EXIT_VMRUN" },
    { 0x081, "hypercall", "EXIT_VMMCALL" },
    { 0x082, "vmload", "EXIT_VMLOAD" },
    { 0x083, "vmsave", "EXIT_VMSAVE" },
    { 0x084, "stgi", "EXIT_STGI" },
    { 0x085, "clgi", "EXIT_CLGI" },
    { 0x086, "skinit", "EXIT_SKINIT" },
    { 0x087, "rdtscp", "EXIT_RDTSCP" },
    { 0x088, "icebp", "EXIT_ICEBP" },
    { 0x089, "wbinvd", "EXIT_WBINVD" },
    { 0x08a, "monitor", "EXIT_MONITOR" },
    { 0x08b, "mwait", "EXIT_MWAIT" },
    { 0x08c, NULL, "EXIT_MWAIT_COND" },
    { 0x08d, "xsetbv", "EXIT_XSETBV" },
    { 0x08f, "write_efer_trap", NULL },
    { 0x090, "write_cr0_trap", NULL },
    { 0x094, "write_cr4_trap", NULL },
    { 0x098, "write_cr8_trap", NULL },
    { 0x0a2, "invpcid", NULL },
    { 0x0a5, "buslock", NULL },
    { 0x0a6, "idle-halt", NULL },
    { 0x400, "npf", "EXIT_NPF" },
    { 0x401, "avic_incomplete_ipi", "EXIT_AVIC_INCOMPLETE_IPI" },
    { 0x402, "avic_unaccelerated_access", "EXIT_AVIC_UNACCELERATED_ACCESS" },
    { 0x403, "vmgexit", NULL },
    { 0x80000001, "vmgexit_mmio_read", NULL },
    { 0x80000002, "vmgexit_mmio_write", NULL },
    { 0x80000003, "vmgexit_nmi_complete", NULL },
    { 0x80000004, "vmgexit_ap_hlt_loop", NULL },
    { 0x80000005, "vmgexit_ap_jump_table", NULL },
    { 0x80000010, "vmgexit_page_state_change", NULL },
    { 0x80000011, "vmgexit_guest_request", NULL },
    { 0x80000012, "vmgexit_ext_guest_request", NULL },
    { 0x80000013, "vmgexit_ap_creation", NULL },
    { 0x8000fffd, "vmgexit_hypervisor_feature", NULL },
    { 0xffffffff, "invalid_guest_state", "EXIT_ERR" },
};

PCSZ
KvmExitReasonName(
    ULONG Isa,
    ULONG Code,
    KVM_EXIT_NAMES Names
    )
/*++

Routine Description:

    Looks an exit code up in the table of its instruction set (binary
    search: both tables are sorted by code).

Arguments:

    Isa - KVM_EXIT_ISA_VMX or KVM_EXIT_ISA_SVM; anything else has no names.

    Code - The exit code (VMX basic exit reason with its flags, or SVM exit
        code).

    Names - Whose names: the kernel's or the kvm plugin's.

Return Value:

    The name, or NULL when that source has none for the code.

--*/
{
    PCKVM_EXIT_REASON Table;
    ULONG Count;
    ULONG Low = 0;
    ULONG High;
    ULONG Middle;

    if (Isa == KVM_EXIT_ISA_VMX) {
        Table = VmxExitReasons;
        Count = ARRAYSIZE(VmxExitReasons);
        if (Names == KvmExitNamesKernel) {
            Code &= KVM_EXIT_VMX_BASIC_MASK;
        }
    } else if (Isa == KVM_EXIT_ISA_SVM) {
        Table = SvmExitReasons;
        Count = ARRAYSIZE(SvmExitReasons);
    } else {
        return NULL;
    }

    High = Count;
    while (Low < High) {
        Middle = Low + (High - Low) / 2;
        if (Table[Middle].Code < Code) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }

    if (Low == Count || Table[Low].Code != Code) {
        return NULL;
    }

    return Names == KvmExitNamesKernel ? Table[Low].Kernel : Table[Low].Plugin;
}
