#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for Spio, builds it, and then either runs
# the default workload (`run`) or every test (`test`).
#
#   scripts/bootstrap.sh run    # install, build, run the default GEMM (GPU if present)
#   scripts/bootstrap.sh test   # install, build, run check-spio (lit + gtest)
#
# Environment: BUILD_DIR (default: build), JOBS (default: 2),
# SPIO_SKIP_INSTALL=1 to skip the apt step.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-2}"
mode="${1:-}"

packages=(
  build-essential cmake ninja-build ccache python3 python3-pytest python3-venv
  python3-setuptools python3-wheel
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libzstd-dev zlib1g-dev libgtest-dev
)

log() { printf '\n== %s\n' "$*"; }

install_packages() {
  if [[ "${SPIO_SKIP_INSTALL:-0}" == 1 ]]; then
    return
  fi
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    log "Debian packages already installed"
    return
  fi
  log "Installing ${missing[*]}"
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
}

configure() {
  log "Configuring in $build_dir"
  cmake -G Ninja -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
}

build() {
  log "Building $* with $jobs jobs"
  local start=$SECONDS
  cmake --build "$build_dir" -j "$jobs" --target "$@"
  log "Build took $((SECONDS - start)) s"
}

case "$mode" in
  run)
    install_packages
    configure
    build spio-opt spio-jit
    example="$root/kernels/examples/warp_tile_mma.mlir"
    log "spio-opt ${example#$root/} --canonicalize --cse (the bundled warp-tile kernel)"
    "$build_dir/bin/spio-opt" "$example" --canonicalize --cse | head -n 20
    log "Default workload: spio-jit --workload gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --check --bench 20"
    "$build_dir/bin/spio-jit" --workload gemm --m 4096 --n 4096 --k 4096 --dtype bf16 \
      --check --bench 20
    ;;
  test)
    install_packages
    configure
    build spio-opt spio-jit SpioUnitTests SpioDocGen
    log "Running check-spio"
    results="$build_dir/check-spio.log"
    status=0
    cmake --build "$build_dir" --target check-spio 2>&1 | tee "$results" || status=$?
    # One plain summary line for CI, from lit's totals.
    passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$results" | tail -n 1)
    failed=$(sed -n 's/^ *\(Failed\|Unresolved\|Timed Out\|Unexpectedly Passed\) *: *\([0-9]*\).*/\2/p' "$results" |
      awk '{s += $1} END {print s + 0}')
    skipped=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$results" | tail -n 1)
    echo "${passed:-0} passed, ${failed} failed, ${skipped:-0} skipped"
    exit "$status"
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
