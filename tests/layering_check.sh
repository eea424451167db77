#!/usr/bin/env bash
# Checks the dependency rules between the source folders (style.md 7.2): every
# `#include "src/<folder>/..."` in a module's non-test sources must name an allowed folder.
#
# A module is a folder under src/ named by a key below; a file belongs to the module with the
# longest key that contains it (src/record/cupti/x.cc is record/cupti's, not record's), and an
# include names the module with the longest key that contains the included file.
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
  [pipeline]="base trace io analysis packs report model device pipeline"
  # The speed of light's inputs: a model's bytes, a GPU's peak bandwidth (data files embedded
  # the way packs are).
  [model]="base packs model"
  [device]="base packs device"
  [guard]="base guard"
  [record]="base trace io native_format device record"
  # The injection library (style.md 7.1, 7.8): nothing of the trace model, importers, analysis,
  # writers, the guard or the CLI.
  [record/cupti]="base native_format record/cupti"
  [profile]="base trace io analysis packs report model device pipeline guard record native_format profile"
)
# Single files outside a module that the module may include besides its allowed folders. Each
# is checked against the including module's rule as well, so that nothing comes in through it.
declare -A allowed_files=(
  # Header-only: the launcher and the injection library share the --only-range name rule;
  # the injection library's warnings are messages of the one diagnostics list.
  [record/cupti]="record/only_range.h trace/diagnostics_list.h"
  # Header-only and dependency-free: the one diagnostics list, whose recorder codes name the
  # native format's counters (schema.h checks its counter names against it).
  [native_format]="trace/diagnostics_list.h"
)

# The module (a key of `allowed`) holding src/<path>, or its first folder when no key does.
module_of() {
  local path=$1 best="" key
  for key in "${!allowed[@]}"; do
    if [[ "$path" == "$key/"* && ${#key} -gt ${#best} ]]; then best=$key; fi
  done
  [ -n "$best" ] && echo "$best" || echo "${path%%/*}"
}

# The src/ paths that $1 includes, one per line.
included_paths() {
  grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]src/[^">]+' "$1" |
    sed -E 's|.*["<]src/||' | sort -u || true
}

status=0
# check_file <module> <file>: the file's includes against the module's rule.
check_file() {
  local module=$1 file=$2 path dep
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    dep=$(module_of "$path")
    if [[ " ${allowed[$module]} " == *" $dep "* ]]; then continue; fi
    if [[ " ${allowed_files[$module]:-} " == *" $path "* ]]; then continue; fi
    echo "layering: ${file#"$root"/} includes src/$path (src/$module may use:" \
         "${allowed[$module]}${allowed_files[$module]:+; files: ${allowed_files[$module]}})"
    status=1
  done < <(included_paths "$file")
}

for module in "${!allowed[@]}"; do
  [ -d "$root/src/$module" ] || continue
  while IFS= read -r -d '' file; do
    case "$file" in *_test.cc|*_test_util.*|*/testdata/*) continue ;; esac
    rel=${file#"$root/src/"}
    [ "$(module_of "$rel")" = "$module" ] || continue   # a submodule's file: checked there
    check_file "$module" "$file"
  done < <(find "$root/src/$module" -type f \( -name '*.h' -o -name '*.cc' \) -print0)
  for path in ${allowed_files[$module]:-}; do
    if [ -f "$root/src/$path" ]; then
      check_file "$module" "$root/src/$path"
    else
      echo "layering: src/$path, which src/$module may include, does not exist"
      status=1
    fi
  done
done
[ "$status" -eq 0 ] && echo "layering: ok"
exit "$status"
