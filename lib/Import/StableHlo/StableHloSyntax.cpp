//===- StableHloSyntax.cpp - StableHLO's text syntax, parsed by MLIR ------===//
//
// This file implements the parse hooks of the `stablehlo` and `chlo` syntax
// dialects. Each pretty form is read into an OperationState whose
// attributes carry the names of the generic form (StableHLO's
// specification), e.g. `stablehlo.broadcast_in_dim %x, dims = [0]` gets
// `broadcast_dimensions = array<i64: 0>`. `#stablehlo.<kind><...>`
// attributes become dictionaries of their fields, and enumerations
// (`#stablehlo<comparison_direction LT>`) the string of their value.
//
//===----------------------------------------------------------------------===//

#include "StableHloSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace kiln;

MLIR_DEFINE_EXPLICIT_TYPE_ID(kiln::StableHloSyntaxDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(kiln::ChloSyntaxDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(kiln::CheckSyntaxDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(kiln::ShardySyntaxDialect)

namespace {

using Operand = OpAsmParser::UnresolvedOperand;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute parseFieldValue(AsmParser &parser);

/// A field of a `#stablehlo.<kind><field = value, ...>` attribute.
Attribute parseFieldValue(AsmParser &parser) {
  MLIRContext *context = parser.getContext();
  if (succeeded(parser.parseOptionalLSquare())) {
    // Re-enter: the list parser wants its bracket.
    llvm::SmallVector<Attribute> elements;
    if (succeeded(parser.parseOptionalRSquare()))
      return DenseI64ArrayAttr::get(context, {});
    do {
      Attribute element = parseFieldValue(parser);
      if (!element)
        return {};
      elements.push_back(element);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare())
      return {};
    bool integers = llvm::all_of(elements, [](Attribute element) {
      auto integer = dyn_cast<IntegerAttr>(element);
      return integer && integer.getType().isInteger(64);
    });
    if (integers) {
      llvm::SmallVector<int64_t> values;
      for (Attribute element : elements)
        values.push_back(cast<IntegerAttr>(element).getInt());
      return DenseI64ArrayAttr::get(context, values);
    }
    return ArrayAttr::get(context, elements);
  }
  // Before integers: MLIR's integer parser also takes `true` and `false`.
  if (succeeded(parser.parseOptionalKeyword("true")))
    return BoolAttr::get(context, true);
  if (succeeded(parser.parseOptionalKeyword("false")))
    return BoolAttr::get(context, false);
  int64_t integer;
  OptionalParseResult parsedInteger = parser.parseOptionalInteger(integer);
  if (parsedInteger.has_value()) {
    if (failed(*parsedInteger))
      return {};
    return IntegerAttr::get(IntegerType::get(context, 64), integer);
  }
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword)))
    return StringAttr::get(context, keyword);
  Attribute attr;
  if (parser.parseAttribute(attr))
    return {};
  return attr;
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: a convolution's dimension
/// numbers, as the fields of the generic form's `#stablehlo.conv<...>`.
Attribute parseConvDimensionNumbers(AsmParser &parser) {
  MLIRContext *context = parser.getContext();
  Builder builder(context);
  NamedAttrList fields;
  auto parseLayout = [&](StringRef prefix, char batch,
                         char feature) -> ParseResult {
    llvm::SmallVector<std::pair<int64_t, int64_t>> spatial; // (index, dim)
    int64_t position = 0;
    bool sawBatch = false, sawFeature = false;
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
          int64_t index;
          OptionalParseResult number = parser.parseOptionalInteger(index);
          if (number.has_value()) {
            if (failed(*number))
              return failure();
            spatial.push_back({index, position++});
            return success();
          }
          StringRef letter;
          if (parser.parseKeyword(&letter))
            return failure();
          if (letter.size() == 1 && letter[0] == batch) {
            fields.set(prefix.str() + (batch == 'b' ? "_batch_dimension"
                                                    : "_input_feature_dimension"),
                       builder.getI64IntegerAttr(position++));
            sawBatch = true;
          } else if (letter.size() == 1 && letter[0] == feature) {
            fields.set(prefix.str() + (feature == 'f'
                                           ? "_feature_dimension"
                                           : "_output_feature_dimension"),
                       builder.getI64IntegerAttr(position++));
            sawFeature = true;
          } else {
            return ParseResult(parser.emitError(parser.getCurrentLocation())
                               << "unexpected dimension '" << letter << "'");
          }
          return success();
        }))
      return failure();
    if (!sawBatch || !sawFeature)
      return parser.emitError(parser.getCurrentLocation())
             << "a convolution layout needs both of '" << batch << "' and '"
             << feature << "'";
    llvm::sort(spatial);
    llvm::SmallVector<int64_t> dims;
    for (auto [index, dim] : spatial)
      dims.push_back(dim);
    fields.set(prefix.str() + "_spatial_dimensions",
               builder.getDenseI64ArrayAttr(dims));
    return success();
  };
  if (parseLayout("input", 'b', 'f') || parser.parseKeyword("x") ||
      parseLayout("kernel", 'i', 'o') || parser.parseArrow() ||
      parseLayout("output", 'b', 'f'))
    return {};
  return fields.getDictionary(context);
}

