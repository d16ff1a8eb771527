//===- BenchFiles.cpp - the graphs a benchmark runs on ----------*- C++ -*-===//
//
// This file implements the search for HLO files of kiln-bench.
//
//===----------------------------------------------------------------------===//

#include "BenchFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

void kiln::bench::collectFiles(llvm::StringRef root,
                               std::vector<BenchFile> &files) {
  if (!llvm::sys::fs::is_directory(root)) {
    if (llvm::sys::fs::exists(root))
      files.push_back({root.str(), root.str()});
    else
      llvm::errs() << "kiln-bench: warning: no such file or directory: " << root
                   << "\n";
    return;
  }
  std::vector<BenchFile> found;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(root, error), end;
       it != end && !error; it.increment(error)) {
    llvm::StringRef path = it->path();
    if (it->type() == llvm::sys::fs::file_type::directory_file ||
        llvm::sys::path::extension(path) != ".hlo")
      continue;
    llvm::StringRef name = path;
    name.consume_front(root);
    name = name.ltrim('/');
    found.push_back({path.str(), name.str()});
  }
  if (error)
    llvm::errs() << "kiln-bench: warning: " << root << ": " << error.message()
                 << "\n";
  llvm::sort(found, [](const BenchFile &lhs, const BenchFile &rhs) {
    return lhs.name < rhs.name;
  });
  llvm::append_range(files, found);
}

llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
kiln::bench::readBenchFile(llvm::StringRef path) {
  return llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/true,
                                     /*IsVolatile=*/true);
}
