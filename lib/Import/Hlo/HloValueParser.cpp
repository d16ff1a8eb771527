//===- HloValueParser.cpp - shapes, literals and attribute values -*- C++
//-*-===//
//
// This file implements the typed parsers of HLO text values.
//
//===----------------------------------------------------------------------===//

#include "HloValueParser.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace kiln;
using namespace kiln::hlo;

ValueParser::ValueParser(TokenCursor &cursor, MLIRContext *context)
    : cursor(cursor), context(context) {
  auto add = [&](llvm::StringRef name, Type type) {
    elementTypes[name] = type;
  };
  add("pred", IntegerType::get(context, 1));
  for (unsigned width : {2, 4, 8, 16, 32, 64}) {
    add("s" + std::to_string(width), IntegerType::get(context, width));
    add("u" + std::to_string(width),
        IntegerType::get(context, width, IntegerType::Unsigned));
  }
  add("f16", Float16Type::get(context));
  add("bf16", BFloat16Type::get(context));
  add("f32", Float32Type::get(context));
  add("f64", Float64Type::get(context));
  add("f8e5m2", Float8E5M2Type::get(context));
  add("f8e4m3", Float8E4M3Type::get(context));
  add("f8e4m3fn", Float8E4M3FNType::get(context));
  add("f8e5m2fnuz", Float8E5M2FNUZType::get(context));
  add("f8e4m3fnuz", Float8E4M3FNUZType::get(context));
  add("f8e4m3b11fnuz", Float8E4M3B11FNUZType::get(context));
  add("f8e3m4", Float8E3M4Type::get(context));
  add("f8e8m0fnu", Float8E8M0FNUType::get(context));
  add("f4e2m1fn", Float4E2M1FNType::get(context));
  add("f6e2m3fn", Float6E2M3FNType::get(context));
  add("f6e3m2fn", Float6E3M2FNType::get(context));
  add("c64", ComplexType::get(Float32Type::get(context)));
  add("c128", ComplexType::get(Float64Type::get(context)));
}

Type ValueParser::getElementType(llvm::StringRef name) {
  return elementTypes.lookup(name);
}

LogicalResult ValueParser::parseShape(Shape &shape) {
  shape = Shape();
  return failure(failed(parseShapeInto(shape)));
}

/// Returns true if `layout` (the text inside the braces) is the default
/// descending minor-to-major order for `rank`, which kiln does not record.
static bool isDefaultLayout(llvm::StringRef layout, int64_t rank) {
  int64_t expected = rank - 1;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  layout.split(parts, ',', -1, /*KeepEmpty=*/false);
  if ((int64_t)parts.size() != rank)
    return false;
  for (llvm::StringRef part : parts) {
    int64_t dim;
    if (part.trim().getAsInteger(10, dim) || dim != expected--)
      return false;
  }
  return true;
}

/// Checks a layout's minor-to-major list (the part of `{1,0:T(8,128)}`
/// before ':'): a permutation of [0, rank), as XLA requires, so that a
/// malformed layout is not carried into an export that XLA would reject.
LogicalResult ValueParser::verifyLayout(llvm::StringRef text, size_t rank,
                                        const char *loc) {
  llvm::StringRef list = text.drop_front().drop_back();
  list = list.split(':').first;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  llvm::SmallVector<bool, 8> seen(rank, false);
  bool ok = parts.size() == rank;
  for (llvm::StringRef part : parts) {
    uint64_t dim;
    if (!ok || part.trim().getAsInteger(10, dim) || dim >= rank || seen[dim]) {
      ok = false;
      break;
    }
    seen[dim] = true;
  }
  if (ok)
    return success();
  return cursor.getPositions().emitError(loc)
         << "layout must list each of the " << rank
         << " dimensions once (a permutation of [0, " << rank << "))";
}

