#!/usr/bin/env python3
"""Jatala et al. 2016 reproduction on jatala-fermi: Tables VI / VIII (resident
CTAs per sharing level, by `smshare occupancy` and by simulation) and the
Fig. 9 variants (IPC, resident CTAs, stall and idle cycles) for the Set-1
(register-limited, regshare) and Set-2 (scratchpad-limited, spmshare) kernel
profiles. Writes docs/jatala-reproduction-data.json, the tables of
docs/jatala-reproduction.md (between the GENERATED markers) and
docs/jatala-fig9.png.

Grids are the profiles' own (150-1050 CTAs, scaled down from the
benchmarks' inputs); the whole script takes a few minutes on 2 cores.

usage: scripts/jatala_fig9.py [--smshare build/smshare] [--jobs 2]
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = "jatala-fermi"
SET1 = ["backprop", "btree", "hotspot", "lib", "mum", "mri-q", "sgemm", "stencil"]
SET2 = ["conv1", "conv2", "lavamd", "nw1", "nw2", "srad1", "srad2"]
LEVELS = ["0", "0.1", "0.3", "0.5", "0.7", "0.9"]
TABLE6 = {"backprop": [5, 5, 5, 5, 6, 6], "btree": [2, 2, 2, 3, 3, 3], "hotspot": [3, 3, 3, 4, 4, 6],
          "lib": [4, 4, 5, 5, 6, 8], "mum": [4, 4, 4, 5, 5, 6], "mri-q": [5, 5, 5, 5, 6, 6],
          "sgemm": [5, 5, 5, 5, 6, 8], "stencil": [2, 2, 2, 2, 2, 3]}
TABLE8 = {"conv1": [6, 6, 6, 6, 7, 8], "conv2": [3, 3, 3, 3, 3, 4], "lavamd": [2, 2, 2, 2, 2, 4],
          "nw1": [7, 7, 7, 8, 8, 8], "nw2": [7, 7, 7, 8, 8, 8], "srad1": [2, 2, 2, 3, 4, 4],
          "srad2": [3, 3, 3, 3, 3, 5]}
REORDER = ["--set", "frontend.reorder_registers=true"]
DYN = ["--set", "jatala.dynamic_warp_execution=true"]
# Fig. 9 variants: (label, mechanism is shared, scheduler, extra flags)
VARIANTS = [
    ("Unshared-LRR", False, "lrr", []),
    ("Shared-LRR-NoOpt", True, "lrr", []),
    ("Shared-LRR-Unroll", True, "lrr", REORDER),
    ("Shared-LRR-Unroll-Dyn", True, "lrr", REORDER + DYN),
    ("Shared-OWF-Unroll-Dyn", True, "owf", REORDER + DYN),
]


def smshare(binary, args):
    p = subprocess.run([binary] + args + ["--json"], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        sys.exit(f"smshare {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


def mech(kernel):
    return "regshare" if kernel in TABLE6 else "spmshare"


def main():
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # Debian's python3-matplotlib is for /usr/bin/python3 (scripts/setup.sh)
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("jatala_fig9: needs matplotlib (Debian: python3-matplotlib)")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smshare", default=os.path.join(ROOT, "build", "smshare"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    tables = {**TABLE6, **TABLE8}
    jobs = []
    for k in tables:
        for i, lvl in enumerate(LEVELS):
            jobs.append(("occ", k, i, ["occupancy", "--config", CONFIG, "--kernel", k, "--mechanism", mech(k),
                                       "--sharing", lvl]))
            # Resident CTAs as the simulator admits them: one SM, 12 CTAs.
            jobs.append(("sim", k, i, ["run", "--config", CONFIG, "--kernel", k, "--mechanism", mech(k),
                                       "--sharing", lvl, "--set", "gpu.num_sms=1", "--ctas", "12"]))
        for label, shared, sched, extra in VARIANTS:
            m = ["--mechanism", mech(k), "--sharing", "0.9"] if shared else ["--mechanism", "baseline"]
            jobs.append(("fig9", k, label, ["run", "--config", CONFIG, "--kernel", k, "--scheduler", sched] + m + extra))
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda j: (j, smshare(a.smshare, j[3])), jobs))

    occ = {k: [None] * 6 for k in tables}
    sim = {k: [None] * 6 for k in tables}
    fig9 = {k: {} for k in tables}
    for (kind, k, key, _), r in results:
        if kind == "occ":
            occ[k][key] = r["resident_ctas_per_sm"]
        elif kind == "sim":
            sim[k][key] = r["resident_ctas_per_sm"]
        else:
            fig9[k][key] = {"ipc": r["ipc"], "cycles": r["cycles"], "resident_ctas": r["resident_ctas_per_sm"],
                            "stall_cycles": r["stall_cycles"], "idle_cycles": r["idle_cycles"],
                            "l1_misses": r["counters"]["l1"]["misses"],
                            "deadlock": "deadlock" in r, "mechanism_stats": r.get("mechanism_stats", {})}
    data = {"config": CONFIG, "levels": LEVELS, "paper": tables, "calculator": occ, "simulator": sim, "fig9": fig9}
    with open(os.path.join(ROOT, "docs", "jatala-reproduction-data.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    write_tables(data)
    plot(data)


def write_tables(d):
    out = []
    n_calc = n_sim = total = 0
    for title, table in (("Table VI (register sharing, regshare)", TABLE6),
                         ("Table VIII (scratchpad sharing, spmshare)", TABLE8)):
        out.append(f"\n**{title}**: resident CTAs/SM, paper / calculator / simulator "
                   "(a `≠` marks a difference from the paper)\n")
        out.append("| kernel | " + " | ".join(f"{int(float(l) * 100)} %" for l in LEVELS) + " |")
        out.append("|---|" + "---|" * len(LEVELS))
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
            base = d["fig9"][k]["Unshared-LRR"]["ipc"]
            for label, *_ in VARIANTS:
                r = d["fig9"][k][label]
                dl = " (deadlock)" if r["deadlock"] else ""
                out.append(f"| {k} | {label}{dl} | {r['ipc']:.2f} | {100 * (r['ipc'] / base - 1):+.1f} % | "
                           f"{r['resident_ctas']} | {r['stall_cycles']} | {r['idle_cycles']} | {r['l1_misses']} |")
    path = os.path.join(ROOT, "docs", "jatala-reproduction.md")
    text = open(path).read()
    begin, end = "<!-- GENERATED by scripts/jatala_fig9.py: begin -->", "<!-- GENERATED by scripts/jatala_fig9.py: end -->"
    i, j = text.index(begin) + len(begin), text.index(end)
    with open(path, "w") as f:
        f.write(text[:i] + "\n" + "\n".join(out) + "\n" + text[j:])
    print(f"tables: calculator {n_calc}/{total}, simulator {n_sim}/{total} -> {path}")


def plot(d):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, figsize=(10, 6.5))
    for ax, (title, kernels) in zip(axes, (("Set-1: register sharing (regshare)", SET1),
                                          ("Set-2: scratchpad sharing (spmshare)", SET2))):
        width = 0.8 / len(VARIANTS)
        for v, (label, *_) in enumerate(VARIANTS):
            ys = [100 * (d["fig9"][k][label]["ipc"] / d["fig9"][k]["Unshared-LRR"]["ipc"] - 1) for k in kernels]
            ax.bar([i + (v - 2) * width for i in range(len(kernels))], ys, width, label=label)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels)
        ax.set_ylabel("IPC change vs Unshared-LRR (%)")
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(f"Jatala et al. Fig. 9 variants on {CONFIG} (smshare profiles, sharing 90 %)", fontsize=11)
    fig.tight_layout()
    path = os.path.join(ROOT, "docs", "jatala-fig9.png")
    fig.savefig(path, dpi=80)
    print(f"plot -> {path} ({os.path.getsize(path) // 1024} KB)")


if __name__ == "__main__":
    main()
