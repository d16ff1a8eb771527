/* run-cached CACHE GRAPH: loads GRAPH (add.hlo: f32[4] + 1) through the
 * cache with kiln's C API, says whether it came from the cache, calls it
 * and prints the results; then calls it with 2 ranks. */
#include "kiln-c/Kiln.h"

#include <stdio.h>
#include <string.h>

static int fail(const char *what, KilnStatus status) {
  printf("%s: %s\n", what, kilnStatusGetMessage(status));
  kilnStatusDestroy(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  KilnCache cache;
  KilnStatus status = kilnCacheOpen(argv[1], NULL, &cache);
  if (status)
    return fail("open", status);
  KilnLookup lookup;
  status = kilnCacheLookup(cache, argv[2], NULL, &lookup);
  if (status)
    return fail("lookup", status);
  printf("lookup: %s %s\n", lookup.status == KILN_LOOKUP_HIT ? "hit" : "miss",
         lookup.key);
  KilnExecutable executable;
  status = kilnExecutableLoad(cache, argv[2], NULL, &executable);
  if (status)
    return fail("load", status);
  printf("from cache: %d\n", kilnExecutableIsFromCache(executable));
  KilnBufferType type;
  if ((status = kilnExecutableGetParameter(executable, 0, &type)))
    return fail("parameter", status);
  printf("parameter 0: %s rank %zu [%lld] %zu bytes\n", type.elementType,
         type.rank, (long long)type.shape[0], type.bytes);
  float in[4] = {1, 2, 3, 4}, out[4];
  const void *parameters[1] = {in};
  void *results[1] = {out};
  if ((status = kilnExecutableCall(executable, parameters, results)))
    return fail("call", status);
  printf("results: %g %g %g %g\n", out[0], out[1], out[2], out[3]);
  float in1[4] = {10, 20, 30, 40}, out1[4];
  const void *parameters1[1] = {in1};
  void *results1[1] = {out1};
  const void *const *rankParameters[2] = {parameters, parameters1};
  void *const *rankResults[2] = {results, results1};
  if ((status = kilnExecutableCallRanks(executable, 2, rankParameters,
                                        rankResults)))
    return fail("ranks", status);
  printf("rank 1: %g %g %g %g\n", out1[0], out1[1], out1[2], out1[3]);
  /* A rank without buffers is a status, not a crash. */
  const void *const *noParameters[1] = {NULL};
  void *const *noResults[1] = {NULL};
  status = kilnExecutableCallRanks(executable, 1, noParameters, noResults);
  printf("rank without buffers: %s\n",
         status ? kilnStatusGetMessage(status) : "?");
  kilnStatusDestroy(status);
  /* A failed call is a status with a message, not a crash. */
  status = kilnExecutableGetResult(executable, 7, &type);
  printf("result 7: %s\n", status ? kilnStatusGetMessage(status) : "?");
  kilnStatusDestroy(status);
  printf("compiled %llu, hits %llu\n",
         (unsigned long long)kilnCacheGetCompileCount(cache),
         (unsigned long long)kilnCacheGetHitCount(cache));
  kilnExecutableDestroy(executable);
  kilnCacheDestroy(cache);
  return 0;
}
