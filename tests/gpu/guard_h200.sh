#!/usr/bin/env bash
# tests/gpu/guard_h200.sh — `decodeprof guard` on an NVIDIA GPU (issue 3 acceptance).
# Runs on the GPU machine, never in CI. Needs python3 with PyTorch and a CUDA GPU.
#
#   tests/gpu/guard_h200.sh [TRIALS]        (default 3)
#
# DECODEPROF_BIN names the binary (default build/guard-release/src/cli/decodeprof); results
# go to $OUT (default /tmp/guard-h200): summary.txt and guard_h200_logs.tar.gz (every
# guard log, its stderr with arrival times, and the environment).
#
# 1. alone: a guarded PyTorch job with the GPU to itself runs CLEAN; `--gpu auto` says it
#    picked nvidia; the clean samples list the job's own process (NVML sees it, ancestry
#    clears it).
# 2. intruder, TRIALS times: while a guarded job runs, a second CUDA process starts; the
#    monitor must report it (CONTENDED foreign_gpu=[<its pid>:python3]), the attempt is
#    REJECTED and rerun, and the rerun is CLEAN. Detection latency = arrival of the first
#    CONTENDED line minus the moment the intruder's CUDA context existed.
# Exit 0 when every check passed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

trials=${1:-3}
bin=${DECODEPROF_BIN:-build/guard-release/src/cli/decodeprof}
out=${OUT:-/tmp/guard-h200}
work=tests/gpu/guard_h200_work.py
logs=$(mktemp -d)
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
failures=0

say() { echo "$*" | tee -a "$summary"; }
check() {  # check <description> <command...>
  local what=$1
  shift
  if "$@"; then say "PASS $what"; else say "FAIL $what"; failures=$((failures + 1)); fi
}

export DECODEPROF_GUARD_LOCK=$logs/guard.lock  # private: other users' guards are not ours
unset DECODEPROF_GUARD_LOCK_HELD DECODEPROF_GUARD_KFD_DIR DECODEPROF_GUARD_COMPILER_RE

{
  uname -a
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version,utilization.gpu --format=csv
  echo "--- ldd $bin"
  ldd "$bin"
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name())'
} >"$logs/env.txt" 2>&1

# Runs the guard with its stderr (and the job's output) time-stamped line by line.
# guarded <name> <guard options...> -- <command...>; status in $logs/<name>.rc
guarded() {
  local name=$1
  shift
  "$bin" guard "$@" 2>&1 | python3 -u "$work" stamp >"$logs/$name.stderr"
  echo "${PIPESTATUS[0]}" >"$logs/$name.rc"
}

# ---- 1. alone ------------------------------------------------------------------------------
say "== alone"
guarded alone --idle-secs 3 --max-attempts 1 --log "$logs/alone.log" -- python3 "$work" work 8
check "alone: exit 0" test "$(cat "$logs/alone.rc")" = 0
check "alone: auto picked nvidia" grep -q 'gpu auto: picked nvidia (NVML' "$logs/alone.stderr"
check "alone: attempt 1 CLEAN" grep -q 'attempt 1: CLEAN, exit 0' "$logs/alone.stderr"
check "alone: no CONTENDED" bash -c "! grep -q CONTENDED '$logs/alone.stderr'"
check "alone: clean samples list the job's own process" \
  grep -Eq 'clean gpu=\[[0-9]+:python3' "$logs/alone.log"
say "alone: $(grep -o 'monitor: [0-9]* samples' "$logs/alone.stderr")"

# ---- 2. intruder ---------------------------------------------------------------------------
for trial in $(seq 1 "$trials"); do
  say "== intruder trial $trial"
  name=intruder$trial
  ready=$logs/$name.ready
  guarded "$name" --idle-secs 2 --max-attempts 2 --log "$logs/$name.log" \
    -- python3 "$work" work 12 &
  guard_job=$!
  for _ in $(seq 1 600); do
    grep -q 'attempt 1/2: start' "$logs/$name.stderr" 2>/dev/null && break
    kill -0 "$guard_job" 2>/dev/null || break
    sleep 0.1
  done
  sleep 2
  python3 "$work" intrude 5 "$ready" >"$logs/$name.intruder.out" 2>&1 &
  intruder_job=$!
  wait "$intruder_job"
  wait "$guard_job"
  read -r intruder_pid ready_at <"$ready" || { intruder_pid=none; ready_at=0; }
  check "$name: exit 0 after the rerun" test "$(cat "$logs/$name.rc")" = 0
  check "$name: intruder reported" \
    grep -q "CONTENDED foreign_gpu=\[.*$intruder_pid:python3" "$logs/$name.stderr"
  check "$name: attempt 1 REJECTED" \
    grep -q 'attempt 1: REJECTED (contended), exit 0; rerunning' "$logs/$name.stderr"
  check "$name: attempt 2 CLEAN" grep -q 'attempt 2: CLEAN, exit 0' "$logs/$name.stderr"
  first=$(grep -m1 'CONTENDED' "$logs/$name.stderr" | cut -d' ' -f1)
  if [ -n "$first" ]; then
    latency=$(python3 -c "print(f'{$first - $ready_at:.3f}')")
    say "$name: intruder pid $intruder_pid ready at $ready_at, first CONTENDED at $first: detection latency ${latency}s"
  fi
done

say "== $failures failure(s)"
tar -czf "$out/guard_h200_logs.tar.gz" -C "$logs" --exclude=guard.lock .
exit $((failures != 0))
