//===- HloLexer.cpp - tokens of XLA HLO text --------------------*- C++ -*-===//
//
// This file implements the HLO text lexer.
//
//===----------------------------------------------------------------------===//

#include "HloLexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cstring>

using namespace kiln;
using namespace kiln::hlo;

std::string Token::describe() const {
  switch (kind) {
  case Eof:
    return "end of file";
  case Error:
    if (spelling.starts_with("\""))
      return "an unterminated string (no closing '\"')";
    if (spelling.starts_with("/*"))
      return "an unterminated comment (no closing '*/')";
    if (!spelling.empty() &&
        ((unsigned char)spelling[0] >= 0x80 ||
         (unsigned char)spelling[0] < 0x20 || spelling[0] == 0x7f))
      return llvm::formatv("invalid character 0x{0:x-2} ({1})",
                           (unsigned)(unsigned char)spelling[0],
                           (unsigned char)spelling[0] >= 0x80
                               ? "not ASCII: binary data, or not HLO text"
                               : "a control character")
          .str();
    return "invalid character '" + spelling.take_front(1).str() + "'";
  case String:
    return "string " + spelling.take_front(40).str();
  case PercentName:
    return "'%" + spelling.str() + "'";
  default:
    return "'" + spelling.take_front(40).str() + "'";
  }
}

Token Lexer::lex() {
  while (true) {
    if (cur == end)
      return Token{Token::Eof, llvm::StringRef(end, 0)};
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++cur;
      continue;
    }
    if (c == '/' && cur + 1 < end && cur[1] == '*') {
      const char *start = cur;
      cur += 2;
      while (cur + 1 < end && !(cur[0] == '*' && cur[1] == '/'))
        ++cur;
      if (cur + 1 >= end) {
        cur = end;
        return Token{Token::Error, llvm::StringRef(start, 2)};
      }
      cur += 2;
      continue;
    }
    if (c == '/' && cur + 1 < end && cur[1] == '/') {
      while (cur < end && *cur != '\n')
        ++cur;
      continue;
    }
    break;
  }

  const char *start = cur;
  char c = *cur++;
  switch (c) {
  case '{':
    return make(Token::LBrace, start);
  case '}':
    return make(Token::RBrace, start);
  case '[':
    return make(Token::LSquare, start);
  case ']':
    return make(Token::RSquare, start);
  case '(':
    return make(Token::LParen, start);
  case ')':
    return make(Token::RParen, start);
  case ',':
    return make(Token::Comma, start);
  case '=':
    return make(Token::Equal, start);
  case ':':
    return make(Token::Colon, start);
  case '#':
    return make(Token::Hash, start);
  case '*':
    return make(Token::Star, start);
  case '?':
    return make(Token::Question, start);
  case ';':
    return make(Token::Semicolon, start);
  case '>':
    return make(Token::Greater, start);
  case '<':
    if (cur < end && *cur == '=') {
      ++cur;
      return make(Token::LessEqual, start);
    }
    return make(Token::Less, start);
  case '"':
    return lexString(start);
  case '%': {
    const char *nameStart = cur;
    while (cur < end && isWordChar(*cur))
      ++cur;
    if (cur == nameStart)
      return make(Token::Error, start);
    return Token{Token::PercentName,
                 llvm::StringRef(nameStart, cur - nameStart)};
  }
  case '-':
    if (cur < end && *cur == '>') {
      ++cur;
      return make(Token::Arrow, start);
    }
    [[fallthrough]];
  default:
    if (!isWordChar(c))
      return make(Token::Error, start);
    // A word never swallows the `-` of `->` (as in `b01f_01io->b01f`).
    while (cur < end && isWordChar(*cur) &&
           !(*cur == '-' && cur + 1 < end && cur[1] == '>'))
      ++cur;
    // A NaN with its payload, as XLA prints one: `nan(0x7f)`, `-nan(0x1)`.
    if (cur < end && *cur == '(' &&
        (llvm::StringRef(start, cur - start) == "nan" ||
         llvm::StringRef(start, cur - start) == "-nan")) {
      const char *close = cur + 1;
      while (close < end && llvm::isAlnum(*close))
        ++close;
      if (close < end && *close == ')')
        cur = close + 1;
    }
    return make(Token::Word, start);
  }
}

