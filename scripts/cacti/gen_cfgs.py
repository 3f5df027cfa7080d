#!/usr/bin/env python3
"""Writes cacti-params/<node>/<structure>.cfg, one CACTI 7 input per structure.

The cfgs are checked in; this script is how they were made, so a change to a
structure is made here and the cfgs regenerated (then refresh the cache with
scripts/cacti/refresh_cache.py). Every cfg starts with comments saying which
structure and which paper section it models, and how a structure too small for
CACTI was modelled. Lines `// @key value` are read by refresh_cache.py:

  @structure       the key in ActivityCounters and in hw/power's tables
  @access_bits     bits one counted access of the structure moves
  @reference_bits  the structure's size in bits in the papers' Fermi config

CACTI refuses arrays under 64 bytes ("Cache size must >=64", exit 0, no
result) and with fewer than 32 rows ("ERROR: no valid data array
organizations found", exit 1). Small structures are therefore modelled with
a narrower block (more rows) or padded rows; hw/power scales area and leakage
by (bits needed / bits in the cfg) and multiplies the per-access energy by
ceil(access_bits / block bits).

  scripts/cacti/gen_cfgs.py            # (re)write every node's cfgs
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODES = {"40nm": 0.040, "32nm": 0.032}

# (structure, size bytes, block bytes, assoc, type, ports "rw/r/w", access_bits, reference_bits, comment)
STRUCTURES = [
    ("register_file_bank", 8192, 128, 1, "ram", (1, 0, 0), 1024, 65536, """\
