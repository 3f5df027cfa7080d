#!/usr/bin/env python3
"""CLI-level tests of the smshare binary: exit codes and messages on bad input,
determinism of reports, occupancy, simulated residency, report contents, VCD.

usage: cli_tests.py SMSHARE CASE     run one case (exit 0 = pass)
       cli_tests.py --list           print every case name, one per line

tb/cli/CMakeLists.txt registers one CTest test per listed case. Expectations
are derived by hand from the YAML files under configs/ (read with PyYAML), not
from the binary's own output.
"""

import glob
import json
import math
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"

# Report fields that depend on the host, not on the simulation.
HOST_FIELDS = ("host", "sim_seconds", "sim_rate_warp_inst_per_s", "sim_rate_cycles_per_s")
LIMITS = {"registers", "scratchpad", "threads", "cta_slots", "warp_slots", "grid"}
# An SM's probes, under its scope gpu.smN: its SM-wide summaries, then one
# or two of each structure module's (gpu.smN.<structure>.<probe>).
PROBES = ("issued_count", "stall_reason", "active_warps", "schedulable_warps", "resident_ctas", "pending_loads",
          "scheduler0.issued_warp", "scheduler1.ready_warps", "register_file.reads_this_cycle",
          "register_file.writes_this_cycle", "bank_arbitrator.grants_this_cycle",
          "bank_arbitrator.conflicts_this_cycle", "operand_collectors.busy_units",
          "scratchpad.accesses_this_cycle", "scratchpad.last_conflict_degree", "l1d.misses_this_cycle")
# Profiles whose one-wave run on the full GPU takes more than ~2 s of host
# time (measured: bfs 3.2 s, btree 3.8 s, mum 2.3 s); residency runs them on 2 SMs.
HEAVY_PROFILES = {"bfs", "btree", "mum"}


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Result:
    def __init__(self, args, proc, seconds):
        self.args, self.rc, self.out, self.err, self.seconds = args, proc.returncode, proc.stdout, proc.stderr, seconds

    def describe(self):
        return (f"command: smshare {' '.join(self.args)}\nexit code: {self.rc}\n"
                f"stderr:\n{self.err[:3000]}\nstdout (start):\n{self.out[:1500]}")

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError as e:
            raise Failure(f"stdout is not JSON ({e})\n{self.describe()}")


class Context:
    def __init__(self, smshare, tmp):
        self.smshare, self.tmp = str(Path(smshare).resolve()), Path(tmp)

    def run(self, *args, cwd=None, timeout=120, env=None):
        args = [str(a) for a in args]
        t0 = time.monotonic()
        try:
            proc = subprocess.run([self.smshare, *args], capture_output=True, text=True, timeout=timeout,
                                  cwd=cwd or self.tmp, env=env)
        except subprocess.TimeoutExpired:
            raise Failure(f"smshare {' '.join(args)} did not finish in {timeout} s")
        res = Result(args, proc, time.monotonic() - t0)
        assert_no_crash(res)
        return res

    def write(self, name, text):
        path = self.tmp / name
        path.write_text(text)
        return path


def assert_no_crash(res):
    """No input may crash the CLI: no signal, no abort, no escaped exception."""
    check(res.rc >= 0, f"killed by signal {-res.rc}\n{res.describe()}")
    check(res.rc not in (134, 136, 139) and res.rc < 128, f"exit code {res.rc} looks like a crash\n{res.describe()}")
    for marker in ("terminate called", "uncaught exception", "Segmentation fault", "Aborted", "core dumped",
                   "E549"):
        check(marker not in res.err + res.out,
              f"output shows a crash or escaped exception ({marker!r})\n{res.describe()}")


def expect_rc(res, rc):
    check(res.rc == rc, f"expected exit code {rc}, got {res.rc}\n{res.describe()}")


def expect_err(res, *needles):
    for n in needles:
        check(n in res.err, f"stderr does not mention {n!r}\n{res.describe()}")


def expect_err_re(res, pattern):
    check(re.search(pattern, res.err), f"stderr does not match /{pattern}/\n{res.describe()}")


def bad_input(ctx, args, rc, *needles):
    res = ctx.run(*args)
    expect_rc(res, rc)
    expect_err(res, *needles)
    if rc == 2:
        expect_err(res, "usage:")
    return res


def mechanism_rows(listing):
    """`smshare list mechanisms`: {name: rest of its row} (key lines are indented)."""
    rows = {}
    for line in listing.splitlines()[1:]:
        if line and not line[0].isspace() and " " in line:
            name, rest = line.split(None, 1)
            rows[name] = rest
    return rows


def strip_host(report):
    return {k: v for k, v in report.items() if k not in HOST_FIELDS}


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present in only one report"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def vcd_maxima(path):
    """Each signal of the VCD at `path`: the largest value it took."""
    seen = {}
    for _, name, v in Vcd(path).changes:
        seen[name] = max(seen.get(name, v), v)
    return seen


def expect_vcd_signals(ctx, name, run_args, signals, scope="gpu.sm0."):
    """Runs `smshare run_args --vcd` and checks that each of `signals` (under `scope`) rose above 0;
    returns the signals' maxima."""
    vcd = ctx.tmp / f"{name}.vcd"
    res = ctx.run("run", *run_args, "--vcd", vcd, "--json")
    expect_rc(res, 0)
    seen = vcd_maxima(vcd)
    for signal in signals:
        check(seen.get(scope + signal, 0) > 0, f"{scope}{signal} never above 0 in the VCD")
    return seen


def names_in(kind):
    return sorted(Path(p).stem for p in glob.glob(str(CONFIGS / kind / "*.yaml")))


def load_gpu(name):
    """The GPU config `name` with its `extends:` chain merged (deep)."""
    def merge(base, over):
        out = dict(base)
        for k, v in over.items():
            out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
        return out
    y = yaml.safe_load((CONFIGS / "gpu" / f"{name}.yaml").read_text())
    base = y.pop("extends", None)
    return merge(load_gpu(base), y) if base else y


def load_kernel(name):
    return yaml.safe_load((CONFIGS / "kernels" / f"{name}.yaml").read_text())


def paper_entries():
    """(profile, gpu config, printed CTAs/SM) for every shipped profile that prints one."""
    out = []
    for name in names_in("kernels"):
        per_sm = (load_kernel(name).get("paper") or {}).get("ctas_per_sm") or {}
        for gpu, n in sorted(per_sm.items()):
            out.append((name, gpu, int(n)))
    return out


def warps_per_cta(threads):
    return (threads + 31) // 32


# ---------------------------------------------------------------- cases

CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


SMALL = ("run", "--config", "fermi-gtx480", "--kernel", "hotspot")


# --- bad input: exit 1 (InputError) or 2 (usage) with a message naming what to fix

@case("bad_unknown_config")
def _(ctx):
    bad_input(ctx, ("run", "--config", "nosuchgpu", "--kernel", "hotspot"), 1, "nosuchgpu", *names_in("gpu"))


@case("bad_missing_config_file")
def _(ctx):
    missing = ctx.tmp / "missing.yaml"
    bad_input(ctx, ("run", "--config", missing, "--kernel", "hotspot"), 1, str(missing), "no such file")
    bad_input(ctx, ("run", "--config", "fermi-gtx480", "--kernel", ctx.tmp / "nokernel.yaml"), 1,
              str(ctx.tmp / "nokernel.yaml"))


@case("bad_malformed_yaml")
def _(ctx):
    f = ctx.write("malformed.yaml", "name: broken\ngpu:\n  num_sms: 2\nsm:\n  max_ctas: 8: 9\n  registers: 1024\n")
    bad_input(ctx, ("run", "--config", f, "--kernel", "hotspot"), 1, str(f), "line 5")
    k = ctx.write("malformed-kernel.yaml", (CONFIGS / "kernels" / "hotspot.yaml").read_text() + "mix: [0.5,\n")
    res = bad_input(ctx, ("run", "--config", "fermi-gtx480", "--kernel", k), 1, str(k))
    expect_err_re(res, r"line \d+")


@case("bad_unknown_config_key")
def _(ctx):
    f = ctx.write("typo.yaml", "extends: fermi-gtx480\nname: typo\nsm:\n  registrs: 32768\n")
    bad_input(ctx, ("run", "--config", f, "--kernel", "hotspot"), 1, str(f), "sm.registrs", "unknown key",
              "sm.registers")


@case("bad_out_of_range")
def _(ctx):
    bad_input(ctx, SMALL + ("--set", "sm.registers=0"), 1, "--set", "sm.registers", "'0'", "[32, ")
    f = ctx.write("zero-regs.yaml", "extends: fermi-gtx480\nname: zero-regs\nsm:\n  registers: 0\n")
    bad_input(ctx, ("run", "--config", f, "--kernel", "hotspot"), 1, str(f), "sm.registers", "[32, ")
    bad_input(ctx, SMALL + ("--set", "gpu.num_sms=0"), 1, "gpu.num_sms", "[1, 256]")


@case("bad_non_numeric")
def _(ctx):
    bad_input(ctx, SMALL + ("--set", "sm.registers=abc"), 1, "--set", "sm.registers", "'abc'", "an integer in [32, ")
    f = ctx.write("fast.yaml", "extends: fermi-gtx480\nname: fast\ngpu:\n  core_clock_mhz: fast\n")
    bad_input(ctx, ("run", "--config", f, "--kernel", "hotspot"), 1, str(f), "gpu.core_clock_mhz", "'fast'",
              "a number in [1, 10000]")


@case("bad_set_form")
def _(ctx):
    bad_input(ctx, SMALL + ("--set", "sm.registers"), 1, "--set", "sm.registers", "key=value")
    bad_input(ctx, SMALL + ("--set", "=5"), 1, "--set", "key=value")


@case("bad_unknown_set_key")
def _(ctx):
    bad_input(ctx, SMALL + ("--set", "sm.regsiters=5"), 1, "--set", "sm.regsiters", "unknown key", "sm.registers")


@case("bad_scheduler")
def _(ctx):
    # The user typed --scheduler, so the message must name --scheduler (not --set).
    bad_input(ctx, SMALL + ("--scheduler", "fifo"), 1, "--scheduler", "fifo", "lrr", "gto", "two-level", "owf",
              "ltlws-lrr", "ltlws-gto")


@case("bad_unknown_kernel")
def _(ctx):
    bad_input(ctx, ("run", "--config", "fermi-gtx480", "--kernel", "nosuchkernel"), 1, "nosuchkernel",
              *names_in("kernels"))


def kernel_variant(ctx, name, edit, base="hotspot"):
    y = load_kernel(base)
    edit(y)
    return ctx.write(name, yaml.safe_dump(y, sort_keys=False))


@case("bad_kernel_unknown_key")
def _(ctx):
    f = kernel_variant(ctx, "k-typo.yaml", lambda y: y["registers"].update({"hot_cnt": 4}))
    bad_input(ctx, ("run", "--config", "fermi-gtx480", "--kernel", f), 1, str(f), "registers.hot_cnt",
              "unknown key", "registers.hot_count")


@case("bad_kernel_mix_sum")
def _(ctx):
    # A flat profile (hotspot has phases, whose mixes are checked as phases[i].mix).
    f = kernel_variant(ctx, "k-mix.yaml", lambda y: y["mix"].update({"int_alu": 0.55}), base="synthetic")  # sums to 1.2
    bad_input(ctx, ("occupancy", "--config", "fermi-gtx480", "--kernel", f), 1, str(f), "'mix'", "sum to 1.2",
              "must be 1")


@case("bad_kernel_regs_over_255")
def _(ctx):
    f = kernel_variant(ctx, "k-regs.yaml", lambda y: y.update({"regs_per_thread": 300}))
    bad_input(ctx, ("occupancy", "--config", "fermi-gtx480", "--kernel", f), 1, str(f), "regs_per_thread",
              "'300'", "[1, 255]")
    bad_input(ctx, ("occupancy", "--config", "fermi-gtx480", "--kernel", "hotspot", "--regs-per-thread", "256"), 1,
              "regs_per_thread", "256", "[1, 255]")


@case("bad_impossible_kernel")
def _(ctx):
    # 255 regs/thread rounds to 256 (granularity 4); 256 x 32 lanes x 32 warps = 262144 > 32768.
    res = bad_input(ctx, SMALL + ("--regs-per-thread", "255", "--threads-per-cta", "1024"), 1, "regs_per_thread",
                    "registers", "262144", "32768", "sm.registers")
    check("not one CTA fits" in res.err, res.describe())


@case("bad_unknown_mechanism")
def _(ctx):
    bad_input(ctx, SMALL + ("--mechanism", "magic"), 1, "--mechanism", "magic", "baseline")


@case("bad_unknown_command")
def _(ctx):
    bad_input(ctx, ("frobnicate",), 2, "frobnicate")
    bad_input(ctx, (), 2, "no command")


@case("bad_missing_option_value")
def _(ctx):
    bad_input(ctx, ("run", "--config"), 2, "--config", "needs a value")
    bad_input(ctx, ("run", "--config", "fermi-gtx480", "--kernel", "hotspot", "--set"), 2, "--set", "needs a value")


@case("bad_unknown_option")
def _(ctx):
    bad_input(ctx, SMALL + ("--cats", "3"), 2, "unknown option --cats")


@case("bad_ctas_not_a_number")
def _(ctx):
    bad_input(ctx, SMALL + ("--ctas", "abc"), 2, "--ctas", "'abc'", "non-negative integer")
    bad_input(ctx, SMALL + ("--ctas", "-3"), 2, "--ctas", "'-3'")
    bad_input(ctx, SMALL + ("--ctas", "0"), 1, "grid_ctas", "[1, ")


@case("bad_list_foo")
def _(ctx):
    bad_input(ctx, ("list", "foo"), 2, "foo", "configs", "kernels", "mechanisms")


@case("bad_log_level")
def _(ctx):
    bad_input(ctx, SMALL + ("--log-level", "loud"), 2, "--log-level", "loud", "trace, debug, info, warn, error, off")


# --- the command line's forms (CLI11): per-command flags and help, --version

COMMANDS = ("run", "occupancy", "area", "hw-cost", "list", "help")
RUN_FLAGS = ("--config", "--kernel", "--trace", "--mechanism", "--sharing", "--scheduler", "--set", "--seed", "--ctas",
             "--threads-per-cta", "--regs-per-thread", "--smem-per-cta", "--report", "--json", "--vcd", "--vcd-sms",
             "--vcd-window", "--list-modules", "--log-level", "--quiet")


def flags_in_help(text):
    """The flags a help text's option table lists (rows start with two spaces and a flag)."""
    return set(re.findall(r"^  (?:-h,)?(--[a-z-]+)", text, re.M))


@case("bad_unknown_command_lists_commands")
def _(ctx):
    res = bad_input(ctx, ("frobnicate", "--config", "fermi-gtx480"), 2, "unknown command 'frobnicate'", *COMMANDS)
    check(res.out == "", f"an unknown command printed on stdout:\n{res.out}")
    bad_input(ctx, ("help", "frobnicate"), 2, "frobnicate", *COMMANDS)


@case("bad_option_of_another_command")
def _(ctx):
    # area prices a mechanism's storage: a kernel or a sharing level would be ignored.
    bad_input(ctx, ("area", "--config", "fermi-gtx480", "--mechanism", "regshare", "--kernel", "hotspot"), 2,
              "area does not take --kernel", "run", "occupancy")
    bad_input(ctx, ("area", "--config", "fermi-gtx480", "--mechanism", "regshare", "--sharing", "0.5"), 2,
              "area does not take --sharing")
    # Occupancy does not simulate: no seed, scheduler, report or waveform.
    for flag, value in (("--seed", "3"), ("--scheduler", "gto"), ("--report", "r.json"), ("--vcd", "w.vcd")):
        bad_input(ctx, ("occupancy", "--config", "fermi-gtx480", "--kernel", "hotspot", flag, value), 2,
                  f"occupancy does not take {flag}", "run")
    bad_input(ctx, ("list", "configs", "--json"), 2, "list does not take --json")
    bad_input(ctx, ("list", "configs", "kernels"), 2, "list", "unexpected argument 'kernels'")
    bad_input(ctx, ("hw-cost", "--config", "jatala-fermi"), 2, "hw-cost", "--mechanism", "regshare", "spmshare")
    check(not (ctx.tmp / "r.json").exists() and not (ctx.tmp / "w.vcd").exists(), "a rejected command wrote a file")


