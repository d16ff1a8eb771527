//===- CacheTestUtil.h - helpers for the cache's unit tests -----*- C++ -*-===//
//
// This file holds what the cache tests share: scratch directories, key parts
// made from a number, artifacts whose bytes say who wrote them (so that a
// reader can check them bit for bit without knowing the writer), forking a
// child that opens its own Cache, and a listing of a directory with sizes
// and modification times.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_UNIT_CACHETESTUTIL_H
#define KILN_TEST_UNIT_CACHETESTUTIL_H

#include "kiln/Cache/ArtifactHeader.h"
#include "kiln/Cache/Cache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <fcntl.h>
#include <functional>
#include <map>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

namespace kiln::test {

/// A fresh directory under $TMPDIR (else /tmp), removed with everything in
/// it when the object goes.
class TempDir {
public:
  /// In `base`, else $TMPDIR, else /tmp.
  explicit TempDir(const char *base = nullptr) {
    if (!base || !*base)
      base = getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/kiln-cache-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back(0);
    if (mkdtemp(buffer.data()))
      path = buffer.data();
  }
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  std::string sub(llvm::StringRef name) const {
    return (llvm::Twine(path) + "/" + name).str();
  }

  std::string path;
};

/// Key parts for test graph number `n`: a signature made from the number and
/// fixed target, options and compiler, so that keys are stable.
inline KeyParts makeParts(uint64_t n, llvm::StringRef options = "") {
  KeyParts parts;
  parts.signature = Hash128::of(llvm::formatv("test graph {0}", n).str());
  parts.targetTriple = "x86_64-unknown-linux-gnu";
  parts.cpuName = "test-cpu";
  parts.cpuFeatures = "+avx2,+fma";
  parts.options = options.str();
  parts.compiler = "kiln-test 1";
  return parts;
}

inline std::string keyOf(uint64_t n) { return makeParts(n).key().toHex(); }

/// Appends one line with one write(2) (O_APPEND: lines of many processes
/// never interleave, and the file's order is the order of the writes).
inline void appendLine(const std::string &path, const std::string &line) {
  int fd =
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  std::string text = line + "\n";
  ssize_t written = ::write(fd, text.data(), text.size());
  (void)written;
  ::close(fd);
}

/// splitmix64: the filler of test artifacts.
inline uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// An artifact of `size` bytes (at least the header's) that names its key,
/// writer and sequence number in a first line and is filled with bytes
/// derived from that line: `checkArtifact` can tell whether any bit changed.
inline std::string makeArtifact(llvm::StringRef key, uint64_t writer,
                                uint64_t sequence, size_t size) {
  std::string header =
      llvm::formatv("kiln-test-artifact key={0} writer={1} seq={2} size={3}\n",
                    key, writer, sequence, size)
          .str();
  std::string bytes = header;
  bytes.resize(std::max(size, header.size()));
  uint64_t state = Hash128::of(header).low;
  for (size_t i = header.size(); i < bytes.size(); i += 8) {
    uint64_t word = nextRandom(state);
    for (size_t j = 0; j < 8 && i + j < bytes.size(); ++j)
      bytes[i + j] = char(word >> (8 * j));
  }
  return bytes;
}

/// Parsed first line of a test artifact.
struct TestArtifactHeader {
  std::string key;
  uint64_t writer = 0;
  uint64_t sequence = 0;
  size_t size = 0;
};

/// Checks that `bytes` are exactly what `makeArtifact` wrote for `key`;
/// returns an empty string or what is wrong. Fills `header` when given.
inline std::string checkArtifact(llvm::StringRef bytes, llvm::StringRef key,
                                 TestArtifactHeader *header = nullptr) {
  size_t newline = bytes.find('\n');
  if (newline == llvm::StringRef::npos)
    return "no header line";
  llvm::StringRef line = bytes.take_front(newline);
  llvm::SmallVector<llvm::StringRef> fields;
  line.split(fields, ' ');
  if (fields.size() != 5 || fields[0] != "kiln-test-artifact")
    return ("bad header '" + line + "'").str();
  TestArtifactHeader parsed;
  parsed.key = fields[1].drop_front(4).str();
  if (fields[2].drop_front(7).getAsInteger(10, parsed.writer) ||
      fields[3].drop_front(4).getAsInteger(10, parsed.sequence) ||
      fields[4].drop_front(5).getAsInteger(10, parsed.size))
    return ("bad header '" + line + "'").str();
  if (parsed.key != key)
    return ("artifact of key " + parsed.key + " found under " + key).str();
  if (makeArtifact(parsed.key, parsed.writer, parsed.sequence, parsed.size) !=
      bytes)
    return ("bytes differ from what writer " + llvm::Twine(parsed.writer) +
            " wrote")
        .str();
  if (header)
    *header = parsed;
  return "";
}

/// A file's bytes, or nullopt.
inline std::optional<std::string> readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

/// The payload of a cache file (an artifact or a log), after its header;
/// none if the file is missing or its header is damaged.
inline std::optional<std::string> readPayload(llvm::StringRef path) {
  std::optional<std::string> bytes = readFile(path);
  if (!bytes)
    return std::nullopt;
  auto decoded = kiln::decodeArtifactFile(*bytes);
  if (!decoded) {
    llvm::consumeError(decoded.takeError());
    return std::nullopt;
  }
  return decoded->second.str();
}

/// The header bytes of a cache file: what comes before its payload.
inline std::string headerOf(llvm::StringRef path) {
  std::optional<std::string> bytes = readFile(path);
  std::optional<std::string> payload = readPayload(path);
  if (!bytes || !payload)
    return "";
  return bytes->substr(0, bytes->size() - payload->size());
}

inline bool writeFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return false;
  os << bytes;
  os.close();
  return !os.has_error();
}

