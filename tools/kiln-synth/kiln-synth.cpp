//===- kiln-synth.cpp - training-step graphs shaped like real ones --------===//
//
// This file implements kiln-synth: it writes HLO text in the form
// PyTorch/XLA writes it for a Llama-style training step from a config or a
// preset (one graph: a step kind, a pipeline stage, a rank), or the set of
// graphs a training run meets (`--graph-set DIR`: each step kind for each
// stage, for one rank of each or with --all-ranks for every rank).
//
//===----------------------------------------------------------------------===//

#include "LlamaStep.h"
#include "Presets.h"

#include "CLI/CLI.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>

using namespace kiln::synth;

namespace {

/// Instructions in a module's text: its lines that define one.
int64_t countInstructions(const std::string &text) {
  int64_t count = 0;
  for (size_t at = text.find("\n  %"); at != std::string::npos;
       at = text.find("\n  %", at + 1))
    ++count;
  count += (int64_t)(text.find("\n  ROOT") != std::string::npos);
  return count;
}

bool writeFile(const std::filesystem::path &path, const std::string &text) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out.flush()) {
      std::cerr << "kiln-synth: error: cannot write " << temporary << "\n";
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::cerr << "kiln-synth: error: " << path << ": " << error.message()
              << "\n";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{
      "kiln-synth: writes Llama-style training steps (forward, backward, "
      "AdamW) as HLO text in the form PyTorch/XLA with NeuronX Distributed "
      "writes them: one graph, or with --graph-set the graphs of a run.",
      "kiln-synth"};
  std::string presetName = "tiny", output, graphSet, tpRankText = "0",
              dpRankText = "0", maskStyle = "iota";
  bool listPresets = false, allRanks = false;
  LlamaConfig overrides;
  app.add_option("--preset", presetName,
                 "A named model and layout (--list-presets); the options "
                 "below override it (default tiny)");
  app.add_flag("--list-presets", listPresets, "Print the presets and exit");
  auto *layers = app.add_option("--layers", overrides.layers, "Decoder layers");
  auto *hidden = app.add_option("--hidden", overrides.hidden, "Hidden size");
  auto *intermediate = app.add_option("--intermediate", overrides.intermediate,
                                      "MLP intermediate size");
  auto *heads = app.add_option("--heads", overrides.heads, "Attention heads");
  auto *kvHeads = app.add_option("--kv-heads", overrides.kvHeads,
                                 "Key/value heads (grouped-query attention)");
  auto *kvReplication = app.add_option(
      "--kv-replication", overrides.kvReplication,
      "How many tensor-parallel ranks hold each kv head (NeuronX "
      "Distributed's kv replication)");
  auto *vocab = app.add_option("--vocab", overrides.vocab, "Vocabulary size");
  auto *sequence =
      app.add_option("--seq", overrides.sequence, "Sequence length");
  auto *microBatch =
      app.add_option("--micro-batch", overrides.microBatch, "Micro-batch");
  auto *dtype = app.add_option("--dtype", overrides.type, "f32 or bf16");
  auto *tp = app.add_option("--tp", overrides.tensorParallel,
                            "Tensor-parallel degree");
  auto *pp =
      app.add_option("--pp", overrides.pipelineParallel, "Pipeline stages");
  auto *dp =
      app.add_option("--dp", overrides.dataParallel, "Data-parallel replicas");
  auto *stage = app.add_option("--stage", overrides.stage,
                               "This graph's pipeline stage (default 0)");
  app.add_option(
      "--tp-rank", tpRankText,
      "This graph's tensor-parallel rank, baked in as NeuronX Distributed "
      "does, or 'device': from partition-id at run time, one graph for every "
      "rank (default 0)");
  app.add_option("--dp-rank", dpRankText,
                 "This graph's data-parallel rank, or "
                 "'device' (default 0)");
  auto *sp = app.add_option("--sequence-parallel", overrides.sequenceParallel,
                            "Sequence parallelism (true or false)");
  auto *checkpoint = app.add_option(
      "--checkpoint-attention", overrides.checkpointAttention,
      "Recompute core attention in the backward (true or false)");
  auto *zero1 = app.add_option("--zero1", overrides.zero1,
                               "ZeRO-1 sharded AdamW (true or false)");
  auto *mask = app.add_option("--mask", maskStyle,
                              "The causal mask: 'iota' (iota, compare, "
                              "select, as torch-xla writes triu) or 'dense' "
                              "(a constant of S x S predicates)")
                   ->check(CLI::IsMember({"iota", "dense"}));
  std::map<std::string, StepKind> stepNames;
  for (StepKind kind : kStepKinds)
    stepNames[stepKindName(kind)] = kind;
  StepKind step = StepKind::Optimizer;
  app.add_option("--step", step,
                 "The step kind: first, accumulate, optimizer, eval or "
                 "checkpoint (default optimizer)")
      ->transform(CLI::CheckedTransformer(stepNames));
  app.add_option("-o,--output", output, "The graph's file (default stdout)");
  app.add_option("--graph-set", graphSet,
                 "Write the run's graphs into this directory: every step "
                 "kind for every stage");
  app.add_flag("--all-ranks", allRanks,
               "With --graph-set: every tensor- and data-parallel rank's "
               "graphs, not rank 0's only");
  CLI11_PARSE(app, argc, argv);

  if (listPresets) {
    for (const Preset &preset : getPresets()) {
      const LlamaConfig &c = preset.config;
      std::printf("%-36s %s\n%-36s layers %lld, hidden %lld, heads %lld/%lld, "
                  "vocab %lld, seq %lld, %s, tp %lld pp %lld dp %lld%s%s\n",
                  preset.name.c_str(), preset.description.c_str(), "",
                  (long long)c.layers, (long long)c.hidden, (long long)c.heads,
                  (long long)c.kvHeads, (long long)c.vocab,
                  (long long)c.sequence, c.type.c_str(),
                  (long long)c.tensorParallel, (long long)c.pipelineParallel,
                  (long long)c.dataParallel, c.zero1 ? " zero1" : "",
                  c.sequenceParallel ? " sp" : "");
    }
    return 0;
  }
  std::optional<LlamaConfig> preset = findPreset(presetName);
  if (!preset) {
    std::cerr << "kiln-synth: error: --preset: no preset '" << presetName
              << "' (--list-presets prints them)\n";
    return 2;
  }
  LlamaConfig config = *preset;
  auto take = [](CLI::Option *option, auto &into, const auto &value) {
    if (option->count())
      into = value;
  };
  take(layers, config.layers, overrides.layers);
  take(hidden, config.hidden, overrides.hidden);
  take(intermediate, config.intermediate, overrides.intermediate);
  take(heads, config.heads, overrides.heads);
  take(kvHeads, config.kvHeads, overrides.kvHeads);
  take(kvReplication, config.kvReplication, overrides.kvReplication);
  take(vocab, config.vocab, overrides.vocab);
  take(sequence, config.sequence, overrides.sequence);
  take(microBatch, config.microBatch, overrides.microBatch);
  take(dtype, config.type, overrides.type);
  take(tp, config.tensorParallel, overrides.tensorParallel);
  take(pp, config.pipelineParallel, overrides.pipelineParallel);
  take(dp, config.dataParallel, overrides.dataParallel);
  take(stage, config.stage, overrides.stage);
  take(sp, config.sequenceParallel, overrides.sequenceParallel);
  take(checkpoint, config.checkpointAttention, overrides.checkpointAttention);
  take(zero1, config.zero1, overrides.zero1);
  if (mask->count())
    config.denseMask = maskStyle == "dense";
  auto parseRank = [](const std::string &text, const char *option,
                      int64_t &into) {
    if (text == "device") {
      into = -1;
      return true;
    }
    try {
      size_t used;
      into = std::stoll(text, &used);
      if (used == text.size() && into >= 0)
        return true;
    } catch (const std::exception &) {
    }
    std::cerr << "kiln-synth: error: " << option << ": '" << text
              << "' is neither a rank nor 'device'\n";
    return false;
  };
  if (!parseRank(tpRankText, "--tp-rank", config.tensorRank) ||
      !parseRank(dpRankText, "--dp-rank", config.dataRank))
    return 2;
  config.step = step;
  std::string problem = validate(config);
  if (!problem.empty()) {
    std::cerr << "kiln-synth: error: " << problem << "\n";
    return 2;
  }

  if (graphSet.empty()) {
    std::string text = writeLlamaStep(config);
    if (output.empty() || output == "-") {
      std::cout << text;
      return std::cout.flush() ? 0 : 1;
    }
    return writeFile(output, text) ? 0 : 1;
  }

  std::error_code error;
  std::filesystem::create_directories(graphSet, error);
  if (error) {
    std::cerr << "kiln-synth: error: --graph-set " << graphSet << ": "
              << error.message() << "\n";
    return 2;
  }
  std::vector<int64_t> tpRanks = {config.tensorRank},
                       dpRanks = {config.dataRank};
  if (allRanks) {
    tpRanks.clear();
    dpRanks.clear();
    for (int64_t r = 0; r < config.tensorParallel; ++r)
      tpRanks.push_back(r);
    for (int64_t r = 0; r < config.dataParallel; ++r)
      dpRanks.push_back(r);
  }
  int64_t graphs = 0, instructions = 0, bytes = 0;
  for (int64_t s = 0; s < config.pipelineParallel; ++s)
    for (int64_t dpr : dpRanks)
      for (int64_t tpr : tpRanks)
        for (StepKind kind : kStepKinds) {
          LlamaConfig one = config;
          one.stage = s;
          one.tensorRank = tpr;
          one.dataRank = dpr;
          one.step = kind;
          auto rankName = [](int64_t r) {
            return r < 0 ? std::string("device") : std::to_string(r);
          };
          std::string name = presetName + ".stage" + std::to_string(s) + ".tp" +
                             rankName(tpr) + ".dp" + rankName(dpr) + "." +
                             stepKindName(kind) + ".hlo";
          std::string text = writeLlamaStep(one);
          if (!writeFile(std::filesystem::path(graphSet) / name, text))
            return 1;
          int64_t count = countInstructions(text);
          std::printf("%-64s %9lld instructions %8.2f MB\n", name.c_str(),
                      (long long)count, text.size() / 1e6);
          ++graphs;
          instructions += count;
          bytes += text.size();
        }
  std::printf("%lld graphs, %lld instructions, %.1f MB in %s\n",
              (long long)graphs, (long long)instructions, bytes / 1e6,
              graphSet.c_str());
  return 0;
}