Baseline register file, one bank. Fermi (GTX 480): 32768 x 32-bit registers =
128 KB per SM in 16 banks (GPGPU-Sim Fermi config; EXPARS Table 2, Zorua
Table 2) -> 8 KB per bank, one 1024-bit row = one register of a 32-thread warp.
One read/write port: a bank serves one access per cycle, as in the operand
collector's bank arbitration. Full size, no scaling."""),
    ("scratchpad_bank", 1536, 4, 1, "ram", (1, 0, 0), 32, 12288, """\
Baseline scratchpad (shared memory), one bank: 48 KB per SM in 32 banks ->
1536 B per bank, 32-bit words (EXPARS Table 2, Zorua Table 2). One port.
Full size, no scaling."""),
    ("l1d", 16384, 128, 4, "cache", (1, 0, 0), 1024, 131072, """\
L1 data cache per SM: 16 KB, 4-way, 128 B lines (GPGPU-Sim Fermi config,
32 sets x 4 ways x 128 B; Jatala Table I, EXPARS Table 2). Tag and data
arrays, one port. Full size, no scaling."""),
    ("l2_slice", 131072, 128, 16, "cache", (1, 0, 0), 1024, 1048576, """\
L2 slice (one memory partition): 768 KB over 6 partitions = 128 KB, 16-way,
128 B lines (GPGPU-Sim Fermi config; Zorua/EXPARS Table 2). One port.
Full size, no scaling."""),
    ("operand_cache_bank", 512, 16, 1, "ram", (1, 0, 0), 1024, 4096, """\
EXPARS operand cache (OC), data of one bank. EXPARS Sec. 3.3.4 / 3.3.7 and
Fig. 8: 2 KB per SM, 4 banks, 4 sets of 4 lines, one line = one 1024-bit warp
register -> 512 B per bank = 4 lines of 128 B.
Too small for CACTI with 128 B rows (4 rows; CACTI needs >= 32): modelled as
512 B with a 16 B block (32 rows x 128 bit), the same capacity; one 1024-bit
line access = 8 block accesses, so hw/power multiplies the per-access energy
by 8 (access_bits / block bits). Area and leakage are unscaled."""),
    ("operand_cache_tags", 160, 5, 1, "ram", (1, 0, 0), 40, 160, """\
EXPARS operand cache tags. EXPARS Sec. 3.3.4 and 3.3.7: a 10-bit tag per line
(6-bit Warp_ID, 2 high bits of Reg#, valid, dirty); 16 lines = 160 bits (20 B)
per SM. A set's 4 tags (40 bits, one per bank) are looked up together.
Too small for CACTI (4 rows of 40 bits, 20 B): modelled as 32 rows of 5 B
(160 B); hw/power scales area and leakage by 160 bits / 1280 bits."""),
    ("register_allocation_table", 64, 2, 1, "ram", (1, 0, 0), 16, 149, """\
EXPARS register allocation table (RAT). EXPARS Sec. 3.3.3 and 3.3.7: SBR table
of 8 entries (one per CTA slot) x 16 bits (covers the 48 KB scratchpad) =
128 bits, plus Start_CTA (3 bits), Start_Reg, Max_Reg, Warps_Per_CTA (6 bits
each) = 149 bits per SM; the bank arbitrator reads one 16-bit SBR entry.
Too small for CACTI (8 rows, 16 B): modelled as 32 rows x 16 bits (64 B);
hw/power scales area and leakage by 149 / 512 bits."""),
    ("prefetch_bitvector_table", 384, 8, 1, "ram", (1, 0, 0), 63, 3024, """\
EXPARS register prefetcher's register bit-vector table. EXPARS Sec. 3.3.4 and
3.3.7: one 63-bit vector per warp (Fermi's 63 architectural registers) for 48
warps = 3024 bits (378 B) per SM, read and written one warp's vector at a time.
Rows padded to 64 bits: modelled as 48 rows x 8 B (384 B); hw/power scales area
and leakage by 3024 / 3072 bits."""),
    ("ltlws_counters", 192, 4, 1, "ram", (1, 0, 0), 32, 1542, """\
EXPARS lazy two-level warp scheduler (LTLWS) counters. EXPARS Sec. 3.3.7: one
4 B executed-instruction counter per warp (48 warps) plus a 6-bit optimal
active-warp count = 1542 bits per SM. Modelled as 48 rows x 32 bits (192 B);
hw/power scales area and leakage by 1542 / 1536 bits."""),
    ("lock_array_register", 64, 1, 1, "ram", (1, 0, 0), 6, 144, """\
Jatala et al. register-sharing lock array. Jatala Sec. V: one lock per pair of
shared warps, holding the owning warp's id: floor(W/2) x ceil(log2 W) bits =
24 x 6 = 144 bits per SM for W = 48 warps.
Too small for CACTI (24 rows x 6 bits, 18 B): modelled as 64 rows x 8 bits
(64 B, CACTI's minimum size); hw/power scales area and leakage by
144 / 512 bits (the formula is evaluated from the GPU config)."""),
    ("lock_array_scratchpad", 64, 1, 1, "ram", (1, 0, 0), 3, 12, """\
Jatala et al. scratchpad-sharing lock array. Jatala Sec. V: one lock per pair
of shared thread blocks: floor(T/2) x ceil(log2 T) bits = 4 x 3 = 12 bits per
SM for T = 8 thread blocks.
Too small for CACTI: modelled as 64 rows x 8 bits (64 B); hw/power scales
area and leakage by 12 / 512 bits."""),
    ("partner_id_table", 64, 1, 1, "ram", (1, 0, 0), 4, 33, """\
Jatala et al. partner thread-block ids plus the SM's sharing-mode bit. Jatala
Sec. V items (1) and (2): T x ceil(log2(T+1)) bits = 8 x 4 = 32 bits, plus 1
bit per SM = 33 bits per SM (register and scratchpad sharing alike).
Too small for CACTI: modelled as 64 rows x 8 bits (64 B); hw/power scales
area and leakage by 33 / 512 bits."""),
    ("owner_bits", 64, 1, 1, "ram", (1, 0, 0), 1, 96, """\
Jatala et al. per-warp mode bits. Jatala Sec. V: one owner bit per warp (W
bits, both kinds of sharing) and, for register sharing, one sharing-mode bit
per warp (W bits): 96 bits per SM for register sharing, 48 for scratchpad
sharing (W = 48).
Too small for CACTI: modelled as 64 rows x 8 bits (64 B); hw/power scales
area and leakage by the bits the mechanism needs / 512 bits."""),
    ("register_mapping_table", 1152, 18, 1, "ram", (1, 0, 0), 9, 9216, """\
Zorua register mapping table. Zorua Sec. 4.5.1: indexed by logical warp id
(64 logical warps, Sec. 5.1) and register set (sets of 4 registers per warp;
16 sets cover Fermi's 63 registers); an entry is a physical set number (8 bits
for 32768 / (4 x 32) = 256 sets) plus a valid bit: 64 x 16 x 9 bits = 1.125 KB.
Modelled as 64 rows (one per logical warp) of 16 entries = 18 B. Full size."""),
    ("scratchpad_mapping_table", 672, 7, 1, "ram", (1, 0, 0), 7, 5376, """\
Zorua scratchpad mapping table. Zorua Sec. 4.5.1: indexed by logical thread
block (16, Sec. 5.1) and 1 KB scratchpad set (48 for 48 KB); an entry is a
6-bit physical set plus a valid bit: 16 x 48 x 7 bits = 672 B.
Modelled as 96 rows of 8 entries (7 B). Full size."""),
    ("warp_slot_mapping_table", 64, 1, 1, "ram", (1, 0, 0), 7, 448, """\
Zorua warp-slot mapping table. Zorua Sec. 4.5.2: one entry per logical warp
(64) holding the physical slot (6 bits for 48 slots) plus a valid bit:
64 x 7 bits = 56 B.
Below CACTI's 64 B minimum: modelled as 64 rows x 8 bits (64 B); hw/power
scales area and leakage by 448 / 512 bits."""),
    ("coordinator_queue", 64, 1, 1, "ram", (1, 0, 0), 6, 384, """\
Zorua coordinator queue (one of three: thread/barrier, scratchpad, register;
Zorua Sec. 4.1-4.2). The paper gives no size; we assume each queue can hold
every logical warp (64 entries of a 6-bit logical warp id = 384 bits). The
coordinator's two counters per resource (free, swapped; Sec. 4.5) are counted
with this cfg's per-bit area too.
Below CACTI's 64 B minimum rows/size: modelled as 64 rows x 8 bits (64 B);
hw/power scales area and leakage by 384 / 512 bits."""),
    ("boundary_buffer", 1024, 32, 1, "ram", (0, 1, 1), 1024, 8192, """\
Dhar & Chen boundary buffer at the edge of an SM (Sec. V-A, dummy pipelining;
Sec. VI-A). The paper gives no size (only 0.0887 mm^2 per SM for buffers and
muxes, synthesized). We assume 8 entries of 128 B: 3 source operands of one
warp instruction (3 x 1024 bits) plus one 128 B cache/scratchpad line, in
each direction. One write port (local side), one read port (remote side).
Too few rows for CACTI with 128 B rows (8): modelled as 32 rows x 32 B (the
same 1 KB); a 1024-bit transfer = 4 block accesses, so hw/power multiplies
the per-access energy by 4. Area and leakage are unscaled."""),
    # The pipeline's own arrays, for its per-event dynamic energy (hw/power,
    # pipeline_energy_components; docs/power-area.md, "Pipeline dynamic
    # energy"). Only their per-access energies are used: their leakage is in
    # Dhar & Chen Table III's front-end, LDST and undifferentiated lines.
    ("instruction_buffer", 768, 8, 1, "ram", (0, 1, 1), 64, 6144, """\
Instruction buffer of the SM's front end: sm.ibuffer_entries = 2 decoded
instructions per warp for
sm.max_warps = 48 warps, one 64-bit Fermi instruction each: 96 x 8 B = 768 B
per SM. Written once at decode, read once at issue; one write port (decode),
one read port (issue). Modelled as 96 rows x 8 B. Full size."""),
    ("scoreboard", 384, 8, 1, "ram", (0, 1, 1), 63, 3024, """\
Scoreboard of pending register writes: one bit per architectural register
(Fermi's 63) per warp, 48 warps = 3024 bits per SM (GPGPU-Sim's scoreboard
keeps the set of a warp's registers with a write in flight). An issue check
reads the warp's 63-bit row; issue sets and writeback clears a destination's
bit (one write each). One read port (issue check), one write port.
Rows padded to 64 bits: modelled as 48 rows x 8 B (384 B); hw/power scales
area and leakage by 3024 / 3072 bits."""),
    ("scheduler_readiness_table", 128, 4, 1, "ram", (1, 0, 0), 24, 24, """\
A warp scheduler's readiness table: one ready bit per warp it owns
(sm.max_warps / sm.num_schedulers = 24), read once per cycle the scheduler
runs to pick a warp. McPAT models selection as its instruction-window logic;
no per-selection figure at 40 nm was found, so the scheduler is charged the
read of this table (the selection logic itself is not charged).
Too small for CACTI (one 24-bit row): modelled as 32 rows x 4 B (128 B), one
access reads one 32-bit row; hw/power scales area and leakage by 24 / 1024."""),
    ("operand_collector_storage", 6144, 128, 1, "ram", (0, 1, 1), 1024, 49152, """\
Operand storage of the operand collector units: sm.oc_units_sp + oc_units_sfu
+ oc_units_mem = 6 + 8 + 2 = 16 units x 3 source operands x 32 lanes x 4 B
= 6 KB per SM (GPGPU-Sim's collector units, one 1024-bit warp register per
source slot). Written once per operand read from a register bank, read once
at dispatch. One write port (from the bank crossbar), one read port (to the
execution units). Modelled as 48 rows x 128 B. Full size."""),
    ("coalescer_pending_requests", 256, 8, 0, "cache", (1, 0, 0), 64, 2048, """\
Pending request table of the L1 data cache's coalesced misses (MSHRs):
l1.mshr_entries = 32 in fermi-gtx480 (GPGPU-Sim -gpgpu_cache:dl1 ...,A:32:8),
fully associative on the line address, so every coalesced transaction
searches it (CACTI's fully associative cache: a CAM tag array). Each entry's
payload assumed 8 B (the merged requests' warp and register ids). Modelled
as 32 entries x 8 B, associativity 0 (full). Full size."""),
]

