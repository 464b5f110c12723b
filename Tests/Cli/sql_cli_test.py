#!/usr/bin/env python3
"""sql_cli_test.py: `tracestore sql` output modes, SQL sources and errors.

Usage:

    sql_cli_test.py TRACESTORE FTRACE WORK CASE

TRACESTORE is the command, FTRACE the ftrace text capture it imports into
WORK/capture.trace, CASE one of the cases below (one CTest entry each).

Expected values are written by hand (literal SELECTs whose values need no
tracer), or come from the capture text (grep -c, a regular expression);
JSON is read back with Python's json module and CSV with its csv module,
parsers that are not ours.
"""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

TRACESTORE = FTRACE = WORK = SESSION = None


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def run(args, stdin=None, want_rc=0):
    p = subprocess.run([TRACESTORE, "sql"] + args, input=stdin,
                       capture_output=True)
    check(p.returncode == want_rc, "tracestore sql %s: exit %d (want %d): %s"
          % (" ".join(args), p.returncode, want_rc,
             p.stderr.decode(errors="replace")))
    return p.stdout, p.stderr.decode(errors="replace")


def json_stream(data):
    """The JSON values printed one after another."""
    text = data.decode("utf-8")       # must be valid UTF-8
    decoder = json.JSONDecoder()
    values, i = [], 0
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i == len(text):
            return values
        value, i = decoder.raw_decode(text, i)
        values.append(value)


