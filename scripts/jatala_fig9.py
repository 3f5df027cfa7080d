#!/usr/bin/env python3
"""Jatala et al. 2016 reproduction on jatala-fermi: Tables VI / VIII (resident
CTAs per sharing level, by the occupancy calculator and by simulation), Tables
V / VII (the change of GPU thread-IPC with the sharing level, ours beside the
paper's) and the Fig. 9 variants (IPC, resident CTAs, stall and idle cycles) for the Set-1
(register-limited, regshare) and Set-2 (scratchpad-limited, spmshare) kernel
profiles. Runs the sweep configs/sweeps/jatala-fig9.yaml (which holds the
runs: kernels, sharing levels, variants) and writes, from its results.json,
docs/jatala-reproduction-data.json, the tables of docs/jatala-reproduction.md
(between the GENERATED markers), docs/jatala-fig9.png, and the spec's own
plots in <out>/plots.

A sweep never repeats a run whose report it has, so a second invocation with
an unchanged smshare only rebuilds the outputs.

usage: scripts/jatala_fig9.py [--smshare build/smshare] [--jobs 2] [--out out/sweeps/jatala-fig9]
                              [--no-sweep]   (use <out>/results.json as it is)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_sweep  # noqa: E402
from sweep_results import SweepError, label, same, spec_axes, subtree, sweep_and_read  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "configs", "sweeps", "jatala-fig9.yaml")
# The paper's resident CTAs/SM at the spec's sharing levels (0 % ... 90 %).
TABLE6 = {"backprop": [5, 5, 5, 5, 6, 6], "btree": [2, 2, 2, 3, 3, 3], "hotspot": [3, 3, 3, 4, 4, 6],
          "lib": [4, 4, 5, 5, 6, 8], "mum": [4, 4, 4, 5, 5, 6], "mri-q": [5, 5, 5, 5, 6, 6],
          "sgemm": [5, 5, 5, 5, 6, 8], "stencil": [2, 2, 2, 2, 2, 3]}
TABLE8 = {"conv1": [6, 6, 6, 6, 7, 8], "conv2": [3, 3, 3, 3, 3, 4], "lavamd": [2, 2, 2, 2, 2, 4],
          "nw1": [7, 7, 7, 8, 8, 8], "nw2": [7, 7, 7, 8, 8, 8], "srad1": [2, 2, 2, 3, 4, 4],
          "srad2": [3, 3, 3, 3, 3, 5]}
# The paper's GPU IPC (thread instructions per cycle) at the same levels, LRR,
# no optimization.
TABLE5 = {"backprop": [389.9, 389.9, 389.9, 389.9, 394.1, 392.8],
          "btree": [318.5, 318.5, 318.5, 323.3, 326.1, 326.1],
          "hotspot": [489.5, 489.5, 489.5, 475.2, 476.9, 503.59],
          "lib": [218.0, 218.0, 203.0, 203.0, 216.3, 223.3],
          "mum": [190.5, 190.5, 190.5, 192.1, 192.4, 194.9],
          "mri-q": [303.7, 303.7, 303.7, 303.7, 305.3, 305.0],
          "sgemm": [490.6, 490.6, 490.6, 490.6, 446.3, 496.7],
          "stencil": [448.2, 448.2, 448.2, 448.2, 448.2, 440.8]}
TABLE7 = {"conv1": [280.33, 280.33, 280.33, 280.33, 288.82, 292.24],
          "conv2": [119.29, 119.29, 119.29, 119.29, 119.02, 124.6],
          "lavamd": [452.29, 452.29, 452.29, 452.29, 452.29, 578.85],
          "nw1": [39.96, 39.96, 39.96, 38.67, 38.37, 38.37],
          "nw2": [41.93, 41.93, 41.93, 42.14, 40.54, 39.72],
          "srad1": [188.13, 188.13, 188.13, 229.38, 208.27, 204.32],
          "srad2": [63.48, 63.48, 63.48, 63.52, 63.62, 68.29]}
SET1, SET2 = list(TABLE6), list(TABLE8)
REFERENCE = "Unshared-LRR"  # the variant Fig. 9's speed-ups are relative to
# A sharing level's IPC change agrees with the paper's when the two are at
# most this many percentage points apart.
AGREEMENT_POINTS = 3.0
# Tables V / VII's runs, per kernel and level: the report columns kept, and
# the lock statistics that say where warps waited (mechanism_stats).
BY_LEVEL_COLUMNS = {"thread_ipc": "thread_ipc", "cycles": "cycles", "resident_ctas": "resident_ctas_per_sm",
                    "avg_resident_ctas": "avg_resident_ctas_per_sm", "num_sms": "config.params.gpu.num_sms"}
BY_LEVEL_KEYS = list(BY_LEVEL_COLUMNS) + ["lock_waits", "lock_wait_cycles", "phase_lock_wait_cycles"]
IPC_REGION = "Tables V / VII"  # the generated region of docs/jatala-reproduction.md they are written to


def die(msg):
    sys.exit(f"jatala_fig9: {msg}")


def reproduction_data(results, spec):
    """docs/jatala-reproduction-data.json's content from the sweep's rows, and
    the variants in the spec's order. Runs with a `variant` are Fig. 9's; runs
    with `ctas` (12 CTAs on one SM) are the residency runs; the others are
    Tables V / VII's runs at each sharing level on the whole GPU."""
    axes = spec_axes(spec)
    levels, variants = axes["sharing"], axes["variant"]
    if len(levels) != len(TABLE6["backprop"]) or REFERENCE not in variants:
        raise SweepError(f"{SPEC}: expected {len(TABLE6['backprop'])} sharing levels and a variant {REFERENCE}")
    paper = {**TABLE6, **TABLE8}
    occ = {k: [None] * len(levels) for k in paper}
    sim = {k: [None] * len(levels) for k in paper}
    fig9 = {k: {} for k in paper}
    by_level = {k: {key: [None] * len(levels) for key in BY_LEVEL_KEYS} for k in paper}
    for r in results.rows:
        k = r["kernel"]
        if k not in paper:
            continue
        if "variant" in r:
            fig9[k][r["variant"]] = {
                "ipc": r["ipc"], "cycles": r["cycles"], "resident_ctas": r["resident_ctas_per_sm"],
                "stall_cycles": r["stall_cycles"], "idle_cycles": r["idle_cycles"],
                "l1_misses": r["counters.l1.misses"], "deadlock": r["status"] == "deadlock",
                "mechanism_stats": subtree(r, "mechanism_stats")}
        elif "ctas" not in r:
            i = next(i for i, lvl in enumerate(levels) if same(lvl, r["sharing"]))
            for key, col in BY_LEVEL_COLUMNS.items():
                by_level[k][key][i] = r[col]
            by_level[k]["num_sms"][i] = int(r["config.params.gpu.num_sms"])  # the config's params are text
            stats = subtree(r, "mechanism_stats")
            by_level[k]["lock_waits"][i] = stats.get("lock_waits", 0)
            by_level[k]["lock_wait_cycles"][i] = stats.get("lock_wait_cycles", 0)
            by_level[k]["phase_lock_wait_cycles"][i] = stats.get("phase_lock_wait_cycles", {})
        else:
            i = next(i for i, lvl in enumerate(levels) if same(lvl, r["sharing"]))
            # The calculator's CTAs/SM is in every report; the simulator's is what one SM reached.
            occ[k][i] = r["occupancy.resident_ctas_per_sm"]
            sim[k][i] = r["resident_ctas_per_sm"]
    missing = [f"{k} at sharing {label(levels[i])}" for k in paper for i in range(len(levels)) if sim[k][i] is None]
    missing += [f"{k} {v}" for k in paper for v in variants if v not in fig9[k]]
    missing += [f"{k} at sharing {label(levels[i])} on the whole GPU (Tables V / VII)"
                for k in paper for i in range(len(levels)) if by_level[k]["thread_ipc"][i] is None]
    if missing:
        raise SweepError(f"{results.path}: no finished run for {', '.join(missing)}")
    data = {"config": axes["config"][0], "levels": [label(lvl) for lvl in levels],
            "paper": paper, "calculator": occ, "simulator": sim, "fig9": fig9,
            "paper_thread_ipc": {**TABLE5, **TABLE7}, "ipc_by_level": by_level}
    return data, variants


