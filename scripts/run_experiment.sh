#!/usr/bin/env bash
# The main job, from a fresh machine: set-up (packages, configure, build the
# CLI), then the default experiment: the Fermi GTX 480 running five paper
# kernel profiles, compute- and memory-bound, baseline SM. Writes one JSON
# report per kernel (and the CLI's summary next to it), prints a table made
# from the reports, and plots them.
#
#   bash scripts/run_experiment.sh [OUT_DIR]
#
#   OUT_DIR              where reports go (default: $SMSHARE_OUT, else out/default)
# Environment:
#   SMSHARE_CONFIG       GPU config (default fermi-gtx480)
#   SMSHARE_KERNELS      kernel profiles, space-separated
#                        (default "hotspot sgemm lavamd lbm backprop")
#   SMSHARE_RUN_ARGS     extra `smshare run` flags for every run, e.g.
#                        "--mechanism baseline --set sm.scheduler=gto"
#   and those of scripts/setup.sh (SMSHARE_BUILD_DIR, CMAKE_BUILD_TYPE, ...)
#
# Output in OUT_DIR: <kernel>.json (report), <kernel>.txt (CLI summary),
# summary.txt (the table), ipc.png (plot). Exit status: 0 when every run
# completed; otherwise the first failing run's smshare exit status
# (1 bad input, 3 deadlock, 4 simulation error); the table and plot are
# still made from the reports that exist.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SMSHARE_BUILD_DIR:-$ROOT/build}"
OUT="${1:-${SMSHARE_OUT:-$ROOT/out/default}}"
CONFIG="${SMSHARE_CONFIG:-fermi-gtx480}"
read -r -a KERNELS <<<"${SMSHARE_KERNELS:-hotspot sgemm lavamd lbm backprop}"
read -r -a EXTRA <<<"${SMSHARE_RUN_ARGS:-}"

bash "$ROOT/scripts/setup.sh" smshare

PY=python3
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; fi  # Debian's, with matplotlib

mkdir -p "$OUT"
echo "run_experiment: $CONFIG, kernels ${KERNELS[*]}, reports in $OUT" >&2
status=0
reports=()
start=$(date +%s.%N)
for k in "${KERNELS[@]}"; do
  rc=0
  rm -f "$OUT/$k.json"  # a failed run must not leave an older report in the table
  "$BUILD_DIR/smshare" run --config "$CONFIG" --kernel "$k" "${EXTRA[@]}" \
      --report "$OUT/$k.json" >"$OUT/$k.txt" || rc=$?
  if ((rc == 0)); then
    echo "run_experiment:   $k done ($(sed -n 's/^ *simulation speed *//p' "$OUT/$k.txt"))" >&2
  else
    echo "run_experiment:   $k: smshare exited with $rc" >&2
    cat "$OUT/$k.txt" >&2
    ((status == 0)) && status=$rc
  fi
  [[ -f "$OUT/$k.json" ]] && reports+=("$OUT/$k.json")
done
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')

if ((${#reports[@]} == 0)); then
  echo "run_experiment: error: no report was written" >&2
  exit "$status"
fi
echo
"$PY" "$ROOT/scripts/summarize_reports.py" "${reports[@]}" | tee "$OUT/summary.txt"
echo
"$PY" "$ROOT/scripts/plot_reports.py" -o "$OUT/ipc.png" "${reports[@]}"
# Energy breakdown by structure of the first kernel's run (CACTI per-access energies).
"$PY" "$ROOT/scripts/plot_energy.py" "${reports[0]}" "$OUT/energy.png"
echo "${#reports[@]} runs in ${elapsed} s; reports, summaries and the plots: $OUT/{*.json,*.txt,ipc.png,energy.png}"
exit "$status"
