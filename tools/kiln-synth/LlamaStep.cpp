//===- LlamaStep.cpp - a Llama-style training step as HLO text ------------===//
//
// This file builds one step of a Llama decoder's training on one rank, as
// NeuronX Distributed lays it out:
//
// * the vocabulary-parallel embedding (ids outside this rank's rows masked,
//   then summed over the tensor-parallel group), on the first stage only;
// * per layer, RMSNorm, column-parallel q/k/v projections, rotary
//   embeddings, key/value heads repeated for grouped-query attention, the
//   causal mask (iota, compare, select, as torch-xla writes `triu`; or a
//   dense constant), softmax, the row-parallel output projection, then
//   RMSNorm and the SwiGLU MLP (column-parallel gate and up, row-parallel
//   down);
// * with sequence parallelism, activations between layers are split along
//   the sequence: all-gather before each column-parallel block and
//   reduce-scatter after each row-parallel one, instead of an all-reduce;
// * the final norm, the vocabulary-parallel LM head and the parallel
//   cross-entropy (max, sum of exponentials and target logit all-reduced),
//   on the last stage only; other stages take the previous stage's
//   activations and the next stage's gradient of theirs;
// * the backward (Autodiff.cpp), data-parallel gradient averaging (a
//   reduce-scatter with ZeRO-1, else an all-reduce), and AdamW with
//   decoupled weight decay and bias correction, on shards with ZeRO-1 and
//   the updated shards all-gathered.
//
// Tokens are laid out sequence-major ([S, B] flattened), as NeuronX
// Distributed's sequence parallelism splits them.
//
//===----------------------------------------------------------------------===//

#include "LlamaStep.h"

#include "HloGraph.h"

#include <cmath>
#include <functional>
#include <stdexcept>

using namespace kiln::synth;

namespace {

const char *const ModelFile =
    "/opt/neuron/lib/python3.10/site-packages/neuronx_distributed/"
    "modeling/llama/modeling_llama_nxd.py";
const char *const LayersFile =
    "/opt/neuron/lib/python3.10/site-packages/neuronx_distributed/"
    "parallel_layers/layers.py";
const char *const MappingsFile =
    "/opt/neuron/lib/python3.10/site-packages/neuronx_distributed/"
    "parallel_layers/mappings.py";
const char *const LossFile =
    "/opt/neuron/lib/python3.10/site-packages/neuronx_distributed/"
    "parallel_layers/loss_functions.py";
const char *const OptimizerFile =
    "/opt/neuron/lib/python3.10/site-packages/neuronx_distributed/"
    "optimizer/zero_redundancy_optimizer.py";
const char *const AdamWFile =
    "/opt/neuron/lib/python3.10/site-packages/torch/optim/adamw.py";
const char *const AutogradFile =
    "/opt/neuron/lib/python3.10/site-packages/torch/autograd/__init__.py";

constexpr double Beta1 = 0.9, Beta2 = 0.999, Epsilon = 1e-8, WeightDecay = 0.01,
                 NormEpsilon = 1e-5;

struct Weight {
  Value value;
  std::string name;
  bool norm = false; ///< replicated across tensor-parallel ranks
};

/// One decoder layer's weights (this rank's parts).
struct LayerWeights {
  std::string prefix;
  Value inputNorm, query, key, value, output, postNorm, gate, up, down;
};

class StepBuilder {
public:
  explicit StepBuilder(const LlamaConfig &config);
  std::string build();

private:
  /// The device ids of every tensor-parallel and every data-parallel group.
  static std::vector<std::vector<int64_t>> groupsOf(const LlamaConfig &config,
                                                    bool dataParallel);
  /// The ranks of each tensor-parallel group that hold copies of one kv
  /// head: consecutive runs of kvReplication ranks.
  static std::vector<std::vector<int64_t>>
  kvGroupsOf(const LlamaConfig &config) {
    std::vector<std::vector<int64_t>> kvGroups;
    if (config.kvReplication <= 1)
      return kvGroups;
    for (const std::vector<int64_t> &group : groupsOf(config, false))
      for (size_t at = 0; at < group.size(); at += config.kvReplication)
        kvGroups.emplace_back(group.begin() + at,
                              group.begin() + at + config.kvReplication);
    return kvGroups;
  }
  void at(const std::string &opType, const std::string &module,
          const char *file, int line) {
    graph.setSource(opType, module + "/" + opType, file, line);
  }
  /// This rank's number in its tensor-parallel group, as s64.
  Value tensorRank();
  Value dataRank();
  Value linear(Value x, Value w) { return graph.dot(x, w, 0, 1, 1); }
  Value rmsNorm(Value x, Value w, const std::string &module);
  /// Before a column-parallel block: gathered (sequence parallel) or
  /// marked for the backward's all-reduce.
  Value enterColumnParallel(Value x, const std::string &module);
  /// After a row-parallel block: reduce-scattered or all-reduced.
  Value leaveRowParallel(Value x, const std::string &module);
  Value embed(Value ids, Value table);
  Value rotary(Value x, Value cosine, Value sine);
  Value attention(Value x, const LayerWeights &layer);
  Value mlp(Value x, const LayerWeights &layer);
  Value crossEntropy(Value logits, Value labels);
  /// [S, B] flattened from [B, S].
  Value tokensOf(Value perBatch);
  void optimizerUpdate(const std::vector<Weight> &weights,
                       std::vector<Value> grads);

