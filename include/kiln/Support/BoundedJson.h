//===- BoundedJson.h - JSON from files kiln did not write -------*- C++ -*-===//
//
// This file declares the one way kiln parses JSON that comes from outside
// the process (artifact headers and manifests, a cluster's run files):
// with its nesting bounded before the parser sees it. llvm::json::parse
// recurses once per nested array or object, so a file of 100,000 `[`
// would exhaust the stack; real headers nest four levels deep.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_BOUNDEDJSON_H
#define KILN_SUPPORT_BOUNDEDJSON_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace kiln {

/// Nesting that no JSON kiln writes comes near.
constexpr unsigned kMaxJsonDepth = 32;

/// The nesting depth of `text`'s arrays and objects, counted outside
/// strings, or the first depth past `limit` (the scan stops there).
inline unsigned getJsonDepth(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit)
        return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

/// `text` parsed, unless it nests deeper than `maxDepth` (an error that
/// says so) or is not JSON.
inline llvm::Expected<llvm::json::Value>
parseBoundedJson(llvm::StringRef text, unsigned maxDepth = kMaxJsonDepth) {
  if (getJsonDepth(text, maxDepth) > maxDepth)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "JSON nested deeper than " + llvm::Twine(maxDepth) + " levels");
  return llvm::json::parse(text);
}

} // namespace kiln

#endif // KILN_SUPPORT_BOUNDEDJSON_H
