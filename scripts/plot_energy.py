#!/usr/bin/env python3
"""Plots a run's energy breakdown by structure from its JSON report.

  scripts/plot_energy.py report.json out.png

Reads report["energy"] (the section hw/power's energy_report writes): one
stacked bar per structure (dynamic and leakage energy), the static power of
the SM units CACTI does not model (Dhar & Chen Table III) when present, and
one dynamic-energy bar per pipeline component (energy.pipeline.components:
SP/SFU lanes, front end, collectors, interconnect, ...). A component with a
null energy_per_event_j (reports written before every component was charged)
is named under the plot instead.
Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3); if the
running interpreter lacks it, the script re-runs itself with /usr/bin/python3.
"""
import json
import os
import sys


def die(msg):
    print(f"plot_energy: error: {msg}", file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        die(f"{path}: not valid JSON: {e}")
    energy = doc.get("energy") if isinstance(doc, dict) else None
    if not isinstance(energy, dict) or not isinstance(energy.get("structures"), dict):
        die(f"{path}: no 'energy' section with 'structures' (is this a run report with power enabled?)")
    rows = []
    for name, s in energy["structures"].items():
        try:
            rows.append((name, float(s.get("dynamic_j", 0.0)), float(s.get("leakage_j", 0.0))))
        except (TypeError, ValueError, AttributeError):
            die(f"{path}: key 'energy.structures.{name}': dynamic_j/leakage_j must be numbers")
    static = energy.get("sm_unit_static", {})
    if isinstance(static, dict) and float(static.get("energy_j", 0.0)) > 0:
        rows.append(("SM units (Table III static)", 0.0, float(static["energy_j"])))
    uncharged = []
    components = energy.get("pipeline", {}).get("components", {}) if isinstance(energy.get("pipeline"), dict) else {}
    for name, c in components.items():
        try:
            if c.get("energy_per_event_j") is None:
                uncharged.append(name)
            else:
                rows.append((f"pipeline: {name}", float(c["dynamic_j"]), 0.0))
        except (TypeError, ValueError, KeyError, AttributeError):
            die(f"{path}: key 'energy.pipeline.components.{name}': dynamic_j must be a number")
    if not rows:
        die(f"{path}: the energy section has no structures")
    rows.sort(key=lambda r: r[1] + r[2], reverse=True)
    return energy, rows, uncharged


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    energy, rows, uncharged = load(argv[0])
    try:
        import matplotlib
    except ImportError:
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + argv)
        die("matplotlib is missing: apt-get install -y python3-matplotlib (or scripts/cacti/ensure_matplotlib.sh)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r[0] for r in rows]
    dyn = [r[1] * 1e3 for r in rows]
    leak = [r[2] * 1e3 for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.6))
    y = range(len(rows))
    ax.barh(y, dyn, color="#1f77b4", label="dynamic")
    ax.barh(y, leak, left=dyn, color="#ff7f0e", label="leakage / static")
    ax.set_yticks(list(y))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("energy (mJ)")
    total = sum(dyn) + sum(leak)
    t = energy.get("simulated_seconds")
    title = f"Energy by structure: {total:.4g} mJ"
    if t:
        title += f" over {float(t) * 1e6:.4g} us simulated"
    if energy.get("node"):
        title += f" ({energy['node']}, {energy.get('mechanism', '')})"
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right")
    if uncharged:
        ax.annotate("pipeline events counted, no published energy: " + ", ".join(uncharged),
                    xy=(0, 0), xycoords="figure fraction", xytext=(4, 4), textcoords="offset points", fontsize=7)
    fig.tight_layout(rect=(0, 0.04 if uncharged else 0, 1, 1))
    fig.savefig(argv[1], dpi=120)
    print(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
