//===- KilnOps.td - kiln dialect operations ----------------*- tablegen -*-===//
//
// Operations of the kiln dialect. Each op mirrors one XLA HLO opcode and keeps
// HLO's attribute names, so that the importer and exporter translate them
// mechanically (see include/kiln/Dialect/Kiln/IR/HloOpcodes.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

def Kiln_Tensor : RankedTensorOf<[AnyType]>;
def Kiln_TensorOrToken : AnyTypeOf<[AnyRankedTensor, Kiln_TokenType]>;
def Kiln_PredTensor : TensorOf<[I1]>;
def Kiln_IntTensor : TensorOf<[AnySignlessInteger, AnyUnsignedInteger]>;

defvar Kiln_DimsAttr = DenseI64ArrayAttr;
defvar Kiln_OptDimsAttr = DefaultValuedAttr<DenseI64ArrayAttr, "{}">;

/// The generic assembly for ops without regions: operands, attributes, and
/// the function type, which keeps every op printable and parseable with one
/// format.
class Kiln_GenericFormatOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, traits> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

/// Ops whose sub-computation (HLO `to_apply`, `condition`/`body`, ...) is a
/// region. HLO computations cannot capture outer values.
class Kiln_RegionOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [IsolatedFromAbove, RecursiveMemoryEffects])> {
  let assemblyFormat = [{
    `(` operands `)` attr-dict-with-keyword regions `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Terminator
//===----------------------------------------------------------------------===//

def Kiln_ReturnOp : Kiln_Op<"return", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ReduceOp", "ReduceWindowOp", "SortOp", "ScatterOp",
                 "WhileOp", "ConditionalOp", "AllReduceOp",
                 "ReduceScatterOp", "SelectAndScatterOp", "MapOp",
                 "FusionOp", "AsyncStartOp", "AllReduceStartOp"]>]> {
  let summary = "returns the values of a region (an HLO computation's ROOT)";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$results);
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

//===----------------------------------------------------------------------===//
// Leaves: constants, iota, ids, tokens
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant", [Pure, ConstantLike, AllTypesMatch<["value", "output"]>]> {
  let summary = "HLO constant: a literal tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ElidedConstantOp : Kiln_Op<"elided_constant", [Pure]> {
  let summary = "HLO constant whose value a dump left out (`{...}`)";
  let description = [{
    Dumps elide large literals (usually weights baked into the graph). The
    type is known, the value is not: such a graph imports, hashes and
    round-trips, but cannot be compiled.
  }];
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def Kiln_IotaOp : Kiln_Op<"iota", [Pure]> {
  let summary = "HLO iota: indices along one dimension";
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Kiln_CausalMaskOp : Kiln_Op<"causal_mask", [Pure]> {
  let summary = "a mask over two dimensions: kept within diagonals, else masked";
  let description = [{
    What kiln-fold-causal-mask turns a causal or sliding-window attention
    mask into, whatever ops spelled it: element `idx` of the result is
    `kept` where `min_diagonal <= idx[column_dimension] -
    idx[row_dimension] <= max_diagonal` (a bound that is absent does not
    bound) and `masked` elsewhere. A causal mask keeps `j - i <= 0`; a
    sliding window of `w` keeps `-(w - 1) <= j - i <= 0`. It depends on no
    input and is never materialized as a literal: a consumer can compute it
    from the indices, and skip the positions it masks.
  }];
  let arguments = (ins I64Attr:$row_dimension, I64Attr:$column_dimension,
                   OptionalAttr<I64Attr>:$min_diagonal,
                   OptionalAttr<I64Attr>:$max_diagonal,
                   TypedAttrInterface:$kept, TypedAttrInterface:$masked);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Kiln_PartitionIdOp : Kiln_GenericFormatOp<"partition_id", [Pure]> {
  let summary = "HLO partition-id: this partition's number (u32 scalar)";
  let results = (outs 0DTensorOf<[UI32]>:$output);
}

def Kiln_ReplicaIdOp : Kiln_GenericFormatOp<"replica_id", [Pure]> {
  let summary = "HLO replica-id: this replica's number (u32 scalar)";
  let results = (outs 0DTensorOf<[UI32]>:$output);
}

def Kiln_AfterAllOp : Kiln_GenericFormatOp<"after_all", [Pure]> {
  let summary = "HLO after-all: a token ordered after all input tokens";
  let arguments = (ins Variadic<Kiln_TokenType>:$inputs);
  let results = (outs Kiln_TokenType:$output);
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Kiln_BroadcastInDimOp : Kiln_GenericFormatOp<"broadcast_in_dim", [Pure]> {
  let summary = "HLO broadcast: operand dimension i becomes result dimension dimensions[i]";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ReshapeOp : Kiln_GenericFormatOp<"reshape", [Pure]> {
  let summary = "HLO reshape: same elements in row-major order, new shape";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_TransposeOp : Kiln_GenericFormatOp<"transpose", [Pure]> {
  let summary = "HLO transpose: result dimension i is operand dimension dimensions[i]";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ReverseOp : Kiln_GenericFormatOp<"reverse", [Pure]> {
  let summary = "HLO reverse: reverses the listed dimensions";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_SliceOp : Kiln_GenericFormatOp<"slice", [Pure]> {
  let summary = "HLO slice: a static strided window";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$start_indices,
                   Kiln_DimsAttr:$limit_indices, Kiln_DimsAttr:$strides);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_DynamicSliceOp : Kiln_GenericFormatOp<"dynamic_slice", [Pure]> {
  let summary = "HLO dynamic-slice: a window at run-time start indices";
  let arguments = (ins Kiln_Tensor:$operand,
                   Variadic<0DTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>>:$start_indices,
                   Kiln_DimsAttr:$dynamic_slice_sizes);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_DynamicUpdateSliceOp : Kiln_GenericFormatOp<"dynamic_update_slice", [Pure]> {
  let summary = "HLO dynamic-update-slice: writes update at run-time start indices";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$update,
                   Variadic<0DTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>>:$start_indices);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ConcatenateOp : Kiln_GenericFormatOp<"concatenate", [Pure]> {
  let summary = "HLO concatenate: joins inputs along dimensions[0]";
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_PadOp : Kiln_GenericFormatOp<"pad", [Pure]> {
  let summary = "HLO pad: edge (possibly negative) and interior padding";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$padding_value,
                   Kiln_DimsAttr:$edge_padding_low,
                   Kiln_DimsAttr:$edge_padding_high,
                   Kiln_DimsAttr:$interior_padding);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_ConvertOp : Kiln_GenericFormatOp<"convert", [Pure]> {
  let summary = "HLO convert: element type conversion";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_BitcastConvertOp : Kiln_GenericFormatOp<"bitcast_convert", [Pure]> {
  let summary = "HLO bitcast-convert: reinterprets element bits";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ReducePrecisionOp : Kiln_GenericFormatOp<"reduce_precision", [Pure]> {
  let summary = "HLO reduce-precision: rounds to fewer exponent and mantissa bits";
  let arguments = (ins Kiln_Tensor:$operand, I64Attr:$exponent_bits,
                   I64Attr:$mantissa_bits);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_CopyOp : Kiln_GenericFormatOp<"copy", [Pure, SameOperandsAndResultType]> {
  let summary = "HLO copy (possibly to another layout)";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasFolder = 1;
}

def Kiln_BitcastOp : Kiln_GenericFormatOp<"bitcast", [Pure]> {
  let summary = "HLO bitcast: a layout-level reinterpretation of the same bytes";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

class Kiln_UnaryOp<string mnemonic, string hlo, list<Trait> traits = []>
    : Kiln_GenericFormatOp<mnemonic, !listconcat(traits, [Pure, Elementwise, SameOperandsAndResultType])> {
  let summary = "HLO " # hlo # ": element-wise";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
}

def Kiln_AbsOp : Kiln_GenericFormatOp<"abs", [Pure, Elementwise]> {
  let summary = "HLO abs: element-wise; of a complex number, its (real) modulus";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}
def Kiln_NegateOp : Kiln_UnaryOp<"negate", "negate">;
def Kiln_ExpOp : Kiln_UnaryOp<"exponential", "exponential">;
def Kiln_Expm1Op : Kiln_UnaryOp<"exponential_minus_one", "exponential-minus-one">;
def Kiln_LogOp : Kiln_UnaryOp<"log", "log">;
def Kiln_Log1pOp : Kiln_UnaryOp<"log_plus_one", "log-plus-one">;
def Kiln_SqrtOp : Kiln_UnaryOp<"sqrt", "sqrt">;
def Kiln_RsqrtOp : Kiln_UnaryOp<"rsqrt", "rsqrt">;
def Kiln_CbrtOp : Kiln_UnaryOp<"cbrt", "cbrt">;
def Kiln_TanhOp : Kiln_UnaryOp<"tanh", "tanh">;
def Kiln_LogisticOp : Kiln_UnaryOp<"logistic", "logistic">;
def Kiln_SineOp : Kiln_UnaryOp<"sine", "sine">;
def Kiln_CosineOp : Kiln_UnaryOp<"cosine", "cosine">;
def Kiln_TanOp : Kiln_UnaryOp<"tan", "tan">;
def Kiln_ErfOp : Kiln_UnaryOp<"erf", "erf">;
def Kiln_FloorOp : Kiln_UnaryOp<"floor", "floor">;
def Kiln_CeilOp : Kiln_UnaryOp<"ceil", "ceil">;
def Kiln_RoundNearestAfzOp : Kiln_UnaryOp<"round_nearest_afz", "round-nearest-afz">;
def Kiln_RoundNearestEvenOp : Kiln_UnaryOp<"round_nearest_even", "round-nearest-even">;
def Kiln_SignOp : Kiln_UnaryOp<"sign", "sign">;
def Kiln_NotOp : Kiln_UnaryOp<"not", "not">;
def Kiln_PopcntOp : Kiln_UnaryOp<"popcnt", "popcnt">;
def Kiln_ClzOp : Kiln_UnaryOp<"count_leading_zeros", "count-leading-zeros">;

//===----------------------------------------------------------------------===//
// CHLO's functions: the client ops that JAX emits into StableHLO and that
// HLO has no opcode for (XLA expands them before it writes HLO). Each is an
// op of its own, so that a signature sees it and the evaluator can compute
// it exactly.
//===----------------------------------------------------------------------===//

class Kiln_ChloUnaryOp<string mnemonic>
    : Kiln_GenericFormatOp<mnemonic, [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "CHLO " # mnemonic # ": element-wise (no HLO opcode)";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
}
def Kiln_AcosOp : Kiln_ChloUnaryOp<"acos">;
def Kiln_AcoshOp : Kiln_ChloUnaryOp<"acosh">;
def Kiln_AsinOp : Kiln_ChloUnaryOp<"asin">;
def Kiln_AsinhOp : Kiln_ChloUnaryOp<"asinh">;
def Kiln_AtanOp : Kiln_ChloUnaryOp<"atan">;
def Kiln_AtanhOp : Kiln_ChloUnaryOp<"atanh">;
def Kiln_CoshOp : Kiln_ChloUnaryOp<"cosh">;
def Kiln_SinhOp : Kiln_ChloUnaryOp<"sinh">;
def Kiln_ErfcOp : Kiln_ChloUnaryOp<"erfc">;
def Kiln_ErfInvOp : Kiln_ChloUnaryOp<"erf_inv">;
def Kiln_LgammaOp : Kiln_ChloUnaryOp<"lgamma">;
def Kiln_DigammaOp : Kiln_ChloUnaryOp<"digamma">;
def Kiln_BesselI1eOp : Kiln_ChloUnaryOp<"bessel_i1e">;

class Kiln_ChloBinaryOp<string mnemonic>
    : Kiln_GenericFormatOp<mnemonic, [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "CHLO " # mnemonic # ": element-wise (no HLO opcode)";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$output);
}

//===----------------------------------------------------------------------===//
// Quantization (StableHLO's, on `!quant.uniform` element types; no HLO
// opcode)
//===----------------------------------------------------------------------===//

def Kiln_UniformQuantizeOp : Kiln_GenericFormatOp<"uniform_quantize", [Pure, Elementwise]> {
  let summary = "StableHLO uniform_quantize: to (or between) quantized types";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_UniformDequantizeOp : Kiln_GenericFormatOp<"uniform_dequantize", [Pure, Elementwise]> {
  let summary = "StableHLO uniform_dequantize: a quantized tensor's real values";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}
def Kiln_NextAfterOp : Kiln_ChloBinaryOp<"next_after">;
def Kiln_PolygammaOp : Kiln_ChloBinaryOp<"polygamma">;
def Kiln_ZetaOp : Kiln_ChloBinaryOp<"zeta">;
def Kiln_MulhiOp : Kiln_ChloBinaryOp<"mulhi">;

def Kiln_IsFiniteOp : Kiln_GenericFormatOp<"is_finite", [Pure, Elementwise]> {
  let summary = "HLO is-finite: element-wise test, pred result";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_PredTensor:$output);
  let hasVerifier = 1;
}

class Kiln_BinaryOp<string mnemonic, string hlo, list<Trait> traits = []>
    : Kiln_GenericFormatOp<mnemonic, !listconcat(traits, [Pure, Elementwise, SameOperandsAndResultType])> {
  let summary = "HLO " # hlo # ": element-wise";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$output);
}

def Kiln_AddOp : Kiln_BinaryOp<"add", "add", [Commutative]>;
def Kiln_SubtractOp : Kiln_BinaryOp<"subtract", "subtract">;
def Kiln_MultiplyOp : Kiln_BinaryOp<"multiply", "multiply", [Commutative]>;
def Kiln_DivideOp : Kiln_BinaryOp<"divide", "divide">;
def Kiln_RemainderOp : Kiln_BinaryOp<"remainder", "remainder">;
def Kiln_MaximumOp : Kiln_BinaryOp<"maximum", "maximum", [Commutative]>;
def Kiln_MinimumOp : Kiln_BinaryOp<"minimum", "minimum", [Commutative]>;
def Kiln_PowerOp : Kiln_BinaryOp<"power", "power">;
def Kiln_Atan2Op : Kiln_BinaryOp<"atan2", "atan2">;
def Kiln_AndOp : Kiln_BinaryOp<"and", "and", [Commutative]>;
def Kiln_OrOp : Kiln_BinaryOp<"or", "or", [Commutative]>;
def Kiln_XorOp : Kiln_BinaryOp<"xor", "xor", [Commutative]>;
def Kiln_ShiftLeftOp : Kiln_BinaryOp<"shift_left", "shift-left">;
def Kiln_ShiftRightLogicalOp : Kiln_BinaryOp<"shift_right_logical", "shift-right-logical">;
def Kiln_ShiftRightArithmeticOp : Kiln_BinaryOp<"shift_right_arithmetic", "shift-right-arithmetic">;

def Kiln_CompareOp : Kiln_GenericFormatOp<"compare", [Pure, Elementwise]> {
  let summary = "HLO compare: element-wise comparison, pred result";
  let description = [{
    `direction` is one of EQ, NE, LT, LE, GT, GE; `type` (optional) is one
    of FLOAT, TOTALORDER, SIGNED, UNSIGNED, as in HLO.
  }];
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs, StrAttr:$direction,
                   OptionalAttr<StrAttr>:$type);
  let results = (outs Kiln_PredTensor:$output);
  let hasVerifier = 1;
}

def Kiln_SelectOp : Kiln_GenericFormatOp<"select", [Pure]> {
  let summary = "HLO select: element-wise (or scalar-predicate) choice";
  let arguments = (ins Kiln_PredTensor:$pred, Kiln_Tensor:$on_true,
                   Kiln_Tensor:$on_false);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ClampOp : Kiln_GenericFormatOp<"clamp", [Pure]> {
  let summary = "HLO clamp: max(min, min(operand, max)); bounds may be scalars";
  let arguments = (ins Kiln_Tensor:$min, Kiln_Tensor:$operand, Kiln_Tensor:$max);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions, reductions, sorting, indexing
//===----------------------------------------------------------------------===//

def Kiln_DotGeneralOp : Kiln_GenericFormatOp<"dot_general", [Pure]> {
  let summary = "HLO dot: batched contraction over named dimensions";
  let description = [{
    Result dimensions are the batch dimensions, then lhs free dimensions,
    then rhs free dimensions, each in operand order.
  }];
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs,
                   Kiln_OptDimsAttr:$lhs_batch_dims,
                   Kiln_OptDimsAttr:$lhs_contracting_dims,
                   Kiln_OptDimsAttr:$rhs_batch_dims,
                   Kiln_OptDimsAttr:$rhs_contracting_dims,
                   OptionalAttr<StrArrayAttr>:$operand_precision,
                   OptionalAttr<StrAttr>:$algorithm);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ReduceOp : Kiln_RegionOp<"reduce", [SameVariadicOperandSize]> {
  let summary = "HLO reduce: folds dimensions with a reducer region";
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs,
                   Variadic<Kiln_Tensor>:$init_values, Kiln_DimsAttr:$dimensions);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_ReduceWindowOp : Kiln_RegionOp<"reduce_window", [SameVariadicOperandSize]> {
  let summary = "HLO reduce-window: folds sliding windows with a reducer region";
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs,
                   Variadic<Kiln_Tensor>:$init_values,
                   Kiln_DimsAttr:$window_dimensions,
                   Kiln_DimsAttr:$window_strides,
                   Kiln_DimsAttr:$base_dilations,
                   Kiln_DimsAttr:$window_dilations,
                   Kiln_DimsAttr:$padding_low,
                   Kiln_DimsAttr:$padding_high);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_SortOp : Kiln_RegionOp<"sort"> {
  let summary = "HLO sort: sorts inputs together along dimensions[0]";
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, Kiln_DimsAttr:$dimensions,
                   DefaultValuedAttr<BoolAttr, "false">:$is_stable);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_TopKOp : Kiln_GenericFormatOp<"topk", [Pure]> {
  let summary = "HLO topk: the k largest (or smallest) along the last dimension";
  let arguments = (ins Kiln_Tensor:$operand, I64Attr:$k,
                   DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs Kiln_Tensor:$values, Kiln_IntTensor:$indices);
  let hasVerifier = 1;
}

def Kiln_GatherOp : Kiln_GenericFormatOp<"gather", [Pure]> {
  let summary = "HLO gather: slices at run-time indices";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_IntTensor:$start_indices,
                   Kiln_OptDimsAttr:$offset_dims,
                   Kiln_OptDimsAttr:$collapsed_slice_dims,
                   Kiln_OptDimsAttr:$operand_batching_dims,
                   Kiln_OptDimsAttr:$start_indices_batching_dims,
                   Kiln_OptDimsAttr:$start_index_map,
                   I64Attr:$index_vector_dim,
                   Kiln_DimsAttr:$slice_sizes,
                   DefaultValuedAttr<BoolAttr, "false">:$indices_are_sorted);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ScatterOp : Kiln_RegionOp<"scatter", [SameVariadicOperandSize]> {
  let summary = "HLO scatter: combines updates into inputs at run-time indices";
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs,
                   Kiln_IntTensor:$scatter_indices,
                   Variadic<Kiln_Tensor>:$updates,
                   Kiln_OptDimsAttr:$update_window_dims,
                   Kiln_OptDimsAttr:$inserted_window_dims,
                   Kiln_OptDimsAttr:$input_batching_dims,
                   Kiln_OptDimsAttr:$scatter_indices_batching_dims,
                   Kiln_OptDimsAttr:$scatter_dims_to_operand_dims,
                   I64Attr:$index_vector_dim,
                   DefaultValuedAttr<BoolAttr, "false">:$indices_are_sorted,
                   DefaultValuedAttr<BoolAttr, "false">:$unique_indices);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_BatchNormTrainingOp : Kiln_GenericFormatOp<"batch_norm_training", [Pure]> {
  let summary = "HLO batch-norm-training: normalized output, batch mean and variance";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$scale,
                   Kiln_Tensor:$offset, F32Attr:$epsilon, I64Attr:$feature_index);
  let results = (outs Kiln_Tensor:$output, Kiln_Tensor:$batch_mean,
                 Kiln_Tensor:$batch_var);
  let hasVerifier = 1;
}

def Kiln_BatchNormInferenceOp : Kiln_GenericFormatOp<"batch_norm_inference", [Pure]> {
  let summary = "HLO batch-norm-inference: normalizes with given statistics";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$scale,
                   Kiln_Tensor:$offset, Kiln_Tensor:$mean, Kiln_Tensor:$variance,
                   F32Attr:$epsilon, I64Attr:$feature_index);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_BatchNormGradOp : Kiln_GenericFormatOp<"batch_norm_grad", [Pure]> {
  let summary = "HLO batch-norm-grad: gradients of batch normalization";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$scale,
                   Kiln_Tensor:$mean, Kiln_Tensor:$variance,
                   Kiln_Tensor:$grad_output, F32Attr:$epsilon,
                   I64Attr:$feature_index);
  let results = (outs Kiln_Tensor:$grad_operand, Kiln_Tensor:$grad_scale,
                 Kiln_Tensor:$grad_offset);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

def Kiln_RngOp : Kiln_GenericFormatOp<"rng"> {
  let summary = "HLO rng: random numbers from a distribution (rng_uniform, rng_normal)";
  let arguments = (ins Kiln_Tensor:$a, Kiln_Tensor:$b, StrAttr:$distribution);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_RngBitGeneratorOp : Kiln_GenericFormatOp<"rng_bit_generator", [Pure]> {
  let summary = "HLO rng-bit-generator: random bits and the next generator state";
  let arguments = (ins Kiln_Tensor:$initial_state,
                   DefaultValuedAttr<StrAttr, "\"rng_default\"">:$algorithm);
  let results = (outs Kiln_Tensor:$output_state, Kiln_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control flow and opaque calls
//===----------------------------------------------------------------------===//

def Kiln_WhileOp : Kiln_RegionOp<"while"> {
  let summary = "HLO while: loops body while cond holds; state is flattened";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let regions = (region SizedRegion<1>:$condition, SizedRegion<1>:$body);
  let hasVerifier = 1;
}

def Kiln_ConditionalOp : Kiln_Op<"conditional", [IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "HLO conditional: runs one branch chosen by a pred or an s32 index";
  let description = [{
    `branch_operands` holds each branch's (flattened) operand in order;
    `branch_operand_counts[i]` says how many belong to branch i.
  }];
  let arguments = (ins 0DTensorOf<[I1, I32]>:$index,
                   Variadic<Kiln_TensorOrToken>:$branch_operands,
                   Kiln_DimsAttr:$branch_operand_counts);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = [{
    `(` operands `)` attr-dict-with-keyword $branches `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Kiln_AnnotateOp : Kiln_GenericFormatOp<"annotate", [Pure]> {
  let summary = "identity that keeps the attributes of an HLO instruction that became no op";
  let description = [{
    Tuples are flattened, so HLO `tuple` and `get-tuple-element` become no
    op at all, and a region's `parameter` becomes block arguments, which
    cannot hold attributes. When such an instruction carries attributes (a
    sharding that feeds SPMD partitioning, frontend attributes), the
    importer keeps them on this identity op over the values concerned;
    `hlo_opcode` says which instruction it was, so that the exporter can
    write it back.
  }];
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   StrAttr:$hlo_opcode);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_OptimizationBarrierOp : Kiln_GenericFormatOp<"optimization_barrier"> {
  let summary = "HLO opt-barrier: values that optimizations must not move across";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_CustomCallOp : Kiln_GenericFormatOp<"custom_call"> {
  let summary = "HLO custom-call: an opaque call into the backend, kept verbatim";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$inputs,
                   StrAttr:$custom_call_target,
                   OptionalAttr<StrAttr>:$backend_config,
                   OptionalAttr<StrAttr>:$api_version,
                   DefaultValuedAttr<BoolAttr, "false">:$custom_call_has_side_effect);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Replica groups are stored expanded, as a [groups x group size] i64
/// tensor, whatever form (explicit or iota) the dump used.
defvar Kiln_ReplicaGroupsAttr = I64ElementsAttr;

def Kiln_AllReduceOp : Kiln_RegionOp<"all_reduce"> {
  let summary = "HLO all-reduce: reduces across the replicas of each group";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$use_global_device_ids);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_AllGatherOp : Kiln_GenericFormatOp<"all_gather"> {
  let summary = "HLO all-gather: concatenates every group member's operand along dimensions[0]";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands, Kiln_DimsAttr:$dimensions,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$use_global_device_ids);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_ReduceScatterOp : Kiln_RegionOp<"reduce_scatter"> {
  let summary = "HLO reduce-scatter: reduces, then scatters slices along dimensions[0]";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands, Kiln_DimsAttr:$dimensions,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$use_global_device_ids);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_AllToAllOp : Kiln_GenericFormatOp<"all_to_all"> {
  let summary = "HLO all-to-all: exchanges slices (along dimensions[0] when given)";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands,
                   Kiln_OptDimsAttr:$dimensions,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_CollectivePermuteOp : Kiln_GenericFormatOp<"collective_permute"> {
  let summary = "HLO collective-permute: sends to targets by (source, target) pairs";
  let description = [{
    Each operand is sent whole: result i of a target is operand i of its
    source (zeros where no pair names it as a target). Several operands are
    HLO's combined form, which PyTorch/XLA writes with a scalar token beside
    the tensors.
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$operands,
                   I64ElementsAttr:$source_target_pairs,
                   OptionalAttr<I64Attr>:$channel_id);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Complex numbers and Fourier transforms
//===----------------------------------------------------------------------===//

def Kiln_RealOp : Kiln_GenericFormatOp<"real", [Pure, Elementwise]> {
  let summary = "HLO real: the real part of complex elements (identity on floats)";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ImagOp : Kiln_GenericFormatOp<"imag", [Pure, Elementwise]> {
  let summary = "HLO imag: the imaginary part of complex elements (zero for floats)";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ComplexOp : Kiln_GenericFormatOp<"complex", [Pure, Elementwise]> {
  let summary = "HLO complex: complex elements from real (lhs) and imaginary (rhs) parts";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_FftOp : Kiln_GenericFormatOp<"fft", [Pure]> {
  let summary = "HLO fft: FFT, IFFT, RFFT or IRFFT over the trailing dimensions";
  let description = [{
    `fft_length` gives the transform's length in each of the 1 to 3
    trailing dimensions. RFFT turns real input into the non-redundant half
    (last dimension fft_length/2+1) of the complex spectrum; IRFFT inverts it.
  }];
  let arguments = (ins Kiln_Tensor:$operand, StrAttr:$fft_type,
                   Kiln_DimsAttr:$fft_length);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Windowed ops: convolution, select-and-scatter
//===----------------------------------------------------------------------===//

def Kiln_ConvolutionOp : Kiln_GenericFormatOp<"convolution", [Pure]> {
  let summary = "HLO convolution: windowed contraction of an input with a kernel";
  let description = [{
    The window keeps HLO's `window={size= stride= pad= lhs_dilate=
    rhs_dilate= rhs_reversal=}` under the names reduce_window uses
    (`base_dilations` is lhs_dilate, `window_dilations` rhs_dilate);
    `dim_labels` (`b01f_01io->b01f`) become the dimension numbers: which
    input, kernel and output dimension is the batch, the feature, and each
    spatial dimension. The result element type may differ from the
    operands' (a bf16 convolution accumulating into f32).
  }];
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs,
                   Kiln_OptDimsAttr:$window_dimensions,
                   Kiln_OptDimsAttr:$window_strides,
                   Kiln_OptDimsAttr:$padding_low,
                   Kiln_OptDimsAttr:$padding_high,
                   Kiln_OptDimsAttr:$base_dilations,
                   Kiln_OptDimsAttr:$window_dilations,
                   OptionalAttr<DenseBoolArrayAttr>:$window_reversal,
                   I64Attr:$input_batch_dimension,
                   I64Attr:$input_feature_dimension,
                   Kiln_DimsAttr:$input_spatial_dimensions,
                   I64Attr:$kernel_input_feature_dimension,
                   I64Attr:$kernel_output_feature_dimension,
                   Kiln_DimsAttr:$kernel_spatial_dimensions,
                   I64Attr:$output_batch_dimension,
                   I64Attr:$output_feature_dimension,
                   Kiln_DimsAttr:$output_spatial_dimensions,
                   DefaultValuedAttr<I64Attr, "1">:$feature_group_count,
                   DefaultValuedAttr<I64Attr, "1">:$batch_group_count,
                   OptionalAttr<StrArrayAttr>:$operand_precision);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_SelectAndScatterOp : Kiln_Op<"select_and_scatter",
    [IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "HLO select-and-scatter: scatters source into the selected element of each window";
  let description = [{
    The gradient of max-pooling. For each window of `operand`, `select`
    (element, element) -> pred picks one element; the matching `source`
    element is combined into it with `scatter`, starting from `init_value`.
  }];
  let arguments = (ins Kiln_Tensor:$operand, Kiln_Tensor:$source,
                   Kiln_Tensor:$init_value,
                   Kiln_DimsAttr:$window_dimensions,
                   Kiln_DimsAttr:$window_strides,
                   Kiln_DimsAttr:$base_dilations,
                   Kiln_DimsAttr:$window_dilations,
                   Kiln_DimsAttr:$padding_low,
                   Kiln_DimsAttr:$padding_high);
  let results = (outs Kiln_Tensor:$output);
  let regions = (region SizedRegion<1>:$select, SizedRegion<1>:$scatter);
  let assemblyFormat = [{
    `(` operands `)` attr-dict-with-keyword regions `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Kiln_CholeskyOp : Kiln_GenericFormatOp<"cholesky", [Pure]> {
  let summary = "HLO cholesky: the Cholesky factor of each trailing square matrix";
  let arguments = (ins Kiln_Tensor:$operand,
                   DefaultValuedAttr<BoolAttr, "false">:$lower);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_TriangularSolveOp : Kiln_GenericFormatOp<"triangular_solve", [Pure]> {
  let summary = "HLO triangular-solve: solves op(a) x = b or x op(a) = b for x";
  let description = [{
    `transpose_a` is NO_TRANSPOSE, TRANSPOSE or ADJOINT, as in HLO.
  }];
  let arguments = (ins Kiln_Tensor:$a, Kiln_Tensor:$b,
                   DefaultValuedAttr<BoolAttr, "false">:$left_side,
                   DefaultValuedAttr<BoolAttr, "false">:$lower,
                   DefaultValuedAttr<BoolAttr, "false">:$unit_diagonal,
                   DefaultValuedAttr<StrAttr, "\"NO_TRANSPOSE\"">:$transpose_a);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_RaggedDotOp : Kiln_GenericFormatOp<"ragged_dot", [Pure]> {
  let summary = "HLO ragged-dot: a dot whose ragged lhs dimension is split into groups";
  let description = [{
    `group_sizes` splits lhs's ragged dimension into consecutive groups;
    group g is multiplied with rhs's slice g along its group dimension
    (mixture-of-experts layers).
  }];
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs,
                   Kiln_IntTensor:$group_sizes,
                   Kiln_OptDimsAttr:$lhs_batch_dims,
                   Kiln_OptDimsAttr:$lhs_contracting_dims,
                   Kiln_OptDimsAttr:$rhs_batch_dims,
                   Kiln_OptDimsAttr:$rhs_contracting_dims,
                   Kiln_DimsAttr:$lhs_ragged_dims,
                   Kiln_OptDimsAttr:$rhs_group_dims,
                   OptionalAttr<StrArrayAttr>:$operand_precision);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ScaledDotOp : Kiln_GenericFormatOp<"scaled_dot", [Pure]> {
  let summary = "HLO scaled-dot: a dot of block-scaled operands (microscaling formats)";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs,
                   Kiln_Tensor:$lhs_scale, Kiln_Tensor:$rhs_scale,
                   Kiln_OptDimsAttr:$lhs_batch_dims,
                   Kiln_OptDimsAttr:$lhs_contracting_dims,
                   Kiln_OptDimsAttr:$rhs_batch_dims,
                   Kiln_OptDimsAttr:$rhs_contracting_dims);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computations run by an op: map, fusion
//===----------------------------------------------------------------------===//

def Kiln_MapOp : Kiln_RegionOp<"map", [Pure]> {
  let summary = "HLO map: applies a scalar computation to the elements of its inputs";
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, Kiln_OptDimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_FusionOp : Kiln_RegionOp<"fusion"> {
  let summary = "HLO fusion: a fused computation (`calls=`) run as one kernel";
  let description = [{
    Dumps taken after optimization group instructions into fusions; the
    fused computation is the region. `kind` is XLA's fusion kind (kLoop,
    kInput, kOutput, kCustom).
  }];
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands, StrAttr:$kind);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let regions = (region SizedRegion<1>:$calls);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Conversions, random state and dynamic shapes
//===----------------------------------------------------------------------===//

def Kiln_StochasticConvertOp : Kiln_GenericFormatOp<"stochastic_convert", [Pure, Elementwise]> {
  let summary = "HLO stochastic-convert: rounds to a narrower type using random bits";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_IntTensor:$random);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_RngGetAndUpdateStateOp : Kiln_GenericFormatOp<"rng_get_and_update_state"> {
  let summary = "HLO rng-get-and-update-state: the RNG state, then advanced by delta";
  let arguments = (ins I64Attr:$delta);
  let results = (outs 1DTensorOf<[UI64]>:$output);
  let hasVerifier = 1;
}

def Kiln_GetDimensionSizeOp : Kiln_GenericFormatOp<"get_dimension_size", [Pure]> {
  let summary = "HLO get-dimension-size: the run-time size of dimensions[0] (s32)";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$dimensions);
  let results = (outs 0DTensorOf<[I32]>:$output);
  let hasVerifier = 1;
}

def Kiln_SetDimensionSizeOp : Kiln_GenericFormatOp<"set_dimension_size", [Pure]> {
  let summary = "HLO set-dimension-size: marks dimensions[0] dynamic with a run-time size";
  let arguments = (ins Kiln_Tensor:$operand, 0DTensorOf<[I32]>:$size,
                   Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_DynamicReshapeOp : Kiln_GenericFormatOp<"dynamic_reshape", [Pure]> {
  let summary = "HLO dynamic-reshape: reshape to run-time sizes within the result's bounds";
  let arguments = (ins Kiln_Tensor:$operand,
                   Variadic<0DTensorOf<[I32]>>:$output_sizes);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_DomainOp : Kiln_GenericFormatOp<"domain", [Pure]> {
  let summary = "HLO domain: an identity that marks a sharding or device domain boundary";
  let description = [{
    The domain's description (`domain={kind=... entry=... exit=...}`) is
    kept as `kiln.domain`.
  }];
  let arguments = (ins Kiln_TensorOrToken:$operand);
  let results = (outs Kiln_TensorOrToken:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Ordering, host transfers and point-to-point communication
//===----------------------------------------------------------------------===//

def Kiln_AddDependencyOp : Kiln_GenericFormatOp<"add_dependency"> {
  let summary = "HLO add-dependency: the operand, ordered after a token";
  let arguments = (ins Kiln_TensorOrToken:$operand, Kiln_TokenType:$token);
  let results = (outs Kiln_TensorOrToken:$output);
  let hasVerifier = 1;
}

def Kiln_InfeedOp : Kiln_GenericFormatOp<"infeed"> {
  let summary = "HLO infeed: data from the host, then a token (flattened)";
  let arguments = (ins Kiln_TokenType:$token);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_OutfeedOp : Kiln_GenericFormatOp<"outfeed"> {
  let summary = "HLO outfeed: data (flattened) to the host after a token";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands);
  let results = (outs Kiln_TokenType:$output);
  let hasVerifier = 1;
}

def Kiln_SendOp : Kiln_GenericFormatOp<"send"> {
  let summary = "HLO send: starts sending data on a channel; (data, u32 context, token)";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$is_host_transfer);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_SendDoneOp : Kiln_GenericFormatOp<"send_done"> {
  let summary = "HLO send-done: waits for a send; a token";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$is_host_transfer);
  let results = (outs Kiln_TokenType:$output);
  let hasVerifier = 1;
}

def Kiln_RecvOp : Kiln_GenericFormatOp<"recv"> {
  let summary = "HLO recv: starts receiving data on a channel; (data, u32 context, token)";
  let arguments = (ins Kiln_TokenType:$token,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$is_host_transfer);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_RecvDoneOp : Kiln_GenericFormatOp<"recv_done"> {
  let summary = "HLO recv-done: waits for a recv; (data, token)";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$is_host_transfer);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous pairs
//===----------------------------------------------------------------------===//

def Kiln_AsyncStartOp : Kiln_RegionOp<"async_start"> {
  let summary = "HLO async-start: starts the wrapped computation (`calls=`)";
  let description = [{
    The HLO result is a tuple ((operands...), (results...), context...),
    flattened: the operands' types, then the wrapped computation's result
    types, then any context values.
  }];
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   OptionalAttr<StrAttr>:$async_execution_thread);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let regions = (region SizedRegion<1>:$calls);
  let hasVerifier = 1;
}

def Kiln_AsyncUpdateOp : Kiln_GenericFormatOp<"async_update"> {
  let summary = "HLO async-update: passes an async computation's state on";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   OptionalAttr<StrAttr>:$async_execution_thread);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_AsyncDoneOp : Kiln_GenericFormatOp<"async_done"> {
  let summary = "HLO async-done: waits for an async computation; its results";
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$operands,
                   OptionalAttr<StrAttr>:$async_execution_thread);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
  let hasVerifier = 1;
}

def Kiln_AllReduceStartOp : Kiln_RegionOp<"all_reduce_start"> {
  let summary = "HLO all-reduce-start: starts an all-reduce";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$use_global_device_ids);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$to_apply);
  let hasVerifier = 1;
}

def Kiln_AllReduceDoneOp : Kiln_GenericFormatOp<"all_reduce_done"> {
  let summary = "HLO all-reduce-done: waits for an all-reduce; its results";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_AllGatherStartOp : Kiln_GenericFormatOp<"all_gather_start"> {
  let summary = "HLO all-gather-start: starts an all-gather; (operands, results)";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands, Kiln_DimsAttr:$dimensions,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id,
                   DefaultValuedAttr<BoolAttr, "false">:$use_global_device_ids);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_AllGatherDoneOp : Kiln_GenericFormatOp<"all_gather_done"> {
  let summary = "HLO all-gather-done: waits for an all-gather; its results";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_CollectivePermuteStartOp : Kiln_GenericFormatOp<"collective_permute_start"> {
  let summary = "HLO collective-permute-start: (operand, result, u32 contexts...)";
  let arguments = (ins Kiln_Tensor:$operand,
                   I64ElementsAttr:$source_target_pairs,
                   OptionalAttr<I64Attr>:$channel_id);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_CollectivePermuteDoneOp : Kiln_GenericFormatOp<"collective_permute_done"> {
  let summary = "HLO collective-permute-done: waits for a collective-permute; its result";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_CopyStartOp : Kiln_GenericFormatOp<"copy_start"> {
  let summary = "HLO copy-start: starts a copy; (destination, source, u32 context)";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_CopyDoneOp : Kiln_GenericFormatOp<"copy_done"> {
  let summary = "HLO copy-done: waits for a copy; the destination";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// More collectives
//===----------------------------------------------------------------------===//

def Kiln_CollectiveBroadcastOp : Kiln_GenericFormatOp<"collective_broadcast"> {
  let summary = "HLO collective-broadcast: every group member gets the first member's operand";
  let arguments = (ins Variadic<Kiln_Tensor>:$operands,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id);
  let results = (outs Variadic<Kiln_Tensor>:$outputs);
  let hasVerifier = 1;
}

def Kiln_RaggedAllToAllOp : Kiln_GenericFormatOp<"ragged_all_to_all"> {
  let summary = "HLO ragged-all-to-all: an all-to-all of variable-sized row ranges";
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$output,
                   Kiln_IntTensor:$input_offsets, Kiln_IntTensor:$send_sizes,
                   Kiln_IntTensor:$output_offsets, Kiln_IntTensor:$recv_sizes,
                   Kiln_ReplicaGroupsAttr:$replica_groups,
                   OptionalAttr<I64Attr>:$channel_id);
  let results = (outs Kiln_Tensor:$result);
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Golden tests
//===----------------------------------------------------------------------===//

def Kiln_RunParallelOp : Kiln_GenericFormatOp<"run_parallel", [MemoryEffects<[MemWrite]>]> {
  let summary = "StableHLO's interpreter harness: programs run as a grid of participants";
  let description = [{
    What StableHLO's interpreter tests of collectives write
    (`interpreter.run_parallel`): `programs` is a list per replica of the
    function each partition runs (all rows of one length); each program
    takes the next operands in row-major order, as many as it has
    parameters, and its results follow in the same order. The evaluator
    runs it (its collectives exchange data between the programs); the CPU
    backend compiles it when every participant runs one program.
  }];
  let arguments = (ins Variadic<Kiln_TensorOrToken>:$inputs,
                   ArrayAttr:$programs);
  let results = (outs Variadic<Kiln_TensorOrToken>:$outputs);
}

def Kiln_CheckOp : Kiln_GenericFormatOp<"check", [MemoryEffects<[MemWrite]>]> {
  let summary = "a golden test's check of a computed value against the expected";
  let description = [{
    What StableHLO's golden tests assert (`check.expect_eq`,
    `check.expect_almost_eq`, `check.expect_close`, their `_const` forms, and
    the `@check.*` custom calls that JAX's generated tests use): `comparison`
    is `eq` (bit-exact), `almost_eq` (within `tolerance`, default 1e-4) or
    `close` (within ULP differences). The evaluator and compiled code run
    it; it has an effect so that nothing removes it. The form that answers
    (`@check.eq`, of StableHLO's quantized tests) returns whether the check
    passed.
  }];
  let arguments = (ins Kiln_Tensor:$actual, Kiln_Tensor:$expected,
                   StrAttr:$comparison,
                   OptionalAttr<F64Attr>:$tolerance,
                   OptionalAttr<I64Attr>:$max_ulp_difference,
                   OptionalAttr<I64Attr>:$min_ulp_difference);
  let results = (outs Optional<0DTensorOf<[I1]>>:$passed);
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
