//===- GraphDiff.cpp - what makes two graphs different computations -------===//
//
// This file implements the structural comparison. Within a pair of blocks
// (the entries' bodies, two regions, two callees), parameters match by
// position; an op of the second graph matches an op of the first in sweeps
// over program order, each sweep extending the matches that earlier ones
// made, from the strictest rule to the loosest:
//
//  1. same kind, operands that are matches, identical content;
//  2. same kind, operands that are matches (the content changed);
//  3. another kind on operands that are matches (the op was replaced);
//  4. same kind, the most operands in common (the op was rewired).
//
// Among candidates, the most similar content wins, then the nearest
// relative position. Each matched pair is then compared: attributes,
// constant values, result types (a root change only when the operands'
// types did not change), wiring, regions and callees, recursively.
//
//===----------------------------------------------------------------------===//

#include "kiln/Signature/GraphDiff.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Signature/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>

using namespace mlir;
using namespace kiln;

llvm::StringRef kiln::getChangeKindName(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::Shape:
    return "shape";
  case ChangeKind::ElementType:
    return "element type";
  case ChangeKind::ConstantValue:
    return "constant value";
  case ChangeKind::Attribute:
    return "attribute";
  case ChangeKind::OpKind:
    return "op kind";
  case ChangeKind::Wiring:
    return "operand wiring";
  case ChangeKind::Added:
    return "added";
  case ChangeKind::Missing:
    return "missing";
  }
  return "change";
}

namespace {

/// Attributes that only name things; the signature leaves them out too.
bool isNamingAttribute(Operation *op, llvm::StringRef name) {
  if (name == "kiln.control-predecessors" || name == "kiln.called_computations")
    return true;
  return isa<func::CallOp>(op) && name == "callee";
}

/// An attribute's name as a user knows it: without the dialect prefix.
std::string displayName(llvm::StringRef name) {
  name.consume_front("kiln.");
  return name.str();
}

/// At most `limit` characters of `text`, on one line.
std::string shorten(std::string text, size_t limit = 160) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > limit)
    text = text.substr(0, limit - 3) + "...";
  return text;
}

template <typename T> std::string printed(T thing) {
  std::string text;
  llvm::raw_string_ostream os(text);
  thing.print(os);
  return shorten(std::move(text));
}

/// An attribute's value as the dump wrote it: strings unquoted, integers
/// without their type, lists of integers in brackets.
std::string printed(Attribute attr) {
  if (auto text = dyn_cast<StringAttr>(attr))
    return shorten(text.getValue().str());
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue() ? "true" : "false";
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    llvm::SmallString<24> text;
    integer.getValue().toString(text, 10,
                                /*Signed=*/!integer.getType().isUnsignedInteger());
    return text.str().str();
  }
  if (auto floating = dyn_cast<FloatAttr>(attr)) {
    llvm::SmallString<24> text;
    floating.getValue().toString(text);
    return text.str().str();
  }
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return shorten("[" +
                   llvm::join(llvm::map_range(array.asArrayRef(),
                                              [](int64_t v) {
                                                return std::to_string(v);
                                              }),
                              ",") +
                   "]");
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return shorten(std::move(text));
}