@case("bad_vcd_window")
def _(ctx):
    for bad in ("9", "a:5", "5:", ":5", "-1:5", "10:5", "1:2:3", "0x10:0x20"):
        res = bad_input(ctx, SMALL + ("--vcd", "w.vcd", "--vcd-window", bad), 2, "--vcd-window", repr(bad), "FROM:TO",
                        "FROM <= TO")
        check("cycles" not in res.out, f"--vcd-window {bad} ran the simulation:\n{res.out}")
    # A window without a waveform would be ignored.
    bad_input(ctx, SMALL + ("--vcd-window", "0:100"), 2, "--vcd-window", "requires --vcd")
    check(not (ctx.tmp / "w.vcd").exists(), "a rejected command wrote w.vcd")


@case("bad_vcd_sms")
def _(ctx):
    for bad in ("0,a", "", "0,,1", "0,", "-1", "1,1", "some", "4294967296"):
        bad_input(ctx, SMALL + ("--vcd", "w.vcd", "--vcd-sms", bad), 2, "--vcd-sms", repr(bad), "0,3", "all")
    bad_input(ctx, SMALL + ("--vcd-sms", "0"), 2, "--vcd-sms", "requires --vcd")
    check(not (ctx.tmp / "w.vcd").exists(), "a rejected command wrote w.vcd")


@case("vcd_selection_forms_accepted")
def _(ctx):
    # The well-formed --vcd-sms and --vcd-window values are taken (SM 0 exists on every GPU).
    for sms, window in (("all", "0:200"), ("0", "100:100")):
        res = ctx.run(*SMALL, "--ctas", 1, "--set", "gpu.num_sms=1", "--vcd", ctx.tmp / "w.vcd", "--vcd-sms", sms,
                      "--vcd-window", window, "--json")
        expect_rc(res, 0)
        check(res.json()["completed"] is True, f"--vcd-sms {sms} --vcd-window {window}: run did not complete")


def source_build_id():
    """The build id as scripts/build_id.cmake computes it: SHA-256 over the
    "<sha256>  <path>" lines of every file under hw/ and cacti-params/ and
    CMakeLists.txt, sorted by path."""
    import hashlib
    paths = ["CMakeLists.txt"]
    for top in ("hw", "cacti-params"):
        for folder, _, files in os.walk(REPO / top):
            paths += [str((Path(folder) / f).relative_to(REPO)) for f in files]
    manifest = "".join(f"{hashlib.sha256((REPO / p).read_bytes()).hexdigest()}  {p}\n" for p in sorted(paths))
    return hashlib.sha256(manifest.encode()).hexdigest()


@case("version")
def _(ctx):
    res = ctx.run("--version")
    expect_rc(res, 0)
    version = re.search(r"^project\(smshare VERSION (\S+)", (REPO / "CMakeLists.txt").read_text(), re.M).group(1)
    lines = res.out.splitlines()
    check(lines[:1] == [f"smshare {version} (build {source_build_id()[:16]})"],
          f"--version: {res.out!r}; CMakeLists.txt says {version}, the sources' build id is {source_build_id()}")
    check(len(lines) == 2 and re.fullmatch(r"SystemC 2\.3\.\d+\S*", lines[1]),
          f"--version does not name the SystemC release: {res.out!r}")


@case("help_per_command")
def _(ctx):
    res = ctx.run("run", "--help")
    expect_rc(res, 0)
    check("usage:" in res.out and "smshare run" in res.out, f"run --help:\n{res.out}")
    missing = set(RUN_FLAGS) - flags_in_help(res.out)
    check(not missing, f"run --help does not list {sorted(missing)}:\n{res.out}")
    for s in ("lrr", "gto", "two-level", "owf", "ltlws-lrr", "ltlws-gto"):
        check(s in res.out, f"run --help does not list the scheduler {s}")
    same = ctx.run("help", "run")
    check(same.rc == 0 and same.out == res.out, "smshare help run differs from smshare run --help")
    res = ctx.run("area", "-h")
    expect_rc(res, 0)
    check(flags_in_help(res.out) == {"--help", "--config", "--mechanism", "--set", "--json", "--log-level"},
          f"area --help lists {sorted(flags_in_help(res.out))}")
    for args in (("--help",), ("-h",), ("help",)):
        res = ctx.run(*args)
        expect_rc(res, 0)
        for c in COMMANDS:
            check(f"smshare {c}" in res.out, f"smshare {' '.join(args)} does not show smshare {c}:\n{res.out}")
        check("--version" in res.out, f"smshare {' '.join(args)} does not mention --version")


@case("bad_extends_cycle")
def _(ctx):
    a = ctx.write("cycle-a.yaml", "extends: cycle-b.yaml\nname: cycle-a\n")
    ctx.write("cycle-b.yaml", "extends: cycle-a.yaml\nname: cycle-b\n")
    res = bad_input(ctx, ("run", "--config", a, "--kernel", "hotspot"), 1, "extends", "cycle")
    expect_err_re(res, r"cycle-[ab]\.yaml")
    self_ref = ctx.write("self.yaml", "extends: self.yaml\nname: self\n")
    bad_input(ctx, ("occupancy", "--config", self_ref, "--kernel", "hotspot"), 1, "self.yaml", "extends", "cycle")
    missing_base = ctx.write("orphan.yaml", "extends: nosuchbase\nname: orphan\n")
    bad_input(ctx, ("occupancy", "--config", missing_base, "--kernel", "hotspot"), 1, str(missing_base), "extends",
              "nosuchbase", *names_in("gpu"))


@case("bad_cross_field")
def _(ctx):
    # fermi-gtx480: 48 warp slots x 32 lanes = 1536 threads.
    bad_input(ctx, SMALL + ("--set", "sm.max_threads=2048"), 1, "fermi-gtx480.yaml", "--set", "sm.max_threads",
              "sm.max_warps", "1536")
    f = ctx.write("sched.yaml", "extends: fermi-gtx480\nname: sched\nsm:\n  num_schedulers: 5\n")
    bad_input(ctx, ("occupancy", "--config", f, "--kernel", "hotspot"), 1, str(f), "sm.num_schedulers",
              "sm.max_warps (48)")


@case("bad_sector_bytes")
def _(ctx):
    # A sector is 0 (not sectored) or a power of two from 32 dividing the line.
    for key, value in (("l1.sector_bytes", "48"), ("l1.sector_bytes", "16"), ("l2.sector_bytes", "256")):
        bad_input(ctx, SMALL + ("--set", f"{key}={value}"), 1, "fermi-gtx480.yaml", "--set", key,
                  "power of two from 32", "got " + value)
    f = ctx.write("sector.yaml", "extends: fermi-gtx480\nname: sector\nl2:\n  sector_bytes: 96\n")
    bad_input(ctx, ("occupancy", "--config", f, "--kernel", "hotspot"), 1, str(f), "l2.sector_bytes",
              "l2.line_bytes (128)")


@case("bad_dram_scheduler")
def _(ctx):
    # dram.scheduler takes fcfs or frfcfs; the message names where the value came from, the key and both.
    bad_input(ctx, SMALL + ("--set", "dram.scheduler=foo"), 1, "--set", "dram.scheduler", "'foo'", "fcfs", "frfcfs")
    f = ctx.write("dram-sched.yaml", "extends: fermi-gtx480\nname: dram-sched\ndram:\n  scheduler: foo\n")
    bad_input(ctx, ("run", "--config", f, "--kernel", "hotspot"), 1, str(f), "dram.scheduler", "'foo'", "fcfs",
              "frfcfs")


@case("bad_yaml_complex_key")
def _(ctx):
    # A YAML mapping key that is not a scalar must be an input error naming the file.
    f = ctx.write("complex-key.yaml", "extends: fermi-gtx480\n? [a, b]\n: 1\n")
    bad_input(ctx, ("occupancy", "--config", f, "--kernel", "hotspot"), 1, str(f))
    k = kernel_variant(ctx, "k-complex.yaml", lambda y: None)
    k.write_text(k.read_text() + "? [a, b]\n: 1\n")
    bad_input(ctx, ("occupancy", "--config", "fermi-gtx480", "--kernel", k), 1, str(k))


@case("bad_l2_size_zero")
def _(ctx):
    # l2.size_bytes accepts 0 by its declared range; whatever rejects it must name the key.
    bad_input(ctx, SMALL + ("--ctas", "1", "--set", "l2.size_bytes=0"), 1, "l2.size_bytes")


@case("bad_output_paths")
def _(ctx):
    bad_input(ctx, SMALL + ("--ctas", "1", "--set", "gpu.num_sms=1", "--report", "/nonexistent-dir/r.json"), 1,
              "--report", "/nonexistent-dir/r.json")
    bad_input(ctx, SMALL + ("--ctas", "1", "--set", "gpu.num_sms=1", "--vcd", "/nonexistent-dir/w.vcd"), 1,
              "--vcd", "/nonexistent-dir/w")


@case("bad_jatala_setting_that_would_be_ignored")
def _(ctx):
    # The Sec. III-A rule is about register locks; the DWE tuning keys need DWE on.
    bad_input(ctx, ("run", "--config", "jatala-fermi", "--kernel", "lavamd", "--mechanism", "spmshare",
                    "--set", "jatala.deadlock_avoidance=false"), 1, "jatala.deadlock_avoidance", "regshare")
    bad_input(ctx, ("run", "--config", "jatala-fermi", "--kernel", "hotspot", "--mechanism", "regshare",
                    "--set", "jatala.dwe_period_cycles=500"), 1, "jatala.dwe_", "dynamic_warp_execution=true")


# --- determinism: same inputs, same report (host fields aside); the seed matters

def same_twice(ctx, *args):
    a, b = ctx.run(*args, "--json"), ctx.run(*args, "--json")
    expect_rc(a, 0)
    expect_rc(b, 0)
    ra, rb = a.json(), b.json()
    for f in HOST_FIELDS:
        check(f in ra, f"report lacks host field {f}")
    d = first_difference(strip_host(ra), strip_host(rb))
    check(d is None, f"two runs of smshare {' '.join(a.args)} differ at {d}")
    check(ra["completed"] is True, f"run did not complete\n{a.describe()}")
    return ra


@case("determinism_hotspot_lrr")
def _(ctx):
    same_twice(ctx, *SMALL, "--ctas", 30)


@case("determinism_hotspot_gto")
def _(ctx):
    r = same_twice(ctx, *SMALL, "--ctas", 30, "--scheduler", "gto")
    check(r["scheduler"] == "gto", f"scheduler is {r['scheduler']!r}")


@case("determinism_streaming")
def _(ctx):
    same_twice(ctx, "run", "--config", "fermi-gtx480", "--kernel", "streaming", "--ctas", 30)


def same_with_waveforms(ctx, args, waveform_flags):
    """Runs `args` plainly and once per entry of `waveform_flags` with --vcd
    and those flags; every report must equal the plain one (host timing
    aside). Returns the plain report."""
    plain = ctx.run(*args, "--json")
    expect_rc(plain, 0)
    for i, extra in enumerate(waveform_flags):
        traced = ctx.run(*args, "--vcd", ctx.tmp / f"w{i}.vcd", *extra, "--json")
        expect_rc(traced, 0)
        d = first_difference(strip_host(plain.json()), strip_host(traced.json()))
        check(d is None, f"--vcd {' '.join(extra)} changed the report at {d}")
    return plain.json()


@case("determinism_vcd_does_not_change_the_run")
def _(ctx):
    # In a waveform's window the traced SMs tick every cycle; elsewhere SMs
    # sleep through cycles in which nothing can happen. Every choice of
    # window and SMs must give the same run, on a multi-SM GPU where SMs
    # compete for memory within a cycle.
    args = ("run", "--config", "fermi-gtx480", "--kernel", "hotspot", "--ctas", 40, "--set", "gpu.num_sms=4")
    same_with_waveforms(ctx, args, ((), ("--vcd-window", "3000:9000"), ("--vcd-window", "0:500", "--vcd-sms", "2"),
                                    ("--vcd-window", "20000:20000", "--vcd-sms", "1,3")))


@case("determinism_vcd_with_icache")
def _(ctx):
    # A warp waiting for an instruction-cache fill sleeps until the fill is
    # back; ticking every cycle in a waveform's window must give the same run.
    args = ("run", "--config", "fermi-gtx480", "--kernel", "hotspot", "--ctas", 40, "--set", "gpu.num_sms=4",
            "--set", "icache.size_bytes=2048")
    plain = same_with_waveforms(ctx, args, ((), ("--vcd-window", "0:500", "--vcd-sms", "2")))
    check(plain["counters"]["icache"]["misses"] > 0, "the instruction cache never missed")


@case("determinism_vcd_with_pipeline_registers")
def _(ctx):
    # With GPGPU-Sim's pipeline registers an SM sleeps only when nothing in
    # them can move before a known cycle; ticking every cycle in a waveform's
    # window must give the same run (two register ports: two collector steps).
    args = ("run", "--config", "jatala-fermi", "--kernel", "hotspot", "--ctas", 40, "--set", "gpu.num_sms=4",
            "--mechanism", "regshare", "--set", "sm.pipeline_registers=true", "--set", "sm.register_bank_ports=2")
    plain = same_with_waveforms(ctx, args, ((), ("--vcd-window", "0:500", "--vcd-sms", "2")))
    check(plain["config"]["params"]["sm.pipeline_registers"] == "true", "the key did not reach the run")


@case("determinism_vcd_with_dwe_and_full_collectors")
def _(ctx):
    # A shared warp the lock lets through may find no free collector unit
    # (or ID_OC slot) and ask the lock again in every cycle its SM ticks: a
    # traced SM ticks more of them than a sleeping one. The lock array counts
    # one read per instruction that issues past the lock, so its activity
    # must not change with tracing, with either operand pipeline.
    for pipeline_registers in ("false", "true"):
        args = ("run", "--config", "jatala-fermi", "--kernel", "backprop", "--mechanism", "regshare",
                "--set", "jatala.dynamic_warp_execution=true", "--ctas", 60, "--set", "l1.mshr_entries=32",
                "--set", f"sm.pipeline_registers={pipeline_registers}")
        plain = same_with_waveforms(ctx, args, (("--vcd-window", "1000:5000", "--vcd-sms", "0,7"),))
        check(plain["activity"]["lock_array_register"]["reads"] > 0, "regshare never read its lock array")


@case("determinism_vcd_with_frfcfs")
def _(ctx):
    # Under FR-FCFS a DRAM decision at time t is taken in the first cycle c
    # with c x period + (icnt.latency + l2.hit_latency + dram.latency) > t,
    # before the SMs tick, whichever cycles the clock runs: a waveform run
    # (SMs ticking every cycle) and a second run must give the same report.
    args = ("run", "--config", "fermi-gtx480", "--kernel", "hotspot", "--ctas", 40, "--set", "gpu.num_sms=4",
            "--set", "dram.scheduler=frfcfs", "--set", "icache.size_bytes=2048", "--set", "l1.mshr_entries=4",
            "--set", "dram.queue_depth=8", "--set", "l2.mshr_entries=4")
    plain = same_with_waveforms(ctx, args, ((), ("--vcd-window", "0:500", "--vcd-sms", "2")))
    same_twice(ctx, *args)
    channels = plain["counters"]["memory"]["dram_channels"]
    check(sum(c["frfcfs"]["reordered"] for c in channels) > 0, "FR-FCFS never served a row hit before an older miss")
    slices = plain["counters"]["memory"]["l2_partitions"]
    check(sum(p["miss_stall_ps"] for p in slices) > 0, "no L2 read miss ever waited for an MSHR")
    check(plain["config"]["params"]["dram.scheduler"] == "frfcfs", "the report does not show dram.scheduler")


