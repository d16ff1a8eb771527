//===- HloModuleText.cpp - the structure of an HLO text module --*- C++ -*-===//
//
// This file implements the importer's first phase: module header, metadata
// tables, computations and instructions, with attribute values and shapes
// skipped and their positions recorded.
//
//===----------------------------------------------------------------------===//

#include "HloModuleText.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace kiln;
using namespace kiln::hlo;

SourcePositions::SourcePositions(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                 MLIRContext *context)
    : sourceMgr(sourceMgr), bufferId(bufferId), context(context) {
  const llvm::MemoryBuffer *memoryBuffer = sourceMgr.getMemoryBuffer(bufferId);
  fileName = StringAttr::get(context, memoryBuffer->getBufferIdentifier());
  buffer = memoryBuffer->getBuffer();
}

void SourcePositions::buildLineStarts() const {
  if (!lineStarts.empty())
    return;
  lineStarts.push_back(buffer.begin());
  for (const char *p = buffer.begin(); p < buffer.end(); ++p) {
    p = static_cast<const char *>(std::memchr(p, '\n', buffer.end() - p));
    if (!p)
      break;
    lineStarts.push_back(p + 1);
  }
}

std::pair<unsigned, unsigned>
SourcePositions::getLineAndColumn(const char *pos) const {
  if (pos < buffer.begin() || pos > buffer.end())
    return sourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(pos),
                                      bufferId);
  buildLineStarts();
  // Nearby lines after the last answer first, then a binary search.
  size_t line = lastLine;
  if (lineStarts[line] > pos) {
    line = std::upper_bound(lineStarts.begin(), lineStarts.end(), pos) -
           lineStarts.begin() - 1;
  } else {
    unsigned steps = 0;
    while (line + 1 < lineStarts.size() && lineStarts[line + 1] <= pos) {
      if (++steps == 8) {
        line =
            std::upper_bound(lineStarts.begin() + line, lineStarts.end(), pos) -
            lineStarts.begin() - 1;
        break;
      }
      ++line;
    }
  }
  lastLine = line;
  return {line + 1, pos - lineStarts[line] + 1};
}

Location SourcePositions::getLocation(const char *pos) const {
  auto [line, column] = getLineAndColumn(pos);
  return FileLineColLoc::get(fileName, line, column);
}

Location SourcePositions::getLocation(const char *pos,
                                      LocationAttr metadata) const {
  auto [line, column] = getLineAndColumn(pos);
  if (auto file = dyn_cast<FileLineColLoc>(metadata))
    if (file.getFilename() == fileName && file.getLine() == line &&
        file.getColumn() == column)
      return file;
  return HloInstructionLoc::get(fileName, line, column, metadata);
}

InFlightDiagnostic TokenCursor::emitExpected(llvm::Twine what) const {
  return positions.emitError(tok.loc())
         << "expected " << what << ", found " << tok.describe();
}

InFlightDiagnostic TokenCursor::emitError(llvm::Twine message) const {
  return positions.emitError(tok.loc()) << message;
}

LogicalResult TokenCursor::skipBalanced() {
  if (!tok.is(Token::LBrace) && !tok.is(Token::LSquare) &&
      !tok.is(Token::LParen))
    return emitExpected("'{', '[' or '('");
  if (const char *groupEnd = findGroupEnd(tok.loc(), getBufferEnd())) {
    resetTo(groupEnd);
    return success();
  }
  // Brackets of the three kinds must nest properly; a mismatch or the end of
  // the file inside a group is an error at the opening bracket.
  llvm::SmallVector<Token, 8> open;
  do {
    switch (tok.kind) {
    case Token::LBrace:
    case Token::LSquare:
    case Token::LParen:
      open.push_back(tok);
      break;
    case Token::RBrace:
    case Token::RSquare:
    case Token::RParen: {
      Token::Kind want = open.back().is(Token::LBrace)    ? Token::RBrace
                         : open.back().is(Token::LSquare) ? Token::RSquare
                                                          : Token::RParen;
      if (!tok.is(want)) {
        auto opened = llvm::cast<FileLineColLoc>(
            positions.getLocation(open.back().loc()));
        return emitExpected(llvm::Twine("closing bracket for '") +
                            open.back().spelling + "' opened at " +
                            llvm::Twine(opened.getLine()) + ":" +
                            llvm::Twine(opened.getColumn()));
      }
      open.pop_back();
      break;
    }
    case Token::Eof:
      return positions.emitError(open.back().loc())
             << "'" << open.back().spelling
             << "' is never closed before the end of the file";
    case Token::Error:
      return emitExpected("a value");
    default:
      break;
    }
    consume();
  } while (!open.empty());
  return success();
}

