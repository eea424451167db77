#!/usr/bin/env bash
# Installs the Debian packages decodeprof builds with, when any is missing.
# Sourced by scripts/test and scripts/demo.
set -euo pipefail

DECODEPROF_PACKAGES=(
  g++ cmake ninja-build pkg-config
  libcli11-dev libfmt-dev libtomlplusplus-dev libre2-dev libsqlite3-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)

decodeprof_install_deps() {
  local missing=()
  for pkg in "${DECODEPROF_PACKAGES[@]}"; do
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
