#!/usr/bin/env python3
"""Dhar & Chen (cross-SM sharing) reproduction on gtx580, Sec. VI-C / Fig. 6:
for the 15 kernels of configs/sweeps/crosssm-kernels.txt, the thread IPC,
average power and energy of Occ, Bal, BigSM and BigSM_Occ over the baseline,
their means beside the paper's, the boundary traffic per scheme and where the
power goes. Runs the sweep configs/sweeps/crosssm-reproduction.yaml and
writes, from its results.json, <out>/crosssm-reproduction.md and
<out>/crosssm-ipc.png, crosssm-power.png, crosssm-energy.png; then the
generated section of docs/crosssm-reproduction.md (between the GENERATED
markers) and the three plots into docs/.

Means are arithmetic means of the per-kernel ratios, as the paper averages.
The paper's energy averages for Occ and Bal are over the kernels "that do
not degrade severely in performance", without a threshold: ours is a thread
IPC ratio of at least NOT_SEVERE_IPC_RATIO (0.9) under that scheme. A
deadlocked run's numbers stop at the deadlock: its kernel is marked and left
out of the means.

A sweep never repeats a run whose report it has, so a second invocation with
an unchanged smshare only rebuilds the outputs.

usage: scripts/crosssm_reproduction.py [--smshare build/smshare] [--jobs 2]
                                       [--out out/sweeps/crosssm-reproduction]
                                       [--no-sweep]   (use <out>/results.json as it is)
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_sweep  # noqa: E402
from sweep_results import SweepError, label, subtree, sweep_and_read  # noqa: E402

TOOL = "crosssm_reproduction"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "configs", "sweeps", "crosssm-reproduction.yaml")
KERNEL_LIST = os.path.join(ROOT, "configs", "sweeps", "crosssm-kernels.txt")
DOC = os.path.join(ROOT, "docs", "crosssm-reproduction.md")
DOCS = os.path.join(ROOT, "docs")
SCHEMES = ["occ", "bal", "bigsm", "bigsm_occ"]
MECHANISMS = ["baseline"] + SCHEMES
SCHEME_NAMES = {"occ": "Occ", "bal": "Bal", "bigsm": "BigSM", "bigsm_occ": "BigSM_Occ"}
# What Fig. 6 normalizes, by the report field it is, and each plot's file.
METRICS = {"ipc": "thread_ipc", "power": "power.average_w", "energy": "energy.total_j"}
METRIC_NAMES = {"ipc": "thread IPC", "power": "average power", "energy": "energy"}
PLOTS = {m: f"crosssm-{m}.png" for m in METRICS}
# The parts of power.average_w (docs/user-guide.md, report fields).
POWER_PARTS = ["dynamic_w", "leakage_w", "sm_unit_static_w", "pipeline_dynamic_w"]
# Ours, not the paper's: it averages energy over the kernels "that do not
# degrade severely in performance" without saying where severe starts.
NOT_SEVERE_IPC_RATIO = 0.9
# The paper's numbers (Sec. VI-C), as ratios to the baseline.
PAPER = {
    "ipc_mean": {"occ": 0.85, "bal": 0.91, "bigsm": 1.058, "bigsm_occ": 1.086},
    # Largest IPC gains, BFSR2 left out (it reaches 2x on BigSM_Occ).
    "ipc_max_without_bfsr2": {"bigsm": 1.54, "bigsm_occ": 1.57},
    # Energy: Occ and Bal over the kernels that do not degrade severely, BigSM over all.
    "energy_mean": {"occ": 0.80, "bal": 0.86, "bigsm": 0.74},
    "energy_min": {"occ": 0.425, "bal": 0.725, "bigsm": 0.46},
    "cfd2_occ_ipc": 1.20,
}
# The schemes whose paper energy mean is over the kernels that do not degrade severely.
NOT_SEVERE_ONLY = ("occ", "bal")
# Boundary traffic (mechanism_stats), per warp instruction of the run.
TRAFFIC = [("boundary_instruction_buffer", "instruction-buffer crossings"),
           ("boundary_operand_dispatch", "operand-dispatch crossings"),
           ("remote_register_accesses", "remote register accesses"),
           ("boundary_remote_scratchpad", "remote scratchpad accesses"),
           ("dummy_stage_instructions", "dummy-stage instructions")]
ROLES = ["active_sms", "inactive_sms"]  # the rest of the GPU's SMs are baseline SMs (no counters)


def die(msg):
    sys.exit(f"{TOOL}: {msg}")


# --- the kernel list and the spec

def read_kernel_list(path=KERNEL_LIST):
    """crosssm-kernels.txt's rows: [{"paper", "profile", "label", "ctas",
    "grid"}], grid None for the profile's own ('-')."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise SweepError(f"{path}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        cols = line.split("#", 1)[0].split()
        if not cols:
            continue
        if len(cols) != 5:
            raise SweepError(f"{path}:{n}: expected 5 columns (paper profile label ctas grid), got {len(cols)}")
        paper, profile, lab, ctas, grid = cols
        if not ctas.isdigit() or not (grid == "-" or grid.isdigit()):
            raise SweepError(f"{path}:{n}: ctas must be a number and grid a number or '-', got '{ctas}' '{grid}'")
        out.append({"paper": paper, "profile": profile, "label": lab, "ctas": int(ctas),
                    "grid": None if grid == "-" else int(grid)})
    if not out:
        raise SweepError(f"{path}: no kernels")
    return out


