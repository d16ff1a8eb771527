//===- BenchFiles.h - the graphs a benchmark runs on ------------*- C++ -*-===//
//
// This file declares how kiln-bench's modes find their HLO files.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_BENCH_BENCHFILES_H
#define KILN_TOOLS_KILN_BENCH_BENCHFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorOr.h"
#include "llvm/Support/MemoryBuffer.h"

#include <string>
#include <vector>

namespace kiln::bench {

/// One HLO file to measure.
struct BenchFile {
  /// Where to open it.
  std::string path;
  /// How to show it: relative to the directory it was found in.
  std::string name;
};

/// Reads a whole file into a heap buffer. `IsVolatile` makes MemoryBuffer
/// read() the file rather than mmap it, so that every benchmark pays the copy
/// into memory inside its timed region, as kiln does.
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
readBenchFile(llvm::StringRef path);

/// Adds `root` to `files`: the file itself, or every `*.hlo` below it when it
/// is a directory, sorted by name. Warns about a path that does not exist.
void collectFiles(llvm::StringRef root, std::vector<BenchFile> &files);

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_BENCHFILES_H
