//===- RemoteStorage.cpp - remote tier URLs, owners, defaults ---*- C++ -*-===//
//
// This file implements what the remote backends share: parsing a tier's
// URL and attributes (ccache's `URL|attribute=value` form), the lease
// owner of this process, and the defaults of a tier without leases.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Remote/RemoteStorage.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <random>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

char RemoteError::ID = 0;

void RemoteError::log(llvm::raw_ostream &os) const { os << message; }

std::error_code RemoteError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

Error kiln::makeRemoteError(const llvm::Twine &message, bool timedOut) {
  return llvm::make_error<RemoteError>(message.str(), timedOut);
}

Error kiln::makeRemoteEntryError(const llvm::Twine &message) {
  return llvm::make_error<RemoteError>(message.str(), /*timedOut=*/false,
                                       /*entryOnly=*/true);
}

std::string kiln::hidePassword(StringRef url) {
  // scheme://[user[:password]@]host...: what is before '@' in the
  // authority holds the password (Redis takes `password@` alone, so
  // everything there but a user name before ':' is hidden).
  size_t start = url.find("://");
  if (start == StringRef::npos)
    return url.str();
  start += 3;
  // (Up to the path: a password may hold '#' or '?'.)
  size_t end = url.find('/', start);
  StringRef authority = url.slice(start, end);
  size_t at = authority.rfind('@');
  if (at == StringRef::npos)
    return url.str();
  StringRef credentials = authority.take_front(at);
  size_t colon = credentials.find(':');
  std::string shown = colon == StringRef::npos
                          ? "***"
                          : credentials.take_front(colon).str() + ":***";
  return (url.take_front(start) + shown + url.drop_front(start + at)).str();
}

const LeaseOwner &LeaseOwner::current() {
  // Drawn again in a forked child: a child is another owner.
  static LeaseOwner owner;
  if (owner.pid != getpid()) {
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    owner.host = host;
    owner.pid = getpid();
    std::random_device device;
    uint64_t words[2] = {((uint64_t)device() << 32) | device(),
                         ((uint64_t)device() << 32) | device()};
    owner.token = llvm::utohexstr(words[0], /*LowerCase=*/true, 16) +
                  llvm::utohexstr(words[1], /*LowerCase=*/true, 16);
  }
  return owner;
}

std::string LeaseOwner::toString() const {
  return host + ":" + std::to_string(pid) + ":" + token;
}

RemoteStorage::~RemoteStorage() = default;

Expected<RemoteClaim> RemoteStorage::claim(StringRef, const LeaseOwner &,
                                           unsigned) {
  return makeRemoteError(getName() + " holds no leases");
}

Error RemoteStorage::renew(StringRef, const LeaseOwner &, unsigned) {
  return makeRemoteError(getName() + " holds no leases");
}

Error RemoteStorage::release(StringRef, const LeaseOwner &) {
  return Error::success();
}

Error RemoteStorage::putRunFile(StringRef, StringRef) {
  return makeRemoteError(getName() + " cannot hold a cluster run's files");
}

Expected<std::optional<std::string>> RemoteStorage::getRunFile(StringRef) {
  return makeRemoteError(getName() + " cannot hold a cluster run's files");
}

Expected<std::vector<std::string>> RemoteStorage::listRunFiles(StringRef) {
  return makeRemoteError(getName() + " cannot hold a cluster run's files");
}

bool kiln::isRunFileName(StringRef name) {
  if (name.empty())
    return false;
  llvm::SmallVector<StringRef> parts;
  name.split(parts, '/');
  for (StringRef part : parts)
    if (part.empty() || part == "." || part == ".." ||
        !llvm::all_of(part, [](char c) {
          return llvm::isAlnum(c) || c == '.' || c == '_' || c == '-';
        }))
      return false;
  return true;
}

bool kiln::looksLikeUrl(StringRef text) {
  // `scheme:` with a scheme of letters, digits, +, - and . (RFC 3986), at
  // least two characters so that a Windows-style `C:` is not one.
  size_t colon = text.find(':');
  if (colon == StringRef::npos || colon < 2)
    return false;
  StringRef scheme = text.take_front(colon);
  if (!llvm::isAlpha(scheme.front()))
    return false;
  return llvm::all_of(scheme, [](char c) {
    return llvm::isAlnum(c) || c == '+' || c == '-' || c == '.';
  });
}

std::string RemoteSpec::getDisplayName() const { return hidePassword(url); }

static Error specError(StringRef text, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "remote storage '" + hidePassword(text) +
                                     "': " + why);
}

