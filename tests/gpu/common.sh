# Shared by the GPU-machine scripts of tests/gpu (sourced, never run): the environment of a
# decode run, the CUPTI library to record with, and the scrubbing of published files.

# No network on the GPU machine; unbuffered Python so logs interleave in order.
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

# DECODEPROF_CUPTI_LIB: the toolkit's libcupti.so.13 for programs without one of their own
# (a program that loaded its own, like PyTorch, keeps it: the recorder shares it).
dp_find_cupti() {
  local lib
  lib=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 \
          /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13 2>/dev/null | head -n 1)
  if [ -z "$lib" ]; then
    lib=$(find / -xdev -name 'libcupti.so.13*' -not -path '/proc/*' 2>/dev/null | head -n 1)
  fi
  export DECODEPROF_CUPTI_LIB="$lib"
}

# dp_scrub FILE ROOT/ WORK/: the published file names no local path (ROOT/ dropped, WORK/
# replaced by "<work>/"); rewritten only when it changes.
dp_scrub() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
path, root, work = sys.argv[1:4]
data = open(path, "rb").read()
new = data.replace(root.encode(), b"").replace(work.encode(), b"<work>/")
if new != data:
    open(path, "wb").write(new)
PY
}

# dp_start STAGE_DIR: what every script does first once $OUT is set: DP (the staged decodeprof),
# $OUT created, all output also appended to $OUT/run.log, DECODEPROF_CUPTI_LIB found.
dp_start() {
  STAGE=$(cd "$1" && pwd) || exit 2
  DP="$STAGE/decodeprof"
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/run.log") 2>&1
  dp_find_cupti
}
