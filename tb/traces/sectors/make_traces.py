#!/usr/bin/env python3
"""Writes the sector microbenchmark traces of this folder (Accel-Sim format,
tracer version 5): stride128, stride32 and one_lane, each a .traceg and a
.g kernel list. tb/sc/tb_sectors.cpp derives their counts and cycles by hand.
Deterministic: rerunning rewrites the same files.

  tb/traces/sectors/make_traces.py
"""

import os

HEADER = """-kernel name = _Z{n}{name}Pf
-kernel id = 1
-grid dim = (1,1,1)
-block dim = ({threads},1,1)
-shmem = 0
-nregs = 8
-binary version = 70
-cuda stream id = 0
-shmem base_addr = 0x00007f5000000000
-local mem base_addr = 0x00007f5100000000
-nvbit version = 1.5.5
-accelsim tracer version = 5
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

#BEGIN_TB

thread block = 0,0,0
"""
BASE = 0x7F0000000000  # a 128-byte aligned global address


def kernel(name, warps):
    out = HEADER.format(n=len(name), name=name, threads=32 * len(warps))
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
