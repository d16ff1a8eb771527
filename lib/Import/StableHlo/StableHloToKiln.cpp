//===- StableHloToKiln.cpp - StableHLO operations into kiln ops -----------===//
//
// This file turns the unregistered `stablehlo.*` and `chlo.*` operations
// that the syntax dialects read (StableHloSyntax.h) into kiln ops. The kiln
// dialect is named after HLO, and StableHLO's ops are HLO's: most ops keep
// their name and operands, and their attributes are renamed (StableHLO's
// `broadcast_dimensions` is kiln's `dimensions`) or unpacked (the fields of
// `#stablehlo.gather<...>` are kiln attributes of their own). Regions move
// over, with `stablehlo.return` becoming `kiln.return`. An op that kiln
// cannot represent yet is an error naming it, at its location.
//
//===----------------------------------------------------------------------===//

#include "StableHloToKiln.h"

#include "StableHloSyntax.h"

#include "kiln/Dialect/Kiln/IR/GenericOpBuilder.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/RunParallelGrid.h"
#include "kiln/Import/Hlo/HloImporter.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace {

/// Moves the position that the syntax dialect kept of a pretty-form op
/// (kPositionAttrName) into its location, in front.
static void takeSyntaxPosition(Operation *op) {
  auto position =
      dyn_cast_or_null<LocationAttr>(op->removeAttr(kiln::kPositionAttrName));
  if (position && Location(position) != op->getLoc())
    op->setLoc(FusedLoc::get(op->getContext(),
                             {Location(position), op->getLoc()}, Attribute()));
}

/// `op`'s attributes with, for the generic form's `<{...}>`, its
/// properties: an unregistered op keeps those apart.
static NamedAttrList attributesOf(Operation *op) {
  NamedAttrList attrs;
  if (auto properties =
          dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
    for (NamedAttribute attr : properties)
      attrs.set(attr.getName(), attr.getValue());
  for (NamedAttribute attr : op->getAttrs())
    attrs.set(attr.getName(), attr.getValue());
  return attrs;
}

class Converter {
public:
  explicit Converter(MLIRContext *context) : context(context), b(context) {}

  LogicalResult convert(Operation *op);

private:
  /// The element of a tuple that stablehlo.tuple made (kiln has no tuple
  /// values: the structure only lives in the dump).
  LogicalResult convertGetTupleElement(Operation *op);
  /// A composite is a call of its decomposition.
  LogicalResult convertComposite(Operation *op);
  /// stablehlo.if and stablehlo.case into kiln.conditional: the values the
  /// branches use from outside become its branch operands.
  LogicalResult convertConditional(Operation *op);
  /// The values a while's regions use from outside are carried through
  /// the loop, unchanged: returns the loop to convert (`op`, or the one
  /// rebuilt with more operands).
  Operation *captureIntoLoop(Operation *op);
  /// A dynamic_* op whose shape operands are constants and whose result
  /// has a static shape, as the static op it then is (unconverted).
  FailureOr<Operation *> staticForm(Operation *op);
  /// dynamic_reshape's shape operand into one scalar per dimension.
  LogicalResult convertDynamicReshape(Operation *op);
  /// An all_to_all that splits one dimension and concatenates another as
  /// HLO's one-dimension all_to_all between a reshape and a transpose;
  /// false when it splits and concatenates the same dimension.
  FailureOr<bool> convertSplitConcatAllToAll(Operation *op);
  /// A collective_broadcast whose last operand says each operand's root
  /// (has_dynamic_root): one broadcast from each possible root, the root's
  /// selected; false without has_dynamic_root.
  FailureOr<bool> convertDynamicRootBroadcast(Operation *op);
  /// StableHLO's send ((data..., token) -> token) and recv (token ->
  /// (data..., token)) as HLO's pairs: kiln.send and kiln.send_done,
  /// kiln.recv and kiln.recv_done, the data a tuple when there are several.
  LogicalResult convertSendRecv(Operation *op, StringRef name);
  /// `check.expect_*` and `@check.expect_*` custom calls into kiln.check.
  LogicalResult convertCheck(Operation *op, StringRef kind);
  /// CHLO ops that are exactly a few kiln ops (is_inf, conj, square, ...)
  /// as those ops; false when `op` is not one of them.
  FailureOr<bool> decomposeChlo(Operation *op, StringRef name);
  /// StableHLO's broadcast_in_dim may stretch a dimension of size 1; HLO's
  /// (and kiln's) may not: such dimensions are reshaped away first.
  Value dropStretchedDimensions(Operation *op, NamedAttrList &attrs);
  /// `op`'s attributes `in` as kiln (HLO) names and spells them, into
  /// `out`, for kiln's op `target`; StableHLO's unit flags become bools. An
  /// attribute `target` names but StableHLO gave another kind of value is
  /// an error here, before an op is built with it.
  LogicalResult convertAttributes(Operation *op, StringRef name,
                                  NamedAttrList &in, NamedAttrList &out,
                                  RegisteredOperationName target);
  DenseI64ArrayAttr dims(Attribute attr);
  DenseI64ArrayAttr ones(size_t count, int64_t value = 1) {
    return b.getDenseI64ArrayAttr(llvm::SmallVector<int64_t>(count, value));
  }
  /// Moves `name` from `in` to `out` (renamed `to`), as dims if asked.
  void move(NamedAttrList &in, NamedAttrList &out, StringRef name,
            StringRef to, bool asDims = false) {
    if (Attribute value = in.erase(name)) {
      if (asDims)
        value = dims(value);
      if (value)
        out.set(to, value);
    }
  }
  /// `padding = dense<[[lo, hi], ...]>` into padding_low/padding_high.
  LogicalResult splitPadding(Operation *op, NamedAttrList &in,
                             NamedAttrList &out, size_t rank);

  MLIRContext *context;
  Builder b;

};

} // namespace

/// StableHLO's types in kiln's: `!stablehlo.token` is kiln's token.
static Type convertType(Type type) {
  if (auto opaque = dyn_cast<OpaqueType>(type))
    if (opaque.getDialectNamespace() == "stablehlo" &&
        opaque.getTypeData() == "token")
      return kiln::TokenType::get(type.getContext());
  return type;
}

/// XLA's name (PrecisionConfig's algorithm, as HLO text writes it) for a
/// `#stablehlo.dot_algorithm`'s fields, or the empty string when XLA has
/// none for them.
static std::string xlaDotAlgorithmName(Attribute algorithm) {
  auto fields = dyn_cast<DictionaryAttr>(algorithm);
  if (!fields)
    return "";
  auto text = [&](StringRef name) -> std::string {
    Attribute value = fields.get(name);
    if (auto string = dyn_cast_or_null<StringAttr>(value))
      return string.getValue().str();
    if (auto type = dyn_cast_or_null<TypeAttr>(value)) {
      std::string printed;
      llvm::raw_string_ostream os(printed);
      type.getValue().print(os);
      return printed;
    }
    return "";
  };
  auto number = [&](StringRef name) -> int64_t {
    Attribute value = fields.get(name);
    if (auto integer = dyn_cast_or_null<IntegerAttr>(value))
      return integer.getInt();
    if (auto boolean = dyn_cast_or_null<BoolAttr>(value))
      return boolean.getValue();
    return -1;
  };
  std::string lhs = text("lhs_precision_type"),
              rhs = text("rhs_precision_type"),
              accumulation = text("accumulation_type");
  int64_t operations = number("num_primitive_operations");
  bool imprecise = number("allow_imprecise_accumulation") == 1;
  if (number("lhs_component_count") != 1 ||
      number("rhs_component_count") != 1)
    return "";
  if (StringRef(lhs).starts_with("f8") && StringRef(rhs).starts_with("f8") &&
      accumulation == "f32" && operations == 1)
    return imprecise ? "dot_any_f8_any_f8_f32_fast_accum"
                     : "dot_any_f8_any_f8_f32";
  if (imprecise || lhs != rhs)
    return "";
  static const std::tuple<StringRef, StringRef, int64_t> kNamed[] = {
      {"f16", "f16", 1},  {"f16", "f32", 1},  {"bf16", "bf16", 1},
      {"bf16", "f32", 1}, {"bf16", "f32", 3}, {"bf16", "f32", 6},
      {"bf16", "f32", 9}, {"tf32", "f32", 1}, {"tf32", "f32", 3},
      {"f32", "f32", 1},  {"f64", "f64", 1}};
  for (auto [operand, accumulated, count] : kNamed)
    if (lhs == operand && accumulation == accumulated && operations == count)
      return ("dot_" + lhs + "_" + lhs + "_" + accumulation +
              (count > 1 ? "_x" + std::to_string(count) : ""));
  return "";
}

/// JAX's frontend attributes (`mhlo.frontend_attributes = {_xla_compute_type
/// = "host"}`) as HLO's (kiln.frontend_attributes), which change what XLA
/// compiles: null unless every value is a string, as HLO's are. A
/// structured value (`{mesh = ...}`) is spelled as the HLO importer keeps
/// it, so that the step's HLO text gives the same signature.
static DictionaryAttr frontendAttributesOf(Attribute attr) {
  auto dict = dyn_cast_or_null<DictionaryAttr>(attr);
  if (!dict || !llvm::all_of(dict, [](NamedAttribute entry) {
        return isa<StringAttr>(entry.getValue());
      }))
    return nullptr;
  NamedAttrList entries;
  for (NamedAttribute entry : dict) {
    llvm::StringRef text = cast<StringAttr>(entry.getValue()).getValue();
    entries.append(entry.getName(),
                   text.starts_with("{")
                       ? StringAttr::get(dict.getContext(),
                                         kiln::canonicalizeHloText(text))
                       : entry.getValue());
  }
  return entries.getDictionary(dict.getContext());
}

/// Whether JAX's sharding attribute says nothing: `mhlo.sharding = ""`,
/// which JAX writes for a value it leaves to the compiler.
static bool isEmptySharding(Attribute sharding) {
  auto text = dyn_cast<StringAttr>(sharding);
  return text && text.getValue().trim().empty();
}

/// A parameter's or result's attributes as kiln names them. JAX's sharding
/// attribute holds HLO's sharding text: kiln's name for it, so that the
/// exporter writes `sharding=` and the signature reads it alike. An empty
/// sharding, and `mhlo.layout_mode = "default"` (the layout XLA picks
/// anyway), say nothing and are left out; HLO has no spelling for them.
static DictionaryAttr convertInterfaceAttrs(DictionaryAttr attrs) {
  if (!attrs)
    return attrs;
  auto layoutMode = attrs.getAs<StringAttr>("mhlo.layout_mode");
  bool defaultLayout = layoutMode && layoutMode.getValue() == "default";
  DictionaryAttr frontend =
      frontendAttributesOf(attrs.get("mhlo.frontend_attributes"));
  if (!attrs.get("mhlo.sharding") && !defaultLayout && !frontend)
    return attrs;
  NamedAttrList renamed(attrs);
  if (defaultLayout)
    renamed.erase("mhlo.layout_mode");
  if (Attribute sharding = renamed.erase("mhlo.sharding"))
    if (!isEmptySharding(sharding))
      renamed.set("kiln.sharding", sharding);
  if (frontend) {
    renamed.erase("mhlo.frontend_attributes");
    if (!frontend.empty())
      renamed.set("kiln.frontend_attributes", frontend);
  }
  return renamed.getDictionary(attrs.getContext());
}

