#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS on a machine with many cores (the GPU machine's 16;
# its GPU is not used), from fuzz binaries built here (the fuzz preset) and carried packed.
#
# usage: tests/gpu/fuzz_many_cores.sh STAGE_DIR SECONDS
#   STAGE_DIR/fuzz-payload.tar.xz  bin/ (the fuzz preset's targets, `strip -g`, with their
#                                  .dict files) and lib/ (the shared libraries they link)
#   STAGE_DIR/corpus.tar.xz        optional: a corpus a previous run left (corpus/<target>/),
#                                  to go on from; else the committed tests/fuzz/corpus
# Results in $OUT (default /tmp/fuzz-out): summary.txt (tests/fuzz/run_all.sh's lines),
# logs/, artifacts/ (crash-*, leak-*, timeout-*, oom-*), corpus.tar.xz (the corpus after the
# run, to carry to the next).
set -u
OUT=${OUT:-/tmp/fuzz-out}
STAGE=$(cd "$1" && pwd) || exit 2
SECONDS_EACH=${2:?seconds}
HERE=$(cd "$(dirname "$0")" && pwd)
W=/tmp/fuzz-work
rm -rf "$W" && mkdir -p "$W" "$OUT"
tar -C "$W" -xJf "$STAGE/fuzz-payload.tar.xz" || exit 2
seeds=$HERE/../fuzz/corpus
if [ -f "$STAGE/corpus.tar.xz" ]; then
  mkdir -p "$W/seeds" && tar -C "$W/seeds" -xJf "$STAGE/corpus.tar.xz" && seeds=$W/seeds/corpus
fi
export LD_LIBRARY_PATH="$W/lib:${LD_LIBRARY_PATH:-}"
targets=$(ls "$W/bin" | grep '_fuzzer$' | wc -l)
echo "$(nproc) cores, $targets targets, ${SECONDS_EACH}s each, seeds from $seeds"
"$HERE/../fuzz/run_all.sh" -t "$SECONDS_EACH" -j "$targets" -c "$seeds" -o "$W/run" "$W/bin" \
  2>&1 | tee "$OUT/summary.txt"
rc=${PIPESTATUS[0]}
cp -r "$W/run/logs" "$W/run/artifacts" "$OUT/"
tar -C "$W/run" -cf - corpus | xz -T0 -3 > "$OUT/corpus.tar.xz"
echo "run_all.sh exit $rc"
exit "$rc"
