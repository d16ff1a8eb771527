//===- StackFrameTables.cpp - HLO stack frame tables for export -*- C++ -*-===//
//
// This file implements the stack frame tables of the exporter.
//
//===----------------------------------------------------------------------===//

#include "StackFrameTables.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace kiln;

int64_t StackFrameTables::internString(llvm::StringRef text,
                                       llvm::StringMap<int64_t> &ids,
                                       std::vector<std::string> &values) {
  auto [it, inserted] = ids.try_emplace(text, values.size() + 1);
  if (inserted)
    values.push_back(text.str());
  return it->second;
}

int64_t StackFrameTables::internFrame(NameLoc frame, int64_t parent) {
  auto position = dyn_cast<FileLineColLoc>(frame.getChildLoc());
  if (!position)
    return 0;
  FileLocation location{
      internString(position.getFilename().getValue(), fileIds, files),
      internString(frame.getName().getValue(), functionIds, functions),
      position.getLine(), position.getColumn()};
  auto [locationIt, newLocation] =
      fileLocationIds.try_emplace(location, fileLocations.size() + 1);
  if (newLocation)
    fileLocations.push_back(location);
  Frame entry{locationIt->second, parent};
  auto [frameIt, newFrame] = frameIds.try_emplace(entry, frames.size() + 1);
  if (newFrame)
    frames.push_back(entry);
  return frameIt->second;
}

int64_t StackFrameTables::intern(Location loc) {
  if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    int64_t parent = intern(callSite.getCaller());
    auto callee = dyn_cast<NameLoc>(callSite.getCallee());
    return parent && callee ? internFrame(callee, parent) : 0;
  }
  if (auto frame = dyn_cast<NameLoc>(loc))
    return internFrame(frame, 0);
  return 0;
}

void StackFrameTables::print(llvm::raw_ostream &os) const {
  auto printNames = [&](llvm::StringRef title,
                        const std::vector<std::string> &names) {
    os << title << "\n";
    for (size_t i = 0; i < names.size(); ++i) {
      os << i + 1 << " \"";
      os.write_escaped(names[i]);
      os << "\"\n";
    }
    os << "\n";
  };
  printNames("FileNames", files);
  printNames("FunctionNames", functions);
  os << "FileLocations\n";
  for (size_t i = 0; i < fileLocations.size(); ++i) {
    auto [file, function, line, column] = fileLocations[i];
    os << i + 1 << " {file_name_id=" << file << " function_name_id=" << function
       << " line=" << line << " end_line=" << line << " column=" << column
       << " end_column=" << column << "}\n";
  }
  os << "\nStackFrames\n";
  // XLA prints a parent as its id plus one, so 1 marks an outermost frame.
  for (size_t i = 0; i < frames.size(); ++i)
    os << i + 1 << " {file_location_id=" << frames[i].first
       << " parent_frame_id=" << frames[i].second + 1 << "}\n";
  os << "\n";
}
