//===- Artifact.cpp - a compiled graph: manifest and object code -*- C++ -*-=//
//
// This file writes and reads the artifact format: the line
// `KILN-ARTIFACT 1`, the manifest's length in decimal and a newline, the
// manifest (JSON), then each object's length and a newline and the object
// (one, or as many as the manifest's object_count: a graph compiled in
// segments has one per segment after the entry's). Lengths and the count
// are checked against the bytes, so a truncated artifact is an error,
// never a shorter object or one object fewer.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Artifact.h"
#include "kiln/Support/BoundedJson.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace kiln;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

constexpr llvm::StringLiteral kMagic = "KILN-ARTIFACT 1\n";

Value bufferToJson(const BufferSpec &buffer) {
  Array shape;
  for (int64_t size : buffer.shape)
    shape.push_back(size);
  return Object{{"type", buffer.type},
                {"shape", std::move(shape)},
                {"bytes", buffer.bytes}};
}

llvm::Error malformed(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "malformed artifact: " + what);
}

/// Bytes per element of a buffer's element type as compiled code holds it
/// (RuntimeAbi.h): integers and floats in whole bytes, complex numbers as
/// two parts, quantized values as their storage integer. None for a type
/// compiled code never holds in a buffer.
std::optional<int64_t> getElementTypeBytes(llvm::StringRef element) {
  if (element.consume_front("complex<")) {
    if (!element.consume_back(">"))
      return std::nullopt;
    std::optional<int64_t> part = getElementTypeBytes(element);
    if (!part || (*part != 4 && *part != 8))
      return std::nullopt;
    return 2 * *part;
  }
  if (element.consume_front("!quant.uniform<")) {
    // `!quant.uniform<i8:f32, 0.5:3>`, `!quant.uniform<u4<0:15>:f32, ...>`.
    size_t end = element.find_first_of(":<");
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef storage = element.take_front(end);
    if (storage.consume_front("u"))
      return getElementTypeBytes(("ui" + storage).str());
    return getElementTypeBytes(storage);
  }
  unsigned bits = 0;
  llvm::StringRef width = element;
  if ((width.consume_front("ui") || width.consume_front("si") ||
       width.consume_front("i")) &&
      !width.getAsInteger(10, bits) && bits >= 1 && bits <= 64)
    return (bits + 7) / 8;
  if (element == "f64")
    return 8;
  if (element == "f32" || element == "tf32")
    return 4;
  if (element == "f16" || element == "bf16")
    return 2;
  if (element.starts_with("f8") || element.starts_with("f6") ||
      element.starts_with("f4"))
    return 1;
  return std::nullopt;
}

/// What a buffer's type text says: `tensor<4x8xbf16>`, `tensor<f32>`.
struct ParsedBufferType {
  std::vector<int64_t> shape;
  int64_t elementBytes = 0;
};

std::optional<ParsedBufferType> parseBufferType(llvm::StringRef type) {
  if (!type.consume_front("tensor<") || !type.consume_back(">"))
    return std::nullopt;
  ParsedBufferType parsed;
  // Dimensions are digits followed by `x`; the element type is the rest
  // (it may hold an `x` of its own, as in `!quant.uniform<...>`).
  while (!type.empty() && llvm::isDigit(type.front())) {
    size_t digits = type.find_first_not_of("0123456789");
    if (digits == llvm::StringRef::npos || type[digits] != 'x')
      break;
    int64_t size;
    if (type.take_front(digits).getAsInteger(10, size) || size < 0)
      return std::nullopt;
    parsed.shape.push_back(size);
    type = type.drop_front(digits + 1);
  }
  std::optional<int64_t> bytes = getElementTypeBytes(type);
  if (!bytes)
    return std::nullopt;
  parsed.elementBytes = *bytes;
  return parsed;
}