/// Live ops of a block, by the signature's rule: what the terminator
/// depends on, and what has side effects (its own or nested).
llvm::SmallVector<Operation *> liveOps(Block &block) {
  llvm::SmallVector<Operation *> ops;
  if (block.empty())
    return ops;
  Operation *terminator = &block.back();
  llvm::DenseSet<Operation *> live;
  for (Operation &op : llvm::reverse(block)) {
    bool keep = &op == terminator;
    if (!keep) {
      op.walk([&](Operation *nested) {
        if (hasOwnSideEffects(nested)) {
          keep = true;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    }
    for (Operation *user : op.getUsers()) {
      if (keep)
        break;
      if (Operation *inBlock = block.findAncestorOpInBlock(*user))
        keep = live.contains(inBlock);
    }
    if (keep)
      live.insert(&op);
  }
  for (Operation &op : block)
    if (&op != terminator && live.contains(&op))
      ops.push_back(&op);
  return ops;
}

/// The attributes that the signature sees, sorted by name.
llvm::SmallVector<NamedAttribute> hashedAttributes(Operation *op) {
  llvm::SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (!isNamingAttribute(op, attr.getName().getValue()))
      attrs.push_back(attr);
  llvm::sort(attrs, [](NamedAttribute a, NamedAttribute b) {
    return a.getName().getValue() < b.getName().getValue();
  });
  return attrs;
}

class GraphDiffer {
public:
  GraphDiffer(ModuleOp before, ModuleOp after)
      : before(before), after(after), beforeSymbols(before),
        afterSymbols(after) {}

  GraphDiff run();

private:
  /// The two blocks being compared, and what matched.
  struct BlockPair {
    llvm::SmallVector<Operation *> beforeOps, afterOps;
    llvm::DenseMap<Operation *, Operation *> beforeMatch, afterMatch;
    llvm::DenseMap<Operation *, unsigned> beforePosition, afterPosition;
    /// Ops of the before block by kind and by (kind, operands).
    std::map<llvm::hash_code, llvm::SmallVector<Operation *, 1>> byOperands,
        byOperandsAnyKind;
    llvm::DenseMap<OperationName, llvm::SmallVector<Operation *>> byKind;
  };
  enum class Rule { Identical, SameOperands, OtherKind, Rewired };

  void diffAttributes(llvm::ArrayRef<NamedAttribute> beforeAttrs,
                      llvm::ArrayRef<NamedAttribute> afterAttrs,
                      llvm::StringRef subject, std::optional<Location> beforeLoc,
                      std::optional<Location> afterLoc,
                      const std::string &context);
  void diffFunctions(func::FuncOp beforeFn, func::FuncOp afterFn,
                     const std::string &context, bool entry);
  void diffBlocks(Block &beforeBlock, Block &afterBlock,
                  const std::string &context, llvm::StringRef resultNoun);
  void matchOps(BlockPair &pair);
  bool sweep(BlockPair &pair, Rule rule);
  void link(BlockPair &pair, Operation *beforeOp, Operation *afterOp);
  void compareMatched(Operation *beforeOp, Operation *afterOp,
                      const std::string &context);
  void diffCallees(Operation *beforeOp, Operation *afterOp,
                   const std::string &context);
  /// The values an op of the after graph uses, as before-graph values;
  /// false if one has no match.
  bool mappedOperands(Operation *afterOp, llvm::SmallVectorImpl<Value> &out);
  /// How alike two ops of the same kind are: identical content scores
  /// highest; otherwise equal attributes and equal result types count.
  int similarity(Operation *beforeOp, Operation *afterOp);
  bool sameContent(Operation *beforeOp, Operation *afterOp);
  /// hashedAttributes(op), computed once per op: the sweeps compare an op
  /// with many candidates.
  llvm::ArrayRef<NamedAttribute> attributesOf(Operation *op) {
    auto [it, inserted] = attributeCache.try_emplace(op);
    if (inserted)
      it->second = hashedAttributes(op);
    return it->second;
  }
  /// A std::map: its values stay where they are as entries are added, so
  /// the references handed out stay valid.
  std::map<Operation *, llvm::SmallVector<NamedAttribute>> attributeCache;
  /// "parameter 1", "kiln.add at line 18", "result 0 of kiln.sort at ...".
  std::string describeValue(Value value);
  /// "kiln.add at line 18": the op's kind and its line in its dump.
  std::string describeOp(Operation *op);
  std::string printOp(Operation *op);
  void addChange(ChangeKind kind, std::string subject, std::string beforeText,
                 std::string afterText, Operation *beforeOp, Operation *afterOp,
                 const std::string &context);

  ModuleOp before, after;
  SymbolTable beforeSymbols, afterSymbols;
  llvm::DenseMap<Value, Value> afterToBefore;
  llvm::DenseSet<std::pair<Operation *, Operation *>> comparedFunctions;
  std::map<Operation *, std::unique_ptr<AsmState>> printStates;
  GraphDiff result;
};

} // namespace

std::string GraphDiffer::printOp(Operation *op) {
  Operation *function = op->getParentOfType<func::FuncOp>();
  if (!function)
    return op->getName().getStringRef().str();
  std::unique_ptr<AsmState> &state = printStates[function];
  if (!state)
    state = std::make_unique<AsmState>(
        function, OpPrintingFlags().skipRegions().elideLargeElementsAttrs(8));
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, *state);
  return shorten(std::move(text), 240);
}

std::string GraphDiffer::describeValue(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner))
      return "parameter " + std::to_string(arg.getArgNumber());
    return "argument " + std::to_string(arg.getArgNumber()) + " of " +
           owner->getName().getStringRef().str() + "'s body";
  }
  auto result = cast<OpResult>(value);
  Operation *op = result.getOwner();
  if (op->getNumResults() > 1)
    return "result " + std::to_string(result.getResultNumber()) + " of " +
           describeOp(op);
  return describeOp(op);
}

