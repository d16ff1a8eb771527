//===- GraphSegmentation.cpp - a large graph compiled in pieces -*- C++ -*-===//
//
// This file splits an entry into segments (GraphSegmentation.h): liveness
// of the top-level values, where to cut, and each segment's module.
//
//===----------------------------------------------------------------------===//

#include "GraphSegmentation.h"

#include "kiln/Runtime/Executable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <tuple>

using namespace mlir;

namespace {

/// A constant larger than this is stored once, not repeated in each
/// segment that reads it.
constexpr uint64_t kLargestRepeatedConstant = 64 * 1024;
/// What crosses a cut, worst first: values that cannot be a buffer (a
/// token, a tuple: never cut there), a causal band's values (its ops must
/// stay together to skip the masked blocks: cut there only when nothing
/// else is possible), and the bytes of the temporaries the cut needs.
struct CutCost {
  uint64_t unbuffered = 0, band = 0, bytes = 0;

  bool operator<=(const CutCost &other) const {
    return std::tie(unbuffered, band, bytes) <=
           std::tie(other.unbuffered, other.band, other.bytes);
  }
};

using kiln::isBufferType;

/// Bytes of a buffer holding a value of `type` (at least one element: the
/// bare-pointer convention gives an empty tensor a one-element buffer).
uint64_t getBufferBytes(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return std::max<int64_t>(tensor.getNumElements(), 1) *
         kiln::getElementBytes(tensor.getElementType());
}

/// The entry's top-level ops, with what each reads from the others and
/// which of them are recomputed wherever they are read.
class EntryLiveness {
public:
  explicit EntryLiveness(func::FuncOp entry) : body(entry.getBody().front()) {
    for (Operation &op : body.without_terminator()) {
      index[&op] = ops.size();
      ops.push_back(&op);
    }
    lastUse.resize(ops.size());
    reads.resize(ops.size());
    sizes.resize(ops.size());
    for (unsigned i = 0; i < ops.size(); ++i) {
      repeatable.push_back(isRepeatable(ops[i]));
      ops[i]->walk([&](Operation *inner) {
        ++sizes[i];
        for (Value value : inner->getOperands())
          noteRead(i, value);
      });
    }
    for (Value value : body.getTerminator()->getOperands())
      noteRead(ops.size(), value);
  }

  /// The top-level op that defines `value`, or -1 for a parameter.
  int definer(Value value) const {
    if (isa<BlockArgument>(value))
      return -1;
    return index.lookup(value.getDefiningOp());
  }

  Block &body;
  std::vector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> index;
  /// Ops in each top-level op, itself included.
  std::vector<size_t> sizes;
  /// Whether a top-level op is recomputed in each segment that reads it.
  std::vector<bool> repeatable;
  /// The last top-level op that reads each result (ops.size(): returned).
  std::vector<llvm::SmallVector<unsigned, 1>> lastUse;
  /// The values that each top-level op reads from outside itself:
  /// parameters and other top-level ops' results, in first-read order.
  std::vector<llvm::SetVector<Value>> reads;

private:
  void noteRead(unsigned reader, Value value) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      if (argument.getOwner() == &body && reader < ops.size())
        reads[reader].insert(value);
      return;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != &body)
      return;
    unsigned defIndex = index.lookup(def);
    if (defIndex == reader)
      return;
    if (reader < ops.size())
      reads[reader].insert(value);
    auto &uses = lastUse[defIndex];
    if (uses.empty())
      uses.assign(def->getNumResults(), defIndex);
    unsigned &last = uses[cast<OpResult>(value).getResultNumber()];
    last = std::max(last, reader);
  }

  /// Constants (but large ones), and what cheap pure ops (data movement,
  /// comparisons, simple arithmetic: no contraction or reduction) compute
  /// from them alone.
  bool isRepeatable(Operation *op) const {
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
        op->getNumResults() != 1)
      return false;
    if (op->getNumOperands() != 0 &&
        !llvm::is_contained(
            {"kiln.broadcast_in_dim", "kiln.reshape", "kiln.transpose",
             "kiln.convert", "kiln.slice", "kiln.concatenate", "kiln.pad",
             "kiln.compare", "kiln.select", "kiln.and", "kiln.or", "kiln.not",
             "kiln.negate", "kiln.add", "kiln.subtract", "kiln.multiply"},
            op->getName().getStringRef()))
      return false;
    if (op->getNumOperands() == 0) {
      for (NamedAttribute attribute : op->getAttrs())
        if (auto elements = dyn_cast<DenseElementsAttr>(attribute.getValue()))
          if (!elements.isSplat() && isBufferType(elements.getType()) &&
              getBufferBytes(elements.getType()) > kLargestRepeatedConstant)
            return false;
      return true;
    }
    for (Value operand : op->getOperands()) {
      int def = definer(operand);
      if (def < 0 || !repeatable[def])
        return false;
    }
    return true;
  }
};

