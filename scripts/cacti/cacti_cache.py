#!/usr/bin/env python3
"""Runs CACTI on cacti-params/<node>/*.cfg and keeps the parsed results in
cacti-params/<node>/results.json, each entry keyed by its cfg's sha256.

  scripts/cacti/cacti_cache.py refresh [--node 40nm ...]   # run CACTI on every cfg, rewrite results.json
  scripts/cacti/cacti_cache.py check   [--node ...]        # results.json matches the cfgs (no CACTI needed)
  scripts/cacti/cacti_cache.py verify  [--node ...]        # re-run CACTI, compare with results.json
  scripts/cacti/cacti_cache.py run FILE.cfg                # run one cfg, print its parsed entry as JSON

The CACTI binary: $CACTI_BIN, else the one scripts/cacti/build_cacti.sh builds
(it is built on first use). Errors name the cfg and exit 1.
"""
import argparse
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# $SMSHARE_CACTI_PARAMS overrides the folder, as for hw/power (tests use copies).
PARAMS = os.environ.get("SMSHARE_CACTI_PARAMS") or os.path.join(ROOT, "cacti-params")
CACTI_VERSION = "CACTI 7.0 from hwcomponents-cacti 1.0.40"
REL_TOL = 1e-4  # CACTI prints 6 significant digits; a rebuild may move the last one


class CfgError(Exception):
    pass


def rel(path):
    r = os.path.relpath(os.path.abspath(path), ROOT)
    return os.path.abspath(path) if r.startswith("..") else r


def err(path, key, problem):
    where = rel(path) + (f": key '{key}'" if key else "")
    return CfgError(f"{where}: {problem}")


REQUIRED = {
    "size (bytes)": int,
    "block size (bytes)": int,
    "associativity": int,
    "read-write port": int,
    "exclusive read port": int,
    "exclusive write port": int,
    "technology (u)": float,
    "cache type": str,
}
META = {"structure": str, "access_bits": int, "reference_bits": int}


