//===- StableHloBench.cpp - kiln-bench stablehlo ----------------*- C++ -*-===//
//
// This file implements `kiln-bench stablehlo`: the conformance run over
// StableHLO's JAX-generated golden programs. Every `*.mlir` file below the
// directory is imported (a file of `// -----`-separated modules imports
// when each of its modules does); the files are grouped by op family (the
// file name up to its first element type or number: `scatter_add`, `abs`,
// `interpret/while`); per family it prints how many imported, then every
// file that did not with its first error, then the import speed against
// HLO text's, measured in the same run.
//
//===----------------------------------------------------------------------===//

#include "StableHloBench.h"

#include "BenchFiles.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Export/Hlo/HloExporter.h"
#include "kiln/Import/Hlo/HloImporter.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Interpreter/Evaluator.h"
#include "kiln/Runtime/Collectives.h"
#include "kiln/Runtime/Executable.h"
#include "kiln/Signature/Signature.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <optional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kiln;
using namespace kiln::bench;

namespace {

using Clock = std::chrono::steady_clock;

/// `scatter_add_bfloat16_1_125_bfloat16_1` -> `scatter_add`;
/// `interpret/while.mlir` -> `interpret/while`.
std::string familyOf(llvm::StringRef relative) {
  llvm::StringRef directory = llvm::sys::path::parent_path(relative);
  llvm::StringRef stem = llvm::sys::path::stem(relative);
  static const char *kTypeWords[] = {
      "float",  "bfloat", "int", "uint", "bool", "complex",
      "i1",     "f8",     "ui",  "si",   "chlo", "shape",
      "dtypes", "f16",    "f32", "f64",  "bf16"};
  llvm::SmallVector<llvm::StringRef> words;
  stem.split(words, '_');
  std::string family;
  if (directory != "interpret") {
    for (llvm::StringRef word : words) {
      if (word.empty() || llvm::isDigit(word.front()))
        break;
      bool typeWord = false;
      for (const char *prefix : kTypeWords)
        if (word.starts_with(prefix) && (word.size() == strlen(prefix) ||
                                         llvm::isDigit(word[strlen(prefix)])))
          typeWord = true;
      if (typeWord)
        break;
      family += (family.empty() ? "" : "_") + word.str();
    }
  }
  if (family.empty())
    family = stem.str();
  return directory.empty() ? family : (directory + "/" + family).str();
}

struct FileResult {
  std::string relative;
  bool ok = false;
  std::string firstError;
  /// Whether each module exported to HLO text that imports again with the
  /// same signature; else the first reason it did not.
  bool exported = false;
  std::string firstExportError;
  /// Whether each module's entry ran (evaluated) and all its checks passed
  /// (passed); else the first reason.
  bool evaluated = false;
  bool passed = false;
  std::string firstEvaluationError;
  /// Whether each module compiled, and its checks passed when run.
  bool compiled = false;
  bool compiledPassed = false;
  std::string firstCompileError;
  double compileSeconds = 0;
  uint64_t bytes = 0;
  double seconds = 0;
};

/// The first line of what a failing step reported.
std::string firstLine(llvm::StringRef diagnostics) {
  std::string line = diagnostics.split('\n').first.str();
  return line.empty() ? "(no diagnostic)" : line;
}

/// `file:line:col` of `loc` as kiln's errors print it (with the source
/// line and op_name of an imported dump), or MLIR's spelling of a location
/// that names no file.
std::string where(mlir::Location loc) {
  std::string text = describeHloLocation(loc);
  if (text.empty())
    llvm::raw_string_ostream(text) << loc;
  return text;
}

/// Exports `module` to HLO text, imports that again and compares the two
/// signatures; returns the empty string when they are equal, else why not.
std::string checkExportRoundTrip(mlir::ModuleOp module,
                                 mlir::MLIRContext &context) {
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        diagnosticStream << where(diagnostic.getLocation()) << ": "
                         << diagnostic.str() << "\n";
        return mlir::success();
      });
  mlir::FailureOr<GraphSignature> original = computeSignature(module);
  if (mlir::failed(original))
    return "signature: " + firstLine(diagnostics);
  std::string hloText;
  llvm::raw_string_ostream hloStream(hloText);
  if (mlir::failed(exportHloText(module, hloStream)))
    return "export: " + firstLine(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(hloText, "exported.hlo"),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> again = importHloText(sourceMgr, &context);
  if (!again)
    return "import of the exported HLO text: " + firstLine(diagnostics);
  mlir::FailureOr<GraphSignature> reimported = computeSignature(*again);
  if (mlir::failed(reimported))
    return "signature of the exported HLO text: " + firstLine(diagnostics);
  if (!(reimported->signature == original->signature))
    return "the exported HLO text has another signature";
  return "";
}