std::string GraphDiffer::describeOp(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  // The op's own line in its dump tells it from others of its kind.
  if (std::optional<FileLineColLoc> position =
          decodeHloLocation(op->getLoc()).dumpPosition)
    text += " at line " + std::to_string(position->getLine());
  return text;
}

void GraphDiffer::addChange(ChangeKind kind, std::string subject,
                            std::string beforeText, std::string afterText,
                            Operation *beforeOp, Operation *afterOp,
                            const std::string &context) {
  GraphChange change{kind, std::move(subject), std::move(beforeText),
                     std::move(afterText)};
  if (beforeOp) {
    change.beforeLoc = beforeOp->getLoc();
    change.beforeOp = printOp(beforeOp);
  }
  if (afterOp) {
    change.afterLoc = afterOp->getLoc();
    change.afterOp = printOp(afterOp);
  }
  change.context = context;
  result.changes.push_back(std::move(change));
}

bool GraphDiffer::mappedOperands(Operation *afterOp,
                                 llvm::SmallVectorImpl<Value> &out) {
  out.clear();
  for (Value operand : afterOp->getOperands()) {
    auto it = afterToBefore.find(operand);
    if (it == afterToBefore.end())
      return false;
    out.push_back(it->second);
  }
  return true;
}

bool GraphDiffer::sameContent(Operation *beforeOp, Operation *afterOp) {
  return beforeOp->getName() == afterOp->getName() &&
         beforeOp->getResultTypes() == afterOp->getResultTypes() &&
         attributesOf(beforeOp) == attributesOf(afterOp);
}

int GraphDiffer::similarity(Operation *beforeOp, Operation *afterOp) {
  if (sameContent(beforeOp, afterOp))
    return 1 << 20;
  int score = 0;
  if (beforeOp->getResultTypes() == afterOp->getResultTypes())
    score += 2;
  for (NamedAttribute attr : afterOp->getAttrs())
    if (beforeOp->getAttr(attr.getName()) == attr.getValue())
      ++score;
  return score;
}

void GraphDiffer::link(BlockPair &pair, Operation *beforeOp,
                       Operation *afterOp) {
  pair.beforeMatch[beforeOp] = afterOp;
  pair.afterMatch[afterOp] = beforeOp;
  unsigned results =
      std::min(beforeOp->getNumResults(), afterOp->getNumResults());
  for (unsigned i = 0; i < results; ++i)
    afterToBefore[afterOp->getResult(i)] = beforeOp->getResult(i);
}

static llvm::hash_code operandsKey(llvm::ArrayRef<Value> operands) {
  llvm::SmallVector<const void *, 8> pointers;
  for (Value value : operands)
    pointers.push_back(value.getAsOpaquePointer());
  return llvm::hash_combine_range(pointers.begin(), pointers.end());
}

