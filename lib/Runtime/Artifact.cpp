//===- Artifact.cpp - a compiled graph: manifest and object code -*- C++ -*-=//
//
// This file writes and reads the artifact format: the line
// `KILN-ARTIFACT 1`, the manifest's length in decimal and a newline, the
// manifest (JSON), the object's length and a newline, the object. Lengths
// are checked against the bytes, so a truncated artifact is an error, never
// a shorter object.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Artifact.h"

#include "llvm/Support/FormatVariadic.h"

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

llvm::Expected<std::vector<BufferSpec>> buffersFromJson(const Object &object,
                                                        llvm::StringRef name) {
  const Array *array = object.getArray(name);
  if (!array)
    return malformed("no " + name);
  std::vector<BufferSpec> buffers;
  for (const Value &value : *array) {
    const Object *buffer = value.getAsObject();
    if (!buffer)
      return malformed(name + " holds a non-object");
    BufferSpec spec;
    std::optional<llvm::StringRef> type = buffer->getString("type");
    std::optional<int64_t> bytes = buffer->getInteger("bytes");
    const Array *shape = buffer->getArray("shape");
    if (!type || !bytes || !shape || *bytes < 0)
      return malformed(name + " holds a buffer without type, shape or bytes");
    spec.type = type->str();
    spec.bytes = *bytes;
    for (const Value &size : *shape) {
      std::optional<int64_t> dim = size.getAsInteger();
      if (!dim || *dim < 0)
        return malformed(name + " holds a bad shape");
      spec.shape.push_back(*dim);
    }
    buffers.push_back(std::move(spec));
  }
  return buffers;
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
  return Object{{"entry", entry},
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
  if (!string("entry", manifest.entry) || !string("target", manifest.targetTriple) ||
      !string("cpu", manifest.cpu))
    return malformed("the manifest has no entry, target or cpu");
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
  manifest.graphOutputs =
      object->getInteger("graph_outputs").value_or(manifest.outputs.size());
  if (manifest.graphOutputs > manifest.outputs.size())
    return malformed("more graph outputs than outputs");
  if (const Array *checks = object->getArray("checks")) {
    for (const Value &entry : *checks) {
      const Object *check = entry.getAsObject();
      if (!check)
        return malformed("a check is not an object");
      CheckSpec spec;
      spec.actual = check->getInteger("actual").value_or(0);
      if ((size_t)spec.actual + 1 >= manifest.outputs.size())
        return malformed("a check names an output that is not there");
      if (auto comparison = check->getString("comparison"))
        spec.comparison = comparison->str();
      spec.tolerance = check->getNumber("tolerance").value_or(1e-4);
      spec.maxUlps = check->getInteger("max_ulp_difference").value_or(3);
      spec.minUlps = check->getInteger("min_ulp_difference").value_or(0);
      if (auto location = check->getString("location"))
        spec.location = location->str();
      if (const llvm::json::Array *answers =
              check->getArray("answer_results"))
        for (const llvm::json::Value &answer : *answers) {
          std::optional<int64_t> index = answer.getAsInteger();
          if (!index || *index < 0 || *index >= (int64_t)manifest.outputs.size())
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
                                llvm::StringRef object) {
  std::string json;
  llvm::raw_string_ostream(json) << manifest.toJson();
  std::string bytes = kMagic.str();
  bytes += std::to_string(json.size()) + "\n" + json;
  bytes += std::to_string(object.size()) + "\n";
  bytes.append(object.data(), object.size());
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
  auto object = readSection(rest, "object");
  if (!object)
    return object.takeError();
  if (!rest.empty())
    return malformed(llvm::formatv("{0} bytes after the object", rest.size())
                         .str());
  llvm::Expected<Value> parsed = llvm::json::parse(*json);
  if (!parsed)
    return malformed("the manifest is not JSON: " +
                     llvm::toString(parsed.takeError()));
  auto manifest = ArtifactManifest::fromJson(*parsed);
  if (!manifest)
    return manifest.takeError();
  return ParsedArtifact{std::move(*manifest), *object};
}
