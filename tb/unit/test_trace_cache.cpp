// The decoded-trace cache (hw/frontend/trace_cache.hpp): built on first use,
// reused, rebuilt when the trace, the version or the options change or the
// cache is damaged, decoded in memory when it cannot be written, and the
// instruction streams identical to what the text parser gives.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/common/sha256.hpp"
#include "hw/frontend/trace_cache.hpp"
#include "hw/frontend/trace_kernel.hpp"
#include "tb/common/profile_test_support.hpp"
#include "tb/common/temp_dir.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces";

// Sets SMSHARE_TRACE_CACHE_DIR (or unsets it for "") for one test.
class CacheDirSetting {
 public:
  explicit CacheDirSetting(const std::string& dir) {
    const char* old = std::getenv("SMSHARE_TRACE_CACHE_DIR");
    if (old) old_ = old;
    had_ = old != nullptr;
    if (dir.empty()) unsetenv("SMSHARE_TRACE_CACHE_DIR");
    else setenv("SMSHARE_TRACE_CACHE_DIR", dir.c_str(), 1);
  }
  ~CacheDirSetting() {
    if (had_) setenv("SMSHARE_TRACE_CACHE_DIR", old_.c_str(), 1);
    else unsetenv("SMSHARE_TRACE_CACHE_DIR");
  }

 private:
  std::string old_;
  bool had_ = false;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

ino_t inode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_ino;
}

// Sets the file's modification time `seconds_ago` seconds into the past (a
// trace written by the test is otherwise too recent for its time to vouch
// for it, and the cache would check its hash every time).
void age(const std::string& path, int seconds_ago) {
  timespec times[2];
  clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds_ago;
  times[1] = times[0];
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

// Replaces the file's bytes and gives it back its times: a trace whose stamp
// says nothing changed, so only what is read (or not) tells the difference.
void rewrite_keeping_times(const std::string& path, const std::string& bytes) {
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  write_bytes(path, bytes);
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

// Copies a trace of tb/traces into `dir`, aged by an hour.
std::string copy_trace(const TempDir& dir, const std::string& relative) {
  const std::string path = dir.path() + "/" + std::filesystem::path(relative).filename().string();
  write_bytes(path, read_bytes(kTraces + "/" + relative));
  age(path, 3600);
  return path;
}

// Every stream of the kernel, CTA by CTA, warp by warp.
std::vector<std::vector<WarpInstruction>> all_streams(TraceKernel& k) {
  std::vector<std::vector<WarpInstruction>> out;
  for (uint32_t c = 0; c < k.resources().grid_ctas; ++c)
    for (uint32_t w = 0; w < k.resources().warps_per_cta(); ++w) out.push_back(tb::drain(k, c, w));
  return out;
}

void expect_same_instruction(const WarpInstruction& a, const WarpInstruction& b, bool addresses,
                             const std::string& where) {
  EXPECT_EQ(a.op, b.op) << where;
  EXPECT_EQ(a.pc, b.pc) << where;
  EXPECT_EQ(a.active_mask, b.active_mask) << where;
  EXPECT_EQ(a.num_dst, b.num_dst) << where;
  EXPECT_EQ(a.num_src, b.num_src) << where;
  EXPECT_EQ(a.dst, b.dst) << where;
  EXPECT_EQ(a.src, b.src) << where;
  EXPECT_EQ(a.access_bytes, b.access_bytes) << where;
  EXPECT_EQ(a.phase, b.phase) << where;
  if (addresses) {
    // Every lane, active or not, as each says it (one may give a run).
    for (unsigned lane = 0; lane < kWarpLanes; ++lane)
      EXPECT_EQ(a.lane_address(lane), b.lane_address(lane)) << where << " lane " << lane;
  }
}

void expect_same_streams(TraceKernel& a, TraceKernel& b) {
  const auto sa = all_streams(a), sb = all_streams(b);
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    ASSERT_EQ(sa[i].size(), sb[i].size()) << "warp stream " << i;
    for (size_t j = 0; j < sa[i].size(); ++j)
      expect_same_instruction(sa[i][j], sb[i][j], true, "warp stream " + std::to_string(i) + " #" + std::to_string(j));
  }
}

// One instruction line as TraceLineParser decodes it.
struct ParsedLine {
  WarpInstruction inst;
  bool addresses = false;
};

// The instruction lines of a trace file, per (linear CTA id, warp), decoded
// line by line with TraceLineParser: the reference the streams must match.
std::map<std::pair<uint64_t, uint32_t>, std::vector<ParsedLine>> parse_lines(const TraceKernel& k) {
  const TraceLineParser parser(k.path(), k.header(), k.opcode_table(), false);
  std::map<std::pair<uint64_t, uint32_t>, std::vector<ParsedLine>> out;
  std::ifstream in(k.path());
  std::string line;
  uint64_t cta = 0, no = 0;
  uint32_t warp = 0;
  bool body = false;
  while (std::getline(in, line)) {
    ++no;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const std::string word = line.substr(first, line.find_first_of(" =", first) - first);
    if (word == "#BEGIN_TB") body = true;
    if (!body || line[first] == '#' || line[first] == '-' || word == "insts" || word == "cluster") continue;
    unsigned x, y, z, w;
    if (std::sscanf(line.c_str() + first, "thread block = %u,%u,%u", &x, &y, &z) == 3) {
      cta = (uint64_t(z) * k.header().grid_dim[1] + y) * k.header().grid_dim[0] + x;
    } else if (std::sscanf(line.c_str() + first, "warp = %u", &w) == 1) {
      warp = w;
    } else {
      ParsedLine p;
      LineExtras extras;
      parser.parse(line.data(), line.data() + line.size(), no, p.inst, extras);
      p.addresses = extras.addresses;
      out[{cta, warp}].push_back(p);
    }
  }
  return out;
}

// Whether every lane's address (active or not) is lane 0's + lane * (lane 1's - lane 0's).
bool evenly_spaced(const WarpInstruction& inst) {
  const uint64_t step = inst.lane_address(1) - inst.lane_address(0);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane)
    if (inst.lane_address(lane) != inst.lane_address(0) + lane * step) return false;
  return true;
}

