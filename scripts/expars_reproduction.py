#!/usr/bin/env python3
"""Yu et al. 2018 (EXPARS) reproduction on fermi-gtx480: for the 14 kernels of
Table 3, the resident CTAs/SM, register-file and scratchpad utilization
(Sec. 4.2), the IPC of EXPARS over the baseline under LRR, GTO, two-level and
the two lazy two-level schedulers (Figs. 13 / 14), the energy ratio (Fig. 15)
and the mechanism's counters, beside the paper's headline numbers. Runs the
sweep configs/sweeps/expars-reproduction.yaml and writes, from its
results.json, docs/expars-reproduction-data.json, the generated section of
docs/expars-reproduction.md (between the GENERATED markers) and
docs/expars-ipc.png, and the spec's own plots in <out>/plots.

A sweep never repeats a run whose report it has, so a second invocation with
an unchanged smshare only rebuilds the outputs.

usage: scripts/expars_reproduction.py [--smshare build/smshare] [--jobs 2]
                                      [--out out/sweeps/expars-reproduction]
                                      [--no-sweep]   (use <out>/results.json as it is)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_sweep  # noqa: E402
from sweep_results import SweepError, spec_axes, subtree, sweep_and_read  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "configs", "sweeps", "expars-reproduction.yaml")
DOC = os.path.join(ROOT, "docs", "expars-reproduction.md")
DATA = os.path.join(ROOT, "docs", "expars-reproduction-data.json")
PLOT = os.path.join(ROOT, "docs", "expars-ipc.png")
# The profiles of Table 3's rows, by the paper's abbreviation (each profile's
# `source:` names its row).
TABLE3 = {"lbm": "LBM", "stencil": "ST", "expars-mq": "MQ", "expars-sge": "SGE", "btree": "BT",
          "hotspot": "HS", "leukocyte": "LEUK", "montecarlo": "MC", "convtexture": "CONV",
          "estimatepi": "EST", "mergesort": "MERG", "quasirandom": "QUA", "asian-rng": "SING1",
          "asian-paths": "SING2"}
SCHEDULERS = ["lrr", "gto", "two-level", "ltlws-lrr", "ltlws-gto"]
SCHEDULER_NAMES = {"lrr": "LRR", "gto": "GTO", "two-level": "TL", "ltlws-lrr": "LTLWS-LRR",
                   "ltlws-gto": "LTLWS-GTO"}
MECHANISMS = ["baseline", "expars"]
# The runs that say where the differences come from: GTO, one per variant.
DIAGNOSTICS = ["baseline-weight-numbering", "expars-declared-numbering", "expars-oc-8kb"]
DIAGNOSTIC_SCHEDULER = "gto"
# Utilization and the mechanism's counters are shown for one scheduler's runs.
DETAIL_SCHEDULER = "gto"
# The paper's numbers (Sec. 4.2, 4.4, 4.5), in percent.
PAPER = {
    "rf_utilization": {"baseline": 88.21, "expars": 99.85},
    "spm_utilization": {"baseline": 5.58, "expars": 53.78},
    "overall_utilization": {"baseline": 65.68, "expars": 87.28},
    "ipc_gain": {"lrr": 12.01, "gto": 9.34, "two-level": 7.55, "ltlws-lrr": 12.53, "ltlws-gto": 20.01},
    # Per-kernel IPC gains the text names: (kernel, scheduler) -> percent.
    "kernel_ipc_gain": {"btree/lrr": 30, "btree/gto": 30, "btree/two-level": 30, "expars-sge/gto": 52,
                        "expars-sge/lrr": 40, "expars-sge/two-level": 40, "expars-mq/ltlws-lrr": 37.54,
                        "expars-mq/ltlws-gto": 62.18},
    # Energy changes Sec. 4.5 names (LTLWS-LRR), percent.
    "kernel_energy_change": {"expars-mq/ltlws-lrr": -27, "stencil/ltlws-lrr": -10, "estimatepi/ltlws-lrr": -10,
                             "asian-rng/ltlws-lrr": -10},
}
# Each run's fields kept, by the results.json column they come from.
RUN_COLUMNS = {"ipc": "ipc", "cycles": "cycles", "warp_instructions": "warp_instructions",
               "resident_ctas": "resident_ctas_per_sm", "avg_resident_ctas": "avg_resident_ctas_per_sm",
               "rf_utilization": "rf_utilization", "spm_utilization": "spm_utilization",
               "energy_j": "energy.total_j", "l1_misses": "counters.l1.misses",
               "mshr_stall_cycles": "counters.l1.mshr_stall_cycles", "gate_stall_cycles": "stall_reasons.gate",
               "pipeline_stall_cycles": "stall_reasons.pipeline", "active_cycles": "active_cycles"}
# The SM's capacities, for the overall utilization (Sec. 4.2: register file
# and scratchpad together, each weighted by its bytes).
CAPACITY_COLUMNS = {"registers": "config.params.sm.registers", "scratchpad_bytes": "config.params.sm.scratchpad_bytes"}
BYTES_PER_REGISTER = 4


def die(msg):
    sys.exit(f"expars_reproduction: {msg}")


def run_fields(row):
    out = {key: row[col] for key, col in RUN_COLUMNS.items()}
    out["mechanism_stats"] = subtree(row, "mechanism_stats")
    out["deadlock"] = row["status"] == "deadlock"
    return out


def reproduction_data(results, spec):
    """docs/expars-reproduction-data.json's content from the sweep's rows. Runs
    with a `variant` are the diagnostic ones; the others are Figs. 13 / 14's."""
    axes = spec_axes(spec)
    if axes["kernel"] != list(TABLE3) or axes["scheduler"] != SCHEDULERS or list(axes["variant"]) != DIAGNOSTICS:
        raise SweepError(f"{SPEC}: expected the kernels {', '.join(TABLE3)}, the schedulers "
                         f"{', '.join(SCHEDULERS)} and the variants {', '.join(DIAGNOSTICS)}")
    runs = {k: {s: {} for s in SCHEDULERS} for k in TABLE3}
    diagnostics = {k: {} for k in TABLE3}
    ctas = dict(zip(axes["kernel"], axes["ctas"]))
    capacity = None
    for r in results.rows:
        k = r["kernel"]
        if k not in TABLE3:
            continue
        if "variant" in r:
            diagnostics[k][r["variant"]] = run_fields(r)
        else:
            runs[k][r["scheduler"]][r["mechanism"]] = run_fields(r)
            capacity = {key: int(r[col]) for key, col in CAPACITY_COLUMNS.items()}  # the params are text
    missing = [f"{k} {m} {s}" for k in TABLE3 for s in SCHEDULERS for m in MECHANISMS if m not in runs[k][s]]
    missing += [f"{k} {v}" for k in TABLE3 for v in DIAGNOSTICS if v not in diagnostics[k]]
    if missing:
        raise SweepError(f"{results.path}: no finished run for {', '.join(missing)}")
    return {"config": axes["config"][0], "ctas": ctas, "abbreviations": TABLE3, "capacity": capacity,
            "runs": runs, "diagnostics": diagnostics, "paper": PAPER}


