/*
** KvmGuest: a workload that makes a known number of KVM exits.
**
** Usage: KvmGuest [EXITS [PAUSE_US [EVERY]]]
**
** Creates a VM with one vCPU running a few bytes of real-mode code that
** writes EXITS bytes (default 100, at most 65535) to the serial port 0x3f8
** and halts.  Each `out` is an I/O exit to user space (KVM_EXIT_IO), the
** `hlt` a last one (KVM_EXIT_HLT).  After every EVERY-th I/O exit (default
** 1) the host side sleeps PAUSE_US microseconds (default 0), so that a run
** can be made to last long enough to be watched while it is recorded:
** `KvmGuest 2000 500` takes about a second.
**
** The first line of output is the process id, so that a test can pick this
** process's events out of a system-wide capture.  The last line counts the
** returns from KVM_RUN by exit reason, as the kernel's kvm_userspace_exit
** tracepoint sees them (one per return, EINTR included):
**
**     exits: io 100 hlt 1 intr 0 total 101
**
** Exit status: 0 on success, 77 when /dev/kvm is absent (so a test can
** treat it as a skip), 1 on any other failure, with a message naming the
** call that failed.
*/
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define KVMGUEST_NO_KVM   77      /* exit status when /dev/kvm is absent */
#define GUEST_PHYS_ADDR   0x1000  /* where the code is loaded and starts */
#define GUEST_MEM_SIZE    0x1000
#define SERIAL_PORT       0x3f8

/*
** The guest, 16-bit real mode, loaded at GUEST_PHYS_ADDR with CS base 0:
**
**   1000: ba f8 03     mov  dx, 0x3f8
**   1003: b9 NN NN     mov  cx, EXITS
**   1006: e3 06        jcxz done
**   1008: b0 61      loop: mov  al, 'a'
**   100a: ee           out  dx, al
**   100b: 49           dec  cx
**   100c: 75 fa        jnz  loop
**   100e: f4         done: hlt
*/
static const uint8_t aGuestCode[] = {
  0xba, SERIAL_PORT & 0xff, SERIAL_PORT >> 8,
  0xb9, 0x00, 0x00,                    /* EXITS is patched in at offset 4 */
  0xe3, 0x06,
  0xb0, 'a',
  0xee,
  0x49,
  0x75, 0xfa,
  0xf4,
};
#define GUEST_CODE_COUNT_OFFSET 4

static void die(const char *zWhat){
  fprintf(stderr, "KvmGuest: %s: %s\n", zWhat, strerror(errno));
  exit(1);
}

/* An ioctl that must succeed; returns its (non-negative) result. */
static int kvmIoctl(int fd, unsigned long req, void *pArg, const char *zName){
  int rc = ioctl(fd, req, pArg);
  if( rc<0 ) die(zName);
  return rc;
}

static long parseArg(char **argv, int argc, int i, long dflt,
                     long mn, long mx, const char *zName){
  char *zEnd;
  long v;
  if( argc<=i ) return dflt;
  errno = 0;
  v = strtol(argv[i], &zEnd, 0);
  if( errno || zEnd==argv[i] || *zEnd || v<mn || v>mx ){
    fprintf(stderr, "KvmGuest: %s must be a number from %ld to %ld, not '%s'\n"
            "usage: KvmGuest [EXITS [PAUSE_US [EVERY]]]\n",
            zName, mn, mx, argv[i]);
    exit(1);
  }
  return v;
}

