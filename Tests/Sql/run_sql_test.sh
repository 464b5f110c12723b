#!/bin/sh
#
# run_sql_test.sh: runs one SQL test case of Tests/Sql through the real
# sqlite3 shell, with the extension loaded the way a user loads it
# (.load DIR/tracestore), and checks it.
#
# Usage:
#
#   run_sql_test.sh OPTIONS setup
#       Imports the ftrace capture into a fresh session (the fixture every
#       other case reads).
#
#   run_sql_test.sh OPTIONS run NAME
#       Runs NAME.sql and checks it against, in this order of preference:
#         NAME.errors    the statement must fail: sqlite3 exits non-zero
#                        (but below 128: never a crash) and every line of
#                        this file appears in what it prints on stderr;
#         NAME.oracle    a shell script that computes the expected output
#                        independently (from the capture, with sed/awk/ls);
#         NAME.expected  the expected output, written by hand.
#       A case with NAME.errors may also have NAME.oracle or NAME.expected
#       for what it prints on stdout (with ".bail off" it goes on after
#       the error, e.g. to show that the error changed nothing).
#       NAME.prepare, if present, runs first, in the case's scratch
#       directory (to build damaged copies of the session, ...).
#
#   OPTIONS (all required; SqlTests.cmake passes them):
#       --sqlite3 PATH      the sqlite3 shell
#       --ext PATH          tracestore.so
#       --tracestore PATH   the tracestore command
#       --session DIR       the shared session (made by setup)
#       --ftrace FILE       the ftrace text capture (the oracles' input)
#       --work DIR          scratch root; each case gets DIR/NAME
#
# In NAME.sql, NAME.errors and NAME.expected, @SESSION@, @WORK@ (the case's
# scratch directory) and @FTRACE@ are replaced by those paths (in .sql, with
# single quotes doubled for SQL string literals).  Scripts (.oracle,
# .prepare) get them as the environment variables SESSION, WORK, FTRACE,
# TRACESTORE, SQLITE3 and SQLDIR; oracle_lib.sh has the shared parsing.
#

set -u

SQLDIR=$(cd "$(dirname "$0")" && pwd)
SQLITE3= EXT= TRACESTORE= SESSION= FTRACE= WORKROOT=

while [ $# -gt 0 ]; do
    case "$1" in
        --sqlite3)    SQLITE3=$2; shift 2 ;;
        --ext)        EXT=$2; shift 2 ;;
        --tracestore) TRACESTORE=$2; shift 2 ;;
        --session)    SESSION=$2; shift 2 ;;
        --ftrace)     FTRACE=$2; shift 2 ;;
        --work)       WORKROOT=$2; shift 2 ;;
        --*)          echo "run_sql_test.sh: unknown option $1" >&2; exit 2 ;;
        *)            break ;;
    esac
done

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

for Var in SQLITE3 EXT TRACESTORE SESSION FTRACE WORKROOT; do
    eval "Value=\${$Var}"
    [ -n "$Value" ] || fail "missing option for $Var"
done

