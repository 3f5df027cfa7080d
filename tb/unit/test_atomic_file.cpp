// The atomic file writer (hw/common/atomic_file.*): writers of one path do not
// share a temporary, the file's mode is what the umask makes of 0666, and a
// failed write leaves the old file as it was and no temporary behind.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hw/common/atomic_file.hpp"
#include "hw/common/error.hpp"
#include "tb/common/temp_dir.hpp"

namespace smshare {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Sets the process umask for a scope.
class UmaskSetting {
 public:
  explicit UmaskSetting(mode_t mask) : old_(::umask(mask)) {}
  ~UmaskSetting() { ::umask(old_); }

 private:
  mode_t old_;
};

TEST(AtomicFile, TwoWritersOfOnePathEachHaveTheirOwnTemporaryAndTheLastRenameWins) {
  TempDir dir;
  const std::string path = dir.path() + "/status.json";
  AtomicFileWrite first(path);
  AtomicFileWrite second(path);
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_NE(first.temporary_path(), second.temporary_path());
  EXPECT_EQ(fs::path(first.temporary_path()).parent_path(), fs::path(path).parent_path())
      << "a temporary elsewhere could not be renamed over the file (another file system)";
  ASSERT_TRUE(second.commit("second\n")) << second.error();
  ASSERT_TRUE(first.commit("first\n")) << first.error();
  EXPECT_EQ(read_all(path), "first\n");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"status.json"});
}

TEST(AtomicFile, WritersOnThreadsNeverTearTheFile) {
  TempDir dir;
  const std::string path = dir.path() + "/results.csv";
  const std::string a(100000, 'a'), b(50000, 'b');
  std::atomic<int> failures{0};
  auto writer = [&](const std::string& content) {
    for (int i = 0; i < 300; ++i) {
      try {
        write_file_atomically(path, content);
      } catch (const InputError&) {
        ++failures;  // e.g. the other writer renamed a shared temporary away first
      }
    }
  };
  std::thread ta(writer, a), tb(writer, b);
  for (int i = 0; i < 200; ++i) {
    const std::string seen = read_all(path);
    if (seen.empty()) continue;  // not written yet
    EXPECT_TRUE(seen == a || seen == b) << "a torn file of " << seen.size() << " bytes";
  }
  ta.join();
  tb.join();
  EXPECT_EQ(failures, 0);
  const std::string last = read_all(path);
  EXPECT_TRUE(last == a || last == b);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"results.csv"});
}

TEST(AtomicFile, TheModeIsWhatTheUmaskMakesOf0666) {
  TempDir dir;
  const std::string path = dir.path() + "/request.json";
  {
    UmaskSetting group_writable(002);  // a shared sweep folder on a cluster
    write_file_atomically(path, "{}\n");
  }
  EXPECT_EQ(mode_of(path), 0664u);
  {
    UmaskSetting private_files(077);
    write_file_atomically(path, "{}\n");  // a replacement takes the new umask too
  }
  EXPECT_EQ(mode_of(path), 0600u);
}

TEST(AtomicFile, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  const std::string path = dir.path() + "/results.json";
  write_file_atomically(path, "old\n");
  // A file-size limit makes write() fail part way (EFBIG) once the
  // temporary exists: the failure after creation is the one that could
  // leave a temporary or half a file behind.
  struct rlimit old_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  AtomicFileWrite out(path);
  const bool committed = out.commit(std::string(10000, 'n'));
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(committed);
  EXPECT_NE(out.error().find("cannot write: "), std::string::npos) << out.error();
  EXPECT_EQ(read_all(path), "old\n");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"results.json"});
}

TEST(AtomicFile, AFolderThatCannotHoldTheFileIsAnErrorNamingThePath) {
  TempDir dir;
  // A "folder" that is a file: fails for root too (root writes into read-only folders).
  const std::string blocker = dir.write("not-a-folder", "x");
  const std::string path = blocker + "/spec.yaml";
  AtomicFileWrite out(path);
  EXPECT_FALSE(out.ok());
  EXPECT_NE(out.error().find("cannot create a temporary file: "), std::string::npos) << out.error();
  EXPECT_FALSE(out.commit("x"));
  try {
    write_file_atomically(path, "x");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot be written (", 0), 0u) << e.what();
  }
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"not-a-folder"});
}

TEST(AtomicFile, ARenameThatFailsRemovesTheTemporary) {
  TempDir dir;
  const std::string path = dir.path() + "/runs";
  fs::create_directories(path + "/abc");  // a non-empty folder cannot be replaced by a file
  AtomicFileWrite out(path);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_FALSE(out.commit("x"));
  EXPECT_NE(out.error().find("cannot rename into place: "), std::string::npos) << out.error();
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"runs"});
  EXPECT_TRUE(fs::is_directory(path + "/abc"));
}

}  // namespace
}  // namespace smshare
