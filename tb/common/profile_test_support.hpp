// What the front-end tests share: a warp's whole stream, and a fixture that
// writes a kernel profile into its own temporary folder and loads it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

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
