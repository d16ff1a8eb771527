//===- Signature.cpp - canonical structural signature of a graph -*- C++
//-*-===//
//
// This file implements the signature walk. Each op is encoded into a small
// byte buffer (name, result types, operands by position, attributes sorted
// by name, region structure); the buffer feeds both the streaming XXH3-128
// of the whole graph and the op's own 64-bit sketch entry. Functions are
// hashed once each and calls are encoded by the callee's signature, so the
// order and names of computations in the dump never matter.
//
//===----------------------------------------------------------------------===//

#include "kiln/Signature/Signature.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

#include <queue>
#include <tuple>

using namespace mlir;
using namespace kiln;

/// Everything the signature leaves out, in one place. Each of these changes
/// when a user edits code around a training step without changing the
/// computation, and would otherwise force a recompilation that takes hours.
static const std::pair<llvm::StringRef, llvm::StringRef> kExclusions[] = {
    {"locations (HLO metadata: op_name, source_file, source_line, stack "
     "frames)",
     "an edited comment or an added import shifts every source line"},
    {"SSA value names and HLO instruction names and ids",
     "operands are hashed by the position of their producer instead"},
    {"function (computation) names",
     "a call is hashed by its callee's own signature"},
    {"the module name",
     "frameworks number it (jit_train_step.123) per process"},
    {"JAX's jax.uses_shape_polymorphism module attribute",
     "it says how JAX traced the function; the module's shapes are what is "
     "computed"},
    {"the order of computations in the dump",
     "functions are reached through calls from the entry"},
    {"computations that the entry never reaches", "dead code is not compiled"},
    {"instructions that nothing the computation returns depends on (dead "
     "code), unless they have side effects",
     "a dump may carry them; they are not compiled"},
    {"the order of independent instructions",
     "ops are hashed in a canonical topological order, ties broken by "
     "their content; ops with side effects keep their relative order"},
    {"control-predecessors (ordering constraints between instructions)",
     "they name instructions; they order side effects for the scheduler "
     "and do not change any value"},
    {"the names JAX gives parameters and results (jax.arg_info, "
     "jax.result_info)",
     "they name Python values; renaming an output changes nothing "
     "computed"},
    {"function visibility and the function type attribute",
     "the entry is the only public function; argument and result types are "
     "hashed from the body"},
};

llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>>
kiln::getSignatureExclusions() {
  return kExclusions;
}

namespace {

/// Inherent attributes of builtin and func ops that carry only names.
bool isExcludedAttribute(Operation *op, llvm::StringRef name) {
  if (name == "kiln.control-predecessors")
    return true;
  // Hashed by the callees' signatures instead of their names.
  if (name == "kiln.called_computations")
    return true;
  if (op->getName().getStringRef() == "kiln.run_parallel" &&
      (name == "programs" || name == "infeed"))
    return true;
  if (isa<func::FuncOp>(op))
    return name == "sym_name" || name == "sym_visibility" ||
           name == "function_type" || name == "arg_attrs" ||
           name == "res_attrs";
  if (isa<func::CallOp>(op))
    return name == "callee";
  return false;
}

/// The attributes of `op`, inherent and discardable, in no particular
/// order: what `op.getAttrs()` holds, without building it. For an op whose
/// inherent attributes are properties, getAttrs() interns each name and
/// uniques a new dictionary in the context, a seventh of the signature's
/// time; here each is read from the properties by its registered name.
void collectAttributes(Operation &op,
                       llvm::SmallVectorImpl<NamedAttribute> &attrs) {
  std::optional<RegisteredOperationName> info = op.getRegisteredInfo();
  if (!info || op.getPropertiesStorageSize() == 0) {
    attrs.append(op.getAttrs().begin(), op.getAttrs().end());
    return;
  }
  for (StringAttr name : info->getAttributeNames()) {
    std::optional<Attribute> value =
        info->getInherentAttr(&op, name.getValue());
    if (value && *value)
      attrs.emplace_back(name, *value);
  }
  for (NamedAttribute attr : op.getDiscardableAttrs())
    attrs.push_back(attr);
}

class SignatureWalker {
public:
  SignatureWalker(ModuleOp module, bool keepOps)
      : module(module), symbols(module), keepOps(keepOps) {}

