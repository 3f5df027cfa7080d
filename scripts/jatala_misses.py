#!/usr/bin/env python3
"""Measurements behind "The points more than 3 points from the paper" in
docs/jatala-reproduction.md: why a Table V / VII point (regshare or spmshare
on jatala-fermi, LRR, no optimization) lands where it does. Prints what the
document quotes; runs smshare directly (none of this is a shipped sweep) and
keeps the reports and the what-if profile copies in --out.

Sections (--only picks some; default all):
  decompose  each disagreeing point's IPC change against 0 %, split into three
             measured factors (below), with stall reasons and memory counters
  grids      the change at grids x0.9 .. x1.1 and x4 of the profile's, each
             warp's global chunk kept the profile's (the grid-quantization
             spread of a point)
  waveform   SM 0 of btree (0 %, 90 %; the profile's grid, and x4 with the
             memory what-ifs of dram-rows) from a VCD: how long how many warps work
  l2         nw1 / nw2 at 50 and 90 % with the L2 doubled (--set l2.size_bytes),
             srad1's "fill" what-if at 50 % with a 6 MiB L2
  dram-rows  btree / hotspot at x4 with row activation almost free (tRCD = tRP = tRAS = 1),
             btree also with a 6 MiB L2
  private    Set-2 what-if profiles whose non-owners touch only the private
             part of the tile before the main loop ("fill"), and also in the
             first half of the loop ("loop")

The decomposition: thread-IPC = thread instructions / cycles, and
  cycles x SMs      = active SM-cycles / busy      (busy: share of SM-cycles with a resident warp)
  working warp-cycles = avg_resident_warps_per_sm x active_cycles - lock_wait_cycles
so IPC = SMs x busy x (working warp-cycles / active SM-cycles) x (thread
instructions / working warp-cycles): the SMs' busy share, the working warps
per active SM, and the rate of a working warp. A shared run's ratio to its
0 % run is the product of the three ratios.

usage: scripts/jatala_misses.py [--smshare build/smshare] [--out out/jatala-misses] [--only decompose,grids,...]
"""
import argparse
import copy
import json
import os
import statistics
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "configs", "kernels")
SET1 = {"backprop", "btree", "hotspot", "lib", "mum", "mri-q", "sgemm", "stencil"}
# The points more than 3 points from the paper (levels with equal CTAs/SM give equal runs: one each).
DISAGREEING = [("backprop", 0.9), ("btree", 0.9), ("hotspot", 0.9), ("mum", 0.9), ("mri-q", 0.9), ("stencil", 0.9),
               ("conv1", 0.7), ("conv1", 0.9), ("conv2", 0.9), ("lavamd", 0.9), ("srad1", 0.5), ("srad1", 0.9),
               ("srad2", 0.9), ("nw1", 0.5), ("nw2", 0.5)]
GRID_POINTS = [("stencil", 0.9), ("btree", 0.9), ("backprop", 0.9), ("hotspot", 0.9), ("mum", 0.9), ("mri-q", 0.9)]
GRID_SCALES = [0.9, 0.93, 0.96, 1.0, 1.04, 1.07, 1.1, 4.0]
PRIVATE_POINTS = [("lavamd", 0.9), ("srad1", 0.5), ("srad1", 0.9), ("srad2", 0.9), ("conv1", 0.7), ("conv1", 0.9),
                  ("conv2", 0.9)]
BIG_L2 = ("l2.size_bytes=6291456", "l2.ways=64")  # 8 times jatala-fermi's 768 KB L2
LINE = 128        # profile_kernel.cpp: a coalesced chunk is whole lines of at least 32 accesses
WARP_LANES = 32


def mechanism(kernel):
    return "regshare" if kernel in SET1 else "spmshare"


class Runner:
    def __init__(self, smshare, out):
        self.smshare, self.out = smshare, out
        os.makedirs(os.path.join(out, "reports"), exist_ok=True)
        os.makedirs(os.path.join(out, "profiles"), exist_ok=True)

    def run(self, kernel, level, profile=None, sets=()):
        """The report of kernel (or the profile copy) at a sharing level; reused when present."""
        name = os.path.splitext(os.path.basename(profile))[0] if profile else kernel
        tag = "".join("_" + s.replace("=", "-") for s in sets)
        path = os.path.join(self.out, "reports", f"{name}-{level:g}{tag}.json")
        if not os.path.exists(path):
            cmd = [self.smshare, "run", "--config", "jatala-fermi", "--kernel", profile or kernel,
                   "--mechanism", mechanism(kernel), "--sharing", f"{level:g}", "--scheduler", "lrr",
                   "--report", path, "--quiet"]
            for s in sets:
                cmd += ["--set", s]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)

    def profile_copy(self, kernel, name, edit):
        with open(os.path.join(KERNELS, kernel + ".yaml")) as f:
            p = yaml.safe_load(f)
        edit(p)
        p["name"] = name
        path = os.path.join(self.out, "profiles", name + ".yaml")
        with open(path, "w") as f:
            yaml.safe_dump(p, f, sort_keys=False)
        return path