/// JAX's module attributes for the number of replicas and partitions are
/// HLO's module header fields (`replica_count=`, `num_partitions=`).
static void convertModuleAttrs(ModuleOp module) {
  Builder builder(module.getContext());
  for (auto [jaxName, kilnName] :
       {std::pair<StringRef, StringRef>{"mhlo.num_partitions",
                                        "kiln.num_partitions"},
        {"mhlo.num_replicas", "kiln.replica_count"}}) {
    auto count = module->getAttrOfType<IntegerAttr>(jaxName);
    if (!count)
      continue;
    module->removeAttr(jaxName);
    module->setAttr(kilnName, builder.getI64IntegerAttr(count.getInt()));
  }
}

/// Whether `op` is one of the text's ops that the converter turns into
/// kiln's (StableHLO's, CHLO's, the golden tests', Shardy's).
static bool isStableHloOp(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "stablehlo" || dialect == "chlo" || dialect == "check" ||
         dialect == "interpreter" || dialect == "sdy";
}

/// Refuses kiln's own attributes on a StableHLO op, as attributes or the
/// generic form's properties (`<{...}>`). They say what an import found:
/// taken from the input, they would contradict what it finds (a send given
/// kiln.operand_tuples had it twice). A function's are not refused: a kiln
/// module that keeps a JAX attribute (`mhlo.memory_kind`) reads as
/// StableHLO, and its functions carry kiln's attributes by right.
static LogicalResult rejectKilnAttributes(Operation *op) {
  auto properties =
      dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute());
  for (llvm::ArrayRef<NamedAttribute> attrs :
       {op->getAttrs(),
        properties ? properties.getValue() : llvm::ArrayRef<NamedAttribute>()})
    for (NamedAttribute attr : attrs) {
      StringRef name = attr.getName().getValue();
      if (name.starts_with("kiln.") && !name.starts_with("kiln.syntax."))
        return op->emitError("'") << op->getName() << "': attribute '" << name
                                  << "' is kiln's own; StableHLO cannot set it";
    }
  return success();
}

/// In one walk of `module`: refuses kiln's own attributes on StableHLO's
/// ops (before JAX's are renamed into kiln's), converts the token types of
/// every value, block argument and function signature, names shardings and
/// frontend attributes as kiln does, and collects StableHLO's ops for the
/// converter, parents first.
static LogicalResult prepareOps(ModuleOp module,
                                llvm::SmallVectorImpl<Operation *> &ops) {
  WalkResult walked = module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isStableHloOp(op)) {
      if (failed(rejectKilnAttributes(op)))
        return WalkResult::interrupt();
      ops.push_back(op);
    }
    if (Attribute sharding = op->getAttr("mhlo.sharding")) {
      op->removeAttr("mhlo.sharding");
      if (!isEmptySharding(sharding))
        op->setAttr("kiln.sharding", sharding);
    }
    if (DictionaryAttr frontend =
            frontendAttributesOf(op->getAttr("mhlo.frontend_attributes"))) {
      op->removeAttr("mhlo.frontend_attributes");
      if (!frontend.empty())
        op->setAttr("kiln.frontend_attributes", frontend);
    }
    for (Value result : op->getResults())
      result.setType(convertType(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(convertType(arg.getType()));
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      FunctionType type = function.getFunctionType();
      llvm::SmallVector<Type> inputs, results;
      for (Type input : type.getInputs())
        inputs.push_back(convertType(input));
      for (Type result : type.getResults())
        results.push_back(convertType(result));
      function.setFunctionType(
          FunctionType::get(op->getContext(), inputs, results));
      for (unsigned i = 0; i < function.getNumArguments(); ++i)
        if (DictionaryAttr attrs = convertInterfaceAttrs(function.getArgAttrDict(i)))
          function.setArgAttrs(i, attrs);
      for (unsigned i = 0; i < function.getNumResults(); ++i)
        if (DictionaryAttr attrs = convertInterfaceAttrs(function.getResultAttrDict(i)))
          function.setResultAttrs(i, attrs);
    }
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

/// StableHLO's regions (of while, if, case) may use values defined outside;
/// kiln's are isolated, as HLO's computations are. Each captured value
/// becomes an argument of every region of `op`, appended to its block, and
/// is returned by the caller's means (see the callers).
static llvm::SmallVector<Value> captureValues(Operation *op) {
  llvm::SetVector<Value> captured;
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, captured);
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    Block &block = region.front();
    for (Value value : captured) {
      BlockArgument arg = block.addArgument(value.getType(), value.getLoc());
      replaceAllUsesInRegionWith(value, arg, region);
    }
  }
  return llvm::SmallVector<Value>(captured.begin(), captured.end());
}

DenseI64ArrayAttr Converter::dims(Attribute attr) {
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return array;
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return b.getDenseI64ArrayAttr({integer.getInt()});
  if (auto elements = dyn_cast<DenseIntElementsAttr>(attr)) {
    llvm::SmallVector<int64_t> values;
    for (const APInt &value : elements)
      values.push_back(value.getSExtValue());
    return b.getDenseI64ArrayAttr(values);
  }
  if (auto list = dyn_cast<ArrayAttr>(attr)) {
    llvm::SmallVector<int64_t> values;
    for (Attribute element : list) {
      auto integer = dyn_cast<IntegerAttr>(element);
      if (!integer)
        return {};
      values.push_back(integer.getInt());
    }
    return b.getDenseI64ArrayAttr(values);
  }
  return {};
}

LogicalResult Converter::splitPadding(Operation *op, NamedAttrList &in,
                                      NamedAttrList &out, size_t rank) {
  llvm::SmallVector<int64_t> low(rank, 0), high(rank, 0);
  if (Attribute padding = in.erase("padding")) {
    auto elements = dyn_cast<DenseIntElementsAttr>(padding);
    if (!elements || elements.getNumElements() != (int64_t)(2 * rank))
      return op->emitError("padding must be a ")
             << rank << "x2 tensor of integers";
    auto values = llvm::to_vector(elements.getValues<APInt>());
    for (size_t i = 0; i < rank; ++i) {
      low[i] = values[2 * i].getSExtValue();
      high[i] = values[2 * i + 1].getSExtValue();
    }
  }
  out.set("padding_low", b.getDenseI64ArrayAttr(low));
  out.set("padding_high", b.getDenseI64ArrayAttr(high));
  return success();
}

/// Enumerations arrive as strings (the syntax dialect's reading of
/// `#stablehlo<precision DEFAULT>`); a list of them as a list of strings.
static ArrayAttr stringList(Builder &b, Attribute attr) {
  auto list = dyn_cast_or_null<ArrayAttr>(attr);
  if (!list)
    return {};
  llvm::SmallVector<Attribute> strings;
  for (Attribute element : list) {
    if (!isa<StringAttr>(element))
      return {};
    strings.push_back(element);
  }
  return b.getArrayAttr(strings);
}

/// StableHLO's channel_handle as kiln's (HLO's) channel_id; null without
/// one.
static IntegerAttr channelIdOf(Builder &b, Attribute channelHandle) {
  auto handle = dyn_cast_or_null<DictionaryAttr>(channelHandle);
  auto id = handle ? dyn_cast_or_null<IntegerAttr>(handle.get("handle"))
                   : IntegerAttr();
  return id ? b.getI64IntegerAttr(id.getInt()) : IntegerAttr();
}

