#!/usr/bin/env bash
# Where one conv2d-gw8 kernel spends its time, from Nsight Compute's
# counters: its duration, DRAM and L2 tag-lookup
# throughput (share of peak), DRAM bytes read and written, L2 hit rate,
# the tensor pipe's busy share, warps a scheduler and occupancy, issue
# share, and a warp's cycles between instructions by stall reason. One
# line a layer; the clocks are left alone.
#   benchmarks/conv2d_gw8/profile.sh SPIO_JIT [spio-jit conv2d-gw8 options]
#   e.g. profile.sh /tmp/sj --pass fprop --batch 320 --channels 80 \
#          --height 56 --width 56 -r 5 -s 5 --pad-h 2 --pad-w 2
# $NCU names the ncu to run (else the one on PATH, else CUDA's).
set -uo pipefail
jit="$1"
shift
ncu="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
[[ -x "$ncu" ]] || { echo "profile.sh: no Nsight Compute at $ncu (set NCU)" >&2; exit 1; }
stalled=smsp__average_warps_issue_stalled
metrics=gpu__time_duration.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,lts__t_sector_hit_rate.pct
metrics+=,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__warps_active.avg.per_cycle_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
for reason in wait math_pipe_throttle barrier short_scoreboard long_scoreboard mio_throttle lg_throttle; do
  metrics+=,${stalled}_${reason}_per_issue_active.ratio
done
echo "$*:"
report="$("$ncu" --clock-control none -k regex:conv2d -c 1 --metrics "$metrics" \
  "$jit" --workload conv2d-gw8 --dtype f16 "$@" --bench 1 --warmup 0 --timing launch 2>&1)"
status=$?
if [[ $status != 0 ]]; then
  echo "$report" >&2
  exit $status
fi
# Each metric as its name (stall reasons short), value and unit.
echo "$report" |
  awk -v stalled="${stalled}_" '/^[ \t]+(gpu|dram|lts|sm|smsp)__/ {
    name = $1
    sub(stalled, "", name)
    sub(/_per_issue_active.ratio/, " (cycles)", name)
    sub(/.avg.pct_of_peak_sustained_[a-z]*/, " (% of peak)", name)
    unit = (NF >= 3 && $(NF - 1) !~ /^(%|ratio)$/) ? " " $(NF - 1) : ""
    printf "%s %s%s; ", name, $NF, unit
  }'
echo
