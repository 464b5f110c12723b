# Sourced by the bench_*.sh scripts.  Needs $work (the script's directory
# for inputs and scratch) set before best() is called.
#
# Result lines.  Every benchmark (these scripts and the Bench*.c programs)
# prints its figures as tab-separated lines that Tests/Bench/bench_tables.py
# turns into the tables of docs/benchmarks-history.md:
#
#   @bench <TAB> SECTION <TAB> head <TAB> column <TAB> column ...
#   @bench <TAB> SECTION <TAB> row  <TAB> cell <TAB> cell ...
#   @bench <TAB> SECTION <TAB> note <TAB> text
#
# SECTION names a table (the markers <!-- bench:SECTION begin/end --> in
# docs/benchmarks-history.md); a note is printed under the table.  Other output is for
# people and is ignored.

bench_emit() {  # bench_emit KIND SECTION FIELD...
  kind=$1; section=$2; shift 2
  printf '@bench\t%s\t%s' "$section" "$kind"
  for f in "$@"; do printf '\t%s' "$f"; done
  printf '\n'
}
bench_head() { bench_emit head "$@"; }
bench_row() { bench_emit row "$@"; }
bench_note() { bench_emit note "$@"; }

# calc FORMAT EXPRESSION: awk arithmetic, printed with printf's FORMAT.
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

now() { date +%s.%N; }

# best N COMMAND...: the lowest wall-clock seconds of N runs of COMMAND,
# stdin from $stdin (default /dev/null), output to $work/out.  Before each
# run, off the clock, the previous run's session ($work/session) is removed
# and written back.
best() {
  n=$1; shift; b=""; i=0
  while [ "$i" -lt "$n" ]; do
    rm -rf "$work/session"; sync
    t0=$(now); "$@" < "${stdin:-/dev/null}" > "$work/out" 2>&1; t1=$(now); i=$((i + 1))
    t=$(calc %.4f "$t1 - $t0")
    if [ -z "$b" ] || [ "$(calc %d "$t < $b")" = 1 ]; then b=$t; fi
  done
  echo "$b"
}

# gen_ftrace SAMPLE MB OUT: SAMPLE (an ftrace text capture whose timestamps
# are 697.xxx s) repeated until OUT is about MB megabytes, each copy shifted
# by one second so timestamps stay in order.  Kept between runs.
gen_ftrace() {
  reps=$(( $2 * 1000000 / $(wc -c < "$1") + 1 ))
  if [ ! -s "$3" ] || [ "$(cat "$3.reps" 2>/dev/null)" != "$reps" ]; then
    awk -v reps="$reps" '{ line[NR] = $0 } END {
      for (r = 0; r < reps; r++) for (i = 1; i <= NR; i++) {
        l = line[i]; p = index(l, " 697."); if (p) l = substr(l, 1, p) (697 + r) substr(l, p + 4)
        print l } }' "$1" > "$3"
    echo "$reps" > "$3.reps"
  fi
}

# gen_chrome MODE MB OUT: bench_chrome.sh's Chrome trace-event input of about
# MB megabytes (see there).  MODE be writes each call as a B/E pair, as it
# happens; MODE x writes it as one X event when it ends (children before
# their parent).
gen_chrome() {
  awk -v target=$(($2 * 1000000)) -v mode="$1" '
  function emit(e) { bytes += length(e) + 2; print (first ? "" : ",") e; first = 0; count++ }
  function uniq() { return (count % 64 == 0) ? sprintf(",\"args\":{\"id\":%d}", count) : "" }
  BEGIN {
    printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
    n = split("ParseHTML Layout Paint CompositeLayers v8.run MinorGC RunTask DoWork", names, " ")
    t = 1000000.0; first = 1
    while (bytes < target) {
      for (tid = 1; tid <= 8 && bytes < target; tid++) {
        for (d = 1; d <= 4; d++) {
          a[d] = (d == 1) ? sprintf(",\"args\":{\"frame\":\"0x%x\"}", 4096 + count % 512) : uniq()
          begin[d] = t
          if (mode == "be")
            emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"B\",\"cat\":\"blink\",\"name\":\"%s\"%s}", tid, t, names[(d + tid) % n + 1], a[d]))
          else
            count++
          t += 0.731
        }
        emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"X\",\"dur\":%.3f,\"cat\":\"v8\",\"name\":\"%s\",\"args\":{\"src\":\"file%d.cc\",\"line\":%d}}", tid, t, 0.25, names[tid % n + 1], count % 16, count % 256))
        t += 0.5
        emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\"%s}", tid, t, uniq()))
        t += 0.125
        emit(sprintf("{\"pid\":4242,\"ts\":%.3f,\"ph\":\"C\",\"name\":\"heap\",\"args\":{\"used\":%d,\"total\":%d}}", t, (count * 7) % 100000, 100000))
        for (d = 4; d >= 1; d--) {
          if (mode == "be")
            emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"E\",\"cat\":\"blink\",\"name\":\"%s\"}", tid, t, names[(d + tid) % n + 1]))
          else
            emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"X\",\"dur\":%.3f,\"cat\":\"blink\",\"name\":\"%s\"%s}", tid, begin[d], t - begin[d], names[(d + tid) % n + 1], a[d]))
          t += 0.333
        }
      }
    }
    printf "],\"metadata\":{\"generator\":\"bench_chrome.sh\"}}\n" }' > "$3"
}

# peak_rss COMMAND...: peak resident set of COMMAND in MB (its output dropped).
peak_rss() {
  python3 "$(dirname "$0")/peak_rss.py" "$@" 2>&1 | awk '/^peak_rss_mb/ { print $2 }'
}

# events SESSION: the events a session's sources hold.
events() { "$ts" sql --csv "$1" "SELECT sum(events) FROM source" | tail -1; }

mb() { echo $(( $(wc -c < "$1") / 1000000 )); }