/// Where to cut: segment boundaries b_0 = 0 < b_1 < ... < b_k = ops.size().
std::vector<unsigned> chooseCuts(const EntryLiveness &liveness, size_t maxOps) {
  unsigned count = liveness.ops.size();
  // crossing[p]: what crosses a cut before op p, from the differences
  // between consecutive places.
  std::vector<CutCost> crossing(count + 1);
  std::vector<CutCost> starts(count + 2), ends(count + 2);
  for (unsigned j = 0; j < count; ++j) {
    if (liveness.repeatable[j] || liveness.lastUse[j].empty())
      continue;
    Operation *op = liveness.ops[j];
    bool band =
        op->hasAttr("kiln.band") || op->hasAttr("kiln.masked_contraction");
    for (OpResult result : op->getResults()) {
      unsigned last = liveness.lastUse[j][result.getResultNumber()];
      if (last <= j)
        continue;
      // Cuts j+1 .. min(last, count - 1). A returned value lives in the
      // caller's buffer: it needs no temporary.
      unsigned end = std::min(last, count - 1) + 1;
      if (!isBufferType(result.getType())) {
        ++starts[j + 1].unbuffered;
        ++ends[end].unbuffered;
      } else if (band) {
        ++starts[j + 1].band;
        ++ends[end].band;
      } else if (last < count) {
        uint64_t bytes = getBufferBytes(result.getType());
        starts[j + 1].bytes += bytes;
        ends[end].bytes += bytes;
      }
    }
  }
  CutCost running;
  for (unsigned p = 0; p <= count; ++p) {
    running.unbuffered += starts[p].unbuffered - ends[p].unbuffered;
    running.band += starts[p].band - ends[p].band;
    running.bytes += starts[p].bytes - ends[p].bytes;
    crossing[p] = running;
  }
  // A recomputed op counts where it is read, not where it stands.
  std::vector<size_t> prefix(count + 1, 0);
  for (unsigned i = 0; i < count; ++i)
    prefix[i + 1] =
        prefix[i] + (liveness.repeatable[i] ? 0 : liveness.sizes[i]);

  std::vector<unsigned> cuts = {0};
  unsigned start = 0;
  while (prefix[count] - prefix[start] > maxOps) {
    unsigned low = start + 1;
    while (low < count &&
           prefix[low] - prefix[start] < std::max<size_t>(maxOps / 2, 1))
      ++low;
    unsigned high = low;
    while (high + 1 < count && prefix[high + 1] - prefix[start] <= maxOps)
      ++high;
    if (low >= count)
      break;
    unsigned best = low;
    for (unsigned p = low; p <= high; ++p)
      if (crossing[p] <= crossing[best])
        best = p;
    // Nowhere in reach: the first place further on where a cut is possible.
    while (best < count && crossing[best].unbuffered != 0)
      ++best;
    if (best >= count)
      break;
    cuts.push_back(best);
    start = best;
  }
  cuts.push_back(count);
  return cuts;
}

} // namespace