LogicalResult Converter::convertAttributes(Operation *op, StringRef name,
                                           NamedAttrList &in,
                                           NamedAttrList &out,
                                           RegisteredOperationName target) {
  auto rankOf = [&](unsigned operand) -> size_t {
    if (operand >= op->getNumOperands())
      return 0;
    auto type = dyn_cast<RankedTensorType>(op->getOperand(operand).getType());
    return type ? type.getRank() : 0;
  };
  if (name == "broadcast_in_dim") {
    move(in, out, "broadcast_dimensions", "dimensions", true);
  } else if (name == "broadcast") {
    // The deprecated broadcast adds the `sizes` dimensions in front: the
    // operand's dimensions are the result's last ones.
    in.erase("broadcast_sizes");
    in.erase("slice_sizes"); // the pretty form's `sizes`
    size_t operandRank = rankOf(0);
    auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!result || (size_t)result.getRank() < operandRank)
      return op->emitError("'stablehlo.broadcast' must give a ranked result "
                           "of at least its operand's rank");
    llvm::SmallVector<int64_t> dimensions;
    for (size_t i = 0; i < operandRank; ++i)
      dimensions.push_back(result.getRank() - operandRank + i);
    out.set("dimensions", b.getDenseI64ArrayAttr(dimensions));
  } else if (name == "transpose") {
    move(in, out, "permutation", "dimensions", true);
  } else if (name == "reverse" || name == "reduce" ||
             name == "get_dimension_size") {
    move(in, out, name == "get_dimension_size" ? "dimension" : "dimensions",
         "dimensions", true);
  } else if (name == "concatenate") {
    move(in, out, "dimension", "dimensions", true);
  } else if (name == "sort") {
    move(in, out, "dimension", "dimensions", true);
    if (!out.get("dimensions"))
      out.set("dimensions", b.getDenseI64ArrayAttr({-1}));
  } else if (name == "compare") {
    move(in, out, "comparison_direction", "direction");
    move(in, out, "compare_type", "type");
  } else if (name == "dynamic_slice") {
    move(in, out, "slice_sizes", "dynamic_slice_sizes", true);
  } else if (name == "slice") {
    for (const char *field : {"start_indices", "limit_indices", "strides"})
      move(in, out, field, field, true);
  } else if (name == "pad") {
    for (const char *field :
         {"edge_padding_low", "edge_padding_high", "interior_padding"})
      move(in, out, field, field, true);
  } else if (name == "dot_general" || name == "ragged_dot") {
    if (auto numbers = dyn_cast_or_null<DictionaryAttr>(
            in.erase("ragged_dot_dimension_numbers"))) {
      for (NamedAttribute field : numbers)
        in.set("kiln.syntax." + field.getName().str(), field.getValue());
      move(in, out, "kiln.syntax.lhs_ragged_dimensions", "lhs_ragged_dims",
           true);
      move(in, out, "kiln.syntax.rhs_group_dimensions", "rhs_group_dims",
           true);
    }
    if (auto numbers = dyn_cast_or_null<DictionaryAttr>(
            in.erase("dot_dimension_numbers"))) {
      for (NamedAttribute field : numbers)
        in.set("kiln.syntax." + field.getName().str(), field.getValue());
    }
    move(in, out, "kiln.syntax.lhs_batching_dimensions", "lhs_batch_dims", true);
    move(in, out, "kiln.syntax.rhs_batching_dimensions", "rhs_batch_dims", true);
    move(in, out, "kiln.syntax.lhs_contracting_dimensions",
         "lhs_contracting_dims", true);
    move(in, out, "kiln.syntax.rhs_contracting_dimensions",
         "rhs_contracting_dims", true);
    if (ArrayAttr precision = stringList(b, in.erase("precision_config")))
      out.set("operand_precision", precision);
    if (Attribute algorithm = in.erase("algorithm")) {
      // XLA's name for the algorithm (`dot_tf32_tf32_f32`), as HLO text
      // spells it; else its fields as text, which HLO cannot spell.
      std::string text = xlaDotAlgorithmName(algorithm);
      if (text.empty()) {
        llvm::raw_string_ostream os(text);
        algorithm.print(os);
      }
      out.set("algorithm", b.getStringAttr(text));
    }
  } else if (name == "gather" || name == "scatter") {
    StringRef numbersName =
        name == "gather" ? "dimension_numbers" : "scatter_dimension_numbers";
    if (auto numbers = dyn_cast_or_null<DictionaryAttr>(in.erase(numbersName)))
      for (NamedAttribute field : numbers) {
        StringRef fieldName = field.getName().getValue();
        if (fieldName == "index_vector_dim") {
          if (auto integer = dyn_cast<IntegerAttr>(field.getValue()))
            out.set(fieldName, b.getI64IntegerAttr(integer.getInt()));
        } else if (DenseI64ArrayAttr values = dims(field.getValue())) {
          out.set(fieldName, values);
        }
      }
    if (!out.get("index_vector_dim"))
      out.set("index_vector_dim", b.getI64IntegerAttr(0));
    move(in, out, "slice_sizes", "slice_sizes", true);
    move(in, out, "indices_are_sorted", "indices_are_sorted");
    move(in, out, "unique_indices", "unique_indices");
  } else if (name == "reduce_window" || name == "select_and_scatter") {
    size_t rank = rankOf(0);
    move(in, out, "window_dimensions", "window_dimensions", true);
    move(in, out, "window_strides", "window_strides", true);
    if (!out.get("window_strides"))
      out.set("window_strides", ones(rank));
    if (name == "reduce_window") {
      move(in, out, "base_dilations", "base_dilations", true);
      move(in, out, "window_dilations", "window_dilations", true);
      if (!out.get("base_dilations"))
        out.set("base_dilations", ones(rank));
      if (!out.get("window_dilations"))
        out.set("window_dilations", ones(rank));
    } else {
      out.set("base_dilations", ones(rank));
      out.set("window_dilations", ones(rank));
    }
    if (failed(splitPadding(op, in, out, rank)))
      return failure();
  } else if (name == "custom_call") {
    move(in, out, "call_target_name", "custom_call_target");
    move(in, out, "has_side_effect", "custom_call_has_side_effect");
    if (Attribute config = in.erase("backend_config")) {
      if (isa<StringAttr>(config)) {
        out.set("backend_config", config);
      } else {
        std::string text;
        llvm::raw_string_ostream os(text);
        config.print(os);
        out.set("backend_config", b.getStringAttr(text));
      }
    }
    if (auto version = dyn_cast_or_null<IntegerAttr>(in.erase("api_version"))) {
      static const char *names[] = {
          "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
          "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      int64_t value = version.getInt();
      if (value >= 0 && value < 5)
        out.set("api_version", b.getStringAttr(names[value]));
    }
    if (Attribute called = in.erase("called_computations"))
      out.set("kiln.called_computations", called);
  } else if (name == "convolution") {
    if (auto numbers =
            dyn_cast_or_null<DictionaryAttr>(in.erase("dimension_numbers")))
      for (NamedAttribute field : numbers)
        out.set(field.getName(), field.getValue());
    // The window's size is the kernel's spatial dimensions'.
    auto kernel = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    auto kernelSpatial =
        dyn_cast_or_null<DenseI64ArrayAttr>(out.get("kernel_spatial_dimensions"));
    size_t rank = kernelSpatial ? kernelSpatial.size() : 0;
    if (kernel && kernelSpatial) {
      llvm::SmallVector<int64_t> window;
      for (int64_t dim : kernelSpatial.asArrayRef())
        window.push_back(dim < kernel.getRank() ? kernel.getDimSize(dim) : 1);
      out.set("window_dimensions", b.getDenseI64ArrayAttr(window));
    }
    move(in, out, "window_strides", "window_strides", true);
    move(in, out, "lhs_dilation", "base_dilations", true);
    move(in, out, "rhs_dilation", "window_dilations", true);
    move(in, out, "window_reversal", "window_reversal");
    if (failed(splitPadding(op, in, out, rank)))
      return failure();
    for (const char *field :
         {"window_strides", "base_dilations", "window_dilations"})
      if (!out.get(field))
        out.set(field, ones(rank));
    for (const char *count : {"feature_group_count", "batch_group_count"})
      if (auto value = dyn_cast_or_null<IntegerAttr>(in.erase(count)))
        out.set(count, b.getI64IntegerAttr(value.getInt()));
    if (ArrayAttr precision = stringList(b, in.erase("precision_config")))
      out.set("operand_precision", precision);
  } else if (name == "all_gather" || name == "reduce_scatter" ||
             name == "all_to_all" || name == "all_reduce" ||
             name == "collective_permute" || name == "collective_broadcast") {
    move(in, out, "all_gather_dim", "dimensions", true);
    move(in, out, "scatter_dimension", "dimensions", true);
    if (name == "all_to_all") {
      // HLO's all-to-all splits and concatenates along one dimension
      // (another concatenated dimension: convertSplitConcatAllToAll).
      auto split = dyn_cast_or_null<IntegerAttr>(in.get("split_dimension"));
      if (split)
        out.set("dimensions", b.getDenseI64ArrayAttr({split.getInt()}));
      in.erase("split_dimension");
      in.erase("concat_dimension");
      in.erase("split_count");
    }
    if (IntegerAttr channel = channelIdOf(b, in.erase("channel_handle")))
      out.set("channel_id", channel);
  } else if (name == "send" || name == "recv") {
    if (IntegerAttr channel = channelIdOf(b, in.erase("channel_handle")))
      out.set("channel_id", channel);
    // The devices a send goes from and to: HLO keeps them as a frontend
    // attribute, `{{0,1},{1,2}}`.
    if (auto pairs = dyn_cast_or_null<DenseIntElementsAttr>(
            in.erase("source_target_pairs"))) {
      std::string text = "{";
      auto values = llvm::to_vector(pairs.getValues<int64_t>());
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        text += (i ? ",{" : "{") + std::to_string(values[i]) + "," +
                std::to_string(values[i + 1]) + "}";
      text += "}";
      NamedAttrList frontend;
      if (auto existing = dyn_cast_or_null<DictionaryAttr>(
              in.get("kiln.frontend_attributes")))
        frontend.assign(existing.begin(), existing.end());
      frontend.set("_xla_send_recv_source_target_pairs", b.getStringAttr(text));
      out.set("kiln.frontend_attributes",
              frontend.getDictionary(b.getContext()));
      in.erase("kiln.frontend_attributes");
    }
  } else if (name == "reduce_precision") {
    for (const char *field : {"exponent_bits", "mantissa_bits"})
      if (auto integer = dyn_cast_or_null<IntegerAttr>(in.erase(field)))
        out.set(field, b.getI64IntegerAttr(integer.getInt()));
  } else if (name == "iota") {
    if (auto integer = dyn_cast_or_null<IntegerAttr>(in.erase("iota_dimension")))
      out.set("iota_dimension", b.getI64IntegerAttr(integer.getInt()));
  } else if (name == "fft") {
    move(in, out, "fft_type", "fft_type");
    move(in, out, "fft_length", "fft_length", true);
  } else if (name == "batch_norm_inference" || name == "batch_norm_training" ||
             name == "batch_norm_grad") {
    if (auto epsilon = dyn_cast_or_null<FloatAttr>(in.erase("epsilon")))
      out.set("epsilon", b.getF32FloatAttr(epsilon.getValueAsDouble()));
    if (auto feature = dyn_cast_or_null<IntegerAttr>(in.erase("feature_index")))
      out.set("feature_index", b.getI64IntegerAttr(feature.getInt()));
  } else if (name == "rng") {
    // UNIFORM, NORMAL (`#stablehlo<rng_distribution UNIFORM>` in the generic
    // form) are HLO's rng_uniform and rng_normal.
    if (auto distribution =
            dyn_cast_or_null<StringAttr>(in.erase("rng_distribution")))
      out.set("distribution",
              b.getStringAttr("rng_" + distribution.getValue().lower()));
  } else if (name == "rng_bit_generator") {
    // DEFAULT, THREE_FRY, PHILOX are HLO's rng_default, rng_three_fry and
    // rng_philox.
    if (auto algorithm = dyn_cast_or_null<StringAttr>(in.erase("rng_algorithm")))
      out.set("algorithm",
              b.getStringAttr("rng_" + algorithm.getValue().lower()));
  } else if (name == "topk") {
    if (auto k = dyn_cast_or_null<IntegerAttr>(in.erase("k")))
      out.set("k", b.getI64IntegerAttr(k.getInt()));
  }
  // Everything else keeps its name (shardings, frontend attributes, and
  // the attributes whose names kiln shares with StableHLO).
  for (NamedAttribute attr : in) {
    if (attr.getName().getValue().starts_with("kiln.syntax."))
      continue;
    if (!out.get(attr.getName()))
      out.set(attr.getName(), attr.getValue());
  }
  // StableHLO's flags are unit attributes where kiln's (HLO's) are bools.
  for (NamedAttribute attr : llvm::to_vector(out))
    if (isa<UnitAttr>(attr.getValue()))
      out.set(attr.getName(), b.getBoolAttr(true));
  return target.verifyInherentAttrs(
      out, [&] { return op->emitError("'") << op->getName() << "': "; });
}

/// Whether the operands and results that `state` holds have one type, as
/// SameOperandsAndResultType wants, quantization parameters included.
static LogicalResult verifyCompatibleTypes(const OperationState &state) {
  llvm::SmallVector<Type> types;
  for (Value operand : state.operands)
    types.push_back(operand.getType());
  types.append(state.types.begin(), state.types.end());
  for (Type type : types)
    if (type != types.front())
      return failure();
  return success();
}

