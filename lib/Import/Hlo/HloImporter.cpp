//===- HloImporter.cpp - XLA HLO text to the kiln dialect -------*- C++ -*-===//
//
// This file implements the importer's second phase: it walks computations
// from the entry, imports each instruction after its operands, turns
// sub-computations into regions (or private functions for `call`), flattens
// tuples, and converts metadata into locations. Every op is verified as it is
// built, with the diagnostic at the instruction's line in the HLO file.
//
// A training graph repeats itself layer by layer, so what is parsed by its
// spelling (shapes, array literals, attributes of one op, metadata) is parsed
// once and looked up after, and an op is verified once per kind. What is
// left is mostly MLIR's: the two locations of each instruction (its dump
// position, and that fused with its metadata), uniqued in the context, are
// about a fifth of the time, and building the ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/Hlo/HloImporter.h"

#include "HloModuleText.h"
#include "HloValueParser.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/HloOpcodes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/Hlo/InputDiagnostics.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::hlo;

namespace {
/// Keys a map by long text (a metadata group is 100 to 300 bytes) with
/// XXH3, several times faster there than the general hash of a StringRef.
struct LongTextKeyInfo : llvm::DenseMapInfo<llvm::StringRef> {
  static unsigned getHashValue(llvm::StringRef text) {
    return llvm::xxh3_64bits(text);
  }
};

/// How the value of each HLO attribute that kiln understands is written.
enum class AttrKind {
  IntList,
  Int,
  Bool,
  Float,
  Text,
  TextList,
  IntMatrix,
  Slice,
  Padding,
  Window,
  DimLabels,
  Computation,
  ComputationList,
  CalledComputations,
  Metadata,
  Sharding,
  FrontendAttributes,
  BackendConfig,
};

const llvm::StringMap<AttrKind> &getAttrKinds() {
  static const llvm::StringMap<AttrKind> kinds = [] {
    llvm::StringMap<AttrKind> map;
    for (const char *name :
         {"dimensions", "lhs_batch_dims", "lhs_contracting_dims",
          "rhs_batch_dims", "rhs_contracting_dims", "offset_dims",
          "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
          "start_indices_batching_dims", "slice_sizes", "update_window_dims",
          "inserted_window_dims", "scatter_dims_to_operand_dims",
          "input_batching_dims", "scatter_indices_batching_dims",
          "dynamic_slice_sizes", "fft_length", "lhs_ragged_dims",
          "rhs_group_dims"})
      map[name] = AttrKind::IntList;
    for (const char *name :
         {"iota_dimension", "index_vector_dim", "k", "feature_index",
          "exponent_bits", "mantissa_bits", "channel_id", "index",
          "feature_group_count", "batch_group_count", "delta"})
      map[name] = AttrKind::Int;
    for (const char *name :
         {"is_stable", "largest", "indices_are_sorted", "unique_indices",
          "use_global_device_ids", "custom_call_has_side_effect", "lower",
          "left_side", "unit_diagonal", "is_host_transfer"})
      map[name] = AttrKind::Bool;
    map["epsilon"] = AttrKind::Float;
    for (const char *name :
         {"direction", "type", "distribution", "algorithm",
          "custom_call_target", "api_version", "fft_type", "transpose_a",
          "kind", "async_execution_thread"})
      map[name] = AttrKind::Text;
    map["operand_precision"] = AttrKind::TextList;
    map["replica_groups"] = AttrKind::IntMatrix;
    map["source_target_pairs"] = AttrKind::IntMatrix;
    map["slice"] = AttrKind::Slice;
    map["padding"] = AttrKind::Padding;
    map["window"] = AttrKind::Window;
    map["dim_labels"] = AttrKind::DimLabels;
    for (const char *name :
         {"to_apply", "condition", "body", "true_computation",
          "false_computation", "calls", "select", "scatter"})
      map[name] = AttrKind::Computation;
    map["branch_computations"] = AttrKind::ComputationList;
    map["called_computations"] = AttrKind::CalledComputations;
    map["metadata"] = AttrKind::Metadata;
    map["sharding"] = AttrKind::Sharding;
    map["frontend_attributes"] = AttrKind::FrontendAttributes;
    map["backend_config"] = AttrKind::BackendConfig;
    return map;
  }();
  return kinds;
}

/// Per-instruction import state: its shape and flattened values.
struct InstructionState {
  Shape shape;
  llvm::SmallVector<Value, 1> values;
};

class Importer {
public:
  Importer(ModuleText &text, const SourcePositions &positions,
           llvm::StringRef buffer)
      : text(text), positions(positions), context(positions.getContext()),
        builder(context), cursor(buffer, positions), values(cursor, context) {}

  OwningOpRef<ModuleOp> import();

private:
  enum class Use { None, InProgress, Done };

  LogicalResult importModuleAttributes(ModuleOp module);
  FailureOr<func::FuncOp> getOrImportFunction(unsigned index,
                                              const char *useLoc);
  LogicalResult importRegion(unsigned index, Region &region,
                             const char *useLoc);
  /// Imports computation `index` into `block`, adding its parameters as block
  /// arguments and ending it with `func.return` or `kiln.return`.
  /// For a function, `functionArgAttrs` receives each argument's
  /// attributes (sharding, layout, ...); region arguments cannot hold any.
  /// `interface` (functions only) receives what flattening hides of the
  /// function's interface: its ROOT tuple's attributes and the tuple
  /// structure of its parameters and result.
  LogicalResult
  importBody(unsigned index, Block *block, bool isFunction,
             llvm::SmallVectorImpl<Type> &resultTypes,
             llvm::SmallVectorImpl<DictionaryAttr> *functionArgAttrs,
             NamedAttrList *interface = nullptr);
  /// Gives values the kiln types that their HLO shapes cannot spell
  /// (quantized tensors), from the `kiln_types` frontend attribute that the
  /// exporter wrote into `attrs`; takes the entry out of `attrs`.
  LogicalResult takeKilnTypes(const Instruction &inst, NamedAttrList &attrs,
                              llvm::SmallVectorImpl<Type> &types);
  LogicalResult checkSignature(const Computation &computation,
                               llvm::ArrayRef<Type> parameterTypes,
                               llvm::ArrayRef<Type> resultTypes);
  /// Also resolves each operand's producer (OperandRef::producer).
  LogicalResult topologicalOrder(Computation &computation,
                                 llvm::SmallVectorImpl<unsigned> &order);
  /// `isFunction`: the computation is a function's body (not a region).
  LogicalResult importInstruction(const Computation &computation,
                                  unsigned index,
                                  std::vector<InstructionState> &states,
                                  bool isFunction);
  LogicalResult importGeneric(const Instruction &inst, Location loc,
                              llvm::ArrayRef<Value> operands,
                              llvm::ArrayRef<unsigned> operandLeafCounts,
                              llvm::ArrayRef<std::string> operandTuples,
                              InstructionState &state);
  /// A get-tuple-element becomes no op, so its metadata would be lost: when
  /// it takes one result out of an op's tuple, its metadata is kept in that
  /// op's location (one location per result, as the fused location's
  /// metadata; see HloLocation.h), for the exporter to write back on the
  /// get-tuple-element it writes.
  void keepElementLocation(const Instruction &inst,
                           llvm::ArrayRef<Value> values);
  /// Keeps what an op's result types do not say of its HLO shape: layouts
  /// other than the default (`kiln.layout`) and a tuple structure other
  /// than a flat tuple of two or more (`kiln.result_tuple`).
  void setShapeAttrs(Operation *op, const Shape &shape);
  LogicalResult convertAttr(const Instruction &inst, const AttrRef &attr,
                            AttrKind kind, OperationName opName,
                            NamedAttrList &attrs);
  /// convertAttr, once per op, attribute and spelling: the layers of a
  /// model repeat their `dimensions=`, `replica_groups=` and shardings.
  LogicalResult convertAttrOnce(const Instruction &inst, const AttrRef &attr,
                                AttrKind kind, OperationName opName,
                                NamedAttrList &attrs);
  LogicalResult addCommonAttr(const AttrRef &attr, AttrKind kind,
                              NamedAttrList &attrs);
  FailureOr<unsigned> lookupComputation(const AttrRef &attr);
  /// The computations of `{%a, %b}`, with where each is named.
  FailureOr<llvm::SmallVector<std::pair<unsigned, const char *>>>
  lookupComputationList(const AttrRef &attr);
  FailureOr<unsigned> findComputation(llvm::StringRef name, const char *nameLoc,
                                      llvm::StringRef attrName);
  /// The attributes of a structural instruction (tuple, get-tuple-element,
  /// call) other than metadata and `skip`, as kept `kiln.*` attributes.
  LogicalResult collectKeptAttrs(const Instruction &inst,
                                 llvm::ArrayRef<llvm::StringRef> skip,
                                 NamedAttrList &attrs);
  /// Wraps `values` in a kiln.annotate carrying `attrs`, the attributes of
  /// a flattened tuple or get-tuple-element; no op when there are none.
  LogicalResult annotate(const Instruction &inst, Location loc,
                         NamedAttrList &attrs,
                         llvm::SmallVectorImpl<Value> &values);
  /// Imports each computation of `{%a, %b}` as a private function and
  /// returns their symbols.
  FailureOr<ArrayAttr> importCalledComputations(const AttrRef &attr);
  /// Fails (after a diagnostic) when the instruction's metadata is
  /// malformed: bad input is never half accepted.
  FailureOr<Location> getInstructionLocation(const Instruction &inst);
  FailureOr<Location> getMetadataLocation(const AttrRef &metadata);
  /// An op_name or source_file of metadata as an attribute, from
  /// metadataTexts: of the spellings that differ, most differ only in the
  /// source line.
  StringAttr getMetadataText(llvm::StringRef text);
  /// The call stack of frame `frameId`; fails on a FileLocations row whose
  /// line or column no location can hold.
  FailureOr<Location> getFrameLocation(int64_t frameId);
  /// Reports, at `at`, a line or column of the dump's metadata that no
  /// location can hold (FileLineColLoc keeps unsigned 32-bit numbers; a
  /// value outside would wrap around into another line). `prefix` and
  /// `line` or `column` name the field. Called only where a location is
  /// made of them: a number nothing uses fails nothing.
  LogicalResult checkLineAndColumn(const char *at, llvm::StringRef prefix,
                                   int64_t line, int64_t column);
  /// Parses the shape of `inst`. A dump spells a few shapes thousands of
  /// times (`f32[8192,896]{1,0}`), so a spelling parsed once is copied.
  LogicalResult parseInstructionShape(const Instruction &inst, Shape &shape);
  /// Parses the literal of constant `inst` of `shape`. Dumps repeat their
  /// scalars (0, 1, -inf) in every layer, so the literal of an array, by
  /// type and spelling, is parsed once.
  LogicalResult
  parseConstantLeaves(const Instruction &inst, const Shape &shape,
                      llvm::SmallVectorImpl<ValueParser::LiteralLeaf> &leaves);
  /// Verifies `op`, built with `attributes`, as mlir::verify does, once per
  /// kind of op. MLIR asks a verifier to check the op itself, not the
  /// producers of its operands nor its users, so two ops without regions
  /// that agree in name, parent, attributes and operand and result types
  /// verify alike; a training graph repeats its layers, and verification
  /// was a seventh of the import. Ops that look further are verified every
  /// time: terminators (their block), kiln.annotate (its block's
  /// arguments), kiln.async_done (the chain that produced its operand).
  LogicalResult verifyOnce(Operation *op, DictionaryAttr attributes);
  /// Places the cursor at an attribute's value.
  void seek(const AttrRef &attr) { cursor.resetTo(attr.valueBegin); }
  /// Checks that the cursor consumed exactly the attribute's value.
  LogicalResult finish(const AttrRef &attr);