kiln::SegmentedGraph
kiln::splitIntoSegments(ModuleOp module, func::FuncOp entry, size_t maxOps) {
  SegmentedGraph graph;
  graph.parameters = entry.getNumArguments();
  graph.results = entry.getNumResults();
  std::optional<EntryLiveness> liveness;
  std::vector<unsigned> cuts;
  if (llvm::hasSingleElement(entry.getBody())) {
    liveness.emplace(entry);
    cuts = chooseCuts(*liveness, maxOps);
  }
  if (cuts.size() < 3) {
    GraphSegment whole;
    whole.function = entry.getName().str();
    for (unsigned i = 0; i < graph.parameters + graph.results; ++i)
      (i < graph.parameters ? whole.inputs : whole.outputs).push_back(i);
    graph.segments.push_back(std::move(whole));
    return graph;
  }
  unsigned segmentCount = cuts.size() - 1;

  unsigned opCount = liveness->ops.size();
  std::vector<unsigned> segmentOf(opCount + 1, segmentCount - 1);
  for (unsigned s = 0; s < segmentCount; ++s)
    for (unsigned i = cuts[s]; i < cuts[s + 1]; ++i)
      segmentOf[i] = s;

  // Buffers: parameters, results, then temporaries. A value that crosses
  // a cut lives in the result buffer of its first place among the results,
  // or in a temporary.
  Operation *terminator = liveness->body.getTerminator();
  llvm::DenseMap<Value, unsigned> bufferOf;
  for (BlockArgument argument : liveness->body.getArguments())
    bufferOf[argument] = argument.getArgNumber();
  // Results the last segment writes by copying (a parameter, a recomputed
  // value, a value returned a second time).
  std::vector<std::pair<Value, unsigned>> copiedResults;
  for (auto [position, value] : llvm::enumerate(terminator->getOperands())) {
    int def = liveness->definer(value);
    unsigned buffer = graph.parameters + position;
    if (def < 0 || liveness->repeatable[def] || bufferOf.count(value))
      copiedResults.push_back({value, buffer});
    else
      bufferOf[value] = buffer;
  }
  for (unsigned j = 0; j < opCount; ++j) {
    if (liveness->repeatable[j] || liveness->lastUse[j].empty())
      continue;
    for (OpResult result : liveness->ops[j]->getResults()) {
      unsigned last = liveness->lastUse[j][result.getResultNumber()];
      if (segmentOf[last] == segmentOf[j] || bufferOf.count(result))
        continue;
      bufferOf[result] =
          graph.parameters + graph.results + graph.temporaryBytes.size();
      graph.temporaryBytes.push_back(getBufferBytes(result.getType()));
      graph.temporaryLastReader.push_back(segmentOf[last]);
    }
  }

  for (unsigned s = 0; s < segmentCount; ++s) {
    bool last = s + 1 == segmentCount;
    GraphSegment segment;
    segment.function = "kiln_segment_" + std::to_string(s);
    OpBuilder builder(module.getContext());
    segment.module = ModuleOp::create(module.getLoc(), module.getSymName());
    builder.setInsertionPointToEnd(segment.module->getBody());
    for (Operation &op : module.getBody()->getOperations())
      if (&op != entry.getOperation())
        builder.clone(op);
    // The function's inputs are added as the segment's ops first read them.
    auto function =
        func::FuncOp::create(builder, entry.getLoc(), segment.function,
                             builder.getFunctionType({}, {}));
    Block *body = function.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    IRMapping mapping;
    // A value read in the segment: its own, an input (a parameter or an
    // earlier segment's), or recomputed (its own recomputed inputs first)
    // where the segment first reads it.
    std::function<void(Value)> read = [&](Value value) {
      if (mapping.contains(value))
        return;
      int def = liveness->definer(value);
      if (def >= 0 && liveness->repeatable[def]) {
        for (Value operand : value.getDefiningOp()->getOperands())
          read(operand);
        builder.clone(*value.getDefiningOp(), mapping);
        return;
      }
      mapping.map(value, body->addArgument(value.getType(), value.getLoc()));
      segment.inputs.push_back(bufferOf.lookup(value));
    };
    SmallVector<Value> returned;
    for (unsigned i = cuts[s]; i < cuts[s + 1]; ++i) {
      if (liveness->repeatable[i])
        continue;
      for (Value value : liveness->reads[i])
        read(value);
      builder.clone(*liveness->ops[i], mapping);
      if (liveness->lastUse[i].empty())
        continue;
      for (OpResult result : liveness->ops[i]->getResults()) {
        auto buffer = bufferOf.find(result);
        if (buffer == bufferOf.end())
          continue;
        returned.push_back(mapping.lookup(result));
        segment.outputs.push_back(buffer->second);
      }
    }
    if (last)
      for (auto [value, buffer] : copiedResults) {
        read(value);
        returned.push_back(mapping.lookup(value));
        segment.outputs.push_back(buffer);
      }
    function.setFunctionType(builder.getFunctionType(
        body->getArgumentTypes(), ValueRange(returned).getTypes()));
    func::ReturnOp::create(builder, terminator->getLoc(), returned);
    graph.segments.push_back(std::move(segment));
  }
  return graph;
}
