//===- Kiln.cpp - kiln's C API ------------------------------------*- C++ -*-===//
//
// The C API over the cache (CacheAccess.h), the key (Key.h), the cached
// load (CachedExecutable.h) and the runtime (Executable.h). Every error
// becomes a KilnStatus; MLIR's diagnostics are caught into the message,
// never printed; remote tiers' warnings are kept for the caller.
//
//===----------------------------------------------------------------------===//

#include "kiln-c/Kiln.h"

#include "kiln/Cache/CacheAccess.h"
#include "kiln/Cache/Key.h"
#include "kiln/Cache/Target.h"
#include "kiln/Dialect/Kiln/IR/HloLocation.h"
#include "kiln/Driver/CachedExecutable.h"
#include "kiln/Import/LoadGraph.h"
#include "kiln/Runtime/Collectives.h"
#include "kiln/Target/CPU/CpuCompiler.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <pthread.h>

using namespace kiln;

struct KilnStatusOpaque {
  std::string message;
};

namespace {
KilnStatus makeStatus(std::string message) {
  return new KilnStatusOpaque{std::move(message)};
}
KilnStatus makeStatus(llvm::Error error) {
  return makeStatus(llvm::toString(std::move(error)));
}

/// The list a NULL-terminated array of strings holds.
std::vector<std::string> toStrings(const char *const *list) {
  std::vector<std::string> strings;
  for (; list && *list; ++list)
    strings.push_back(*list);
  return strings;
}

/// A context with every dialect that import and compilation need; the
/// registry is made once, on first use.
std::unique_ptr<mlir::MLIRContext> makeContext() {
  static const mlir::DialectRegistry *registry = [] {
    auto *made = new mlir::DialectRegistry();
    mlir::registerAllDialects(*made);
    registerCpuCompilerDialects(*made);
    return made;
  }();
  return std::make_unique<mlir::MLIRContext>(
      *registry, mlir::MLIRContext::Threading::DISABLED);
}

/// A buffer's type as the API describes it.
struct BufferType {
  std::string elementType;
  std::vector<int64_t> shape;
  size_t bytes = 0;
};
} // namespace

struct KilnCacheOpaque {
  /// Before the cache, which writes to them until it is destroyed.
  std::string warnings, takenWarnings;
  std::unique_ptr<llvm::raw_string_ostream> warningStream;
  std::unique_ptr<TieredCache> cache;
  std::string directory;
  /// The key's parts that the settings give: options and target.
  std::vector<std::string> settingOptions;
  std::string targetTriple, targetCpu;
  /// Why graphs cannot be keyed here as the command line keys them (the
  /// settings name an external compiler), else empty.
  std::string externalCompiler;
  std::mutex mutex; ///< one lookup, compile or store at a time
  std::atomic<uint64_t> compiles{0}, hits{0};
};

struct KilnExecutableOpaque {
  std::unique_ptr<mlir::MLIRContext> context;
  CachedExecutable loaded;
  std::vector<BufferType> parameters, results;
  /// Every output the code writes: the graph's results, then checks'.
  std::vector<int64_t> outputBytes;
};

