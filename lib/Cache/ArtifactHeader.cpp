//===- ArtifactHeader.cpp - what an artifact file says about itself -*- C++ -*-===//
//
// This file implements the artifact header. Layout, little-endian:
//
//   8 bytes  magic "KILNART\n"
//   4 bytes  header version (2)
//   4 bytes  length of the JSON that follows
//   8 bytes  number of sketch entries
//   8 bytes  length of the graph's text
//   8 bytes  XXH3-64 of the JSON, the sketch and the graph: a damaged
//            header is found
//   JSON     {"key", "status", "size", "checksum", "compile_seconds",
//             "source", "graph_name", the key parts as `kiln hash
//             --json` names them, and "signatures" when signed}
//   8 bytes  per sketch entry
//   graph    the graph's text
//   payload  the artifact (or the log)
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/ArtifactHeader.h"
#include "kiln/Support/BoundedJson.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"

#include <xxhash.h>

using namespace kiln;

namespace {
constexpr llvm::StringLiteral kMagic = kArtifactHeaderMagic;
constexpr uint32_t kHeaderVersion = 2;
constexpr size_t kFixedBytes = 8 + 4 + 4 + 8 + 8 + 8;
/// Bounds that no real header reaches; past them the file is damaged.
constexpr uint32_t kMaxJsonBytes = 1 << 24;

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}
} // namespace

std::string kiln::encodeArtifactHeader(const ArtifactHeader &header) {
  llvm::json::Object object = header.parts.toJson();
  object["status"] = header.ok ? "ok" : "failed";
  object["size"] = (int64_t)header.size;
  object["checksum"] = header.checksum;
  object["compile_seconds"] = header.compileSeconds;
  object["source"] = header.source;
  object["graph_name"] = header.graphName;
  if (!header.signatures.empty()) {
    llvm::json::Array signatures;
    for (const std::string &signature : header.signatures)
      signatures.push_back(signature);
    object["signatures"] = std::move(signatures);
  }
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(std::move(object));
  os.flush();

  std::string bytes;
  bytes.reserve(kFixedBytes + json.size() + 8 * header.sketch.size() +
                header.graph.size());
  bytes += kMagic;
  char word[8];
  llvm::support::endian::write32le(word, kHeaderVersion);
  bytes.append(word, 4);
  llvm::support::endian::write32le(word, json.size());
  bytes.append(word, 4);
  llvm::support::endian::write64le(word, header.sketch.size());
  bytes.append(word, 8);
  llvm::support::endian::write64le(word, header.graph.size());
  bytes.append(word, 8);
  size_t checksumAt = bytes.size();
  bytes.append(8, '\0');
  size_t bodyAt = bytes.size();
  bytes += json;
  for (uint64_t entry : header.sketch) {
    llvm::support::endian::write64le(word, entry);
    bytes.append(word, 8);
  }
  bytes += header.graph;
  llvm::support::endian::write64le(
      &bytes[checksumAt],
      XXH3_64bits(bytes.data() + bodyAt, bytes.size() - bodyAt));
  return bytes;
}

