#!/usr/bin/env bash
# shellcheck disable=SC2054  # commas in arrays are QEMU option syntax
# guest.sh - run a command inside a throw-away QEMU (TCG) guest whose root
# filesystem is the HOST's root filesystem shared read-only, with a separate
# scratch ext4 disk image mounted at /mnt/disk.  The host can SIGKILL QEMU at
# any instant ("power cut"); whatever the guest had not yet submitted to the
# virtual disk is lost, and the image can then be inspected on the host.
#
# Needs only Debian packages: qemu-system-x86 (+ qemu-system-common, which
# ships /usr/lib/qemu/virtiofsd), linux-image-cloud-amd64 (or any kernel with
# virtio modules), busybox-static, e2fsprogs, util-linux.  Must run as root
# (virtiofsd, loop mounts).
#
# Host-root sharing: the Debian *cloud* kernel is built without 9p
# (CONFIG_NET_9P is not set), so by default the host root is shared with
# virtiofs (virtiofsd + vhost-user-fs-pci, shared memfd guest RAM).  If the
# kernel does have 9pnet_virtio + 9p modules, `GUEST_SHARE=9p` selects
# -virtfs instead.  Either way the share is read-only: virtiofsd serves a
# read-only bind mount of / created in a private mount namespace, and the
# guest mounts it ro.
#
# Usage:
#   guest.sh initramfs OUTDIR [KERNEL]
#       Build OUTDIR/initramfs.cpio.gz (busybox + virtio/fuse/virtiofs/9p
#       modules for KERNEL's version + /init).  KERNEL defaults to the newest
#       /boot/vmlinuz-*; OUTDIR/vmlinuz is made a copy of it.
#   guest.sh mkimage IMAGE SIZE_MB RUNSCRIPT [FILE...]
#       Create an ext4 image (mkfs.ext4 -d, no loop mount) holding RUNSCRIPT
#       as /run.sh (the guest runs it as /mnt/disk/run.sh) and extra FILEs.
#   guest.sh run IMAGE KERNEL INITRAMFS LOGFILE [KILL_AFTER_SECONDS]
#       Boot the guest.  The guest prints GUEST-START, runs
#       /mnt/disk/run.sh (cwd /mnt/disk, output to LOGFILE via the serial
#       console), prints "GUEST-DONE rc=N", syncs and powers off.
#       With KILL_AFTER_SECONDS (fractional ok) QEMU is SIGKILLed that long
#       after GUEST-START appeared in LOGFILE.  Exit status: 0 when the guest
#       finished (or was killed as requested), 1 on timeout / boot failure.
#       Prints "boot=<s> run=<s> total=<s>" timings on stderr.
#   guest.sh inspect IMAGE CMD [ARG...]
#       Copy IMAGE, loop-mount the copy (ext4 replays its journal), run CMD
#       with cwd = mount point and $MNT set to it, then unmount and clean up.
#       The original image is never modified.  Returns CMD's status.
#   guest.sh demo [WORKDIR]
#       Self-test: power-cut demonstrations (synced data survives, unsynced
#       data is lost), printing timings.
#
# Environment knobs:
#   GUEST_MEM (MiB, default 1024)   GUEST_SMP (default 1)
#   GUEST_TIMEOUT (s, default 600)  boot+run limit when not killing
#   GUEST_BOOT_TIMEOUT (s, default 300)  limit to see GUEST-START
#   GUEST_APPEND   extra kernel command-line words
#   GUEST_SHARE    auto|virtiofs|9p (default auto)
#   GUEST_MOUNT_OPTS  ext4 mount options for the scratch disk in the guest
#                  (default "defaults"; e.g. commit=1, data=journal, sync)
#   GUEST_CPU      QEMU -cpu model (default qemu64, fastest under TCG; "max"
#                  emulates up to AVX2 but boots ~2 s slower)
#   GUEST_CACHE    unsafe|writeback (scratch disk cache mode, default unsafe)
#   QEMU           qemu binary (default qemu-system-x86_64)
#   VIRTIOFSD      default /usr/lib/qemu/virtiofsd