def spec_kernels(spec):
    """{profile: --ctas or None} over the spec's grids (a grid's own ctas, or
    the common axes')."""
    common = spec.get("axes") or {}
    out = {}
    for g in spec.get("grids") or [common]:
        ks = g.get("kernel", common.get("kernel"))
        ctas = g.get("ctas", common.get("ctas"))
        for k in ks if isinstance(ks, list) else [ks]:
            out[k] = ctas
    return out


def check_spec(spec, kernels, spec_path=SPEC, list_path=KERNEL_LIST):
    """The spec runs every mechanism on exactly the list's kernels with the
    list's grids; else a SweepError naming both files and what differs."""
    def grid(ctas):
        return "-" if ctas is None else label(ctas)

    want = {k["profile"]: k["grid"] for k in kernels}
    have = spec_kernels(spec)
    diffs = [f"{p}: grid {grid(want[p])} in the list, " + (f"{grid(have[p])} in the spec" if p in have else
                                                          "not in the spec")
             for p in want if p not in have or have[p] != want[p]]
    diffs += [f"{p}: not in the list" for p in have if p not in want]
    mechanisms = (spec.get("axes") or {}).get("mechanism")
    if mechanisms != MECHANISMS:
        diffs.append(f"mechanism axis {mechanisms}, expected {MECHANISMS}")
    if diffs:
        raise SweepError(f"{spec_path} does not match {list_path} (the kernels and grids to run): " + "; ".join(diffs))


# --- the runs

def run_fields(row):
    out = {m: row[col] for m, col in METRICS.items()}
    out.update(cycles=row["cycles"], warp_instructions=row["warp_instructions"],
               num_sms=int(row["config.params.gpu.num_sms"]),  # the params are text
               power_parts=subtree(row, "power"), mechanism_stats=subtree(row, "mechanism_stats"),
               deadlock=row["status"] == "deadlock")
    return out


def collect(results, kernels):
    """{profile: {mechanism: run fields}}; a SweepError naming the runs that
    have no report."""
    runs = {k["profile"]: {} for k in kernels}
    for r in results.rows:
        if r.get("kernel") in runs and r.get("mechanism") in MECHANISMS:
            runs[r["kernel"]][r["mechanism"]] = run_fields(r)
    missing = [f"{p} {m}" for p in runs for m in MECHANISMS if m not in runs[p]]
    if missing:
        raise SweepError(f"{results.path}: no finished run for {', '.join(missing)}")
    return runs


def ratio(runs, profile, scheme, metric):
    r = runs[profile]
    return r[scheme][metric] / r["baseline"][metric]


def finished(runs, kernels, scheme):
    """The kernels whose baseline and `scheme` runs both ran to the end."""
    return [k for k in kernels if not (runs[k["profile"]]["baseline"]["deadlock"]
                                       or runs[k["profile"]][scheme]["deadlock"])]