  const LlamaConfig &config;
  Graph graph;
  std::string type;
  int64_t headDim, localHeads, localKvHeads, tokens, localTokens;
  Value mask = -1, ropeCos = -1, ropeSin = -1;
  std::vector<Value> outputs;
  std::vector<std::pair<int, int>> aliases;
  Value lr = -1, stepCount = -1;
  std::vector<Value> accumulators, firstMoments, secondMoments;
};

StepBuilder::StepBuilder(const LlamaConfig &config)
    : config(config), graph(groupsOf(config, false), groupsOf(config, true),
                            kvGroupsOf(config)),
      type(config.type) {
  headDim = config.hidden / config.heads;
  localHeads = config.heads / config.tensorParallel;
  localKvHeads = config.kvHeads * config.kvReplication / config.tensorParallel;
  tokens = config.sequence * config.microBatch;
  localTokens =
      config.sequenceParallel ? tokens / config.tensorParallel : tokens;
}

std::vector<std::vector<int64_t>>
StepBuilder::groupsOf(const LlamaConfig &config, bool dataParallel) {
  std::vector<std::vector<int64_t>> groups;
  int64_t tp = config.tensorParallel, dp = config.dataParallel;
  for (int64_t stage = 0; stage < config.pipelineParallel; ++stage) {
    int64_t base = stage * dp * tp;
    if (dataParallel) {
      for (int64_t t = 0; t < tp; ++t) {
        groups.emplace_back();
        for (int64_t d = 0; d < dp; ++d)
          groups.back().push_back(base + d * tp + t);
      }
    } else {
      for (int64_t d = 0; d < dp; ++d) {
        groups.emplace_back();
        for (int64_t t = 0; t < tp; ++t)
          groups.back().push_back(base + d * tp + t);
      }
    }
  }
  return groups;
}

Value StepBuilder::tensorRank() {
  if (config.tensorRank >= 0)
    return graph.constant("s64", config.tensorRank);
  Value id = graph.convert(graph.partitionId(), "s64");
  return graph.binary("remainder", id,
                      graph.constant("s64", config.tensorParallel));
}

Value StepBuilder::dataRank() {
  if (config.dataRank >= 0)
    return graph.constant("s64", config.dataRank);
  Value id = graph.convert(graph.partitionId(), "s64");
  Value group = graph.div(id, graph.constant("s64", config.tensorParallel));
  return graph.binary("remainder", group,
                      graph.constant("s64", config.dataParallel));
}

Value StepBuilder::tokensOf(Value perBatch) {
  Value sequenceMajor = graph.transpose(perBatch, {1, 0});
  return graph.reshape(sequenceMajor, {tokens});
}

Value StepBuilder::rmsNorm(Value x, Value w, const std::string &module) {
  Shape shape = graph.shape(x);
  at("aten__pow", module, ModelFile, 79);
  Value squares = graph.mul(x, x);
  at("aten__mean", module, ModelFile, 79);
  Value sum = graph.reduce(squares, {1}, "add");
  Value mean = graph.scale(sum, 1.0 / config.hidden);
  at("aten__rsqrt", module, ModelFile, 80);
  Value inverse = graph.unary(
      "rsqrt", graph.add(mean, graph.full(graph.shape(mean), NormEpsilon)));
  at("aten__mul", module, ModelFile, 80);
  Value normed = graph.mul(x, graph.broadcast(inverse, shape.dims, {0}));
  at("aten__mul", module, ModelFile, 81);
  return graph.mul(normed, graph.broadcast(w, shape.dims, {1}));
}

Value StepBuilder::enterColumnParallel(Value x, const std::string &module) {
  if (config.sequenceParallel) {
    at("xla__all_gather", module, MappingsFile, 318);
    return graph.allGather(x, Group::TensorParallel, 0);
  }
  return graph.copyToGroup(x, Group::TensorParallel);
}

Value StepBuilder::leaveRowParallel(Value x, const std::string &module) {
  if (config.sequenceParallel) {
    at("xla__reduce_scatter", module, MappingsFile, 342);
    return graph.reduceScatter(x, Group::TensorParallel, 0);
  }
  at("xla__cross_replica_sum", module, MappingsFile, 297);
  return graph.allReduce(x, Group::TensorParallel, "add",
                         CollectiveGrad::PassThrough);
}

Value StepBuilder::embed(Value ids, Value table) {
  const std::string module = "model.embed_tokens";
  int64_t rows = config.vocab / config.tensorParallel;
  Value flat = tokensOf(ids);
  Value hidden;
  if (config.tensorParallel == 1) {
    at("aten__embedding", module, LayersFile, 210);
    hidden = graph.gatherRows(table, flat);
  } else {
    // Ids outside this rank's rows look up row 0 and are zeroed.
    at("aten__sub", module, LayersFile, 204);
    Value start = graph.mul(tensorRank(), graph.constant("s64", rows));
    Value local = graph.sub(flat, graph.broadcast(start, {tokens}, {}));
    at("aten__lt", module, LayersFile, 202);
    Value below =
        graph.compare(local, graph.full(Shape{"s64", {tokens}}, 0), "LT");
    Value above =
        graph.compare(local, graph.full(Shape{"s64", {tokens}}, rows), "GE");
    Value outside = graph.binary("or", below, above);
    at("aten__masked_fill", module, LayersFile, 205);
    Value safe =
        graph.select(outside, graph.full(Shape{"s64", {tokens}}, 0), local);
    at("aten__embedding", module, LayersFile, 210);
    Value found = graph.gatherRows(table, safe);
    at("aten__masked_fill", module, LayersFile, 212);
    Value outsideRows = graph.broadcast(outside, {tokens, config.hidden}, {0});
    hidden =
        graph.select(outsideRows, graph.full(graph.shape(found), 0.0), found);
  }
  // Each rank holds some rows: their sum, as after a row-parallel layer.
  return leaveRowParallel(hidden, module);
}

Value StepBuilder::rotary(Value x, Value cosine, Value sine) {
  Shape shape = graph.shape(x); // [B, heads, S, d]
  int64_t half = headDim / 2;
  std::vector<int64_t> starts(4, 0), limits = shape.dims;
  limits[3] = half;
  Value first = graph.slice(x, starts, limits);
  starts[3] = half;
  limits[3] = headDim;
  Value second = graph.slice(x, starts, limits);
  Value rotated = graph.concatenate({graph.unary("negate", second), first}, 3);
  Value cosines = graph.broadcast(cosine, shape.dims, {2, 3});
  Value sines = graph.broadcast(sine, shape.dims, {2, 3});
  return graph.add(graph.mul(x, cosines), graph.mul(rotated, sines));
}

Value StepBuilder::attention(Value x, const LayerWeights &layer) {
  const std::string module = layer.prefix + ".self_attn";
  int64_t S = config.sequence, B = config.microBatch;
  Value input = enterColumnParallel(x, module);
  auto heads = [&](Value w, int64_t count, const std::string &name) {
    at("aten__mm", module + "." + name, LayersFile, 493);
    Value projected = linear(input, w);
    at("aten__view", module, ModelFile, 164);
    Value split = graph.reshape(projected, {S, B, count, headDim});
    at("aten__permute", module, ModelFile, 165);
    return graph.transpose(split, {1, 2, 0, 3});
  };
  Value q = heads(layer.query, localHeads, "q_proj");
  Value k = heads(layer.key, localKvHeads, "k_proj");
  Value v = heads(layer.value, localKvHeads, "v_proj");
  at("aten__mul", module + ".rotary_emb", ModelFile, 120);
  q = rotary(q, ropeCos, ropeSin);
  k = rotary(k, ropeCos, ropeSin);
  // Grouped-query attention: each kv head serves a group of query heads.
  int64_t group = localHeads / localKvHeads;
  auto repeat = [&](Value kv) {
    if (group == 1)
      return kv;
    at("aten__expand", module, ModelFile, 137);
    Value expanded =
        graph.broadcast(kv, {B, localKvHeads, group, S, headDim}, {0, 1, 3, 4});
    return graph.reshape(expanded, {B, localHeads, S, headDim});
  };
  k = repeat(k);
  v = repeat(v);

  // Core attention, recomputed in the backward when checkpointed.
  Value first = graph.nodes.size();
  at("aten__matmul", module, ModelFile, 187);
  Value scores = graph.dot(q, k, 2, 3, 3);
  at("aten__div", module, ModelFile, 187);
  scores = graph.scale(scores, 1.0 / std::sqrt((double)headDim));
  at("aten__masked_fill", module, ModelFile, 190);
  Value masked = graph.broadcast(mask, {B, localHeads, S, S}, {2, 3});
  scores =
      graph.select(masked, graph.full(graph.shape(scores), -INFINITY), scores);
  at("aten__softmax", module, ModelFile, 193);
  Value largest = graph.reduce(scores, {3}, "max");
  Value shifted = graph.sub(
      scores, graph.broadcast(largest, {B, localHeads, S, S}, {0, 1, 2}));
  Value exps = graph.unary("exponential", shifted);
  Value sums = graph.reduce(exps, {3}, "add");
  Value probabilities =
      graph.div(exps, graph.broadcast(sums, {B, localHeads, S, S}, {0, 1, 2}));
  at("aten__matmul", module, ModelFile, 194);
  Value context = graph.dot(probabilities, v, 2, 3, 2);
  if (config.checkpointAttention)
    graph.markRecomputed({q, k, v}, context, first);

  at("aten__permute", module, ModelFile, 201);
  Value merged = graph.reshape(graph.transpose(context, {2, 0, 1, 3}),
                               {tokens, localHeads * headDim});
  at("aten__mm", module + ".o_proj", LayersFile, 612);
  return leaveRowParallel(linear(merged, layer.output), module + ".o_proj");
}

Value StepBuilder::mlp(Value x, const LayerWeights &layer) {
  const std::string module = layer.prefix + ".mlp";
  Value input = enterColumnParallel(x, module);
  at("aten__mm", module + ".gate_proj", LayersFile, 493);
  Value gated = linear(input, layer.gate);
  at("aten__mm", module + ".up_proj", LayersFile, 493);
  Value raised = linear(input, layer.up);
  at("aten__silu", module + ".act_fn", ModelFile, 226);
  Value activated = graph.mul(gated, graph.unary("logistic", gated));
  at("aten__mul", module, ModelFile, 226);
  Value product = graph.mul(activated, raised);
  at("aten__mm", module + ".down_proj", LayersFile, 612);
  return leaveRowParallel(linear(product, layer.down), module + ".down_proj");
}

Value StepBuilder::crossEntropy(Value logits, Value labels) {
  const std::string module = "parallel_cross_entropy";
  int64_t columns = config.vocab / config.tensorParallel;
  std::vector<int64_t> full = {tokens, columns};
  at("aten__max", module, LossFile, 31);
  Value localMax = graph.reduce(logits, {1}, "max");
  Value globalMax = graph.allReduce(localMax, Group::TensorParallel, "max",
                                    CollectiveGrad::PassThrough);
  at("aten__sub", module, LossFile, 36);
  Value shifted = graph.sub(logits, graph.broadcast(globalMax, full, {0}));
  // The target's logit: this rank's column if the label is among its rows.
  at("aten__sub", module, LossFile, 44);
  Value start = graph.mul(tensorRank(), graph.constant("s64", columns));
  Value local =
      graph.sub(tokensOf(labels), graph.broadcast(start, {tokens}, {}));
  at("aten__eq", module, LossFile, 52);
  Value columnIds = graph.iota(Shape{"s64", full}, 1);
  Value isTarget =
      graph.compare(columnIds, graph.broadcast(local, full, {0}), "EQ");
  Value picked = graph.reduce(
      graph.select(isTarget, shifted, graph.full(graph.shape(shifted), 0.0)),
      {1}, "add");
  at("xla__cross_replica_sum", module, LossFile, 57);
  Value target = graph.allReduce(picked, Group::TensorParallel, "add",
                                 CollectiveGrad::PassThrough);
  at("aten__exp", module, LossFile, 61);
  Value sums = graph.reduce(graph.unary("exponential", shifted), {1}, "add");
  at("xla__cross_replica_sum", module, LossFile, 63);
  Value total = graph.allReduce(sums, Group::TensorParallel, "add",
                                CollectiveGrad::PassThrough);
  at("aten__log", module, LossFile, 66);
  Value perToken = graph.sub(graph.unary("log", total), target);
  at("aten__mean", module, LossFile, 70);
  return graph.scale(graph.reduce(perToken, {0}, "add"), 1.0 / tokens);
}

void StepBuilder::optimizerUpdate(const std::vector<Weight> &weights,
                                  std::vector<Value> grads) {
  bool zero1 = config.zero1 && config.dataParallel > 1;
  int64_t dp = config.dataParallel;
  const std::string module = "optimizer";
  at("aten__add", module, AdamWFile, 109);
  Value step = config.step == StepKind::First
                   ? graph.constant("f32", 1.0)
                   : graph.add(stepCount, graph.constant("f32", 1.0));
  at("aten__pow", module, AdamWFile, 119);
  Value correction1 =
      graph.sub(graph.constant("f32", 1.0),
                graph.binary("power", graph.constant("f32", Beta1), step));
  Value correction2 =
      graph.sub(graph.constant("f32", 1.0),
                graph.binary("power", graph.constant("f32", Beta2), step));
  std::vector<Value> newWeights, newFirst, newSecond;
  for (size_t i = 0; i < weights.size(); ++i) {
    Value w = weights[i].value;
    Shape shape = graph.shape(w);
    std::string name = "optimizer." + weights[i].name;
    Value g = grads[i];
    Value own = w; // this rank's part of the weight
    if (zero1) {
      int64_t shard = shape.elements() / dp;
      at("aten__view", name, OptimizerFile, 210);
      Value flat = graph.reshape(w, {shape.elements()});
      at("aten__slice", name, OptimizerFile, 214);
      if (config.dataRank >= 0) {
        own = graph.slice(flat, {config.dataRank * shard},
                          {(config.dataRank + 1) * shard});
      } else {
        Value offset = graph.mul(dataRank(), graph.constant("s64", shard));
        own = graph.dynamicSlice(flat, {offset}, {shard});
      }
    }
    Shape part = graph.shape(own);
    at("aten__add", name, AdamWFile, 110);
    Value g32 = graph.convert(g, "f32");
    if (config.step == StepKind::Optimizer)
      g32 = graph.add(accumulators[i], g32);
    Value m = config.step == StepKind::First
                  ? graph.full(Shape{"f32", part.dims}, 0.0)
                  : firstMoments[i];
    Value v = config.step == StepKind::First
                  ? graph.full(Shape{"f32", part.dims}, 0.0)
                  : secondMoments[i];
    Shape f32Part{"f32", part.dims};
    auto splat = [&](Value scalar) {
      return graph.broadcast(scalar, part.dims, {});
    };
    at("aten__lerp", name, AdamWFile, 110);
    Value m2 = graph.add(graph.scale(m, Beta1), graph.scale(g32, 1 - Beta1));
    at("aten__addcmul", name, AdamWFile, 111);
    Value v2 = graph.add(graph.scale(v, Beta2),
                         graph.scale(graph.mul(g32, g32), 1 - Beta2));
    at("aten__sqrt", name, AdamWFile, 121);
    Value denominator =
        graph.add(graph.unary("sqrt", graph.div(v2, splat(correction2))),
                  graph.full(f32Part, Epsilon));
    at("aten__addcdiv", name, AdamWFile, 124);
    Value update = graph.div(graph.div(m2, splat(correction1)), denominator);
    Value w32 = graph.convert(own, "f32");
    at("aten__mul", name, AdamWFile, 104);
    update = graph.add(update, graph.scale(w32, WeightDecay));
    at("aten__sub", name, AdamWFile, 124);
    Value updated =
        graph.convert(graph.sub(w32, graph.mul(splat(lr), update)), type);
    if (zero1) {
      at("xla__all_gather", name, OptimizerFile, 268);
      updated = graph.reshape(graph.allGather(updated, Group::DataParallel, 0),
                              shape.dims);
    }
    newWeights.push_back(updated);
    newFirst.push_back(m2);
    newSecond.push_back(v2);
  }
  for (Value v : newWeights)
    outputs.push_back(v);
  for (Value v : newFirst)
    outputs.push_back(v);
  for (Value v : newSecond)
    outputs.push_back(v);
  outputs.push_back(step);
}

std::string StepBuilder::build() {
  bool firstStage = config.stage == 0;
  bool lastStage = config.stage == config.pipelineParallel - 1;
  bool training =
      config.step != StepKind::Eval && config.step != StepKind::Checkpoint;
  bool updates =
      config.step == StepKind::First || config.step == StepKind::Optimizer;
  bool zero1 = config.zero1 && config.dataParallel > 1;
  int64_t S = config.sequence, B = config.microBatch;
  auto [firstLayer, layerCount] = stageLayers(config);

  // Inputs that are not weights, in the order NeuronX Distributed's
  // graphs take them.
  Value ids = -1, labels = -1, hiddenIn = -1, gradOut = -1;
  if (config.step != StepKind::Checkpoint) {
    if (firstStage)
      ids = graph.parameter(Shape{"s64", {B, S}}, "input_ids");
    else
      hiddenIn = graph.parameter(Shape{type, {localTokens, config.hidden}},
                                 "hidden_states");
    if (lastStage)
      labels = graph.parameter(Shape{"s64", {B, S}}, "labels");
    else if (training)
      gradOut = graph.parameter(Shape{type, {localTokens, config.hidden}},
                                "grad_output");
  }
  if (updates)
    lr = graph.parameter(Shape{"f32", {}}, "lr");
  if (config.step == StepKind::Optimizer || config.step == StepKind::Checkpoint)
    stepCount = graph.parameter(Shape{"f32", {}}, "optimizer.step");

  // The causal mask and the rotary tables, once per graph.
  if (config.step != StepKind::Checkpoint && layerCount > 0) {
    at("aten__triu", "model", ModelFile, 301);
    Shape square{"pred", {S, S}};
    if (config.denseMask) {
      std::vector<double> values(S * S);
      for (int64_t r = 0; r < S; ++r)
        for (int64_t c = 0; c < S; ++c)
          values[r * S + c] = c > r;
      mask = graph.denseConstant(square, values);
    } else {
      Value rows = graph.iota(Shape{"s32", {S, S}}, 0);
      Value columns = graph.iota(Shape{"s32", {S, S}}, 1);
      mask = graph.compare(columns, rows, "GT");
    }
    at("aten__cos", "model.rotary_emb", ModelFile, 104);
    int64_t half = headDim / 2;
    Value position =
        graph.convert(graph.iota(Shape{"s32", {S, half}}, 0), "f32");
    Value index = graph.convert(graph.iota(Shape{"s32", {S, half}}, 1), "f32");
    Value frequency =
        graph.unary("exponential", graph.scale(index, -2.0 * std::log(10000.0) /
                                                          (double)headDim));
    Value angle = graph.mul(position, frequency);
    Value c = graph.unary("cosine", angle), s = graph.unary("sine", angle);
    ropeCos = graph.convert(graph.concatenate({c, c}, 1), type);
    ropeSin = graph.convert(graph.concatenate({s, s}, 1), type);
  }

  // The weights, then the optimizer's state for each.
  std::vector<Weight> weights;
  auto declare = [&](std::vector<int64_t> dims, const std::string &name,
                     bool norm = false) {
    Value v = graph.parameter(Shape{type, std::move(dims)}, name);
    weights.push_back({v, name, norm});
    return v;
  };
  int64_t H = config.hidden, tp = config.tensorParallel;
  Value table = -1, finalNorm = -1, head = -1;
  if (firstStage)
    table = declare({config.vocab / tp, H}, "model.embed_tokens.weight");
  std::vector<LayerWeights> layers;
  for (int64_t layer = firstLayer; layer < firstLayer + layerCount; ++layer) {
    LayerWeights w;
    w.prefix = "model.layers." + std::to_string(layer);
    w.inputNorm = declare({H}, w.prefix + ".input_layernorm.weight", true);
    std::string attn = w.prefix + ".self_attn";
    w.query = declare({localHeads * headDim, H}, attn + ".q_proj.weight");
    w.key = declare({localKvHeads * headDim, H}, attn + ".k_proj.weight");
    w.value = declare({localKvHeads * headDim, H}, attn + ".v_proj.weight");
    w.output = declare({H, localHeads * headDim}, attn + ".o_proj.weight");
    w.postNorm =
        declare({H}, w.prefix + ".post_attention_layernorm.weight", true);
    std::string mlpName = w.prefix + ".mlp";
    int64_t local = config.intermediate / tp;
    w.gate = declare({local, H}, mlpName + ".gate_proj.weight");
    w.up = declare({local, H}, mlpName + ".up_proj.weight");
    w.down = declare({H, local}, mlpName + ".down_proj.weight");
    layers.push_back(w);
  }
  if (lastStage) {
    finalNorm = declare({H}, "model.norm.weight", true);
    head = declare({config.vocab / tp, H}, "lm_head.weight");
  }
  auto partShape = [&](const Weight &w) {
    Shape shape = graph.shape(w.value);
    if (zero1)
      return Shape{"f32", {shape.elements() / config.dataParallel}};
    return Shape{"f32", shape.dims};
  };
  if (config.step == StepKind::Accumulate || config.step == StepKind::Optimizer)
    for (const Weight &w : weights)
      accumulators.push_back(
          graph.parameter(partShape(w), "grad_acc." + w.name));
  if (config.step == StepKind::Optimizer ||
      config.step == StepKind::Checkpoint) {
    for (const Weight &w : weights)
      firstMoments.push_back(
          graph.parameter(partShape(w), "optimizer.exp_avg." + w.name));
    for (const Weight &w : weights)
      secondMoments.push_back(
          graph.parameter(partShape(w), "optimizer.exp_avg_sq." + w.name));
  }
  auto output = [&](Value v, Value aliased) {
    if (aliased >= 0)
      aliases.push_back(
          {(int)outputs.size(), (int)graph.nodes[aliased].dims[0]});
    outputs.push_back(v);
  };

  if (config.step == StepKind::Checkpoint) {
    // The whole optimizer state on every rank, for saving.
    for (std::vector<Value> *moments : {&firstMoments, &secondMoments})
      for (size_t i = 0; i < weights.size(); ++i) {
        Value part = (*moments)[i];
        if (zero1) {
          at("xla__all_gather", "optimizer." + weights[i].name, OptimizerFile,
             402);
          part = graph.reshape(graph.allGather(part, Group::DataParallel, 0),
                               graph.shape(weights[i].value).dims);
        } else {
          at("aten__clone", "optimizer." + weights[i].name, OptimizerFile, 405);
          part = graph.unary("copy", part);
        }
        output(part, -1);
      }
    return graph.print(outputs, aliases);
  }

  // The forward.
  Value hidden = firstStage ? embed(ids, table) : hiddenIn;
  for (const LayerWeights &layer : layers) {
    Value normed =
        rmsNorm(hidden, layer.inputNorm, layer.prefix + ".input_layernorm");
    Value attended = attention(normed, layer);
    at("aten__add", layer.prefix, ModelFile, 262);
    hidden = graph.add(hidden, attended);
    normed = rmsNorm(hidden, layer.postNorm,
                     layer.prefix + ".post_attention_layernorm");
    Value mixed = mlp(normed, layer);
    at("aten__add", layer.prefix, ModelFile, 268);
    hidden = graph.add(hidden, mixed);
  }
  Value root;
  if (lastStage) {
    Value normed = rmsNorm(hidden, finalNorm, "model.norm");
    Value input = enterColumnParallel(normed, "lm_head");
    at("aten__mm", "lm_head", LayersFile, 493);
    Value logits = graph.convert(linear(input, head), "f32");
    root = crossEntropy(logits, labels);
  } else {
    root = hidden;
  }
  output(root, -1);
  if (!training)
    return graph.print(outputs, aliases);

  // The backward, as autograd records it.
  graph.setSource("aten__backward", "backward", AutogradFile, 251);
  Value seed = lastStage ? graph.constant("f32", 1.0) : gradOut;
  std::vector<Value> wrt;
  for (const Weight &w : weights)
    wrt.push_back(w.value);
  if (!firstStage)
    wrt.push_back(hiddenIn);
  std::vector<Value> grads = graph.gradients(root, seed, wrt);
  if (!firstStage) {
    output(grads.back(), -1);
    grads.pop_back();
  }
  for (size_t i = 0; i < weights.size(); ++i) {
    std::string name = weights[i].name;
    // A replicated kv head's copies each see their rank's query heads:
    // their gradients are summed so that the copies stay equal.
    if (config.kvReplication > 1 &&
        (name.find(".k_proj.") != std::string::npos ||
         name.find(".v_proj.") != std::string::npos)) {
      at("xla__cross_replica_sum", name, MappingsFile, 297);
      grads[i] = graph.allReduce(grads[i], Group::KvReplicas, "add",
                                 CollectiveGrad::PassThrough);
    }
    // Norm weights see a part of the sequence on each rank.
    if (config.sequenceParallel && weights[i].norm) {
      at("xla__cross_replica_sum", name, MappingsFile, 297);
      grads[i] = graph.allReduce(grads[i], Group::TensorParallel, "add",
                                 CollectiveGrad::PassThrough);
    }
    if (config.dataParallel > 1) {
      if (zero1) {
        at("xla__reduce_scatter", name, OptimizerFile, 188);
        Value flat =
            graph.reshape(grads[i], {graph.shape(grads[i]).elements()});
        grads[i] = graph.reduceScatter(flat, Group::DataParallel, 0);
      } else {
        at("xla__cross_replica_sum", name, OptimizerFile, 188);
        grads[i] = graph.allReduce(grads[i], Group::DataParallel, "add",
                                   CollectiveGrad::PassThrough);
      }
      at("aten__div", name, OptimizerFile, 190);
      grads[i] = graph.scale(grads[i], 1.0 / config.dataParallel);
    }
  }
  if (config.step == StepKind::Accumulate) {
    for (size_t i = 0; i < weights.size(); ++i) {
      at("aten__add", "grad_acc." + weights[i].name, AutogradFile, 251);
      output(graph.add(accumulators[i], graph.convert(grads[i], "f32")),
             accumulators[i]);
    }
    return graph.print(outputs, aliases);
  }
  optimizerUpdate(weights, grads);
  // optimizerUpdate appended weights, first and second moments, and the
  // step: alias each to what it updates.
  size_t base = outputs.size() - 3 * weights.size() - 1;
  for (size_t i = 0; i < weights.size(); ++i) {
    aliases.push_back(
        {(int)(base + i), (int)graph.nodes[weights[i].value].dims[0]});
    if (config.step == StepKind::Optimizer) {
      aliases.push_back({(int)(base + weights.size() + i),
                         (int)graph.nodes[firstMoments[i]].dims[0]});
      aliases.push_back({(int)(base + 2 * weights.size() + i),
                         (int)graph.nodes[secondMoments[i]].dims[0]});
    }
  }
  if (config.step == StepKind::Optimizer)
    aliases.push_back(
        {(int)outputs.size() - 1, (int)graph.nodes[stepCount].dims[0]});
  return graph.print(outputs, aliases);
}

} // namespace

