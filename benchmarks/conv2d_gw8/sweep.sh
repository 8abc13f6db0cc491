#!/usr/bin/env bash
# Block shapes of conv2d-gw8 fprop on a few layers: "layer config GB/s".
#   benchmarks/conv2d_gw8/sweep.sh SPIO_JIT
jit="$1"
for layer in "128 64 64 64 3 1" "320 80 56 56 5 2" "128 1248 8 8 3 1" "256 1152 7 7 3 1" \
             "128 192 72 72 3 1" "256 640 16 16 3 1"; do
  read n c h w r pad <<< "$layer"
  for cfg in "4 0 0" "8 0 0" "16 0 0" "8 2 4" "8 1 8" "16 4 2"; do
    read rows wq wg <<< "$cfg"
    r2=$("$jit" --workload conv2d-gw8 --batch $n --channels $c --height $h --width $w --r $r --s $r \
         --pad-h $pad --pad-w $pad --rows-p $rows --warps-m $wq --warps-n $wg --bench 20 --warmup 3 2>&1)
    echo "N$n C$c ${h}x$w ${r}x$r rows $rows warps ${wq}x${wg}: $(grep -o '[0-9.]* GB/s' <<< "$r2" || tail -1 <<< "$r2")"
  done
done