LogicalResult TokenCursor::skipValue() {
  auto skipPrimary = [&]() -> LogicalResult {
    if (tok.is(Token::LBrace) || tok.is(Token::LSquare) ||
        tok.is(Token::LParen))
      return skipBalanced();
    if (tok.is(Token::Word) || tok.is(Token::PercentName) ||
        tok.is(Token::String)) {
      // A word that a `[` follows directly starts an array shape,
      // `f32[4]{0}`: XLA writes outfeed_shape so for an array operand.
      bool isShape = tok.is(Token::Word) &&
                     tok.spelling.end() < getBufferEnd() &&
                     *tok.spelling.end() == '[';
      consume();
      if (!isShape)
        return success();
      if (failed(skipBalanced()))
        return failure();
      if (tok.is(Token::LBrace) && tok.loc() == lastTokenEnd())
        return skipBalanced();
      return success();
    }
    return emitExpected("an attribute value");
  };
  if (failed(skipPrimary()))
    return failure();
  while (true) {
    if (tok.is(Token::LessEqual)) {
      consume();
      if (failed(skipPrimary()))
        return failure();
      continue;
    }
    // `b01f_01io->b01f` (convolution dimension labels).
    if (tok.is(Token::Arrow)) {
      consume();
      if (failed(skipPrimary()))
        return failure();
      continue;
    }
    // `T(1,0)` directly after an iota list transposes it.
    if (tok.isWord("T") && tok.spelling.end() < getBufferEnd() &&
        *tok.spelling.end() == '(') {
      consume();
      if (failed(skipBalanced()))
        return failure();
      continue;
    }
    return success();
  }
}

LogicalResult TokenCursor::parseName(llvm::StringRef &name,
                                     llvm::StringRef what) {
  if (!tok.is(Token::PercentName) && !tok.is(Token::Word))
    return emitExpected(what);
  name = tok.spelling;
  consume();
  return success();
}

LogicalResult TokenCursor::parseInt(int64_t &value, llvm::StringRef what) {
  if (!tok.is(Token::Word) || !parseInteger(tok.spelling, value))
    return emitExpected(what);
  consume();
  return success();
}

namespace {

/// The first-phase parser.
class ModuleTextParser {
public:
  ModuleTextParser(llvm::StringRef buffer, const SourcePositions &positions,
                   ModuleText &module)
      : cursor(buffer, positions), positions(positions), module(module) {}

  LogicalResult parse();

private:
  LogicalResult parseHeader();
  LogicalResult parseAttrList(llvm::SmallVectorImpl<AttrRef> &attrs);
  LogicalResult parseAttr(AttrRef &attr);
  bool atTableName() const;
  LogicalResult parseTable();
  LogicalResult parseComputation();
  LogicalResult parseInstruction(Computation &computation);
  LogicalResult parseOperands(Instruction &inst);
  LogicalResult skipShape();
  /// Reads `{key=value key=value ...}` with integer values.
  LogicalResult parseIntRecord(llvm::StringMap<int64_t> &fields);

  TokenCursor cursor;
  const SourcePositions &positions;
  ModuleText &module;
  /// Where each computation's instructions start in module.instructions,
  /// which may still move while later ones are read; the last entry is the
  /// end of the computation being read.
  llvm::SmallVector<size_t> instructionRuns{0};
  /// Where each instruction's operands and attributes start in
  /// module.instructionOperands and module.instructionAttrs, which may still
  /// move while later ones are read; the last entry is the end of the
  /// instruction being read.
  std::vector<size_t> operandRuns{0}, attrRuns{0};
};

} // namespace

