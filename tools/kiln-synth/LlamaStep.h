//===- LlamaStep.h - a Llama-style training step as HLO text ----*- C++ -*-===//
//
// This file declares the model that kiln-synth writes: a Llama decoder
// (RMSNorm, rotary embeddings, grouped-query attention with a causal mask,
// SwiGLU MLP) split as NeuronX Distributed splits it across tensor-parallel
// ranks, pipeline stages and data-parallel replicas, and one graph per step
// kind with the forward, the backward and the AdamW update that a
// PyTorch/XLA run traces into one `SyncTensorsGraph`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SYNTH_LLAMASTEP_H
#define KILN_SYNTH_LLAMASTEP_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::synth {

/// What a graph of a training run does.
enum class StepKind {
  /// Forward, backward and an AdamW update whose moments start at zero.
  First,
  /// Forward and backward, gradients added into accumulators.
  Accumulate,
  /// Forward and backward, the accumulated gradients' AdamW update.
  Optimizer,
  /// Forward and the loss only.
  Eval,
  /// The optimizer's state made whole on every rank for saving.
  Checkpoint,
};

/// Every step kind, in the order a run meets them.
constexpr StepKind kStepKinds[] = {StepKind::First, StepKind::Accumulate,
                                   StepKind::Optimizer, StepKind::Eval,
                                   StepKind::Checkpoint};

/// The name of a step kind as `--step` spells it.
const char *stepKindName(StepKind kind);

struct LlamaConfig {
  int64_t layers = 2, hidden = 64, intermediate = 128, heads = 4, kvHeads = 4;
  /// NeuronX Distributed's kv replication: each key/value head is held by
  /// this many tensor-parallel ranks (so that kvHeads * kvReplication is a
  /// multiple of the tensor-parallel degree).
  int64_t kvReplication = 1;
  int64_t vocab = 256, sequence = 16, microBatch = 2;
  std::string type = "f32"; ///< f32 or bf16
  int64_t tensorParallel = 1, dataParallel = 1, pipelineParallel = 1;
  /// This graph's ranks; -1: from partition-id at run time, so that one
  /// graph serves every rank.
  int64_t tensorRank = 0, dataRank = 0;
  int64_t stage = 0;
  bool sequenceParallel = false;
  bool checkpointAttention = false; ///< recompute core attention
  bool denseMask = false;           ///< the mask as a constant, not iota
  bool zero1 = false;               ///< ZeRO-1 sharded AdamW
  StepKind step = StepKind::Optimizer;
};

/// The first of `config`'s problems (sizes that do not divide, a rank out
/// of range), or "".
std::string validate(const LlamaConfig &config);

/// The layers of `config.stage` (the first stages take one more each when
/// the layers do not divide).
std::pair<int64_t, int64_t> stageLayers(const LlamaConfig &config);

/// The step's module as HLO text.
std::string writeLlamaStep(const LlamaConfig &config);

} // namespace kiln::synth

#endif // KILN_SYNTH_LLAMASTEP_H
