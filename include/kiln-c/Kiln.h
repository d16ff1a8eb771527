/*===-- kiln-c/Kiln.h - kiln's C API -------------------------------*- C -*-===*\
|*                                                                            *|
|* A training process reads kiln's cache through this interface: open the    *|
|* cache with the same settings as the command line, key a graph, look it    *|
|* up, load its executable (from the cache, else compiled and stored), and  *|
|* call it on the caller's buffers, on one thread or on N threads whose      *|
|* collectives meet. Handles are opaque; every call that can fail returns a  *|
|* KilnStatus (NULL: success; else a message, freed with kilnStatusDestroy). *|
|* Nothing here throws, aborts or prints: remote tiers' warnings are kept    *|
|* for kilnCacheTakeWarnings.                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef KILN_C_KILN_H
#define KILN_C_KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KILN_C_EXPORT __attribute__((visibility("default")))
#else
#define KILN_C_EXPORT
#endif

/** The API's version: a change that breaks a caller raises it. */
#define KILN_C_API_VERSION 1

/** kiln's version and source revision, "0.1.0 (REVISION)". */
KILN_C_EXPORT const char *kilnGetVersion(void);

typedef struct KilnStatusOpaque *KilnStatus;
/** The message of a failed call: "FILE:LINE:COL: error: ..." for a graph. */
KILN_C_EXPORT const char *kilnStatusGetMessage(KilnStatus status);
KILN_C_EXPORT void kilnStatusDestroy(KilnStatus status);

/* ---- The cache ---------------------------------------------------------- */

typedef struct KilnCacheOpaque *KilnCache;

/** Opens the cache at `directory` (NULL: the default, as `kiln` finds it),
 *  with the settings of its kiln.conf, the user's and KILN_* variables.
 *  `remotes`, a NULL-terminated list of URLs, replaces the configured
 *  remote tiers (an empty list: none); NULL keeps them. */
KILN_C_EXPORT KilnStatus kilnCacheOpen(const char *directory,
                                       const char *const *remotes,
                                       KilnCache *cache);
KILN_C_EXPORT void kilnCacheDestroy(KilnCache cache);
KILN_C_EXPORT const char *kilnCacheGetDirectory(KilnCache cache);
/** The remote tiers' warnings since the last call, one per line ("" for
 *  none); valid until the next call on `cache`. */
KILN_C_EXPORT const char *kilnCacheTakeWarnings(KilnCache cache);
/** How many graphs this handle compiled (misses), and loaded from the
 *  cache (hits). */
KILN_C_EXPORT uint64_t kilnCacheGetCompileCount(KilnCache cache);
KILN_C_EXPORT uint64_t kilnCacheGetHitCount(KilnCache cache);

typedef enum {
  KILN_LOOKUP_HIT = 0,
  KILN_LOOKUP_MISS = 1,
  KILN_LOOKUP_FAILED = 2,    /**< a recorded failed compilation */
  KILN_LOOKUP_UNTRUSTED = 3, /**< an entry without a trusted signature */
  KILN_LOOKUP_CORRUPT = 4    /**< an entry that failed its checks */
} KilnLookupStatus;

typedef struct {
  KilnLookupStatus status;
  char key[33];     /**< the cache key, 32 hex digits */
  char tier[256];   /**< where it was found: "local", or a remote's name */
  char reason[512]; /**< why it is not a hit, in words; "" for a hit */
} KilnLookup;

/** Keys the graph in the file at `path` (HLO text, StableHLO, kiln MLIR)
 *  as `kiln precompile` keys it, with `options` (a NULL-terminated list of
 *  "name=value" compile options, or NULL) on top of the settings', and
 *  looks it up without loading or compiling anything. */
KILN_C_EXPORT KilnStatus kilnCacheLookup(KilnCache cache, const char *path,
                                         const char *const *options,
                                         KilnLookup *lookup);

/** The same for a graph given as text (`size` bytes; `name` names it in
 *  messages and in a stored entry). */
KILN_C_EXPORT KilnStatus kilnCacheLookupText(KilnCache cache, const char *text,
                                             size_t size, const char *name,
                                             const char *const *options,
                                             KilnLookup *lookup);

/* ---- Executables -------------------------------------------------------- */

typedef struct KilnExecutableOpaque *KilnExecutable;

/** The executable of the graph at `path`: loaded from the cache on a hit
 *  (verified; where keys are trusted, signed by one), else compiled,
 *  stored in the local tier and the writable remotes, and loaded. */
KILN_C_EXPORT KilnStatus kilnExecutableLoad(KilnCache cache, const char *path,
                                            const char *const *options,
                                            KilnExecutable *executable);
/** The same for a graph given as text (`size` bytes, named `name`). */
KILN_C_EXPORT KilnStatus kilnExecutableLoadText(KilnCache cache,
                                                const char *text, size_t size,
                                                const char *name,
                                                const char *const *options,
                                                KilnExecutable *executable);
KILN_C_EXPORT void kilnExecutableDestroy(KilnExecutable executable);
/** 1 if it came from the cache, 0 if it was compiled. */
KILN_C_EXPORT int kilnExecutableIsFromCache(KilnExecutable executable);
KILN_C_EXPORT const char *kilnExecutableGetKey(KilnExecutable executable);
/** The graph's structural signature, 32 hex digits. */
KILN_C_EXPORT const char *kilnExecutableGetSignature(KilnExecutable executable);
/** What loading did, in words ("a hit in the local tier DIR; loaded, not
 *  compiled", "a miss; compiled in 1.2 s and stored in DIR"). */
KILN_C_EXPORT const char *kilnExecutableGetDescription(KilnExecutable executable);

typedef struct {
  const char *elementType; /**< "f32", "bf16", "i64", "ui8", "i1", ... */
  size_t rank;
  const int64_t *shape; /**< `rank` sizes */
  size_t bytes;         /**< the buffer's size: elements x element bytes */
} KilnBufferType;

KILN_C_EXPORT size_t kilnExecutableGetNumParameters(KilnExecutable executable);
KILN_C_EXPORT size_t kilnExecutableGetNumResults(KilnExecutable executable);
/** Valid as long as the executable. */
KILN_C_EXPORT KilnStatus kilnExecutableGetParameter(KilnExecutable executable,
                                                    size_t index,
                                                    KilnBufferType *type);
KILN_C_EXPORT KilnStatus kilnExecutableGetResult(KilnExecutable executable,
                                                 size_t index,
                                                 KilnBufferType *type);

/** Calls the code: `parameters[i]` holds parameter i's bytes (row-major,
 *  as KilnBufferType says; never written), `results[i]` receives result
 *  i's. Another thread may call the same executable at the same time. */
KILN_C_EXPORT KilnStatus kilnExecutableCall(KilnExecutable executable,
                                            const void *const *parameters,
                                            void *const *results);
/** Calls the code as `ranks` participants, one thread each, whose
 *  collectives meet (partition_id gives each its number):
 *  `parameters[r]` and `results[r]` are rank r's buffers. */
KILN_C_EXPORT KilnStatus kilnExecutableCallRanks(
    KilnExecutable executable, size_t ranks,
    const void *const *const *parameters, void *const *const *results);

#ifdef __cplusplus
}
#endif

#endif /* KILN_C_KILN_H */
