//===- Executable.h - loading and calling a compiled graph ------*- C++ -*-===//
//
// This file declares the runtime side of an artifact: its object code
// linked into this process (ORC's JIT linker, in memory: no file, no system
// linker), checked first against this machine's CPU features, and called
// on host buffers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_EXECUTABLE_H
#define KILN_RUNTIME_EXECUTABLE_H

#include "kiln/Interpreter/Evaluator.h"
#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Runtime/Artifact.h"
#include "kiln/Runtime/Collectives.h"

#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace kiln {

/// The CPU features that `manifest` needs and this machine lacks (empty:
/// it can run here).
std::vector<std::string>
getMissingCpuFeatures(const ArtifactManifest &manifest);

/// Those of `required` that this machine lacks.
std::vector<std::string>
getMissingCpuFeatures(llvm::ArrayRef<std::string> required);

class Executable {
public:
  ~Executable();

  /// Links the artifact's object into this process. Fails with a message
  /// for a malformed artifact, one built for another architecture, or one
  /// that needs CPU features this machine lacks (naming them).
  static llvm::Expected<std::unique_ptr<Executable>>
  load(llvm::StringRef artifact);

  const ArtifactManifest &getManifest() const { return manifest; }

  /// Calls the code on `inputs` (the parameters' values, of the manifest's
  /// types); every output (the graph's results, then the checks' values).
  /// Output buffers are filled with 0xff bytes first, so that an element
  /// the code never writes shows as NaN or -1. With a `group`, this thread
  /// is its participant number `participant` at collectives (the others
  /// run the same code on threads of their own); without, the only one.
  llvm::Expected<std::vector<interp::HostTensor>>
  run(llvm::ArrayRef<interp::HostTensor> inputs, mlir::MLIRContext *context,
      ParticipantGroup *group = nullptr, int participant = 0);

  /// Calls the code on raw buffers: the parameters', then the outputs'.
  void call(void **buffers) const { entry(buffers); }
  /// The same, guarded as run() is: an allocation that fails inside, or a
  /// collective whose group was aborted, is an error, never an abort.
  /// With a `group`, this thread is its participant `participant`.
  llvm::Error callBuffers(void **buffers, ParticipantGroup *group = nullptr,
                          int participant = 0) const;

private:
  Executable() = default;
  ArtifactManifest manifest;
  std::string bytes;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
};

/// The outcome of each check of `manifest` on the outputs a compiled
/// program gave, compared as the evaluator compares a kiln.check.
std::vector<interp::CheckOutcome>
compareChecks(const ArtifactManifest &manifest,
              llvm::ArrayRef<interp::HostTensor> outputs,
              mlir::MLIRContext *context);

/// Writes each check's outcome into the graph results that return its
/// answer (CheckSpec::answerResults), where compiled code wrote true.
void writeCheckAnswers(const ArtifactManifest &manifest,
                       llvm::ArrayRef<interp::CheckOutcome> outcomes,
                       std::vector<interp::HostTensor> &outputs);

/// A tensor's elements as the compiled code holds them: row-major, each in
/// its type's width rounded up to whole bytes, little-endian.
std::string packTensor(const interp::HostTensor &tensor);
/// The inverse of packTensor, for a tensor of `type`.
interp::HostTensor unpackTensor(mlir::Type type, llvm::StringRef bytes);
/// Bytes per element of `element` in compiled code.
int64_t getElementBytes(mlir::Type element);
/// Whether compiled code holds a value of `type` in a buffer: a tensor of
/// static shape of integers, floats, complex numbers or quantized values.
bool isBufferType(mlir::Type type);

} // namespace kiln

#endif // KILN_RUNTIME_EXECUTABLE_H
