//===- Autodiff.cpp - the backward pass of a kiln-synth graph -------------===//
//
// This file implements reverse-mode differentiation over the graph's
// instructions, as autograd records a training step's backward: each
// instruction's vector-Jacobian product is made of instructions too, in
// reverse order of the forward, and cotangents that meet are added.
//
// Tensor parallelism differentiates by convention, not by the collective's
// transpose: a partial sum all-reduced into a value every rank holds
// (Megatron's `g`) passes its cotangent through, and the identity before a
// column-parallel layer (Megatron's `f`, `copyToGroup`) all-reduces it.
// All-gather and reduce-scatter (sequence parallelism) transpose into each
// other.
//
// Selective activation checkpointing: a region marked recomputed keeps no
// activations for the backward; when its output's cotangent is known, its
// forward instructions are made again from its inputs and the backward
// runs through that copy.
//
//===----------------------------------------------------------------------===//

#include "HloGraph.h"

#include <map>
#include <set>
#include <stdexcept>

using namespace kiln::synth;

namespace {

/// The backward of a graph from one root.
class Backward {
public:
  Backward(Graph &graph, const std::vector<Graph::Recomputed> &recomputed)
      : graph(graph), recomputed(recomputed) {}

  /// Propagates `seed` from `root` down to nodes numbered at least
  /// `lowest`; the cotangent that reached each of `wrt`.
  std::vector<Value> run(Value root, Value seed, const std::vector<Value> &wrt,
                         Value lowest);

private:
  void accumulate(Value node, Value cotangent);
  void propagate(Value node, Value cotangent);
  Value sumTo(Value cotangent, Shape target,
              const std::vector<int64_t> &mapping);
  /// A copy of the forward between `region.first` and `region.output`,
  /// made from the region's inputs.
  Value remake(const Graph::Recomputed &region);

  Graph &graph;
  const std::vector<Graph::Recomputed> &recomputed;
  std::map<Value, Value> cotangents;
  /// Whether a node lies on a path from a `wrt` node to the root.
  std::vector<char> needed;
};

void Backward::accumulate(Value node, Value cotangent) {
  auto found = cotangents.find(node);
  if (found == cotangents.end())
    cotangents[node] = cotangent;
  else
    found->second = graph.add(found->second, cotangent);
}

Value Backward::sumTo(Value cotangent, Shape target,
                      const std::vector<int64_t> &mapping) {
  std::vector<int64_t> reduced;
  for (int64_t d = 0; d < (int64_t)graph.shape(cotangent).dims.size(); ++d) {
    bool kept = false;
    for (int64_t m : mapping)
      kept |= m == d;
    if (!kept)
      reduced.push_back(d);
  }
  if (reduced.empty())
    return cotangent;
  Value sum = graph.reduce(cotangent, reduced, "add");
  return graph.reshape(sum, target.dims);
}

Value Backward::remake(const Graph::Recomputed &region) {
  std::map<Value, Value> copies;
  for (Value input : region.inputs)
    copies[input] = input;
  for (Value v = region.first; v <= region.output; ++v) {
    Node node = graph.nodes[v];
    bool inRegion = true;
    for (Value &operand : node.operands) {
      auto found = copies.find(operand);
      if (found == copies.end() && operand >= region.first) {
        inRegion = false;
        break;
      }
      if (found != copies.end())
        operand = found->second;
    }
    if (!inRegion)
      continue;
    graph.nodes.push_back(node);
    copies[v] = graph.nodes.size() - 1;
  }
  return copies.at(region.output);
}

std::vector<Value> Backward::run(Value root, Value seed,
                                 const std::vector<Value> &wrt, Value lowest) {
  // Only nodes on a path from `wrt` to `root` need a cotangent.
  needed.assign(root + 1, 0);
  for (Value v : wrt)
    if (v <= root)
      needed[v] = 1;
  for (Value v = lowest; v <= root; ++v) {
    const Node &node = graph.nodes[v];
    if (!node.differentiable || needed[v])
      continue;
    for (Value operand : node.operands)
      if (needed[operand])
        needed[v] = 1;
  }
  std::set<Value> wanted(wrt.begin(), wrt.end());
  cotangents[root] = seed;
  for (Value v = root; v >= lowest; --v) {
    auto found = cotangents.find(v);
    if (found == cotangents.end() || wanted.count(v))
      continue;
    if (!needed[v] || !graph.nodes[v].differentiable)
      continue;
    Value cotangent = found->second;
    // A recomputed region's output: the backward runs through a copy.
    const Graph::Recomputed *region = nullptr;
    for (const Graph::Recomputed &candidate : recomputed)
      if (candidate.output == v)
        region = &candidate;
    if (region) {
      Value copy = remake(*region);
      static const std::vector<Graph::Recomputed> none;
      Backward inner(graph, none);
      std::vector<Value> inputs =
          inner.run(copy, cotangent, region->inputs, region->output + 1);
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i] >= 0)
          accumulate(region->inputs[i], inputs[i]);
      continue;
    }
    propagate(v, cotangent);
  }
  std::vector<Value> result;
  for (Value v : wrt) {
    auto found = cotangents.find(v);
    result.push_back(found == cotangents.end() ? -1 : found->second);
  }
  return result;
}