bool GraphDiffer::sweep(BlockPair &pair, Rule rule) {
  bool matchedAny = false;
  // The kinds of the ops that no rule matched yet, on each side.
  llvm::DenseSet<OperationName> unmatchedBeforeKinds, unmatchedAfterKinds;
  if (rule == Rule::OtherKind) {
    for (Operation *op : pair.beforeOps)
      if (!pair.beforeMatch.count(op))
        unmatchedBeforeKinds.insert(op->getName());
    for (Operation *op : pair.afterOps)
      if (!pair.afterMatch.count(op))
        unmatchedAfterKinds.insert(op->getName());
  }
  llvm::SmallVector<Value, 8> operands;
  double afterCount = std::max<size_t>(1, pair.afterOps.size());
  double beforeCount = std::max<size_t>(1, pair.beforeOps.size());
  for (Operation *afterOp : pair.afterOps) {
    if (pair.afterMatch.count(afterOp))
      continue;
    bool mapped = mappedOperands(afterOp, operands);
    if (rule != Rule::Rewired && !mapped)
      continue;
    const llvm::SmallVector<Operation *, 1> *candidates = nullptr;
    llvm::SmallVector<Operation *, 1> none;
    if (rule == Rule::Identical || rule == Rule::SameOperands) {
      auto it = pair.byOperands.find(llvm::hash_combine(
          afterOp->getName().getAsOpaquePointer(), operandsKey(operands)));
      candidates = it == pair.byOperands.end() ? &none : &it->second;
    } else if (rule == Rule::OtherKind) {
      auto it = pair.byOperandsAnyKind.find(operandsKey(operands));
      candidates = it == pair.byOperandsAnyKind.end() ? &none : &it->second;
    }
    llvm::ArrayRef<Operation *> pool;
    if (candidates) {
      pool = *candidates;
    } else {
      auto it = pair.byKind.find(afterOp->getName());
      if (it != pair.byKind.end())
        pool = it->second;
    }
    double afterAt = pair.afterPosition[afterOp] / afterCount;
    Operation *best = nullptr;
    int bestScore = -1;
    double bestDistance = 0;
    unsigned examined = 0;
    for (Operation *beforeOp : pool) {
      if (pair.beforeMatch.count(beforeOp))
        continue;
      // The loosest rule looks at a bounded number of candidates, so that
      // two unrelated graphs still compare in linear time.
      if (rule == Rule::Rewired && ++examined > 256)
        break;
      int score;
      switch (rule) {
      case Rule::Identical:
        if (!llvm::equal(beforeOp->getOperands(), operands) ||
            !sameContent(beforeOp, afterOp))
          continue;
        score = 0;
        break;
      case Rule::SameOperands:
        if (beforeOp->getName() != afterOp->getName() ||
            !llvm::equal(beforeOp->getOperands(), operands))
          continue;
        score = similarity(beforeOp, afterOp);
        break;
      case Rule::OtherKind:
        // An op that has a same-kind op left on the other side is more
        // likely rewired (an op was inserted before it) than replaced.
        if (unmatchedAfterKinds.count(beforeOp->getName()) ||
            unmatchedBeforeKinds.count(afterOp->getName()))
          continue;
        if (beforeOp->getName() == afterOp->getName() ||
            beforeOp->getNumResults() != afterOp->getNumResults() ||
            !llvm::equal(beforeOp->getOperands(), operands))
          continue;
        // An op with no operands is only another kind of the same value.
        if (operands.empty() &&
            beforeOp->getResultTypes() != afterOp->getResultTypes())
          continue;
        score = 0;
        break;
      case Rule::Rewired: {
        if (beforeOp->getNumOperands() != afterOp->getNumOperands())
          continue;
        score = 0;
        for (auto [index, operand] : llvm::enumerate(afterOp->getOperands())) {
          Value mappedOperand = afterToBefore.lookup(operand);
          if (!mappedOperand)
            continue;
          if (beforeOp->getOperand(index) == mappedOperand)
            score += 4;
          else if (llvm::is_contained(beforeOp->getOperands(), mappedOperand))
            score += 2;
        }
        // Same result types or attributes count too: an op whose input is
        // new (inserted in front of it) still matches its old self.
        score += similarity(beforeOp, afterOp) > 0 ? 1 : 0;
        if (score == 0)
          continue; // nothing in common but the kind
        break;
      }
      }
      double distance =
          std::abs(pair.beforePosition[beforeOp] / beforeCount - afterAt);
      if (score > bestScore || (score == bestScore && distance < bestDistance)) {
        best = beforeOp;
        bestScore = score;
        bestDistance = distance;
      }
    }
    if (best) {
      link(pair, best, afterOp);
      matchedAny = true;
    }
  }
  return matchedAny;
}

void GraphDiffer::matchOps(BlockPair &pair) {
  for (auto [index, op] : llvm::enumerate(pair.beforeOps)) {
    pair.beforePosition[op] = index;
    llvm::SmallVector<Value, 8> operands(op->getOperands());
    pair.byOperands[llvm::hash_combine(op->getName().getAsOpaquePointer(),
                                       operandsKey(operands))]
        .push_back(op);
    pair.byOperandsAnyKind[operandsKey(operands)].push_back(op);
    pair.byKind[op->getName()].push_back(op);
  }
  for (auto [index, op] : llvm::enumerate(pair.afterOps))
    pair.afterPosition[op] = index;
  // Each round goes back to the strictest rule: a looser match opens the
  // way for exact matches downstream of it. Every round matches at least
  // one op, and the number of rounds is bounded for unrelated graphs.
  for (unsigned round = 0; round < 64; ++round) {
    if (sweep(pair, Rule::Identical))
      continue;
    if (sweep(pair, Rule::SameOperands))
      continue;
    if (sweep(pair, Rule::OtherKind))
      continue;
    if (!sweep(pair, Rule::Rewired))
      break;
  }
}

