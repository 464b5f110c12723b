/*
** TestKvmExitReason: the kernel names of Kernel/KvmExitReason.c against
** the kernel's own tables, VMX_EXIT_REASONS and SVM_EXIT_REASONS of the
** installed uapi headers (linux-libc-dev: <asm/vmx.h>, <asm/svm.h>).
**
** Every entry of the headers must name its code as the table does.  The
** table follows a newer kernel (6.18) than Debian 12's headers (6.1), so
** it may hold codes the headers lack, never a different name.  Also
** checks the plugin names that trace-cmd report prints for a few codes
** (an SVM code the plugin lacks gets NULL), and that codes outside the
** tables have no name.
*/
#include <stdio.h>
#include <string.h>

#include <asm/kvm.h>
#include <asm/vmx.h>
#include <asm/svm.h>

#include "Kernel/KvmExitReason.h"

struct header_entry { long long code; const char *name; };

static const struct header_entry aVmx[] = { VMX_EXIT_REASONS };
static const struct header_entry aSvm[] = { SVM_EXIT_REASONS };

static int nFail = 0;

static void expect(const char *zWhat, unsigned isa, unsigned code,
                   KVM_EXIT_NAMES names, const char *zWant){
  const char *zGot = KvmExitReasonName(isa, code, names);
  if( (zGot==0)!=(zWant==0) || (zGot && strcmp(zGot, zWant)!=0) ){
    fprintf(stderr, "FAIL %s: isa %u code 0x%x: got %s, want %s\n", zWhat,
            isa, code, zGot ? zGot : "NULL", zWant ? zWant : "NULL");
    nFail++;
  }
}

int main(void){
  size_t i;
  for(i=0; i<sizeof(aVmx)/sizeof(aVmx[0]); i++){
    expect("vmx header", KVM_EXIT_ISA_VMX, (unsigned)aVmx[i].code,
           KvmExitNamesKernel, aVmx[i].name);
  }
  for(i=0; i<sizeof(aSvm)/sizeof(aSvm[0]); i++){
    expect("svm header", KVM_EXIT_ISA_SVM, (unsigned)aSvm[i].code,
           KvmExitNamesKernel, aSvm[i].name);
  }

  /* The kernel names a VMX code by its basic reason. */
  expect("vmx failed entry", KVM_EXIT_ISA_VMX, 0x80000021u,
         KvmExitNamesKernel, "INVALID_STATE");

  /* libtraceevent's plugin_kvm.c. */
  expect("plugin", KVM_EXIT_ISA_VMX, 7, KvmExitNamesPlugin,
         "PENDING_INTERRUPT");
  expect("plugin", KVM_EXIT_ISA_VMX, 3, KvmExitNamesPlugin, 0);
  expect("plugin", KVM_EXIT_ISA_SVM, 0x7b, KvmExitNamesPlugin, "EXIT_IOIO");
  expect("plugin", KVM_EXIT_ISA_SVM, 0xffffffffu, KvmExitNamesPlugin,
         "EXIT_ERR");
  expect("plugin", KVM_EXIT_ISA_SVM, 0x2, KvmExitNamesPlugin, 0);

  /* No names. */
  expect("none", KVM_EXIT_ISA_VMX, 5, KvmExitNamesKernel, 0);
  expect("none", KVM_EXIT_ISA_VMX, 86, KvmExitNamesKernel, 0);
  expect("none", KVM_EXIT_ISA_SVM, 0x1, KvmExitNamesKernel, 0);
  expect("none", KVM_EXIT_ISA_SVM, 0x80000000u, KvmExitNamesKernel, 0);
  expect("none", 3, 0, KvmExitNamesKernel, 0);
  expect("none", 0, 0, KvmExitNamesPlugin, 0);

  if( nFail ) return 1;
  printf("PASS: %zu VMX and %zu SVM header entries named alike\n",
         sizeof(aVmx)/sizeof(aVmx[0]), sizeof(aSvm)/sizeof(aSvm[0]));
  return 0;
}
