// What the front-end tests share: a warp's whole stream, and a fixture that
// writes a kernel profile into its own temporary folder and loads it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hw/frontend/kernel.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "tb/common/input_error_of.hpp"

namespace smshare::tb {

// Every instruction warp `warp` of CTA `cta` streams, to its end.
inline std::vector<WarpInstruction> drain(KernelSource& k, uint32_t cta, uint32_t warp) {
  std::vector<WarpInstruction> out;
  auto w = k.warp_program(cta, warp);
  WarpInstruction in;
  while (w->next(in)) out.push_back(in);
  return out;
}

// A profile built in code, so each test states what it depends on: the
// resources, and besides them what every profile needs (a file and a name
// for errors, a paper source, a 1 MiB global footprint). Mix, phases and the
// rest are the test's to set before validate().
inline KernelProfile profile_in_code(const std::string& name, uint32_t grid_ctas, uint32_t threads_per_cta,
                                     uint32_t regs_per_thread, uint32_t smem_bytes_per_cta) {
  KernelProfile p;
  p.file = "test-" + name;
  p.name = name;
  p.resources.grid_ctas = grid_ctas;
  p.resources.threads_per_cta = threads_per_cta;
  p.resources.regs_per_thread = regs_per_thread;
  p.resources.smem_bytes_per_cta = smem_bytes_per_cta;
  p.global_footprint_bytes = 1 << 20;
  p.paper.source = "test";
  return p;
}

// One phase of a profile built in code: registers [lo, hi] with the first
// `hot` of them hot, scratchpad region [from, to) of the CTA's.
inline ProfilePhase phase_in_code(const char* name, uint32_t instructions, uint32_t repeat, bool barrier_after,
                                  std::array<double, kNumMixClasses> mix, uint32_t lo, uint32_t hi, uint32_t hot,
                                  double from, double to) {
  ProfilePhase ph;
  ph.name = name;
  ph.instructions = instructions;
  ph.repeat = repeat;
  ph.barrier_after = barrier_after;
  ph.mix = mix;
  ph.first_register = lo;
  ph.last_register = hi;
  ph.hot_registers = hot;
  ph.shared_from = from;
  ph.shared_to = to;
  return ph;
}

class ProfileFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("smshare_profile_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `text` as the folder's k.yaml and returns its path.
  std::string write(const std::string& text) {
    const std::string path = (dir_ / "k.yaml").string();
    std::ofstream(path) << text;
    return path;
  }
  KernelProfile load(const std::string& text) { return load_kernel_profile(write(text)); }
  // Loads `text` and returns the error message ("" when it loads).
  std::string error_of(const std::string& text) {
    const std::string path = write(text);
    return input_error_of([&] { load_kernel_profile(path); });
  }
  // `s` with its first `from` replaced by `to` (a test failure if absent).
  static std::string replace(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  }
  std::filesystem::path dir_;
};

}  // namespace smshare::tb