TEMPLATE = """\
-size (bytes) {size}
-Array Power Gating - "false"
-WL Power Gating - "false"
-CL Power Gating - "false"
-Bitline floating - "false"
-Interconnect Power Gating - "false"
-Power Gating Performance Loss 0.01
-block size (bytes) {block}
-associativity {assoc}
-read-write port {rw}
-exclusive read port {rd}
-exclusive write port {wr}
-single ended read ports 0
-UCA bank count 1
-technology (u) {tech:.3f}
-page size (bits) 8192
-burst length 8
-internal prefetch width 8
-Data array cell type - "itrs-hp"
-Data array peripheral type - "itrs-hp"
-Tag array cell type - "itrs-hp"
-Tag array peripheral type - "itrs-hp"
-output/input bus width {bus}
-operating temperature (K) 360
-cache type "{ctype}"
-tag size (b) "default"
-access mode (normal, sequential, fast) - "normal"
-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:0:0:100:0
-deviate (delay, dynamic power, leakage power, cycle time, area) 20:100000:100000:100000:100000
-NUCAdesign objective (weight delay, dynamic power, leakage power, cycle time, area) 100:100:0:0:100
-NUCAdeviate (delay, dynamic power, leakage power, cycle time, area) 10:10000:10000:10000:10000
-Optimize ED or ED^2 (ED, ED^2, NONE): "ED^2"
-Cache model (NUCA, UCA) - "UCA"
-NUCA bank count 0
-Wire signaling (fullswing, lowswing, default) - "Global_30"
-Wire inside mat - "semi-global"
-Wire outside mat - "semi-global"
-Interconnect projection - "conservative"
-Core count 8
-Cache level (L2/L3) - "L3"
-Add ECC - "false"
-Print level (DETAILED, CONCISE) - "DETAILED"
-Print input parameters - "false"
-Force cache config - "false"
-Ndwl 1
-Ndbl 1
-Nspd 0
-Ndcm 1
-Ndsam1 0
-Ndsam2 0
// CACTI's parser needs the off-chip IO / MemCAD parameters even for SRAMs
// (without them it stops with a floating-point exception); they do not
// affect the array results. Values from CACTI's sample cache.cfg.
-dram_type "DDR3"
-io state "WRITE"
-addr_timing 1.0
-mem_density 4 Gb
-bus_freq 800 MHz
-duty_cycle 1.0
-activity_dq 1.0
-activity_ca 0.5
-num_dq 72
-num_dqs 18
-num_ca 25
-num_clk 2
-num_mem_dq 2
-mem_data_width 8
-rtt_value 10000
-ron_value 34
-tflight_value
-num_bobs 1
-capacity 80
-num_channels_per_bob 1
-first metric "Cost"
-second metric "Bandwidth"
-third metric "Energy"
-DIMM model "ALL"
-mirror_in_bob "F"
"""