/// StableHLO's (and CHLO's) name of an op, mapped to kiln's.
static std::string kilnNameFor(StringRef dialect, StringRef name) {
  if (dialect == "chlo") {
    if (name == "top_k")
      return "kiln.topk";
    return ("kiln." + name).str();
  }
  return llvm::StringSwitch<std::string>(name)
      .Case("return", "kiln.return")
      // Deprecated forms of ops that kiln has.
      .Case("broadcast", "kiln.broadcast_in_dim")
      .Case("create_token", "kiln.after_all")
      .Default(("kiln." + name).str());
}

FailureOr<bool> Converter::convertSplitConcatAllToAll(Operation *op) {
  NamedAttrList attrs = attributesOf(op);
  auto split = dyn_cast_or_null<IntegerAttr>(attrs.get("split_dimension"));
  auto concat = dyn_cast_or_null<IntegerAttr>(attrs.get("concat_dimension"));
  auto count = dyn_cast_or_null<IntegerAttr>(attrs.get("split_count"));
  if (!split || !concat || split.getInt() == concat.getInt())
    return false;
  takeSyntaxPosition(op);
  int64_t s = split.getInt(), c = concat.getInt();
  int64_t n = count ? count.getInt() : 0;
  OpBuilder builder(op);
  Location loc = op->getLoc();
  llvm::SmallVector<Value> results;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    auto resultType =
        dyn_cast<RankedTensorType>(op->getResult(index).getType());
    int64_t rank = type ? type.getRank() : 0;
    if (!type || !resultType || !type.hasStaticShape() || s < 0 || c < 0 ||
        s >= rank || c >= rank || n <= 0 || type.getDimSize(s) % n != 0)
      return op->emitError("'stablehlo.all_to_all' operand ")
             << index << " (" << operand.getType()
             << ") does not split dimension " << s << " into " << n
             << " parts and concatenate dimension " << c;
    // [.., S_s, ..] as [.., n, S_s / n, ..]: part j of the split dimension
    // is index j of the new one, which HLO's all_to_all exchanges.
    llvm::SmallVector<int64_t> parts(type.getShape());
    parts[s] /= n;
    parts.insert(parts.begin() + s, n);
    Value value = kiln::buildKilnOp(builder, loc, "kiln.reshape", operand,
                          RankedTensorType::get(parts, type.getElementType()));
    llvm::SmallVector<NamedAttribute> exchange = {
        b.getNamedAttr("dimensions", b.getDenseI64ArrayAttr({s}))};
    if (Attribute groups = attrs.get("replica_groups"))
      exchange.push_back(b.getNamedAttr("replica_groups", groups));
    if (IntegerAttr channel = channelIdOf(b, attrs.get("channel_handle")))
      exchange.push_back(b.getNamedAttr("channel_id", channel));
    value = kiln::buildKilnOp(builder, loc, "kiln.all_to_all", value, value.getType(),
                    exchange);
    // The received parts (index i from member i) just before the
    // concatenated dimension, then merged with it in member order.
    int64_t concatAt = c < s ? c : c + 1;
    llvm::SmallVector<int64_t> order;
    for (int64_t d = 0; d <= rank; ++d)
      if (d != s)
        order.push_back(d);
    order.insert(llvm::find(order, concatAt), s);
    llvm::SmallVector<int64_t> moved;
    for (int64_t d : order)
      moved.push_back(parts[d]);
    value = kiln::buildKilnOp(builder, loc, "kiln.transpose", value,
                    RankedTensorType::get(moved, type.getElementType()),
                    {b.getNamedAttr("dimensions",
                                    b.getDenseI64ArrayAttr(order))});
    results.push_back(
        kiln::buildKilnOp(builder, loc, "kiln.reshape", value, resultType));
  }
  op->replaceAllUsesWith(results);
  op->erase();
  return true;
}

FailureOr<bool> Converter::convertDynamicRootBroadcast(Operation *op) {
  NamedAttrList attrs = attributesOf(op);
  if (!attrs.get("has_dynamic_root"))
    return false;
  takeSyntaxPosition(op);
  unsigned data = op->getNumOperands() ? op->getNumOperands() - 1 : 0;
  auto rootsType =
      data ? dyn_cast<RankedTensorType>(op->getOperand(data).getType())
           : nullptr;
  if (!data || op->getNumResults() != data || !rootsType ||
      rootsType.getRank() != 1 || rootsType.getDimSize(0) != data ||
      !rootsType.getElementType().isInteger())
    return op->emitError("'stablehlo.collective_broadcast' with "
                         "has_dynamic_root takes its operands and a 1-D "
                         "integer tensor of one root per operand, and gives "
                         "one result per operand");
  Value roots = op->getOperand(data);
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto build = [&](StringRef name, ValueRange operands, Type type,
                   ArrayRef<NamedAttribute> attributes = {}) {
    return kiln::buildKilnOp(builder, loc, name, operands, type, attributes);
  };
  auto indexType = RankedTensorType::get({}, rootsType.getElementType());
  auto groups =
      dyn_cast_or_null<DenseIntElementsAttr>(attrs.get("replica_groups"));
  int64_t members = groups && groups.getType().getRank() == 2
                        ? groups.getType().getDimSize(1)
                        : 0;
  if (!members)
    return op->emitError("'stablehlo.collective_broadcast' with "
                         "has_dynamic_root needs replica_groups");
  // The groups with member j first, for each j: the broadcast from each
  // group's j-th member.
  auto rows = llvm::to_vector(groups.getValues<int64_t>());
  llvm::SmallVector<DenseIntElementsAttr> fromMember;
  for (int64_t j = 0; j < members; ++j) {
    llvm::SmallVector<int64_t> rotated;
    for (size_t row = 0; row < rows.size(); row += members) {
      rotated.push_back(rows[row + j]);
      for (int64_t m = 0; m < members; ++m)
        if (m != j)
          rotated.push_back(rows[row + m]);
    }
    fromMember.push_back(DenseIntElementsAttr::get(groups.getType(), rotated));
  }
  llvm::SmallVector<Value> results;
  for (unsigned k = 0; k < data; ++k) {
    Value operand = op->getOperand(k);
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape() ||
        op->getResult(k).getType() != type)
      return op->emitError("'stablehlo.collective_broadcast' operand ")
             << k << " must have a static shape and its result's type";
    Value root = build("kiln.slice", roots,
                       RankedTensorType::get({1}, indexType.getElementType()),
                       {b.getNamedAttr("start_indices",
                                       b.getDenseI64ArrayAttr({(int64_t)k})),
                        b.getNamedAttr("limit_indices",
                                       b.getDenseI64ArrayAttr({(int64_t)k + 1})),
                        b.getNamedAttr("strides", b.getDenseI64ArrayAttr({1}))});
    root = build("kiln.reshape", root, indexType);
    // From member 0, then from member j where the root is j or more: a
    // root out of range is clamped (as HLO's dynamic_slice clamps), and a
    // participant in no group gets zeros from every broadcast.
    Value result;
    for (int64_t j = 0; j < members; ++j) {
      llvm::SmallVector<NamedAttribute> broadcastAttrs = {
          b.getNamedAttr("replica_groups", fromMember[j])};
      if (IntegerAttr channel = channelIdOf(b, attrs.get("channel_handle")))
        broadcastAttrs.push_back(b.getNamedAttr("channel_id", channel));
      Value broadcast = build("kiln.collective_broadcast", operand, type,
                              broadcastAttrs);
      if (j == 0) {
        result = broadcast;
        continue;
      }
      Value index = build(
          "kiln.constant", {}, indexType,
          {b.getNamedAttr("value",
                          DenseElementsAttr::get(
                              indexType, b.getIntegerAttr(
                                             indexType.getElementType(), j)))});
      auto predicate = RankedTensorType::get({}, b.getI1Type());
      Value atLeast = build("kiln.compare", {root, index}, predicate,
                            {b.getNamedAttr("direction", b.getStringAttr("GE"))});
      Value chosen = build(
          "kiln.broadcast_in_dim", atLeast,
          RankedTensorType::get(type.getShape(), b.getI1Type()),
          {b.getNamedAttr("dimensions", b.getDenseI64ArrayAttr({}))});
      result = build("kiln.select", {chosen, broadcast, result}, type);
    }
    results.push_back(result);
  }
  op->replaceAllUsesWith(results);
  op->erase();
  return true;
}

FailureOr<bool> Converter::decomposeChlo(Operation *op, StringRef name) {
  bool isUnary = name == "is_inf" || name == "is_pos_inf" ||
                 name == "is_neg_inf" || name == "conj" || name == "square" ||
                 name == "constant_like";
  if (!isUnary)
    return false;
  if (op->getNumOperands() != 1 || op->getNumResults() != 1)
    return op->emitError("'chlo.")
           << name << "' takes 1 operand and 1 result";
  takeSyntaxPosition(op);
  Location loc = op->getLoc();
  OpBuilder builder(op);
  Value x = op->getOperand(0);
  Type resultType = op->getResult(0).getType();
  auto create = [&](StringRef opName, ValueRange operands, Type type,
                    llvm::ArrayRef<NamedAttribute> attrs = {}) -> Value {
    return kiln::buildKilnOp(builder, loc, opName, operands, type, attrs);
  };
  auto shaped = dyn_cast<RankedTensorType>(x.getType());
  auto floatType = shaped ? dyn_cast<FloatType>(shaped.getElementType())
                          : nullptr;
  Value replacement;
  if (name == "square") {
    replacement = create("kiln.multiply", {x, x}, resultType);
  } else if (name == "conj") {
    auto complexType =
        shaped ? dyn_cast<ComplexType>(shaped.getElementType()) : nullptr;
    if (!complexType)
      return op->emitError("'chlo.conj' takes a complex tensor");
    Type partType = shaped.clone(complexType.getElementType());
    Value real = create("kiln.real", x, partType);
    Value imag = create("kiln.imag", x, partType);
    Value negated = create("kiln.negate", imag, partType);
    replacement = create("kiln.complex", {real, negated}, resultType);
  } else if (name == "constant_like") {
    auto result = dyn_cast<RankedTensorType>(resultType);
    auto value = dyn_cast_or_null<TypedAttr>(attributesOf(op).get("value"));
    if (!result || !result.hasStaticShape() || !value)
      return op->emitError("'chlo.constant_like' needs a value and a static "
                           "result shape");
    DenseElementsAttr splat;
    if (auto floating = dyn_cast<FloatAttr>(value))
      splat = DenseElementsAttr::get(result, floating.getValue());
    else if (auto integer = dyn_cast<IntegerAttr>(value))
      splat = DenseElementsAttr::get(result, integer.getValue());
    if (!splat || value.getType() != result.getElementType())
      return op->emitError("'chlo.constant_like': the value must be a "
                           "number of the result's element type");
    replacement = create("kiln.constant", {}, result,
                         {b.getNamedAttr("value", splat)});
  } else {
    // is_inf, is_pos_inf, is_neg_inf: comparisons with infinity.
    if (!floatType || !shaped.hasStaticShape())
      return op->emitError("'chlo.")
             << name << "' takes a float tensor of static shape";
    bool negative = name == "is_neg_inf";
    auto infinity = DenseElementsAttr::get(
        shaped, llvm::APFloat::getInf(floatType.getFloatSemantics(), negative));
    Value bound = create("kiln.constant", {}, shaped,
                         {b.getNamedAttr("value", infinity)});
    Value compared = name == "is_inf" ? create("kiln.abs", x, shaped) : x;
    replacement = create(
        "kiln.compare", {compared, bound}, resultType,
        {b.getNamedAttr("direction", b.getStringAttr("EQ")),
         b.getNamedAttr("type", b.getStringAttr("FLOAT"))});
  }
  op->getResult(0).replaceAllUsesWith(replacement);
  op->erase();
  return true;
}

