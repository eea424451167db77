#!/usr/bin/env bash
# The same Llama decode recorded by torch.profiler and by `decodeprof record`, both summarized
# by decodeprof (the Kineto importer against the native importer), for the GPU machine (never
# in CI).
#
# usage: tests/gpu/kineto_crosscheck.sh STAGE_DIR        (STAGE_DIR as for record_h200.sh)
#   STEPS (default 16): decode steps per run. Results in $OUT (default /tmp/kineto-out):
#   run.log, report.md (`decodeprof report --full` over both summaries), crosscheck.json
#   (record_crosscheck.py: kernel names and counts per step, kernel time), summaries.tar.gz
#   and torch_trace.json.xz (the Kineto trace, for the importer's tests on the dev machine).
set -u
OUT=${OUT:-/tmp/kineto-out}
STEPS=${STEPS:-16}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
dp_start "$1"
TMP=$(mktemp -d /tmp/kineto.XXXXXX)
cd "$HERE" || exit 1

# One torch.profiler run (CPU + CUDA activity, record_function ranges decodeprof:decode and
# decodeprof:step) after an unprofiled warm-up; the same under decodeprof with a plain run.
timeout 200 python3 record_decode.py --runs torchprof --steps "$STEPS" \
  --torch-trace "$TMP/torch_trace.json" --out "$TMP/torch.json"
echo "torch.profiler run exit: $?"
timeout 200 "$DP" record -o "$TMP/decodeprof.sqlite" -- python3 record_decode.py --runs plain \
  --steps "$STEPS" --out "$TMP/decodeprof.json"
echo "decodeprof record run exit: $?"
ls -la "$TMP"

mkdir -p "$TMP/sum"
TIMEV=(); [ -x /usr/bin/time ] && TIMEV=(/usr/bin/time -v)
start=$(date +%s.%N)
"${TIMEV[@]}" "$DP" summarize --trace "$TMP/torch_trace.json" --format kineto-json \
  --name torch-profiler --out-dir "$TMP/sum" 2> "$TMP/kineto_time.txt"
echo "summarize kineto exit: $? after $(echo "$(date +%s.%N) - $start" | bc 2>/dev/null) s"
grep -E "Elapsed|Maximum resident|decodeprof" "$TMP/kineto_time.txt"
"$DP" summarize --trace "$TMP/decodeprof.sqlite" --name decodeprof-record --out-dir "$TMP/sum"
echo "summarize native exit: $?"
"$DP" report --full "$TMP/sum" > "$OUT/report.md"
echo "report exit: $?"
head -30 "$OUT/report.md"
# decodeprof's trace holds the warm-up run first: skip its steps.
python3 record_crosscheck.py "$TMP/decodeprof.sqlite" "$TMP/torch_trace.json" \
  "$OUT/crosscheck.json" "$STEPS"
echo "crosscheck exit: $?"
for f in "$TMP/sum"/* "$OUT/report.md" "$OUT/crosscheck.json"; do
  dp_scrub "$f" "$(cd "$HERE/../.." && pwd)/" "$TMP/"
done
(cd "$TMP/sum" && tar czf "$OUT/summaries.tar.gz" .)
xz -T0 -6 -c "$TMP/torch_trace.json" > "$OUT/torch_trace.json.xz"
ls -la "$OUT"
