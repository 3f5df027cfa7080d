// SystemC benches of the memory system with the Fermi (GTX480) defaults of
// GpuSpec: 15 SMs at 1.4 GHz, 6 channels, 177.4 GB/s, 128 B lines, 768 KB L2.
// Initiators call b_transport from SC_METHODs, as the SM's LDST unit does.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw/common/gpu_config.hpp"
#include "hw/mem/memory_request_extension.hpp"
#include "hw/mem/memory_system_module.hpp"

namespace smshare {
namespace {

using sc_core::sc_time;
using sc_core::SC_PS;

// Streams sequential line reads from each socket, one per core cycle per
// socket, with at most `max_in_flight` outstanding per socket: the issue
// rate is whatever the memory's reservations allow.
class StreamReader : public sc_core::sc_module {
 public:
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<StreamReader>> sockets;

  StreamReader(sc_core::sc_module_name name, uint32_t n_sockets, uint64_t period_ps, uint32_t line_bytes,
               uint64_t lines_per_socket, uint32_t max_in_flight, std::function<uint64_t(uint32_t)> base_of)
      : sc_module(name),
        sockets("socket", n_sockets),
        period_ps_(period_ps),
        line_bytes_(line_bytes),
        lines_(lines_per_socket),
        max_in_flight_(max_in_flight),
        streams_(n_sockets) {
    for (uint32_t s = 0; s < n_sockets; ++s) streams_[s].next_addr = base_of(s);
    SC_METHOD(tick);
  }

  uint64_t last_done_ps = 0;
  uint64_t lines_done = 0;
  bool error = false;

 private:
  SC_HAS_PROCESS(StreamReader);
  struct Stream {
    uint64_t next_addr = 0;
    uint64_t issued = 0;
    std::deque<uint64_t> done;  // completion times of reads in flight
  };

  void tick() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    bool more = false;
    for (uint32_t s = 0; s < streams_.size(); ++s) {
      Stream& st = streams_[s];
      while (!st.done.empty() && st.done.front() <= now) st.done.pop_front();
      if (st.issued < lines_ && st.done.size() < max_in_flight_) {
        payload_.set_command(tlm::TLM_READ_COMMAND);
        payload_.set_address(st.next_addr);
        payload_.set_data_ptr(nullptr);
        payload_.set_data_length(line_bytes_);
        payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time delay = sc_core::SC_ZERO_TIME;
        sockets[s]->b_transport(payload_, delay);
        if (!payload_.is_response_ok()) error = true;
        const uint64_t done = now + delay.value();
        // Each socket's responses come back in order (one response port per SM).
        if (!st.done.empty() && done < st.done.back()) error = true;
        st.done.push_back(done);
        if (done > last_done_ps) last_done_ps = done;
        st.next_addr += line_bytes_;
        ++st.issued;
        ++lines_done;
      }
      more = more || st.issued < lines_;
    }
    if (more) next_trigger(sc_time::from_value(period_ps_));
  }

  uint64_t period_ps_;
  uint32_t line_bytes_;
  uint64_t lines_;
  uint32_t max_in_flight_;
  std::vector<Stream> streams_;
  tlm::tlm_generic_payload payload_;
};

// Runs `script` in a thread with access to one socket per SM; the script
// issues b_transport calls and waits between them.
class ScriptedInitiator : public sc_core::sc_module {
 public:
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<ScriptedInitiator>> sockets;
  using Script = std::function<void(ScriptedInitiator&)>;

  ScriptedInitiator(sc_core::sc_module_name name, uint32_t n_sockets, Script script)
      : sc_module(name), sockets("socket", n_sockets), script_(std::move(script)) {
    SC_THREAD(run);
  }

  // One transaction now (+ `issue_delay`); returns the annotated delay on return.
  // A non-empty `chunks` is sent in a MemoryRequestExtension.
  sc_time transact(uint32_t sm, tlm::tlm_command cmd, uint64_t addr, uint32_t bytes,
                   tlm::tlm_response_status* status = nullptr, sc_time issue_delay = sc_core::SC_ZERO_TIME,
                   ChunkMask chunks = ChunkMask()) {
    tlm::tlm_generic_payload p;
    MemoryRequestExtension ext;
    ext.chunks = chunks;
    if (chunks.any()) p.set_extension(&ext);
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(nullptr);
    p.set_data_length(bytes);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = issue_delay;
    sockets[sm]->b_transport(p, delay);
    if (chunks.any()) p.clear_extension(&ext);  // a local: the payload must not free it
    if (status) *status = p.get_response_status();
    else EXPECT_TRUE(p.is_response_ok()) << p.get_response_string();
    return delay;
  }

