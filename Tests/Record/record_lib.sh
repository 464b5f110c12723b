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

# record_watched SQLITE3 EXT SQL RECORD_ARGS...: runs `tracestore record
# RECORD_ARGS` ($TS; stdout to $W/workload.out, stderr to $W/record.err,
# its exit status to $W/record.rc) while one sqlite3 shell with the
# extension EXT attached to $S runs SQL (one count) every 50 ms until the
# recording ends; the counts go to $W/counts.txt.
record_watched(){
  _sq3=$1 _ext=${2%.so} _sql=$3
  shift 3
  ( "$TS" record "$@" > "$W/workload.out" 2> "$W/record.err"
    echo $? > "$W/record.rc" ) &
  # The reader starts once the session can be read.
  _i=0
  until "$TS" sql --csv "$S" "$_sql" > /dev/null 2>&1; do
    [ -f "$W/record.rc" ] && { cat "$W/record.err"; fail "the recording "\
"ended before the session could be read"; }
    _i=$((_i + 1)); [ $_i -le 200 ] || fail "no readable session after 10 s"
    sleep 0.05
  done
  { echo ".load '$(sqlq "$_ext")'"
    echo ".output /dev/null"
    echo "SELECT tracestore_attach('$(sqlq "$S")');"
    echo ".output stdout"
    while [ ! -f "$W/record.rc" ]; do
      echo "$_sql;"
      sleep 0.05
    done
  } | "$_sq3" -batch -bail :memory: > "$W/counts.txt" 2> "$W/sqlite3.err" \
    || { cat "$W/sqlite3.err"; fail "the sqlite3 shell failed"; }
  wait
  cat "$W/record.err"
  [ "$(cat "$W/record.rc")" = 0 ] || fail "tracestore record failed"
}

# check_growing FINAL: the counts in $W/counts.txt never decrease and show
# at least 3 distinct values above 0 and below FINAL (read while recording).
check_growing(){
  awk -v final="$1" '
    $0 !~ /^[0-9]+$/ { print "not a count: " $0; bad = 1; exit }
    NR > 1 && $1 + 0 < prev { print "decrease: " prev " -> " $1; bad = 1 }
    { prev = $1 + 0 }
    $1 > 0 && $1 < final && !seen[$1]++ { n++ }
    END { if (bad) exit 1
          if (n < 3) { print n " distinct values while recording"; exit 1 }
          print n " distinct values while recording" }' "$W/counts.txt" \
    || fail "the counts did not grow as required"
}

# SQL string literal body: doubles single quotes.
sqlq(){ printf '%s' "$1" | sed "s/'/''/g"; }

[ "$(id -u)" = 0 ] || skip "needs root for tracefs"
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null || skip "no tracefs"
[ -d $T/instances ] || skip "no tracefs"

rm -rf "$W"; mkdir -p "$W"
S=$W/session
