# diskfull_lib.sh: sourced by the Tests/DiskFull scripts after they set W
# (their work directory).  Mounts small file systems under $W and unmounts
# them on any exit; exits 77 (a CTest skip) where mounting is not possible.
set -u
skip(){ echo "SKIP: $*"; exit 77; }
fail(){ echo "FAIL: $*"; exit 1; }

MOUNTS=""
cleanup(){
  for _m in $MOUNTS; do
    umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
  done
  MOUNTS=""
}
trap cleanup EXIT
trap 'exit 1' INT TERM

rm -rf "$W"; mkdir -p "$W"

# mount_fs KIND SIZE_KB DIR: a fresh, empty file system of SIZE_KB on DIR:
# tmpfs, or ext4 on a loop device (its image in $W).
mount_fs(){
  [ "$(id -u)" = 0 ] || skip "needs root to mount file systems"
  mkdir -p "$3"
  case "$1" in
    tmpfs)
      mount -t tmpfs -o size="$2"k tmpfs "$3" 2>/dev/null ||
        skip "cannot mount tmpfs";;
    ext4)
      command -v mkfs.ext4 > /dev/null || skip "no mkfs.ext4"
      rm -f "$3.img"
      truncate -s "$2"k "$3.img" && mkfs.ext4 -q -F "$3.img" > /dev/null 2>&1 ||
        skip "cannot make an ext4 image"
      mount -o loop "$3.img" "$3" 2>/dev/null || skip "cannot mount a loop device";;
    *) fail "mount_fs: unknown kind $1";;
  esac
  MOUNTS="$3 $MOUNTS"
}

# remount_ro DIR: makes a mounted file system read-only.
remount_ro(){
  mount -o remount,ro "$1" || fail "cannot remount $1 read-only"
  touch "$1/probe" 2>/dev/null && fail "$1 is still writable"
  return 0
}

# check_exit RC ERRFILE WHAT: RC is a plain failure (1), not a signal, and
# no sanitizer caught a fault (ASan turns SIGBUS into exit 1).
check_exit(){
  [ "$1" -lt 128 ] || fail "$3 died of signal $(($1 - 128)) (exit $1)"
  [ "$1" = 1 ] || fail "$3 exited $1, wanted 1"
  if grep -q 'Sanitizer\|DEADLYSIGNAL' "$2"; then
    cat "$2"; fail "$3 faulted"
  fi
  return 0
}

# big_ftrace SRC COPIES OUT: SRC (ftrace text) repeated COPIES times, copy
# k with every timestamp moved k seconds later, so the whole stays sorted
# and each line is unique by its timestamp.
big_ftrace(){
  awk -v n="$2" '
    { line[NR] = $0 }
    END {
      for (k = 0; k < n; k++) {
        for (i = 1; i <= NR; i++) {
          l = line[i]
          if (k > 0 && match(l, /\] [^ ]+ +[0-9]+\.[0-9]+: /)) {
            head = substr(l, 1, RSTART - 1)
            mid = substr(l, RSTART, RLENGTH)
            tail = substr(l, RSTART + RLENGTH)
            match(mid, /[0-9]+\.[0-9]+: $/)
            ts = substr(mid, RSTART, RLENGTH - 2)
            split(ts, p, ".")
            l = head substr(mid, 1, RSTART - 1) (p[1] + k) "." p[2] ": " tail
          }
          print l
        }
      }
    }' "$1" > "$3"
}

# ftrace_oracle FILE: one line per event of the ftrace text FILE, in order,
# as "STORE|ts|..." in the form the queries of session_rows print (the
# importer drops trailing blanks, and keeps an ip given as a symbol in
# ip_sym).
ftrace_oracle(){
  awk '
    match($0, /\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: [^ :]+: ?/) {
      task = substr($0, 1, RSTART - 1)
      sub(/^ +/, "", task); sub(/ +$/, "", task)
      tid = task; sub(/.*-/, "", tid)
      comm = task; sub(/-[0-9]+$/, "", comm)
      m = substr($0, RSTART, RLENGTH)
      args = substr($0, RSTART + RLENGTH); sub(/ +$/, "", args)
      cpu = m; sub(/^\[0*/, "", cpu); sub(/\].*/, "", cpu)
      if (cpu == "") cpu = 0
      n = split(m, f, " ")
      ts = f[n - 1]; sub(/:$/, "", ts); split(ts, p, ".")
      ts = p[1] p[2] "000"; sub(/^0+/, "", ts)
      name = f[n]; sub(/:$/, "", name)
      if (name ~ /^page_fault_/) {
        split(args, a, " ")
        for (i in a) { split(a[i], kv, "="); v[kv[1]] = kv[2]; sub(/^0x/, "", v[kv[1]]) }
        print "page_fault|" ts "|" name "|" v["address"] "|" v["ip"] "|" \
              v["error_code"] "|" tid "|" comm "|" cpu
      } else if (name == "sched_switch") {
        s = args; sub(/ ==> /, " ", s)
        split(s, a, " ")
        for (i in a) { split(a[i], kv, "="); v[kv[1]] = kv[2] }
        print "sched_switch|" ts "|" cpu "|" v["prev_comm"] "|" v["prev_pid"] "|" \
              v["prev_prio"] "|" v["prev_state"] "|" v["next_comm"] "|" \
              v["next_pid"] "|" v["next_prio"]
      } else {
        print "ftrace_event|" ts "|" name "|" tid "|" comm "|" cpu "|" args
      }
    }' "$1"
}

# session_rows SQLITE3 EXT SESSION STORE: the rows of STORE as
# ftrace_oracle prints them, read back in the sqlite3 shell.
session_rows(){
  case "$4" in
    page_fault) _q="SELECT printf('page_fault|%d|%s|%x|%s|%x|%d|%s|%d', ts,
      name, address, coalesce(ip_sym, printf('%x', ip)), error_code, tid, comm,
      cpu) FROM page_fault ORDER BY id";;
    sched_switch) _q="SELECT printf('sched_switch|%d|%d|%s|%d|%d|%s|%s|%d|%d',
      ts, cpu, prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid,
      next_prio) FROM sched_switch ORDER BY id";;
    ftrace_event) _q="SELECT printf('ftrace_event|%d|%s|%d|%s|%d|%s', ts, name,
      tid, comm, cpu, args) FROM ftrace_event ORDER BY id";;
  esac
  printf '.load %s\n.output /dev/null\nSELECT tracestore_attach(%s);\n.output stdout\n%s;\n' \
    "${2%.so}" "'$(printf %s "$3" | sed "s/'/''/g")'" "$_q" |
    "$1" -batch -bail :memory:
}
