//===- HloLexer.h - tokens of XLA HLO text ----------------------*- C++ -*-===//
//
// This file declares the lexer for HLO text as XLA and the frameworks write
// it. Words are deliberately broad (names, opcodes, numbers, `0_0x1_1`
// padding specs, `-inf`): the parser decides what a word means from context,
// which keeps the lexer one pass over the bytes with no lookahead.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_HLO_HLOLEXER_H
#define KILN_LIB_IMPORT_HLO_HLOLEXER_H

#include "llvm/ADT/StringRef.h"

#include <array>

namespace kiln {
namespace hlo {

/// One token; `spelling` points into the source buffer.
struct Token {
  enum Kind {
    Eof,
    Error,       ///< a byte that starts no token, or an unterminated one
    Word,        ///< names, opcodes, numbers, keywords
    PercentName, ///< `%name`; spelling excludes the `%`
    String,      ///< `"..."`; spelling includes the quotes, escapes kept
    LBrace,
    RBrace,
    LSquare,
    RSquare,
    LParen,
    RParen,
    Comma,
    Equal,
    Colon,
    Arrow,     ///< `->`
    LessEqual, ///< `<=`
    Less,
    Greater,
    Hash,
    Star,
    Question,
    Semicolon,
  };
  Kind kind = Eof;
  llvm::StringRef spelling;

  bool is(Kind k) const { return kind == k; }
  bool isWord(llvm::StringRef word) const {
    return kind == Word && spelling == word;
  }
  const char *loc() const { return spelling.data(); }
  /// A short description for "expected X, found Y" messages.
  std::string describe() const;
};

/// Splits HLO text into tokens, skipping whitespace and `/*...*/` and `//`
/// comments. Position can be saved and restored, which the importer uses to
/// parse an attribute's value only once it knows what the value must be.
class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer)
      : begin(buffer.begin()), end(buffer.end()), cur(buffer.begin()) {}

  Token lex();

  const char *getPosition() const { return cur; }
  void setPosition(const char *pos) { cur = pos; }
  const char *getBufferEnd() const { return end; }

private:
  Token make(Token::Kind kind, const char *start) {
    return Token{kind, llvm::StringRef(start, cur - start)};
  }
  Token lexString(const char *start);

  const char *begin;
  const char *end;
  const char *cur;
};

/// The bytes that can appear in a word token, as a table: words are most
/// of the tokens read, and a lookup beats a chain of comparisons.
inline constexpr std::array<bool, 256> kWordChars = [] {
  std::array<bool, 256> table{};
  for (unsigned c = 0; c < 256; ++c)
    table[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
               c == '+' || c == '$';
  return table;
}();

/// Returns true if `c` can appear in a word token.
inline bool isWordChar(char c) { return kWordChars[(unsigned char)c]; }

/// Finds the end of the bracketed group that starts at `begin`, byte by
/// byte, without making tokens: attribute values (metadata above all) are
/// most of a dump's bytes, and the importer's first phase only steps over
/// them. Returns null where lex() would see something wrong (a mismatched
/// or unclosed bracket, an unterminated string or comment, a byte that
/// starts no token) or the nesting is unusually deep: the caller then skips
/// token by token and reports it. It reads the syntax lex() reads, so the
/// two change together.
const char *findGroupEnd(const char *begin, const char *end);

/// The end of an array shape `f32[8192,896]{1,0}` that starts at `begin`
/// (its element type's word) when it has a plain spelling, or null where
/// tokens must decide: a comment, a space before the layout, anything but
/// sizes, `,`, `<=` and `?` between the brackets. Every instruction has a
/// shape, so stepping over it without tokens is worth it.
const char *findPlainArrayShapeEnd(const char *begin, const char *end);

/// Parses a decimal (optionally negative) integer word; false if it is not one.
bool parseInteger(llvm::StringRef word, int64_t &value);

/// Rewrites a value's text as its tokens with the least spacing that keeps
/// them apart, without comments, so that two spellings of one value (a
/// `/*index=5*/` comment, extra spaces) are one text. With `dropMetadata`,
/// `metadata={...}` groups (source lines inside shardings) are left out.
std::string canonicalizeText(llvm::StringRef text, bool dropMetadata = false);

/// Returns the contents of a string token with escapes resolved.
std::string unescapeString(llvm::StringRef quoted);

} // namespace hlo
} // namespace kiln

#endif // KILN_LIB_IMPORT_HLO_HLOLEXER_H
