// Testbench of Zorua (Vijaykumar et al. 2016) in SystemC: the swap space's
// round trip through the memory model, and whole GPUs running
// --mechanism zorua with a checker that looks at every SM's coordinator in
// every core cycle. Each TEST runs in its own process.
#include <gtest/gtest.h>

#include <regex>
#include <tuple>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "common/scripted_kernel.hpp"
#include "common/structure_bench.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/mem/memory_system_module.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sharing/zorua/zorua_mechanism.hpp"
#include "hw/top/gpu_module.hpp"
#include "hw/top/report.hpp"

namespace smshare::tb {
namespace {

// --- the swap space through the memory model

// Drives SM `sm`'s socket of the memory system (the others are bound and idle).
class SwapInitiator : public sc_core::sc_module {
 public:
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<SwapInitiator>> sockets;
  std::function<void(SwapInitiator&)> script;
  SwapInitiator(sc_core::sc_module_name name, uint32_t num_sms, uint32_t sm, std::function<void(SwapInitiator&)> s)
      : sc_module(name), sockets("socket", num_sms), script(std::move(s)), sm_(sm) {
    SC_THREAD(run);
  }
  // One line moved with data; returns the annotated delay.
  uint64_t move(tlm::tlm_command cmd, uint64_t addr, std::vector<unsigned char>& data) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data.data());
    p.set_data_length(static_cast<unsigned>(data.size()));
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    sockets[sm_]->b_transport(p, delay);
    EXPECT_TRUE(p.is_response_ok()) << p.get_response_string();
    wait(delay);
    return delay.value();
  }

 private:
  SC_HAS_PROCESS(SwapInitiator);
  uint32_t sm_;
  void run() { script(*this); }
};

// A warp's register set spilled to swap (its 4 registers, one 128-B line
// each, at the addresses the coordinator uses) and read back: the values
// written are the values read, through the interconnect, L2 and DRAM, and a
// neighbouring warp's set written in between does not disturb them.
TEST(ZoruaSwap, ARegisterSetSwappedOutAndBackInReadsTheValuesWritten) {
  // FCFS DRAM: the scripted initiator waits for each answer in b_transport
  // (FR-FCFS answers the SM's reads later, through the GPU).
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"dram.scheduler=fcfs"});
  MemorySystem mem("memory", spec);
  zorua::SwapLayout layout;
  layout.base = spec.dram.swap_base + 3 * (spec.dram.swap_bytes / spec.num_sms / 128 * 128);  // SM 3's slice
  layout.reg_sets_per_warp = 8;
  layout.smem_sets_per_cta = 48;
  layout.logical_warps = 64;
  layout.logical_ctas = 16;
  auto line_of = [](uint32_t reg) {
    std::vector<unsigned char> v(128);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<unsigned char>(reg * 7 + i);
    return v;
  };
  std::vector<uint64_t> read_delays;
  SwapInitiator init("init", spec.num_sms, 3, [&](SwapInitiator& i) {
    // Warp 5's set 2 (R8-R11) out, warp 6's set 2 out, warp 5's back in.
    for (uint16_t r = 8; r < 12; ++r) {
      auto v = line_of(r);
      i.move(tlm::TLM_WRITE_COMMAND, layout.register_line(5, r), v);
    }
    for (uint16_t r = 8; r < 12; ++r) {
      std::vector<unsigned char> other(128, 0xEE);
      i.move(tlm::TLM_WRITE_COMMAND, layout.register_line(6, r), other);
    }
    for (uint16_t r = 8; r < 12; ++r) {
      std::vector<unsigned char> back(128, 0);
      read_delays.push_back(i.move(tlm::TLM_READ_COMMAND, layout.register_line(5, r), back));
      EXPECT_EQ(back, line_of(r)) << "R" << r;
    }
    // Global memory has no backing store: it reads zeros.
    std::vector<unsigned char> global(128, 0xAA);
    i.move(tlm::TLM_READ_COMMAND, 0x1000, global);
    EXPECT_EQ(global, std::vector<unsigned char>(128, 0));
  });
  for (uint32_t s = 0; s < spec.num_sms; ++s) init.sockets[s].bind(mem.sm_socket(s));
  sc_core::sc_start();
  ASSERT_EQ(read_delays.size(), 4u);
  for (uint64_t d : read_delays) EXPECT_GT(d, 0u);  // real transactions, timed by the memory model
  EXPECT_EQ(mem.stats_json()["swap"]["writes"], 8u);
  EXPECT_EQ(mem.stats_json()["swap"]["reads"], 4u);
}

// --- whole GPUs

// Looks at every SM's coordinator in every core cycle until the GPU is done.
class InvariantChecker : public sc_core::sc_module {
 public:
  InvariantChecker(sc_core::sc_module_name name, const GpuModule& gpu, uint64_t period_ps)
      : sc_module(name), gpu_(gpu), period_ps_(period_ps) {
    SC_THREAD(run);
  }
  uint64_t cycles_checked = 0;
  std::vector<std::string> violations;

 private:
  SC_HAS_PROCESS(InvariantChecker);
  void run() {
    while (!gpu_.kernels()[0].finished) {
      for (const auto& sm : gpu_.sms()) {
        const zorua::ZoruaSm* z = zorua::zorua_sm_of(sm->core().mechanism());
        if (!z) continue;
        const std::string v = z->check_invariants();
        if (!v.empty() && violations.size() < 5) violations.push_back(std::string(sm->name()) + ": " + v);
      }
      ++cycles_checked;
      if (gpu_.deadlocked()) return;
      wait(sc_core::sc_time::from_value(period_ps_));
    }
  }
  const GpuModule& gpu_;
  uint64_t period_ps_;
};

