#!/usr/bin/env python3
"""Writes the sector microbenchmark traces of this folder (Accel-Sim format,
tracer version 5): stride128, stride32 and one_lane, each a .traceg and a
.g kernel list. tb/sc/tb_sectors.cpp derives their counts and cycles by hand.
Deterministic: rerunning rewrites the same files.

  tb/traces/sectors/make_traces.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from trace_format import kernel_header  # noqa: E402 (tb/traces/trace_format.py)

def header(name, threads):
    return (kernel_header(f"_Z{len(name)}{name}Pf", ctas=1, threads=threads, shmem=0, nregs=8, binary_version=70) +
            "#BEGIN_TB\n\nthread block = 0,0,0\n")
BASE = 0x7F0000000000  # a 128-byte aligned global address


def kernel(name, warps):
    out = header(name, 32 * len(warps))
    for w, insts in enumerate(warps):
        out += "\nwarp = %d\ninsts = %d\n" % (w, len(insts))
        out += "".join(i + "\n" for i in insts)
    return out + "\n#END_TB\n"


def ldg(pc, mask, dst, base, stride):
    """A 4-byte LDG with address format 1: lane i reads base + i * stride."""
    return "%04x %08x 1 R%d LDG.E.SYS 1 R2 4 1 0x%012x %d 0 " % (pc, mask, dst, base, stride)


def exit_(pc):
    return "%04x ffffffff 0 EXIT 0 0 0 " % pc


TRACES = {
    # 2 warps, one word per 128 B line (32 lines each, warp 1 4 KB further),
    # then the word 32 B further on in each of those lines.
    "stride128": [[ldg(0x00, 0xFFFFFFFF, 4, BASE + w * 4096, 128),
                   ldg(0x10, 0xFFFFFFFF, 5, BASE + w * 4096 + 32, 128),
                   exit_(0x20)] for w in range(2)],
    # 2 warps, one word per 32 B sector: 8 whole lines each.
    "stride32": [[ldg(0x00, 0xFFFFFFFF, 4, BASE + w * 1024, 32), exit_(0x10)] for w in range(2)],
    # 1 warp, lane 0 loads one word: the latency of one fill.
    "one_lane": [[ldg(0x00, 0x00000001, 4, BASE, 4), exit_(0x10)]],
}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, warps in TRACES.items():
        with open(os.path.join(here, name + ".traceg"), "w") as f:
            f.write(kernel(name, warps))
        with open(os.path.join(here, name + ".g"), "w") as f:
            f.write(name + ".traceg\n")