set -euo pipefail

QEMU=${QEMU:-qemu-system-x86_64}
VIRTIOFSD=${VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
BUSYBOX=${BUSYBOX:-/usr/bin/busybox}

die() { echo "guest.sh: $*" >&2; exit 2; }
now() { date +%s.%N; }
fdiff() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }

# ---------------------------------------------------------------- cleanup --
# Everything created is registered here and undone by the EXIT trap, in
# reverse order.
CLEANUP=()
cleanup_push() { CLEANUP+=("$1"); }
run_cleanup() {
    local i
    for ((i=${#CLEANUP[@]}-1; i>=0; i--)); do
        eval "${CLEANUP[i]}" >/dev/null 2>&1 || true
    done
    CLEANUP=()
}
trap run_cleanup EXIT
trap 'exit 130' INT TERM HUP

mktmp() {  # mktmp VAR : make a unique temp dir, removed on exit
    local d; d=$(mktemp -d /tmp/guestsh.XXXXXX); cleanup_push "rm -rf '$d'"; printf -v "$1" %s "$d"; }

kill_pid() {  # kill_pid PID : SIGKILL and reap if it is still ours
    local p=$1
    [ -n "$p" ] || return 0
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
}

default_kernel() { ls -1v /boot/vmlinuz-* 2>/dev/null | tail -n1; }
kver_of() { basename "$1" | sed 's/^vmlinuz-//'; }

# -------------------------------------------------------------- initramfs --
# Module names we want (if they are modules; built-ins are skipped).
WANT_MODULES="virtio virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
 virtio_blk crc32c_generic crc16 mbcache jbd2 ext4
 fuse virtiofs 9pnet 9pnet_virtio 9p"

cmd_initramfs() {
    local out=${1:?OUTDIR}; local kernel=${2:-$(default_kernel)}
    [ -f "$kernel" ] || die "kernel $kernel not found"
    [ -x "$BUSYBOX" ] || die "busybox-static not found at $BUSYBOX"
    local kver moddir; kver=$(kver_of "$kernel"); moddir=/lib/modules/$kver
    [ -f "$moddir/modules.dep" ] || die "no $moddir/modules.dep"
    mkdir -p "$out"
    local t; mktmp t; local r=$t/root
    mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,host,lib/modules,etc,tmp}
    cp "$BUSYBOX" "$r/bin/busybox"
    local a
    for a in $("$BUSYBOX" --list); do
        [ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"
    done

    # Resolve modules.dep closure, emit in load order (deps first).
    declare -A seen=(); local order=()
    resolve() {  # resolve NAME
        local name=$1 line path deps d
        [ -n "${seen[$name]:-}" ] && return 0
        seen[$name]=1
        line=$(grep -E "(^|/)${name//_/[_-]}\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | head -n1) || true
        [ -n "$line" ] || return 0          # built-in or absent
        path=${line%%:*}; deps=${line#*:}
        for d in $deps; do
            d=$(basename "$d"); d=${d%%.ko*}; resolve "$d"
        done
        order+=("$path")
    }
    local m
    for m in $WANT_MODULES; do resolve "$m"; done

    : > "$r/lib/modules/load-order"
    local p base
    for p in "${order[@]}"; do
        base=$(basename "$p"); base=${base%%.ko*}.ko
        case "$p" in
            *.ko.xz)  xz -dc "$moddir/$p" > "$r/lib/modules/$base" ;;
            *.ko.zst) zstd -qdc "$moddir/$p" > "$r/lib/modules/$base" ;;
            *.ko.gz)  gzip -dc "$moddir/$p" > "$r/lib/modules/$base" ;;
            *)        cp "$moddir/$p" "$r/lib/modules/$base" ;;
        esac
        echo "$base" >> "$r/lib/modules/load-order"
    done

    cat > "$r/init" <<'INIT'
#!/bin/sh
# initramfs /init for guest.sh (busybox sh, PID 1)
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
say() { echo "guest-init: $*"; }
halt_now() { sync; echo o > /proc/sysrq-trigger; poweroff -f; sleep 30; }
fail() { say "FATAL: $*"; echo "GUEST-DONE rc=255"; halt_now; }
echo 1 > /proc/sys/kernel/sysrq

for m in $(cat /lib/modules/load-order); do
    insmod /lib/modules/$m 2>/tmp/insmod.err || {
        grep -q 'File exists' /tmp/insmod.err || say "insmod $m: $(cat /tmp/insmod.err)"; }
done

share=virtiofs; mntopts=defaults
for w in $(cat /proc/cmdline); do
    case $w in
        guestshare=*) share=${w#guestshare=} ;;
        guestmnt=*)   mntopts=${w#guestmnt=} ;;
    esac
done

if [ "$share" = 9p ]; then
    mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /host \
        || fail "cannot mount 9p host root"
else
    mount -t virtiofs -o ro hostroot /host || fail "cannot mount virtiofs host root"
fi

# Scratch disk: the first virtio disk (only one is attached).
dev=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    for d in /dev/vda /dev/vdb; do [ -b $d ] && { dev=$d; break 2; }; done
    sleep 0.1
done
[ -n "$dev" ] || fail "no virtio disk"

mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
# devtmpfs has no /dev/fd, /dev/stdout...: a program that opens
# /dev/stdout would create a file there instead of writing to its output.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -o bind /dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts 2>/dev/null
mount -t tmpfs tmpfs /host/dev/shm
# The host's /tmp stays visible (a checkout or build may live there):
# the command gets TMPDIR=/run instead.
mount -t tmpfs tmpfs /host/run
mount -t tmpfs tmpfs /host/mnt
mkdir -p /host/mnt/disk
mount -t ext4 -o "$mntopts" $dev /host/mnt/disk || fail "cannot mount $dev -o $mntopts"

# Let the guest write dirty pages back early and in its own order.
echo 20 > /proc/sys/vm/dirty_expire_centisecs
echo 10 > /proc/sys/vm/dirty_writeback_centisecs

[ -f /host/mnt/disk/run.sh ] || fail "no run.sh on scratch disk"
echo "GUEST-START"
chroot /host /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root TERM=dumb LANG=C.UTF-8 TMPDIR=/run \
    /bin/sh -c 'cd /mnt/disk && if [ -x ./run.sh ]; then exec ./run.sh; else exec /bin/sh ./run.sh; fi' \
    </dev/null
rc=$?
echo "GUEST-DONE rc=$rc"
sync
umount /host/mnt/disk 2>/dev/null || mount -o remount,ro /host/mnt/disk
halt_now
INIT
    chmod 755 "$r/init"
    (cd "$r" && find . | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc 2>/dev/null) \
        | gzip -6 > "$out/initramfs.cpio.gz.tmp"
    mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
    cp "$kernel" "$out/vmlinuz"
    echo "initramfs: $out/initramfs.cpio.gz  kernel: $out/vmlinuz ($kver)" >&2
    echo "modules: $(tr '\n' ' ' < "$r/lib/modules/load-order")" >&2
}

# ---------------------------------------------------------------- mkimage --
cmd_mkimage() {
    local img=${1:?IMAGE} size=${2:?SIZE_MB} run=${3:?RUNSCRIPT}; shift 3
    local t; mktmp t
    mkdir -p "$t/d"
    cp "$run" "$t/d/run.sh"; chmod 755 "$t/d/run.sh"
    local f; for f in "$@"; do cp -a "$f" "$t/d/"; done
    rm -f "$img"
    truncate -s "${size}M" "$img"
    mkfs.ext4 -F -q -d "$t/d" "$img"
}

# -------------------------------------------------------------------- run --
share_mode() {  # share_mode INITRAMFS
    case "${GUEST_SHARE:-auto}" in
        9p|virtiofs) echo "$GUEST_SHARE" ;;
        auto) if gzip -dc "$1" | "$BUSYBOX" cpio -t 2>/dev/null | grep -q '9pnet_virtio\.ko$' \
                   && gzip -dc "$1" | "$BUSYBOX" cpio -t 2>/dev/null | grep -q '/9p\.ko$'; then
                  echo 9p; else echo virtiofs; fi ;;
        *) die "bad GUEST_SHARE" ;;
    esac
}

