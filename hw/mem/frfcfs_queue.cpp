#include "hw/mem/frfcfs_queue.hpp"

namespace smshare {

void FrfcfsQueue::add(DramRequest req) {
  req.seq = next_seq_++;
  if (!door_.empty() || (depth_ && queued_ >= depth_)) {
    door_.push_back(req);
    return;
  }
  enter(req, req.arrival_ps);
}

void FrfcfsQueue::enter(DramRequest req, uint64_t entry_ps) {
  req.entry_ps = entry_ps;
  door_wait_ps_ += entry_ps - req.arrival_ps;
  banks_[req.bank].push_back(req);
  ++queued_;
  if (queued_ > max_queued_) max_queued_ = static_cast<uint32_t>(queued_);
}

size_t FrfcfsQueue::pick(uint32_t bank, uint64_t take_ps, bool open, uint64_t open_row) const {
  const std::vector<DramRequest>& q = banks_[bank];
  if (open)
    for (size_t i = 0; i < q.size() && q[i].entry_ps <= take_ps; ++i)
      if (q[i].row == open_row) return i;  // the oldest row hit
  return 0;                                // else the oldest
}

uint64_t FrfcfsQueue::next_seq(uint32_t bank, uint64_t take_ps, bool open, uint64_t open_row) const {
  return banks_[bank][pick(bank, take_ps, open, open_row)].seq;
}

DramRequest FrfcfsQueue::take(uint32_t bank, uint64_t take_ps, bool open, uint64_t open_row, bool& reordered) {
  std::vector<DramRequest>& q = banks_[bank];
  const size_t i = pick(bank, take_ps, open, open_row);
  const DramRequest req = q[i];
  reordered = i != 0;
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
  --queued_;
  queue_wait_ps_ += take_ps - req.entry_ps;
  // Its place goes to the first request at the door, which enters now (or
  // when it arrives, if later).
  if (!door_.empty() && (!depth_ || queued_ < depth_)) {
    const DramRequest next = door_.front();
    door_.pop_front();
    enter(next, next.arrival_ps > take_ps ? next.arrival_ps : take_ps);
  }
  return req;
}

}  // namespace smshare
