//===- SigningTest.cpp - signed entries and trusted keys ------------------===//
//
// Signatures bind a key to the very bytes of an entry: changed bytes, a
// changed key part, another key of the same name, and a signature copied
// from another entry are each refused; the local tier signs what it
// writes, checks what it reads where the policy says so, and hands out
// the bytes it checked, not what the file holds later.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include "kiln/Cache/Signing.h"

using namespace kiln;
using namespace kiln::test;

namespace {

ArtifactHeader makeHeader(uint64_t n, llvm::StringRef payload) {
  ArtifactHeader header;
  header.parts = makeParts(n);
  header.size = payload.size();
  header.checksum = Hash128::of(payload).toHex();
  return header;
}

std::shared_ptr<TrustPolicy> makePolicy(const SigningKey &key,
                                        SignatureRequirement requirement) {
  auto policy = std::make_shared<TrustPolicy>();
  policy->signingKey = key;
  llvm::Expected<TrustedKey> trusted =
      TrustedKey::parse(key.getPublicKeyText());
  EXPECT_TRUE(bool(trusted));
  policy->trustedKeys.push_back(*trusted);
  policy->requirement = requirement;
  return policy;
}

} // namespace

TEST(Signing, KeygenWritesAnOwnerOnlyFileAndNeverOverwrites) {
  TempDir dir;
  llvm::Expected<SigningKey> key =
      SigningKey::generate("node-1", dir.sub("secret"));
  ASSERT_TRUE(bool(key)) << llvm::toString(key.takeError());
  struct stat status;
  ASSERT_EQ(stat(dir.sub("secret").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
  EXPECT_TRUE(llvm::StringRef(key->getPublicKeyText()).starts_with("node-1:"));
  llvm::Expected<SigningKey> again =
      SigningKey::generate("node-1", dir.sub("secret"));
  ASSERT_FALSE(bool(again));
  EXPECT_NE(llvm::toString(again.takeError()).find("never overwrites"),
            std::string::npos);
  llvm::Expected<SigningKey> loaded = SigningKey::load(dir.sub("secret"));
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_EQ(loaded->getPublicKeyText(), key->getPublicKeyText());
  // A key others may read is refused, as ssh refuses one.
  chmod(dir.sub("secret").c_str(), 0644);
  llvm::Expected<SigningKey> exposed = SigningKey::load(dir.sub("secret"));
  ASSERT_FALSE(bool(exposed));
  EXPECT_NE(llvm::toString(exposed.takeError()).find("chmod 600"),
            std::string::npos);
}

TEST(Signing, MalformedKeysAreErrorsNamingTheProblem) {
  for (const char *text : {"", "name", "name:", ":AAAA", "a b:AAAA",
                           "name:not base64!", "name:AAAA"}) {
    llvm::Expected<TrustedKey> key = TrustedKey::parse(text);
    EXPECT_FALSE(bool(key)) << text;
    llvm::consumeError(key.takeError());
  }
  TempDir dir;
  EXPECT_FALSE(bool(SigningKey::generate("a:b", dir.sub("k"))));
}

TEST(Signing, OnlyTheSignedBytesUnderTheSignedKeyVerify) {
  TempDir dir;
  llvm::Expected<SigningKey> alpha =
      SigningKey::generate("alpha", dir.sub("alpha"));
  llvm::Expected<SigningKey> forged =
      SigningKey::generate("alpha", dir.sub("forged"));
  llvm::Expected<SigningKey> beta =
      SigningKey::generate("beta", dir.sub("beta"));
  ASSERT_TRUE(alpha && forged && beta);
  std::vector<TrustedKey> trusted = {
      *TrustedKey::parse(alpha->getPublicKeyText())};
  std::string payload = "kiln code";
  ArtifactHeader header = makeHeader(1, payload);
  TrustPolicy policy;
  policy.signingKey = *alpha;
  ASSERT_TRUE(policy.sign(header, payload));
  EXPECT_EQ(checkSignatures(header, payload, trusted).verdict,
            SignatureVerdict::Trusted);
  // Signing again replaces the signature of that name.
  ASSERT_TRUE(policy.sign(header, payload));
  EXPECT_EQ(header.signatures.size(), 1u);

  // Other bytes with the same XXH3 fields: the digest binds the payload.
  EXPECT_EQ(checkSignatures(header, "kiln cod3", trusted).verdict,
            SignatureVerdict::Untrusted);
  // Another key part (the same signature on another key).
  ArtifactHeader moved = header;
  moved.parts.options = "opt-level=3";
  EXPECT_EQ(checkSignatures(moved, payload, trusted).verdict,
            SignatureVerdict::Untrusted);
  // A recorded failure is not the artifact it was signed as.
  ArtifactHeader failure = header;
  failure.ok = false;
  EXPECT_EQ(checkSignatures(failure, payload, trusted).verdict,
            SignatureVerdict::Untrusted);
  // Another key under the trusted name.
  ArtifactHeader byForger = makeHeader(1, payload);
  TrustPolicy forger;
  forger.signingKey = *forged;
  forger.sign(byForger, payload);
  SignatureCheck check = checkSignatures(byForger, payload, trusted);
  EXPECT_EQ(check.verdict, SignatureVerdict::Untrusted);
  EXPECT_NE(check.reason.find("does not match"), std::string::npos);
  // A key that is not trusted; none at all.
  ArtifactHeader byBeta = makeHeader(1, payload);
  TrustPolicy betaPolicy;
  betaPolicy.signingKey = *beta;
  betaPolicy.sign(byBeta, payload);
  check = checkSignatures(byBeta, payload, trusted);
  EXPECT_EQ(check.reason, "signed by beta, which is not a trusted key");
  EXPECT_EQ(checkSignatures(makeHeader(1, payload), payload, trusted).verdict,
            SignatureVerdict::Unsigned);
  // Two trusted keys of one name (one replacing the other): either verifies.
  std::vector<TrustedKey> rotating = {
      *TrustedKey::parse(alpha->getPublicKeyText()),
      *TrustedKey::parse(forged->getPublicKeyText())};
  EXPECT_EQ(checkSignatures(header, payload, rotating).verdict,
            SignatureVerdict::Trusted);
  EXPECT_EQ(checkSignatures(byForger, payload, rotating).verdict,
            SignatureVerdict::Trusted);
  // Several signatures: one trusted one is enough.
  byBeta.signatures.push_back(header.signatures.front());
  EXPECT_EQ(checkSignatures(byBeta, payload, trusted).verdict,
            SignatureVerdict::Trusted);
}

TEST(Signing, SignaturesSurviveTheHeader) {
  TempDir dir;
  llvm::Expected<SigningKey> alpha =
      SigningKey::generate("alpha", dir.sub("alpha"));
  ASSERT_TRUE(bool(alpha));
  std::string payload = "kiln code";
  ArtifactHeader header = makeHeader(2, payload);
  TrustPolicy policy;
  policy.signingKey = *alpha;
  policy.sign(header, payload);
  std::string file = encodeArtifactHeader(header) + payload;
  auto decoded = decodeArtifactFile(file);
  ASSERT_TRUE(bool(decoded)) << llvm::toString(decoded.takeError());
  EXPECT_EQ(decoded->first.signatures, header.signatures);
  EXPECT_EQ(checkSignatures(decoded->first, decoded->second,
                            {*TrustedKey::parse(alpha->getPublicKeyText())})
                .verdict,
            SignatureVerdict::Trusted);
}

TEST(Signing, TheLocalTierSignsWhatItWritesAndChecksWhatItReads) {
  TempDir dir;
  llvm::Expected<SigningKey> alpha =
      SigningKey::generate("alpha", dir.sub("alpha"));
  ASSERT_TRUE(bool(alpha));
  std::string key = makeParts(3).key().toHex();
  {
    // Written before there was a key: unsigned.
    auto cache = Cache::open(dir.sub("cache"));
    ASSERT_TRUE(bool(cache));
    ASSERT_FALSE(bool((*cache)->publish(makeParts(3), "artifact", 1, "g")));
  }
  auto cache = Cache::open(dir.sub("cache"));
  ASSERT_TRUE(bool(cache));
  (*cache)->setTrustPolicy(makePolicy(*alpha, SignatureRequirement::All));
  llvm::Expected<LookupResult> found = (*cache)->lookup(key, true);
  ASSERT_TRUE(bool(found));
  EXPECT_EQ(found->status, LookupStatus::Untrusted);
  EXPECT_EQ(found->problem, "unsigned");
  // Publishing the same bytes with the key signs the entry in place.
  llvm::Expected<PublishOutcome> outcome = (*cache)->publishArtifact(
      makeParts(3), "artifact", 1, "g", {}, /*replace=*/false);
  ASSERT_TRUE(bool(outcome));
  EXPECT_EQ(*outcome, PublishOutcome::AlreadyCached);
  found = (*cache)->lookup(key, true);
  ASSERT_TRUE(bool(found));
  EXPECT_EQ(found->status, LookupStatus::Hit);
  ASSERT_TRUE(found->verified);
  EXPECT_EQ(found->verified->bytes, "artifact");
  // Signed once: signing again changes nothing.
  llvm::Expected<bool> signedAgain = (*cache)->signEntry(key);
  ASSERT_TRUE(bool(signedAgain));
  EXPECT_FALSE(*signedAgain);
  llvm::Expected<VerifyReport> report = (*cache)->verify(false);
  ASSERT_TRUE(bool(report));
  EXPECT_TRUE(report->clean());
  EXPECT_TRUE(report->unsignedEntries.empty());
}

TEST(Signing, ALookupHandsOutTheBytesItChecked) {
  TempDir dir;
  auto cache = Cache::open(dir.sub("cache"));
  ASSERT_TRUE(bool(cache));
  ASSERT_FALSE(bool((*cache)->publish(makeParts(4), "the checked bytes", 1,
                                      "g")));
  std::string key = makeParts(4).key().toHex();
  llvm::Expected<LookupResult> found = (*cache)->lookup(key, true);
  ASSERT_TRUE(bool(found));
  ASSERT_EQ(found->status, LookupStatus::Hit);
  ASSERT_TRUE(found->verified);
  // The file rewritten in place after the check (same inode, other bytes):
  // what the lookup handed out does not change.
  std::string path = (*cache)->getObjectPath(key);
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  struct stat status;
  fstat(fd, &status);
  std::string other(status.st_size, 'X');
  ASSERT_EQ(pwrite(fd, other.data(), other.size(), 0), (ssize_t)other.size());
  close(fd);
  EXPECT_EQ(found->verified->bytes, "the checked bytes");
}

TEST(Signing, AnotherEntrysFileUnderAKeyIsNotThatKeysEntry) {
  TempDir dir;
  auto cache = Cache::open(dir.sub("cache"));
  ASSERT_TRUE(bool(cache));
  ASSERT_FALSE(bool((*cache)->publish(makeParts(5), "five", 1, "g")));
  ASSERT_FALSE(bool((*cache)->publish(makeParts(6), "six!", 1, "g")));
  std::string five = makeParts(5).key().toHex();
  std::string six = makeParts(6).key().toHex();
  // Six's whole file (header and all) copied over five's.
  auto bytes = llvm::MemoryBuffer::getFile((*cache)->getObjectPath(six));
  ASSERT_TRUE(bool(bytes));
  {
    std::error_code error;
    llvm::raw_fd_ostream out((*cache)->getObjectPath(five), error);
    out << (*bytes)->getBuffer();
  }
  llvm::Expected<LookupResult> found = (*cache)->lookup(five, true);
  ASSERT_TRUE(bool(found));
  EXPECT_EQ(found->status, LookupStatus::Corrupt);
  EXPECT_NE(found->problem.find("holds the entry of key " + six),
            std::string::npos)
      << found->problem;
}
