#!/usr/bin/env bash
# On a GPU host, in one go: unpack the bundle (scripts/pack-bundle.sh), run
# the GPU tests, then the GEMM benchmark against cuBLAS through PyTorch.
# Prints the tables last; logs go to $OUT when it is set.
#
#   scripts/gpu-run.sh [tests|bench|conv|python|runtime|all]
#   scripts/gpu-run.sh conv-bench [bench.py options]
#     all: GEMM tests and benchmark; conv: its tests and benchmark (its rows
#     also in conv-bench.json, as they come, for bench.py --merge);
#     conv-bench: the conv benchmark alone, with bench.py's options (a part
#     of a table that a device's time limit would cut: --passes wgrad
#     --skip 21 --limit 21), saved the same way; python:
#     python/tests under pytest, the PyTorch host-cost benchmark and the
#     deterministic-training example at two sizes;
#     runtime: the runtime's gtests (no LLVM in them), from a build tree
#     ($SPIO_RUNTIME_TESTS, else build/unittests/Runtime/SpioRuntimeTests),
#     whose CUDA tests skip without a GPU
# The bundle is read from $SPIO_BUNDLE (default: bundle/).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="${SPIO_BUNDLE:-$root/bundle}"
what="${1:-all}"
shift $(($# > 0 ? 1 : 0))
if [[ $# -gt 0 && "$what" != conv-bench ]]; then
  echo "gpu-run.sh: only conv-bench takes options (bench.py's), not $what"
  exit 1
fi
out="${OUT:-/tmp/spio-gpu}"
mkdir -p "$out"
jit=/tmp/spio-bin/spio-jit
mkdir -p /tmp/spio-bin
if [[ "$what" != runtime ]]; then
  xz -dc "$bundle/spio-jit.xz" > "$jit" && chmod +x "$jit" ||
    { echo "no bundle: run scripts/pack-bundle.sh first"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
status=0
if [[ "$what" == tests || "$what" == all ]]; then
  python3 "$root/benchmarks/gemm/gpu_tests.py" --spio-jit "$jit" 2>&1 | tee "$out/gpu-tests.log"
  status=${PIPESTATUS[0]}
fi
if [[ "$what" == tests || "$what" == all ]]; then
  "$jit" "$root/kernels/gemm.mlir" --check --bench 20 2>&1 | tee "$out/gemm-file.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
if [[ "$what" == bench || "$what" == all ]]; then
  python3 "$root/benchmarks/gemm/bench.py" --spio-jit "$jit" 2>&1 | tee "$out/gemm-bench.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
if [[ "$what" == python ]]; then
  xz -dc "$bundle/libspio_capi.so.xz" > /tmp/spio-bin/libspio_capi.so || exit 1
  export SPIO_LIBRARY=/tmp/spio-bin/libspio_capi.so PYTHONPATH="$root/python"
  python3 -m pytest -q -p no:cacheprovider "$root/python/tests" 2>&1 | tee "$out/python-tests.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  python3 "$root/benchmarks/torch/host_cost.py" 2>&1 | tee "$out/host-cost.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  python3 "$root/python/examples/train_deterministic.py" --compile 2>&1 | tee "$out/train.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  python3 "$root/python/examples/train_deterministic.py" --compile --batch 256 --size 56 \
    --steps 100 2>&1 | tee "$out/train-large.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
if [[ "$what" == runtime ]]; then
  tests="${SPIO_RUNTIME_TESTS:-$root/build/unittests/Runtime/SpioRuntimeTests}"
  [[ -x "$tests" ]] || { echo "no $tests: build the project with its tests first"; exit 1; }
  "$tests" 2>&1 | tee "$out/runtime-tests.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
if [[ "$what" == conv ]]; then
  python3 "$root/benchmarks/conv2d_gw8/gpu_tests.py" --spio-jit "$jit" 2>&1 | tee "$out/conv-tests.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  python3 "$root/benchmarks/conv2d_gw8/bench.py" --spio-jit "$jit" --save "$out/conv-bench.json" \
    2>&1 | tee "$out/conv-bench.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
if [[ "$what" == conv-bench ]]; then
  python3 "$root/benchmarks/conv2d_gw8/bench.py" --spio-jit "$jit" --save "$out/conv-bench.json" \
    "$@" 2>&1 | tee "$out/conv-bench.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
fi
exit $status
