#!/usr/bin/env python3
"""Generate a synthetic Accel-Sim SASS trace (kernelslist.g + kernel-1.traceg).

The output has the exact format the Accel-Sim tracer (version 5) writes after
post-processing, so smshare reads it like a real trace. Deterministic: the
same arguments give byte-identical files.

Defaults are the bench workload of issue 5: 120 CTAs x 8 warps x 2000
instructions (1,920,000 warp-instructions), 70% FFMA/IADD3, 10% MUFU, 10% LDG,
5% STG, 5% LDS/STS, 36 registers, 3 KB shared memory, streaming coalesced
global loads and stores. `--small` is the few-thousand-line configuration the
unit tests use (tb/traces/generated_small/).

Every warp runs the same static code (same PCs and registers, like a real
kernel); only the addresses differ per warp. The last instruction of each warp
is EXIT and counts towards --insts.

Examples:
  tb/traces/gen_trace.py --out /tmp/bench_trace              # bench trace (~110 MB)
  tb/traces/gen_trace.py --out /tmp/bench_trace --xz         # same, kernel-1.traceg.xz
  tb/traces/gen_trace.py --small --out tb/traces/generated_small
"""

import argparse
import lzma
import os
import random
import sys

from trace_format import kernel_header

# Opcode token, destination count, source count, memory kind
# (None, "global_load", "global_store", "shared_load", "shared_store").
OPCODES = {
    "FFMA": ("FFMA", 1, 3, None),
    "IADD3": ("IADD3", 1, 3, None),
    "MUFU": ("MUFU.EX2", 1, 1, None),
    "LDG": ("LDG.E.SYS", 1, 1, "global_load"),
    "STG": ("STG.E.SYS", 0, 2, "global_store"),
    "LDS": ("LDS.U.32", 1, 1, "shared_load"),
    "STS": ("STS", 0, 2, "shared_store"),
}
DEFAULT_MIX = "FFMA=35,IADD3=35,MUFU=10,LDG=10,STG=5,LDS=2.5,STS=2.5"
LOAD_BASE = 0x7F0000000000
STORE_BASE = 0x7F4000000000
LINE_BYTES = 128  # one coalesced warp access: 32 lanes x 4 bytes


def parse_mix(text):
    mix = []
    for item in text.split(","):
        name, _, weight = item.partition("=")
        name = name.strip().upper()
        if name not in OPCODES:
            sys.exit(f"gen_trace.py: unknown opcode '{name}' in --mix (known: {', '.join(OPCODES)})")
        try:
            w = float(weight)
        except ValueError:
            sys.exit(f"gen_trace.py: bad weight '{weight}' for {name} in --mix")
        if w < 0:
            sys.exit(f"gen_trace.py: negative weight for {name}")
        mix.append((name, w))
    total = sum(w for _, w in mix)
    if total <= 0:
        sys.exit("gen_trace.py: --mix weights sum to 0")
    return [(n, w / total) for n, w in mix]


def exact_counts(mix, n):
    """Largest-remainder rounding: counts summing to exactly n."""
    raw = [(name, frac * n) for name, frac in mix]
    counts = {name: int(x) for name, x in raw}
    rest = n - sum(counts.values())
    for name, x in sorted(raw, key=lambda t: (-(t[1] - int(t[1])), t[0]))[:rest]:
        counts[name] += 1
    return counts


def static_code(args, rng):
    """The per-warp instruction sequence: list of (opcode name, dsts, srcs)."""
    body = args.insts - 1
    counts = exact_counts(parse_mix(args.mix), body)
    names = [name for name, _ in parse_mix(args.mix) for _ in range(counts[name])]
    rng.shuffle(names)
    code = []
    for name in names:
        _, ndst, nsrc, _ = OPCODES[name]
        dsts = [rng.randrange(args.regs) for _ in range(ndst)]
        srcs = [rng.randrange(args.regs) for _ in range(nsrc)]
        code.append((name, dsts, srcs))
    return code


def address_field(fmt, base, stride, mask=0xFFFFFFFF):
    lanes = [i for i in range(32) if mask >> i & 1]
    if fmt == 1:
        return f"1 0x{base:x} {stride}"
    if fmt == 2:
        return "2 0x%x %s" % (base, " ".join(str(stride) for _ in lanes[1:]))
    return "0 " + " ".join(f"0x{base + k * stride:016x}" for k in range(len(lanes)))