llvm::Expected<std::vector<BufferSpec>> buffersFromJson(const Object &object,
                                                        llvm::StringRef name) {
  const Array *array = object.getArray(name);
  if (!array)
    return malformed("no " + name);
  if (array->size() > kMaxArtifactBuffers)
    return malformed(llvm::formatv("{0} lists {1} buffers; at most {2} are "
                                   "read",
                                   name, array->size(), kMaxArtifactBuffers)
                         .str());
  std::vector<BufferSpec> buffers;
  for (auto [index, value] : llvm::enumerate(*array)) {
    std::string where = llvm::formatv("{0}[{1}]", name, index).str();
    const Object *buffer = value.getAsObject();
    if (!buffer)
      return malformed(where + " is not an object");
    BufferSpec spec;
    std::optional<llvm::StringRef> type = buffer->getString("type");
    std::optional<int64_t> bytes = buffer->getInteger("bytes");
    const Array *shape = buffer->getArray("shape");
    if (!type || !bytes || !shape)
      return malformed(where + " has no type, shape or bytes");
    if (type->size() > 4096)
      return malformed(where + ".type is longer than 4096 characters");
    spec.type = type->str();
    std::optional<ParsedBufferType> parsed = parseBufferType(*type);
    if (!parsed)
      return malformed(where + ".type '" + spec.type +
                       "' is not a tensor type that compiled code takes");
    if (shape->size() != parsed->shape.size())
      return malformed(where + ".shape does not have the rank of its type " +
                       spec.type);
    // The element count, with overflow and the size limit checked at each
    // step: no shape makes a byte count that wraps around.
    uint64_t elements = 1;
    for (auto [d, size] : llvm::enumerate(*shape)) {
      std::optional<int64_t> dim = size.getAsInteger();
      if (!dim || *dim < 0 || *dim != parsed->shape[d])
        return malformed(where + ".shape does not match its type " + spec.type);
      spec.shape.push_back(*dim);
      if (*dim != 0 && elements > kMaxBufferBytes / (uint64_t)*dim)
        return malformed(llvm::formatv("{0} ({1}) is larger than {2} bytes",
                                       where, spec.type, kMaxBufferBytes)
                             .str());
      elements *= *dim;
    }
    if (elements > kMaxBufferBytes / parsed->elementBytes)
      return malformed(llvm::formatv("{0} ({1}) is larger than {2} bytes",
                                     where, spec.type, kMaxBufferBytes)
                           .str());
    int64_t expected = elements * parsed->elementBytes;
    if (*bytes != expected)
      return malformed(llvm::formatv("{0}.bytes is {1}; a {2} takes {3}", where,
                                     *bytes, spec.type, expected)
                           .str());
    spec.bytes = *bytes;
    buffers.push_back(std::move(spec));
  }
  return buffers;
}