 private:
  SC_HAS_PROCESS(ScriptedInitiator);
  void run() { script_(*this); }
  Script script_;
};

double gbps(uint64_t bytes, uint64_t ps) { return double(bytes) / double(ps) * 1000.0; }  // B/ps -> GB/s

// Streams from every SM and returns the achieved bandwidth in GB/s.
double stream_bandwidth(uint64_t lines_per_sm, uint32_t max_in_flight, std::function<uint64_t(uint32_t)> base_of,
                        MemorySystem** mem_out = nullptr) {
  static GpuSpec spec;  // Fermi defaults
  auto* mem = new MemorySystem("memory", spec);
  auto* reader = new StreamReader("reader", spec.num_sms, spec.core_period_ps(), spec.l2.line_bytes, lines_per_sm,
                                  max_in_flight, std::move(base_of));
  for (uint32_t s = 0; s < spec.num_sms; ++s) reader->sockets[s].bind(mem->sm_socket(s));
  sc_core::sc_start();
  EXPECT_FALSE(reader->error);
  EXPECT_EQ(reader->lines_done, lines_per_sm * spec.num_sms);
  const nlohmann::json st = mem->stats_json();
  uint64_t dram_bytes = 0, hits = 0;
  for (const auto& c : st["dram_channels"]) dram_bytes += c["bytes"].get<uint64_t>();
  for (const auto& p : st["l2_partitions"]) hits += p["read_hits"].get<uint64_t>();
  EXPECT_EQ(hits, 0u);  // no reuse: every line comes from DRAM
  EXPECT_EQ(dram_bytes, lines_per_sm * spec.num_sms * spec.l2.line_bytes);
  const double bw = gbps(dram_bytes, reader->last_done_ps);
  std::printf("streamed %llu B in %llu ps: %.2f GB/s (peak %.1f)\n", (unsigned long long)dram_bytes,
              (unsigned long long)reader->last_done_ps, bw, spec.dram.bandwidth_gbps);
  if (mem_out) *mem_out = mem;
  return bw;
}

TEST(MemorySystemBench, StreamingReadsReachPeakDramBandwidth) {
  // One large array split over the SMs, 1 MB each (15 MB >> 768 KB of L2).
  const double bw = stream_bandwidth(8192, 32, [](uint32_t s) { return uint64_t(s) << 20; });
  EXPECT_NEAR(bw, 177.4, 177.4 * 0.05);
}

TEST(MemorySystemBench, StreamingFromDistantRegionsReachesPeak) {
  // Each SM in its own 16 MB region: 15 streams in different rows share each
  // channel's 16 banks, so many requests are row conflicts (about 40%).
  const double bw = stream_bandwidth(8192, 32, [](uint32_t s) { return uint64_t(s) << 24; });
  EXPECT_NEAR(bw, 177.4, 177.4 * 0.05);
}

TEST(MemorySystemBench, FewReadsInFlightAreLatencyBound) {
  // Little's law: one read in flight per SM cannot cover the miss latency.
  const double bw = stream_bandwidth(512, 1, [](uint32_t s) { return uint64_t(s) << 20; });
  EXPECT_LT(bw, 0.5 * 177.4);
}

TEST(MemorySystemBench, L2HitLatencyIsInterconnectPlusHit) {
  GpuSpec spec;
  const uint64_t cyc = spec.core_period_ps();
  MemorySystem mem("memory", spec);
  ScriptedInitiator init("init", spec.num_sms, [&](ScriptedInitiator& i) {
    const uint64_t addr = 0x40000;
    i.transact(0, tlm::TLM_READ_COMMAND, addr, 128);  // miss, fills L2
    sc_core::wait(sc_time(10, sc_core::SC_US));
    // Same line from another SM: icnt up 20 + L2 hit 80 + icnt down 20 + 128 B at 32 B/cycle.
    const uint64_t expect = (20 + 80 + 20 + 4) * cyc;
    EXPECT_EQ(i.transact(5, tlm::TLM_READ_COMMAND, addr, 128).value(), expect);
    sc_core::wait(sc_time(10, sc_core::SC_US));
    // Leaving the SM 7 cycles from now: the annotation carries the offset through.
    EXPECT_EQ(i.transact(5, tlm::TLM_READ_COMMAND, addr, 128, nullptr, sc_time::from_value(7 * cyc)).value(),
              7 * cyc + expect);
  });
  for (uint32_t s = 0; s < spec.num_sms; ++s) init.sockets[s].bind(mem.sm_socket(s));
  sc_core::sc_start();
  EXPECT_EQ(mem.stats_json()["l2_partitions"][mem.timing().address_map().channel(0x40000)]["read_hits"], 2u);
}

TEST(MemorySystemBench, ANonBlockingRequestCompletesAtOnceAsABlockingOne) {
  // The SM sockets are loosely timed: BEGIN_REQ through nb_transport_fw is
  // answered TLM_COMPLETED with b_transport's timing; no DMI, no debug access.
  GpuSpec spec;
  const uint64_t cyc = spec.core_period_ps();
  MemorySystem mem("memory", spec);
  ScriptedInitiator init("init", spec.num_sms, [&](ScriptedInitiator& i) {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(0x8000);
    p.set_data_ptr(nullptr);
    p.set_data_length(128);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = sc_time::from_value(3 * cyc);  // leaving the SM 3 cycles from now
    EXPECT_EQ(i.sockets[2]->nb_transport_fw(p, phase, delay), tlm::TLM_COMPLETED);
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_TRUE(p.is_response_ok()) << p.get_response_string();
    // As WritesAndErrorsOverTlm's write: 128 B up, icnt 20, L2 80, ack 20.
    EXPECT_EQ(delay.value(), (3 + 4 + 20 + 80 + 20) * cyc);
    tlm::tlm_dmi dmi;
    EXPECT_FALSE(i.sockets[2]->get_direct_mem_ptr(p, dmi));
    EXPECT_EQ(i.sockets[2]->transport_dbg(p), 0u);
  });
  for (uint32_t s = 0; s < spec.num_sms; ++s) init.sockets[s].bind(mem.sm_socket(s));
  sc_core::sc_start();
  EXPECT_EQ(mem.stats_json()["l2_partitions"][mem.timing().address_map().channel(0x8000)]["write_misses"], 1u);
}

TEST(MemorySystemBench, RowConflictCostsPrechargeAndActivate) {
  GpuSpec spec;
  const uint64_t cyc = spec.core_period_ps();
  MemorySystem mem("memory", spec);
  const DramAddressMap& map = mem.timing().address_map();
  const DramChannelTiming& ch = mem.timing().dram(0);
  // Channel-local address -> global address in channel 0.
  auto global = [&](uint64_t local) {
    return local / spec.dram.interleave_bytes * spec.dram.interleave_bytes * spec.dram.channels +
           local % spec.dram.interleave_bytes;
  };
  const uint64_t a = global(0), b = global(128);
  // The first page of row 1 that the bank skew puts on the bank of page 0.
  uint64_t c = 0;
  for (uint64_t page = spec.dram.banks; page < 2 * spec.dram.banks; ++page)
    if (map.bank(page * spec.dram.row_bytes) == map.bank(0)) c = global(page * spec.dram.row_bytes);
  ScriptedInitiator init("init", spec.num_sms, [&](ScriptedInitiator& i) {
    ASSERT_EQ(map.channel(c), 0u);
    ASSERT_EQ(map.bank(map.local(a)), map.bank(map.local(c)));
    ASSERT_NE(map.row(map.local(a)), map.row(map.local(c)));
    const uint64_t path = (20 + 80 + 20 + 4) * cyc;  // icnt both ways, L2 lookup, response data
    // Closed bank: activate, read.
    EXPECT_EQ(i.transact(0, tlm::TLM_READ_COMMAND, a, 128).value(),
              path + ch.tRCD_ps() + ch.tCL_ps() + ch.line_time_ps());
    sc_core::wait(sc_time(10, sc_core::SC_US));
    // Next line, same row: a row-buffer hit.
    EXPECT_EQ(i.transact(1, tlm::TLM_READ_COMMAND, b, 128).value(), path + ch.tCL_ps() + ch.line_time_ps());
    sc_core::wait(sc_time(10, sc_core::SC_US));
    // Same bank, other row: precharge, activate, read.
    const sc_time conflict = i.transact(2, tlm::TLM_READ_COMMAND, c, 128);
    EXPECT_EQ(conflict.value(), path + ch.tRP_ps() + ch.tRCD_ps() + ch.tCL_ps() + ch.line_time_ps());
    // Hand-derived for Fermi: 124 cycles x 714 ps + 3 x 12987 ps (12 DRAM cycles at 924 MHz) + 4329 ps.
    EXPECT_EQ(conflict.value(), 124u * 714 + 3u * 12987 + 4329);
  });
  for (uint32_t s = 0; s < spec.num_sms; ++s) init.sockets[s].bind(mem.sm_socket(s));
  sc_core::sc_start();
  EXPECT_EQ(ch.counters().activates, 2u);
  EXPECT_EQ(ch.counters().row_hits, 1u);
}

TEST(MemorySystemBench, WritesAndErrorsOverTlm) {
  GpuSpec spec;
  const uint64_t cyc = spec.core_period_ps();
  MemorySystem mem("memory", spec, /*dram_capacity_bytes=*/1ull << 30);
  ScriptedInitiator init("init", spec.num_sms, [&](ScriptedInitiator& i) {
    // Write: 128 B up (4 cycles) + icnt 20 + L2 80 + ack 20.
    EXPECT_EQ(i.transact(3, tlm::TLM_WRITE_COMMAND, 0x8000, 128).value(), (4 + 20 + 80 + 20) * cyc);
    tlm::tlm_response_status st;
    i.transact(3, tlm::TLM_READ_COMMAND, 1ull << 30, 128, &st);
    EXPECT_EQ(st, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    i.transact(3, tlm::TLM_READ_COMMAND, 0x8040, 128, &st);  // crosses a line
    EXPECT_EQ(st, tlm::TLM_GENERIC_ERROR_RESPONSE);
    i.transact(3, tlm::TLM_WRITE_COMMAND, 0x8000, 0, &st);
    EXPECT_EQ(st, tlm::TLM_GENERIC_ERROR_RESPONSE);
    i.transact(3, tlm::TLM_WRITE_COMMAND, spec.dram.swap_base + 0x100, 64, &st);
    EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.dram_queue_depth(sc_core::sc_time_stamp()), 0u);  // write allocate: no DRAM traffic
    i.transact(3, tlm::TLM_READ_COMMAND, 0x10000, 128, &st);
    EXPECT_EQ(mem.dram_queue_depth(sc_core::sc_time_stamp()), 1u);
  });
  for (uint32_t s = 0; s < spec.num_sms; ++s) init.sockets[s].bind(mem.sm_socket(s));
  sc_core::sc_start();
  EXPECT_TRUE(mem.is_swap(spec.dram.swap_base));
  EXPECT_EQ(mem.stats_json()["swap"]["writes"], 1u);
  ActivityCounters a;
  mem.collect(a);
  EXPECT_EQ(a["dram"].reads, 1u);
  EXPECT_EQ(a["l2_slice"].writes, 3u);  // two stores and one fill
}

TEST(MemorySystemBench, AChunkMaskMovesOnlyItsSectors) {
  // Sectored L2: a read of chunks 0 and 2 of a line (64 B, not contiguous)
  // brings 2 sectors from DRAM and sends 64 B down: 2 cycles on the port.
  GpuSpec spec;
  spec.l2.sector_bytes = 32;
  const uint64_t cyc = spec.core_period_ps();
  MemorySystem mem("memory", spec, /*dram_capacity_bytes=*/1ull << 30);
  ScriptedInitiator init("init", spec.num_sms, [&](ScriptedInitiator& i) {
    i.transact(0, tlm::TLM_READ_COMMAND, 0x8000, 64, nullptr, sc_core::SC_ZERO_TIME, ChunkMask::from_bits(0x5));
    sc_core::wait(sc_time(1, sc_core::SC_US));  // the fill is back
    // Now an L2 hit on those sectors: 20 up + 80 + 20 down + 2 cycles of data.
    EXPECT_EQ(i.transact(0, tlm::TLM_READ_COMMAND, 0x8000, 64, nullptr, sc_core::SC_ZERO_TIME,
                         ChunkMask::from_bits(0x5))
                  .value(),
              (20 + 80 + 20 + 2) * cyc);
    tlm::tlm_response_status st;
    i.transact(0, tlm::TLM_READ_COMMAND, 0x8000, 96, &st, sc_core::SC_ZERO_TIME, ChunkMask::from_bits(0x5));
    EXPECT_EQ(st, tlm::TLM_GENERIC_ERROR_RESPONSE);  // length disagrees with the mask
  });
  for (uint32_t s = 0; s < spec.num_sms; ++s) init.sockets[s].bind(mem.sm_socket(s));
  sc_core::sc_start();
  const nlohmann::json st = mem.stats_json();
  uint64_t read_bytes = 0;
  for (const auto& c : st["dram_channels"]) read_bytes += c["read_bytes"].get<uint64_t>();
  EXPECT_EQ(read_bytes, 64u);
  EXPECT_EQ(st["icnt"]["bytes_down"].get<uint64_t>(), 128u);
}

}  // namespace
}  // namespace smshare