def comm_counts():
    """Page faults per comm, from the capture text."""
    counts = Counter()
    pattern = re.compile(r"^\s*(.*)-\d+\s+\[\d+\].*?: page_fault_\w+: ")
    with open(FTRACE, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = pattern.match(line)
            if m:
                counts[m.group(1).strip()] += 1
    return counts


PER_COMM = "SELECT comm, count(*) AS faults FROM page_fault GROUP BY comm"


def case_json_values():
    sql = ("SELECT 42 AS i, -9223372036854775808 AS min,"
           " 9223372036854775807 AS max, 0.1 AS tenth, 2.0 AS two,"
           " 1e300 * 1e300 AS inf, -1e300 * 1e300 AS ninf, NULL AS none_,"
           " x'00ff10' AS blob, '' AS empty,"
           " char(34, 92, 47, 8, 12, 10, 13, 9, 1, 31, 127)"
           "   || 'é😀' AS escapes,"
           " CAST(x'41ff42c0afed9fbff4908080f0808080' AS TEXT) AS bad_utf8,"
           " CAST(x'410042' AS TEXT) AS nul,"
           " 'x' AS \"we\"\"ird\n\"")
    out, _ = run(["--json", SESSION, sql])
    values = json_stream(out)
    check(len(values) == 1 and len(values[0]) == 1, "one array, one row")
    row = values[0][0]
    want = {
        "i": 42, "min": -2**63, "max": 2**63 - 1, "tenth": 0.1, "two": 2.0,
        "inf": None, "ninf": None, "none_": None, "blob": "00ff10",
        "empty": "",
        "escapes": "\"\\/\b\f\n\r\t\x01\x1f\x7fé😀",
        # 41 ff 42 c0 af ed9fbf f4908080 f0808080: A, bad, B, overlong
        # (2 bytes), U+D7FF, above U+10FFFF (4 bytes), overlong (4 bytes)
        "bad_utf8": "A\ufffdB\ufffd\ufffd\ud7ff" + "\ufffd" * 8,
        "nul": "A\x00B",
        "we\"ird\n": "x",
    }
    check(row == want, "JSON row %r, want %r" % (row, want))
    check(list(row) == list(want), "column order %r" % list(row))
    check(isinstance(row["two"], float) and b'"two":2.0' in out,
          "a whole REAL must stay a REAL: %r" % out)
    check(b"\\u0000" in out and b"\\u007f" in out and b"\\n" in out,
          "control characters escaped: %r" % out)

    # Every double reads back exactly.
    out, _ = run(["--json", SESSION, "SELECT 1.0/3 AS a, 1e-300 AS b,"
                  " 123456789012345678.0 AS c, -0.0 AS d, 5e-324 AS e"])
    row = json_stream(out)[0][0]
    check(row == {"a": 1.0 / 3, "b": 1e-300, "c": 123456789012345678.0,
                  "d": -0.0, "e": 5e-324}, "doubles %r" % row)


def case_json_rows():
    out, _ = run(["--json", SESSION, PER_COMM])
    values = json_stream(out)
    check(len(values) == 1, "one statement, one JSON document")
    got = {r["comm"]: r["faults"] for r in values[0]}
    check(got == dict(comm_counts()), "per-comm faults %r" % got)
    check(all(list(r) == ["comm", "faults"] for r in values[0]), "keys")

    # Several statements: one array each, in order; an empty result is [];
    # a statement without columns prints nothing.
    out, _ = run(["--json", SESSION,
                  "SELECT count(*) AS n FROM page_fault;"
                  " CREATE TEMP TABLE t(x);"
                  " SELECT * FROM sched_switch WHERE 0;"
                  " SELECT 'b' AS v UNION ALL SELECT 'a'"])
    values = json_stream(out)
    want_n = sum(comm_counts().values())
    check(values == [[{"n": want_n}], [], [{"v": "b"}, {"v": "a"}]],
          "statement stream %r" % values)


def case_csv():
    out, _ = run(["--csv", SESSION, PER_COMM])
    out_c, _ = run(["-c", SESSION, PER_COMM])
    check(out == out_c, "-c and --csv differ")
    rows = list(csv.reader(io.StringIO(out.decode())))
    check(rows[0] == ["comm", "faults"], "header %r" % rows[0])
    check({c: int(n) for c, n in rows[1:]} == dict(comm_counts()),
          "per-comm faults from CSV")

    out, _ = run(["-c", SESSION, "SELECT 'a,b' AS x, 'say \"hi\"' AS y,"
                  " 'two\nlines' AS z, NULL AS n, 1.5 AS r"])
    check(out == b'x,y,z,n,r\n"a,b","say ""hi""","two\nlines",,1.5\n',
          "CSV quoting %r" % out)
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    check(rows[1] == ["a,b", 'say "hi"', "two\nlines", "", "1.5"],
          "csv module reads %r" % rows)


def case_table():
    out, _ = run([SESSION, "SELECT 1 AS a, 'xy' AS bb, NULL AS c;"
                  "SELECT 12345 AS n"])
    # Columns of numbers (or only NULLs) align right, others left.
    want = ("a  bb     c\n"
            "-  --  ----\n"
            "1  xy  NULL\n"
            "\n"
            "    n\n"
            "-----\n"
            "12345\n")
    check(out.decode() == want, "table output %r" % out.decode())


def case_input_sources():
    sql = ("-- two statements\n"
           "SELECT count(*) AS n FROM page_fault;\n"
           ";\n"
           "SELECT 'done' AS status;  -- trailing comment\n")
    path = os.path.join(WORK, "query.sql")
    with open(path, "w") as f:
        f.write(sql)
    want, _ = run(["--json", SESSION, sql])
    check(json_stream(want) == [[{"n": sum(comm_counts().values())}],
                                [{"status": "done"}]], "argument %r" % want)
    for args, stdin in ((["-f", path], None), (["--file", path], None),
                        (["--file=" + path], None), ([], sql.encode()),
                        (["-"], sql.encode()), (["-f", "-"], sql.encode())):
        out, _ = run(["--json", SESSION] + args, stdin=stdin)
        check(out == want, "%r: %r" % (args, out))
    # Options may come after the session; "--" ends them.
    out, _ = run([SESSION, "--json", "-f", path])
    check(out == want, "options after the session")
    out, _ = run(["--json", "--", SESSION, "SELECT 1 AS one"])
    check(json_stream(out) == [[{"one": 1}]], "after --")
    # Empty input: nothing to run, nothing printed.
    out, _ = run([SESSION], stdin=b"  -- nothing\n")
    check(out == b"", "empty input printed %r" % out)


def case_errors():
    path = os.path.join(WORK, "bad.sql")
    with open(path, "w") as f:
        f.write("SELECT 1 AS one;\n\n  SELECT *\n  FROM no_such_table;\n"
                "SELECT 3;\n")
    out, err = run([SESSION, "-f", path], want_rc=1)
    check(out.decode() == "one\n---\n  1\n", "before the error %r" % out)
    check("statement 2 (line 3 of %s)" % path in err
          and "no such table: no_such_table" in err
          and "SELECT * FROM no_such_table" in err, "prepare error %r" % err)

    # An error while stepping names its statement too.
    _, err = run(["--csv", SESSION, "SELECT 1;\nSELECT 2;\n"
                  "SELECT abs(-9223372036854775808)"], want_rc=1)
    check("statement 3 (line 3 of the SQL argument): integer overflow" in err
          and "abs(-9223372036854775808)" in err, "step error %r" % err)

    _, err = run([SESSION], stdin=b"SELECT nonsense(1);", want_rc=1)
    check("statement 1 (line 1 of standard input)" in err
          and "no such function: nonsense" in err, "stdin error %r" % err)

    missing = os.path.join(WORK, "no-such.sql")
    _, err = run([SESSION, "-f", missing], want_rc=1)
    check(missing in err and "No such file" in err, "missing file %r" % err)

    _, err = run([SESSION, "-f", path, "SELECT 1"], want_rc=2)
    check("not both" in err, "file and argument %r" % err)
    _, err = run(["--tsv", SESSION, "SELECT 1"], want_rc=2)
    check("unknown option '--tsv'" in err, "unknown option %r" % err)
    _, err = run([SESSION, "-f"], want_rc=2)
    check("-f needs a file name" in err, "-f alone %r" % err)
    _, err = run([os.path.join(WORK, "no-such.trace"), "SELECT 1"],
                 want_rc=1)
    check("no-such.trace" in err, "bad session %r" % err)


CASES = {
    "json_values": case_json_values,
    "json_rows": case_json_rows,
    "csv": case_csv,
    "table": case_table,
    "input_sources": case_input_sources,
    "errors": case_errors,
}


def main():
    global TRACESTORE, FTRACE, WORK, SESSION
    if len(sys.argv) != 5 or sys.argv[4] not in CASES:
        print("usage: sql_cli_test.py TRACESTORE FTRACE WORK CASE (%s)"
              % " | ".join(CASES), file=sys.stderr)
        return 2
    TRACESTORE, FTRACE, WORK, case = sys.argv[1:]
    WORK = os.path.abspath(WORK)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    SESSION = os.path.join(WORK, "capture.trace")
    subprocess.run([TRACESTORE, "import", "-o", SESSION, FTRACE], check=True,
                   capture_output=True)
    try:
        CASES[case]()
    except TestFailure as e:
        print("FAIL: %s: %s" % (case, e), file=sys.stderr)
        return 1
    print("PASS: %s" % case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
