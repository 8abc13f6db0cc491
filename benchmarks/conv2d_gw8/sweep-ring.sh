#!/usr/bin/env bash
# The band ring of fprop and dgrad on rows of fragments (`--chunks`: each
# block loops over a range of (image, row tile) bands, a 2-stage cp.async
# ring) against the chosen configuration, which takes one band a block:
# "layer | default GB/s | rows R, B bands a block: GB/s ...", for the chosen
# rows and half of them, 2 and 4 bands a block.
# The first ring configuration of each layer runs --check. Single runs are
# noisier than bench.py's; confirm a winner there.
#   benchmarks/conv2d_gw8/sweep-ring.sh SPIO_JIT
jit="$1"
run() { # pass n c h r pad [options]
  local pass=$1 n=$2 c=$3 h=$4 r=$5 pad=$6
  shift 6
  "$jit" --workload conv2d-gw8 --dtype f16 --pass "$pass" --batch "$n" --channels "$c" \
    --height "$h" --width "$h" -r "$r" -s "$r" --pad-h "$pad" --pad-w "$pad" "$@" 2>&1 |
    grep -E 'bench|error|outside|check|No GPU' |
    sed -e 's/.*median [0-9.]* ms.*: \([0-9.]*\) GB.*/\1/' -e 's/check: .*identical/ok/' \
        -e 's/^No GPU found.*/no GPU/' | tr '\n' ' '
}
rowsOf() { # the chosen rows
  "$jit" --workload conv2d-gw8 --pass "$1" --batch "$2" --channels "$3" --height "$4" \
    --width "$4" -r "$5" -s "$5" --pad-h "$6" --pad-w "$6" --emit-spio 2>/dev/null |
    grep -o 'rows = [0-9]*' | grep -o '[0-9]*'
}
for layer in "fprop 64 512 14 3 1" "fprop 32 1824 14 3 1" "fprop 128 528 16 3 1" \
             "fprop 128 576 18 3 1" "fprop 64 672 20 3 1" "fprop 128 256 28 3 1" \
             "fprop 256 48 32 3 1" "fprop 256 64 32 3 1" "fprop 128 64 64 3 1" \
             "fprop 128 320 14 5 2" "dgrad 64 512 14 3 1" "dgrad 128 64 64 3 1"; do
  read -r pass n c h r pad <<< "$layer"
  rows=$(rowsOf $pass $n $c $h $r $pad)
  line="$pass N$n C$c ${h}x$h ${r}x$r | default $(run $pass $n $c $h $r $pad --bench 20 --warmup 5)"
  for rp in $rows $(( (rows + 1) / 2 )); do
    for per in 2 4; do
      chunks=$(( (n * ((h + rp - 1) / rp) + per - 1) / per ))
      check=$([[ $per == 2 && $rp == "$rows" ]] && echo --check)
      line="$line | rows $rp, $per a block: $(run $pass $n $c $h $r $pad --rows-p $rp \
        --chunks $chunks --bench 20 --warmup 5 $check)"
    done
  done
  echo "$line"
done