# --- derived numbers

def gain(new, old):
    """new over old as a change in percent."""
    return 100 * (new / old - 1)


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def overall_utilization(run, capacity):
    """Sec. 4.2's overall utilization: register file and scratchpad bytes in use
    over both capacities."""
    rf_bytes = BYTES_PER_REGISTER * capacity["registers"]
    return (run["rf_utilization"] * rf_bytes + run["spm_utilization"] * capacity["scratchpad_bytes"]) / (
        rf_bytes + capacity["scratchpad_bytes"])


def ipc_gain(d, k, s):
    r = d["runs"][k][s]
    return gain(r["expars"]["ipc"], r["baseline"]["ipc"])


def energy_change(d, k, s):
    r = d["runs"][k][s]
    return gain(r["expars"]["energy_j"], r["baseline"]["energy_j"])


def finished(d, s):
    """The kernels whose baseline and EXPARS runs under scheduler s both ran to
    the end: a deadlocked run's IPC and energy cover only the part before the
    SMs stopped, so the averages leave the kernel out (the tables say so)."""
    return [k for k in TABLE3 if not any(d["runs"][k][s][m]["deadlock"] for m in MECHANISMS)]


def averages(d):
    """The averages over the kernels beside the paper's: utilization (percent,
    DETAIL_SCHEDULER's runs), IPC and energy changes per scheduler (percent,
    over the kernels `finished` names)."""
    detail = {k: d["runs"][k][DETAIL_SCHEDULER] for k in finished(d, DETAIL_SCHEDULER)}
    out = {}
    for m in MECHANISMS:
        out[f"rf_utilization/{m}"] = 100 * mean(r[m]["rf_utilization"] for r in detail.values())
        out[f"spm_utilization/{m}"] = 100 * mean(r[m]["spm_utilization"] for r in detail.values())
        out[f"overall_utilization/{m}"] = 100 * mean(overall_utilization(r[m], d["capacity"]) for r in detail.values())
    for s in SCHEDULERS:
        out[f"ipc_gain/{s}"] = mean(ipc_gain(d, k, s) for k in finished(d, s))
        out[f"energy_change/{s}"] = mean(energy_change(d, k, s) for k in finished(d, s))
    return out


