//===- HloGraph.h - a graph of HLO instructions, written as text -*- C++
//-*-===//
//
// This file declares the graph that kiln-synth builds a training step in: a
// list of HLO instructions in the order they are made (so every operand
// comes before its users), each with its shape, its attributes and the
// Python source it stands for, printed as PyTorch/XLA prints a
// `SyncTensorsGraph`: the long form (`%name.N`, operand shapes before
// names, layouts), one `metadata={op_type op_name source_file source_line}`
// per instruction, and the module's input_output_alias.
//
// Some nodes carry the backward rule that a framework gives them rather
// than the one their instruction implies (tensor parallelism's conjugate
// pairs): see `Graph::copyToGroup` and `CollectiveGrad`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SYNTH_HLOGRAPH_H
#define KILN_SYNTH_HLOGRAPH_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::synth {

/// An element type (`f32`, `bf16`, `s64`, `s32`, `u32`, `pred`) and sizes.
struct Shape {
  std::string type;
  std::vector<int64_t> dims;

  int64_t elements() const {
    int64_t count = 1;
    for (int64_t size : dims)
      count *= size;
    return count;
  }
  bool operator==(const Shape &other) const {
    return type == other.type && dims == other.dims;
  }
  /// `f32[4,8]{1,0}`, as the long form writes an instruction's shape.
  std::string text() const;
};

/// A node of the graph: an index into `Graph::nodes`.
using Value = int;

/// What a collective's backward does (Megatron's conjugate operators):
/// tensor-parallel partial sums whose cotangents every rank already holds
/// pass through; the others are the instruction's transpose.
enum class CollectiveGrad { Transpose, PassThrough };

/// Which ranks a collective spans.
enum class Group {
  TensorParallel,
  DataParallel,
  /// The tensor-parallel ranks that hold copies of one kv head (NeuronX
  /// Distributed's kv replication).
  KvReplicas,
};

struct Node {
  std::string opcode; ///< the HLO opcode; "" for a node with no instruction
  std::vector<Value> operands;
  Shape shape;
  /// `dimensions=` (broadcast, reduce, transpose, concatenate, collectives),
  /// `iota_dimension`, a parameter's number, a dynamic-slice's sizes.
  std::vector<int64_t> dims;
  /// dot: lhs batch, lhs contracting, rhs batch, rhs contracting;
  /// slice: starts, limits; pad: low, high.
  std::vector<int64_t> lists[4];
  /// compare: direction; constant: its literal; reduce and collectives:
  /// "add" or "max"; a parameter's name.
  std::string attribute;
  Group group = Group::TensorParallel;
  CollectiveGrad collectiveGrad = CollectiveGrad::Transpose;
  bool differentiable = true; ///< false: no cotangent flows through it
  /// A no-instruction node that stands for its operand, whose backward
  /// all-reduces the cotangent over `group` (Megatron's `f`).
  bool copyToGroup = false;
  int source = 0; ///< index into `Graph::sources`
};

/// The Python that an instruction stands for, as its metadata names it.
struct Source {
  std::string opType, opName, file;
  int line = 0;
};

class Graph {
public:
  /// `tensorGroups` and `dataGroups` are the replica groups of the two kinds
  /// of collectives, as global device ids.
  Graph(std::vector<std::vector<int64_t>> tensorGroups,
        std::vector<std::vector<int64_t>> dataGroups,
        std::vector<std::vector<int64_t>> kvGroups = {});

  /// Instructions made from here on stand for this Python.
  void setSource(const std::string &opType, const std::string &opName,
                 const std::string &file, int line);
  const Shape &shape(Value v) const { return nodes[v].shape; }

  // Leaves.
  Value parameter(const Shape &shape, const std::string &name);
  Value constant(std::string type, double value);
  /// A constant of `shape` written out element by element (`values`
  /// row-major; pred: 0 or 1).
  Value denseConstant(const Shape &shape, const std::vector<double> &values);
  Value full(Shape shape, double value);
  Value iota(const Shape &shape, int64_t dimension);
  Value partitionId();

