//===- Signing.cpp - signed entries and the keys that are trusted -*- C++ -*-=//
//
// This file implements signing and checking with libsodium's ed25519
// (crypto_sign_detached, crypto_sign_verify_detached), BLAKE2b
// (crypto_generichash) and Base64: kiln does no cryptography of its own.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Signing.h"
#include "kiln/Cache/Settings.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// libsodium picks its implementations once per process.
bool initializeSodium() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

std::string toBase64(const unsigned char *bytes, size_t size) {
  std::string text(
      sodium_base64_ENCODED_LEN(size, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(text.data(), text.size(), bytes, size,
                    sodium_base64_VARIANT_ORIGINAL);
  text.resize(std::strlen(text.c_str()));
  return text;
}

/// Exactly `size` bytes from `text`, or false.
bool fromBase64(StringRef text, unsigned char *bytes, size_t size) {
  size_t decoded = 0;
  const char *end = nullptr;
  if (sodium_base642bin(bytes, size, text.data(), text.size(), nullptr,
                        &decoded, &end, sodium_base64_VARIANT_ORIGINAL) != 0)
    return false;
  return decoded == size && end == text.data() + text.size();
}

/// A key's name: what signatures carry and trusted keys are matched by.
std::optional<std::string> checkKeyName(StringRef name) {
  if (name.empty())
    return std::string("a key needs a name");
  if (name.size() > 128)
    return std::string("a key's name has at most 128 characters");
  for (char c : name)
    if (c == ':' || llvm::isSpace(c) || !llvm::isPrint(c))
      return "a key's name has no ':', spaces or control characters ('" +
             name.str() + "')";
  return std::nullopt;
}

} // namespace

Expected<SigningKey> SigningKey::generate(StringRef name, StringRef path) {
  if (!initializeSodium())
    return makeError("libsodium could not be initialized");
  if (std::optional<std::string> problem = checkKeyName(name))
    return makeError(*problem);
  SigningKey key;
  key.name = name.str();
  unsigned char publicKey[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_keypair(publicKey, key.secret.data());
  std::string text =
      key.name + ":" + toBase64(key.secret.data(), key.secret.size()) + "\n";
  // A file's name, not a directory's: nothing is made for `-o dir/`.
  if (path.empty() || llvm::sys::path::is_separator(path.back()) ||
      llvm::sys::fs::is_directory(path))
    return makeError(path + ": is a directory; give the secret key's file");
  // Its directory is made when missing (~/.config/kiln on a new machine),
  // for the owner alone, as the key is.
  StringRef directory = llvm::sys::path::parent_path(path);
  if (!directory.empty() && !llvm::sys::fs::exists(directory))
    if (std::error_code error = llvm::sys::fs::create_directories(
            directory, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all))
      return makeError(path +
                       ": its directory cannot be made: " + error.message());
  // Made with the owner's permissions only, and never over a file that is
  // there: a key lost to an overwrite cannot be made again.
  int fd = ::open(path.str().c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    int error = errno;
    if (error == EEXIST)
      return makeError(path + ": exists already; kiln never overwrites a "
                              "secret key (remove it first, or choose "
                              "another file)");
    return makeError(path + ": " + std::strerror(error));
  }
  const char *data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      int error = errno;
      ::close(fd);
      ::unlink(path.str().c_str());
      return makeError(path + ": " + std::strerror(error));
    }
    data += written;
    left -= written;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int error = errno;
    ::unlink(path.str().c_str());
    return makeError(path + ": " + std::strerror(error));
  }
  sodium_memzero(text.data(), text.size());
  return key;
}