/// Each object must be a relocatable object whose sections lie within its
/// bytes, and the first (`entryObject`) must define the entry and the
/// buffer record: checked before the JIT linker sees them.
llvm::Error checkObject(llvm::StringRef object,
                        const ArtifactManifest &manifest, bool entryObject) {
  llvm::StringRef entry = manifest.entry;
  // (ELF readers need the bytes aligned, as the artifact does not keep them.)
  std::unique_ptr<llvm::MemoryBuffer> aligned =
      llvm::MemoryBuffer::getMemBufferCopy(object, "artifact object");
  auto file =
      llvm::object::ObjectFile::createObjectFile(aligned->getMemBufferRef());
  if (!file)
    return malformed("the object code is not an object file: " +
                     llvm::toString(file.takeError()));
  if (!(*file)->isRelocatableObject())
    return malformed("the object code is not a relocatable object");
  for (const llvm::object::SectionRef &section : (*file)->sections()) {
    if (section.isVirtual())
      continue;
    llvm::Expected<llvm::StringRef> contents = section.getContents();
    if (!contents)
      return malformed("a section of the object code lies outside it: " +
                       llvm::toString(contents.takeError()));
  }
  bool defined = false;
  std::optional<llvm::StringRef> record;
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name)
      return malformed("the object code's symbol table is damaged: " +
                       llvm::toString(name.takeError()));
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags)
      return malformed("the object code's symbol table is damaged: " +
                       llvm::toString(flags.takeError()));
    bool definesOurs =
        (*name == kArtifactBufferRecordSymbol || *name == entry) &&
        !(*flags & llvm::object::BasicSymbolRef::SF_Undefined);
    // A segment's object defines neither the entry nor the buffer record.
    if (!entryObject) {
      if (definesOurs)
        return malformed("a segment's object defines " + *name +
                         ", which only the first object may");
      continue;
    }
    if (*name == kArtifactBufferRecordSymbol &&
        !(*flags & llvm::object::BasicSymbolRef::SF_Undefined)) {
      // The record's bytes, within its section's.
      llvm::Expected<llvm::object::section_iterator> section =
          symbol.getSection();
      llvm::Expected<uint64_t> offset = symbol.getValue();
      if (!section || !offset || *section == (*file)->section_end()) {
        if (!section)
          llvm::consumeError(section.takeError());
        if (!offset)
          llvm::consumeError(offset.takeError());
        return malformed("the object code's buffer record has no section");
      }
      llvm::Expected<llvm::StringRef> contents = (*section)->getContents();
      if (!contents)
        return malformed("the object code's buffer record lies outside it: " +
                         llvm::toString(contents.takeError()));
      uint64_t bytes =
          8 * (2 + manifest.inputs.size() + manifest.outputs.size());
      if (*offset > contents->size() || contents->size() - *offset < bytes)
        return malformed("the object code's buffer record is shorter than "
                         "the manifest's buffers");
      record = contents->substr(*offset, bytes);
    }
    if (*name == entry &&
        !(*flags & llvm::object::BasicSymbolRef::SF_Undefined)) {
      llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
      if (!type)
        return malformed("the object code's symbol table is damaged: " +
                         llvm::toString(type.takeError()));
      defined |= *type == llvm::object::SymbolRef::ST_Function;
    }
  }
  if (!entryObject)
    return llvm::Error::success();
  if (!defined)
    return malformed("the object code does not define the function " + entry);
  if (!record)
    return malformed(llvm::Twine("the object code has no ") +
                     kArtifactBufferRecordSymbol +
                     " (it was not built by this kiln's CPU backend)");
  // The manifest must describe the code's own buffers: a count or a size
  // that differs would have the code read or write past a buffer.
  auto word = [&](size_t i) {
    return llvm::support::endian::read64le(record->data() + 8 * i);
  };
  if (word(0) != manifest.inputs.size() || word(1) != manifest.outputs.size())
    return malformed(llvm::formatv("the manifest lists {0} inputs and {1} "
                                   "outputs; the code takes {2} and {3}",
                                   manifest.inputs.size(),
                                   manifest.outputs.size(), word(0), word(1))
                         .str());
  size_t at = 2;
  for (auto [name, buffers] :
       {std::pair<const char *, const std::vector<BufferSpec> *>{
            "inputs", &manifest.inputs},
        {"outputs", &manifest.outputs}})
    for (auto [index, buffer] : llvm::enumerate(*buffers)) {
      uint64_t code = word(at++);
      if ((uint64_t)buffer.bytes != code)
        return malformed(llvm::formatv("{0}[{1}].bytes is {2}; the code "
                                       "takes {3}",
                                       name, index, buffer.bytes, code)
                             .str());
    }
  return llvm::Error::success();
}

/// Reads `<decimal length>\n` and that many bytes from the front of `rest`.
llvm::Expected<llvm::StringRef> readSection(llvm::StringRef &rest,
                                            llvm::StringRef what) {
  size_t newline = rest.find('\n');
  if (newline == llvm::StringRef::npos)
    return malformed("no length of the " + what);
  uint64_t length;
  if (rest.take_front(newline).getAsInteger(10, length))
    return malformed("a bad length of the " + what);
  rest = rest.drop_front(newline + 1);
  if (length > rest.size())
    return malformed(llvm::formatv("the {0} is cut short ({1} of {2} bytes)",
                                   what, rest.size(), length)
                         .str());
  llvm::StringRef section = rest.take_front(length);
  rest = rest.drop_front(length);
  return section;
}

} // namespace

