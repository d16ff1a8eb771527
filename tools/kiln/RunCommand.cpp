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
#include "CacheAccess.h"
#include "DumpDiagnostics.h"
#include "GraphKeys.h"

#include "kiln/Cache/ArtifactHeader.h"
#include "kiln/Cache/Settings.h"
#include "kiln/Cache/TieredCache.h"
#include "kiln/Driver/CachedExecutable.h"
#include "kiln/Cache/Signing.h"
#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Interpreter/Evaluator.h"
#include "kiln/Interpreter/NumpyArchive.h"
#include "kiln/Runtime/Executable.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <xxhash.h>

using namespace mlir;
using namespace kiln::interp;
using kiln::ExitInputError;
using kiln::ExitSomeFailed;
using kiln::ExitSuccess;

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

/// Seeded random values of `type`; integers below `bound` when given.
HostTensor randomTensor(Type type, std::optional<int64_t> bound,
                        std::mt19937_64 &generator) {
  HostTensor tensor(type);
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

/// Seeded random values of `arg`'s type (indices in range).
HostTensor randomArgument(BlockArgument arg, std::mt19937_64 &generator) {
  return randomTensor(arg.getType(), indexBound(arg), generator);
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

/// Prints each check's outcome (`where` says where it is) and a total;
/// the number that failed.
unsigned printChecks(llvm::ArrayRef<std::vector<CheckOutcome>> checksByRank,
                     llvm::ArrayRef<std::vector<std::string>> whereByRank,
                     int ranks) {
  auto rankPrefix = [&](size_t rank) {
    return ranks > 1 ? "rank " + std::to_string(rank) + " " : "";
  };
  unsigned failedChecks = 0, allChecks = 0;
  for (auto [rank, checks] : llvm::enumerate(checksByRank))
    for (auto [i, check] : llvm::enumerate(checks)) {
      ++allChecks;
      const std::string &where = whereByRank[rank][i];
      if (check.passed) {
        std::string worst =
            check.comparison == "close"
                ? "worst " + formatNumber(check.worstError) + " ULP"
            : check.comparison == "almost_eq"
                ? "worst difference " + formatNumber(check.worstError)
                : std::string("equal");
        llvm::outs() << llvm::formatv(
            "{6}check {0} ({1}) at {2}: passed, "
            "{3} element{4}, {5}\n",
            i + 1, check.comparison, where, check.elements,
            check.elements == 1 ? "" : "s", worst, rankPrefix(rank));
        continue;
      }
      ++failedChecks;
      llvm::outs() << llvm::formatv(
          "{7}check {0} ({1}) at {2}: FAILED, {3} "
          "of {4} elements, worst {5} at {6}\n",
          i + 1, check.comparison, where, check.failing, check.elements,
          formatNumber(check.worstError), check.worst, rankPrefix(rank));
    }
  if (allChecks)
    llvm::outs() << llvm::formatv("{0} of {1} checks passed\n",
                                  allChecks - failedChecks, allChecks);
  return failedChecks;
}

/// Writes the results with -o, or prints a summary of each.
int printResults(const kiln::RunOptions &options,
                 llvm::ArrayRef<std::vector<HostTensor>> results) {
  auto rankPrefix = [&](size_t rank) {
    return options.ranks > 1 ? "rank " + std::to_string(rank) + " " : "";
  };
  if (!options.output.empty()) {
    std::vector<std::pair<std::string, HostTensor>> arrays;
    for (auto [rank, rankResults] : llvm::enumerate(results))
      for (auto [i, result] : llvm::enumerate(rankResults))
        if (result.kind != ElementKind::Token)
          arrays.push_back(
              {(options.ranks > 1 ? "rank_" + std::to_string(rank) + "_"
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
    return ExitSuccess;
  }
  for (auto [rank, rankResults] : llvm::enumerate(results))
    for (auto [i, result] : llvm::enumerate(rankResults))
      llvm::outs() << rankPrefix(rank) << "result " << i << ": "
                   << summarize(result) << "\n";
  return ExitSuccess;
}

/// The largest absolute error of `got` against `want`, and that error
/// relative to the largest magnitude of `want`; NaNs where `want` has none
/// (or the other way round) are counted apart.
struct ResultError {
  double absolute = 0, relative = 0;
  int64_t nanMismatches = 0;
};

ResultError compareResults(const HostTensor &got, const HostTensor &want) {
  ResultError error;
  double scale = 0;
  for (int64_t i = 0; i < want.size(); ++i) {
    double a = got.kind == ElementKind::Complex ? std::abs(got.complexes[i])
                                                : got.asDouble(i);
    double b = want.kind == ElementKind::Complex ? std::abs(want.complexes[i])
                                                 : want.asDouble(i);
    if (std::isnan(a) || std::isnan(b)) {
      error.nanMismatches += std::isnan(a) != std::isnan(b);
      continue;
    }
    if (std::isinf(a) || std::isinf(b)) {
      if (a != b)
        error.absolute = INFINITY;
      continue;
    }
    error.absolute = std::max(error.absolute, std::fabs(a - b));
    scale = std::max(scale, std::fabs(b));
  }
  error.relative = scale > 0 ? error.absolute / scale : error.absolute;
  return error;
}

/// Each rank's parameters: --inputs (NumPy arrays `arg_N`, NumPy's default
/// `arr_N`, or a rank's own `rank_R_arg_N`), --args, or seeded random values
/// (`makeRandom(i, generator)`); every rank gets the same unless --inputs
/// gives it its own.
FailureOr<std::vector<std::vector<HostTensor>>> makeArguments(
    const kiln::RunOptions &options, llvm::ArrayRef<Type> types,
    MLIRContext *context,
    llvm::function_ref<HostTensor(size_t, std::mt19937_64 &)> makeRandom) {
  std::vector<HostTensor> arguments;
  if (!options.inputs.empty()) {
    if (!options.arguments.empty()) {
      llvm::errs() << "kiln run: error: --inputs and --args both give the "
                      "parameters; use one\n";
      return failure();
    }
    auto arrays = kiln::interp::readNumpyFile(options.inputs);
    if (!arrays) {
      llvm::errs() << "kiln run: error: --inputs: "
                   << llvm::toString(arrays.takeError()) << "\n";
      return failure();
    }
    llvm::StringMap<const kiln::interp::NumpyArray *> byName;
    for (const auto &[name, array] : *arrays)
      byName[name] = &array;
    // One .npy file is the single parameter, whatever its name.
    bool single = arrays->size() == 1 && types.size() == 1 &&
                  llvm::StringRef(options.inputs).ends_with(".npy");
    std::vector<std::vector<HostTensor>> perRank;
    for (int rank = 0; rank < options.ranks; ++rank) {
      perRank.emplace_back();
      for (auto [i, type] : llvm::enumerate(types)) {
        std::string own = llvm::formatv("rank_{0}_arg_{1}", rank, i).str();
        std::string shared = llvm::formatv("arg_{0}", i).str();
        std::string numpyDefault = llvm::formatv("arr_{0}", i).str();
        const kiln::interp::NumpyArray *array =
            single                       ? &arrays->front().second
            : byName.count(own)          ? byName[own]
            : byName.count(shared)       ? byName[shared]
            : byName.count(numpyDefault) ? byName[numpyDefault]
                                         : nullptr;
        if (!array) {
          llvm::errs() << "kiln run: error: --inputs: " << options.inputs
                       << " has no array for parameter " << i << " (" << shared
                       << (options.ranks > 1 ? " or " + own : "") << ")\n";
          return failure();
        }
        auto tensorType = dyn_cast<RankedTensorType>(type);
        if (!tensorType) {
          perRank.back().push_back(HostTensor(type));
          continue;
        }
        auto tensor = kiln::interp::toHostTensor(*array, tensorType);
        if (!tensor) {
          llvm::errs() << "kiln run: error: --inputs: " << options.inputs
                       << ": parameter " << i << ": "
                       << llvm::toString(tensor.takeError()) << "\n";
          return failure();
        }
        perRank.back().push_back(std::move(*tensor));
      }
    }
    llvm::outs() << llvm::formatv("{0} parameters from {1}\n", types.size(),
                                  options.inputs);
    return perRank;
  }
  if (!options.arguments.empty()) {
    std::string error;
    FailureOr<std::vector<HostTensor>> given =
        parseTensorList(options.arguments, context, error);
    if (failed(given)) {
      llvm::errs() << "kiln run: error: --args: " << error << "\n";
      return failure();
    }
    // Each literal is of its parameter's type: compiled code would read
    // another's bytes as this one's.
    if (given->size() != types.size()) {
      llvm::errs() << llvm::formatv(
          "kiln run: error: --args gives {0}; the graph takes {1}\n",
          kiln::formatCount(given->size(), "value", "values"),
          kiln::formatCount(types.size(), "parameter", "parameters"));
      return failure();
    }
    for (auto [i, tensor] : llvm::enumerate(*given))
      if (tensor.type != types[i]) {
        std::string got, want;
        llvm::raw_string_ostream(got) << tensor.type;
        llvm::raw_string_ostream(want) << types[i];
        llvm::errs() << "kiln run: error: --args: value " << i << " is a "
                     << got << "; parameter " << i << " takes a " << want
                     << "\n";
        return failure();
      }
    arguments = std::move(*given);
  } else {
    std::mt19937_64 generator(options.seed);
    for (size_t i = 0; i < types.size(); ++i)
      arguments.push_back(makeRandom(i, generator));
    // Flushed: an error of the run that follows goes to stderr, and must
    // come after this line where the two streams meet.
    if (!arguments.empty()) {
      llvm::outs() << llvm::formatv("{0} parameters: seeded random values "
                                    "(--seed {1})\n",
                                    arguments.size(), options.seed);
      llvm::outs().flush();
    }
  }
  return std::vector<std::vector<HostTensor>>(options.ranks, arguments);
}

/// Runs compiled code as `ranks` participants, one thread each, each on its
/// parameters: every participant's outputs, by rank.
FailureOr<std::vector<std::vector<HostTensor>>>
runCompiledRanks(kiln::Executable &executable,
                 llvm::ArrayRef<std::vector<HostTensor>> arguments, int ranks,
                 MLIRContext *context) {
  std::vector<std::vector<HostTensor>> outputs(ranks);
  std::vector<std::string> errors(ranks);
  if (ranks == 1) {
    auto out = executable.run(arguments.front(), context);
    if (!out)
      errors[0] = llvm::toString(out.takeError());
    else
      outputs[0] = std::move(*out);
  } else {
    kiln::ParticipantGroup group(ranks);
    std::vector<std::thread> threads;
    for (int rank = 0; rank < ranks; ++rank)
      threads.emplace_back([&, rank] {
        auto out = executable.run(arguments[rank], context, &group, rank);
        if (!out) {
          errors[rank] = llvm::toString(out.takeError());
          group.abort();
        } else {
          outputs[rank] = std::move(*out);
        }
      });
    for (std::thread &thread : threads)
      thread.join();
  }
  bool failed = false;
  for (auto [rank, error] : llvm::enumerate(errors))
    if (!error.empty()) {
      llvm::errs() << "kiln run: error: "
                   << (ranks > 1 ? "rank " + std::to_string(rank) + ": " : "")
                   << error << "\n";
      failed = true;
    }
  if (failed)
    return failure();
  return outputs;
}

/// The checks of a compiled program, compared as the evaluator compares.
unsigned
printCompiledChecks(const kiln::ArtifactManifest &manifest,
                    std::vector<std::vector<HostTensor>> &outputsByRank,
                    MLIRContext *context) {
  std::vector<std::string> where;
  for (const kiln::CheckSpec &spec : manifest.checks)
    where.push_back(spec.location);
  std::vector<std::vector<CheckOutcome>> checksByRank;
  std::vector<std::vector<std::string>> whereByRank;
  for (std::vector<HostTensor> &outputs : outputsByRank) {
    checksByRank.push_back(kiln::compareChecks(manifest, outputs, context));
    // A program that returns its check's answer returns the one computed.
    kiln::writeCheckAnswers(manifest, checksByRank.back(), outputs);
    whereByRank.push_back(where);
  }
  return printChecks(checksByRank, whereByRank, outputsByRank.size());
}

/// Each rank's graph results (its outputs without the checks' values).
std::vector<std::vector<HostTensor>>
getGraphResults(const kiln::ArtifactManifest &manifest,
                llvm::ArrayRef<std::vector<HostTensor>> outputsByRank) {
  std::vector<std::vector<HostTensor>> results;
  for (const std::vector<HostTensor> &outputs : outputsByRank)
    results.emplace_back(outputs.begin(),
                         outputs.begin() + manifest.graphOutputs);
  return results;
}

/// The graph to run, from the text runRun read (the file, or one module
/// of a `// -----`-separated file, padded with newlines so that its lines
/// keep their numbers in the file).
OwningOpRef<ModuleOp> loadRunGraph(const kiln::RunOptions &options,
                                   MLIRContext *context) {
  return kiln::loadGraphBuffer(
      llvm::MemoryBuffer::getMemBuffer(options.inputText, options.input,
                                       /*RequiresNullTerminator=*/false),
      context, llvm::errs());
}

int runInterpreted(const kiln::RunOptions &options) {
  // Several ranks evaluate on threads of their own: the context must allow
  // them to create types and attributes at once.
  MLIRContext context(options.ranks > 1 ? MLIRContext::Threading::ENABLED
                                        : MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> module =
      loadRunGraph(options, &context);
  if (!module)
    return ExitInputError;
  // An error is placed at its line in the dump; the op is not quoted.
  kiln::DumpDiagnosticHandler diagnostics(&context, options.input,
                                          /*out=*/nullptr,
                                          /*quoteOps=*/false);
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
  auto makeRandom = [&](size_t i, std::mt19937_64 &generator) {
    return randomArgument(entry.getArgument(i), generator);
  };
  FailureOr<std::vector<std::vector<HostTensor>>> arguments =
      makeArguments(options, entry.getArgumentTypes(), &context, makeRandom);
  if (failed(arguments))
    return ExitInputError;
  std::vector<std::vector<HostTensor>> results;
  std::vector<std::vector<CheckOutcome>> checksByRank;
  if (options.ranks > 1) {
    FailureOr<std::vector<std::vector<HostTensor>>> out = runRanks(
        *module, options.ranks, *arguments, evaluatorOptions, &checksByRank);
    if (failed(out))
      return ExitInputError;
    results = std::move(*out);
  } else {
    FailureOr<std::vector<HostTensor>> out =
        evaluator.call(entry, arguments->front());
    if (failed(out))
      return ExitInputError;
    results.push_back(std::move(*out));
    checksByRank.push_back(std::vector<CheckOutcome>(
        evaluator.getChecks().begin(), evaluator.getChecks().end()));
  }
  std::vector<std::vector<std::string>> whereByRank;
  for (const std::vector<CheckOutcome> &checks : checksByRank) {
    whereByRank.emplace_back();
    for (const CheckOutcome &check : checks)
      whereByRank.back().push_back(kiln::describeHloLocation(check.loc));
  }
  unsigned failedChecks = printChecks(checksByRank, whereByRank, options.ranks);
  if (int status = printResults(options, results))
    return status;
  return failedChecks ? ExitSomeFailed : ExitSuccess;
}

int runCompiled(const kiln::RunOptions &given) {
  kiln::RunOptions options = given;
  // Several ranks run on threads of their own, which make types at once.
  MLIRContext context(options.ranks > 1 ? MLIRContext::Threading::ENABLED
                                        : MLIRContext::Threading::DISABLED);
  kiln::registerCompilerDialects(context);
  OwningOpRef<ModuleOp> module =
      loadRunGraph(options, &context);
  if (!module)
    return ExitInputError;
  // StableHLO's test harness (run_parallel) runs on its grid's
  // participants unless --ranks says otherwise.
  if (options.ranks == 1 && !options.compare) {
    int64_t participants = kiln::getRunParallelParticipants(*module);
    if (participants > 1 && participants <= 1024) {
      options.ranks = participants;
      context.enableMultithreading(true);
    }
  }
  kiln::DumpDiagnosticHandler diagnostics(&context, options.input);
  kiln::KeyOptions keys = options.keys;
  // A golden program's inputs are constants: folding them would check the
  // folder, not the compiled code.
  bool hasChecks = false;
  module->walk([&](Operation *op) {
    hasChecks |= op->getName().getStringRef() == "kiln.check";
  });
  bool foldConstantsGiven =
      llvm::any_of(keys.options, [](const std::string &o) {
        return llvm::StringRef(o).starts_with("fold-constants=");
      });
  if (hasChecks && !foldConstantsGiven)
    keys.options.push_back("fold-constants=false");
  // The cache, when asked for: its settings (target, options) key the
  // graph as precompile keys it.
  std::unique_ptr<kiln::TieredCache> cache;
  bool useCache = !options.cacheDir.empty() || !options.remotes.empty();
  if (useCache && options.compare) {
    llvm::errs() << "kiln run: error: --compare compiles the graph beside the "
                    "evaluator; --cache-dir runs the cached artifact\n";
    return ExitInputError;
  }
  if (useCache) {
    llvm::Expected<std::string> directory =
        kiln::resolveCacheDirectory(options.cacheDir);
    llvm::Expected<kiln::Settings> settings =
        directory ? kiln::loadCommandSettings(
                        *directory, {options.cacheDir, options.remotes,
                                     options.signatures})
                  : llvm::Expected<kiln::Settings>(directory.takeError());
    if (!settings) {
      llvm::errs() << "kiln run: error: "
                   << llvm::toString(settings.takeError()) << "\n";
      return ExitInputError;
    }
    kiln::applyKeySettings(*settings, keys);
    auto opened = kiln::openTieredCache(*directory, *settings,
                                        kiln::Cache::OpenOptions(), "kiln run");
    if (!opened) {
      llvm::errs() << "kiln run: error: "
                   << llvm::toString(opened.takeError()) << "\n";
      return ExitInputError;
    }
    cache = std::move(*opened);
  }
  std::string canonical;
  if (!kiln::canonicalizeKeyOptions(keys, canonical))
    return ExitInputError;
  func::FuncOp entry = kiln::getEntryFunction(*module);
  if (!entry) {
    llvm::errs() << options.input << ": error: no public function to run\n";
    return ExitInputError;
  }
  // Parameters are made on the host first (8 or 16 bytes an element): a
  // graph with model-sized ones is refused before anything is allocated.
  double parameterBytes = 0;
  for (Type type : entry.getArgumentTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (tensor.hasStaticShape())
        parameterBytes += 16.0 * tensor.getNumElements();
  if (parameterBytes > 8e9) {
    llvm::errs() << llvm::formatv(
        "{0}: error: its parameters would take {1:f1} GB to make on the "
        "host; kiln compile builds its artifact without running it\n",
        options.input, parameterBytes / 1e9);
    return ExitInputError;
  }
  // The evaluator's limits, checked before anything is built.
  if (options.compare && failed(Evaluator(*module).checkSize(entry)))
    return ExitInputError;
  auto makeRandom = [&](size_t i, std::mt19937_64 &generator) {
    return randomArgument(entry.getArgument(i), generator);
  };
  FailureOr<std::vector<std::vector<HostTensor>>> arguments =
      makeArguments(options, entry.getArgumentTypes(), &context, makeRandom);
  if (failed(arguments))
    return ExitInputError;
  OwningOpRef<ModuleOp> reference;
  if (options.compare)
    reference = module->clone();
  llvm::Expected<std::unique_ptr<kiln::Executable>> executable = nullptr;
  if (cache) {
    // As a training job's real run takes it (CachedExecutable.h).
    llvm::Expected<kiln::CachedExecutable> loaded = kiln::loadThroughCache(
        *cache, *module, canonical, kiln::getKeyTarget(keys), options.input,
        options.inputText);
    if (!loaded) {
      executable = loaded.takeError();
    } else {
      if (!loaded->warning.empty())
        llvm::errs() << "kiln run: warning: " << loaded->warning << "\n";
      llvm::errs() << "kiln run: " << loaded->key << ": "
                   << loaded->description << "\n";
      executable = std::move(loaded->executable);
    }
  } else {
    FailureOr<kiln::CompiledGraph> compiled = kiln::compileLoadedGraph(
        *module, keys, canonical, kiln::EmitKind::Artifact, false);
    if (failed(compiled)) {
      llvm::errs() << options.input
                   << ": error: the graph was not compiled (--interpret runs "
                      "it on the evaluator)\n";
      return ExitSomeFailed;
    }
    executable = kiln::Executable::load(
        kiln::writeArtifact(compiled->manifest, compiled->objects));
  }
  if (!executable) {
    llvm::errs() << "kiln run: error: "
                 << llvm::toString(executable.takeError()) << "\n";
    return ExitSomeFailed;
  }
  FailureOr<std::vector<std::vector<HostTensor>>> outputs =
      runCompiledRanks(**executable, *arguments, options.ranks, &context);
  if (failed(outputs))
    return ExitInputError;
  const kiln::ArtifactManifest &manifest = (*executable)->getManifest();
  unsigned failedChecks = printCompiledChecks(manifest, *outputs, &context);
  std::vector<std::vector<HostTensor>> results =
      getGraphResults(manifest, *outputs);
  if (options.compare) {
    EvaluatorOptions evaluatorOptions;
    if (options.maxWork > 0)
      evaluatorOptions.maxWork = options.maxWork;
    std::vector<std::vector<HostTensor>> expected;
    if (options.ranks > 1) {
      FailureOr<std::vector<std::vector<HostTensor>>> out =
          runRanks(*reference, options.ranks, *arguments, evaluatorOptions);
      if (failed(out))
        return ExitInputError;
      expected = std::move(*out);
    } else {
      Evaluator referenceEvaluator(*reference, evaluatorOptions);
      FailureOr<std::vector<HostTensor>> out = referenceEvaluator.call(
          referenceEvaluator.getEntry(), arguments->front());
      if (failed(out))
        return ExitInputError;
      expected.push_back(std::move(*out));
    }
    for (int rank = 0; rank < options.ranks; ++rank)
      for (auto [i, pair] :
           llvm::enumerate(llvm::zip(results[rank], expected[rank]))) {
        auto [got, want] = pair;
        if (got.kind == ElementKind::Token)
          continue;
        ResultError error = compareResults(got, want);
        std::string type;
        llvm::raw_string_ostream(type) << got.type;
        llvm::outs() << llvm::formatv(
            "{5}result {0}: {1}  max abs error {2}  max rel error {3}{4}\n", i,
            type, formatNumber(error.absolute), formatNumber(error.relative),
            error.nanMismatches
                ? llvm::formatv("  {0} NaN mismatches", error.nanMismatches)
                      .str()
                : std::string(),
            options.ranks > 1 ? "rank " + std::to_string(rank) + " " : "");
      }
    return failedChecks ? ExitSomeFailed : ExitSuccess;
  }
  if (int status = printResults(options, results))
    return status;
  return failedChecks ? ExitSomeFailed : ExitSuccess;
}

int runArtifact(const kiln::RunOptions &options, llvm::StringRef bytes) {
  if (options.interpret || options.compare) {
    llvm::errs() << "kiln run: error: " << options.input
                 << " is an artifact: --interpret and --compare need the "
                    "graph\n";
    return ExitInputError;
  }
  auto executable = kiln::Executable::load(bytes);
  if (!executable) {
    // A malformed artifact is bad input; one this machine cannot run (its
    // architecture, its CPU features) is not.
    std::string message = llvm::toString(executable.takeError());
    llvm::errs() << options.input << ": error: " << message << "\n";
    return llvm::StringRef(message).starts_with("malformed artifact")
               ? ExitInputError
               : ExitSomeFailed;
  }
  MLIRContext context(options.ranks > 1 ? MLIRContext::Threading::ENABLED
                                        : MLIRContext::Threading::DISABLED);
  kiln::registerCompilerDialects(context);
  const kiln::ArtifactManifest &manifest = (*executable)->getManifest();
  // Parameters and results are held on the host too (up to 16 bytes an
  // element): an artifact whose buffers could not be is refused first.
  double hostBytes = 0;
  for (const std::vector<kiln::BufferSpec> *buffers :
       {&manifest.inputs, &manifest.outputs})
    for (const kiln::BufferSpec &buffer : *buffers) {
      double elements = 1;
      for (int64_t size : buffer.shape)
        elements *= size;
      hostBytes += 16.0 * elements + buffer.bytes;
    }
  if (hostBytes * options.ranks > 8e9) {
    llvm::errs() << llvm::formatv(
        "{0}: error: its parameters and results would take {1:f1} GB on the "
        "host; kiln run runs artifacts of up to 8 GB\n",
        options.input, hostBytes * options.ranks / 1e9);
    return ExitInputError;
  }
  SmallVector<Type> types;
  for (const kiln::BufferSpec &input : manifest.inputs) {
    Type type = parseType(input.type, &context);
    if (!type) {
      llvm::errs() << options.input << ": error: a parameter of unknown type "
                   << input.type << "\n";
      return ExitInputError;
    }
    types.push_back(type);
  }
  auto makeRandom = [&](size_t i, std::mt19937_64 &generator) {
    return randomTensor(types[i], std::nullopt, generator);
  };
  FailureOr<std::vector<std::vector<HostTensor>>> arguments =
      makeArguments(options, types, &context, makeRandom);
  if (failed(arguments))
    return ExitInputError;
  FailureOr<std::vector<std::vector<HostTensor>>> outputs =
      runCompiledRanks(**executable, *arguments, options.ranks, &context);
  if (failed(outputs))
    return ExitInputError;
  unsigned failedChecks = printCompiledChecks(manifest, *outputs, &context);
  if (int status = printResults(options, getGraphResults(manifest, *outputs)))
    return status;
  return failedChecks ? ExitSomeFailed : ExitSuccess;
}

/// The keys an artifact must be signed by to run here (none: any runs):
/// --trusted-key, else KILN_TRUSTED_KEYS, else trusted-keys in the cache's
/// or the user's kiln.conf; require-signatures = off turns it off.
llvm::Expected<std::vector<kiln::TrustedKey>>
loadRunTrust(const kiln::RunOptions &options) {
  llvm::Expected<std::string> directory =
      kiln::resolveCacheDirectory(options.cacheDir);
  if (!directory)
    return directory.takeError();
  kiln::SignatureOptions signatures = options.signatures;
  llvm::Expected<kiln::Settings> settings = kiln::loadCommandSettings(
      *directory, {options.cacheDir, {}, signatures});
  if (!settings)
    return settings.takeError();
  // Running signs nothing: a node that may not read the secret key runs.
  settings->setFromOption("signing-key", "", "kiln run");
  llvm::Expected<kiln::TrustPolicy> trust = kiln::makeTrustPolicy(*settings);
  if (!trust)
    return trust.takeError();
  if (trust->requirement == kiln::SignatureRequirement::Off)
    return std::vector<kiln::TrustedKey>();
  return std::move(trust->trustedKeys);
}

} // namespace

int kiln::runRun(const RunOptions &given) {
  // The file is read once: a module of it (a split file's part) comes as
  // its text.
  RunOptions options = given;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (options.inputText.empty()) {
    std::string error;
    buffer = openInputFile(options.input, &error);
    if (!buffer) {
      llvm::errs() << options.input << ": error: " << error << "\n";
      return ExitInputError;
    }
  }
  llvm::StringRef bytes =
      buffer ? buffer->getBuffer() : llvm::StringRef(options.inputText);
  bool isEntry = bytes.starts_with(kArtifactHeaderMagic);
  if (isEntry || isArtifact(bytes)) {
    llvm::Expected<std::vector<TrustedKey>> trusted = loadRunTrust(options);
    if (!trusted) {
      llvm::errs() << "kiln run: error: " << llvm::toString(trusted.takeError())
                   << "\n";
      return ExitInputError;
    }
    if (isEntry) {
      // A cache entry (kiln cache get --signed): its header, checksum and,
      // where keys are trusted, signatures are checked before anything of
      // it is loaded.
      auto decoded = decodeArtifactFile(bytes);
      if (!decoded) {
        llvm::errs() << options.input << ": error: "
                     << llvm::toString(decoded.takeError()) << "\n";
        return ExitInputError;
      }
      const ArtifactHeader &header = decoded->first;
      if (!header.ok) {
        llvm::errs() << options.input
                     << ": error: the entry records a failed compilation, "
                        "not an artifact\n";
        return ExitInputError;
      }
      if (Hash128::of(decoded->second).toHex() != header.checksum) {
        llvm::errs() << options.input << ": error: the artifact does not "
                        "match its header's checksum\n";
        return ExitInputError;
      }
      if (!trusted->empty()) {
        SignatureCheck check =
            checkSignatures(header, decoded->second, *trusted);
        if (check.verdict != SignatureVerdict::Trusted) {
          llvm::errs() << options.input
                       << ": error: refused: the artifact has no trusted "
                          "signature ("
                       << check.reason << ")\n";
          return ExitInputError;
        }
      }
      return runArtifact(options, decoded->second);
    }
    if (!trusted->empty()) {
      llvm::errs() << options.input
                   << ": error: refused: a bare artifact carries no "
                      "signature, and keys are trusted (trusted-keys); run "
                      "the signed entry ('kiln cache get --signed')\n";
      return ExitInputError;
    }
    return runArtifact(options, bytes);
  }
  if (options.interpret && options.compare) {
    llvm::errs() << "kiln run: error: --compare runs compiled code beside the "
                    "evaluator; --interpret runs the evaluator alone\n";
    return ExitInputError;
  }
  // A file of several modules separated by `// -----` lines (StableHLO's
  // test files, MLIR's split-input-file form): each runs on its own, and
  // the worst status is the file's.
  if (given.inputText.empty() && bytes.contains("\n// -----")) {
    llvm::SmallVector<llvm::StringRef> pieces;
    bytes.split(pieces, "\n// -----");
    int worst = ExitSuccess;
    unsigned line = 1;
    for (auto [i, piece] : llvm::enumerate(pieces)) {
      RunOptions part = options;
      part.inputText = std::string(line - 1, '\n') + piece.str();
      // The separator line's own rest is a comment's.
      if (i > 0)
        part.inputText.insert(line - 1, "//");
      llvm::outs() << "== " << options.input << ": module " << i + 1 << " of "
                   << pieces.size() << " (line " << line << ")\n";
      llvm::outs().flush();
      int status = runRun(part);
      worst = std::max(worst, status);
      line += piece.count('\n') + 1;
    }
    return worst;
  }
  if (options.inputText.empty())
    options.inputText = bytes.str();
  if (options.interpret)
    return runInterpreted(options);
  return runCompiled(options);
}