LogicalResult Converter::convertCheck(Operation *op, StringRef kind) {
  StringRef comparison = llvm::StringSwitch<StringRef>(kind)
                             .Cases({"expect_eq", "expect_eq_const", "eq"}, "eq")
                             .Cases({"expect_almost_eq",
                                    "expect_almost_eq_const"}, "almost_eq")
                             .Case("expect_close", "close")
                             .Default("");
  if (comparison.empty())
    return op->emitError("'check.")
           << kind << "' cannot be imported into kiln (it checks the "
           << "reference interpreter's own state)";
  NamedAttrList in = attributesOf(op);
  OpBuilder builder(op);
  Value actual = op->getNumOperands() > 0 ? op->getOperand(0) : Value();
  Value expected = op->getNumOperands() > 1 ? op->getOperand(1) : Value();
  if (kind.ends_with("_const")) {
    // `expected` from the pretty form, `value` from the generic one.
    auto value = dyn_cast_or_null<TypedAttr>(in.get("expected"));
    if (!value)
      value = dyn_cast_or_null<TypedAttr>(in.get("value"));
    if (!value)
      return op->emitError("'check.") << kind << "' needs an expected value";
    OperationState constant(op->getLoc(), "kiln.constant");
    constant.addAttribute("value", value);
    constant.addTypes(value.getType());
    expected = builder.create(constant)->getResult(0);
  }
  if (!actual || !expected)
    return op->emitError("a check compares two values");
  OperationState state(op->getLoc(), "kiln.check");
  state.addOperands({actual, expected});
  state.addAttribute("comparison", b.getStringAttr(comparison));
  if (auto tolerance = dyn_cast_or_null<FloatAttr>(in.get("tolerance")))
    state.addAttribute("tolerance",
                       b.getF64FloatAttr(tolerance.getValueAsDouble()));
  for (const char *ulps : {"max_ulp_difference", "min_ulp_difference"})
    if (auto value = dyn_cast_or_null<IntegerAttr>(in.get(ulps)))
      state.addAttribute(ulps, b.getI64IntegerAttr(value.getInt()));
  // `@check.eq` answers whether the values are equal.
  state.addTypes(op->getResultTypes());
  Operation *check = builder.create(state);
  op->replaceAllUsesWith(check->getResults());
  op->erase();
  return success();
}

Value Converter::dropStretchedDimensions(Operation *op, NamedAttrList &attrs) {
  auto dimensions = dyn_cast_or_null<DenseI64ArrayAttr>(attrs.get("dimensions"));
  auto operandType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!dimensions || !operandType || !resultType ||
      !operandType.hasStaticShape() ||
      dimensions.size() != operandType.getRank())
    return op->getOperand(0);
  llvm::SmallVector<int64_t> keptShape, keptDimensions;
  for (auto [index, target] : llvm::enumerate(dimensions.asArrayRef())) {
    int64_t size = operandType.getDimSize(index);
    bool stretched = size == 1 && target >= 0 && target < resultType.getRank() &&
                     resultType.getDimSize(target) != 1;
    if (stretched)
      continue;
    keptShape.push_back(size);
    keptDimensions.push_back(target);
  }
  if (keptShape.size() == (size_t)operandType.getRank())
    return op->getOperand(0);
  OpBuilder builder(op);
  OperationState reshape(op->getLoc(), "kiln.reshape");
  reshape.addOperands(op->getOperand(0));
  reshape.addTypes(
      RankedTensorType::get(keptShape, operandType.getElementType()));
  attrs.set("dimensions", b.getDenseI64ArrayAttr(keptDimensions));
  return builder.create(reshape)->getResult(0);
}

LogicalResult Converter::convertGetTupleElement(Operation *op) {
  NamedAttrList attrs = attributesOf(op);
  auto index = dyn_cast_or_null<IntegerAttr>(attrs.get("index"));
  Operation *tuple = op->getOperand(0).getDefiningOp();
  if (!index || !tuple || tuple->getName().getStringRef() != "stablehlo.tuple" ||
      index.getInt() < 0 || index.getInt() >= tuple->getNumOperands())
    return op->emitError("get_tuple_element of a tuple that is not built in "
                         "the same function; kiln imports tuples only there");
  op->replaceAllUsesWith(ValueRange{tuple->getOperand(index.getInt())});
  op->erase();
  return success();
}

LogicalResult Converter::convertComposite(Operation *op) {
  NamedAttrList attrs = attributesOf(op);
  auto callee = dyn_cast_or_null<FlatSymbolRefAttr>(attrs.get("decomposition"));
  if (!callee)
    return op->emitError("stablehlo.composite without a decomposition");
  OpBuilder builder(op);
  auto call = func::CallOp::create(builder, op->getLoc(), callee,
                                  op->getResultTypes(), op->getOperands());
  if (Attribute name = attrs.get("name"))
    call->setAttr("kiln.composite", name);
  op->replaceAllUsesWith(call->getResults());
  op->erase();
  return success();
}

LogicalResult Converter::convertConditional(Operation *op) {
  llvm::SmallVector<Value> captured = captureValues(op);
  OperationState state(op->getLoc(), "kiln.conditional");
  state.addOperands(op->getOperand(0));
  llvm::SmallVector<int64_t> counts;
  for (unsigned i = 0; i < op->getNumRegions(); ++i) {
    state.addOperands(captured);
    counts.push_back(captured.size());
  }
  state.addAttribute("branch_operand_counts", b.getDenseI64ArrayAttr(counts));
  state.addTypes(op->getResultTypes());
  for (Region &region : op->getRegions())
    state.addRegion()->takeBody(region);
  OpBuilder builder(op);
  Operation *conditional = builder.create(state);
  op->replaceAllUsesWith(conditional->getResults());
  op->erase();
  return success();
}

Operation *Converter::captureIntoLoop(Operation *op) {
  llvm::SmallVector<Value> captured = captureValues(op);
  if (captured.empty())
    return op;
  // The body returns each captured value as it got it.
  if (op->getNumRegions() == 2 && !op->getRegion(1).empty()) {
    Block &body = op->getRegion(1).front();
    Operation *terminator = body.getTerminator();
    unsigned first = body.getNumArguments() - captured.size();
    for (unsigned i = 0; i < captured.size(); ++i)
      terminator->insertOperands(terminator->getNumOperands(),
                                 body.getArgument(first + i));
  }
  // The loop takes and gives them; its users see its old results.
  OpBuilder builder(op);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(op->getOperands());
  state.addOperands(captured);
  state.addTypes(op->getResultTypes());
  for (Value value : captured)
    state.addTypes(value.getType());
  state.addAttributes(op->getAttrs());
  for (Region &region : op->getRegions())
    state.addRegion()->takeBody(region);
  Operation *loop = builder.create(state);
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    op->getResult(i).replaceAllUsesWith(loop->getResult(i));
  op->erase();
  return loop;
}

/// The integers of a constant: a kiln.constant (constants come first in
/// program order, so they are converted by the time their users are).
static std::optional<llvm::SmallVector<int64_t>> constantIntegers(Value value) {
  auto constant = dyn_cast_or_null<kiln::ConstantOp>(value.getDefiningOp());
  auto elements =
      constant ? dyn_cast<DenseIntElementsAttr>(constant.getValue()) : nullptr;
  if (!elements)
    return std::nullopt;
  llvm::SmallVector<int64_t> values;
  for (const APInt &element : elements)
    values.push_back(element.getSExtValue());
  return values;
}

FailureOr<Operation *> Converter::staticForm(Operation *op) {
  StringRef full = op->getName().getStringRef();
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape())
    return op->emitError("'")
           << full << "' with a dynamic result shape ("
           << op->getResult(0).getType()
           << "): kiln imports dynamic shapes only where they are constant";
  NamedAttrList attrs = attributesOf(op);
  llvm::SmallVector<Value> operands;
  std::string staticName;
  auto constantOperand = [&](unsigned index, StringRef what)
      -> std::optional<llvm::SmallVector<int64_t>> {
    std::optional<llvm::SmallVector<int64_t>> values =
        index < op->getNumOperands() ? constantIntegers(op->getOperand(index))
                                     : std::nullopt;
    if (!values)
      op->emitError("'") << full << "': its " << what
                         << " is not a constant; kiln imports dynamic shapes "
                            "only where they are constant";
    return values;
  };
  if (full == "stablehlo.dynamic_iota") {
    staticName = "stablehlo.iota";
  } else if (full == "stablehlo.dynamic_broadcast_in_dim") {
    staticName = "stablehlo.broadcast_in_dim";
    operands.push_back(op->getOperand(0));
    attrs.erase("known_expanding_dimensions");
    attrs.erase("known_nonexpanding_dimensions");
  } else if (full == "stablehlo.dynamic_pad") {
    staticName = "stablehlo.pad";
    operands = {op->getOperand(0), op->getOperand(1)};
    const char *names[] = {"edge_padding_low", "edge_padding_high",
                           "interior_padding"};
    for (unsigned i = 0; i < 3; ++i) {
      auto values = constantOperand(2 + i, names[i]);
      if (!values)
        return failure();
      attrs.set(names[i], b.getDenseI64ArrayAttr(*values));
    }
  } else if (full == "stablehlo.dynamic_gather") {
    staticName = "stablehlo.gather";
    operands = {op->getOperand(0), op->getOperand(1)};
    auto sizes = constantOperand(2, "slice sizes");
    if (!sizes)
      return failure();
    attrs.set("slice_sizes", b.getDenseI64ArrayAttr(*sizes));
  } else if (full == "stablehlo.real_dynamic_slice") {
    staticName = "stablehlo.slice";
    operands.push_back(op->getOperand(0));
    const char *names[] = {"start_indices", "limit_indices", "strides"};
    for (unsigned i = 0; i < 3; ++i) {
      auto values = constantOperand(1 + i, names[i]);
      if (!values)
        return failure();
      attrs.set(names[i], b.getDenseI64ArrayAttr(*values));
    }
  } else { // dynamic_conv
    staticName = "stablehlo.convolution";
    operands = {op->getOperand(0), op->getOperand(1)};
    auto padding = constantOperand(2, "padding");
    if (!padding)
      return failure();
    auto type = RankedTensorType::get({(int64_t)padding->size() / 2, 2},
                                      b.getI64Type());
    attrs.set("padding", DenseIntElementsAttr::get(type, *padding));
  }
  OpBuilder builder(op);
  OperationState state(op->getLoc(), staticName);
  state.addOperands(operands);
  state.addTypes(op->getResultTypes());
  state.addAttributes(attrs.getAttrs());
  for (Region &region : op->getRegions())
    state.addRegion()->takeBody(region);
  Operation *replacement = builder.create(state);
  op->replaceAllUsesWith(replacement->getResults());
  op->erase();
  return replacement;
}

