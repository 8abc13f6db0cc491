#!/usr/bin/env bash
# Builds spio-jit and the C API library with LLVM and MLIR linked statically
# and packs them for GPU hosts that have the NVIDIA driver but not LLVM 22
# (design.md §7): bundle/spio-jit.xz and bundle/libspio_capi.so.xz (for
# python/spio) need only libc, libstdc++, libm, libz and libzstd.
#
#   scripts/pack-bundle.sh            # build-static/ -> bundle/spio-jit.xz
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${STATIC_BUILD_DIR:-$root/build-static}"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DSPIO_STATIC_LLVM=ON -DSPIO_BUILD_TESTS=OFF
cmake --build "$build" -j "${JOBS:-2}" --target spio-jit SpioCAPI
mkdir -p "$root/bundle"
strip -o "$root/bundle/spio-jit" "$build/bin/spio-jit"
strip -o "$root/bundle/libspio_capi.so" "$build/lib/libspio_capi.so"
xz -9 -T2 -f "$root/bundle/spio-jit" "$root/bundle/libspio_capi.so"
ls -l "$root/bundle/spio-jit.xz" "$root/bundle/libspio_capi.so.xz"
echo "Shared libraries spio-jit needs:"
ldd "$build/bin/spio-jit" | awk '{print "  " $1}'
