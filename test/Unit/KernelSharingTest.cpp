//===- KernelSharingTest.cpp - which kernels segments share -----*- C++ -*-===//
//
// This file checks KernelSharing's decisions, which compiled results cannot
// show (a kernel compiled twice computes the same): which kernels are equal,
// what a segment keeps of one an earlier segment defines, and which
// kernels are exported.
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
  /// own are (@k_exp becomes @PREFIX.k_exp), called by @PREFIX; `edit`
  /// changes the source first.
  OwningOpRef<ModuleOp>
  parseSegment(llvm::StringRef prefix,
               llvm::function_ref<void(std::string &)> edit = {}) {
    std::string source = kKernels.str();
    if (edit)
      edit(source);
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

  /// A segment's turn: its kernels identified and shared.
  void share(kiln::KernelSharing &sharing, ModuleOp module) {
    SmallVector<func::FuncOp> kernels = kernelsOf(module);
    sharing.share(module, kernels, kiln::identifyKernels(module, kernels));
  }

  /// The functions @PREFIX calls, in order.
  std::vector<std::string> callees(ModuleOp module, llvm::StringRef prefix) {
    std::vector<std::string> names;
    module.lookupSymbol<func::FuncOp>(prefix).walk(
        [&](func::CallOp call) { names.push_back(call.getCallee().str()); });
    return names;
  }

  /// Segment "s0", made with `edit`, shared on its own: how many of its
  /// kernels were shared, and the functions it calls then, in order.
  std::pair<unsigned, std::vector<std::string>>
  shareAlone(llvm::function_ref<void(std::string &)> edit) {
    OwningOpRef<ModuleOp> module = parseSegment("s0", edit);
    if (!module) {
      ADD_FAILURE() << "the segment does not parse";
      return {};
    }
    kiln::KernelSharing sharing;
    share(sharing, *module);
    EXPECT_TRUE(succeeded(verify(*module)));
    return {sharing.getSharedCount(), callees(*module, "s0")};
  }

  MLIRContext context;
};

TEST_F(KernelSharingTest, EqualKernelsOfOneSegmentAreOne) {
  OwningOpRef<ModuleOp> module = parseSegment("s0");
  ASSERT_TRUE(module);
  kiln::KernelSharing sharing;
  share(sharing, *module);
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(sharing.getKernelCount(), 6u);
  EXPECT_EQ(sharing.getSharedCount(), 2u);
  EXPECT_EQ(callees(*module, "s0"),
            (std::vector<std::string>{"s0.k_exp", "s0.k_exp", "s0.k_exp_vector",
                                      "s0.k_add_one", "s0.k_add_one",
                                      "s0.k_add_two"}));
  // The replaced ones are gone; the others stay defined, private, and not
  // exported: no other segment calls them.
  EXPECT_FALSE(module->lookupSymbol("s0.k_exp_again"));
  EXPECT_FALSE(module->lookupSymbol("s0.k_add_one_again"));
  for (func::FuncOp kernel : kernelsOf(*module)) {
    EXPECT_FALSE(kernel.isExternal()) << kernel.getSymName().str();
    EXPECT_TRUE(kernel.isPrivate()) << kernel.getSymName().str();
    EXPECT_FALSE(sharing.isExported(kernel.getSymName()))
        << kernel.getSymName().str();
  }
}

