#
# oracle_lib.sh: shared parsing for the oracles of the SQL tests.  Sourced
# by NAME.oracle scripts (". "$SQLDIR/oracle_lib.sh"), which run in the
# case's scratch directory with SESSION, FTRACE, WORK and SQLDIR set.
#
# Everything here reads the input capture (ftrace text, as tracefs prints
# it) or the session directory with sed, awk, ls and stat: never the
# extension or the tracestore command.
#

LC_ALL=C
export LC_ALL

#
# Prints one line per event of $FTRACE, in file order:
#
#     ts_ns|event|comm|tid|cpu|flags|args
#
# from lines such as
#
#     bash-11525   [001] d....   697.454819: page_fault_user: address=...
#
# ts_ns is the timestamp in nanoseconds, cpu has no leading zeros, flags is
# the latency column ("d...." above; empty if the line has none), args is
# everything after "event: ".
#
ftrace_events() {
    sed -nE 's/^ *(.*)-([0-9]+) +\[([0-9]+)\] +([^ ]+ +)?([0-9]+)\.([0-9]+): ([A-Za-z0-9_]+):(.*)$/\5|\6|\7|\1|\2|\3|\4|\8/p' "$FTRACE" |
    awk -F'|' '{
        frac = $2
        ns = $1 * 1000000000 + frac * (10 ^ (9 - length(frac)))
        flags = $7
        sub(/ +$/, "", flags)
        args = $8
        for (i = 9; i <= NF; i++) args = args "|" $i
        sub(/^ /, "", args)
        printf "%.0f|%s|%s|%d|%d|%s|%s\n", ns, $3, $4, $5, $6 + 0, flags, args
    }'
}

#
# Prints "name|count" for the events whose name matches the awk regular
# expression $1, sorted by name.
#
event_counts() {
    ftrace_events | awk -F'|' -v pattern="$1" '
        $2 ~ pattern { n[$2]++ }
        END { for (name in n) print name "|" n[name] }' |
    sort -t'|' -k1,1
}

#
# Prints the names of the stores in $SESSION (NAME.store files), sorted.
#
session_stores() {
    ls "$SESSION" | sed -n 's/\.store$//p' | sort
}

# The rollup tables tracestore_attach() makes for the stores of $SESSION
# (written by this version): the two event ones for any event store, and
# the one of each store that has its own.
rollup_tables() {
    session_stores | awk '
        /^(ftrace_event|page_fault|kvm_exit|sched_switch|span|counter)$/ {
            events = 1 }
        $0 == "ftrace_event" { print "rollup_syscall" }
        $0 == "page_fault" { print "rollup_page_fault" }
        $0 == "kvm_exit" { print "rollup_kvm_exit" }
        $0 == "span" { print "rollup_span"; print "rollup_span_open" }
        END { if (events) { print "rollup_event_count"
                            print "rollup_event_rate" } }'
}
