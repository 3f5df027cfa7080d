#!/usr/bin/env python3
"""End-to-end tests of `smshare sweep` (local backend): expansion and
collection, content hashes, resume after a killed sweep, failure isolation,
one sweep per folder, and bad specs and flags.

usage: sweep_cli_tests.py SMSHARE CASE     run one case (exit 0 = pass)
       sweep_cli_tests.py --list           print every case name

tb/sweep/CMakeLists.txt registers one CTest test per case (label sweep).
Runs are made fast with 2 SMs and a few CTAs (0.2-0.7 s each).
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOST_FIELDS = ("host", "sim_seconds", "sim_rate_warp_inst_per_s", "sim_rate_cycles_per_s")
FAST = "  set: {gpu.num_sms: 2}\n  ctas: 24\n"


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def sweep(smshare, *args, cwd=None):
    return subprocess.run([smshare, "sweep", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def write(path, text):
    Path(path).write_text(text)
    return str(path)


def rows(out):
    with open(Path(out) / "results.csv") as f:
        return list(csv.DictReader(f))


def reports(out):
    return sorted(Path(out, "runs").glob("*/report.json"))


def hashes(out):
    return [r["hash"] for r in rows(out)]


def stripped(path):
    r = json.loads(Path(path).read_text())
    for k in HOST_FIELDS:
        r.pop(k, None)
    return r


def case_runs_collects_and_matches_run(smshare, tmp):
    spec = write(tmp / "s.yaml", "name: four\naxes:\n  kernel: [hotspot, backprop]\n"
                 "  mechanism: [baseline, regshare]\n" + FAST + "outputs: [cycles, ipc, occupancy.limited_by]\n")
    p = sweep(smshare, spec, "--out", tmp / "o", "--jobs", 2)
    check(p.returncode == 0, f"sweep failed ({p.returncode}): {p.stderr}")
    table = rows(tmp / "o")
    check(len(table) == 4 and all(r["status"] == "ok" for r in table), f"rows: {[r['status'] for r in table]}")
    check([(r["kernel"], r["mechanism"]) for r in table] ==
          [("hotspot", "baseline"), ("hotspot", "regshare"), ("backprop", "baseline"), ("backprop", "regshare")],
          "rows are not in spec order")
    for col in ("sweep", "hash", "status", "kernel", "set.gpu.num_sms", "ctas", "cycles", "ipc", "counters.l1.misses"):
        check(col in table[0], f"results.csv has no column {col}")
    check(table[0]["sweep"] == "four" and len(table[0]["hash"]) == 16, "sweep name or hash column")
    check("limited by" not in p.stdout and "occupancy.limited_by" in p.stdout, "the outputs table:\n" + p.stdout)
    check("4 runs: 4 ok; 0 were already done" in p.stdout, p.stdout)
    data = json.loads((tmp / "o" / "results.json").read_text())
    check(data["sweep"] == "four" and len(data["rows"]) == 4 and isinstance(data["rows"][0]["cycles"], int),
          "results.json rows (numbers stay numbers)")
    # A sweep's report is the report `smshare run` writes for the same arguments.
    run_dir = tmp / "o" / "runs" / table[1]["hash"]
    run_args = json.loads((run_dir / "request.json").read_text())["run_args"]
    direct = subprocess.run([smshare, *run_args, "--report", str(tmp / "direct.json")], capture_output=True, text=True)
    check(direct.returncode == 0, direct.stderr)
    check(stripped(run_dir / "report.json") == stripped(tmp / "direct.json"), "sweep report != smshare run report")
    check(str(table[1]["cycles"]) == str(json.loads((tmp / "direct.json").read_text())["cycles"]), "csv cycles")
    status = json.loads((run_dir / "status.json").read_text())
    check(status["status"] == "ok" and status["exit_code"] == 0 and status["backend"] == "local", str(status))
    # Again: nothing runs; --force runs everything again.
    before = {r: r.stat().st_mtime_ns for r in reports(tmp / "o")}
    again = sweep(smshare, spec, "--out", tmp / "o")
    check(again.returncode == 0 and "4 were already done" in again.stdout, again.stdout + again.stderr)
    check({r: r.stat().st_mtime_ns for r in reports(tmp / "o")} == before, "a done run was redone")
    forced = sweep(smshare, spec, "--out", tmp / "o", "--force", "--jobs", 2)
    check(forced.returncode == 0 and "0 were already done" in forced.stdout, forced.stdout + forced.stderr)
    check(all(r.stat().st_mtime_ns != t for r, t in before.items()), "--force did not run again")


def case_hash_follows_the_inputs(smshare, tmp):
    kernel = tmp / "k.yaml"
    shutil.copy(REPO / "configs" / "kernels" / "hotspot.yaml", kernel)
    spec_text = "axes:\n  kernel: [k.yaml, backprop]\n  scheduler: [lrr, gto]\n  set: {gpu.num_sms: 2}\n"
    spec = write(tmp / "s.yaml", spec_text)
    def collect(out):
        p = sweep(smshare, spec, "--out", tmp / out, "--collect")
        check(p.returncode == 0, p.stderr)
        check(all(r["status"] == "pending" for r in rows(tmp / out)), "--collect ran something")
        return hashes(tmp / out)
    first = collect("a")
    check(len(set(first)) == 4, f"4 different runs, 4 hashes: {first}")
    check(collect("b") == first, "the same inputs gave other hashes")
    # From another working directory: paths do not enter the hash.
    other = sweep(smshare, spec, "--out", tmp / "c", "--collect", cwd="/")
    check(other.returncode == 0 and hashes(tmp / "c") == first, "hash depends on the working directory")
    # A --set value changes the runs it applies to.
    write(spec, spec_text.replace("gpu.num_sms: 2", "gpu.num_sms: 3"))
    check(not set(collect("d")) & set(first), "--set change kept a hash")
    write(spec, spec_text)
    # A changed kernel file changes its runs' hashes, and only theirs.
    kernel.write_text(kernel.read_text() + "\n# a comment is a change of the file\n")
    changed = collect("e")
    check(changed[0] != first[0] and changed[1] != first[1], "changed kernel file kept its hash")
    check(changed[2:] == first[2:], "an unrelated run's hash changed")
    # The identity names this build.
    version = subprocess.run([smshare, "--version"], capture_output=True, text=True).stdout
    request = json.loads((tmp / "e" / "runs" / changed[0] / "request.json").read_text())
    build = request["identity"]["smshare_build"]
    check(len(build) == 64 and f"(build {build[:16]})" in version, f"build id {build} vs {version}")


def case_a_run_whose_inputs_changed_is_refused(smshare, tmp):
    # Planned (as a Slurm submission plans it), then the profile is edited
    # before the run starts: the run refuses instead of filing its report
    # under a name that no longer describes it.
    kernel = tmp / "k.yaml"
    shutil.copy(REPO / "configs" / "kernels" / "hotspot.yaml", kernel)
    spec = write(tmp / "s.yaml", "axes:\n  kernel: k.yaml\n" + FAST)
    p = sweep(smshare, spec, "--out", tmp / "o", "--collect")
    check(p.returncode == 0, p.stderr)
    run_dir = tmp / "o" / "runs" / hashes(tmp / "o")[0]
    kernel.write_text(kernel.read_text().replace("seed: 1", "seed: 2"))
    r = subprocess.run([smshare, "sweep-run", str(run_dir)], capture_output=True, text=True)
    check(r.returncode == 1, f"sweep-run exit {r.returncode}")
    err = (run_dir / "stderr.txt").read_text()
    check("the run's inputs changed since the sweep named it (workload differ)" in err, err)
    check(json.loads((run_dir / "status.json").read_text())["status"] == "failed", "status")
    check(not (run_dir / "report.json").exists(), "a report was filed")
    again = sweep(smshare, spec, "--out", tmp / "o")
    check(again.returncode == 0 and hashes(tmp / "o")[0] != run_dir.name, "the edited run was not planned anew")


def slow_spec(tmp, n=5):
    # n runs of ~0.5 s each (seeds differ, so each is its own run).
    seeds = ", ".join(str(s) for s in range(1, n + 1))
    return write(tmp / "slow.yaml", f"name: slow\naxes:\n  kernel: hotspot\n  seed: [{seeds}]\n"
                 "  set: {gpu.num_sms: 2}\n  ctas: 40\n")


def wait_for(cond, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise Failure(f"timed out waiting for {what}")


def case_resumes_after_a_killed_sweep(smshare, tmp):
    spec, out = slow_spec(tmp), tmp / "o"
    proc = subprocess.Popen([smshare, "sweep", spec, "--out", str(out), "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(reports(out)) >= 2, 60, "two finished runs")
    # A second sweep into the same folder is refused while the first runs.
    twin = sweep(smshare, spec, "--out", out)
    check(twin.returncode == 1 and "another smshare sweep is running" in twin.stderr, twin.stderr)
    proc.kill()
    proc.wait()
    done = {r: r.stat().st_mtime_ns for r in reports(out)}
    time.sleep(1.5)  # the run in flight died with the sweep: no report appears later
    check({r: r.stat().st_mtime_ns for r in reports(out)} == done, "a run outlived the killed sweep")
    resumed = sweep(smshare, spec, "--out", out, "--jobs", 1)
    check(resumed.returncode == 0, resumed.stderr)
    check(f"{len(done)} were already done" in resumed.stdout, resumed.stdout)
    check(resumed.stderr.count("] ok ") == 5 - len(done), "the resumed sweep ran:\n" + resumed.stderr)
    check(all(r.stat().st_mtime_ns == t for r, t in done.items()), "a completed run was redone")
    check(len(reports(out)) == 5, "not every run is done")


def case_a_failed_run_does_not_stop_the_sweep(smshare, tmp):
    spec, out = slow_spec(tmp, 4), tmp / "o"
    proc = subprocess.Popen([smshare, "sweep", spec, "--out", str(out), "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Kill the second run's process (as the OOM killer would): a sweep-run of
    # this sweep whose run has no outcome yet, once the first run is done.
    victim = {}
    def second_running():
        if len(reports(out)) != 1:
            return False
        for pid in os.listdir("/proc"):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"sweep-run" in cmd:
                run_dir = Path(cmd[cmd.index(b"sweep-run") + 1].decode())
                if run_dir.parent.parent == out and not (run_dir / "status.json").exists():
                    victim["pid"], victim["dir"] = int(pid), run_dir
                    return True
        return False
    wait_for(second_running, 60, "the second run")
    os.kill(victim["pid"], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    check(proc.returncode == 1, f"exit {proc.returncode}, expected 1 (a run failed)\n{stderr}")
    table = rows(out)
    failed = [r for r in table if r["status"] == "failed"]
    check(len(failed) == 1 and failed[0]["exit_code"] == "137", f"statuses {[(r['status'], r['exit_code']) for r in table]}")
    check(sum(r["status"] == "ok" for r in table) == 3, "the other runs did not all run")
    check(f"failed: {failed[0]['hash']} (exit 137)" in stdout and "1 failed" in stdout, stdout)
    check(Path(victim["dir"]).name == failed[0]["hash"], "a different run failed than the one killed")
    ok_before = {r: r.stat().st_mtime_ns for r in reports(out)}
    retry = sweep(smshare, spec, "--out", out)
    check(retry.returncode == 0 and "3 were already done" in retry.stdout, retry.stdout + retry.stderr)
    check(all(r.stat().st_mtime_ns == t for r, t in ok_before.items()), "a completed run was redone")
    check(all(r["status"] == "ok" for r in rows(out)), "the failed run was not tried again")


def case_host_threads_reach_every_run_and_name_no_run(smshare, tmp):
    # host_threads: N adds --host-threads N to every run; a report is the same
    # for every N, so the runs keep their hashes and a done run stays done.
    body = "axes:\n  kernel: [hotspot, backprop]\n" + FAST
    one = write(tmp / "one.yaml", "name: ht\n" + body)
    two = write(tmp / "two.yaml", "name: ht\nhost_threads: 2\n" + body)
    p = sweep(smshare, two, "--out", tmp / "two", "--jobs", 1)
    check(p.returncode == 0, f"sweep failed ({p.returncode}): {p.stderr}")
    p = sweep(smshare, one, "--out", tmp / "one", "--jobs", 1)
    check(p.returncode == 0, f"sweep failed ({p.returncode}): {p.stderr}")
    check(hashes(tmp / "two") == hashes(tmp / "one"), f"host_threads changed the hashes: "
          f"{hashes(tmp / 'two')} vs {hashes(tmp / 'one')}")
    check("host_threads" not in rows(tmp / "two")[0], "host_threads became a column")
    for h in hashes(tmp / "two"):
        run_dir = tmp / "two" / "runs" / h
        run_args = json.loads((run_dir / "request.json").read_text())["run_args"]
        check(run_args[-2:] == ["--host-threads", "2"], f"{run_dir}/request.json run_args: {run_args}")
        threads = json.loads((run_dir / "report.json").read_text())["host"]["threads"]
        check(threads == 2, f"{run_dir}/report.json host.threads is {threads}")
        check(stripped(run_dir / "report.json") == stripped(tmp / "one" / "runs" / h / "report.json"),
              f"run {h}: the report with 2 host threads differs from the one with 1")
    again = sweep(smshare, two, "--out", tmp / "one")
    check(again.returncode == 0 and "2 were already done" in again.stdout,
          "runs done with 1 host thread were not done for host_threads: 2\n" + again.stdout + again.stderr)


def case_bad_specs_and_flags(smshare, tmp):
    def expect(args, code, *needles, cwd=None):
        p = subprocess.run([smshare, *map(str, args)], capture_output=True, text=True, cwd=cwd)
        check(p.returncode == code, f"smshare {' '.join(map(str, args))}: exit {p.returncode}, expected {code}\n{p.stderr}")
        for n in needles:
            check(n in p.stderr, f"smshare {' '.join(map(str, args))}: stderr lacks '{n}':\n{p.stderr}")
    spec = write(tmp / "bad.yaml", "axes:\n  kernel: hotspot\n  schedulr: [lrr]\n")
    expect(["sweep", spec, "--out", tmp / "o"], 1, str(spec), "axes.schedulr", "not an axis; axes: config, kernel")
    spec = write(tmp / "bad2.yaml", "axes:\n  kernel: hotspot\n  scheduler: [lrr, fifo]\n")
    expect(["sweep", spec, "--out", tmp / "o"], 1, f"{spec}: run 2 (kernel=hotspot scheduler=fifo)",
           "--scheduler: 'fifo' is not one of")
    spec = write(tmp / "bad3.yaml", "axes:\n  kernel: [hotspot, nosuchkernel]\n")
    expect(["sweep", spec, "--out", tmp / "o"], 1, "run 2 (kernel=nosuchkernel)", "nosuchkernel")
    spec = write(tmp / "bad4.yaml", "axes:\n  kernel: hotspot\n  set: {sm.registerz: [1]}\n")
    expect(["sweep", spec, "--out", tmp / "o"], 1, "run 1", "sm.registerz")
    check(not list((tmp / "o" / "runs").glob("*/report.json")), "a bad spec ran something")
    spec = write(tmp / "bad5.yaml", "host_threads: 512\naxes: {kernel: hotspot}\n")
    expect(["sweep", spec, "--out", tmp / "o"], 1, str(spec), "'host_threads'",
           "'512' is not a number of host threads (allowed: 1 to 256)")
    expect(["sweep", tmp / "missing.yaml"], 1, "missing.yaml: cannot be read")
    good = write(tmp / "good.yaml", "axes: {kernel: hotspot}\n")
    expect(["sweep"], 2, "SPEC is required")
    expect(["sweep", good, "--partition", "x"], 2, "--partition applies to --backend slurm")
    expect(["sweep", good, "--backend", "slurm", "--jobs", "2"], 2, "--jobs applies to --backend local")
    expect(["sweep", good, "--collect", "--force"], 2, "--collect runs nothing")
    expect(["sweep", good, "--backend", "pbs"], 2, "'pbs' is not one of local, slurm")
    expect(["sweep", good, "--jobs", "0"], 2, "--jobs must be at least 1")
    expect(["sweep-run", tmp / "nowhere"], 1, "nowhere/request.json: cannot be read")


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        sys.exit(f"usage: {sys.argv[0]} SMSHARE CASE | --list (cases: {', '.join(CASES)})")
    smshare, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix=f"smshare_sweep_{case}_") as tmp:
        try:
            CASES[case](smshare, Path(tmp))
        except Failure as e:
            print(f"FAIL {case}: {e}")
            return 1
    print(f"PASS {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