  FailureOr<GraphSignature> run();

private:
  struct FunctionHash {
    Hash128 hash;
    bool inProgress = false;
  };

  FailureOr<Hash128> hashFunction(func::FuncOp function);
  /// An op in a block's canonical order, with what hashBlock found that
  /// encodeOp needs: carried along, not looked up again (a cache miss an
  /// op in a map of every op of the graph).
  struct OrderedOp {
    Operation *op;
    Hash128 content;
    uint64_t fingerprint;
  };
  LogicalResult encodeOp(const OrderedOp &ordered, XXH3_state_t *state);
  /// Computes the structural hash of every op of `block` (and of the blocks
  /// nested in them): a Merkle hash of the op's content and its operands'
  /// producers, independent of positions and names. Returns the block's
  /// hash: its terminator's and its side-effecting ops'.
  FailureOr<uint64_t> hashBlock(Block &block);
  /// The live ops of `block` (those the terminator depends on, and those
  /// with side effects) in a canonical topological order: among the ops
  /// ready at each step, the smallest coarse hash first, then structural
  /// hash; ops with side effects keep their order; the terminator last.
  FailureOr<llvm::SmallVector<OrderedOp>> canonicalOrder(Block &block);
  /// Callee signatures of a call or a custom call's called computations.
  FailureOr<llvm::SmallVector<Hash128, 1>> hashCallees(Operation *op);
  void encodeAttribute(Attribute attr);
  void encodeType(Type type);
  void putU64(uint64_t value) {
    buffer.append(reinterpret_cast<const char *>(&value),
                  reinterpret_cast<const char *>(&value) + sizeof(value));
  }
  void putBytes(llvm::StringRef bytes) {
    putU64(bytes.size());
    buffer.append(bytes.begin(), bytes.end());
  }
  void putTag(char tag) { buffer.push_back(tag); }

  ModuleOp module;
  /// Built once: a callee lookup per call must not scan the module.
  SymbolTable symbols;
  bool keepOps;
  GraphSignature result;
  /// The op being encoded; reused to avoid allocations.
  llvm::SmallVector<char, 512> buffer;
  llvm::DenseMap<Operation *, FunctionHash> functionHashes;
  /// Each function's own sketch entries and ops.
  llvm::DenseMap<Operation *,
                 std::pair<std::vector<uint64_t>, std::vector<Operation *>>>
      sketches;
  /// Functions in order of first call (the entry first): the sketch order.
  llvm::SmallVector<Operation *> order;
  /// Value numbering inside the function being hashed.
  llvm::DenseMap<Value, uint64_t> valueIds;
  /// Printed types, stable across processes, computed once per type.
  llvm::DenseMap<Type, std::string> typeText;
  /// While a fingerprint is encoded: types by rank and element type.
  bool shapeFree = false;
  /// What hashBlock finds out about each op.
  struct OpHashes {
    /// Merkle hash of the op, its operands' producers and its regions.
    uint64_t structural = 0;
    /// Coarser: only names, result types and the operands' producers. The
    /// first key of the canonical order, so that a change of an attribute
    /// or inside a callee or region does not reorder the ops around it, and
    /// `kiln diff` names that op.
    uint64_t coarse = 0;
    /// XXH3-128 of the op's own content, which encodeOp uses.
    Hash128 content;
    /// The op's sketch entry: its content with ranks in place of shapes,
    /// and without its operands, so that the same model at another shape
    /// has the same fingerprints and similar graphs share most of them.
    uint64_t fingerprint = 0;
    bool sideEffects = false;
  };
  llvm::DenseMap<Operation *, OpHashes> opHashes;
};

} // namespace

