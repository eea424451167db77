#!/usr/bin/env bash
# The H200 decode-profile campaign (issue 5) or one part of it, on the GPU machine (never in
# CI): `decodeprof profile` over the given models x {greedy, t0.7, t0.7 p0.95}, prompt 512,
# 20 warmup tokens, 128 generated tokens, guard with --idle-secs 5 (a dedicated GPU).
#
# usage: COMMIT=<8 hex> PART=<label> tests/gpu/campaign_h200.sh STAGE_DIR MODEL...
#   STAGE_DIR holds decodeprof, libdecodeprof_cupti.so and libsqlite3.so.0 built on the
#   development machine (as for tests/gpu/record_h200.sh). MODEL: llama qwen3-moe granite
#   nemotron; each becomes a directory named as the published model, holding its config.json
#   (examples/hf_decode/configs), so that run names are the published names.
#   COMMIT: the commit the stage was built from (the device's copy has no git history).
#   SAMPLING: the settings (default "0 0.7 0.7:0.95"); TOKENS/WARMUP/PROMPT override the shape.
#   BENCH_EXTRA: more hf_decode.py flags for every run (e.g. "--sdpa-backend flash"), with
#   NAME_SUFFIX appended to each model directory's name (so to the run names), e.g. "-sdpa-flash".
#   KEEP_TRACES=1: also bring back the recorded traces (traces_<PART>.tar.xz: <run>/<run>.sqlite
#   with the local paths removed from meta.command), e.g. for examples/data.
# Results in $OUT (default /tmp/campaign-out): run.log, report_<PART>.md (`decodeprof report
# --full`), results_<PART>.tar.gz (the published files of `decodeprof profile`: summaries,
# decode kernel tables, bench logs, guard log renamed guard_<PART>.log, provenance_<PART>.txt).
set -u
STAGE_ARG=$1; shift
MODELS_WANTED="${*:-llama qwen3-moe granite nemotron}"
OUT=${OUT:-/tmp/campaign-out}
PART=${PART:-all}
COMMIT=${COMMIT:-unknown}
SAMPLING=${SAMPLING:-"0 0.7 0.7:0.95"}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/common.sh"
dp_start "$STAGE_ARG"

WORK=$(mktemp -d /tmp/campaign.XXXXXX)
mkdir -p "$WORK/models" "$WORK/results"
model_dirs=()
for m in $MODELS_WANTED; do
  case $m in
    llama) name=Llama-3.1-8B-Instruct ;;
    qwen3-moe) name=Qwen3-30B-A3B ;;
    granite) name=granite-4.0-h-tiny ;;
    nemotron) name=NVIDIA-Nemotron-3-Nano-30B-A3B ;;
    *) echo "campaign: unknown model $m" >&2; exit 2 ;;
  esac
  name="$name${NAME_SUFFIX:-}"
  mkdir -p "$WORK/models/$name"
  cp "$ROOT/examples/hf_decode/configs/$m.json" "$WORK/models/$name/config.json"
  model_dirs+=(--model "$WORK/models/$name")
done
sampling_args=()
for s in $SAMPLING; do sampling_args+=(--sampling "$s"); done

{
  echo "part: $PART"
  echo "commit: $COMMIT"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__)'
  echo "CUPTI: $DECODEPROF_CUPTI_LIB"
  echo "models: $MODELS_WANTED; sampling: $SAMPLING"
  echo "hf_decode.py extra flags: ${BENCH_EXTRA:-none}"
  echo "command: decodeprof profile --idle-secs 5 ${sampling_args[*]} --tokens ${TOKENS:-128} --warmup-tokens ${WARMUP:-20} --prompt-tokens ${PROMPT:-512} --model <models>/<name> ... -- python3 examples/hf_decode/hf_decode.py"
} > "$WORK/results/provenance_$PART.txt"
cat "$WORK/results/provenance_$PART.txt"

cd "$ROOT" || exit 1
start=$(date +%s)
"$DP" profile --idle-secs 5 "${sampling_args[@]}" \
  --tokens "${TOKENS:-128}" --warmup-tokens "${WARMUP:-20}" --prompt-tokens "${PROMPT:-512}" \
  --out "$WORK/results" --trace-dir "$WORK/traces" "${model_dirs[@]}" \
  --bench-args '-m {model}/config.json -p profile -n {tokens} --warmup-tokens {warmup}
                --ignore-eos --prompt-tokens {prompt} --temperature {temperature} --top-p {top_p}'" ${BENCH_EXTRA:-}" \
  -- python3 examples/hf_decode/hf_decode.py
status=$?
echo "profile exit: $status after $(($(date +%s) - start)) s"

# The published files name no local path: the profile scrubs its trace directory; the
# copy's root and the work directory are replaced here too (no git checkout on this machine).
[ -f "$WORK/results/guard.log" ] && mv "$WORK/results/guard.log" "$WORK/results/guard_$PART.log"
for f in "$WORK/results"/*; do
  dp_scrub "$f" "$ROOT/" "$WORK/"
done
if grep -l -e "$ROOT" -e "$WORK" "$WORK/results"/* 2>/dev/null; then
  echo "campaign: a local path is left in the files above" >&2
fi
"$DP" report --full "$WORK/results" > "$OUT/report_$PART.md" 2> "$OUT/report_$PART.err" ||
  "$DP" report "$WORK/results" > "$OUT/report_$PART.md"
cat "$OUT/report_$PART.md" | head -40
(cd "$WORK/results" && tar czf "$OUT/results_$PART.tar.gz" .)
if [ "${KEEP_TRACES:-0}" = 1 ] && [ -d "$WORK/traces" ]; then
  # A trace's meta.command names the paths it ran with: drop the copy's root and the work dir.
  python3 - "$ROOT/" "$WORK/" "$WORK/traces" <<'PY'
import pathlib, sqlite3, sys
root, work, traces = sys.argv[1:4]
for path in sorted(pathlib.Path(traces).rglob("*.sqlite")):
    db = sqlite3.connect(path)
    for key, value in db.execute("select key, value from meta").fetchall():
        if isinstance(value, str) and (root in value or work in value):
            db.execute("update meta set value = ? where key = ?",
                       (value.replace(root, "").replace(work, "<work>/"), key))
    db.commit()
    db.execute("vacuum")
    db.close()
PY
  (cd "$WORK/traces" && tar cJf "$OUT/traces_$PART.tar.xz" --exclude='*-journal' --exclude='*-wal' .)
  du -a "$WORK/traces"
fi
ls -la "$WORK/results"
exit $status
