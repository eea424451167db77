#!/usr/bin/env bash
# Issue 23's H200 acceptance in one call: decode loops in the styles real engines use, each
# recorded once with step marks and summarized again with every range deleted
# (tests/gpu/finder_h200.sh: torch.compile reduce-overhead and eager decodes whose step never
# synchronizes, warm-up + three generate calls with prefills between; a CUDA C++ program
# replaying one graph a token; one launching ~500 kernels a token, reading the token back),
# checked by window_check.py --expect-runs (forward passes, GPU ms per forward pass within 1 %
# of the marked figure, the runs counted, the method named); then llama.cpp, a C++ engine
# nobody here wrote, with and without CUDA graphs (tests/gpu/llama_finder_h200.sh: the window
# against llama-decode's own timing). Its build runs on the CPUs while the first part runs.
#
# usage: tests/gpu/finder_final_h200.sh STAGE_DIR ENGINE_DIR   (as the two scripts above)
# Results in $OUT (8 files): pt_compile, pt_eager, cpp_graph and llama_graph .sqlite.xz,
# summaries.tar.xz, llama.tar.xz, window_check.json and run.log.
set -u
OUT=${OUT:-/tmp/finder-final-out}
export OUT
HERE=$(cd "$(dirname "$0")" && pwd)
STAGE=$(cd "$1" && pwd) || exit 2
ENGINE=$(cd "$2" && pwd) || exit 2
mkdir -p "$OUT"
# llama.cpp's build first, in the background (CPU only; llama_finder_h200.sh resumes it).
(JOBS=12 MODELS=llama-3.2-1b:f16 SKIP_SMOKE=1 BUILD_TIMEOUT=400 \
   bash "$ENGINE/build_and_run.sh" /tmp/llama-work > /tmp/llama-prebuild.log 2>&1) &
prebuild=$!
DEADLINE=${DEADLINE:-360} bash "$HERE/finder_h200.sh" "$STAGE"
W=$(mktemp -d /tmp/wc.XXXXXX)
for f in pt_compile:4 pt_eager:4 cpp_graph:3 cpp_eager:3; do
  name=${f%%:*}
  [ -s "$OUT/$name.sqlite.xz" ] || continue
  xz -dc "$OUT/$name.sqlite.xz" > "$W/$name.sqlite"
  timeout 120 python3 "$HERE/window_check.py" "$STAGE/decodeprof" "$name" "$W/$name.sqlite" \
    "$W/out" --expect-runs "${f##*:}" > "$W/$name.json"
  echo "window_check $name: exit $? $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], d.get("checks"), d.get("gpu_ms_per_forward_pass_rel_diff"))' "$W/$name.json")" | tee -a "$OUT/run.log"
done
python3 - "$W" "$OUT/window_check.json" <<'PY'
import glob, json, os, sys
rows = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
PY
rm -f "$OUT/cpp_eager.sqlite.xz"   # 8 files come back; the C++ eager trace is the largest
wait "$prebuild"
echo "llama.cpp prebuild: exit $? ($(tail -n 1 /tmp/llama-prebuild.log))" | tee -a "$OUT/run.log"
TRACES_OUT=llama_graph bash "$HERE/llama_finder_h200.sh" "$STAGE" "$ENGINE"
rm -rf "$W"
ls -la "$OUT"
