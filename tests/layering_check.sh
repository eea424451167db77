#!/usr/bin/env bash
# Checks the dependency rules between the source folders (style.md 7.2): every
# `#include "src/<folder>/..."` in a module's non-test sources must name an allowed folder.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
declare -A allowed=(
  [base]="base"
  [trace]="base trace"
  [io]="base trace io native_format"
  [native_format]="base native_format"
  [analysis]="base trace analysis"
  [packs]="base trace analysis packs"
  [report]="base trace analysis report"
  [pipeline]="base trace io analysis packs report pipeline"
  [guard]="base guard"
  [record]="base trace io native_format record"
  [profile]="base trace io analysis packs report pipeline guard record native_format profile"
)
status=0
for module in "${!allowed[@]}"; do
  [ -d "$root/src/$module" ] || continue
  while IFS= read -r -d '' file; do
    case "$file" in *_test.cc|*_test_util.*|*/testdata/*) continue ;; esac
    while IFS= read -r dep; do
      if [[ " ${allowed[$module]} " != *" $dep "* ]]; then
        echo "layering: ${file#"$root"/} includes src/$dep (src/$module may use: ${allowed[$module]})"
        status=1
      fi
    done < <(grep -oE '#include "src/[a-z_]+' "$file" | sed 's|#include "src/||' | sort -u)
  done < <(find "$root/src/$module" -type f \( -name '*.h' -o -name '*.cc' \) -print0)
done
[ "$status" -eq 0 ] && echo "layering: ok"
exit "$status"