def not_severe(runs, kernels, scheme):
    """The finished kernels whose thread IPC under `scheme` is at least
    NOT_SEVERE_IPC_RATIO of the baseline's."""
    return [k for k in finished(runs, kernels, scheme)
            if ratio(runs, k["profile"], scheme, "ipc") >= NOT_SEVERE_IPC_RATIO]


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def means(runs, kernels):
    """{scheme: {metric: mean ratio}} over the finished kernels, with
    energy_not_severe / energy_min_not_severe (and their kernel count) over
    `not_severe`'s, energy_min over all, ipc_max without BFSR2."""
    out = {}
    for s in SCHEMES:
        done = finished(runs, kernels, s)
        easy = not_severe(runs, kernels, s)
        m = {metric: mean(ratio(runs, k["profile"], s, metric) for k in done) for metric in METRICS}
        energy_easy = [ratio(runs, k["profile"], s, "energy") for k in easy]
        m.update(kernels=len(done), not_severe=len(easy), energy_not_severe=mean(energy_easy),
                 energy_min_not_severe=min(energy_easy) if energy_easy else None,
                 energy_min=min(ratio(runs, k["profile"], s, "energy") for k in done) if done else None,
                 ipc_max_without_bfsr2=max((ratio(runs, k["profile"], s, "ipc") for k in done
                                            if k["paper"] != "BFSR2"), default=None))
        out[s] = m
    return out


# --- the generated section

def signed(r):
    """A ratio as a change in percent."""
    return "–" if r is None else f"{100 * (r - 1):+.1f} %"


def cell(runs, k, s):
    p = k["profile"]
    text = " / ".join(f"{ratio(runs, p, s, metric):.3f}" for metric in METRICS)
    dead = runs[p]["baseline"]["deadlock"] or runs[p][s]["deadlock"]
    return text + (" (deadlock)" if dead else "")


def per_kernel_table(runs, kernels):
    head = ["kernel (profile)", "label", "grid (CTAs)", "baseline thread IPC"] + [
        f"{SCHEME_NAMES[s]} IPC / power / energy" for s in SCHEMES]
    out = ["| " + " | ".join(head) + " |", "|---|---|---|---:|" + "---:|" * len(SCHEMES)]
    for k in kernels:
        p = k["profile"]
        grid = str(k["grid"]) if k["grid"] else "profile's"
        out.append(f"| {k['paper']} ({p}) | {k['label'].replace('+', ' + ')} | {grid} | "
                   f"{runs[p]['baseline']['ipc']:.1f} | " + " | ".join(cell(runs, k, s) for s in SCHEMES) + " |")
    m = means(runs, kernels)
    out.append("| **mean** (arithmetic, of the ratios) | | | | " + " | ".join(
        " / ".join(f"{m[s][metric]:.3f}" for metric in METRICS) for s in SCHEMES) + " |")
    out.append("| paper (Sec. VI-C) | | | | " + " | ".join(
        f"{PAPER['ipc_mean'][s]:.3f} / – / " + (f"{PAPER['energy_mean'][s]:.3f}" if s in PAPER["energy_mean"] else "–")
        + (" (energy: kernels not degrading severely)" if s in NOT_SEVERE_ONLY else "") for s in SCHEMES) + " |")
    return "\n".join(out)


def over(m, s, total):
    return "" if m[s]["kernels"] == total else f" ({m[s]['kernels']} of {total} kernels: the others deadlocked)"


def summary_table(runs, kernels):
    """Our means beside the paper's numbers, as changes in percent."""
    m, n = means(runs, kernels), len(kernels)
    out = ["| quantity | ours | paper |", "|---|---:|---:|"]
    for s in SCHEMES:
        out.append(f"| {SCHEME_NAMES[s]}: thread IPC, mean over the kernels{over(m, s, n)} | "
                   f"{signed(m[s]['ipc'])} | {signed(PAPER['ipc_mean'][s])} |")
    for s in SCHEMES:
        out.append(f"| {SCHEME_NAMES[s]}: average power, mean | {signed(m[s]['power'])} | – |")
    for s in SCHEMES:
        out.append(f"| {SCHEME_NAMES[s]}: energy, mean over all kernels | {signed(m[s]['energy'])} | "
                   f"{signed(PAPER['energy_mean'][s]) if s not in NOT_SEVERE_ONLY and s in PAPER['energy_mean'] else '–'} |")
    for s in NOT_SEVERE_ONLY:
        out.append(f"| {SCHEME_NAMES[s]}: energy, mean over the {m[s]['not_severe']} kernels with IPC ratio "
                   f"≥ {NOT_SEVERE_IPC_RATIO} (largest reduction) | {signed(m[s]['energy_not_severe'])} "
                   f"({signed(m[s]['energy_min_not_severe'])}) | {signed(PAPER['energy_mean'][s])} "
                   f"({signed(PAPER['energy_min'][s])}) |")
    out.append(f"| BigSM: largest energy reduction | {signed(m['bigsm']['energy_min'])} | "
               f"{signed(PAPER['energy_min']['bigsm'])} |")
    for s, paper in PAPER["ipc_max_without_bfsr2"].items():
        out.append(f"| {SCHEME_NAMES[s]}: largest thread IPC gain, BFSR2 left out | "
                   f"{signed(m[s]['ipc_max_without_bfsr2'])} | {signed(paper)} |")
    cfd2 = next((k["profile"] for k in kernels if k["paper"] == "CFD2"), None)
    if cfd2:
        out.append(f"| CFD2 on Occ: thread IPC | {signed(ratio(runs, cfd2, 'occ', 'ipc'))} | "
                   f"{signed(PAPER['cfd2_occ_ipc'])} |")
    return "\n".join(out)


