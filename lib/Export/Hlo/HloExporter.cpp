//===- HloExporter.cpp - kiln dialect to XLA HLO text -----------*- C++ -*-===//
//
// This file implements the export of a kiln module as HLO text in XLA's long
// form. It undoes the importer's flattening: ops with several results produce
// a tuple followed by get-tuple-element instructions, while and conditional
// operands are packed into tuples, and regions become computations printed
// before their users. Locations become `metadata={...}` again.
//
//===----------------------------------------------------------------------===//

#include "kiln/Export/Hlo/HloExporter.h"

#include "StackFrameTables.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/HloOpcodes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include <functional>

using namespace mlir;
using namespace kiln;

namespace {

/// Inherent attributes whose HLO spelling is a quoted string; every other
/// text attribute (direction=EQ, api_version=...) is a bare word.
bool isQuotedTextAttr(llvm::StringRef name) {
  return name == "custom_call_target" || name == "backend_config" ||
         name == "async_execution_thread";
}

/// Writes `s` as an HLO/C-style quoted string.
void printQuoted(llvm::raw_ostream &os, llvm::StringRef s) {
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      os << "\\\"";
      break;
    case '\\':
      os << "\\\\";
      break;
    case '\n':
      os << "\\n";
      break;
    case '\t':
      os << "\\t";
      break;
    default:
      if (c < 0x20 || c == 0x7f)
        os << '\\' << llvm::format("%03o", c);
      else
        os << c;
    }
  }
  os << '"';
}

void printIntList(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> values,
                  char separator = ',') {
  os << '{';
  llvm::interleave(values, os, llvm::Twine(separator).str());
  os << '}';
}

/// Prints a float the way HLO writes literals: shortest text that reads
/// back to the same value, and inf/-inf/nan for the special values. A NaN
/// other than the plain quiet one keeps its significand bits, as XLA
/// writes it: `nan(0x7f)`.
void printFloat(llvm::raw_ostream &os, const llvm::APFloat &value) {
  if (value.isNaN()) {
    os << (value.isNegative() ? "-nan" : "nan");
    const llvm::fltSemantics &semantics = value.getSemantics();
    unsigned significand = llvm::APFloat::semanticsPrecision(semantics) - 1;
    if (!llvm::APFloat::semanticsHasInf(semantics) || significand == 0 ||
        significand >= 64)
      return;
    uint64_t payload = value.bitcastToAPInt().getLoBits(significand)
                           .getZExtValue();
    if (payload != uint64_t(1) << (significand - 1))
      os << "(0x" << llvm::utohexstr(payload, /*LowerCase=*/true) << ')';
    return;
  }
  if (value.isInfinity()) {
    os << (value.isNegative() ? "-inf" : "inf");
    return;
  }
  llvm::SmallString<32> text;
  // Precision 0 gives the shortest digits that read back to this value in
  // its own format (bf16, f32, ...).
  value.toString(text, /*FormatPrecision=*/0, /*FormatMaxPadding=*/3,
                 /*TruncateZero=*/true);
  os << text;
}

class Exporter {
public:
  explicit Exporter(ModuleOp module) : module(module), symbols(module) {}

  LogicalResult exportModule(llvm::raw_ostream &os);

private:
  /// How a region's parameters are passed: one tuple (while, conditional)
  /// or one parameter per block argument (reducers, comparators).
  enum class ParamStyle { Separate, Tuple };

  LogicalResult exportFunction(func::FuncOp function);
  /// Exports `region` as a computation; returns its name.
  FailureOr<std::string> exportRegion(Region &region, ParamStyle style,
                                      llvm::StringRef hint);
  /// Prints the body of a computation into `os`.
  LogicalResult exportBlock(Block &block, ParamStyle style,
                            func::FuncOp function, llvm::raw_ostream &os,
                            std::string &signature);
  LogicalResult exportOp(Operation *op, llvm::raw_ostream &os);
  LogicalResult exportConstant(Operation *op, llvm::raw_ostream &os);
  /// Writes a kiln.annotate back as the tuple or get-tuple-element that
  /// carried its attributes.
  LogicalResult exportAnnotate(AnnotateOp op, llvm::raw_ostream &os);
  LogicalResult printAttribute(Operation *op, llvm::StringRef name,
                               Attribute value, llvm::raw_ostream &os);
  /// Prints the `kiln.<name>` attributes the importer kept from the dump
  /// (all but layouts, which go into shapes) as `, <name>=<value>`.
  LogicalResult printKeptAttributes(Operation *where,
                                    llvm::ArrayRef<NamedAttribute> attrs,
                                    llvm::raw_ostream &os);
  LogicalResult printLiteral(DenseElementsAttr value, llvm::raw_ostream &os);
  void printMetadata(Location loc, llvm::raw_ostream &os);
  LogicalResult printType(Type type, Attribute layout, llvm::raw_ostream &os,
                          Operation *where);
  LogicalResult printShapeOf(TypeRange types, ArrayAttr layouts,
                             llvm::raw_ostream &os, Operation *where);

  /// Adds the `kiln_types` frontend attribute to `attrs` when `types` hold
  /// a quantized tensor, whose HLO shape says only how it is stored; kiln's
  /// HLO importer gives the values their types back from it.
  void withKilnTypes(llvm::SmallVectorImpl<NamedAttribute> &attrs,
                     TypeRange types);

  std::string freshName(llvm::StringRef base);
  /// Starts the line of the instruction defining `value`, marked ROOT when
  /// `value` alone is what the computation returns.
  void beginInstruction(llvm::raw_ostream &os, llvm::StringRef name,
                        Value value) {
    os << (value && value == rootValue ? "  ROOT %" : "  %") << name << " = ";
  }
  std::string freshComputationName(llvm::StringRef base);
  /// Names a set of values as one operand: a single value by its name, or a
  /// new tuple instruction over several.
  std::string packValues(ValueRange values, llvm::raw_ostream &os,
                         Operation *where);
  /// Names `values` as one tuple operand of structure `tree`: the tuple an
  /// op returned, when they are exactly its results, else new tuple
  /// instructions.
  std::string packTree(ValueRange values, const struct TupleTree &tree,
                       llvm::raw_ostream &os, Operation *where);

  ModuleOp module;
  /// Built once: callees are looked up for every call.
  SymbolTable symbols;
  /// Computations in definition order; callees come before callers.
  std::vector<std::string> computations;
  llvm::DenseMap<Operation *, std::string> functionNames;
  llvm::DenseMap<Value, std::string> valueNames;
  /// Ops written as one tuple-shaped instruction: its name, and the tuple
  /// structure it was written with (empty for a flat tuple).
  llvm::DenseMap<Operation *, std::pair<std::string, std::string>> tupleNames;
  llvm::StringSet<> usedComputationNames;
  unsigned nextId = 0;
  /// The single value returned by the computation being exported, if any.
  Value rootValue;
  /// The call stacks of the ops' metadata, printed after the header.
  StackFrameTables stackFrames;
  /// Annotations of region parameters, written with the parameter line.
  llvm::DenseSet<Operation *> writtenWithParameters;
};

} // namespace

