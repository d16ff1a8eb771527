//===- Artifact.h - a compiled graph: manifest and object code --*- C++ -*-===//
//
// This file declares the artifact that the CPU backend writes and the
// runtime loads: relocatable object code and a manifest that says how to
// call it (entry symbol, parameters and results with their types, which
// results are a golden program's checks), what it was built for (target,
// CPU, the CPU features it needs) and the key parts it was built under. One
// file holds both, so that a cache entry is one object.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_ARTIFACT_H
#define KILN_RUNTIME_ARTIFACT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// One parameter or result: its MLIR type as text (`tensor<4x8xbf16>`),
/// and its size in bytes as the compiled code reads or writes it (row-major,
/// each element in a whole number of bytes).
struct BufferSpec {
  std::string type;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
};

/// A golden program's check whose values the compiled code returns: the
/// actual and expected values are results `actual` and `actual + 1`.
struct CheckSpec {
  unsigned actual = 0;
  std::string comparison; ///< eq, almost_eq or close
  double tolerance = 1e-4;
  int64_t maxUlps = 3, minUlps = 0;
  std::string location; ///< where the check is, for reports
  /// The graph results that are this check's answer (a golden program that
  /// returns whether it passed): the compiled code returns true there, and
  /// the runtime writes the answer it computes.
  std::vector<unsigned> answerResults;
};

/// The one function of an artifact that is ever called.
constexpr const char *kArtifactEntrySymbol = "kiln_entry";
/// The object's own record of the buffers its entry takes (u64 each: the
/// number of parameters, of results, then each one's bytes): a manifest
/// that says otherwise describes other code, and is refused.
constexpr const char *kArtifactBufferRecordSymbol = "kiln_buffers";
/// Limits past which an artifact is malformed, not merely large: a
/// manifest's JSON, its buffers, and any one buffer (or all of them).
constexpr uint64_t kMaxManifestBytes = 64ull << 20;
constexpr size_t kMaxArtifactBuffers = 1 << 16;
constexpr uint64_t kMaxBufferBytes = 1ull << 40;
/// The most objects one artifact holds (a segmented graph's, one each).
constexpr int64_t kMaxArtifactObjects = 1 << 16;

struct ArtifactManifest {
  /// `void entry(void **buffers)`: the parameters' buffers, then the
  /// results'.
  std::string entry = "kiln_entry";
  std::string graphName;
  std::string targetTriple;
  std::string cpu;
  /// CPU features the code was built to use (LLVM's names); a machine
  /// without one of them cannot run it.
  std::vector<std::string> requiredFeatures;
  std::vector<BufferSpec> inputs;
  /// The graph's results, then two per check (actual, expected).
  std::vector<BufferSpec> outputs;
  unsigned graphOutputs = 0;
  std::vector<CheckSpec> checks;
  /// HLO's input_output_alias and donated parameters, as the graph says.
  std::string inputOutputAlias;
  /// The key parts it was compiled under (KeyParts::toJson), when known.
  llvm::json::Object keyParts;
  /// Compile options in canonical form.
  std::string options;

  llvm::json::Value toJson() const;
  static llvm::Expected<ArtifactManifest> fromJson(const llvm::json::Value &);
};

/// The artifact's bytes: a magic line, the manifest as JSON, the objects
/// (the entry's first).
std::string writeArtifact(const ArtifactManifest &manifest,
                          llvm::ArrayRef<std::string> objects);

/// The manifest and object of an artifact's bytes, checked completely
/// before anything is mapped: JSON size and depth, every buffer's type,
/// shape and byte count consistent and within kMaxBufferBytes, checks and
/// counts within the outputs, the entry kArtifactEntrySymbol and defined
/// by the object, whose sections lie within its bytes. An error naming
/// the field for anything else (a truncated, foreign or hostile file).
struct ParsedArtifact {
  ArtifactManifest manifest;
  /// The entry's object, then the segments'; each points into the bytes
  /// given.
  std::vector<llvm::StringRef> objects;
};
llvm::Expected<ParsedArtifact> readArtifact(llvm::StringRef bytes);

/// Whether `bytes` start like an artifact.
bool isArtifact(llvm::StringRef bytes);

} // namespace kiln

#endif // KILN_RUNTIME_ARTIFACT_H