[ $# -ge 1 ] || fail "usage: run_sql_test.sh OPTIONS setup | run NAME"
export SQLITE3 EXT TRACESTORE SESSION FTRACE SQLDIR
LC_ALL=C
export LC_ALL

#
# Replaces the placeholders in file $1; $2 is "sql" to double single quotes.
#
substitute() {
    awk -v session="$SESSION" -v work="$WORK" -v ftrace="$FTRACE" \
        -v sql="$2" '
        function quote(s) { if (sql == "sql") gsub(/\047/, "\047\047", s); return s }
        function replace(line, key, value,    out, i) {
            out = ""
            while ((i = index(line, key)) > 0) {
                out = out substr(line, 1, i - 1) value
                line = substr(line, i + length(key))
            }
            return out line
        }
        {
            line = $0
            line = replace(line, "@SESSION@", quote(session))
            line = replace(line, "@WORK@", quote(work))
            line = replace(line, "@FTRACE@", quote(ftrace))
            print line
        }' "$1"
}

#
# Runs the sqlite3 shell on file $1 with the extension loaded as a user
# would: ".load DIR/tracestore" (the shell adds the suffix and derives the
# entry point sqlite3_tracestore_init from the name).  Sets Status.
#
run_sqlite() {
    LoadPath=${EXT%.so}
    "$SQLITE3" -batch -bail :memory: -cmd ".load '$LoadPath'" \
        < "$1" > "$WORK/stdout" 2> "$WORK/stderr"
    Status=$?
}

case "$1" in

setup)
    WORK=$WORKROOT/setup
    rm -rf "$SESSION" "$WORK"
    mkdir -p "$WORK" "$(dirname "$SESSION")" || fail "cannot create $WORK"
    "$TRACESTORE" import -o "$SESSION" "$FTRACE" > "$WORK/stdout" 2>&1
    Status=$?
    cat "$WORK/stdout"
    [ $Status -eq 0 ] || fail "tracestore import exited with status $Status"
    [ -f "$SESSION/session.tracer" ] || fail "no session.tracer in $SESSION"
    echo "PASS: imported $FTRACE into $SESSION"
    exit 0
    ;;

run)
    [ $# -eq 2 ] || fail "usage: run_sql_test.sh OPTIONS run NAME"
    Name=$2
    Case=$SQLDIR/$Name
    WORK=$WORKROOT/$Name
    export WORK
    [ -f "$Case.sql" ] || fail "no such case: $Case.sql"
    [ -d "$SESSION" ] || fail "no session at $SESSION (run the sql_setup test)"
    rm -rf "$WORK"
    mkdir -p "$WORK" || fail "cannot create $WORK"

    if [ -f "$Case.prepare" ]; then
        (cd "$WORK" && sh "$Case.prepare") > "$WORK/prepare.log" 2>&1 ||
            { cat "$WORK/prepare.log"; fail "$Name.prepare failed"; }
    fi

    substitute "$Case.sql" sql > "$WORK/query.sql"
    run_sqlite "$WORK/query.sql"

    echo "--- stdout"; cat "$WORK/stdout"
    echo "--- stderr"; cat "$WORK/stderr"
    echo "--- exit status $Status"

    if [ $Status -ge 128 ]; then
        fail "sqlite3 died with signal $((Status - 128)) (a crash)"
    fi

    if [ -f "$Case.errors" ]; then
        [ $Status -ne 0 ] || fail "the statement should have failed"
        substitute "$Case.errors" text > "$WORK/errors"
        while IFS= read -r Want; do
            [ -n "$Want" ] || continue
            grep -F -q -- "$Want" "$WORK/stderr" ||
                fail "stderr does not mention: $Want"
        done < "$WORK/errors"
        if [ ! -f "$Case.oracle" ] && [ ! -f "$Case.expected" ]; then
            echo "PASS: $Name failed as it should"
            exit 0
        fi
    else
        [ $Status -eq 0 ] || fail "sqlite3 exited with status $Status"
        [ -s "$WORK/stderr" ] && fail "sqlite3 printed on stderr"
    fi

    if [ -f "$Case.oracle" ]; then
        (cd "$WORK" && sh "$Case.oracle") > "$WORK/expected" ||
            fail "$Name.oracle failed"
    elif [ -f "$Case.expected" ]; then
        substitute "$Case.expected" text > "$WORK/expected"
    else
        fail "$Name has neither .errors, .oracle nor .expected"
    fi
    [ -s "$WORK/expected" ] || fail "the expected output is empty"

    if ! diff -u "$WORK/expected" "$WORK/stdout" > "$WORK/diff"; then
        echo "--- diff (expected, actual)"
        cat "$WORK/diff"
        fail "$Name: output differs from the oracle"
    fi
    echo "PASS: $Name"
    exit 0
    ;;

*)
    fail "unknown command $1"
    ;;
esac