Expected<SigningKey> SigningKey::load(StringRef path) {
  if (!initializeSodium())
    return makeError("libsodium could not be initialized");
  int fd = ::open(path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError("the signing key " + path + ": " + std::strerror(errno));
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return makeError("the signing key " + path + " is not a regular file");
  }
  if (status.st_mode & 077) {
    ::close(fd);
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%o", status.st_mode & 0777);
    return makeError(llvm::formatv("the signing key {0} may be read or "
                                   "written by others (mode {1}); make it "
                                   "the owner's alone: chmod 600 {0}",
                                   path, mode)
                         .str());
  }
  char buffer[512];
  ssize_t size = ::read(fd, buffer, sizeof(buffer));
  ::close(fd);
  if (size < 0)
    return makeError("the signing key " + path + ": " + std::strerror(errno));
  StringRef text = StringRef(buffer, size).trim();
  auto [name, encoded] = text.split(':');
  SigningKey key;
  if (checkKeyName(name) || encoded.empty() ||
      !fromBase64(encoded, key.secret.data(), key.secret.size())) {
    sodium_memzero(buffer, sizeof(buffer));
    return makeError("the signing key " + path +
                     " is not a key that 'kiln cache keygen' wrote "
                     "(NAME:BASE64 of an ed25519 secret key)");
  }
  key.name = name.str();
  sodium_memzero(buffer, sizeof(buffer));
  return key;
}