# --- --host-threads: the SMs of a cycle ticked on several host threads give
# the report of ticking them one after another (host fields aside); 4 threads
# oversubscribe the 2-core CI machine, which must change nothing either.

HOST_THREADS = (2, 4)


def same_on_host_threads(ctx, *args, pace="1"):
    """Runs `args` with --host-threads 1, 2 and 4; every report must be the first's. Returns it.
    SMSHARE_HOST_THREADS_ALWAYS=`pace`: "1", every cycle with two units due goes to the threads (else
    a busy CI machine could have the run tick them one after another, which would test nothing);
    "alternate", the threads and one thread's run-ahead windows take turns, and both must happen."""
    env = dict(os.environ, SMSHARE_HOST_THREADS_ALWAYS=pace)
    one = ctx.run(*args, "--host-threads", 1, "--json", timeout=300, env=env)
    expect_rc(one, 0)
    ref = one.json()
    check(ref["host"]["threads"] == 1, f"host.threads is {ref['host'].get('threads')!r}")
    for n in HOST_THREADS:
        res = ctx.run(*args, "--host-threads", n, "--json", timeout=300, env=env)
        expect_rc(res, 0)
        rep = res.json()
        host = rep["host"]
        check(host["threads"] == n, f"host.threads is {host.get('threads')!r}, not {n}")
        if pace == "1":
            check(host["cycles_ticked_on_threads"] == host["cycles_with_several_units_due"] > 0,
                  f"not every cycle with several SMs due went to the threads: {host}")
        else:
            check(host["sm_ticks_run_ahead"] > 0 and host["cycles_ticked_on_threads"] > 0,
                  f"smshare {' '.join(res.args)} did not both run ahead and tick on the threads: {host}")
            check(host["cycles_ticked_on_threads"] < host["cycles_with_several_units_due"],
                  f"smshare {' '.join(res.args)} ticked every cycle on the threads: {host}")
        d = first_difference(strip_host(ref), strip_host(rep))
        check(d is None, f"smshare {' '.join(res.args)} differs from --host-threads 1 at {d}")
    return ref


def run_experiment_kernels():
    text = (REPO / "scripts" / "run_experiment.sh").read_text()
    return re.search(r'SMSHARE_KERNELS:-([^}"]+)', text).group(1).split()


# scripts/run_experiment.sh's runs, each to completion: one case per kernel,
# so each has the CLI cases' timeout to itself (lbm alone is about a million
# cycles, ticked on 4 threads on 2 cores) and CTest spreads them over the cores.
DEFAULT_EXPERIMENT_KERNELS = ("hotspot", "sgemm", "lavamd", "lbm", "backprop")


@case("host_threads_default_experiment_kernels")
def _(ctx):
    kernels = run_experiment_kernels()
    check(tuple(kernels) == DEFAULT_EXPERIMENT_KERNELS,
          f"run_experiment.sh's kernels are {kernels}; the host_threads_default_experiment_* cases run "
          f"{list(DEFAULT_EXPERIMENT_KERNELS)}: make them agree")


def host_threads_default_experiment_case(kernel):
    def run(ctx):
        r = same_on_host_threads(ctx, "run", "--config", "fermi-gtx480", "--kernel", kernel)
        check(r["completed"] is True, f"{kernel} did not complete")
    return run


for _k in DEFAULT_EXPERIMENT_KERNELS:
    CASES[f"host_threads_default_experiment_{_k}"] = host_threads_default_experiment_case(_k)


# Each registered mechanism on the config its paper uses, small, with the
# settings that couple SMs: DWE's SM0 reference, cross-SM groups.
HOST_THREAD_MECHANISM_RUNS = {
    "baseline": ("--config", "fermi-gtx480", "--kernel", "hotspot"),
    "regshare": ("--config", "jatala-fermi", "--kernel", "backprop", "--set", "jatala.dynamic_warp_execution=true",
                 "--set", "jatala.dwe_period_cycles=200"),
    "spmshare": ("--config", "jatala-fermi", "--kernel", "lavamd", "--scheduler", "owf"),
    "zorua": ("--config", "fermi-gtx480", "--kernel", "nqueens"),
    "expars": ("--config", "fermi-gtx480", "--kernel", "btree"),
    "occ": ("--config", "gtx580", "--kernel", "hotspot"),
    "bal": ("--config", "gtx580", "--kernel", "hotspot"),
    "bigsm": ("--config", "gtx580", "--kernel", "hotspot"),
    "bigsm_occ": ("--config", "gtx580", "--kernel", "cfd-flux"),
}


# A Zorua run whose warps swap registers out and back in (3,768 swap reads).
ZORUA_SWAPPING = ("run", "--mechanism", "zorua", "--config", "fermi-gtx480", "--kernel", "hotspot", "--ctas", 60)


@case("host_threads_every_mechanism")
def _(ctx):
    res = ctx.run("list", "mechanisms")
    expect_rc(res, 0)
    simulated = sorted(n for n, row in mechanism_rows(res.out).items() if row.split()[0] == "simulated")
    check(simulated == sorted(HOST_THREAD_MECHANISM_RUNS),
          f"registered mechanisms {simulated}; this test runs {sorted(HOST_THREAD_MECHANISM_RUNS)}: add a run")
    for name, args in HOST_THREAD_MECHANISM_RUNS.items():
        r = same_on_host_threads(ctx, "run", "--mechanism", name, "--ctas", 40, *args)
        check(r["mechanism"] == name, f"ran {r['mechanism']!r}, not {name!r}")
    # Zorua's swap traffic, on the threads left for later as the LDST unit's lines are.
    r = same_on_host_threads(ctx, *ZORUA_SWAPPING)
    check(r["mechanism_stats"]["swap_reads"] > 0, f"zorua swapped nothing: {r['mechanism_stats']}")


def with_every_scheduler(ctx, same, ctas):
    """`same(ctx, *run_args)` (one of the same_* comparisons above) for a small
    hotspot run of `ctas` CTAs under every scheduler the help lists."""
    res = ctx.run("run", "--help")
    schedulers = re.search(r"warp scheduler: ([a-z|-]+)", res.out + res.err).group(1).split("|")
    check(len(schedulers) >= 6, f"schedulers from the help: {schedulers}")
    for s in schedulers:
        r = same(ctx, *SMALL, "--ctas", ctas, "--scheduler", s)
        check(r["scheduler"] == s, f"ran {r['scheduler']!r}, not {s!r}")


@case("host_threads_every_scheduler")
def _(ctx):
    with_every_scheduler(ctx, same_on_host_threads, 40)


@case("host_threads_trace_fcfs_and_waveform")
def _(ctx):
    traces = sorted(glob.glob(str(REPO / "tb" / "traces" / "*" / "kernelslist.g")))
    check(traces, "no trace under tb/traces")
    for t in traces:
        same_on_host_threads(ctx, "run", "--config", "fermi-gtx480", "--trace", t)
    same_on_host_threads(ctx, *SMALL, "--ctas", 40, "--set", "dram.scheduler=fcfs")
    # A waveform is sampled on the main thread after the SMs ticked: the
    # same signals with any number of threads.
    vcds = []
    for n in (1, 3):
        vcd = ctx.tmp / f"t{n}.vcd"
        res = ctx.run(*SMALL, "--ctas", 30, "--set", "gpu.num_sms=4", "--vcd", vcd, "--vcd-window", "0:3000",
                      "--host-threads", n, "--json", env=dict(os.environ, SMSHARE_HOST_THREADS_ALWAYS="1"))
        expect_rc(res, 0)
        vcds.append([line for line in vcd.read_text().splitlines() if "$date" not in line])
    check(vcds[0] == vcds[1], "the waveform with --host-threads 3 differs from the one with 1")


@case("bad_host_threads")
def _(ctx):
    # Decimal digits only, 1 to 256 (parse_host_threads, the rule of a sweep spec's host_threads: too).
    for bad in ("0", "257", "+2", "2x", "", "-2", "abc"):
        bad_input(ctx, SMALL + ("--host-threads", bad), 2,
                  f"--host-threads: '{bad}' is not a number of host threads (allowed: 1 to 256)")
    res = ctx.run(*SMALL, "--ctas", 3, "--host-threads", 2, env=dict(os.environ, SMSHARE_HOST_THREADS_ALWAYS="yes"))
    expect_rc(res, 1)
    expect_err(res, "SMSHARE_HOST_THREADS_ALWAYS", "'yes'", "0, 1, alternate")


# With --host-threads, the cycles the pace ticks one SM after another run
# run-ahead's windows, and an SM can be held ahead (its requests of a later
# cycle waiting for their turn) when the next cycle goes to the threads.
# SMSHARE_HOST_THREADS_ALWAYS=alternate has the two ways take turns every
# 256 cycles with SMs of two units due, so that both happen in every run.
@case("host_threads_alternating_with_run_ahead")
def _(ctx):
    runs = [("run", "--config", "fermi-gtx480", "--kernel", "hotspot", "--ctas", 120),
            ("run", "--config", "fermi-gtx480", "--trace", REPO / "tb" / "traces" / "generated_small" / "kernelslist.g"),
            ("run", "--mechanism", "expars", "--config", "fermi-gtx480", "--kernel", "btree", "--ctas", 60),
            ("run", "--mechanism", "spmshare", "--config", "jatala-fermi", "--kernel", "lavamd", "--ctas", 60),
            ZORUA_SWAPPING]
    refs = [same_on_host_threads(ctx, *args, pace="alternate") for args in runs]
    # Run-ahead off: the threads' way and one thread's take turns as before.
    plain = ctx.run(*runs[0], "--host-threads", 2, "--json", timeout=300,
                    env=dict(os.environ, SMSHARE_HOST_THREADS_ALWAYS="alternate", SMSHARE_RUN_AHEAD="0"))
    expect_rc(plain, 0)
    check(plain.json()["host"]["sm_ticks_run_ahead"] == 0, f"SMSHARE_RUN_AHEAD=0 ran ahead: {plain.json()['host']}")
    d = first_difference(strip_host(refs[0]), strip_host(plain.json()))
    check(d is None, f"smshare {' '.join(plain.args)} with SMSHARE_RUN_AHEAD=0 differs from one thread at {d}")


# --- run-ahead: on one host thread the clock ticks an SM several cycles in a
# row, ahead of the others, where nothing another SM does first could change
# what it does (GpuModule::tick_window); SMSHARE_RUN_AHEAD=0 ticks every SM
# one cycle at a time. Every report must be the same either way (host fields
# aside), and the runs that may run ahead must do so, or this tests nothing.

def same_with_run_ahead(ctx, *args, runs_ahead=True):
    """Runs `args` with SMSHARE_RUN_AHEAD=0 and 1; the reports must agree. Returns the second."""
    plain = ctx.run(*args, "--json", timeout=300, env=dict(os.environ, SMSHARE_RUN_AHEAD="0"))
    expect_rc(plain, 0)
    ahead = ctx.run(*args, "--json", timeout=300, env=dict(os.environ, SMSHARE_RUN_AHEAD="1"))
    expect_rc(ahead, 0)
    ref, rep = plain.json(), ahead.json()
    check(ref["host"]["sm_ticks_run_ahead"] == ref["host"]["run_ahead_windows"] == 0,
          f"SMSHARE_RUN_AHEAD=0 ran ahead: {ref['host']}")
    ticks, windows = rep["host"]["sm_ticks_run_ahead"], rep["host"]["run_ahead_windows"]
    if runs_ahead:
        check(ticks >= windows > 0, f"smshare {' '.join(ahead.args)} never ran ahead: {rep['host']}")
    else:
        check(ticks == windows == 0, f"smshare {' '.join(ahead.args)} ran ahead: {rep['host']}")
    d = first_difference(strip_host(ref), strip_host(rep))
    check(d is None, f"smshare {' '.join(ahead.args)} differs from SMSHARE_RUN_AHEAD=0 at {d}")
    return rep


# Which mechanisms' SMs run ahead (SmCore::runs_ahead_ok): not with a
# kernel-wide state (Jatala's instances share SM0's reference with dynamic
# warp execution on, as the regshare run here has it; spmshare's has it off)
# or borrowed register banks (cross-SM sharing's groups).
RUNS_AHEAD = {"baseline": True, "regshare": False, "spmshare": True, "zorua": True, "expars": True,
              "occ": False, "bal": False, "bigsm": False, "bigsm_occ": False}


@case("run_ahead_every_mechanism")
def _(ctx):
    check(sorted(RUNS_AHEAD) == sorted(HOST_THREAD_MECHANISM_RUNS),
          f"RUNS_AHEAD names {sorted(RUNS_AHEAD)}, the mechanisms run are {sorted(HOST_THREAD_MECHANISM_RUNS)}")
    for name, args in HOST_THREAD_MECHANISM_RUNS.items():
        r = same_with_run_ahead(ctx, "run", "--mechanism", name, "--ctas", 40, *args, runs_ahead=RUNS_AHEAD[name])
        check(r["mechanism"] == name, f"ran {r['mechanism']!r}, not {name!r}")
    # Jatala without dynamic warp execution (its default): each SM's instance
    # is its own, pair table and lock arrays, which warps ticked ahead wait on.
    r = same_with_run_ahead(ctx, "run", "--mechanism", "regshare", "--config", "jatala-fermi", "--kernel", "hotspot",
                            "--ctas", 60)
    stats = r["mechanism_stats"]
    check(stats["shared_ctas_launched"] > 0 and stats["lock_waits"] > 0,
          f"regshare shared no CTA pair or no warp waited on a lock: {stats}")
    # Zorua's swap traffic, left for later as the LDST unit's lines are: a
    # read's answer reaches the mechanism after the tick (memory_response),
    # under FR-FCFS also from a DRAM decision taken later.
    for scheduler in ("frfcfs", "fcfs"):
        r = same_with_run_ahead(ctx, *ZORUA_SWAPPING, "--set", f"dram.scheduler={scheduler}")
        stats = r["mechanism_stats"]
        check(stats["swap_reads"] > 0 and stats["swap_writes"] > 0, f"zorua swapped nothing: {stats}")
    # The grid larger than the SMs hold: CTAs launched as others end, mid-run.
    same_with_run_ahead(ctx, *SMALL, "--ctas", 300)
    same_with_run_ahead(ctx, "run", "--mechanism", "expars", "--config", "fermi-gtx480", "--kernel", "btree",
                        "--ctas", 200)


