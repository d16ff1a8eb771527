//===- Passes.td - kiln dialect passes ---------------------*- tablegen -*-===//
//
// Passes on the kiln dialect. Compilation starts with
// kiln-check-compilable, which names what no backend can compile; the
// front-end pipeline (kiln-frontend) inlines calls, folds causal masks into
// kiln.causal_mask, folds small constant computations and removes dead
// code.
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

def KilnInlinePass : Pass<"kiln-inline", "mlir::ModuleOp"> {
  let summary = "Inline every call of a function with a body (HLO call)";
  let description = [{
    JAX wraps helpers (a mask's `_where`, `tril`) in private functions
    that HLO calls; the front-end's analyses see through a graph only once
    they are inlined. Each func.call of a private function is replaced by
    the callee's body; functions left without callers are removed.
  }];
}

def KilnFoldCausalMaskPass : Pass<"kiln-fold-causal-mask", "mlir::ModuleOp"> {
  let summary = "Turn causal and sliding-window masks into kiln.causal_mask";
  let description = [{
    A causal attention mask in a traced training step is a tensor that
    depends on no input. This pass does not match op sequences: it says,
    for every value computed from iotas and constants only, what it is as
    a function of its indices (an affine function, or a conjunction of
    half-spaces, or a selection between two values by one), checking
    literals element by element (arange constants, triangular and banded
    literals). A value that is one half-space over two dimensions (causal,
    any diagonal offset) or two (a sliding window), used by anything that
    is not itself such a value, becomes a kiln.causal_mask: a select's
    predicate, an additive bias (`select(mask, 0, -inf)`), broadcast to
    batch and heads or not. Masks that depend on a parameter (padding and
    decode masks) and literals that are not exactly triangular are left
    alone.

    Its statistics (`-mlir-pass-statistics`) count the masks folded, the
    bytes of mask tensors no longer materialized and the multiply-adds of
    the masked scores that a consumer can skip; LLVM's release builds
    compile pass statistics out, so `report` also prints them as a remark.
  }];
  let dependentDialects = ["kiln::KilnDialect"];
  let options = [
    Option<"report", "report", "bool", "false",
           "Also print the statistics as a remark on the module">
  ];
  let statistics = [
    Statistic<"numMasksFolded", "masks-folded", "Masks turned into kiln.causal_mask">,
    Statistic<"numMaskBytes", "mask-bytes", "Bytes of mask tensors no longer materialized">,
    Statistic<"numSkippableMacs", "skippable-macs", "Multiply-adds of the masked scores' dot_general that a consumer can skip">
  ];
}

def KilnFoldConstantsPass : Pass<"kiln-fold-constants", "mlir::ModuleOp"> {
  let summary = "Evaluate ops whose operands are all constants";
  let description = [{
    Runs the reference evaluator on ops whose operands are all literals and
    replaces them by the literal they give, if it has at most
    `max-elements` elements (a splat of any size counts as one): so that
    iotas, broadcasts and masks are never expanded into large literals.
    Ops with effects, regions or no evaluation are left alone.
  }];
  let dependentDialects = ["kiln::KilnDialect"];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", "4096",
           "The largest literal (in elements) that folding may create">
  ];
  let statistics = [
    Statistic<"numFolded", "ops-folded", "Ops replaced by the literal they give">
  ];
}

def KilnMarkMaskedContractionsPass
    : Pass<"kiln-mark-masked-contractions", "mlir::ModuleOp"> {
  let summary = "Mark the contractions of attention whose masked blocks need not be computed";
  let description = [{
    A value analysis, not an op-chain match: for every value it tracks
    whether it equals one constant outside the band of a kiln.causal_mask
    (the mask itself; broadcasts of it; a select by it; an additive bias of
    -inf, or of a finite fill below -1e30 as finfo.min is; such a value
    minus a finite one; its exponential, which is exactly 0 there; and
    products, quotients and conversions of an exact 0). Then:

    * a dot_general whose every use masks it (through element-wise scaling
      and conversions, then a select that discards the masked positions or
      an add of such a bias) is marked `kiln.masked_contraction = {role =
      "scores", ...}`: its masked positions are never observed, so they
      need not be computed;
    * a dot_general whose lhs is exactly 0 outside the band of its one free
      and one contracting dimension is marked with role "values": the
      masked terms of its sums are zeros, so they need not be added.

    * an element-wise op (select, add, subtract, multiply, divide,
      exponential, convert) whose result is one constant outside the band,
      or is there only below -1e30 and is read only by ops marked so, is
      marked `kiln.band = {row, column, min_diagonal, max_diagonal,
      outside}`;
    * a reduce over the band's column dimension of a value that is one
      constant outside the band is marked so too, when its reducer (max,
      min, a sum of zeros, a product of ones) gives the same result
      whether it takes the outside value once or at every masked position.

    The CPU backend lowers a marked contraction block by block, skipping
    the blocks that lie wholly outside the band; a marked element-wise op
    is computed in the same blocks and filled with its outside value
    elsewhere, with the mask left out of the blocks wholly inside the band;
    a marked reduction reads those blocks and takes the outside value once
    per row that has masked positions. Results are the same for finite
    inputs (a NaN or infinity in a masked position of the operands is what
    skipping does not propagate).
  }];
  let statistics = [
    Statistic<"numScores", "scores", "Contractions whose masked outputs are skipped">,
    Statistic<"numValues", "values", "Contractions whose masked terms are skipped">,
    Statistic<"numElementwise", "elementwise", "Element-wise ops computed in the band's blocks only">,
    Statistic<"numReductions", "reductions", "Reductions that read the band's blocks only">
  ];
}

def KilnHoistLoopInvariantsPass
    : Pass<"kiln-hoist-loop-invariants", "mlir::ModuleOp"> {
  let summary = "Do the work of a while body that does not depend on the loop once, before it";
  let description = [{
    XLA's while-loop invariant code motion: an op of a while body whose
    operands do not depend on the loop's state (constants, iotas, and what
    is computed from them alone) is computed once before the loop; what the
    rest of the body uses of it enters the loop as state that the body
    passes through unchanged (kiln.while is isolated from above). Ops with
    effects never move, nor collectives, random numbers, custom calls and
    checks, nor work whose values to carry exceed max-carried-elements.
  }];
  let options = [
    Option<"maxCarriedElements", "max-carried-elements", "int64_t", "65536",
           "Move work only when the values the loop must carry for it hold at "
           "most this many elements">
  ];
  let statistics = [
    Statistic<"numHoisted", "ops-hoisted", "Ops moved out of while bodies">
  ];
}

def KilnDeadCodePass : Pass<"kiln-dce", "mlir::ModuleOp"> {
  let summary = "Remove ops whose results nothing uses and that have no effects";
  let description = [{
    After masks and constants are folded, the iotas, compares and literals
    they were made of are dead. Each block is swept from its end, so that a
    chain of dead ops goes in one sweep; ops with effects (collectives,
    checks, custom calls marked so) stay.
  }];
  let statistics = [
    Statistic<"numErased", "ops-erased", "Dead ops removed">
  ];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
