#
# views_oracle_lib.sh: shared parsing for the oracles of the view tests
# (Tests/ViewTests.cmake).  Sourced by NAME.oracle scripts after
# oracle_lib.sh.  Plain POSIX awk (Debian's mawk: no strtonum, no bit
# operations), reading the sample files and the kernel's headers: never
# the extension or the tracestore command.
#

DATA=$(dirname "$FTRACE")               # ../shared/data/capture-1
TESTDATA=$SQLDIR/../Data                # Tests/Data
KVMTRACE=$DATA/../kvmtrace              # ../shared/data/kvmtrace
ASM=/usr/include/x86_64-linux-gnu/asm   # linux-libc-dev

#
# awk functions, for awk -v lib="$AWKLIB" ... or as a prefix of a program.
#
AWKLIB='
function hex2dec(s,    i, c, v) {
    v = 0
    sub(/^0[xX]/, "", s)
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", tolower(substr(s, i, 1)))
        if (c == 0) return -1
        v = v * 16 + c - 1
    }
    return v
}
# Seconds with a fraction ("697.454819") to integer nanoseconds.
function ns(t,    sec, frac) {
    sub(/:$/, "", t)
    sec = t; frac = ""
    if (index(t, ".") > 0) {
        sec = substr(t, 1, index(t, ".") - 1)
        frac = substr(t, index(t, ".") + 1)
    }
    while (length(frac) < 9) frac = frac "0"
    return sec * 1000000000 + frac
}
# Bit b (0-based) of a non-negative integer.
function bit(v, b) {
    return int(v / 2 ^ b) % 2
}
# Sorts a[1..n] numerically (insertion sort: the groups are small).
function sortn(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) {
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
}
# Nearest-rank percentile p of the sorted a[1..n]: rank ceil(p*n/100).
function pct(a, n, p) {
    return a[int((p * n + 99) / 100)]
}
'

#
# Prints "CODE NAME" for every VMX exit reason of the kernel header.
#
vmx_reasons() {
    awk '/^#define EXIT_REASON_[A-Z0-9_]+[ \t]+[0-9]+[ \t]*$/ {
        name = $2; sub(/^EXIT_REASON_/, "", name); print $3, name }' "$ASM/vmx.h"
}

#
# Prints "CODE NAME" for the SVM exit reasons of the kernel header whose
# entry in SVM_EXIT_REASONS is a plain SVM_EXIT_* constant.
#
svm_reasons() {
    awk '
        /^#define[ \t]+SVM_EXIT_[A-Z0-9_]+[ \t]+0x[0-9a-fA-F]+/ {
            code[$2] = $3
        }
        /\{[ \t]*SVM_EXIT_[A-Z0-9_]+,[ \t]*"[^"]*"[ \t]*\}/ {
            line = $0
            sub(/.*\{[ \t]*/, "", line)
            sym = line; sub(/,.*/, "", sym)
            name = line; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
            if (sym in code) print code[sym], name
        }' "$ASM/svm.h" |
    awk "$AWKLIB"'{ printf "%.0f %s\n", hex2dec($1), substr($0, index($0, " ") + 1) }'
}

#
# Prints "NR NAME" for every system call of the kernel header.
#
syscalls() {
    awk '/^#define __NR_[a-z0-9_]+ [0-9]+$/ {
        name = $2; sub(/^__NR_/, "", name); print $3, name }' "$ASM/unistd_64.h"
}

#
# kvm_exit_rows FILE...: one line "reason|exit_code|dur" per kvm_exit
# event of tracefs or perf script text (dur empty when no kvm_entry of
# the same task follows in the same file before its next exit).
#
kvm_exit_rows() {
    awk "$AWKLIB"'
        FNR == 1 { for (t in pending) flush(t) }
        /^#/ { next }
        {
            j = 0; k = 0
            for (i = 1; i <= NF; i++) {
                if (k == 0 && $i ~ /^\[[0-9]+\]$/) k = i
                if ($i ~ /(^|:)kvm_(exit|entry):$/) { j = i; break }
            }
            if (j == 0 || k == 0) next
            tid = $(k - 1); sub(/.*-/, "", tid)
            ts = ns($(j - 1))
            if ($j ~ /kvm_entry:$/) {
                if (tid in pending) {
                    print reason[tid] "|" code[tid] "|" sprintf("%.0f", ts - start[tid])
                    delete pending[tid]
                }
                next
            }
            if (tid in pending) flush(tid)
            r = ""; c = ""
            for (i = j + 1; i < NF; i++) if ($i == "reason") { r = $(i + 1); break }
            if (r ~ /^0x[0-9a-fA-F]+$/) c = sprintf("%.0f", hex2dec(r))
            else if (r ~ /^[0-9]+$/) c = sprintf("%.0f", r)
            else if (r == "UNKNOWN" && $(i + 2) ~ /^\([0-9]+\)$/) {
                c = $(i + 2); gsub(/[()]/, "", c); c = sprintf("%.0f", c)
            }
            pending[tid] = 1; reason[tid] = r; code[tid] = c; start[tid] = ts
        }
        function flush(t) {
            print reason[t] "|" code[t] "|"
            delete pending[t]
        }
        END { for (t in pending) flush(t) }' "$@"
}