/// `field = value, ...>` (after the `<`): a dictionary of the fields.
Attribute parseFieldsUntilGreater(AsmParser &parser) {
  MLIRContext *context = parser.getContext();
  NamedAttrList fields;
  if (succeeded(parser.parseOptionalGreater()))
    return fields.getDictionary(context);
  do {
    StringRef name;
    if (parser.parseKeyword(&name))
      return {};
    Attribute value;
    if (succeeded(parser.parseOptionalEqual())) {
      value = parseFieldValue(parser);
      if (!value)
        return {};
    } else {
      // A bare word (an enumeration inside, e.g. `<DEFAULT>`).
      value = UnitAttr::get(context);
    }
    fields.set(name, value);
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  return fields.getDictionary(context);
}

/// `#stablehlo.<kind><field = value, ...>` (a dictionary of the fields) or
/// `#stablehlo<kind VALUE>` (the value's string).
Attribute parseSyntaxAttribute(DialectAsmParser &parser) {
  MLIRContext *context = parser.getContext();
  StringRef kind;
  if (parser.parseKeyword(&kind))
    return {};
  if (kind == "conv") {
    if (parser.parseLess())
      return {};
    Attribute numbers = parseConvDimensionNumbers(parser);
    if (!numbers || parser.parseGreater())
      return {};
    return numbers;
  }
  if (failed(parser.parseOptionalLess())) {
    // `#stablehlo<comparison_direction LT>`: the enumeration's value.
    StringRef value;
    if (parser.parseKeyword(&value))
      return {};
    return StringAttr::get(context, value);
  }
  return parseFieldsUntilGreater(parser);
}

//===----------------------------------------------------------------------===//
// Operands and types
//===----------------------------------------------------------------------===//

/// `%a, %b, ...` up to the first comma that is not followed by an operand
/// (where keyword fields begin); `trailingComma` says whether one was read.
ParseResult parseOperands(OpAsmParser &parser,
                          llvm::SmallVectorImpl<Operand> &operands,
                          bool &trailingComma) {
  trailingComma = false;
  Operand operand;
  OptionalParseResult first = parser.parseOptionalOperand(operand);
  if (!first.has_value())
    return success();
  if (failed(*first))
    return failure();
  operands.push_back(operand);
  while (succeeded(parser.parseOptionalComma())) {
    OptionalParseResult next = parser.parseOptionalOperand(operand);
    if (!next.has_value()) {
      trailingComma = true;
      return success();
    }
    if (failed(*next))
      return failure();
    operands.push_back(operand);
  }
  return success();
}

/// The types after `:`: a function type `(A, B) -> C`; `A, B -> C` (chlo);
/// one type for every operand and the result; or, for select, the
/// predicate's type and the others'.
ParseResult parseTypes(OpAsmParser &parser, StringRef opName,
                       llvm::ArrayRef<Operand> operands, SMLoc operandsLoc,
                       OperationState &state) {
  llvm::SmallVector<Type> types;
  if (parser.parseColonTypeList(types))
    return failure();
  llvm::SmallVector<Type> operandTypes, resultTypes;
  if (types.size() == 1 && isa<FunctionType>(types[0])) {
    auto function = cast<FunctionType>(types[0]);
    operandTypes.assign(function.getInputs().begin(),
                        function.getInputs().end());
    resultTypes.assign(function.getResults().begin(),
                       function.getResults().end());
  } else if (succeeded(parser.parseOptionalArrow())) {
    operandTypes = types;
    if (succeeded(parser.parseOptionalLParen())) {
      if (failed(parser.parseOptionalRParen())) {
        if (parser.parseTypeList(resultTypes) || parser.parseRParen())
          return failure();
      }
    } else {
      Type result;
      if (parser.parseType(result))
        return failure();
      resultTypes.push_back(result);
    }
  } else if (opName.ends_with(".select") && types.size() == 2 &&
             operands.size() == 3) {
    operandTypes = {types[0], types[1], types[1]};
    resultTypes = {types[1]};
  } else if (opName == "stablehlo.complex" && types.size() == 1 &&
             isa<ShapedType>(types[0])) {
    // `: tensor<4xcomplex<f32>>`: the operands are its real parts.
    auto shaped = cast<ShapedType>(types[0]);
    auto complex = dyn_cast<ComplexType>(shaped.getElementType());
    if (!complex)
      return parser.emitError(operandsLoc)
             << "stablehlo.complex needs a complex result type";
    Type part = shaped.clone(complex.getElementType());
    operandTypes = {part, part};
    resultTypes = {types[0]};
  } else if (opName == "stablehlo.tuple" && types.size() == 1 &&
             isa<TupleType>(types[0])) {
    auto tuple = cast<TupleType>(types[0]);
    operandTypes.assign(tuple.getTypes().begin(), tuple.getTypes().end());
    resultTypes = {tuple};
  } else if (opName.starts_with("check.")) {
    // Checks return nothing: one type for all operands, or one each.
    if (types.size() == operands.size())
      operandTypes = types;
    else
      operandTypes.assign(operands.size(), types[0]);
  } else if (opName.ends_with(".return") ||
             opName.ends_with(".optimization_barrier")) {
    operandTypes = types;
    if (opName.ends_with(".optimization_barrier"))
      resultTypes = types;
  } else if (types.size() == 1) {
    operandTypes.assign(operands.size(), types[0]);
    resultTypes.push_back(types[0]);
  } else {
    return parser.emitError(operandsLoc)
           << "'" << opName << "' expects one type or a function type, got "
           << types.size() << " types";
  }
  if (opName.ends_with(".return") || opName.starts_with("check."))
    resultTypes.clear();
  state.addTypes(resultTypes);
  return parser.resolveOperands(operands, operandTypes, operandsLoc,
                                state.operands);
}

ParseResult parseIntegerList(OpAsmParser &parser,
                             llvm::SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&] {
        int64_t value;
        if (parser.parseInteger(value))
          return failure();
        values.push_back(value);
        return success();
      });
}

