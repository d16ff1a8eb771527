//===- PrintableText.h - names as a terminal may show them ------*- C++ -*-===//
//
// This file declares how kiln prints text it did not write (file names,
// graph names) on lines meant for people: control characters (a newline,
// an escape sequence that would recolor or move the terminal's cursor)
// are written as `\n`, `\t`, `\xHH`, so that one name is one line and
// says what it is. JSON output carries names as they are.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_PRINTABLETEXT_H
#define KILN_SUPPORT_PRINTABLETEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln {

/// Appends `c` to `out`, escaped if it is a control character (below
/// 0x20, and 0x7f): \n, \t, \r, else \xHH.
inline void appendEscaped(std::string &out, char c) {
  static const char kHex[] = "0123456789abcdef";
  unsigned char byte = (unsigned char)c;
  if (byte >= 0x20 && byte != 0x7f)
    out += c;
  else if (c == '\n')
    out += "\\n";
  else if (c == '\t')
    out += "\\t";
  else if (c == '\r')
    out += "\\r";
  else {
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
}

/// `text` with its control characters (below 0x20, and 0x7f) escaped.
inline std::string escapeControlCharacters(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    appendEscaped(out, c);
  return out;
}

/// Text of several lines (a log, diagnostics) for a terminal: its lines and
/// tabs kept, every other control character escaped (a file's escape codes
/// are shown, not obeyed); a carriage return before a newline dropped.
inline std::string escapeControlCharactersInLines(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n' || c == '\t')
      out += c;
    else if (!(c == '\r' && i + 1 < text.size() && text[i + 1] == '\n'))
      appendEscaped(out, c);
  }
  return out;
}

} // namespace kiln

#endif // KILN_SUPPORT_PRINTABLETEXT_H