def main():
    plot_sweep.ensure_matplotlib()
    results, spec, out = sweep_and_read("jatala_fig9", __doc__.split("\n")[0], SPEC,
                                        os.path.join(ROOT, "out", "sweeps", "jatala-fig9"),
                                        os.path.join(ROOT, "build", "smshare"))
    try:
        data, variants = reproduction_data(results, spec)
    except SweepError as e:
        die(str(e))
    with open(os.path.join(ROOT, "docs", "jatala-reproduction-data.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    write_tables(data, variants)
    plot(data, variants)
    if plot_sweep.main([out, "--spec", SPEC]) != 0:
        die(f"plotting {SPEC}'s plot: entries failed")


def percent(level):
    return f"{int(round(float(level) * 100))} %"


def ipc_changes(d):
    """Tables V / VII compared: for every kernel and sharing level above 0 %,
    (kernel, level, our change, the paper's change) of the GPU thread-IPC over
    the same kernel's 0 % run, in percent. Our 0 % is the mechanism at sharing
    0 with LRR, as the paper's 0 % column is its sharing approach at 0 %."""
    out = []
    for k in SET1 + SET2:
        ours, paper = d["ipc_by_level"][k]["thread_ipc"], d["paper_thread_ipc"][k]
        for i in range(1, len(d["levels"])):
            out.append((k, d["levels"][i], 100 * (ours[i] / ours[0] - 1), 100 * (paper[i] / paper[0] - 1)))
    return out


def disagreeing(changes):
    """The changes more than AGREEMENT_POINTS apart from the paper's, the
    furthest first."""
    far = [c for c in changes if abs(c[2] - c[3]) > AGREEMENT_POINTS]
    return sorted(far, key=lambda c: -abs(c[2] - c[3]))


def ipc_tables(d):
    """The markdown between docs/jatala-reproduction.md's Tables V / VII
    GENERATED markers, and how many IPC changes agree with the paper's."""
    changes = ipc_changes(d)
    by_point = {(k, lvl): (ours, paper) for k, lvl, ours, paper in changes}
    out = []
    for title, kernels in (("Table V (register sharing, regshare)", SET1),
                           ("Table VII (scratchpad sharing, spmshare)", SET2)):
        out.append(f"\n**{title}**: GPU thread-IPC at 0 % (ours / paper), then its change over 0 % at each "
                   f"sharing level, ours / paper (LRR, no optimization, whole GPU; a `≠` marks a change more "
                   f"than {AGREEMENT_POINTS:g} points from the paper's)\n")
        out.append("| kernel | " + " | ".join(percent(lvl) for lvl in d["levels"]) + " |")
        out.append("|---|" + "---|" * len(d["levels"]))
        for k in kernels:
            cells = [f"{d['ipc_by_level'][k]['thread_ipc'][0]:.1f} / {d['paper_thread_ipc'][k][0]:g}"]
            for lvl in d["levels"][1:]:
                ours, paper = by_point[(k, lvl)]
                mark = " ≠" if abs(ours - paper) > AGREEMENT_POINTS else ""
                cells.append(f"{ours:+.1f} / {paper:+.1f}{mark}")
            out.append(f"| {k} | " + " | ".join(cells) + " |")
    far = disagreeing(changes)
    within = f"{len(changes) - len(far)}/{len(changes)}"
    out.append(f"\nIPC changes within {AGREEMENT_POINTS:g} points of the paper's: {within}.")
    if far:
        out.append("Further apart (ours vs paper): " + ", ".join(
            f"{k} {percent(lvl)} ({o:+.1f} % vs {p:+.1f} %)" for k, lvl, o, p in far) + ".")
    out.append(waits_table(d, by_point))
    differ = [k for k in SET1 + SET2 if d["ipc_by_level"][k]["cycles"][0] != d["fig9"][k][REFERENCE]["cycles"]]
    out.append(f"\nOur 0 % runs (the mechanism at sharing 0, LRR) take as many cycles as {REFERENCE} "
               f"(the baseline, LRR) for {len(SET1 + SET2) - len(differ)} of {len(SET1 + SET2)} kernels"
               + (f"; not for {', '.join(differ)}" if differ else "") + ".")
    return "\n" + "\n".join(out) + "\n", f"IPC changes within {AGREEMENT_POINTS:g} points {within}"


def waits_table(d, by_point):
    """Where the warps waited at the highest sharing level: resident CTAs/SM
    (the most, and the average over the run), the lock waits, how long one
    lasted, how many warps of an SM waited on average, and the phase the most
    wait cycles began in (kernels with phases)."""
    top = d["levels"][-1]
    out = [f"\n**Where warps waited at {percent(top)}** (the same runs): CTAs/SM at 0 % and at {percent(top)} "
           "(most / average over the run), lock waits on the whole GPU, mean cycles per wait, warps waiting "
           "per SM on average (wait warp-cycles / (cycles x SMs)), and the phase whose instructions began the "
           "most wait cycles (its share)\n",
           "| kernel | change ours / paper | CTAs/SM 0 % | CTAs/SM (avg) | lock waits | cycles per wait | "
           "warps waiting per SM | phase |",
           "|---|---|---|---|---|---|---|---|"]
    for k in SET1 + SET2:
        b = d["ipc_by_level"][k]
        i = len(d["levels"]) - 1
        ours, paper = by_point[(k, top)]
        waits, cycles = b["lock_waits"][i], b["lock_wait_cycles"][i]
        per_wait = f"{cycles / waits:,.0f}" if waits else "–"
        waiting = cycles / (b["cycles"][i] * b["num_sms"][i])
        phases = b["phase_lock_wait_cycles"][i] or {}
        where = "–"
        if phases and cycles:
            name = max(phases, key=lambda n: phases[n])
            where = f"{name} ({100 * phases[name] / cycles:.0f} %)"
        out.append(f"| {k} | {ours:+.1f} / {paper:+.1f} | {b['resident_ctas'][0]} | "
                   f"{b['resident_ctas'][i]} ({b['avg_resident_ctas'][i]:.2f}) | {waits:,} | {per_wait} | "
                   f"{waiting:.1f} | {where} |")
    return "\n".join(out)


def tables(d, variants):
    """The markdown between docs/jatala-reproduction.md's GENERATED markers
    (residency and Fig. 9), and the calculator's and the simulator's matches
    with the paper."""
    out = []
    n_calc = n_sim = total = 0
    for title, table in (("Table VI (register sharing, regshare)", TABLE6),
                         ("Table VIII (scratchpad sharing, spmshare)", TABLE8)):
        out.append(f"\n**{title}**: resident CTAs/SM, paper / calculator / simulator "
                   "(a `≠` marks a difference from the paper)\n")
        out.append("| kernel | " + " | ".join(percent(lvl) for lvl in d["levels"]) + " |")
        out.append("|---|" + "---|" * len(d["levels"]))
        for k, row in table.items():
            cells = []
            for i, p in enumerate(row):
                c, s = d["calculator"][k][i], d["simulator"][k][i]
                total += 1
                n_calc += c == p
                n_sim += s == p
                mark = "" if c == p and s == p else " ≠"
                cells.append(f"{p} / {c} / {s}{mark}")
            out.append(f"| {k} | " + " | ".join(cells) + " |")
    out.append(f"\nMatches: calculator {n_calc}/{total}, simulator {n_sim}/{total}.\n")
    for title, kernels in (("Set-1, regshare (Fig. 9(a))", SET1), ("Set-2, spmshare (Fig. 9(b))", SET2)):
        out.append(f"\n**{title}**: IPC (GPU warp-instructions/cycle), speed-up over Unshared-LRR, "
                   "resident CTAs/SM, stall and idle SM-cycles\n")
        out.append("| kernel | variant | IPC | speed-up | CTAs/SM | stall | idle | L1 misses |")
        out.append("|---|---|---|---|---|---|---|---|")
        for k in kernels:
            base = d["fig9"][k][REFERENCE]["ipc"]
            for v in variants:
                r = d["fig9"][k][v]
                dl = " (deadlock)" if r["deadlock"] else ""
                out.append(f"| {k} | {v}{dl} | {r['ipc']:.2f} | {100 * (r['ipc'] / base - 1):+.1f} % | "
                           f"{r['resident_ctas']} | {r['stall_cycles']} | {r['idle_cycles']} | {r['l1_misses']} |")
    return "\n" + "\n".join(out) + "\n", f"calculator {n_calc}/{total}, simulator {n_sim}/{total}"


def markers(region):
    """The comments around one generated region of docs/jatala-reproduction.md
    ("" for the residency and Fig. 9 tables)."""
    name = f"scripts/jatala_fig9.py{', ' + region if region else ''}"
    return f"<!-- GENERATED by {name}: begin -->", f"<!-- GENERATED by {name}: end -->"


def write_tables(d, variants):
    path = os.path.join(ROOT, "docs", "jatala-reproduction.md")
    text = open(path).read()
    summaries = []
    for region, (generated, summary) in (("", tables(d, variants)), (IPC_REGION, ipc_tables(d))):
        begin, end = markers(region)
        if begin not in text or end not in text:
            die(f"{path}: no '{begin}' ... '{end}' to write the tables between")
        i, j = text.index(begin) + len(begin), text.index(end)
        text = text[:i] + generated + text[j:]
        summaries.append(summary)
    with open(path, "w") as f:
        f.write(text)
    print(f"tables: {'; '.join(summaries)} -> {path}")


def plot(d, variants):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, figsize=(10, 6.5))
    for ax, (title, kernels) in zip(axes, (("Set-1: register sharing (regshare)", SET1),
                                          ("Set-2: scratchpad sharing (spmshare)", SET2))):
        width = 0.8 / len(variants)
        for i, v in enumerate(variants):
            ys = [100 * (d["fig9"][k][v]["ipc"] / d["fig9"][k][REFERENCE]["ipc"] - 1) for k in kernels]
            ax.bar([j + (i - (len(variants) - 1) / 2) * width for j in range(len(kernels))], ys, width, label=v)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels)
        ax.set_ylabel("IPC change vs Unshared-LRR (%)")
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(f"Jatala et al. Fig. 9 variants on {d['config']} (smshare profiles, sharing 90 %)", fontsize=11)
    fig.tight_layout()
    path = os.path.join(ROOT, "docs", "jatala-fig9.png")
    fig.savefig(path, dpi=80)
    print(f"plot -> {path} ({os.path.getsize(path) // 1024} KB)")


if __name__ == "__main__":
    main()