std::string Exporter::freshName(llvm::StringRef base) {
  return (base + "." + llvm::Twine(nextId++)).str();
}

std::string Exporter::freshComputationName(llvm::StringRef base) {
  std::string name = base.str();
  // HLO names are words: letters, digits, '_', '.', '-'.
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_' && c != '.' && c != '-')
      c = '_';
  if (name.empty())
    name = "computation";
  std::string unique = name;
  while (!usedComputationNames.insert(unique).second)
    unique = (name + "." + llvm::Twine(nextId++)).str();
  return unique;
}

LogicalResult Exporter::printType(Type type, Attribute layout,
                                  llvm::raw_ostream &os, Operation *where) {
  if (isa<TokenType>(type)) {
    os << "token[]";
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return where->emitError("type ") << type << " has no HLO form";
  Type element = tensor.getElementType();
  std::string name;
  // A quantized tensor is its stored integers; the instruction's
  // `kiln_types` frontend attribute (withKilnTypes) keeps the quantization.
  if (auto quantized = dyn_cast<quant::QuantizedType>(element)) {
    name = (quantized.isSigned() ? "s" : "u") +
           std::to_string(quantized.getStorageTypeIntegralWidth());
  } else if (auto integer = dyn_cast<IntegerType>(element)) {
    if (integer.getWidth() == 1)
      name = "pred";
    else
      name = (integer.isUnsigned() ? "u" : "s") +
             std::to_string(integer.getWidth());
  } else if (auto complex = dyn_cast<ComplexType>(element)) {
    if (complex.getElementType().isF32())
      name = "c64";
    else if (complex.getElementType().isF64())
      name = "c128";
  } else if (element.isF16()) {
    name = "f16";
  } else if (element.isBF16()) {
    name = "bf16";
  } else if (element.isF32()) {
    name = "f32";
  } else if (element.isF64()) {
    name = "f64";
  } else {
    name =
        llvm::TypeSwitch<Type, std::string>(element)
            .Case<Float8E5M2Type>([](auto) { return "f8e5m2"; })
            .Case<Float8E4M3Type>([](auto) { return "f8e4m3"; })
            .Case<Float8E4M3FNType>([](auto) { return "f8e4m3fn"; })
            .Case<Float8E5M2FNUZType>([](auto) { return "f8e5m2fnuz"; })
            .Case<Float8E4M3FNUZType>([](auto) { return "f8e4m3fnuz"; })
            .Case<Float8E4M3B11FNUZType>([](auto) { return "f8e4m3b11fnuz"; })
            .Case<Float8E3M4Type>([](auto) { return "f8e3m4"; })
            .Case<Float8E8M0FNUType>([](auto) { return "f8e8m0fnu"; })
            .Case<Float4E2M1FNType>([](auto) { return "f4e2m1fn"; })
            .Case<Float6E2M3FNType>([](auto) { return "f6e2m3fn"; })
            .Case<Float6E3M2FNType>([](auto) { return "f6e3m2fn"; })
            .Default([](auto) { return ""; });
  }
  if (name.empty())
    return where->emitError("element type ") << element << " has no HLO form";
  // Bounded dynamic dimensions (`<=N`) are marked in the encoding.
  ArrayAttr bounded;
  if (auto encoding = dyn_cast_or_null<DictionaryAttr>(tensor.getEncoding()))
    bounded = encoding.getAs<ArrayAttr>("bounded");
  os << name << '[';
  for (auto [i, dim] : llvm::enumerate(tensor.getShape())) {
    if (i)
      os << ',';
    if (bounded && i < bounded.size() && isa<BoolAttr>(bounded[i]) &&
        cast<BoolAttr>(bounded[i]).getValue())
      os << "<=";
    // XLA spells an unbounded dynamic dimension `?`.
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  }
  os << ']';
  auto layoutText = dyn_cast_or_null<StringAttr>(layout);
  if (layoutText && !layoutText.getValue().empty()) {
    os << layoutText.getValue();
  } else if (tensor.getRank() > 0) {
    os << '{';
    for (int64_t dim = tensor.getRank() - 1; dim >= 0; --dim)
      os << dim << (dim ? "," : "");
    os << '}';
  }
  return success();
}

LogicalResult Exporter::printShapeOf(TypeRange types, ArrayAttr layouts,
                                     llvm::raw_ostream &os, Operation *where) {
  auto layoutAt = [&](unsigned i) -> Attribute {
    return layouts && i < layouts.size() ? layouts[i] : Attribute();
  };
  if (types.size() == 1)
    return printType(types[0], layoutAt(0), os, where);
  os << '(';
  for (unsigned i = 0; i < types.size(); ++i) {
    if (i)
      os << ", ";
    if (failed(printType(types[i], layoutAt(i), os, where)))
      return failure();
  }
  os << ')';
  return success();
}

void Exporter::printMetadata(Location loc, llvm::raw_ostream &os) {
  // Only the metadata part of the importer's location goes back out; the
  // dump position is where the op was, not part of it.
  HloLocation parts = decodeHloLocation(loc);
  int64_t frame = parts.stack ? stackFrames.intern(*parts.stack) : 0;
  if (parts.opName.empty() && !parts.source && !frame)
    return;
  os << ", metadata={";
  llvm::ListSeparator separator(" ");
  if (!parts.opName.empty()) {
    os << separator << "op_name=";
    printQuoted(os, parts.opName);
  }
  if (parts.source) {
    os << separator << "source_file=";
    printQuoted(os, parts.source->getFilename().getValue());
    os << " source_line=" << parts.source->getLine();
    if (parts.source->getColumn())
      os << " source_column=" << parts.source->getColumn();
  }
  if (frame)
    os << separator << "stack_frame_id=" << frame;
  os << '}';
}

std::string Exporter::packValues(ValueRange values, llvm::raw_ostream &os,
                                 Operation *where) {
  if (values.size() == 1)
    return valueNames.lookup(values[0]);
  std::string name = freshName("tuple");
  os << "  %" << name << " = ";
  (void)printShapeOf(values.getTypes(), nullptr, os, where);
  os << " tuple(";
  llvm::interleaveComma(values, os,
                        [&](Value v) { os << '%' << valueNames.lookup(v); });
  os << ")\n";
  return name;
}

LogicalResult Exporter::printLiteral(DenseElementsAttr value,
                                     llvm::raw_ostream &os) {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  llvm::ArrayRef<int64_t> shape = type.getShape();
  int64_t count = type.getNumElements();
  auto printElement = [&](int64_t i) {
    if (auto integer = dyn_cast<IntegerType>(element)) {
      llvm::APInt v = value.getValues<llvm::APInt>()[i];
      if (integer.getWidth() == 1)
        os << (v.isZero() ? "false" : "true");
      else if (integer.isUnsigned())
        os << v.getZExtValue();
      else
        os << v.getSExtValue();
    } else if (isa<FloatType>(element)) {
      printFloat(os, value.getValues<llvm::APFloat>()[i]);
    } else {
      auto c = value.getValues<std::complex<llvm::APFloat>>()[i];
      os << '(';
      printFloat(os, c.real());
      os << ", ";
      printFloat(os, c.imag());
      os << ')';
    }
  };
  if (shape.empty()) {
    printElement(0);
    return success();
  }
  // Nested braces, one level per dimension, row-major.
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    for (size_t d = shape.size(); d-- > 0;) {
      if (index[d] != 0)
        break;
      os << '{';
    }
    printElement(linear);
    size_t d = shape.size();
    while (d-- > 0) {
      if (++index[d] < shape[d]) {
        os << ", ";
        break;
      }
      index[d] = 0;
      os << '}';
    }
  }
  // No elements: still one brace level per dimension, up to the first
  // dimension of size 0 (f32[2,0] is `{{}, {}}`).
  std::function<void(size_t)> printEmpty = [&](size_t d) {
    os << '{';
    if (d + 1 < shape.size())
      for (int64_t i = 0; i < shape[d]; ++i) {
        os << (i ? ", " : "");
        printEmpty(d + 1);
      }
    os << '}';
  };
  if (count == 0)
    printEmpty(0);
  return success();
}

