//===- InputDiagnostics.cpp - diagnostics that quote input safely -*- C++ -*-===//
//
// This file implements the bounded diagnostic printer for graph files.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/Hlo/InputDiagnostics.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace kiln;

std::string kiln::sanitizeForTerminal(llvm::StringRef text, size_t maxLength) {
  std::string clean;
  clean.reserve(std::min(text.size(), maxLength + 64));
  const char *pos = text.begin(), *end = text.end();
  while (pos < end) {
    unsigned char c = *pos;
    if (c >= 0x20 && c < 0x7f) {
      clean += c;
      ++pos;
      continue;
    }
    if (c == '\t') {
      clean += ' ';
      ++pos;
      continue;
    }
    // A well-formed multi-byte UTF-8 character (a non-ASCII path or name)
    // is printed as it is; anything else as escaped bytes.
    unsigned length = llvm::getUTF8SequenceSize(
        reinterpret_cast<const llvm::UTF8 *>(pos),
        reinterpret_cast<const llvm::UTF8 *>(end));
    if (c >= 0x80 && length > 1) {
      clean.append(pos, length);
      pos += length;
      continue;
    }
    clean += "\\x";
    clean += llvm::hexdigit(c >> 4, /*LowerCase=*/true);
    clean += llvm::hexdigit(c & 15, /*LowerCase=*/true);
    ++pos;
  }
  if (clean.size() <= maxLength)
    return clean;
  size_t keep = maxLength / 2;
  return clean.substr(0, keep) + "... (" +
         std::to_string(clean.size() - 2 * keep) + " characters left out) ..." +
         clean.substr(clean.size() - keep);
}

InputDiagnosticHandler::InputDiagnosticHandler(llvm::SourceMgr &sourceMgr,
                                               MLIRContext *context,
                                               llvm::raw_ostream &os,
                                               bool passOn)
    : SourceMgrDiagnosticHandler(sourceMgr, context, os),
      sourceMgr(sourceMgr), os(os), passOn(passOn) {
  setHandler([this, context](Diagnostic &diag) -> LogicalResult {
    if (isPrintable(diag)) {
      if (!hasHloInstructionLoc(diag)) {
        if (this->passOn)
          return failure();
        emitDiagnostic(diag);
        return success();
      }
      // MLIR's handlers know only builtin locations (see HloLocation.h):
      // the diagnostic goes on as a copy at those, passed on by emitting
      // it again (this handler then passes the copy on).
      Diagnostic builtin = withBuiltinLocations(diag);
      if (this->passOn)
        context->getDiagEngine().emit(std::move(builtin));
      else
        emitDiagnostic(builtin);
      return success();
    }
    print(diag);
    return success();
  });
}

/// The first file position in `loc` (a fused location's first part).
static std::optional<FileLineColLoc> findFilePosition(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file;
  if (auto instruction = dyn_cast<HloInstructionLoc>(loc))
    return instruction.getPosition();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (auto file = findFilePosition(part))
        return file;
  if (auto name = dyn_cast<NameLoc>(loc))
    return findFilePosition(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return findFilePosition(callSite.getCallee());
  return std::nullopt;
}

std::optional<llvm::StringRef>
InputDiagnosticHandler::findLine(Location loc, FileLineColLoc &position) {
  std::optional<FileLineColLoc> found = findFilePosition(loc);
  if (!found || found->getLine() == 0)
    return std::nullopt;
  unsigned bufferId = 0;
  for (unsigned id = 1, e = sourceMgr.getNumBuffers(); id <= e; ++id)
    if (sourceMgr.getMemoryBuffer(id)->getBufferIdentifier() ==
        found->getFilename().getValue())
      bufferId = id;
  if (!bufferId)
    return std::nullopt;
  position = *found;
  // SourceMgr's line table finds the line (it caches line offsets).
  llvm::SMLoc start =
      sourceMgr.FindLocForLineAndColumn(bufferId, position.getLine(), 1);
  if (!start.isValid())
    return std::nullopt;
  llvm::StringRef rest(start.getPointer(),
                       sourceMgr.getMemoryBuffer(bufferId)->getBufferEnd() -
                           start.getPointer());
  return rest.take_until([](char c) { return c == '\n'; }).rtrim("\r");
}

bool InputDiagnosticHandler::isPrintable(Diagnostic &diag) {
  auto check = [&](Diagnostic &one) {
    std::string message = one.str();
    if (message.size() > kUsualMaxMessage ||
        sanitizeForTerminal(message, kUsualMaxMessage) != message)
      return false;
    FileLineColLoc position;
    std::optional<llvm::StringRef> line = findLine(one.getLocation(), position);
    return !line || (line->size() <= kUsualMaxLine &&
                     sanitizeForTerminal(*line, kUsualMaxLine) == line->str());
  };
  if (!check(diag))
    return false;
  for (Diagnostic &note : diag.getNotes())
    if (!check(note))
      return false;
  return true;
}

void InputDiagnosticHandler::print(Diagnostic &diag) {
  printOne(diag.getLocation(), diag.str(), diag.getSeverity());
  for (Diagnostic &note : diag.getNotes())
    printOne(note.getLocation(), note.str(), note.getSeverity());
}

void InputDiagnosticHandler::printOne(Location loc, llvm::StringRef message,
                                      DiagnosticSeverity severity) {
  std::string clean = sanitizeForTerminal(message, kMaxMessage);
  FileLineColLoc position;
  std::optional<llvm::StringRef> line = findLine(loc, position);
  if (!line) {
    // Not a position in a graph file (a Python line, an unknown location):
    // MLIR's printer, without a source line.
    emitDiagnostic(toBuiltinLocation(loc), clean, severity,
                   /*displaySourceLine=*/false);
    return;
  }
  const char *kind = severity == DiagnosticSeverity::Error     ? "error"
                     : severity == DiagnosticSeverity::Warning ? "warning"
                     : severity == DiagnosticSeverity::Note    ? "note"
                                                               : "remark";
  os << position.getFilename().getValue() << ':' << position.getLine() << ':'
     << position.getColumn() << ": " << kind << ": " << clean << '\n';
  // The line, cut to a window around the column, and a caret under it.
  llvm::StringRef lineText = *line;
  size_t column = std::min<size_t>(
      position.getColumn() ? position.getColumn() - 1 : 0, lineText.size());
  size_t half = kMaxLineWindow / 2;
  size_t windowBegin = column > half ? column - half : 0;
  llvm::StringRef before = lineText.slice(windowBegin, column);
  llvm::StringRef after = lineText.substr(column, half);
  std::string shown = windowBegin ? "..." : "";
  shown += sanitizeForTerminal(before, kMaxLineWindow);
  size_t caret = shown.size();
  shown += sanitizeForTerminal(after, kMaxLineWindow);
  if (column + after.size() < lineText.size())
    shown += "...";
  os << shown << "\n" << std::string(caret, ' ') << "^\n";
}
