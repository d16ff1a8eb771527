//===- CacheAccess.cpp - how commands find and open the cache ---*- C++ -*-===//
//
// This file implements the cache directory's resolution, the settings that
// apply to a command, and the opening of the tiered cache.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/CacheAccess.h"

#include "kiln/Cache/Signing.h"

#include "CacheInternal.h"

#include "llvm/ADT/StringExtras.h"

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

using cache_detail::makeError;

Expected<std::string> kiln::resolveCacheDirectory(StringRef given) {
  std::string directory =
      given.empty() ? Cache::getDefaultDirectory() : given.str();
  if (looksLikeUrl(directory))
    return makeError("the cache directory '" + directory +
                     "' is a URL; the local cache is a directory on this "
                     "machine's disk, and a shared cache is a remote tier: "
                     "--remote " +
                     directory + " (file:PATH, redis://, http(s)://)");
  return directory;
}

Expected<Settings> kiln::loadCommandSettings(StringRef directory,
                                             const CacheAccessOptions &access) {
  Expected<Settings> settings = Settings::load(directory);
  if (!settings)
    return settings.takeError();
  if (!access.remotes.empty()) {
    // `--remote ''` turns the configured remotes off for one command.
    std::vector<std::string> given;
    for (const std::string &remote : access.remotes)
      if (!StringRef(remote).trim().empty())
        given.push_back(StringRef(remote).trim().str());
    // One per line (even one alone): a URL may hold spaces.
    settings->setFromOption("remote-storage",
                            given.empty() ? "" : llvm::join(given, "\n") + "\n",
                            "--remote");
  }
  const SignatureOptions &signatures = access.signatures;
  if (!signatures.signingKey.empty())
    settings->setFromOption("signing-key", signatures.signingKey,
                            "--signing-key");
  if (!signatures.trustedKeys.empty())
    settings->setFromOption("trusted-keys",
                            llvm::join(signatures.trustedKeys, " "),
                            "--trusted-key");
  if (!signatures.requireSignatures.empty())
    settings->setFromOption("require-signatures",
                            signatures.requireSignatures,
                            "--require-signatures");
  return settings;
}

Expected<std::vector<std::unique_ptr<RemoteStorage>>>
kiln::openRemoteTiers(const Settings &settings) {
  std::vector<std::unique_ptr<RemoteStorage>> remotes;
  std::optional<SettingValue> origin = settings.get("remote-storage");
  for (const std::string &text : settings.getList("remote-storage")) {
    Expected<RemoteSpec> spec = parseRemoteSpec(text);
    if (!spec)
      return makeError(llvm::toString(spec.takeError()) + " (from " +
                       origin->origin + ")");
    Expected<std::unique_ptr<RemoteStorage>> storage =
        openRemoteStorage(*spec);
    if (!storage)
      return makeError(llvm::toString(storage.takeError()) + " (from " +
                       origin->origin + ")");
    remotes.push_back(std::move(*storage));
  }
  return remotes;
}

Expected<std::unique_ptr<TieredCache>>
kiln::openTieredCache(StringRef directory, const Settings &settings,
                      const Cache::OpenOptions &options,
                      StringRef commandName, llvm::raw_ostream &warnings) {
  Expected<std::vector<std::unique_ptr<RemoteStorage>>> remotes =
      openRemoteTiers(settings);
  if (!remotes)
    return remotes.takeError();
  Expected<TrustPolicy> trust = makeTrustPolicy(settings);
  if (!trust)
    return trust.takeError();
  Expected<std::unique_ptr<Cache>> local = Cache::open(directory, options);
  if (!local)
    return local.takeError();
  (*local)->setTrustPolicy(std::make_shared<TrustPolicy>(std::move(*trust)));
  return std::make_unique<TieredCache>(std::move(*local), std::move(*remotes),
                                       commandName.str(), warnings);
}