void GraphDiffer::diffAttributes(llvm::ArrayRef<NamedAttribute> beforeAttrs,
                                 llvm::ArrayRef<NamedAttribute> afterAttrs,
                                 llvm::StringRef subject,
                                 std::optional<Location> beforeLoc,
                                 std::optional<Location> afterLoc,
                                 const std::string &context) {
  // Both lists are sorted by name: walk them together.
  size_t i = 0, j = 0;
  while (i < beforeAttrs.size() || j < afterAttrs.size()) {
    int order;
    if (i == beforeAttrs.size())
      order = 1;
    else if (j == afterAttrs.size())
      order = -1;
    else
      order = beforeAttrs[i].getName().getValue().compare(
          afterAttrs[j].getName().getValue());
    std::string name, beforeText = "(none)", afterText = "(none)";
    if (order <= 0) {
      name = displayName(beforeAttrs[i].getName().getValue());
      beforeText = printed(beforeAttrs[i].getValue());
    }
    if (order >= 0) {
      name = displayName(afterAttrs[j].getName().getValue());
      afterText = printed(afterAttrs[j].getValue());
    }
    bool differ = order != 0 || beforeAttrs[i].getValue() != afterAttrs[j].getValue();
    if (order <= 0)
      ++i;
    if (order >= 0)
      ++j;
    if (!differ)
      continue;
    GraphChange change{ChangeKind::Attribute, name + " of " + subject.str(),
                       beforeText, afterText};
    change.beforeLoc = beforeLoc;
    change.afterLoc = afterLoc;
    change.context = context;
    result.changes.push_back(std::move(change));
  }
}

/// The type change of a value, named as a shape or an element type change.
static ChangeKind typeChangeKind(Type beforeType, Type afterType) {
  auto beforeShaped = dyn_cast<ShapedType>(beforeType);
  auto afterShaped = dyn_cast<ShapedType>(afterType);
  if (beforeShaped && afterShaped &&
      beforeShaped.getElementType() != afterShaped.getElementType())
    return ChangeKind::ElementType;
  return ChangeKind::Shape;
}

/// Where two constants of the same type differ: the first element that
/// differs on each side, and how many do.
static bool describeConstantChange(Attribute beforeValue, Attribute afterValue,
                                   std::string &subject, std::string &beforeText,
                                   std::string &afterText) {
  auto beforeDense = dyn_cast<DenseElementsAttr>(beforeValue);
  auto afterDense = dyn_cast<DenseElementsAttr>(afterValue);
  if (!beforeDense || !afterDense ||
      beforeDense.getType() != afterDense.getType())
    return false;
  auto beforeElements = beforeDense.tryGetValues<Attribute>();
  auto afterElements = afterDense.tryGetValues<Attribute>();
  if (failed(beforeElements) || failed(afterElements))
    return false;
  int64_t count = beforeDense.getNumElements(), differing = 0, first = -1;
  auto beforeIt = beforeElements->begin();
  auto afterIt = afterElements->begin();
  for (int64_t index = 0; index < count; ++index, ++beforeIt, ++afterIt)
    if (*beforeIt != *afterIt) {
      if (first < 0)
        first = index;
      ++differing;
    }
  if (first < 0)
    return false;
  // The first differing element's multi-dimensional index.
  llvm::ArrayRef<int64_t> shape = beforeDense.getType().getShape();
  llvm::SmallVector<int64_t> position(shape.size());
  int64_t rest = first;
  for (size_t d = shape.size(); d-- > 0;) {
    position[d] = shape[d] ? rest % shape[d] : 0;
    rest = shape[d] ? rest / shape[d] : 0;
  }
  std::string at = "[" +
                   llvm::join(llvm::map_range(position,
                                              [](int64_t v) {
                                                return std::to_string(v);
                                              }),
                              ",") +
                   "]";
  std::string beforeElement = printed(*(beforeElements->begin() + first));
  std::string afterElement = printed(*(afterElements->begin() + first));
  if (count == 1) {
    beforeText = beforeElement;
    afterText = afterElement;
    return true;
  }
  subject += " (" + std::to_string(differing) + " of " +
             std::to_string(count) + " elements differ)";
  beforeText = "element " + at + " = " + beforeElement;
  afterText = "element " + at + " = " + afterElement;
  return true;
}

