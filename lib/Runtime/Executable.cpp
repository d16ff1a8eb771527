//===- Executable.cpp - loading and calling a compiled graph ----*- C++ -*-===//
//
// This file links an artifact's relocatable object into the process with
// ORC's LLJIT (the object is kept in memory; symbols it needs from the C
// library and libm, such as malloc, memcpy and tanhf, resolve against this
// process) and calls its entry with one array of buffer pointers.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Executable.h"
#include "kiln/Runtime/BufferPool.h"
#include "kiln/Runtime/RuntimeFunctions.h"
#include "PerfMap.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace kiln;
using namespace mlir;

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Rounds to bf16 (nearest, ties to even; NaN stays a quiet NaN): what
/// LLVM's x86 backend calls `__truncsfbf2` for when it widens a bf16 value
/// and narrows it again (a select of bf16 values that instcombine forms).
/// The C library has no such function; compiled code finds kiln's.
uint16_t roundToBf16Bits(uint32_t bits) {
  if ((bits & 0x7fffffff) > 0x7f800000)
    return (bits >> 16) | 0x40;
  return (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
}

#if defined(__x86_64__)
/// The libcalls' ABI returns the bf16 bits in xmm0, as a half is.
_Float16 truncateFloatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t rounded = roundToBf16Bits(bits);
  _Float16 result;
  std::memcpy(&result, &rounded, 2);
  return result;
}

_Float16 truncateDoubleToBf16(double value) {
  return truncateFloatToBf16((float)value);
}
#endif

/// Where an allocation that compiled code cannot get sends this thread: the
/// guarded call that is running it (Executable::run). Compiled code checks
/// no allocation; without this, a broadcast too big for the machine writes
/// through a null pointer.
thread_local std::jmp_buf *allocationFailureTarget = nullptr;
thread_local uint64_t failedAllocationBytes = 0;

/// The buffer pool's handler (BufferPool.h): back to the guarded call, if
/// this thread is in one; otherwise the caller gets its null.
void failAllocation(uint64_t bytes) {
  if (!allocationFailureTarget)
    return;
  failedAllocationBytes = bytes;
  std::longjmp(*allocationFailureTarget, 1);
}

void *allocateForCompiledCode(size_t bytes) {
  void *memory = std::malloc(bytes);
  if (!memory && bytes)
    failAllocation(bytes);
  return memory;
}

void *allocateAlignedForCompiledCode(size_t alignment, size_t bytes) {
  void *memory = std::aligned_alloc(alignment, bytes);
  if (!memory && bytes)
    failAllocation(bytes);
  return memory;
}

void *allocateZeroedForCompiledCode(size_t count, size_t size) {
  void *memory = std::calloc(count, size);
  if (!memory && count && size)
    failAllocation((uint64_t)count * size);
  return memory;
}

void *reallocateForCompiledCode(void *old, size_t bytes) {
  void *memory = std::realloc(old, bytes);
  if (!memory && bytes)
    failAllocation(bytes);
  return memory;
}

/// Calls `entry` on `buffers`; an allocation failure inside is an error
/// naming its size. (The memory compiled code held until then is lost.)
llvm::Error callGuarded(void (*entry)(void **), void **buffers) {
  std::jmp_buf target;
  std::jmp_buf *outer = allocationFailureTarget;
  if (setjmp(target) != 0) {
    allocationFailureTarget = outer;
    return error(llvm::formatv("the compiled code could not allocate {0} "
                               "bytes ({1:f1} GB): more than this machine "
                               "(or its memory limit) gives",
                               failedAllocationBytes,
                               failedAllocationBytes / 1e9));
  }
  allocationFailureTarget = &target;
  entry(buffers);
  allocationFailureTarget = outer;
  return llvm::Error::success();
}

} // namespace

std::vector<std::string>
kiln::getMissingCpuFeatures(const ArtifactManifest &manifest) {
  return getMissingCpuFeatures(manifest.requiredFeatures);
}

std::vector<std::string>
kiln::getMissingCpuFeatures(llvm::ArrayRef<std::string> required) {
  // Features the host detection does not know (tuning flags such as
  // "fast-gather") say nothing about what can run.
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> missing;
  for (const std::string &feature : required) {
    auto it = host.find(feature);
    if (it != host.end() && !it->second)
      missing.push_back(feature);
  }
  return missing;
}

Executable::~Executable() = default;

