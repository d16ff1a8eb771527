//===- RankExchange.cpp - collectives between evaluator ranks ---*- C++ -*-===//
//
// This file implements the meeting point of the evaluator's ranks: a slot
// per collective number, filled by every rank, read by every rank, removed
// by the last to leave.
//
//===----------------------------------------------------------------------===//

#include "kiln/Interpreter/RankExchange.h"

using namespace kiln::interp;

std::optional<std::vector<std::vector<HostTensor>>>
RankExchange::exchange(uint64_t sequence, int rank,
                       std::vector<HostTensor> operands) {
  std::unique_lock<std::mutex> lock(mutex);
  if (aborted)
    return std::nullopt;
  Slot &slot = slots[sequence];
  if (slot.operands.empty()) {
    slot.operands.resize(ranks);
    slot.present.assign(ranks, false);
  }
  slot.operands[rank] = std::move(operands);
  slot.present[rank] = true;
  ++slot.arrived;
  changed.notify_all();
  // A rank that finished without depositing here will never come.
  auto stranded = [&] {
    for (int r = 0; r < ranks; ++r)
      if (finished[r] && !slot.present[r])
        return true;
    return false;
  };
  changed.wait(lock, [&] {
    return aborted || slot.arrived == ranks || stranded();
  });
  if (aborted || slot.arrived != ranks) {
    aborted = true;
    changed.notify_all();
    return std::nullopt;
  }
  std::vector<std::vector<HostTensor>> all = slot.operands;
  if (++slot.departed == ranks)
    slots.erase(sequence);
  return all;
}

void RankExchange::abort() {
  std::lock_guard<std::mutex> lock(mutex);
  aborted = true;
  changed.notify_all();
}

void RankExchange::finish(int rank) {
  std::lock_guard<std::mutex> lock(mutex);
  finished[rank] = true;
  changed.notify_all();
}