void GraphDiffer::compareMatched(Operation *beforeOp, Operation *afterOp,
                                 const std::string &context) {
  std::string name = afterOp->getName().getStringRef().str();
  if (beforeOp->getName() != afterOp->getName()) {
    addChange(ChangeKind::OpKind,
              beforeOp->getName().getStringRef().str() + " replaced by " + name,
              beforeOp->getName().getStringRef().str(), name, beforeOp, afterOp,
              context);
    return;
  }
  // Wiring: the operands that are not the matches of the ones before, as
  // one change.
  unsigned common =
      std::min(beforeOp->getNumOperands(), afterOp->getNumOperands());
  bool rewired = beforeOp->getNumOperands() != afterOp->getNumOperands();
  std::vector<std::string> beforeSources, afterSources;
  for (unsigned i = 0; i < common; ++i) {
    Value now = afterOp->getOperand(i);
    if (afterToBefore.lookup(now) == beforeOp->getOperand(i))
      continue;
    rewired = true;
    std::string prefix =
        common == 1 ? "" : "operand " + std::to_string(i) + ": ";
    beforeSources.push_back(prefix + describeValue(beforeOp->getOperand(i)));
    afterSources.push_back(prefix + describeValue(now));
  }
  if (beforeOp->getNumOperands() != afterOp->getNumOperands()) {
    beforeSources.push_back(std::to_string(beforeOp->getNumOperands()) +
                            " operands");
    afterSources.push_back(std::to_string(afterOp->getNumOperands()) +
                           " operands");
  }
  if (rewired)
    addChange(ChangeKind::Wiring, "operands of " + describeOp(afterOp),
              llvm::join(beforeSources, "; "), llvm::join(afterSources, "; "),
              beforeOp, afterOp, context);

  // Attributes; a constant's value is a change of its own.
  llvm::ArrayRef<NamedAttribute> beforeAttrs = attributesOf(beforeOp);
  llvm::ArrayRef<NamedAttribute> afterAttrs = attributesOf(afterOp);
  bool attributesDiffer = false;
  if (beforeAttrs != afterAttrs) {
    attributesDiffer = true;
    Attribute beforeValue = beforeOp->getAttr("value");
    Attribute afterValue = afterOp->getAttr("value");
    std::string subject = "value of " + name, beforeText, afterText;
    bool constantOnly = beforeAttrs.size() == 1 && afterAttrs.size() == 1 &&
                        beforeValue && afterValue;
    if (constantOnly &&
        describeConstantChange(beforeValue, afterValue, subject, beforeText,
                               afterText)) {
      addChange(ChangeKind::ConstantValue, subject, beforeText, afterText,
                beforeOp, afterOp, context);
    } else if (!constantOnly ||
               beforeOp->getResultTypes() == afterOp->getResultTypes()) {
      size_t first = result.changes.size();
      diffAttributes(beforeAttrs, afterAttrs, name, beforeOp->getLoc(),
                     afterOp->getLoc(), context);
      for (size_t i = first; i < result.changes.size(); ++i) {
        result.changes[i].beforeOp = printOp(beforeOp);
        result.changes[i].afterOp = printOp(afterOp);
        if (constantOnly)
          result.changes[i].kind = ChangeKind::ConstantValue;
      }
    }
  }

  // Result types: a change of its own only where the operands' types did
  // not change; otherwise it follows from theirs.
  if (beforeOp->getResultTypes() != afterOp->getResultTypes()) {
    bool operandsChanged = rewired;
    for (unsigned i = 0; i < common && !operandsChanged; ++i)
      operandsChanged =
          beforeOp->getOperand(i).getType() != afterOp->getOperand(i).getType();
    if (operandsChanged && !attributesDiffer) {
      ++result.followingOps;
    } else {
      for (unsigned i = 0; i < std::min(beforeOp->getNumResults(),
                                        afterOp->getNumResults());
           ++i) {
        Type beforeType = beforeOp->getResult(i).getType();
        Type afterType = afterOp->getResult(i).getType();
        if (beforeType == afterType)
          continue;
        std::string subject = name;
        if (afterOp->getNumResults() > 1)
          subject = "result " + std::to_string(i) + " of " + name;
        addChange(typeChangeKind(beforeType, afterType), subject,
                  printed(beforeType), printed(afterType), beforeOp, afterOp,
                  context);
      }
    }
  }

  // Regions, block by block.
  std::string where = context.empty() ? "" : context + "; ";
  for (auto [beforeRegion, afterRegion] :
       llvm::zip(beforeOp->getRegions(), afterOp->getRegions())) {
    if (beforeRegion.getBlocks().size() != afterRegion.getBlocks().size())
      continue;
    for (auto [beforeBlock, afterBlock] : llvm::zip(beforeRegion, afterRegion))
      diffBlocks(beforeBlock, afterBlock,
                 where + "in the body of " + describeOp(afterOp), "body");
  }
  diffCallees(beforeOp, afterOp, context);
}