  ModuleText &text;
  const SourcePositions &positions;
  MLIRContext *context;
  OpBuilder builder;
  TokenCursor cursor;
  ValueParser values;
  ModuleOp module;

  std::vector<func::FuncOp> functions;
  std::vector<Use> functionUse;
  std::vector<bool> regionInProgress;
  std::vector<bool> usedAsRegion;
  /// Computations being imported inside one another (calls and regions).
  /// Real graphs nest a few levels; the bound keeps the recursion, and the
  /// verifier's and printer's after it, far from the stack's end.
  static constexpr unsigned kMaxNesting = 128;
  unsigned nesting = 0;
  LogicalResult enterComputation(const Computation &computation,
                                 const char *useLoc) {
    if (nesting >= kMaxNesting)
      return positions.emitError(useLoc ? useLoc : computation.loc)
             << "computations nest more than " << kMaxNesting
             << " levels deep (through calls and regions) at '"
             << computation.name << "'";
    ++nesting;
    return success();
  }
  /// The location of each metadata spelling met, keyed by the dump's text.
  llvm::DenseMap<llvm::StringRef, Location, LongTextKeyInfo> metadataLocations;
  /// The last spelling looked up and its location. Three instructions in four
  /// repeat the metadata of the one before (a Python line traces into
  /// several ops), and comparing with that text, still in the cache, spares
  /// hashing it and a miss in metadataLocations.
  llvm::StringRef lastMetadataText;
  Location lastMetadataLocation = UnknownLoc::get(context);
  llvm::StringMap<StringAttr> metadataTexts;
  /// Shapes parsed, by spelling; see parseInstructionShape.
  llvm::DenseMap<llvm::StringRef, Shape> shapesBySpelling;
  /// Array literals parsed, by type and spelling; see parseConstantLeaves.
  llvm::DenseMap<std::pair<Type, llvm::StringRef>, ValueParser::LiteralLeaf>
      literalsBySpelling;
  /// The kinds of op verified; see verifyOnce.
  llvm::StringSet<> verifiedOps;
  /// What convertAttr made of each (op, attribute name, spelling).
  llvm::DenseMap<std::tuple<void *, llvm::StringRef, llvm::StringRef>,
                 llvm::SmallVector<NamedAttribute, 1>>
      convertedAttrs;
  /// The kiln op of each HLO opcode met (keyed by the dump's text), its
  /// name and its OperationName, opaque as that has no empty value: naming
  /// an op looks its name up.
  struct KnownOpcode {
    llvm::StringRef kilnName;
    void *operationName = nullptr;
  };
  llvm::DenseMap<llvm::StringRef, KnownOpcode> knownOpcodes;
  llvm::DenseMap<int64_t, Location> frameLocations;
  llvm::DenseSet<int64_t> framesInProgress;
};

} // namespace

LogicalResult Importer::parseInstructionShape(const Instruction &inst,
                                              Shape &shape) {
  llvm::StringRef spelling(inst.shapeBegin, inst.shapeEnd - inst.shapeBegin);
  auto cached = shapesBySpelling.find(spelling);
  if (cached != shapesBySpelling.end()) {
    shape = cached->second;
    return success();
  }
  cursor.resetTo(inst.shapeBegin);
  if (failed(values.parseShape(shape)))
    return failure();
  // Only a spelling that the first phase and the shape parser end at the
  // same place is known to be the whole shape.
  if (cursor.lastTokenEnd() == inst.shapeEnd)
    shapesBySpelling.try_emplace(spelling, shape);
  return success();
}

LogicalResult Importer::parseConstantLeaves(
    const Instruction &inst, const Shape &shape,
    llvm::SmallVectorImpl<ValueParser::LiteralLeaf> &leaves) {
  llvm::StringRef spelling(inst.literalBegin,
                           inst.literalEnd - inst.literalBegin);
  bool isArray = !shape.isTuple() && shape.leaves.size() == 1;
  if (isArray) {
    auto cached = literalsBySpelling.find({shape.leaves[0], spelling});
    if (cached != literalsBySpelling.end()) {
      leaves.push_back(cached->second);
      return success();
    }
  }
  if (failed(values.parseLiteralLeaves(shape, inst.literalBegin,
                                       inst.literalEnd, leaves)))
    return failure();
  if (isArray && leaves.size() == 1)
    literalsBySpelling.try_emplace({shape.leaves[0], spelling}, leaves[0]);
  return success();
}

LogicalResult Importer::finish(const AttrRef &attr) {
  if (cursor.lastTokenEnd() != attr.valueEnd)
    return cursor.emitExpected("the end of attribute '" + attr.name + "'");
  return success();
}

OwningOpRef<ModuleOp> Importer::import() {
  OwningOpRef<ModuleOp> owned = ModuleOp::create(
      positions.getLocation(text.loc ? text.loc : text.computations[0].loc));
  module = *owned;
  if (!text.name.empty())
    module.setSymName(text.name);
  if (failed(importModuleAttributes(module)))
    return nullptr;

  size_t count = text.computations.size();
  functions.assign(count, nullptr);
  functionUse.assign(count, Use::None);
  regionInProgress.assign(count, false);
  usedAsRegion.assign(count, false);

  if (failed(getOrImportFunction(text.entryIndex, nullptr)))
    return nullptr;
  functions[text.entryIndex].setPublic();
  // Computations that nothing references are kept as private functions so
  // that nothing in the dump is lost.
  for (unsigned i = 0; i < count; ++i)
    if (functionUse[i] == Use::None && !usedAsRegion[i] &&
        failed(getOrImportFunction(i, nullptr)))
      return nullptr;
  return owned;
}

LogicalResult Importer::importModuleAttributes(ModuleOp module) {
  for (const AttrRef &attr : text.attrs) {
    seek(attr);
    std::string name = ("kiln." + attr.name).str();
    if (attr.name == "num_partitions" || attr.name == "replica_count") {
      int64_t value;
      if (failed(values.parseInt(value)) || failed(finish(attr)))
        return failure();
      module->setAttr(name, builder.getI64IntegerAttr(value));
    } else if (attr.name == "frontend_attributes") {
      DictionaryAttr dict;
      if (failed(values.parseFrontendAttributes(dict)) || failed(finish(attr)))
        return failure();
      module->setAttr(name, dict);
    } else {
      // entry_computation_layout, input_output_alias, is_scheduled, ...:
      // kept verbatim for the exporter and for external compilers.
      module->setAttr(
          name, builder.getStringAttr(canonicalizeText(attr.valueText())));
    }
  }
  return success();
}

