// A memory port for one SmCore under test: every transaction comes back
// `latency` cycles after it leaves, and each is recorded, so a test can
// check what left when.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/sm/sm_core.hpp"

namespace smshare::tb {

struct FixedLatencyMemory : GlobalMemoryPort {
  explicit FixedLatencyMemory(uint64_t latency) : latency(latency) {}
  uint64_t access(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t /*token*/) override {
    requests.push_back({line_addr, chunks.bytes(), is_write, cycle});
    return cycle + latency;
  }
  struct Request {
    uint64_t line;
    uint32_t bytes;
    bool is_write;
    uint64_t cycle;
  };
  uint64_t latency;
  std::vector<Request> requests;
};

}  // namespace smshare::tb
