//===- CompileTimeModelTest.cpp - compile times estimated from size -------===//
//
// Estimates for graphs never compiled come from what this cache remembers:
// a line through remembered (size, time) pairs, never negative, and the
// defaults only when nothing is remembered.
//
//===----------------------------------------------------------------------===//

#include "kiln/Driver/CompileTimeModel.h"

#include "gtest/gtest.h"

using namespace kiln;

namespace {

TEST(CompileTimeModelTest, NothingRememberedGivesTheDefaults) {
  CompileTimeModel model = fitCompileTimes({});
  EXPECT_EQ(model.samples, 0u);
  EXPECT_EQ(model.estimate(1000), CompileTimeModel().estimate(1000));
  EXPECT_NE(model.describe().find("default"), std::string::npos);
}

TEST(CompileTimeModelTest, ALineThroughRememberedTimes) {
  // 13 to 15 s for graphs of 1000 to 3000 ops: 12 s + 1 ms per op.
  CompileTimeModel model =
      fitCompileTimes({{1000, 13}, {2000, 14}, {3000, 15}});
  EXPECT_EQ(model.samples, 3u);
  EXPECT_NEAR(model.perGraph, 12, 1e-9);
  EXPECT_NEAR(model.perOp, 0.001, 1e-12);
  EXPECT_NEAR(model.estimate(2500), 14.5, 1e-9);
  EXPECT_NE(model.describe().find("fitted on 3 compilations"),
            std::string::npos);
}

TEST(CompileTimeModelTest, OneSizeScalesInProportion) {
  CompileTimeModel model = fitCompileTimes({{100, 2}, {100, 4}});
  EXPECT_NEAR(model.estimate(100), 3, 1e-9);
  EXPECT_NEAR(model.estimate(200), 6, 1e-9);
  EXPECT_NEAR(fitCompileTimes({{50, 1}}).estimate(150), 3, 1e-9);
}

TEST(CompileTimeModelTest, NeverNegative) {
  // Larger graphs that took less: the mean, whatever the size.
  CompileTimeModel falling = fitCompileTimes({{100, 10}, {1000, 2}});
  EXPECT_NEAR(falling.estimate(5000), 6, 1e-9);
  // A line that would cross zero before size 0 goes through the origin.
  CompileTimeModel steep = fitCompileTimes({{100, 1}, {200, 5}});
  EXPECT_GE(steep.perGraph, 0);
  EXPECT_GT(steep.estimate(10), 0);
  // Samples without a size or a time are left out.
  EXPECT_EQ(fitCompileTimes({{0, 5}, {10, 0}}).samples, 0u);
}

} // namespace