/// Whether an op itself (its nested ops aside) must stay even when nothing
/// uses its results, and keep its place among the others that must:
/// collectives, transfers, rng state, custom calls marked so, and anything
/// MLIR cannot prove free of effects. An op with RecursiveMemoryEffects also
/// has the effects of its nested ops (hashBlock adds them).
bool kiln::hasOwnSideEffects(Operation *op) {
  if (auto customCall = dyn_cast<CustomCallOp>(op))
    return customCall.getCustomCallHasSideEffect();
  if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
          CollectivePermuteOp, CollectiveBroadcastOp, RaggedAllToAllOp,
          AllReduceStartOp, AllReduceDoneOp, AllGatherStartOp, AllGatherDoneOp,
          CollectivePermuteStartOp, CollectivePermuteDoneOp, SendOp, SendDoneOp,
          RecvOp, RecvDoneOp, InfeedOp, OutfeedOp, AsyncStartOp, AsyncUpdateOp,
          AsyncDoneOp, RngOp, RngGetAndUpdateStateOp>(op))
    return true;
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || !effects.hasNoEffect();
}

void SignatureWalker::encodeType(Type type) {
  if (shapeFree) {
    // Rank and element type: a graph at another batch or sequence length
    // keeps its fingerprints.
    if (auto shaped = dyn_cast<ShapedType>(type)) {
      putU64(shaped.hasRank() ? shaped.getRank() : ~0ull);
      type = shaped.getElementType();
    }
  }
  auto it = typeText.find(type);
  if (it == typeText.end()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    it = typeText.try_emplace(type, std::move(text)).first;
  }
  putBytes(it->second);
}

void SignatureWalker::encodeAttribute(Attribute attr) {
  // Attributes are hashed by content, never by their uniqued pointer, so
  // that the signature is the same in every process.
  if (auto text = dyn_cast<StringAttr>(attr)) {
    putTag('s');
    putBytes(text.getValue());
  } else if (auto boolean = dyn_cast<BoolAttr>(attr)) {
    putTag('b');
    putU64(boolean.getValue());
  } else if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    putTag('i');
    encodeType(integer.getType());
    const llvm::APInt &value = integer.getValue();
    putU64(value.getBitWidth());
    for (unsigned i = 0; i < value.getNumWords(); ++i)
      putU64(value.getRawData()[i]);
  } else if (auto floating = dyn_cast<FloatAttr>(attr)) {
    putTag('f');
    encodeType(floating.getType());
    llvm::APInt bits = floating.getValue().bitcastToAPInt();
    for (unsigned i = 0; i < bits.getNumWords(); ++i)
      putU64(bits.getRawData()[i]);
  } else if (auto array = dyn_cast<DenseI64ArrayAttr>(attr)) {
    putTag('a');
    putU64(array.size());
    for (int64_t value : array.asArrayRef())
      putU64(value);
  } else if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr)) {
    putTag('d');
    encodeType(dense.getType());
    // Without elements there is no value: `dense<>` and a splat are alike.
    if (dense.getNumElements() != 0) {
      putU64(dense.isSplat());
      // A fingerprint sees a splat's value, not the values of a constant
      // whose shape may change with the batch.
      if (!shapeFree || dense.isSplat())
        putBytes(llvm::StringRef(dense.getRawData().data(),
                                 dense.getRawData().size()));
    }
  } else if (auto list = dyn_cast<ArrayAttr>(attr)) {
    putTag('A');
    putU64(list.size());
    for (Attribute element : list)
      encodeAttribute(element);
  } else if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    putTag('D');
    putU64(dict.size());
    for (NamedAttribute entry : dict) { // sorted by name
      putBytes(entry.getName().getValue());
      encodeAttribute(entry.getValue());
    }
  } else if (auto typeAttr = dyn_cast<TypeAttr>(attr)) {
    putTag('t');
    encodeType(typeAttr.getValue());
  } else if (isa<UnitAttr>(attr)) {
    putTag('u');
  } else {
    // Anything else: its printed form, which is stable.
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    putTag('p');
    putBytes(text);
  }
}