def deadlock_mark(d, k, s):
    """A table cell's note when kernel k deadlocked under scheduler s (with
    either mechanism: the change is then up to the deadlock)."""
    return "" if k in finished(d, s) else " (deadlock)"


def over(d, s):
    """How many kernels an average under scheduler s is over, when not all."""
    n = len(finished(d, s))
    return "" if n == len(TABLE3) else f" ({n} of {len(TABLE3)} kernels: the others deadlocked)"


# --- the generated section

def percent(x):
    return f"{100 * x:.1f} %"


def signed(x):
    return f"{x:+.1f} %"


def per_kernel_table(d):
    out = [f"\n**Per kernel** ({d['config']}; utilization from the {SCHEDULER_NAMES[DETAIL_SCHEDULER]} runs): "
           "CTAs run, resident CTAs/SM (the most one SM held, and the average over its active cycles), register-file "
           "and scratchpad utilization "
           "(`rf_utilization`, `spm_utilization`), and the IPC of EXPARS over the baseline per scheduler\n",
           "| kernel (Table 3) | CTAs | CTAs/SM base / EXPARS (average) | RF util. base → EXPARS | "
           "SPM util. base → EXPARS | "
           + " | ".join(f"IPC {SCHEDULER_NAMES[s]}" for s in SCHEDULERS) + " |",
           "|---|---|---|---|---|" + "---|" * len(SCHEDULERS)]
    for k, abbr in TABLE3.items():
        b, e = d["runs"][k][DETAIL_SCHEDULER]["baseline"], d["runs"][k][DETAIL_SCHEDULER]["expars"]
        cells = [signed(ipc_gain(d, k, s)) + deadlock_mark(d, k, s) for s in SCHEDULERS]
        out.append(f"| {k} ({abbr}) | {d['ctas'][k]} | {b['resident_ctas']} / {e['resident_ctas']} "
                   f"({b['avg_resident_ctas']:.2f} / {e['avg_resident_ctas']:.2f}) | "
                   f"{percent(b['rf_utilization'])} → {percent(e['rf_utilization'])} | "
                   f"{percent(b['spm_utilization'])} → {percent(e['spm_utilization'])} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def energy_table(d):
    out = ["\n**Energy** (`energy.total_j`, EXPARS over the baseline, per scheduler)\n",
           "| kernel | " + " | ".join(SCHEDULER_NAMES[s] for s in SCHEDULERS) + " |",
           "|---|" + "---|" * len(SCHEDULERS)]
    for k, abbr in TABLE3.items():
        out.append(f"| {abbr} | " + " | ".join(signed(energy_change(d, k, s)) + deadlock_mark(d, k, s)
                                               for s in SCHEDULERS) + " |")
    return "\n".join(out)


def stats_table(d):
    """EXPARS's counters in the DETAIL_SCHEDULER runs, and the L1's beside the
    baseline's."""
    s = DETAIL_SCHEDULER
    out = [f"\n**What EXPARS did** ({SCHEDULER_NAMES[s]} runs, counts summed over the SMs): bundles prefetched, "
           "operand-cache fills, evictions and write-backs (and evictions per prefetched bundle), warp-cycles "
           "queued for operand-cache space (`prefetch_space_wait_cycles`, and per prefetched bundle), "
           "SM-cycles with no issue because of EXPARS's gate (`stall_reasons.gate`, share of active cycles), "
           "and the L1 misses and MSHR stall cycles of the baseline → EXPARS\n",
           "| kernel | bundles | fills | evictions (per bundle) | write-backs | space-wait cycles (per bundle) | "
           "gate stalls | L1 misses base → EXPARS | MSHR stall cycles base → EXPARS |",
           "|---|---|---|---|---|---|---|---|---|"]
    for k, abbr in TABLE3.items():
        b, e = d["runs"][k][s]["baseline"], d["runs"][k][s]["expars"]
        st = e["mechanism_stats"]
        bundles = st["bundles_prefetched"]
        per = (lambda n: f"{n / bundles:.1f}") if bundles else (lambda n: "–")
        out.append(f"| {abbr} | {bundles:,} | {st['operand_cache_fills']:,} | "
                   f"{st['operand_cache_evictions']:,} ({per(st['operand_cache_evictions'])}) | "
                   f"{st['operand_cache_writebacks']:,} | {st['prefetch_space_wait_cycles']:,} "
                   f"({per(st['prefetch_space_wait_cycles'])}) | "
                   f"{e['gate_stall_cycles']:,} ({percent(e['gate_stall_cycles'] / e['active_cycles'])}) | "
                   f"{b['l1_misses']:,} → {e['l1_misses']:,} | "
                   f"{b['mshr_stall_cycles']:,} → {e['mshr_stall_cycles']:,} |")
    return "\n".join(out)


def diagnostics_table(d):
    s = DIAGNOSTIC_SCHEDULER
    out = [f"\n**Where the IPC goes** ({SCHEDULER_NAMES[s]}): IPC over the baseline of EXPARS as run (registers "
           "numbered by weight), of EXPARS with the declared numbering (and the bundles it prefetched, by weight → "
           "declared), of EXPARS with an 8 KB operand cache (and the warp-cycles queued for space, 2 KB → 8 KB), "
           "and of the baseline with the numbering by weight (over the baseline as run)\n",
           "| kernel | EXPARS | declared numbering | bundles prefetched | 8 KB operand cache | space-wait cycles | "
           "baseline, numbering by weight |",
           "|---|---|---|---|---|---|---|"]
    for k, abbr in TABLE3.items():
        run = d["runs"][k][s]
        base, stats = run["baseline"]["ipc"], run["expars"]["mechanism_stats"]
        v = d["diagnostics"][k]
        declared, large = v["expars-declared-numbering"], v["expars-oc-8kb"]
        out.append(f"| {abbr} | {signed(ipc_gain(d, k, s))} | {signed(gain(declared['ipc'], base))} | "
                   f"{stats['bundles_prefetched']:,} → {declared['mechanism_stats']['bundles_prefetched']:,} | "
                   f"{signed(gain(large['ipc'], base))} | {stats['prefetch_space_wait_cycles']:,} → "
                   f"{large['mechanism_stats']['prefetch_space_wait_cycles']:,} | "
                   f"{signed(gain(v['baseline-weight-numbering']['ipc'], base))} |")
    means = [mean(gain(d["diagnostics"][k][v]["ipc"], d["runs"][k][s]["baseline"]["ipc"]) for k in TABLE3)
             for v in ("expars-declared-numbering", "expars-oc-8kb", "baseline-weight-numbering")]
    out.append(f"| mean | {signed(mean(ipc_gain(d, k, s) for k in TABLE3))} | {signed(means[0])} | | "
               f"{signed(means[1])} | | {signed(means[2])} |")
    return "\n".join(out)


def summary_table(d):
    """The averages beside the paper's headline numbers, and the per-kernel
    numbers its text names."""
    a, p = averages(d), d["paper"]
    out = [f"\n**Averages over the 14 kernels, ours / paper** (utilization from the "
           f"{SCHEDULER_NAMES[DETAIL_SCHEDULER]} runs; changes are arithmetic means of the per-kernel changes)\n",
           "| quantity | ours | paper |", "|---|---|---|"]
    for key, name in (("rf_utilization", "register-file utilization"), ("spm_utilization", "scratchpad utilization"),
                      ("overall_utilization", "overall utilization (RF + SPM bytes)")):
        ours_b, ours_e = a[f"{key}/baseline"], a[f"{key}/expars"]
        out.append(f"| {name}, baseline → EXPARS | "
                   f"{ours_b:.2f} % → {ours_e:.2f} % ({ours_e - ours_b:+.2f} points) | "
                   f"{p[key]['baseline']:.2f} % → {p[key]['expars']:.2f} % "
                   f"({p[key]['expars'] - p[key]['baseline']:+.2f} points) |")
    for s in SCHEDULERS:
        out.append(f"| IPC over the baseline, {SCHEDULER_NAMES[s]}{over(d, s)} | {signed(a[f'ipc_gain/{s}'])} | "
                   f"{signed(p['ipc_gain'][s])} |")
    for s in SCHEDULERS:
        out.append(f"| energy over the baseline, {SCHEDULER_NAMES[s]}{over(d, s)} | "
                   f"{signed(a[f'energy_change/{s}'])} | "
                   "below 0 (Fig. 15, no number printed) |")
    for point, value in p["kernel_ipc_gain"].items():
        k, s = point.split("/")
        out.append(f"| IPC over the baseline, {TABLE3[k]} {SCHEDULER_NAMES[s]} | {signed(ipc_gain(d, k, s))} | "
                   f"{'about ' if value == int(value) else ''}{signed(value)} |")
    for point, value in p["kernel_energy_change"].items():
        k, s = point.split("/")
        out.append(f"| energy over the baseline, {TABLE3[k]} {SCHEDULER_NAMES[s]} | {signed(energy_change(d, k, s))} | "
                   f"{'about ' if k != 'expars-mq' else ''}{signed(value)} |")
    return "\n".join(out)


def section(d):
    """The markdown between the GENERATED markers, and a one-line summary."""
    a = averages(d)
    text = "\n".join([summary_table(d), per_kernel_table(d), energy_table(d), stats_table(d), diagnostics_table(d)])
    summary = ", ".join(f"IPC {SCHEDULER_NAMES[s]} {signed(a[f'ipc_gain/{s}'])}" for s in SCHEDULERS)
    return "\n" + text + "\n", summary


def markers():
    return ("<!-- GENERATED by scripts/expars_reproduction.py: begin -->",
            "<!-- GENERATED by scripts/expars_reproduction.py: end -->")


def write_section(d):
    text = open(DOC).read()
    begin, end = markers()
    if begin not in text or end not in text:
        die(f"{DOC}: no '{begin}' ... '{end}' to write the tables between")
    generated, summary = section(d)
    i, j = text.index(begin) + len(begin), text.index(end)
    with open(DOC, "w") as f:
        f.write(text[:i] + generated + text[j:])
    print(f"tables: {summary} -> {DOC}")


def plot(d):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 4.5))
    kernels = list(TABLE3)
    width = 0.8 / len(SCHEDULERS)
    for i, s in enumerate(SCHEDULERS):
        ys = [d["runs"][k][s]["expars"]["ipc"] / d["runs"][k][s]["baseline"]["ipc"] for k in kernels]
        bars = ax.bar([j + (i - (len(SCHEDULERS) - 1) / 2) * width for j in range(len(kernels))], ys, width,
                      label=f"{SCHEDULER_NAMES[s]} (paper's mean {1 + d['paper']['ipc_gain'][s] / 100:.3f})")
        for bar, k in zip(bars, kernels):
            if k not in finished(d, s):
                bar.set_hatch("///")
    ax.axhline(1, color="black", linewidth=0.6)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels([TABLE3[k] for k in kernels])
    ax.set_ylabel("IPC of EXPARS / baseline")
    ax.legend(fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    ax.set_title(f"EXPARS Figs. 13 / 14 on {d['config']}: IPC of EXPARS over the baseline per scheduler "
                 "(smshare profiles; hatched: deadlocked, up to the deadlock)", fontsize=10)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=80)
    print(f"plot -> {PLOT} ({os.path.getsize(PLOT) // 1024} KB)")


def main():
    plot_sweep.ensure_matplotlib()
    results, spec, out = sweep_and_read("expars_reproduction", __doc__.split("\n")[0], SPEC,
                                        os.path.join(ROOT, "out", "sweeps", "expars-reproduction"),
                                        os.path.join(ROOT, "build", "smshare"))
    try:
        data = reproduction_data(results, spec)
    except SweepError as e:
        die(str(e))
    with open(DATA, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    write_section(data)
    plot(data)
    if plot_sweep.main([out, "--spec", SPEC]) != 0:
        die(f"plotting {SPEC}'s plots: entries failed")


if __name__ == "__main__":
    main()
