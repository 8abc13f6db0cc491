#!/usr/bin/env bash
# Block shapes of conv2d-gw8 on layers where the configuration chooser's
# rules were fitted (RESULTS.md): "layer rows warps GB/s", the chosen
# configuration first ("0x0", rows 0). Single runs are noisier than
# bench.py's; confirm a winner there.
#   benchmarks/conv2d_gw8/sweep.sh SPIO_JIT [fprop|dgrad|wgrad]
jit="$1"
pass="${2:-fprop}"
for layer in "128 192 72 72 3 1" "128 128 56 56 3 1" "128 144 64 64 3 1" "128 40 144 144 3 1" \
             "256 32 112 112 3 1" "128 576 18 18 3 1" "128 816 18 18 5 2" "128 288 36 36 5 2" \
             "320 80 56 56 5 2" "128 256 28 28 3 1" "128 2304 9 9 3 1"; do
  read n c h w r pad <<< "$layer"
  for cfg in "0 0 0" "1 8 0" "2 8 0" "2 4 0" "4 4 0" "4 2 0" "1 8 8" "1 8 9" "2 4 8" "1 8 12" "2 8 14"; do
    read wq wg rows <<< "$cfg"
    r2=$("$jit" --workload conv2d-gw8 --pass "$pass" --batch $n --channels $c --height $h \
         --width $w -r $r -s $r --pad-h $pad --pad-w $pad --rows-p $rows --warps-m $wq \
         --warps-n $wg --bench 20 --warmup 5 2>&1)
    echo "$pass N$n C$c ${h}x$w ${r}x$r rows $rows warps ${wq}x${wg}: $(grep -o '[0-9.]* GB/s' <<< "$r2" || tail -1 <<< "$r2")"
  done
done
