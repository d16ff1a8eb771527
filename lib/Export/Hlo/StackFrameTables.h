//===- StackFrameTables.h - HLO stack frame tables for export ---*- C++ -*-===//
//
// This file declares the tables (FileNames, FunctionNames, FileLocations,
// StackFrames) that an HLO dump uses to share Python call stacks among its
// instructions. The exporter turns each op's call-site location back into a
// `stack_frame_id`, so that an exported graph keeps the user's stacks.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_EXPORT_HLO_STACKFRAMETABLES_H
#define KILN_LIB_EXPORT_HLO_STACKFRAMETABLES_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <tuple>
#include <vector>

namespace kiln {

class StackFrameTables {
public:
  /// Returns the 1-based id of the frame that `loc` names, adding it and its
  /// callers: `loc` is a frame, `"function"(file:line:col)`, possibly in call
  /// sites of its callers. Returns 0 for any other location.
  int64_t intern(mlir::Location loc);

  bool empty() const { return frames.empty(); }
  /// Prints the four tables as XLA writes them.
  void print(llvm::raw_ostream &os) const;

private:
  int64_t internFrame(mlir::NameLoc frame, int64_t parent);
  static int64_t internString(llvm::StringRef text,
                              llvm::StringMap<int64_t> &ids,
                              std::vector<std::string> &values);

  llvm::StringMap<int64_t> fileIds, functionIds;
  std::vector<std::string> files, functions;
  /// (file id, function id, line, column).
  using FileLocation = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  std::map<FileLocation, int64_t> fileLocationIds;
  std::vector<FileLocation> fileLocations;
  /// (file location id, parent frame id or 0).
  using Frame = std::pair<int64_t, int64_t>;
  std::map<Frame, int64_t> frameIds;
  std::vector<Frame> frames;
};

} // namespace kiln

#endif // KILN_LIB_EXPORT_HLO_STACKFRAMETABLES_H