extern "C" {

const char *kilnGetVersion(void) {
  static const std::string version = getCompilerIdentity();
  return version.c_str();
}

const char *kilnStatusGetMessage(KilnStatus status) {
  return status ? status->message.c_str() : "";
}

void kilnStatusDestroy(KilnStatus status) { delete status; }

KilnStatus kilnCacheOpen(const char *directory, const char *const *remotes,
                         KilnCache *out) {
  if (!out)
    return makeStatus("kilnCacheOpen: no place for the cache handle");
  *out = nullptr;
  llvm::Expected<std::string> resolved =
      resolveCacheDirectory(directory ? directory : "");
  if (!resolved)
    return makeStatus(resolved.takeError());
  CacheAccessOptions access;
  access.cacheDir = directory ? directory : "";
  if (remotes) {
    access.remotes = toStrings(remotes);
    if (access.remotes.empty())
      access.remotes.push_back(""); // `--remote ''`: none
  }
  llvm::Expected<Settings> settings = loadCommandSettings(*resolved, access);
  if (!settings)
    return makeStatus(settings.takeError());
  auto handle = std::make_unique<KilnCacheOpaque>();
  handle->warningStream =
      std::make_unique<llvm::raw_string_ostream>(handle->warnings);
  llvm::Expected<std::unique_ptr<TieredCache>> opened =
      openTieredCache(*resolved, *settings, Cache::OpenOptions(), "kiln",
                      *handle->warningStream);
  if (!opened)
    return makeStatus(opened.takeError());
  handle->cache = std::move(*opened);
  handle->directory = *resolved;
  handle->settingOptions = settings->getList("options");
  if (std::optional<SettingValue> target = settings->get("target"))
    handle->targetTriple = target->value;
  if (std::optional<SettingValue> cpu = settings->get("target-cpu"))
    handle->targetCpu = cpu->value;
  for (const char *name : {"compiler-cmd", "compiler-version-cmd"})
    if (std::optional<SettingValue> value = settings->get(name))
      if (!value->value.empty())
        handle->externalCompiler =
            std::string("the settings name an external compiler (") + name +
            " in " + value->origin +
            "), whose keys the C API does not make: it compiles with kiln's "
            "own";
  *out = handle.release();
  return nullptr;
}

void kilnCacheDestroy(KilnCache cache) { delete cache; }

const char *kilnCacheGetDirectory(KilnCache cache) {
  return cache ? cache->directory.c_str() : "";
}

const char *kilnCacheTakeWarnings(KilnCache cache) {
  if (!cache)
    return "";
  std::lock_guard<std::mutex> lock(cache->mutex);
  cache->takenWarnings = std::move(cache->warnings);
  cache->warnings.clear();
  return cache->takenWarnings.c_str();
}

uint64_t kilnCacheGetCompileCount(KilnCache cache) {
  return cache ? cache->compiles.load() : 0;
}

uint64_t kilnCacheGetHitCount(KilnCache cache) {
  return cache ? cache->hits.load() : 0;
}

} // extern "C"

namespace {
/// The canonical options and target for a graph loaded through `cache`:
/// the settings' options, then the caller's.
llvm::Error resolveKeyOptions(KilnCache cache, const char *const *options,
                              std::string &canonical, TargetSpec &target) {
  if (!cache->externalCompiler.empty())
    return llvm::createStringError(cache->externalCompiler);
  // The settings' options first, so that the caller's win (as on the
  // command line).
  CompileOptions parsed;
  if (llvm::Error error = addOptionTexts(cache->settingOptions, "",
                                         "the setting options", parsed))
    return error;
  if (llvm::Error error =
          addOptionTexts(toStrings(options), "", "a compile option", parsed))
    return error;
  std::string error;
  mlir::FailureOr<std::string> result = canonicalizeOptions(parsed, error);
  if (mlir::failed(result))
    return llvm::createStringError(error);
  canonical = *result;
  llvm::Expected<TargetSpec> resolved =
      resolveTarget(cache->targetTriple, cache->targetCpu);
  if (!resolved)
    return resolved.takeError();
  target = *resolved;
  return llvm::Error::success();
}

/// "FILE:LINE:COL" of a diagnostic's location, as kiln prints them.
std::string formatLocation(mlir::Location location) {
  location = kiln::toBuiltinLocation(location);
  if (auto file = location->findInstanceOf<mlir::FileLineColLoc>())
    return (file.getFilename().strref() + ":" + llvm::Twine(file.getLine()) +
            ":" + llvm::Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream(text) << location;
  return text;
}

/// Collects a context's diagnostics, as kiln prints them, instead of
/// printing them.
class DiagnosticCollector {
public:
  DiagnosticCollector(mlir::MLIRContext &context, std::string &text)
      : stream(text), handler(&context, [this](mlir::Diagnostic &d) {
          write(d);
          return mlir::success();
        }) {}

private:
  void write(mlir::Diagnostic &d) {
    const char *severity = "error";
    if (d.getSeverity() == mlir::DiagnosticSeverity::Warning)
      severity = "warning";
    else if (d.getSeverity() == mlir::DiagnosticSeverity::Note)
      severity = "note";
    else if (d.getSeverity() == mlir::DiagnosticSeverity::Remark)
      severity = "remark";
    stream << formatLocation(d.getLocation()) << ": " << severity << ": " << d
           << "\n";
    for (mlir::Diagnostic &note : d.getNotes())
      write(note);
  }
  llvm::raw_string_ostream stream;
  mlir::ScopedDiagnosticHandler handler;
};

/// A graph's bytes: the file at `path`, or `size` bytes of `text` named
/// `path`; an error message naming it otherwise.
std::unique_ptr<llvm::MemoryBuffer> readGraph(const char *path,
                                              const char *text, size_t size,
                                              std::string &message) {
  if (text)
    return llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text, size),
                                                path ? path : "graph");
  if (!path) {
    message = "no graph: a file name or a text is needed";
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    message = std::string(path) + ": error: " + buffer.getError().message();
    return nullptr;
  }
  return std::move(*buffer);
}

