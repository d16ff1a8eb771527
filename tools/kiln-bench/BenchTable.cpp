//===- BenchTable.cpp - the figures of one benchmark run ------------------===//

#include "BenchTable.h"

#include <mutex>
#include <vector>

using namespace kiln::bench;

namespace {
std::mutex tableMutex;
std::vector<Figure> &figures() {
  static std::vector<Figure> table;
  return table;
}
} // namespace

void kiln::bench::recordFigure(Figure figure) {
  std::lock_guard<std::mutex> lock(tableMutex);
  figures().push_back(std::move(figure));
}

void kiln::bench::printFigureTable(llvm::raw_ostream &os) {
  std::lock_guard<std::mutex> lock(tableMutex);
  os << "| area | measure | figure | floor or baseline (same run) | ratio "
        "|\n|---|---|---|---|---|\n";
  for (const Figure &figure : figures())
    os << "| " << figure.area << " | " << figure.measure << " | "
       << figure.value << " | " << figure.baseline << " | " << figure.ratio
       << " |\n";
}