Token Lexer::lexString(const char *start) {
  while (cur < end) {
    char c = *cur++;
    if (c == '\\') {
      if (cur < end)
        ++cur;
      continue;
    }
    if (c == '"')
      return make(Token::String, start);
  }
  return Token{Token::Error, llvm::StringRef(start, 1)};
}

/// How findGroupEnd treats each byte.
enum class ByteClass : uint8_t {
  Other,  ///< starts no token: leave the group to the lexer's errors
  Plain,  ///< whitespace, a word's byte or a one-byte token
  Open,   ///< `{`, `[`, `(`
  Close,  ///< `}`, `]`, `)`
  Quote,  ///< a string starts
  Slash,  ///< a comment starts, or an error
  Percent ///< a `%name` starts, or an error
};

static const std::array<ByteClass, 256> &getByteClasses() {
  static const std::array<ByteClass, 256> classes = [] {
    std::array<ByteClass, 256> table;
    table.fill(ByteClass::Other);
    for (unsigned c = 0; c < 256; ++c)
      if (isWordChar(c))
        table[c] = ByteClass::Plain;
    for (char c : llvm::StringRef(" \t\n\r,=:#*?;<>"))
      table[(unsigned char)c] = ByteClass::Plain;
    for (char c : llvm::StringRef("{[("))
      table[(unsigned char)c] = ByteClass::Open;
    for (char c : llvm::StringRef("}])"))
      table[(unsigned char)c] = ByteClass::Close;
    table['"'] = ByteClass::Quote;
    table['/'] = ByteClass::Slash;
    table['%'] = ByteClass::Percent;
    return table;
  }();
  return classes;
}

const char *hlo::findGroupEnd(const char *begin, const char *end) {
  const std::array<ByteClass, 256> &classes = getByteClasses();
  constexpr unsigned kMaxDepth = 64;
  char expected[kMaxDepth];
  unsigned depth = 0;
  for (const char *p = begin; p < end; ++p) {
    while (classes[(unsigned char)*p] == ByteClass::Plain)
      if (++p == end)
        return nullptr;
    switch (classes[(unsigned char)*p]) {
    case ByteClass::Plain:
      continue;
    case ByteClass::Open:
      if (depth == kMaxDepth)
        return nullptr;
      expected[depth++] = *p == '{' ? '}' : *p == '[' ? ']' : ')';
      continue;
    case ByteClass::Close:
      if (depth == 0 || expected[depth - 1] != *p)
        return nullptr;
      if (--depth == 0)
        return p + 1;
      continue;
    case ByteClass::Quote: {
      // Strings (op names, source files) are most of a metadata group's
      // bytes: memchr finds the closing quote, then any escape before it.
      const char *close;
      for (const char *from = p + 1;; from = close + 1) {
        close = static_cast<const char *>(std::memchr(from, '"', end - from));
        if (!close)
          return nullptr;
        // The quote is escaped when an odd number of backslashes precede it.
        const char *slash = close;
        while (slash > from && slash[-1] == '\\')
          --slash;
        if ((close - slash) % 2 == 0)
          break;
      }
      p = close;
      continue;
    }
    case ByteClass::Slash:
      if (p + 1 < end && p[1] == '/') {
        while (p < end && *p != '\n')
          ++p;
        if (p == end)
          return nullptr;
        continue;
      }
      if (p + 1 < end && p[1] == '*') {
        const char *close = p + 2;
        while (close + 1 < end && !(close[0] == '*' && close[1] == '/'))
          ++close;
        if (close + 1 >= end)
          return nullptr;
        p = close + 1;
        continue;
      }
      return nullptr;
    case ByteClass::Percent:
      if (p + 1 < end && isWordChar(p[1]))
        continue;
      return nullptr;
    case ByteClass::Other:
      return nullptr;
    }
  }
  return nullptr;
}

