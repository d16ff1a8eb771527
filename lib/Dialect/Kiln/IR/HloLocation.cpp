//===- HloLocation.cpp - the locations of imported HLO ops ------*- C++ -*-===//
//
// This file implements the reading of imported ops' locations.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/HloLocation.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;

HloLocation kiln::decodeHloLocation(Location loc) {
  HloLocation result;
  Location position = loc;
  Location meta = UnknownLoc::get(loc.getContext());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    position = fused.getLocations()[0];
    if (fused.getLocations().size() > 1)
      meta = fused.getLocations()[1];
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
