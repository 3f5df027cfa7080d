#include "hw/frontend/trace_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <type_traits>

#include "hw/common/atomic_file.hpp"
#include "hw/common/error.hpp"
#include "hw/common/file_mapping.hpp"
#include "hw/common/prefetch.hpp"
#include "hw/common/sha256.hpp"
#include "hw/frontend/trace_opcodes.hpp"
#include "hw/frontend/trace_phases.hpp"

namespace smshare {
namespace {

// ---------------------------------------------------------------- records

// How a record's lane addresses follow it in the stream.
enum class AddressForm : uint8_t {
  None = 0,    // the line had none: WarpInstruction::addr is left as it was
  Stride = 1,  // two words, base and stride: the k-th active lane has base + k * stride
  List = 2,    // one word per active lane, in lane order
};

// One instruction line: the bytes of its WarpInstruction up to the lane
// addresses, as the SM reads them, so that a record decodes by one copy.
// The phase field, which the kernel sets as the warp streams (its phases are
// derived after decoding), holds the record's AddressForm instead; the
// padding after it is zero, so that a cache's bytes are decided by the
// trace. Inactive lanes' addresses are 0, as the parser gives them.
constexpr size_t kRecordBytes = offsetof(WarpInstruction, addr);
constexpr size_t kRecordFormAt = offsetof(WarpInstruction, phase);
static_assert(std::is_trivially_copyable_v<WarpInstruction> && kRecordBytes == 32 && kRecordBytes % 8 == 0,
              "a record is the 32 bytes of a WarpInstruction before its lane addresses, which stay 8-aligned");
static_assert(sizeof(WarpInstruction::phase) == 2 && kRecordFormAt + 2 <= kRecordBytes,
              "the form takes the phase's first byte");
// A cache written by one build is read by another: a change to the fields
// before the lane addresses changes the format, and must bump
// kTraceCacheVersion (and these offsets) or old caches would be misread.
static_assert(offsetof(WarpInstruction, op) == 0 && offsetof(WarpInstruction, num_dst) == 1 &&
                  offsetof(WarpInstruction, num_src) == 2 && offsetof(WarpInstruction, access_bytes) == 3 &&
                  offsetof(WarpInstruction, active_mask) == 4 && offsetof(WarpInstruction, pc) == 8 &&
                  offsetof(WarpInstruction, dst) == 16 && offsetof(WarpInstruction, src) == 20 &&
                  offsetof(WarpInstruction, phase) == 28 && kRecordBytes == 32,
              "WarpInstruction's head is trace-cache format 3: bump kTraceCacheVersion with its layout");
static_assert(sizeof(OpClass) == 1 && kNoReg == 0xFFFF, "format 3's op byte and absent-register value");

// ---------------------------------------------------------------- the file

constexpr char kMagic[8] = {'S', 'M', 'T', 'R', 'C', 'A', 'C', 'H'};

struct CacheHeader {
  char magic[8];
  uint32_t version;
  uint32_t record_bytes;
  uint64_t trace_size;
  int64_t trace_mtime_ns;   // 0: not trusted (written too soon after the trace was): check the hash
  char trace_sha256[64];    // hex, of the trace file's bytes
  char decoder_key[64];     // hex, trace_decoder_key()
  uint64_t file_bytes;      // the whole cache file
  uint64_t checksum;        // of the header (stamp time and checksum as 0) and the payload
  uint64_t header_text_bytes;
  uint64_t unknown_opcodes;
  uint64_t ctas;
  uint64_t warps;
  uint64_t stream_bytes;
};
static_assert(std::is_trivially_copyable_v<CacheHeader> && sizeof(CacheHeader) % 8 == 0, "a plain 8-aligned header");

// What a cache read finds wrong; load() turns it into its `why`.
struct CacheRejected {
  std::string why;
};

// 64-bit checksum over 8-byte words in eight lanes (word i in lane i mod 8),
// Fletcher's pair in each: the lane's sum, which any one changed word
// changes, and the sum of its running sums, which words that trade places
// change; the sixteen then mixed into one word with the length. (Sums
// modulo 2^64 miss some patterns a multiply-xorshift would see, such as the
// top bit flipped in two words of one lane an even number of steps apart:
// it is a check against a damaged file, not against a crafted one.) Adds only,
// four 128-bit vectors a step (GCC's vector extension; SSE2's 64-bit adds
// on x86-64): cheap enough to check on every load (0.25 host instructions a
// byte; a multiply and a shift per word cost 0.75), unlike the SHA-256 of the
// trace.
uint64_t checksum(const char* p, size_t n, uint64_t seed) {
  typedef uint64_t TwoWords __attribute__((vector_size(16)));
  constexpr size_t kVectors = 4, kStep = kVectors * sizeof(TwoWords);
  TwoWords sum[kVectors], sum_of_sums[kVectors];
  for (size_t v = 0; v < kVectors; ++v) {
    sum[v] = TwoWords{seed + 2 * v, seed + 2 * v + 1};
    sum_of_sums[v] = TwoWords{0, 0};
  }
  size_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    for (size_t v = 0; v < kVectors; ++v) {
      TwoWords w;
      std::memcpy(&w, p + i + v * sizeof w, sizeof w);
      sum[v] += w;
      sum_of_sums[v] += sum[v];
    }
  }
  // The last words, the last one padded with zeros (the length tells
  // padding from data), into the lanes they come next in.
  for (size_t k = 0; i < n; i += 8, ++k) {
    uint64_t w = 0;
    std::memcpy(&w, p + i, std::min<size_t>(8, n - i));
    sum[k / 2][k % 2] += w;
    sum_of_sums[k / 2][k % 2] += sum[k / 2][k % 2];
  }
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t r = n;
  for (const TwoWords* lanes : {sum, sum_of_sums})
    for (size_t v = 0; v < kVectors; ++v)
      for (int k = 0; k < 2; ++k) {
        r = (r ^ lanes[v][k]) * kMul;
        r ^= r >> 29;
      }
  return r;
}

uint64_t image_checksum(const CacheHeader& header, const char* payload, size_t payload_bytes) {
  CacheHeader h = header;
  h.trace_mtime_ns = 0;  // refreshed in place after a hash check
  h.checksum = 0;
  return checksum(payload, payload_bytes, checksum(reinterpret_cast<const char*>(&h), sizeof h, 0));
}

// Whether the image's payload (everything after its header, which records
// the trace's hash) is what its checksum says.
bool image_is_whole(const CacheHeader& h, const char* data) {
  return image_checksum(h, data + sizeof h, h.file_bytes - sizeof h) == h.checksum;
}

template <typename T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}
void pad8(std::string& out) { out.append((8 - out.size() % 8) % 8, '\0'); }

