#!/usr/bin/env python3
"""Vijaykumar et al. 2016 (Zorua) reproduction on fermi-gtx480, Sec. 6.1 and
Fig. 9: for the eight applications of Table 3, the execution time at every
specification point of configs/sweeps/zorua-cliffs.yaml (registers per
thread, threads per CTA, scratchpad per CTA; constant work), under Baseline
and Zorua, and per application and mechanism the performance range, the best
point and the average over the points. Runs the sweep and writes, from its
results.json, <out>/zorua-reproduction.md (the table), <out>/zorua-performance.png
(Fig. 9: each point's performance over the slowest Baseline point) and the
spec's own plots in <out>/plots.

Performance range (Sec. 6.1, "the worst resource specification ... achieves
X % lower performance than the best"): with execution times T over an
application's points, (max T - min T) / min T, i.e. the best point's
performance over the worst's, minus one. The paper's averages over its
applications: Baseline 96.6 %, WLM 88.3 %, Zorua 48.2 % (SSSP's Baseline
range: 23.8 %). Execution time is the run's `cycles` (one clock for both
mechanisms). Averages over points are arithmetic means of the cycles.

Mechanisms that `smshare run` does not simulate (`smshare list mechanisms`:
"cost only") are left out of the sweep, and their columns say "not run" (a
build from before Zorua was simulated gives the Baseline half). A sweep never
repeats a run whose report it has.

usage: scripts/zorua_reproduction.py [--smshare build/smshare] [--jobs 2]
                                     [--out out/sweeps/zorua-cliffs]
                                     [--no-sweep]   (use <out>/results.json as it is)
"""
import os
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_sweep  # noqa: E402
from sweep_results import SweepError, sweep_and_read  # noqa: E402

TOOL = "zorua_reproduction"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "configs", "sweeps", "zorua-cliffs.yaml")
# Table 3's rows by the paper's abbreviation (each profile's paper.source names its row).
TABLE3 = {"barnes-hut": "BH", "dct": "DCT", "mst": "MST", "reduction": "RD", "nqueens": "NQU",
          "scan": "SLA", "scalarprod": "SP", "sssp": "SSSP"}
MECHANISMS = ["baseline", "zorua"]
MECHANISM_NAMES = {"baseline": "Baseline", "zorua": "Zorua"}
# The specification's axes, as results.json names them, and how a point is shown.
SPEC_AXES = [("regs_per_thread", "R"), ("threads_per_cta", "T"), ("smem_per_cta", "S")]
# Sec. 6.1's averages over the applications, in percent.
PAPER_RANGE = {"baseline": 96.6, "wlm": 88.3, "zorua": 48.2}
# Work varies with partial warps and the last CTA's rounding only; more than
# this between an application's points means the runs did not hold it constant.
WORK_TOLERANCE = 0.05


def die(msg):
    sys.exit(f"{TOOL}: {msg}")