std::string SigningKey::getPublicKeyText() const {
  unsigned char publicKey[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_ed25519_sk_to_pk(publicKey, secret.data());
  return name + ":" + toBase64(publicKey, sizeof(publicKey));
}

std::string SigningKey::sign(StringRef message) const {
  unsigned char signature[crypto_sign_BYTES];
  crypto_sign_detached(signature, nullptr,
                       reinterpret_cast<const unsigned char *>(message.data()),
                       message.size(), secret.data());
  return name + ":" + toBase64(signature, sizeof(signature));
}

Expected<TrustedKey> TrustedKey::parse(StringRef text) {
  if (!initializeSodium())
    return makeError("libsodium could not be initialized");
  auto [name, encoded] = text.trim().split(':');
  if (std::optional<std::string> problem = checkKeyName(name))
    return makeError("'" + text + "' is no public key: " + *problem);
  TrustedKey key;
  key.name = name.str();
  if (encoded.empty() || !fromBase64(encoded, key.key.data(), key.key.size()))
    return makeError("'" + text +
                     "' is no public key: NAME:BASE64 of 32 bytes, as "
                     "'kiln cache keygen' prints it");
  return key;
}

std::string kiln::getSignedMessage(const ArtifactHeader &header,
                                   StringRef payload) {
  initializeSodium();
  unsigned char digest[32];
  crypto_generichash(digest, sizeof(digest),
                     reinterpret_cast<const unsigned char *>(payload.data()),
                     payload.size(), nullptr, 0);
  // JSON, whose objects LLVM writes with their keys in order: one text for
  // one entry, whoever makes it.
  llvm::json::Object fields = header.parts.toJson();
  fields["status"] = header.ok ? "ok" : "failed";
  fields["size"] = (int64_t)header.size;
  fields["checksum"] = header.checksum;
  fields["blake2b_256"] = llvm::toHex(StringRef((const char *)digest, 32),
                                      /*LowerCase=*/true);
  std::string message = "kiln entry signature 1\n";
  llvm::raw_string_ostream os(message);
  os << llvm::json::Value(std::move(fields));
  os.flush();
  return message;
}

SignatureCheck kiln::checkSignatures(const ArtifactHeader &header,
                                     StringRef payload,
                                     llvm::ArrayRef<TrustedKey> trusted) {
  SignatureCheck check;
  if (header.signatures.empty()) {
    check.reason = "unsigned";
    return check;
  }
  initializeSodium();
  check.verdict = SignatureVerdict::Untrusted;
  std::optional<std::string> message;
  std::vector<std::string> problems;
  for (const std::string &text : header.signatures) {
    auto [name, encoded] = StringRef(text).split(':');
    // Every trusted key of that name (two while a key is being replaced).
    std::vector<const TrustedKey *> keys;
    for (const TrustedKey &candidate : trusted)
      if (candidate.name == name)
        keys.push_back(&candidate);
    if (keys.empty()) {
      problems.push_back("signed by " + name.str() +
                         ", which is not a trusted key");
      continue;
    }
    unsigned char signature[crypto_sign_BYTES];
    if (!fromBase64(encoded, signature, sizeof(signature))) {
      problems.push_back("the signature by " + name.str() + " is malformed");
      continue;
    }
    if (!message)
      message = getSignedMessage(header, payload);
    for (const TrustedKey *key : keys)
      if (crypto_sign_verify_detached(
              signature,
              reinterpret_cast<const unsigned char *>(message->data()),
              message->size(), key->key.data()) == 0) {
        check.verdict = SignatureVerdict::Trusted;
        check.signer = name.str();
        check.reason.clear();
        return check;
      }
    problems.push_back("the signature by " + name.str() +
                       " does not match the entry (made for other bytes, or "
                       "by another key of that name)");
  }
  check.reason = llvm::join(problems, "; ");
  return check;
}

bool kiln::hasSignatureBy(const ArtifactHeader &header, StringRef name) {
  for (const std::string &signature : header.signatures)
    if (StringRef(signature).split(':').first == name)
      return true;
  return false;
}

std::optional<std::string> TrustPolicy::refuse(const ArtifactHeader &header,
                                               StringRef payload,
                                               bool fromRemote) const {
  if (!requiresSignature(fromRemote))
    return std::nullopt;
  SignatureCheck check = checkSignatures(header, payload, trustedKeys);
  if (check.verdict == SignatureVerdict::Trusted)
    return std::nullopt;
  return check.reason;
}

bool TrustPolicy::sign(ArtifactHeader &header, StringRef payload) const {
  if (!signingKey)
    return false;
  const std::string &name = signingKey->getName();
  llvm::erase_if(header.signatures, [&](const std::string &signature) {
    return StringRef(signature).split(':').first == name;
  });
  header.signatures.push_back(
      signingKey->sign(getSignedMessage(header, payload)));
  return true;
}

Expected<TrustPolicy> kiln::makeTrustPolicy(const Settings &settings) {
  TrustPolicy policy;
  if (std::optional<SettingValue> path = settings.get("signing-key");
      path && !StringRef(path->value).trim().empty()) {
    Expected<SigningKey> key = SigningKey::load(StringRef(path->value).trim());
    if (!key)
      return makeError(llvm::toString(key.takeError()) + " (signing-key, from " +
                       path->origin + ")");
    policy.signingKey = std::move(*key);
  }
  std::optional<SettingValue> trusted = settings.get("trusted-keys");
  for (const std::string &text : settings.getList("trusted-keys")) {
    Expected<TrustedKey> key = TrustedKey::parse(text);
    if (!key)
      return makeError(llvm::toString(key.takeError()) +
                       " (trusted-keys, from " + trusted->origin + ")");
    policy.trustedKeys.push_back(std::move(*key));
  }
  policy.requirement = policy.trustedKeys.empty()
                           ? SignatureRequirement::Off
                           : SignatureRequirement::Remote;
  if (std::optional<SettingValue> required =
          settings.get("require-signatures");
      required && !StringRef(required->value).trim().empty()) {
    StringRef value = StringRef(required->value).trim();
    if (value == "off" || value == "none")
      policy.requirement = SignatureRequirement::Off;
    else if (value == "remote")
      policy.requirement = SignatureRequirement::Remote;
    else if (value == "all")
      policy.requirement = SignatureRequirement::All;
    else
      return makeError("require-signatures is remote, all or off, not '" +
                       value + "' (from " + required->origin + ")");
    if (policy.requirement != SignatureRequirement::Off &&
        policy.trustedKeys.empty())
      return makeError("require-signatures = " + value +
                       " needs trusted keys (trusted-keys, KILN_TRUSTED_KEYS "
                       "or --trusted-key), or nothing could be trusted (from " +
                       required->origin + ")");
  }
  return policy;
}
