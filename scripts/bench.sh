#!/usr/bin/env bash
# Simulation-speed benchmark: prints simulated warp-instructions and cycles
# per host second for (1) the 15-SM Fermi running the hotspot profile to
# completion, with the baseline and with EXPARS (which mixes one CTA per SM:
# its operand cache, prefetcher and scratchpad register traffic) and Zorua,
# then the 16-SM gtx580 with the baseline and each cross-SM scheme, and (2) a
# generated Accel-Sim trace of 1.92 M warp-instructions (120 CTAs x 8 warps x
# 2000 instructions; issue 5's bench workload). The first run on a trace
# also builds its decoded-trace cache (docs/traces.md), which later runs
# read: the steady rate is that of later runs.
# Timing is measured, never asserted: this is not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
make -C build -j"$(nproc)" bench_sim_speed >/dev/null

echo "== hotspot profile on fermi-gtx480 =="
build/bench_sim_speed fermi-gtx480 hotspot
echo "== hotspot profile on fermi-gtx480 with EXPARS =="
build/bench_sim_speed fermi-gtx480 hotspot --mechanism expars
echo "== hotspot profile on fermi-gtx480 with Zorua =="
build/bench_sim_speed fermi-gtx480 hotspot --mechanism zorua
# Cross-SM sharing (Dhar & Chen) on its own config, with the baseline there
# for scale: each scheme's active SMs run the work of two (or 1.5) SMs.
echo "== hotspot profile on gtx580 (cross-SM sharing's config) =="
build/bench_sim_speed gtx580 hotspot
for scheme in occ bal bigsm bigsm_occ; do
  echo "== hotspot profile on gtx580 with ${scheme} =="
  build/bench_sim_speed gtx580 hotspot --mechanism "${scheme}"
done

trace_dir=build/bench-trace
if [ ! -f "$trace_dir/kernelslist.g" ]; then
  echo "(generating the bench trace into $trace_dir)"
  python3 tb/traces/gen_trace.py --out "$trace_dir" >/dev/null
fi
echo "== generated trace (120 CTAs x 8 warps x 2000 instructions) on fermi-gtx480 =="
build/bench_sim_speed fermi-gtx480 --trace "$trace_dir/kernelslist.g"

# SMs ticked on several host threads (--host-threads): the simulation loop's
# rate (the report's sim_rate_warp_inst_per_s) at 1, 2 and 4 threads, and the
# parallel efficiency: rate(N) / (N x rate(1)). SMSHARE_HOST_THREADS_ALWAYS=1
# sends every cycle with two units due to the threads (a run alone measures
# which way is faster and may tick on one: docs/performance.md). Above the
# machine's cores the threads share cores (efficiency then falls by design).
# One thread runs run-ahead's windows, which the threads' cycles do not;
# "as run" is 2 threads with the pace choosing, cycle stretch by stretch,
# between the threads and one thread's windows.
host_threads_table() {
  local title=$1; shift
  echo "== ${title}: host threads (machine: $(nproc) cores) =="
  local base=""
  for n in 1 2 4; do
    local rate
    rate=$(SMSHARE_HOST_THREADS_ALWAYS=1 build/bench_sim_speed "$@" --host-threads "$n" | awk '/^  loop:/ {print $2}')
    [ -z "$base" ] && base=$rate
    awk -v n="$n" -v r="$rate" -v b="$base" \
      'BEGIN { printf "  %d thread(s): %9.0f warp-inst/s   speed-up %.2f   efficiency %3.0f %%\n", n, r, r / b, 100 * r / (n * b) }'
  done
  local as_run
  as_run=$(build/bench_sim_speed "$@" --host-threads 2 | awk '/^  loop:/ {print $2}')
  awk -v r="$as_run" -v b="$base" 'BEGIN { printf "  2 threads as run: %9.0f warp-inst/s   speed-up %.2f\n", r, r / b }'
}
host_threads_table "hotspot profile on fermi-gtx480" fermi-gtx480 hotspot
host_threads_table "hotspot profile on a 60-SM fermi-gtx480" fermi-gtx480 hotspot --ctas 900 --set gpu.num_sms=60
host_threads_table "generated trace on fermi-gtx480" fermi-gtx480 --trace "$trace_dir/kernelslist.g"

# The busiest host: both threads on one core (taskset), so that every wait
# for the other thread needs it to be given the core. A run with threads
# should then cost little more than one thread: the threads yield the core
# after a brief spin, and the pace ticks serially after its first probes.
echo "== hotspot profile on fermi-gtx480: 2 host threads on one core =="
one_core=$(taskset -c 0 build/bench_sim_speed fermi-gtx480 hotspot | awk '/^  loop:/ {print $2}')
as_run=$(taskset -c 0 build/bench_sim_speed fermi-gtx480 hotspot --host-threads 2 | awk '/^  loop:/ {print $2}')
always=$(SMSHARE_HOST_THREADS_ALWAYS=1 taskset -c 0 build/bench_sim_speed fermi-gtx480 hotspot --host-threads 2 |
  awk '/^  loop:/ {print $2}')
awk -v o="$one_core" -v r="$as_run" -v a="$always" 'BEGIN {
  printf "  1 thread: %9.0f warp-inst/s   2 threads as run: %9.0f (%.2fx)   always: %9.0f (%.2fx)\n", o, r, r / o, a, a / o }'

# The cost of ticking the SMs in turn: the same work on one SM
# (gpu.num_sms=1, the same grid) finds the SM's state still in the host's L1
# at each tick; on 15 SMs ticked one after another, each tick finds it
# evicted by the other 14 (docs/performance.md, "Locality"). The ratio is
# what ticking each SM for several cycles in a row could recover at most.
locality_row() {
  local title=$1; shift
  local many one
  many=$(build/bench_sim_speed "$@" | awk '/^  loop:/ {print $2}')
  one=$(build/bench_sim_speed "$@" --set gpu.num_sms=1 | awk '/^  loop:/ {print $2}')
  awk -v t="$title" -v m="$many" -v o="$one" \
    'BEGIN { printf "  %-28s %9.0f warp-inst/s on 15 SMs, %9.0f on 1 SM: %.2fx\n", t, m, o, o / m }'
}
echo "== locality: the same work on 15 SMs and on one =="
locality_row "hotspot on fermi-gtx480" fermi-gtx480 hotspot
locality_row "generated trace on fermi-gtx480" fermi-gtx480 --trace "$trace_dir/kernelslist.g"

# Run-ahead (one host thread): the clock ticks an SM several cycles in a row
# where nothing another SM does first could change what it does, so its state
# stays in the host's caches (docs/performance.md, "Thirteenth round");
# SMSHARE_RUN_AHEAD=0 ticks every SM one cycle at a time. Same reports.
run_ahead_row() {
  local title=$1; shift
  local off on
  off=$(SMSHARE_RUN_AHEAD=0 build/bench_sim_speed "$@" | awk '/^  loop:/ {print $2}')
  on=$(build/bench_sim_speed "$@" | awk '/^  loop:/ {print $2}')
  awk -v t="$title" -v f="$off" -v n="$on" \
    'BEGIN { printf "  %-28s %9.0f warp-inst/s a cycle at a time, %9.0f run ahead: %.2fx\n", t, f, n, n / f }'
}
echo "== run-ahead: each SM ticked several cycles in a row, against one cycle at a time =="
run_ahead_row "hotspot on fermi-gtx480" fermi-gtx480 hotspot
run_ahead_row "generated trace on fermi-gtx480" fermi-gtx480 --trace "$trace_dir/kernelslist.g"
