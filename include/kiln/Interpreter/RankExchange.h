//===- RankExchange.h - collectives between evaluator ranks -----*- C++ -*-===//
//
// This file declares how evaluators running the ranks of a partitioned
// graph (one thread each) meet at a collective: every rank runs the same
// collectives in the same order (the graph is SPMD), so the n-th collective
// of every rank is the same op; each deposits its operands under that
// number, waits until every rank has, and computes its own result from all
// of them. A rank that fails aborts the exchange, so that the others stop
// waiting.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_RANKEXCHANGE_H
#define KILN_INTERPRETER_RANKEXCHANGE_H

#include "kiln/Interpreter/HostTensor.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln::interp {

class RankExchange {
public:
  explicit RankExchange(int ranks) : ranks(ranks), finished(ranks, false) {}

  int getRanks() const { return ranks; }

  /// Deposits `rank`'s operands of collective number `sequence` and waits
  /// for every rank's: all of them, by rank. None if the exchange was
  /// aborted.
  std::optional<std::vector<std::vector<HostTensor>>>
  exchange(uint64_t sequence, int rank, std::vector<HostTensor> operands);

  /// Wakes and fails every waiting and later exchange.
  void abort();

  /// Says that `rank` has run to its end: an exchange that still waits for
  /// it can never complete, and fails (programs that do not run the same
  /// collectives would otherwise wait forever).
  void finish(int rank);

private:
  struct Slot {
    std::vector<std::vector<HostTensor>> operands;
    std::vector<bool> present;
    int arrived = 0;
    int departed = 0;
  };
  int ranks;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<uint64_t, Slot> slots;
  std::vector<bool> finished;
  bool aborted = false;
};

} // namespace kiln::interp

#endif // KILN_INTERPRETER_RANKEXCHANGE_H