LogicalResult Converter::convertDynamicReshape(Operation *op) {
  Value shape = op->getOperand(1);
  auto shapeType = dyn_cast<RankedTensorType>(shape.getType());
  if (!shapeType || shapeType.getRank() != 1 || !shapeType.hasStaticShape())
    return op->emitError("dynamic_reshape needs a 1-D shape of known size");
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto scalarType = RankedTensorType::get({}, shapeType.getElementType());
  auto i32 = RankedTensorType::get({}, builder.getI32Type());
  llvm::SmallVector<Value> sizes;
  for (int64_t i = 0; i < shapeType.getDimSize(0); ++i) {
    OperationState slice(loc, "kiln.slice");
    slice.addOperands(shape);
    slice.addTypes(RankedTensorType::get({1}, shapeType.getElementType()));
    slice.addAttribute("start_indices", b.getDenseI64ArrayAttr({i}));
    slice.addAttribute("limit_indices", b.getDenseI64ArrayAttr({i + 1}));
    slice.addAttribute("strides", b.getDenseI64ArrayAttr({1}));
    Value one = builder.create(slice)->getResult(0);
    OperationState reshape(loc, "kiln.reshape");
    reshape.addOperands(one);
    reshape.addTypes(scalarType);
    Value size = builder.create(reshape)->getResult(0);
    if (scalarType != i32) {
      OperationState convert(loc, "kiln.convert");
      convert.addOperands(size);
      convert.addTypes(i32);
      size = builder.create(convert)->getResult(0);
    }
    sizes.push_back(size);
  }
  OperationState state(loc, "kiln.dynamic_reshape");
  state.addOperands(op->getOperand(0));
  state.addOperands(sizes);
  state.addTypes(op->getResultTypes());
  Operation *reshape = builder.create(state);
  op->replaceAllUsesWith(reshape->getResults());
  op->erase();
  return success();
}

LogicalResult Converter::convert(Operation *op) {
  StringRef full = op->getName().getStringRef();
  auto [dialect, name] = full.split('.');
  // The ops whose operands or results the conversion takes by position
  // must have them: the generic form can give any number.
  struct Counts {
    unsigned operands, results;
  };
  std::optional<Counts> needed =
      llvm::StringSwitch<std::optional<Counts>>(full)
          .Case("stablehlo.get_tuple_element", Counts{1, 1})
          .Cases({"stablehlo.if", "stablehlo.case"}, Counts{1, 0})
          .Case("stablehlo.convolution", Counts{2, 1})
          .Case("stablehlo.broadcast_in_dim", Counts{1, 1})
          .Case("stablehlo.dynamic_reshape", Counts{2, 1})
          .Case("stablehlo.dynamic_iota", Counts{0, 1})
          .Case("stablehlo.dynamic_broadcast_in_dim", Counts{2, 1})
          .Case("stablehlo.dynamic_pad", Counts{5, 1})
          .Cases({"stablehlo.dynamic_gather", "stablehlo.dynamic_conv"},
                 Counts{3, 1})
          .Case("stablehlo.real_dynamic_slice", Counts{4, 1})
          .Cases({"check.expect_eq", "check.expect_almost_eq",
                  "check.expect_close"},
                 Counts{2, 0})
          .Cases({"check.expect_eq_const", "check.expect_almost_eq_const"},
                 Counts{1, 0})
          .Default(std::nullopt);
  if (needed && (op->getNumOperands() < needed->operands ||
                 op->getNumResults() < needed->results)) {
    auto plural = [](unsigned n, StringRef noun) {
      return std::to_string(n) + " " + noun.str() + (n == 1 ? "" : "s");
    };
    return op->emitError("'")
           << full << "' takes " << plural(needed->operands, "operand")
           << " and " << plural(needed->results, "result") << ", got "
           << plural(op->getNumOperands(), "operand") << " and "
           << plural(op->getNumResults(), "result");
  }
  if (dialect == "check")
    return convertCheck(op, name);
  if (dialect == "sdy")
    return op->emitError("'") << full << "' " << kiln::kShardyNotImported;
  if (dialect == "chlo") {
    FailureOr<bool> decomposed = decomposeChlo(op, name);
    if (failed(decomposed) || *decomposed)
      return failure(failed(decomposed));
  }
  if (full == "stablehlo.custom_call") {
    NamedAttrList attrs = attributesOf(op);
    auto target = dyn_cast_or_null<StringAttr>(attrs.get("call_target_name"));
    if (target && target.getValue().starts_with("check."))
      return convertCheck(op, target.getValue().drop_front(6));
  }
  if (full == "interpreter.run_parallel") {
    // The harness of the collectives' tests: runs the programs as the
    // participants of a grid, which the evaluator can do.
    takeSyntaxPosition(op);
    auto programs = dyn_cast_or_null<ArrayAttr>(op->getAttr("programs"));
    if (!programs)
      return op->emitError("'interpreter.run_parallel' needs programs");
    // The grid as the evaluator and the CPU backend read it: checked here,
    // as the import's error, not first by a later signature or run.
    std::string error;
    if (!kiln::getRunParallelGrid(op, error))
      return op->emitError("'interpreter.run_parallel': ") << error;
    OpBuilder builder(op);
    OperationState state(op->getLoc(), "kiln.run_parallel");
    state.addOperands(op->getOperands());
    state.addTypes(op->getResultTypes());
    state.addAttribute("programs", programs);
    // The functions whose results the programs' infeeds read, in order.
    if (Attribute queues = op->getAttr("infeed"))
      state.addAttribute("infeed", queues);
    Operation *replacement = builder.create(state);
    op->replaceAllUsesWith(replacement->getResults());
    op->erase();
    return success();
  }
  if (dialect == "interpreter")
    return op->emitError("'")
           << full << "' belongs to StableHLO's interpreter test harness; "
           << "kiln does not import it";
  if (full == "stablehlo.tuple")
    return success(); // taken apart by its get_tuple_elements, then erased
  if (full == "stablehlo.get_tuple_element")
    return convertGetTupleElement(op);
  if (full == "stablehlo.composite")
    return convertComposite(op);
  if (full == "stablehlo.if" || full == "stablehlo.case")
    return convertConditional(op);
  if (full == "stablehlo.while")
    op = captureIntoLoop(op);
  if (full == "stablehlo.dynamic_reshape")
    return convertDynamicReshape(op);
  if (full == "stablehlo.send" || full == "stablehlo.recv")
    return convertSendRecv(op, name);
  if (full == "stablehlo.collective_broadcast") {
    FailureOr<bool> converted = convertDynamicRootBroadcast(op);
    if (failed(converted) || *converted)
      return failure(failed(converted));
  }
  if (full == "stablehlo.all_to_all") {
    FailureOr<bool> converted = convertSplitConcatAllToAll(op);
    if (failed(converted) || *converted)
      return failure(failed(converted));
  }
  if (full == "stablehlo.dynamic_iota" ||
      full == "stablehlo.dynamic_broadcast_in_dim" ||
      full == "stablehlo.dynamic_pad" || full == "stablehlo.dynamic_gather" ||
      full == "stablehlo.dynamic_conv" ||
      full == "stablehlo.real_dynamic_slice") {
    FailureOr<Operation *> staticOp = staticForm(op);
    if (failed(staticOp))
      return failure();
    return convert(*staticOp);
  }
  std::string kilnName = kilnNameFor(dialect, name);
  std::optional<RegisteredOperationName> registered =
      RegisteredOperationName::lookup(kilnName, context);
  // Ops that StableHLO deprecated and JAX does not write.
  if (!registered && dialect == "stablehlo" &&
      llvm::is_contained({"einsum", "unary_einsum", "torch_index_select",
                          "cross-replica-sum", "trace"},
                         name))
    return op->emitError("'")
           << full
           << "' is deprecated in StableHLO and not written by JAX; kiln "
              "does not import it (write it as dot_general or gather)";
  if (!registered)
    return op->emitError("'")
           << full << "' cannot be imported into kiln yet (no kiln op for it)";
  takeSyntaxPosition(op);
  NamedAttrList in = attributesOf(op), out;
  if (failed(convertAttributes(op, name, in, out, *registered)))
    return failure();
  OperationState state(op->getLoc(), *registered);
  state.addOperands(op->getOperands());
  // StableHLO's rng takes its result's shape as an operand; HLO's has it in
  // its result type.
  if (name == "rng" && op->getNumOperands() == 3) {
    auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<llvm::SmallVector<int64_t>> shape =
        constantIntegers(op->getOperand(2));
    if (!result || !result.hasStaticShape() || !shape ||
        llvm::ArrayRef<int64_t>(*shape) != result.getShape())
      return op->emitError("'stablehlo.rng': the shape operand must be a "
                           "constant equal to the result's static shape");
    state.operands.pop_back();
  }
  if (name == "broadcast_in_dim" && op->getNumOperands() == 1)
    state.operands[0] = dropStretchedDimensions(op, out);
  state.addTypes(op->getResultTypes());
  state.addAttributes(out.getAttrs());
  for (Region &region : op->getRegions())
    state.addRegion()->takeBody(region);
  OpBuilder builder(op);
  // StableHLO lets an element-wise op on quantized tensors take and give
  // other quantization parameters; its meaning is then: dequantize the
  // operands, compute in the expressed type, quantize the result. Kiln's
  // element-wise ops keep one type, so that is what is built.
  if (registered->hasTrait<OpTrait::SameOperandsAndResultType>() &&
      failed(verifyCompatibleTypes(state))) {
    auto expressed = [](Type type) -> Type {
      auto shaped = dyn_cast<ShapedType>(type);
      auto quantized =
          shaped ? dyn_cast<quant::QuantizedType>(shaped.getElementType())
                 : nullptr;
      return quantized ? shaped.clone(quantized.getExpressedType()) : type;
    };
    for (Value &operand : state.operands) {
      Type real = expressed(operand.getType());
      if (real == operand.getType())
        continue;
      OperationState dequantize(op->getLoc(), "kiln.uniform_dequantize");
      dequantize.addOperands(operand);
      dequantize.addTypes(real);
      operand = builder.create(dequantize)->getResult(0);
    }
    llvm::SmallVector<Type> quantizedTypes(state.types.begin(), state.types.end());
    for (Type &type : state.types)
      type = expressed(type);
    Operation *computed = builder.create(state);
    llvm::SmallVector<Value> results;
    for (auto [value, type] : llvm::zip(computed->getResults(), quantizedTypes)) {
      if (value.getType() == type) {
        results.push_back(value);
        continue;
      }
      OperationState quantize(op->getLoc(), "kiln.uniform_quantize");
      quantize.addOperands(value);
      quantize.addTypes(type);
      results.push_back(builder.create(quantize)->getResult(0));
    }
    op->replaceAllUsesWith(results);
    op->erase();
    return success();
  }
  Operation *replacement = builder.create(state);
  op->replaceAllUsesWith(replacement->getResults());
  op->erase();
  return success();
}