def write_kernel(out, args, code):
    shared_lines = max(1, args.shmem // LINE_BYTES)
    n_ldg = sum(1 for name, _, _ in code if name == "LDG")
    n_stg = sum(1 for name, _, _ in code if name == "STG")
    w = out.write
    w(kernel_header(args.name, args.ctas, args.warps * 32, args.shmem, args.regs, args.binary_version))

    # Non-memory lines are the same in every warp: format them once.
    fixed = []
    for i, (name, dsts, srcs) in enumerate(code):
        token, _, _, kind = OPCODES[name]
        head = "%04x ffffffff %d %s%s %d %s" % (
            i * 16, len(dsts), "".join(f"R{r} " for r in dsts), token, len(srcs),
            "".join(f"R{r} " for r in srcs))
        fixed.append((head, kind))
    exit_line = "%04x ffffffff 0 EXIT 0 0 0 \n" % (len(code) * 16)

    mem_index = 0
    for cta in range(args.ctas):
        w(f"\n#BEGIN_TB\n\nthread block = {cta},0,0\n")
        for warp in range(args.warps):
            gw = cta * args.warps + warp
            w(f"\nwarp = {warp}\ninsts = {args.insts}\n")
            ldg = stg = shared = 0
            lines = []
            for head, kind in fixed:
                if kind is None:
                    lines.append(head + "0 0 \n")
                    continue
                if kind == "global_load":
                    base = LOAD_BASE + (gw * n_ldg + ldg) * LINE_BYTES
                    ldg += 1
                elif kind == "global_store":
                    base = STORE_BASE + (gw * n_stg + stg) * LINE_BYTES
                    stg += 1
                else:
                    base = ((warp + shared) % shared_lines) * LINE_BYTES
                    shared += 1
                fmt = args.address_format if args.address_format != "mix" else "102"[mem_index % 3]
                mem_index += 1
                lines.append(head + "4 " + address_field(int(fmt), base, 4) + " 0 \n")
            lines.append(exit_line)
            w("".join(lines))
        w("\n#END_TB\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--ctas", type=int, default=120)
    ap.add_argument("--warps", type=int, default=8, help="warps per CTA")
    ap.add_argument("--insts", type=int, default=2000, help="instructions per warp, EXIT included")
    ap.add_argument("--mix", default=DEFAULT_MIX, help="opcode=weight,... (default %(default)s)")
    ap.add_argument("--regs", type=int, default=36, help="registers per thread")
    ap.add_argument("--shmem", type=int, default=3072, help="shared memory bytes per CTA")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary-version", type=int, default=70)
    ap.add_argument("--address-format", choices=["0", "1", "2", "mix"], default="1",
                    help="address format of memory lines (mix cycles 1, 0, 2)")
    ap.add_argument("--name", default="synthetic_bench_kernel")
    ap.add_argument("--xz", action="store_true", help="write kernel-1.traceg.xz")
    ap.add_argument("--small", action="store_true",
                    help="test configuration: 4 CTAs x 4 warps x 250 instructions, mixed address formats")
    args = ap.parse_args()
    if args.small:
        args.ctas, args.warps, args.insts, args.address_format = 4, 4, 250, "mix"
        args.name = "synthetic_small_kernel"
    if args.ctas < 1 or args.warps < 1 or args.insts < 1 or not 1 <= args.regs <= 255 or args.shmem < 0:
        sys.exit("gen_trace.py: --ctas, --warps, --insts must be >= 1, --regs in 1..255, --shmem >= 0")

    rng = random.Random(args.seed)
    code = static_code(args, rng)
    os.makedirs(args.out, exist_ok=True)
    kernel = "kernel-1.traceg" + (".xz" if args.xz else "")
    path = os.path.join(args.out, kernel)
    if args.xz:
        with lzma.open(path, "wt", preset=1) as out:
            write_kernel(out, args, code)
    else:
        with open(path, "w", buffering=1 << 20) as out:
            write_kernel(out, args, code)
    with open(os.path.join(args.out, "kernelslist.g"), "w") as out:
        out.write("MemcpyHtoD,0x00007f0000000000,%d\n" % (args.ctas * args.warps * 32 * 4 * 64))
        out.write(kernel + "\n")
    total = args.ctas * args.warps * args.insts
    print(f"{path}: {args.ctas} CTAs x {args.warps} warps x {args.insts} instructions = {total} warp-instructions")


if __name__ == "__main__":
    main()
