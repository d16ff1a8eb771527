//===- Commands.h - the kiln command's subcommands --------------*- C++ -*-===//
//
// This file declares the subcommands of `kiln`. Command-line parsing (CLI11,
// which needs C++ exceptions) stays in kiln.cpp; the subcommands are plain
// functions compiled like the rest of kiln, without exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_COMMANDS_H
#define KILN_TOOLS_KILN_COMMANDS_H

#include <string>
#include <vector>

namespace kiln {

/// Exit codes shared by every subcommand (DESIGN.md): 0 success, 1 some
/// graphs failed or missed, 2 usage or input errors.
enum ExitCode { ExitSuccess = 0, ExitSomeFailed = 1, ExitInputError = 2 };

struct ImportOptions {
  std::vector<std::string> inputs;
  std::string output = "-";
  bool summary = false;
  bool json = false;
  bool printDebugInfo = false;
};

/// `kiln import`: HLO text to the kiln dialect, or a summary of each graph.
int runImport(const ImportOptions &options);

/// The version line printed by `kiln --version`.
std::string getVersionString();

} // namespace kiln

#endif // KILN_TOOLS_KILN_COMMANDS_H
