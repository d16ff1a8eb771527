//===- ChangeReport.h - print what makes two graphs differ ------*- C++ -*-===//
//
// This file declares how `kiln diff` and `kiln cache explain` print a
// GraphDiff: each change in words, with both versions side by side and
// where each is in its dump and in the user's source.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_CHANGEREPORT_H
#define KILN_TOOLS_KILN_CHANGEREPORT_H

#include "kiln/Signature/GraphDiff.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

/// Prints the first `limit` changes of `diff`, the before side labelled
/// `beforeLabel` and the after side `afterLabel`, then how many more there
/// are and how many ops changed only as a consequence.
void printGraphChanges(llvm::raw_ostream &os, const GraphDiff &diff,
                       llvm::StringRef beforeLabel, llvm::StringRef afterLabel,
                       size_t limit = 20);

/// Every change, as `{"kind", "subject", "before", "after", ...}` objects
/// whose sides are named `beforeName` and `afterName`.
llvm::json::Array graphChangesToJson(const GraphDiff &diff,
                                     llvm::StringRef beforeName,
                                     llvm::StringRef afterName);

/// "1 change", "3 changes (and 14 ops whose result types follow)".
std::string summarizeGraphChanges(const GraphDiff &diff);

} // namespace kiln

#endif // KILN_TOOLS_KILN_CHANGEREPORT_H