const char *hlo::findPlainArrayShapeEnd(const char *begin, const char *end) {
  const char *p = begin;
  while (p < end && isWordChar(*p))
    ++p;
  if (p == end || *p != '[')
    return nullptr;
  for (++p; p < end && *p != ']'; ++p)
    if (!llvm::isDigit(*p) && *p != ',' && *p != ' ' && *p != '<' &&
        *p != '=' && *p != '?')
      return nullptr;
  if (p == end)
    return nullptr;
  const char *shapeEnd = ++p;
  // A layout follows directly, starting with a dimension number, ':' or '}'.
  if (p < end && *p == '{') {
    const char *q = p + 1;
    while (q < end && llvm::isDigit(*q))
      ++q;
    if (q < end && (*q == '}' || *q == ':' || (q > p + 1 && *q == ',')))
      return findGroupEnd(p, end);
    return nullptr;
  }
  // What follows must not be a `{` that the lexer would find after
  // whitespace or a comment.
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    ++p;
  if (p < end && (*p == '{' || *p == '/'))
    return nullptr;
  return shapeEnd;
}

bool hlo::parseInteger(llvm::StringRef word, int64_t &value) {
  if (word.empty())
    return false;
  return !word.getAsInteger(10, value);
}

std::string hlo::unescapeString(llvm::StringRef quoted) {
  llvm::StringRef body = quoted.drop_front().drop_back();
  if (!body.contains('\\'))
    return body.str();
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out.push_back(c);
      continue;
    }
    char e = body[++i];
    switch (e) {
    case 'n':
      out.push_back('\n');
      break;
    case 't':
      out.push_back('\t');
      break;
    case 'r':
      out.push_back('\r');
      break;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      // Octal escape, as C and protobuf text format write bytes.
      unsigned v = 0, n = 0;
      while (n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7') {
        v = v * 8 + (body[i] - '0');
        ++i;
        ++n;
      }
      --i;
      out.push_back(static_cast<char>(v));
      break;
    }
    case 'x': {
      unsigned v = 0, n = 0;
      while (n < 2 && i + 1 < body.size() && llvm::isHexDigit(body[i + 1])) {
        v = v * 16 + llvm::hexDigitValue(body[++i]);
        ++n;
      }
      out.push_back(static_cast<char>(v));
      break;
    }
    default:
      out.push_back(e);
      break;
    }
  }
  return out;
}

std::string hlo::canonicalizeText(llvm::StringRef text, bool dropMetadata) {
  Lexer lexer(text);
  std::string out;
  out.reserve(text.size());
  // Word-likeness of the last three tokens written, newest last: a dropped
  // `metadata={...}` restores the one before `metadata`.
  bool written[3] = {false, false, false};
  int skipDepth = 0; // inside a dropped metadata group
  Token previous, beforePrevious;
  for (Token tok = lexer.lex(); !tok.is(Token::Eof); tok = lexer.lex()) {
    if (tok.is(Token::Error))
      return text.str(); // not ours to judge here; keep it as it was
    if (skipDepth > 0) {
      if (tok.is(Token::LBrace))
        ++skipDepth;
      else if (tok.is(Token::RBrace))
        --skipDepth;
      continue;
    }
    if (dropMetadata && tok.is(Token::LBrace) && previous.is(Token::Equal) &&
        beforePrevious.isWord("metadata")) {
      // Remove the `metadata=` already written, and a separating space.
      out.resize(out.size() - (sizeof("metadata=") - 1));
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      skipDepth = 1;
      written[2] = written[0];
      previous = beforePrevious = Token();
      continue;
    }
    bool wordLike = tok.is(Token::Word) || tok.is(Token::PercentName) ||
                    tok.is(Token::String);
    if (wordLike && written[2])
      out += ' ';
    if (tok.is(Token::PercentName))
      out += '%';
    out += tok.spelling.str();
    written[0] = written[1];
    written[1] = written[2];
    written[2] = wordLike;
    beforePrevious = previous;
    previous = tok;
  }
  return out;
}