/// `name = value` fields of a pretty form, after its operands, into
/// attributes named as the generic form names them. Integers and lists of
/// integers, keywords (enumerations) and attributes are taken as they are;
/// `dims`, `dim`, `sizes` and the others are renamed per op.
ParseResult parseKeywordFields(OpAsmParser &parser, StringRef opName,
                               OperationState &state) {
  MLIRContext *context = parser.getContext();
  Builder builder(context);
  StringRef op = opName.drop_until([](char c) { return c == '.'; }).drop_front();
  do {
    SMLoc nameLoc = parser.getCurrentLocation();
    StringRef name;
    if (failed(parser.parseOptionalKeyword(&name)))
      return success(); // not a field: the caller goes on
    if (parser.parseEqual())
      return failure();
    // dot_general's `contracting_dims = [1] x [0]`.
    if (name == "contracting_dims" || name == "batching_dims") {
      llvm::SmallVector<int64_t> lhs, rhs;
      if (parseIntegerList(parser, lhs) || parser.parseKeyword("x") ||
          parseIntegerList(parser, rhs))
        return failure();
      std::string prefix = name == "contracting_dims" ? "contracting"
                                                      : "batching";
      state.addAttribute("kiln.syntax.lhs_" + prefix + "_dimensions",
                         builder.getDenseI64ArrayAttr(lhs));
      state.addAttribute("kiln.syntax.rhs_" + prefix + "_dimensions",
                         builder.getDenseI64ArrayAttr(rhs));
      continue;
    }
    // A float (a check's tolerance): parsed as one, so that the op's type
    // after it is not read as the float's.
    if (name == "tolerance") {
      double value;
      if (parser.parseFloat(value))
        return failure();
      state.addAttribute(name, builder.getF64FloatAttr(value));
      continue;
    }
    // dot_general's `algorithm = <field = value, ...>` (rng_bit_generator's
    // `algorithm = THREE_FRY` is a keyword, below).
    if (name == "algorithm" && succeeded(parser.parseOptionalLess())) {
      Attribute fields = parseFieldsUntilGreater(parser);
      if (!fields)
        return failure();
      state.addAttribute(name, fields);
      continue;
    }
    // reduce_precision's `format = e5m10`.
    if (name == "format") {
      StringRef format;
      unsigned exponent = 0, mantissa = 0;
      if (parser.parseKeyword(&format))
        return failure();
      auto [e, m] = format.drop_front().split('m');
      if (!format.starts_with("e") || e.getAsInteger(10, exponent) ||
          m.getAsInteger(10, mantissa))
        return parser.emitError(nameLoc) << "expected a format like e5m10";
      state.addAttribute("exponent_bits", builder.getI32IntegerAttr(exponent));
      state.addAttribute("mantissa_bits", builder.getI32IntegerAttr(mantissa));
      continue;
    }
    Attribute value = parseFieldValue(parser);
    if (!value)
      return failure();
    // The generic form's names for the pretty form's.
    std::string generic = name.str();
    if (name == "dims")
      generic = llvm::StringSwitch<std::string>(op)
                    .Case("broadcast_in_dim", "broadcast_dimensions")
                    .Case("transpose", "permutation")
                    .Default("dimensions");
    else if (name == "dim")
      generic = op == "iota" || op == "dynamic_iota" ? "iota_dimension"
                                                     : "dimension";
    else if (name == "sizes")
      generic = "slice_sizes";
    else if (name == "low")
      generic = "edge_padding_low";
    else if (name == "high")
      generic = "edge_padding_high";
    else if (name == "interior")
      generic = "interior_padding";
    else if (name == "type" && op == "fft")
      generic = "fft_type";
    else if (name == "length")
      generic = "fft_length";
    else if (name == "precision")
      generic = "precision_config";
    else if (name == "distribution" && op == "rng")
      generic = "rng_distribution";
    else if (name == "algorithm" && op == "rng_bit_generator")
      generic = "rng_algorithm";
    // Integers are i64, as the generic form writes them; `true` and
    // `false` stay booleans.
    if (auto integer = dyn_cast<IntegerAttr>(value);
        integer && !isa<BoolAttr>(value))
      value = builder.getI64IntegerAttr(integer.getInt());
    state.addAttribute(generic, value);
  } while (succeeded(parser.parseOptionalComma()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pretty forms
//===----------------------------------------------------------------------===//

/// `%a, %b, field = value, ... attr-dict : types`: the elementwise ops,
/// conversions, and every op whose pretty form is operands, fields and
/// types.
ParseResult parseOperandsFieldsTypes(OpAsmParser &parser,
                                     OperationState &state) {
  StringRef opName = state.name.getStringRef();
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> operands;
  bool trailingComma = false;
  if (parseOperands(parser, operands, trailingComma))
    return failure();
  if (trailingComma || operands.empty())
    if (parseKeywordFields(parser, opName, state))
      return failure();
  if (parser.parseOptionalAttrDict(state.attributes))
    return failure();
  // `stablehlo.return` of nothing has no types either.
  if (operands.empty() && opName.ends_with(".return"))
    return success();
  return parseTypes(parser, opName, operands, operandsLoc, state);
}

/// `stablehlo.constant attr-dict dense<...> : type`.
ParseResult parseConstant(OpAsmParser &parser, OperationState &state) {
  if (parser.parseOptionalAttrDict(state.attributes))
    return failure();
  Attribute value;
  if (parser.parseAttribute(value))
    return failure();
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed)
    return parser.emitError(parser.getCurrentLocation())
           << "a constant needs a typed value";
  state.addAttribute("value", value);
  state.addTypes(typed.getType());
  return success();
}

/// `stablehlo.compare LT, %a, %b, FLOAT : types`.
ParseResult parseCompare(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  StringRef direction;
  if (parser.parseKeyword(&direction) || parser.parseComma())
    return failure();
  state.addAttribute("comparison_direction",
                     builder.getStringAttr(direction));
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> operands;
  bool trailingComma = false;
  if (parseOperands(parser, operands, trailingComma))
    return failure();
  if (trailingComma) {
    StringRef type;
    if (parser.parseKeyword(&type))
      return failure();
    state.addAttribute("compare_type", builder.getStringAttr(type));
  }
  if (parser.parseOptionalAttrDict(state.attributes))
    return failure();
  return parseTypes(parser, state.name.getStringRef(), operands, operandsLoc,
                    state);
}

/// `stablehlo.slice %x [0:4, 1:8:2] : types`.
ParseResult parseSlice(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  SMLoc operandsLoc = parser.getCurrentLocation();
  Operand operand;
  if (parser.parseOperand(operand))
    return failure();
  llvm::SmallVector<int64_t> starts, limits, strides;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t start, limit, stride = 1;
        if (parser.parseInteger(start) || parser.parseColon() ||
            parser.parseInteger(limit))
          return failure();
        if (succeeded(parser.parseOptionalColon()) &&
            parser.parseInteger(stride))
          return failure();
        starts.push_back(start);
        limits.push_back(limit);
        strides.push_back(stride);
        return success();
      }))
    return failure();
  state.addAttribute("start_indices", builder.getDenseI64ArrayAttr(starts));
  state.addAttribute("limit_indices", builder.getDenseI64ArrayAttr(limits));
  state.addAttribute("strides", builder.getDenseI64ArrayAttr(strides));
  if (parser.parseOptionalAttrDict(state.attributes))
    return failure();
  return parseTypes(parser, state.name.getStringRef(), {operand}, operandsLoc,
                    state);
}

