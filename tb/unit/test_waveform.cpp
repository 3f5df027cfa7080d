// The waveform writer driven directly: the VCD it writes (scopes, changes
// only, the window, signed values), the GTKWave save file and translate
// filters beside it, and the parsing of --vcd-sms / --vcd-window.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hw/common/error.hpp"
#include "hw/common/waveform.hpp"
#include "hw/common/waveform_save_file.hpp"

namespace smshare {
namespace {

namespace fs = std::filesystem;

class WaveformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("smshare_wave_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  WaveformOptions options(const std::string& file, uint64_t cycle_ps = 10) const {
    WaveformOptions o;
    o.path = (dir_ / file).string();
    o.cycle_ps = cycle_ps;
    return o;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The VCD after $enddefinitions: the dump itself.
  static std::string body(const std::string& vcd) {
    const size_t at = vcd.find("$enddefinitions $end\n");
    return at == std::string::npos ? "" : vcd.substr(at + 21);
  }

  fs::path dir_;
};

TEST_F(WaveformTest, OneScopePerPathComponentInOrderOfFirstUse) {
  uint32_t a = 0, grants = 0, b = 0, depth = 0;
  Waveform w(options("s.vcd"));
  w.add("gpu.sm0.issued_count", a);
  w.add("gpu.sm0.bank_arbitrator.grants", grants, 4);
  w.add("gpu.sm1.issued_count", b);
  w.add("gpu.memory.depth", depth, 1);
  w.sample(0);
  w.close(1);
  const std::string vcd = read(dir_ / "s.vcd");
  EXPECT_NE(vcd.find("$timescale 1 ps $end\n"), std::string::npos) << vcd;
  const std::string scopes =
      "$scope module gpu $end\n"
      "$scope module sm0 $end\n"
      "$var wire 32 ! issued_count [31:0] $end\n"
      "$scope module bank_arbitrator $end\n"
      "$var wire 4 \" grants [3:0] $end\n"
      "$upscope $end\n"
      "$upscope $end\n"
      "$scope module sm1 $end\n"
      "$var wire 32 # issued_count [31:0] $end\n"
      "$upscope $end\n"
      "$scope module memory $end\n"
      "$var wire 1 $ depth $end\n"
      "$upscope $end\n"
      "$upscope $end\n"
      "$enddefinitions $end\n";
  EXPECT_NE(vcd.find(scopes), std::string::npos) << vcd;
  // A 1-bit probe is a scalar: value and identifier without a space.
  EXPECT_EQ(body(vcd), "#0\n$dumpvars\nb0 !\nb0 \"\nb0 #\n0$\n$end\n#10\n");
}

TEST_F(WaveformTest, DumpvarsFirstThenOnlyChangesAtCycleTimesPeriod) {
  uint32_t v = 3, u = 7;
  Waveform w(options("c.vcd", 714));
  w.add("gpu.sm0.v", v);
  w.add("gpu.sm0.u", u);
  w.sample(0);
  w.sample(1);  // nothing changed: no timestamp
  v = 5;
  w.sample(2);
  u = 0;
  v = 6;
  w.sample(3);
  w.close(4);
  EXPECT_EQ(body(read(dir_ / "c.vcd")),
            "#0\n$dumpvars\nb11 !\nb111 \"\n$end\n"
            "#1428\nb101 !\n"
            "#2142\nb110 !\nb0 \"\n"
            "#2856\n");  // the end of the last cycle (4 * 714)
}

TEST_F(WaveformTest, WindowWritesNothingBeforeFromAndAfterTo) {
  uint32_t v = 0;
  WaveformOptions o = options("win.vcd");
  o.window = std::make_pair<uint64_t, uint64_t>(3, 5);
  Waveform w(o);
  w.add("gpu.sm0.v", v);
  EXPECT_EQ(w.first_cycle(), 3u);
  EXPECT_EQ(w.last_cycle(), 5u);
  for (uint64_t c = 0; c < 10; ++c) {
    v = static_cast<uint32_t>(c);
    w.sample(c);
  }
  w.close(10);
  // The window's first cycle dumps every value; the dump ends where cycle 5 ends.
  EXPECT_EQ(body(read(dir_ / "win.vcd")), "#30\n$dumpvars\nb11 !\n$end\n#40\nb100 !\n#50\nb101 !\n#60\n");
  const std::string gtkw = read(dir_ / "win.gtkw");
  EXPECT_NE(gtkw.find("[timestart] 30\n"), std::string::npos) << gtkw;
}

TEST_F(WaveformTest, RunEndingInsideTheWindowEndsTheDumpThere) {
  uint32_t v = 1;
  WaveformOptions o = options("end.vcd");
  o.window = std::make_pair<uint64_t, uint64_t>(2, 100);
  Waveform w(o);
  w.add("gpu.sm0.v", v);
  for (uint64_t c = 0; c < 6; ++c) w.sample(c);
  w.close(6);
  EXPECT_EQ(body(read(dir_ / "end.vcd")), "#20\n$dumpvars\nb1 !\n$end\n#60\n");
}

TEST_F(WaveformTest, RunEndingBeforeTheWindowWritesDeclarationsOnly) {
  uint32_t v = 1;
  WaveformOptions o = options("late.vcd");
  o.window = std::make_pair<uint64_t, uint64_t>(100, 200);
  Waveform w(o);
  w.add("gpu.sm0.v", v);
  for (uint64_t c = 0; c < 6; ++c) w.sample(c);
  w.close(6);
  const std::string vcd = read(dir_ / "late.vcd");
  EXPECT_NE(vcd.find("$var wire 32 ! v [31:0] $end"), std::string::npos) << vcd;
  EXPECT_EQ(body(vcd), "");
  // No interval to zoom to: the save file has no zoom line.
  EXPECT_EQ(read(dir_ / "late.gtkw").find("\n*"), std::string::npos);
}

TEST_F(WaveformTest, SignedValuesInTwosComplementAtTheirWidth) {
  int32_t warp = -1, small = -2, positive = 5;
  uint64_t wide = 0x8000000000000001ull;
  Waveform w(options("signed.vcd"));
  w.add("gpu.sm0.issued_warp", warp);
  w.add("gpu.sm0.small", small, 4);
  w.add("gpu.sm0.positive", positive, 8);
  w.add("gpu.sm0.wide", wide);
  w.sample(0);
  warp = 2;
  w.sample(1);
  w.close(2);
  const std::string vcd = read(dir_ / "signed.vcd");
  EXPECT_NE(vcd.find("$var integer 32 ! issued_warp [31:0] $end"), std::string::npos) << vcd;
  EXPECT_NE(vcd.find("$var wire 64 $ wide [63:0] $end"), std::string::npos) << vcd;
  EXPECT_EQ(body(vcd), "#0\n$dumpvars\nb" + std::string(32, '1') + " !\nb1110 \"\nb101 #\nb1" + std::string(62, '0') +
                           "1 $\n$end\n#10\nb10 !\n#20\n");
}

TEST_F(WaveformTest, SaveFileOpensTheWaveZoomedGroupedAndFiltered) {
  const WaveEnum reasons{"stall_reason", {{0, "none"}, {5, "scoreboard"}}};
  int32_t warp = -1;
  uint32_t reason = 5, grants = 0, depth = 0;
  WaveformOptions o = options("g.vcd", 714);
  o.window = std::make_pair<uint64_t, uint64_t>(10, 1000);
  Waveform w(o);
  w.add("gpu.sm0.issued_warp", warp);
  w.add("gpu.sm0.stall_reason", reason, 32, &reasons);
  w.add("gpu.sm0.bank_arbitrator.grants", grants);
  w.add("gpu.dram.depth", depth);
  for (uint64_t c = 0; c < 500; ++c) w.sample(c);
  w.close(500);
  EXPECT_EQ(w.save_file_path(), (dir_ / "g.gtkw").string());
  const std::string gtkw = read(dir_ / "g.gtkw");
  const std::string filter = (dir_ / "g.stall_reason.filter").string();
  EXPECT_NE(gtkw.find("[dumpfile] \"" + (dir_ / "g.vcd").string() + "\"\n"), std::string::npos) << gtkw;
  EXPECT_NE(gtkw.find("[timestart] 7140\n"), std::string::npos) << gtkw;
  // Zoom: cycles 10..499 (490 cycles of 714 ps) in 98 % of the 980-pixel
  // wave area GTKWave leaves of the 1600-pixel window: -log2(200 * 349860 / 960).
  char zoom[40];
  std::snprintf(zoom, sizeof zoom, "\n*%.6f -1 -1", -std::log2(200.0 * 490 * 714 / 960));
  EXPECT_NE(gtkw.find(zoom), std::string::npos) << zoom << "\n" << gtkw;
  const std::string traces =
      "[sst_expanded] 1\n"
      "@800200\n-sm0\n"
      "@420\ngpu.sm0.issued_warp\n"  // signed decimal; an integer has no range in its name
      "@2024\n^1 " + filter + "\ngpu.sm0.stall_reason[31:0]\n"  // decimal through the filter
      "@800200\n-bank_arbitrator\n"
      "@24\ngpu.sm0.bank_arbitrator.grants[31:0]\n"
      "@1000200\n-bank_arbitrator\n"
      "@1000200\n-sm0\n"
      "@800200\n-dram\n"
      "@24\ngpu.dram.depth[31:0]\n"
      "@1000200\n-dram\n";
  EXPECT_NE(gtkw.find(traces), std::string::npos) << gtkw;
  const std::string f = read(filter);
  EXPECT_NE(f.find("\n0 none\n5 scoreboard\n"), std::string::npos) << f;
}

TEST_F(WaveformTest, GtkwaveZoomMatchesGtkwavesOwnBestFit) {
  // GTKWave 3.3's Zoom Best Fit of 70000 ps on a 1126-pixel wave area
  // saved *-13.607087 (measured; it rounds the fit outwards a little).
  EXPECT_NEAR(gtkwave_zoom(70000, 1126), -13.607087, 0.01);
}

TEST_F(WaveformTest, SuffixDecidesTheFormatAndTheSaveFileName) {
  Waveform plain(options("run"));
  EXPECT_EQ(plain.wave_path(), (dir_ / "run.vcd").string());
  EXPECT_EQ(plain.save_file_path(), (dir_ / "run.gtkw").string());
  EXPECT_TRUE(fs::exists(dir_ / "run.vcd"));
}

TEST_F(WaveformTest, FstWithoutVcd2fstNamesTheFlagAndThePackage) {
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", dir_.c_str(), 1);
  try {
    Waveform w(options("x.fst"));
    ::setenv("PATH", saved.c_str(), 1);
    FAIL() << "no error without vcd2fst";
  } catch (const InputError& e) {
    ::setenv("PATH", saved.c_str(), 1);
    const std::string what = e.what();
    EXPECT_NE(what.find("--vcd"), std::string::npos) << what;
    EXPECT_NE(what.find("vcd2fst"), std::string::npos) << what;
    EXPECT_NE(what.find("gtkwave"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.fst.tmp.vcd"));
}

TEST_F(WaveformTest, UnwritablePathIsAnInputErrorNamingTheFlag) {
  try {
    Waveform w(options("no-such-dir/w.vcd"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-dir/w.vcd: cannot write"), std::string::npos) << e.what();
  }
}

// The save file is written after the run: a path that cannot take it is
// refused before the run starts, and no wave file is left behind.
TEST_F(WaveformTest, ASaveFilePathThatCannotBeWrittenIsRefusedBeforeTheRun) {
  fs::create_directory(dir_ / "w.gtkw");
  try {
    Waveform w(options("w.vcd"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write the GTKWave save file"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "w.vcd"));
}

TEST_F(WaveformTest, MisuseByAModuleIsALogicError) {
  uint32_t v = 0, u = 0;
  const WaveEnum one{"e", {{0, "a"}}}, other{"e", {{0, "b"}}};
  Waveform w(options("m.vcd"));
  w.add("gpu.sm0.v", v, 32, &one);
  EXPECT_THROW(w.add("gpu.sm0.v", u), std::logic_error);              // twice
  EXPECT_THROW(w.add("noscope", u), std::logic_error);                // no scope
  EXPECT_THROW(w.add("gpu.sm0.u", u, 0), std::logic_error);           // no width
  EXPECT_THROW(w.add("gpu.sm0.u", u, 32, &other), std::logic_error);  // enum e with other names
  w.sample(0);
  EXPECT_THROW(w.add("gpu.sm0.late", u), std::logic_error);
}

TEST_F(WaveformTest, SelectedSms) {
  WaveformOptions o = options("sms.vcd");
  Waveform all(o);
  EXPECT_TRUE(all.traces_sm(0));
  EXPECT_TRUE(all.traces_sm(14));
  o.path = (dir_ / "sms2.vcd").string();
  o.sms = {0, 3};
  Waveform some(o);
  EXPECT_TRUE(some.traces_sm(3));
  EXPECT_FALSE(some.traces_sm(1));
}

}  // namespace
}  // namespace smshare