FailureOr<func::FuncOp> Importer::getOrImportFunction(unsigned index,
                                                      const char *useLoc) {
  const Computation &computation = text.computations[index];
  if (functionUse[index] == Use::Done)
    return functions[index];
  if (functionUse[index] == Use::InProgress || regionInProgress[index])
    return positions.emitError(useLoc ? useLoc : computation.loc)
           << "computation '" << computation.name
           << "' calls itself (directly or through other computations)";
  if (failed(enterComputation(computation, useLoc)))
    return failure();
  llvm::scope_exit leave([&] { --nesting; });
  functionUse[index] = Use::InProgress;

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  auto function =
      func::FuncOp::create(builder, positions.getLocation(computation.loc),
                           computation.name, builder.getFunctionType({}, {}));
  function.setPrivate();
  functions[index] = function;
  Block *block = function.addEntryBlock();
  llvm::SmallVector<Type> resultTypes;
  llvm::SmallVector<DictionaryAttr> functionArgAttrs;
  NamedAttrList interface;
  if (failed(importBody(index, block, /*isFunction=*/true, resultTypes,
                        &functionArgAttrs, &interface)))
    return failure();
  for (NamedAttribute attr : interface)
    function->setAttr(attr.getName(), attr.getValue());
  function.setFunctionType(
      builder.getFunctionType(block->getArgumentTypes(), resultTypes));
  if (llvm::any_of(functionArgAttrs,
                   [](DictionaryAttr attrs) { return !attrs.empty(); }))
    function.setAllArgAttrs(functionArgAttrs);
  functionUse[index] = Use::Done;
  return function;
}

LogicalResult Importer::importRegion(unsigned index, Region &region,
                                     const char *useLoc) {
  const Computation &computation = text.computations[index];
  if (regionInProgress[index] || functionUse[index] == Use::InProgress)
    return positions.emitError(useLoc)
           << "computation '" << computation.name
           << "' calls itself (directly or through other computations)";
  if (failed(enterComputation(computation, useLoc)))
    return failure();
  llvm::scope_exit leave([&] { --nesting; });
  regionInProgress[index] = true;
  usedAsRegion[index] = true;
  Block *block = new Block();
  region.push_back(block);
  llvm::SmallVector<Type> resultTypes;
  LogicalResult result =
      importBody(index, block, /*isFunction=*/false, resultTypes, nullptr);
  regionInProgress[index] = false;
  return result;
}

LogicalResult
Importer::topologicalOrder(Computation &computation,
                           llvm::SmallVectorImpl<unsigned> &order) {
  enum : uint8_t { Unvisited, Visiting, Visited };
  size_t count = computation.instructions.size();
  std::vector<uint8_t> mark(count, Unvisited);
  struct Frame {
    unsigned index;
    unsigned nextOperand;
  };
  llvm::SmallVector<Frame, 32> stack;
  order.reserve(count);
  for (unsigned start = 0; start < count; ++start) {
    if (mark[start] != Unvisited)
      continue;
    stack.push_back({start, 0});
    mark[start] = Visiting;
    while (!stack.empty()) {
      Frame &frame = stack.back();
      Instruction &inst = computation.instructions[frame.index];
      if (frame.nextOperand == inst.operands.size()) {
        mark[frame.index] = Visited;
        order.push_back(frame.index);
        stack.pop_back();
        continue;
      }
      OperandRef &operand = inst.operands[frame.nextOperand++];
      auto it = computation.instructionByName.find(operand.name);
      if (it == computation.instructionByName.end())
        return positions.emitError(operand.loc)
               << "use of undefined instruction '" << operand.name
               << "' in computation '" << computation.name << "'";
      unsigned next = it->second;
      operand.producer = next;
      if (mark[next] == Visiting)
        return positions.emitError(operand.loc)
               << "instruction '" << inst.name << "' uses '" << operand.name
               << "', which depends on '" << inst.name
               << "': the computation has a cycle";
      if (mark[next] == Unvisited) {
        mark[next] = Visiting;
        stack.push_back({next, 0});
      }
    }
  }
  return success();
}

/// How HLO text spells `type`: a quantized tensor as its stored integers.
static Type storedForm(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto quantized =
      tensor ? dyn_cast<quant::QuantizedType>(tensor.getElementType())
             : nullptr;
  if (!quantized)
    return type;
  return tensor.clone(IntegerType::get(
      type.getContext(), quantized.getStorageTypeIntegralWidth(),
      quantized.isSigned() ? IntegerType::Signless : IntegerType::Unsigned));
}

LogicalResult Importer::takeKilnTypes(const Instruction &inst,
                                      NamedAttrList &attrs,
                                      llvm::SmallVectorImpl<Type> &types) {
  auto frontend = dyn_cast_or_null<DictionaryAttr>(
      attrs.get("kiln.frontend_attributes"));
  auto text = frontend ? frontend.getAs<StringAttr>(kKilnTypesFrontendAttribute)
                       : nullptr;
  if (!text)
    return success();
  Type parsed;
  {
    // Reported below, at the instruction, not at a position in the string.
    ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {
      return success();
    });
    size_t read = 0;
    parsed = mlir::parseType(text.getValue(), context, &read);
    if (parsed && read != text.getValue().size())
      parsed = nullptr;
  }
  auto tuple = dyn_cast_or_null<TupleType>(parsed);
  bool matches = tuple && tuple.size() == types.size();
  for (unsigned i = 0; matches && i < types.size(); ++i)
    matches = storedForm(tuple.getType(i)) == types[i];
  if (!matches)
    return positions.emitError(inst.loc)
           << "frontend attribute '" << kKilnTypesFrontendAttribute
           << "' of '" << inst.name << "' must be a tuple<...> of types stored "
           << "as its shape says, found \"" << text.getValue() << "\"";
  types.assign(tuple.getTypes().begin(), tuple.getTypes().end());
  NamedAttrList rest(frontend);
  rest.erase(kKilnTypesFrontendAttribute);
  if (rest.empty())
    attrs.erase("kiln.frontend_attributes");
  else
    attrs.set("kiln.frontend_attributes", rest.getDictionary(context));
  return success();
}

LogicalResult Importer::checkSignature(const Computation &computation,
                                       llvm::ArrayRef<Type> parameterTypes,
                                       llvm::ArrayRef<Type> resultTypes) {
  cursor.resetTo(computation.signatureBegin);
  cursor.consume(); // '('
  llvm::SmallVector<Type> declared;
  while (!cursor.current().is(Token::RParen)) {
    llvm::StringRef name;
    Shape shape;
    if (failed(cursor.parseName(name, "a parameter name")) ||
        failed(cursor.expect(Token::Colon, "':' after a parameter name")) ||
        failed(values.parseShape(shape)))
      return failure();
    declared.append(shape.leaves);
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  Shape result;
  if (failed(cursor.expect(Token::RParen, "')'")) ||
      failed(cursor.expect(Token::Arrow, "'->'")) ||
      failed(values.parseShape(result)))
    return failure();
  auto describe = [](llvm::ArrayRef<Type> types) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "(";
    llvm::interleaveComma(types, os);
    os << ")";
    return s;
  };
  // A computation's signature spells quantized types as stored.
  llvm::SmallVector<Type> stored(llvm::map_range(parameterTypes, storedForm));
  if (llvm::ArrayRef<Type>(declared) != llvm::ArrayRef<Type>(stored))
    return positions.emitError(computation.signatureBegin)
           << "signature of computation '" << computation.name
           << "' declares parameters " << describe(declared)
           << " but its parameter instructions are "
           << describe(parameterTypes);
  llvm::SmallVector<Type> storedResults(llvm::map_range(resultTypes, storedForm));
  if (llvm::ArrayRef<Type>(result.leaves) != llvm::ArrayRef<Type>(storedResults))
    return positions.emitError(computation.signatureBegin)
           << "signature of computation '" << computation.name
           << "' declares result " << describe(result.leaves)
           << " but its ROOT is " << describe(resultTypes);
  return success();
}