// Bounds-checked reading of the payload.
class Cursor {
 public:
  Cursor(const char* p, const char* end) : p_(p), end_(end) {}
  const char* bytes(uint64_t n, const char* what) {
    if (static_cast<uint64_t>(end_ - p_) < n) throw CacheRejected{std::string("corrupt (") + what + " runs past the end)"};
    const char* s = p_;
    p_ += n;
    return s;
  }
  template <typename T>
  T get(const char* what) {
    T v;
    std::memcpy(&v, bytes(sizeof v, what), sizeof v);
    return v;
  }
  void align8(const char* base) { bytes((8 - static_cast<uint64_t>(p_ - base) % 8) % 8, "padding"); }
  const char* position() const { return p_; }

 private:
  const char* p_;
  const char* end_;
};

std::string encode_image(const DecodedTrace::Contents& c, const TraceFileStamp& stamp, const std::string& trace_sha256,
                         const std::string& decoder_key) {
  CacheHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kTraceCacheVersion;
  h.record_bytes = kRecordBytes;
  h.trace_size = stamp.size;
  h.trace_mtime_ns = stamp.mtime_ns;
  std::memcpy(h.trace_sha256, trace_sha256.data(), sizeof h.trace_sha256);
  std::memcpy(h.decoder_key, decoder_key.data(), sizeof h.decoder_key);
  h.header_text_bytes = c.header_text.size();
  h.unknown_opcodes = c.stats.unknown_opcodes.size();
  h.ctas = c.cta_first_warp.size();
  h.warps = c.warps.size();
  h.stream_bytes = c.stream.size();

  std::string out(sizeof h, '\0');
  out.reserve(sizeof h + c.header_text.size() + c.stream.size() + 16 * c.warps.size() + 4 * c.cta_first_warp.size() +
              1024);
  out += c.header_text;
  pad8(out);
  const TraceStats& s = c.stats;
  put(out, s.instruction_lines);
  for (uint64_t n : s.per_class) put(out, n);
  put(out, s.dropped_registers);
  put(out, s.early_exits);
  put(out, uint64_t{s.ctas_in_file});
  put(out, uint64_t{s.warps_in_file});
  for (const auto& [mnemonic, lines] : s.unknown_opcodes) {
    put(out, lines);
    put(out, uint64_t{mnemonic.size()});
    out += mnemonic;
    pad8(out);
  }
  for (uint32_t w : c.cta_first_warp) put(out, w);
  pad8(out);
  for (const auto& w : c.warps) {
    put(out, w.offset);
    put(out, uint64_t{w.count});
  }
  out += c.stream;
  h.file_bytes = out.size();
  h.checksum = image_checksum(h, out.data() + sizeof h, out.size() - sizeof h);
  std::memcpy(&out[0], &h, sizeof h);
  return out;
}

