//===- HloLocation.cpp - the locations of imported HLO ops ------*- C++ -*-===//
//
// This file implements the one location the importer gives an instruction
// with metadata (HloInstructionLoc, its dialect, its builtin form) and the
// reading of imported ops' locations.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/HloLocation.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

using namespace mlir;
using namespace kiln;

MLIR_DEFINE_EXPLICIT_TYPE_ID(kiln::HloInstructionLoc)
MLIR_DEFINE_EXPLICIT_TYPE_ID(kiln::HloLocationDialect)

namespace kiln::detail {
/// The dump's file name, the line and column, and the metadata's location.
struct HloInstructionLocStorage : public AttributeStorage {
  using KeyTy = std::tuple<StringAttr, unsigned, unsigned, LocationAttr>;

  explicit HloInstructionLocStorage(const KeyTy &key) : key(key) {}
  bool operator==(const KeyTy &other) const { return key == other; }
  static llvm::hash_code hashKey(const KeyTy &key) {
    return llvm::hash_combine(std::get<0>(key), std::get<1>(key),
                              std::get<2>(key), std::get<3>(key));
  }
  static HloInstructionLocStorage *
  construct(AttributeStorageAllocator &allocator, const KeyTy &key) {
    return new (allocator.allocate<HloInstructionLocStorage>())
        HloInstructionLocStorage(key);
  }
  /// Also how MLIR walks and replaces the file name and the metadata.
  KeyTy getAsKey() const { return key; }

  KeyTy key;
};
} // namespace kiln::detail

HloInstructionLoc HloInstructionLoc::get(StringAttr filename, unsigned line,
                                         unsigned column,
                                         LocationAttr metadata) {
  return Base::get(filename.getContext(), filename, line, column, metadata);
}

StringAttr HloInstructionLoc::getFilename() const {
  return std::get<0>(getImpl()->key);
}
unsigned HloInstructionLoc::getLine() const {
  return std::get<1>(getImpl()->key);
}
unsigned HloInstructionLoc::getColumn() const {
  return std::get<2>(getImpl()->key);
}
LocationAttr HloInstructionLoc::getMetadata() const {
  return std::get<3>(getImpl()->key);
}

FileLineColLoc HloInstructionLoc::getPosition() const {
  return FileLineColLoc::get(getFilename(), getLine(), getColumn());
}

Location HloInstructionLoc::toBuiltin() const {
  return FusedLoc::get(getContext(), {getPosition(), Location(getMetadata())},
                       Attribute());
}

HloLocationDialect::HloLocationDialect(MLIRContext *context)
    : Dialect(getDialectNamespace(), context,
              TypeID::get<HloLocationDialect>()) {
  addAttributes<HloInstructionLoc>();
}

Attribute HloLocationDialect::parseAttribute(DialectAsmParser &parser,
                                             Type type) const {
  llvm::StringRef mnemonic;
  llvm::SMLoc at = parser.getCurrentLocation();
  if (failed(parser.parseKeyword(&mnemonic)))
    return {};
  if (mnemonic != "instruction") {
    parser.emitError(at) << "unknown kiln_hlo attribute '" << mnemonic << "'";
    return {};
  }
  std::string filename;
  unsigned line = 0, column = 0;
  Attribute metadata;
  if (parser.parseLess() || parser.parseString(&filename) ||
      parser.parseColon() || parser.parseInteger(line) || parser.parseColon() ||
      parser.parseInteger(column) || parser.parseComma())
    return {};
  at = parser.getCurrentLocation();
  if (parser.parseAttribute(metadata) || parser.parseGreater())
    return {};
  auto location = dyn_cast<LocationAttr>(metadata);
  if (!location) {
    parser.emitError(at) << "expected the metadata's location, loc(...)";
    return {};
  }
  return HloInstructionLoc::get(StringAttr::get(getContext(), filename), line,
                                column, location);
}