LogicalResult Exporter::printAttribute(Operation *op, llvm::StringRef name,
                                       Attribute value, llvm::raw_ostream &os) {
  os << ", " << name << '=';
  if (auto array = dyn_cast<DenseI64ArrayAttr>(value)) {
    printIntList(os, array.asArrayRef());
  } else if (auto boolean = dyn_cast<BoolAttr>(value)) {
    os << (boolean.getValue() ? "true" : "false");
  } else if (auto integer = dyn_cast<IntegerAttr>(value)) {
    os << integer.getInt();
  } else if (auto floating = dyn_cast<FloatAttr>(value)) {
    printFloat(os, floating.getValue());
  } else if (auto text = dyn_cast<StringAttr>(value)) {
    if (isQuotedTextAttr(name))
      printQuoted(os, text.getValue());
    else
      os << text.getValue();
  } else if (auto list = dyn_cast<ArrayAttr>(value)) {
    os << '{';
    llvm::interleaveComma(list, os, [&](Attribute element) {
      if (auto word = dyn_cast<StringAttr>(element))
        os << word.getValue();
    });
    os << '}';
  } else if (auto matrix = dyn_cast<DenseIntElementsAttr>(value)) {
    auto type = cast<RankedTensorType>(matrix.getType());
    if (type.getRank() != 2)
      return op->emitError("attribute '") << name << "' must be 2-D";
    int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
    auto values = llvm::to_vector(matrix.getValues<int64_t>());
    os << '{';
    for (int64_t r = 0; r < rows; ++r) {
      if (r)
        os << ',';
      printIntList(os,
                   llvm::ArrayRef<int64_t>(values).slice(r * columns, columns));
    }
    os << '}';
  } else if (auto dict = dyn_cast<DictionaryAttr>(value)) {
    os << '{';
    llvm::interleaveComma(dict, os, [&](NamedAttribute entry) {
      os << entry.getName().getValue() << '=';
      llvm::StringRef text;
      if (auto s = dyn_cast<StringAttr>(entry.getValue()))
        text = s.getValue();
      // Structured values were kept as their braces text.
      if (text.starts_with("{"))
        os << text;
      else
        printQuoted(os, text);
    });
    os << '}';
  } else {
    return op->emitError("attribute '") << name << "' has no HLO form";
  }
  return success();
}

void Exporter::withKilnTypes(llvm::SmallVectorImpl<NamedAttribute> &attrs,
                             TypeRange types) {
  auto isQuantized = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && isa<quant::QuantizedType>(shaped.getElementType());
  };
  if (llvm::none_of(types, isQuantized))
    return;
  MLIRContext *context = types.front().getContext();
  std::string text;
  llvm::raw_string_ostream textStream(text);
  TupleType::get(context, types).print(textStream);
  StringAttr name = StringAttr::get(context, "kiln.frontend_attributes");
  NamedAttrList frontend;
  auto found = llvm::find_if(
      attrs, [&](NamedAttribute attr) { return attr.getName() == name; });
  if (found != attrs.end())
    if (auto dict = dyn_cast<DictionaryAttr>(found->getValue()))
      frontend.assign(dict.begin(), dict.end());
  frontend.set(kKilnTypesFrontendAttribute, StringAttr::get(context, text));
  NamedAttribute updated(name, frontend.getDictionary(context));
  if (found != attrs.end())
    *found = updated;
  else
    attrs.push_back(updated);
}

LogicalResult
Exporter::printKeptAttributes(Operation *where,
                              llvm::ArrayRef<NamedAttribute> attrs,
                              llvm::raw_ostream &os) {
  for (NamedAttribute attr : attrs) {
    llvm::StringRef attrName = attr.getName().getValue();
    if (!attrName.consume_front("kiln.") || attrName == "layout" ||
        attrName == "root" || attrName == "parameter_tuples" ||
        attrName == "result_tuple" || attrName == "operand_tuples")
      continue;
    if (attrName == "called_computations") {
      auto callees = dyn_cast<ArrayAttr>(attr.getValue());
      if (!callees)
        return where->emitError("kiln.called_computations must be an array");
      os << ", called_computations={";
      for (auto [i, ref] : llvm::enumerate(callees)) {
        auto symbol = dyn_cast<FlatSymbolRefAttr>(ref);
        auto callee =
            symbol ? symbols.lookup<func::FuncOp>(symbol.getValue()) : nullptr;
        if (!callee || functionNames.lookup(callee).empty())
          return where->emitError("called computation ")
                 << ref << " is not an exported function";
        os << (i ? ", %" : "%") << functionNames.lookup(callee);
      }
      os << '}';
      continue;
    }
    // Text kept verbatim goes back verbatim; backend configs were unquoted.
    if (auto raw = dyn_cast<StringAttr>(attr.getValue());
        raw && attrName != "backend_config") {
      os << ", " << attrName << '=' << raw.getValue();
      continue;
    }
    if (failed(printAttribute(where, attrName, attr.getValue(), os)))
      return failure();
  }
  return success();
}

LogicalResult Exporter::exportConstant(Operation *op, llvm::raw_ostream &os) {
  os << '(';
  if (isa<ElidedConstantOp>(op)) {
    os << "{...}";
  } else {
    auto value = dyn_cast<DenseElementsAttr>(cast<ConstantOp>(op).getValue());
    if (!value)
      return op->emitError("only dense constants have an HLO form");
    if (failed(printLiteral(value, os)))
      return failure();
  }
  os << ')';
  return success();
}

