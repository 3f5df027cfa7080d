// The module hierarchy as `smshare run ... --list-modules` prints it: every
// structure module under its scope with its kind and plain-C++ class, the
// sockets, and the same input checks as a run.
#include <gtest/gtest.h>

#include <regex>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/structure_module.hpp"
#include "hw/mem/memory_system_module.hpp"
#include "hw/top/simulation.hpp"

namespace smshare {
namespace {

bool has_line(const std::string& listing, const std::string& pattern) {
  return std::regex_search(listing, std::regex("(^|\n) *" + pattern + "\n"));
}

TEST(ModuleHierarchy, ListsEveryGpuWideStructureWithItsPlainClass) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.kernel = "hotspot";
  const std::string listing = module_hierarchy(req);
  EXPECT_TRUE(has_line(listing, R"(gpu\.cta_dispatcher +CTA dispatcher +CtaDispatcher)")) << listing;
  EXPECT_TRUE(has_line(listing, R"(gpu\.memory\.interconnect +interconnect +Interconnect)")) << listing;
  // Fermi: 6 partitions, each an L2 slice and a DRAM channel.
  EXPECT_TRUE(has_line(listing, R"(gpu\.memory\.l2_slice5 +L2 slice +L2Slice)")) << listing;
  EXPECT_TRUE(has_line(listing, R"(gpu\.memory\.dram_channel5 +DRAM channel +DramChannelTiming)")) << listing;
  EXPECT_FALSE(has_line(listing, R"(gpu\.memory\.l2_slice6 .*)")) << listing;
  // Other SystemC objects with SystemC's kind; the sockets' insides left out.
  EXPECT_TRUE(has_line(listing, R"(gpu\.sm14 +sc_module)")) << listing;
  EXPECT_TRUE(has_line(listing, R"(gpu\.sm14\.socket +tlm_initiator_socket)")) << listing;
  EXPECT_TRUE(has_line(listing, R"(gpu\.memory\.sm_socket +15 x tlm_target_socket)")) << listing;
  EXPECT_EQ(listing.find("m_peq"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("socket_export"), std::string::npos) << listing;
  // Indented by depth: gpu, gpu.memory, gpu.memory.l2_slice0.
  EXPECT_NE(listing.find("\n    gpu.memory.l2_slice0 "), std::string::npos) << listing;
}

TEST(ModuleHierarchy, ListsEachSmsStructuresUnderTheSm) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.kernel = "hotspot";
  const std::string listing = module_hierarchy(req);
  for (const char* sm : {"sm0", "sm14"}) {
    const std::string p = std::string(R"(gpu\.)") + sm + R"(\.)";
    EXPECT_TRUE(has_line(listing, p + R"(register_file +register file +BankArray)")) << listing;
    EXPECT_TRUE(has_line(listing, p + R"(bank_arbitrator +bank arbitrator +BankArbitrator)")) << listing;
    EXPECT_TRUE(has_line(listing, p + R"(operand_collectors +operand collectors +OperandCollectors)")) << listing;
    EXPECT_TRUE(has_line(listing, p + R"(scratchpad +scratchpad +Scratchpad)")) << listing;
    EXPECT_TRUE(has_line(listing, p + R"(l1d +L1 data cache +L1DataCache)")) << listing;
    EXPECT_TRUE(has_line(listing, p + R"(icache +instruction cache +InstructionCache)")) << listing;  // il1: 2 KB
    // Fermi: two warp schedulers per SM.
    EXPECT_TRUE(has_line(listing, p + R"(scheduler1 +warp scheduler +SchedulerPolicy)")) << listing;
    EXPECT_FALSE(has_line(listing, p + R"(scheduler2 .*)")) << listing;
  }
  // Indented as children of the SM.
  EXPECT_NE(listing.find("\n    gpu.sm0.register_file "), std::string::npos) << listing;
}

TEST(ModuleHierarchy, WithoutAnInstructionCacheTheSmHasNone) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.kernel = "hotspot";
  req.overrides = {"icache.size_bytes=0"};
  const std::string listing = module_hierarchy(req);
  EXPECT_FALSE(has_line(listing, R"(gpu\.sm0\.icache .*)")) << listing;
  EXPECT_FALSE(has_line(listing, R"(gpu\.sm14\.icache .*)")) << listing;
  EXPECT_TRUE(has_line(listing, R"(gpu\.sm0\.l1d +L1 data cache +L1DataCache)")) << listing;
}

TEST(ModuleHierarchy, RejectsWhatARunRejects) {
  RunRequest req;
  req.kernel = "hotspot";
  req.overrides = {"l2.waysx=4"};
  EXPECT_THROW(module_hierarchy(req), InputError);
}

TEST(ModuleHierarchy, StructuresAreFoundDepthFirstInCreationOrder) {
  // What trace_structures() registers: every StructureModule under a root.
  GpuSpec spec;  // Fermi defaults: 6 partitions
  MemorySystem memory("memory", spec);
  std::vector<std::string> names;
  for (const StructureModule* m : structures_under(memory)) names.push_back(m->name());
  std::vector<std::string> expected = {"memory.interconnect"};
  for (int p = 0; p < 6; ++p) expected.push_back("memory.l2_slice" + std::to_string(p));
  for (int p = 0; p < 6; ++p) expected.push_back("memory.dram_channel" + std::to_string(p));
  EXPECT_EQ(names, expected);
  EXPECT_EQ(&memory.l2_slice(3), structures_under(memory)[4]);
}

}  // namespace
}  // namespace smshare