cmd_run() {
    local img=${1:?IMAGE} kernel=${2:?KERNEL} initrd=${3:?INITRAMFS} log=${4:?LOGFILE} kill_after=${5:-}
    [ -f "$img" ] && [ -f "$kernel" ] && [ -f "$initrd" ] || die "missing image/kernel/initramfs"
    local mem=${GUEST_MEM:-1024} smp=${GUEST_SMP:-1} cache=${GUEST_CACHE:-unsafe}
    local share; share=$(share_mode "$initrd")
    local t; mktmp t
    : > "$log"
    local share_args=() vfs_pid=
    if [ "$share" = virtiofs ]; then
        [ -x "$VIRTIOFSD" ] || die "virtiofsd not found ($VIRTIOFSD)"
        mkdir -p "$t/ro"
        # Private mount namespace: read-only (recursive) bind of / for virtiofsd.
        unshare -m --propagation private /bin/sh -c '
            set -e
            mount --rbind / "$1"
            findmnt -rn -o TARGET -R "$1" | while read -r m; do
                mount -o remount,bind,ro "$(printf "%b" "$m")" 2>/dev/null || true
            done
            shift
            exec "$@"' sh "$t/ro" \
            "$VIRTIOFSD" --socket-path="$t/vfs.sock" -o source="$t/ro" \
            -o sandbox=chroot -o cache=always -o no_posix_lock -o no_flock -o log_level=err \
            > "$t/virtiofsd.log" 2>&1 &
        vfs_pid=$!
        cleanup_push "kill_pid $vfs_pid"
        local i
        for ((i=0; i<100; i++)); do [ -S "$t/vfs.sock" ] && break; sleep 0.05; done
        [ -S "$t/vfs.sock" ] || { cat "$t/virtiofsd.log" >&2; die "virtiofsd did not start"; }
        share_args=(-object "memory-backend-memfd,id=mem,size=${mem}M,share=on" -numa node,memdev=mem
                    -chardev "socket,id=vfs,path=$t/vfs.sock"
                    -device vhost-user-fs-pci,queue-size=1024,chardev=vfs,tag=hostroot)
    else
        share_args=(-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on)
    fi

    local t0 t1 t2 qpid
    t0=$(now)
    "$QEMU" -accel tcg -cpu "${GUEST_CPU:-qemu64}" -m "$mem" -smp "$smp" -nodefaults -no-user-config \
        -display none -monitor none -serial "file:$log" -no-reboot \
        -kernel "$kernel" -initrd "$initrd" \
        -append "console=ttyS0 panic=-1 loglevel=4 guestshare=$share guestmnt=${GUEST_MOUNT_OPTS:-defaults} ${GUEST_APPEND:-}" \
        "${share_args[@]}" \
        -drive "file=$img,format=raw,if=virtio,cache=$cache" \
        > "$t/qemu.out" 2>&1 &
    qpid=$!
    cleanup_push "kill_pid $qpid"

    local boot_to=${GUEST_BOOT_TIMEOUT:-300} total_to=${GUEST_TIMEOUT:-600}
    local started=0 status=0
    while :; do
        if ! kill -0 "$qpid" 2>/dev/null; then break; fi
        if grep -q '^GUEST-START' "$log" 2>/dev/null; then started=1; break; fi
        if awk -v a="$t0" -v b="$(now)" -v l="$boot_to" 'BEGIN{exit !(b-a>l)}'; then break; fi
        sleep 0.05
    done
    t1=$(now)
    if [ $started = 0 ]; then
        kill_pid "$qpid"
        echo "guest.sh: guest did not reach GUEST-START (see $log)" >&2
        cat "$t/qemu.out" >&2
        echo "boot=FAIL total=$(fdiff "$t0" "$(now)")" >&2
        return 1
    fi
    if [ -n "$kill_after" ]; then
        # Wake up on whichever comes first: the timer or QEMU exiting.
        sleep "$kill_after" & local spid=$!
        wait -n "$qpid" "$spid" 2>/dev/null || true
        t2=$(now)
        if kill -0 "$qpid" 2>/dev/null; then
            kill -9 "$qpid" 2>/dev/null || true
            wait "$qpid" 2>/dev/null || true
            echo "guest.sh: QEMU SIGKILLed $(fdiff "$t1" "$t2")s after GUEST-START" >&2
        else
            wait "$qpid" 2>/dev/null || true
            echo "guest.sh: guest ended before the kill ($(grep -a '^GUEST-DONE' "$log" | tr -d '\r'))" >&2
        fi
        kill_pid "$spid"
    else
        while kill -0 "$qpid" 2>/dev/null; do
            if awk -v a="$t0" -v b="$(now)" -v l="$total_to" 'BEGIN{exit !(b-a>l)}'; then
                echo "guest.sh: timeout after ${total_to}s, killing QEMU" >&2
                status=1; break
            fi
            sleep 0.1
        done
        kill_pid "$qpid"
        t2=$(now)
        grep -q '^GUEST-DONE' "$log" || status=1
    fi
    if [ -n "$vfs_pid" ]; then   # virtiofsd exits by itself once QEMU is gone
        local i; for ((i=0; i<40; i++)); do kill -0 "$vfs_pid" 2>/dev/null || break; sleep 0.05; done
        kill_pid "$vfs_pid"
    fi
    echo "boot=$(fdiff "$t0" "$t1") run=$(fdiff "$t1" "$t2") total=$(fdiff "$t0" "$t2")" >&2
    return $status
}

