// A kernel whose warps replay instruction lists written by a test, so a
// testbench knows every instruction and can derive the expected cycles by
// hand.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/top/simulation.hpp"

namespace smshare::tb {

inline WarpInstruction alu(uint16_t dst, std::vector<uint16_t> srcs, OpClass op = OpClass::IntAlu) {
  WarpInstruction i;
  i.op = op;
  i.num_dst = 1;
  i.dst[0] = dst;
  for (uint16_t s : srcs) i.src[i.num_src++] = s;
  return i;
}

// A load or store with lane addresses base + lane * stride.
inline WarpInstruction mem(OpClass op, uint16_t reg, uint64_t base, uint64_t stride, uint8_t bytes = 4) {
  WarpInstruction i;
  i.op = op;
  i.access_bytes = bytes;
  if (is_load(op)) {
    i.num_dst = 1;
    i.dst[0] = reg;
  } else {
    i.num_src = 1;
    i.src[0] = reg;
  }
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) i.addr[lane] = base + lane * stride;
  return i;
}

inline WarpInstruction barrier() {
  WarpInstruction i;
  i.op = OpClass::Barrier;
  return i;
}

// A grid of one CTA of one warp (8 registers a thread, no scratchpad): the
// smallest kernel a test of one SM's pipeline runs.
inline KernelResources single_warp_grid() {
  KernelResources r;
  r.grid_ctas = 1;
  r.threads_per_cta = 32;
  r.regs_per_thread = 8;
  return r;
}

class ScriptedKernel : public KernelSource {
 public:
  using Script = std::function<std::vector<WarpInstruction>(uint32_t cta, uint32_t warp)>;
  ScriptedKernel(std::string name, KernelResources resources, Script script)
      : name_(std::move(name)), resources_(resources), script_(std::move(script)) {}

  const std::string& name() const override { return name_; }
  const KernelResources& resources() const override { return resources_; }
  std::unique_ptr<WarpProgram> warp_program(uint32_t cta, uint32_t warp) override {
    return std::make_unique<Program>(script_(cta, warp));
  }

 private:
  struct Program : WarpProgram {
    explicit Program(std::vector<WarpInstruction> insts) : insts_(std::move(insts)) {}
    bool next(WarpInstruction& out) override {
      if (pos_ == insts_.size()) return false;
      out = insts_[pos_++];
      return true;
    }
    std::vector<WarpInstruction> insts_;
    size_t pos_ = 0;
  };
  std::string name_;
  KernelResources resources_;
  Script script_;
};

// Simulates `kernel` on `spec` with the baseline mechanism: the report
// `smshare run` would write (SystemC testbenches only: one run per process).
inline nlohmann::json simulate_scripted(ScriptedKernel& kernel, const GpuSpec& spec) {
  SimulateOptions options;
  options.kernel_origin = "scripted";
  return simulate(spec, kernel, options);
}

}  // namespace smshare::tb
