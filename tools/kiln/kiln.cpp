//===- kiln.cpp - the kiln command ------------------------------*- C++ -*-===//
//
// This file implements the command line of `kiln`, the user's entry point:
// it parses options with CLI11 and hands each subcommand to its function.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "kiln/Cache/Key.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

/// An allocation failed: say so and exit with kExitOutOfMemory, which a
/// precompile driver reports as its worker's memory limit (not a crash).
static void reportOutOfMemory(void *, const char *reason, bool) {
  static const char message[] = "kiln: error: out of memory (an allocation "
                                "failed: the memory limit was reached)\n";
  (void)!::write(2, message, sizeof(message) - 1);
  ::_exit(kiln::kExitOutOfMemory);
}

/// A number of seconds: finite and not negative ("nan" and "inf" are not
/// limits, and CLI11's NonNegativeNumber lets NaN through).
static const CLI::Validator kSeconds(
    [](std::string &text) -> std::string {
      char *end = nullptr;
      double value = std::strtod(text.c_str(), &end);
      if (text.empty() || *end || !std::isfinite(value) || value < 0)
        return "a number of seconds (0 or more), not '" + text + "'";
      return std::string();
    },
    "SECONDS");

int main(int argc, char **argv) {
  llvm::install_bad_alloc_error_handler(reportOutOfMemory);
  llvm::install_out_of_memory_new_handler();
  CLI::App app{
      "kiln: an ahead-of-time compile cache for training-step graphs.\n"
      "Imports the graphs that JAX and PyTorch/XLA dump (HLO text, StableHLO)\n"
      "into an MLIR dialect, so that they can be keyed, checked against a\n"
      "shared cache and compiled before training starts.\n\n"
      "Exit codes: 0 success, 1 some graphs failed, 2 usage or input "
      "errors.\n",
      "kiln"};
  app.set_version_flag("--version", kiln::getVersionString());
  app.require_subcommand(1);
  // A usage error is said as kiln's other errors are, `kiln SUBCOMMAND:
  // error: ...`, naming the command that was given.
  app.failure_message([](const CLI::App *parsed, const CLI::Error &error) {
    std::string command = parsed->get_name();
    for (std::vector<CLI::App *> subcommands = parsed->get_subcommands();
         !subcommands.empty();
         subcommands = subcommands.front()->get_subcommands())
      command += " " + subcommands.front()->get_name();
    return command + ": error: " + error.what() +
           "\nRun with --help for more information.\n";
  });

  kiln::ImportOptions importOptions;
  CLI::App *import = app.add_subcommand(
      "import", "Import graph files (HLO text, StableHLO or kiln MLIR, told\n"
                "apart by their content) into the kiln dialect.\n"
                "With one file, prints the module (or writes it with -o);\n"
                "with --summary, prints what each graph holds.");
  import
      ->add_option("files", importOptions.inputs,
                   "Graphs (HLO text, StableHLO), or directories searched "
                   "recursively as kiln cache check searches them")
      // A missing file is reported with the others; the rest go on.
      ->required();
  import->add_option("-o,--output", importOptions.output,
                     "Where to write the MLIR module ('-' for stdout)");
  import->add_flag("--summary", importOptions.summary,
                   "Print one summary line per graph and a total, not the "
                   "module");
  import->add_flag("--json", importOptions.json,
                   "With --summary: print a JSON report instead of text");
  import->add_flag("--debug-info", importOptions.printDebugInfo,
                   "Print locations (HLO positions, Python source lines)");

  std::string optionHelp = "One of kiln's compile options, K=V, part of the "
                           "key (repeatable): " +
                           kiln::describeKnownOptions();
  // What the key of a compiled graph is made of: compile options, target.
  // With `external`, also an external compiler's options (commands that
  // key artifacts they do not compile themselves).
  auto addCompileOptions = [&](CLI::App *sub, kiln::KeyOptions &keys,
                               bool external = false) {
    // One K=V per --option, so that a graph may follow it.
    sub->add_option("--option", keys.options, optionHelp)
        ->allow_extra_args(false);
    sub->add_flag("--no-fold-causal-mask", keys.noFoldCausalMask,
                  "Compile without folding causal masks (the option "
                  "fold-causal-mask=false, part of the key)");
    if (external) {
      sub->add_option("--compiler-option", keys.compilerOptions,
                      "An external compiler's option K=V, kept verbatim in "
                      "the key (repeatable)")
          ->allow_extra_args(false);
      sub->add_option("--compiler-version-cmd", keys.compilerVersionCommand,
                      "A shell command that prints an external compiler's "
                      "version: it replaces kiln's identity in the key, so "
                      "that two compiler versions never share an entry");
    }
    sub->add_option("--target", keys.targetTriple,
                    "Target triple the artifact is built for (default: this "
                    "machine's architecture and OS)");
    sub->add_option("--target-cpu,--cpu", keys.cpu,
                    "CPU the artifact is built for (default: the portable "
                    "level, x86-64-v3 on x86_64; 'native': this machine's)");
  };

  std::string remoteHelp =
      "A remote tier behind the local cache (repeatable, tried in order; "
      "instead of KILN_REMOTE_STORAGE and remote-storage in kiln.conf; '' "
      "for none): file:PATH, redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], "
      "redis+unix:SOCKET, http(s)://HOST/PATH, each optionally followed by "
      "|read-only, |connect-timeout=MS, |operation-timeout=MS, |prefix=TEXT, "
      "|expire=SECONDS (Redis), |bearer-token-file=PATH (HTTP)";
  // Signatures (kiln/Cache/Signing.h), on every command that reads or
  // writes entries.
  auto addSignatureOptions = [](CLI::App *command,
                                kiln::SignatureOptions &signatures,
                                bool signing = true) {
    if (signing)
      command->add_option("--signing-key", signatures.signingKey,
                          "Sign every entry written with this secret key "
                          "(kiln cache keygen; instead of KILN_SIGNING_KEY "
                          "and signing-key in kiln.conf)");
    command
        ->add_option("--trusted-key", signatures.trustedKeys,
                     "A public key NAME:BASE64 whose signatures are trusted "
                     "(repeatable; instead of KILN_TRUSTED_KEYS and "
                     "trusted-keys): entries from remote tiers count only "
                     "with a valid signature by one")
        ->allow_extra_args(false);
    command
        ->add_option("--require-signatures", signatures.requireSignatures,
                     "remote (the default with trusted keys): entries from "
                     "remote tiers need a trusted signature; all: the local "
                     "tier's too; off")
        ->check(CLI::IsMember({"remote", "all", "off"}));
  };

  kiln::CompileCommandOptions compileOptions;
  CLI::App *compile = app.add_subcommand(
      "compile", "Compile a graph to native code with kiln's CPU backend.\n"
                 "Writes an artifact (object code and manifest) with -o, or\n"
                 "stores it in a cache under the graph's key with\n"
                 "--cache-dir; --emit writes a stage's text instead.");
  compile
      ->add_option("file", compileOptions.input,
                   "The graph (HLO text, StableHLO, kiln MLIR)")
      ->required()
      ->check(CLI::ExistingFile);
  compile->add_option("-o,--output", compileOptions.output,
                      "Where to write the artifact (or the --emit text; '-' "
                      "for stdout)");
  compile
      ->add_option(
          "--emit", compileOptions.emit,
          "What to write: obj (the artifact, default), frontend "
          "(the kiln graph after the front end), mlir (the LLVM dialect), "
          "llvm (optimized LLVM IR), asm")
      ->check(CLI::IsMember({"obj", "frontend", "mlir", "llvm", "asm"}));
  compile->add_option("--cache-dir", compileOptions.cacheDir,
                      "Store the artifact in this cache under the graph's key");
  compile
      ->add_option("--remote", compileOptions.remotes,
                   "With --cache-dir: a remote tier that the artifact is "
                   "also stored in (repeatable; see kiln cache --help)")
      ->allow_extra_args(false);
  compile
      ->add_option("--expect-key", compileOptions.expectKey,
                   "Fail unless the graph's key is this one (kiln "
                   "precompile's workers)")
      ->group("");
  addSignatureOptions(compile, compileOptions.signatures);
  compile->add_flag("--timing", compileOptions.timing,
                    "Print MLIR's pass timing and the time of each stage");
  compile
      ->add_option("--threads", compileOptions.threads,
                   "Threads that compile a large graph's segments side by "
                   "side (default 0: one per core); the code is the same "
                   "for any number")
      ->check(CLI::Range(0, 1024));
  addCompileOptions(compile, compileOptions.keys);

  kiln::RunOptions runOptions;
  CLI::App *run = app.add_subcommand(
      "run", "Run a graph or an artifact.\n"
             "A graph is compiled by the CPU backend and run (--interpret:\n"
             "on the reference evaluator; --compare: both, with the error\n"
             "of each result). A graph with checks (StableHLO's golden\n"
             "programs) prints each check's outcome and exits 1 if one\n"
             "fails; parameters get seeded random values; each result is\n"
             "summarized, or written with -o.");
  run->add_option("file", runOptions.input,
                  "The graph (HLO text, StableHLO, "
                  "kiln MLIR), or an artifact")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_flag("--interpret", runOptions.interpret,
                "Run on the reference evaluator instead of compiled code");
  run->add_flag("--compare", runOptions.compare,
                "Run compiled code and the evaluator on the same parameters "
                "and print the largest absolute and relative error of each "
                "result");
  run->add_option("--seed", runOptions.seed,
                  "Seed of the parameters' random values (default 0)");
  run->add_option("-o,--output", runOptions.output,
                  "Write the results as NumPy arrays: FILE.npz (result_0, "
                  "result_1, ...) or, for one result, FILE.npy");
  run->add_option("--args", runOptions.arguments,
                  "The parameters' values instead of random ones: a list of "
                  "MLIR literals, \"[dense<1> : tensor<2xi32>, ...]\"");
  run->add_option("--inputs", runOptions.inputs,
                  "The parameters' values from NumPy arrays: FILE.npz with "
                  "arg_0, arg_1, ... (numpy.savez's arr_0, ... too; "
                  "rank_R_arg_N for rank R alone with --ranks), or FILE.npy "
                  "for a graph of one parameter")
      ->check(CLI::ExistingFile);
  run->add_option("--ranks", runOptions.ranks,
                  "Run N participants, one thread each, exchanging data at "
                  "collectives (partition_id gives each its number; every "
                  "rank gets the same parameters unless --inputs gives it "
                  "its own)")
      ->check(CLI::Range(1, 1024));
  addSignatureOptions(run, runOptions.signatures, /*signing=*/false);
  run->add_option("--cache-dir", runOptions.cacheDir,
                  "Load a graph's artifact from this cache (verified; "
                  "signed, where keys are trusted), or compile it and store "
                  "it there, keyed as precompile keys it; for an artifact, "
                  "the cache whose kiln.conf says which keys are trusted");
  run->add_option("--remote", runOptions.remotes,
                  "With a graph: remote tiers behind the local cache, read "
                  "through and written to (repeatable; as precompile's)");
  run->add_option("--max-work", runOptions.maxWork,
                  "Refuse graphs estimated to need more element operations "
                  "than this on the evaluator (default 2e10)");
  addCompileOptions(run, runOptions.keys);

  kiln::HashOptions hashOptions;
  CLI::App *hash = app.add_subcommand(
      "hash", "Print the signature and cache key of each graph.\n"
              "The signature ignores names, metadata and source lines; the\n"
              "key adds target, compile options, compiler and cache format.");
  hash->add_option("files", hashOptions.inputs,
                   "Graphs (.hlo, .txt dumps, .mlir), or directories searched "
                   "for them; a missing or unreadable one is reported and the "
                   "others are hashed")
      ->required();
  hash->add_flag("--json", hashOptions.json,
                 "Print JSON with every part of each key");
  hash->add_option("-j,--jobs", hashOptions.keys.jobs,
                   "Graphs hashed in parallel (default: one per core)")
      ->check(CLI::Range(1u, 4096u));
  addCompileOptions(hash, hashOptions.keys, /*external=*/true);

  kiln::DiffOptions diffOptions;
  CLI::App *diff = app.add_subcommand(
      "diff", "Compare two graphs: prints 'same computation' (exit 0) or\n"
              "what changed from the first to the second, in words (shape,\n"
              "element type, constant value, attribute, op kind, operand\n"
              "wiring, op added or missing), with both versions and their\n"
              "source locations (exit 1).");
  diff->add_option("first", diffOptions.first, "First graph")
      ->required()
      ->check(CLI::ExistingFile);
  diff->add_option("second", diffOptions.second, "Second graph")
      ->required()
      ->check(CLI::ExistingFile);
  diff->add_flag("--json", diffOptions.json, "Print every change as JSON");
  diff->add_option("--limit", diffOptions.limit,
                   "How many changes to print as text (default 20)");

  kiln::CacheOptions cacheOptions;
  CLI::App *cache = app.add_subcommand(
      "cache", "Inspect and maintain the compile cache (a directory:\n"
               "--cache-dir, else $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln,\n"
               "else ~/.cache/kiln).");
  cache->require_subcommand(1);
  auto common = [&](CLI::App *sub) {
    sub->add_option("--cache-dir", cacheOptions.cacheDir,
                    "Cache directory (default: $KILN_CACHE_DIR, else "
                    "$XDG_CACHE_HOME/kiln, else ~/.cache/kiln)");
    sub->add_flag("--json", cacheOptions.json, "Print JSON");
  };
  auto keyed = [&](CLI::App *sub) {
    addCompileOptions(sub, cacheOptions.keys, /*external=*/true);
  };
  auto remote = [&](CLI::App *sub) {
    sub->add_option("--remote", cacheOptions.remotes, remoteHelp)
        ->allow_extra_args(false);
  };
  CLI::App *check = cache->add_subcommand(
      "check", "Say for each graph whether it is cached: hit, miss (and why) "
               "or failed.\nHits are verified against their checksum.");
  // Missing files are reported per graph and counted, not a usage error:
  // the rest of the batch goes on.
  check
      ->add_option("graphs", cacheOptions.graphs,
                   "Graphs (.hlo, .txt dumps, .mlir) or directories, "
                   "searched recursively")
      ->required();
  check->add_flag("--require-all", cacheOptions.requireAll,
                  "Exit 1 unless every graph is a hit");
  check->add_flag("--no-verify", cacheOptions.noVerify,
                  "Do not recompute artifact checksums");
  check->add_flag("--fetch", cacheOptions.fetch,
                  "Copy hits found in a remote tier into the local cache, "
                  "so that the training run loads them from local disk");
  check->add_option("-j,--jobs", cacheOptions.keys.jobs,
                    "Graphs keyed in parallel (default: one per core)")
      ->check(CLI::Range(1u, 4096u));
  CLI::App *put = cache->add_subcommand(
      "put", "Store an artifact compiled elsewhere under a graph's key.");
  put->add_option("graph", cacheOptions.graph, "The graph")
      ->required()
      ->check(CLI::ExistingFile);
  put->add_option("artifact", cacheOptions.artifact,
                  "The compiled artifact (not with --failed)")
      ->check(CLI::ExistingFile);
  put->add_option("--compile-seconds", cacheOptions.compileSeconds,
                  "How long the compilation took (for statistics)");
  put->add_flag("--replace", cacheOptions.replace,
                "Replace an artifact cached under the key with other bytes "
                "(a conflict otherwise: exit 1, the cached one kept)");
  put->add_flag("--failed", cacheOptions.failed,
                "Record a failed compilation (with --log) instead of an "
                "artifact; it is not retried unless asked");
  put->add_option("--log", cacheOptions.log,
                  "With --failed: the compiler's output")
      ->check(CLI::ExistingFile);
  CLI::App *get = cache->add_subcommand(
      "get", "Fetch a graph's artifact, verified; exit 1 on a miss.");
  get->add_option("graph", cacheOptions.graph, "The graph")
      ->required()
      ->check(CLI::ExistingFile);
  get->add_option("-o,--output", cacheOptions.output, "Where to write it")
      ->required();
  get->add_flag("--signed", cacheOptions.signedEntry,
                "Write the whole entry, its header and signatures with it, "
                "for kiln run to check against the trusted keys");
  CLI::App *ls = cache->add_subcommand(
      "ls", "List the entries: key, status, size, hits, last use, target, "
            "options, graph.");
  ls->add_option("--sort", cacheOptions.sort,
                 "last-used (default, most recent first), size, hits or "
                 "graph");
  ls->add_option("--graph", cacheOptions.graphFilter,
                 "Only entries whose graph file name contains this text");
  CLI::App *stats = cache->add_subcommand(
      "stats", "Entries, bytes, hits, misses, compile time saved.");
  stats->add_flag("--zero", cacheOptions.zero,
                  "Reset the counters (hits, misses, corrupt artifacts "
                  "found, compile time saved) first");
  CLI::App *explain = cache->add_subcommand(
      "explain", "Say why a graph misses: which key part differs from the "
                 "nearest\ncached entry, or the first op that differs.");
  explain
      ->add_option("graph", cacheOptions.graph,
                   "The graph, or a directory: each graph in it")
      ->required()
      ->check(CLI::ExistingPath);
  CLI::App *verify = cache->add_subcommand(
      "verify", "Check every artifact against its checksum and look for "
                "files\nwithout entries; exit 1 if anything is wrong.");
  verify->add_flag("--repair", cacheOptions.repair,
                   "Remove corrupt entries and stray files");
  verify->add_flag("--rebuild-index", cacheOptions.rebuildIndex,
                   "Rebuild a missing or damaged index.db from the headers of "
                   "the artifact files (the old index is moved aside)");
  CLI::App *prune = cache->add_subcommand(
      "prune", "Remove least recently used entries down to a size.");
  prune
      ->add_option("--max-size", cacheOptions.maxSize,
                   "Size to keep, e.g. 500M, 20G")
      ->required();
  CLI::App *rm = cache->add_subcommand(
      "rm", "Remove entries, named by key (or a unique start of one) or by "
            "graph file.");
  rm->add_option("entries", cacheOptions.graphs, "Keys or graph files")
      ->required();
  CLI::App *clear = cache->add_subcommand("clear", "Remove every entry.");
  CLI::App *push = cache->add_subcommand(
      "push", "Copy local entries (artifacts and recorded failures) to every "
              "writable remote tier that lacks them.");
  push->add_option("keys", cacheOptions.graphs, "Keys to push");
  push->add_flag("--all", cacheOptions.all, "Push every local entry");
  CLI::App *pull = cache->add_subcommand(
      "pull", "Copy entries from the remote tiers into the local cache, "
              "verified.");
  pull->add_option("graphs", cacheOptions.graphs,
                   "Graphs (files or directories) or keys to pull");
  pull->add_flag("--all", cacheOptions.all,
                 "Pull every entry of the remote tiers that can list theirs "
                 "(file:, redis://)");
  CLI::App *log = cache->add_subcommand(
      "log", "Print a failed compilation's compiler output, as text.");
  log->add_option("entry", cacheOptions.graph,
                  "The entry's key, or the graph")
      ->required();
  CLI::App *sign = cache->add_subcommand(
      "sign", "Sign local entries with the signing key (and write them over "
              "their copies in the writable remote tiers).");
  sign->add_option("keys", cacheOptions.graphs, "Keys to sign");
  sign->add_flag("--all", cacheOptions.all, "Sign every local entry");
  CLI::App *keygen = cache->add_subcommand(
      "keygen", "Make an ed25519 key pair: the secret key goes to -o FILE "
                "(readable by you alone, never over an existing file), the "
                "public key NAME:BASE64 to stdout.");
  keygen->add_option("name", cacheOptions.keyName,
                     "The key's name, carried by its signatures (e.g. "
                     "cluster-a-1)")
      ->required();
  keygen->add_option("-o,--output", cacheOptions.output,
                     "Where the secret key goes")
      ->required();
  CLI::App *config = cache->add_subcommand(
      "config", "Show every setting and where it comes from (option, "
                "environment, the cache's kiln.conf, the user's kiln.conf, "
                "default), show one, or set one: NAME=VALUE (or NAME VALUE) "
                "writes the cache directory's kiln.conf; max-size SIZE (e.g. "
                "20G; 'none' removes it) is kept in the index and keeps the "
                "cache under SIZE after each put, least recently used first.");
  config->add_option("setting", cacheOptions.configName,
                     "max-size, remote-storage, compiler-cmd, "
                     "compiler-version-cmd, compiler-options, options, "
                     "target, target-cpu, signing-key, trusted-keys, "
                     "require-signatures; or NAME=VALUE");
  config->add_option("value", cacheOptions.configValue,
                     "The new value (none: show it)");
  for (CLI::App *sub : {check, put, get, ls, stats, explain, verify, prune, rm,
                        clear, config, push, pull, sign, log})
    common(sub);
  for (CLI::App *sub : {check, put, get, explain, rm, pull, log})
    keyed(sub);
  for (CLI::App *sub : {check, put, get, rm, push, pull, sign, explain})
    remote(sub);
  for (CLI::App *sub :
       {check, put, get, ls, stats, explain, verify, rm, push, pull, sign})
    addSignatureOptions(sub, cacheOptions.signatures);

  kiln::PrecompileOptions precompileOptions;
  CLI::App *precompile = app.add_subcommand(
      "precompile",
      "Compile a training job's graphs into the cache before it runs.\n"
      "Collects graphs (files; directories searched recursively; with\n"
      "'-- COMMAND ARGS...', the modules that the training command dumps\n"
      "when run with XLA's dump flags), keys and deduplicates them, looks\n"
      "each up, and compiles the misses in parallel worker processes,\n"
      "largest first, each graph once even when several runs share the\n"
      "cache. Exit 0 when every graph is compiled or cached, 1 when one\n"
      "failed, 2 on usage errors; a failing training command stops it\n"
      "with the command's status.");
  precompile->add_option("graphs", precompileOptions.inputs,
                         "Graphs (.hlo, XLA's .before_optimizations.txt "
                         "dumps, .mlir) or directories searched for them");
  precompile->add_option("--cache-dir", precompileOptions.cacheDir,
                         "Cache directory (default: $KILN_CACHE_DIR, else "
                         "$XDG_CACHE_HOME/kiln, else ~/.cache/kiln)");
  precompile
      ->add_option("--remote", precompileOptions.remotes, remoteHelp)
      ->allow_extra_args(false);
  addSignatureOptions(precompile, precompileOptions.signatures);
  precompile->add_option(
      "--nodes", precompileOptions.nodes,
      "Precompile on N nodes as one (each node runs kiln precompile with its "
      "own graphs; they share the queue through the first remote tier that "
      "holds leases). Under Slurm (srun), the job step's tasks are the nodes "
      "without this option");
  precompile->add_option("--node-rank", precompileOptions.nodeRank,
                         "With --nodes: this node's rank, 0 to N-1");
  precompile->add_option("--run-id", precompileOptions.runId,
                         "With --nodes: a name every node of the run is "
                         "given (the launcher's job id)");
  precompile
      ->add_option("--cluster-wait", precompileOptions.clusterWait,
                   "Seconds the first node waits for the others' results "
                   "to print the cluster's totals (default 120)")
      ->check(kSeconds);
  precompile
      ->add_option("-j,--jobs", precompileOptions.jobs,
                   "Worker processes (default: the cores, fewer if memory "
                   "cannot give each --job-memory)")
      ->check(CLI::Range(1u, 4096u));
  precompile->add_option("--max-artifact-size",
                         precompileOptions.maxArtifactSize,
                         "The largest artifact a compiler may hand back "
                         "(default 4G); a larger output fails its graph");
  precompile->add_option("--job-memory", precompileOptions.jobMemory,
                         "Address-space limit of each worker (default 4G; 0: "
                         "none); a worker that reaches it fails alone, "
                         "reported with the limit");
  precompile
      ->add_option("--timeout", precompileOptions.timeout,
                   "Seconds a graph may take to compile before its "
                   "worker is killed (default: no limit)")
      ->check(kSeconds);
  precompile->add_option("--retries", precompileOptions.retries,
                         "Attempts after a worker crashes (a signal; not "
                         "after a compile error, default 0)");
  precompile->add_flag("--retry-failed", precompileOptions.retryFailed,
                       "Compile again the graphs whose failure is cached");
  precompile->add_flag("--force", precompileOptions.force,
                       "Compile every graph, cached or not, replacing its "
                       "entry");
  precompile->add_flag("--dry-run", precompileOptions.dryRun,
                       "List what would be compiled and why (miss, failed "
                       "before, forced), and compile nothing");
  precompile->add_option("--report", precompileOptions.report,
                         "Write a JSON report: per graph, its name, files, "
                         "key, status, seconds, worker, peak memory, log");
  precompile->add_option("--trace", precompileOptions.trace,
                         "Write a Chrome trace of the schedule (Perfetto, "
                         "chrome://tracing): one track per worker");
  precompile->add_option("--work-dir", precompileOptions.workDir,
                         "Where dumps, worker logs and inputs go (default: "
                         "a fresh temporary directory, removed at the end "
                         "unless it holds a training command's dumps)");
  precompile
      ->add_option("--command-timeout", precompileOptions.commandTimeout,
                   "End the training command (and every process of its "
                   "group) after this many seconds and compile what it "
                   "dumped")
      ->check(kSeconds);
  precompile->add_flag("--ignore-command-failure",
                       precompileOptions.ignoreCommandFailure,
                       "Compile what a failing training command dumped "
                       "instead of stopping with its status");
  precompile->add_option("--compiler-cmd", precompileOptions.compilerCommand,
                         "Compile with this command instead of kiln's CPU "
                         "backend: {input} (the graph as HLO text), {output} "
                         "(where the artifact goes), {flags} (each "
                         "--compiler-option as --K=V)");
  addCompileOptions(precompile, precompileOptions.keys, /*external=*/true);

  // Everything after `--` is precompile's training command, not kiln's.
  int kilnArgc = argc;
  if (argc > 1 && std::string(argv[1]) == "precompile")
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--") {
        precompileOptions.command.assign(argv + i + 1, argv + argc);
        kilnArgc = i;
        break;
      }

  try {
    app.parse(kilnArgc, argv);
  } catch (const CLI::ParseError &error) {
    int code = app.exit(error);
    // CLI11 uses 0 for --help and --version; any other parse problem is a
    // usage error.
    return code == 0 ? kiln::ExitSuccess : kiln::ExitInputError;
  }

  if (import->parsed()) {
    // -o writes one module: with several graphs (which print a summary),
    // or with --summary, it would silently write nothing.
    bool hasOutput = import->count("--output") > 0;
    if (hasOutput && importOptions.inputs.size() > 1) {
      std::cerr << "kiln import: error: -o/--output writes one module, but "
                << importOptions.inputs.size()
                << " files were given; import them one at a time\n";
      return kiln::ExitInputError;
    }
    if (hasOutput && importOptions.summary) {
      std::cerr << "kiln import: error: --summary prints a report to stdout; "
                   "-o/--output writes a module and cannot be combined with "
                   "it\n";
      return kiln::ExitInputError;
    }
    if (importOptions.inputs.size() > 1)
      importOptions.summary = true;
    if (importOptions.printDebugInfo && importOptions.summary) {
      std::cerr << "kiln import: error: --debug-info prints locations with the "
                   "module; a summary"
                << (importOptions.inputs.size() > 1
                        ? " (printed for several files)"
                        : "")
                << " has none to print\n";
      return kiln::ExitInputError;
    }
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
  if (compile->parsed())
    return kiln::runCompile(compileOptions);
  if (run->parsed())
    return kiln::runRun(runOptions);
  if (precompile->parsed()) {
    precompileOptions.executable =
        llvm::sys::fs::getMainExecutable(argv[0], (void *)&main);
    return kiln::runPrecompile(precompileOptions);
  }
  if (cache->parsed()) {
    for (CLI::App *sub : cache->get_subcommands())
      cacheOptions.action = sub->get_name();
    return kiln::runCache(cacheOptions);
  }
  return kiln::ExitInputError;
}