/// The graph in `buffer`, imported into `context`; diagnostics go into
/// `message`, never to stderr.
mlir::OwningOpRef<mlir::ModuleOp>
importGraph(std::unique_ptr<llvm::MemoryBuffer> buffer,
            mlir::MLIRContext &context, std::string &text,
            std::string &message) {
  std::string name = buffer->getBufferIdentifier().str();
  text = buffer->getBuffer().str();
  DiagnosticCollector collector(context, message);
  llvm::raw_string_ostream diagnostics(message);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadGraphBuffer(std::move(buffer), &context, diagnostics);
  if (!module && message.empty())
    message = name + ": error: the graph does not import";
  return module;
}

/// The element type's name and the shape of a buffer's type text.
llvm::Expected<BufferType> describeBuffer(const BufferSpec &spec,
                                          mlir::MLIRContext &context) {
  mlir::Type type = mlir::parseType(spec.type, &context);
  auto tensor = mlir::dyn_cast_or_null<mlir::RankedTensorType>(type);
  if (!tensor)
    return llvm::createStringError("a buffer of unknown type " + spec.type);
  BufferType buffer;
  llvm::raw_string_ostream element(buffer.elementType);
  element << tensor.getElementType();
  buffer.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  buffer.bytes = spec.bytes;
  return buffer;
}
} // namespace

