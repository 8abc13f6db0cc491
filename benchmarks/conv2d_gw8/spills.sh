#!/usr/bin/env bash
# Which conv2d-gw8 kernels ptxas spills: fprop, dgrad and wgrad, stride 1
# and 2, R 1 to 7, S 1, 3, 4, 5 and 7, images of 7x7 to 64x64 (840 kernels,
# about 3 minutes on 2 cores). Prints each kernel that spills, then a
# count; exits 1 where any does. The register rules in
# lib/Kernels/Conv2dGw8.cpp (rowsResidentBlocks, wgradResidentBlocks) are
# what this checks.
#   benchmarks/conv2d_gw8/spills.sh SPIO_JIT [PTXAS]
set -uo pipefail
jit="$1"
ptxas="${2:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
[[ -x "$ptxas" ]] || { echo "spills.sh: no ptxas at $ptxas" >&2; exit 1; }
total=0 spilled=0
for pass in fprop dgrad wgrad; do
  for stride in 1 2; do
    for r in 1 2 3 4 5 6 7; do
      for s in 1 3 4 5 7; do
        for hw in "7 7" "14 14" "33 47" "64 64"; do
          read -r h w <<< "$hw"
          shape="$pass stride $stride ${r}x$s ${h}x$w"
          ptx="$("$jit" --workload conv2d-gw8 --pass "$pass" --stride "$stride" --batch 16 \
                 --channels 128 --height "$h" --width "$w" -r "$r" -s "$s" --pad-h $((r / 2)) \
                 --pad-w $((s / 2)) --emit-ptx --no-disk-cache 2>&1)" ||
            { echo "$shape: spio-jit failed: ${ptx%%$'\n'*}"; exit 1; }
          bytes="$(echo "$ptx" | "$ptxas" -arch=sm_90 -v - -o /dev/null 2>&1 |
                   awk '{for (i = 1; i + 3 <= NF; ++i)
                          if ($(i + 1) == "bytes" && $(i + 2) == "spill" && $(i + 3) ~ /^stores/)
                            s += $i}
                        END {print s + 0}')"
          total=$((total + 1))
          if [[ "$bytes" != 0 ]]; then
            spilled=$((spilled + 1))
            echo "$shape: $bytes bytes of spill stores"
          fi
        done
      done
    done
  done
done
echo "$spilled of $total kernels spill"
[[ $spilled == 0 ]]
