//===- RunCommand.cpp - kiln run --------------------------------*- C++ -*-===//
//
// This file implements `kiln run FILE`: the graph's entry runs on the
// reference evaluator. A graph with checks (StableHLO's golden programs)
// prints each check's outcome with its worst element and exits 1 if one
// fails; any graph's parameters get seeded random values (integers that
// index a gather, scatter or dynamic slice stay in range), and each result
// is summarized (type, min, max, mean, checksum) or written with -o as a
// NumPy file.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Interpreter/Evaluator.h"
#include "kiln/Interpreter/NumpyArchive.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>
#include <xxhash.h>

using namespace mlir;
using namespace kiln::interp;

namespace {

/// The largest value an integer parameter may take for every use of it as
/// an index to stay in range; none when it indexes nothing.
std::optional<int64_t> indexBound(BlockArgument arg) {
  std::optional<int64_t> bound;
  auto tighten = [&](int64_t size) {
    bound = bound ? std::min(*bound, size) : size;
  };
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    StringRef name = user->getName().getStringRef();
    auto shapeOf = [&](unsigned i) {
      return cast<RankedTensorType>(user->getOperand(i).getType()).getShape();
    };
    unsigned index = use.getOperandNumber();
    if (name == "kiln.gather" && index == 1) {
      for (int64_t size : shapeOf(0))
        tighten(size);
    } else if (name == "kiln.scatter" && index == user->getNumResults()) {
      for (int64_t size : shapeOf(0))
        tighten(size);
    } else if ((name == "kiln.dynamic_slice" && index >= 1) ||
               (name == "kiln.dynamic_update_slice" && index >= 2)) {
      unsigned first = name == "kiln.dynamic_slice" ? 1 : 2;
      tighten(shapeOf(0)[index - first]);
    }
  }
  return bound;
}

/// Seeded random values of `arg`'s type.
HostTensor randomArgument(BlockArgument arg, std::mt19937_64 &generator) {
  HostTensor tensor(arg.getType());
  if (tensor.kind == ElementKind::Token)
    return tensor;
  Type element = tensor.elementType();
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  switch (tensor.kind) {
  case ElementKind::Float:
    for (double &value : tensor.floats)
      value = roundToFloat(unit(generator), element);
    break;
  case ElementKind::Complex: {
    Type part = cast<ComplexType>(element).getElementType();
    for (auto &value : tensor.complexes)
      value = {roundToFloat(unit(generator), part),
               roundToFloat(unit(generator), part)};
    break;
  }
  case ElementKind::Integer: {
    unsigned width = storageIntegerType(element).getWidth();
    int64_t low = 0, high = 1;
    if (width > 1) {
      std::optional<int64_t> bound = indexBound(arg);
      if (bound)
        high = std::max<int64_t>(0, *bound - 1);
      else if (isUnsignedInteger(element))
        high = std::min<int64_t>(15, (int64_t(1) << std::min(width, 62u)) - 1);
      else
        low = -8, high = 7;
    }
    std::uniform_int_distribution<int64_t> values(low, high);
    for (int64_t &value : tensor.ints)
      value = wrapInteger((uint64_t)values(generator), element);
    break;
  }
  case ElementKind::Token:
    break;
  }
  return tensor;
}

/// XXH3-64 of the elements' bits, each in its type's width, little-endian.
uint64_t checksum(const HostTensor &tensor) {
  std::string bytes;
  for (int64_t i = 0; i < tensor.size(); ++i) {
    llvm::APInt bits = tensor.bitsAt(i);
    unsigned count = (bits.getBitWidth() + 7) / 8;
    for (unsigned b = 0; b < count; ++b)
      bytes += (char)bits.extractBitsAsZExtValue(
          std::min(8u, bits.getBitWidth() - 8 * b), 8 * b);
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::string summarize(const HostTensor &tensor) {
  std::string type;
  llvm::raw_string_ostream typeStream(type);
  typeStream << tensor.type;
  if (tensor.kind == ElementKind::Token)
    return type;
  double min = INFINITY, max = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < tensor.size(); ++i) {
    double value = tensor.kind == ElementKind::Complex
                       ? std::abs(tensor.complexes[i])
                       : tensor.asDouble(i);
    if (std::isnan(value)) {
      ++nans;
      continue;
    }
    min = std::min(min, value);
    max = std::max(max, value);
    sum += value;
  }
  int64_t counted = tensor.size() - nans;
  std::string text = type;
  if (counted)
    text += "  min " + formatNumber(min) + " max " + formatNumber(max) +
            " mean " + formatNumber(sum / counted);
  if (tensor.kind == ElementKind::Complex)
    text += " (of magnitudes)";
  if (nans)
    text += llvm::formatv("  {0} NaN", nans).str();
  text += llvm::formatv("  checksum {0:x16}", checksum(tensor)).str();
  return text;
}

} // namespace