def simulated_mechanisms(smshare):
    """The mechanisms `smshare run` accepts, from `smshare list mechanisms`
    (rows "<name> simulated ..." against "<name> cost only ...")."""
    try:
        out = subprocess.run([smshare, "list", "mechanisms"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"{smshare} list mechanisms failed: {e}")
    return {cols[0] for cols in (line.split() for line in out.splitlines()) if len(cols) > 1 and cols[1] == "simulated"}


def runnable_spec(smshare, tmpdir):
    """SPEC itself, or a copy in tmpdir whose mechanism axis keeps only the
    mechanisms smshare simulates (the runs' hashes, so their folders, are the
    same as the full spec's)."""
    spec = yaml.safe_load(open(SPEC))
    axis = spec["axes"]["mechanism"]
    simulated = simulated_mechanisms(smshare)
    keep = [m for m in axis if m in simulated]
    if keep == axis:
        return SPEC
    if not keep:
        die(f"{SPEC}: none of the mechanisms {', '.join(axis)} is simulated by {smshare}")
    print(f"{TOOL}: not simulated yet, left out: {', '.join(m for m in axis if m not in keep)}", file=sys.stderr)
    spec["axes"]["mechanism"] = keep
    path = os.path.join(tmpdir, os.path.basename(SPEC))
    with open(path, "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False)
    return path


# --- the numbers

def points(results):
    """{kernel: {mechanism: [(point, cycles, warp_instructions, deadlocked)]}}
    where point is ((axis, value), ...) over the specification axes a run has."""
    out = {k: {m: [] for m in MECHANISMS} for k in TABLE3}
    for r in results.rows:
        k, m = r.get("kernel"), r.get("mechanism")
        if k not in out or m not in out[k]:
            continue
        point = tuple((a, int(r[a])) for a, _ in SPEC_AXES if a in r)
        out[k][m].append((point, r["cycles"], r["warp_instructions"], r["status"] == "deadlock"))
    return out


def warps(results):
    """{kernel: {mechanism: [average warps per SM of each finished run]}}: for
    Zorua the schedulable warps (the paper's Fig. 12 metric: its coordinator
    counts them), for Baseline the resident warps (an upper bound of its
    schedulable warps: it does not leave out the ones at a barrier)."""
    out = {k: {m: [] for m in MECHANISMS} for k in TABLE3}
    for r in results.rows:
        k, m = r.get("kernel"), r.get("mechanism")
        if k not in out or m not in out[k] or r["status"] == "deadlock" or not r.get("cycles"):
            continue
        if m == "zorua":
            sms = int(r["config.params.gpu.num_sms"])
            out[k][m].append(r["mechanism_stats.schedulable_warp_cycles"] / (r["cycles"] * sms))
        else:
            out[k][m].append(r["avg_resident_warps_per_sm"])
    return out


def warps_table(w):
    lines = ["| application | Baseline resident warps/SM (mean over points) | Zorua schedulable warps/SM | "
             "Zorua over Baseline |", "|---|---|---|---|"]
    ratios = []
    for k, abbr in TABLE3.items():
        b, z = w[k]["baseline"], w[k]["zorua"]
        if not b or not z:
            lines.append(f"| {k} ({abbr}) | | | not run |")
            continue
        mb, mz = sum(b) / len(b), sum(z) / len(z)
        ratios.append(mz / mb)
        lines.append(f"| {k} ({abbr}) | {mb:.1f} | {mz:.1f} | {100 * (mz / mb - 1):+.1f} % |")
    if ratios:
        lines.append(f"| mean | | | {100 * (sum(ratios) / len(ratios) - 1):+.1f} % (paper, schedulable against "
                     "schedulable: +32.8 %) |")
    return "\n".join(lines)


def check_constant_work(runs):
    """Sec. 5.2: every point of an application does the same work. A warning
    (not an error: the spec's frontend.constant_work may be missing while it is
    being added) naming the applications whose work varies."""
    for k, by_mech in runs.items():
        work = [w for rs in by_mech.values() for _, _, w, _ in rs]
        if work and max(work) > (1 + WORK_TOLERANCE) * min(work):
            print(f"{TOOL}: warning: {k}: warp instructions vary from {min(work):,} to {max(work):,} across its "
                  "points: the work was not held constant (frontend.constant_work)", file=sys.stderr)


def summary(rs):
    """Performance range (percent), best point, its cycles and the mean cycles
    of one application under one mechanism; None when it has no finished run.
    Deadlocked runs are left out (their cycles stop at the deadlock)."""
    done = [(p, c) for p, c, _, dead in rs if not dead]
    if not done:
        return None
    best = min(done, key=lambda pc: pc[1])
    worst = max(c for _, c in done)
    return {"range": 100 * (worst - best[1]) / best[1], "best_point": best[0], "best": best[1],
            "mean": sum(c for _, c in done) / len(done), "points": len(done),
            "deadlocks": sum(1 for *_, dead in rs if dead)}


def point_label(point):
    short = dict(SPEC_AXES)
    return " ".join(f"{short[a]}{v}" for a, v in point)


# --- the table

def table(runs):
    stats = {k: {m: summary(runs[k][m]) for m in MECHANISMS} for k in TABLE3}
    head = ["application (Table 3)", "points"]
    for m in MECHANISMS:
        name = MECHANISM_NAMES[m]
        head += [f"{name} range", f"{name} best point (cycles)", f"{name} mean cycles"]
    head += ["Zorua best over Baseline best"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ranges = {m: [] for m in MECHANISMS}
    for k, abbr in TABLE3.items():
        s = stats[k]
        base = s["baseline"]
        n = base["points"] if base else 0
        cells = [f"{k} ({abbr})", str(n) + (f" ({base['deadlocks']} deadlocked)" if base and base["deadlocks"] else "")]
        for m in MECHANISMS:
            if s[m] is None:
                cells += ["not run"] * 3
                continue
            ranges[m].append(s[m]["range"])
            cells += [f"{s[m]['range']:.1f} %", f"{point_label(s[m]['best_point'])} ({s[m]['best']:,})",
                      f"{s[m]['mean']:,.0f}"]
        z = s["zorua"]
        cells.append(f"{100 * (base['best'] / z['best'] - 1):+.1f} %" if base and z else "not run")
        out.append("| " + " | ".join(cells) + " |")
    mean_cells = ["mean over the applications run", ""]
    for m in MECHANISMS:
        r = ranges[m]
        mean_cells += [f"{sum(r) / len(r):.1f} % over {len(r)} (paper {PAPER_RANGE[m]} %)" if r else
                       f"not run (paper {PAPER_RANGE[m]} %)", "", ""]
    mean_cells.append("")
    out.append("| " + " | ".join(mean_cells) + " |")
    return "\n".join(out)


def write_markdown(path, runs, config, warp_counts=None):
    text = (f"# Zorua reproduction: performance range over Table 3's specifications ({config})\n\n"
            "Generated by scripts/zorua_reproduction.py from configs/sweeps/zorua-cliffs.yaml. Range: "
            "(max - min) / min of the execution time (`cycles`) over the application's points (Sec. 6.1); "
            "best point: R registers per thread, T threads per CTA, S scratchpad bytes per CTA; mean: "
            "over the points. Zorua best over Baseline best: the Baseline's best execution time over "
            "Zorua's, minus one (Sec. 6.2: 12.8 % on average in the paper). The paper's mean ranges: "
            f"Baseline {PAPER_RANGE['baseline']} %, WLM {PAPER_RANGE['wlm']} % (not modelled here), "
            f"Zorua {PAPER_RANGE['zorua']} %.\n\n" + table(runs) + "\n"
            + ("\n" + warps_table(warp_counts) + "\n" if warp_counts else ""))
    with open(path, "w") as f:
        f.write(text)
    print(f"table -> {path}")
    print(table(runs))
    if warp_counts:
        print(warps_table(warp_counts))


# --- Fig. 9

def plot(path, runs, config):
    """Fig. 9: every point's performance (1 / cycles) over the application's
    slowest Baseline point, a box per application and mechanism."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / len(MECHANISMS)
    for i, m in enumerate(MECHANISMS):
        data, where = [], []
        for j, k in enumerate(TABLE3):
            base = [c for _, c, _, dead in runs[k]["baseline"] if not dead]
            mine = [c for _, c, _, dead in runs[k][m] if not dead]
            if base and mine:
                slowest = max(base)
                data.append([slowest / c for c in mine])
                where.append(j + (i - (len(MECHANISMS) - 1) / 2) * width)
        if data:
            box = ax.boxplot(data, positions=where, widths=width * 0.9, patch_artist=True, showmeans=True,
                             meanprops={"marker": "x", "markeredgecolor": "black"})
            for patch in box["boxes"]:
                patch.set_facecolor(f"C{i}")
        ax.plot([], [], color=f"C{i}", linewidth=8, label=MECHANISM_NAMES[m] + ("" if data else " (not run)"))
    ax.set_xticks(range(len(TABLE3)))
    ax.set_xticklabels(TABLE3.values())
    ax.set_xlim(-0.6, len(TABLE3) - 0.4)
    ax.set_ylabel("performance over the slowest\nBaseline point")
    ax.legend(fontsize=8)
    ax.set_title(f"Zorua Fig. 9 on {config}: performance over Table 3's specification points "
                 "(smshare profiles; x: mean)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    print(f"plot -> {path}")


def main():
    plot_sweep.ensure_matplotlib()
    with tempfile.TemporaryDirectory() as tmp:
        results, _, out = sweep_and_read(TOOL, __doc__.split("\n")[0], SPEC,
                                         os.path.join(ROOT, "out", "sweeps", "zorua-cliffs"),
                                         os.path.join(ROOT, "build", "smshare"),
                                         spec_to_run=lambda smshare: runnable_spec(smshare, tmp))
    if results.skipped:
        print(f"{TOOL}: warning: runs without a report left out: "
              + ", ".join(f"{n} {s}" for s, n in sorted(results.skipped.items())), file=sys.stderr)
    runs = points(results)
    if not any(runs[k]["baseline"] for k in TABLE3):
        die(f"{results.path}: no finished Baseline run of {', '.join(TABLE3)}")
    check_constant_work(runs)
    configs = sorted({r["config"] for r in results.rows if "config" in r})
    config = ", ".join(configs)
    write_markdown(os.path.join(out, "zorua-reproduction.md"), runs, config, warps(results))
    plot(os.path.join(out, "zorua-performance.png"), runs, config)
    if plot_sweep.main([out, "--spec", SPEC]) != 0:
        die(f"plotting {SPEC}'s plots: entries failed")


if __name__ == "__main__":
    try:
        main()
    except SweepError as e:
        die(str(e))