Value ArtifactManifest::toJson() const {
  Array inputArray, outputArray, checkArray, features;
  for (const BufferSpec &buffer : inputs)
    inputArray.push_back(bufferToJson(buffer));
  for (const BufferSpec &buffer : outputs)
    outputArray.push_back(bufferToJson(buffer));
  for (const CheckSpec &check : checks) {
    Object object{{"actual", check.actual},
                  {"comparison", check.comparison},
                  {"tolerance", check.tolerance},
                  {"max_ulp_difference", check.maxUlps},
                  {"min_ulp_difference", check.minUlps},
                  {"location", check.location}};
    if (!check.answerResults.empty()) {
      llvm::json::Array answers;
      for (unsigned result : check.answerResults)
        answers.push_back(result);
      object["answer_results"] = std::move(answers);
    }
    checkArray.push_back(std::move(object));
  }
  for (const std::string &feature : requiredFeatures)
    features.push_back(feature);
  Object json{{"entry", entry},
              {"graph", graphName},
              {"target", targetTriple},
              {"cpu", cpu},
              {"required_features", std::move(features)},
              {"inputs", std::move(inputArray)},
              {"outputs", std::move(outputArray)},
              {"graph_outputs", graphOutputs},
              {"checks", std::move(checkArray)},
              {"input_output_alias", inputOutputAlias},
              {"options", options},
              {"key", Object(keyParts)}};
  return json;
}

llvm::Expected<ArtifactManifest>
ArtifactManifest::fromJson(const Value &value) {
  const Object *object = value.getAsObject();
  if (!object)
    return malformed("the manifest is not a JSON object");
  ArtifactManifest manifest;
  auto string = [&](llvm::StringRef name, std::string &into) -> bool {
    std::optional<llvm::StringRef> text = object->getString(name);
    if (text)
      into = text->str();
    return text.has_value();
  };
  if (!string("entry", manifest.entry) ||
      !string("target", manifest.targetTriple) || !string("cpu", manifest.cpu))
    return malformed("the manifest has no entry, target or cpu");
  // Only kiln's entry is ever called: a manifest naming `abort` or
  // `system` names a function of this process, not of the artifact.
  if (manifest.entry != kArtifactEntrySymbol)
    return malformed("the manifest's entry is '" + manifest.entry +
                     "'; an artifact is called through " +
                     kArtifactEntrySymbol + " only");
  string("graph", manifest.graphName);
  string("input_output_alias", manifest.inputOutputAlias);
  string("options", manifest.options);
  if (const Array *features = object->getArray("required_features"))
    for (const Value &feature : *features)
      if (std::optional<llvm::StringRef> name = feature.getAsString())
        manifest.requiredFeatures.push_back(name->str());
  auto inputs = buffersFromJson(*object, "inputs");
  if (!inputs)
    return inputs.takeError();
  manifest.inputs = std::move(*inputs);
  auto outputs = buffersFromJson(*object, "outputs");
  if (!outputs)
    return outputs.takeError();
  manifest.outputs = std::move(*outputs);
  std::optional<int64_t> graphOutputs = object->getInteger("graph_outputs");
  if (graphOutputs &&
      (*graphOutputs < 0 || *graphOutputs > (int64_t)manifest.outputs.size()))
    return malformed("graph_outputs is not a count of the outputs");
  manifest.graphOutputs = graphOutputs.value_or(manifest.outputs.size());
  uint64_t totalBytes = 0;
  for (const std::vector<BufferSpec> *buffers :
       {&manifest.inputs, &manifest.outputs})
    for (const BufferSpec &buffer : *buffers)
      totalBytes += buffer.bytes;
  if (totalBytes > kMaxBufferBytes)
    return malformed(llvm::formatv("the parameters and results take {0} "
                                   "bytes together; at most {1} are run",
                                   totalBytes, kMaxBufferBytes)
                         .str());
  if (const Array *checks = object->getArray("checks")) {
    for (const Value &entry : *checks) {
      const Object *check = entry.getAsObject();
      if (!check)
        return malformed("a check is not an object");
      CheckSpec spec;
      std::optional<int64_t> actual = check->getInteger("actual");
      if (!actual || *actual < (int64_t)manifest.graphOutputs ||
          *actual + 1 >= (int64_t)manifest.outputs.size())
        return malformed("a check names an output that is not there");
      spec.actual = *actual;
      if (auto comparison = check->getString("comparison"))
        spec.comparison = comparison->str();
      spec.tolerance = check->getNumber("tolerance").value_or(1e-4);
      spec.maxUlps = check->getInteger("max_ulp_difference").value_or(3);
      spec.minUlps = check->getInteger("min_ulp_difference").value_or(0);
      if (auto location = check->getString("location"))
        spec.location = location->str();
      if (const llvm::json::Array *answers = check->getArray("answer_results"))
        for (const llvm::json::Value &answer : *answers) {
          std::optional<int64_t> index = answer.getAsInteger();
          if (!index || *index < 0 ||
              *index >= (int64_t)manifest.outputs.size())
            return malformed("a check's answer names an output that is not "
                             "there");
          spec.answerResults.push_back((unsigned)*index);
        }
      manifest.checks.push_back(std::move(spec));
    }
  }
  if (const Object *key = object->getObject("key"))
    manifest.keyParts = *key;
  return manifest;
}

