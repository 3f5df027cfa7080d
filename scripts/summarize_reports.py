#!/usr/bin/env python3
"""Prints a table of smshare run reports (the JSON of `smshare run --report`).

  scripts/summarize_reports.py [--markdown] REPORT.json|DIR ...

One row per report, in the order given (a directory stands for its *.json,
sorted). Columns:
  kernel        report["kernel"]["name"] (with @config when configs differ)
  CTAs/SM       resident_ctas_per_sm: most CTAs resident on one SM at once
  limited by    occupancy.limited_by: the resource that caps CTAs per SM
  cycles        GPU core cycles until the last SM finished
  IPC           warp instructions per cycle, whole GPU
  stall %       stall_cycles / active_cycles (a ready warp found no free
                operand collector: Jatala's pipeline stall)
  idle %        idle_cycles / active_cycles (no warp was ready)
  RF %, SPM %   rf_utilization, spm_utilization (allocated share, time-averaged)
  kinst/s       sim_rate_warp_inst_per_s / 1000: simulation speed
  energy mJ     energy.total_j * 1000, only when some report has an energy section
A report with "completed": false (a deadlock) is marked with "!" after its name.
Exit status: 0, or 1 if a file is missing or not a run report.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smshare_reports  # noqa: E402

TOOL = "summarize_reports"


def die(msg):
    smshare_reports.die(TOOL, msg)


def expand(args):
    return smshare_reports.expand(args)


def load(path):
    return smshare_reports.load_report(TOOL, path, ('kernel', 'config', 'cycles', 'ipc', 'active_cycles'))


def energy_j(r):
    """Total energy in joules, or None when the report has no energy section."""
    e = r.get("energy")
    if isinstance(e, dict):
        for key in ("total_j", "energy_j"):
            if isinstance(e.get(key), (int, float)):
                return float(e[key])
    return None


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def rows_of(reports):
    configs = {r["config"]["name"] for r in reports}
    with_energy = any(energy_j(r) is not None for r in reports)
    header = ["kernel", "CTAs/SM", "limited by", "cycles", "IPC", "stall %", "idle %", "RF %", "SPM %", "kinst/s"]
    if with_energy:
        header.append("energy mJ")
    rows = []
    for r in reports:
        name = r["kernel"]["name"]
        if len(configs) > 1:
            name += "@" + r["config"]["name"]
        if not r.get("completed", True):
            name += " !"
        active = r.get("active_cycles", 0)
        row = [
            name,
            str(r.get("resident_ctas_per_sm", "")),
            r.get("occupancy", {}).get("limited_by", ""),
            str(r["cycles"]),
            f"{r['ipc']:.3f}",
            f"{pct(r.get('stall_cycles', 0), active):.1f}",
            f"{pct(r.get('idle_cycles', 0), active):.1f}",
            f"{100 * r.get('rf_utilization', 0):.1f}",
            f"{100 * r.get('spm_utilization', 0):.1f}",
            f"{r.get('sim_rate_warp_inst_per_s', 0) / 1000:.0f}",
        ]
        if with_energy:
            e = energy_j(r)
            row.append("-" if e is None else f"{1000 * e:.3f}")
        rows.append(row)
    return header, rows


def print_table(header, rows, markdown):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" if i < 1 or header[i] == "limited by" else "---:" for i in range(len(header))) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    left = {0, 2}  # kernel and limited-by are text: left-aligned

    def line(cells):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(header).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row).rstrip())


def main(argv):
    markdown = "--markdown" in argv
    args = [a for a in argv if a != "--markdown"]
    if not args or any(a.startswith("-") for a in args):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    files = expand(args)
    if not files:
        die("no .json reports in " + " ".join(args))
    reports = [load(f) for f in files]
    header, rows = rows_of(reports)
    configs = sorted({r["config"]["name"] for r in reports})
    if len(configs) == 1:
        print(f"config {configs[0]}, {len(reports)} report(s); stall/idle in % of active SM-cycles")
    print_table(header, rows, markdown)
    if any(not r.get("completed", True) for r in reports):
        print("! = did not complete (deadlock: see the report's \"deadlock\" field)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
