//===- kiln.cpp - the kiln command ------------------------------*- C++ -*-===//
//
// This file implements the command line of `kiln`, the user's entry point:
// it parses options with CLI11 and hands each subcommand to its function.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{
      "kiln: an ahead-of-time compile cache for training-step graphs.\n"
      "Imports the graphs that JAX and PyTorch/XLA dump (HLO text) into an\n"
      "MLIR dialect, so that they can be keyed, checked against a shared\n"
      "cache and compiled before training starts.\n\n"
      "Exit codes: 0 success, 1 some graphs failed, 2 usage or input "
      "errors.\n",
      "kiln"};
  app.set_version_flag("--version", kiln::getVersionString());
  app.require_subcommand(1);

  kiln::ImportOptions importOptions;
  CLI::App *import = app.add_subcommand(
      "import", "Import HLO text files into the kiln dialect.\n"
                "With one file, prints the module (or writes it with -o);\n"
                "with --summary, prints what each graph holds.");
  import->add_option("files", importOptions.inputs, "HLO text files (.hlo)")
      ->required()
      ->check(CLI::ExistingFile);
  import->add_option("-o,--output", importOptions.output,
                     "Where to write the MLIR module ('-' for stdout)");
  import->add_flag("--summary", importOptions.summary,
                   "Print one summary line per graph and a total, not the "
                   "module");
  import->add_flag("--json", importOptions.json,
                   "With --summary: print a JSON report instead of text");
  import->add_flag("--debug-info", importOptions.printDebugInfo,
                   "Print locations (HLO positions, Python source lines)");

  kiln::HashOptions hashOptions;
  CLI::App *hash = app.add_subcommand(
      "hash", "Print the signature and cache key of each graph.\n"
              "The signature ignores names, metadata and source lines; the\n"
              "key adds target, compile options, compiler and cache format.");
  hash->add_option("files", hashOptions.inputs, "Graphs (.hlo or .mlir)")
      ->required()
      ->check(CLI::ExistingFile);
  hash->add_flag("--json", hashOptions.json,
                 "Print JSON with every part of each key");
  hash->add_option("-j,--jobs", hashOptions.jobs,
                   "Graphs hashed in parallel (default: one per core)");
  hash->add_option("--option", hashOptions.options,
                   "Compile option K=V that is part of the key (repeatable)");
  hash->add_option("--target", hashOptions.targetTriple,
                   "Target triple of the key (default: this machine)");
  hash->add_option("--cpu", hashOptions.cpu,
                   "Target CPU of the key (default: this machine's, with its "
                   "features)");

  kiln::DiffOptions diffOptions;
  CLI::App *diff = app.add_subcommand(
      "diff", "Compare two graphs: prints 'same computation' (exit 0) or\n"
              "the first op that differs, with both versions and their\n"
              "source locations (exit 1).");
  diff->add_option("first", diffOptions.first, "First graph")
      ->required()
      ->check(CLI::ExistingFile);
  diff->add_option("second", diffOptions.second, "Second graph")
      ->required()
      ->check(CLI::ExistingFile);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    int code = app.exit(error);
    // CLI11 uses 0 for --help and --version; any other parse problem is a
    // usage error.
    return code == 0 ? kiln::ExitSuccess : kiln::ExitInputError;
  }

  if (import->parsed()) {
    if (importOptions.inputs.size() > 1)
      importOptions.summary = true;
    if (importOptions.json && !importOptions.summary) {
      std::cerr << "kiln import: error: --json needs --summary\n";
      return kiln::ExitInputError;
    }
    return kiln::runImport(importOptions);
  }
  if (hash->parsed())
    return kiln::runHash(hashOptions);
  if (diff->parsed())
    return kiln::runDiff(diffOptions);
  return kiln::ExitInputError;
}