void GraphDiffer::diffCallees(Operation *beforeOp, Operation *afterOp,
                              const std::string &context) {
  auto callees = [](Operation *op) {
    llvm::SmallVector<llvm::StringRef, 1> names;
    if (auto call = dyn_cast<func::CallOp>(op))
      names.push_back(call.getCallee());
    if (auto called = op->getAttrOfType<ArrayAttr>("kiln.called_computations"))
      for (Attribute ref : called)
        if (auto symbol = dyn_cast<FlatSymbolRefAttr>(ref))
          names.push_back(symbol.getValue());
    return names;
  };
  llvm::SmallVector<llvm::StringRef, 1> beforeNames = callees(beforeOp);
  llvm::SmallVector<llvm::StringRef, 1> afterNames = callees(afterOp);
  for (auto [beforeName, afterName] : llvm::zip(beforeNames, afterNames)) {
    auto beforeFn = beforeSymbols.lookup<func::FuncOp>(beforeName);
    auto afterFn = afterSymbols.lookup<func::FuncOp>(afterName);
    if (!beforeFn || !afterFn || beforeFn.isExternal() || afterFn.isExternal())
      continue;
    diffFunctions(beforeFn, afterFn,
                  (context.empty() ? "" : context + "; ") + "in @" +
                      afterName.str() + ", called by " + describeOp(afterOp),
                  /*entry=*/false);
  }
}

void GraphDiffer::diffBlocks(Block &beforeBlock, Block &afterBlock,
                             const std::string &context,
                             llvm::StringRef resultNoun) {
  unsigned args =
      std::min(beforeBlock.getNumArguments(), afterBlock.getNumArguments());
  for (unsigned i = 0; i < args; ++i)
    afterToBefore[afterBlock.getArgument(i)] = beforeBlock.getArgument(i);

  BlockPair pair;
  pair.beforeOps = liveOps(beforeBlock);
  pair.afterOps = liveOps(afterBlock);
  result.beforeOps += pair.beforeOps.size();
  result.afterOps += pair.afterOps.size();
  matchOps(pair);
  result.matchedOps += pair.afterMatch.size();

  for (Operation *afterOp : pair.afterOps) {
    Operation *beforeOp = pair.afterMatch.lookup(afterOp);
    if (!beforeOp) {
      addChange(ChangeKind::Added, afterOp->getName().getStringRef().str(), "",
                printOp(afterOp), nullptr, afterOp, context);
      continue;
    }
    compareMatched(beforeOp, afterOp, context);
  }
  for (Operation *beforeOp : pair.beforeOps)
    if (!pair.beforeMatch.count(beforeOp))
      addChange(ChangeKind::Missing, beforeOp->getName().getStringRef().str(),
                printOp(beforeOp), "", beforeOp, nullptr, context);

  // What the block returns.
  if (beforeBlock.empty() || afterBlock.empty())
    return;
  Operation *beforeEnd = &beforeBlock.back();
  Operation *afterEnd = &afterBlock.back();
  unsigned results =
      std::min(beforeEnd->getNumOperands(), afterEnd->getNumOperands());
  for (unsigned i = 0; i < results; ++i) {
    Value now = afterEnd->getOperand(i);
    if (afterToBefore.lookup(now) == beforeEnd->getOperand(i))
      continue;
    addChange(ChangeKind::Wiring,
              resultNoun.str() + " result " + std::to_string(i),
              describeValue(beforeEnd->getOperand(i)), describeValue(now),
              beforeEnd, afterEnd, context);
  }
  for (unsigned i = results; i < afterEnd->getNumOperands(); ++i)
    addChange(ChangeKind::Added, resultNoun.str() + " result " + std::to_string(i),
              "", describeValue(afterEnd->getOperand(i)), nullptr, afterEnd,
              context);
  for (unsigned i = results; i < beforeEnd->getNumOperands(); ++i)
    addChange(ChangeKind::Missing,
              resultNoun.str() + " result " + std::to_string(i),
              describeValue(beforeEnd->getOperand(i)), "", beforeEnd, nullptr,
              context);
}

