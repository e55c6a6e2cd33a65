#!/usr/bin/env bash
# Installs, with apt-get, every Debian 12 package the build, the tools and the tests need.
# Safe to run again: packages already present are skipped.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libsystemc-dev verilator
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev libboost-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libncurses-dev tmux procps clang
  libicu-dev zlib1g-dev libopenblas-dev
  libcpp-httplib-dev curl
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
  openmpi-bin libopenmpi-dev libcsv-dev gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