LogicalResult SignatureWalker::encodeOp(const OrderedOp &ordered,
                                        XXH3_state_t *state) {
  // The op's own content (name, result types, attributes, callees) was
  // hashed once by hashBlock; here it joins the operands' positions.
  Operation *op = ordered.op;
  buffer.clear();
  putU64(ordered.content.high);
  putU64(ordered.content.low);
  putU64(op->getNumOperands());
  for (Value operand : op->getOperands()) {
    auto it = valueIds.find(operand);
    putU64(it == valueIds.end() ? ~0ull : it->second);
  }
  if (isa<ElidedConstantOp>(op))
    ++result.elidedConstants;
  putU64(op->getNumRegions());
  for (Region &region : op->getRegions()) {
    putU64(region.getBlocks().size());
    for (Block &block : region) {
      putU64(block.getNumArguments());
      for (BlockArgument arg : block.getArguments()) {
        encodeType(arg.getType());
        valueIds.try_emplace(arg, valueIds.size());
      }
    }
  }
  for (Value resultValue : op->getResults())
    valueIds.try_emplace(resultValue, valueIds.size());

  XXH3_128bits_update(state, buffer.data(), buffer.size());
  result.sketch.push_back(ordered.fingerprint);
  if (keepOps)
    result.sketchOps.push_back(op);

  // Nested ops follow their parent, in their block's canonical order.
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      FailureOr<llvm::SmallVector<OrderedOp>> nested = canonicalOrder(block);
      if (failed(nested))
        return failure();
      for (const OrderedOp &inner : *nested)
        if (failed(encodeOp(inner, state)))
          return failure();
    }
  return success();
}

FailureOr<llvm::SmallVector<Hash128, 1>>
SignatureWalker::hashCallees(Operation *op) {
  llvm::SmallVector<FlatSymbolRefAttr, 1> calleeRefs;
  if (auto call = dyn_cast<func::CallOp>(op))
    calleeRefs.push_back(call.getCalleeAttr());
  if (auto called = op->getAttrOfType<ArrayAttr>("kiln.called_computations"))
    for (Attribute ref : called)
      if (auto symbol = dyn_cast<FlatSymbolRefAttr>(ref))
        calleeRefs.push_back(symbol);
  // The harness's programs, row by row; the grid's shape is hashed too.
  std::optional<std::pair<uint64_t, uint64_t>> grid;
  if (op->getName().getStringRef() == "kiln.run_parallel")
    if (auto rows = op->getAttrOfType<ArrayAttr>("programs")) {
      for (Attribute row : rows)
        if (auto programs = dyn_cast<ArrayAttr>(row))
          for (Attribute ref : programs)
            if (auto symbol = dyn_cast<FlatSymbolRefAttr>(ref))
              calleeRefs.push_back(symbol);
      auto first = rows.empty() ? ArrayAttr() : dyn_cast<ArrayAttr>(rows[0]);
      uint64_t columns = first ? first.size() : 0;
      grid = std::make_pair((uint64_t)rows.size(), columns);
      // The infeed queues after the programs, in order.
      if (auto queues = op->getAttrOfType<ArrayAttr>("infeed"))
        for (Attribute ref : queues)
          if (auto symbol = dyn_cast<FlatSymbolRefAttr>(ref))
            calleeRefs.push_back(symbol);
    }
  llvm::SmallVector<Hash128, 1> calleeHashes;
  if (grid)
    calleeHashes.push_back(Hash128{grid->first, grid->second});
  // How many of the callees are infeed queues, so that a program and a
  // queue are never taken for one another.
  if (auto queues = op->getAttrOfType<ArrayAttr>("infeed"))
    calleeHashes.push_back(Hash128{queues.size(), 0x696e66656564});
  for (FlatSymbolRefAttr ref : calleeRefs) {
    auto callee = symbols.lookup<func::FuncOp>(ref.getValue());
    if (!callee)
      return op->emitError("reference to unknown function ") << ref;
    FailureOr<Hash128> hash = hashFunction(callee);
    if (failed(hash))
      return failure();
    calleeHashes.push_back(*hash);
  }
  return calleeHashes;
}