const char *kiln::synth::stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::First:
    return "first";
  case StepKind::Accumulate:
    return "accumulate";
  case StepKind::Optimizer:
    return "optimizer";
  case StepKind::Eval:
    return "eval";
  case StepKind::Checkpoint:
    return "checkpoint";
  }
  return "";
}

std::pair<int64_t, int64_t>
kiln::synth::stageLayers(const LlamaConfig &config) {
  int64_t each = config.layers / config.pipelineParallel;
  int64_t extra = config.layers % config.pipelineParallel;
  int64_t first = config.stage * each + std::min(config.stage, extra);
  return {first, each + (config.stage < extra ? 1 : 0)};
}

std::string kiln::synth::validate(const LlamaConfig &config) {
  auto positive = [](int64_t v) { return v > 0; };
  if (!positive(config.layers) || !positive(config.hidden) ||
      !positive(config.intermediate) || !positive(config.heads) ||
      !positive(config.kvHeads) || !positive(config.kvReplication) ||
      !positive(config.vocab) || !positive(config.sequence) ||
      !positive(config.microBatch) || !positive(config.tensorParallel) ||
      !positive(config.dataParallel) || !positive(config.pipelineParallel))
    return "every size and degree must be positive";
  if (config.type != "f32" && config.type != "bf16")
    return "--dtype must be f32 or bf16, not '" + config.type + "'";
  int64_t tp = config.tensorParallel;
  if (config.hidden % config.heads)
    return "--hidden " + std::to_string(config.hidden) +
           " is not a multiple of --heads " + std::to_string(config.heads);
  if ((config.hidden / config.heads) % 2)
    return "the head dimension (hidden / heads) must be even for rotary "
           "embeddings";
  if (config.heads % config.kvHeads)
    return "--heads must be a multiple of --kv-heads";
  if (config.heads % tp)
    return "--heads " + std::to_string(config.heads) +
           " is not a multiple of --tp " + std::to_string(tp);
  int64_t kv = config.kvHeads * config.kvReplication;
  if (kv % tp)
    return "--kv-heads times --kv-replication (" + std::to_string(kv) +
           ") is not a multiple of --tp " + std::to_string(tp) +
           " (NeuronX Distributed replicates kv heads to fill the ranks: "
           "raise --kv-replication)";
  if (config.kvReplication > 1 && kv != tp)
    return "with kv replication, --kv-heads times --kv-replication must "
           "equal --tp (one kv head a rank, as NeuronX Distributed "
           "replicates them)";
  if ((config.heads / tp) % (kv / tp))
    return "each rank's query heads must be a multiple of its kv heads";
  if (config.intermediate % tp || config.vocab % tp)
    return "--intermediate and --vocab must be multiples of --tp";
  if (config.sequenceParallel && (config.sequence * config.microBatch) % tp)
    return "sequence parallelism splits sequence x micro-batch tokens over "
           "--tp ranks: they must divide";
  if (config.tensorRank < -1 || config.tensorRank >= tp)
    return "--tp-rank " + std::to_string(config.tensorRank) +
           " is out of range for --tp " + std::to_string(tp);
  if (config.dataRank < -1 || config.dataRank >= config.dataParallel)
    return "--dp-rank is out of range for --dp";
  if (config.stage < 0 || config.stage >= config.pipelineParallel)
    return "--stage " + std::to_string(config.stage) +
           " is out of range for --pp " +
           std::to_string(config.pipelineParallel);
  if (config.pipelineParallel > config.layers)
    return "--pp is larger than --layers";
  if (config.zero1 && config.dataParallel > 1) {
    int64_t dp = config.dataParallel;
    int64_t headDim = config.hidden / config.heads;
    for (int64_t size : {config.hidden, config.vocab / tp * config.hidden,
                         config.heads / tp * headDim * config.hidden,
                         kv / tp * headDim * config.hidden,
                         config.intermediate / tp * config.hidden})
      if (size % dp)
        return "ZeRO-1 shards each weight over --dp " + std::to_string(dp) +
               " ranks: a weight of " + std::to_string(size) +
               " elements does not divide";
  }
  return "";
}

std::string kiln::synth::writeLlamaStep(const LlamaConfig &config) {
  std::string problem = validate(config);
  if (!problem.empty())
    throw std::invalid_argument(problem);
  return StepBuilder(config).build();
}
