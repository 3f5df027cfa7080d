#!/usr/bin/env bash
# The identity check of speed-only changes (docs/performance.md, "How to
# measure"): a fixed set of runs whose reports must stay bit for bit the
# same, host fields aside.
#
#   scripts/identity_reports.sh write BIN OUTDIR   runs BIN (a smshare binary) over the set
#   scripts/identity_reports.sh compare REF NEW     compares two OUTDIRs; exit 1 on a difference
#
# The set: every shipped GPU config; the baseline and both Jatala mechanisms,
# with and without dynamic warp execution; all four schedulers; FCFS and
# FR-FCFS DRAM scheduling; compact and pipelined timing; two register ports
# with dual issue; the traces in tb/traces/; EXPARS, Zorua and the four
# cross-SM schemes. A report keeps every field but the host's (`host`,
# `sim_seconds`, the rates), and its file paths lose the checkout's
# directory, so that two checkouts compare.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: $0 write BIN OUTDIR | compare REFDIR NEWDIR" >&2
  exit 2
}

write_set() {
  local bin=$1 out=$2
  [ -x "$bin" ] || { echo "identity_reports: $bin is not an executable smshare binary" >&2; exit 2; }
  mkdir -p "$out"
  run() {
    local name=$1; shift
    if ! "$bin" run --quiet --json "$@" 2>"$out/$name.err" | python3 -c '
import json, re, sys
report = json.load(sys.stdin)
for key in ("host", "sim_rate_cycles_per_s", "sim_rate_warp_inst_per_s", "sim_seconds"):
    report.pop(key, None)
checkout = re.compile(r"^/.*?/(configs|cacti-params|tb)/")
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items()}
    if isinstance(v, list): return [strip(x) for x in v]
    if isinstance(v, str): return checkout.sub(r"<repo>/\1/", v)
    return v
json.dump(strip(report), sys.stdout, indent=1, sort_keys=True)' >"$out/$name.json"; then
      echo "identity_reports: run $name failed (see $out/$name.err)" >&2
      exit 1
    fi
  }
  local k s m t
  for k in hotspot sgemm lavamd backprop lbm nw1 conv1 srad1; do
    run "fermi-$k" --config fermi-gtx480 --kernel "$k" --ctas 60
  done
  for k in hotspot sgemm; do
    run "jr-$k" --config jatala-fermi --kernel "$k" --mechanism regshare --ctas 60
    run "js-$k" --config jatala-fermi --kernel "$k" --mechanism spmshare --ctas 60 --scheduler owf
    run "jd-$k" --config jatala-fermi --kernel "$k" --mechanism regshare --ctas 60 --set jatala.dynamic_warp_execution=true
  done
  for s in gto two-level owf; do run "sch-$s" --config fermi-gtx480 --kernel backprop --ctas 60 --scheduler "$s"; done
  run kepler-hot --config kepler --kernel hotspot --ctas 60
  run maxwell-sg --config maxwell --kernel sgemm --ctas 60
  run accel-k --config accelsim-kepler-titan --kernel srad2 --ctas 60
  run accel-v --config accelsim-qv100 --kernel lbm --ctas 60
  run accel-p --config accelsim-titanx-pascal --kernel mri-q --ctas 60
  run fcfs --config fermi-gtx480 --kernel lbm --ctas 60 --set dram.scheduler=fcfs
  run nopipe --config fermi-gtx480 --kernel hotspot --ctas 60 --set sm.pipeline_registers=false
  run ports2 --config fermi-gtx480 --kernel sgemm --ctas 60 --set sm.register_bank_ports=2 --set sm.dual_issue=true
  for t in "$repo"/tb/traces/*/; do
    [ -f "$t/kernelslist.g" ] && run "tr-$(basename "$t")" --config fermi-gtx480 --trace "$t"
  done
  for m in expars zorua; do run "mech-$m" --config fermi-gtx480 --kernel hotspot --ctas 45 --mechanism "$m"; done
  for m in occ bal bigsm bigsm_occ; do run "mech-$m" --config gtx580 --kernel hotspot --ctas 48 --mechanism "$m"; done
  echo "identity_reports: $(ls "$out"/*.json | wc -l) reports in $out"
}

compare_sets() {
  local ref=$1 new=$2 differ=0 n=0 f
  for f in "$ref"/*.json; do
    n=$((n + 1))
    if ! cmp -s "$f" "$new/$(basename "$f")"; then
      echo "DIFF $(basename "$f")"
      differ=1
    fi
  done
  [ "$n" -gt 0 ] || { echo "identity_reports: no reports in $ref" >&2; exit 2; }
  [ "$differ" = 0 ] && echo "IDENTICAL ($n reports)"
  return "$differ"
}

case "${1:-}" in
  write) [ $# = 3 ] || usage; write_set "$2" "$3" ;;
  compare) [ $# = 3 ] || usage; compare_sets "$2" "$3" ;;
  *) usage ;;
esac
