// Which folders of hw/ each folder's sources may include. The simulator's
// blocks do not depend on the sweep driver or the top level: hw/frontend's
// decoded-trace cache once took its SHA-256 from hw/sweep/, which is why
// that hash now lives in hw/common/. A new dependency between folders is a
// design decision: make it here, on purpose.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace smshare {
namespace {

namespace fs = std::filesystem;

TEST(SourceLayering, EachFolderIncludesOnlyTheFoldersBelowIt) {
  const std::map<std::string, std::set<std::string>> may_include = {
      {"common", {"common"}},
      {"frontend", {"common", "frontend"}},
      {"mem", {"common", "mem"}},
      {"power", {"common", "power"}},
      {"sm", {"common", "frontend", "mem", "sm"}},
      {"sharing", {"common", "frontend", "power", "sm", "sharing"}},
      {"sweep", {"common", "sweep"}},
      {"top", {"common", "frontend", "mem", "power", "sharing", "sm", "sweep", "top"}},
  };
  const fs::path hw = fs::path(SMSHARE_SOURCE_DIR) / "hw";
  const std::regex include_line(R"(^\s*#\s*include\s*"hw/([^/"]+)/)");
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(hw)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".hpp") continue;
    const std::string folder = entry.path().lexically_relative(hw).begin()->string();
    const auto allowed = may_include.find(folder);
    ASSERT_NE(allowed, may_include.end()) << "hw/" << folder << " is not in this test's table";
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      EXPECT_TRUE(allowed->second.count(m[1].str()))
          << entry.path().string() << ":" << number << ": hw/" << folder << " includes hw/" << m[1].str();
    }
  }
  EXPECT_GT(files, 50u) << "found too few sources under " << hw;
}

}  // namespace
}  // namespace smshare