LogicalResult Converter::convertSendRecv(Operation *op, StringRef name) {
  bool isSend = name == "send";
  // send: (data..., token) -> token; recv: (token) -> (data..., token).
  ValueRange data =
      isSend ? ValueRange(op->getOperands()) : ValueRange(op->getResults());
  bool wellFormed =
      !data.empty() && isa<kiln::TokenType>(data.back().getType()) &&
      (isSend ? op->getNumResults() == 1 &&
                    isa<kiln::TokenType>(op->getResult(0).getType())
              : op->getNumOperands() == 1 &&
                    isa<kiln::TokenType>(op->getOperand(0).getType()));
  if (!wellFormed)
    return op->emitError("'stablehlo.")
           << name
           << (isSend ? "' takes its data and a token and gives a token"
                      : "' takes a token and gives its data and a token");
  Type token = data.back().getType();
  data = data.drop_back();
  takeSyntaxPosition(op);
  NamedAttrList in = attributesOf(op), attrs;
  std::optional<RegisteredOperationName> kilnOp =
      RegisteredOperationName::lookup(isSend ? "kiln.send" : "kiln.recv",
                                      op->getContext());
  if (!kilnOp || failed(convertAttributes(op, name, in, attrs, *kilnOp)))
    return failure();
  // HLO sends and receives one value: several are a tuple, whose structure
  // the export needs (as the HLO importer records it).
  std::string dataTuple = "_";
  if (data.size() != 1) {
    dataTuple = "(";
    for (size_t i = 0; i < data.size(); ++i)
      dataTuple += i ? ",_" : "_";
    dataTuple += ")";
  }
  auto structure = [&](StringRef rest) {
    return b.getStringAttr("(" + dataTuple + rest + ")");
  };
  Type context = RankedTensorType::get(
      {}, IntegerType::get(op->getContext(), 32, IntegerType::Unsigned));
  llvm::SmallVector<Type> startTypes(data.getTypes());
  startTypes.append({context, token});

  OpBuilder builder(op);
  OperationState start(op->getLoc(), isSend ? "kiln.send" : "kiln.recv");
  start.addOperands(op->getOperands());
  start.addTypes(startTypes);
  start.addAttributes(attrs.getAttrs());
  if (isSend && data.size() != 1)
    start.addAttribute("kiln.operand_tuples",
                       b.getStrArrayAttr({dataTuple, "_"}));
  if (data.size() != 1)
    start.addAttribute("kiln.result_tuple", structure(",_,_"));
  Operation *started = builder.create(start);

  OperationState done(op->getLoc(),
                      isSend ? "kiln.send_done" : "kiln.recv_done");
  done.addOperands(started->getResults());
  if (isSend) {
    done.addTypes(token);
  } else {
    done.addTypes(data.getTypes());
    done.addTypes(token);
  }
  // Only the channel and the kind of transfer go on the -done, as XLA
  // writes it.
  for (StringRef kept : {"channel_id", "is_host_transfer"})
    if (Attribute value = attrs.get(kept))
      done.addAttribute(kept, value);
  done.addAttribute("kiln.operand_tuples",
                    b.getStrArrayAttr({structure(",_,_").getValue()}));
  if (!isSend && data.size() != 1)
    done.addAttribute("kiln.result_tuple", structure(",_"));
  Operation *finished = builder.create(done);
  op->replaceAllUsesWith(finished->getResults());
  op->erase();
  return success();
}

/// StableHLO's interpreter tests leave every function public; where one is
/// An op of the syntax dialects (`stablehlo.add`, ...) that a
/// decomposition builds, for the converter to convert as any other.
static Operation *buildSyntaxOp(OpBuilder &builder, Location loc,
                                StringRef name, ValueRange operands,
                                TypeRange types,
                                llvm::ArrayRef<NamedAttribute> attrs = {}) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(types);
  state.addAttributes(attrs);
  return builder.create(state);
}

/// `chlo.scan` as StableHLO's while, which the converter then turns into
/// kiln's as it turns any other: a counter runs over the scanned dimension
/// (down from its end with `is_reverse`); each step takes the inputs'
/// slices with dynamic_slice, runs the body (inlined) on them and the
/// carries, writes its outputs into buffers that start as zeros with
/// dynamic_update_slice, and carries its new carries.
static LogicalResult decomposeScan(Operation *scan) {
  auto fail = [&](const Twine &message) {
    return scan->emitError("'chlo.scan' ") << message;
  };
  // From the pretty form's attributes or the generic form's properties.
  NamedAttrList attrs = attributesOf(scan);
  auto segments =
      dyn_cast_or_null<DenseI32ArrayAttr>(attrs.get("operandSegmentSizes"));
  auto dimensionAttr = dyn_cast_or_null<IntegerAttr>(attrs.get("dimension"));
  if (!segments || segments.size() != 2 || !dimensionAttr)
    return fail("needs its inputs, its inits and a dimension");
  int64_t numInputs = segments[0], numCarries = segments[1];
  int64_t numOutputs = (int64_t)scan->getNumResults() - numCarries;
  if (numInputs < 1 || numCarries < 0 ||
      numInputs + numCarries != (int64_t)scan->getNumOperands() ||
      numOutputs < 0)
    return fail("takes at least one input, then its inits, and gives its "
                "outputs, then as many carries as inits");
  bool reverse = false;
  if (Attribute attr = attrs.get("is_reverse")) {
    auto flag = dyn_cast<BoolAttr>(attr);
    if (!flag)
      return fail("needs a bool is_reverse");
    reverse = flag.getValue();
  }
  int64_t dimension = dimensionAttr.getInt();
  ValueRange inputs = scan->getOperands().take_front(numInputs);
  ValueRange inits = scan->getOperands().drop_front(numInputs);
  // The type `type` has without `dimension` (`keep`: with it of size 1).
  auto stepType = [&](Type type, bool keep) -> RankedTensorType {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || dimension < 0 ||
        dimension >= tensor.getRank())
      return {};
    llvm::SmallVector<int64_t> shape(tensor.getShape());
    if (keep)
      shape[dimension] = 1;
    else
      shape.erase(shape.begin() + dimension);
    return RankedTensorType::get(shape, tensor.getElementType());
  };
  int64_t length = -1;
  for (Value input : inputs) {
    if (!stepType(input.getType(), false))
      return fail("scans dimension ")
             << dimension << " of tensors of static shape, not of "
             << input.getType();
    int64_t size =
        cast<RankedTensorType>(input.getType()).getDimSize(dimension);
    if (length >= 0 && size != length)
      return fail("inputs differ in length along dimension ") << dimension;
    length = size;
  }
  Region &region = scan->getRegion(0);
  if (!region.hasOneBlock() || region.front().empty())
    return fail("needs a body of one block");
  Block &body = region.front();
  Operation *terminator = &body.back();
  if ((int64_t)body.getNumArguments() != numInputs + numCarries ||
      (int64_t)terminator->getNumOperands() != numOutputs + numCarries)
    return fail("needs a body that takes an element of each input and the "
                "carries, and returns its outputs and the new carries");
  for (int64_t k = 0; k < numInputs; ++k)
    if (body.getArgument(k).getType() != stepType(inputs[k].getType(), false))
      return fail("body argument ")
             << k << " is " << body.getArgument(k).getType() << ", not "
             << stepType(inputs[k].getType(), false) << ", the slice of input "
             << k;
  llvm::SmallVector<Type> outputTypes;
  for (int64_t i = 0; i < numOutputs; ++i) {
    Type type = scan->getResult(i).getType();
    RankedTensorType step = stepType(type, false);
    if (!step || step != terminator->getOperand(i).getType() ||
        cast<RankedTensorType>(type).getDimSize(dimension) != length)
      return fail("result ")
             << i << " must stack the body's output " << i << " along "
             << "dimension " << dimension << " (" << length << " steps), not "
             << type;
    outputTypes.push_back(type);
  }
  for (int64_t j = 0; j < numCarries; ++j)
    if (scan->getResult(numOutputs + j).getType() != inits[j].getType())
      return fail("carry ") << j << " must keep its init's type";

  takeSyntaxPosition(scan);
  Location loc = scan->getLoc();
  OpBuilder builder(scan);
  auto create = [&](StringRef name, ValueRange operands, TypeRange types,
                    llvm::ArrayRef<NamedAttribute> attrs = {}) {
    return buildSyntaxOp(builder, loc, name, operands, types, attrs);
  };
  auto counterType = RankedTensorType::get({}, builder.getI64Type());
  auto counter = [&](int64_t value) {
    return create("stablehlo.constant", {}, counterType,
                  {builder.getNamedAttr(
                      "value",
                      DenseElementsAttr::get(
                          counterType, builder.getI64IntegerAttr(value)))})
        ->getResult(0);
  };
  llvm::SmallVector<Value> operands = {counter(0)};
  operands.append(inits.begin(), inits.end());
  for (Type type : outputTypes) {
    auto zero = dyn_cast_or_null<DenseElementsAttr>(builder.getZeroAttr(type));
    if (!zero)
      return fail("outputs of type ") << type << " are not imported";
    operands.push_back(create("stablehlo.constant", {}, type,
                              {builder.getNamedAttr("value", zero)})
                           ->getResult(0));
  }
  llvm::SmallVector<Type> types =
      llvm::to_vector(ValueRange(operands).getTypes());
  OperationState loopState(loc, "stablehlo.while");
  loopState.addOperands(operands);
  loopState.addTypes(types);
  loopState.addRegion();
  loopState.addRegion();
  Operation *loop = builder.create(loopState);
  llvm::SmallVector<Location> locations(types.size(), loc);
  {
    OpBuilder::InsertionGuard guard(builder);
    // cond: the counter has not reached the length.
    Block *test =
        builder.createBlock(&loop->getRegion(0), {}, types, locations);
    Value more =
        create("stablehlo.compare", {test->getArgument(0), counter(length)},
               RankedTensorType::get({}, builder.getI1Type()),
               {builder.getNamedAttr("comparison_direction",
                                     builder.getStringAttr("LT"))})
            ->getResult(0);
    create("stablehlo.return", more, {});

    // do: one step of the scan.
    Block *step =
        builder.createBlock(&loop->getRegion(1), {}, types, locations);
    Value index = step->getArgument(0);
    Value position = reverse ? create("stablehlo.subtract",
                                      {counter(length - 1), index}, counterType)
                                   ->getResult(0)
                             : index;
    Value origin = counter(0);
    auto startsAt = [&](Value tensor) {
      llvm::SmallVector<Value> starts(
          cast<RankedTensorType>(tensor.getType()).getRank(), origin);
      starts[dimension] = position;
      return starts;
    };
    IRMapping mapping;
    for (int64_t k = 0; k < numInputs; ++k) {
      RankedTensorType sliceType = stepType(inputs[k].getType(), true);
      llvm::SmallVector<Value> sliceOperands = {inputs[k]};
      llvm::append_range(sliceOperands, startsAt(inputs[k]));
      Value slice = create("stablehlo.dynamic_slice", sliceOperands, sliceType,
                           {builder.getNamedAttr("slice_sizes",
                                                 builder.getDenseI64ArrayAttr(
                                                     sliceType.getShape()))})
                        ->getResult(0);
      mapping.map(body.getArgument(k),
                  create("stablehlo.reshape", slice,
                         stepType(inputs[k].getType(), false))
                      ->getResult(0));
    }
    for (int64_t j = 0; j < numCarries; ++j)
      mapping.map(body.getArgument(numInputs + j), step->getArgument(1 + j));
    // (An unregistered return is no terminator to without_terminator.)
    for (Operation &op : body)
      if (&op != terminator)
        builder.clone(op, mapping);
    llvm::SmallVector<Value> next = {
        create("stablehlo.add", {index, counter(1)}, counterType)
            ->getResult(0)};
    for (int64_t j = 0; j < numCarries; ++j)
      next.push_back(
          mapping.lookupOrDefault(terminator->getOperand(numOutputs + j)));
    for (int64_t i = 0; i < numOutputs; ++i) {
      Value buffer = step->getArgument(1 + numCarries + i);
      Value update = create("stablehlo.reshape",
                            mapping.lookupOrDefault(terminator->getOperand(i)),
                            stepType(outputTypes[i], true))
                         ->getResult(0);
      llvm::SmallVector<Value> updateOperands = {buffer, update};
      llvm::append_range(updateOperands, startsAt(buffer));
      next.push_back(create("stablehlo.dynamic_update_slice", updateOperands,
                            outputTypes[i])
                         ->getResult(0));
    }
    create("stablehlo.return", next, {});
  }
  for (int64_t i = 0; i < numOutputs; ++i)
    scan->getResult(i).replaceAllUsesWith(loop->getResult(1 + numCarries + i));
  for (int64_t j = 0; j < numCarries; ++j)
    scan->getResult(numOutputs + j).replaceAllUsesWith(loop->getResult(1 + j));
  scan->erase();
  return success();
}

