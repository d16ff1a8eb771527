//===- CacheAccess.h - how commands find and open the cache -----*- C++ -*-===//
//
// This file declares what every command (and the C API) that reads or
// writes the cache shares: the cache directory (a URL there is a usage error), the settings
// that apply to it (Settings.h), the remote tiers they name, and the
// tiered cache opened over them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_CACHEACCESS_H
#define KILN_CACHE_CACHEACCESS_H


#include "kiln/Cache/Settings.h"
#include "kiln/Cache/TieredCache.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// What the command line says about signatures (Signing.h); empty: the
/// settings decide.
struct SignatureOptions {
  std::string signingKey;               ///< --signing-key
  std::vector<std::string> trustedKeys; ///< --trusted-key, repeatable
  std::string requireSignatures;        ///< --require-signatures
};

/// The cache options every such command takes.
struct CacheAccessOptions {
  std::string cacheDir;             ///< empty: Cache::getDefaultDirectory()
  std::vector<std::string> remotes; ///< --remote, repeatable
  SignatureOptions signatures;
};

/// The cache directory: `given`, else the default. A URL (`s3://...`,
/// `redis://...`) is an error that says to use --remote for it.
llvm::Expected<std::string> resolveCacheDirectory(llvm::StringRef given);

/// The settings for `directory`, with the command line's --remote and
/// signature options on top.
llvm::Expected<Settings> loadCommandSettings(llvm::StringRef directory,
                                             const CacheAccessOptions &access);

/// The remote tiers that `settings` name, opened; a malformed one is an
/// error naming it.
llvm::Expected<std::vector<std::unique_ptr<RemoteStorage>>>
openRemoteTiers(const Settings &settings);

/// Opens the local cache at `directory` and the remote tiers of
/// `settings` behind it. Warnings go to `warnings` (stderr by default)
/// prefixed with `commandName`.
llvm::Expected<std::unique_ptr<TieredCache>>
openTieredCache(llvm::StringRef directory, const Settings &settings,
                const Cache::OpenOptions &options, llvm::StringRef commandName,
                llvm::raw_ostream &warnings = llvm::errs());

} // namespace kiln

#endif // KILN_CACHE_CACHEACCESS_H