llvm::Expected<std::pair<ArtifactHeader, llvm::StringRef>>
kiln::decodeArtifactFile(llvm::StringRef bytes) {
  if (bytes.size() < kFixedBytes || !bytes.starts_with(kMagic))
    return makeError("no kiln artifact header (the file is not one of the "
                     "cache's, or was written by an older kiln)");
  const char *data = bytes.data();
  uint32_t version = llvm::support::endian::read32le(data + 8);
  uint32_t jsonBytes = llvm::support::endian::read32le(data + 12);
  uint64_t sketchCount = llvm::support::endian::read64le(data + 16);
  uint64_t graphBytes = llvm::support::endian::read64le(data + 24);
  uint64_t headerChecksum = llvm::support::endian::read64le(data + 32);
  if (version != kHeaderVersion)
    return makeError("artifact header version " + llvm::Twine(version) +
                     ", this kiln reads version " +
                     llvm::Twine(kHeaderVersion));
  uint64_t rest = bytes.size() - kFixedBytes;
  if (jsonBytes > kMaxJsonBytes || jsonBytes > rest ||
      sketchCount > (rest - jsonBytes) / 8 ||
      graphBytes > rest - jsonBytes - 8 * sketchCount)
    return makeError("the artifact header is truncated or damaged");
  if (XXH3_64bits(data + kFixedBytes,
                  jsonBytes + 8 * sketchCount + graphBytes) != headerChecksum)
    return makeError("the artifact header is damaged (its checksum does not "
                     "match)");
  llvm::StringRef json = bytes.substr(kFixedBytes, jsonBytes);
  llvm::Expected<llvm::json::Value> parsed = parseBoundedJson(json);
  if (!parsed)
    return makeError("the artifact header is damaged: " +
                     llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return makeError("the artifact header is damaged: not an object");
  ArtifactHeader header;
  auto text = [&](llvm::StringRef name, std::string &out) -> bool {
    std::optional<llvm::StringRef> value = object->getString(name);
    if (!value)
      return false;
    out = value->str();
    return true;
  };
  std::string signature, status;
  std::optional<int64_t> size = object->getInteger("size");
  std::optional<int64_t> formatVersion = object->getInteger("format_version");
  if (!text("signature", signature) || !text("status", status) ||
      !text("checksum", header.checksum) ||
      !text("target_triple", header.parts.targetTriple) ||
      !text("cpu", header.parts.cpuName) ||
      !text("cpu_features", header.parts.cpuFeatures) ||
      !text("options", header.parts.options) ||
      !text("compiler", header.parts.compiler) ||
      !text("source", header.source) ||
      !text("graph_name", header.graphName) || !size || *size < 0 ||
      !formatVersion || (status != "ok" && status != "failed"))
    return makeError("the artifact header is damaged: a field is missing");
  std::optional<Hash128> parsedSignature = Hash128::fromHex(signature);
  if (!parsedSignature)
    return makeError("the artifact header is damaged: bad signature");
  header.parts.signature = *parsedSignature;
  header.parts.formatVersion = *formatVersion;
  header.ok = status == "ok";
  header.size = *size;
  header.compileSeconds = object->getNumber("compile_seconds").value_or(0);
  if (const llvm::json::Value *signatures = object->get("signatures")) {
    const llvm::json::Array *array = signatures->getAsArray();
    if (!array || array->size() > kMaxSignatures)
      return makeError("the artifact header is damaged: its signatures are "
                       "not a list of at most " +
                       llvm::Twine(kMaxSignatures));
    for (const llvm::json::Value &signature : *array) {
      std::optional<llvm::StringRef> text = signature.getAsString();
      if (!text || text->size() > kMaxSignatureBytes)
        return makeError("the artifact header is damaged: a signature is "
                         "not NAME:BASE64");
      header.signatures.push_back(text->str());
    }
  }
  const char *sketch = data + kFixedBytes + jsonBytes;
  header.sketch.reserve(sketchCount);
  for (uint64_t i = 0; i < sketchCount; ++i)
    header.sketch.push_back(llvm::support::endian::read64le(sketch + 8 * i));
  size_t graphAt = kFixedBytes + jsonBytes + 8 * sketchCount;
  header.graph = bytes.substr(graphAt, graphBytes);
  llvm::StringRef payload = bytes.substr(graphAt + graphBytes);
  if (payload.size() != header.size)
    return makeError("the artifact has " + llvm::Twine(payload.size()) +
                     " bytes, its header says " + llvm::Twine(header.size));
  std::optional<llvm::StringRef> key = object->getString("key");
  if (!key || *key != header.parts.key().toHex())
    return makeError("the artifact header's key does not match its parts");
  return std::make_pair(std::move(header), payload);
}