LogicalResult Exporter::exportAnnotate(AnnotateOp op, llvm::raw_ostream &os) {
  llvm::SmallVector<NamedAttribute> kept(op->getDiscardableAttrs());
  ValueRange operands = op.getOperands();
  auto printTuple = [&](llvm::StringRef name, ValueRange values) {
    os << "  %" << name << " = ";
    (void)printShapeOf(values.getTypes(), nullptr, os, op);
    os << " tuple(";
    llvm::interleaveComma(values, os,
                          [&](Value v) { os << '%' << valueNames.lookup(v); });
    os << ')';
  };
  auto takeElements = [&](const std::string &tuple) -> LogicalResult {
    for (OpResult result : op->getResults()) {
      std::string element = freshName("get-tuple-element");
      beginInstruction(os, element, result);
      if (failed(printType(result.getType(), nullptr, os, op)))
        return failure();
      os << " get-tuple-element(%" << tuple
         << "), index=" << result.getResultNumber() << '\n';
      valueNames[result] = element;
    }
    return success();
  };
  if (op.getHloOpcode() == "tuple") {
    std::string tuple = freshName("tuple");
    printTuple(tuple, operands);
    if (failed(printKeptAttributes(op, kept, os)))
      return failure();
    os << '\n';
    return takeElements(tuple);
  }
  // get-tuple-element: element 0 of a tuple built around the values.
  std::string inner;
  if (operands.size() != 1) {
    inner = freshName("tuple");
    printTuple(inner, operands);
    os << '\n';
  }
  std::string wrapper = freshName("tuple");
  os << "  %" << wrapper << " = (";
  if (operands.size() == 1) {
    (void)printType(operands[0].getType(), nullptr, os, op);
    os << ") tuple(%" << valueNames.lookup(operands[0]) << ")\n";
  } else {
    (void)printShapeOf(operands.getTypes(), nullptr, os, op);
    os << ") tuple(%" << inner << ")\n";
  }
  std::string element = freshName("get-tuple-element");
  beginInstruction(os, element,
                   operands.size() == 1 ? op->getResult(0) : Value());
  (void)printShapeOf(operands.getTypes(), nullptr, os, op);
  os << " get-tuple-element(%" << wrapper << "), index=0";
  if (failed(printKeptAttributes(op, kept, os)))
    return failure();
  os << '\n';
  if (operands.size() == 1) {
    valueNames[op->getResult(0)] = element;
    return success();
  }
  return takeElements(element);
}

namespace {
/// The tuple structure of an HLO shape, from the importer's `_`/`(...)`
/// spelling (kiln.parameter_tuples, kiln.result_tuple).
struct TupleTree {
  bool isTuple = false;
  std::vector<TupleTree> children;

  unsigned countLeaves() const {
    if (!isTuple)
      return 1;
    unsigned count = 0;
    for (const TupleTree &child : children)
      count += child.countLeaves();
    return count;
  }
  static TupleTree parse(llvm::StringRef &text) {
    TupleTree tree;
    if (!text.consume_front("(")) {
      text.consume_front("_");
      return tree;
    }
    tree.isTuple = true;
    while (!text.empty() && !text.consume_front(")")) {
      tree.children.push_back(parse(text));
      text.consume_front(",");
    }
    return tree;
  }
  static TupleTree parse(llvm::StringRef text, unsigned expectedLeaves) {
    TupleTree tree = parse(text);
    // A malformed spelling falls back to a flat tuple of the leaves.
    if (tree.countLeaves() != expectedLeaves) {
      tree = TupleTree();
      tree.isTuple = true;
      tree.children.resize(expectedLeaves);
    }
    return tree;
  }
  static TupleTree flat(unsigned leaves) {
    TupleTree tree;
    tree.isTuple = true;
    tree.children.resize(leaves);
    return tree;
  }
};
} // namespace

/// Prints the shape of `tree` over `types[offset...]`, advancing `offset`.
static LogicalResult printTreeShape(
    const TupleTree &tree, TypeRange types,
    llvm::function_ref<Attribute(unsigned)> layoutOf, unsigned &offset,
    llvm::raw_ostream &os,
    llvm::function_ref<LogicalResult(Type, Attribute, llvm::raw_ostream &)>
        printLeaf) {
  if (!tree.isTuple) {
    unsigned index = offset++;
    return printLeaf(types[index], layoutOf(index), os);
  }
  os << '(';
  for (size_t i = 0; i < tree.children.size(); ++i) {
    if (i)
      os << ", ";
    if (failed(printTreeShape(tree.children[i], types, layoutOf, offset, os,
                              printLeaf)))
      return failure();
  }
  os << ')';
  return success();
}

/// The `_`/`(...)` spelling of `tree`, as the importer writes it.
static std::string describeTree(const TupleTree &tree) {
  if (!tree.isTuple)
    return "_";
  std::string text = "(";
  for (auto [i, child] : llvm::enumerate(tree.children))
    text += (i ? "," : "") + describeTree(child);
  return text + ")";
}

std::string Exporter::packTree(ValueRange values, const TupleTree &tree,
                               llvm::raw_ostream &os, Operation *where) {
  // The whole result of one tuple-shaped op, in order and with the same
  // structure: pass that op's instruction.
  if (!values.empty()) {
    Operation *producer = values[0].getDefiningOp();
    auto it = producer ? tupleNames.find(producer) : tupleNames.end();
    if (it != tupleNames.end() &&
        producer->getNumResults() == values.size() &&
        llvm::equal(producer->getResults(), values)) {
      std::string structure = describeTree(tree);
      const std::string &written = it->second.second;
      if (written.empty() ? structure == describeTree(TupleTree::flat(
                                             values.size()))
                          : written == structure)
        return it->second.first;
    }
  }
  // Otherwise build it: the elements first, then the tuple.
  std::vector<std::string> elements;
  unsigned begin = 0;
  for (const TupleTree &child : tree.children) {
    unsigned count = child.countLeaves();
    ValueRange slice = values.slice(begin, count);
    elements.push_back(child.isTuple ? packTree(slice, child, os, where)
                                     : valueNames.lookup(slice[0]));
    begin += count;
  }
  std::string name = freshName("tuple");
  os << "  %" << name << " = ";
  unsigned offset = 0;
  (void)printTreeShape(
      tree, values.getTypes(), [](unsigned) { return Attribute(); }, offset,
      os, [&](Type type, Attribute layout, llvm::raw_ostream &out) {
        return printType(type, layout, out, where);
      });
  os << " tuple(";
  llvm::interleaveComma(elements, os,
                        [&](const std::string &n) { os << '%' << n; });
  os << ")\n";
  return name;
}

