//===- Signing.h - signed entries and the keys that are trusted -*- C++ -*-===//
//
// This file declares what makes a shared cache safe to run code from:
// ed25519 signatures (libsodium) over each entry, made with a secret key
// that only the machines that compile hold, and checked against the public
// keys a user trusts, as Nix's `trusted-public-keys` and `require-sigs`
// do. A signature covers the entry's key, every key part, its status, its
// size, its XXH3-128 checksum and a BLAKE2b-256 digest of its payload:
// XXH3 finds damage but is not made to resist forgery, so the digest is
// what binds the signature to the bytes. Keys and signatures are written
// as `NAME:BASE64`, Nix's form.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_SIGNING_H
#define KILN_CACHE_SIGNING_H

#include "kiln/Cache/ArtifactHeader.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

class Settings;

/// A secret key and the name its signatures carry.
class SigningKey {
public:
  /// Makes a new key named `name` and writes it to `path`, readable by its
  /// owner only; an existing file is never overwritten.
  static llvm::Expected<SigningKey> generate(llvm::StringRef name,
                                             llvm::StringRef path);
  /// Reads a key that `generate` wrote. A file that others may read or
  /// write is refused, as ssh refuses such a private key.
  static llvm::Expected<SigningKey> load(llvm::StringRef path);

  const std::string &getName() const { return name; }
  /// `NAME:BASE64` of the public half: what every reader trusts.
  std::string getPublicKeyText() const;
  /// `NAME:BASE64` of the detached signature of `message`.
  std::string sign(llvm::StringRef message) const;

private:
  std::string name;
  std::array<unsigned char, 64> secret{};
};

/// A public key that a user trusts.
struct TrustedKey {
  std::string name;
  std::array<unsigned char, 32> key{};
  /// `NAME:BASE64`; an error naming what is wrong with it otherwise.
  static llvm::Expected<TrustedKey> parse(llvm::StringRef text);
};

/// The bytes an entry's signatures sign: its key parts, status, size,
/// checksum and the BLAKE2b-256 digest of `payload`.
std::string getSignedMessage(const ArtifactHeader &header,
                             llvm::StringRef payload);

enum class SignatureVerdict {
  Trusted,   ///< a valid signature by a trusted key
  Unsigned,  ///< no signature at all
  Untrusted, ///< signatures, none of them valid and by a trusted key
};

struct SignatureCheck {
  SignatureVerdict verdict = SignatureVerdict::Unsigned;
  std::string signer; ///< Trusted: the key's name
  std::string reason; ///< otherwise: why, for messages
};

/// Checks the signatures of the entry `header` describes, whose payload is
/// `payload` (the caller checked its checksum).
SignatureCheck checkSignatures(const ArtifactHeader &header,
                               llvm::StringRef payload,
                               llvm::ArrayRef<TrustedKey> trusted);

/// Which tiers' entries need a trusted signature.
enum class SignatureRequirement { Off, Remote, All };

/// What a command signs with and trusts (settings signing-key,
/// trusted-keys, require-signatures).
struct TrustPolicy {
  std::optional<SigningKey> signingKey;
  std::vector<TrustedKey> trustedKeys;
  SignatureRequirement requirement = SignatureRequirement::Off;

  bool requiresSignature(bool fromRemote) const {
    return requirement == SignatureRequirement::All ||
           (fromRemote && requirement == SignatureRequirement::Remote);
  }
  /// Whether an entry that `header` and `payload` describe may be used:
  /// none when it may, else why not ("unsigned", "signed by x, which is
  /// not a trusted key", ...).
  std::optional<std::string> refuse(const ArtifactHeader &header,
                                    llvm::StringRef payload,
                                    bool fromRemote) const;
  /// Adds the signing key's signature to `header` (one of that name
  /// already there is replaced); false without a signing key.
  bool sign(ArtifactHeader &header, llvm::StringRef payload) const;
};

/// The policy `settings` describe: the signing key read, every trusted key
/// parsed, require-signatures `remote` by default when keys are trusted.
/// An unreadable key, a malformed trusted key, or signatures required
/// without a trusted key is an error naming the setting and its origin.
llvm::Expected<TrustPolicy> makeTrustPolicy(const Settings &settings);

/// Whether `header` carries a signature by the key named `name`.
bool hasSignatureBy(const ArtifactHeader &header, llvm::StringRef name);

} // namespace kiln

#endif // KILN_CACHE_SIGNING_H