void GraphDiffer::diffFunctions(func::FuncOp beforeFn, func::FuncOp afterFn,
                                const std::string &context, bool entry) {
  if (!comparedFunctions.insert({beforeFn, afterFn}).second)
    return;
  Block &beforeBody = beforeFn.getBody().front();
  Block &afterBody = afterFn.getBody().front();
  std::string owner = entry ? "" : " of @" + afterFn.getSymName().str();
  unsigned params =
      std::min(beforeBody.getNumArguments(), afterBody.getNumArguments());
  // What the signature sees of a parameter's or result's attributes.
  auto hashedAttrs = [](DictionaryAttr dict) {
    llvm::SmallVector<NamedAttribute> attrs;
    if (dict)
      for (NamedAttribute attr : dict)
        if (!isInterfaceAttrOutsideSignature(attr.getName().getValue()))
          attrs.push_back(attr);
    return attrs;
  };
  auto argAttrs = [&](func::FuncOp fn, unsigned i) {
    return hashedAttrs(fn.getArgAttrDict(i));
  };
  for (unsigned i = 0; i < params; ++i) {
    BlockArgument beforeArg = beforeBody.getArgument(i);
    BlockArgument afterArg = afterBody.getArgument(i);
    std::string subject = "parameter " + std::to_string(i) + owner;
    if (beforeArg.getType() != afterArg.getType()) {
      GraphChange change{typeChangeKind(beforeArg.getType(), afterArg.getType()),
                         subject, printed(beforeArg.getType()),
                         printed(afterArg.getType())};
      change.beforeLoc = beforeArg.getLoc();
      change.afterLoc = afterArg.getLoc();
      change.context = context;
      result.changes.push_back(std::move(change));
    }
    diffAttributes(argAttrs(beforeFn, i), argAttrs(afterFn, i), subject,
                   beforeArg.getLoc(), afterArg.getLoc(), context);
  }
  auto parameterChange = [&](ChangeKind kind, BlockArgument arg) {
    GraphChange change{kind,
                       "parameter " + std::to_string(arg.getArgNumber()) +
                           owner,
                       kind == ChangeKind::Missing ? printed(arg.getType()) : "",
                       kind == ChangeKind::Added ? printed(arg.getType()) : ""};
    (kind == ChangeKind::Added ? change.afterLoc : change.beforeLoc) =
        arg.getLoc();
    change.context = context;
    result.changes.push_back(std::move(change));
  };
  for (unsigned i = params; i < afterBody.getNumArguments(); ++i)
    parameterChange(ChangeKind::Added, afterBody.getArgument(i));
  for (unsigned i = params; i < beforeBody.getNumArguments(); ++i)
    parameterChange(ChangeKind::Missing, beforeBody.getArgument(i));

  // Result attributes and the function's own (the ROOT tuple's).
  unsigned results = std::min(beforeFn.getNumResults(), afterFn.getNumResults());
  for (unsigned i = 0; i < results; ++i) {
    diffAttributes(hashedAttrs(beforeFn.getResultAttrDict(i)),
                   hashedAttrs(afterFn.getResultAttrDict(i)),
                   "result " + std::to_string(i) + owner, beforeFn.getLoc(),
                   afterFn.getLoc(), context);
  }
  auto ownAttrs = [](func::FuncOp fn) {
    llvm::SmallVector<NamedAttribute> attrs(fn->getDiscardableAttrs().begin(),
                                            fn->getDiscardableAttrs().end());
    llvm::sort(attrs, [](NamedAttribute a, NamedAttribute b) {
      return a.getName().getValue() < b.getName().getValue();
    });
    return attrs;
  };
  diffAttributes(ownAttrs(beforeFn), ownAttrs(afterFn),
                 entry ? "the entry" : "@" + afterFn.getSymName().str(),
                 beforeFn.getLoc(), afterFn.getLoc(), context);
  diffBlocks(beforeBody, afterBody, context, entry ? "graph" : "function");
}

GraphDiff GraphDiffer::run() {
  auto entryOf = [](ModuleOp module) { return getEntryFunction(module); };
  auto moduleAttrs = [](ModuleOp module) {
    llvm::SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : module->getAttrs())
      if (!isModuleAttrOutsideSignature(attr.getName().getValue()))
        attrs.push_back(attr);
    llvm::sort(attrs, [](NamedAttribute a, NamedAttribute b) {
      return a.getName().getValue() < b.getName().getValue();
    });
    return attrs;
  };
  func::FuncOp beforeEntry = entryOf(before), afterEntry = entryOf(after);
  // The entry's layout spells out its parameters' and results' shapes: a
  // change of those changes it too, which is no change of its own.
  bool entryTypesChanged =
      beforeEntry && afterEntry &&
      beforeEntry.getFunctionType() != afterEntry.getFunctionType();
  llvm::SmallVector<NamedAttribute> beforeAttrs = moduleAttrs(before);
  llvm::SmallVector<NamedAttribute> afterAttrs = moduleAttrs(after);
  if (entryTypesChanged) {
    auto isLayout = [](NamedAttribute attr) {
      return attr.getName() == "kiln.entry_computation_layout";
    };
    llvm::erase_if(beforeAttrs, isLayout);
    llvm::erase_if(afterAttrs, isLayout);
  }
  diffAttributes(beforeAttrs, afterAttrs, "the module", before.getLoc(),
                 after.getLoc(), "");
  if (beforeEntry && afterEntry)
    diffFunctions(beforeEntry, afterEntry, "", /*entry=*/true);
  return std::move(result);
}

GraphDiff kiln::diffGraphs(ModuleOp before, ModuleOp after) {
  return GraphDiffer(before, after).run();
}
