#!/usr/bin/env bash
# Differential check of `decodeprof summarize` against seed_summarize.py, the spec-derived
# re-implementation of the seed's `rocm_decode_profile.py summarize`.
#
# usage: compare_with_seed.sh DECODEPROF GEN_TRACE [WORK_DIR]
#   DECODEPROF  the decodeprof binary
#   GEN_TRACE   bench/decodeprof_gen_trace (synthetic rocprofv3 decode runs)
#   WORK_DIR    where inputs and both sides' outputs go; emptied first and always kept
#               (default: a fresh temp dir, removed on success and kept on failure)
#
# Cases: the generator's 3 models x {greedy; t0.7; t0.7 top-p 0.95} with 16 tokens, plus the
# hand-made edge cases and seeded random runs of make_edge_cases.py. For each case both summarizers run on the same
# command line; the summary JSON (minus decodeprof's extra keys, see compare_outputs.py) and
# the decode kernel CSV must match byte for byte; `fail` cases must be rejected by both.
# Prints one PASS/FAIL line per case with the first differing lines; exits 1 on any FAIL.
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 DECODEPROF GEN_TRACE [WORK_DIR]" >&2
  exit 2
fi
decodeprof=$(realpath -- "$1")
gen=$(realpath -- "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON3:-python3}
export PYTHONDONTWRITEBYTECODE=1
for f in "$decodeprof" "$gen"; do
  if [[ ! -x $f ]]; then
    echo "$0: not an executable: $f" >&2
    exit 2
  fi
done
if [[ $# -eq 3 ]]; then
  work=$3
  rm -rf "$work"
  mkdir -p "$work"
  keep=1
else
  work=$(mktemp -d -t decodeprof-seed-compare.XXXXXX)
  keep=0
fi

pass=0
fail=0
failed=()

# run_case NAME CASE_DIR EXPECT ARGS... : runs both sides in CASE_DIR and compares.
run_case() {
  local name=$1 dir=$2 expect=$3
  shift 3
  local oracle_rc dp_rc
  (cd "$dir" && "$python" "$here/seed_summarize.py" summarize --name "$name" \
     --out-dir out_seed "$@" >seed.stdout 2>seed.stderr)
  oracle_rc=$?
  (cd "$dir" && "$decodeprof" summarize --quiet --name "$name" --out-dir out_dp "$@" \
     >dp.stdout 2>dp.stderr)
  dp_rc=$?
  if [[ $expect == fail ]]; then
    # 126/127: the binary did not run at all, which is no rejection.
    if [[ $oracle_rc -ne 0 && $dp_rc -ne 0 && $dp_rc -lt 126 ]]; then
      echo "PASS $name (both reject: seed rc=$oracle_rc, decodeprof rc=$dp_rc)"
      echo "  seed:       $(tail -n 1 "$dir/seed.stderr")"
      echo "  decodeprof: $(tail -n 1 "$dir/dp.stderr")"
      pass=$((pass + 1))
    else
      echo "FAIL $name (expected both to reject: seed rc=$oracle_rc, decodeprof rc=$dp_rc)"
      fail=$((fail + 1))
      failed+=("$name")
    fi
    return
  fi
  if [[ $oracle_rc -ne 0 ]]; then
    echo "FAIL $name (seed_summarize.py failed, rc=$oracle_rc)"
    sed 's/^/    /' "$dir/seed.stderr" | tail -n 5
    fail=$((fail + 1))
    failed+=("$name")
    return
  fi
  if [[ $dp_rc -ne 0 ]]; then
    echo "FAIL $name (decodeprof failed, rc=$dp_rc)"
    sed 's/^/    /' "$dir/dp.stderr" | tail -n 5
    fail=$((fail + 1))
    failed+=("$name")
    return
  fi
  local report
  report=$("$python" "$here/compare_outputs.py" "$dir/out_seed" "$dir/out_dp" "$name")
  local rc=$?
  # The one-line stdout summary must agree as well.
  if ! cmp -s "$dir/seed.stdout" "$dir/dp.stdout"; then
    report+=$'\n'"  stdout: seed '$(head -c 300 "$dir/seed.stdout")' vs decodeprof '$(head -c 300 "$dir/dp.stdout")'"
    rc=1
  fi
  if [[ $rc -eq 0 ]]; then
    echo "PASS $name"
    pass=$((pass + 1))
  else
    echo "FAIL $name"
    fail=$((fail + 1))
    failed+=("$name")
  fi
  [[ -n $report ]] && echo "$report"
}

# 1. Generated runs.
for model in llama qwen3-moe mamba2-hybrid; do
  for sampling in "greedy 0 1.0" "t0.7 0.7 1.0" "t0.7-p0.95 0.7 0.95"; do
    read -r tag temp top_p <<<"$sampling"
    name="gen_${model}_${tag}"
    dir="$work/$name"
    mkdir -p "$dir"
    if ! "$gen" --model "$model" --name "$name" --out-dir "$dir" --tokens 16 \
         --temperature "$temp" --top-p "$top_p" >"$dir/gen.stdout" 2>&1; then
      echo "FAIL $name (generator failed)"
      sed 's/^/    /' "$dir/gen.stdout" | tail -n 5
      fail=$((fail + 1))
      failed+=("$name")
      continue
    fi
    run_case "$name" "$dir" ok --trace "${name}_kernel_trace.csv" --log "${name}_bench.log" \
      --plain-log "${name}_plain_bench.log" --model-dir "${name}_model" --temperature "$temp"
  done
done

# 2. Hand-made edge cases.
if ! "$python" "$here/make_edge_cases.py" "$work/edge"; then
  echo "FAIL make_edge_cases.py"
  fail=$((fail + 1))
  failed+=("make_edge_cases")
else
  for dir in "$work"/edge/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    mapfile -t args <"$dir/args"
    run_case "$name" "$dir" "$(cat "$dir/expect")" --trace trace.csv --log bench.log \
      "${args[@]}"
  done
fi

echo "seed comparison: $pass passed, $fail failed"
if [[ $fail -ne 0 ]]; then
  echo "failed: ${failed[*]}"
  echo "inputs and outputs kept in $work"
  exit 1
fi
[[ $keep -eq 0 ]] && rm -rf "$work"
exit 0