LogicalResult
Importer::importBody(unsigned index, Block *block, bool isFunction,
                     llvm::SmallVectorImpl<Type> &resultTypes,
                     llvm::SmallVectorImpl<DictionaryAttr> *functionArgAttrs,
                     NamedAttrList *interface) {
  const Computation &computation = text.computations[index];
  std::vector<InstructionState> states(computation.instructions.size());

  // Parameters become block arguments, in parameter-number order.
  llvm::SmallVector<int, 8> parameterByNumber;
  for (unsigned i = 0; i < computation.instructions.size(); ++i) {
    const Instruction &inst = computation.instructions[i];
    if (inst.opcode != "parameter")
      continue;
    int64_t number = inst.parameterNumber;
    if (number < 0 || number >= (int64_t)computation.instructions.size())
      return positions.emitError(inst.loc)
             << "parameter number " << number << " of '" << inst.name
             << "' is out of range";
    if ((int64_t)parameterByNumber.size() <= number)
      parameterByNumber.resize(number + 1, -1);
    if (parameterByNumber[number] >= 0)
      return positions.emitError(inst.loc)
             << "parameter number " << number << " is used by both '"
             << computation.instructions[parameterByNumber[number]].name
             << "' and '" << inst.name << "'";
    parameterByNumber[number] = i;
  }
  for (unsigned number = 0; number < parameterByNumber.size(); ++number) {
    if (parameterByNumber[number] < 0)
      return positions.emitError(computation.loc)
             << "computation '" << computation.name << "' has no parameter "
             << number << " but has parameter " << parameterByNumber.size() - 1;
    unsigned i = parameterByNumber[number];
    const Instruction &inst = computation.instructions[i];
    InstructionState &state = states[i];
    if (failed(parseInstructionShape(inst, state.shape)))
      return failure();
    FailureOr<Location> loc = getInstructionLocation(inst);
    if (failed(loc))
      return failure();
    // Attributes of a function's parameters (sharding, frontend attributes,
    // layouts) are kept on its arguments; a region's arguments cannot hold
    // any, so there they go on a kiln.annotate over the arguments.
    NamedAttrList argAttrs;
    if (failed(collectKeptAttrs(inst, {}, argAttrs)) ||
        failed(takeKilnTypes(inst, argAttrs, state.shape.leaves)))
      return failure();
    for (unsigned leaf = 0; leaf < state.shape.leaves.size(); ++leaf) {
      state.values.push_back(
          block->addArgument(state.shape.leaves[leaf], *loc));
      if (!functionArgAttrs)
        continue;
      NamedAttrList leafAttrs = argAttrs;
      if (StringAttr layout = state.shape.layouts[leaf])
        leafAttrs.set("kiln.layout", layout);
      functionArgAttrs->push_back(leafAttrs.getDictionary(context));
    }
    if (!functionArgAttrs && !argAttrs.empty()) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToEnd(block);
      if (failed(annotate(inst, *loc, argAttrs, state.values)))
        return failure();
    }
  }

  llvm::SmallVector<unsigned> order;
  if (failed(topologicalOrder(text.computations[index], order)))
    return failure();

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  for (unsigned i : order) {
    const Instruction &inst = computation.instructions[i];
    if (inst.opcode == "parameter")
      continue;
    if (failed(importInstruction(computation, i, states, isFunction)))
      return failure();
  }

  const Instruction &root = computation.instructions[computation.rootIndex];
  llvm::ArrayRef<Value> rootValues = states[computation.rootIndex].values;
  // A ROOT tuple is flattened away; its attributes (JAX's output shardings,
  // NeuronX's output names) describe the function's results and are kept on
  // the function.
  if (interface && root.opcode == "tuple") {
    NamedAttrList attrs;
    if (failed(collectKeptAttrs(root, {}, attrs)))
      return failure();
    if (!attrs.empty())
      interface->set("kiln.root", attrs.getDictionary(context));
  }
  for (Value value : rootValues)
    resultTypes.push_back(value.getType());
  if (interface) {
    // Flattening makes one tuple parameter look like several parameters,
    // and a 1-tuple or nested tuple result like a flat one; the structure
    // is a different calling convention, so it is kept.
    llvm::SmallVector<Attribute> parameterTuples;
    bool anyTuple = false;
    for (int instIndex : parameterByNumber) {
      const Shape &shape = states[instIndex].shape;
      anyTuple |= shape.isTuple();
      parameterTuples.push_back(
          builder.getStringAttr(describeTupleStructure(shape)));
    }
    if (anyTuple)
      interface->set("kiln.parameter_tuples",
                     builder.getArrayAttr(parameterTuples));
    const Shape &rootShape = states[computation.rootIndex].shape;
    std::string structure = describeTupleStructure(rootShape);
    if (rootShape.isTuple() && !rootShape.isFlatTuple())
      interface->set("kiln.result_tuple", builder.getStringAttr(structure));
  }
  Location rootLoc = positions.getLocation(root.loc);
  if (isFunction)
    func::ReturnOp::create(builder, rootLoc, rootValues);
  else
    ReturnOp::create(builder, rootLoc, rootValues);

  if (computation.signatureBegin &&
      failed(checkSignature(computation,
                            llvm::to_vector(block->getArgumentTypes()),
                            resultTypes)))
    return failure();
  return success();
}

FailureOr<Location> Importer::getInstructionLocation(const Instruction &inst) {
  const AttrRef *metadata = inst.findAttr("metadata");
  if (!metadata)
    return positions.getLocation(inst.loc);
  FailureOr<Location> meta = getMetadataLocation(*metadata);
  if (failed(meta))
    return failure();
  if (isa<UnknownLoc>(*meta))
    return positions.getLocation(inst.loc);
  // The HLO position comes first so that diagnostics point into the dump;
  // the metadata part points at the user's Python line. The two are one
  // HloInstructionLoc, fused[position, metadata] in builtin form.
  return positions.getLocation(inst.loc, *meta);
}

StringAttr Importer::getMetadataText(llvm::StringRef text) {
  StringAttr &attr = metadataTexts[text];
  if (!attr)
    attr = StringAttr::get(context, text);
  return attr;
}

FailureOr<Location> Importer::getMetadataLocation(const AttrRef &attr) {
  llvm::StringRef spelling = attr.valueText();
  if (!lastMetadataText.empty() && spelling == lastMetadataText)
    return lastMetadataLocation;
  auto it = metadataLocations.find(spelling);
  if (it != metadataLocations.end()) {
    lastMetadataText = spelling;
    lastMetadataLocation = it->second;
    return it->second;
  }
  Metadata metadata;
  if (!parsePlainMetadata(attr.valueText(), metadata)) {
    seek(attr);
    if (failed(values.parseMetadata(metadata)) || failed(finish(attr)))
      return failure();
  }
  Location source = UnknownLoc::get(context);
  if (metadata.stackFrameId > 0) {
    FailureOr<Location> frame = getFrameLocation(metadata.stackFrameId);
    if (failed(frame))
      return failure();
    source = *frame;
  }
  if (isa<UnknownLoc>(source) && !metadata.sourceFile.empty()) {
    if (failed(checkLineAndColumn(attr.valueBegin, "metadata source_",
                                  metadata.sourceLine, metadata.sourceColumn)))
      return failure();
    source = FileLineColLoc::get(getMetadataText(metadata.sourceFile),
                                 metadata.sourceLine, metadata.sourceColumn);
  }
  // The op_name layer is always there in front of a call stack (empty when
  // the dump has none), so that the stack's outermost name is never taken
  // for an op_name: see HloLocation.h.
  bool isStack = isa<NameLoc, CallSiteLoc>(source);
  Location loc = metadata.opName.empty() && !isStack
                     ? source
                     : NameLoc::get(getMetadataText(metadata.opName), source);
  metadataLocations.try_emplace(spelling, loc);
  lastMetadataText = spelling;
  lastMetadataLocation = loc;
  return loc;
}

LogicalResult Importer::checkLineAndColumn(const char *at,
                                           llvm::StringRef prefix, int64_t line,
                                           int64_t column) {
  constexpr int64_t kMax = std::numeric_limits<unsigned>::max();
  for (auto [field, value] : {std::pair{"line", line}, {"column", column}})
    if (value < 0 || value > kMax)
      return positions.emitError(at)
             << prefix << field << " " << value << " is out of range (0 to "
             << kMax << ")";
  return success();
}

FailureOr<Location> Importer::getFrameLocation(int64_t frameId) {
  auto cached = frameLocations.find(frameId);
  if (cached != frameLocations.end())
    return cached->second;
  auto frame = text.stackFrames.find(frameId);
  if (frame == text.stackFrames.end() ||
      !framesInProgress.insert(frameId).second)
    return Location(UnknownLoc::get(context));
  Location loc = UnknownLoc::get(context);
  auto fileLocation = text.fileLocations.find(frame->second.fileLocationId);
  if (fileLocation != text.fileLocations.end()) {
    const FileLocation &row = fileLocation->second;
    if (failed(checkLineAndColumn(row.loc, "FileLocations ", row.line,
                                  row.column)))
      return failure();
    Location callee = FileLineColLoc::get(
        context, text.fileNames.lookup(row.fileNameId), row.line, row.column);
    std::string function = text.functionNames.lookup(row.functionNameId);
    if (!function.empty())
      callee = NameLoc::get(StringAttr::get(context, function), callee);
    loc = callee;
    // XLA prints a frame's parent as its 1-based id plus one (the proto's
    // parent_frame_id + 1, where 0 means none): printed P is frame P - 1,
    // and 1 marks an outermost frame.
    int64_t parent = frame->second.parentFrameId - 1;
    if (parent > 0 && parent != frameId) {
      FailureOr<Location> caller = getFrameLocation(parent);
      if (failed(caller))
        return failure();
      if (!isa<UnknownLoc>(*caller))
        loc = CallSiteLoc::get(callee, *caller);
    }
  }
  framesInProgress.erase(frameId);
  frameLocations.try_emplace(frameId, loc);
  return loc;
}

FailureOr<unsigned> Importer::findComputation(llvm::StringRef name,
                                              const char *nameLoc,
                                              llvm::StringRef attrName) {
  auto it = text.computationByName.find(name);
  if (it == text.computationByName.end())
    return positions.emitError(nameLoc)
           << "'" << attrName << "' names undefined computation '" << name
           << "'";
  return it->second;
}

