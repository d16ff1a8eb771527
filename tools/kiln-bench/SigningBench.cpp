//===- SigningBench.cpp - kiln-bench signing --------------------*- C++ -*-===//
//
// This file implements `kiln-bench signing`: each figure is the best of
// several runs on the same random payload, and the added cost is printed
// against the checksum alone measured in the same run, per lookup and per
// MB.
//
//===----------------------------------------------------------------------===//

#include "SigningBench.h"
#include "TimedRun.h"

#include "kiln/Cache/Signing.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <random>

using namespace kiln;
using namespace kiln::bench;

namespace {


} // namespace

int kiln::bench::runSigningBench(const SigningBenchOptions &options) {
  std::string base = options.directory;
  if (base.empty()) {
    llvm::SmallString<128> temporary;
    llvm::sys::path::system_temp_directory(true, temporary);
    base = std::string(temporary);
  }
  llvm::SmallString<128> directory;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory(
          base + "/kiln-signing-bench", directory)) {
    llvm::errs() << "kiln-bench signing: error: " << error.message() << "\n";
    return 1;
  }
  llvm::Expected<SigningKey> key =
      SigningKey::generate("bench", (directory + "/secret").str());
  llvm::sys::fs::remove_directories(directory);
  if (!key) {
    llvm::errs() << "kiln-bench signing: error: "
                 << llvm::toString(key.takeError()) << "\n";
    return 1;
  }
  std::vector<TrustedKey> trusted = {*TrustedKey::parse(key->getPublicKeyText())};

  std::string payload((size_t)options.megabytes << 20, '\0');
  std::mt19937_64 generator(1);
  for (size_t i = 0; i + 8 <= payload.size(); i += 8) {
    uint64_t word = generator();
    std::memcpy(&payload[i], &word, 8);
  }
  ArtifactHeader header;
  header.parts.signature = Hash128::of("bench graph");
  header.parts.targetTriple = "x86_64-unknown-linux-gnu";
  header.parts.cpuName = "x86-64-v3";
  header.parts.compiler = "kiln bench";
  header.size = payload.size();
  header.checksum = Hash128::of(payload).toHex();
  TrustPolicy policy;
  policy.signingKey = *key;

  std::string checksum;
  double checksumOnly = bestSeconds(options.repeat, [&] {
    checksum = Hash128::of(payload).toHex();
  });
  bool trustedEntry = false;
  ArtifactHeader signedHeader = header;
  double signing = bestSeconds(options.repeat, [&] {
    signedHeader = header;
    policy.sign(signedHeader, payload);
  });
  double verifying = bestSeconds(options.repeat, [&] {
    checksum = Hash128::of(payload).toHex();
    trustedEntry = checkSignatures(signedHeader, payload, trusted).verdict ==
                   SignatureVerdict::Trusted;
  });
  // The fixed cost: the same on a 1 KiB payload.
  llvm::StringRef small(payload.data(), 1024);
  ArtifactHeader smallHeader = header;
  smallHeader.size = small.size();
  smallHeader.checksum = Hash128::of(small).toHex();
  policy.sign(smallHeader, small);
  double smallChecksum = bestSeconds(options.repeat * 20, [&] {
    checksum = Hash128::of(small).toHex();
  });
  double smallVerifying = bestSeconds(options.repeat * 20, [&] {
    checksum = Hash128::of(small).toHex();
    trustedEntry &= checkSignatures(smallHeader, small, trusted).verdict ==
                    SignatureVerdict::Trusted;
  });
  if (!trustedEntry) {
    llvm::errs() << "kiln-bench signing: error: a signature did not verify\n";
    return 1;
  }
  double megabytes = payload.size() / 1e6;
  llvm::outs() << llvm::formatv(
      "Signed entries ({0} MiB random payload, best of {1}; same run)\n",
      options.megabytes, options.repeat);
  llvm::outs() << llvm::formatv("{0,-44} {1,12} {2,10}\n", "", "time",
                                "vs checksum");
  auto row = [&](llvm::StringRef what, double seconds, double baseline) {
    llvm::outs() << llvm::formatv("{0,-44} {1,9:f1} ms {2,9:f2}x\n", what,
                                  seconds * 1e3, seconds / baseline);
  };
  row("XXH3-128 checksum alone (a verified lookup)", checksumOnly,
      checksumOnly);
  row("checksum + signature check (BLAKE2b, ed25519)", verifying,
      checksumOnly);
  row("signing (BLAKE2b, ed25519)", signing, checksumOnly);
  llvm::outs() << llvm::formatv(
      "added per lookup: {0:f0} us for {1} MiB = {2:f0} us per MB, plus "
      "{3:f0} us fixed (1 KiB entry: {4:f1} us checksum, {5:f1} us with "
      "the signature)\n",
      (verifying - checksumOnly) * 1e6, options.megabytes,
      (verifying - checksumOnly) * 1e6 / megabytes,
      (smallVerifying - smallChecksum) * 1e6, smallChecksum * 1e6,
      smallVerifying * 1e6);
  return 0;
}