@case("run_ahead_every_scheduler_trace_and_fcfs")
def _(ctx):
    with_every_scheduler(ctx, same_with_run_ahead, 120)
    for t in sorted(glob.glob(str(REPO / "tb" / "traces" / "*" / "kernelslist.g"))):
        same_with_run_ahead(ctx, "run", "--config", "fermi-gtx480", "--trace", t)
    # Two kernels: the second starts the cycle after every SM drained the first.
    r = same_with_run_ahead(ctx, "run", "--config", "fermi-gtx480", "--trace", REPO / "tb" / "traces" / "memory" / "l1_mshr.g")
    check(len(r["kernels"]) == 2, f"l1_mshr.g ran {len(r['kernels'])} kernel(s), not 2")
    same_with_run_ahead(ctx, *SMALL, "--ctas", 120, "--set", "dram.scheduler=fcfs")
    # Two LDST lines a cycle: requests answered at once, so no SM runs ahead.
    same_with_run_ahead(ctx, "run", "--config", "accelsim-qv100", "--kernel", "hotspot", "--ctas", 80,
                        runs_ahead=False)
    # A waveform samples every SM each cycle of its window: no run-ahead, and
    # the same signals as without it.
    vcds = []
    for flag in ("0", "1"):
        vcd = ctx.tmp / f"ra{flag}.vcd"
        res = ctx.run(*SMALL, "--ctas", 30, "--set", "gpu.num_sms=4", "--vcd", vcd, "--vcd-window", "0:3000",
                      "--json", env=dict(os.environ, SMSHARE_RUN_AHEAD=flag))
        expect_rc(res, 0)
        check(res.json()["host"]["sm_ticks_run_ahead"] == 0, f"ran ahead with a waveform: {res.json()['host']}")
        vcds.append([line for line in vcd.read_text().splitlines() if "$date" not in line])
    check(vcds[0] == vcds[1], "the waveform with SMSHARE_RUN_AHEAD=1 differs from the one with 0")


@case("bad_run_ahead")
def _(ctx):
    res = ctx.run(*SMALL, "--ctas", 3, env=dict(os.environ, SMSHARE_RUN_AHEAD="yes"))
    expect_rc(res, 1)
    expect_err(res, "SMSHARE_RUN_AHEAD", "'yes'", "0, 1")


@case("frfcfs_scattered_loads_complete")
def _(ctx):
    # bfs's loads are scattered (a line per lane): a load sends its lines over
    # many cycles, and under FR-FCFS a read can be decided while its load still
    # sends the rest. One CTA on one SM must run to the end (it used to stop
    # in a false deadlock a few instructions before the end).
    res = ctx.run("run", "--config", "jatala-fermi", "--kernel", "bfs", "--ctas", 1, "--set", "gpu.num_sms=1",
                  "--set", "dram.scheduler=frfcfs", "--json")
    expect_rc(res, 0)
    r = res.json()
    check("deadlock" not in r, f"deadlock: {r.get('deadlock')}")
    expected = expected_warp_instructions("bfs", ctas=1)
    check(r["warp_instructions"] == expected, f"{r['warp_instructions']} warp instructions, expected {expected}")


@case("determinism_seed_changes_report")
def _(ctx):
    # hotspot shuffles its register first-use order and draws its body from the seed.
    base = ctx.run(*SMALL, "--ctas", 30, "--json")
    other = ctx.run(*SMALL, "--ctas", 30, "--seed", 2, "--json")
    expect_rc(base, 0)
    expect_rc(other, 0)
    a, b = base.json(), other.json()
    check(a["seed"] == load_kernel("hotspot")["seed"] and b["seed"] == 2, f"seeds {a['seed']}, {b['seed']}")
    a.pop("seed"), b.pop("seed")
    check(first_difference(strip_host(a), strip_host(b)) is not None, "--seed 2 gave the same report as the default")
    # The instruction count does not depend on the seed.
    check(a["warp_instructions"] == b["warp_instructions"], "warp_instructions changed with the seed")


# --- occupancy (no simulation)

def occupancy(ctx, config, kernel, *extra):
    res = ctx.run("occupancy", "--config", config, "--kernel", kernel, "--json", *extra)
    expect_rc(res, 0)
    r = res.json()
    for key in ("resident_ctas_per_sm", "resident_warps_per_sm", "limited_by"):
        check(key in r, f"occupancy JSON lacks {key}\n{res.describe()}")
    check(r["limited_by"] in LIMITS, f"limited_by {r['limited_by']!r} not in {sorted(LIMITS)}")
    return r


@case("occupancy_paper_ctas")
def _(ctx):
    entries = paper_entries()
    check(len(entries) >= 20, f"only {len(entries)} paper.ctas_per_sm entries found")
    problems = []
    for kernel, gpu, n in entries:
        k = load_kernel(kernel)
        r = occupancy(ctx, gpu, kernel)
        expected_warps = n * warps_per_cta(k["threads_per_cta"])
        if r["resident_ctas_per_sm"] != n:
            problems.append(f"{kernel} on {gpu}: {r['resident_ctas_per_sm']} CTAs/SM, paper prints {n}")
        if r["resident_warps_per_sm"] != expected_warps:
            problems.append(f"{kernel} on {gpu}: {r['resident_warps_per_sm']} warps/SM, expected {expected_warps}")
        want = (k.get("paper") or {}).get("limited_by")
        if want and r["limited_by"] != want:
            problems.append(f"{kernel} on {gpu}: limited by {r['limited_by']}, the profile says {want}")
    check(not problems, "\n".join(problems))


@case("occupancy_what_if")
def _(ctx):
    k = load_kernel("hotspot")
    check(k["threads_per_cta"] == 256 and k["smem_bytes_per_cta"] == 3072, "hotspot.yaml changed; re-derive")
    # 20 regs x 32 lanes = 640 per warp (already a multiple of 64) x 8 warps = 5120 per CTA;
    # 32768 / 5120 = 6, threads 1536 / 256 = 6: a tie, which occupancy.cpp breaks in favour of registers.
    r = occupancy(ctx, "fermi-gtx480", "hotspot", "--regs-per-thread", 20)
    check((r["resident_ctas_per_sm"], r["resident_warps_per_sm"]) == (6, 48), f"regs 20: {r}")
    check(r["limits"]["registers"] == 6 and r["limits"]["threads"] == 6, f"regs 20: {r}")
    check(r["limited_by"] == "registers", f"regs 20: tie should go to registers: {r}")
    # 16 regs: 512 per warp, 4096 per CTA -> 8 by registers; threads still 6.
    r = occupancy(ctx, "fermi-gtx480", "hotspot", "--regs-per-thread", 16)
    check((r["resident_ctas_per_sm"], r["limited_by"], r["limits"]["registers"]) == (6, "threads", 8), f"regs 16: {r}")
    # 128 threads = 4 warps; 16 regs -> 2048 per CTA -> 16 by registers, 12 by threads, 8 CTA slots.
    r = occupancy(ctx, "fermi-gtx480", "hotspot", "--regs-per-thread", 16, "--threads-per-cta", 128)
    check((r["resident_ctas_per_sm"], r["resident_warps_per_sm"], r["limited_by"]) == (8, 32, "cta_slots"), f"{r}")
    # jatala-fermi has 16 KB scratchpad: 8192 B per CTA -> 2 CTAs (registers allow 3).
    r = occupancy(ctx, "jatala-fermi", "hotspot", "--smem-per-cta", 8192)
    check((r["resident_ctas_per_sm"], r["limited_by"]) == (2, "scratchpad"), f"smem 8192: {r}")
    # 1 CTA in the grid.
    r = occupancy(ctx, "fermi-gtx480", "hotspot", "--ctas", 1)
    check((r["resident_ctas_per_sm"], r["limited_by"]) == (1, "grid"), f"ctas 1: {r}")
    # A what-if --set on the GPU: 65536 registers -> 65536 / 9216 = 7 (36 regs -> 36 x 32 = 1152 per warp).
    r = occupancy(ctx, "fermi-gtx480", "hotspot", "--set", "sm.registers=65536")
    check((r["resident_ctas_per_sm"], r["limited_by"]) == (6, "threads") and r["limits"]["registers"] == 7, f"{r}")


@case("occupancy_expars")
def _(ctx):
    # sgemm's shape (256 threads x 22 registers = 5632; b+tree's profile, no scratchpad) on an unrounded Fermi:
    # 5 CTAs in the RF, the 6th mixed with registers 18..21 of each thread in
    # the scratchpad; threads stop the 7th (tb/unit/test_expars_occupancy.cpp).
    shape = ("occupancy", "--config", "fermi-gtx480", "--kernel", "btree", "--threads-per-cta", 256,
             "--regs-per-thread", 22, "--smem-per-cta", 0,
             "--set", "sm.reg_alloc_thread_granularity=1", "--set", "sm.reg_alloc_warp_granularity=1")
    occ = shape + ("--mechanism", "expars")
    res = ctx.run(*occ, "--json")
    expect_rc(res, 0)
    r = res.json()
    got = {k: r.get(k) for k in ("resident_ctas_per_sm", "resident_warps_per_sm", "limited_by", "cta_rf", "cta_mix",
                                 "start_reg")}
    check(got == {"resident_ctas_per_sm": 6, "resident_warps_per_sm": 48, "limited_by": "threads", "cta_rf": 5,
                  "cta_mix": 1, "start_reg": 18}, f"{got}")
    text = ctx.run(*occ)
    expect_rc(text, 0)
    check("6 CTAs/SM" in text.out and "cta_mix: 1" in text.out and "start_reg: 18" in text.out, text.out)
    # tau = 0: exactly the baseline.
    base = ctx.run(*shape, "--json")
    off = ctx.run(*occ, "--set", "expars.tau=0", "--json")
    expect_rc(off, 0)
    b, o = base.json(), off.json()
    same = all(o[k] == b[k] for k in ("resident_ctas_per_sm", "limited_by", "limits"))
    check(o["cta_mix"] == 0 and same, f"{o} vs {b}")
    bad_input(ctx, occ + ("--set", "expars.tau=1"), 1, "expars.tau", "'1'", "[0, 1)")


# The report fields that are the pipeline's own: with no mixed CTA, EXPARS
# must give each of them exactly as the baseline does.
PIPELINE_FIELDS = ("cycles", "warp_instructions", "thread_instructions", "issue_cycles", "stall_cycles",
                   "idle_cycles", "stall_reasons", "op_mix", "resident_ctas_per_sm", "avg_resident_warps_per_sm",
                   "rf_utilization", "spm_utilization", "per_sm")


@case("expars_run")
def _(ctx):
    # b+tree (508 threads x 24 registers) on two Fermi SMs: the baseline
    # holds 2 CTAs, EXPARS 3 (the third mixed, registers 16..23 in the
    # scratchpad; tb/unit/test_expars_occupancy.cpp).
    shape = ("run", "--config", "fermi-gtx480", "--kernel", "btree", "--ctas", 12, "--set", "gpu.num_sms=2", "--json")
    base = ctx.run(*shape)
    expars = ctx.run(*shape, "--mechanism", "expars")
    expect_rc(base, 0)
    expect_rc(expars, 0)
    b, e = base.json(), expars.json()
    check(e["completed"] and e["resident_ctas_per_sm"] == 3 and b["resident_ctas_per_sm"] == 2,
          f"residency {e['resident_ctas_per_sm']} vs {b['resident_ctas_per_sm']}")
    # PREFs are not warp instructions: both run the same work.
    check(e["warp_instructions"] == b["warp_instructions"], f"{e['warp_instructions']} vs {b['warp_instructions']}")
    m = e["mechanism_stats"]
    check(m["pref_instructions"] > 0 and m["bundles_prefetched"] > 0, f"{m}")
    # No operand ever found its register missing from the cache: the gate held every bundle until it was there.
    check(m["operand_cache_misses"] == 0, f"{m}")
    # Every register a bundle brings is a fill, a line allocated for a value
    # written first, or a hit; every write-back is of an evicted line.
    check(m["operand_cache_fills"] + m["operand_cache_allocations_without_fill"] > 0 and
          m["operand_cache_writebacks"] <= m["operand_cache_evictions"], f"{m}")
    check(m["scratchpad_register_bytes"] == 128 * (m["operand_cache_fills"] + m["operand_cache_writebacks"]), f"{m}")
    check(e["activity"]["operand_cache_bank"]["reads"] > 0, f"{e['activity']}")
    # tau = 0: no CTA is mixed, and EXPARS is the baseline cycle for cycle,
    # with EXPARS's register numbering on both sides or off on both.
    for numbering in ("true", "false"):
        ref = ctx.run(*shape, "--set", f"frontend.reorder_registers_by_weight={numbering}")
        off = ctx.run(*shape, "--mechanism", "expars", "--set", "expars.tau=0",
                      "--set", f"frontend.reorder_registers_by_weight={numbering}")
        expect_rc(off, 0)
        r, o = ref.json(), off.json()
        diff = [k for k in PIPELINE_FIELDS if r[k] != o[k]]
        check(not diff, f"numbering {numbering}: tau = 0 differs from the baseline in {diff}")
        check(o["mechanism_stats"]["bundles_prefetched"] == 0, f"{o['mechanism_stats']}")
    # EXPARS numbers registers by weight unless the run says otherwise, and
    # the report echoes the numbering used (a sweep's run identity is the
    # echoed settings: the default and an explicit false are different runs).
    by_weight = "frontend.reorder_registers_by_weight"
    check(e["config"]["params"][by_weight] == "true" and b["config"]["params"][by_weight] == "false",
          f"{e['config']['params'][by_weight]} / {b['config']['params'][by_weight]}")
    declared = ctx.run(*shape, "--mechanism", "expars", "--set", f"{by_weight}=false")
    expect_rc(declared, 0)
    check(declared.json()["config"]["params"][by_weight] == "false" and declared.json()["cycles"] != e["cycles"],
          f"declared numbering: {declared.json()['config']['params'][by_weight]}, {declared.json()['cycles']} cycles")
    # The waveform shows the prefetcher's queue and head warp and the operand cache's lines under their modules.
    seen = expect_vcd_signals(
        ctx, "expars", ("--config", "fermi-gtx480", "--kernel", "btree", "--ctas", 3, "--set", "gpu.num_sms=1",
                        "--mechanism", "expars"),
        ("register_prefetcher.prefetching_queue", "register_prefetcher.head_warp",
         "register_prefetcher.schedulable_warps", "operand_cache.valid_lines", "operand_cache.fills",
         "register_allocation_table.mixed_ctas"))
    check(seen["gpu.sm0.operand_cache.valid_lines"] <= 16, f"{seen['gpu.sm0.operand_cache.valid_lines']} lines")
    # A stateful scheduler demotes a warp the gate refused and takes it back in a later order: with a tiny
    # operand cache on 2 register banks, the SM once called that a deadlock (rc 3 at cycle 105,549).
    tiny = ("run", "--config", "fermi-gtx480", "--kernel", "mri-q", "--ctas", 6, "--set", "gpu.num_sms=1",
            "--mechanism", "expars", "--set", "sm.register_banks=2", "--set", "expars.operand_cache_bytes=768",
            "--scheduler", "ltlws-lrr", "--json")
    res = ctx.run(*tiny)
    expect_rc(res, 0)
    check(res.json()["completed"] and res.json()["mechanism_stats"]["operand_cache_misses"] == 0, res.describe())
    # Its storage on Fermi (Sec. 3.3.7): the 2 KB cache, 16 x 14-bit tags, the RAT (8 x 16-bit SBRs + 3 + 2 x 6
    # + 6), 48 x 63 PREF bits, 48 x 32-bit LTLWS counters + 6.
    cost = ctx.run("hw-cost", "--config", "fermi-gtx480", "--mechanism", "expars", "--json")
    expect_rc(cost, 0)
    check(cost.json()["bits_per_sm"] == 16384 + 224 + 149 + 3024 + 1542, f"hw-cost: {cost.out}")
    # The operand cache must hold one instruction's registers in whole lines per bank.
    bad_input(ctx, shape + ("--mechanism", "expars", "--set", "expars.operand_cache_bytes=1000"), 1,
              "expars.operand_cache_bytes=1000", "sm.register_banks = 16", "2048")


