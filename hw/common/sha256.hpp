// SHA-256 (FIPS 180-4). It names a sweep's runs by the content of everything
// that determines their result, and keys the decoded-trace cache to the trace
// it was built from and to the decoder (hw/frontend/trace_cache.*). A
// collision would make one run's report, or one trace's decoding, stand for
// another's, so a cryptographic hash rather than a fast one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace smshare {

class Sha256 {
 public:
  Sha256();
  Sha256& update(const void* data, size_t bytes);
  Sha256& update(const std::string& text) { return update(text.data(), text.size()); }
  // The digest as 64 lowercase hex digits; the object is spent afterwards.
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> block_{};
  size_t block_used_ = 0;
  uint64_t total_bytes_ = 0;
};

inline std::string sha256_hex(const std::string& text) { return Sha256().update(text).hex_digest(); }

// The digest of a file's bytes; throws InputError naming the file if it
// cannot be read.
std::string sha256_file_hex(const std::string& path);

}  // namespace smshare