CacheHeader read_header(const char* data, size_t size) {
  if (size < sizeof(CacheHeader)) throw CacheRejected{"corrupt (shorter than its header)"};
  CacheHeader h;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) throw CacheRejected{"not a decoded-trace cache"};
  if (h.version != kTraceCacheVersion || h.record_bytes != kRecordBytes)
    throw CacheRejected{"format version " + std::to_string(h.version) + ", this smshare reads version " +
                        std::to_string(kTraceCacheVersion)};
  if (h.file_bytes != size)
    throw CacheRejected{"corrupt (" + std::to_string(size) + " bytes, its header says " + std::to_string(h.file_bytes) +
                        "; truncated?)"};
  return h;
}

// Fills `c` (all but the stream) from the image and returns where the stream starts.
const char* decode_image(const char* data, const CacheHeader& h, DecodedTrace::Contents& c) {
  const char* end = data + h.file_bytes;
  if (!image_is_whole(h, data)) throw CacheRejected{"corrupt (checksum mismatch)"};
  Cursor cur(data + sizeof h, end);
  c.header_text.assign(cur.bytes(h.header_text_bytes, "header text"), h.header_text_bytes);
  cur.align8(data);
  TraceStats& s = c.stats;
  s.instruction_lines = cur.get<uint64_t>("stats");
  for (auto& n : s.per_class) n = cur.get<uint64_t>("stats");
  s.dropped_registers = cur.get<uint64_t>("stats");
  s.early_exits = cur.get<uint64_t>("stats");
  s.ctas_in_file = static_cast<uint32_t>(cur.get<uint64_t>("stats"));
  s.warps_in_file = static_cast<uint32_t>(cur.get<uint64_t>("stats"));
  for (uint64_t i = 0; i < h.unknown_opcodes; ++i) {
    const uint64_t lines = cur.get<uint64_t>("unknown opcodes");
    const uint64_t length = cur.get<uint64_t>("unknown opcodes");
    s.unknown_opcodes[std::string(cur.bytes(length, "unknown opcodes"), length)] = lines;
    cur.align8(data);
  }
  if (h.ctas > (h.file_bytes / 4) || h.warps > (h.file_bytes / 16)) throw CacheRejected{"corrupt (index sizes)"};
  c.cta_first_warp.resize(h.ctas);
  for (auto& w : c.cta_first_warp) {
    w = cur.get<uint32_t>("CTA index");
    if (w != DecodedTrace::kAbsentCta && w >= h.warps) throw CacheRejected{"corrupt (CTA index)"};
  }
  cur.align8(data);
  c.warps.resize(h.warps);
  for (auto& w : c.warps) {
    w.offset = cur.get<uint64_t>("warp index");
    const uint64_t count = cur.get<uint64_t>("warp index");
    if (w.offset > h.stream_bytes || count > UINT32_MAX) throw CacheRejected{"corrupt (warp index)"};
    w.count = static_cast<uint32_t>(count);
  }
  const char* stream = cur.bytes(h.stream_bytes, "instruction stream");
  if (cur.position() != end) throw CacheRejected{"corrupt (bytes after the instruction stream)"};
  return stream;
}

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A modification time this close to now may be shared by a later write of
// the same size (file systems keep times in steps of up to 2 s), so it does
// not vouch for the content; the cache then checks the hash until the time
// is old enough (git's "racily clean" entries, the same idea).
bool too_recent_to_trust(int64_t mtime_ns) {
  constexpr int64_t kTimestampGranularityNs = 2'000'000'000;
  return mtime_ns > now_ns() - kTimestampGranularityNs;
}