def factors(r):
    active = r["active_cycles"]
    resident = r["avg_resident_warps_per_sm"] * active
    working = resident - r.get("mechanism_stats", {}).get("lock_wait_cycles", 0)
    return {"busy": active / (r["cycles"] * len(r["per_sm"])), "working": working / active,
            "rate": r["thread_instructions"] / working, "waiting": (resident - working) / active}


def pct(new, old):
    return 100.0 * (new / old - 1.0)


def change_line(base, shared):
    fb, fs = factors(base), factors(shared)
    return (f"IPC {pct(shared['thread_ipc'], base['thread_ipc']):+.1f}% = busy {pct(fs['busy'], fb['busy']):+.1f}% "
            f"x working warps/SM {fb['working']:.2f} -> {fs['working']:.2f} ({pct(fs['working'], fb['working']):+.1f}%) "
            f"x rate per working warp {pct(fs['rate'], fb['rate']):+.1f}% (waiting {fs['waiting']:.2f})")


def memory_line(r):
    m = r["counters"]["memory"]
    l2, dram = m["l2_partitions"], m["dram_channels"]
    hits, misses = sum(p["read_hits"] for p in l2), sum(p["read_misses"] for p in l2)
    busy = sum(c["bus_busy_ps"] for c in dram) / len(dram) / (r["simulated_seconds"] * 1e12)
    return (f"L2 read hits {hits / (hits + misses):.3f}, L2 write misses {sum(p['write_misses'] for p in l2)}, "
            f"DRAM bytes {sum(c['bytes'] for c in dram)}, DRAM bus busy {busy:.2f}, "
            f"DRAM activates {sum(c['activates'] for c in dram)}")


def decompose(rn):
    print("== decompose: shared level against 0 % (profile's grid)")
    for kernel, level in DISAGREEING:
        base, shared = rn.run(kernel, 0), rn.run(kernel, level)
        reasons = {k: v - base["stall_reasons"][k] for k, v in shared["stall_reasons"].items() if v != base["stall_reasons"][k]}
        print(f"{kernel} {level:.0%}: {change_line(base, shared)}")
        print(f"    stall reasons (SM-cycles, shared - 0 %): {reasons}")
        print(f"    0 %: {memory_line(base)}\n    {level:.0%}: {memory_line(shared)}")
        finish = lambda r: sorted(s["active_cycles"] for s in r["per_sm"])  # noqa: E731
        for label, r in (("0 %", base), (f"{level:.0%}", shared)):
            f = finish(r)
            print(f"    {label}: CTAs per SM {sorted(s['ctas_completed'] for s in r['per_sm'])}, "
                  f"last SM ends {f[-1]}, median SM {statistics.median(f):.0f}")


