//===- HloOpcodesTest.cpp - HLO opcode table tests --------------*- C++ -*-===//
//
// This file checks that the HLO opcode table maps both ways and that every
// kiln op it names is registered by the dialect.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/HloOpcodes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace kiln;

TEST(HloOpcodes, MapsBothWays) {
  EXPECT_EQ(kilnOpNameForHloOpcode("broadcast"), "kiln.broadcast_in_dim");
  EXPECT_EQ(kilnOpNameForHloOpcode("dot"), "kiln.dot_general");
  EXPECT_EQ(hloOpcodeForKilnOpName("kiln.shift_right_logical"),
            "shift-right-logical");
  EXPECT_EQ(kilnOpNameForHloOpcode("no-such-opcode"), "");
  // Structural opcodes are the importer's business, not the table's.
  EXPECT_EQ(kilnOpNameForHloOpcode("tuple"), "");
  EXPECT_EQ(kilnOpNameForHloOpcode("parameter"), "");
}

TEST(HloOpcodes, EveryKilnOpIsRegistered) {
  mlir::MLIRContext context;
  context.loadDialect<KilnDialect>();
  for (const mlir::RegisteredOperationName &name :
       context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "kiln" ||
        name.getStringRef() == "kiln.return" ||
        name.getStringRef() == "kiln.annotate" ||
        name.getStringRef() == "kiln.elided_constant")
      continue;
    if (isKilnOpWithoutHloOpcode(name.getStringRef())) {
      EXPECT_TRUE(hloOpcodeForKilnOpName(name.getStringRef()).empty());
      continue;
    }
    llvm::StringRef hlo = hloOpcodeForKilnOpName(name.getStringRef());
    EXPECT_FALSE(hlo.empty()) << name.getStringRef().str();
    EXPECT_EQ(kilnOpNameForHloOpcode(hlo), name.getStringRef());
  }
}