std::string absolute(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string cache_path_of(const std::string& trace_path) {
  const char* dir = std::getenv("SMSHARE_TRACE_CACHE_DIR");
  if (!dir || !*dir) return trace_path + ".smcache";
  const std::string abs = absolute(trace_path);
  return std::string(dir) + "/" + base_name(abs) + "." + sha256_hex(abs).substr(0, 16) + ".smcache";
}

TraceFileStamp stamp_of(const std::string& trace_path) {
  struct stat st {};
  if (::stat(trace_path.c_str(), &st) != 0)
    throw input_error(trace_path, "", std::string("cannot open trace file: ") + std::strerror(errno));
  return {static_cast<uint64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// The cache file mapped whole; null with the reason in `why` if it cannot be.
std::shared_ptr<const FileMapping> map_cache(const std::string& cache_path, std::string* why) {
  const int fd = ::open(cache_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *why = errno == ENOENT ? "absent" : std::string("cannot be opened: ") + std::strerror(errno);
    return nullptr;
  }
  std::shared_ptr<const FileMapping> mapping = FileMapping::map(fd);
  const int e = errno;
  ::close(fd);
  if (!mapping) *why = std::string("cannot be mapped: ") + std::strerror(e);
  return mapping;
}

// The trace's size and modification time as the cache recorded them stand
// for its content: the time was recorded (not too close to the trace's last
// write) and has not changed since. Otherwise only the trace's hash can say.
bool stamp_vouches_for_content(const CacheHeader& h, const TraceFileStamp& now) {
  return now.size == h.trace_size && h.trace_mtime_ns != 0 && h.trace_mtime_ns == now.mtime_ns;
}

}  // namespace

// ---------------------------------------------------------------- stream

void append_trace_record(std::string& stream, const WarpInstruction& inst, bool has_addresses) {
  uint64_t active[kWarpLanes];
  unsigned k = 0;
  if (has_addresses)
    for (unsigned lane = 0; lane < kWarpLanes; ++lane)
      if ((inst.active_mask >> lane) & 1u) active[k++] = inst.lane_address(lane);
  // Most lines give base and stride (address format 1) or addresses that
  // form one: two words instead of one per lane.
  bool strided = has_addresses && k > 2;
  for (unsigned i = 2; strided && i < k; ++i) strided = active[i] - active[i - 1] == active[1] - active[0];
  const AddressForm form = !has_addresses ? AddressForm::None : strided ? AddressForm::Stride : AddressForm::List;
  char record[kRecordBytes];
  std::memcpy(record, &inst, kRecordBytes);
  std::memset(record + kRecordFormAt, 0, kRecordBytes - kRecordFormAt);  // the phase and the padding
  record[kRecordFormAt] = static_cast<char>(form);
  stream.append(record, kRecordBytes);
  if (form == AddressForm::Stride) {
    put(stream, active[0]);
    put(stream, active[1] - active[0]);
  } else if (form == AddressForm::List) {
    stream.append(reinterpret_cast<const char*>(active), k * sizeof(uint64_t));
  }
}

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void throw_damaged(const std::string& cache_path) {
  throw InputError(cache_path + ": the decoded-trace cache is damaged (a record runs past the end of its "
                                "stream or is malformed); delete it and it is rebuilt from the trace");
}

// The addresses of a record that does not give every lane base + k * stride
// (a list, or a stride with lanes off: rare), at `p`. Throws InputError
// naming the cache if they run past `end` or the form is none of those.
[[gnu::noinline]] void read_lane_addresses(const char* p, const char* end, AddressForm form, WarpInstruction& out,
                                           const std::string& cache_path) {
  const uint32_t mask = out.active_mask;
  if (form == AddressForm::Stride) {
    if (static_cast<size_t>(end - p) < 2 * sizeof(uint64_t)) throw_damaged(cache_path);
    uint64_t a, stride;
    std::memcpy(&a, p, 8);
    std::memcpy(&stride, p + 8, 8);
    for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
      if ((mask >> lane) & 1u) {
        out.addr[lane] = a;
        a += stride;
      } else {
        out.addr[lane] = 0;
      }
    }
    return;
  }
  if (form != AddressForm::List || static_cast<size_t>(end - p) < out.active_lanes() * sizeof(uint64_t))
    throw_damaged(cache_path);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if ((mask >> lane) & 1u) {
      std::memcpy(&out.addr[lane], p, 8);
      p += 8;
    } else {
      out.addr[lane] = 0;
    }
  }
}