/// `stablehlo.custom_call @target(%a, %b) attr-dict : types`.
ParseResult parseCustomCall(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  StringAttr target;
  if (parser.parseSymbolName(target))
    return failure();
  state.addAttribute("call_target_name", target);
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> operands;
  if (parser.parseOperandList(operands, AsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(state.attributes))
    return failure();
  return parseTypes(parser, state.name.getStringRef(), operands, operandsLoc,
                    state);
}

/// A reduction region of one op per pair of arguments, for `applies
/// stablehlo.add` forms: `^bb0(%lhs_0..., %rhs_0...)` then the op and a
/// return.
void buildAppliedRegion(OpAsmParser &parser, OperationState &state,
                        StringRef appliedOp, llvm::ArrayRef<Type> initTypes) {
  MLIRContext *context = parser.getContext();
  Region *region = state.addRegion();
  Block *block = new Block();
  region->push_back(block);
  Location loc = UnknownLoc::get(context);
  llvm::SmallVector<Type> scalars;
  for (Type type : initTypes)
    scalars.push_back(RankedTensorType::get(
        {}, cast<ShapedType>(type).getElementType()));
  for (int side = 0; side < 2; ++side)
    for (Type type : scalars)
      block->addArgument(type, loc);
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(block);
  size_t count = scalars.size();
  llvm::SmallVector<Value> results;
  for (size_t i = 0; i < count; ++i) {
    OperationState apply(loc, appliedOp);
    apply.addOperands({block->getArgument(i), block->getArgument(count + i)});
    apply.addTypes(scalars[i]);
    results.push_back(builder.create(apply)->getResult(0));
  }
  OperationState ret(loc, "stablehlo.return");
  ret.addOperands(results);
  builder.create(ret);
}

/// `stablehlo.reduce(%x init: %i), ... [applies stablehlo.add] across
/// dimensions = [..] : types [reducer(%a: T, %b: T) ... { ... }]`.
ParseResult parseReduce(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> inputs, inits;
  do {
    Operand input, init;
    if (parser.parseLParen() || parser.parseOperand(input) ||
        parser.parseKeyword("init") || parser.parseColon() ||
        parser.parseOperand(init) || parser.parseRParen())
      return failure();
    inputs.push_back(input);
    inits.push_back(init);
  } while (succeeded(parser.parseOptionalComma()));
  std::string applied;
  if (succeeded(parser.parseOptionalKeyword("applies"))) {
    FailureOr<OperationName> name = parser.parseCustomOperationName();
    if (failed(name))
      return failure();
    applied = name->getStringRef().str();
  }
  llvm::SmallVector<int64_t> dimensions;
  if (parser.parseKeyword("across") || parser.parseKeyword("dimensions") ||
      parser.parseEqual() || parseIntegerList(parser, dimensions) ||
      parser.parseOptionalAttrDict(state.attributes))
    return failure();
  state.addAttribute("dimensions", builder.getDenseI64ArrayAttr(dimensions));
  llvm::SmallVector<Operand> operands(inputs);
  operands.append(inits.begin(), inits.end());
  if (parseTypes(parser, state.name.getStringRef(), operands, operandsLoc,
                 state))
    return failure();
  llvm::SmallVector<Type> initTypes;
  for (size_t i = inputs.size(); i < state.operands.size(); ++i)
    initTypes.push_back(state.operands[i].getType());
  if (!applied.empty()) {
    buildAppliedRegion(parser, state, applied, initTypes);
    return success();
  }
  // `reducer(%a0: T, %b0: T) (%a1: T, %b1: T) { ... }`: the block takes
  // every first argument, then every second one.
  if (parser.parseKeyword("reducer"))
    return failure();
  llvm::SmallVector<OpAsmParser::Argument> firsts, seconds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    llvm::SmallVector<OpAsmParser::Argument> pair;
    if (parser.parseArgumentList(pair, AsmParser::Delimiter::Paren,
                                 /*allowType=*/true) )
      return failure();
    if (pair.size() != 2)
      return parser.emitError(parser.getCurrentLocation())
             << "a reducer takes two arguments per input";
    firsts.push_back(pair[0]);
    seconds.push_back(pair[1]);
  }
  llvm::SmallVector<OpAsmParser::Argument> arguments(firsts);
  arguments.append(seconds.begin(), seconds.end());
  return parser.parseRegion(*state.addRegion(), arguments);
}