@case("zorua_run")
def _(ctx):
    # Sec. 4.5's tables for the paper's Fermi baseline with 64 logical warps and 16 logical CTAs: registers
    # 64 x 16 x 9 bits (1.125 KB), scratchpad 16 x 48 x 7 bits (672 B), warp slots 64 x 7 bits (56 B).
    cost = ctx.run("hw-cost", "--config", "fermi-gtx480", "--mechanism", "zorua", "--json")
    expect_rc(cost, 0)
    bits = {s["name"]: s["bits"] for s in cost.json()["structures"]}
    check(bits["register_mapping_table"] == 64 * 16 * 9 and bits["scratchpad_mapping_table"] == 16 * 48 * 7
          and bits["warp_slot_mapping_table"] == 64 * 7, f"hw-cost: {bits}")
    # NQU on two SMs: 64 logical warps resident, registers and scratchpad taken per phase.
    occ = ctx.run("occupancy", "--config", "fermi-gtx480", "--kernel", "nqueens", "--mechanism", "zorua", "--json")
    expect_rc(occ, 0)
    o = occ.json()
    check(o["logical_warps"] == 64 and o["logical_ctas"] == 16 and o["physical_warps"] == 48
          and o["resident_ctas_per_sm"] == 16, f"occupancy: {o}")
    shape = ("run", "--config", "fermi-gtx480", "--kernel", "nqueens", "--ctas", 60, "--set", "gpu.num_sms=2",
             "--json")
    base, zorua = ctx.run(*shape), ctx.run(*shape, "--mechanism", "zorua")
    expect_rc(base, 0)
    expect_rc(zorua, 0)
    b, z = base.json(), zorua.json()
    check(z["completed"] and z["warp_instructions"] == b["warp_instructions"], zorua.describe())
    check(z["resident_warps_per_sm"] > b["resident_warps_per_sm"],
          f"resident warps {z['resident_warps_per_sm']} vs {b['resident_warps_per_sm']}")
    m = z["mechanism_stats"]
    check(m["phase_changes"] > 0 and m["register_table_lookups"] > 0, f"{m}")
    check(z["counters"]["memory"]["swap"]["reads"] == m["swap_reads"], f"{z['counters']['memory']['swap']} vs {m}")
    # Energy: the tables and queues are priced from their CACTI cfgs.
    for cfg in ("register_mapping_table", "scratchpad_mapping_table", "warp_slot_mapping_table", "coordinator_queue"):
        check(z["activity"][cfg]["reads"] > 0, f"activity {cfg}: {z['activity'].get(cfg)}")
    # The waveform shows the coordinator's queues and the tables' counters under their modules.
    expect_vcd_signals(ctx, "zorua", ("--config", "fermi-gtx480", "--kernel", "nqueens", "--ctas", 20, "--set",
                                      "gpu.num_sms=1", "--mechanism", "zorua"),
                       ("coordinator.schedulable_warps", "coordinator.thread_queue", "coordinator.o_thresh",
                        "register_mapping_table.free_sets", "scratchpad_mapping_table.free_sets",
                        "warp_slot_mapping_table.free_sets"))
    # The paper's coordinator as written (no forward-progress rule, no swap, no threshold step) deadlocks on a
    # CTA whose warps together need twice the register file; the report names the coordinator's queues.
    big = ("run", "--config", "fermi-gtx480", "--kernel", "dct", "--threads-per-cta", 1024, "--regs-per-thread", 63,
           "--ctas", 2, "--set", "gpu.num_sms=1", "--mechanism", "zorua", "--set", "zorua.o_default=0",
           "--set", "zorua.o_thresh_step=0", "--json")
    stuck = ctx.run(*big, "--set", "zorua.forward_progress=false")
    expect_rc(stuck, 3)
    state = stuck.json()["deadlock"][0]["mechanism_state"]
    check("zorua coordinator" in state and "warps at a barrier" in state, state)
    done = ctx.run(*big)
    expect_rc(done, 0)
    check(done.json()["mechanism_stats"]["forced_swaps"] > 0, done.describe())
    # Bad settings name the key and what is allowed.
    bad_input(ctx, shape + ("--mechanism", "zorua", "--set", "zorua.logical_warps=32"), 1,
              "zorua.logical_warps=32", "48", "sm.max_warps")
    bad_input(ctx, shape + ("--mechanism", "zorua", "--set", "zorua.epoch=0"), 1, "zorua.epoch")


@case("crosssm_run")
def _(ctx):
    # `smshare occupancy` prints each scheme's resources per active SM: the baseline's times Sec. IV's factors.
    sm = load_gpu("gtx580")["sm"]
    for scheme, warps, memory, lanes in (("occ", 2, 2, 1), ("bal", 1.5, 1.5, 1), ("bigsm", 2, 2, 2),
                                         ("bigsm_occ", 4, 2, 2)):
        occ = ctx.run("occupancy", "--config", "gtx580", "--kernel", "cfd-flux", "--mechanism", scheme, "--json")
        expect_rc(occ, 0)
        a = occ.json()["crosssm"]["per_active_sm"]
        check(a["warps"] == sm["max_warps"] * warps and a["registers"] == sm["registers"] * memory
              and a["scratchpad_bytes"] == sm["scratchpad_bytes"] * memory and a["l1_scale"] == memory
              and a["simd_lanes"] == sm["warp_size"] * lanes and a["cta_slots"] == sm["max_ctas"],
              f"{scheme}: {a}")
    text = ctx.run("occupancy", "--config", "gtx580", "--kernel", "cfd-flux", "--mechanism", "bal")
    expect_rc(text, 0)
    check("per_active_sm:" in text.out and "registers: 49152" in text.out, text.describe())
    # Bal on 16 SMs: five trios (ten active, five inactive SMs) and one baseline SM; the inactive SMs'
    # gated units draw no static power.
    shape = ("run", "--config", "gtx580", "--kernel", "hotspot", "--ctas", 64, "--json")
    base, bal = ctx.run(*shape), ctx.run(*shape, "--mechanism", "bal")
    expect_rc(base, 0)
    expect_rc(bal, 0)
    b, r = base.json(), bal.json()
    m = r["mechanism_stats"]
    check((m["active_sms"], m["inactive_sms"]) == (10, 5), f"{m}")  # the 16th SM runs the baseline's mechanism
    check(r["completed"] and r["warp_instructions"] == b["warp_instructions"], bal.describe())
    check(m["boundary_operand_dispatch"] > 0 and m["remote_register_accesses"] > 0, f"{m}")
    static = r["energy"]["sm_unit_static"]
    check(static["gated_sms"] == 5 and "simd" in static["gated_units"] and static["saved_by_gating_w"] > 0,
          f"{static}")
    # BigSM keeps the inactive SM's SIMD units on.
    big = ctx.run(*shape, "--mechanism", "bigsm")
    expect_rc(big, 0)
    check("simd" not in big.json()["energy"]["sm_unit_static"]["gated_units"], big.describe())
    check(big.json()["mechanism_stats"]["wide_mirrored_issues"] > 0, big.describe())
    # The structures under the active SM's scope, in the hierarchy and in the waveform.
    mods = ctx.run("run", "--config", "gtx580", "--kernel", "hotspot", "--mechanism", "occ", "--list-modules")
    expect_rc(mods, 0)
    check("gpu.sm0.boundary_buffer" in mods.out and "gpu.sm0.dummy_stage" in mods.out
          and "gpu.sm1.boundary_buffer" not in mods.out, mods.describe())
    expect_vcd_signals(ctx, "occ", ("--config", "gtx580", "--kernel", "hotspot", "--ctas", 4, "--set", "gpu.num_sms=2",
                                    "--mechanism", "occ"),
                       ("boundary_buffer.instruction_buffer", "boundary_buffer.operand_dispatch",
                        "boundary_buffer.remote_register_accesses", "dummy_stage.instructions"))
    # Bad settings name the key and what is allowed.
    bad_input(ctx, shape + ("--mechanism", "occ", "--set", "crosssm.boundary_cycles=9"), 1,
              "crosssm.boundary_cycles", "[0, 8]")
    bad_input(ctx, shape + ("--mechanism", "occ", "--set", "crosssm.bypas=true"), 1, "crosssm.bypass")
    # Bal halves the middle SM: a resource it cannot halve is refused, naming the key.
    bad_input(ctx, shape + ("--mechanism", "bal", "--set", "sm.register_banks=15"), 1, "sm.register_banks",
              "even", "15")
    bad_input(ctx, ("occupancy", "--config", "gtx580", "--kernel", "hotspot", "--mechanism", "bal", "--set",
                    "sm.oc_units_mem=1"), 1, "sm.oc_units_mem", "even")


@case("occupancy_nothing_fits")
def _(ctx):
    # 20000 B rounds up to 20096 (granularity 128) > 16384 B on jatala-fermi.
    bad_input(ctx, ("occupancy", "--config", "jatala-fermi", "--kernel", "hotspot", "--smem-per-cta", 20000, "--json"),
              1, "smem_bytes_per_cta", "scratchpad", "20096", "16384", "sm.scratchpad_bytes")


# --- simulated residency: one wave of each paper profile

def residency_case(kernel, gpu, n):
    def run_case(ctx):
        num_sms = int(load_gpu(gpu)["gpu"]["num_sms"])
        extra = ()
        if kernel in HEAVY_PROFILES:
            num_sms, extra = 2, ("--set", "gpu.num_sms=2")
        res = ctx.run("run", "--config", gpu, "--kernel", kernel, "--ctas", num_sms * n, "--json", *extra)
        expect_rc(res, 0)
        r = res.json()
        threads = r["kernel"]["threads_per_cta"]
        check(r["completed"] is True, f"completed is {r['completed']}\n{res.describe()}")
        check(r["resident_ctas_per_sm"] == n, f"{kernel} on {gpu}: {r['resident_ctas_per_sm']} resident CTAs/SM, "
                                              f"paper prints {n}")
        check(r["resident_warps_per_sm"] == n * warps_per_cta(threads), f"resident_warps_per_sm {r['resident_warps_per_sm']}")
        check(r["ctas_completed"] == num_sms * n, f"ctas_completed {r['ctas_completed']}")
        check(all(s["max_resident_ctas"] == n for s in r["per_sm"]),
              f"not every SM holds {n} CTAs: {[s['max_resident_ctas'] for s in r['per_sm']]}")
        print(f"{kernel} on {gpu}: {n} CTAs/SM, {res.seconds:.2f} s")
    return run_case


for _k, _g, _n in paper_entries():
    CASES[f"residency_{_k}_{_g}"] = residency_case(_k, _g, _n)


# --- baseline IPC against the paper's printed value (Jatala Tables V and VII, 0% sharing)

# Accepted distance between the model's baseline IPC and the paper's. The
# profiles are calibrated to within about 5%; a change of the model that moves
# one by more than 10% fails here and needs a look (recalibrate, or explain).
PAPER_IPC_TOLERANCE = 0.10


def paper_ipc_entries():
    """(profile, gpu config, printed baseline IPC) for every shipped profile that records paper.ipc."""
    out = []
    for name in names_in("kernels"):
        for gpu, ipc in sorted(((load_kernel(name).get("paper") or {}).get("ipc") or {}).items()):
            out.append((name, gpu, float(ipc)))
    return out


def paper_ipc_case(kernel, gpu, printed):
    def run_case(ctx):
        res = ctx.run("run", "--config", gpu, "--kernel", kernel, "--json")
        expect_rc(res, 0)
        r = res.json()
        check(r["completed"] is True, f"completed is {r['completed']}\n{res.describe()}")
        # thread_ipc counts active threads, as GPGPU-Sim's IPC (the papers' figure) does.
        ours = r["thread_ipc"]
        diff = ours / printed - 1
        check(abs(diff) <= PAPER_IPC_TOLERANCE,
              f"{kernel} on {gpu}: thread_ipc {ours:.2f}, "
              f"paper prints {printed} ({diff:+.1%}, allowed +-{PAPER_IPC_TOLERANCE:.0%}); recalibrate the "
              f"profile's estimated keys (docs/kernel-profiles.md, 'Calibration against the paper's IPC')")
        print(f"{kernel} on {gpu}: {ours:.2f} vs paper {printed} ({diff:+.1%}), {res.seconds:.2f} s")
    return run_case


for _k, _g, _ipc in paper_ipc_entries():
    CASES[f"paper_ipc_{_k}_{_g}"] = paper_ipc_case(_k, _g, _ipc)


# --- the run report

def expected_warp_instructions(kernel, ctas=None, threads=None):
    k = load_kernel(kernel)
    # profile_kernel.cpp: every warp emits exactly instructions_per_warp (barriers included); with phases
    # the loader derives it as the sum of (instructions + 1 if barrier_after) x repeat.
    per_warp = k["instructions_per_warp"] if "phases" not in k else sum(
        (ph["instructions"] + (1 if ph.get("barrier_after") else 0)) * ph.get("repeat", 1) for ph in k["phases"])
    return (ctas or k["grid_ctas"]) * warps_per_cta(threads or k["threads_per_cta"]) * per_warp


@case("report_fields")
def _(ctx):
    res = ctx.run(*SMALL, "--ctas", 30, "--scheduler", "gto", "--seed", 7, "--json")
    expect_rc(res, 0)
    r = res.json()
    for key in ("config", "kernel", "mechanism", "scheduler", "seed", "cycles", "warp_instructions", "ipc",
                "resident_ctas_per_sm", "resident_warps_per_sm", "rf_utilization", "spm_utilization", "stall_cycles",
                "idle_cycles", "counters", "sim_seconds", "sim_rate_warp_inst_per_s", "completed", "occupancy"):
        check(key in r, f"report lacks {key}")
    check(r["config"]["name"] == "fermi-gtx480" and r["kernel"]["name"] == "hotspot", f"{r['config']['name']}")
    check(r["config"]["params"]["sm.registers"] == "32768", "effective parameters missing from the report")
    check((r["mechanism"], r["scheduler"], r["seed"]) == ("baseline", "gto", 7),
          f"{r['mechanism']}, {r['scheduler']}, {r['seed']}")
    check(r["cycles"] > 0 and r["ipc"] > 0 and math.isclose(r["ipc"], r["warp_instructions"] / r["cycles"]),
          f"ipc {r['ipc']}")
    check(0 < r["rf_utilization"] <= 1 and 0 < r["spm_utilization"] <= 1,
          f"utilizations {r['rf_utilization']}, {r['spm_utilization']}")
    check(r["resident_ctas_per_sm"] == 2, f"30 CTAs on 15 SMs: {r['resident_ctas_per_sm']} CTAs/SM")
    check(r["sim_seconds"] > 0 and r["sim_rate_warp_inst_per_s"] > 0, "host rates missing")
    c = r["counters"]
    banks = load_gpu("fermi-gtx480")["sm"]["register_banks"]
    rf = c["register_file"]
    check(len(rf["reads_per_bank"]) == banks and len(rf["writes_per_bank"]) == banks, f"RF banks: {rf}")
    check(sum(rf["reads_per_bank"]) > 0 and sum(rf["writes_per_bank"]) > 0, f"no RF traffic: {rf}")
    check("bank_conflicts" in rf, "no RF bank conflict counter")
    check(c["scratchpad"]["lane_accesses"] > 0 and "bank_conflict_cycles" in c["scratchpad"], f"{c['scratchpad']}")
    check({"hits", "misses"} <= set(c["l1"]) and c["l1"]["hits"] + c["l1"]["misses"] > 0, f"L1: {c['l1']}")
    mem = c["memory"]
    check(len(mem["l2_partitions"]) == 6 and len(mem["dram_channels"]) == 6, "6 L2 partitions / DRAM channels")
    check(sum(p["read_hits"] + p["read_misses"] for p in mem["l2_partitions"]) > 0, "no L2 reads")
    check(sum(ch["reads"] for ch in mem["dram_channels"]) > 0, "no DRAM reads")