LogicalResult ModuleTextParser::parse() {
  // XLA writes one instruction per line, rarely shorter than 32 bytes; the
  // bound keeps a hostile file of empty lines from reserving gigabytes. A
  // module beyond it (twenty times the largest graph seen) grows as usual.
  constexpr size_t kMaxReserved = 1 << 20;
  module.instructions.reserve(
      std::min({positions.getLineCount(),
                size_t(cursor.getBufferEnd() - cursor.current().loc()) / 32,
                kMaxReserved}));
  // About two operands and two attributes an instruction.
  size_t expected = module.instructions.capacity();
  module.instructionOperands.reserve(2 * expected);
  module.instructionAttrs.reserve(2 * expected);
  operandRuns.reserve(expected + 1);
  attrRuns.reserve(expected + 1);
  if (cursor.current().isWord("HloModule") && failed(parseHeader()))
    return failure();
  while (!cursor.current().is(Token::Eof)) {
    if (atTableName()) {
      if (failed(parseTable()))
        return failure();
      continue;
    }
    if (failed(parseComputation()))
      return failure();
  }
  if (module.computations.empty())
    return cursor.emitExpected("a computation");
  if (module.entryIndex < 0)
    module.entryIndex = module.computations.size() - 1;
  // Run `index` of `all`, now that nothing moves it.
  auto run = [](auto &all, llvm::ArrayRef<size_t> runs, size_t index) {
    return llvm::MutableArrayRef(all.data() + runs[index],
                                 runs[index + 1] - runs[index]);
  };
  for (auto [index, computation] : llvm::enumerate(module.computations))
    computation.instructions = run(module.instructions, instructionRuns, index);
  for (auto [index, inst] : llvm::enumerate(module.instructions)) {
    inst.operands = run(module.instructionOperands, operandRuns, index);
    inst.attrs = run(module.instructionAttrs, attrRuns, index);
  }
  return success();
}

LogicalResult ModuleTextParser::parseHeader() {
  module.loc = cursor.current().loc();
  cursor.consume();
  if (failed(cursor.parseName(module.name, "a module name after 'HloModule'")))
    return failure();
  while (cursor.consumeIf(Token::Comma)) {
    AttrRef attr;
    if (failed(parseAttr(attr)))
      return failure();
    module.attrs.push_back(attr);
  }
  return success();
}

LogicalResult ModuleTextParser::parseAttr(AttrRef &attr) {
  attr.nameLoc = cursor.current().loc();
  if (!cursor.current().is(Token::Word))
    return cursor.emitExpected("an attribute name");
  attr.name = cursor.current().spelling;
  cursor.consume();
  if (failed(cursor.expect(Token::Equal,
                           "'=' after attribute '" + attr.name + "'")))
    return failure();
  attr.valueBegin = cursor.current().loc();
  if (failed(cursor.skipValue()))
    return failure();
  attr.valueEnd = cursor.lastTokenEnd();
  return success();
}

bool ModuleTextParser::atTableName() const {
  const Token &tok = cursor.current();
  return tok.isWord("FileNames") || tok.isWord("FunctionNames") ||
         tok.isWord("FileLocations") || tok.isWord("StackFrames");
}

LogicalResult
ModuleTextParser::parseIntRecord(llvm::StringMap<int64_t> &fields) {
  if (failed(cursor.expect(Token::LBrace, "'{'")))
    return failure();
  while (!cursor.consumeIf(Token::RBrace)) {
    llvm::StringRef key;
    int64_t value;
    if (failed(cursor.parseName(key, "a field name")) ||
        failed(cursor.expect(Token::Equal, "'='")) ||
        failed(cursor.parseInt(value, "an integer field value")))
      return failure();
    fields[key] = value;
  }
  return success();
}