/// `stablehlo.while(%a = %x, ...) : types attr-dict cond { } do { }`.
ParseResult parseWhile(OpAsmParser &parser, OperationState &state) {
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<OpAsmParser::Argument> iterArgs;
  llvm::SmallVector<Operand> operands;
  if (parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    do {
      OpAsmParser::Argument arg;
      Operand operand;
      if (parser.parseArgument(arg) || parser.parseEqual() ||
          parser.parseOperand(operand))
        return failure();
      iterArgs.push_back(arg);
      operands.push_back(operand);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  }
  llvm::SmallVector<Type> types;
  if (!operands.empty() && parser.parseColonTypeList(types))
    return failure();
  if (types.size() != operands.size())
    return parser.emitError(operandsLoc)
           << "stablehlo.while has " << operands.size() << " operands and "
           << types.size() << " types";
  for (auto [arg, type] : llvm::zip(iterArgs, types))
    arg.type = type;
  if (parser.resolveOperands(operands, types, operandsLoc, state.operands) ||
      parser.parseOptionalAttrDictWithKeyword(state.attributes) ||
      parser.parseKeyword("cond") ||
      parser.parseRegion(*state.addRegion(), iterArgs) ||
      parser.parseKeyword("do") ||
      parser.parseRegion(*state.addRegion(), iterArgs))
    return failure();
  state.addTypes(types);
  return success();
}

/// `chlo.top_k(%x, k = 5) : T -> (T, T)`.
ParseResult parseTopK(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  SMLoc operandsLoc = parser.getCurrentLocation();
  Operand operand;
  int64_t k;
  if (parser.parseLParen() || parser.parseOperand(operand) ||
      parser.parseComma() || parser.parseKeyword("k") || parser.parseEqual() ||
      parser.parseInteger(k) || parser.parseRParen() ||
      parser.parseOptionalAttrDict(state.attributes))
    return failure();
  state.addAttribute("k", builder.getI64IntegerAttr(k));
  return parseTypes(parser, state.name.getStringRef(), {operand}, operandsLoc,
                    state);
}

/// `stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i,
/// o]->[b, 0, 1, f], window = {stride = [..], pad = [[l, h], ..], lhs_dilate
/// = [..], rhs_dilate = [..], reverse = [..]} attr-dict : types`.
ParseResult parseConvolution(OpAsmParser &parser, OperationState &state) {
  MLIRContext *context = parser.getContext();
  Builder builder(context);
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> operands;
  if (parser.parseOperandList(operands, AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("dim_numbers") || parser.parseEqual())
    return failure();
  Attribute numbers = parseConvDimensionNumbers(parser);
  if (!numbers)
    return failure();
  state.addAttribute("dimension_numbers", numbers);
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("window") || parser.parseEqual() ||
        parser.parseLBrace())
      return failure();
    if (failed(parser.parseOptionalRBrace())) {
      do {
        StringRef name;
        if (parser.parseKeyword(&name) || parser.parseEqual())
          return failure();
        if (name == "pad") {
          llvm::SmallVector<int64_t> pads;
          if (parser.parseCommaSeparatedList(
                  AsmParser::Delimiter::Square, [&]() -> ParseResult {
                    llvm::SmallVector<int64_t> pair;
                    if (parseIntegerList(parser, pair))
                      return failure();
                    if (pair.size() != 2)
                      return ParseResult(
                          parser.emitError(parser.getCurrentLocation())
                          << "a padding is [low, high]");
                    pads.append(pair);
                    return success();
                  }))
            return failure();
          auto type = RankedTensorType::get(
              {(int64_t)pads.size() / 2, 2}, builder.getI64Type());
          state.addAttribute("padding",
                             DenseIntElementsAttr::get(type, pads));
          continue;
        }
        if (name == "reverse") {
          llvm::SmallVector<bool> flags;
          if (parser.parseCommaSeparatedList(
                  AsmParser::Delimiter::Square, [&]() -> ParseResult {
                    StringRef word;
                    int64_t number;
                    OptionalParseResult integer =
                        parser.parseOptionalInteger(number);
                    if (integer.has_value()) {
                      flags.push_back(number != 0);
                      return *integer;
                    }
                    if (parser.parseKeyword(&word))
                      return failure();
                    flags.push_back(word == "true");
                    return success();
                  }))
            return failure();
          state.addAttribute("window_reversal",
                             DenseBoolArrayAttr::get(context, flags));
          continue;
        }
        llvm::SmallVector<int64_t> values;
        if (parseIntegerList(parser, values))
          return failure();
        StringRef generic = llvm::StringSwitch<StringRef>(name)
                                .Case("stride", "window_strides")
                                .Case("lhs_dilate", "lhs_dilation")
                                .Case("rhs_dilate", "rhs_dilation")
                                .Default("");
        if (generic.empty())
          return parser.emitError(parser.getCurrentLocation())
                 << "unknown convolution window field '" << name << "'";
        state.addAttribute(generic, builder.getDenseI64ArrayAttr(values));
      } while (succeeded(parser.parseOptionalComma()));
      if (parser.parseRBrace())
        return failure();
    }
  }
  if (parser.parseOptionalAttrDict(state.attributes))
    return failure();
  return parseTypes(parser, state.name.getStringRef(), operands, operandsLoc,
                    state);
}