// Asks for the lines of the warp's next records: the 128 bytes from `p`
// (two to four records), which it reads when its instruction buffer is empty
// again. The warps' reads interleave hundreds of streams, too many for the
// hardware's prefetcher: without this each record's first read waited for
// memory. A fetch fills the buffer (two entries on most configs) in one go,
// so asking only for the record at `p` came too late for all but the first:
// the second was read right after its own prefetch (3-4 % of the bench
// trace's rate; docs/performance.md, "Seventeenth round").
void prefetch_record(const char* p) { prefetch_lines(p, 128); }

}  // namespace

// Inlined into the warp program's next() (link-time): the phase is set and
// the cursor moved here, from values already in registers.
void DecodedTrace::read(const char*& cursor, WarpInstruction& out, const PhaseLookup& phase_of) const {
  const char* p = cursor;
  if (static_cast<size_t>(stream_end_ - p) < kRecordBytes) throw_damaged(cache_path_);
  const auto form = static_cast<AddressForm>(p[kRecordFormAt]);
  std::memcpy(static_cast<void*>(&out), p, kRecordBytes);
  out.phase = phase_of(out.pc);
  out.lanes_evenly_spaced = false;  // the record's padding: set below for a full warp's stride
  p += kRecordBytes;
  if (form == AddressForm::None) {
    cursor = p;
    prefetch_record(p);
    return;
  }
  // A full warp's base and stride (most records with addresses) inline.
  if (form == AddressForm::Stride && out.active_mask == ~uint32_t{0} &&
      static_cast<size_t>(stream_end_ - p) >= 2 * sizeof(uint64_t)) {
    uint64_t a, stride;
    std::memcpy(&a, p, 8);
    std::memcpy(&stride, p + 8, 8);
    out.set_evenly_spaced_lanes(a, stride);
    cursor = p + 2 * sizeof(uint64_t);
    prefetch_record(cursor);
    return;
  }
  cursor = p + (form == AddressForm::Stride ? 2 : out.active_lanes()) * sizeof(uint64_t);
  prefetch_record(cursor);
  read_lane_addresses(p, stream_end_, form, out, cache_path_);
}

// ---------------------------------------------------------------- the file

