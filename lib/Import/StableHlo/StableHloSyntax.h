//===- StableHloSyntax.h - StableHLO's text syntax, parsed by MLIR -*- C++ -*-===//
//
// This file declares three dialects that exist only to read StableHLO text:
// `stablehlo`, `chlo` and `check` (its tests' checks). They register no op.
// MLIR's parser asks them for a hook to parse each op's pretty form
// (getParseOperationHook), and for
// their attributes (`#stablehlo.dot<...>`, `#stablehlo<comparison_direction
// LT>`); the hooks build unregistered operations whose attributes are named
// as in the generic form, so that an op reads the same in either form. The
// generic form (`"stablehlo.scatter"(...) <{...}> ({...})`) needs no hook.
// StableHloToKiln.cpp then turns these operations into kiln ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_STABLEHLO_STABLEHLOSYNTAX_H
#define KILN_LIB_IMPORT_STABLEHLO_STABLEHLOSYNTAX_H

#include "mlir/IR/Dialect.h"

namespace kiln {

/// The attribute in which a pretty form's parser leaves the op's position
/// in the text, for the importer to fuse with the op's own location.
constexpr const char *kPositionAttrName = "kiln.syntax.position";

/// What the three syntax dialects share: unknown ops allowed, each op's
/// pretty form read by a hook, `#<dialect>...` attributes read as plain
/// builtin attributes.
class SyntaxDialect : public mlir::Dialect {
public:
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser,
                                 mlir::Type type) const override;
  std::optional<ParseOpHook>
  getParseOperationHook(llvm::StringRef opName) const override;

protected:
  SyntaxDialect(llvm::StringRef name, mlir::MLIRContext *context,
                mlir::TypeID id);
};

/// `stablehlo.*` ops and `#stablehlo` attributes.
class StableHloSyntaxDialect : public SyntaxDialect {
public:
  explicit StableHloSyntaxDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "stablehlo"; }
};

/// `chlo.*` ops (the client ops JAX emits: erf, lgamma, top_k, ...).
class ChloSyntaxDialect : public SyntaxDialect {
public:
  explicit ChloSyntaxDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "chlo"; }
};

/// `check.*` ops of StableHLO's interpreter tests (`check.expect_eq_const
/// %x, dense<...> : tensor<...>`).
class CheckSyntaxDialect : public SyntaxDialect {
public:
  explicit CheckSyntaxDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "check"; }
};

/// `sdy.*`: Shardy, the partitioner newer JAX lowers shardings to (a mesh
/// op, `#sdy.sharding<...>` attributes, sharding constraints, shard_map as
/// `sdy.manual_computation`). Its attributes are kept as their text, as an
/// unloaded dialect's would be; its ops are an error that says what to give
/// kiln instead (kShardyNotImported), not MLIR's "dialect not found".
class ShardySyntaxDialect : public mlir::Dialect {
public:
  explicit ShardySyntaxDialect(mlir::MLIRContext *context);
  static llvm::StringRef getDialectNamespace() { return "sdy"; }
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser,
                                 mlir::Type type) const override;
  std::optional<ParseOpHook>
  getParseOperationHook(llvm::StringRef opName) const override;
};

/// What is said of Shardy's ops, which kiln does not import, after the
/// op's name.
extern const char *const kShardyNotImported;

} // namespace kiln

MLIR_DECLARE_EXPLICIT_TYPE_ID(kiln::ShardySyntaxDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(kiln::StableHloSyntaxDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(kiln::CheckSyntaxDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(kiln::ChloSyntaxDialect)

#endif // KILN_LIB_IMPORT_STABLEHLO_STABLEHLOSYNTAX_H