def parse_cfg(path):
    """Returns (params, meta, sha256). Raises CfgError naming the file and key."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise err(path, "", f"cannot read: {e.strerror}")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise err(path, "", "not ASCII text")
    params, meta = {}, {}
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("//"):
            m = re.match(r"//\s*@(\w+)\s+(.*)$", s)
            if m:
                key, val = m.group(1), m.group(2).strip()
                if key not in META:
                    raise err(path, "@" + key, f"unknown metadata key (allowed: {', '.join('@' + k for k in META)})")
                try:
                    meta[key] = META[key](val)
                except ValueError:
                    raise err(path, "@" + key, f"'{val}' is not a {META[key].__name__}")
            continue
        if not s.startswith("-"):
            raise err(path, "", f"line {n}: '{s[:40]}' is neither a '-parameter value' line nor a '//' comment")
        for key, typ in REQUIRED.items():
            if s[1:].startswith(key):
                val = s[1 + len(key):].strip().lstrip("-").strip().strip('"')
                try:
                    v = typ(val)
                except ValueError:
                    raise err(path, key, f"'{val}' is not a valid {typ.__name__}")
                params[key] = v
    for key in REQUIRED:
        if key not in params:
            raise err(path, key, "missing")
    for key in META:
        if key not in meta:
            raise err(path, "@" + key, "missing (every cfg declares @structure, @access_bits, @reference_bits)")
    stem = os.path.splitext(os.path.basename(path))[0]
    if meta["structure"] != stem:
        raise err(path, "@structure", f"'{meta['structure']}' differs from the file name '{stem}'")
    if params["cache type"] not in ("ram", "cache"):
        raise err(path, "cache type", f"'{params['cache type']}' (allowed: ram, cache)")
    for key in ("size (bytes)", "block size (bytes)", "associativity"):
        if params[key] <= 0 and not (key == "associativity" and params[key] == 0):
            raise err(path, key, f"{params[key]} must be positive")
    if meta["access_bits"] <= 0 or meta["reference_bits"] <= 0:
        raise err(path, "@access_bits", "access and reference bits must be positive")
    return params, meta, hashlib.sha256(raw).hexdigest()


def cacti_bin():
    b = os.environ.get("CACTI_BIN")
    if b:
        if not os.access(b, os.X_OK):
            raise CfgError(f"CACTI_BIN={b} is not executable")
        return b
    out = subprocess.run(["bash", os.path.join(HERE, "build_cacti.sh")], check=False,
                         stdout=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise CfgError("scripts/cacti/build_cacti.sh failed (see its messages above)")
    return out.stdout.strip().splitlines()[-1]


NUM = r"([-+0-9.eE]+|nan|inf|-nan)"
FIELDS = {
    "access_time_ns": r"Access time \(ns\):\s*" + NUM,
    "cycle_time_ns": r"Cycle time \(ns\):\s*" + NUM,
    "read_energy_nj": r"Total dynamic read energy per access \(nJ\):\s*" + NUM,
    "write_energy_nj": r"Total dynamic write energy per access \(nJ\):\s*" + NUM,
    "subthreshold_leakage_mw": r"Total leakage power of a bank \(mW\):\s*" + NUM,
    "gate_leakage_mw": r"Total gate leakage power of a bank \(mW\):\s*" + NUM,
}
SEARCH = r"Total dynamic associative search energy per access \(nJ\):\s*" + NUM
HW = r"Cache height x width \(mm\):\s*" + NUM + r"\s*x\s*" + NUM
WIRE = {
    "repeated_delay_ns_per_mm": r"Delay Optimal.*?Delay - " + NUM + r" \(ns/mm\)",
    "repeated_energy_nj_per_mm": r"Delay Optimal.*?PowerD - " + NUM + r" \(nJ/mm\)",
    "repeated_leakage_mw_per_mm": r"Delay Optimal.*?PowerL - " + NUM + r" \(mW/mm\)",
    "lowswing_delay_ns_1mm": r"Low-swing wire \(1 mm\).*?delay - " + NUM + r" \(ns\)",
    "lowswing_energy_nj_1mm": r"Low-swing wire \(1 mm\).*?powerD - " + NUM + r" \(nJ\)",
}


def run_cacti(path, binary=None):
    """Runs CACTI on one cfg; returns the results entry. Raises CfgError naming the cfg."""
    params, meta, sha = parse_cfg(path)
    binary = binary or cacti_bin()
    with tempfile.TemporaryDirectory(prefix="smshare-cacti-") as tmp:
        cfg = os.path.join(tmp, os.path.basename(path))
        shutil.copyfile(path, cfg)
        # CACTI reads tech_params/*.dat relative to its working directory.
        try:
            p = subprocess.run([binary, "-infile", cfg], cwd=os.path.dirname(os.path.abspath(binary)),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise err(path, "", "CACTI did not finish in 600 s")
    out = p.stdout
    if p.returncode != 0 or "Cache height x width" not in out:
        lines = [l.strip() for l in out.splitlines() if l.strip()]
        why = next((l for l in lines if "ERROR" in l or "must" in l or "Error" in l), None)
        why = why or (" | ".join(lines[-3:]) if lines else "no output")
        raise err(path, "", f"CACTI failed (exit {p.returncode}): {why}")
    e = {"cfg": os.path.basename(path), "cfg_sha256": sha}
    for k, rx in FIELDS.items():
        m = re.search(rx, out)
        if not m:
            raise err(path, "", f"CACTI output has no '{k}' (unexpected output format)")
        e[k] = float(m.group(1))
    if params["associativity"] == 0:
        # Fully associative: a lookup is a CAM search, which CACTI prints
        # apart from the read energy.
        m = re.search(SEARCH, out)
        if not m:
            raise err(path, "", "CACTI output of a fully associative array has no 'search_energy_nj'")
        e["search_energy_nj"] = float(m.group(1))
    m = re.search(HW, out)
    h, w = float(m.group(1)), float(m.group(2))
    e["height_mm"], e["width_mm"] = h, w
    e["area_mm2"] = float(f"{h * w:.6g}")
    e["leakage_mw"] = float(f"{e['subthreshold_leakage_mw'] + e['gate_leakage_mw']:.6g}")
    for k in ("read_energy_nj", "write_energy_nj", "leakage_mw", "area_mm2", "access_time_ns"):
        if not math.isfinite(e[k]) or e[k] < 0:
            raise err(path, "", f"CACTI gave {k} = {e[k]}")
    e.update({
        "capacity_bytes": params["size (bytes)"],
        "block_bytes": params["block size (bytes)"],
        "associativity": params["associativity"],
        "cache_type": params["cache type"],
        "ports": {"rw": params["read-write port"], "read": params["exclusive read port"],
                  "write": params["exclusive write port"]},
        "technology_um": params["technology (u)"],
        "access_bits": meta["access_bits"],
        "reference_bits": meta["reference_bits"],
    })
    wire = {}
    for k, rx in WIRE.items():
        m = re.search(rx, out, re.S)
        if m:
            wire[k] = float(m.group(1))
    return e, wire


def node_dirs(nodes):
    if nodes:
        dirs = [os.path.join(PARAMS, n) for n in nodes]
        for d in dirs:
            if not os.path.isdir(d):
                have = sorted(x for x in os.listdir(PARAMS) if os.path.isdir(os.path.join(PARAMS, x)))
                raise CfgError(f"{rel(d)}: no such node (have: {', '.join(have)})")
        return dirs
    return sorted(os.path.join(PARAMS, n) for n in os.listdir(PARAMS) if os.path.isdir(os.path.join(PARAMS, n)))


def cfgs_of(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".cfg"))


def refresh(d, binary):
    structures, wire = {}, {}
    for cfg in cfgs_of(d):
        e, w = run_cacti(cfg, binary)
        structures[os.path.splitext(e["cfg"])[0]] = e
        wire = wire or w
        print(f"  {rel(cfg)}: {e['area_mm2']} mm2, read {e['read_energy_nj']} nJ, leak {e['leakage_mw']} mW",
              file=sys.stderr)
    doc = {
        "about": "Parsed CACTI results, one entry per cfg in this folder, keyed by structure; "
                 "cfg_sha256 is the sha256 of the cfg file. Regenerate with scripts/cacti/cacti_cache.py refresh.",
        "cacti": CACTI_VERSION,
        "node": os.path.basename(d),
        "units": {"area": "mm2", "energy": "nJ per access", "leakage": "mW (subthreshold + gate)", "time": "ns"},
        "wire": wire,
        "structures": structures,
    }
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def load_results(d):
    path = os.path.join(d, "results.json")
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise err(path, "", "missing; run scripts/cacti/cacti_cache.py refresh")
    except json.JSONDecodeError as e:
        raise err(path, "", f"not valid JSON: {e}")


def check(d):
    """Every cfg has an entry with its current sha256, and no entry lacks a cfg."""
    doc = load_results(d)
    res = os.path.join(d, "results.json")
    entries = doc.get("structures", {})
    problems = []
    names = set()
    for cfg in cfgs_of(d):
        _, meta, sha = parse_cfg(cfg)
        name = meta["structure"]
        names.add(name)
        if name not in entries:
            problems.append(f"{rel(res)}: no entry for {rel(cfg)}")
        elif entries[name].get("cfg_sha256") != sha:
            problems.append(f"{rel(res)}: entry '{name}' was made from another version of {rel(cfg)} "
                            f"(sha256 {entries[name].get('cfg_sha256', '?')[:12]}..., cfg now {sha[:12]}...)")
    for name in sorted(set(entries) - names):
        problems.append(f"{rel(res)}: entry '{name}' has no cfg in {rel(d)}")
    if problems:
        raise CfgError("\n".join(problems) + "\nrun: scripts/cacti/cacti_cache.py refresh")
    return len(names)


def verify(d, binary):
    check(d)
    doc = load_results(d)
    bad = []
    for cfg in cfgs_of(d):
        e, _ = run_cacti(cfg, binary)
        name = os.path.splitext(e["cfg"])[0]
        old = doc["structures"][name]
        for k in ("area_mm2", "read_energy_nj", "write_energy_nj", "search_energy_nj", "leakage_mw", "access_time_ns",
                  "cycle_time_ns"):
            if k not in e and k not in old:
                continue  # search_energy_nj: fully associative arrays only
            a, b = old.get(k), e.get(k)
            if a is None or b is None:
                bad.append(f"{rel(cfg)}: {k} cached {a}, CACTI now gives {b}")
                continue
            if not math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12):
                bad.append(f"{rel(cfg)}: {k} cached {a}, CACTI now gives {b}")
    if bad:
        raise CfgError("\n".join(bad))
    return len(doc["structures"])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["refresh", "check", "verify", "run"])
    ap.add_argument("cfg", nargs="?", help="for 'run': the cfg file")
    ap.add_argument("--node", action="append", help="node folder under cacti-params (default: all)")
    a = ap.parse_args(argv)
    try:
        if a.command == "run":
            if not a.cfg:
                ap.error("run needs a cfg file")
            e, w = run_cacti(a.cfg)
            print(json.dumps({"entry": e, "wire": w}, indent=1, sort_keys=True))
            return 0
        dirs = node_dirs(a.node)
        binary = cacti_bin() if a.command in ("refresh", "verify") else None
        for d in dirs:
            if a.command == "refresh":
                refresh(d, binary)
                print(f"{rel(d)}/results.json refreshed", file=sys.stderr)
            elif a.command == "check":
                n = check(d)
                print(f"{rel(d)}: {n} cfgs match results.json")
            else:
                n = verify(d, binary)
                print(f"{rel(d)}: CACTI reproduces all {n} cached entries")
        return 0
    except CfgError as e:
        print(f"cacti_cache: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
