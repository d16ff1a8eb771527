//===- KernelSharingTest.cpp - which kernels segments share -----*- C++ -*-===//
//
// This file checks KernelSharing's decisions, which compiled results cannot
// show (a kernel compiled twice computes the same): which kernels are equal,
// what a segment keeps of one an earlier segment defines, and that turns
// are taken in order of the segments whatever order threads arrive in.
//
//===----------------------------------------------------------------------===//

#include "KernelSharing.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <string>
#include <thread>

using namespace mlir;

namespace {

/// Kernels as outlineLoopNests makes them: @k_exp and @k_exp_again are
/// equal; @k_exp_vector is exp of another shape; @k_add_one and
/// @k_add_one_again read the same global, @k_add_two another.
constexpr llvm::StringLiteral kKernels = R"mlir(
memref.global "private" constant @one : memref<4xf32> = dense<1.0>
memref.global "private" constant @two : memref<4xf32> = dense<2.0>
func.func private @k_exp(%x: memref<4xf32>, %y: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  linalg.exp ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func private @k_exp_again(%x: memref<4xf32>, %y: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  linalg.exp ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func private @k_exp_vector(%x: memref<8xf32>, %y: memref<8xf32>) attributes {passthrough = ["noinline"]} {
  linalg.exp ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
  return
}
func.func private @k_add_one(%x: memref<4xf32>, %y: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  %c = memref.get_global @one : memref<4xf32>
  linalg.add ins(%x, %c : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func private @k_add_one_again(%x: memref<4xf32>, %y: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  %c = memref.get_global @one : memref<4xf32>
  linalg.add ins(%x, %c : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func private @k_add_two(%x: memref<4xf32>, %y: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  %c = memref.get_global @two : memref<4xf32>
  linalg.add ins(%x, %c : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func @SEGMENT(%x: memref<4xf32>, %y: memref<4xf32>, %v: memref<8xf32>, %w: memref<8xf32>) {
  call @k_exp(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  call @k_exp_again(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  call @k_exp_vector(%v, %w) : (memref<8xf32>, memref<8xf32>) -> ()
  call @k_add_one(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  call @k_add_one_again(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  call @k_add_two(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
)mlir";

class KernelSharingTest : public ::testing::Test {
protected:
  KernelSharingTest() {
    DialectRegistry registry;
    kiln::registerCpuCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// A segment: the kernels above, renamed with `prefix` as a segment's
  /// own are (@k_exp becomes @PREFIX.k_exp), called by @PREFIX.
  OwningOpRef<ModuleOp> parseSegment(llvm::StringRef prefix) {
    std::string source = kKernels.str();
    for (size_t at = source.find("@k_"); at != std::string::npos;
         at = source.find("@k_", at + prefix.size() + 2))
      source.replace(at, 1, "@" + prefix.str() + ".");
    source.replace(source.find("@SEGMENT"), 8, "@" + prefix.str());
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// The segment's kernels, in the order of their calls.
  SmallVector<func::FuncOp> kernelsOf(ModuleOp module) {
    SmallVector<func::FuncOp> kernels;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPrivate())
        kernels.push_back(function);
    return kernels;
  }

  /// The functions @PREFIX calls, in order.
  std::vector<std::string> callees(ModuleOp module, llvm::StringRef prefix) {
    std::vector<std::string> names;
    module.lookupSymbol<func::FuncOp>(prefix).walk(
        [&](func::CallOp call) { names.push_back(call.getCallee().str()); });
    return names;
  }

  MLIRContext context;
};

TEST_F(KernelSharingTest, EqualKernelsOfOneSegmentAreOne) {
  OwningOpRef<ModuleOp> module = parseSegment("s0");
  ASSERT_TRUE(module);
  kiln::KernelSharing sharing(/*exported=*/false);
  std::vector<std::string> exported =
      sharing.share(0, *module, kernelsOf(*module));
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_TRUE(exported.empty());
  EXPECT_EQ(sharing.getKernelCount(), 6u);
  EXPECT_EQ(sharing.getSharedCount(), 2u);
  EXPECT_EQ(callees(*module, "s0"),
            (std::vector<std::string>{"s0.k_exp", "s0.k_exp", "s0.k_exp_vector",
                                      "s0.k_add_one", "s0.k_add_one",
                                      "s0.k_add_two"}));
  // The replaced ones are gone; the others stay private and defined.
  EXPECT_FALSE(module->lookupSymbol("s0.k_exp_again"));
  EXPECT_FALSE(module->lookupSymbol("s0.k_add_one_again"));
  for (func::FuncOp kernel : kernelsOf(*module)) {
    EXPECT_FALSE(kernel.isExternal()) << kernel.getSymName().str();
    EXPECT_TRUE(kernel.isPrivate()) << kernel.getSymName().str();
  }
}

TEST_F(KernelSharingTest, ALaterSegmentCallsTheFirstDefinition) {
  OwningOpRef<ModuleOp> first = parseSegment("s0");
  OwningOpRef<ModuleOp> second = parseSegment("s1");
  ASSERT_TRUE(first && second);
  kiln::KernelSharing sharing(/*exported=*/true);
  // The second segment arrives first and waits for the first's turn.
  std::vector<std::string> secondExported;
  std::thread later(
      [&] { secondExported = sharing.share(1, *second, kernelsOf(*second)); });
  std::vector<std::string> firstExported =
      sharing.share(0, *first, kernelsOf(*first));
  later.join();
  ASSERT_TRUE(succeeded(verify(*first)));
  ASSERT_TRUE(succeeded(verify(*second)));
  EXPECT_EQ(sharing.getKernelCount(), 12u);
  EXPECT_EQ(sharing.getSharedCount(), 8u);
  // The first defines four kernels and exports them.
  EXPECT_EQ(firstExported,
            (std::vector<std::string>{"s0.k_exp", "s0.k_exp_vector",
                                      "s0.k_add_one", "s0.k_add_two"}));
  for (const std::string &name : firstExported)
    EXPECT_TRUE(first->lookupSymbol<func::FuncOp>(name).isPublic()) << name;
  // The second defines none: it declares the first's and calls them.
  EXPECT_TRUE(secondExported.empty());
  for (func::FuncOp kernel : kernelsOf(*second)) {
    EXPECT_TRUE(kernel.isExternal()) << kernel.getSymName().str();
    EXPECT_TRUE(kernel.getSymName().starts_with("s0."))
        << kernel.getSymName().str();
  }
  EXPECT_EQ(callees(*second, "s1"),
            (std::vector<std::string>{"s0.k_exp", "s0.k_exp", "s0.k_exp_vector",
                                      "s0.k_add_one", "s0.k_add_one",
                                      "s0.k_add_two"}));
}

TEST_F(KernelSharingTest, ASkippedTurnLetsTheNextGoOn) {
  OwningOpRef<ModuleOp> second = parseSegment("s1");
  ASSERT_TRUE(second);
  kiln::KernelSharing sharing(/*exported=*/true);
  std::thread later([&] { sharing.share(1, *second, kernelsOf(*second)); });
  // Segment 0 failed before its nests were outlined.
  sharing.skipTurn(0);
  later.join();
  ASSERT_TRUE(succeeded(verify(*second)));
  EXPECT_EQ(sharing.getSharedCount(), 2u);
  EXPECT_EQ(callees(*second, "s1"),
            (std::vector<std::string>{"s1.k_exp", "s1.k_exp", "s1.k_exp_vector",
                                      "s1.k_add_one", "s1.k_add_one",
                                      "s1.k_add_two"}));
}

} // namespace