#
# kvmtrace_exit_rows: the same from the seed's text of the kvmtrace sample
# (sample.expected.txt): VMEXIT pairs with the next VMENTRY of the same
# (pid, vcpu); a record printed with TSC 0 has none and takes the last one.
#
kvmtrace_exit_rows() {
    awk "$AWKLIB"'
        {
            if ($1 != 0) last = $1
            ts = last
            for (e = 2; e < NF && $e !~ /\)$/; e++) {}
            ev = $(e + 1)
            if (ev != "VMEXIT" && ev != "VMENTRY") next
            key = $(e + 4) " " $(e + 7)
            if (ev == "VMENTRY") {
                if (key in pending) {
                    print reason[key] "|" code[key] "|" sprintf("%.0f", ts - start[key])
                    delete pending[key]
                }
                next
            }
            if (key in pending) flush(key)
            for (x = e; x < NF && $x != "exitcode"; x++) {}
            r = $(x + 2); sub(/,$/, "", r)
            pending[key] = 1; reason[key] = r; code[key] = sprintf("%.0f", hex2dec(r))
            start[key] = ts
        }
        function flush(k) {
            print reason[k] "|" code[k] "|"
            delete pending[k]
        }
        END { for (k in pending) flush(k) }' "$@"
}

#
# kvm_exit_histogram: reads "reason|exit_code|dur" lines and prints the
# kvm_exit_reasons columns reason|exit_code|vmx_name|svm_name|count|
# unpaired|total_dur|min_dur|max_dur|p50_dur|p90_dur|p99_dur, sorted by
# reason then exit_code (no code first), NULL as empty.
#
kvm_exit_histogram() {
    vmx_reasons > vmx.map
    svm_reasons > svm.map
    awk -F'|' "$AWKLIB"'
        FILENAME == "vmx.map" { split($0, w, " "); vmx[w[1]] = w[2]; next }
        FILENAME == "svm.map" { svm[substr($0, 1, index($0, " ") - 1)] = substr($0, index($0, " ") + 1); next }
        {
            g = $1 "|" $2
            if (!(g in count)) { groups[++ng] = g; rs[g] = $1; cs[g] = $2 }
            count[g]++
            if ($3 == "") { unpaired[g]++; next }
            n[g]++; d[g, n[g]] = $3 + 0
        }
        END {
            for (gi = 1; gi <= ng; gi++) {
                g = groups[gi]; r = rs[g]; c = cs[g]
                v = ""; s = ""
                if (c != "" && (r ~ /^0x/ || r ~ /^[0-9]/ || r == "UNKNOWN")) {
                    b = sprintf("%.0f", c % 65536)
                    if (b in vmx) { v = vmx[b]; if (c >= 2147483648) v = v " FAILED_VMENTRY" }
                    if (c in svm) s = svm[c]
                }
                m = n[g] + 0
                for (i = 1; i <= m; i++) a[i] = d[g, i]
                sortn(a, m)
                tot = ""; lo = ""; hi = ""; p50 = ""; p90 = ""; p99 = ""
                if (m > 0) {
                    tot = 0; for (i = 1; i <= m; i++) tot += a[i]
                    tot = sprintf("%.0f", tot); lo = sprintf("%.0f", a[1]); hi = sprintf("%.0f", a[m])
                    p50 = sprintf("%.0f", pct(a, m, 50)); p90 = sprintf("%.0f", pct(a, m, 90))
                    p99 = sprintf("%.0f", pct(a, m, 99))
                }
                key = (c == "") ? -1 : c
                printf "%s|%.0f|%s|%s|%s|%s|%d|%d|%s|%s|%s|%s|%s|%s\n", r, key, r, c, v, s,
                       count[g], unpaired[g] + 0, tot, lo, hi, p50, p90, p99
            }
        }' vmx.map svm.map - |
    sort -t'|' -k1,1 -k2,2n | cut -d'|' -f3-
}

#
# kvm_oracle FILE...: the histogram of tracefs / perf script text.
#
kvm_oracle() {
    kvm_exit_rows "$@" | kvm_exit_histogram
}

#
# uftrace_self_time DIR: "name|calls|total_dur|self_dur|max_dur|max_depth"
# per function of a uftrace record directory, from `uftrace dump`'s entry
# and exit records: a stack per task; a call's self time is its duration
# minus that of the calls it made directly; the total counts only calls
# with no call of the same function below them on their task's stack
# (uftrace report's rule for recursion).  Sorted by name.
#
uftrace_self_time() {
    uftrace dump -d "$1" 2>/dev/null | awk "$AWKLIB"'
        $3 == "[entry]" || ($3 == "[exit" && $4 == "]") {
            ts = ns($1)
            tid = $2; sub(/:$/, "", tid)
            name = ($3 == "[entry]") ? $4 : $5
            sub(/\(.*/, "", name)
            if ($3 == "[entry]") {
                d = ++depth[tid]
                start[tid, d] = ts; fn[tid, d] = name; child[tid, d] = 0
                next
            }
            d = depth[tid]--
            dur = ts - start[tid, d]
            f = fn[tid, d]
            inner = 0
            for (i = 1; i < d; i++) if (fn[tid, i] == f) inner = 1
            calls[f]++; self[f] += dur - child[tid, d]
            if (!inner) total[f] += dur
            if (dur > max[f]) max[f] = dur
            if (d - 1 > maxdepth[f] || !(f in maxdepth)) maxdepth[f] = d - 1
            if (d > 1) child[tid, d - 1] += dur
        }
        END {
            for (f in calls)
                printf "%s|%d|%.0f|%.0f|%.0f|%d\n", f, calls[f], total[f], self[f], max[f], maxdepth[f]
        }' | sort -t'|' -k1,1
}