FailureOr<unsigned> Importer::lookupComputation(const AttrRef &attr) {
  seek(attr);
  llvm::StringRef name;
  if (failed(cursor.parseName(name, "a computation name")) ||
      failed(finish(attr)))
    return failure();
  return findComputation(name, attr.valueBegin, attr.name);
}

FailureOr<llvm::SmallVector<std::pair<unsigned, const char *>>>
Importer::lookupComputationList(const AttrRef &attr) {
  llvm::SmallVector<std::pair<unsigned, const char *>> computations;
  seek(attr);
  if (failed(cursor.expect(Token::LBrace, "'{' to start a computation list")))
    return failure();
  while (!cursor.current().is(Token::RBrace)) {
    const char *nameLoc = cursor.current().loc();
    llvm::StringRef name;
    if (failed(cursor.parseName(name, "a computation name")))
      return failure();
    FailureOr<unsigned> index = findComputation(name, nameLoc, attr.name);
    if (failed(index))
      return failure();
    computations.push_back({*index, nameLoc});
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  if (failed(cursor.expect(Token::RBrace, "',' or '}'")) ||
      failed(finish(attr)))
    return failure();
  return computations;
}

FailureOr<ArrayAttr> Importer::importCalledComputations(const AttrRef &attr) {
  // Names first: importing a function moves the cursor.
  auto callees = lookupComputationList(attr);
  if (failed(callees))
    return failure();
  llvm::SmallVector<Attribute> symbols;
  for (auto [index, nameLoc] : *callees) {
    FailureOr<func::FuncOp> function = getOrImportFunction(index, nameLoc);
    if (failed(function))
      return failure();
    symbols.push_back(FlatSymbolRefAttr::get(function->getSymNameAttr()));
  }
  return builder.getArrayAttr(symbols);
}

LogicalResult Importer::collectKeptAttrs(const Instruction &inst,
                                         llvm::ArrayRef<llvm::StringRef> skip,
                                         NamedAttrList &attrs) {
  for (const AttrRef &attr : inst.attrs) {
    if (llvm::is_contained(skip, attr.name))
      continue;
    auto kind = getAttrKinds().find(attr.name);
    if (kind != getAttrKinds().end() && kind->second == AttrKind::Metadata)
      continue;
    // A computation reference means nothing on a structural instruction;
    // kept as text it would name a computation that may not exist, and
    // export it where XLA rejects it.
    if (kind != getAttrKinds().end() &&
        (kind->second == AttrKind::Computation ||
         kind->second == AttrKind::ComputationList ||
         kind->second == AttrKind::CalledComputations))
      return positions.emitError(attr.nameLoc)
             << "attribute '" << attr.name << "' is not valid on HLO '"
             << inst.opcode << "'";
    if (failed(addCommonAttr(attr,
                             kind == getAttrKinds().end() ? AttrKind::Sharding
                                                          : kind->second,
                             attrs)))
      return failure();
  }
  return success();
}

LogicalResult Importer::annotate(const Instruction &inst, Location loc,
                                 NamedAttrList &attrs,
                                 llvm::SmallVectorImpl<Value> &values) {
  if (attrs.empty())
    return success();
  attrs.set("hlo_opcode", builder.getStringAttr(inst.opcode));
  auto op = AnnotateOp::create(builder, loc, ValueRange(values).getTypes(),
                               values, attrs.getAttrs());
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    return failure();
  values.assign(op->getResults().begin(), op->getResults().end());
  return success();
}

LogicalResult Importer::addCommonAttr(const AttrRef &attr, AttrKind kind,
                                      NamedAttrList &attrs) {
  std::string name = ("kiln." + attr.name).str();
  seek(attr);
  switch (kind) {
  case AttrKind::FrontendAttributes: {
    DictionaryAttr dict;
    if (failed(values.parseFrontendAttributes(dict)) || failed(finish(attr)))
      return failure();
    attrs.set(name, dict);
    return success();
  }
  case AttrKind::BackendConfig: {
    // `"..."` and `{...}` spell the same configuration; keep its text.
    std::string config;
    if (cursor.current().is(Token::String)) {
      config = unescapeString(cursor.current().spelling);
    } else {
      config = canonicalizeText(attr.valueText());
    }
    attrs.set(name, StringAttr::get(context, config));
    return success();
  }
  default:
    // Sharding and attributes kiln does not interpret: kept as their
    // canonical text. Metadata inside a sharding is not part of it.
    attrs.set(name, StringAttr::get(
                        context, canonicalizeText(attr.valueText(),
                                                  kind == AttrKind::Sharding)));
    return success();
  }
}

LogicalResult Importer::convertAttrOnce(const Instruction &inst,
                                        const AttrRef &attr, AttrKind kind,
                                        OperationName opName,
                                        NamedAttrList &attrs) {
  // Metadata becomes the op's location, not an attribute, and is nearly
  // always spelled differently: not worth a key.
  if (kind == AttrKind::Metadata)
    return convertAttr(inst, attr, kind, opName, attrs);
  auto key =
      std::make_tuple(opName.getAsOpaquePointer(), attr.name, attr.valueText());
  auto cached = convertedAttrs.find(key);
  if (cached == convertedAttrs.end()) {
    NamedAttrList converted;
    if (failed(convertAttr(inst, attr, kind, opName, converted)))
      return failure();
    cached = convertedAttrs
                 .try_emplace(key, llvm::SmallVector<NamedAttribute, 1>(
                                       converted.begin(), converted.end()))
                 .first;
  }
  for (NamedAttribute converted : cached->second)
    attrs.set(converted.getName(), converted.getValue());
  return success();
}

LogicalResult Importer::convertAttr(const Instruction &inst,
                                    const AttrRef &attr, AttrKind kind,
                                    OperationName opName,
                                    NamedAttrList &attrs) {
  auto isInherent = [&](llvm::StringRef name) {
    for (StringAttr inherent : opName.getAttributeNames())
      if (inherent.getValue() == name)
        return true;
    return false;
  };
  // An attribute the op does not declare is kept, prefixed, so that a dump
  // from a newer XLA still imports and round-trips.
  auto nameFor = [&](llvm::StringRef name) -> std::string {
    return isInherent(name) ? name.str() : ("kiln." + name).str();
  };
  // An attribute the op does not declare keeps its text, so that nothing
  // can be mistaken for the op's own attributes and the exporter writes it
  // back as it was.
  auto declares = [&]() {
    switch (kind) {
    case AttrKind::Slice:
      return isInherent("start_indices");
    case AttrKind::Padding:
      return isInherent("edge_padding_low");
    case AttrKind::Window:
      return isInherent("window_dimensions");
    case AttrKind::DimLabels:
      return isInherent("input_batch_dimension");
    case AttrKind::BackendConfig:
    case AttrKind::Metadata:
    case AttrKind::Sharding:
    case AttrKind::FrontendAttributes:
    case AttrKind::Computation:
    case AttrKind::ComputationList:
    case AttrKind::CalledComputations:
      return true;
    default:
      return isInherent(attr.name);
    }
  };
  if (!declares()) {
    attrs.set(("kiln." + attr.name).str(),
              builder.getStringAttr(canonicalizeText(attr.valueText())));
    return success();
  }
  seek(attr);
  switch (kind) {
  case AttrKind::IntList: {
    llvm::SmallVector<int64_t> list;
    if (failed(values.parseIntList(list)) || failed(finish(attr)))
      return failure();
    attrs.set(nameFor(attr.name), builder.getDenseI64ArrayAttr(list));
    return success();
  }
  case AttrKind::Int: {
    int64_t value;
    if (failed(values.parseInt(value)) || failed(finish(attr)))
      return failure();
    attrs.set(nameFor(attr.name), builder.getI64IntegerAttr(value));
    return success();
  }
  case AttrKind::Bool: {
    bool value;
    if (failed(values.parseBool(value)) || failed(finish(attr)))
      return failure();
    attrs.set(nameFor(attr.name), builder.getBoolAttr(value));
    return success();
  }
  case AttrKind::Float: {
    double value;
    if (failed(values.parseFloat(value)) || failed(finish(attr)))
      return failure();
    attrs.set(nameFor(attr.name), builder.getF32FloatAttr(value));
    return success();
  }
  case AttrKind::Text: {
    std::string value;
    if (failed(values.parseText(value)) || failed(finish(attr)))
      return failure();
    attrs.set(nameFor(attr.name), builder.getStringAttr(value));
    return success();
  }
  case AttrKind::TextList: {
    llvm::SmallVector<std::string> words;
    if (failed(values.parseWordList(words)) || failed(finish(attr)))
      return failure();
    llvm::SmallVector<Attribute> list;
    for (const std::string &word : words)
      list.push_back(builder.getStringAttr(word));
    attrs.set(nameFor(attr.name), builder.getArrayAttr(list));
    return success();
  }
  case AttrKind::IntMatrix: {
    DenseIntElementsAttr matrix;
    if (failed(values.parseIntMatrix(matrix, attr.name)) ||
        failed(finish(attr)))
      return failure();
    attrs.set(nameFor(attr.name), matrix);
    return success();
  }
  case AttrKind::Slice: {
    llvm::SmallVector<int64_t> starts, limits, strides;
    if (failed(values.parseSliceSpec(starts, limits, strides)) ||
        failed(finish(attr)))
      return failure();
    attrs.set("start_indices", builder.getDenseI64ArrayAttr(starts));
    attrs.set("limit_indices", builder.getDenseI64ArrayAttr(limits));
    attrs.set("strides", builder.getDenseI64ArrayAttr(strides));
    return success();
  }
  case AttrKind::Padding: {
    llvm::SmallVector<int64_t> low, high, interior;
    if (failed(values.parsePaddingSpec(low, high, interior)) ||
        failed(finish(attr)))
      return failure();
    attrs.set("edge_padding_low", builder.getDenseI64ArrayAttr(low));
    attrs.set("edge_padding_high", builder.getDenseI64ArrayAttr(high));
    attrs.set("interior_padding", builder.getDenseI64ArrayAttr(interior));
    return success();
  }
  case AttrKind::Window: {
    ValueParser::Window window;
    if (failed(values.parseWindow(window)) || failed(finish(attr)))
      return failure();
    attrs.set("window_dimensions", builder.getDenseI64ArrayAttr(window.size));
    attrs.set("window_strides", builder.getDenseI64ArrayAttr(window.stride));
    attrs.set("base_dilations",
              builder.getDenseI64ArrayAttr(window.baseDilation));
    attrs.set("window_dilations",
              builder.getDenseI64ArrayAttr(window.windowDilation));
    attrs.set("padding_low", builder.getDenseI64ArrayAttr(window.padLow));
    attrs.set("padding_high", builder.getDenseI64ArrayAttr(window.padHigh));
    if (!window.reversal.empty()) {
      if (!isInherent("window_reversal"))
        return positions.emitError(attr.valueBegin)
               << "'rhs_reversal' in a window is only valid on convolution";
      attrs.set("window_reversal",
                builder.getDenseBoolArrayAttr(window.reversal));
    }
    return success();
  }
  case AttrKind::DimLabels: {
    ValueParser::ConvDimLabels labels;
    if (failed(values.parseConvDimLabels(labels)) || failed(finish(attr)))
      return failure();
    attrs.set("input_batch_dimension",
              builder.getI64IntegerAttr(labels.inputBatch));
    attrs.set("input_feature_dimension",
              builder.getI64IntegerAttr(labels.inputFeature));
    attrs.set("input_spatial_dimensions",
              builder.getDenseI64ArrayAttr(labels.inputSpatial));
    attrs.set("kernel_input_feature_dimension",
              builder.getI64IntegerAttr(labels.kernelInputFeature));
    attrs.set("kernel_output_feature_dimension",
              builder.getI64IntegerAttr(labels.kernelOutputFeature));
    attrs.set("kernel_spatial_dimensions",
              builder.getDenseI64ArrayAttr(labels.kernelSpatial));
    attrs.set("output_batch_dimension",
              builder.getI64IntegerAttr(labels.outputBatch));
    attrs.set("output_feature_dimension",
              builder.getI64IntegerAttr(labels.outputFeature));
    attrs.set("output_spatial_dimensions",
              builder.getDenseI64ArrayAttr(labels.outputSpatial));
    return success();
  }
  case AttrKind::BackendConfig:
    if (isInherent("backend_config")) {
      NamedAttrList config;
      if (failed(addCommonAttr(attr, kind, config)))
        return failure();
      attrs.set("backend_config", config.get("kiln.backend_config"));
      return success();
    }
    return addCommonAttr(attr, kind, attrs);
  case AttrKind::Metadata:
    return success(); // already the op's location
  case AttrKind::Computation:
  case AttrKind::ComputationList:
  case AttrKind::CalledComputations:
    return positions.emitError(attr.nameLoc)
           << "attribute '" << attr.name << "' is not valid on HLO '"
           << inst.opcode << "'";
  case AttrKind::Sharding:
  case AttrKind::FrontendAttributes:
    return addCommonAttr(attr, kind, attrs);
  }
  return success();
}

LogicalResult Importer::importInstruction(const Computation &computation,
                                          unsigned index,
                                          std::vector<InstructionState> &states,
                                          bool isFunction) {
  const Instruction &inst = computation.instructions[index];
  InstructionState &state = states[index];
  if (failed(parseInstructionShape(inst, state.shape)))
    return failure();
  FailureOr<Location> instLoc = getInstructionLocation(inst);
  if (failed(instLoc))
    return failure();
  Location loc = *instLoc;

  // Operands, flattened; a `%t#N` reference picks element N of a tuple.
  // Each operand is also kept as (producer, node of its shape tree) so that
  // get-tuple-element can index into it.
  llvm::SmallVector<Value, 4> operands;
  llvm::SmallVector<unsigned, 4> operandLeafCounts;
  llvm::SmallVector<std::pair<const InstructionState *, unsigned>, 4>
      operandNodes;
  for (const OperandRef &ref : inst.operands) {
    const InstructionState &producer = states[ref.producer];
    unsigned node = 0;
    if (ref.tupleIndex >= 0) {
      const ShapeNode &root = producer.shape.root();
      if (!root.isTuple || ref.tupleIndex >= (int64_t)root.children.size())
        return positions.emitError(ref.loc)
               << "'" << ref.name << "#" << ref.tupleIndex
               << "' names no element of " << ref.name << "'s shape";
      node = root.children[ref.tupleIndex];
    }
    const ShapeNode &picked = producer.shape.nodes[node];
    llvm::ArrayRef<Value> produced =
        llvm::ArrayRef<Value>(producer.values)
            .slice(picked.leafBegin, picked.leafEnd - picked.leafBegin);
    operands.append(produced.begin(), produced.end());
    operandLeafCounts.push_back(produced.size());
    operandNodes.push_back({&producer, node});
  }

  auto checkTypes = [&](llvm::ArrayRef<Value> got) -> LogicalResult {
    if (got.size() == state.shape.leaves.size() &&
        llvm::all_of(llvm::zip(got, state.shape.leaves), [](auto pair) {
          // A quantized value is declared as it is stored.
          return storedForm(std::get<0>(pair).getType()) ==
                 storedForm(std::get<1>(pair));
        }))
      return success();
    std::string gotTypes, wantTypes;
    llvm::raw_string_ostream gotOs(gotTypes), wantOs(wantTypes);
    llvm::interleaveComma(got, gotOs, [&](Value v) { gotOs << v.getType(); });
    llvm::interleaveComma(state.shape.leaves, wantOs);
    return positions.emitError(inst.loc)
           << "'" << inst.name << "' is declared as (" << wantTypes
           << ") but its " << inst.opcode << " gives (" << gotTypes << ")";
  };

  llvm::StringRef opcode = inst.opcode;
  if (opcode == "tuple") {
    state.values.assign(operands.begin(), operands.end());
    if (failed(checkTypes(state.values)))
      return failure();
    // A function's ROOT tuple keeps its attributes on the function
    // (kiln.root); any other tuple on a kiln.annotate.
    if (isFunction && &inst == &computation.instructions[computation.rootIndex])
      return success();
    NamedAttrList attrs;
    if (failed(collectKeptAttrs(inst, {}, attrs)))
      return failure();
    return annotate(inst, loc, attrs, state.values);
  }
  if (opcode == "get-tuple-element") {
    const AttrRef *indexAttr = inst.findAttr("index");
    if (!indexAttr)
      return positions.emitError(inst.opcodeLoc)
             << "get-tuple-element '" << inst.name << "' needs 'index='";
    if (inst.operands.size() != 1)
      return positions.emitError(inst.opcodeLoc)
             << "get-tuple-element takes 1 operand, found "
             << inst.operands.size();
    seek(*indexAttr);
    int64_t index;
    if (failed(values.parseInt(index)) || failed(finish(*indexAttr)))
      return failure();
    const Shape &tuple = operandNodes[0].first->shape;
    const ShapeNode &node = tuple.nodes[operandNodes[0].second];
    if (!node.isTuple || index < 0 || index >= (int64_t)node.children.size()) {
      const OperandRef &ref = inst.operands[0];
      std::string operand = ref.name.str();
      if (ref.tupleIndex >= 0)
        operand += "#" + std::to_string(ref.tupleIndex);
      if (!node.isTuple)
        return positions.emitError(ref.loc)
               << "get-tuple-element needs a tuple operand, but '" << operand
               << "' is an array";
      return positions.emitError(indexAttr->valueBegin)
             << "index " << index << " is out of range for operand '" << operand
             << "' with " << node.children.size() << " tuple elements";
    }
    const ShapeNode &element = tuple.nodes[node.children[index]];
    // `operands` holds the leaves of `node`; the element is a sub-range.
    state.values.assign(operands.begin() + (element.leafBegin - node.leafBegin),
                        operands.begin() + (element.leafEnd - node.leafBegin));
    if (failed(checkTypes(state.values)))
      return failure();
    keepElementLocation(inst, state.values);
    NamedAttrList attrs;
    if (failed(collectKeptAttrs(inst, {"index"}, attrs)))
      return failure();
    return annotate(inst, loc, attrs, state.values);
  }
  if (opcode == "constant") {
    // A tuple constant becomes one constant per leaf (tuples are
    // flattened); a token constant, a fresh token (after_all of nothing).
    llvm::SmallVector<ValueParser::LiteralLeaf, 1> leaves;
    if (failed(parseConstantLeaves(inst, state.shape, leaves)))
      return failure();
    NamedAttrList extra;
    if (failed(collectKeptAttrs(inst, {}, extra)))
      return failure();
    for (auto [leaf, type, layout] :
         llvm::zip_equal(leaves, state.shape.leaves, state.shape.layouts)) {
      Operation *op;
      if (isa<TokenType>(type))
        op = AfterAllOp::create(builder, loc, type, ValueRange())
                 .getOperation();
      else if (leaf.elided)
        op = ElidedConstantOp::create(builder, loc, type).getOperation();
      else
        op = ConstantOp::create(builder, loc, leaf.value).getOperation();
      if (!extra.empty())
        op->setDiscardableAttrs(extra.getDictionary(context));
      if (layout)
        op->setAttr("kiln.layout", builder.getArrayAttr({layout}));
      state.values.push_back(op->getResult(0));
    }
    return success();
  }
  if (opcode == "call") {
    const AttrRef *toApply = inst.findAttr("to_apply");
    if (!toApply)
      return positions.emitError(inst.opcodeLoc)
             << "call '" << inst.name << "' needs 'to_apply='";
    FailureOr<unsigned> callee = lookupComputation(*toApply);
    if (failed(callee))
      return failure();
    FailureOr<func::FuncOp> function =
        getOrImportFunction(*callee, toApply->valueBegin);
    if (failed(function))
      return failure();
    FunctionType type = function->getFunctionType();
    if (TypeRange(ValueRange(operands)) != type.getInputs())
      return positions.emitError(inst.opcodeLoc)
             << "call '" << inst.name << "' passes " << operands.size()
             << " values that do not match the parameters of '"
             << function->getSymName() << "' " << type;
    auto call = func::CallOp::create(builder, loc, *function, operands);
    NamedAttrList extra;
    if (failed(collectKeptAttrs(inst, {"to_apply"}, extra)))
      return failure();
    for (NamedAttribute attr : extra)
      call->setAttr(attr.getName(), attr.getValue());
    setShapeAttrs(call, state.shape);
    state.values.assign(call.getResults().begin(), call.getResults().end());
    return checkTypes(state.values);
  }
  if (opcode == "copy" && state.shape.isTuple()) {
    // A tuple copy copies each leaf.
    for (Value value : operands) {
      if (isa<TokenType>(value.getType())) {
        state.values.push_back(value);
        continue;
      }
      state.values.push_back(
          CopyOp::create(builder, loc, value.getType(), value));
    }
    return checkTypes(state.values);
  }
  // Operands that are tuples, and their structure, so that the exporter can
  // pass them whole again (async-done, send-done, outfeed, ...); while and
  // conditional pack their operands themselves.
  llvm::SmallVector<std::string, 4> operandTuples;
  bool anyTupleOperand = llvm::any_of(operandNodes, [](auto operand) {
    return operand.first->shape.nodes[operand.second].isTuple;
  });
  if (anyTupleOperand && opcode != "while" && opcode != "conditional")
    for (auto [producer, node] : operandNodes)
      operandTuples.push_back(describeTupleStructure(producer->shape, node));
  return importGeneric(inst, loc, operands, operandLeafCounts, operandTuples,
                       state);
}

void Importer::keepElementLocation(const Instruction &inst,
                                   llvm::ArrayRef<Value> values) {
  const AttrRef *metadata = inst.findAttr("metadata");
  if (!metadata || values.size() != 1)
    return;
  auto result = dyn_cast<OpResult>(values[0]);
  if (!result)
    return;
  Operation *producer = result.getOwner();
  if (producer->getNumResults() == 1 &&
      !producer->hasAttr("kiln.result_tuple"))
    return;
  FailureOr<Location> meta = getMetadataLocation(*metadata);
  if (failed(meta) || isa<UnknownLoc>(*meta))
    return;
  // The producer's location, fused[position, metadata] (builtin form of
  // its one instruction location), carries one location per result as its
  // fused metadata.
  Location producerLoc = producer->getLoc();
  if (auto instruction = dyn_cast<HloInstructionLoc>(producerLoc))
    producerLoc = instruction.toBuiltin();
  llvm::SmallVector<Location, 2> parts;
  ArrayAttr kept;
  if (auto fused = dyn_cast<FusedLoc>(producerLoc)) {
    parts.assign(fused.getLocations().begin(), fused.getLocations().end());
    kept = dyn_cast_or_null<ArrayAttr>(fused.getMetadata());
  } else {
    parts.push_back(producerLoc);
  }
  llvm::SmallVector<Attribute> locations;
  if (kept)
    locations.assign(kept.begin(), kept.end());
  locations.resize(producer->getNumResults(), UnknownLoc::get(context));
  // The first get-tuple-element of a result speaks for it.
  auto current = dyn_cast<LocationAttr>(locations[result.getResultNumber()]);
  if (current && !isa<UnknownLoc>(current))
    return;
  locations[result.getResultNumber()] = LocationAttr(*meta);
  producer->setLoc(
      FusedLoc::get(parts, builder.getArrayAttr(locations), context));
}

void Importer::setShapeAttrs(Operation *op, const Shape &shape) {
  if (shape.hasNonDefaultLayout()) {
    llvm::SmallVector<Attribute> layouts;
    for (StringAttr layout : shape.layouts)
      layouts.push_back(layout ? layout : builder.getStringAttr(""));
    op->setAttr("kiln.layout", builder.getArrayAttr(layouts));
  }
  // A result that is a nested tuple, or a tuple of one element, is not what
  // the flat list of results says: the structure is kept for the exporter.
  if (shape.isTuple() && !shape.isFlatTuple())
    op->setAttr("kiln.result_tuple",
                builder.getStringAttr(describeTupleStructure(shape)));
}

LogicalResult Importer::importGeneric(
    const Instruction &inst, Location loc, llvm::ArrayRef<Value> operands,
    llvm::ArrayRef<unsigned> operandLeafCounts,
    llvm::ArrayRef<std::string> operandTuples, InstructionState &state) {
  KnownOpcode &known = knownOpcodes[inst.opcode];
  if (known.kilnName.empty())
    known.kilnName = kilnOpNameForHloOpcode(inst.opcode);
  llvm::StringRef kilnName = known.kilnName;
  // A custom call that names one of kiln's own ops (a CHLO function, a
  // quantization, a check) is that op, as the exporter wrote it.
  std::string target;
  const AttrRef *targetAttr = inst.opcode == "custom-call"
                                  ? inst.findAttr("custom_call_target")
                                  : nullptr;
  if (targetAttr) {
    llvm::StringRef quoted = targetAttr->valueText();
    if (quoted.size() >= 2 && quoted.starts_with("\""))
      target = unescapeString(quoted);
    if (isKilnOpWithoutHloOpcode(target))
      kilnName = target;
    else
      targetAttr = nullptr;
  } else {
    targetAttr = nullptr;
  }
  bool isKilnOnly = targetAttr != nullptr;
  if (kilnName.empty())
    return positions.emitError(inst.opcodeLoc)
           << "unknown HLO opcode '" << inst.opcode << "'";
  // A kiln-only op's name is in `target`, which does not outlive this call;
  // the names of HLO opcodes are static.
  OperationName opName = [&] {
    if (isKilnOnly)
      return OperationName(kilnName, context);
    if (!known.operationName)
      known.operationName =
          OperationName(kilnName, context).getAsOpaquePointer();
    return OperationName::getFromOpaquePointer(known.operationName);
  }();
  OperationState opState(loc, opName);
  opState.addOperands(operands);
  opState.addTypes(state.shape.leaves);

  NamedAttrList attrs;
  llvm::SmallVector<std::pair<const AttrRef *, unsigned>, 2> regionRefs;
  llvm::StringRef opcode = inst.opcode;
  for (const AttrRef &attr : inst.attrs) {
    if (isKilnOnly && attr.name == "custom_call_target")
      continue;
    if (isKilnOnly && attr.name == "backend_config") {
      // The op's own attributes, as MLIR writes a dictionary.
      llvm::StringRef quoted = attr.valueText();
      std::string config = quoted.starts_with("\"") && quoted.size() >= 2
                               ? unescapeString(quoted)
                               : quoted.str();
      Attribute parsed;
      {
        ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {
          return success();
        });
        size_t read = 0;
        parsed = mlir::parseAttribute(config, context, Type(), &read);
        if (parsed && read != config.size())
          parsed = nullptr;
      }
      auto dict = dyn_cast_or_null<DictionaryAttr>(parsed);
      if (!dict)
        return positions.emitError(attr.nameLoc)
               << "backend_config of a custom call to '" << kilnName
               << "' must be its attributes as an MLIR dictionary, found \""
               << config << "\"";
      for (NamedAttribute entry : dict)
        attrs.set(entry.getName(), entry.getValue());
      continue;
    }
    auto found = getAttrKinds().find(attr.name);
    if (found == getAttrKinds().end()) {
      attrs.set(("kiln." + attr.name).str(),
                builder.getStringAttr(canonicalizeText(attr.valueText())));
      continue;
    }
    AttrKind kind = found->second;
    if (kind == AttrKind::CalledComputations) {
      // Computations a custom call may run (`called_computations={...}`):
      // private functions, referenced by symbol and hashed by content.
      FailureOr<ArrayAttr> callees = importCalledComputations(attr);
      if (failed(callees))
        return failure();
      attrs.set("kiln.called_computations", *callees);
      continue;
    }
    if (kind == AttrKind::Computation || kind == AttrKind::ComputationList) {
      // Which region each computation becomes.
      int regionIndex = -1;
      if (attr.name == "to_apply" &&
          (opcode == "reduce" || opcode == "reduce-window" ||
           opcode == "sort" || opcode == "scatter" || opcode == "all-reduce" ||
           opcode == "reduce-scatter" || opcode == "all-reduce-start" ||
           opcode == "map"))
        regionIndex = 0;
      else if (attr.name == "calls" &&
               (opcode == "fusion" || opcode == "async-start"))
        regionIndex = 0;
      else if (opcode == "select-and-scatter" && attr.name == "select")
        regionIndex = 0;
      else if (opcode == "select-and-scatter" && attr.name == "scatter")
        regionIndex = 1;
      else if (opcode == "while" && attr.name == "condition")
        regionIndex = 0;
      else if (opcode == "while" && attr.name == "body")
        regionIndex = 1;
      else if (opcode == "conditional" && attr.name == "true_computation")
        regionIndex = 0;
      else if (opcode == "conditional" && attr.name == "false_computation")
        regionIndex = 1;
      else if (opcode == "conditional" && attr.name == "branch_computations")
        regionIndex = 0;
      if (regionIndex < 0)
        return positions.emitError(attr.nameLoc)
               << "attribute '" << attr.name << "' is not valid on HLO '"
               << opcode << "'";
      regionRefs.push_back({&attr, (unsigned)regionIndex});
      continue;
    }
    if (failed(convertAttrOnce(inst, attr, kind, opName, attrs)))
      return failure();
  }

  // Regions, in order.
  llvm::SmallVector<std::pair<unsigned, const char *>, 2> regionComputations;
  for (auto &[attr, regionIndex] : regionRefs) {
    if (attr->name == "branch_computations") {
      auto branches = lookupComputationList(*attr);
      if (failed(branches))
        return failure();
      regionComputations.append(branches->begin(), branches->end());
      continue;
    }
    FailureOr<unsigned> index = lookupComputation(*attr);
    if (failed(index))
      return failure();
    if (regionComputations.size() <= regionIndex)
      regionComputations.resize(regionIndex + 1, {~0u, nullptr});
    regionComputations[regionIndex] = {*index, attr->valueBegin};
  }
  for (auto &[index, useLoc] : regionComputations) {
    Region *region = opState.addRegion();
    if (index == ~0u)
      continue; // reported by the verifier as a missing region body
    if (failed(importRegion(index, *region, useLoc)))
      return failure();
  }

  if ((opcode == "all-reduce" || opcode == "all-gather" ||
       opcode == "reduce-scatter" || opcode == "all-to-all" ||
       opcode == "all-reduce-start" || opcode == "all-gather-start" ||
       opcode == "collective-broadcast" || opcode == "ragged-all-to-all") &&
      !attrs.get("replica_groups")) {
    // No replica_groups means one group of all participants.
    attrs.set("replica_groups",
              DenseIntElementsAttr::get(
                  RankedTensorType::get({0, 0}, builder.getI64Type()),
                  llvm::ArrayRef<int64_t>()));
  }
  if (opcode == "conditional") {
    // The first operand selects the branch; each branch takes the next
    // operand (flattened).
    if (operandLeafCounts.empty())
      return positions.emitError(inst.opcodeLoc)
             << "conditional needs a branch index operand";
    attrs.set("branch_operand_counts",
              builder.getDenseI64ArrayAttr(
                  llvm::to_vector_of<int64_t>(operandLeafCounts.drop_front())));
  }
  if (!operandTuples.empty()) {
    llvm::SmallVector<Attribute> structures;
    for (const std::string &structure : operandTuples)
      structures.push_back(builder.getStringAttr(structure));
    attrs.set("kiln.operand_tuples", builder.getArrayAttr(structures));
  }
  if (opcode == "convolution" && !attrs.get("input_batch_dimension"))
    return positions.emitError(inst.opcodeLoc)
           << "convolution '" << inst.name
           << "' needs 'dim_labels=' (e.g. b01f_01io->b01f)";
  if (failed(takeKilnTypes(inst, attrs, state.shape.leaves)))
    return failure();
  opState.types.assign(state.shape.leaves.begin(), state.shape.leaves.end());
  opState.addAttributes(attrs);

  Operation *op = builder.create(opState);
  setShapeAttrs(op, state.shape);
  if (failed(verifyOnce(op, opState.attributes.getDictionary(context))))
    return failure();
  state.values.assign(op->getResults().begin(), op->getResults().end());
  return success();
}