def traffic_table(runs, kernels):
    """Per scheme, the SMs of each role and the boundary traffic per warp
    instruction, means over the finished kernels."""
    head = ["scheme", "active / inactive / baseline SMs (`mechanism_stats`)"] + [name + " per warp instruction" for _, name in TRAFFIC] + [
        "wide-warp instructions split (upper half in a later cycle)", "divergent halves (all kernels)"]
    out = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for s in SCHEMES:
        done = [runs[k["profile"]][s] for k in finished(runs, kernels, s)]
        if not done:
            out.append(f"| {SCHEME_NAMES[s]} | every run deadlocked |" + " |" * (len(head) - 2))
            continue
        # Baseline SMs run the baseline's own mechanism: they are the SMs neither role counts.
        def role_counts(r):
            active, inactive = (r["mechanism_stats"].get(x, 0) for x in ROLES)
            return f"{active} / {inactive} / {r['num_sms'] - active - inactive} of {r['num_sms']}"
        roles = sorted({role_counts(r) for r in done})
        cells = [f"{mean(r['mechanism_stats'].get(c, 0) / r['warp_instructions'] for r in done):.3f}"
                 for c, _ in TRAFFIC]
        wide = [r["mechanism_stats"] for r in done
                if r["mechanism_stats"].get("wide_mirrored_issues", 0) + r["mechanism_stats"].get("wide_split_issues", 0)]
        split = mean(w["wide_split_issues"] / (w["wide_mirrored_issues"] + w["wide_split_issues"]) for w in wide)
        divergent = sum(r["mechanism_stats"].get("wide_divergent_issues", 0) for r in done)
        out.append(f"| {SCHEME_NAMES[s]} | {', '.join(roles)} | " + " | ".join(cells) + " | "
                   + ("–" if split is None else f"{100 * split:.1f} %") + f" | {divergent:,} |")
    return "\n".join(out)


def power_table(runs, kernels):
    """Per mechanism, the mean over the kernels of each part of
    power.average_w, in W."""
    out = ["| mechanism | " + " | ".join(f"`power.{p}`" for p in POWER_PARTS) + " | `power.average_w` |",
           "|---|" + "---:|" * (len(POWER_PARTS) + 1)]
    for mech in MECHANISMS:
        rs = [runs[k["profile"]][mech] for k in kernels if not runs[k["profile"]][mech]["deadlock"]]
        out.append(f"| {SCHEME_NAMES.get(mech, mech)} | " + " | ".join(
            f"{mean(r['power_parts'][p] for r in rs):.2f}" for p in POWER_PARTS) +
            f" | {mean(r['power'] for r in rs):.2f} |")
    return "\n".join(out)


