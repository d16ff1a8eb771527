//===- Key.cpp - the cache key of a compiled graph --------------*- C++ -*-===//
//
// This file implements key construction and option canonicalization.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Key.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

using namespace kiln;

namespace {
/// Options kiln knows, with their defaults. Unknown options (for external
/// compilers) are kept as given.
struct KnownOption {
  const char *name;
  const char *defaultValue;
  bool isBool;
};
constexpr KnownOption kKnownOptions[] = {
    {"opt-level", "2", false},
    {"fold-causal-mask", "true", true},
    {"fold-constants", "true", true},
};

const KnownOption *findKnownOption(llvm::StringRef name) {
  for (const KnownOption &option : kKnownOptions)
    if (name == option.name)
      return &option;
  return nullptr;
}
} // namespace

std::string kiln::describeKnownOptions() {
  std::string text;
  for (const KnownOption &option : kKnownOptions)
    text += std::string(text.empty() ? "" : ", ") + option.name + " (" +
            (option.isBool ? "true or false" : "0, 1, 2 or 3") + ", default " +
            option.defaultValue + ")";
  return text;
}

llvm::Error kiln::addOptionTexts(llvm::ArrayRef<std::string> texts,
                                 llvm::StringRef prefix, llvm::StringRef flag,
                                 CompileOptions &options) {
  for (const std::string &text : texts) {
    size_t equal = text.find('=');
    if (equal == std::string::npos || equal == 0)
      return llvm::createStringError(flag + " takes K=V, got '" + text + "'");
    options[(prefix + text.substr(0, equal)).str()] = text.substr(equal + 1);
  }
  return llvm::Error::success();
}

mlir::FailureOr<std::string>
kiln::canonicalizeOptions(const CompileOptions &options, std::string &error) {
  std::string canonical;
  // std::map iterates in name order.
  for (const auto &[name, given] : options) {
    // An external compiler's options are kept exactly as given.
    bool external = llvm::StringRef(name).starts_with(kExternalOptionPrefix);
    std::string value = external ? given : llvm::StringRef(given).trim().str();
    const KnownOption *known = findKnownOption(name);
    if (!known && !external) {
      error = "unknown option '" + name + "'; kiln's options are " +
              describeKnownOptions() +
              " (options for an external compiler go with "
              "--compiler-option)";
      return mlir::failure();
    }
    if (known && known->isBool) {
      std::string lower = llvm::StringRef(value).lower();
      if (lower == "1" || lower == "true" || lower == "on" || lower == "yes")
        value = "true";
      else if (lower == "0" || lower == "false" || lower == "off" ||
               lower == "no")
        value = "false";
      else {
        error =
            "option '" + name + "' takes true or false, not '" + given + "'";
        return mlir::failure();
      }
    } else if (known && name == "opt-level") {
      if (value != "0" && value != "1" && value != "2" && value != "3") {
        error = "option 'opt-level' takes 0, 1, 2 or 3, not '" + given + "'";
        return mlir::failure();
      }
    }
    if (known && value == known->defaultValue)
      continue;
    if (name.empty() || name == kExternalOptionPrefix ||
        llvm::any_of(name, [](char c) {
          return c == '=' || c == '\n' || (unsigned char)c < 0x20;
        })) {
      error = "option name '" + name +
              "' must not be empty or hold '=' or "
              "control characters";
      return mlir::failure();
    }
    // One `name=value` line per option: a value's backslashes and line
    // breaks are escaped so that no value can pass for two options.
    std::string escaped;
    for (char c : value) {
      if (c == '\\')
        escaped += "\\\\";
      else if (c == '\n')
        escaped += "\\n";
      else
        escaped += c;
    }
    canonical += name + "=" + escaped + "\n";
  }
  return canonical;
}

/// KILN_SOURCE_REVISION, generated at build time.
#include "SourceRevision.inc"

std::string kiln::getCompilerIdentity() {
  return "kiln 0.1.0 (" KILN_SOURCE_REVISION ", MLIR/LLVM " LLVM_VERSION_STRING
         ")";
}

KeyParts kiln::makeKeyParts(const Hash128 &signature, llvm::StringRef options,
                            const TargetSpec &target) {
  KeyParts parts;
  parts.signature = signature;
  parts.targetTriple = target.triple;
  parts.cpuName = target.cpu;
  parts.options = options.str();
  parts.compiler = getCompilerIdentity();
  return parts;
}

Hash128 KeyParts::key() const {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  auto put = [&](llvm::StringRef part) {
    os << part.size() << ':' << part << ';';
  };
  put("kiln-key");
  put(signature.toHex());
  put(targetTriple);
  put(cpuName);
  put(cpuFeatures);
  put(options);
  put(compiler);
  put(std::to_string(formatVersion));
  return Hash128::of(bytes);
}

llvm::json::Object KeyParts::toJson() const {
  return llvm::json::Object{
      {"signature", signature.toHex()},
      {"target_triple", targetTriple},
      {"cpu", cpuName},
      {"cpu_features", cpuFeatures},
      {"options", options},
      {"compiler", compiler},
      {"format_version", (int64_t)formatVersion},
      {"key", key().toHex()},
  };
}
