//===- HloModuleText.h - the structure of an HLO text module ----*- C++ -*-===//
//
// This file declares the first of the importer's two phases: a fast pass that
// finds the module's computations, instructions, operands and attributes and
// records where each attribute value and shape starts, without interpreting
// them. Most of a dump's bytes are such values (metadata above all), so the
// first phase steps over a bracketed value or a plainly spelled shape byte by
// byte, leaving tokens to the lexer only where it would report an error.
// The second phase (HloImporter.cpp) walks computations in dependency
// order and parses each value once it knows what it must be. Splitting the
// work this way lets computations and instructions appear in any order in the
// file, and lets cycles be reported instead of followed.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_HLO_HLOMODULETEXT_H
#define KILN_LIB_IMPORT_HLO_HLOMODULETEXT_H

#include "HloLexer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <vector>

namespace kiln {
namespace hlo {

/// Turns buffer positions into MLIR locations and emits errors there, so that
/// every message reads `file:line:col: error: ...`.
class SourcePositions {
public:
  SourcePositions(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                  mlir::MLIRContext *context);

  mlir::Location getLocation(const char *pos) const;
  /// The position with the metadata's location, as one location (see
  /// HloLocation.h).
  mlir::Location getLocation(const char *pos,
                             mlir::LocationAttr metadata) const;
  mlir::InFlightDiagnostic emitError(const char *pos) const {
    return mlir::emitError(getLocation(pos));
  }
  mlir::MLIRContext *getContext() const { return context; }
  /// How many lines the buffer has.
  size_t getLineCount() const {
    buildLineStarts();
    return lineStarts.size();
  }

private:
  void buildLineStarts() const;
  /// The 1-based line and column of `pos`. The second phase asks for nearly
  /// every line, mostly in order, so the line starts are found once with
  /// memchr and the search starts from the previous answer.
  std::pair<unsigned, unsigned> getLineAndColumn(const char *pos) const;

  llvm::SourceMgr &sourceMgr;
  unsigned bufferId;
  mlir::MLIRContext *context;
  mlir::StringAttr fileName;
  llvm::StringRef buffer;
  mutable std::vector<const char *> lineStarts;
  mutable size_t lastLine = 0;
};

/// An operand reference: `%name`, `name`, or `%name#N` (element N of a tuple).
struct OperandRef {
  llvm::StringRef name;
  const char *loc = nullptr;
  int64_t tupleIndex = -1;
  /// The index of the instruction named, in its computation; resolved once
  /// by the second phase (which reports a name that is not defined) so that
  /// building each op looks no name up again.
  unsigned producer = 0;
};

/// `name=value`; the value is kept as its source span for the second phase.
struct AttrRef {
  llvm::StringRef name;
  const char *nameLoc = nullptr;
  const char *valueBegin = nullptr;
  const char *valueEnd = nullptr;
  llvm::StringRef valueText() const {
    return llvm::StringRef(valueBegin, valueEnd - valueBegin);
  }
};

/// One instruction as the first phase found it. Its operands and attributes
/// are runs of two module-wide vectors, not inline: 128 bytes instead of
/// 328, so that reading a dump of 20,000 lines writes (and faults in) 4 MB
/// less.
struct Instruction {
  llvm::StringRef name;
  const char *loc = nullptr;
  const char *shapeBegin = nullptr;
  /// Where the shape's last token ends: equal spellings are one shape.
  const char *shapeEnd = nullptr;
  llvm::StringRef opcode;
  const char *opcodeLoc = nullptr;
  /// This instruction's runs of ModuleText::instructionOperands and
  /// ModuleText::instructionAttrs, set when the first phase has read them
  /// all.
  llvm::MutableArrayRef<OperandRef> operands;
  llvm::ArrayRef<AttrRef> attrs;
  /// `parameter(N)`: N.
  int64_t parameterNumber = -1;
  /// `constant(...)`: the literal's source span.
  const char *literalBegin = nullptr;
  const char *literalEnd = nullptr;
  bool isRoot = false;