llvm::Expected<std::unique_ptr<Executable>>
Executable::load(llvm::StringRef artifact) {
  auto parsed = readArtifact(artifact);
  if (!parsed)
    return parsed.takeError();
  std::unique_ptr<Executable> executable(new Executable());
  executable->manifest = std::move(parsed->manifest);
  const ArtifactManifest &manifest = executable->manifest;
  llvm::Triple built(manifest.targetTriple);
  llvm::Triple host(llvm::sys::getProcessTriple());
  if (built.getArch() != host.getArch() || built.getOS() != host.getOS())
    return error(llvm::formatv("the artifact is built for {0}; this machine "
                               "is {1}",
                               manifest.targetTriple, host.str()));
  std::vector<std::string> missing = getMissingCpuFeatures(manifest);
  if (!missing.empty())
    return error(llvm::formatv("the artifact is built for CPU {0}, and this "
                               "machine lacks its features {1}",
                               manifest.cpu,
                               llvm::join(missing, ", ")));
  initializeNativeTarget();
  setAllocationFailureHandler(&failAllocation);
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  addPerfMapIfRequested(**jit);
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return generator.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  // The compiler's own helpers that LLVM calls (f16 conversions without
  // F16C, 128-bit division) are libgcc's; a kiln linked with a static
  // libgcc carries them unexported, so they come from its shared copy.
  if (auto libgcc = llvm::orc::DynamicLibrarySearchGenerator::Load(
          "libgcc_s.so.1", (*jit)->getDataLayout().getGlobalPrefix()))
    (*jit)->getMainJITDylib().addGenerator(std::move(*libgcc));
  else
    llvm::consumeError(libgcc.takeError());
  llvm::orc::SymbolMap runtimeSymbols;
  // What compiled code calls in the runtime (RuntimeAbi.h).
  for (auto [name, address] : getRuntimeSymbols())
    runtimeSymbols[(*jit)->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported};
  // Compiled code's allocations fail as errors, not null pointers.
  std::pair<const char *, void *> allocators[] = {
      {"malloc", (void *)&allocateForCompiledCode},
      {"aligned_alloc", (void *)&allocateAlignedForCompiledCode},
      {"calloc", (void *)&allocateZeroedForCompiledCode},
      {"realloc", (void *)&reallocateForCompiledCode}};
  for (auto [name, address] : allocators)
    runtimeSymbols[(*jit)->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported};
#if defined(__x86_64__)
  runtimeSymbols[(*jit)->mangleAndIntern("__truncsfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&truncateFloatToBf16),
      llvm::JITSymbolFlags::Exported};
  runtimeSymbols[(*jit)->mangleAndIntern("__truncdfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&truncateDoubleToBf16),
      llvm::JITSymbolFlags::Exported};
#endif
  if (llvm::Error defined = (*jit)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(runtimeSymbols))))
    return std::move(defined);
  for (auto [index, object] : llvm::enumerate(parsed->objects))
    if (llvm::Error added = (*jit)->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(
                object, manifest.graphName +
                            (index ? "." + std::to_string(index) : "") +
                            ".o")))
      return std::move(added);
  auto symbol = (*jit)->lookup(manifest.entry);
  if (!symbol)
    return symbol.takeError();
  executable->entry = symbol->toPtr<void (*)(void **)>();
  executable->jit = std::move(*jit);
  return executable;
}

/// Bits of an element as compiled code stores it: a quantized type's
/// storage integer's.
static unsigned getElementBits(Type element) {
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    return quantized.getStorageTypeIntegralWidth();
  return element.getIntOrFloatBitWidth();
}

bool kiln::isBufferType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         (tensor.getElementType().isIntOrFloat() ||
          isa<ComplexType, quant::QuantizedType>(tensor.getElementType()));
}

int64_t kiln::getElementBytes(Type element) {
  if (auto complex = dyn_cast<ComplexType>(element))
    return 2 * getElementBytes(complex.getElementType());
  return (getElementBits(element) + 7) / 8;
}

std::string kiln::packTensor(const interp::HostTensor &tensor) {
  int64_t width = getElementBytes(tensor.elementType());
  std::string bytes(tensor.size() * width, '\0');
  for (int64_t i = 0; i < tensor.size(); ++i) {
    llvm::APInt bits = tensor.bitsAt(i);
    for (int64_t b = 0; b < width; ++b)
      bytes[i * width + b] = (char)bits.extractBitsAsZExtValue(
          std::min<unsigned>(8, bits.getBitWidth() - 8 * b), 8 * b);
  }
  return bytes;
}

interp::HostTensor kiln::unpackTensor(Type type, llvm::StringRef bytes) {
  interp::HostTensor tensor(type);
  Type element = tensor.elementType();
  int64_t width = getElementBytes(element);
  unsigned bitWidth =
      isa<ComplexType>(element) ? 8 * width : getElementBits(element);
  for (int64_t i = 0; i < tensor.size(); ++i) {
    llvm::SmallVector<uint64_t, 2> words((width + 7) / 8, 0);
    for (int64_t b = 0; b < width; ++b)
      words[b / 8] |= uint64_t((unsigned char)bytes[i * width + b])
                      << (8 * (b % 8));
    tensor.setBits(i, llvm::APInt(8 * words.size() * 8, words).trunc(bitWidth));
  }
  return tensor;
}

