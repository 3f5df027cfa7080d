"""Reading a sweep's collected table (`smshare sweep`'s results.json, see
docs/sweeps.md) and the axes its spec declares, shared by the scripts that
plot or tabulate sweeps (plot_sweep.py, jatala_fig9.py, expars_reproduction.py, crosssm_reproduction.py)."""
import argparse
import json
import os
import subprocess
import sys

import yaml

# Runs with a report: a deadlock (exit 3) still reports everything up to the
# point the SMs stopped. Failed and pending runs have no report.
DONE = ("ok", "deadlock")


class SweepError(Exception):
    """Bad input (a results.json or a spec); the message names the file."""


class Results:
    """results.json: `rows` are the runs with a report; `skipped` counts the
    failed and pending ones by status."""

    def __init__(self, path):
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        data = _read(path, json.load, "JSON")
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise SweepError(f"{path}: no 'rows' list: not a sweep's results.json")
        self.name = data.get("sweep", "")
        self.spec = data.get("spec")
        self.columns = data.get("columns") or sorted({c for r in data["rows"] for c in r})
        # A field a run's report lacks is absent from its row (or null: the same).
        self.rows = [{c: v for c, v in r.items() if v is not None} for r in data["rows"] if r.get("status") in DONE]
        self.skipped = {}
        for r in data["rows"]:
            if r.get("status") not in DONE:
                s = r.get("status", "?")
                self.skipped[s] = self.skipped.get(s, 0) + 1


def canon(v):
    """Axis values from YAML and from results.json compare by meaning: 0.5 is
    "0.5", true is "true"."""
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "false"):
            return ("bool", s == "true")
        try:
            return ("num", float(s))
        except ValueError:
            return ("str", v)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("num", float(v))
    return ("str", str(v))


def same(a, b):
    return canon(a) == canon(b)


def label(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


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


def results_path(arg):
    """A sweep's --out directory stands for its results.json."""
    return os.path.join(arg, "results.json") if os.path.isdir(arg) else arg


def _read(path, parse, language):
    """`parse` applied to the file, or a SweepError naming it."""
    try:
        with open(path) as f:
            return parse(f)
    except OSError as e:
        raise SweepError(f"{path}: {e.strerror}")
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        raise SweepError(f"{path}: not valid {language}: {e}")


def load_spec(path):
    spec = _read(path, yaml.safe_load, "YAML")
    if not isinstance(spec, dict):
        raise SweepError(f"{path}: not a sweep spec (a mapping with axes:)")
    return spec


def spec_axes(spec):
    """{column name: [values in the order the spec gives them]} for every axis
    of the spec (its `axes` and its grids'), as results.json names them:
    `set: {key: ...}` is one axis `set.<key>` per key, a bundle axis's values
    are its labels, and `grid` (the grid index) exists when grids do."""
    axes = {}

    def add(name, values):
        seen = axes.setdefault(name, [])
        for v in values:
            if v not in seen:
                seen.append(v)

    def add_all(mapping):
        for name, value in (mapping or {}).items():
            if name == "set" and isinstance(value, dict):
                for key, v in value.items():
                    add(f"set.{key}", v if isinstance(v, list) else [v])
            elif isinstance(value, dict):
                add(name, list(value))
            else:
                add(name, value if isinstance(value, list) else [value])

    add_all(spec.get("axes"))
    grids = spec.get("grids") or []
    for g in grids:
        add_all(g)
    if grids:
        add("grid", list(range(len(grids))))
    return axes


def sweep_and_read(tool, description, spec_path, default_out, default_smshare, spec_to_run=None):
    """The reproduction scripts' command line ([--smshare] [--jobs] [--out]
    [--no-sweep]): runs `smshare sweep` on the spec unless --no-sweep (a sweep
    never repeats a run it has), then returns the sweep's results.json read,
    the spec and the output folder. `spec_to_run(smshare)`, when given, names
    the spec file to sweep instead (e.g. spec_path without the runs that
    smshare cannot run yet); the spec returned is still spec_path's. Exits
    naming `tool` when the sweep fails or its results.json or spec cannot be
    read."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--smshare", default=default_smshare)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--no-sweep", action="store_true", help="use <out>/results.json as it is")
    a = ap.parse_args()
    if not a.no_sweep:
        to_run = spec_to_run(a.smshare) if spec_to_run else spec_path
        rc = subprocess.run([a.smshare, "sweep", to_run, "--out", a.out, "--jobs", str(a.jobs)]).returncode
        if rc != 0:
            sys.exit(f"{tool}: smshare sweep {to_run} failed (exit {rc}); the failed runs' stderr.txt are under "
                     f"{a.out}/runs")
    try:
        return Results(os.path.join(a.out, "results.json")), load_spec(spec_path), a.out
    except SweepError as e:
        sys.exit(f"{tool}: {e}")
