//===- AsyncOps.cpp - asynchronous pairs, transfers, more collectives -*- C++ -*-===//
//
// This file implements the verifiers of the ops that come in start/done
// pairs (async-start/-update/-done, the async collectives, copy-start/-done,
// send/recv and their -done), of host transfers (infeed, outfeed), of
// add-dependency, and of collective-broadcast and ragged-all-to-all.
//
// HLO gives a start op a tuple result (operands, results, context) that the
// done op takes whole. kiln flattens tuples, so a start op has one result
// per leaf and its done op one operand per leaf; these verifiers check the
// leaves in order.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "VerifierHelpers.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::verify;

/// The u32 scalar that HLO's start ops return as their context.
static RankedTensorType u32Scalar(MLIRContext *context) {
  return scalarOf(IntegerType::get(context, 32, IntegerType::Unsigned));
}

/// Checks that `values` ends with a token (`what` names them).
static LogicalResult requireTrailingToken(Operation *op, StringRef what,
                                          TypeRange types) {
  if (!types.empty() && isa<TokenType>(types.back()))
    return success();
  return op->emitOpError() << what << " must end with a token, got "
                           << formatTypes(types);
}

/// Checks that a done op's operands are the start op's results: the same
/// count and types, so that a pair split by a rewrite is caught.
static LogicalResult verifyDoneOperands(Operation *op, OperandRange operands,
                                        size_t minimum, StringRef start) {
  if (operands.size() < minimum)
    return op->emitOpError() << "expects the " << minimum << " or more values "
                             << "that " << start << " returns, got "
                             << operands.size();
  return success();
}

LogicalResult AsyncStartOp::verify() {
  Block &body = getCalls().front();
  if (failed(verifyTypes(*this, "region 'calls' argument types",
                         getOperands().getTypes(), body.getArgumentTypes())))
    return failure();
  auto ret = body.empty() ? ReturnOp() : dyn_cast<ReturnOp>(body.back());
  if (!ret)
    return emitOpError() << "region 'calls' must end with kiln.return";
  // Results: the operands, then what the wrapped computation returns, then
  // any context values.
  size_t operandCount = getOperands().size();
  size_t resultCount = ret.getNumOperands();
  if (getNumResults() < operandCount + resultCount)
    return emitOpError() << "expects at least " << operandCount + resultCount
                         << " results (the operands, then the results of "
                            "'calls'), got "
                         << getNumResults();
  SmallVector<Type> expected(getOperands().getTypes());
  llvm::append_range(expected, ret.getOperandTypes());
  return verifyTypes(
      *this, "leading result types", expected,
      TypeRange(getResultTypes()).take_front(operandCount + resultCount));
}

LogicalResult AsyncUpdateOp::verify() {
  return verifyTypes(*this, "result types", getOperands().getTypes(),
                     getResultTypes());
}

LogicalResult AsyncDoneOp::verify() {
  if (getOperands().empty())
    return emitOpError() << "expects the values that async_start returns";
  // Follow the chain back to its start, when it is in view, and check that
  // this op returns what the wrapped computation does.
  Operation *producer = getOperands().front().getDefiningOp();
  while (auto update = dyn_cast_or_null<AsyncUpdateOp>(producer))
    producer = update.getOperands().empty()
                   ? nullptr
                   : update.getOperands().front().getDefiningOp();
  auto start = dyn_cast_or_null<AsyncStartOp>(producer);
  if (!start || start.getCalls().empty() ||
      start.getCalls().front().empty())
    return success();
  auto ret = dyn_cast<ReturnOp>(start.getCalls().front().back());
  if (!ret)
    return success();
  return verifyTypes(*this, "result types", ret.getOperandTypes(),
                     getResultTypes());
}

LogicalResult AllReduceStartOp::verify() {
  return verifyAllReduce(*this, getOperands(), getReplicaGroups(),
                         getToApply());
}

LogicalResult AllReduceDoneOp::verify() {
  if (failed(verifyDoneOperands(*this, getOperands(), 1,
                                "all_reduce_start")))
    return failure();
  return verifyTypes(*this, "result types", getOperands().getTypes(),
                     getResultTypes());
}

LogicalResult AllGatherStartOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())) ||
      failed(requireNonEmpty(*this, getOperands(), "operand")))
    return failure();
  FailureOr<int64_t> dim = getSingleDim(*this, getDimensions());
  if (failed(dim))
    return failure();
  size_t count = getOperands().size();
  if (getNumResults() != 2 * count)
    return emitOpError() << "expects " << 2 * count
                         << " results (the operands, then the gathered "
                            "values), got "
                         << getNumResults();
  if (failed(verifyTypes(*this, "leading result types",
                         getOperands().getTypes(),
                         TypeRange(getResultTypes()).take_front(count))))
    return failure();
  // Each gathered value is its operand, larger along dimensions[0].
  for (auto [i, operand, gathered] :
       llvm::enumerate(getOperands(), getResults().drop_front(count))) {
    RankedTensorType in = rankedType(operand), out = rankedType(gathered);
    if (failed(verifyDimIndex(*this, "dimensions[0]", *dim, in.getRank())))
      return failure();
    SmallVector<int64_t> shape(in.getShape());
    shape[*dim] = out.getRank() == in.getRank() ? out.getDimSize(*dim)
                                                : shape[*dim];
    if (failed(verifyType(*this, "gathered result " + Twine(i) + " type",
                          RankedTensorType::get(shape, in.getElementType()),
                          out, "operand's, but along dimensions[0]")))
      return failure();
  }
  return success();
}