// The kernel streams exactly what the text parser decodes, each warp's
// early EXITs as Control (the phases come from the PCs, not the decoding).
void expect_streams_as_parsed(TraceKernel& k) {
  const auto reference = parse_lines(k);
  ASSERT_FALSE(reference.empty()) << k.path();
  for (const auto& [key, lines] : reference) {
    const auto stream = tb::drain(k, static_cast<uint32_t>(key.first), key.second);
    ASSERT_EQ(stream.size(), lines.size()) << k.path() << " CTA " << key.first << " warp " << key.second;
    for (size_t i = 0; i < lines.size(); ++i) {
      WarpInstruction expected = lines[i].inst;
      if (expected.op == OpClass::Exit && i + 1 < lines.size()) expected.op = OpClass::Control;
      expected.phase = stream[i].phase;
      const std::string where = k.path() + " CTA " + std::to_string(key.first) + " warp " +
                                std::to_string(key.second) + " line #" + std::to_string(i);
      expect_same_instruction(stream[i], expected, lines[i].addresses, where);
      // A full warp's run of addresses is streamed as one, and said to be.
      const bool run = lines[i].addresses && expected.active_mask == ~uint32_t{0} && evenly_spaced(expected);
      EXPECT_EQ(stream[i].lanes_evenly_spaced, run) << where;
    }
  }
}

// ------------------------------------------------------------------ tests

TEST(TraceCache, BuiltBesideTheTraceOnFirstUseAndReused) {
  TempDir dir;
  CacheDirSetting beside("");
  const std::string trace = copy_trace(dir, "generated_small/kernel-1.traceg");
  TraceKernel cold(trace, {}, {});
  EXPECT_EQ(cold.cache_path(), trace + ".smcache");
  const ino_t built = inode(trace + ".smcache");
  ASSERT_NE(built, 0u) << "no cache beside the trace";
  TraceKernel warm(trace, {}, {});
  EXPECT_EQ(warm.cache_path(), trace + ".smcache");
  EXPECT_EQ(inode(trace + ".smcache"), built) << "the cache was rebuilt instead of reused";
  expect_same_streams(cold, warm);
  EXPECT_EQ(warm.stats().instruction_lines, cold.stats().instruction_lines);
  EXPECT_EQ(warm.total_warp_instructions(), cold.total_warp_instructions());
  EXPECT_EQ(warm.resources().phase_names, cold.resources().phase_names);
}

