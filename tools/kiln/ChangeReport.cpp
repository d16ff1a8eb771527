//===- ChangeReport.cpp - print what makes two graphs differ ----*- C++ -*-===//
//
// This file implements the text and JSON forms of a GraphDiff.
//
//===----------------------------------------------------------------------===//

#include "ChangeReport.h"

#include "kiln/Dialect/Kiln/IR/HloLocation.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kiln;

static std::string where(const std::optional<mlir::Location> &loc) {
  return loc ? describeHloLocation(*loc) : std::string();
}

std::string kiln::summarizeGraphChanges(const GraphDiff &diff) {
  size_t count = diff.changes.size();
  std::string text =
      std::to_string(count) + (count == 1 ? " change" : " changes");
  if (diff.followingOps)
    text += " (and " + std::to_string(diff.followingOps) +
            (diff.followingOps == 1 ? " op whose result type follows"
                                    : " ops whose result types follow") +
            ")";
  return text;
}

void kiln::printGraphChanges(llvm::raw_ostream &os, const GraphDiff &diff,
                             llvm::StringRef beforeLabel,
                             llvm::StringRef afterLabel, size_t limit) {
  size_t labelWidth = std::max(beforeLabel.size(), afterLabel.size());
  size_t shown = std::min(limit, diff.changes.size());
  for (size_t i = 0; i < shown; ++i) {
    const GraphChange &change = diff.changes[i];
    os << getChangeKindName(change.kind) << ": " << change.subject << "\n";
    if (!change.context.empty())
      os << "  (" << change.context << ")\n";
    std::string beforeText = change.before.empty() ? "-" : change.before;
    std::string afterText = change.after.empty() ? "-" : change.after;
    size_t valueWidth = std::max(beforeText.size(), afterText.size());
    auto side = [&](llvm::StringRef label, const std::string &value,
                    const std::optional<mlir::Location> &loc,
                    const std::string &op) {
      os << "  " << label;
      os.indent(labelWidth - label.size()) << "  " << value;
      std::string position = where(loc);
      if (!position.empty())
        os.indent(valueWidth - value.size()) << "  " << position;
      os << "\n";
      // The op itself, unless the value already is it.
      if (!op.empty() && op != value)
        os.indent(labelWidth + 6) << op << "\n";
    };
    side(beforeLabel, beforeText, change.beforeLoc, change.beforeOp);
    side(afterLabel, afterText, change.afterLoc, change.afterOp);
  }
  if (shown < diff.changes.size())
    os << "... and " << diff.changes.size() - shown
       << " more (--json lists them all)\n";
  if (diff.followingOps)
    os << diff.followingOps
       << (diff.followingOps == 1 ? " op has a result type that follows"
                                  : " ops have result types that follow")
       << " from the changes above\n";
}

llvm::json::Array kiln::graphChangesToJson(const GraphDiff &diff,
                                           llvm::StringRef beforeName,
                                           llvm::StringRef afterName) {
  llvm::json::Array changes;
  for (const GraphChange &change : diff.changes) {
    llvm::json::Object object{{"kind", getChangeKindName(change.kind)},
                              {"subject", change.subject}};
    auto side = [&](llvm::StringRef name, const std::string &value,
                    const std::optional<mlir::Location> &loc,
                    const std::string &op) {
      llvm::json::Object part;
      if (!value.empty())
        part["value"] = value;
      if (loc)
        part["location"] = describeHloLocation(*loc);
      if (!op.empty())
        part["op"] = op;
      object[name] = std::move(part);
    };
    side(beforeName, change.before, change.beforeLoc, change.beforeOp);
    side(afterName, change.after, change.afterLoc, change.afterOp);
    if (!change.context.empty())
      object["context"] = change.context;
    changes.push_back(std::move(object));
  }
  return changes;
}
