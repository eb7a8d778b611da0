#!/usr/bin/env bash
# Runs each libFuzzer target of fuzz/ for SECONDS and prints, per target, the executions,
# the coverage reached and the corpus size; exits non-zero when a target finds a crash
# (its input is kept as BUILD/crashes/<target>-*). Called by `make fuzz`.
#   scripts/fuzz.sh BUILD SECONDS TARGET...
set -euo pipefail
build=$1 seconds=$2
shift 2
status=0
summary=()
for t in "$@"; do
  corpus="$build/corpus/$t" seeds="$build/seeds/$t" log="$build/fuzz_$t.log"
  mkdir -p "$corpus" "$build/crashes"
  echo "== fuzz_$t for ${seconds}s (log: $log)"
  set +e
  TENSORIR_FUZZ_MODEL="$build/seeds/model" "$build/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
    -rss_limit_mb=4096 -artifact_prefix="$build/crashes/$t-" "$corpus" "$seeds" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  units=$(ls "$corpus" | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "fuzz_$t: FAILED (exit $rc); the end of its log:"
    tail -40 "$log"
  fi
  summary+=("$(printf '%-18s %-6s %12s %8s %8s %8s' "fuzz_$t" "$([ $rc -eq 0 ] && echo ok || echo CRASH)" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "$units")")
done
printf '\n%-18s %-6s %12s %8s %8s %8s\n' target result executions cov features corpus
printf '%s\n' "${summary[@]}"
exit $status
