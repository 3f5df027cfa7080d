#!/usr/bin/env python3
"""Jatala et al. 2016 reproduction on jatala-fermi: Tables VI / VIII (resident
CTAs per sharing level, by the occupancy calculator and by simulation) and the
Fig. 9 variants (IPC, resident CTAs, stall and idle cycles) for the Set-1
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
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_sweep  # noqa: E402
from sweep_results import Results, SweepError, label, load_spec, same, spec_axes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "configs", "sweeps", "jatala-fig9.yaml")
# The paper's resident CTAs/SM at the spec's sharing levels (0 % ... 90 %).
TABLE6 = {"backprop": [5, 5, 5, 5, 6, 6], "btree": [2, 2, 2, 3, 3, 3], "hotspot": [3, 3, 3, 4, 4, 6],
          "lib": [4, 4, 5, 5, 6, 8], "mum": [4, 4, 4, 5, 5, 6], "mri-q": [5, 5, 5, 5, 6, 6],
          "sgemm": [5, 5, 5, 5, 6, 8], "stencil": [2, 2, 2, 2, 2, 3]}
TABLE8 = {"conv1": [6, 6, 6, 6, 7, 8], "conv2": [3, 3, 3, 3, 3, 4], "lavamd": [2, 2, 2, 2, 2, 4],
          "nw1": [7, 7, 7, 8, 8, 8], "nw2": [7, 7, 7, 8, 8, 8], "srad1": [2, 2, 2, 3, 4, 4],
          "srad2": [3, 3, 3, 3, 3, 5]}
SET1, SET2 = list(TABLE6), list(TABLE8)
REFERENCE = "Unshared-LRR"  # the variant Fig. 9's speed-ups are relative to


def die(msg):
    sys.exit(f"jatala_fig9: {msg}")


def subtree(row, prefix):
    """The report's `prefix` object back from results.json's dotted columns."""
    out = {}
    for col, v in row.items():
        if col.startswith(prefix + "."):
            *path, leaf = col[len(prefix) + 1:].split(".")
            node = out
            for p in path:
                node = node.setdefault(p, {})
            node[leaf] = v
    return out


def reproduction_data(results, spec):
    """docs/jatala-reproduction-data.json's content from the sweep's rows
    (runs with a `variant` are Fig. 9's, the others the residency runs), and
    the variants in the spec's order."""
    axes = spec_axes(spec)
    levels, variants = axes["sharing"], axes["variant"]
    if len(levels) != len(TABLE6["backprop"]) or REFERENCE not in variants:
        raise SweepError(f"{SPEC}: expected {len(TABLE6['backprop'])} sharing levels and a variant {REFERENCE}")
    paper = {**TABLE6, **TABLE8}
    occ = {k: [None] * len(levels) for k in paper}
    sim = {k: [None] * len(levels) for k in paper}
    fig9 = {k: {} for k in paper}
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
        else:
            i = next(i for i, lvl in enumerate(levels) if same(lvl, r["sharing"]))
            # The calculator's CTAs/SM is in every report; the simulator's is what one SM reached.
            occ[k][i] = r["occupancy.resident_ctas_per_sm"]
            sim[k][i] = r["resident_ctas_per_sm"]
    missing = [f"{k} at sharing {label(levels[i])}" for k in paper for i in range(len(levels)) if sim[k][i] is None]
    missing += [f"{k} {v}" for k in paper for v in variants if v not in fig9[k]]
    if missing:
        raise SweepError(f"{results.path}: no finished run for {', '.join(missing)}")
    data = {"config": axes["config"][0], "levels": [label(lvl) for lvl in levels],
            "paper": paper, "calculator": occ, "simulator": sim, "fig9": fig9}
    return data, variants


def main():
    plot_sweep.ensure_matplotlib()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smshare", default=os.path.join(ROOT, "build", "smshare"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "sweeps", "jatala-fig9"))
    ap.add_argument("--no-sweep", action="store_true", help="use <out>/results.json as it is")
    a = ap.parse_args()
    if not a.no_sweep:
        rc = subprocess.run([a.smshare, "sweep", SPEC, "--out", a.out, "--jobs", str(a.jobs)]).returncode
        if rc != 0:
            die(f"smshare sweep {SPEC} failed (exit {rc}); the failed runs' stderr.txt are under {a.out}/runs")
    try:
        results = Results(os.path.join(a.out, "results.json"))
        data, variants = reproduction_data(results, load_spec(SPEC))
    except SweepError as e:
        die(str(e))
    with open(os.path.join(ROOT, "docs", "jatala-reproduction-data.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    write_tables(data, variants)
    plot(data, variants)
    if plot_sweep.main([a.out, "--spec", SPEC]) != 0:
        die(f"plotting {SPEC}'s plot: entries failed")


def tables(d, variants):
    """The markdown between docs/jatala-reproduction.md's GENERATED markers,
    and the calculator's and the simulator's matches with the paper."""
    out = []
    n_calc = n_sim = total = 0
    for title, table in (("Table VI (register sharing, regshare)", TABLE6),
                         ("Table VIII (scratchpad sharing, spmshare)", TABLE8)):
        out.append(f"\n**{title}**: resident CTAs/SM, paper / calculator / simulator "
                   "(a `≠` marks a difference from the paper)\n")
        out.append("| kernel | " + " | ".join(f"{int(float(lvl) * 100)} %" for lvl in d["levels"]) + " |")
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


def write_tables(d, variants):
    generated, matches = tables(d, variants)
    path = os.path.join(ROOT, "docs", "jatala-reproduction.md")
    text = open(path).read()
    begin, end = "<!-- GENERATED by scripts/jatala_fig9.py: begin -->", "<!-- GENERATED by scripts/jatala_fig9.py: end -->"
    i, j = text.index(begin) + len(begin), text.index(end)
    with open(path, "w") as f:
        f.write(text[:i] + generated + text[j:])
    print(f"tables: {matches} -> {path}")


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
