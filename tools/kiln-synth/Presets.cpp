//===- Presets.cpp - kiln-synth's named model and layout configs ----------===//
//
// The model sizes are the published ones (Llama 2: 4096/11008/32 heads for
// 7B, 5120/13824/40 for 13B, 8192/28672/64 heads and 8 kv heads for 70B,
// vocabulary 32000, context 4096; Llama 3 70B: vocabulary 128256, context
// 8192); the layouts are the seed workloads' (NeuronX Distributed's Llama
// training examples): tensor-parallel 8 or 32, sequence parallelism on,
// core attention recomputed, bf16.
//
//===----------------------------------------------------------------------===//

#include "Presets.h"

using namespace kiln::synth;

namespace {

LlamaConfig model(int64_t layers, int64_t hidden, int64_t intermediate,
                  int64_t heads, int64_t kvHeads, int64_t vocab,
                  int64_t sequence) {
  LlamaConfig config;
  config.layers = layers;
  config.hidden = hidden;
  config.intermediate = intermediate;
  config.heads = heads;
  config.kvHeads = kvHeads;
  config.vocab = vocab;
  config.sequence = sequence;
  config.microBatch = 1;
  config.type = "bf16";
  config.sequenceParallel = true;
  config.checkpointAttention = true;
  return config;
}

LlamaConfig layout(LlamaConfig config, int64_t tp, int64_t pp, int64_t dp,
                   bool zero1, int64_t kvReplication = 1) {
  config.tensorParallel = tp;
  config.pipelineParallel = pp;
  config.dataParallel = dp;
  config.zero1 = zero1;
  config.kvReplication = kvReplication;
  return config;
}

/// The tiny sizes of a layout: one layer per stage (two without pipeline
/// stages), 2 query heads and 1 kv head per tensor-parallel rank, 8 values
/// a head, f32.
LlamaConfig tiny(const LlamaConfig &big) {
  LlamaConfig config = big;
  int64_t tp = big.tensorParallel;
  config.layers = std::max<int64_t>(2, big.pipelineParallel);
  config.heads = 2 * tp;
  config.kvHeads = big.kvHeads * big.kvReplication >= big.heads
                       ? 2 * tp
                       : tp / big.kvReplication;
  if (config.kvHeads < 1)
    config.kvHeads = 1;
  config.hidden = config.heads * 8;
  config.intermediate = 2 * config.hidden;
  config.vocab = 16 * tp;
  config.sequence = 16;
  config.microBatch = 2;
  config.type = "f32";
  return config;
}

std::vector<Preset> makePresets() {
  LlamaConfig llama2_7b = model(32, 4096, 11008, 32, 32, 32000, 4096);
  LlamaConfig llama2_13b = model(40, 5120, 13824, 40, 40, 32000, 4096);
  LlamaConfig llama2_70b = model(80, 8192, 28672, 64, 8, 32000, 4096);
  LlamaConfig llama3_70b = model(80, 8192, 28672, 64, 8, 128256, 8192);
  std::vector<Preset> presets = {
      {"llama2-7b-tp8-zero1", "Llama 2 7B, TP=8, DP=4 with ZeRO-1 (32 devices)",
       layout(llama2_7b, 8, 1, 4, true)},
      {"llama2-13b-tp8-pp4", "Llama 2 13B, TP=8, PP=4 (32 devices)",
       layout(llama2_13b, 8, 4, 1, false)},
      {"llama2-70b-tp8-pp8", "Llama 2 70B, TP=8, PP=8 (64 devices)",
       layout(llama2_70b, 8, 8, 1, false)},
      {"llama3-70b-tp32-pp8-kvrep4",
       "Llama 3 70B, TP=32, PP=8, kv heads replicated 4x (256 devices)",
       layout(llama3_70b, 32, 8, 1, false, 4)},
  };
  size_t seeds = presets.size();
  for (size_t i = 0; i < seeds; ++i)
    presets.push_back({"tiny-" + presets[i].name,
                       "the layout of " + presets[i].name + ", tiny sizes",
                       tiny(presets[i].config)});
  LlamaConfig single;
  single.sequenceParallel = false;
  presets.push_back({"tiny",
                     "one device, 2 layers, hidden 64, f32 (numerical tests)",
                     single});
  return presets;
}

} // namespace

const std::vector<Preset> &kiln::synth::getPresets() {
  static const std::vector<Preset> presets = makePresets();
  return presets;
}

std::optional<LlamaConfig> kiln::synth::findPreset(const std::string &name) {
  for (const Preset &preset : getPresets())
    if (preset.name == name)
      return preset.config;
  return std::nullopt;
}