/// Runs `module`'s entry with the evaluator; returns the empty string when
/// every check passed. `ran` tells whether it ran to its end.
std::string evaluateModule(mlir::ModuleOp module, mlir::MLIRContext &context,
                           bool &ran, llvm::StringRef runArguments) {
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        diagnosticStream << where(diagnostic.getLocation()) << ": "
                         << diagnostic.str() << "\n";
        return mlir::success();
      });
  ran = false;
  interp::Evaluator evaluator(module);
  mlir::func::FuncOp entry = evaluator.getEntry();
  if (!entry)
    return "no entry function";
  // Parameters come from the file's RUN line (`--args="[...]"`), as
  // StableHLO's interpreter takes them.
  std::vector<interp::HostTensor> arguments;
  if (entry.getNumArguments() != 0) {
    if (runArguments.empty())
      return "the entry takes parameters";
    std::string error;
    mlir::FailureOr<std::vector<interp::HostTensor>> parsed =
        interp::parseTensorList(runArguments, &context, error);
    if (mlir::failed(parsed))
      return "--args of the RUN line: " + error;
    arguments = std::move(*parsed);
  }
  mlir::FailureOr<std::vector<interp::HostTensor>> results =
      evaluator.call(entry, arguments);
  if (mlir::failed(results))
    return "evaluation: " + firstLine(diagnostics);
  ran = true;
  bool hasChecks = false;
  module.walk([&](mlir::Operation *op) {
    hasChecks |= op->getName().getStringRef() == "kiln.check";
  });
  if (hasChecks && evaluator.getChecks().empty())
    return "no check ran";
  for (const interp::CheckOutcome &check : evaluator.getChecks())
    if (!check.passed) {
      return llvm::formatv("check {0} failed on {1} of {2} elements, worst "
                           "{3} at {4} ({5})",
                           check.comparison, check.failing, check.elements,
                           interp::formatNumber(check.worstError), check.worst,
                           where(check.loc))
          .str();
    }
  return "";
}