FailureOr<uint64_t> SignatureWalker::hashBlock(Block &block) {
  // Program order is a topological order within a block, so each op's
  // producers are hashed before it; nesting recurses only as deep as
  // regions nest (bounded at import).
  uint64_t chain = 0; // the last op with side effects
  for (Operation &op : block) {
    llvm::SmallVector<uint64_t, 4> regionHashes;
    bool nestedEffects = false;
    for (Region &region : op.getRegions())
      for (Block &nested : region) {
        FailureOr<uint64_t> hash = hashBlock(nested);
        if (failed(hash))
          return failure();
        regionHashes.push_back(*hash);
        for (Operation &inner : nested)
          nestedEffects |= opHashes.lookup(&inner).sideEffects;
      }
    FailureOr<llvm::SmallVector<Hash128, 1>> callees = hashCallees(&op);
    if (failed(callees))
      return failure();
    // The buffer is free here: hashBlock runs before a function's ops, or
    // after their parent op's bytes were consumed.
    // The op's content: everything but its operands and regions' ops.
    buffer.clear();
    putBytes(op.getName().getStringRef());
    putU64(op.getNumResults());
    for (Type type : op.getResultTypes())
      encodeType(type);
    // Name and result types alone start the coarse hash.
    uint64_t kind = XXH3_64bits(buffer.data(), buffer.size());
    // Attributes in name order; inherent and discardable alike (sharding,
    // layouts and frontend attributes change what is compiled).
    llvm::SmallVector<NamedAttribute, 8> attrs;
    collectAttributes(op, attrs);
    llvm::sort(attrs, [](NamedAttribute a, NamedAttribute b) {
      return a.getName().getValue() < b.getName().getValue();
    });
    for (NamedAttribute attr : attrs) {
      if (isExcludedAttribute(&op, attr.getName().getValue()))
        continue;
      putBytes(attr.getName().getValue());
      encodeAttribute(attr.getValue());
    }
    for (const Hash128 &callee : *callees) {
      putTag('c');
      putU64(callee.high);
      putU64(callee.low);
    }
    OpHashes hashes;
    XXH128_hash_t content = XXH3_128bits(buffer.data(), buffer.size());
    hashes.content = Hash128{content.high64, content.low64};
    buffer.clear();
    shapeFree = true;
    putBytes(op.getName().getStringRef());
    putU64(op.getNumResults());
    for (Type type : op.getResultTypes())
      encodeType(type);
    for (NamedAttribute attr : attrs) {
      if (isExcludedAttribute(&op, attr.getName().getValue()))
        continue;
      putBytes(attr.getName().getValue());
      encodeAttribute(attr.getValue());
    }
    shapeFree = false;
    hashes.fingerprint = XXH3_64bits(buffer.data(), buffer.size());
    hashes.sideEffects =
        hasOwnSideEffects(&op) ||
        (nestedEffects && op.hasTrait<OpTrait::HasRecursiveMemoryEffects>());

    // The structural hash: content, operands' producers, regions, and for
    // an op with side effects the one before it.
    buffer.clear();
    putU64(content.high64);
    putU64(content.low64);
    llvm::SmallVector<uint64_t, 8> coarse = {kind};
    for (Value operand : op.getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        putTag('a');
        putU64(arg.getArgNumber());
        coarse.push_back(arg.getArgNumber());
      } else {
        auto result = cast<OpResult>(operand);
        const OpHashes &producer = opHashes[result.getOwner()];
        putU64(producer.structural);
        putU64(result.getResultNumber());
        coarse.push_back(producer.coarse + result.getResultNumber());
      }
    }
    for (uint64_t hash : regionHashes)
      putU64(hash);
    if (hashes.sideEffects)
      putU64(chain);
    hashes.structural = XXH3_64bits(buffer.data(), buffer.size());
    hashes.coarse =
        XXH3_64bits(coarse.data(), coarse.size() * sizeof(uint64_t));
    if (hashes.sideEffects)
      chain = hashes.structural;
    opHashes[&op] = hashes;
  }
  uint64_t terminator =
      block.empty() ? 0 : opHashes.lookup(&block.back()).structural;
  uint64_t pair[2] = {terminator, chain};
  return XXH3_64bits(pair, sizeof(pair));
}

