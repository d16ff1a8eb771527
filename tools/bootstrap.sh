#!/usr/bin/env bash
# Installs what kiln needs to build and test on Debian 12, then configures and
# builds it in <repo>/build. Works from any directory.
#
#   tools/bootstrap.sh [--no-install]
#
#   --no-install   skip apt-get (the packages are known to be there)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

install=1
for arg in "$@"; do
  case "$arg" in
    --no-install) install=0 ;;
    -h|--help) sed -n '2,7s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "bootstrap.sh: unknown option: $arg" >&2; exit 2 ;;
  esac
done

# Build: cmake, ninja, g++, ccache (optional, speeds up rebuilds); LLVM/MLIR 22
# (headers, the static libMLIR*.a and libLLVM*.a that kiln links, mlir-tblgen);
# CLI11 (the kiln command); xxHash (XXH3 signatures and keys); SQLite (the
# cache index). Tests: lit and FileCheck
# (llvm-22-tools, run by python3), GoogleTest (libgtest-dev pulls googletest),
# NumPy (tests read the arrays that `kiln run -o` writes). Benchmarks: OpenBLAS
# (kiln-bench cpu opens libopenblas.so.0 at run time as its baseline; kiln
# never links it). tmux: the test of kiln precompile's live progress line runs it
# under a pseudo-terminal. Remote cache tiers: hiredis (the Redis tier) and
# libcurl (the HTTP tier); their tests start a real redis-server and nginx
# (nginx-light, with its WebDAV module) on loopback. Cluster precompile: its
# test starts a real 4-node Slurm (slurm-wlm, munge) on this machine.
packages=(
  cmake ninja-build g++ ccache
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libcli11-dev libxxhash-dev libsqlite3-dev
  libgtest-dev python3 python3-numpy libopenblas-dev tmux
  pkgconf libhiredis-dev libcurl4-openssl-dev redis-server nginx-light
  libsodium-dev
  slurm-wlm munge
)

if (( install )); then
  missing=()
  for package in "${packages[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" == *"ok installed" ]] ||
      missing+=("$package")
  done
  if (( ${#missing[@]} )); then
    echo "bootstrap.sh: installing ${missing[*]}"
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q)
    (( EUID == 0 )) || apt=(sudo "${apt[@]}")
    "${apt[@]}" update
    "${apt[@]}" install -y --no-install-recommends "${missing[@]}"
  fi
fi

if [[ ! -f "$repo/build/build.ninja" ]]; then
  cmake -G Ninja -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=Release
fi
ninja -C "$repo/build"
