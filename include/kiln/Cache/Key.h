//===- Key.h - the cache key of a compiled graph ----------------*- C++ -*-===//
//
// This file declares the cache key: XXH3-128 over the graph's signature and
// everything else that changes the artifact (target, compile options,
// compiler, cache format). Each part is kept so that a miss can be explained
// part by part.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_KEY_H
#define KILN_CACHE_KEY_H

#include "kiln/Cache/Target.h"
#include "kiln/Signature/Hash128.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace kiln {

/// The on-disk cache format; part of every key so that a new format never
/// reads an old artifact.
constexpr unsigned kCacheFormatVersion = 3;

/// Compile options as the user gave them: kiln's own (`--option K=V`), and
/// an external compiler's (`--compiler-option K=V`) under the name
/// `compiler.K`.
using CompileOptions = std::map<std::string, std::string>;

/// The prefix of an external compiler's options in CompileOptions and in
/// canonical option text.
constexpr const char *kExternalOptionPrefix = "compiler.";

/// Adds `K=V` texts to `options`, each under `prefix` + K (later ones win);
/// an error naming `flag` (e.g. "--option") for a text without `=` or name.
llvm::Error addOptionTexts(llvm::ArrayRef<std::string> texts,
                           llvm::StringRef prefix, llvm::StringRef flag,
                           CompileOptions &options);

/// kiln's own compile options, their values and defaults, in words (for
/// errors and `--help`).
std::string describeKnownOptions();

/// Puts options in canonical form: sorted by name, kiln's options trimmed,
/// boolean spellings made one, and options equal to their default dropped,
/// so that order and defaults never change a key; an external compiler's
/// options are kept verbatim. Fails with a message on an unknown kiln
/// option or a bad value.
mlir::FailureOr<std::string> canonicalizeOptions(const CompileOptions &options,
                                                 std::string &error);

/// Every part of a key.
struct KeyParts {
  Hash128 signature;
  /// The target the artifact is built for (Target.h): a canonical triple
  /// and a CPU level, never the compiling host's features.
  std::string targetTriple;
  std::string cpuName;
  /// Kept for caches of format 1, which keyed the host's features; empty
  /// in every key kiln makes now.
  std::string cpuFeatures;
  /// Canonical options, `name=value` lines.
  std::string options;
  /// Compiler identity: version and exact source revision.
  std::string compiler;
  unsigned formatVersion = kCacheFormatVersion;

  /// The key: XXH3-128 over the parts, each length-prefixed.
  Hash128 key() const;
  llvm::json::Object toJson() const;
};

/// Parts for building for `target` (resolveTarget), with already canonical
/// `options`.
KeyParts makeKeyParts(const Hash128 &signature, llvm::StringRef options,
                      const TargetSpec &target);

/// Whether `key` is a cache key: 32 lowercase hex digits. Only files so
/// named (and `<key>.log`) are ever removed.
bool isCacheKey(llvm::StringRef key);

/// The compiler identity that keys carry.
std::string getCompilerIdentity();

} // namespace kiln

#endif // KILN_CACHE_KEY_H
