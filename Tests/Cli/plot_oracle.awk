# plot_oracle.awk: what `tracestore plot --summary` must count, read from
# `perf script -F comm,pid,tid,time,event,addr,ip,sym,dso` text of
# major-faults/minor-faults samples (perf record -d).  An oracle for
# Tests/Cli/plot_perf.sh, independent of the store: it reads the text.
#
# usage: awk -v by=process|module|thread [-v p=ERE] [-v m=ERE] \
#            [-v from=S] [-v to=S] -f plot_oracle.awk SCRIPT.txt SCRIPT.txt
# (the text twice: the first pass learns each process's name, the comm of
# its first sample, as the process store records it for perf text)
#
# Prints one line per category, sorted: KEY TAB hard TAB soft TAB faults,
# KEY being the pid, the tid, or the data address's dso (the `module`
# column; "(no module)" when perf printed none); then "total" the same.
# major-faults are hard, minor-faults soft, any other fault event (e.g.
# page-faults) counts in faults only.  -p matches the process name or the
# sample's own comm (anywhere in it, as regexec), -m the dso; a sample
# without a dso never matches -m.  from/to keep the samples from S to S
# seconds after the first start of a process that has a sample through -p
# and -m (a process starts at its first sample in perf text).
{
    for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) break
    if (i > NF) next
    comm = $1
    for (k = 2; k < i; k++) comm = comm " " $k
    split($i, pt, "/")
    pid = pt[1]; tid = pt[2]
    ev = $(i + 2); sub(/:$/, "", ev)
    ts = $(i + 1); sub(/:$/, "", ts); t = ts + 0   # ts: the digits, kept
    if (ev !~ /faults$/) next
    if (NR == FNR) {
        if (!(pid in name)) { name[pid] = comm; start[pid] = t }
        next
    }
    rest = $0
    sub(/^.*(major|minor|page)-faults: */, "", rest)
    dso = "(no module)"; has = 0
    if (match(rest, /\([^()]*\)/)) {
        dso = substr(rest, RSTART + 1, RLENGTH - 2); has = 1
    }
    if (p != "" && name[pid] !~ p && comm !~ p) next
    if (m != "" && (!has || dso !~ m)) next
    if (!(pid in seen)) {
        seen[pid] = 1
        if (origin == "" || start[pid] < origin) origin = start[pid]
    }
    line[++nl] = ts "\t" key_of(pid, tid, dso) "\t" ev
}
function key_of(pid, tid, dso) {
    return (by == "process") ? pid : (by == "thread") ? tid : dso
}
END {
    for (j = 1; j <= nl; j++) {
        split(line[j], f, "\t")
        if (from != "" && f[1] - origin < from) continue
        if (to != "" && f[1] - origin > to) continue
        count(f[2], f[3])
    }
    for (k in n) if (k != "total") printf "%s\t%d\t%d\t%d\n", k, hard[k], soft[k], n[k] | "LC_ALL=C sort"
    close("LC_ALL=C sort")
    printf "total\t%d\t%d\t%d\n", hard["total"], soft["total"], n["total"]
}
function count(key, ev) {
    n[key]++; n["total"]++
    if (ev == "major-faults") { hard[key]++; hard["total"]++ }
    if (ev == "minor-faults") { soft[key]++; soft["total"]++ }
}