std::string trace_decoder_key(bool unknown_opcode_as_alu) {
  Sha256 h;
  h.update("smshare decoded trace " + std::to_string(kTraceCacheVersion) + "; dst " + std::to_string(kMaxDstRegs) +
           "; src " + std::to_string(kMaxSrcRegs) + "; code " + std::to_string(kInstructionRegionBytes) +
           "; unknown as alu " + std::to_string(unknown_opcode_as_alu) + "\n");
  for (const OpcodeTable* t : all_opcode_tables()) {
    h.update(t->name() + " (" + t->binary_versions() + "):");
    for (const auto& [mnemonic, op] : t->entries()) h.update(" " + mnemonic + "=" + std::to_string(static_cast<int>(op)));
    h.update("\n");
  }
  return h.hex_digest();
}

TraceCacheFile::TraceCacheFile(std::string trace_path, std::string decoder_key)
    : trace_path_(std::move(trace_path)),
      decoder_key_(std::move(decoder_key)),
      cache_path_(cache_path_of(trace_path_)) {}

TraceFileStamp TraceCacheFile::trace_stamp() const { return stamp_of(trace_path_); }

std::shared_ptr<const DecodedTrace> TraceCacheFile::load(std::string* why) const {
  const std::shared_ptr<const FileMapping> mapping = map_cache(cache_path_, why);
  if (!mapping) return nullptr;
  try {
    const CacheHeader h = read_header(mapping->data(), mapping->size());
    if (std::string(h.decoder_key, sizeof h.decoder_key) != decoder_key_)
      throw CacheRejected{"decoded with other options or opcode tables"};
    auto trace = std::shared_ptr<DecodedTrace>(new DecodedTrace());
    const char* stream = decode_image(mapping->data(), h, trace->contents_);
    TraceFileStamp now;
    try {
      now = trace_stamp();
    } catch (const InputError&) {
      throw CacheRejected{"the trace file cannot be read"};  // the build then reports it as usual
    }
    if (now.size != h.trace_size) throw CacheRejected{"stale (the trace's size changed)"};
    if (!stamp_vouches_for_content(h, now)) {
      // Touched, copied, or stamped too soon after a write: the content decides.
      if (sha256_file_hex(trace_path_) != std::string(h.trace_sha256, sizeof h.trace_sha256))
        throw CacheRejected{"stale (the trace's content changed)"};
      if (!too_recent_to_trust(now.mtime_ns)) {
        // The stamp is outside the checksum: rewriting it in place is safe
        // for readers that have the file mapped. Failing to is harmless.
        const int wfd = ::open(cache_path_.c_str(), O_WRONLY | O_CLOEXEC);
        if (wfd >= 0) {
          [[maybe_unused]] const ssize_t written =
              pwrite(wfd, &now.mtime_ns, sizeof now.mtime_ns, offsetof(CacheHeader, trace_mtime_ns));
          ::close(wfd);
        }
      }
    }
    trace->stream_ = stream;
    trace->stream_end_ = trace->stream_ + h.stream_bytes;
    trace->storage_ = mapping;
    trace->cache_path_ = cache_path_;
    return trace;
  } catch (const CacheRejected& r) {
    *why = r.why;
    return nullptr;
  }
}

