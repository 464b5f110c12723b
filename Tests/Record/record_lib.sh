# record_lib.sh: sourced by the Tests/Record scripts after they set W (the
# work directory).  skip (exit 77, a CTest skip) without root or tracefs,
# mounting tracefs if needed; then a fresh $W and S=$W/session.
T=/sys/kernel/tracing
skip(){ echo "SKIP: $*"; exit 77; }
fail(){ echo "FAIL: $*"; exit 1; }
# Fails if a recorder that is no longer running left its instance behind.
check_instances(){
  for i in $(ls $T/instances); do
    case "$i" in tracestore-*) [ -d /proc/${i#tracestore-} ] ||
      fail "instance $i left behind";; esac
  done
}

[ "$(id -u)" = 0 ] || skip "needs root for tracefs"
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null || skip "no tracefs"
[ -d $T/instances ] || skip "no tracefs"

rm -rf "$W"; mkdir -p "$W"
S=$W/session
