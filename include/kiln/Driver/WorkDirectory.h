//===- WorkDirectory.h - precompile's work directory, link-safe -*- C++ -*-===//
//
// This file declares how kiln precompile makes and removes the parts of its
// work directory (dumps/, inputs/, artifacts/, logs/) under the cache's
// rule: a part that is a symbolic link (or anything but a directory) is
// refused, naming it, and removal never follows a link, so that a link
// planted in a work directory can never make kiln empty its target.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DRIVER_WORKDIRECTORY_H
#define KILN_DRIVER_WORKDIRECTORY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace kiln {

/// The file that marks a directory as a work directory of kiln's, and
/// holds the lock of the run using it.
constexpr llvm::StringLiteral kWorkDirectoryMarker = ".kiln-work-directory";

/// Makes `path` (--work-dir) this run's work directory: created if missing;
/// an existing one must be empty or marked as kiln's (kiln empties its
/// parts, so a directory of the user's, e.g. one holding the graphs, is
/// refused, naming it); and it is locked for this process's lifetime, so
/// that a second run on the same work directory is refused, naming the
/// first, instead of emptying its inputs under it.
llvm::Error claimWorkDirectory(llvm::StringRef path);

/// Makes `root/name` a directory (creating it if missing); an error if it
/// is a symbolic link or not a directory.
llvm::Error makeWorkPart(llvm::StringRef root, llvm::StringRef name);

/// Removes `path` and everything under it without following any symbolic
/// link: a link (at the top or inside) is removed itself, never what it
/// points to. A missing path is nothing to do.
void removeTreeWithoutLinks(llvm::StringRef path);

/// A temporary work directory of this process, made in the system's
/// temporary directory as `kiln-precompile-XXXXXX` with an `owner` file
/// (host, pid): removed if the process is ended by SIGINT, SIGTERM or
/// SIGHUP (see setTerminationCleanup), and by a later run if the process
/// died otherwise (SIGKILL). keepWorkDirectory marks one kept on purpose.
llvm::Expected<std::string> makeTemporaryWorkDirectory();
void keepWorkDirectory(llvm::StringRef path);

/// Removes the temporary work directories that processes of this host
/// which are gone left behind (an `owner` file naming a dead pid); says
/// how many.
unsigned removeAbandonedWorkDirectories();

/// The file a worker wrote at `path`, read without following a link and
/// only if it is a regular file of at most `maxBytes`: an error naming what
/// was found otherwise (a link, a FIFO, a directory, a device, its size),
/// phrased to follow "the compiler ...".
/// Never blocks on a FIFO.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readWorkerOutput(llvm::StringRef path, uint64_t maxBytes,
                 bool *overLimit = nullptr);

/// Writes `contents` to the work file `path`, whole or not at all: an
/// error (a full disk) removes what was written and names the file.
llvm::Error writeWorkFile(llvm::StringRef path, llvm::StringRef contents);

/// Whether the file system holding `path` is full (under a few MiB free):
/// a compiler that fails then may have failed for want of room to write,
/// which is this run's trouble, not the graph's.
bool isFileSystemFull(llvm::StringRef path);

} // namespace kiln

#endif // KILN_DRIVER_WORKDIRECTORY_H