std::shared_ptr<const DecodedTrace> TraceCacheFile::store(DecodedTrace::Contents contents,
                                                          const TraceFileStamp& stamp) const {
  // The temporary beside the cache first: the trace is hashed only for a
  // cache that can be written (the hash is what a later run checks when the
  // trace's time no longer vouches for it).
  // A folder named by SMSHARE_TRACE_CACHE_DIR is made if missing (one level).
  const size_t slash = cache_path_.rfind('/');
  if (slash != std::string::npos && slash > 0) ::mkdir(cache_path_.substr(0, slash).c_str(), 0777);
  AtomicFileWrite out(cache_path_);
  std::string problem = out.error();  // why the cache was not written
  const std::string trace_sha256 = problem.empty() ? sha256_file_hex(trace_path_) : std::string(64, '0');
  // Then the trace's stamp again: the decoded contents and the hash are both
  // of the stamped trace only if it did not change while they were read.
  TraceFileStamp after;
  std::string unreadable;
  try {
    after = trace_stamp();
  } catch (const InputError& e) {
    unreadable = e.what();
  }
  const bool trace_unchanged = unreadable.empty() && after == stamp;
  if (!trace_unchanged) problem = unreadable.empty() ? "the trace changed while it was read" : unreadable;
  const bool writable = trace_unchanged && out.ok();

  TraceFileStamp recorded = stamp;
  if (too_recent_to_trust(stamp.mtime_ns)) recorded.mtime_ns = 0;
  auto bytes = std::make_shared<std::string>(encode_image(contents, recorded, trace_sha256, decoder_key_));
  contents = DecodedTrace::Contents();  // now in `bytes`
  if (writable && !out.commit(*bytes)) problem = out.error();

  if (trace_unchanged && !problem.empty()) {
    static bool said = false;
    if (!said)
      std::fprintf(stderr,
                   "smshare: cannot write the decoded-trace cache %s (%s); decoding traces in memory instead, "
                   "on every run\n",
                   cache_path_.c_str(), problem.c_str());
    said = true;
  }

  auto trace = std::shared_ptr<DecodedTrace>(new DecodedTrace());
  try {
    const CacheHeader h = read_header(bytes->data(), bytes->size());
    trace->stream_ = decode_image(bytes->data(), h, trace->contents_);
    trace->stream_end_ = trace->stream_ + h.stream_bytes;
  } catch (const CacheRejected& r) {
    throw std::logic_error("TraceCacheFile::store: the image just encoded does not decode: " + r.why);
  }
  trace->storage_ = bytes;
  trace->cache_path_ = trace_unchanged && problem.empty() ? cache_path_ : std::string();
  return trace;
}

namespace {

// The SHA-256 of the file's bytes, hashed once while the file keeps a stamp
// that vouches for its content (trace_file_sha256).
std::string sha256_remembered_by_stamp(const std::string& trace_path) {
  struct Remembered {
    TraceFileStamp stamp;
    std::string sha256;
  };
  static std::mutex mutex;
  static std::map<std::string, Remembered> remembered;  // by path as given: one entry a trace

  TraceFileStamp before;
  try {
    before = stamp_of(trace_path);
  } catch (const InputError&) {
    return sha256_file_hex(trace_path);  // which says that it cannot be read, naming the file
  }
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = remembered.find(trace_path);
    if (it != remembered.end() && it->second.stamp == before) return it->second.sha256;
  }
  const std::string sha256 = sha256_file_hex(trace_path);
  // The hash is of the stamped content only if the stamp did not move while
  // the file was read; the time checked after the read, as store() does.
  TraceFileStamp after;
  try {
    after = stamp_of(trace_path);
  } catch (const InputError&) {
    return sha256;  // gone since: nothing to remember it by
  }
  if (after == before && !too_recent_to_trust(before.mtime_ns)) {
    const std::lock_guard<std::mutex> lock(mutex);
    remembered[trace_path] = {before, sha256};
  }
  return sha256;
}

}  // namespace

std::string trace_file_sha256(const std::string& trace_path) {
  std::string why;
  if (const auto mapping = map_cache(cache_path_of(trace_path), &why)) {
    try {
      const CacheHeader h = read_header(mapping->data(), mapping->size());
      // The checksum covers the recorded hash: a damaged header must not
      // name the trace (a cache with other decoder options still may).
      if (image_is_whole(h, mapping->data()) && stamp_vouches_for_content(h, stamp_of(trace_path)))
        return std::string(h.trace_sha256, sizeof h.trace_sha256);
    } catch (const CacheRejected&) {
      // an unusable cache: hash the trace
    } catch (const InputError&) {
      // the trace cannot be read: sha256_file_hex says so, naming it
    }
  }
  return sha256_remembered_by_stamp(trace_path);
}

}  // namespace smshare