// The proof that a second run does not parse the text: with the trace's
// bytes replaced by garbage of the same size and time, it still loads, from
// the cache alone.
TEST(TraceCache, ASecondLoadReadsTheCacheNotTheText) {
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");
  TraceKernel cold(trace, {}, {});
  rewrite_keeping_times(trace, std::string(read_bytes(trace).size(), '?'));
  TraceKernel warm(trace, {}, {});
  expect_same_streams(cold, warm);
  EXPECT_EQ(warm.header().kernel_name, cold.header().kernel_name);
}

// A sweep names its runs by the SHA-256 of their traces: a trace whose cache
// vouches for it is not hashed again (with its bytes swapped for others of
// the same size and time, the recorded hash is still given); otherwise, or
// from a damaged cache, the file is hashed.
TEST(TraceCache, TheTracesHashComesFromAValidCacheOrFromTheFile) {
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");
  const std::string original = read_bytes(trace);
  const std::string original_sha = sha256_hex(original);
  EXPECT_EQ(trace_file_sha256(trace), original_sha) << "no cache yet: the file's hash";

  TraceOptions alu;
  alu.unknown_opcode_as_alu = true;  // another decoder key: the trace's hash is the same
  TraceKernel built(trace, {}, alu);
  const std::string cache = built.cache_path();
  struct stat st {};
  ASSERT_EQ(::stat(trace.c_str(), &st), 0);
  const std::string other(original.size(), '?');
  write_bytes(trace, other);
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, trace.c_str(), times, 0), 0);
  EXPECT_EQ(trace_file_sha256(trace), original_sha) << "the trace was hashed although its cache vouches for it";

  age(trace, 1800);  // a new time: the stamp no longer vouches, the content decides
  EXPECT_EQ(trace_file_sha256(trace), sha256_hex(other));

  write_bytes(trace, original);
  ASSERT_EQ(utimensat(AT_FDCWD, trace.c_str(), times, 0), 0);
  std::string damaged = read_bytes(cache);
  damaged[40] = static_cast<char>(damaged[40] ^ 0x01);  // in the recorded SHA-256
  write_bytes(cache, damaged);
  EXPECT_EQ(trace_file_sha256(trace), original_sha) << "a damaged cache named the trace";

  write_bytes(trace, std::string(5, 'x'));  // in the recorded time, sized otherwise
  ASSERT_EQ(utimensat(AT_FDCWD, trace.c_str(), times, 0), 0);
  EXPECT_EQ(trace_file_sha256(trace), sha256_hex("xxxxx"));
}

// Without a cache (none built yet, or none writable) the file is hashed,
// once while it keeps its size and time: a sweep's plan names each of its
// runs by the hash, and N runs of one trace must not read it N times. Other
// bytes under the same stamp still give the first hash (it was not read
// again); a new time, or one too recent to vouch for the bytes, is hashed.
TEST(TraceCache, AnUncachedTraceIsHashedOnceWhileItsStampStays) {
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");  // an hour old: its time vouches
  const std::string original = read_bytes(trace);
  const std::string other(original.size(), '?');
  EXPECT_EQ(trace_file_sha256(trace), sha256_hex(original));
  rewrite_keeping_times(trace, other);
  for (int run = 2; run <= 4; ++run)
    EXPECT_EQ(trace_file_sha256(trace), sha256_hex(original)) << "run " << run << " hashed the trace again";

  age(trace, 1800);  // a new time: the remembered hash is not the trace's any more
  EXPECT_EQ(trace_file_sha256(trace), sha256_hex(other));

  age(trace, 0);  // a time of now may be shared by a rewrite of the same size: not remembered
  EXPECT_EQ(trace_file_sha256(trace), sha256_hex(other));
  rewrite_keeping_times(trace, original);
  EXPECT_EQ(trace_file_sha256(trace), sha256_hex(original)) << "a hash remembered under a time too recent to vouch";
}

