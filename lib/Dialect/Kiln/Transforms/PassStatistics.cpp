//===- PassStatistics.cpp - kiln's pass statistics, in any build -*- C++ -*-=//
//
// This file keeps the totals of kiln's pass counters (thread-safe: passes
// run on several threads) and prints them as MLIR prints its statistics.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/PassStatistics.h"

#include "llvm/Support/Format.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Totals {
  std::string pass;
  std::vector<std::pair<std::string, std::string>> names; // name, description
  std::vector<uint64_t> values;
};

std::atomic<bool> enabled{false};
std::mutex mutex;
std::vector<Totals> &allTotals() {
  static std::vector<Totals> totals;
  return totals;
}

} // namespace

void kiln::setPassStatisticsEnabled(bool value) { enabled = value; }

bool kiln::arePassStatisticsEnabled() { return enabled; }

void kiln::recordPassStatistics(llvm::StringRef pass,
                                std::initializer_list<PassCounter> counters) {
  if (!enabled)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<Totals> &totals = allTotals();
  auto found = std::find_if(totals.begin(), totals.end(),
                            [&](const Totals &t) { return t.pass == pass; });
  if (found == totals.end()) {
    Totals entry;
    entry.pass = pass.str();
    for (const PassCounter &counter : counters) {
      entry.names.push_back({counter.name.str(), counter.description.str()});
      entry.values.push_back(0);
    }
    totals.push_back(std::move(entry));
    found = totals.end() - 1;
  }
  size_t i = 0;
  for (const PassCounter &counter : counters)
    if (i < found->values.size())
      found->values[i++] += counter.value;
}

void kiln::printPassStatistics(llvm::raw_ostream &os) {
  std::lock_guard<std::mutex> lock(mutex);
  if (allTotals().empty())
    return;
  os << "===" << std::string(73, '-') << "===\n"
     << "                     ... kiln pass statistics report ...\n"
     << "===" << std::string(73, '-') << "===\n";
  for (const Totals &totals : allTotals()) {
    os << totals.pass << "\n";
    for (size_t i = 0; i < totals.values.size(); ++i)
      os << llvm::format("  (S) %6llu %s - %s\n",
                         (unsigned long long)totals.values[i],
                         totals.names[i].first.c_str(),
                         totals.names[i].second.c_str());
  }
}