def section(runs, kernels, config):
    """The generated markdown (no heading: the doc has it)."""
    return "\n".join([
        f"\nConfig {config}, scheduler LRR, each run to completion; ratios are the scheme's over the baseline's "
        "for the same kernel and grid. Means are arithmetic means of the ratios over the kernels, as the paper "
        "averages. The paper's energy means for Occ and Bal are over the kernels \"that do not degrade severely "
        f"in performance\"; it gives no threshold, ours is a thread IPC ratio of at least {NOT_SEVERE_IPC_RATIO}.\n",
        "**Means, ours and the paper's** (changes over the baseline)\n",
        summary_table(runs, kernels),
        "\n**Per kernel**: thread IPC (`thread_ipc`), average power (`power.average_w`) and energy "
        "(`energy.total_j`) over the baseline's\n",
        per_kernel_table(runs, kernels),
        "\n**Boundary traffic** (`mechanism_stats`, summed over the SMs; per warp instruction of the run, 32-thread "
        "warps, mean over the kernels)\n",
        traffic_table(runs, kernels),
        "\n**Where the power goes** (W, mean over the kernels)\n",
        power_table(runs, kernels),
        "\n![thread IPC over the baseline](crosssm-ipc.png)\n",
        "![average power over the baseline](crosssm-power.png)\n",
        "![energy over the baseline](crosssm-energy.png)\n"])


def markers():
    return ("<!-- GENERATED by scripts/crosssm_reproduction.py: begin -->",
            "<!-- GENERATED by scripts/crosssm_reproduction.py: end -->")


def replace_section(text, generated, path):
    """`text` with what lies between the markers replaced by `generated`."""
    begin, end = markers()
    if begin not in text or end not in text:
        raise SweepError(f"{path}: no '{begin}' ... '{end}' to write the tables between")
    i, j = text.index(begin) + len(begin), text.index(end)
    return text[:i] + generated + text[j:]


# --- the plots

def plot(runs, kernels, metric, path, config):
    """Fig. 6's bars: per kernel one bar per scheme, over the baseline (a line
    at 1), and a last group with the means."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(12, 4.5))
    m = means(runs, kernels)
    width = 0.8 / len(SCHEMES)
    for i, s in enumerate(SCHEMES):
        ys = [ratio(runs, k["profile"], s, metric) for k in kernels] + [m[s][metric]]
        bars = ax.bar([j + (i - (len(SCHEMES) - 1) / 2) * width for j in range(len(ys))], [y - 1 for y in ys],
                      width, bottom=1, label=SCHEME_NAMES[s])
        done = {k["profile"] for k in finished(runs, kernels, s)}
        for bar, k in zip(bars, kernels):
            if k["profile"] not in done:
                bar.set_hatch("///")
    ax.axhline(1, color="black", linewidth=0.6)
    ax.axvline(len(kernels) - 0.5, color="grey", linewidth=0.6, linestyle="--")
    ax.set_xticks(range(len(kernels) + 1))
    ax.set_xticklabels([k["paper"] for k in kernels] + ["mean"], rotation=30, ha="right")
    ax.set_ylabel(f"{METRIC_NAMES[metric]} / baseline")
    ax.legend(fontsize=8, ncol=len(SCHEMES))
    ax.set_title(f"Dhar & Chen Fig. 6 on {config} (LRR): {METRIC_NAMES[metric]} over the baseline "
                 "(smshare profiles; mean: arithmetic; hatched: deadlocked)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main():
    plot_sweep.ensure_matplotlib()
    results, spec, out = sweep_and_read(TOOL, __doc__.split("\n")[0], SPEC,
                                        os.path.join(ROOT, "out", "sweeps", "crosssm-reproduction"),
                                        os.path.join(ROOT, "build", "smshare"))
    kernels = read_kernel_list()
    check_spec(spec, kernels)
    runs = collect(results, kernels)
    config = ", ".join(sorted({r["config"] for r in results.rows}))
    generated = section(runs, kernels, config)
    md = os.path.join(out, "crosssm-reproduction.md")
    with open(md, "w") as f:
        f.write("# Cross-SM sharing reproduction (generated by scripts/crosssm_reproduction.py)\n" + generated)
    for metric, name in PLOTS.items():
        plot(runs, kernels, metric, os.path.join(out, name), config)
        shutil.copyfile(os.path.join(out, name), os.path.join(DOCS, name))
    with open(DOC) as f:
        text = replace_section(f.read(), generated, DOC)
    with open(DOC, "w") as f:
        f.write(text)
    print(summary_table(runs, kernels))
    print(f"table -> {md} and {DOC}; plots -> {out} and {DOCS}: {', '.join(PLOTS.values())}")


if __name__ == "__main__":
    try:
        main()
    except SweepError as e:
        die(str(e))