/// `stablehlo.collective_reduce` as StableHLO's all_reduce over the same
/// groups, kept by each group's first member, the root, and zeros on the
/// others: a table of which replicas are roots, read at replica_id.
static LogicalResult decomposeCollectiveReduce(Operation *op) {
  auto fail = [&](const Twine &message) {
    return op->emitError("'stablehlo.collective_reduce' ") << message;
  };
  takeSyntaxPosition(op);
  NamedAttrList attrs = attributesOf(op);
  if (op->getNumOperands() == 0 ||
      op->getNumOperands() != op->getNumResults() || op->getNumRegions() != 1)
    return fail("takes operands, one result per operand, and a reducer");
  // A unit attribute (the pretty form's) or a true bool.
  Attribute global = attrs.get("use_global_device_ids");
  auto flag = dyn_cast_or_null<BoolAttr>(global);
  if (isa_and_nonnull<UnitAttr>(global) || (flag && flag.getValue()))
    return fail("with use_global_device_ids cannot be imported into kiln yet");
  // Which replicas are roots: the first member of each group (of all of
  // them, without groups).
  llvm::SmallVector<bool> roots = {true};
  if (auto groups =
          dyn_cast_or_null<DenseIntElementsAttr>(attrs.get("replica_groups"));
      groups && groups.getNumElements() > 0) {
    auto shape = cast<ShapedType>(groups.getType()).getShape();
    auto ids = llvm::to_vector(groups.getValues<int64_t>());
    int64_t size = shape.size() == 2 ? shape[1] : (int64_t)ids.size();
    roots.assign(std::max<int64_t>(*llvm::max_element(ids), 0) + 1, false);
    for (size_t begin = 0; size > 0 && begin < ids.size(); begin += size)
      for (size_t i = begin; i < begin + size && i < ids.size(); ++i)
        if (ids[i] >= 0) {
          roots[ids[i]] = true;
          break;
        }
  }
  Location loc = op->getLoc();
  OpBuilder builder(op);
  auto create = [&](StringRef name, ValueRange operands, TypeRange types,
                    llvm::ArrayRef<NamedAttribute> attrs = {}) {
    return buildSyntaxOp(builder, loc, name, operands, types, attrs);
  };
  OperationState reduceState(loc, "stablehlo.all_reduce");
  reduceState.addOperands(op->getOperands());
  reduceState.addTypes(op->getResultTypes());
  reduceState.addAttributes(attrs);
  reduceState.addRegion()->takeBody(op->getRegion(0));
  Operation *reduce = builder.create(reduceState);

  auto tableType =
      RankedTensorType::get({(int64_t)roots.size()}, builder.getI1Type());
  Value table =
      create("stablehlo.constant", {}, tableType,
             {builder.getNamedAttr(
                 "value", DenseElementsAttr::get(tableType,
                                                 llvm::ArrayRef<bool>(roots)))})
          ->getResult(0);
  auto indexType = RankedTensorType::get({}, builder.getI64Type());
  Value replica =
      create("stablehlo.replica_id", {},
             RankedTensorType::get({}, builder.getIntegerType(32, false)))
          ->getResult(0);
  Value index = create("stablehlo.convert", replica, indexType)->getResult(0);
  Value slice = create("stablehlo.dynamic_slice", {table, index},
                       RankedTensorType::get({1}, builder.getI1Type()),
                       {builder.getNamedAttr(
                           "slice_sizes", builder.getDenseI64ArrayAttr({1}))})
                    ->getResult(0);
  Value isRoot = create("stablehlo.reshape", slice,
                        RankedTensorType::get({}, builder.getI1Type()))
                     ->getResult(0);
  for (auto [result, reduced] :
       llvm::zip(op->getResults(), reduce->getResults())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    auto zero =
        type ? dyn_cast_or_null<DenseElementsAttr>(builder.getZeroAttr(type))
             : nullptr;
    if (!zero || !type.hasStaticShape())
      return fail("results of type ")
             << result.getType() << " are not imported";
    Value mask =
        create("stablehlo.broadcast_in_dim", isRoot,
               type.clone(builder.getI1Type()),
               {builder.getNamedAttr("broadcast_dimensions",
                                     builder.getDenseI64ArrayAttr({}))})
            ->getResult(0);
    Value zeros = create("stablehlo.constant", {}, type,
                         {builder.getNamedAttr("value", zero)})
                      ->getResult(0);
    result.replaceAllUsesWith(
        create("stablehlo.select", {mask, reduced, zeros}, type)->getResult(0));
  }
  op->erase();
  return success();
}

/// Every `chlo.scan` of `module` decomposed (decomposeScan), inner ones
/// first, and every `stablehlo.collective_reduce`
/// (decomposeCollectiveReduce), before the converter collects the ops it
/// converts.
static LogicalResult decomposeOps(ModuleOp module) {
  llvm::SmallVector<Operation *> scans, reduces;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "chlo.scan")
      scans.push_back(op);
    if (op->getName().getStringRef() == "stablehlo.collective_reduce")
      reduces.push_back(op);
  });
  for (Operation *scan : scans)
    if (failed(decomposeScan(scan)))
      return failure();
  for (Operation *reduce : reduces)
    if (failed(decomposeCollectiveReduce(reduce)))
      return failure();
  return success();
}

/// `@main`, it is the entry and the others are its callees.
static void makeMainTheEntry(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || !main.isPublic())
    return;
  for (auto function : module.getOps<func::FuncOp>())
    if (function != main && function.isPublic() && !function.isExternal())
      function.setPrivate();
}

LogicalResult kiln::convertStableHloToKiln(ModuleOp module) {
  convertModuleAttrs(module);
  makeMainTheEntry(module);
  if (failed(decomposeOps(module)))
    return failure();
  llvm::SmallVector<Operation *> ops;
  if (failed(prepareOps(module, ops)))
    return failure();
  Converter converter(module.getContext());
  for (Operation *op : ops)
    if (failed(converter.convert(op)))
      return failure();
  // Tuples whose elements were all taken, and tuples nothing uses, go
  // (repeatedly: a tuple of tuples frees its elements).
  for (bool erased = true; erased;) {
    erased = false;
    llvm::SmallVector<Operation *> unused;
    module.walk([&](Operation *op) {
      if (op->getName().getStringRef() == "stablehlo.tuple" && op->use_empty())
        unused.push_back(op);
    });
    for (Operation *tuple : unused) {
      tuple->erase();
      erased = true;
    }
  }
  // A constant without elements is `dense<>`, as HLO text's `{}` gives it,
  // whatever splat value StableHLO wrote for it.
  module.walk([](kiln::ConstantOp constant) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (value && value.getNumElements() == 0 && value.isSplat())
      constant.setValueAttr(DenseElementsAttr::getFromRawBuffer(
          value.getType(), llvm::ArrayRef<char>()));
  });
  bool tuplesLeft = false;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "stablehlo.tuple") {
      op->emitError("a tuple that is not taken apart in its function; kiln "
                    "imports tuples only as get_tuple_element's operands");
      tuplesLeft = true;
    }
  });
  return failure(tuplesLeft);
}