/// Runs `work` in a child process (a crash of the compiler or of the code
/// costs one file, not the run) and returns what it answered: a status
/// character, then a message. `work` answers by calling its argument,
/// which ends the child.
std::string askChild(llvm::function_ref<
                     void(llvm::function_ref<void(char, const std::string &)>)>
                         work) {
  int pipeEnds[2];
  if (pipe(pipeEnds) != 0)
    return "Nno pipe for the child process";
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t child = fork();
  if (child < 0)
    return "Nno child process";
  if (child == 0) {
    close(pipeEnds[0]);
    auto answer = [&](char status, const std::string &message) {
      std::string text = status + message;
      ssize_t written = write(pipeEnds[1], text.data(), text.size());
      (void)written;
      _exit(0);
    };
    work(answer);
    answer('N', "the child process gave no answer");
  }
  close(pipeEnds[1]);
  std::string reply;
  char buffer[4096];
  ssize_t got;
  while ((got = read(pipeEnds[0], buffer, sizeof(buffer))) > 0)
    reply.append(buffer, got);
  close(pipeEnds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (reply.empty())
    return WIFSIGNALED(status)
               ? llvm::formatv("Nthe compiler or the code crashed (signal {0})",
                               WTERMSIG(status))
                     .str()
               : "Nthe child process ended without an answer";
  return reply;
}

/// Compiles `module` with the CPU backend and runs its checks, in a child
/// process (a crash of the compiler or of the code costs one file, not the
/// run); returns the empty string when every check passed. `compiled`
/// tells whether it compiled.
std::string compileModule(mlir::ModuleOp module, mlir::MLIRContext &context,
                          bool &compiled, llvm::StringRef runArguments) {
  std::string reply = askChild([&](auto answer) {
    std::string diagnostics;
    llvm::raw_string_ostream diagnosticStream(diagnostics);
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diagnostic) {
          diagnosticStream << where(diagnostic.getLocation()) << ": "
                           << diagnostic.str() << "\n";
          return mlir::success();
        });
    std::vector<interp::HostTensor> arguments;
    if (!runArguments.empty()) {
      std::string error;
      auto parsed = interp::parseTensorList(runArguments, &context, error);
      if (mlir::failed(parsed))
        answer('N', "--args of the RUN line: " + error);
      arguments = std::move(*parsed);
    }
    llvm::Expected<TargetSpec> target = resolveTarget("", "");
    if (!target)
      answer('N', llvm::toString(target.takeError()));
    CpuCompileOptions options;
    options.target = *target;
    options.foldConstants = false;
    int64_t participants = getRunParallelParticipants(module);
    mlir::FailureOr<CompiledGraph> graph = compileForCpu(module, options);
    if (mlir::failed(graph))
      answer('N', "compile: " + firstLine(diagnostics));
    auto executable =
        Executable::load(writeArtifact(graph->manifest, graph->objects));
    if (!executable)
      answer('N', "load: " + llvm::toString(executable.takeError()));
    // A test harness's grid runs as that many participants, one thread
    // each; every participant ends with every program's results.
    llvm::Expected<std::vector<interp::HostTensor>> outputs =
        std::vector<interp::HostTensor>();
    if (participants > 1) {
      context.enableMultithreading(true);
      ParticipantGroup group(participants);
      std::vector<
          std::optional<llvm::Expected<std::vector<interp::HostTensor>>>>
          all(participants);
      std::vector<std::thread> threads;
      for (int64_t rank = 0; rank < participants; ++rank)
        threads.emplace_back([&, rank] {
          all[rank].emplace(
              (*executable)->run(arguments, &context, &group, rank));
          if (!*all[rank])
            group.abort();
        });
      for (std::thread &thread : threads)
        thread.join();
      for (int64_t rank = participants - 1; rank >= 0; --rank)
        if (rank == 0 || !*all[rank]) {
          outputs = std::move(*all[rank]);
          if (!outputs)
            break;
        }
    } else {
      outputs = (*executable)->run(arguments, &context);
    }
    if (!outputs)
      answer('C', "run: " + llvm::toString(outputs.takeError()));
    std::vector<interp::CheckOutcome> outcomes =
        compareChecks(graph->manifest, *outputs, &context);
    for (auto [check, outcome] : llvm::zip(graph->manifest.checks, outcomes))
      if (!outcome.passed)
        answer('C', llvm::formatv("check {0} failed on {1} of {2} elements, "
                                  "worst {3} at {4} ({5})",
                                  check.comparison, outcome.failing,
                                  outcome.elements,
                                  interp::formatNumber(outcome.worstError),
                                  outcome.worst, check.location)
                        .str());
    answer('P', "");
  });
  compiled = reply[0] != 'N';
  return reply.substr(1);
}

/// Compiles `module` with the CPU backend in a child process (a crash costs
/// one graph); the empty string when it compiled, else its first error as
/// `dump:line:col (source.py:line, op_name): message`.
std::string compileOnly(mlir::ModuleOp module, mlir::MLIRContext &context) {
  std::string reply = askChild([&](auto answer) {
    std::string first;
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diagnostic) {
          if (first.empty() &&
              diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
            first = where(diagnostic.getLocation()) + ": " + diagnostic.str();
          return mlir::success();
        });
    llvm::Expected<TargetSpec> target = resolveTarget("", "");
    if (!target)
      answer('N', llvm::toString(target.takeError()));
    CpuCompileOptions options;
    options.target = *target;
    if (mlir::failed(compileForCpu(module, options)))
      answer('N', first.empty() ? "not compiled" : first);
    answer('P', "");
  });
  return reply[0] == 'P' ? std::string() : reply.substr(1);
}