FailureOr<llvm::SmallVector<SignatureWalker::OrderedOp>>
SignatureWalker::canonicalOrder(Block &block) {
  if (block.empty())
    return llvm::SmallVector<OrderedOp>();
  if (!opHashes.count(&block.back()) && failed(hashBlock(block)))
    return failure();
  // Program positions, and which ops are live: walking backwards, an op is
  // live when it is the terminator, has side effects, or a live op of this
  // block uses one of its results.
  // The block's list is walked once: its size() would walk it again.
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  llvm::DenseMap<Operation *, unsigned> position;
  llvm::SmallVector<const OpHashes *> hashes;
  position.reserve(ops.size());
  hashes.reserve(ops.size());
  for (auto [index, op] : llvm::enumerate(ops)) {
    position[op] = index;
    hashes.push_back(&opHashes.find(op)->second);
  }
  Operation *terminator = &block.back();
  std::vector<bool> live(ops.size(), false);
  for (size_t i = ops.size(); i-- > 0;) {
    Operation *op = ops[i];
    if (op == terminator || hashes[i]->sideEffects) {
      live[i] = true;
      continue;
    }
    for (Operation *user : op->getUsers()) {
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (inBlock && live[position[inBlock]]) {
        live[i] = true;
        break;
      }
    }
  }
  // Kahn's algorithm over the live ops: producers first, ops with side
  // effects in their order; among ready ops, the smallest structural hash
  // (equal hashes are identical ops on identical inputs: either order
  // encodes the same).
  std::vector<unsigned> pending(ops.size(), 0);
  std::vector<llvm::SmallVector<unsigned, 2>> dependents(ops.size());
  int lastOrdered = -1;
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    if (!live[i])
      continue;
    llvm::SmallVector<unsigned, 4> producers;
    for (Value operand : ops[i]->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (producer->getBlock() == &block)
          producers.push_back(position[producer]);
    if (hashes[i]->sideEffects) {
      if (lastOrdered >= 0)
        producers.push_back(lastOrdered);
      lastOrdered = i;
    }
    llvm::sort(producers);
    producers.erase(std::unique(producers.begin(), producers.end()),
                    producers.end());
    for (unsigned producer : producers)
      dependents[producer].push_back(i);
    pending[i] = producers.size();
  }
  using Ready = std::tuple<uint64_t, uint64_t, unsigned>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  auto readyKey = [&](unsigned i) {
    return Ready{hashes[i]->coarse, hashes[i]->structural, i};
  };
  for (size_t i = 0; i + 1 < ops.size(); ++i)
    if (live[i] && pending[i] == 0)
      ready.push(readyKey(i));
  llvm::SmallVector<OrderedOp> order;
  auto take = [&](unsigned i) {
    order.push_back({ops[i], hashes[i]->content, hashes[i]->fingerprint});
  };
  while (!ready.empty()) {
    unsigned i = std::get<2>(ready.top());
    ready.pop();
    take(i);
    for (unsigned dependent : dependents[i])
      if (--pending[dependent] == 0)
        ready.push(readyKey(dependent));
  }
  take(ops.size() - 1);
  return order;
}