LogicalResult Exporter::exportOp(Operation *op, llvm::raw_ostream &os) {
  if (writtenWithParameters.contains(op))
    return success();
  if (auto annotateOp = dyn_cast<AnnotateOp>(op))
    return exportAnnotate(annotateOp, os);
  // Operands that the HLO op takes as one tuple are packed first.
  std::vector<std::string> operandNames;
  llvm::SmallVector<std::string, 2> regionNames;
  if (auto whileOp = dyn_cast<WhileOp>(op)) {
    operandNames.push_back(packValues(whileOp.getOperands(), os, op));
  } else if (auto conditional = dyn_cast<ConditionalOp>(op)) {
    operandNames.push_back(valueNames.lookup(conditional.getIndex()));
    ValueRange branchOperands = conditional.getBranchOperands();
    unsigned begin = 0;
    for (int64_t count : conditional.getBranchOperandCounts()) {
      operandNames.push_back(
          packValues(branchOperands.slice(begin, count), os, op));
      begin += count;
    }
  } else if (auto structures =
                 op->getAttrOfType<ArrayAttr>("kiln.operand_tuples")) {
    // Operands that were tuples in the dump are passed whole again.
    ValueRange operands = op->getOperands();
    unsigned begin = 0;
    for (Attribute structure : structures) {
      auto text = dyn_cast<StringAttr>(structure);
      llvm::StringRef spelling = text ? text.getValue() : "_";
      TupleTree tree = TupleTree::parse(spelling);
      unsigned count = tree.countLeaves();
      if (begin + count > operands.size())
        return op->emitError("kiln.operand_tuples describes more operands "
                             "than the op has");
      ValueRange values = operands.slice(begin, count);
      operandNames.push_back(tree.isTuple ? packTree(values, tree, os, op)
                                          : valueNames.lookup(values[0]));
      begin += count;
    }
    if (begin != operands.size())
      return op->emitError("kiln.operand_tuples describes fewer operands "
                           "than the op has");
  } else {
    for (Value operand : op->getOperands())
      operandNames.push_back(valueNames.lookup(operand));
  }

  // Regions become computations printed before this one.
  for (Region &region : op->getRegions()) {
    ParamStyle style = isa<WhileOp, ConditionalOp>(op) ? ParamStyle::Tuple
                                                       : ParamStyle::Separate;
    FailureOr<std::string> name = exportRegion(
        region, style, (op->getName().stripDialect() + "_region").str());
    if (failed(name))
      return failure();
    regionNames.push_back(*name);
  }

  llvm::StringRef opcode;
  std::string callee;
  if (auto call = dyn_cast<func::CallOp>(op)) {
    opcode = "call";
    auto function = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!function)
      return op->emitError("call to unknown function @") << call.getCallee();
    callee = functionNames.lookup(function);
    if (callee.empty())
      return op->emitError("call to @")
             << call.getCallee() << " before it was exported";
  } else if (isa<ElidedConstantOp>(op)) {
    opcode = "constant";
  } else {
    opcode = hloOpcodeForKilnOpName(op->getName().getStringRef());
    // Kiln's own ops (CHLO functions, quantization, checks) travel as
    // custom calls that name them; kiln's HLO importer makes them again.
    if (opcode.empty() &&
        isKilnOpWithoutHloOpcode(op->getName().getStringRef()))
      opcode = "custom-call";
    if (opcode.empty())
      return op->emitError("'") << op->getName() << "' has no HLO form";
  }
  bool isKilnOnly = opcode == "custom-call" && !isa<CustomCallOp>(op);

  // The result's tuple structure: flat for several results, as the
  // importer recorded it for nested tuples and tuples of one.
  ArrayAttr layouts = op->getAttrOfType<ArrayAttr>("kiln.layout");
  auto resultTuple = op->getAttrOfType<StringAttr>("kiln.result_tuple");
  std::optional<TupleTree> resultTree;
  if (resultTuple)
    resultTree = TupleTree::parse(resultTuple.getValue(), op->getNumResults());
  else if (op->getNumResults() != 1)
    resultTree = TupleTree::flat(op->getNumResults());
  std::string name = freshName(op->getName().stripDialect());
  beginInstruction(os, name, resultTree ? Value() : op->getResult(0));
  if (resultTree) {
    unsigned offset = 0;
    auto layoutOf = [&](unsigned i) -> Attribute {
      return layouts && i < layouts.size() ? layouts[i] : Attribute();
    };
    if (failed(printTreeShape(
            *resultTree, op->getResultTypes(), layoutOf, offset, os,
            [&](Type type, Attribute layout, llvm::raw_ostream &out) {
              return printType(type, layout, out, op);
            })))
      return failure();
  } else if (failed(printShapeOf(op->getResultTypes(), layouts, os, op))) {
    return failure();
  }
  os << ' ' << opcode;
  if (isa<ConstantOp, ElidedConstantOp>(op)) {
    if (failed(exportConstant(op, os)))
      return failure();
  } else {
    os << '(';
    llvm::interleaveComma(operandNames, os,
                          [&](const std::string &n) { os << '%' << n; });
    os << ')';
  }

  // Inherent attributes, with the composite ones put back together.
  llvm::StringSet<> done = {"value", "branch_operand_counts"};
  auto getArray = [&](llvm::StringRef attrName) {
    auto array = op->getAttrOfType<DenseI64ArrayAttr>(attrName);
    done.insert(attrName);
    return array ? array.asArrayRef() : llvm::ArrayRef<int64_t>();
  };
  if (isa<SliceOp>(op)) {
    auto starts = getArray("start_indices"), limits = getArray("limit_indices"),
         strides = getArray("strides");
    os << ", slice={";
    for (size_t i = 0; i < starts.size(); ++i)
      os << (i ? ", " : "") << '[' << starts[i] << ':' << limits[i] << ':'
         << strides[i] << ']';
    os << '}';
  }
  auto printPadding = [&](llvm::ArrayRef<int64_t> low,
                          llvm::ArrayRef<int64_t> high,
                          llvm::ArrayRef<int64_t> interior) {
    for (size_t i = 0; i < low.size(); ++i) {
      os << (i ? "x" : "") << low[i] << '_' << high[i];
      if (!interior.empty())
        os << '_' << interior[i];
    }
  };
  if (isa<PadOp>(op)) {
    auto low = getArray("edge_padding_low"),
         high = getArray("edge_padding_high"),
         interior = getArray("interior_padding");
    os << ", padding=";
    printPadding(low, high, interior);
  }
  if (isa<ReduceWindowOp, SelectAndScatterOp, ConvolutionOp>(op)) {
    auto size = getArray("window_dimensions"),
         stride = getArray("window_strides"),
         baseDilation = getArray("base_dilations"),
         windowDilation = getArray("window_dilations"),
         low = getArray("padding_low"), high = getArray("padding_high");
    done.insert("window_reversal");
    auto reversal = op->getAttrOfType<DenseBoolArrayAttr>("window_reversal");
    auto xList = [&](llvm::ArrayRef<int64_t> values) {
      llvm::interleave(values, os, "x");
    };
    // A convolution without spatial dimensions has no window.
    if (!size.empty() || !isa<ConvolutionOp>(op)) {
      os << ", window={size=";
      xList(size);
      os << " stride=";
      xList(stride);
      os << " pad=";
      printPadding(low, high, {});
      os << " lhs_dilate=";
      xList(baseDilation);
      os << " rhs_dilate=";
      xList(windowDilation);
      if (reversal) {
        os << " rhs_reversal=";
        llvm::interleave(reversal.asArrayRef(), os,
                         [&](bool flag) { os << (flag ? 1 : 0); }, "x");
      }
      os << '}';
    }
  }
  if (auto conv = dyn_cast<ConvolutionOp>(op)) {
    // dim_labels: the letters b/f (i/o for the kernel) and a digit per
    // spatial dimension, at each dimension's position.
    auto labels = [&](int64_t rank, int64_t first, char firstLabel,
                      int64_t second, char secondLabel,
                      llvm::ArrayRef<int64_t> spatial) {
      std::string text(rank, '?');
      if (first >= 0 && first < rank)
        text[first] = firstLabel;
      if (second >= 0 && second < rank)
        text[second] = secondLabel;
      for (auto [i, dim] : llvm::enumerate(spatial))
        if (dim >= 0 && dim < rank)
          text[dim] = '0' + i;
      return text;
    };
    os << ", dim_labels="
       << labels(conv.getLhs().getType().getRank(),
                 conv.getInputBatchDimension(), 'b',
                 conv.getInputFeatureDimension(), 'f',
                 conv.getInputSpatialDimensions())
       << '_'
       << labels(conv.getRhs().getType().getRank(),
                 conv.getKernelInputFeatureDimension(), 'i',
                 conv.getKernelOutputFeatureDimension(), 'o',
                 conv.getKernelSpatialDimensions())
       << "->"
       << labels(conv.getOutput().getType().getRank(),
                 conv.getOutputBatchDimension(), 'b',
                 conv.getOutputFeatureDimension(), 'f',
                 conv.getOutputSpatialDimensions());
    for (const char *attrName :
         {"input_batch_dimension", "input_feature_dimension",
          "input_spatial_dimensions", "kernel_input_feature_dimension",
          "kernel_output_feature_dimension", "kernel_spatial_dimensions",
          "output_batch_dimension", "output_feature_dimension",
          "output_spatial_dimensions"})
      done.insert(attrName);
    // Group counts of 1 are XLA's defaults, which it does not print.
    if (conv.getFeatureGroupCount() == 1)
      done.insert("feature_group_count");
    if (conv.getBatchGroupCount() == 1)
      done.insert("batch_group_count");
  }
  if (auto dot = dyn_cast<DotGeneralOp>(op))
    if (std::optional<llvm::StringRef> algorithm = dot.getAlgorithm();
        algorithm && !algorithm->starts_with("dot_"))
      return op->emitError("dot algorithm ")
             << *algorithm << " has no XLA name, so no HLO form";
  if (isKilnOnly) {
    os << ", custom_call_target=";
    printQuoted(os, op->getName().getStringRef());
    // Its own attributes, as MLIR writes them, in the configuration: those
    // it declares, and those it carries that HLO has no field for (the
    // harness's infeed queues); kiln.* attributes are HLO's fields, printed
    // as such below. An attribute of a dialect kiln does not load (`#sdy`)
    // could not be read back, and is left out.
    NamedAttrList inherent;
    for (StringAttr attrName : op->getName().getAttributeNames())
      if (Attribute value = op->getAttr(attrName))
        inherent.append(attrName, value);
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (!attr.getName().getValue().starts_with("kiln.") &&
          !isa<OpaqueAttr>(attr.getValue()))
        inherent.append(attr);
    if (!inherent.empty()) {
      std::string config;
      llvm::raw_string_ostream configStream(config);
      inherent.getDictionary(op->getContext()).print(configStream);
      os << ", backend_config=";
      printQuoted(os, config);
    }
  }
  for (StringAttr attrName : callee.empty() && !isKilnOnly
                                 ? op->getName().getAttributeNames()
                                 : llvm::ArrayRef<StringAttr>()) {
    if (done.contains(attrName.getValue()))
      continue;
    Attribute value = op->getAttr(attrName);
    if (!value)
      continue;
    if (failed(printAttribute(op, attrName.getValue(), value, os)))
      return failure();
  }
  // Sub-computations.
  if (isa<WhileOp>(op)) {
    os << ", condition=%" << regionNames[0] << ", body=%" << regionNames[1];
  } else if (isa<ConditionalOp>(op)) {
    os << ", branch_computations={";
    llvm::interleaveComma(regionNames, os,
                          [&](const std::string &n) { os << '%' << n; });
    os << '}';
  } else if (isa<SelectAndScatterOp>(op)) {
    os << ", select=%" << regionNames[0] << ", scatter=%" << regionNames[1];
  } else if (isa<FusionOp, AsyncStartOp>(op)) {
    os << ", calls=%" << regionNames[0];
  } else if (!regionNames.empty()) {
    os << ", to_apply=%" << regionNames[0];
  } else if (!callee.empty()) {
    os << ", to_apply=%" << callee;
  }
  // Discardable attributes the importer kept: kiln.<hlo attribute name>.
  llvm::SmallVector<NamedAttribute> kept(op->getDiscardableAttrs());
  withKilnTypes(kept, op->getResultTypes());
  if (failed(printKeptAttributes(op, kept, os)))
    return failure();
  printMetadata(op->getLoc(), os);
  os << '\n';

  // A tuple result: the op can be passed whole (kiln.operand_tuples), and
  // each leaf is taken out with get-tuple-element, level by level.
  if (!resultTree) {
    valueNames[op->getResult(0)] = name;
    return success();
  }
  tupleNames[op] = {name, resultTuple ? resultTuple.getValue().str()
                                      : std::string()};
  // Only leaves that something uses alone are taken out: an op that gets
  // the whole tuple (a done op) needs no get-tuple-element.
  auto takesWholeTuple = [&](OpOperand &use) {
    auto structures =
        use.getOwner()->getAttrOfType<ArrayAttr>("kiln.operand_tuples");
    if (!structures)
      return false;
    // The operand group that holds this use must be all of op's results.
    unsigned begin = 0;
    for (Attribute structure : structures) {
      auto text = dyn_cast<StringAttr>(structure);
      llvm::StringRef spelling = text ? text.getValue() : "_";
      unsigned count = TupleTree::parse(spelling).countLeaves();
      unsigned index = use.getOperandNumber();
      if (index >= begin && index < begin + count)
        return count == op->getNumResults() &&
               begin + count <= use.getOwner()->getNumOperands() &&
               llvm::equal(use.getOwner()->getOperands().slice(begin, count),
                           op->getResults());
      begin += count;
    }
    return false;
  };
  auto usedAlone = [&](Value value) {
    return llvm::any_of(value.getUses(), [&](OpOperand &use) {
      return !takesWholeTuple(use);
    });
  };
  ArrayAttr elementLocations;
  if (auto fused = dyn_cast<FusedLoc>(op->getLoc()))
    elementLocations = dyn_cast_or_null<ArrayAttr>(fused.getMetadata());
  // A get-tuple-element that the dump had with metadata is written back
  // even when nothing uses it, so that the metadata is not lost.
  auto hadMetadata = [&](unsigned leaf) {
    return elementLocations && leaf < elementLocations.size() &&
           !isa<UnknownLoc>(elementLocations[leaf]);
  };
  std::function<bool(const TupleTree &, unsigned)> subtreeUsed =
      [&](const TupleTree &tree, unsigned first) {
        for (unsigned i = 0, e = tree.countLeaves(); i < e; ++i)
          if (usedAlone(op->getResult(first + i)) || hadMetadata(first + i))
            return true;
        return false;
      };
  unsigned leaf = 0;
  std::function<LogicalResult(const TupleTree &, const std::string &)>
      unpack = [&](const TupleTree &tree,
                   const std::string &tupleName) -> LogicalResult {
    for (auto [index, child] : llvm::enumerate(tree.children)) {
      if (!subtreeUsed(child, leaf)) {
        leaf += child.countLeaves();
        continue;
      }
      std::string element = freshName("get-tuple-element");
      Value result = child.isTuple ? Value() : op->getResult(leaf);
      beginInstruction(os, element, result);
      unsigned offset = leaf;
      auto layoutOf = [&](unsigned i) -> Attribute {
        return layouts && i < layouts.size() ? layouts[i] : Attribute();
      };
      if (failed(printTreeShape(
              child, op->getResultTypes(), layoutOf, offset, os,
              [&](Type type, Attribute layout, llvm::raw_ostream &out) {
                return printType(type, layout, out, op);
              })))
        return failure();
      os << " get-tuple-element(%" << tupleName << "), index=" << index;
      if (!child.isTuple && elementLocations &&
          leaf < elementLocations.size())
        if (auto meta = dyn_cast<LocationAttr>(elementLocations[leaf]))
          // Only metadata was kept; a placeholder stands for the position.
          printMetadata(FusedLoc::get(op->getContext(),
                                      {FileLineColLoc::get(op->getContext(),
                                                           "", 0, 0),
                                       Location(meta)}),
                        os);
      os << '\n';
      if (child.isTuple) {
        if (failed(unpack(child, element)))
          return failure();
        continue;
      }
      valueNames[result] = element;
      ++leaf;
    }
    return success();
  };
  return unpack(*resultTree, name);
}