/// `module` once per public function that takes no parameters (a test
/// function of StableHLO's interpreter tests), each clone with the other
/// such functions erased; none when it has at most one (the module is its
/// own entry).
std::vector<mlir::OwningOpRef<mlir::ModuleOp>>
splitEntries(mlir::ModuleOp module) {
  std::vector<std::string> names;
  for (auto function : module.getOps<mlir::func::FuncOp>())
    if (function.isPublic() && !function.isExternal() &&
        function.getNumArguments() == 0 &&
        mlir::SymbolTable::symbolKnownUseEmpty(function, module))
      names.push_back(function.getSymName().str());
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> entries;
  if (names.size() <= 1)
    return entries;
  for (const std::string &name : names) {
    mlir::OwningOpRef<mlir::ModuleOp> clone = module.clone();
    for (auto function :
         llvm::make_early_inc_range(clone->getOps<mlir::func::FuncOp>()))
      if (function.getSymName() != name &&
          llvm::is_contained(names, function.getSymName().str()))
        function.erase();
    entries.push_back(std::move(clone));
  }
  return entries;
}

/// Imports one file (each of its `// -----` modules); with `roundTrip`,
/// exports each module to HLO text and imports it again; with `evaluate`,
/// runs each module's checks.
FileResult importFile(const std::string &path, const std::string &relative,
                      mlir::MLIRContext &context, bool roundTrip, bool evaluate,
                      bool compile) {
  FileResult result;
  result.relative = relative;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    result.firstError = path + ": " + buffer.getError().message();
    return result;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  result.bytes = text.size();
  // The first RUN line's `--args="[...]"`, the entry's parameters.
  llvm::StringRef runArguments;
  if (text.starts_with("// RUN:")) {
    llvm::StringRef runLine = text.split('\n').first;
    size_t at = runLine.find("--args=\"");
    if (at != llvm::StringRef::npos)
      runArguments = runLine.drop_front(at + 8).split('"').first;
  }
  llvm::SmallVector<llvm::StringRef> pieces;
  text.split(pieces, "\n// -----");
  result.ok = true;
  result.exported = roundTrip;
  result.evaluated = result.passed = evaluate;
  result.compiled = result.compiledPassed = compile;
  double roundTripSeconds = 0;
  auto start = Clock::now();
  for (llvm::StringRef piece : pieces) {
    std::string diagnostics;
    llvm::raw_string_ostream os(diagnostics);
    // Each piece keeps its lines' numbers: the ones before it become
    // blank lines.
    std::string padded(std::count(text.begin(), piece.begin(), '\n'), '\n');
    padded += piece.str();
    mlir::OwningOpRef<mlir::ModuleOp> module = loadGraphBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(padded, path), &context, os);
    if (!module) {
      if (result.ok)
        result.firstError = firstLine(diagnostics);
      result.ok = false;
      result.exported = false;
      result.evaluated = result.passed = false;
      result.compiled = result.compiledPassed = false;
      continue;
    }
    auto roundTripStart = Clock::now();
    // A piece with several test functions (a `// // -----` that does not
    // split) runs each as its own entry, as StableHLO's interpreter does.
    std::vector<mlir::OwningOpRef<mlir::ModuleOp>> clones =
        splitEntries(*module);
    llvm::SmallVector<mlir::ModuleOp> entries;
    for (auto &clone : clones)
      entries.push_back(*clone);
    if (entries.empty())
      entries.push_back(*module);
    if (evaluate && result.passed) {
      for (mlir::ModuleOp entry : entries) {
        bool ran = false;
        std::string why = evaluateModule(entry, context, ran, runArguments);
        result.evaluated &= ran;
        if (!why.empty() && result.passed) {
          result.passed = false;
          result.firstEvaluationError = why;
        }
      }
    }
    if (compile && result.compiledPassed) {
      // Compilation lowers the module in place (in the child process that
      // compileModule forks): it comes after the others.
      auto compileStart = Clock::now();
      for (mlir::ModuleOp entry : entries) {
        bool compiled = false;
        std::string why = compileModule(entry, context, compiled, runArguments);
        result.compiled &= compiled;
        if (!why.empty() && result.compiledPassed) {
          result.compiledPassed = false;
          result.firstCompileError = why;
        }
      }
      result.compileSeconds +=
          std::chrono::duration<double>(Clock::now() - compileStart).count();
      roundTripSeconds +=
          std::chrono::duration<double>(Clock::now() - roundTripStart).count();
      continue;
    }
    if (!roundTrip || !result.exported) {
      roundTripSeconds +=
          std::chrono::duration<double>(Clock::now() - roundTripStart).count();
      continue;
    }
    std::string why = checkExportRoundTrip(*module, context);
    roundTripSeconds +=
        std::chrono::duration<double>(Clock::now() - roundTripStart).count();
    if (!why.empty()) {
      result.exported = false;
      result.firstExportError = why;
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count() -
                   roundTripSeconds;
  return result;
}

} // namespace