LogicalResult ModuleTextParser::parseTable() {
  llvm::StringRef table = cursor.current().spelling;
  cursor.consume();
  // Rows are `<id> <value>` until the next word that is not an integer.
  int64_t id;
  while (cursor.current().is(Token::Word) &&
         parseInteger(cursor.current().spelling, id)) {
    cursor.consume();
    if (table == "FileNames" || table == "FunctionNames") {
      if (!cursor.current().is(Token::String))
        return cursor.emitExpected("a quoted name in " + table + " table");
      std::string value = unescapeString(cursor.current().spelling);
      (table == "FileNames" ? module.fileNames : module.functionNames)[id] =
          std::move(value);
      cursor.consume();
      continue;
    }
    llvm::StringMap<int64_t> fields;
    const char *record = cursor.current().loc();
    if (failed(parseIntRecord(fields)))
      return failure();
    if (table == "FileLocations") {
      FileLocation row;
      row.loc = record;
      row.fileNameId = fields.lookup("file_name_id");
      row.functionNameId = fields.lookup("function_name_id");
      row.line = fields.lookup("line");
      row.column = fields.lookup("column");
      module.fileLocations[id] = row;
    } else {
      StackFrame row;
      row.fileLocationId = fields.lookup("file_location_id");
      row.parentFrameId = fields.lookup("parent_frame_id");
      module.stackFrames[id] = row;
    }
  }
  return success();
}

LogicalResult ModuleTextParser::parseComputation() {
  Computation computation;
  if (cursor.current().isWord("ENTRY")) {
    computation.isEntry = true;
    cursor.consume();
  }
  computation.loc = cursor.current().loc();
  if (failed(cursor.parseName(computation.name, "a computation name")))
    return failure();
  if (cursor.current().is(Token::LParen)) {
    // `(p: shape, ...) -> shape`: kept for the second phase to check.
    computation.signatureBegin = cursor.current().loc();
    if (failed(cursor.skipBalanced()) ||
        failed(cursor.expect(Token::Arrow,
                             "'->' after the computation's parameters")) ||
        failed(skipShape()))
      return failure();
  }
  if (failed(cursor.expect(Token::LBrace, "'{' to start computation '" +
                                              computation.name + "'")))
    return failure();
  while (!cursor.consumeIf(Token::RBrace)) {
    if (cursor.current().is(Token::Eof))
      return positions.emitError(computation.loc)
             << "computation '" << computation.name
             << "' is not closed by '}' before the end of the file";
    if (failed(parseInstruction(computation)))
      return failure();
  }
  size_t count = module.instructions.size() - instructionRuns.back();
  if (count == 0)
    return positions.emitError(computation.loc)
           << "computation '" << computation.name << "' has no instructions";
  if (computation.rootIndex < 0)
    computation.rootIndex = count - 1;

  unsigned index = module.computations.size();
  auto inserted = module.computationByName.try_emplace(computation.name, index);
  if (!inserted.second)
    return positions.emitError(computation.loc)
           << "computation '" << computation.name << "' is defined twice";
  if (computation.isEntry) {
    if (module.entryIndex >= 0)
      return positions.emitError(computation.loc)
             << "second ENTRY computation '" << computation.name << "'";
    module.entryIndex = index;
  }
  module.computations.push_back(std::move(computation));
  instructionRuns.push_back(module.instructions.size());
  return success();
}

LogicalResult ModuleTextParser::skipShape() {
  if (cursor.current().is(Token::LParen))
    return cursor.skipBalanced();
  if (cursor.current().is(Token::Word)) {
    if (const char *shapeEnd = findPlainArrayShapeEnd(cursor.current().loc(),
                                                      cursor.getBufferEnd())) {
      cursor.resetTo(shapeEnd);
      return success();
    }
  }
  if (!cursor.current().is(Token::Word))
    return cursor.emitExpected("a shape");
  cursor.consume();
  if (!cursor.current().is(Token::LSquare))
    return cursor.emitExpected("'[' after the element type");
  if (failed(cursor.skipBalanced()))
    return failure();
  // A layout follows directly; in a computation signature a `{` may instead
  // open the body, which starts with a name rather than a dimension number.
  if (cursor.current().is(Token::LBrace)) {
    TokenCursor peek = cursor;
    peek.consume();
    const Token &next = peek.current();
    int64_t dim;
    if (next.is(Token::RBrace) || next.is(Token::Colon) ||
        (next.is(Token::Word) && parseInteger(next.spelling, dim)))
      return cursor.skipBalanced();
  }
  return success();
}