LogicalResult Exporter::exportBlock(Block &block, ParamStyle style,
                                    func::FuncOp function,
                                    llvm::raw_ostream &os,
                                    std::string &signature) {
  llvm::raw_string_ostream sig(signature);
  Operation *where = block.getParentOp();
  Operation *terminator = block.getTerminator();
  ValueRange results = terminator->getOperands();
  auto printLeaf = [&](Type type, Attribute layout, llvm::raw_ostream &out) {
    return printType(type, layout, out, where);
  };
  auto argLayout = [&](unsigned i) -> Attribute {
    return function ? function.getArgAttr(i, "kiln.layout") : Attribute();
  };
  auto noLayout = [](unsigned) { return Attribute(); };

  // The HLO parameters: a tuple for while and conditional regions, the
  // structure the importer recorded for functions, else one per argument.
  unsigned numArgs = block.getNumArguments();
  std::vector<TupleTree> parameters;
  ArrayAttr parameterTuples =
      function ? function->getAttrOfType<ArrayAttr>("kiln.parameter_tuples")
               : ArrayAttr();
  if (style == ParamStyle::Tuple && numArgs != 1) {
    parameters.push_back(TupleTree::flat(numArgs));
  } else if (parameterTuples) {
    for (Attribute structure : parameterTuples) {
      llvm::StringRef text = cast<StringAttr>(structure).getValue();
      parameters.push_back(TupleTree::parse(text));
    }
    unsigned leaves = 0;
    for (const TupleTree &tree : parameters)
      leaves += tree.countLeaves();
    if (leaves != numArgs)
      return where->emitError("kiln.parameter_tuples describes ")
             << leaves << " leaves, the function has " << numArgs
             << " arguments";
  } else {
    parameters.assign(numArgs, TupleTree());
  }

  // The results: the recorded structure, a flat tuple for several values
  // (or when the dump's ROOT tuple had attributes), else the value itself.
  DictionaryAttr rootAttrs =
      function ? function->getAttrOfType<DictionaryAttr>("kiln.root")
               : DictionaryAttr();
  StringAttr resultTuple =
      function ? function->getAttrOfType<StringAttr>("kiln.result_tuple")
               : StringAttr();
  std::optional<TupleTree> resultTree;
  if (resultTuple)
    resultTree = TupleTree::parse(resultTuple.getValue(), results.size());
  else if (results.size() != 1 || rootAttrs)
    resultTree = TupleTree::flat(results.size());

  // Regions exported while walking this block set their own root; keep
  // ours across them.
  Value savedRoot = rootValue;
  rootValue = resultTree ? Value() : results[0];

  // A region parameter's attributes are on a kiln.annotate over its
  // arguments; they go back on the parameter line, and the annotation's
  // values take the parameter's names.
  llvm::DenseMap<unsigned, AnnotateOp> parameterAnnotations;
  for (auto annotation : block.getOps<AnnotateOp>())
    if (annotation.getHloOpcode() == "parameter" &&
        annotation.getNumOperands() > 0)
      if (auto arg = dyn_cast<BlockArgument>(annotation.getOperand(0)))
        parameterAnnotations[arg.getArgNumber()] = annotation;
  auto annotationOf = [&](unsigned first, unsigned count) -> AnnotateOp {
    AnnotateOp annotation = parameterAnnotations.lookup(first);
    if (!annotation || annotation.getNumOperands() != count)
      return nullptr;
    writtenWithParameters.insert(annotation);
    return annotation;
  };
  auto nameAnnotation = [&](AnnotateOp annotation) {
    if (!annotation)
      return;
    for (auto [operand, result] :
         llvm::zip(annotation.getOperands(), annotation.getResults()))
      valueNames[result] = valueNames.lookup(operand);
  };

  sig << '(';
  unsigned argIndex = 0;
  for (unsigned number = 0; number < parameters.size(); ++number) {
    const TupleTree &tree = parameters[number];
    AnnotateOp annotation = annotationOf(argIndex, tree.countLeaves());
    if (number)
      sig << ", ";
    if (!tree.isTuple) {
      BlockArgument arg = block.getArgument(argIndex++);
      std::string name = freshName("Arg_" + std::to_string(number));
      valueNames[arg] = name;
      sig << name << ": ";
      (void)printType(arg.getType(), nullptr, sig, where);
      beginInstruction(os, name, arg);
      if (failed(printType(arg.getType(), argLayout(arg.getArgNumber()), os,
                           where)))
        return failure();
      os << " parameter(" << number << ')';
      DictionaryAttr argAttrs = function
                                    ? function.getArgAttrDict(arg.getArgNumber())
                                    : DictionaryAttr();
      llvm::SmallVector<NamedAttribute> parameterAttrs;
      if (argAttrs)
        parameterAttrs.assign(argAttrs.begin(), argAttrs.end());
      withKilnTypes(parameterAttrs, arg.getType());
      if (failed(printKeptAttributes(where, parameterAttrs, os)))
        return failure();
      if (annotation) {
        llvm::SmallVector<NamedAttribute> kept(
            annotation->getDiscardableAttrs());
        if (failed(printKeptAttributes(annotation, kept, os)))
          return failure();
      }
      printMetadata(arg.getLoc(), os);
      os << '\n';
      nameAnnotation(annotation);
      continue;
    }
    // A tuple parameter, taken apart with get-tuple-element.
    std::string name = freshName("arg_tuple");
    unsigned first = argIndex;
    unsigned offset = argIndex;
    sig << name << ": ";
    (void)printTreeShape(tree, block.getArgumentTypes(), noLayout, offset, sig,
                         printLeaf);
    os << "  %" << name << " = ";
    offset = argIndex;
    if (failed(printTreeShape(tree, block.getArgumentTypes(), argLayout, offset,
                              os, printLeaf)))
      return failure();
    os << " parameter(" << number << ')';
    // The importer copied the parameter's attributes to every leaf.
    if (DictionaryAttr attrs =
            function ? function.getArgAttrDict(first) : DictionaryAttr())
      if (failed(printKeptAttributes(where, attrs.getValue(), os)))
        return failure();
    if (annotation) {
      llvm::SmallVector<NamedAttribute> kept(annotation->getDiscardableAttrs());
      if (failed(printKeptAttributes(annotation, kept, os)))
        return failure();
    }
    os << '\n';
    std::function<LogicalResult(const TupleTree &, const std::string &)>
        takeApart = [&](const TupleTree &node,
                        const std::string &parent) -> LogicalResult {
      for (size_t k = 0; k < node.children.size(); ++k) {
        const TupleTree &child = node.children[k];
        std::string element = freshName("get-tuple-element");
        if (!child.isTuple) {
          BlockArgument arg = block.getArgument(argIndex++);
          beginInstruction(os, element, arg);
          if (failed(printType(arg.getType(), argLayout(arg.getArgNumber()), os,
                               where)))
            return failure();
          valueNames[arg] = element;
        } else {
          os << "  %" << element << " = ";
          unsigned at = argIndex;
          if (failed(printTreeShape(child, block.getArgumentTypes(), argLayout,
                                    at, os, printLeaf)))
            return failure();
        }
        os << " get-tuple-element(%" << parent << "), index=" << k << '\n';
        if (child.isTuple && failed(takeApart(child, element)))
          return failure();
      }
      return success();
    };
    if (failed(takeApart(tree, name)))
      return failure();
    nameAnnotation(annotation);
  }
  sig << ") -> ";

  for (Operation &op : block.without_terminator())
    if (failed(exportOp(&op, os)))
      return failure();

  rootValue = savedRoot;
  auto noResultLayout = [](unsigned) { return Attribute(); };
  if (!resultTree) {
    (void)printType(results[0].getType(), nullptr, sig, where);
    return success(); // its defining line was marked ROOT
  }
  unsigned offset = 0;
  (void)printTreeShape(*resultTree, results.getTypes(), noResultLayout, offset,
                       sig, printLeaf);
  // Inner tuples first, then the ROOT tuple with the dump's attributes.
  std::function<FailureOr<std::string>(const TupleTree &, unsigned &, bool)>
      build = [&](const TupleTree &node, unsigned &leaf,
                  bool isRoot) -> FailureOr<std::string> {
    if (!node.isTuple)
      return valueNames.lookup(results[leaf++]);
    unsigned begin = leaf;
    std::vector<std::string> elements;
    for (const TupleTree &child : node.children) {
      FailureOr<std::string> element = build(child, leaf, false);
      if (failed(element))
        return failure();
      elements.push_back(*element);
    }
    std::string name = freshName("tuple");
    os << (isRoot ? "  ROOT %" : "  %") << name << " = ";
    unsigned at = begin;
    if (failed(printTreeShape(node, results.getTypes(), noResultLayout, at, os,
                              printLeaf)))
      return failure();
    os << " tuple(";
    llvm::interleaveComma(elements, os,
                          [&](const std::string &n) { os << '%' << n; });
    os << ")";
    if (isRoot && rootAttrs &&
        failed(printKeptAttributes(where, rootAttrs.getValue(), os)))
      return failure();
    os << "\n";
    return name;
  };
  unsigned leaf = 0;
  if (failed(build(*resultTree, leaf, true)))
    return failure();
  return success();
}