FailureOr<unsigned> ValueParser::parseShapeInto(Shape &shape) {
  const Token &tok = cursor.current();
  unsigned index = shape.nodes.size();
  shape.nodes.emplace_back();
  shape.nodes[index].leafBegin = shape.leaves.size();
  if (tok.is(Token::LParen)) {
    // Real shapes nest a few levels; a bound keeps the recursion safe.
    if (tupleDepth >= kMaxTupleDepth)
      return cursor.emitError("tuple shapes nest deeper than " +
                              llvm::Twine(kMaxTupleDepth) + " levels");
    cursor.consume();
    ++tupleDepth;
    llvm::scope_exit leave([&] { --tupleDepth; });
    shape.nodes[index].isTuple = true;
    while (!cursor.current().is(Token::RParen)) {
      FailureOr<unsigned> child = parseShapeInto(shape);
      if (failed(child))
        return failure();
      shape.nodes[index].children.push_back(*child);
      if (!cursor.consumeIf(Token::Comma))
        break;
    }
    if (failed(cursor.expect(Token::RParen, "',' or ')' in a tuple shape")))
      return failure();
    shape.nodes[index].leafEnd = shape.leaves.size();
    return index;
  }
  if (!tok.is(Token::Word))
    return cursor.emitExpected("a shape");
  llvm::StringRef elementName = tok.spelling;
  const char *elementLoc = tok.loc();
  cursor.consume();
  if (failed(cursor.expect(Token::LSquare,
                           "'[' after element type '" + elementName + "'")))
    return failure();
  llvm::SmallVector<int64_t, 6> dims;
  llvm::SmallVector<bool, 6> bounded;
  while (!cursor.current().is(Token::RSquare)) {
    if (dims.size() == kMaxRank)
      return cursor.emitError("shape has more than " + llvm::Twine(kMaxRank) +
                              " dimensions (kiln's limit)");
    // `<=N`: a dynamic dimension bounded by N, kept as N and marked.
    bounded.push_back(cursor.consumeIf(Token::LessEqual));
    const Token &dimTok = cursor.current();
    // `?`: an unbounded dynamic dimension, as StableHLO's `?`.
    if (dimTok.is(Token::Question)) {
      if (bounded.back())
        return cursor.emitError("a bounded dimension needs its bound: "
                                "'<=N', not '<=?'");
      cursor.consume();
      dims.push_back(ShapedType::kDynamic);
      if (!cursor.consumeIf(Token::Comma))
        break;
      continue;
    }
    int64_t dim;
    if (failed(cursor.parseInt(dim, "a dimension size")))
      return failure();
    if (dim < 0)
      return cursor.getPositions().emitError(dimTok.loc())
             << "dimension size must not be negative, found " << dim;
    dims.push_back(dim);
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  if (failed(cursor.expect(Token::RSquare, "',' or ']' in a shape")))
    return failure();

  StringAttr layout;
  // A layout starts with a dimension number, ':' or '}'; a '{' followed by
  // anything else is what comes after the shape (a computation's body).
  auto startsLayout = [&] {
    if (!cursor.current().is(Token::LBrace))
      return false;
    TokenCursor peek = cursor;
    peek.consume();
    const Token &next = peek.current();
    return next.is(Token::RBrace) || next.is(Token::Colon) ||
           (next.is(Token::Word) && !next.spelling.empty() &&
            llvm::isDigit(next.spelling.front()));
  };
  if (startsLayout()) {
    const char *begin = cursor.current().loc();
    if (failed(cursor.skipBalanced()))
      return failure();
    llvm::StringRef text(begin, cursor.lastTokenEnd() - begin);
    if (failed(verifyLayout(text, dims.size(), begin)))
      return failure();
    if (!isDefaultLayout(text.drop_front().drop_back(), dims.size()))
      layout = StringAttr::get(context, text);
  }

  Type type;
  if (elementName == "token") {
    if (!dims.empty())
      return cursor.getPositions().emitError(elementLoc)
             << "token shape must be 'token[]'";
    type = TokenType::get(context);
  } else {
    Type elementType = getElementType(elementName);
    if (!elementType)
      return cursor.getPositions().emitError(elementLoc)
             << "unknown element type '" << elementName << "'";
    // Bounded dimensions are marked in the tensor's encoding,
    // `{bounded = [true, false]}`, so that the signature tells f32[<=128]
    // from f32[128]; the size is the bound.
    Attribute encoding;
    if (llvm::is_contained(bounded, true)) {
      llvm::SmallVector<Attribute, 6> flags;
      for (bool flag : bounded)
        flags.push_back(BoolAttr::get(context, flag));
      encoding = DictionaryAttr::get(
          context, {NamedAttribute(StringAttr::get(context, "bounded"),
                                   ArrayAttr::get(context, flags))});
    }
    type = RankedTensorType::get(dims, elementType, encoding);
  }
  shape.leaves.push_back(type);
  shape.layouts.push_back(layout);
  shape.nodes[index].leafEnd = shape.leaves.size();
  return index;
}

std::string hlo::describeTupleStructure(const Shape &shape, unsigned node) {
  std::string text;
  std::function<void(unsigned)> visit = [&](unsigned index) {
    const ShapeNode &node = shape.nodes[index];
    if (!node.isTuple) {
      text += '_';
      return;
    }
    text += '(';
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (i)
        text += ',';
      visit(node.children[i]);
    }
    text += ')';
  };
  visit(node);
  return text;
}

LogicalResult ValueParser::parseInt(int64_t &value) {
  return cursor.parseInt(value, "an integer");
}

LogicalResult ValueParser::parseBool(bool &value) {
  const Token &tok = cursor.current();
  if (tok.isWord("true") || tok.isWord("false")) {
    value = tok.isWord("true");
    cursor.consume();
    return success();
  }
  return cursor.emitExpected("'true' or 'false'");
}

/// Parses a floating-point word as HLO prints them (`1e-05`, `-inf`, `nan`).
static bool parseDouble(llvm::StringRef word, double &value) {
  if (word.empty() || word.size() > 64)
    return false;
  char buffer[72];
  memcpy(buffer, word.data(), word.size());
  buffer[word.size()] = 0;
  // `nan(0x7fc0)` style payloads are not kept; a NaN is a NaN.
  char *end = nullptr;
  errno = 0;
  value = strtod(buffer, &end);
  return end == buffer + word.size();
}

