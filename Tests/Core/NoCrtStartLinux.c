/*++

Module Name:

    NoCrtStartLinux.c

Abstract:

    The Linux entry point of NoCrtImport: a _start of its own (there is no
    C runtime to provide one) that hands the argument vector on the initial
    stack to NoCrtImportMain (NoCrtImport.c) and exits with its status
    through the exit_group system call.

Environment:

    Test program, freestanding, no C runtime; Linux x86-64 only.  Calls
    InitializeRtl (Rtl/Linux) and NoCrtImportMain.

--*/

#include "Rtl/Rtl.h"

extern RTL Rtl;
int NoCrtImportMain(LONG_PTR ArgumentCount, PCSZ *Arguments);

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "    xor %rbp, %rbp\n"
        "    mov %rsp, %rdi\n"
        "    and $-16, %rsp\n"
        "    call NoCrtMain\n"
        "    mov %eax, %edi\n"
        "    mov $231, %eax\n"       // exit_group
        "    syscall\n"
        "    hlt\n");

int NoCrtMain(LONG_PTR *Stack) __attribute__((used));

int
NoCrtMain(
    LONG_PTR *Stack
    )
{
    InitializeRtl(&Rtl);
    return NoCrtImportMain(Stack[0], (PCSZ *)(Stack + 1));
}