FailureOr<std::string> Exporter::exportRegion(Region &region, ParamStyle style,
                                              llvm::StringRef hint) {
  std::string name = freshComputationName(hint);
  std::string body, signature;
  llvm::raw_string_ostream os(body);
  if (failed(exportBlock(region.front(), style, nullptr, os, signature)))
    return failure();
  computations.push_back("%" + name + " " + signature + " {\n" + body + "}\n");
  return name;
}

LogicalResult Exporter::exportFunction(func::FuncOp function) {
  std::string name = functionNames.lookup(function);
  std::string body, signature;
  llvm::raw_string_ostream os(body);
  if (failed(exportBlock(function.getBody().front(), ParamStyle::Separate,
                         function, os, signature)))
    return failure();
  computations.push_back((function.isPublic() ? "ENTRY %" : "%") + name + " " +
                         signature + " {\n" + body + "}\n");
  return success();
}

LogicalResult Exporter::exportModule(llvm::raw_ostream &os) {
  llvm::SmallVector<func::FuncOp> functions;
  func::FuncOp entry;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      return function.emitError("functions without a body have no HLO form");
    if (function.isPublic()) {
      if (entry)
        return function.emitError("a second public function; HLO has one "
                                  "ENTRY computation");
      entry = function;
    }
    functions.push_back(function);
    functionNames[function] = freshComputationName(function.getSymName());
  }
  if (!entry)
    return module.emitError("no public function to export as ENTRY");

  // Callees before callers: a function is exported after every function it
  // calls, with the entry last.
  llvm::DenseSet<Operation *> exported;
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp function) -> LogicalResult {
    if (!exported.insert(function).second)
      return success();
    WalkResult walk = function.walk([&](Operation *op) {
      llvm::SmallVector<FlatSymbolRefAttr, 1> refs;
      if (auto call = dyn_cast<func::CallOp>(op))
        refs.push_back(call.getCalleeAttr());
      if (auto called =
              op->getAttrOfType<ArrayAttr>("kiln.called_computations"))
        for (Attribute ref : called)
          if (auto symbol = dyn_cast<FlatSymbolRefAttr>(ref))
            refs.push_back(symbol);
      for (FlatSymbolRefAttr ref : refs) {
        auto callee = symbols.lookup<func::FuncOp>(ref.getValue());
        if (!callee) {
          op->emitError("reference to unknown function ") << ref;
          return WalkResult::interrupt();
        }
        if (callee != function && failed(visit(callee)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    return exportFunction(function);
  };
  for (func::FuncOp function : functions)
    if (function != entry && failed(visit(function)))
      return failure();
  if (failed(visit(entry)))
    return failure();

  // A dump without a header (a bare computation) stays without one.
  bool hasHeader = module.getSymName().has_value();
  if (hasHeader)
    os << "HloModule " << *module.getSymName();
  for (NamedAttribute attr : module->getAttrs()) {
    if (!hasHeader)
      break;
    llvm::StringRef attrName = attr.getName().getValue();
    if (!attrName.consume_front("kiln."))
      continue;
    if (auto raw = dyn_cast<StringAttr>(attr.getValue())) {
      os << ", " << attrName << '=' << raw.getValue();
      continue;
    }
    if (failed(printAttribute(module, attrName, attr.getValue(), os)))
      return failure();
  }
  if (hasHeader)
    os << "\n\n";
  if (!stackFrames.empty())
    stackFrames.print(os);
  for (const std::string &computation : computations)
    os << computation << '\n';
  return success();
}

LogicalResult kiln::exportHloText(ModuleOp module, llvm::raw_ostream &os) {
  return Exporter(module).exportModule(os);
}

void kiln::registerExportHloTranslation() {
  TranslateFromMLIRRegistration registration(
      "export-hlo", "export the kiln dialect as XLA HLO text",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        return exportHloText(module, os);
      },
      [](DialectRegistry &registry) {
        registry.insert<KilnDialect, func::FuncDialect, quant::QuantDialect>();
      });
}
