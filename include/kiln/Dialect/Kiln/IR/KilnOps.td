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
                 "ReduceScatterOp"]>]> {
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
}

def Kiln_ReshapeOp : Kiln_GenericFormatOp<"reshape", [Pure]> {
  let summary = "HLO reshape: same elements in row-major order, new shape";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_TransposeOp : Kiln_GenericFormatOp<"transpose", [Pure]> {
  let summary = "HLO transpose: result dimension i is operand dimension dimensions[i]";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_ReverseOp : Kiln_GenericFormatOp<"reverse", [Pure]> {
  let summary = "HLO reverse: reverses the listed dimensions";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$dimensions);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

def Kiln_SliceOp : Kiln_GenericFormatOp<"slice", [Pure]> {
  let summary = "HLO slice: a static strided window";
  let arguments = (ins Kiln_Tensor:$operand, Kiln_DimsAttr:$start_indices,
                   Kiln_DimsAttr:$limit_indices, Kiln_DimsAttr:$strides);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
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
}

def Kiln_ConvertOp : Kiln_GenericFormatOp<"convert", [Pure]> {
  let summary = "HLO convert: element type conversion";
  let arguments = (ins Kiln_Tensor:$operand);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
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

def Kiln_AbsOp : Kiln_UnaryOp<"abs", "abs">;
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
  let arguments = (ins Kiln_Tensor:$operand,
                   I64ElementsAttr:$source_target_pairs,
                   OptionalAttr<I64Attr>:$channel_id);
  let results = (outs Kiln_Tensor:$output);
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