# ---------------------------------------------------------------- inspect --
cmd_inspect() {
    local img=${1:?IMAGE}; shift; [ $# -gt 0 ] || die "inspect: CMD missing"
    local t; mktmp t
    cp --sparse=always "$img" "$t/img"
    mkdir "$t/mnt"
    local loop; loop=$(losetup -f --show "$t/img")
    cleanup_push "losetup -d $loop"
    mount -t ext4 "$loop" "$t/mnt"
    cleanup_push "umount -l '$t/mnt'"
    local rc=0
    (cd "$t/mnt" && MNT="$t/mnt" "$@") || rc=$?
    umount "$t/mnt"; losetup -d "$loop" 2>/dev/null || true
    return $rc
}

# ------------------------------------------------------------------- demo --
cmd_demo() {
    local w=${1:-}; [ -n "$w" ] || mktmp w
    mkdir -p "$w"
    local self; self=$(readlink -f "$0")
    local T0; T0=$(now)
    "$self" initramfs "$w"
    echo "initramfs build: $(fdiff "$T0" "$(now)")s"
    local K=$w/vmlinuz I=$w/initramfs.cpio.gz

    # 1. chroot sanity: host dynamic binaries over the shared root.
    cat > "$w/sanity.sh" <<'EOF'
#!/bin/sh
echo "uname: $(uname -r)"; ls -ld /usr/bin/python3 /work 2>&1
python3 -c 'import sys, sqlite3, json; print("python", sys.version.split()[0], "sqlite", sqlite3.sqlite_version)'
t0=$(date +%s.%N); python3 -c 'pass'; t1=$(date +%s.%N)
echo "python3 startup: $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2fs", b-a}')"
t0=$(date +%s.%N); ls -lR /usr/lib/python3.11 >/dev/null; t1=$(date +%s.%N)
echo "ls -lR /usr/lib/python3.11 ($(find /usr/lib/python3.11 | wc -l) entries): $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2fs", b-a}')"
grep -o -m1 -wE 'avx2' /proc/cpuinfo || echo "no avx2 in guest cpu"
ls /bin | wc -l
df -h /mnt/disk | tail -n1
touch /usr/should-fail 2>&1 || echo "host root is read-only: OK"
echo hello > /mnt/disk/hello.txt && sync && echo "scratch write OK"
EOF
    T0=$(now)
    "$self" mkimage "$w/img0" 256 "$w/sanity.sh"
    "$self" run "$w/img0" "$K" "$I" "$w/log0" || true
    echo "--- sanity log ---"; grep -v '^\[' "$w/log0" | tail -n 20
    echo "full sanity cycle: $(fdiff "$T0" "$(now)")s"

    # 2. synced data must survive a power cut.
    cat > "$w/sync.sh" <<'EOF'