  const AttrRef *findAttr(llvm::StringRef attrName) const {
    for (const AttrRef &attr : attrs)
      if (attr.name == attrName)
        return &attr;
    return nullptr;
  }
};

struct Computation {
  llvm::StringRef name;
  const char *loc = nullptr;
  bool isEntry = false;
  /// The `(` of `name (p: shape, ...) -> shape`, when the dump has it.
  const char *signatureBegin = nullptr;
  /// This computation's run of ModuleText::instructions, set when the first
  /// phase has read them all.
  llvm::MutableArrayRef<Instruction> instructions;
  /// Keys point into the buffer: no copy of each name.
  llvm::DenseMap<llvm::StringRef, unsigned> instructionByName;
  /// Index of the ROOT instruction (the last one when none is marked).
  int rootIndex = -1;
};

/// One row of `FileLocations`.
struct FileLocation {
  /// Its `{`, where a line or column out of range is reported.
  const char *loc = nullptr;
  int64_t fileNameId = 0;
  int64_t functionNameId = 0;
  int64_t line = 0;
  int64_t column = 0;
};

/// One row of `StackFrames`.
struct StackFrame {
  int64_t fileLocationId = 0;
  int64_t parentFrameId = 0;
};

struct ModuleText {
  ModuleText() = default;
  /// Instructions and computations hold runs of this module's vectors: a
  /// copy would point into the original.
  ModuleText(const ModuleText &) = delete;
  ModuleText &operator=(const ModuleText &) = delete;

  llvm::StringRef name;
  const char *loc = nullptr;
  llvm::SmallVector<AttrRef, 4> attrs;
  /// Every computation's instructions in the order of the file, each
  /// computation's a contiguous run. One vector reserved for the file's
  /// lines (a bound on its instructions) is filled without a reallocation
  /// moving the instructions already read.
  std::vector<Instruction> instructions;
  /// Every instruction's operands and attributes, in the order of the file,
  /// each instruction's a contiguous run (Instruction::operands, attrs).
  std::vector<OperandRef> instructionOperands;
  std::vector<AttrRef> instructionAttrs;
  std::vector<Computation> computations;
  llvm::StringMap<unsigned> computationByName;
  int entryIndex = -1;

  llvm::DenseMap<int64_t, std::string> fileNames;
  llvm::DenseMap<int64_t, std::string> functionNames;
  llvm::DenseMap<int64_t, FileLocation> fileLocations;
  llvm::DenseMap<int64_t, StackFrame> stackFrames;
};

/// A token cursor with the error helpers both phases share.
class TokenCursor {
public:
  TokenCursor(llvm::StringRef buffer, const SourcePositions &positions)
      : lexer(buffer), positions(positions) {
    tok = lexer.lex();
  }

  const Token &current() const { return tok; }
  void consume() {
    lastEnd = tok.spelling.end();
    tok = lexer.lex();
  }
  /// Where the most recently consumed token ends; a value spans from its
  /// first token to this point.
  const char *lastTokenEnd() const { return lastEnd; }
  /// Restarts lexing at `pos` (a position recorded by the first phase).
  void resetTo(const char *pos) {
    lexer.setPosition(pos);
    lastEnd = pos;
    tok = lexer.lex();
  }
  const char *getBufferEnd() const { return lexer.getBufferEnd(); }

  /// Emits `expected <what>, found <token>` at the current token.
  mlir::InFlightDiagnostic emitExpected(llvm::Twine what) const;
  mlir::InFlightDiagnostic emitError(llvm::Twine message) const;
  const SourcePositions &getPositions() const { return positions; }

  /// Consumes a token of `kind` or reports what was expected. `what` is a
  /// Twine so that a message naming the instruction is only assembled when
  /// it is reported: the import meets every one of these on every line.
  mlir::LogicalResult expect(Token::Kind kind, const llvm::Twine &what) {
    if (!tok.is(kind))
      return emitExpected(what);
    consume();
    return mlir::success();
  }
  bool consumeIf(Token::Kind kind) {
    if (!tok.is(kind))
      return false;
    consume();
    return true;
  }
  /// Skips one attribute value: a token, a bracketed group, or an iota
  /// replica-group form such as `[2,64]<=[4,32]T(1,0)`.
  mlir::LogicalResult skipValue();
  /// Skips a bracketed group starting at the current `{`, `[` or `(`.
  mlir::LogicalResult skipBalanced();
  /// Parses a name (`%name` or a bare word).
  mlir::LogicalResult parseName(llvm::StringRef &name, llvm::StringRef what);
  mlir::LogicalResult parseInt(int64_t &value, llvm::StringRef what);

private:
  Lexer lexer;
  Token tok;
  const char *lastEnd = nullptr;
  const SourcePositions &positions;
};

/// First phase: finds the structure of the module in `buffer`.
mlir::LogicalResult parseModuleText(llvm::StringRef buffer,
                                    const SourcePositions &positions,
                                    ModuleText &module);

} // namespace hlo
} // namespace kiln

#endif // KILN_LIB_IMPORT_HLO_HLOMODULETEXT_H