TEST_F(KernelSharingTest, ALaterSegmentCallsTheFirstDefinition) {
  OwningOpRef<ModuleOp> first = parseSegment("s0");
  OwningOpRef<ModuleOp> second = parseSegment("s1");
  ASSERT_TRUE(first && second);
  // The second segment has no c + 2.
  second->lookupSymbol<func::FuncOp>("s1").walk([](func::CallOp call) {
    if (call.getCallee() == "s1.k_add_two")
      call.erase();
  });
  second->lookupSymbol<func::FuncOp>("s1.k_add_two").erase();
  kiln::KernelSharing sharing;
  share(sharing, *first);
  share(sharing, *second);
  ASSERT_TRUE(succeeded(verify(*first)));
  ASSERT_TRUE(succeeded(verify(*second)));
  EXPECT_EQ(sharing.getKernelCount(), 11u);
  EXPECT_EQ(sharing.getSharedCount(), 7u);
  // The first defines four kernels, and exports the three the second
  // calls.
  for (llvm::StringRef name : {"s0.k_exp", "s0.k_exp_vector", "s0.k_add_one"}) {
    EXPECT_TRUE(sharing.isExported(name)) << name.str();
    EXPECT_TRUE(first->lookupSymbol<func::FuncOp>(name).isPublic())
        << name.str();
  }
  EXPECT_FALSE(sharing.isExported("s0.k_add_two"));
  EXPECT_TRUE(first->lookupSymbol<func::FuncOp>("s0.k_add_two").isPrivate());
  // The second defines none: it declares the first's, once each, and calls
  // them.
  for (func::FuncOp kernel : kernelsOf(*second)) {
    EXPECT_TRUE(kernel.isExternal()) << kernel.getSymName().str();
    EXPECT_TRUE(kernel.getSymName().starts_with("s0."))
        << kernel.getSymName().str();
  }
  EXPECT_EQ(kernelsOf(*second).size(), 3u);
  EXPECT_EQ(callees(*second, "s1"),
            (std::vector<std::string>{"s0.k_exp", "s0.k_exp", "s0.k_exp_vector",
                                      "s0.k_add_one", "s0.k_add_one"}));
}

TEST_F(KernelSharingTest, AGlobalOfTheSameNameAndAnotherValueIsAnotherKernel) {
  OwningOpRef<ModuleOp> first = parseSegment("s0");
  OwningOpRef<ModuleOp> second = parseSegment("s1", [](std::string &source) {
    source.replace(source.find("dense<1.0>"), 10, "dense<3.0>");
  });
  ASSERT_TRUE(first && second);
  kiln::KernelSharing sharing;
  share(sharing, *first);
  share(sharing, *second);
  ASSERT_TRUE(succeeded(verify(*second)));
  // The second's x + @one is its own kernel, which its equal one calls.
  EXPECT_FALSE(second->lookupSymbol<func::FuncOp>("s1.k_add_one").isExternal());
  EXPECT_EQ(callees(*second, "s1"),
            (std::vector<std::string>{"s0.k_exp", "s0.k_exp", "s0.k_exp_vector",
                                      "s1.k_add_one", "s1.k_add_one",
                                      "s0.k_add_two"}));
}

TEST_F(KernelSharingTest, KernelsWritingGlobalsAreTheirOwn) {
  // Globals that may be written: each kernel's storage is its segment's.
  auto [shared, called] = shareAlone([](std::string &source) {
    for (size_t at = source.find(" constant @"); at != std::string::npos;
         at = source.find(" constant @"))
      source.erase(at, 9);
  });
  EXPECT_EQ(shared, 1u);
  EXPECT_EQ(called, (std::vector<std::string>{
                        "s0.k_exp", "s0.k_exp", "s0.k_exp_vector",
                        "s0.k_add_one", "s0.k_add_one_again", "s0.k_add_two"}));
}

TEST_F(KernelSharingTest, KernelsCallingADefinedFunctionAreTheirOwn) {
  // Both exp kernels call a function the segment defines (not a library
  // function it declares): what they compute depends on that function's
  // body, which their key does not hold.
  auto [shared, called] = shareAlone([](std::string &source) {
    std::string exp =
        "  linalg.exp ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)\n";
    std::string call = "  call @helper(%y) : (memref<4xf32>) -> ()\n";
    for (size_t at = source.find(exp); at != std::string::npos;
         at = source.find(exp, at + call.size() + exp.size()))
      source.insert(at, call);
    source += "func.func @helper(%y: memref<4xf32>) {\n  return\n}\n";
  });
  EXPECT_EQ(shared, 1u);
  EXPECT_EQ(called, (std::vector<std::string>{"s0.k_exp", "s0.k_exp_again",
                                              "s0.k_exp_vector", "s0.k_add_one",
                                              "s0.k_add_one", "s0.k_add_two"}));
}

} // namespace
