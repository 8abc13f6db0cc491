#!/usr/bin/env bash
# Tile configurations of the GEMM at a few large shapes, for choosing the
# defaults: prints "shape config TFLOP/s" lines.
#   benchmarks/gemm/sweep.sh SPIO_JIT [dtype]
jit="$1"
dtype="${2:-bf16}"
for shape in "4096 4096 4096" "8192 8192 8192"; do
  set -- $shape
  for cfg in "128 128 32 2 2 4 1" "128 128 32 2 2 4 4" "128 128 32 2 2 4 8" \
             "128 128 32 2 2 4 16" "128 128 32 2 2 3 8" "128 128 64 2 2 3 8"; do
    read bm bn bk wm wn st rg <<< "$cfg"
    r=$("$jit" --m $1 --n $2 --k $3 --dtype $dtype --block-m $bm --block-n $bn --block-k $bk \
        --warps-m $wm --warps-n $wn --stages $st --raster $rg --bench 20 --warmup 3 2>&1)
    tf=$(grep -o '[0-9.]* TFLOP/s' <<< "$r")
    regs=$(grep -o '[0-9]* registers, [0-9]* bytes spilled' <<< "$r")
    echo "$1x$2x$3 $dtype tile ${bm}x${bn}x${bk} warps ${wm}x${wn} stages $st raster $rg: ${tf:-FAILED $(tail -1 <<< "$r")} ($regs)"
  done
done
