#!/usr/bin/env python3
"""Script tests of the CACTI flow (registered in tb/cacti/CMakeLists.txt).

  test_cacti_cache.py matches      results.json of every node matches its cfgs (sha256)
  test_cacti_cache.py stale        a changed cfg without a refreshed cache fails, naming the cfg
  test_cacti_cache.py malformed    malformed cfgs give errors naming the cfg and the key
  test_cacti_cache.py cacti-fails  a cfg CACTI refuses gives an error naming the cfg (needs CACTI)
  test_cacti_cache.py reproduces   re-running CACTI reproduces the cached numbers (needs CACTI)
  test_cacti_cache.py plot         scripts/plot_energy.py draws a PNG from a report
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "cacti", "cacti_cache.py")


def run(args, env=None, expect_rc=0):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([sys.executable, TOOL] + args, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    out = p.stdout + p.stderr
    if (expect_rc == 0) != (p.returncode == 0):
        sys.exit(f"FAIL: cacti_cache.py {' '.join(args)} exited {p.returncode}, expected "
                 f"{'0' if expect_rc == 0 else 'non-zero'}:\n{out}")
    return out


def expect_in(text, *needles):
    for n in needles:
        if n not in text:
            sys.exit(f"FAIL: expected {n!r} in:\n{text}")


def copy_params(tmp):
    dst = os.path.join(tmp, "cacti-params")
    shutil.copytree(os.path.join(ROOT, "cacti-params"), dst)
    return dst


def t_matches():
    out = run(["check"])
    expect_in(out, "40nm", "32nm", "match results.json")


def t_stale():
    with tempfile.TemporaryDirectory() as tmp:
        params = copy_params(tmp)
        cfg = os.path.join(params, "40nm", "l1d.cfg")
        with open(cfg) as f:
            text = f.read()
        with open(cfg, "w") as f:
            f.write(text.replace("-associativity 4", "-associativity 8"))
        out = run(["check", "--node", "40nm"], env={"SMSHARE_CACTI_PARAMS": params}, expect_rc=1)
        expect_in(out, "l1d.cfg", "another version", "refresh")
        # A cfg with no cache entry, and an entry whose cfg is gone.
        shutil.copyfile(os.path.join(params, "40nm", "owner_bits.cfg"), os.path.join(params, "40nm", "extra.cfg"))
        os.remove(os.path.join(params, "40nm", "boundary_buffer.cfg"))
        with open(os.path.join(params, "40nm", "extra.cfg")) as f:
            t = f.read().replace("@structure owner_bits", "@structure extra")
        with open(os.path.join(params, "40nm", "extra.cfg"), "w") as f:
            f.write(t)
        out = run(["check", "--node", "40nm"], env={"SMSHARE_CACTI_PARAMS": params}, expect_rc=1)
        expect_in(out, "no entry for", "extra.cfg", "'boundary_buffer' has no cfg")


def t_malformed():
    good = open(os.path.join(ROOT, "cacti-params", "40nm", "owner_bits.cfg")).read()
    cases = [
        ("owner_bits", good.replace("-size (bytes) 64", "-size (bytes) sixty-four"), "size (bytes)"),
        ("owner_bits", good.replace("-block size (bytes) 1\n", ""), "block size (bytes)' : missing".replace(" :", ":")),
        ("owner_bits", good.replace('-cache type "ram"', '-cache type "rom"'), "allowed: ram, cache"),
        ("owner_bits", good.replace("// @access_bits 1\n", ""), "@access_bits"),
        ("owner_bits", good.replace("@structure owner_bits", "@structure lock_array"), "differs from the file name"),
        ("owner_bits", good + "size 12\n", "neither a '-parameter value' line"),
        ("owner_bits", good.replace("// @access_bits", "// @acess_bits"), "unknown metadata key"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, needle in cases:
            cfg = os.path.join(tmp, name + ".cfg")
            with open(cfg, "w") as f:
                f.write(text)
            out = run(["run", cfg], env={"CACTI_BIN": "/nonexistent/cacti"}, expect_rc=1)
            expect_in(out, "owner_bits.cfg", needle)


def t_cacti_fails():
    good = open(os.path.join(ROOT, "cacti-params", "40nm", "operand_cache_bank.cfg")).read()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "operand_cache_bank.cfg")
        # 512 B in 128 B rows: 4 rows, which CACTI refuses.
        with open(cfg, "w") as f:
            f.write(good.replace("-block size (bytes) 16", "-block size (bytes) 128")
                    .replace("-output/input bus width 128", "-output/input bus width 1024"))
        out = run(["run", cfg], expect_rc=1)
        expect_in(out, "operand_cache_bank.cfg", "CACTI failed", "no valid data array organizations found")
        with open(cfg, "w") as f:
            f.write(good.replace("-size (bytes) 512", "-size (bytes) 32"))
        out = run(["run", cfg], expect_rc=1)
        expect_in(out, "operand_cache_bank.cfg", "CACTI failed", "Cache size must >=64")


def t_reproduces():
    out = run(["verify"])
    expect_in(out, "40nm: CACTI reproduces all", "32nm: CACTI reproduces all")
    # The CAM search energy of a fully associative array (the coalescer's
    # pending request table) is cached and checked like the other numbers.
    with tempfile.TemporaryDirectory() as tmp:
        params = copy_params(tmp)
        path = os.path.join(params, "40nm", "results.json")
        with open(path) as f:
            doc = json.load(f)
        doc["structures"]["coalescer_pending_requests"]["search_energy_nj"] *= 1.1
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
        out = run(["verify", "--node", "40nm"], env={"SMSHARE_CACTI_PARAMS": params}, expect_rc=1)
        expect_in(out, "coalescer_pending_requests.cfg: search_energy_nj cached")


def t_plot():
    report = {"energy": {"simulated_seconds": 1e-3, "structures": {
        "register_file_bank": {"dynamic_j": 2e-3, "leakage_j": 1e-3},
        "l1d": {"dynamic_j": 5e-4, "leakage_j": 2e-4},
        "dram": {"dynamic_j": 3e-3, "leakage_j": 0.0}},
        "sm_unit_static": {"energy_j": 4e-2},
        "pipeline": {"components": {
            "sp_fpu": {"events": 100, "energy_per_event_j": 3e-11, "dynamic_j": 3e-9},
            "fetch_decode": {"events": 10, "energy_per_event_j": None, "dynamic_j": 0.0}}}}}
    # The pipeline's charged components are bars of their own; the uncharged are named.
    spec = importlib.util.spec_from_file_location("plot_energy", os.path.join(ROOT, "scripts", "plot_energy.py"))
    plot_energy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_energy)
    with tempfile.TemporaryDirectory() as tmp:
        rj = os.path.join(tmp, "report.json")
        with open(rj, "w") as f:
            json.dump(report, f)
        _, rows, uncharged = plot_energy.load(rj)
        if ("pipeline: sp_fpu", 3e-9, 0.0) not in rows or uncharged != ["fetch_decode"]:
            sys.exit(f"FAIL: pipeline rows {rows}, uncharged {uncharged}")
        if any(r[0] == "pipeline: fetch_decode" for r in rows):
            sys.exit("FAIL: an uncharged pipeline component got a bar")
    with tempfile.TemporaryDirectory() as tmp:
        rj, png = os.path.join(tmp, "report.json"), os.path.join(tmp, "energy.png")
        with open(rj, "w") as f:
            json.dump(report, f)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot_energy.py"), rj, png],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) < 1000:
            sys.exit(f"FAIL: plot_energy.py exited {p.returncode}:\n{p.stdout}")
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                sys.exit("FAIL: not a PNG")
        # A report without an energy section is a clear error.
        with open(rj, "w") as f:
            json.dump({"ipc": 1.0}, f)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot_energy.py"), rj, png],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode == 0 or "energy" not in p.stdout:
            sys.exit(f"FAIL: expected an error about the missing energy section:\n{p.stdout}")


TESTS = {"matches": t_matches, "stale": t_stale, "malformed": t_malformed, "cacti-fails": t_cacti_fails,
         "reproduces": t_reproduces, "plot": t_plot}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(TESTS)}}}")
    TESTS[sys.argv[1]]()
    print(f"PASS {sys.argv[1]}")