Expected<RemoteSpec> kiln::parseRemoteSpec(StringRef text) {
  llvm::SmallVector<StringRef> parts;
  text.trim().split(parts, '|');
  RemoteSpec spec;
  spec.url = parts[0].trim().str();
  StringRef url = spec.url;
  if (!looksLikeUrl(url))
    return specError(text, "not a URL; remote tiers are file:PATH, "
                           "redis://HOST[:PORT][/DB], redis+unix:SOCKET, "
                           "http://... or https://...");
  spec.scheme = url.take_front(url.find(':')).lower();
  // The attributes each scheme takes beyond the common ones.
  std::vector<StringRef> own;
  if (spec.scheme == "file") {
    StringRef path = url.drop_front(5);
    if (path.consume_front("//")) {
      // file:///PATH, or file://localhost/PATH.
      path.consume_front("localhost");
      if (!path.starts_with("/"))
        return specError(text, "a file: URL names a path on this machine "
                               "(file:PATH or file:///PATH)");
    }
    if (path.empty() || path.rtrim('/').empty())
      return specError(text, "file: needs a directory (file:PATH), not the "
                             "root");
  } else if (spec.scheme == "redis") {
    if (!url.starts_with("redis://") || url.size() == 8)
      return specError(text, "a Redis URL is redis://[[USER]:PASSWORD@]HOST"
                             "[:PORT][/DB]");
    own = {"expire", "prefix"};
  } else if (spec.scheme == "redis+unix") {
    if (url.drop_front(11).empty())
      return specError(text, "redis+unix: needs a socket (redis+unix:PATH)");
    own = {"expire", "prefix"};
  } else if (spec.scheme == "http" || spec.scheme == "https") {
    StringRef rest = url.drop_front(spec.scheme.size());
    StringRef authority;
    if (rest.consume_front("://"))
      authority = rest.take_until([](char c) { return c == '/'; });
    authority = authority.rsplit('@').second.empty()
                    ? authority
                    : authority.rsplit('@').second;
    StringRef host = authority, port;
    if (!authority.starts_with("[") && authority.contains(':'))
      std::tie(host, port) = authority.rsplit(':');
    unsigned portNumber = 0;
    if (host.empty())
      return specError(text, "an HTTP URL is " + spec.scheme + "://HOST/PATH");
    if (!port.empty() && (port.getAsInteger(10, portNumber) ||
                          portNumber == 0 || portNumber > 65535))
      return specError(text, "malformed port '" + port + "'");
    own = {"bearer-token-file", "prefix"};
  } else {
    return specError(text, "unknown scheme '" + spec.scheme +
                               "'; kiln's remote tiers are file:, redis://, "
                               "redis+unix:, http:// and https://");
  }
  for (StringRef attribute : llvm::ArrayRef(parts).drop_front()) {
    attribute = attribute.trim();
    if (attribute.empty())
      continue;
    auto [name, value] = attribute.split('=');
    bool hasValue = attribute.contains('=');
    auto number = [&](unsigned &out) -> Error {
      unsigned parsed;
      if (!hasValue || value.getAsInteger(10, parsed) || parsed == 0)
        return specError(text, "attribute '" + name +
                                   "' takes a number of milliseconds, not '" +
                                   value + "'");
      out = parsed;
      return Error::success();
    };
    if (name == "read-only") {
      if (hasValue && value != "true" && value != "false")
        return specError(text, "attribute 'read-only' takes true or false, "
                               "not '" +
                                   value + "'");
      spec.readOnly = !hasValue || value == "true";
    } else if (name == "connect-timeout") {
      if (Error error = number(spec.connectTimeoutMs))
        return std::move(error);
    } else if (name == "operation-timeout") {
      if (Error error = number(spec.operationTimeoutMs))
        return std::move(error);
    } else if (llvm::is_contained(own, name)) {
      if (!hasValue || value.empty())
        return specError(text, "attribute '" + name + "' needs a value");
      if (name == "expire") {
        unsigned seconds;
        if (value.getAsInteger(10, seconds) || seconds == 0)
          return specError(text, "attribute 'expire' takes a number of "
                                 "seconds, not '" +
                                     value + "'");
      }
      spec.attributes[name.str()] = value.str();
    } else {
      std::string known = "read-only, connect-timeout=MS, operation-timeout=MS";
      for (StringRef name : own)
        known += ", " + name.str() + "=...";
      return specError(text, "unknown attribute '" + name + "' for " +
                                 spec.scheme + ": (it takes " + known + ")");
    }
  }
  return spec;
}

Expected<std::unique_ptr<RemoteStorage>>
kiln::openRemoteStorage(const RemoteSpec &spec) {
  std::string error;
  std::unique_ptr<RemoteStorage> storage;
  if (spec.scheme == "file")
    storage = createFileStorage(spec, error);
  else if (spec.scheme == "redis" || spec.scheme == "redis+unix")
    storage = createRedisStorage(spec, error);
  else
    storage = createHttpStorage(spec, error);
  if (!storage)
    return specError(spec.getDisplayName(), error);
  return std::move(storage);
}