  // Element-wise.
  Value unary(const std::string &opcode, Value x);
  Value binary(const std::string &opcode, Value a, Value b);
  Value add(Value a, Value b) { return binary("add", a, b); }
  Value sub(Value a, Value b) { return binary("subtract", a, b); }
  Value mul(Value a, Value b) { return binary("multiply", a, b); }
  Value div(Value a, Value b) { return binary("divide", a, b); }
  Value compare(Value a, Value b, const std::string &direction);
  Value select(Value predicate, Value onTrue, Value onFalse);
  Value convert(Value x, std::string type);
  /// `x` times the scalar `factor`, broadcast.
  Value scale(Value x, double factor);

  // Shapes.
  Value broadcast(Value x, std::vector<int64_t> dims,
                  std::vector<int64_t> mapping);
  Value reshape(Value x, std::vector<int64_t> dims);
  Value transpose(Value x, std::vector<int64_t> permutation);
  Value slice(Value x, std::vector<int64_t> starts,
              std::vector<int64_t> limits);
  Value pad(Value x, std::vector<int64_t> low, std::vector<int64_t> high);
  Value concatenate(std::vector<Value> parts, int64_t dimension);
  Value dynamicSlice(Value x, std::vector<Value> starts,
                     std::vector<int64_t> sizes);

  /// dot_general with `batch` leading dimensions on both sides, one
  /// contracting dimension each, and one free dimension each.
  Value dot(Value lhs, Value rhs, int64_t batch, int64_t lhsContracting,
            int64_t rhsContracting);
  Value reduce(Value x, std::vector<int64_t> dims, const std::string &kind);
  /// Rows of `table` ([V, H]) at `indices` ([N]): [N, H].
  Value gatherRows(Value table, Value indices);
  /// `updates` ([N, H]) added into rows `indices` of `into` ([V, H]).
  Value scatterAddRows(Value into, Value indices, Value updates);

  // Collectives over `group`'s ranks.
  Value allReduce(Value x, Group group, const std::string &kind,
                  CollectiveGrad grad);
  Value allGather(Value x, Group group, int64_t dimension);
  Value reduceScatter(Value x, Group group, int64_t dimension);
  /// Stands for `x`; its cotangent is all-reduced over `group`.
  Value copyToGroup(Value x, Group group);
  int64_t groupSize(Group group) const;

  /// The gradients of `root` (seeded with `seed`, root's shape) with respect
  /// to each of `wrt`, made as instructions after the ones that exist; a
  /// zero for one that `root` does not depend on. Regions marked with
  /// markRecomputed are made again rather than kept (see Autodiff.cpp).
  std::vector<Value> gradients(Value root, Value seed,
                               const std::vector<Value> &wrt);

  /// Regions whose forward the backward makes again instead of keeping
  /// (selective activation checkpointing): the region's inputs, its output,
  /// and the first node of its forward.
  struct Recomputed {
    std::vector<Value> inputs;
    Value output;
    Value first;
  };
  void markRecomputed(std::vector<Value> inputs, Value output, Value first) {
    recomputed.push_back({std::move(inputs), output, first});
  }

  /// The module's text: `outputs` as the root tuple, `aliases` (output
  /// index, parameter number) as input_output_alias.
  std::string print(const std::vector<Value> &outputs,
                    const std::vector<std::pair<int, int>> &aliases) const;

  std::vector<Node> nodes;
  std::vector<Source> sources;

private:
  Value make(Node node);
  Value makeNode(const std::string &opcode, std::vector<Value> operands,
                 Shape shape);

  std::vector<std::vector<int64_t>> groups[3];
  std::vector<Recomputed> recomputed;
  int currentSource = 0;
  int parameters = 0;
};

} // namespace kiln::synth

#endif // KILN_SYNTH_HLOGRAPH_H