int main(int argc, char **argv){
  long nExit = parseArg(argv, argc, 1, 100, 0, 65535, "EXITS");
  long usPause = parseArg(argv, argc, 2, 0, 0, 10000000, "PAUSE_US");
  long nEvery = parseArg(argv, argc, 3, 1, 1, 65535, "EVERY");
  long nIo = 0, nHlt = 0, nIntr = 0;
  struct kvm_userspace_memory_region region;
  struct kvm_sregs sregs;
  struct kvm_regs regs;
  struct kvm_run *pRun;
  uint8_t *pMem;
  int fdKvm, fdVm, fdVcpu, szRun, version;

  printf("%ld\n", (long)getpid());
  fflush(stdout);

  fdKvm = open("/dev/kvm", O_RDWR|O_CLOEXEC);
  if( fdKvm<0 ){
    if( errno==ENOENT || errno==ENODEV || errno==ENXIO ){
      fprintf(stderr, "KvmGuest: no /dev/kvm on this machine (%s): "
              "KVM is not available\n", strerror(errno));
      return KVMGUEST_NO_KVM;
    }
    die("open /dev/kvm");
  }
  version = kvmIoctl(fdKvm, KVM_GET_API_VERSION, 0, "KVM_GET_API_VERSION");
  if( version!=KVM_API_VERSION ){
    fprintf(stderr, "KvmGuest: KVM API version %d, expected %d\n",
            version, KVM_API_VERSION);
    return 1;
  }
  fdVm = kvmIoctl(fdKvm, KVM_CREATE_VM, 0, "KVM_CREATE_VM");

  pMem = mmap(0, GUEST_MEM_SIZE, PROT_READ|PROT_WRITE,
              MAP_SHARED|MAP_ANONYMOUS, -1, 0);
  if( pMem==MAP_FAILED ) die("mmap of the guest memory");
  memcpy(pMem, aGuestCode, sizeof(aGuestCode));
  pMem[GUEST_CODE_COUNT_OFFSET] = (uint8_t)(nExit & 0xff);
  pMem[GUEST_CODE_COUNT_OFFSET+1] = (uint8_t)(nExit >> 8);

  memset(&region, 0, sizeof(region));
  region.slot = 0;
  region.guest_phys_addr = GUEST_PHYS_ADDR;
  region.memory_size = GUEST_MEM_SIZE;
  region.userspace_addr = (uint64_t)(uintptr_t)pMem;
  kvmIoctl(fdVm, KVM_SET_USER_MEMORY_REGION, &region,
           "KVM_SET_USER_MEMORY_REGION");

  fdVcpu = kvmIoctl(fdVm, KVM_CREATE_VCPU, 0, "KVM_CREATE_VCPU");
  szRun = kvmIoctl(fdKvm, KVM_GET_VCPU_MMAP_SIZE, 0, "KVM_GET_VCPU_MMAP_SIZE");
  if( szRun<(int)sizeof(*pRun) ){
    fprintf(stderr, "KvmGuest: KVM_GET_VCPU_MMAP_SIZE is %d, smaller than "
            "struct kvm_run (%d)\n", szRun, (int)sizeof(*pRun));
    return 1;
  }
  pRun = mmap(0, szRun, PROT_READ|PROT_WRITE, MAP_SHARED, fdVcpu, 0);
  if( pRun==MAP_FAILED ) die("mmap of the vCPU's kvm_run");

  /* Real mode, code segment at 0, starting at the code. */
  kvmIoctl(fdVcpu, KVM_GET_SREGS, &sregs, "KVM_GET_SREGS");
  sregs.cs.base = 0;
  sregs.cs.selector = 0;
  kvmIoctl(fdVcpu, KVM_SET_SREGS, &sregs, "KVM_SET_SREGS");
  memset(&regs, 0, sizeof(regs));
  regs.rip = GUEST_PHYS_ADDR;
  regs.rflags = 0x2;                   /* bit 1 is reserved, always set */
  kvmIoctl(fdVcpu, KVM_SET_REGS, &regs, "KVM_SET_REGS");

  for(;;){
    if( ioctl(fdVcpu, KVM_RUN, 0)<0 ){
      if( errno==EINTR || errno==EAGAIN ){ nIntr++; continue; }
      die("KVM_RUN");
    }
    if( pRun->exit_reason==KVM_EXIT_HLT ){
      nHlt++;
      break;
    }
    if( pRun->exit_reason!=KVM_EXIT_IO ){
      fprintf(stderr, "KvmGuest: unexpected exit reason %u after %ld I/O "
              "exits (hardware_exit_reason 0x%llx)\n", pRun->exit_reason, nIo,
              (unsigned long long)pRun->hw.hardware_exit_reason);
      return 1;
    }
    if( pRun->io.direction!=KVM_EXIT_IO_OUT || pRun->io.port!=SERIAL_PORT
     || pRun->io.size!=1 || pRun->io.count!=1 ){
      fprintf(stderr, "KvmGuest: unexpected I/O exit: direction %u port "
              "0x%x size %u count %u\n", pRun->io.direction, pRun->io.port,
              pRun->io.size, pRun->io.count);
      return 1;
    }
    nIo++;
    if( usPause>0 && nIo%nEvery==0 ) usleep((useconds_t)usPause);
  }
  if( nIo!=nExit ){
    fprintf(stderr, "KvmGuest: the guest halted after %ld of %ld writes\n",
            nIo, nExit);
    return 1;
  }
  printf("exits: io %ld hlt %ld intr %ld total %ld\n",
         nIo, nHlt, nIntr, nIo+nHlt+nIntr);
  munmap(pRun, szRun);
  munmap(pMem, GUEST_MEM_SIZE);
  close(fdVcpu);
  close(fdVm);
  close(fdKvm);
  return 0;
}