LogicalResult ModuleTextParser::parseInstruction(Computation &computation) {
  // Read in place: nothing else is added to the vector until it is done.
  Instruction &inst = module.instructions.emplace_back();
  // An instruction is located where its line starts, `ROOT` included.
  inst.loc = cursor.current().loc();
  if (cursor.current().isWord("ROOT")) {
    inst.isRoot = true;
    cursor.consume();
  }
  if (failed(cursor.parseName(inst.name, "an instruction name")))
    return failure();
  if (failed(cursor.expect(Token::Equal,
                           "'=' after instruction name '" + inst.name + "'")))
    return failure();
  inst.shapeBegin = cursor.current().loc();
  if (failed(skipShape()))
    return failure();
  inst.shapeEnd = cursor.lastTokenEnd();
  if (!cursor.current().is(Token::Word))
    return cursor.emitExpected("an opcode after the shape of '" +
                               inst.name.str() + "'");
  inst.opcode = cursor.current().spelling;
  inst.opcodeLoc = cursor.current().loc();
  cursor.consume();
  if (failed(parseOperands(inst)))
    return failure();
  while (cursor.consumeIf(Token::Comma)) {
    AttrRef attr;
    if (failed(parseAttr(attr)))
      return failure();
    module.instructionAttrs.push_back(attr);
  }
  operandRuns.push_back(module.instructionOperands.size());
  attrRuns.push_back(module.instructionAttrs.size());

  unsigned index = module.instructions.size() - 1 - instructionRuns.back();
  auto inserted = computation.instructionByName.try_emplace(inst.name, index);
  if (!inserted.second)
    return positions.emitError(inst.loc)
           << "instruction '" << inst.name << "' is defined twice in '"
           << computation.name << "'";
  if (inst.isRoot) {
    if (computation.rootIndex >= 0)
      return positions.emitError(inst.loc)
             << "second ROOT instruction '" << inst.name << "' in '"
             << computation.name << "'";
    computation.rootIndex = index;
  }
  return success();
}

LogicalResult ModuleTextParser::parseOperands(Instruction &inst) {
  if (failed(cursor.expect(Token::LParen,
                           "'(' after opcode '" + inst.opcode + "'")))
    return failure();
  if (inst.opcode == "parameter") {
    if (failed(cursor.parseInt(inst.parameterNumber, "a parameter number")))
      return failure();
    return cursor.expect(Token::RParen, "')' after the parameter number");
  }
  if (inst.opcode == "constant") {
    inst.literalBegin = cursor.current().loc();
    // A literal is words and bracketed groups up to the `)` that closes the
    // operand list; groups are skipped with their brackets matched, so that
    // a stray `)` inside is reported here and not lines later.
    while (!cursor.current().is(Token::RParen)) {
      const Token &tok = cursor.current();
      if (tok.is(Token::LBrace) || tok.is(Token::LParen) ||
          tok.is(Token::LSquare)) {
        if (failed(cursor.skipBalanced()))
          return failure();
        continue;
      }
      if (!tok.is(Token::Word) && !tok.is(Token::Comma))
        return cursor.emitExpected("a literal value");
      cursor.consume();
    }
    inst.literalEnd = cursor.current().loc();
    cursor.consume();
    return success();
  }
  if (cursor.consumeIf(Token::RParen))
    return success();
  do {
    // Long-form dumps write each operand's shape before its name.
    const Token &tok = cursor.current();
    if (tok.is(Token::LParen) ||
        (tok.is(Token::Word) && tok.spelling.end() < cursor.getBufferEnd() &&
         *tok.spelling.end() == '[')) {
      if (failed(skipShape()))
        return failure();
    }
    OperandRef operand;
    operand.loc = cursor.current().loc();
    if (failed(cursor.parseName(operand.name, "an operand name")))
      return failure();
    if (cursor.consumeIf(Token::Hash)) {
      const char *numberLoc = cursor.current().loc();
      if (failed(cursor.parseInt(operand.tupleIndex,
                                 "a tuple element number after '#'")))
        return failure();
      if (operand.tupleIndex < 0)
        return positions.emitError(numberLoc)
               << "tuple element number must not be negative, found "
               << operand.tupleIndex;
    }
    module.instructionOperands.push_back(operand);
  } while (cursor.consumeIf(Token::Comma));
  return cursor.expect(Token::RParen,
                       "',' or ')' in the operand list of '" + inst.name + "'");
}

LogicalResult hlo::parseModuleText(llvm::StringRef buffer,
                                   const SourcePositions &positions,
                                   ModuleText &module) {
  return ModuleTextParser(buffer, positions, module).parse();
}
