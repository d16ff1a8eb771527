//===- Target.cpp - the target an artifact is built for ---------*- C++ -*-===//
//
// This file implements the resolution and validation of a key's target
// against the targets and CPUs that LLVM's target parsers know.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/AArch64TargetParser.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/RISCVTargetParser.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/X86TargetParser.h"

using namespace kiln;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// The architectures whose CPUs kiln can name and check.
const llvm::StringRef kArchitectures[] = {"x86_64", "aarch64", "riscv64"};

/// The CPUs LLVM knows for `arch`, sorted.
llvm::SmallVector<llvm::StringRef> validCpus(llvm::Triple::ArchType arch) {
  llvm::SmallVector<llvm::StringRef> cpus;
  switch (arch) {
  case llvm::Triple::x86_64:
    llvm::X86::fillValidCPUArchList(cpus, /*Only64Bit=*/true);
    break;
  case llvm::Triple::aarch64:
    llvm::AArch64::fillValidCPUArchList(cpus);
    break;
  case llvm::Triple::riscv64:
    llvm::RISCV::fillValidCPUArchList(cpus, /*IsRV64=*/true);
    break;
  default:
    break;
  }
  llvm::sort(cpus);
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

bool isValidCpu(llvm::Triple::ArchType arch, llvm::StringRef cpu) {
  switch (arch) {
  case llvm::Triple::x86_64:
    return llvm::X86::parseArchX86(cpu, /*Only64Bit=*/true) !=
           llvm::X86::CK_None;
  case llvm::Triple::aarch64:
    return llvm::AArch64::parseCpu(cpu).has_value();
  case llvm::Triple::riscv64:
    return llvm::RISCV::parseCPU(cpu, /*IsRV64=*/true);
  default:
    return false;
  }
}

} // namespace

std::string kiln::getDefaultCpu(llvm::StringRef arch) {
  // x86-64-v3 (AVX2, FMA, BMI2; Intel since Haswell, AMD since Zen): every
  // x86 machine that trains models today, while AVX-512 (v4) is missing
  // from many AMD and Intel client CPUs. The other architectures' generic
  // level runs everywhere.
  if (arch == "x86_64")
    return "x86-64-v3";
  if (arch == "riscv64")
    return "generic-rv64";
  return "generic";
}

llvm::Expected<TargetSpec> kiln::resolveTarget(llvm::StringRef tripleText,
                                               llvm::StringRef cpu) {
  std::string given = tripleText.trim().str();
  llvm::Triple triple(llvm::Triple::normalize(
      given.empty() ? llvm::sys::getDefaultTargetTriple() : given));
  bool known = llvm::is_contained(kArchitectures, triple.getArchName()) &&
               triple.getArch() != llvm::Triple::UnknownArch;
  if (!known)
    return makeError("unknown target '" + given +
                     "': kiln builds for the architectures " +
                     llvm::join(llvm::ArrayRef<llvm::StringRef>(kArchitectures), ", ") +
                     " (a triple such as x86_64-unknown-linux-gnu)");
  if (triple.getOS() == llvm::Triple::UnknownOS)
    return makeError("target '" + given +
                     "' names no operating system (a triple such as " +
                     triple.getArchName() + "-unknown-linux-gnu)");
  triple.setVendor(llvm::Triple::UnknownVendor);

  TargetSpec spec;
  spec.triple = triple.str();
  std::string name = cpu.trim().str();
  if (name.empty())
    name = getDefaultCpu(triple.getArchName());
  else if (name == "native") {
    // The host's CPU by name: artifacts for exactly this model.
    if (!given.empty() && llvm::Triple(llvm::Triple::normalize(
                              llvm::sys::getDefaultTargetTriple()))
                                  .getArch() != triple.getArch())
      return makeError("--target-cpu native names this machine's CPU, which "
                       "cannot run " +
                       triple.getArchName() + " code");
    name = llvm::sys::getHostCPUName().str();
  }
  if (!isValidCpu(triple.getArch(), name))
    return makeError("unknown CPU '" + name + "' for " +
                     triple.getArchName() + "; valid choices: native, " +
                     llvm::join(validCpus(triple.getArch()), ", "));
  spec.cpu = name;
  return spec;
}