TEST(TraceCache, RebuiltWhenTheTraceChanges) {
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");
  TraceKernel first(trace, {}, {});
  const std::string cache = first.cache_path();
  const ino_t built = inode(cache);
  const auto before = tb::drain(first, 0, 0);
  ASSERT_FALSE(before.empty());

  // The same bytes with a new time: the hash vouches for them, the cache is
  // kept and only its stamp refreshed.
  const std::string bytes_before = read_bytes(cache);
  age(trace, 1800);
  TraceKernel touched(trace, {}, {});
  EXPECT_EQ(inode(cache), built) << "rebuilt although only the time changed";
  EXPECT_NE(read_bytes(cache), bytes_before) << "the stamp was not refreshed";
  expect_same_streams(first, touched);

  // Other bytes of the same size: rebuilt, and the stream shows the change.
  std::string text = read_bytes(trace);
  const size_t at = text.find(" FFMA ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, " FADD ");
  write_bytes(trace, text);
  age(trace, 900);
  TraceKernel changed(trace, {}, {});
  EXPECT_NE(inode(cache), built) << "a stale cache was used";
  expect_streams_as_parsed(changed);
}

TEST(TraceCache, RebuiltOnOtherVersionOrDamage) {
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  const std::string trace = copy_trace(dir, "generated_small/kernel-1.traceg");
  TraceKernel reference(trace, {}, {});
  const std::string cache = reference.cache_path();
  const std::string good = read_bytes(cache);
  ASSERT_GT(good.size(), 4096u);

  struct Damage {
    const char* what;
    std::string bytes;
  };
  std::string other_version = good;
  other_version[8] = static_cast<char>(other_version[8] + 1);  // the version follows the 8-byte magic
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
  std::string flipped_header = good;
  flipped_header[40] = static_cast<char>(flipped_header[40] ^ 0x01);  // in the trace's SHA-256
  // Two different words of the payload 64 bytes apart, which the checksum
  // adds into the same lane, traded places: the lane's sum stays, the sum of
  // its running sums does not.
  std::string traded = good;
  size_t at = good.size() / 2 / 8 * 8;
  while (at + 72 <= good.size() && good.compare(at, 8, good, at + 64, 8) == 0) at += 8;
  ASSERT_LE(at + 72, good.size()) << "no two different words 64 bytes apart";
  const auto word = [&](size_t offset) { return traded.begin() + static_cast<std::ptrdiff_t>(offset); };
  std::swap_ranges(word(at), word(at + 8), word(at + 64));
  std::string last_byte = good;  // where a payload that is not whole steps ends
  last_byte.back() = static_cast<char>(last_byte.back() ^ 0x01);
  const std::vector<Damage> damages = {{"other version", other_version},
                                       {"a flipped payload bit", flipped},
                                       {"two payload words traded places", traded},
                                       {"a flipped last byte", last_byte},
                                       {"a flipped header bit", flipped_header},
                                       {"truncated", good.substr(0, good.size() / 2)},
                                       {"empty", ""},
                                       {"not a cache", std::string(300, 'x')}};
  for (const auto& d : damages) {
    write_bytes(cache, d.bytes);
    const ino_t damaged = inode(cache);
    TraceKernel k(trace, {}, {});
    EXPECT_NE(inode(cache), damaged) << d.what << ": not rebuilt";
    EXPECT_EQ(read_bytes(cache), good) << d.what << ": rebuilt differently";
    expect_same_streams(reference, k);
  }
}

TEST(TraceCache, OptionsAreKeyed) {
  // A cache decoded with unknown opcodes as IntAlu does not stand for the
  // default reading, which rejects the line, naming file, line and key.
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  std::string text = read_bytes(kTraces + "/handwritten/kernel-1.traceg");
  const size_t at = text.find(" FFMA ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, " QQQQ ");
  const std::string trace = dir.write("kernel-1.traceg", text);
  age(trace, 3600);
  TraceOptions alu;
  alu.unknown_opcode_as_alu = true;
  TraceKernel lenient(trace, {}, alu);
  EXPECT_EQ(lenient.stats().unknown_opcodes.at("QQQQ"), 1u);
  TraceKernel again(trace, {}, alu);
  EXPECT_EQ(again.stats().unknown_opcodes.at("QQQQ"), 1u);
  try {
    TraceKernel strict(trace, {}, {});
    FAIL() << "the unknown opcode was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel-1.traceg:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("key 'opcode': unknown opcode 'QQQQ'"), std::string::npos) << e.what();
  }
}

// Written as an ordinary file is (hw/common/atomic_file.hpp): 0666 less the
// umask, so a group-writable trace folder gets a group-writable cache, and
// no temporary is left beside it.
TEST(TraceCache, TheCacheFileHasTheModeTheUmaskGivesAndNoTemporaryRemains) {
  TempDir dir;
  CacheDirSetting beside("");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");
  const mode_t old_mask = ::umask(002);
  TraceKernel cold(trace, {}, {});
  ::umask(old_mask);
  ASSERT_EQ(cold.cache_path(), trace + ".smcache");
  struct stat st {};
  ASSERT_EQ(::stat(cold.cache_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0664u);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
}

// The trace is stamped before it is decoded and again after it is hashed
// (store() makes its temporary first, to hash only for a cache it can
// write): a trace rewritten since the first stamp is not cached, and the
// temporary goes. (A rewrite between the second stamp and the hash, which
// the old order allowed, cannot be staged from here.)
TEST(TraceCache, ATraceThatChangedWhileItWasReadIsNotCached) {
  TempDir dir;
  CacheDirSetting beside("");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");
  const TraceCacheFile file(trace, trace_decoder_key(false));
  TraceFileStamp before = file.trace_stamp();
  before.mtime_ns -= 1'000'000'000;  // the trace has been written since
  const auto decoded = file.store(DecodedTrace::Contents(), before);
  EXPECT_EQ(decoded->cache_path(), "");
  EXPECT_FALSE(std::filesystem::exists(file.path())) << "cached although the trace changed";
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
  // The same stamp as the trace's: written.
  EXPECT_EQ(file.store(DecodedTrace::Contents(), file.trace_stamp())->cache_path(), file.path());
  EXPECT_TRUE(std::filesystem::exists(file.path()));
}

TEST(TraceCache, UnwritableFolderDecodesInMemoryAndSaysSoOnce) {
  TempDir dir;
  // A folder that cannot be made (its parent is a file): no cache can be
  // written there, whoever runs the test (root writes into read-only folders).
  const std::string blocker = dir.write("not-a-folder", "x");
  CacheDirSetting cache_dir(blocker + "/cache");
  const std::string trace = copy_trace(dir, "handwritten/kernel-1.traceg");
  testing::internal::CaptureStderr();
  TraceKernel a(trace, {}, {});
  TraceKernel b(trace, {}, {});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(a.cache_path(), "");
  EXPECT_NE(err.find("cannot write the decoded-trace cache " + blocker + "/cache/"), std::string::npos) << err;
  EXPECT_NE(err.find("decoding traces in memory instead"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  expect_streams_as_parsed(a);
  expect_same_streams(a, b);
}

// Every trace of tb/traces streams, from the cache it builds and from the
// cache it then reuses, exactly what the text parser decodes: all three
// address formats, early exits, line numbers, multi-kernel lists.
TEST(TraceCache, StreamsAreThoseOfTheTextParserColdAndWarm) {
  TempDir dir;
  CacheDirSetting cache_dir(dir.path() + "/cache");
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kTraces)) {
    if (entry.path().extension() != ".traceg") continue;
    const std::string relative = std::filesystem::relative(entry.path(), kTraces).string();
    const std::string copy = dir.path() + "/" + std::to_string(files++) + ".traceg";
    write_bytes(copy, read_bytes(entry.path().string()));
    age(copy, 3600);
    TraceKernel cold(copy, {}, {});
    ASSERT_NE(cold.cache_path(), "") << relative;
    const ino_t built = inode(cold.cache_path());
    expect_streams_as_parsed(cold);
    TraceKernel warm(copy, {}, {});
    EXPECT_EQ(inode(warm.cache_path()), built) << relative << ": not reused";
    expect_streams_as_parsed(warm);
  }
  EXPECT_GT(files, 20u);
}

}  // namespace
}  // namespace smshare