std::string kiln::writeArtifact(const ArtifactManifest &manifest,
                                llvm::ArrayRef<std::string> objects) {
  Value manifestJson = manifest.toJson();
  // How many objects follow is a fact of these bytes, not of the graph:
  // written only where there are several, so that a one-object artifact
  // reads as before.
  if (objects.size() != 1)
    (*manifestJson.getAsObject())["object_count"] = (int64_t)objects.size();
  std::string json;
  llvm::raw_string_ostream(json) << manifestJson;
  std::string bytes = kMagic.str();
  bytes += std::to_string(json.size()) + "\n" + json;
  for (const std::string &object : objects) {
    bytes += std::to_string(object.size()) + "\n";
    bytes += object;
  }
  return bytes;
}

bool kiln::isArtifact(llvm::StringRef bytes) {
  return bytes.starts_with(kMagic);
}

llvm::Expected<ParsedArtifact> kiln::readArtifact(llvm::StringRef bytes) {
  if (!isArtifact(bytes))
    return malformed("not a kiln artifact (no `KILN-ARTIFACT 1` line)");
  llvm::StringRef rest = bytes.drop_front(kMagic.size());
  auto json = readSection(rest, "manifest");
  if (!json)
    return json.takeError();
  if (json->size() > kMaxManifestBytes)
    return malformed(llvm::formatv("the manifest has {0} bytes; at most {1} "
                                   "are read",
                                   json->size(), kMaxManifestBytes)
                         .str());
  llvm::Expected<Value> parsed = parseBoundedJson(*json);
  if (!parsed)
    return malformed("the manifest is not JSON: " +
                     llvm::toString(parsed.takeError()));
  auto manifest = ArtifactManifest::fromJson(*parsed);
  if (!manifest)
    return manifest.takeError();
  std::optional<int64_t> objectCount =
      parsed->getAsObject()->getInteger("object_count");
  if (objectCount && (*objectCount < 1 || *objectCount > kMaxArtifactObjects))
    return malformed(llvm::formatv("object_count is {0}; an artifact holds 1 "
                                   "to {1} objects",
                                   *objectCount, kMaxArtifactObjects)
                         .str());
  ParsedArtifact artifact{std::move(*manifest), {}};
  for (int64_t index = 0; index < objectCount.value_or(1); ++index) {
    auto object = readSection(rest, index ? "object " + std::to_string(index)
                                          : std::string("object"));
    if (!object)
      return object.takeError();
    artifact.objects.push_back(*object);
  }
  if (!rest.empty())
    return malformed(llvm::formatv("{0} bytes after the object{1}", rest.size(),
                                   artifact.objects.size() > 1 ? "s" : "")
                         .str());
  for (auto [index, object] : llvm::enumerate(artifact.objects))
    if (llvm::Error error = checkObject(object, artifact.manifest,
                                        /*entryObject=*/index == 0))
      return std::move(error);
  return artifact;
}
