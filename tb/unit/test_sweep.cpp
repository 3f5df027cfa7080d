// Sweeps in plain C++: the spec's expansion (products, bundles, grids, zips,
// exclusions) and its errors, the run store's outcome records and the
// flattening of reports into columns, and the progress line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "hw/common/error.hpp"
#include "hw/sweep/sweep_progress.hpp"
#include "hw/sweep/sweep_spec.hpp"
#include "hw/sweep/sweep_store.hpp"

namespace smshare {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------------ specs

class SweepSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smshare_spec_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& yaml, const std::string& name = "spec.yaml") {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << yaml;
    return path;
  }
  // The error `yaml` gets, or "" if it loads.
  std::string error_of(const std::string& yaml) {
    try {
      load_sweep_spec(write(yaml));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  static std::string args(const SweepRun& r) {
    std::string s;
    for (const auto& a : r.run_args) s += (s.empty() ? "" : " ") + a;
    return s;
  }

  fs::path dir_;
};

TEST_F(SweepSpecTest, AProductVariesTheLastAxisFastestAndBuildsRunArguments) {
  const SweepSpec spec = load_sweep_spec(write(R"(
axes:
  config: kepler
  kernel: [hotspot, sgemm]
  scheduler: [lrr, gto, owf]
  set: {gpu.num_sms: 2}
  ctas: 8
)"));
  EXPECT_EQ(spec.name, "spec");  // the file's stem
  ASSERT_EQ(spec.runs.size(), 6u);
  EXPECT_EQ(spec.columns, (std::vector<std::string>{"config", "kernel", "scheduler", "set.gpu.num_sms", "ctas"}));
  EXPECT_EQ(spec.runs[0].describe(), "config=kepler kernel=hotspot scheduler=lrr set.gpu.num_sms=2 ctas=8");
  EXPECT_EQ(spec.runs[1].describe(), "config=kepler kernel=hotspot scheduler=gto set.gpu.num_sms=2 ctas=8");
  EXPECT_EQ(spec.runs[3].describe(), "config=kepler kernel=sgemm scheduler=lrr set.gpu.num_sms=2 ctas=8");
  EXPECT_EQ(args(spec.runs[5]), "run --config kepler --kernel sgemm --scheduler owf --ctas 8 --set gpu.num_sms=2");
  EXPECT_EQ(spec.outputs, (std::vector<std::string>{"cycles", "ipc"}));
}

TEST_F(SweepSpecTest, ABundleSetsSeveralParametersAndOverridesThePlainAxes) {
  const SweepSpec spec = load_sweep_spec(write(R"(
name: fig
axes:
  kernel: hotspot
  mechanism: regshare
  variant:
    Unshared: {mechanism: baseline, scheduler: lrr}
    Shared-OWF: {sharing: 0.9, scheduler: owf, set: {frontend.reorder_registers: true}}
)"));
  ASSERT_EQ(spec.runs.size(), 2u);
  EXPECT_EQ(spec.name, "fig");
  EXPECT_EQ(args(spec.runs[0]), "run --kernel hotspot --mechanism baseline --scheduler lrr");
  EXPECT_EQ(args(spec.runs[1]),
            "run --kernel hotspot --mechanism regshare --sharing 0.9 --scheduler owf --set frontend.reorder_registers=true");
  EXPECT_EQ(spec.runs[1].columns.back(), (std::pair<std::string, std::string>{"variant", "Shared-OWF"}));
}

TEST_F(SweepSpecTest, ConstantWorkIsARunSettingLikeAnyOther) {
  // Zorua Sec. 5.2's threads-per-block sweep: the grid keeps the work
  // constant (frontend.constant_work; the run scales --ctas itself).
  const SweepSpec spec = load_sweep_spec(write(R"(
axes:
  kernel: hotspot
  threads_per_cta: [128, 512]
  set: {frontend.constant_work: true}
)"));
  ASSERT_EQ(spec.runs.size(), 2u);
  EXPECT_EQ(args(spec.runs[0]), "run --kernel hotspot --threads-per-cta 128 --set frontend.constant_work=true");
  EXPECT_EQ(args(spec.runs[1]), "run --kernel hotspot --threads-per-cta 512 --set frontend.constant_work=true");
}

TEST_F(SweepSpecTest, GridsAreAUnionAndReplaceTheCommonAxes) {
  const SweepSpec spec = load_sweep_spec(write(R"(
axes: {config: jatala-fermi, kernel: x, sharing: [0.5, 0.9]}
grids:
  - {kernel: [backprop, btree], mechanism: regshare}
  - {kernel: conv1, mechanism: spmshare}
)"));
  ASSERT_EQ(spec.runs.size(), 6u);
  EXPECT_EQ(spec.columns, (std::vector<std::string>{"grid", "config", "kernel", "sharing", "mechanism"}));
  EXPECT_EQ(spec.runs[0].describe(), "grid=0 config=jatala-fermi kernel=backprop sharing=0.5 mechanism=regshare");
  EXPECT_EQ(spec.runs[5].describe(), "grid=1 config=jatala-fermi kernel=conv1 sharing=0.9 mechanism=spmshare");
}

TEST_F(SweepSpecTest, AZipVariesItsAxesTogetherAndExclusionsDropRuns) {
  const SweepSpec spec = load_sweep_spec(write(R"(
axes:
  kernel: [hotspot, sgemm, lbm]
  ctas: [30, 40, 50]
  mechanism: [baseline, regshare]
zip: [[kernel, ctas]]
exclude:
  - {kernel: lbm, mechanism: regshare}
  - {ctas: 40}
)"));
  std::vector<std::string> seen;
  for (const auto& r : spec.runs) seen.push_back(r.describe());
  EXPECT_EQ(seen, (std::vector<std::string>{"kernel=hotspot ctas=30 mechanism=baseline",
                                            "kernel=hotspot ctas=30 mechanism=regshare",
                                            "kernel=lbm ctas=50 mechanism=baseline"}));
}

TEST_F(SweepSpecTest, AnExclusionMatchesAParameterABundleSets) {
  const SweepSpec spec = load_sweep_spec(write(R"(
axes:
  sharing: [0.5, 0.9]
  variant: {off: {mechanism: baseline}, on: {mechanism: regshare}}
exclude: [{mechanism: baseline, sharing: 0.9}]
)"));
  ASSERT_EQ(spec.runs.size(), 3u);
  EXPECT_EQ(spec.runs[0].describe(), "sharing=0.5 variant=off");
}

TEST_F(SweepSpecTest, PathsAreRelativeToTheSpecFolderAndNamesStayNames) {
  const SweepSpec spec = load_sweep_spec(write("axes: {config: gpus/my.yaml, kernel: [hotspot, k.yaml]}"));
  const std::string folder = fs::absolute(dir_).lexically_normal().string();
  EXPECT_EQ(spec.runs[0].run_args[2], folder + "/gpus/my.yaml");
  EXPECT_EQ(spec.runs[0].run_args[4], "hotspot");
  EXPECT_EQ(spec.runs[1].run_args[4], folder + "/k.yaml");
}

// host_threads is a setting of every run, not an axis: no column, and each
// run's arguments end with it (a report is the same for every N).
TEST_F(SweepSpecTest, HostThreadsGoToEveryRunAndAreNoColumn) {
  const SweepSpec spec = load_sweep_spec(write(R"(
host_threads: 4
axes:
  kernel: [hotspot, sgemm]
  set: {gpu.num_sms: 2}
)"));
  EXPECT_EQ(spec.host_threads, 4u);
  EXPECT_EQ(spec.columns, (std::vector<std::string>{"kernel", "set.gpu.num_sms"}));
  ASSERT_EQ(spec.runs.size(), 2u);
  EXPECT_EQ(args(spec.runs[0]), "run --kernel hotspot --set gpu.num_sms=2 --host-threads 4");
  EXPECT_EQ(args(spec.runs[1]), "run --kernel sgemm --set gpu.num_sms=2 --host-threads 4");
  const SweepSpec one = load_sweep_spec(write("axes: {kernel: hotspot}\nhost_threads: 1\n"));
  EXPECT_EQ(one.host_threads, 1u);
  EXPECT_EQ(args(one.runs[0]), "run --kernel hotspot") << "1 is the default: nothing to add";
}

TEST_F(SweepSpecTest, BadSpecsAreRefusedNamingTheFileAndKey) {
  const std::string file = (dir_ / "spec.yaml").string();
  const struct {
    const char* yaml;
    const char* key;
    const char* says;
  } cases[] = {
      {"axes: {kernel: hotspot}\nplots: []", "'plots'", "allowed: name, description, axes"},
      {"name: hotspot\n", "'axes'", "missing"},
      {"axes: {kernal: hotspot}", "'axes.kernal'", "not an axis; axes: config, kernel, trace"},
      {"axes: {kernel: []}", "'axes.kernel'", "non-empty list"},
      {"axes: {kernel: [hotspot, hotspot]}", "'axes.kernel'", "lists 'hotspot' twice"},
      {"axes: {kernel: [[a]]}", "'axes.kernel[0]'", "single value"},
      {"axes: {set: 3}", "'axes.set'", "mapping of --set keys"},
      {"axes: {v: {a: {mechanizm: x}}}", "'axes.v.a.mechanizm'", "not a setting"},
      {"axes: {kernel: [a, b], ctas: [1]}\nzip: [[kernel, ctas]]", "'zip[0]'", "equal lengths"},
      {"axes: {kernel: [a, b]}\nzip: [[kernel, seeds]]", "'zip[0]'", "'seeds' is not an axis"},
      {"axes: {kernel: [a, b]}\nexclude: [{kernl: a}]", "'exclude[0].kernl'", "not an axis or parameter"},
      {"axes: {kernel: a}\nexclude: [{kernel: a}]", "'exclude'", "expands to no run"},
      {"axes: {kernel: a, trace: t}", "'axes'", "both a kernel and a trace"},
      {"name: 'my sweep'\naxes: {kernel: a}", "'name'", "letters, digits"},
      {"axes: {kernel: a}\ngrids: {kernel: b}", "'grids'", "non-empty list"},
      {"axes: {kernel: a}\nplot: {metric: ipc}", "'plot'", "list of plots"},
      {"axes: {a: {x: {mechanism: m}}, b: {y: {mechanism: n}}}", "'axes.b.y.mechanism'", "also set by bundle axis 'a'"},
      {"axes: {kernel: a}\nhost_threads: 0", "'host_threads'", "'0' is not a number of host threads (allowed: 1 to 256)"},
      {"axes: {kernel: a}\nhost_threads: 257", "'host_threads'", "(allowed: 1 to 256)"},
      {"axes: {kernel: a}\nhost_threads: two", "'host_threads'", "'two' is not a number of host threads"},
      {"axes: {kernel: a}\nhost_threads: 2.5", "'host_threads'", "'2.5' is not a number of host threads"},
      // parse_host_threads' rule, the one of --host-threads: decimal digits only.
      {"axes: {kernel: a}\nhost_threads: +2", "'host_threads'", "'+2' is not a number of host threads (allowed: 1 to 256)"},
      {"axes: {kernel: a}\nhost_threads: 2x", "'host_threads'", "'2x' is not a number of host threads (allowed: 1 to 256)"},
      {"axes: {kernel: a}\nhost_threads: ''", "'host_threads'", "'' is not a number of host threads (allowed: 1 to 256)"},
      {"axes: {kernel: a}\nhost_threads: [2, 4]", "'host_threads'", "single value"},
      {"axes: {kernel: a, host_threads: [1, 2]}", "'axes.host_threads'", "not an axis"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.yaml);
    EXPECT_NE(e.find(file), std::string::npos) << c.yaml << " -> " << e;
    EXPECT_NE(e.find(c.key), std::string::npos) << c.yaml << " -> " << e;
    EXPECT_NE(e.find(c.says), std::string::npos) << c.yaml << " -> " << e;
  }
  EXPECT_NE(error_of("axes: [").find("malformed YAML"), std::string::npos);
}

// ------------------------------------------------------------------ the store

TEST(SweepStore, FlattensScalarsWithDotsAndLeavesListsOut) {
  const auto flat = flatten_scalars(nlohmann::json::parse(
      R"({"cycles": 10, "counters": {"l1": {"misses": 3}, "per_bank": [1, 2]}, "name": "a", "deadlock": null})"));
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_EQ(flat[0].first, "counters.l1.misses");
  EXPECT_EQ(flat[0].second, 3);
  EXPECT_EQ(flat[1].first, "cycles");
  EXPECT_EQ(flat[2].first, "name");
}

TEST(SweepStore, CsvFieldsAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(csv_field("hotspot"), "hotspot");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(SweepStore, ARunIsDoneOnlyWhenItsReportIsPublished) {
  const std::string out = (fs::temp_directory_path() / ("smshare_store_" + std::to_string(getpid()))).string();
  SweepStore store(out);
  store.prepare_run("ok", {{"run_args", {"run"}}});
  store.prepare_run("bad", {{"run_args", {"run"}}});
  store.prepare_run("dead", {{"run_args", {"run"}}});
  EXPECT_EQ(store.record("ok").status, RunStatus::Pending);

  std::ofstream(report_tmp_path(store.run_dir("ok"))) << "{\"cycles\": 5}";
  EXPECT_FALSE(store.done("ok"));  // a report being written is not a result
  finish_run(store.run_dir("ok"), 0, 1.5, "local");
  EXPECT_TRUE(store.done("ok"));
  EXPECT_FALSE(fs::exists(report_tmp_path(store.run_dir("ok"))));
  EXPECT_EQ(store.record("ok").status, RunStatus::Ok);
  EXPECT_EQ(store.record("ok").backend, "local");

  std::ofstream(report_tmp_path(store.run_dir("bad"))) << "{";  // half a report, then exit 4
  finish_run(store.run_dir("bad"), 4, 0.1, "slurm");
  EXPECT_FALSE(store.done("bad"));
  EXPECT_EQ(store.record("bad").status, RunStatus::Failed);
  EXPECT_EQ(*store.record("bad").exit_code, 4);

  std::ofstream(report_tmp_path(store.run_dir("dead"))) << "{\"deadlock\": {}}";
  finish_run(store.run_dir("dead"), 3, 0.1, "local");
  EXPECT_EQ(store.record("dead").status, RunStatus::Deadlock);

  store.forget("ok");
  EXPECT_EQ(store.record("ok").status, RunStatus::Pending);
  fs::remove_all(out);
}

// ------------------------------------------------------------------ progress

TEST(SweepProgress, ATerminalGetsOneLineRedrawnAndALogALinePerRun) {
  std::ostringstream tty, log;
  SweepProgress on_tty(tty, true, "s", 4), on_log(log, false, "s", 4);
  on_tty.finished("ok", "kernel=a", 1.0, 10.0, 2);
  on_log.finished("ok", "kernel=a", 1.0, 10.0, 2);
  EXPECT_EQ(on_tty.line(10.0, 2), "1/4 done, 2 running, 0:10 elapsed, ETA 0:30");
  EXPECT_EQ(tty.str(), "\rsweep s: 1/4 done, 2 running, 0:10 elapsed, ETA 0:30");
  EXPECT_EQ(log.str(), "sweep s: [1/4] ok kernel=a (1.0 s)\n");
  on_tty.tick(10.1, 2);  // within a quarter second: not redrawn
  EXPECT_EQ(tty.str().find('\r', 1), std::string::npos);
  on_tty.finished("failed", "kernel=b", 1.0, 20.0, 1);
  EXPECT_NE(tty.str().find("sweep s: failed: kernel=b\n"), std::string::npos);  // a failure stays on screen
  EXPECT_EQ(on_tty.failed(), 1u);
  EXPECT_EQ(SweepProgress::clock(3723), "1:02:03");
}

}  // namespace
}  // namespace smshare
