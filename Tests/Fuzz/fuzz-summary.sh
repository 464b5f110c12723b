#!/bin/sh
# fuzz-summary.sh LOG...
# One Markdown table row per libFuzzer run found in the output of
# run-fuzz.sh, as `ctest --test-dir build-fuzz -L fuzz -V` prints it (one
# log for all targets, or one per target): target, seconds, executions,
# exec/s, corpus files and bytes, coverage (edges, features) at the end,
# peak RSS, and whether there was a finding (a crash, leak, timeout,
# out-of-memory or sanitizer report; slow units are not findings).
echo "| target | s | runs | exec/s | corpus (files / size) | edges | features | peak RSS MB | findings |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
awk '
  function flush(){
    if( name=="" ) return
    split(corp, c, "/")
    printf "| %s | %s | %s | %s | %s / %s | %s | %s | %s | %s |\n", name, secs, runs, eps, c[1], c[2], cov, ft, rss, bad ? "see log" : "none"
    name = ""; cov = ft = corp = runs = eps = rss = ""; bad = 0
  }
  { sub(/^[0-9]+: /, ""); gsub(/"/, "") }
  /run-fuzz.sh/ {
    for(i=1;i<=NF;i++) if($i ~ /\/fuzz_[a-z_]+$/){ flush(); n=$i; sub(/.*\/fuzz_/, "", n); name=n; secs=$(i+2) }
  }
  / cov: / { for(i=1;i<=NF;i++){ if($i=="cov:") cov=$(i+1); if($i=="ft:") ft=$(i+1); if($i=="corp:") corp=$(i+1) } }
  /^stat::number_of_executed_units:/ { runs=$2 }
  /^stat::average_exec_per_sec:/ { eps=$2 }
  /^stat::peak_rss_mb:/ { rss=$2 }
  /==ERROR|runtime error|written to .*\/(crash|leak|timeout|oom)-|\*\*\*Failed/ { bad++ }
  END { flush() }' "$@"
