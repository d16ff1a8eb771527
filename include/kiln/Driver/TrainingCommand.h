//===- TrainingCommand.h - graphs from a trial run of training --*- C++ -*-===//
//
// This file declares how `kiln precompile -- COMMAND` gets a job's graphs:
// the training command runs with XLA's dump flags added to XLA_FLAGS, and
// the modules it wrote are collected from the dump directory. The file
// system is the graph list: nothing is parsed out of the command's output.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_TRAININGCOMMAND_H
#define KILN_DRIVER_TRAININGCOMMAND_H

#include "kiln/Driver/ChildProcess.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln {

/// XLA_FLAGS for the trial run: the user's own flags, then
/// `--xla_dump_to=DIR --xla_dump_hlo_as_text` (XLA takes the last value of
/// a flag, so kiln's dump directory wins over one the user set).
std::string addXlaDumpFlags(llvm::StringRef userFlags,
                            llvm::StringRef dumpDirectory);

/// The environment the trial run gets on top of this process's: XLA_FLAGS
/// as above, and KILN_EXTRACT_ONLY=1, which a training script may read to
/// stop once its graphs are traced.
std::vector<std::string> getTrialRunEnvironment(llvm::StringRef dumpDirectory);

/// How long kiln waits for processes that a training command left running
/// when no --command-timeout bounds the wait.
constexpr double kDefaultLeftoverSeconds = 60;

/// Runs `command` (its output goes to this process's) with the trial-run
/// environment and waits for it. With `timeoutSeconds`, a command that
/// runs longer is killed with its whole process group (it runs in a group
/// of its own then) and `timedOut` is set. Processes the command leaves
/// running (a child that outlives it, one that left its group) may still
/// be writing dumps: this process adopts them as a subreaper and waits for
/// them too, up to the timeout (else kDefaultLeftoverSeconds after the
/// command's end), then kills those still running; `messages` hears which
/// and how that ended.
llvm::Expected<ChildExit>
runTrainingCommand(const std::vector<std::string> &command,
                   llvm::StringRef dumpDirectory, double timeoutSeconds = 0,
                   bool *timedOut = nullptr,
                   llvm::raw_ostream *messages = nullptr);

/// Whether a file found in a directory is a graph to key and compile:
/// `*.hlo`, `*.mlir`, and `*.txt` but XLA's dump products that are not the
/// framework's graph (`module_NNNN.*.txt` other than
/// `*.before_optimizations.txt`: optimized modules, buffer assignments,
/// memory reports).
bool isGraphFileName(llvm::StringRef path);

/// The modules XLA dumped under `dumpDirectory`, searched recursively, in
/// a stable order: `*.before_optimizations.txt` (the graph as the framework
/// built it; XLA's optimized modules and its other reports are not graphs
/// to compile), and `*.hlo` and `*.mlir` files written there by other means.
/// Directories that cannot be read (a path past PATH_MAX, no permission)
/// are skipped, and named in `unreadable` with why.
std::vector<std::string>
collectDumpedModules(llvm::StringRef dumpDirectory,
                     std::vector<std::string> *unreadable = nullptr);

} // namespace kiln

#endif // KILN_DRIVER_TRAININGCOMMAND_H