@case("report_warp_instructions")
def _(ctx):
    runs = [("hotspot", 30, None, ()),                                    # barriers count as instructions
            ("streaming", 4, 100, ("--set", "gpu.num_sms=2")),            # 100 threads: 4 warps, last partial
            ("nw1", 5, None, ("--set", "gpu.num_sms=1"))]
    for kernel, ctas, threads, extra in runs:
        args = ["run", "--config", "jatala-fermi", "--kernel", kernel, "--ctas", ctas, "--json", *extra]
        if threads:
            args += ["--threads-per-cta", threads]
        res = ctx.run(*args)
        expect_rc(res, 0)
        r = res.json()
        want = expected_warp_instructions(kernel, ctas, threads)
        check(r["warp_instructions"] == want, f"{kernel}: warp_instructions {r['warp_instructions']}, expected {want}")
        check(sum(s["warp_instructions"] for s in r["per_sm"]) == want, f"{kernel}: per-SM sum differs")
        check(r["completed"] and r["ctas_completed"] == ctas, f"{kernel}: completed {r['ctas_completed']}")


@case("report_file")
def _(ctx):
    out = ctx.tmp / "sub" / ".." / "r.json"
    (ctx.tmp / "sub").mkdir()
    res = ctx.run(*SMALL, "--ctas", 2, "--set", "gpu.num_sms=1", "--report", out, "--json")
    expect_rc(res, 0)
    check(out.is_file(), f"--report {out} wrote nothing")
    written = json.loads(out.read_text())
    d = first_difference(strip_host(written), strip_host(res.json()))
    check(d is None, f"--report file and --json stdout differ at {d}")
    # Without --json, stdout is the human summary and the file is still JSON.
    out2 = ctx.tmp / "r2.json"
    res = ctx.run(*SMALL, "--ctas", 2, "--set", "gpu.num_sms=1", "--report", out2)
    expect_rc(res, 0)
    check("cycles" in res.out and "resident CTAs/SM" in res.out, f"summary:\n{res.out}")
    check(json.loads(out2.read_text())["kernel"]["grid_ctas"] == 2, "--report without --json")


@case("constant_work_scales_the_grid")
def _(ctx):
    # Zorua Sec. 5.2: with frontend.constant_work, --threads-per-cta N runs
    # ceil(own CTAs x own threads / N) CTAs, for profiles and traces alike.
    own = load_kernel("hotspot")
    f = kernel_variant(ctx, "k-grid3.yaml", lambda y: y.update({"grid_ctas": 3}))
    args = ("run", "--config", "fermi-gtx480", "--kernel", f, "--set", "gpu.num_sms=1", "--json")
    res = ctx.run(*args, "--threads-per-cta", 128, "--set", "frontend.constant_work=true")
    expect_rc(res, 0)
    r = res.json()
    expected = math.ceil(3 * own["threads_per_cta"] / 128)
    check(r["kernel"]["grid_ctas"] == expected and r["kernel"]["threads_per_cta"] == 128,
          f"grid {r['kernel']['grid_ctas']} x {r['kernel']['threads_per_cta']}, expected {expected} x 128")
    check(r["config"]["params"]["frontend.constant_work"] == "true", f"{r['config']['params']}")
    plain = ctx.run(*args, "--threads-per-cta", 128).json()
    check(plain["kernel"]["grid_ctas"] == 3 and plain["config"]["params"]["frontend.constant_work"] == "false",
          f"without the setting: grid {plain['kernel']['grid_ctas']}")
    trace = ctx.run("run", "--config", "fermi-gtx480", "--trace", REPO / "tb/traces/handwritten", "--json",
                    "--threads-per-cta", 32, "--set", "frontend.constant_work=true")
    expect_rc(trace, 0)
    check(trace.json()["kernel"]["grid_ctas"] == 2, f"trace grid {trace.json()['kernel']['grid_ctas']}, expected 2")
    bad_input(ctx, args + ("--threads-per-cta", "128", "--ctas", "4", "--set", "frontend.constant_work=true"), 1,
              "frontend.constant_work", "--ctas 4")
    bad_input(ctx, args + ("--set", "frontend.constant_work=true"), 1, "frontend.constant_work",
              "needs --threads-per-cta")


@case("list_kernels")
def _(ctx):
    for what, want in (("kernels", names_in("kernels")), ("configs", names_in("gpu"))):
        res = ctx.run("list", what)
        expect_rc(res, 0)
        got = res.out.split()
        check(sorted(got) == want, f"list {what}: {got}, files: {want}")
    check(len(names_in("kernels")) >= 30, "configs/kernels looks empty")
    res = ctx.run("list", "mechanisms")
    expect_rc(res, 0)
    rows = mechanism_rows(res.out)
    check(rows.get("baseline", "").startswith("simulated"), f"list mechanisms: {res.out}")
    res = ctx.run("help")
    expect_rc(res, 0)
    check("usage:" in res.out, "help prints the usage")


# --- the Accel-Sim-matched configs: each loads, runs a trace, and the report echoes every key it sets

ACCELSIM_CONFIGS = ("accelsim-kepler-titan", "accelsim-titanx-pascal", "accelsim-qv100")
# GPU keys with no GPGPU-Sim counterpart, left at their built-in defaults.
NOT_FROM_GPGPUSIM = {"dram.swap_base", "dram.swap_bytes"}


def flatten(tree, prefix=""):
    """A config's nested keys as {dotted key: the report's text of the value}."""
    out = {}
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = ("true" if v else "false") if isinstance(v, bool) else str(v)
    return out


def accelsim_config_case(name):
    def run_case(ctx):
        y = yaml.safe_load((CONFIGS / "gpu" / f"{name}.yaml").read_text())
        check("extends" not in y, f"{name} must be self-contained (no extends:)")
        res = ctx.run("run", "--config", name, "--trace", REPO / "tb/traces/generated_small", "--json")
        expect_rc(res, 0)
        r = res.json()
        check(r["completed"] is True and r["cycles"] > 0, f"{name}: completed {r['completed']}, {r['cycles']} cycles")
        params = r["config"]["params"]
        want = flatten(y)
        wrong = {k: (v, params.get(k)) for k, v in want.items() if params.get(k) != v}
        check(not wrong, f"{name}: report's config.params differ from the file (file, report): {wrong}")
        gpu_keys = {k for k in params if not k.startswith(("frontend.", "power."))}
        unset = sorted(gpu_keys - set(want) - NOT_FROM_GPGPUSIM)
        check(not unset, f"{name} leaves keys at the built-in defaults: {unset}")
        print(f"{name}: {len(want)} keys echoed, {r['cycles']} cycles")
    return run_case


for _c in ACCELSIM_CONFIGS:
    CASES[f"accelsim_config_{_c}"] = accelsim_config_case(_c)


# --- the progress line of `run`: on a terminal only, never in the report

def run_on_terminal(ctx, *args, timeout=60):
    """smshare with stderr on a pseudo-terminal: (exit code, stdout, what the terminal received).
    The terminal turns each newline into \\r\\n."""
    args = [str(a) for a in args]
    master, slave = pty.openpty()
    with open(ctx.tmp / "terminal-stdout", "w+b") as out:  # a file: a full pipe cannot stall the child
        try:
            proc = subprocess.Popen([ctx.smshare, *args], stdout=out, stderr=slave, cwd=ctx.tmp)
        finally:
            os.close(slave)
        received, deadline = b"", time.monotonic() + timeout
        try:
            while True:
                ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    proc.kill()
                    raise Failure(f"smshare {' '.join(args)} did not finish in {timeout} s on a terminal")
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                received += chunk
        finally:
            os.close(master)
        rc = proc.wait(timeout)
        out.seek(0)
        return rc, out.read().decode(), received.decode()


def progress_lines(terminal_text):
    """The progress line's redraws: the pieces between carriage returns and newlines that show a rate."""
    return [p.strip() for p in re.split(r"[\r\n]", terminal_text) if "warp-inst/s" in p]


# The line is first drawn 0.25 s into a run and redrawn at most every 0.25 s
# (ProgressLine::kRedrawSeconds): a case about its redraws needs a run several
# times that long, on whatever host and however fast the simulator has become
# (a trace run of 0.2 s once drew nothing). So each such case sizes its run
# from a piped run's own measured host time, scaled to PROGRESS_RUN_SECONDS.
PROGRESS_RUN_SECONDS = 2.0
PROGRESS_RUN_MAX_SCALE = 64  # a probe that took next to no time must not size a run of hours


def ctas_lasting(ctx, args, probe_ctas, multiple_of=1):
    """A --ctas count (a multiple of `multiple_of`, at least `probe_ctas`) for which `args` lasts about
    PROGRESS_RUN_SECONDS here: the host time (host.sim_seconds) of a piped run of `probe_ctas` CTAs,
    scaled in proportion."""
    probe = ctx.run(*args, "--ctas", probe_ctas, "--json")
    expect_rc(probe, 0)
    took = json.loads(probe.out)["host"]["sim_seconds"]
    scale = min(PROGRESS_RUN_MAX_SCALE, max(1.0, PROGRESS_RUN_SECONDS / max(took, 1e-6)))
    return math.ceil(probe_ctas * scale / multiple_of) * multiple_of


def hotspot_ctas_lasting(ctx):
    """ctas_lasting for SMALL, probed with hotspot's own grid."""
    return ctas_lasting(ctx, SMALL, load_kernel("hotspot")["grid_ctas"])


def compact_count(text):
    """A count as the progress line shows it (three significant digits and an SI suffix: 950, 12.3k, 6.00M)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kMGTP]?)", text)
    check(m, f"not a count as the progress line shows one: {text!r}")
    return float(m.group(1)) * 1000 ** "_kMGTP".index(m.group(2) or "_")


def check_last_redraw_complete(lines, total):
    """The last redraw shows every warp-instruction of `total` done, at 100.0%."""
    m = re.search(r"(\S+)/(\S+) warp-inst \((\d+\.\d)%\)", lines[-1])
    check(m and m.group(3) == "100.0", f"the last redraw is not complete: {lines[-1]!r}")
    # Three significant digits: within half a unit of the third of `total` (either way on a tie, as the
    # binary fraction of the division falls).
    half_unit = 0.5 * 10 ** (math.floor(math.log10(total)) - 2) * (1 + 1e-9)
    check(all(abs(compact_count(m.group(g)) - total) <= half_unit for g in (1, 2)),
          f"the last redraw does not show {total} of {total} warp-instructions: {lines[-1]!r}")


@case("progress_line_on_a_terminal")
def _(ctx):
    # Long enough (PROGRESS_RUN_SECONDS) that the line is drawn before the end
    # redraws it with the totals.
    ctas = hotspot_ctas_lasting(ctx)
    rc, out, terminal = run_on_terminal(ctx, *SMALL, "--ctas", ctas, "--report", ctx.tmp / "tty.json")
    check(rc == 0, f"exit code {rc} on a terminal\nterminal:\n{terminal}\nstdout:\n{out}")
    lines = progress_lines(terminal)
    check(len(lines) >= 2, f"fewer than two progress redraws on a terminal (--ctas {ctas}):\n{terminal!r}")
    form = r"^\S+ cycles \| \S+/\S+ warp-inst \(\d+\.\d%\) \| \S+ warp-inst/s \| "
    for line in lines:
        check(re.match(form, line), f"progress line does not match /{form}/: {line!r}")
    check_last_redraw_complete(lines, expected_warp_instructions("hotspot", ctas=ctas))
    check("(100.0%)" not in lines[0], f"the first redraw already shows the end: {lines[0]!r}")
    check(terminal.endswith("\r\n"), f"the line is not ended with a newline: {terminal[-200:]!r}")
    check(" cycles | " not in out, f"the progress line reached stdout:\n{out}")
    # Same run, stderr a pipe: the same report (host timing aside) and the same summary.
    piped = ctx.run(*SMALL, "--ctas", ctas, "--report", ctx.tmp / "pipe.json")
    expect_rc(piped, 0)
    a, b = (json.loads((ctx.tmp / f).read_text()) for f in ("tty.json", "pipe.json"))
    d = first_difference(strip_host(a), strip_host(b))
    check(d is None, f"the report on a terminal differs from the piped run's at {d}")
    def summary(text):  # the host speed line aside
        return [line for line in text.splitlines() if "simulation speed" not in line]
    check(summary(out) == summary(piped.out), f"stdout differs:\n{out}\nvs\n{piped.out}")


@case("progress_line_names_the_kernel_of_a_trace")
def _(ctx):
    # A stream of three kernels: the small generated trace listed three times,
    # its CTAs replayed (--ctas, a multiple of the file's) until the run lasts
    # PROGRESS_RUN_SECONDS.
    kernel = REPO / "tb" / "traces" / "generated_small" / "kernel-1.traceg"
    (ctx.tmp / "three").mkdir()
    (ctx.tmp / "three" / "kernel-1.traceg").write_bytes(kernel.read_bytes())
    (ctx.tmp / "three" / "kernelslist.g").write_text("kernel-1.traceg\n" * 3)
    text = kernel.read_text()
    file_ctas = text.count("#BEGIN_TB")
    per_file = sum(int(n) for n in re.findall(r"^insts = (\d+)", text, re.M))
    check(file_ctas > 0 and per_file > 0, f"generated_small has {file_ctas} CTAs and {per_file} instruction lines")
    args = ("run", "--trace", ctx.tmp / "three")
    ctas = ctas_lasting(ctx, args, 200, multiple_of=file_ctas)
    rc, out, terminal = run_on_terminal(ctx, *args, "--ctas", ctas)
    check(rc == 0, f"exit code {rc}\nterminal:\n{terminal}\nstdout:\n{out}")
    lines = progress_lines(terminal)
    kernels = [int(m.group(1)) for m in (re.match(r"kernel (\d)/3 \| ", line) for line in lines) if m]
    check(len(lines) >= 2 and len(kernels) == len(lines),
          f"fewer than two redraws, or one that does not name its kernel k/3 (--ctas {ctas}):\n{terminal!r}")
    check(kernels == sorted(kernels) and kernels[-1] == 3, f"kernels named in the order {kernels}")
    # The share is of the three kernels' total, each kernel its CTAs' replays of the file.
    check_last_redraw_complete(lines, 3 * per_file * (ctas // file_ctas))


@case("sim_error_names_the_sm_the_address_and_the_cycle")
def _(ctx):
    # The handwritten trace with its store's one address moved outside global
    # memory and the swap region: the memory system answers the SM's
    # transaction TLM_ADDRESS_ERROR_RESPONSE and the run stops as a
    # simulation error (exit 4), naming the SM, the address and the cycle.
    # SystemC's "@ time" is the clock activation's start, which runs up to
    # GpuModule::kCyclesAhead (256) cycles: the cycle named lies in that
    # window, at or after it.
    bad = "0x7fff00000000000"
    (ctx.tmp / "outside").mkdir()
    text = (REPO / "tb" / "traces" / "handwritten" / "kernel-1.traceg").read_text()
    store = "STG.E.SYS 2 R2 R4 4 1 0x7f0000020000 "
    check(text.count(store) == 1, f"the handwritten trace no longer has one store {store!r}")
    (ctx.tmp / "outside" / "kernel-1.traceg").write_text(text.replace(store, store.replace("0x7f0000020000", bad)))
    (ctx.tmp / "outside" / "kernelslist.g").write_text("kernel-1.traceg\n")
    report = ctx.tmp / "outside.json"
    res = ctx.run("run", "--config", "fermi-gtx480", "--trace", ctx.tmp / "outside", "--quiet", "--report", report)
    expect_rc(res, 4)
    expect_err(res, "simulation error", f"gpu.sm0: memory access to {bad} in cycle ", "TLM_ADDRESS_ERROR_RESPONSE",
               "outside global memory [0, dram.swap_base) and the swap region")
    m = re.search(r"in cycle (\d+) failed.*@ (\d+) ps", res.err, re.S)
    check(m, f"no cycle and activation time in the message\n{res.describe()}")
    period_ps = round(1e6 / load_gpu("fermi-gtx480")["gpu"]["core_clock_mhz"])
    cycle, activation_ps = int(m.group(1)), int(m.group(2))
    check(activation_ps % period_ps == 0, f"activation at {activation_ps} ps is not on a {period_ps} ps cycle")
    check(0 <= cycle - activation_ps // period_ps < 256,
          f"cycle {cycle} is not within 256 cycles from the activation at cycle {activation_ps // period_ps}")
    check(not report.exists(), "a run stopped by a simulation error wrote a report")


@case("progress_line_off_when_stderr_is_not_a_terminal")
def _(ctx):
    ctas = hotspot_ctas_lasting(ctx)  # long enough that a terminal would show the line
    res = ctx.run(*SMALL, "--ctas", ctas, "--log-level", "info")
    expect_rc(res, 0)
    check("[info]" in res.err, f"no log on stderr:\n{res.err}")
    check("\r" not in res.err and "warp-inst/s" not in res.err, f"a progress line reached a pipe:\n{res.err!r}")


@case("progress_line_quiet")
def _(ctx):
    ctas = hotspot_ctas_lasting(ctx)  # long enough that the line would be drawn without --quiet
    rc, out, terminal = run_on_terminal(ctx, *SMALL, "--ctas", ctas, "--quiet")
    check(rc == 0 and "cycles" in out, f"exit code {rc}\nstdout:\n{out}")
    check(progress_lines(terminal) == [] and "\r" not in terminal.replace("\r\n", ""),
          f"--quiet drew a progress line:\n{terminal!r}")


# --- waveforms

@case("vcd_probes")
def _(ctx):
    # Every SM probe is declared under its module's scope and changes value;
    # the DRAM queue is the memory system's (one per channel), not the SM's.
    vcd = ctx.tmp / "wave.vcd"
    res = ctx.run(*SMALL, "--ctas", 2, "--set", "gpu.num_sms=1", "--vcd", vcd, "--json")
    expect_rc(res, 0)
    check(vcd.is_file(), f"--vcd {vcd} wrote no file; files: {os.listdir(ctx.tmp)}")
    wave = Vcd(vcd)
    check(any(t > 0 for t in wave.times), "no time advances in the VCD")
    values = {}
    for _, name, value in wave.changes:
        values.setdefault(name, set()).add(value)
    declared = set(wave.ids.values())
    for name in [f"gpu.sm0.{p}" for p in PROBES] + ["gpu.memory.dram_channel0.queue_depth"]:
        check(name in declared, f"no $var for probe {name}; vars: {sorted(declared)}")
        check(len(values.get(name, ())) >= 2, f"probe {name} never changes value: {values.get(name)}")
    check("gpu.sm0.dram_queue_depth" not in declared, "the SM still traces the GPU-wide DRAM queue")


@case("vcd_off_by_default")
def _(ctx):
    work = ctx.tmp / "novcd"
    work.mkdir()
    res = ctx.run(*SMALL, "--ctas", 2, "--set", "gpu.num_sms=1", "--json", cwd=work)
    expect_rc(res, 0)
    check(os.listdir(work) == [], f"a run without --vcd wrote files: {os.listdir(work)}")


class Vcd:
    """A VCD as smshare writes it: declarations, then (time, id, value) changes."""

    def __init__(self, path):
        head, sep, body = Path(path).read_text().partition("$enddefinitions $end")
        check(sep, f"{path}: no $enddefinitions")
        self.ids, scope = {}, []
        for tok in re.finditer(r"\$scope module (\S+) \$end|\$upscope \$end|\$var (\S+) (\d+) (\S+) (\S+)", head):
            if tok.group(1):
                scope.append(tok.group(1))
            elif tok.group(0).startswith("$upscope"):
                scope.pop()
            else:
                self.ids[tok.group(4)] = ".".join(scope + [tok.group(5)])
        self.times, self.changes, t = [], [], None
        for line in body.split("\n"):
            if line.startswith("#"):
                t = int(line[1:])
                self.times.append(t)
            elif line.startswith("b"):
                value, ident = line[1:].split()
                self.changes.append((t, self.ids[ident], int(value, 2)))
            elif line[:1] in ("0", "1"):
                self.changes.append((t, self.ids[line[1:]], int(line[0])))
        self.dumpvars_at = self.times[0] if "$dumpvars" in body else None

    def state_at(self, time):
        """Every signal's value at `time` (the last change at or before it)."""
        state = {}
        for t, name, v in self.changes:
            if t <= time:
                state[name] = v
        return state