void HloLocationDialect::printAttribute(Attribute attr,
                                        DialectAsmPrinter &printer) const {
  auto loc = cast<HloInstructionLoc>(attr);
  printer << "instruction<";
  printer.printString(loc.getFilename().getValue());
  printer << ':' << loc.getLine() << ':' << loc.getColumn() << ", ";
  printer.printAttribute(loc.getMetadata());
  printer << '>';
}

/// Replaces every HloInstructionLoc by its builtin form.
static void addBuiltinReplacement(AttrTypeReplacer &replacer) {
  replacer.addReplacement(
      [](HloInstructionLoc loc) -> Attribute { return loc.toBuiltin(); });
}

/// Whether `loc` is or holds an HloInstructionLoc.
static bool holdsInstructionLoc(Location loc) {
  return loc
      ->walk([&](Location part) {
        return isa<HloInstructionLoc>(part) ? WalkResult::interrupt()
                                            : WalkResult::advance();
      })
      .wasInterrupted();
}

Location kiln::toBuiltinLocation(Location loc) {
  if (!holdsInstructionLoc(loc))
    return loc;
  AttrTypeReplacer replacer;
  addBuiltinReplacement(replacer);
  return cast<LocationAttr>(replacer.replace(loc));
}

void kiln::useBuiltinLocations(Operation *root) {
  AttrTypeReplacer replacer;
  addBuiltinReplacement(replacer);
  replacer.recursivelyReplaceElementsIn(root, /*replaceAttrs=*/false,
                                        /*replaceLocs=*/true,
                                        /*replaceTypes=*/false);
}

bool kiln::hasHloInstructionLoc(const Diagnostic &diag) {
  return holdsInstructionLoc(diag.getLocation()) ||
         llvm::any_of(diag.getNotes(), [&](const Diagnostic &note) {
           return holdsInstructionLoc(note.getLocation());
         });
}

Diagnostic kiln::withBuiltinLocations(const Diagnostic &diag) {
  Diagnostic copy(toBuiltinLocation(diag.getLocation()), diag.getSeverity());
  copy << diag.str();
  for (const Diagnostic &note : diag.getNotes())
    copy.attachNote(toBuiltinLocation(note.getLocation())) << note.str();
  return copy;
}

HloLocation kiln::decodeHloLocation(Location loc) {
  HloLocation result;
  Location position = loc;
  Location meta = UnknownLoc::get(loc.getContext());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    position = fused.getLocations()[0];
    if (fused.getLocations().size() > 1)
      meta = fused.getLocations()[1];
  }
  // One instruction location stands for fused[position, metadata], alone
  // or as the first part of a fused location that adds its results'
  // metadata.
  if (auto instruction = dyn_cast<HloInstructionLoc>(position)) {
    position = instruction.getPosition();
    meta = instruction.getMetadata();
  }
  if (auto file = dyn_cast<FileLineColLoc>(position))
    result.dumpPosition = file;
  if (auto name = dyn_cast<NameLoc>(meta)) {
    result.opName = name.getName().str();
    meta = name.getChildLoc();
  }
  if (isa<CallSiteLoc, NameLoc>(meta))
    result.stack = meta;
  // Of a call stack, the innermost frame is the user's line.
  while (auto callSite = dyn_cast<CallSiteLoc>(meta))
    meta = callSite.getCallee();
  if (auto name = dyn_cast<NameLoc>(meta))
    meta = name.getChildLoc();
  if (auto file = dyn_cast<FileLineColLoc>(meta))
    result.source = file;
  return result;
}

std::string kiln::describeHloLocation(Location loc) {
  HloLocation parts = decodeHloLocation(loc);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (parts.dumpPosition)
    os << parts.dumpPosition->getFilename().getValue() << ":"
       << parts.dumpPosition->getLine() << ":"
       << parts.dumpPosition->getColumn();
  if (parts.source)
    os << " (" << parts.source->getFilename().getValue() << ":"
       << parts.source->getLine()
       << (parts.opName.empty() ? "" : ", " + parts.opName) << ")";
  else if (!parts.opName.empty())
    os << " (" << parts.opName << ")";
  return text;
}
