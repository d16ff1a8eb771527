//===- GraphKeys.h - import and key many graphs in parallel -----*- C++ -*-===//
//
// This file declares what `kiln hash` and `kiln cache` share: importing a
// list of graphs on several threads and computing each one's signature,
// sketch and key.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_GRAPHKEYS_H
#define KILN_TOOLS_KILN_GRAPHKEYS_H

#include "kiln/Cache/Key.h"

#include <string>
#include <vector>

namespace kiln {

class Cache;

/// The key of one graph, or why there is none.
struct GraphKey {
  std::string path;
  bool ok = false;
  /// `file:line:col: error: ...` text when the graph failed to import.
  std::string diagnostics;
  KeyParts parts;
  std::string graphName; ///< the module's name
  /// XXH3-128 of the file's bytes as imported, hex (the memo's key).
  std::string content;
  /// Whether the key came from the cache's memo instead of an import.
  bool fromMemo = false;
  /// Whether `sketch` was left in the memo (keyGraphsWithMemo without
  /// sketches): loadMemoSketch reads it when a miss is explained.
  bool sketchDeferred = false;
  /// The bytes that were keyed, when asked for (an entry keeps them).
  std::string text;
  std::vector<uint64_t> sketch;
  /// The graph as HLO text by kiln's exporter, when asked for (the input
  /// of an external compiler).
  std::string exportedHlo;
  unsigned elidedConstants = 0;
  double importSeconds = 0;
  double signatureSeconds = 0;
};

/// How keys are made: target, CPU and compile options.
struct KeyOptions {
  std::vector<std::string> options; ///< kiln's own, `K=V`
  /// An external compiler's, `K=V`, kept verbatim.
  std::vector<std::string> compilerOptions;
  std::string targetTriple; ///< empty: this machine's
  std::string cpu;          ///< empty: the portable level; or "native"
  unsigned jobs = 0;        ///< 0: one per core
  /// `--no-fold-causal-mask`: compile without kiln-fold-causal-mask (the
  /// option fold-causal-mask=false, part of the key).
  bool noFoldCausalMask = false;
  /// `--compiler-version-cmd`: a command whose output names an external
  /// compiler's version; it replaces kiln's identity in the keys, so that
  /// two compiler versions never share an entry.
  std::string compilerVersionCommand;
  /// What resolveCompilerIdentity made of it; empty: kiln's own identity.
  std::string compilerIdentity;
};

/// Runs `options.compilerVersionCommand` (through /bin/sh), if any, and
/// keeps its output as the keys' compiler identity; prints an error and
/// returns false when it fails or prints nothing.
bool resolveCompilerIdentity(KeyOptions &options);

/// Canonicalizes `options.options` into `canonical` and checks the target;
/// prints an error and returns false when either is malformed.
bool canonicalizeKeyOptions(const KeyOptions &options, std::string &canonical);

/// The target of the keys, once canonicalizeKeyOptions accepted `options`.
TargetSpec getKeyTarget(const KeyOptions &options);

/// The graph files that `inputs` name: files as given (a missing one stays,
/// to be reported with the others), directories searched recursively for
/// `*.hlo`, `*.mlir` and `*.txt` (XLA's dumps: `*.before_optimizations.txt`,
/// not its optimized modules and reports; see isGraphFileName).
///
/// With `emptyDirectories`, a directory that holds no graph is an input
/// error, as a missing file is (a mistyped dump path must not pass for an
/// empty run): said, `kiln COMMAND: error: no graphs found in DIR (...)`,
/// and counted there.
std::vector<std::string>
expandGraphPaths(const std::vector<std::string> &inputs,
                 llvm::StringRef command = {},
                 unsigned *emptyDirectories = nullptr);

/// What a command says when expandGraphPaths found no graph, after
/// "no graphs found": which files count as graphs.
inline constexpr const char *kGraphFileKinds =
    "(files named *.hlo, *.mlir, *.txt, or XLA's "
    "*.before_optimizations.txt dumps)";

/// Imports and keys `paths` on `options.jobs` threads, in input order;
/// with `keepText`, each key keeps the bytes it was computed from; with
/// `exportHlo`, the graph exported as HLO text.
std::vector<GraphKey> computeGraphKeys(const std::vector<std::string> &paths,
                                       const KeyOptions &options,
                                       const std::string &canonicalOptions,
                                       bool keepText = false,
                                       bool exportHlo = false);

/// Parts for `signature` under `options` (kiln's identity, or the external
/// compiler's that resolveCompilerIdentity found).
KeyParts makeGraphKeyParts(const Hash128 &signature, const KeyOptions &options,
                           const std::string &canonicalOptions);

/// Keys `paths` as computeGraphKeys does, but takes the signature of each
/// file whose bytes this kiln build keyed before from the cache's memo
/// instead of importing it (those keys are `fromMemo`: no text, no HLO
/// export), and remembers the others'; `keepText` and `exportHlo` are for
/// the graphs imported, as for computeGraphKeys. Without `memoSketches`,
/// a memo's sketch is left unread (`sketchDeferred`): a warm check reads
/// only what tells hit from miss.
std::vector<GraphKey>
keyGraphsWithMemo(Cache &cache, const std::vector<std::string> &paths,
                  const KeyOptions &options, const std::string &canonical,
                  bool keepText = false, bool exportHlo = false,
                  bool memoSketches = true);

/// The sketch of a `sketchDeferred` key, read from the memo; empty if the
/// memo no longer has it.
std::vector<uint64_t> loadMemoSketch(Cache &cache, const GraphKey &graph);

/// Prints each failed graph's diagnostics and each elided-constant warning
/// to stderr, in input order.
void reportGraphProblems(const std::vector<GraphKey> &keys);

} // namespace kiln

#endif // KILN_TOOLS_KILN_GRAPHKEYS_H
