//===- KilnDialect.td - the kiln dialect definition -------*- tablegen -*-===//
//
// The kiln dialect holds traced training-step graphs with XLA HLO semantics
// on builtin tensor types, so that every HLO dump has a faithful home.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_TD
#define KILN_DIALECT_KILN_IR_KILNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln";
  let summary = "Tensor-level ops with XLA HLO semantics";
  let description = [{
    Ops are named after HLO opcodes (`kiln.dot_general` is HLO `dot`,
    `kiln.broadcast_in_dim` is HLO `broadcast`) and keep HLO's attribute
    names, so that import and export are mechanical. Tuples are flattened into
    multiple results; sub-computations become regions, or private `func.func`
    plus `func.call` for HLO `call`. HLO metadata becomes MLIR locations.
    Attributes that do not change what is computed but that an HLO dump
    carries (sharding, frontend attributes, backend configs, layouts) are
    kept as discardable `kiln.*` attributes.
  }];
  let useDefaultTypePrinterParser = 1;
  // Folders that give a literal become a kiln.constant.
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Kiln_TokenType : TypeDef<Kiln_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "ordering token of side-effecting HLO ops";
  let description = [{
    HLO's `token[]`: carries no data, orders collectives and other
    side-effecting operations. Produced by `kiln.after_all`.
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_TD
