//===- ArtifactHeader.h - what an artifact file says about itself -*- C++ -*-===//
//
// This file declares the header that every file of the cache's objects/ and
// logs/ starts with: a magic, the header's own version, the entry's key and
// every key part, the artifact's size and checksum, the graph's file and
// module name, the per-op sketch, and the graph itself. The index can then be lost without losing the cache:
// `kiln cache verify --rebuild-index` rebuilds it from the files alone.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_ARTIFACTHEADER_H
#define KILN_CACHE_ARTIFACTHEADER_H

#include "kiln/Cache/Key.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// The first bytes of every cache file (and of `kiln cache get --signed`).
constexpr llvm::StringLiteral kArtifactHeaderMagic = "KILNART\n";

/// What a file in the cache says about its entry.
struct ArtifactHeader {
  KeyParts parts;
  bool ok = true;       ///< false: the file is a failed compilation's log
  uint64_t size = 0;    ///< payload bytes
  std::string checksum; ///< XXH3-128 of the payload
  double compileSeconds = 0;
  std::string source;    ///< the graph file the entry was made from
  std::string graphName; ///< the graph's module name (HloModule's)
  std::vector<uint64_t> sketch;
  /// The graph's text as it was read, so that a later miss can be
  /// explained change by change against it (`kiln cache explain`). Decoded,
  /// it points into the file's bytes, which are not copied for it.
  llvm::StringRef graph;
  /// `NAME:BASE64` ed25519 signatures of the entry (Signing.h), by each
  /// key that signed it.
  std::vector<std::string> signatures;
};

/// At most this many signatures, each at most this long, are read from a
/// header: more is a damaged (or hostile) header.
constexpr size_t kMaxSignatures = 64;
constexpr size_t kMaxSignatureBytes = 256;

/// The bytes that go in front of the payload.
std::string encodeArtifactHeader(const ArtifactHeader &header);

/// A file's header and payload. An error when the file does not start with
/// a well-formed header, or its payload is not the size the header says.
llvm::Expected<std::pair<ArtifactHeader, llvm::StringRef>>
decodeArtifactFile(llvm::StringRef bytes);

} // namespace kiln

#endif // KILN_CACHE_ARTIFACTHEADER_H