FailureOr<Hash128> SignatureWalker::hashFunction(func::FuncOp function) {
  FunctionHash &entry = functionHashes[function];
  if (entry.inProgress)
    return function.emitError("function @")
           << function.getSymName() << " calls itself";
  if (entry.hash != Hash128())
    return entry.hash;
  if (function.isExternal())
    return function.emitError("function @")
           << function.getSymName() << " has no body";
  entry.inProgress = true;
  order.push_back(function);

  // Each function is numbered and hashed on its own; its ops join the
  // sketch after the entry's, so the walk stays deterministic.
  llvm::DenseMap<Value, uint64_t> savedIds;
  std::swap(savedIds, valueIds);
  std::vector<uint64_t> savedSketch;
  std::vector<Operation *> savedOps;
  std::swap(savedSketch, result.sketch);
  std::swap(savedOps, result.sketchOps);

  XXH3_state_t *state = XXH3_createState();
  XXH3_128bits_reset(state);
  buffer.clear();
  putBytes("func");
  Block &body = function.getBody().front();
  putU64(body.getNumArguments());
  // A parameter's or result's attributes, less the names JAX gives them.
  auto withoutNames = [&](DictionaryAttr attrs) -> DictionaryAttr {
    if (!attrs)
      return DictionaryAttr::get(function.getContext());
    if (llvm::none_of(attrs, [](NamedAttribute attr) {
          return isInterfaceAttrOutsideSignature(attr.getName().getValue());
        }))
      return attrs;
    NamedAttrList kept;
    for (NamedAttribute attr : attrs)
      if (!isInterfaceAttrOutsideSignature(attr.getName().getValue()))
        kept.append(attr);
    return kept.getDictionary(function.getContext());
  };
  for (BlockArgument arg : body.getArguments()) {
    encodeType(arg.getType());
    encodeAttribute(withoutNames(function.getArgAttrDict(arg.getArgNumber())));
    valueIds.try_emplace(arg, valueIds.size());
  }
  putU64(function.getNumResults());
  for (unsigned i = 0; i < function.getNumResults(); ++i) {
    encodeType(function.getResultTypes()[i]);
    encodeAttribute(withoutNames(function.getResultAttrDict(i)));
  }
  // Attributes kept on the function itself (the dump's ROOT tuple's output
  // shardings and names) change what is compiled.
  llvm::SmallVector<NamedAttribute, 2> functionAttrs(
      function->getDiscardableAttrs().begin(),
      function->getDiscardableAttrs().end());
  llvm::sort(functionAttrs, [](NamedAttribute a, NamedAttribute b) {
    return a.getName().getValue() < b.getName().getValue();
  });
  putU64(functionAttrs.size());
  for (NamedAttribute attr : functionAttrs) {
    putBytes(attr.getName().getValue());
    encodeAttribute(attr.getValue());
  }
  XXH3_128bits_update(state, buffer.data(), buffer.size());

  LogicalResult walked = success();
  FailureOr<llvm::SmallVector<OrderedOp>> bodyOrder = canonicalOrder(body);
  if (failed(bodyOrder))
    walked = failure();
  else
    for (const OrderedOp &op : *bodyOrder)
      if (failed(encodeOp(op, state))) {
        walked = failure();
        break;
      }
  XXH128_hash_t digest = XXH3_128bits_digest(state);
  XXH3_freeState(state);

  std::swap(savedIds, valueIds);
  std::swap(savedSketch, result.sketch);
  std::swap(savedOps, result.sketchOps);
  FunctionHash &done = functionHashes[function];
  done.inProgress = false;
  if (failed(walked))
    return failure();
  done.hash = Hash128{digest.high64, digest.low64};
  // savedSketch now holds this function's own entries.
  sketches.try_emplace(function, std::move(savedSketch), std::move(savedOps));
  return done.hash;
}

FailureOr<GraphSignature> SignatureWalker::run() {
  func::FuncOp entry;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function.isPublic())
      continue;
    if (entry)
      return function.emitError("a second public function; the entry of a "
                                "graph must be its only public function");
    entry = function;
  }
  if (!entry)
    return module.emitError("no public function: the graph has no entry");
  FailureOr<Hash128> entryHash = hashFunction(entry);
  if (failed(entryHash))
    return failure();

  // Module attributes (partitions, replicas, entry layout, aliasing) change
  // what is compiled; the module's name does not.
  buffer.clear();
  putBytes("module");
  llvm::SmallVector<NamedAttribute, 8> attrs;
  for (NamedAttribute attr : module->getAttrs())
    if (!isModuleAttrOutsideSignature(attr.getName().getValue()))
      attrs.push_back(attr);
  llvm::sort(attrs, [](NamedAttribute a, NamedAttribute b) {
    return a.getName().getValue() < b.getName().getValue();
  });
  for (NamedAttribute attr : attrs) {
    putBytes(attr.getName().getValue());
    encodeAttribute(attr.getValue());
  }
  putU64(entryHash->high);
  putU64(entryHash->low);
  result.signature = Hash128::of(llvm::StringRef(buffer.data(), buffer.size()));

  for (Operation *function : order) {
    auto &[hashes, ops] = sketches[function];
    result.sketch.insert(result.sketch.end(), hashes.begin(), hashes.end());
    result.sketchOps.insert(result.sketchOps.end(), ops.begin(), ops.end());
  }
  return std::move(result);
}

bool kiln::isModuleAttrOutsideSignature(llvm::StringRef name) {
  return name == "sym_name" || name == "sym_visibility" ||
         name == "jax.uses_shape_polymorphism";
}

bool kiln::isInterfaceAttrOutsideSignature(llvm::StringRef name) {
  return name == "jax.arg_info" || name == "jax.result_info";
}

FailureOr<GraphSignature> kiln::computeSignature(ModuleOp module,
                                                 bool keepSketchOps) {
  return SignatureWalker(module, keepSketchOps).run();
}