LogicalResult AllGatherDoneOp::verify() {
  size_t count = getOperands().size();
  if (count == 0 || count % 2 != 0)
    return emitOpError() << "expects the operands and gathered values that "
                            "all_gather_start returns (an even number), got "
                         << count;
  return verifyTypes(*this, "result types",
                     TypeRange(getOperands().getTypes()).drop_front(count / 2),
                     getResultTypes());
}

LogicalResult CollectivePermuteStartOp::verify() {
  auto pairs = cast<ShapedType>(getSourceTargetPairs().getType());
  if (pairs.getNumElements() != 0 &&
      (pairs.getRank() != 2 || pairs.getDimSize(1) != 2))
    return emitOpError() << "source_target_pairs must have shape Nx2, got "
                         << pairs;
  Type operand = getOperand().getType();
  if (getNumResults() < 2)
    return emitOpError() << "expects at least 2 results (the operand, then "
                            "the received value), got "
                         << getNumResults();
  SmallVector<Type> expected = {operand, operand};
  for (size_t i = 2; i < getNumResults(); ++i)
    expected.push_back(u32Scalar(getContext()));
  return verifyTypes(*this, "result types", expected, getResultTypes());
}

LogicalResult CollectivePermuteDoneOp::verify() {
  if (failed(verifyDoneOperands(*this, getOperands(), 2,
                                "collective_permute_start")))
    return failure();
  return verifyType(*this, "result type", getOperands()[1].getType(),
                    getOutput().getType(), "the received value's");
}

LogicalResult CopyStartOp::verify() {
  Type operand = getOperand().getType();
  SmallVector<Type> expected = {operand, operand};
  if (getNumResults() > 2)
    expected.push_back(u32Scalar(getContext()));
  return verifyTypes(*this, "result types", expected, getResultTypes());
}

LogicalResult CopyDoneOp::verify() {
  if (failed(verifyDoneOperands(*this, getOperands(), 2, "copy_start")))
    return failure();
  return verifyType(*this, "result type", getOperands()[0].getType(),
                    getOutput().getType(), "the destination's");
}

LogicalResult SendOp::verify() {
  TypeRange operands = getOperands().getTypes();
  if (failed(requireTrailingToken(*this, "operands", operands)))
    return failure();
  // (data..., u32 context, token)
  SmallVector<Type> expected(operands.drop_back());
  expected.push_back(u32Scalar(getContext()));
  expected.push_back(operands.back());
  return verifyTypes(*this, "result types", expected, getResultTypes());
}

LogicalResult SendDoneOp::verify() {
  return requireTrailingToken(*this, "operands", getOperands().getTypes());
}

LogicalResult RecvOp::verify() {
  TypeRange results = getResultTypes();
  if (failed(requireTrailingToken(*this, "results", results)))
    return failure();
  if (results.size() < 2 || results[results.size() - 2] != u32Scalar(getContext()))
    return emitOpError() << "results must be (data..., u32 context, token), "
                            "got "
                         << formatTypes(results);
  return success();
}

LogicalResult RecvDoneOp::verify() {
  TypeRange operands = getOperands().getTypes();
  if (failed(requireTrailingToken(*this, "operands", operands)))
    return failure();
  if (operands.size() < 2)
    return emitOpError() << "expects (data..., u32 context, token) from recv, "
                            "got "
                         << formatTypes(operands);
  // (data..., token)
  SmallVector<Type> expected(operands.drop_back(2));
  expected.push_back(operands.back());
  return verifyTypes(*this, "result types", expected, getResultTypes());
}

LogicalResult InfeedOp::verify() {
  return requireTrailingToken(*this, "results", getResultTypes());
}

LogicalResult OutfeedOp::verify() {
  return requireTrailingToken(*this, "operands", getOperands().getTypes());
}

LogicalResult AddDependencyOp::verify() {
  return verifyType(*this, "result type", getOperand().getType(),
                    getOutput().getType(), "the operand's");
}

LogicalResult CollectiveBroadcastOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())) ||
      failed(verifyCollectiveArity(*this, getOperands())))
    return failure();
  return verifyTypes(*this, "result types", getOperands().getTypes(),
                     getResultTypes());
}

LogicalResult RaggedAllToAllOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())))
    return failure();
  RankedTensorType input = rankedType(getInput()),
                   output = rankedType(getOutput());
  if (input.getRank() != output.getRank() ||
      input.getElementType() != output.getElementType())
    return emitOpError() << "output must have the input's rank and element "
                            "type, got "
                         << input << " and " << output;
  TypeRange sizes = TypeRange(getOperands().getTypes()).drop_front(2);
  for (Type type : sizes)
    if (type != sizes.front())
      return emitOpError() << "offsets and sizes must have one type, got "
                           << formatTypes(sizes);
  return verifyType(*this, "result type", output, getResult().getType(),
                    "the output operand's");
}
