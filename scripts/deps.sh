#!/usr/bin/env bash
# Installs the Debian packages decodeprof builds with, when any is missing.
# Sourced by scripts/test, scripts/demo and scripts/fuzz.
#   decodeprof_install_deps               the packages of every build
#   decodeprof_install_deps fuzz          those, and the fuzz build's (DECODEPROF_FUZZ_PACKAGES)
#   decodeprof_install_deps test          those, the fuzz build's, and what the tests and checks
#                                         use (DECODEPROF_TEST_PACKAGES: scripts/test builds with
#                                         clang, the ci and tsan presets)
set -euo pipefail

DECODEPROF_PACKAGES=(
  g++ cmake ninja-build pkg-config
  libcli11-dev libfmt-dev libtomlplusplus-dev libre2-dev libsqlite3-dev nlohmann-json3-dev
  libsimdjson-dev zlib1g-dev libzstd-dev liblzma-dev libmuparser-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)
# The clang builds (the fuzz, ci and tsan presets): Debian's clang with libFuzzer and the
# sanitizer runtimes; llvm for llvm-symbolizer (readable stack traces in the sanitizers' and
# fuzzers' reports); lld links the ci and tsan trees.
DECODEPROF_FUZZ_PACKAGES=(clang libclang-rt-14-dev llvm lld)
# scripts/test only: headless Chromium renders the golden HTML report pages (CTest
# report_html_chromium, tests/report_html/render_check.py; skipped where it is missing);
# python3 runs the reference scripts the tests compare with (../shared/real-traces/census.py,
# tests/real_traces, tests/reference, tests/results, tests/report_html), standard library only:
# without it CMake registers none of those tests. clang-tidy and clang-format: scripts/tidy and
# scripts/format --check, which scripts/test runs.
DECODEPROF_TEST_PACKAGES=(chromium python3 clang-tidy clang-format)

decodeprof_install_deps() {
  local wanted=("${DECODEPROF_PACKAGES[@]}")
  if [ "${1:-}" = fuzz ]; then wanted+=("${DECODEPROF_FUZZ_PACKAGES[@]}"); fi
  if [ "${1:-}" = test ]; then
    wanted+=("${DECODEPROF_FUZZ_PACKAGES[@]}" "${DECODEPROF_TEST_PACKAGES[@]}")
  fi
  local missing=()
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "decodeprof: installing ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "decodeprof: need root (or sudo) to install: ${missing[*]}" >&2
      return 1
    }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