def save_file_signals(gtkw):
    """The signal rows of a GTKWave save file, with the flags in force for each."""
    rows, flags, lines = [], None, gtkw.read_text().split("\n")
    for line in lines:
        if line.startswith("@"):
            flags = int(line[1:], 16)
        elif line and not line.startswith(("[", "*", "-", "^", "#")):
            rows.append((line, flags))
    return rows


@case("vcd_save_file_beside_the_vcd")
def _(ctx):
    # FILE.gtkw names the VCD, opens at its first time, and lists every
    # traced signal (GTKWave's name: a wire's range, none for an integer),
    # stall_reason through the translate filter written beside it.
    vcd = ctx.tmp / "wave.vcd"
    expect_rc(ctx.run(*SMALL, "--ctas", 2, "--set", "gpu.num_sms=2", "--vcd", vcd, "--json"), 0)
    gtkw = ctx.tmp / "wave.gtkw"
    check(gtkw.is_file(), f"no {gtkw}; files: {os.listdir(ctx.tmp)}")
    text = gtkw.read_text()
    check(f'[dumpfile] "{vcd}"' in text, f"[dumpfile] does not name {vcd}:\n{text}")
    check("[timestart] 0\n" in text, f"no [timestart] 0:\n{text}")
    check(re.search(r"^\*-?\d+\.\d+ -1", text, re.M), f"no zoom line:\n{text}")
    head = vcd.read_text().partition("$enddefinitions")[0]
    declared = set()
    for m in re.finditer(r"\$var (\S+) (\d+) \S+ (\S+)", head):
        declared.add(m.group(3))
    rows = dict(save_file_signals(gtkw))
    for sm in ("sm0", "sm1"):
        check(f"@800200\n-{sm}\n" in text and f"@1000200\n-{sm}\n" in text, f"no group {sm}:\n{text}")
        check(f"@800200\n-bank_arbitrator\n" in text, f"no group bank_arbitrator in {sm}:\n{text}")
        check(rows.get(f"gpu.{sm}.scheduler0.issued_warp") == 0x420, f"issued_warp not signed decimal: {rows}")
        check(rows.get(f"gpu.{sm}.stall_reason[31:0]") == 0x2024, f"stall_reason not filtered decimal: {rows}")
        for probe in PROBES:
            check(any(r.startswith(f"gpu.{sm}.{probe}") for r in rows), f"{probe} of {sm} not in the save file")
    traced = Vcd(vcd).ids.values()
    check(len(rows) == len(set(traced)), f"{len(rows)} rows in the save file for {len(set(traced))} traced signals")
    flt = ctx.tmp / "wave.stall_reason.filter"
    check(f"^1 {flt}\n" in text, f"the save file does not apply {flt}:\n{text}")
    check(re.search(r"^5 scoreboard$", flt.read_text(), re.M), f"{flt}:\n{flt.read_text()}")


@case("vcd_sms_selects_the_traced_sms")
def _(ctx):
    args = (*SMALL, "--ctas", 8, "--set", "gpu.num_sms=4", "--json")
    for sms, expected in (("0", {"sm0"}), ("3,1", {"sm1", "sm3"})):
        vcd = ctx.tmp / f"sms{len(expected)}.vcd"
        expect_rc(ctx.run(*args, "--vcd", vcd, "--vcd-sms", sms), 0)
        # The SMs asked for, and always the GPU-wide structures (memory, CTA dispatcher).
        scopes = {name.split(".")[1] for name in Vcd(vcd).ids.values()}
        check(scopes == expected | {"memory", "cta_dispatcher"}, f"--vcd-sms {sms} traced {sorted(scopes)}")
        groups = set(re.findall(r"^@800200\n-(\S+)$", vcd.with_suffix(".gtkw").read_text(), re.M))
        check({g for g in groups if g.startswith("sm")} == expected, f"--vcd-sms {sms}: save file groups {sorted(groups)}")


@case("vcd_window_writes_only_its_cycles")
def _(ctx):
    # Cycles 1000..2000 of a run: a $dumpvars at cycle 1000 holding what the
    # whole-run VCD holds then, the same changes up to cycle 2000, nothing
    # outside; the dump ends where cycle 2000 ends.
    period = round(1e6 / load_gpu("fermi-gtx480")["gpu"]["core_clock_mhz"])
    args = (*SMALL, "--ctas", 6, "--set", "gpu.num_sms=2", "--json")
    expect_rc(ctx.run(*args, "--vcd", ctx.tmp / "full.vcd"), 0)
    expect_rc(ctx.run(*args, "--vcd", ctx.tmp / "win.vcd", "--vcd-window", "1000:2000"), 0)
    full, win = Vcd(ctx.tmp / "full.vcd"), Vcd(ctx.tmp / "win.vcd")
    t0, t1 = 1000 * period, 2000 * period
    check(win.dumpvars_at == t0, f"window dump starts at {win.dumpvars_at}, not {t0}")
    check(win.times[-1] == t1 + period, f"window dump ends at {win.times[-1]}, not {t1 + period}")
    check(all(t0 <= t <= t1 for t, _, _ in win.changes), "a value is written outside the window")
    check(win.state_at(t0) == full.state_at(t0), "the window's first values differ from the whole run's")
    inside = [c for c in full.changes if t0 < c[0] <= t1]
    check([c for c in win.changes if c[0] > t0] == inside, "the window's changes differ from the whole run's")
    text = (ctx.tmp / "win.gtkw").read_text()
    check(f"[timestart] {t0}\n" in text, f"the save file does not open at {t0}:\n{text}")


@case("vcd_fst_is_smaller")
def _(ctx):
    args = (*SMALL, "--ctas", 3, "--set", "gpu.num_sms=1", "--json")
    expect_rc(ctx.run(*args, "--vcd", ctx.tmp / "w.vcd"), 0)
    res = ctx.run(*args, "--vcd", ctx.tmp / "w.fst")
    expect_rc(res, 0)
    fst, vcd = ctx.tmp / "w.fst", ctx.tmp / "w.vcd"
    check(fst.is_file(), f"no {fst}; files: {os.listdir(ctx.tmp)}")
    check(fst.read_bytes()[:1] == b"\x00", "w.fst does not start with an FST header block")
    check(fst.stat().st_size * 3 < vcd.stat().st_size,
          f"FST {fst.stat().st_size} B is not a third of the VCD's {vcd.stat().st_size} B")
    check(sorted(os.listdir(ctx.tmp)) == ["w.fst", "w.gtkw", "w.stall_reason.filter", "w.vcd"],
          f"files left: {sorted(os.listdir(ctx.tmp))}")
    check(f'[dumpfile] "{fst}"' in (ctx.tmp / "w.gtkw").read_text(), "the save file does not open the FST")
    check(strip_host(res.json()) == strip_host(ctx.run(*args).json()), "--vcd .fst changed the report")
    # Without vcd2fst in PATH: a clear error before simulating, naming the package.
    bad = ctx.run(*args, "--vcd", ctx.tmp / "x.fst", env={"PATH": str(ctx.tmp)})
    expect_rc(bad, 1)
    expect_err(bad, "--vcd", "vcd2fst", "gtkwave")


@case("vcd_bad_flags")
def _(ctx):
    run = (*SMALL, "--ctas", 2, "--set", "gpu.num_sms=4")
    vcd = ("--vcd", ctx.tmp / "w.vcd")
    bad_input(ctx, run + vcd + ("--vcd-sms", "4"), 1, "--vcd-sms", "SM 4", "0..3")
    # Malformed values are usage errors (the CLI reads the flags); an SM the
    # GPU does not have is bad input (only the configuration knows).
    bad_input(ctx, run + vcd + ("--vcd-sms", "0,x"), 2, "--vcd-sms", "'0,x'", "0,3")
    bad_input(ctx, run + vcd + ("--vcd-window", "500:100"), 2, "--vcd-window", "'500:100' ends before it starts")
    for bad in ("100", "1:b", ":5", "-1:5"):
        bad_input(ctx, run + vcd + ("--vcd-window", bad), 2, "--vcd-window", repr(bad), "FROM:TO")
    bad_input(ctx, run + ("--vcd-sms", "0"), 2, "--vcd-sms", "requires --vcd")
    bad_input(ctx, run + ("--vcd-window", "0:10"), 2, "--vcd-window", "requires --vcd")


GTKWAVE_TCL = Path(__file__).with_name("gtkwave_report.tcl")


def gtkwave_shows(ctx, gtkw, marker, probe):
    """Opens `gtkw` in real GTKWave under Xvfb; returns what it displayed
    (gtkwave_report.tcl) and GTKWave's own messages."""
    report = ctx.tmp / (gtkw.name + ".shown")
    env = dict(os.environ, SMSHARE_GTKWAVE_REPORT=str(report), SMSHARE_GTKWAVE_MARKER=str(marker),
               SMSHARE_GTKWAVE_PROBE=probe)
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x900x24", "gtkwave", "-S", str(GTKWAVE_TCL), str(gtkw)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=ctx.tmp)
    except FileNotFoundError:
        raise Failure("xvfb-run is not installed: scripts/setup.sh installs xvfb, xauth and gtkwave")
    except subprocess.TimeoutExpired:
        raise Failure(f"GTKWave did not quit within 120 s on {gtkw}")
    messages = proc.stdout + proc.stderr
    check(proc.returncode == 0 and report.is_file(), f"GTKWave did not load {gtkw} (exit {proc.returncode}):\n{messages}")
    shown = {"signals": []}
    for line in report.read_text().splitlines():
        key, _, rest = line.partition(" ")
        if key == "signal":
            shown["signals"].append(rest)
        elif key == "value":
            shown["value"] = rest.partition(" ")[2]
        else:
            shown[key] = [int(x) for x in rest.split()]
    return shown, messages


def gtkwave_problems(gtkw, shown, messages, expected_value):
    """What is wrong with how GTKWave shows `gtkw` (empty: it opens ready)."""
    problems = []
    listed = [name for name, _ in save_file_signals(gtkw)]
    missing = [n for n in listed if n not in shown["signals"]]
    if missing or len(shown["signals"]) != len(listed):
        problems.append(f"GTKWave shows {len(shown['signals'])} of the {len(listed)} signals; missing: {missing}")
    for line in messages.splitlines():
        if "Could not" in line or "rror" in line:
            problems.append(f"GTKWave: {line}")
    start = int(re.search(r"^\[timestart\] (\d+)$", gtkw.read_text(), re.M).group(1))
    (w0, w1), (_, last) = shown["window"], shown["range"]
    if w0 != start or w1 < last or (w1 - w0) > 1.1 * (last - start):
        problems.append(f"GTKWave draws {w0}..{w1}, not the traced interval {start}..{last}")
    if shown.get("value") != expected_value:
        problems.append(f"stall_reason reads {shown.get('value')!r}, not {expected_value!r} (translate filter)")
    return problems