void Backward::propagate(Value v, Value cotangent) {
  // Copies: the node may move when new nodes are made.
  const Node node = graph.nodes[v];
  const std::string &op = node.opcode;
  auto operand = [&](int i) { return node.operands[i]; };
  auto wants = [&](int i) { return (bool)needed[node.operands[i]]; };
  if (node.copyToGroup) {
    if (!wants(0))
      return;
    accumulate(operand(0), graph.allReduce(cotangent, node.group, "add",
                                           CollectiveGrad::PassThrough));
    return;
  }
  if (op == "add") {
    if (wants(0))
      accumulate(operand(0), cotangent);
    if (wants(1))
      accumulate(operand(1), cotangent);
  } else if (op == "subtract") {
    if (wants(0))
      accumulate(operand(0), cotangent);
    if (wants(1))
      accumulate(operand(1), graph.unary("negate", cotangent));
  } else if (op == "multiply") {
    if (wants(0))
      accumulate(operand(0), graph.mul(cotangent, operand(1)));
    if (wants(1))
      accumulate(operand(1), graph.mul(cotangent, operand(0)));
  } else if (op == "divide") {
    Value quotient = graph.div(cotangent, operand(1));
    if (wants(0))
      accumulate(operand(0), quotient);
    if (wants(1))
      accumulate(operand(1), graph.unary("negate", graph.mul(quotient, v)));
  } else if (op == "negate") {
    accumulate(operand(0), graph.unary("negate", cotangent));
  } else if (op == "exponential") {
    accumulate(operand(0), graph.mul(cotangent, v));
  } else if (op == "log") {
    accumulate(operand(0), graph.div(cotangent, operand(0)));
  } else if (op == "rsqrt") {
    // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 rsqrt(x) / x.
    Value slope = graph.scale(graph.div(v, operand(0)), -0.5);
    accumulate(operand(0), graph.mul(cotangent, slope));
  } else if (op == "logistic") {
    Value one = graph.full(node.shape, 1.0);
    Value slope = graph.mul(v, graph.sub(one, v));
    accumulate(operand(0), graph.mul(cotangent, slope));
  } else if (op == "copy") {
    accumulate(operand(0), cotangent);
  } else if (op == "convert") {
    accumulate(operand(0),
               graph.convert(cotangent, graph.shape(operand(0)).type));
  } else if (op == "broadcast") {
    accumulate(operand(0),
               sumTo(cotangent, graph.shape(operand(0)), node.dims));
  } else if (op == "reshape") {
    accumulate(operand(0),
               graph.reshape(cotangent, graph.shape(operand(0)).dims));
  } else if (op == "transpose") {
    std::vector<int64_t> inverse(node.dims.size());
    for (size_t i = 0; i < node.dims.size(); ++i)
      inverse[node.dims[i]] = i;
    accumulate(operand(0), graph.transpose(cotangent, inverse));
  } else if (op == "slice") {
    std::vector<int64_t> high;
    for (size_t d = 0; d < node.lists[1].size(); ++d)
      high.push_back(graph.shape(operand(0)).dims[d] - node.lists[1][d]);
    accumulate(operand(0), graph.pad(cotangent, node.lists[0], high));
  } else if (op == "concatenate") {
    int64_t dimension = node.dims[0], offset = 0;
    for (size_t i = 0; i < node.operands.size(); ++i) {
      Shape part = graph.shape(operand(i));
      std::vector<int64_t> starts(part.dims.size(), 0), limits = part.dims;
      starts[dimension] = offset;
      limits[dimension] = offset + part.dims[dimension];
      offset += part.dims[dimension];
      if (wants(i))
        accumulate(operand(i), graph.slice(cotangent, starts, limits));
    }
  } else if (op == "dot") {
    // C[b, m, n] = sum_k A[b, (m, k)] B[b, (k, n)], one free and one
    // contracting dimension each after the batch.
    int64_t batch = node.lists[0].size();
    int64_t lhsContracting = node.lists[1][0];
    int64_t rhsContracting = node.lists[3][0];
    int64_t rhsFree = rhsContracting == batch ? batch + 1 : batch;
    int64_t lhsFree = lhsContracting == batch ? batch + 1 : batch;
    auto swapLast = [&](Value x) {
      std::vector<int64_t> permutation;
      for (int64_t d = 0; d < batch; ++d)
        permutation.push_back(d);
      permutation.push_back(batch + 1);
      permutation.push_back(batch);
      return graph.transpose(x, permutation);
    };
    if (wants(0)) {
      // dA[b, m, k] = sum_n dC[b, m, n] B[b, k, n].
      Value lhs = graph.dot(cotangent, operand(1), batch, batch + 1, rhsFree);
      accumulate(operand(0), lhsContracting == batch ? swapLast(lhs) : lhs);
    }
    if (wants(1)) {
      // dB[b, k, n] = sum_m A[b, m, k] dC[b, m, n].
      Value rhs = graph.dot(operand(0), cotangent, batch, lhsFree, batch);
      accumulate(operand(1), rhsContracting == batch ? rhs : swapLast(rhs));
    }
  } else if (op == "reduce") {
    std::vector<int64_t> kept;
    Shape input = graph.shape(operand(0));
    for (int64_t d = 0; d < (int64_t)input.dims.size(); ++d) {
      bool reduced = false;
      for (int64_t r : node.dims)
        reduced |= r == d;
      if (!reduced)
        kept.push_back(d);
    }
    accumulate(operand(0), graph.broadcast(cotangent, input.dims, kept));
  } else if (op == "select") {
    Value zero = graph.full(node.shape, 0.0);
    if (wants(1))
      accumulate(operand(1), graph.select(operand(0), cotangent, zero));
    if (wants(2))
      accumulate(operand(2), graph.select(operand(0), zero, cotangent));
  } else if (op == "gather") {
    Value zero = graph.full(graph.shape(operand(0)), 0.0);
    accumulate(operand(0), graph.scatterAddRows(zero, operand(1), cotangent));
  } else if (op == "all-reduce") {
    accumulate(operand(0), node.collectiveGrad == CollectiveGrad::PassThrough
                               ? cotangent
                               : graph.allReduce(cotangent, node.group, "add",
                                                 CollectiveGrad::PassThrough));
  } else if (op == "all-gather") {
    accumulate(operand(0),
               graph.reduceScatter(cotangent, node.group, node.dims[0]));
  } else if (op == "reduce-scatter") {
    accumulate(operand(0),
               graph.allGather(cotangent, node.group, node.dims[0]));
  } else {
    throw std::logic_error("no backward for " + op);
  }
}

} // namespace

std::vector<Value> Graph::gradients(Value root, Value seed,
                                    const std::vector<Value> &wrt) {
  Backward backward(*this, recomputed);
  std::vector<Value> result = backward.run(root, seed, wrt, 0);
  for (size_t i = 0; i < result.size(); ++i)
    if (result[i] < 0)
      result[i] = full(shape(wrt[i]), 0.0);
  return result;
}