constexpr uint32_t kRounds = 10;

// 8 warps a CTA, 64 registers a thread; each warp alternates 10 times
// between a phase on R0-R31 with the first 2 KB of scratchpad (a store and
// a load there) and one on R32-R63 without, a barrier after each: a phase
// holds 8 register sets, 64 logical warps would need 512, the SM has 256.
KernelResources alternating_kernel(uint32_t grid) {
  KernelResources k;
  k.grid_ctas = grid;
  k.threads_per_cta = 256;
  k.regs_per_thread = 64;
  k.smem_bytes_per_cta = 2048;
  k.phase_names = {"low", "high"};
  PhaseNeed low, high;
  for (int r = 0; r < 32; ++r) low.registers.set(r);
  for (int r = 32; r < 64; ++r) high.registers.set(r);
  low.smem = {{0, 2048}};
  k.phase_needs = {low, high};
  return k;
}

std::vector<WarpInstruction> alternating_program(uint32_t warp) {
  std::vector<WarpInstruction> v;
  for (uint32_t round = 0; round < 2 * kRounds; ++round) {
    const uint16_t base = round % 2 ? 32 : 0;
    const uint16_t phase = round % 2;
    for (uint16_t i = 0; i < 12; ++i) {
      WarpInstruction a = alu(static_cast<uint16_t>(base + (i + 1) % 32), {static_cast<uint16_t>(base + i % 32)});
      a.phase = phase;
      v.push_back(a);
    }
    if (phase == 0) {
      WarpInstruction st = mem(OpClass::SharedStore, base + 1, 128 * (warp % 8), 4);
      st.num_dst = 0;
      st.num_src = 1;
      st.src[0] = base + 1;
      st.phase = phase;
      WarpInstruction ld = mem(OpClass::SharedLoad, base + 2, 128 * ((warp + 1) % 8), 4);
      ld.phase = phase;
      v.push_back(st);
      v.push_back(ld);
    }
    WarpInstruction b = barrier();
    b.phase = phase;
    v.push_back(b);
  }
  return v;
}

TEST(ZoruaGpu, ManyBarriersUnderOversubscriptionFinishWithEveryWarpHoldingItsPhaseInEveryCycle) {
  constexpr uint32_t kGrid = 24;
  ScriptedKernel k("alternating", alternating_kernel(kGrid), [](uint32_t, uint32_t w) { return alternating_program(w); });
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=2"});
  // A 25 % threshold: register sets go to swap from the start.
  const ConfiguredMechanism zorua = mechanism_registry().configure({"zorua", {"zorua.o_default=25"}, ""});
  GpuModule gpu("gpu", spec, {&k}, zorua, "scripted");
  InvariantChecker checker("checker", gpu, spec.core_period_ps());
  const std::string tree = describe_hierarchy(gpu);
  using Row = std::tuple<const char*, const char*, const char*>;
  for (const auto& [module, kind, plain] :
       {Row{"gpu.sm0.coordinator", "coordinator", "ZoruaSm"},
        Row{"gpu.sm0.register_mapping_table", "mapping table", "MappingTable"},
        Row{"gpu.sm1.scratchpad_mapping_table", "mapping table", "MappingTable"},
        Row{"gpu.sm1.warp_slot_mapping_table", "mapping table", "MappingTable"}}) {
    const std::regex line(std::string("\\n *") + module + " +" + kind + " +" + plain + "\\n");
    EXPECT_TRUE(std::regex_search(tree, line)) << module << " not in\n" << tree;
  }
  sc_core::sc_start();

  const nlohmann::json report =
      simulation_report(gpu, {"zorua", "lrr", 0, "scripted"}, zorua.hardware(spec), zorua.effective(), 0);
  ASSERT_TRUE(gpu.kernels()[0].finished) << report["deadlock"].dump();
  EXPECT_TRUE(checker.violations.empty()) << checker.violations.front();
  EXPECT_GT(checker.cycles_checked, 1000u);
  const nlohmann::json& stats = report["mechanism_stats"];
  // Every warp changes phase at each of its 19 barriers between the 20 rounds.
  EXPECT_EQ(stats["phase_changes"].get<uint64_t>(), uint64_t{kGrid} * 8 * (2 * kRounds - 1));
  // Two CTAs' worth of warps (16 x 8 sets) fill the 256 physical sets; the
  // logical CTAs beyond them wait, or run with sets in swap.
  EXPECT_GT(report["resident_ctas_per_sm"].get<uint32_t>(), 2u);
  EXPECT_GT(stats["swap_reads"].get<uint64_t>(), 0u);
  auto sum = [](const char* module, const char* name) {
    uint64_t n = 0;
    for (const char* sm : {"gpu.sm0.", "gpu.sm1."})
      n += counter(*dynamic_cast<StructureModule*>(sc_core::sc_find_object((std::string(sm) + module).c_str())), name);
    return n;
  };
  EXPECT_EQ(sum("coordinator", "phase_changes"), stats["phase_changes"].get<uint64_t>());
  EXPECT_EQ(sum("coordinator", "swap_reads"), stats["swap_reads"].get<uint64_t>());
  EXPECT_EQ(sum("register_mapping_table", "lookups"), stats["register_table_lookups"].get<uint64_t>());
  EXPECT_EQ(report["counters"]["memory"]["swap"]["reads"].get<uint64_t>(), stats["swap_reads"].get<uint64_t>());
  EXPECT_EQ(report["warp_instructions"].get<uint64_t>(), uint64_t{kGrid} * 8 * (2 * kRounds * 13 + kRounds * 2));
}

}  // namespace
}  // namespace smshare::tb
