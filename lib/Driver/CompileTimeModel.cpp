//===- CompileTimeModel.cpp - compile times estimated from size -*- C++ -*-===//

#include "kiln/Driver/CompileTimeModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace kiln;

std::string CompileTimeModel::describe() const {
  std::string line =
      llvm::formatv("{0:F2} s + {1:F2} ms per op", perGraph, perOp * 1000);
  if (!samples)
    return "default: " + line;
  return llvm::formatv("fitted on {0} compilation{1}: {2}", samples,
                       samples == 1 ? "" : "s", line)
      .str();
}

CompileTimeModel
kiln::fitCompileTimes(const std::vector<CompileTimeSample> &samples) {
  CompileTimeModel model;
  std::vector<CompileTimeSample> usable;
  for (const CompileTimeSample &sample : samples)
    if (sample.ops > 0 && sample.seconds > 0)
      usable.push_back(sample);
  if (usable.empty())
    return model;
  model.samples = usable.size();
  double n = usable.size(), sumX = 0, sumY = 0, sumXX = 0, sumXY = 0;
  for (const CompileTimeSample &sample : usable) {
    sumX += sample.ops;
    sumY += sample.seconds;
    sumXX += sample.ops * sample.ops;
    sumXY += sample.ops * sample.seconds;
  }
  double meanX = sumX / n, meanY = sumY / n;
  double varianceX = sumXX / n - meanX * meanX;
  // One size: nothing to fit a slope to; time in proportion to size.
  if (varianceX <= 1e-9 * std::max(1.0, meanX * meanX)) {
    model.perGraph = 0;
    model.perOp = meanY / meanX;
    return model;
  }
  double slope = (sumXY / n - meanX * meanY) / varianceX;
  double intercept = meanY - slope * meanX;
  if (slope <= 0) {
    // Larger graphs did not take longer: the mean, whatever the size.
    model.perGraph = meanY;
    model.perOp = 0;
  } else if (intercept < 0) {
    // Through the origin instead.
    model.perGraph = 0;
    model.perOp = sumXY / sumXX;
  } else {
    model.perGraph = intercept;
    model.perOp = slope;
  }
  return model;
}