/// Sets a file's access and modification times `seconds` into the past.
inline bool backdate(llvm::StringRef path, int64_t seconds) {
  struct timespec times[2];
  clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds;
  times[1] = times[0];
  return utimensat(AT_FDCWD, path.str().c_str(), times, 0) == 0;
}

/// Forks; the child runs `body` and exits with what it returns (never
/// returning into gtest). Returns the child's pid, or -1.
inline pid_t forkChild(const std::function<int()> &body) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    int code = body();
    fflush(stdout);
    fflush(stderr);
    _exit(code);
  }
  return pid;
}

/// Waits for `pid`; its exit status, 128 + signal if it was killed, or -1.
inline int waitChild(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return -1;
}

/// Runs `body` in a child and waits for it.
inline int runInChild(const std::function<int()> &body) {
  pid_t pid = forkChild(body);
  return pid < 0 ? -1 : waitChild(pid);
}

/// path relative to the root -> "type size mtime(ns) mode" for everything
/// below `root`, the root included.
inline std::map<std::string, std::string> snapshot(llvm::StringRef root) {
  std::map<std::string, std::string> files;
  auto add = [&](llvm::StringRef path) {
    struct stat info;
    if (lstat(path.str().c_str(), &info) != 0)
      return;
    llvm::StringRef relative = path;
    relative.consume_front(root);
    files[relative.empty() ? "." : relative.str()] =
        llvm::formatv("{0} {1} {2}.{3} {4}", S_ISDIR(info.st_mode) ? "d" : "f",
                      S_ISDIR(info.st_mode) ? 0 : (int64_t)info.st_size,
                      (int64_t)info.st_mtim.tv_sec,
                      (int64_t)info.st_mtim.tv_nsec,
                      llvm::format("%04o", info.st_mode & 07777))
            .str();
  };
  add(root);
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(root, error), end;
       !error && it != end; it.increment(error))
    add(it->path());
  return files;
}

/// Names of the regular files below `root`, relative to it.
inline std::vector<std::string> filesBelow(llvm::StringRef root) {
  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(root, error), end;
       !error && it != end; it.increment(error))
    if (it->type() == llvm::sys::fs::file_type::regular_file) {
      llvm::StringRef relative = it->path();
      relative.consume_front(root);
      files.push_back(relative.ltrim('/').str());
    }
  std::sort(files.begin(), files.end());
  return files;
}

/// Opens the cache in `directory` or fails the test.
#define KILN_OPEN_CACHE(var, directory, ...)                                   \
  std::unique_ptr<Cache> var;                                                  \
  {                                                                            \
    auto opened = Cache::open(directory, ##__VA_ARGS__);                       \
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());           \
    var = std::move(*opened);                                                  \
  }

/// Asserts that an llvm::Error is success, printing it otherwise.
#define KILN_ASSERT_OK(expression)                                             \
  do {                                                                         \
    llvm::Error kilnError = (expression);                                      \
    ASSERT_FALSE(bool(kilnError)) << llvm::toString(std::move(kilnError));     \
  } while (0)

/// The value of an llvm::Expected, or fails the test (in a function
/// returning void).
#define KILN_ASSIGN_OR_FAIL(var, expression)                                   \
  auto var##Expected = (expression);                                           \
  ASSERT_TRUE(bool(var##Expected))                                             \
      << llvm::toString(var##Expected.takeError());                            \
  auto &var = *var##Expected;

} // namespace kiln::test

#endif // KILN_TEST_UNIT_CACHETESTUTIL_H