#!/bin/sh
i=0
while :; do
    i=$((i+1)); echo "$i" >> /mnt/disk/out.txt
    if [ $((i % 100)) = 0 ]; then sync; echo "SYNCED $i"; fi
done
EOF
    local n fails=0
    for n in 1 2 3; do
        T0=$(now)
        "$self" mkimage "$w/img1" 256 "$w/sync.sh"
        "$self" run "$w/img1" "$K" "$I" "$w/log1" 3
        local synced lines
        synced=$(grep -a '^SYNCED' "$w/log1" | tr -d '\r' | tail -n1 | awk '{print $2}')
        lines=$("$self" inspect "$w/img1" sh -c 'if [ -f out.txt ]; then wc -l < out.txt; else echo 0; fi')
        local verdict=PASS
        [ "${lines:-0}" -ge "${synced:-0}" ] || { verdict=FAIL; fails=$((fails+1)); }
        echo "sync run $n: last SYNCED=${synced:-none} lines-on-image=$lines $verdict" \
             " cycle=$(fdiff "$T0" "$(now)")s"
    done

    # 3. unsynced data must (at least sometimes) be lost.
    cat > "$w/nosync.sh" <<'EOF'
#!/bin/sh
echo "WRITING"
dd if=/dev/zero of=/mnt/disk/big.bin bs=1M count=64 2>&1
echo "WROTE"
sleep 60
EOF
    for n in 0.3 5 12; do
        T0=$(now)
        "$self" mkimage "$w/img2" 256 "$w/nosync.sh"
        "$self" run "$w/img2" "$K" "$I" "$w/log2" "$n"
        local sz
        sz=$("$self" inspect "$w/img2" sh -c 'if [ -f big.bin ]; then stat -c %s big.bin; else echo absent; fi')
        echo "no-sync run kill@${n}s: guest log: $(grep -aE '^(WRITING|WROTE|[0-9]+ bytes)' "$w/log2" | tr -d '\r' | tr '\n' ' ')" \
             "; big.bin on image: $sz  cycle=$(fdiff "$T0" "$(now)")s"
    done
    echo "demo: $fails failure(s)"
    [ "$fails" = 0 ]
}

# ------------------------------------------------------------------- main --
[ "$(id -u)" = 0 ] || die "must run as root"
sub=${1:-}; [ $# -gt 0 ] && shift
case "$sub" in
    initramfs) cmd_initramfs "$@" ;;
    mkimage)   cmd_mkimage "$@" ;;
    run)       cmd_run "$@" ;;
    inspect)   cmd_inspect "$@" ;;
    demo)      cmd_demo "$@" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 2 ;;
esac