/// `stablehlo.composite "name" %a, %b attr-dict : types`.
ParseResult parseComposite(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  std::string name;
  if (parser.parseString(&name))
    return failure();
  state.addAttribute("name", builder.getStringAttr(name));
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> operands;
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDict(state.attributes))
    return failure();
  return parseTypes(parser, state.name.getStringRef(), operands, operandsLoc,
                    state);
}

/// `chlo.scan(%x, ...) inits(%c, ...) dimension=D attributes {...}
/// { ^bb0(...): ... } : (types) -> (types)`: the inputs and inits become
/// two operand segments, as in the generic form.
ParseResult parseScan(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  SMLoc operandsLoc = parser.getCurrentLocation();
  llvm::SmallVector<Operand> inputs, inits;
  int64_t dimension;
  if (parser.parseOperandList(inputs, AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("inits") ||
      parser.parseOperandList(inits, AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("dimension") || parser.parseEqual() ||
      parser.parseInteger(dimension) ||
      parser.parseOptionalAttrDictWithKeyword(state.attributes) ||
      parser.parseRegion(*state.addRegion()))
    return failure();
  state.addAttribute("dimension", builder.getI64IntegerAttr(dimension));
  state.addAttribute("operandSegmentSizes",
                     builder.getDenseI32ArrayAttr(
                         {(int32_t)inputs.size(), (int32_t)inits.size()}));
  FunctionType type;
  if (parser.parseColonType(type))
    return failure();
  llvm::SmallVector<Operand> operands(inputs);
  operands.append(inits.begin(), inits.end());
  if (type.getNumInputs() != operands.size())
    return parser.emitError(operandsLoc)
           << "chlo.scan has " << operands.size() << " operands and "
           << type.getNumInputs() << " operand types";
  if (parser.resolveOperands(operands, type.getInputs(), operandsLoc,
                             state.operands))
    return failure();
  state.addTypes(type.getResults());
  return success();
}

/// `stablehlo.get_tuple_element %t[0] attr-dict : types`.
ParseResult parseGetTupleElement(OpAsmParser &parser, OperationState &state) {
  Builder builder(parser.getContext());
  SMLoc operandsLoc = parser.getCurrentLocation();
  Operand operand;
  int64_t index;
  if (parser.parseOperand(operand) || parser.parseLSquare() ||
      parser.parseInteger(index) || parser.parseRSquare() ||
      parser.parseOptionalAttrDict(state.attributes))
    return failure();
  state.addAttribute("index", builder.getI32IntegerAttr(index));
  return parseTypes(parser, state.name.getStringRef(), {operand}, operandsLoc,
                    state);
}

/// `check.expect_eq_const %x, dense<...> : type`: the expected value's type
/// is the operand's.
ParseResult parseCheckConst(OpAsmParser &parser, OperationState &state) {
  SMLoc operandsLoc = parser.getCurrentLocation();
  Operand operand;
  Attribute expected;
  if (parser.parseOperand(operand) || parser.parseComma() ||
      parser.parseAttribute(expected))
    return failure();
  auto typed = dyn_cast<TypedAttr>(expected);
  if (!typed)
    return parser.emitError(operandsLoc) << "the expected value needs a type";
  state.addAttribute("expected", expected);
  if (succeeded(parser.parseOptionalComma()))
    if (parseKeywordFields(parser, state.name.getStringRef(), state))
      return failure();
  if (parser.parseOptionalAttrDict(state.attributes))
    return failure();
  return parser.resolveOperand(operand, typed.getType(), state.operands);
}

/// Runs a pretty form's parser after noting where the op stands in the
/// text: an explicit `loc(...)` (JAX's, naming the Python line) replaces
/// the op's location, and the importer fuses the two, as HLO's importer
/// fuses a dump position with its metadata.
///
/// An error in the op's pretty form, on the op's line, names the op:
/// MLIR's parser says only what it expected where, and an op kiln reads by
/// the general rule (operands, fields, types) may be a newer op with a form
/// of its own. Other errors met meanwhile (the next line's token, read
/// ahead; a nested op's, which its own hook names) pass unchanged.
thread_local unsigned prettyFormDepth = 0;
template <ParseResult (*Parse)(OpAsmParser &, OperationState &),
          bool byGeneralRule = false>
ParseResult withPosition(OpAsmParser &parser, OperationState &state) {
  Location position = parser.getEncodedSourceLoc(parser.getNameLoc());
  state.addAttribute(kPositionAttrName, LocationAttr(position));
  unsigned depth = ++prettyFormDepth;
  // The first error of this op's own form, held until the form is read;
  // its notes (a value's prior use) go with it.
  struct Held {
    Location loc;
    std::string message;
    llvm::SmallVector<std::pair<Location, std::string>> notes;
  };
  std::optional<Held> error;
  ParseResult parsed = failure();
  {
    ScopedDiagnosticHandler capture(
        parser.getContext(), [&](Diagnostic &diagnostic) -> LogicalResult {
          if (error || prettyFormDepth != depth ||
              diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return failure(); // passed on as it is
          error = Held{diagnostic.getLocation(), diagnostic.str(), {}};
          for (Diagnostic &note : diagnostic.getNotes())
            error->notes.emplace_back(note.getLocation(), note.str());
          return success();
        });
    parsed = Parse(parser, state);
  }
  if (error) {
    // Emitted at this depth: an enclosing op's handler passes it on.
    auto opLine = dyn_cast<FileLineColLoc>(position);
    auto errorLine = dyn_cast<FileLineColLoc>(error->loc);
    bool onOpLine = failed(parsed) && opLine && errorLine &&
                    opLine.getLine() == errorLine.getLine();
    InFlightDiagnostic reported = mlir::emitError(error->loc);
    if (onOpLine)
      reported << "'" << state.name.getStringRef() << "': ";
    reported << error->message;
    // A token where the general rule wanted another: the op may have a
    // form of its own.
    if (onOpLine && byGeneralRule &&
        llvm::StringRef(error->message).starts_with("expected"))
      reported << " (kiln reads the pretty form of this op as operands, "
                  "`name = value` fields and types; the generic form, \""
               << state.name.getStringRef()
               << "\"(...) {...} : (...) -> (...), is read for every op)";
    for (auto &[loc, message] : error->notes)
      reported.attachNote(loc) << message;
  }
  --prettyFormDepth;
  return parsed;
}

using Parse = ParseResult (*)(OpAsmParser &, OperationState &);

/// The pretty forms that are not operands, fields and types, by op name.
/// Static: a ParseOpHook refers to its callable, which must outlive it.
const std::pair<StringRef, Parse> kPrettyForms[] = {
    {"constant", withPosition<parseConstant>},
    {"compare", withPosition<parseCompare>},
    {"slice", withPosition<parseSlice>},
    {"custom_call", withPosition<parseCustomCall>},
    {"reduce", withPosition<parseReduce>},
    {"while", withPosition<parseWhile>},
    {"top_k", withPosition<parseTopK>},
    {"convolution", withPosition<parseConvolution>},
    {"get_tuple_element", withPosition<parseGetTupleElement>},
    {"composite", withPosition<parseComposite>},
    {"scan", withPosition<parseScan>},
};
const Parse kCheckConst = withPosition<parseCheckConst>;
const Parse kOperandsFieldsTypes =
    withPosition<parseOperandsFieldsTypes, /*byGeneralRule=*/true>;

std::optional<Dialect::ParseOpHook> hookFor(StringRef opName) {
  StringRef op = opName.drop_until([](char c) { return c == '.'; }).drop_front();
  if (opName.starts_with("check.") && op.ends_with("_const"))
    return Dialect::ParseOpHook(kCheckConst);
  for (const auto &[name, parse] : kPrettyForms)
    if (op == name)
      return Dialect::ParseOpHook(parse);
  return Dialect::ParseOpHook(kOperandsFieldsTypes);
}

} // namespace

SyntaxDialect::SyntaxDialect(StringRef name, MLIRContext *context, TypeID id)
    : Dialect(name, context, id) {
  allowUnknownOperations();
  allowUnknownTypes();
}

Attribute SyntaxDialect::parseAttribute(DialectAsmParser &parser,
                                        Type) const {
  return parseSyntaxAttribute(parser);
}

std::optional<Dialect::ParseOpHook>
SyntaxDialect::getParseOperationHook(StringRef opName) const {
  return hookFor(opName);
}

StableHloSyntaxDialect::StableHloSyntaxDialect(MLIRContext *context)
    : SyntaxDialect(getDialectNamespace(), context,
                    TypeID::get<StableHloSyntaxDialect>()) {}

ChloSyntaxDialect::ChloSyntaxDialect(MLIRContext *context)
    : SyntaxDialect(getDialectNamespace(), context,
                    TypeID::get<ChloSyntaxDialect>()) {}

CheckSyntaxDialect::CheckSyntaxDialect(MLIRContext *context)
    : SyntaxDialect(getDialectNamespace(), context,
                    TypeID::get<CheckSyntaxDialect>()) {}

ShardySyntaxDialect::ShardySyntaxDialect(MLIRContext *context)
    : Dialect(getDialectNamespace(), context,
              TypeID::get<ShardySyntaxDialect>()) {
  // The generic form of its ops parses; the converter refuses them.
  allowUnknownOperations();
}

Attribute ShardySyntaxDialect::parseAttribute(DialectAsmParser &parser,
                                              Type type) const {
  return OpaqueAttr::get(StringAttr::get(getContext(), getNamespace()),
                         parser.getFullSymbolSpec(),
                         type ? type : NoneType::get(getContext()));
}

std::optional<Dialect::ParseOpHook>
ShardySyntaxDialect::getParseOperationHook(StringRef opName) const {
  // MLIR's parser names the op (`custom op 'sdy.mesh' ...`).
  return Dialect::ParseOpHook([](OpAsmParser &parser, OperationState &) {
    return ParseResult(parser.emitError(parser.getNameLoc())
                       << kShardyNotImported);
  });
}

const char *const kiln::kShardyNotImported =
    "is Shardy's (the partitioner newer JAX lowers shardings to): kiln does "
    "not import Shardy yet; give kiln XLA's HLO dump of the step (its "
    "shardings are HLO's), or lower with jax_use_shardy_partitioner=False";