LogicalResult ValueParser::parseFloat(double &value) {
  const Token &tok = cursor.current();
  if (!tok.is(Token::Word) || !parseDouble(tok.spelling, value))
    return cursor.emitExpected("a number");
  cursor.consume();
  return success();
}

LogicalResult ValueParser::parseText(std::string &value) {
  const Token &tok = cursor.current();
  if (tok.is(Token::String)) {
    value = unescapeString(tok.spelling);
  } else if (tok.is(Token::Word) || tok.is(Token::PercentName)) {
    value = tok.spelling.str();
  } else {
    return cursor.emitExpected("a string or a word");
  }
  cursor.consume();
  return success();
}

LogicalResult
ValueParser::parseIntList(llvm::SmallVectorImpl<int64_t> &values) {
  values.clear();
  if (failed(cursor.expect(Token::LBrace, "'{' to start a list of integers")))
    return failure();
  while (!cursor.current().is(Token::RBrace)) {
    int64_t value;
    if (failed(cursor.parseInt(value, "an integer")))
      return failure();
    values.push_back(value);
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  return cursor.expect(Token::RBrace, "',' or '}' in a list of integers");
}

LogicalResult
ValueParser::parseWordList(llvm::SmallVectorImpl<std::string> &words) {
  words.clear();
  if (failed(cursor.expect(Token::LBrace, "'{' to start a list")))
    return failure();
  while (!cursor.current().is(Token::RBrace)) {
    std::string word;
    if (failed(parseText(word)))
      return failure();
    words.push_back(std::move(word));
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  return cursor.expect(Token::RBrace, "',' or '}' in a list");
}

LogicalResult ValueParser::parseIotaList(IotaList &iota) {
  const char *begin = cursor.current().loc();
  auto parseBracketList = [&](llvm::SmallVectorImpl<int64_t> &values,
                              Token::Kind open, Token::Kind close,
                              llvm::StringRef what) -> LogicalResult {
    if (failed(cursor.expect(open, what)))
      return failure();
    while (!cursor.current().is(close)) {
      int64_t value;
      if (failed(cursor.parseInt(value, "an integer")))
        return failure();
      values.push_back(value);
      if (!cursor.consumeIf(Token::Comma))
        break;
    }
    return cursor.expect(close, "',' or a closing bracket");
  };
  if (failed(parseBracketList(iota.dims, Token::LSquare, Token::RSquare,
                              "'[' to start an iota list")) ||
      failed(cursor.expect(Token::LessEqual, "'<=' in an iota list")) ||
      failed(parseBracketList(iota.reshape, Token::LSquare, Token::RSquare,
                              "'[' after '<='")))
    return failure();
  if (cursor.current().isWord("T")) {
    cursor.consume();
    if (failed(parseBracketList(iota.transpose, Token::LParen, Token::RParen,
                                "'(' after 'T'")))
      return failure();
  }
  // Sizes are device counts: positive, and bounded so that a malformed
  // list can neither overflow nor ask for gigabytes of ids.
  auto product = [&](llvm::ArrayRef<int64_t> dims,
                     int64_t &result) -> LogicalResult {
    result = 1;
    for (int64_t d : dims) {
      if (d < 1 || d > kMaxIotaElements || result * d > kMaxIotaElements)
        return cursor.getPositions().emitError(begin)
               << "iota list sizes must be positive with at most "
               << kMaxIotaElements << " elements in all, found " << d;
      result *= d;
    }
    return success();
  };
  int64_t total, reshaped;
  if (failed(product(iota.dims, total)) ||
      failed(product(iota.reshape, reshaped)))
    return failure();
  if (total != reshaped)
    return cursor.getPositions().emitError(begin)
           << "iota list has " << total << " elements but is reshaped from "
           << reshaped;
  if (!iota.transpose.empty()) {
    llvm::SmallVector<int64_t> sorted(iota.transpose.begin(),
                                      iota.transpose.end());
    llvm::sort(sorted);
    bool isPermutation = sorted.size() == iota.reshape.size();
    for (size_t i = 0; isPermutation && i < sorted.size(); ++i)
      isPermutation = sorted[i] == (int64_t)i;
    if (!isPermutation)
      return cursor.getPositions().emitError(begin)
             << "iota list transpose T(...) is not a permutation of its "
                "reshape dimensions";
  }
  return success();
}

llvm::SmallVector<int64_t> hlo::expandIotaList(const IotaList &iota) {
  // iota(N) reshaped to `reshape`, transposed by `transpose`, row-major.
  int64_t total = 1;
  for (int64_t d : iota.reshape)
    total *= d;
  llvm::SmallVector<int64_t> result(total);
  if (iota.transpose.empty()) {
    std::iota(result.begin(), result.end(), 0);
    return result;
  }
  size_t rank = iota.reshape.size();
  llvm::SmallVector<int64_t> strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * iota.reshape[i + 1];
  llvm::SmallVector<int64_t> outDims(rank), index(rank, 0);
  for (size_t i = 0; i < rank; ++i)
    outDims[i] = iota.reshape[iota.transpose[i]];
  for (int64_t linear = 0; linear < total; ++linear) {
    int64_t source = 0;
    for (size_t i = 0; i < rank; ++i)
      source += index[i] * strides[iota.transpose[i]];
    result[linear] = source;
    for (int i = rank - 1; i >= 0; --i) {
      if (++index[i] < outDims[i])
        break;
      index[i] = 0;
    }
  }
  return result;
}

LogicalResult ValueParser::parseIntMatrix(DenseIntElementsAttr &matrix,
                                          llvm::StringRef what) {
  llvm::SmallVector<int64_t> values;
  int64_t rows = 0, columns = 0;
  if (cursor.current().is(Token::LSquare)) {
    const char *begin = cursor.current().loc();
    IotaList iota;
    if (failed(parseIotaList(iota)))
      return failure();
    if (iota.dims.size() != 2)
      return cursor.getPositions().emitError(begin)
             << "iota " << what << " must have 2 dimensions";
    rows = iota.dims[0];
    columns = iota.dims[1];
    values = expandIotaList(iota);
  } else {
    if (failed(cursor.expect(Token::LBrace, "'{' or '[' to start " + what)))
      return failure();
    bool first = true;
    while (cursor.current().is(Token::LBrace)) {
      const char *rowLoc = cursor.current().loc();
      llvm::SmallVector<int64_t> row;
      if (failed(parseIntList(row)))
        return failure();
      if (first)
        columns = row.size();
      else if ((int64_t)row.size() != columns)
        return cursor.getPositions().emitError(rowLoc)
               << what << " must all have the same size: found " << row.size()
               << " after " << columns;
      first = false;
      values.append(row);
      ++rows;
      if (!cursor.consumeIf(Token::Comma))
        break;
    }
    if (failed(cursor.expect(Token::RBrace, "'}' to end " + what)))
      return failure();
  }
  auto type =
      RankedTensorType::get({rows, columns}, IntegerType::get(context, 64));
  matrix = DenseIntElementsAttr::get(type, llvm::ArrayRef<int64_t>(values));
  return success();
}

LogicalResult
ValueParser::parseSliceSpec(llvm::SmallVectorImpl<int64_t> &starts,
                            llvm::SmallVectorImpl<int64_t> &limits,
                            llvm::SmallVectorImpl<int64_t> &strides) {
  if (failed(cursor.expect(Token::LBrace, "'{' to start a slice")))
    return failure();
  while (cursor.current().is(Token::LSquare)) {
    cursor.consume();
    int64_t start, limit, stride = 1;
    if (failed(cursor.parseInt(start, "a slice start")) ||
        failed(cursor.expect(Token::Colon, "':' in a slice")) ||
        failed(cursor.parseInt(limit, "a slice limit")))
      return failure();
    if (cursor.consumeIf(Token::Colon) &&
        failed(cursor.parseInt(stride, "a slice stride")))
      return failure();
    if (failed(cursor.expect(Token::RSquare, "']' to end a slice dimension")))
      return failure();
    starts.push_back(start);
    limits.push_back(limit);
    strides.push_back(stride);
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  return cursor.expect(Token::RBrace, "',' or '}' in a slice");
}

LogicalResult
ValueParser::parseXSeparated(llvm::StringRef word,
                             llvm::SmallVectorImpl<int64_t> &values) {
  llvm::SmallVector<llvm::StringRef, 6> parts;
  word.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t value;
    if (part.getAsInteger(10, value))
      return cursor.emitExpected("dimensions separated by 'x'");
    values.push_back(value);
  }
  return success();
}

LogicalResult
ValueParser::parsePaddingSpec(llvm::SmallVectorImpl<int64_t> &low,
                              llvm::SmallVectorImpl<int64_t> &high,
                              llvm::SmallVectorImpl<int64_t> &interior) {
  const Token &tok = cursor.current();
  if (!tok.is(Token::Word))
    return cursor.emitExpected("a padding like 0_0x1_1");
  llvm::SmallVector<llvm::StringRef, 6> dims;
  tok.spelling.split(dims, 'x');
  for (llvm::StringRef dim : dims) {
    llvm::SmallVector<llvm::StringRef, 3> parts;
    dim.split(parts, '_');
    int64_t values[3] = {0, 0, 0};
    bool ok = parts.size() == 2 || parts.size() == 3;
    for (size_t i = 0; ok && i < parts.size(); ++i)
      ok = !parts[i].getAsInteger(10, values[i]);
    if (!ok)
      return cursor.emitExpected(
          "a padding like 0_0x1_1 (low_high[_interior] per dimension)");
    low.push_back(values[0]);
    high.push_back(values[1]);
    interior.push_back(values[2]);
  }
  cursor.consume();
  return success();
}

LogicalResult ValueParser::parseWindow(Window &window) {
  if (failed(cursor.expect(Token::LBrace, "'{' to start a window")))
    return failure();
  while (!cursor.consumeIf(Token::RBrace)) {
    llvm::StringRef field;
    if (failed(cursor.parseName(field, "a window field")) ||
        failed(cursor.expect(Token::Equal, "'=' after window field")))
      return failure();
    if (field == "pad") {
      llvm::SmallVector<int64_t> interior;
      if (failed(parsePaddingSpec(window.padLow, window.padHigh, interior)))
        return failure();
      continue;
    }
    if (field == "rhs_reversal") {
      llvm::SmallVector<int64_t> flags;
      if (!cursor.current().is(Token::Word))
        return cursor.emitExpected("dimensions separated by 'x'");
      if (failed(parseXSeparated(cursor.current().spelling, flags)))
        return failure();
      for (int64_t flag : flags) {
        if (flag != 0 && flag != 1)
          return cursor.emitError("rhs_reversal entries must be 0 or 1");
        window.reversal.push_back(flag);
      }
      cursor.consume();
      continue;
    }
    llvm::SmallVectorImpl<int64_t> *target =
        llvm::StringSwitch<llvm::SmallVectorImpl<int64_t> *>(field)
            .Case("size", &window.size)
            .Case("stride", &window.stride)
            .Case("lhs_dilate", &window.baseDilation)
            .Case("rhs_dilate", &window.windowDilation)
            .Default(nullptr);
    if (!target)
      return cursor.emitError("unknown window field '" + field + "'");
    if (!cursor.current().is(Token::Word))
      return cursor.emitExpected("dimensions separated by 'x'");
    if (failed(parseXSeparated(cursor.current().spelling, *target)))
      return failure();
    cursor.consume();
  }
  size_t rank = window.size.size();
  auto fill = [&](llvm::SmallVectorImpl<int64_t> &values, int64_t value) {
    if (values.empty())
      values.assign(rank, value);
  };
  fill(window.stride, 1);
  fill(window.padLow, 0);
  fill(window.padHigh, 0);
  fill(window.baseDilation, 1);
  fill(window.windowDilation, 1);
  for (auto *values : {&window.stride, &window.padLow, &window.padHigh,
                       &window.baseDilation, &window.windowDilation})
    if (values->size() != rank)
      return cursor.emitError("window fields must all have " +
                              llvm::Twine(rank) + " dimensions like 'size'");
  if (!window.reversal.empty() && window.reversal.size() != rank)
    return cursor.emitError("window fields must all have " +
                            llvm::Twine(rank) + " dimensions like 'size'");
  return success();
}

LogicalResult ValueParser::parseConvDimLabels(ConvDimLabels &labels) {
  const Token &tok = cursor.current();
  // The lexer reads `b01f_01io` as one word, then `->`, then `b01f`.
  if (!tok.is(Token::Word))
    return cursor.emitExpected("dim_labels such as 'b01f_01io->b01f'");
  const char *loc = tok.loc();
  llvm::StringRef text = tok.spelling;
  cursor.consume();
  auto [input, kernel] = text.split('_');
  if (kernel.empty() || failed(cursor.expect(Token::Arrow, "'->' in dim_labels")))
    return cursor.getPositions().emitError(loc)
           << "dim_labels must read INPUT_KERNEL->OUTPUT, e.g. "
              "'b01f_01io->b01f'";
  if (!cursor.current().is(Token::Word))
    return cursor.emitExpected("the output labels of dim_labels");
  llvm::StringRef output = cursor.current().spelling;
  cursor.consume();
  // Each part names every dimension once: two letters and the spatial
  // dimensions 0, 1, ... in some order.
  auto parsePart = [&](llvm::StringRef part, char first, char second,
                       int64_t &firstDim, int64_t &secondDim,
                       llvm::SmallVectorImpl<int64_t> &spatial) -> LogicalResult {
    firstDim = secondDim = -1;
    size_t spatialCount = part.size() >= 2 ? part.size() - 2 : 0;
    if (spatialCount > 10)
      return cursor.getPositions().emitError(loc)
             << "dim_labels part '" << part
             << "' has more than 10 spatial dimensions";
    spatial.assign(spatialCount, -1);
    for (size_t i = 0; i < part.size(); ++i) {
      char c = part[i];
      int64_t *slot = nullptr;
      if (c == first)
        slot = &firstDim;
      else if (c == second)
        slot = &secondDim;
      else if (c >= '0' && c <= '9' && (size_t)(c - '0') < spatialCount)
        slot = &spatial[c - '0'];
      if (!slot || *slot != -1)
        return cursor.getPositions().emitError(loc)
               << "dim_labels part '" << part << "' must hold '" << first
               << "', '" << second << "' and the digits 0 to "
               << (int64_t)spatialCount - 1 << " once each";
      *slot = i;
    }
    if (firstDim < 0 || secondDim < 0)
      return cursor.getPositions().emitError(loc)
             << "dim_labels part '" << part << "' must hold '" << first
             << "' and '" << second << "'";
    return success();
  };
  if (failed(parsePart(input, 'b', 'f', labels.inputBatch,
                       labels.inputFeature, labels.inputSpatial)) ||
      failed(parsePart(kernel, 'i', 'o', labels.kernelInputFeature,
                       labels.kernelOutputFeature, labels.kernelSpatial)) ||
      failed(parsePart(output, 'b', 'f', labels.outputBatch,
                       labels.outputFeature, labels.outputSpatial)))
    return failure();
  return success();
}

LogicalResult ValueParser::parseFrontendAttributes(DictionaryAttr &dict) {
  if (failed(cursor.expect(Token::LBrace, "'{' to start frontend attributes")))
    return failure();
  llvm::SmallVector<NamedAttribute> entries;
  while (!cursor.current().is(Token::RBrace)) {
    std::string key, value;
    if (failed(parseText(key)) ||
        failed(cursor.expect(Token::Equal, "'=' after attribute key")))
      return failure();
    if (cursor.current().is(Token::LBrace)) {
      // A structured value (e.g. a Shardy mesh): kept as its text.
      const char *begin = cursor.current().loc();
      if (failed(cursor.skipBalanced()))
        return failure();
      value = canonicalizeText(
          llvm::StringRef(begin, cursor.lastTokenEnd() - begin));
    } else if (failed(parseText(value))) {
      return failure();
    }
    entries.emplace_back(StringAttr::get(context, key),
                         StringAttr::get(context, value));
    if (!cursor.consumeIf(Token::Comma))
      break;
  }
  if (failed(cursor.expect(Token::RBrace, "',' or '}' in frontend attributes")))
    return failure();
  dict = DictionaryAttr::get(context, entries);
  return success();
}

bool hlo::parsePlainMetadata(llvm::StringRef group, Metadata &metadata) {
  Metadata read;
  const char *p = group.begin(), *end = group.end();
  if (p == end || *p != '{')
    return false;
  ++p;
  while (true) {
    while (p < end && *p == ' ')
      ++p;
    if (p == end)
      return false;
    if (*p == '}') {
      if (p + 1 != end)
        return false;
      metadata = std::move(read);
      return true;
    }
    const char *keyBegin = p;
    while (p < end && (llvm::isAlpha(*p) || *p == '_'))
      ++p;
    if (p == keyBegin || p == end || *p != '=')
      return false;
    llvm::StringRef key(keyBegin, p - keyBegin);
    std::string *text = read.textField(key);
    int64_t *number = read.numberField(key);
    if (++p == end)
      return false;
    if (*p == '"') {
      // Without a backslash, the first quote closes the string.
      const char *open = p + 1;
      const char *close =
          static_cast<const char *>(std::memchr(open, '"', end - open));
      if (!close || number || std::memchr(open, '\\', close - open))
        return false;
      if (text)
        text->assign(open, close);
      p = close + 1;
    } else {
      // A word: what the lexer would read, up to a space or the group's end.
      const char *wordBegin = p;
      if (*p == '-')
        ++p;
      while (p < end && (llvm::isAlnum(*p) || *p == '_'))
        ++p;
      llvm::StringRef word(wordBegin, p - wordBegin);
      if (text || word.empty() || (number && word.getAsInteger(10, *number)))
        return false;
    }
    if (p == end || (*p != ' ' && *p != '}'))
      return false;
  }
}

LogicalResult ValueParser::parseMetadata(Metadata &metadata) {
  if (failed(cursor.expect(Token::LBrace, "'{' to start metadata")))
    return failure();
  while (!cursor.consumeIf(Token::RBrace)) {
    llvm::StringRef key;
    if (failed(cursor.parseName(key, "a metadata field")) ||
        failed(cursor.expect(Token::Equal, "'=' after metadata field")))
      return failure();
    if (std::string *text = metadata.textField(key)) {
      if (failed(parseText(*text)))
        return failure();
    } else if (int64_t *number = metadata.numberField(key)) {
      if (failed(cursor.parseInt(*number, "an integer")))
        return failure();
    } else if (failed(cursor.skipValue())) {
      // A field kiln does not keep (see Metadata::textField).
      return failure();
    }
  }
  return success();
}

LogicalResult
ValueParser::parseLiteralElements(llvm::ArrayRef<int64_t> dims, size_t depth,
                                  bool isComplex,
                                  llvm::SmallVectorImpl<Token> &words) {
  // One level of braces per dimension, each with as many elements as the
  // dimension; the recursion is as deep as the shape's rank, no deeper.
  const Token &tok = cursor.current();
  if (depth < dims.size()) {
    const char *open = tok.loc();
    if (failed(cursor.expect(Token::LBrace, "'{' for dimension " +
                                                llvm::Twine(depth) +
                                                " of the literal")))
      return failure();
    int64_t count = 0;
    while (!cursor.current().is(Token::RBrace)) {
      if (failed(parseLiteralElements(dims, depth + 1, isComplex, words)))
        return failure();
      ++count;
      if (!cursor.consumeIf(Token::Comma))
        break;
    }
    if (failed(cursor.expect(Token::RBrace, "',' or '}' in a literal")))
      return failure();
    if (count != dims[depth])
      return cursor.getPositions().emitError(open)
             << "literal has " << count << " elements in dimension " << depth
             << ", its shape says " << dims[depth];
    return success();
  }
  if (tok.is(Token::LBrace))
    return cursor.emitError("literal nests deeper than its shape's rank " +
                            llvm::Twine(dims.size()));
  if (isComplex) {
    // A complex element: (real, imaginary).
    if (failed(cursor.expect(Token::LParen,
                             "'(' to start a complex element (real, imag)")))
      return failure();
    Token real = cursor.current();
    if (!real.is(Token::Word))
      return cursor.emitExpected("the real part of a complex element");
    cursor.consume();
    if (failed(cursor.expect(Token::Comma, "',' in a complex element")))
      return failure();
    Token imag = cursor.current();
    if (!imag.is(Token::Word))
      return cursor.emitExpected("the imaginary part of a complex element");
    cursor.consume();
    words.push_back(real);
    words.push_back(imag);
    return cursor.expect(Token::RParen, "')' after a complex element");
  }
  if (!tok.is(Token::Word))
    return cursor.emitExpected("a literal value");
  words.push_back(tok);
  cursor.consume();
  return success();
}

LogicalResult
ValueParser::parseLiteralLeaves(const Shape &shape, const char *begin,
                                const char *end,
                                llvm::SmallVectorImpl<LiteralLeaf> &leaves) {
  cursor.resetTo(begin);
  if (failed(parseLiteralNode(shape, 0, leaves)))
    return failure();
  if (cursor.current().loc() != end)
    return cursor.emitExpected("')' after the literal");
  return success();
}

LogicalResult
ValueParser::parseLiteralNode(const Shape &shape, unsigned nodeIndex,
                              llvm::SmallVectorImpl<LiteralLeaf> &leaves) {
  const ShapeNode &node = shape.nodes[nodeIndex];
  if (node.isTuple) {
    // `(element, element, ...)`, each element a literal of its own shape.
    if (tupleDepth >= kMaxTupleDepth)
      return cursor.emitError("tuple literals nest deeper than " +
                              llvm::Twine(kMaxTupleDepth) + " levels");
    ++tupleDepth;
    llvm::scope_exit leave([&] { --tupleDepth; });
    if (failed(cursor.expect(Token::LParen, "'(' to start a tuple literal")))
      return failure();
    for (auto [i, child] : llvm::enumerate(node.children)) {
      if (i && failed(cursor.expect(Token::Comma,
                                    "',' between tuple literal elements")))
        return failure();
      if (failed(parseLiteralNode(shape, child, leaves)))
        return failure();
    }
    return cursor.expect(Token::RParen, "')' after the " +
                                            llvm::Twine(node.children.size()) +
                                            " elements of a tuple literal");
  }
  Type type = shape.leaves[node.leafBegin];
  if (isa<TokenType>(type)) {
    // A token carries no data; XLA writes it as `token` or leaves it out.
    if (cursor.current().isWord("token"))
      cursor.consume();
    leaves.push_back({});
    return success();
  }
  // The element's end: a braced array or parenthesized complex scalar, or a
  // single word.
  const char *elementBegin = cursor.current().loc();
  if (cursor.current().is(Token::LBrace) ||
      cursor.current().is(Token::LParen)) {
    if (failed(cursor.skipBalanced()))
      return failure();
  } else if (cursor.current().is(Token::Word)) {
    cursor.consume();
  } else {
    return cursor.emitExpected("a literal value");
  }
  const char *elementEnd = cursor.current().loc();
  LiteralLeaf leaf;
  if (failed(parseLiteral(cast<RankedTensorType>(type), elementBegin,
                          elementEnd, leaf.value, leaf.elided)))
    return failure();
  // An elided literal is read ahead without moving the cursor.
  cursor.resetTo(elementEnd);
  leaves.push_back(leaf);
  return success();
}

LogicalResult ValueParser::parseLiteral(RankedTensorType type,
                                        const char *begin, const char *end,
                                        DenseElementsAttr &value,
                                        bool &elided) {
  elided = false;
  cursor.resetTo(begin);
  if (!type.hasStaticShape())
    return cursor.getPositions().emitError(begin)
           << "a literal needs a static shape, found " << type;
  // `{...}`: the dump left the value out.
  if (cursor.current().is(Token::LBrace)) {
    TokenCursor peek = cursor;
    peek.consume();
    if (peek.current().isWord("...")) {
      peek.consume();
      if (!peek.current().is(Token::RBrace))
        return peek.emitExpected("'}' after '...'");
      peek.consume();
      if (peek.current().loc() != end)
        return peek.emitExpected("')' after the literal");
      elided = true;
      return success();
    }
  }
  llvm::SmallVector<Token, 16> words;
  if (failed(parseLiteralElements(
          type.getShape(), 0, isa<ComplexType>(type.getElementType()), words)))
    return failure();
  if (cursor.current().loc() != end)
    return cursor.emitExpected("')' after the literal");

  Type elementType = type.getElementType();
  int64_t count = type.getNumElements();
  bool isComplex = isa<ComplexType>(elementType);
  int64_t found = isComplex ? words.size() / 2 : words.size();
  if (found != count)
    return cursor.getPositions().emitError(begin)
           << "literal has " << found << " elements, its shape needs " << count;

  auto emitBad = [&](const Token &tok, llvm::StringRef what) {
    return cursor.getPositions().emitError(tok.loc())
           << "expected " << what << " for element type " << elementType
           << ", found '" << tok.spelling << "'";
  };

  if (auto intType = dyn_cast<IntegerType>(elementType)) {
    unsigned width = intType.getWidth();
    if (width == 1) {
      llvm::SmallVector<bool> bits;
      bits.reserve(count);
      for (const Token &tok : words) {
        if (tok.spelling == "true" || tok.spelling == "1")
          bits.push_back(true);
        else if (tok.spelling == "false" || tok.spelling == "0")
          bits.push_back(false);
        else
          return emitBad(tok, "'true' or 'false'");
      }
      value = DenseElementsAttr::get(type, bits);
      return success();
    }
    llvm::SmallVector<llvm::APInt> ints;
    ints.reserve(count);
    bool isUnsigned = intType.isUnsigned();
    // Signed types also accept their unsigned bit patterns (XLA prints some
    // s32 constants that way); values must fit in `width` bits either way.
    int64_t minValue = isUnsigned ? 0
                       : width == 64
                           ? std::numeric_limits<int64_t>::min()
                           : -(int64_t(1) << (width - 1));
    uint64_t maxBits = width == 64 ? ~0ull : (1ull << width) - 1;
    for (const Token &tok : words) {
      uint64_t bits;
      if (tok.spelling.starts_with("-")) {
        int64_t parsed;
        if (tok.spelling.getAsInteger(10, parsed) ||
            (width < 64 && parsed < minValue) || isUnsigned)
          return emitBad(tok, "an integer that fits in " +
                                  std::to_string(width) + " bits");
        bits = static_cast<uint64_t>(parsed);
      } else if (tok.spelling.getAsInteger(10, bits) || bits > maxBits) {
        return emitBad(tok, "an integer that fits in " + std::to_string(width) +
                                " bits");
      }
      ints.push_back(llvm::APInt(64, bits).trunc(width));
    }
    value = DenseElementsAttr::get(type, ints);
    return success();
  }

  auto toAPFloat = [&](const Token &tok, FloatType floatType,
                       llvm::APFloat &result) -> LogicalResult {
    // `nan(0xP)`: a NaN whose significand bits are P (XLA prints NaNs other
    // than the plain quiet one so), in formats whose NaNs have a payload.
    llvm::StringRef word = tok.spelling;
    bool negative = word.consume_front("-");
    if (word.consume_front("nan(") && word.consume_back(")")) {
      const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
      unsigned width = llvm::APFloat::getSizeInBits(semantics);
      unsigned significand = llvm::APFloat::semanticsPrecision(semantics) - 1;
      uint64_t payload;
      if (!word.consume_front("0x") || word.getAsInteger(16, payload) ||
          payload == 0 || significand >= 64 ||
          payload >> significand != 0 ||
          !llvm::APFloat::semanticsHasNaN(semantics) ||
          !llvm::APFloat::semanticsHasInf(semantics))
        return emitBad(tok, "a NaN payload that fits the significand of " +
                                std::to_string(width) + "-bit floats");
      llvm::APInt bits = llvm::APInt::getAllOnes(width);
      bits.clearHighBits(1);
      bits.clearLowBits(significand);
      bits |= llvm::APInt(width, payload);
      if (negative)
        bits.setSignBit();
      result = llvm::APFloat(semantics, bits);
      return success();
    }
    double d;
    if (!parseDouble(tok.spelling, d))
      return emitBad(tok, "a floating-point number");
    result = llvm::APFloat(d);
    bool losesInfo;
    result.convert(floatType.getFloatSemantics(),
                   llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return success();
  };

  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    llvm::SmallVector<llvm::APFloat> floats;
    floats.reserve(count);
    for (const Token &tok : words) {
      llvm::APFloat f(0.0);
      if (failed(toAPFloat(tok, floatType, f)))
        return failure();
      floats.push_back(f);
    }
    value = DenseElementsAttr::get(type, floats);
    return success();
  }

  if (auto complexType = dyn_cast<ComplexType>(elementType)) {
    auto partType = cast<FloatType>(complexType.getElementType());
    llvm::SmallVector<std::complex<llvm::APFloat>> complexes;
    for (size_t i = 0; i < words.size(); i += 2) {
      llvm::APFloat re(0.0), im(0.0);
      if (failed(toAPFloat(words[i], partType, re)) ||
          failed(toAPFloat(words[i + 1], partType, im)))
        return failure();
      complexes.emplace_back(re, im);
    }
    value = DenseElementsAttr::get(type, complexes);
    return success();
  }
  return cursor.getPositions().emitError(begin)
         << "literals of element type " << elementType << " are not supported";
}