def render(node, tech, s):
    name, size, block, assoc, ctype, (rw, rd, wr), access_bits, ref_bits, comment = s
    head = [f"// {name} at {node} (CACTI 7, hwcomponents-cacti sources). Generated by scripts/cacti/gen_cfgs.py."]
    head += ["// " + line for line in comment.splitlines()]
    head += [
        "// Common settings: CACTI's sample cache.cfg (ITRS-HP cells and periphery, 360 K,",
        "// ED^2 optimisation, one UCA bank), no ECC.",
        f"// @structure {name}",
        f"// @access_bits {access_bits}",
        f"// @reference_bits {ref_bits}",
    ]
    body = TEMPLATE.format(size=size, block=block, assoc=assoc, rw=rw, rd=rd, wr=wr, tech=tech,
                           bus=block * 8, ctype=ctype)
    if assoc == 0:
        # A fully associative cache's tags are a CAM: CACTI requires a search
        # port ("CAM and fully associative must have at least 1 search port").
        body += "-search port 1\n"
    return "\n".join(head) + "\n" + body


def main():
    for node, tech in NODES.items():
        d = os.path.join(ROOT, "cacti-params", node)
        os.makedirs(d, exist_ok=True)
        for s in STRUCTURES:
            with open(os.path.join(d, s[0] + ".cfg"), "w") as f:
                f.write(render(node, tech, s))
    print(f"wrote {len(STRUCTURES)} cfgs for {', '.join(NODES)}", file=sys.stderr)


if __name__ == "__main__":
    main()
