//===- Passes.td - kiln dialect passes ---------------------*- tablegen -*-===//
//
// Passes on the kiln dialect. Compilation starts with
// kiln-check-compilable, which names what no backend can compile.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnCheckCompilablePass : Pass<"kiln-check-compilable", "mlir::ModuleOp"> {
  let summary = "Reject graphs that cannot be compiled, naming each cause";
  let description = [{
    A dump may import, hash and round-trip and still be impossible to
    compile. The first such cause is a constant whose value the dump left
    out (`{...}`): its values are unknown, so no artifact built from the
    graph could be right. The second is an op that the backend does not
    compile (`unsupported-ops`, which the backend's pipeline passes: every
    HLO opcode imports, but not every backend lowers every op). This pass
    reports every such op at its place in the dump and at the user's Python
    line, and fails; the compile pipeline runs it first.
  }];
  let options = [
    ListOption<"unsupportedOps", "unsupported-ops", "std::string",
               "kiln ops (e.g. kiln.fft) that the target backend cannot compile">
  ];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
