//===- PerfMap.h - compiled code named for perf -----------------*- C++ -*-===//
//
// Compiled code lives in memory the JIT maps, which `perf report` cannot
// name: its samples land in "[unknown]". With KILN_PERF_MAP=1 in the
// environment, each function a graph's objects define is written to
// /tmp/perf-<pid>.map as it is linked (perf's map format: start, size and
// name, in hex), so a profile of `kiln run` or of a training process names
// the graph's segments and loop nests.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_PERFMAP_H
#define KILN_LIB_RUNTIME_PERFMAP_H

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace kiln {

/// Adds the perf map writer to `jit`'s linking layer when KILN_PERF_MAP is
/// set (to anything but "0"); otherwise does nothing.
void addPerfMapIfRequested(llvm::orc::LLJIT &jit);

} // namespace kiln

#endif // KILN_LIB_RUNTIME_PERFMAP_H