LogicalResult Importer::verifyOnce(Operation *op, DictionaryAttr attributes) {
  if (op->getNumRegions() != 0 || op->getNumSuccessors() != 0 ||
      op->hasTrait<OpTrait::IsTerminator>() || isa<AnnotateOp, AsyncDoneOp>(op))
    return mlir::verify(op, /*verifyRecursively=*/false);
  // The op's identity as its verifier sees it, as the bytes of uniqued
  // pointers: its name, its parent's, its attributes (those it was built
  // with, then those added since), its operand and result types.
  llvm::SmallVector<const void *, 16> key;
  Operation *parent = op->getParentOp();
  key.push_back(op->getName().getAsOpaquePointer());
  key.push_back(parent ? parent->getName().getAsOpaquePointer() : nullptr);
  key.push_back(attributes.getAsOpaquePointer());
  key.push_back(op->getDiscardableAttrDictionary().getAsOpaquePointer());
  for (Type type : op->getOperandTypes())
    key.push_back(type.getAsOpaquePointer());
  key.push_back(nullptr);
  for (Type type : op->getResultTypes())
    key.push_back(type.getAsOpaquePointer());
  llvm::StringRef bytes(reinterpret_cast<const char *>(key.data()),
                        key.size() * sizeof(const void *));
  if (verifiedOps.contains(bytes))
    return success();
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    return failure();
  verifiedOps.insert(bytes);
  return success();
}