def chunk_lines(p):
    """The whole lines of global memory each warp of a coalesced profile sweeps
    (ProfileKernel's chunk, profile_kernel.cpp: the footprint's units divided
    among the grid's warps, at least one)."""
    g = p["global"]
    unit = max(LINE, WARP_LANES * g.get("access_bytes", 4))
    warps = -(-p["threads_per_cta"] // WARP_LANES)
    return unit, max(1, (g["footprint_bytes"] // unit) // (p["grid_ctas"] * warps))


def grid_profile(rn, kernel, scale):
    """A copy at scale x the grid whose warps keep the profile's global chunk
    (scaling the grid alone would change the chunk)."""
    def edit(p):
        grid = round(p["grid_ctas"] * scale)
        if p["global"].get("pattern", "coalesced") == "coalesced":
            unit, lines = chunk_lines(p)
            p["global"]["footprint_bytes"] = lines * unit * grid * -(-p["threads_per_cta"] // WARP_LANES)
        p["grid_ctas"] = grid
    return rn.profile_copy(kernel, f"{kernel}-grid-x{scale:g}", edit)


def grids(rn):
    print("== grids: change against 0 % at grids around the profile's (each warp's chunk unchanged)")
    for kernel, level in GRID_POINTS:
        near = []
        for scale in GRID_SCALES:
            profile = None if scale == 1.0 else grid_profile(rn, kernel, scale)
            base, shared = rn.run(kernel, 0, profile), rn.run(kernel, level, profile)
            if scale <= 1.1:
                near.append(pct(shared["thread_ipc"], base["thread_ipc"]))
            print(f"{kernel} {level:.0%} grid x{scale:g} ({base['kernel']['grid_ctas']} CTAs): "
                  f"cycles {base['cycles']} -> {shared['cycles']}, {change_line(base, shared)}")
        print(f"{kernel} {level:.0%} grids x0.9-x1.1: mean {statistics.mean(near):+.1f}%, "
              f"range {min(near):+.1f}% .. {max(near):+.1f}%")


def l2(rn):
    print("== l2: nw1 / nw2 with the L2 doubled; srad1's fill what-if (see private) with a 6 MiB L2")
    for kernel in ("nw1", "nw2"):
        for sets in ((), ("l2.size_bytes=1572864",)):
            base = rn.run(kernel, 0, sets=sets)
            for level in (0.5, 0.9):
                shared = rn.run(kernel, level, sets=sets)
                print(f"{kernel} {level:.0%} {' '.join(sets) or 'L2 768 KB'}: {change_line(base, shared)}")
                print(f"    0 %: {memory_line(base)}\n    {level:.0%}: {memory_line(shared)}")
    profile = private_profile(rn, "srad1", 0.5, "fill")
    for sets in ((), BIG_L2):
        base, shared = rn.run("srad1", 0, profile, sets), rn.run("srad1", 0.5, profile, sets)
        print(f"srad1 fill 50% {' '.join(sets) or 'L2 768 KB'}: {change_line(base, shared)}")
        print(f"    0 %: {memory_line(base)}, L1 MSHR stall cycles {base['counters']['l1']['mshr_stall_cycles']}")
        print(f"    50 %: {memory_line(shared)}, L1 MSHR stall cycles {shared['counters']['l1']['mshr_stall_cycles']}")


def dram_rows(rn):
    print("== dram-rows: x4 grid, row activation almost free (and, for btree, also a 6 MiB L2)")
    free_rows = ("dram.tRCD=1", "dram.tRP=1", "dram.tRAS=1")
    for kernel, settings in (("btree", ((), free_rows, free_rows + BIG_L2)), ("hotspot", ((), free_rows))):
        profile = grid_profile(rn, kernel, 4.0)
        for s in settings:
            base, shared = rn.run(kernel, 0, profile, s), rn.run(kernel, 0.9, profile, s)
            print(f"{kernel} x4 90% {' '.join(s) or 'jatala-fermi'}: {change_line(base, shared)}")
            print(f"    0 %: {memory_line(base)}\n    90 %: {memory_line(shared)}")


def private_profile(rn, kernel, level, kind):
    """fill: phases before the main loop (the phase with the most instructions
    that touches the tile) keep their scratchpad accesses in the private part;
    loop: also the first half of the main loop's repeats (same instructions)."""
    private = round((1 - level) * 0.98, 4)  # below floor(S_tb (1 - P)) bytes at every profile's size

    def edit(p):
        phases = p["phases"]
        main = max((i for i, ph in enumerate(phases) if "shared" in ph),
                   key=lambda i: phases[i]["instructions"] * phases[i].get("repeat", 1))
        out = []
        for i, ph in enumerate(phases):
            ph = copy.deepcopy(ph)
            if i < main and "shared" in ph:
                ph["shared"]["range"] = [0.0, private]
            if i == main and kind == "loop":
                first = copy.deepcopy(ph)
                first["name"] = ph["name"] + "_private"
                first["repeat"] = ph.get("repeat", 1) // 2
                first["shared"]["range"] = [0.0, private]
                first.pop("barrier_after", None)
                ph["repeat"] = ph.get("repeat", 1) - first["repeat"]
                out.append(first)
            out.append(ph)
        p["phases"] = out
    return rn.profile_copy(kernel, f"{kernel}-{kind}-{round(level * 100)}", edit)


def private(rn):
    print("== private: non-owners that work on the private part of the tile first")
    for kernel, level in PRIVATE_POINTS:
        for kind in ("profile", "fill", "loop"):
            profile = None if kind == "profile" else private_profile(rn, kernel, level, kind)
            base, shared = rn.run(kernel, 0, profile), rn.run(kernel, level, profile)
            ms = shared["mechanism_stats"]
            where = {k.split(".", 1)[1]: v for k, v in ms.items() if k.startswith("phase_lock_waits.") and v}
            waits = ms["lock_waits"]
            print(f"{kernel} {level:.0%} {kind}: {change_line(base, shared)}; {waits} waits of "
                  f"{ms['lock_wait_cycles'] / max(waits, 1):,.0f} cycles, begun in {where}")
            print(f"    0 %: {memory_line(base)}\n    {level:.0%}: {memory_line(shared)}")


def vcd_series(path, wanted):
    """(cycle, {signal: value}) at every change of the named gpu.sm0 signals
    (dotted scope paths below gpu.sm0, e.g. "lock_array.waiting_warps")."""
    ids, scope, values, out, cycle, ps_per_cycle = {}, [], {}, [], 0, None
    with open(path) as f:
        for line in f:
            if line.startswith("$comment") and "one core cycle is" in line:
                ps_per_cycle = int(line.split("one core cycle is")[1].split()[0])
            elif line.startswith("$scope"):
                scope.append(line.split()[2])
            elif line.startswith("$upscope"):
                scope.pop()
            elif line.startswith("$var"):
                code, name = line.split()[3:5]
                full = ".".join(scope[2:] + [name])  # below gpu.sm0
                if full in wanted and scope[:2] == ["gpu", "sm0"]:
                    ids[code] = full
            elif line.startswith("#"):
                if values:
                    out.append((cycle, dict(values)))
                cycle = int(line[1:]) // ps_per_cycle
            elif line.startswith("b"):
                bits, code = line[1:].split()
                if code in ids:
                    values[ids[code]] = int(bits, 2)
    missing = set(wanted) - set(ids.values())
    if missing:
        sys.exit(f"jatala_misses.py: {path} has no signal(s) {sorted(missing)} under gpu.sm0")
    out.append((cycle, dict(values)))
    return out


def waveform(rn):
    print("== waveform: SM 0 of btree at 0 % and 90 %, time share by warps not waiting at a lock")
    x4 = grid_profile(rn, "btree", 4.0)
    ideal_memory = ("dram.tRCD=1", "dram.tRP=1", "dram.tRAS=1") + BIG_L2
    for label, profile, sets in (("profile's grid", "btree", ()), ("x4, ideal memory", x4, ideal_memory)):
        for level in (0, 0.9):
            tag = "grid" if not sets else "x4-ideal-memory"
            path = os.path.join(rn.out, "reports", f"btree-{tag}-sm0-{level:g}.vcd")
            if not os.path.exists(path):
                cmd = [rn.smshare, "run", "--config", "jatala-fermi", "--kernel", profile, "--mechanism", "regshare",
                       "--sharing", f"{level:g}", "--scheduler", "lrr", "--vcd", path, "--vcd-sms", "0", "--quiet"]
                for s in sets:
                    cmd += ["--set", s]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            wanted = ["active_warps"] + (["lock_array.waiting_warps"] if level else [])
            series = vcd_series(path, wanted)
            # SM 0's own run: up to its last warp (the kernel may go on on other SMs).
            end = max(c for (_, v), (c, _) in zip(series, series[1:]) if v.get("active_warps", 0) > 0)
            share = {}
            for (c0, v), (c1, _) in zip(series, series[1:]):
                if c0 < end:
                    working = v.get("active_warps", 0) - v.get("lock_array.waiting_warps", 0)
                    share[working] = share.get(working, 0) + min(c1, end) - c0
            mean = sum(w * t for w, t in share.items()) / end
            print(f"btree {label} {level:.0%} SM 0: last warp ends at cycle {end}, {mean:.2f} working warps on "
                  "average; share of time by working warps: "
                  + ", ".join(f"{w}: {t / end:.3f}" for w, t in sorted(share.items()) if t / end >= 0.005))
            if level:
                unshared = vcd_series(path, ["pair_table.unshared_ctas"])
                ends = [c for c, v in unshared if v.get("pair_table.unshared_ctas") == 0 and c > 0]
                print(f"    the unshared seat is last empty from cycle {ends[0] if ends else 'never'}")


SECTIONS = {"decompose": decompose, "grids": grids, "waveform": waveform, "l2": l2, "dram-rows": dram_rows,
            "private": private}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smshare", default=os.path.join(ROOT, "build", "smshare"))
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "jatala-misses"))
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    args = ap.parse_args()
    chosen = args.only.split(",")
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        sys.exit(f"jatala_misses.py: --only: unknown section(s) {unknown}; allowed: {', '.join(SECTIONS)}")
    rn = Runner(args.smshare, args.out)
    for s in chosen:
        SECTIONS[s](rn)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