int kiln::bench::runStableHloBench(const StableHloBenchOptions &options,
                                   llvm::raw_ostream &os) {
  if (!llvm::sys::fs::is_directory(options.directory)) {
    llvm::errs() << "kiln-bench stablehlo: error: " << options.directory
                 << " is not a directory (the golden tests are in "
                    "../shared/stablehlo-testdata)\n";
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> files; // path, relative
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(options.directory, error),
       end;
       !error && it != end; it.increment(error)) {
    llvm::StringRef path = it->path();
    if (!path.ends_with(".mlir"))
      continue;
    llvm::StringRef relative = path.drop_front(options.directory.size());
    relative = relative.ltrim('/');
    files.push_back({path.str(), relative.str()});
  }
  llvm::sort(files);

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  struct FamilyCounts {
    unsigned imported = 0, exported = 0, evaluated = 0, passed = 0, files = 0;
    unsigned compiled = 0, compiledPassed = 0;
  };
  std::map<std::string, FamilyCounts> families;
  std::vector<FileResult> failures, exportFailures, evaluationFailures;
  unsigned imported = 0, countedOk = 0, counted = 0, exported = 0;
  unsigned evaluated = 0, passed = 0, countedPassed = 0;
  unsigned compiled = 0, compiledPassed = 0, countedCompiledPassed = 0;
  double compileSeconds = 0;
  std::vector<FileResult> compileFailures;
  if (options.compile) {
    mlir::DialectRegistry registry;
    registerCpuCompilerDialects(registry);
    context.appendDialectRegistry(registry);
  }
  double evaluationSeconds = 0;
  uint64_t importedBytes = 0;
  double importedSeconds = 0;
  for (const auto &[path, relative] : files) {
    auto fileStart = Clock::now();
    FileResult result =
        importFile(path, relative, context, options.exportRoundTrip,
                   options.evaluate, options.compile);
    evaluationSeconds +=
        std::chrono::duration<double>(Clock::now() - fileStart).count() -
        result.compileSeconds;
    compileSeconds += result.compileSeconds;
    FamilyCounts &family = families[familyOf(relative)];
    ++family.files;
    family.evaluated += result.evaluated;
    family.passed += result.passed;
    family.compiled += result.compiled;
    family.compiledPassed += result.compiledPassed;
    compiled += result.compiled;
    compiledPassed += result.compiledPassed;
    if (result.ok && options.compile && !result.compiledPassed)
      compileFailures.push_back(result);
    evaluated += result.evaluated;
    passed += result.passed;
    if (result.ok && options.evaluate && !result.passed)
      evaluationFailures.push_back(result);
    if (result.exported) {
      ++family.exported;
      ++exported;
    } else if (result.ok && options.exportRoundTrip) {
      exportFailures.push_back(result);
    }
    bool isDynamic = llvm::StringRef(relative).starts_with("dynamic/");
    if (!isDynamic) {
      ++counted;
      countedOk += result.ok;
      countedPassed += result.passed;
      countedCompiledPassed += result.compiledPassed;
    }
    if (result.ok) {
      ++family.imported;
      ++imported;
      importedBytes += result.bytes;
      importedSeconds += result.seconds;
    } else {
      failures.push_back(std::move(result));
    }
  }

  os << llvm::formatv("StableHLO golden tests in {0}: {1} files\n",
                      options.directory, files.size());
  bool roundTrip = options.exportRoundTrip;
  bool evaluate = options.evaluate;
  bool compile = options.compile;
  os << llvm::format("  %-40s %8s %8s", "family", "files", "imported");
  if (roundTrip)
    os << llvm::format(" %8s", "exported");
  if (evaluate)
    os << llvm::format(" %9s %8s", "evaluated", "passed");
  if (compile)
    os << llvm::format(" %8s %8s", "compiled", "passed");
  os << "\n";
  for (const auto &[family, counts] : families) {
    if (!options.allFamilies && counts.imported == counts.files &&
        (!roundTrip || counts.exported == counts.files) &&
        (!evaluate || counts.passed == counts.files) &&
        (!compile || counts.compiledPassed == counts.files))
      continue;
    os << llvm::format("  %-40s %8u %8u", family.c_str(), counts.files,
                       counts.imported);
    if (roundTrip)
      os << llvm::format(" %8u", counts.exported);
    if (evaluate)
      os << llvm::format(" %9u %8u", counts.evaluated, counts.passed);
    if (compile)
      os << llvm::format(" %8u %8u", counts.compiled, counts.compiledPassed);
    os << "\n";
  }
  if (!options.allFamilies)
    os << "  (families where every file imported are left out; "
          "--all-families lists them)\n";
  double percent = counted ? 100.0 * countedOk / counted : 0;
  os << llvm::formatv("imported: {0} of {1} files; outside dynamic/: {2} of "
                      "{3} ({4:f1}%)\n",
                      imported, files.size(), countedOk, counted, percent);
  if (!failures.empty()) {
    os << "files that did not import, with their first error:\n";
    for (const FileResult &failure : failures)
      os << "  " << failure.relative << ": " << failure.firstError << "\n";
  }
  double passedPercent = counted ? 100.0 * countedPassed / counted : 0;
  if (evaluate) {
    os << llvm::formatv("evaluated by kiln's evaluator: {0} of the {1} "
                        "imported files ran, {2} passed all their checks; "
                        "outside dynamic/: {3} of {4} passed ({5:f1}%), in "
                        "{6:f1} s\n",
                        evaluated, imported, passed, countedPassed, counted,
                        passedPercent, evaluationSeconds);
    if (!evaluationFailures.empty()) {
      os << "imported files whose checks did not pass, with the first "
            "reason:\n";
      for (const FileResult &failure : evaluationFailures)
        os << "  " << failure.relative << ": " << failure.firstEvaluationError
           << "\n";
    }
  }
  double compiledPercent =
      counted ? 100.0 * countedCompiledPassed / counted : 0;
  if (compile) {
    os << llvm::formatv("compiled by kiln's CPU backend: {0} of the {1} "
                        "imported files compiled, {2} passed all their checks "
                        "when run; outside dynamic/: {3} of {4} passed "
                        "({5:f1}%), in {6:f1} s\n",
                        compiled, imported, compiledPassed,
                        countedCompiledPassed, counted, compiledPercent,
                        compileSeconds);
    if (!compileFailures.empty()) {
      os << "imported files that did not compile or pass, with the first "
            "reason:\n";
      for (const FileResult &failure : compileFailures)
        os << "  " << failure.relative << ": " << failure.firstCompileError
           << "\n";
    }
    // The real graphs: which of them compile, and where the others stop.
    std::vector<BenchFile> corpus;
    for (const std::string &path : options.hloCorpus)
      collectFiles(path, corpus);
    unsigned corpusCompiled = 0;
    std::vector<std::string> corpusFailures;
    for (const BenchFile &file : corpus) {
      std::string diagnostics;
      llvm::raw_string_ostream diagnosticStream(diagnostics);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          loadGraph(file.path, &context, diagnosticStream);
      std::string failure = module ? compileOnly(*module, context)
                                   : "import: " + firstLine(diagnostics);
      if (failure.empty())
        ++corpusCompiled;
      else
        corpusFailures.push_back(file.path + ": " + failure);
    }
    if (!corpus.empty()) {
      os << llvm::formatv("corpus graphs ({0}) compiled by the CPU backend: "
                          "{1} of {2}\n",
                          llvm::join(options.hloCorpus, ", "), corpusCompiled,
                          corpus.size());
      for (const std::string &failure : corpusFailures)
        os << "  " << failure << "\n";
    }
  }
  if (roundTrip) {
    os << llvm::formatv("exported to HLO text and imported again with the "
                        "same signature: {0} of the {1} imported files "
                        "({2:f1}%)\n",
                        exported, imported,
                        imported ? 100.0 * exported / imported : 0.0);
    if (!exportFailures.empty()) {
      os << "imported files that did not, with the first reason:\n";
      for (const FileResult &failure : exportFailures)
        os << "  " << failure.relative << ": " << failure.firstExportError
           << "\n";
    }
  }

  // Speed against HLO text, in this run.
  if (importedSeconds > 0) {
    os << llvm::formatv("StableHLO import: {0:f2} MB in {1:f1} ms, {2:f1} "
                        "MB/s (the imported files, one thread)\n",
                        importedBytes / 1e6, importedSeconds * 1e3,
                        importedBytes / 1e6 / importedSeconds);
    if (compile)
      os << "  (slowed by --compile: after each child process is forked, the "
            "pages this process writes are copied; measure import speed "
            "without it)\n";
    std::vector<BenchFile> hloFiles;
    for (const std::string &path : options.hloCorpus)
      collectFiles(path, hloFiles);
    uint64_t hloBytes = 0;
    double hloSeconds = 0;
    for (const BenchFile &file : hloFiles) {
      auto start = Clock::now();
      std::string diagnostics;
      llvm::raw_string_ostream diagnosticStream(diagnostics);
      uint64_t bytes = 0;
      mlir::OwningOpRef<mlir::ModuleOp> module =
          loadGraph(file.path, &context, diagnosticStream, &bytes);
      if (!module)
        continue;
      hloSeconds += std::chrono::duration<double>(Clock::now() - start).count();
      hloBytes += bytes;
    }
    if (hloSeconds > 0)
      os << llvm::formatv(
          "HLO text import, same run: {0:f2} MB in {1:f1} "
          "ms, {2:f1} MB/s; StableHLO/HLO speed: {3:f2}\n",
          hloBytes / 1e6, hloSeconds * 1e3, hloBytes / 1e6 / hloSeconds,
          (importedBytes / importedSeconds) / (hloBytes / hloSeconds));
  }
  if (options.requirePercent > 0 && percent < options.requirePercent) {
    os << llvm::formatv("below the required {0:f1}%\n", options.requirePercent);
    return 1;
  }
  if (options.requirePassedPercent > 0 && evaluate &&
      passedPercent < options.requirePassedPercent) {
    os << llvm::formatv("passed {0:f1}% of the files outside dynamic/, below "
                        "the required {1:f1}%\n",
                        passedPercent, options.requirePassedPercent);
    return 1;
  }
  if (options.requireCompiledPercent > 0 && compile &&
      compiledPercent < options.requireCompiledPercent) {
    os << llvm::formatv("compiled and passed {0:f1}% of the files outside "
                        "dynamic/, below the required {1:f1}%\n",
                        compiledPercent, options.requireCompiledPercent);
    return 1;
  }
  double exportedPercent = imported ? 100.0 * exported / imported : 0;
  if (options.requirePercent > 0 && roundTrip &&
      exportedPercent < options.requirePercent) {
    os << llvm::formatv("exported {0:f1}% of the imported files, below the "
                        "required {1:f1}%\n",
                        exportedPercent, options.requirePercent);
    return 1;
  }
  return 0;
}