llvm::Expected<std::vector<interp::HostTensor>>
Executable::run(llvm::ArrayRef<interp::HostTensor> inputs,
                MLIRContext *context, ParticipantGroup *group,
                int participant) {
  if (inputs.size() != manifest.inputs.size())
    return error(llvm::formatv("the graph takes {0} parameters, {1} given",
                               manifest.inputs.size(), inputs.size()));
  // Buffers are allocated by hand: one larger than the machine gives is an
  // error naming its size, never an abort.
  std::vector<std::unique_ptr<char, void (*)(void *)>> buffers;
  auto allocate = [&](int64_t bytes, llvm::StringRef what,
                      llvm::StringRef type) -> llvm::Error {
    char *memory = (char *)std::malloc(std::max<int64_t>(bytes, 1));
    if (!memory)
      return error(llvm::formatv("{0} ({1}) needs {2} bytes ({3:f1} GB), "
                                 "more than this machine gives",
                                 what, type, bytes, bytes / 1e9));
    buffers.emplace_back(memory, &std::free);
    return llvm::Error::success();
  };
  for (auto [i, input] : llvm::enumerate(inputs)) {
    std::string bytes = packTensor(input);
    if ((int64_t)bytes.size() != manifest.inputs[i].bytes)
      return error(llvm::formatv("parameter {0} holds {1} bytes; the graph "
                                 "takes {2} ({3})",
                                 i, bytes.size(), manifest.inputs[i].bytes,
                                 manifest.inputs[i].type));
    if (llvm::Error failed =
            allocate(bytes.size(), "parameter " + std::to_string(i),
                     manifest.inputs[i].type))
      return std::move(failed);
    std::memcpy(buffers.back().get(), bytes.data(), bytes.size());
  }
  std::vector<Type> outputTypes;
  for (auto [i, output] : llvm::enumerate(manifest.outputs)) {
    Type type = parseType(output.type, context);
    auto tensor = dyn_cast_or_null<RankedTensorType>(type);
    if (!tensor || !isBufferType(tensor) ||
        tensor.getNumElements() * getElementBytes(tensor.getElementType()) !=
            output.bytes)
      return error(llvm::formatv("malformed artifact: outputs[{0}].type {1} "
                                 "is not a tensor of {2} bytes",
                                 i, output.type, output.bytes));
    outputTypes.push_back(type);
    if (llvm::Error failed =
            allocate(output.bytes, "result " + std::to_string(i), output.type))
      return std::move(failed);
    std::memset(buffers.back().get(), 0xff, output.bytes);
  }
  std::vector<void *> pointers;
  for (auto &buffer : buffers)
    pointers.push_back(buffer.get());
  {
    ParticipantScope scope(group, participant);
    llvm::Error called = callGuarded(entry, pointers.data());
    std::string failed = ParticipantScope::takeError();
    if (called)
      return called;
    if (!failed.empty())
      return error(failed);
  }
  std::vector<interp::HostTensor> outputs;
  for (auto [i, type] : llvm::enumerate(outputTypes))
    outputs.push_back(unpackTensor(
        type, llvm::StringRef(buffers[inputs.size() + i].get(),
                              manifest.outputs[i].bytes)));
  return outputs;
}

llvm::Error Executable::callBuffers(void **buffers, ParticipantGroup *group,
                                    int participant) const {
  ParticipantScope scope(group, participant);
  llvm::Error called = callGuarded(entry, buffers);
  std::string failed = ParticipantScope::takeError();
  if (called)
    return called;
  if (!failed.empty())
    return error(failed);
  return llvm::Error::success();
}

void kiln::writeCheckAnswers(const ArtifactManifest &manifest,
                             llvm::ArrayRef<interp::CheckOutcome> outcomes,
                             std::vector<interp::HostTensor> &outputs) {
  for (auto [spec, outcome] : llvm::zip(manifest.checks, outcomes))
    for (unsigned result : spec.answerResults)
      if (result < outputs.size())
        for (int64_t i = 0; i < outputs[result].size(); ++i)
          outputs[result].ints[i] = outcome.passed ? 1 : 0;
}

std::vector<interp::CheckOutcome>
kiln::compareChecks(const ArtifactManifest &manifest,
                    llvm::ArrayRef<interp::HostTensor> outputs,
                    MLIRContext *context) {
  std::vector<interp::CheckOutcome> outcomes;
  for (const CheckSpec &spec : manifest.checks) {
    interp::CheckRule rule;
    rule.comparison = spec.comparison;
    rule.tolerance = spec.tolerance;
    rule.maxUlps = spec.maxUlps;
    rule.minUlps = spec.minUlps;
    outcomes.push_back(interp::compareCheckValues(
        rule, outputs[spec.actual], outputs[spec.actual + 1],
        UnknownLoc::get(context)));
  }
  return outcomes;
}