int kiln::runRun(const RunOptions &options) {
  // Several ranks evaluate on threads of their own: the context must allow
  // them to create types and attributes at once.
  MLIRContext context(options.ranks > 1 ? MLIRContext::Threading::ENABLED
                                        : MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> module =
      loadGraph(options.input, &context, llvm::errs());
  if (!module)
    return ExitInputError;
  // Errors of the evaluation at the op, as `file:line:col: error: ...`.
  // The position in the dump first; the Python line, when the dump has it,
  // as a note.
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    HloLocation where = decodeHloLocation(diagnostic.getLocation());
    std::string position = options.input;
    if (where.dumpPosition)
      position = llvm::formatv("{0}:{1}:{2}",
                               where.dumpPosition->getFilename().getValue(),
                               where.dumpPosition->getLine(),
                               where.dumpPosition->getColumn())
                     .str();
    llvm::errs() << position << ": error: " << diagnostic.str() << "\n";
    if (where.source || !where.opName.empty()) {
      llvm::errs() << position << ": note: from ";
      if (where.source)
        llvm::errs() << where.source->getFilename().getValue() << ':'
                     << where.source->getLine()
                     << (where.opName.empty() ? "" : ", ");
      llvm::errs() << where.opName << "\n";
    }
    return success();
  });
  EvaluatorOptions evaluatorOptions;
  if (options.maxWork > 0)
    evaluatorOptions.maxWork = options.maxWork;
  Evaluator evaluator(*module, evaluatorOptions);
  func::FuncOp entry = evaluator.getEntry();
  if (!entry) {
    llvm::errs() << options.input << ": error: no public function to run\n";
    return ExitInputError;
  }
  if (failed(evaluator.checkSize(entry)))
    return ExitInputError;
  std::mt19937_64 generator(options.seed);
  std::vector<HostTensor> arguments;
  if (!options.arguments.empty()) {
    std::string error;
    FailureOr<std::vector<HostTensor>> given =
        parseTensorList(options.arguments, &context, error);
    if (failed(given)) {
      llvm::errs() << "kiln run: error: --args: " << error << "\n";
      return ExitInputError;
    }
    arguments = std::move(*given);
  } else {
    for (BlockArgument arg : entry.getArguments())
      arguments.push_back(randomArgument(arg, generator));
  }
  if (!arguments.empty() && options.arguments.empty())
    llvm::outs() << llvm::formatv("{0} parameters: seeded random values "
                                  "(--seed {1})\n",
                                  arguments.size(), options.seed);
  // One rank, or every rank on the same parameters.
  std::vector<std::vector<HostTensor>> results;
  std::vector<std::vector<CheckOutcome>> checksByRank;
  if (options.ranks > 1) {
    std::vector<std::vector<HostTensor>> perRank(options.ranks, arguments);
    FailureOr<std::vector<std::vector<HostTensor>>> out = runRanks(
        *module, options.ranks, perRank, evaluatorOptions, &checksByRank);
    if (failed(out))
      return ExitInputError;
    results = std::move(*out);
  } else {
    FailureOr<std::vector<HostTensor>> out = evaluator.call(entry, arguments);
    if (failed(out))
      return ExitInputError;
    results.push_back(std::move(*out));
    checksByRank.push_back(std::vector<CheckOutcome>(
        evaluator.getChecks().begin(), evaluator.getChecks().end()));
  }
  auto rankPrefix = [&](size_t rank) {
    return options.ranks > 1 ? "rank " + std::to_string(rank) + " " : "";
  };

  unsigned failedChecks = 0, allChecks = 0;
  for (auto [rank, checks] : llvm::enumerate(checksByRank))
  for (auto [i, check] : llvm::enumerate(checks)) {
    ++allChecks;
    std::string where = describeHloLocation(check.loc);
    if (check.passed) {
      std::string worst =
          check.comparison == "close"
              ? "worst " + formatNumber(check.worstError) + " ULP"
          : check.comparison == "almost_eq"
              ? "worst difference " + formatNumber(check.worstError)
              : std::string("equal");
      llvm::outs() << llvm::formatv("{6}check {0} ({1}) at {2}: passed, {3} "
                                    "element{4}, {5}\n",
                                    i + 1, check.comparison, where,
                                    check.elements,
                                    check.elements == 1 ? "" : "s", worst,
                                    rankPrefix(rank));
      continue;
    }
    ++failedChecks;
    llvm::outs() << llvm::formatv("{7}check {0} ({1}) at {2}: FAILED, {3} of "
                                  "{4} elements, worst {5} at {6}\n",
                                  i + 1, check.comparison, where,
                                  check.failing, check.elements,
                                  formatNumber(check.worstError), check.worst,
                                  rankPrefix(rank));
  }
  if (allChecks)
    llvm::outs() << llvm::formatv("{0} of {1} checks passed\n",
                                  allChecks - failedChecks, allChecks);

  if (!options.output.empty()) {
    std::vector<std::pair<std::string, HostTensor>> arrays;
    for (auto [rank, rankResults] : llvm::enumerate(results))
      for (auto [i, result] : llvm::enumerate(rankResults))
        if (result.kind != ElementKind::Token)
          arrays.push_back({(options.ranks > 1
                                 ? "rank_" + std::to_string(rank) + "_"
                                 : std::string()) +
                                "result_" + std::to_string(i),
                            result});
    if (llvm::Error error = writeNumpyFile(options.output, arrays)) {
      llvm::errs() << "kiln run: error: " << llvm::toString(std::move(error))
                   << "\n";
      return ExitInputError;
    }
    llvm::outs() << llvm::formatv("wrote {0} results to {1}\n", arrays.size(),
                                  options.output);
  } else {
    for (auto [rank, rankResults] : llvm::enumerate(results))
      for (auto [i, result] : llvm::enumerate(rankResults))
        llvm::outs() << rankPrefix(rank) << "result " << i << ": "
                     << summarize(result) << "\n";
  }
  return failedChecks ? ExitSomeFailed : ExitSuccess;
}