/// A graph read, imported into `context` and ready to key, with the
/// options and target it is keyed under.
struct ImportedGraph {
  std::string canonical;
  TargetSpec target;
  std::string name, text;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// What kilnCacheLookup and kilnExecutableLoad (and their text forms)
/// share: the options resolved, the graph read (the file at `path`, or
/// `size` bytes of `graphText` named `path`) and imported.
static KilnStatus importForCache(KilnCache cache, const char *path,
                                 const char *graphText, size_t size,
                                 const char *const *options,
                                 mlir::MLIRContext &context,
                                 ImportedGraph &graph) {
  if (llvm::Error error =
          resolveKeyOptions(cache, options, graph.canonical, graph.target))
    return makeStatus(std::move(error));
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readGraph(path, graphText, size, message);
  if (!buffer)
    return makeStatus(message);
  graph.name = buffer->getBufferIdentifier().str();
  graph.module = importGraph(std::move(buffer), context, graph.text, message);
  if (!graph.module)
    return makeStatus(message);
  return nullptr;
}

extern "C" {

static KilnStatus lookupGraph(KilnCache cache, const char *path,
                              const char *graphText, size_t size,
                              const char *const *options, KilnLookup *lookup) {
  if (!cache || !lookup)
    return makeStatus("kilnCacheLookup: no cache or no place for the result");
  std::memset(lookup, 0, sizeof(*lookup));
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  ImportedGraph graph;
  if (KilnStatus status = importForCache(cache, path, graphText, size,
                                         options, *context, graph))
    return status;
  std::string message;
  mlir::FailureOr<KeyedGraph> keyed = [&] {
    DiagnosticCollector collector(*context, message);
    return keyGraph(*graph.module, graph.canonical, graph.target);
  }();
  if (mlir::failed(keyed))
    return makeStatus(message.empty()
                          ? graph.name + ": error: the graph cannot be keyed"
                          : message);
  std::string key = keyed->parts.key().toHex();
  std::snprintf(lookup->key, sizeof(lookup->key), "%s", key.c_str());
  std::lock_guard<std::mutex> lock(cache->mutex);
  llvm::Expected<TieredLookup> found = cache->cache->lookupTiers(
      key, /*verify=*/true, /*copyToLocal=*/false);
  if (!found)
    return makeStatus(found.takeError());
  std::snprintf(lookup->tier, sizeof(lookup->tier), "%s",
                found->tier.c_str());
  std::string reason;
  switch (found->result.status) {
  case LookupStatus::Hit:
    lookup->status = KILN_LOOKUP_HIT;
    break;
  case LookupStatus::Miss:
    lookup->status = KILN_LOOKUP_MISS;
    reason = "not in the cache";
    break;
  case LookupStatus::Failed:
    lookup->status = KILN_LOOKUP_FAILED;
    reason = "its compilation failed before (" +
             cache->cache->getLogCommand(key) + ")";
    break;
  case LookupStatus::Untrusted:
    lookup->status = KILN_LOOKUP_UNTRUSTED;
    reason = "untrusted (" + found->result.problem + ")";
    break;
  case LookupStatus::Corrupt:
    lookup->status = KILN_LOOKUP_CORRUPT;
    reason = "corrupt (" + found->result.problem + ")";
    break;
  }
  std::snprintf(lookup->reason, sizeof(lookup->reason), "%s", reason.c_str());
  return nullptr;
}

KilnStatus kilnCacheLookup(KilnCache cache, const char *path,
                           const char *const *options, KilnLookup *lookup) {
  return lookupGraph(cache, path, nullptr, 0, options, lookup);
}

KilnStatus kilnCacheLookupText(KilnCache cache, const char *text, size_t size,
                               const char *name, const char *const *options,
                               KilnLookup *lookup) {
  if (!text)
    return makeStatus("kilnCacheLookupText: no text");
  return lookupGraph(cache, name, text, size, options, lookup);
}

static KilnStatus loadGraph(KilnCache cache, const char *path,
                            const char *graphText, size_t size,
                            const char *const *options, KilnExecutable *out) {
  if (!cache || !out)
    return makeStatus("kilnExecutableLoad: no cache or no place for the "
                      "executable");
  *out = nullptr;
  auto handle = std::make_unique<KilnExecutableOpaque>();
  handle->context = makeContext();
  ImportedGraph graph;
  if (KilnStatus status = importForCache(cache, path, graphText, size,
                                         options, *handle->context, graph))
    return status;
  const std::string &name = graph.name;
  std::string message;
  llvm::Expected<CachedExecutable> loaded = [&] {
    // Keying's and compilation's diagnostics are caught, not printed.
    DiagnosticCollector collector(*handle->context, message);
    std::lock_guard<std::mutex> lock(cache->mutex);
    return loadThroughCache(*cache->cache, *graph.module, graph.canonical,
                            graph.target, name, graph.text);
  }();
  if (!loaded) {
    std::string error = llvm::toString(loaded.takeError());
    return makeStatus(message.empty() ? error : message + error);
  }
  handle->loaded = std::move(*loaded);
  (handle->loaded.fromCache ? cache->hits : cache->compiles)++;
  if (!handle->loaded.warning.empty()) {
    std::lock_guard<std::mutex> lock(cache->mutex);
    cache->warnings += "kiln: warning: " + handle->loaded.warning + "\n";
  }
  const ArtifactManifest &manifest = handle->loaded.executable->getManifest();
  if (!manifest.checks.empty())
    return makeStatus(name + ": error: the graph holds checks (a golden test "
                             "program): `kiln run` runs those, the C API "
                             "runs training graphs");
  DiagnosticCollector collector(*handle->context, message);
  for (const BufferSpec &spec : manifest.inputs) {
    llvm::Expected<BufferType> type = describeBuffer(spec, *handle->context);
    if (!type)
      return makeStatus(type.takeError());
    handle->parameters.push_back(std::move(*type));
  }
  for (auto [i, spec] : llvm::enumerate(manifest.outputs)) {
    handle->outputBytes.push_back(spec.bytes);
    if (i >= manifest.graphOutputs)
      continue;
    llvm::Expected<BufferType> type = describeBuffer(spec, *handle->context);
    if (!type)
      return makeStatus(type.takeError());
    handle->results.push_back(std::move(*type));
  }
  *out = handle.release();
  return nullptr;
}

KilnStatus kilnExecutableLoad(KilnCache cache, const char *path,
                              const char *const *options,
                              KilnExecutable *out) {
  return loadGraph(cache, path, nullptr, 0, options, out);
}

KilnStatus kilnExecutableLoadText(KilnCache cache, const char *text,
                                  size_t size, const char *name,
                                  const char *const *options,
                                  KilnExecutable *out) {
  if (!text)
    return makeStatus("kilnExecutableLoadText: no text");
  return loadGraph(cache, name, text, size, options, out);
}

void kilnExecutableDestroy(KilnExecutable executable) { delete executable; }

int kilnExecutableIsFromCache(KilnExecutable executable) {
  return executable && executable->loaded.fromCache ? 1 : 0;
}

const char *kilnExecutableGetKey(KilnExecutable executable) {
  return executable ? executable->loaded.key.c_str() : "";
}

const char *kilnExecutableGetSignature(KilnExecutable executable) {
  return executable ? executable->loaded.signature.c_str() : "";
}

const char *kilnExecutableGetDescription(KilnExecutable executable) {
  return executable ? executable->loaded.description.c_str() : "";
}

size_t kilnExecutableGetNumParameters(KilnExecutable executable) {
  return executable ? executable->parameters.size() : 0;
}

size_t kilnExecutableGetNumResults(KilnExecutable executable) {
  return executable ? executable->results.size() : 0;
}

static KilnStatus describe(const std::vector<BufferType> &buffers,
                           size_t index, const char *what,
                           KilnBufferType *type) {
  if (!type)
    return makeStatus("no place for the buffer's type");
  if (index >= buffers.size())
    return makeStatus(std::string("no ") + what + " " +
                      std::to_string(index) + ": the graph has " +
                      std::to_string(buffers.size()));
  const BufferType &buffer = buffers[index];
  type->elementType = buffer.elementType.c_str();
  type->rank = buffer.shape.size();
  type->shape = buffer.shape.data();
  type->bytes = buffer.bytes;
  return nullptr;
}

KilnStatus kilnExecutableGetParameter(KilnExecutable executable, size_t index,
                                      KilnBufferType *type) {
  if (!executable)
    return makeStatus("no executable");
  return describe(executable->parameters, index, "parameter", type);
}

KilnStatus kilnExecutableGetResult(KilnExecutable executable, size_t index,
                                   KilnBufferType *type) {
  if (!executable)
    return makeStatus("no executable");
  return describe(executable->results, index, "result", type);
}

} // extern "C"

namespace {
/// One participant's call: the parameters copied (compiled code may write
/// into its parameters' buffers), the graph's results written into the
/// caller's, the checks' into scratch.
llvm::Error callOnce(KilnExecutable executable, const void *const *parameters,
                     void *const *results, ParticipantGroup *group,
                     int participant) {
  std::vector<std::unique_ptr<char[]>> owned;
  std::vector<void *> buffers;
  for (auto [i, parameter] : llvm::enumerate(executable->parameters)) {
    if (!parameters[i])
      return llvm::createStringError("parameter " + std::to_string(i) +
                                     " has no buffer");
    owned.emplace_back(new (std::nothrow)
                           char[std::max<size_t>(parameter.bytes, 1)]);
    if (!owned.back())
      return llvm::createStringError("parameter " + std::to_string(i) +
                                     " does not fit in memory");
    std::memcpy(owned.back().get(), parameters[i], parameter.bytes);
    buffers.push_back(owned.back().get());
  }
  for (auto [i, bytes] : llvm::enumerate(executable->outputBytes)) {
    if (i < executable->results.size()) {
      if (!results[i])
        return llvm::createStringError("result " + std::to_string(i) +
                                       " has no buffer");
      buffers.push_back(results[i]);
      continue;
    }
    owned.emplace_back(new (std::nothrow) char[std::max<int64_t>(bytes, 1)]);
    if (!owned.back())
      return llvm::createStringError("a check's value does not fit in memory");
    buffers.push_back(owned.back().get());
  }
  return executable->loaded.executable->callBuffers(buffers.data(), group,
                                                     participant);
}
} // namespace

extern "C" {

KilnStatus kilnExecutableCall(KilnExecutable executable,
                              const void *const *parameters,
                              void *const *results) {
  if (!executable || (!parameters && !executable->parameters.empty()) ||
      (!results && !executable->results.empty()))
    return makeStatus("kilnExecutableCall: no executable or no buffers");
  if (llvm::Error error =
          callOnce(executable, parameters, results, nullptr, 0))
    return makeStatus(std::move(error));
  return nullptr;
}

KilnStatus kilnExecutableCallRanks(KilnExecutable executable, size_t ranks,
                                   const void *const *const *parameters,
                                   void *const *const *results) {
  if (!executable || !parameters || !results || ranks == 0 || ranks > 1024)
    return makeStatus("kilnExecutableCallRanks: no executable, no buffers, "
                      "or not 1 to 1024 ranks");
  for (size_t rank = 0; rank < ranks; ++rank)
    if ((!parameters[rank] && !executable->parameters.empty()) ||
        (!results[rank] && !executable->results.empty()))
      return makeStatus("kilnExecutableCallRanks: rank " +
                        std::to_string(rank) + " has no buffers");
  ParticipantGroup group(ranks);
  std::vector<std::string> errors(ranks);
  // Threads through pthread_create, whose failure is a status (this
  // library is built without exceptions: std::thread would abort).
  struct RankCall {
    KilnExecutable executable;
    const void *const *parameters;
    void *const *results;
    ParticipantGroup *group;
    int rank;
    std::string *error;
  };
  std::vector<RankCall> calls(ranks);
  std::vector<pthread_t> threads;
  std::string startError;
  for (size_t rank = 0; rank < ranks; ++rank) {
    calls[rank] = {executable,     parameters[rank], results[rank],
                   &group,         (int)rank,        &errors[rank]};
    pthread_t thread;
    int failed = pthread_create(
        &thread, nullptr,
        [](void *argument) -> void * {
          auto *call = static_cast<RankCall *>(argument);
          if (llvm::Error error =
                  callOnce(call->executable, call->parameters, call->results,
                           call->group, call->rank)) {
            *call->error = llvm::toString(std::move(error));
            call->group->abort();
          }
          return nullptr;
        },
        &calls[rank]);
    if (failed) {
      startError = "cannot start the thread of rank " + std::to_string(rank) +
                   ": " + std::strerror(failed);
      group.abort();
      break;
    }
    threads.push_back(thread);
  }
  for (pthread_t thread : threads)
    pthread_join(thread, nullptr);
  if (!startError.empty())
    return makeStatus(startError);
  for (size_t rank = 0; rank < ranks; ++rank)
    if (!errors[rank].empty())
      return makeStatus("rank " + std::to_string(rank) + ": " + errors[rank]);
  return nullptr;
}

} // extern "C"