@case("gtkwave_opens_the_save_file")
def _(ctx):
    # A regshare run's VCD and FST open in GTKWave with every listed signal,
    # the whole interval in view and stall_reason translated to its name;
    # a save file naming a signal the VCD lacks is caught.
    args = ("run", "--config", "jatala-fermi", "--kernel", "hotspot", "--mechanism", "regshare", "--ctas", 4,
            "--set", "gpu.num_sms=1", "--json")
    vcd = ctx.tmp / "reg.vcd"
    expect_rc(ctx.run(*args, "--vcd", vcd, "--vcd-window", "200:3000"), 0)
    names = dict(line.split(" ", 1) for line in (ctx.tmp / "reg.stall_reason.filter").read_text().splitlines()
                 if not line.startswith("#"))
    t, _, reason = next(c for c in Vcd(vcd).changes if c[1] == "gpu.sm0.stall_reason" and c[2] > 0)
    probe = "gpu.sm0.stall_reason[31:0]"
    gtkw = ctx.tmp / "reg.gtkw"
    # Jatala's structures trace under their own modules' scopes.
    for probe_name in ("gpu.sm0.pair_table.pair0_owner_cta", "gpu.sm0.lock_array.pair0_holder",
                       "gpu.sm0.lock_array.waiting_warps"):
        check(any(n.startswith(probe_name) for n, _ in save_file_signals(gtkw)),
              f"no regshare probe {probe_name} in the save file")
    problems = gtkwave_problems(gtkw, *gtkwave_shows(ctx, gtkw, t, probe), names[str(reason)])
    check(not problems, f"{gtkw} does not open ready:\n" + "\n".join(problems))

    expect_rc(ctx.run(*args, "--vcd", ctx.tmp / "reg2.fst", "--vcd-window", "200:3000"), 0)
    fst_gtkw = ctx.tmp / "reg2.gtkw"
    problems = gtkwave_problems(fst_gtkw, *gtkwave_shows(ctx, fst_gtkw, t, probe), names[str(reason)])
    check(not problems, f"{fst_gtkw} (FST) does not open ready:\n" + "\n".join(problems))

    # The structure modules' signals are listed (and shown, above) by their
    # scoped names; a wrong one, SM-wide or in a module, is caught.
    listed = [n for n, _ in save_file_signals(gtkw)]
    for name in ("gpu.sm0.scheduler0.issued_warp", "gpu.sm0.bank_arbitrator.grants_this_cycle[31:0]"):
        check(name in listed, f"{name} not in the save file")
    for right, wrong_name in (("gpu.sm0.active_warps[31:0]", "gpu.sm0.active_warpz[31:0]"),
                              ("gpu.sm0.bank_arbitrator.grants_this_cycle[31:0]",
                               "gpu.sm0.bank_arbitrator.grantz_this_cycle[31:0]")):
        wrong = ctx.tmp / "wrong.gtkw"
        wrong.write_text(gtkw.read_text().replace(right, wrong_name))
        problems = gtkwave_problems(wrong, *gtkwave_shows(ctx, wrong, t, probe), names[str(reason)])
        check(any(wrong_name in p for p in problems), f"a wrong signal name went unnoticed: {problems}")


# --- Jatala register / scratchpad sharing (regshare, spmshare)

@case("jatala_bad_sharing")
def _(ctx):
    occ = ("occupancy", "--config", "jatala-fermi", "--kernel", "hotspot")
    for bad in ("1.0", "0.95", "-0.1", "abc", "0.05", "90"):
        bad_input(ctx, occ + ("--mechanism", "regshare", "--sharing", bad), 1, "--sharing", "[0, 0.9]", repr(bad))
    bad_input(ctx, occ + ("--sharing", "0.5"), 1, "--sharing", "baseline", "regshare and spmshare")
    bad_input(ctx, SMALL + ("--ctas", "1", "--set", "jatala.dynamic_warp_execution=true"), 1, "jatala.",
              "regshare or spmshare")
    bad_input(ctx, ("hw-cost", "--config", "jatala-fermi", "--mechanism", "baseline"), 1, "hw-cost", "regshare")
    bad_input(ctx, SMALL + ("--scheduler", "owner-first"), 1, "--scheduler", "owf")


@case("jatala_occupancy_and_hw_cost")
def _(ctx):
    res = ctx.run("list", "mechanisms")
    rows = mechanism_rows(res.out)
    check(all(rows.get(m, "").startswith("simulated") for m in ("regshare", "spmshare")),
          f"list mechanisms: {res.out}")
    for key in ("jatala.sharing = 90%", "jatala.dynamic_warp_execution = false",
                "jatala.deadlock_avoidance = true", "jatala.dwe_period_cycles = 1000"):
        check(key in res.out, f"list mechanisms lacks '{key}': {res.out}")
    for kernel, mech, sharing, want in (("hotspot", "regshare", "0.5", 4), ("lib", "regshare", "0.9", 8),
                                        ("nw1", "spmshare", "0.5", 8), ("lavamd", "spmshare", "0.9", 4),
                                        ("lavamd", "spmshare", "0", 2)):
        res = ctx.run("occupancy", "--config", "jatala-fermi", "--kernel", kernel, "--mechanism", mech,
                      "--sharing", sharing, "--json")
        expect_rc(res, 0)
        got = res.json()["resident_ctas_per_sm"]
        check(got == want, f"{kernel} {mech} --sharing {sharing}: {got} CTAs/SM, Jatala Table VI/VIII: {want}")
    res = ctx.run("hw-cost", "--config", "jatala-fermi", "--mechanism", "regshare", "--json")
    expect_rc(res, 0)
    j = res.json()
    # Sec. V: (1 + T ceil(log2(T+1)) + 2W + floor(W/2) ceil(log2 W)) x N with T = 8, W = 48, N = 14.
    check(j["bits_per_sm"] == 1 + 8 * 4 + 2 * 48 + 24 * 6, f"regshare bits per SM: {j['bits_per_sm']}")
    check(j["bits_gpu"] == j["bits_per_sm"] * 14, f"regshare bits for the GPU: {j['bits_gpu']}")
    check({s["name"] for s in j["structures"]} == {"partner_id_table", "owner_bits", "lock_array_register"},
          f"structures: {j['structures']}")
    res = ctx.run("hw-cost", "--config", "jatala-fermi", "--mechanism", "spmshare", "--json")
    check(res.json()["bits_per_sm"] == 1 + 8 * 4 + 48 + 4 * 3, f"spmshare: {res.out}")


@case("mechanism_registry")
def _(ctx):
    res = ctx.run("list", "mechanisms")
    expect_rc(res, 0)
    rows = mechanism_rows(res.out)
    papers = ("regshare", "spmshare", "zorua", "expars", "occ", "bal", "bigsm", "bigsm_occ")
    check(all(rows.get(m, "").startswith("simulated") for m in papers), f"list mechanisms: {res.out}")
    # Each prices what it adds (a mechanism registered for its cost only is refused by run:
    # tb/unit/test_registry.cpp registers one).
    for m in papers:
        expect_rc(ctx.run("area", "--config", "gtx580", "--mechanism", m, "--json"), 0)
    bad_input(ctx, ("hw-cost", "--config", "fermi-gtx480", "--mechanism", "occ"), 1, "'occ'",
              "regshare, spmshare")
    # A family's settings belong to its mechanisms; unknown keys name the nearest.
    bad_input(ctx, SMALL + ("--ctas", "1", "--set", "zorua.logical_warps=32"), 1, "zorua.logical_warps", "zorua",
              "not 'baseline'")
    bad_input(ctx, SMALL + ("--ctas", "1", "--mechanism", "regshare", "--set", "jatala.sharin=0.5"), 1,
              "jatala.sharin", "jatala.sharing")
    # --sharing P is the shorthand of --set jatala.sharing=P.
    occ = ("occupancy", "--config", "jatala-fermi", "--kernel", "hotspot", "--mechanism", "regshare", "--json")
    by_flag = ctx.run(*occ, "--sharing", "0.5")
    by_key = ctx.run(*occ, "--set", "jatala.sharing=0.5")
    expect_rc(by_flag, 0)
    expect_rc(by_key, 0)
    check(by_flag.json() == by_key.json() and by_key.json()["sharing_percent"] == 50,
          f"--sharing 0.5: {by_flag.out} vs --set jatala.sharing=0.5: {by_key.out}")
    bad_input(ctx, occ + ("--set", "jatala.sharing=0.95"), 1, "jatala.sharing", "'0.95'", "[0, 0.9]")


@case("register_numbering_keys")
def _(ctx):
    """frontend.reorder_registers_by_weight: profiles only, and not with the first-use numbering."""
    run = ("run", "--kernel", "btree", "--ctas", "2", "--json")
    res = ctx.run(*run, "--set", "frontend.reorder_registers_by_weight=true")
    expect_rc(res, 0)
    check(res.json()["config"]["params"]["frontend.reorder_registers_by_weight"] == "true",
          f"params: {res.json()['config']['params']}")
    bad_input(ctx, run + ("--set", "frontend.reorder_registers=true",
                          "--set", "frontend.reorder_registers_by_weight=true"), 1,
              "frontend.reorder_registers=true", "frontend.reorder_registers_by_weight=true", "not both")


@case("jatala_run_report")
def _(ctx):
    args = ("run", "--config", "jatala-fermi", "--kernel", "hotspot", "--mechanism", "regshare", "--sharing", "0.9",
            "--scheduler", "owf", "--set", "frontend.reorder_registers=true",
            "--set", "jatala.dynamic_warp_execution=true", "--ctas", "60", "--json")
    res = ctx.run(*args)
    expect_rc(res, 0)
    r = res.json()
    check(r["resident_ctas_per_sm"] == 5, f"hotspot regshare 90 %: {r['resident_ctas_per_sm']} CTAs/SM")
    check(r["config"]["params"]["jatala.sharing"] == "90%", f"params: {r['config']['params']}")
    ms = r["mechanism_stats"]
    check(ms["shared_ctas_launched"] > 0 and ms["lock_acquisitions"] > 0, f"mechanism_stats: {ms}")
    for key in ("lock_array_register", "partner_id_table", "owner_bits"):
        check(key in r["activity"] and key in r["energy"]["structures"], f"activity/energy lacks {key}")
    again = ctx.run(*args)
    check(strip_host(again.json()) == strip_host(r), "regshare run is not deterministic")


@case("energy_pipeline_compute_bound")
def _(ctx):
    # sgemm (bound: compute): every pipeline component is charged per event.
    # 128 threads per CTA are four full warps, so every issued instruction has
    # 32 active lanes.
    kernel = load_kernel("sgemm")
    check(kernel["bound"] == "compute" and kernel["threads_per_cta"] % 32 == 0, "sgemm profile changed")
    res = ctx.run("run", "--config", "fermi-gtx480", "--kernel", "sgemm", "--ctas", 30, "--json")
    expect_rc(res, 0)
    r = res.json()
    e, ops = r["energy"], r["op_mix"]
    c = e["pipeline"]["components"]
    check(set(c) == {"fetch_decode", "warp_scheduler", "scoreboard", "scoreboard_update", "operand_collectors",
                     "sp_int_alu", "sp_fpu", "sfu", "ldst_agu", "ldst_coalescer", "interconnect"},
          f"pipeline components: {sorted(c)}")
    for name, op in (("sp_int_alu", "int_alu"), ("sp_fpu", "fp_alu"), ("sfu", "sfu")):
        check(c[name]["events"] == 32 * ops[op], f"{name}: {c[name]['events']} events, {ops[op]} {op} warps")
    for name in ("fetch_decode", "scoreboard"):
        check(c[name]["events"] == r["warp_instructions"], f"{name}: {c[name]['events']}")
    gpu = load_gpu("fermi-gtx480")
    active = sum(sm["active_cycles"] for sm in r["per_sm"])
    schedulers = int(r["config"]["params"]["sm.num_schedulers"])
    check(c["warp_scheduler"]["events"] == active * schedulers,
          f"warp_scheduler {c['warp_scheduler']['events']} != {active} active SM-cycles x {schedulers}")
    rf = r["activity"]["register_file_bank"]
    check(c["scoreboard_update"]["events"] == 2 * rf["writes"], "scoreboard updates != 2 x register writes")
    check(c["operand_collectors"]["events"] == rf["reads"], "collector operands != register file reads")
    memory_ops = sum(ops[k] for k in ("global_load", "global_store", "local_load", "local_store", "shared_load",
                                      "shared_store"))
    check(c["ldst_agu"]["events"] == 32 * memory_ops, f"ldst_agu {c['ldst_agu']['events']} != 32 x {memory_ops}")
    check(c["ldst_agu"]["energy_per_event_j"] == c["sp_int_alu"]["energy_per_event_j"], "AGU add != ALU op")
    check(c["ldst_coalescer"]["events"] == r["counters"]["global_transactions"], "coalescer != global_transactions")
    flit = gpu["icnt"]["bytes_per_cycle"]
    icnt = r["counters"]["memory"]["icnt"]
    flits = -(-icnt["bytes_up"] // flit) + -(-icnt["bytes_down"] // flit)
    check(c["interconnect"]["events"] == flits, f"interconnect {c['interconnect']['events']} flits != {flits}")
    # GPUWattch's FPU energy at 40 nm (logic.cc x gpuwattch_gtx480.xml's FPU 0.64; docs/power-area.md).
    vdd, sckt = (8 * 1.0 + 5 * 0.9) / 13, (8 * 1.1387 + 5 * 1.1111) / 13
    fpu = 3.9 * 14.91e-12 / 1.08 ** 2 * vdd ** 2 * (40 / 90) * 2 * sckt * 0.64
    check(math.isclose(c["sp_fpu"]["energy_per_event_j"], fpu, rel_tol=1e-12), f"FPU {c['sp_fpu']['energy_per_event_j']}")
    # A flit: CACTI's 40 nm repeated wire (cacti-params/40nm/results.json) over
    # 2/3 of the die's side, for each bit of the flit.
    wire = json.loads((REPO / "cacti-params" / "40nm" / "results.json").read_text())["wire"]
    per_flit = wire["repeated_energy_nj_per_mm"] * 1e-9 * (2 / 3 * math.sqrt(529)) * flit * 8
    check(math.isclose(c["interconnect"]["energy_per_event_j"], per_flit, rel_tol=1e-12),
          f"flit {c['interconnect']['energy_per_event_j']} != {per_flit}")
    charged = 0.0
    for name, comp in c.items():
        per = comp["energy_per_event_j"]
        check(isinstance(per, float) and per > 0, f"{name} is not charged: {comp}")
        check(math.isclose(comp["dynamic_j"], per * comp["events"], rel_tol=1e-12), f"{name}: {comp}")
        charged += comp["dynamic_j"]
    check(math.isclose(e["pipeline_dynamic_j"], charged, rel_tol=1e-12), "pipeline_dynamic_j is not the sum")
    parts = e["dynamic_j"] + e["leakage_j"] + e["sm_unit_static_j"] + e["pipeline_dynamic_j"]
    check(math.isclose(e["total_j"], parts, rel_tol=1e-12), f"total_j {e['total_j']} != {parts}")
    # The documented shares (docs/power-area.md, "Pipeline dynamic energy").
    share = e["pipeline_dynamic_j"] / e["total_j"]
    check(0.11 < share < 0.14, f"pipeline share {share:.3f} of sgemm's energy")
    fp_share = c["sp_fpu"]["dynamic_j"] / e["pipeline_dynamic_j"]
    check(0.3 < fp_share < 0.42, f"FP lanes' share {fp_share:.3f} of sgemm's pipeline energy")


def main(argv):
    if argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if len(argv) != 3 or argv[2] not in CASES:
        print(__doc__, file=sys.stderr)
        if len(argv) == 3:
            print(f"unknown case {argv[2]!r}", file=sys.stderr)
        return 2
    smshare, name = argv[1], argv[2]
    with tempfile.TemporaryDirectory(prefix=f"smshare-cli-{name}-") as tmp:
        # Decoded-trace caches go to the case's folder, not beside the
        # traces of tb/traces/ in the source tree.
        os.environ["SMSHARE_TRACE_CACHE_DIR"] = os.path.join(tmp, "trace-cache")
        t0 = time.monotonic()
        try:
            CASES[name](Context(smshare, tmp))
        except Failure as e:
            print(f"FAIL {name}: {e}", file=sys.stderr)
            return 1
        print(f"PASS {name} ({time.monotonic() - t0:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
