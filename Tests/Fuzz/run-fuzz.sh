#!/bin/sh
# run-fuzz.sh FUZZER WORKDIR SECONDS SEED...
# Runs one libFuzzer target for SECONDS on WORKDIR/corpus (seeded with the
# SEED files and the harness's own seeds, kept between runs), crash inputs
# to WORKDIR/artifacts/.
# Prints the closing statistics; exits non-zero on a finding.
set -eu
fuzzer=$1 work=$2 seconds=$3
shift 3
mkdir -p "$work/corpus" "$work/artifacts"
for s in "$@"; do
  [ -f "$s" ] || { echo "missing seed $s" >&2; exit 1; }
  cp "$s" "$work/corpus/seed-$(basename "$s")"
done
# The sessions go to tmpfs when there is one: a session closes with a flush,
# which a disk makes the slowest part of a run.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
# A harness that makes its own seeds (the session targets) writes them here.
export FUZZ_CORPUS="$work/corpus"
# -keep_seed: every seed stays in the corpus to be mutated, also those that
# reach no new code (each store file of the session targets' template).
# -timeout: an input that takes 10 s is a hang; -rss_limit_mb: runaway memory.
# FUZZ_SEED fixes libFuzzer's random seed (CI sets it, so that a run repeats
# the mutations of the last one, only more or fewer of them; 0: random).
exec "$fuzzer" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" \
  -keep_seed=1 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"