OwningOpRef<ModuleOp> kiln::importHloText(llvm::SourceMgr &sourceMgr,
                                          MLIRContext *context) {
  // Quantized types come back through the `kiln_types` frontend attribute.
  context->loadDialect<KilnDialect, func::FuncDialect, quant::QuantDialect,
                       HloLocationDialect>();
  unsigned bufferId = sourceMgr.getMainFileID();
  llvm::StringRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  SourcePositions positions(sourceMgr, bufferId, context);
  ModuleText text;
  if (failed(parseModuleText(buffer, positions, text)))
    return nullptr;
  Importer importer(text, positions, buffer);
  OwningOpRef<ModuleOp> module = importer.import();
  if (!module)
    return nullptr;
  // Every kiln op was verified as it was built (see importGeneric); what is
  // left is the module's own invariants, and the functions' (their regions'
  // included: nothing uses a value from outside) and their returns'. What
  // else mlir::verify checks, each function's dominance and the module's
  // symbol table, walks every op once more (4% of the import's
  // instructions) for what holds by construction: each body is built in
  // topological order from values already built, computation names are
  // unique (checked as the text is read), and every call is built from the
  // function it calls, its operand and result types checked.
  auto verifyOwnInvariants = [](Operation *op) {
    return op->getName().verifyInvariants(op);
  };
  if (failed(verifyOwnInvariants(*module)))
    return nullptr;
  for (auto function : module->getOps<func::FuncOp>())
    if (failed(verifyOwnInvariants(function)) ||
        failed(function->getName().verifyRegionInvariants(function)) ||
        failed(verifyOwnInvariants(function.getBody().front().getTerminator())))
      return nullptr;
  return module;
}

std::string kiln::canonicalizeHloText(llvm::StringRef text) {
  return hlo::canonicalizeText(text);
}

void kiln::registerImportHloTranslation() {
  TranslateToMLIRRegistration registration(
      "import-hlo", "import XLA HLO text into the kiln dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        // Bounded quoting of pathological input (InputDiagnostics.h); the
        // rest goes to the driver's handler, -verify-diagnostics included.
        InputDiagnosticHandler bounded(sourceMgr, context, llvm::errs(),
                                       /*passOn=*/true);
        OwningOpRef<ModuleOp> module = importHloText(sourceMgr, context);
        // Printed as MLIR prints locations (see HloLocation.h).
        if (module)
          useBuiltinLocations(*module);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        registry.insert<KilnDialect, func::FuncDialect, quant::QuantDialect,
                        HloLocationDialect>();
      });
}
