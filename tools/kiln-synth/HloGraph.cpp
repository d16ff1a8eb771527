//===- HloGraph.cpp - a graph of HLO instructions, written as text --------===//
//
// This file implements the instructions kiln-synth makes and the printer of
// the module they form.
//
//===----------------------------------------------------------------------===//

#include "HloGraph.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

using namespace kiln::synth;

namespace {

std::string joined(const std::vector<int64_t> &values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

std::string groupsText(const std::vector<std::vector<int64_t>> &groups) {
  std::string text = "{";
  for (size_t i = 0; i < groups.size(); ++i)
    text += (i ? ",{" : "{") + joined(groups[i]) + "}";
  return text + "}";
}

/// A literal as HLO text writes it: integers without a point, floats
/// with up to 9 significant digits, and inf as `inf`.
std::string literal(const std::string &type, double value) {
  if (type == "pred")
    return value != 0 ? "true" : "false";
  if (type[0] == 's' || type[0] == 'u')
    return std::to_string((long long)value);
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

void fail(const std::string &what) { throw std::logic_error(what); }

} // namespace

std::string Shape::text() const {
  std::string text = type + "[" + joined(dims) + "]";
  if (!dims.empty()) {
    std::vector<int64_t> layout;
    for (int64_t i = (int64_t)dims.size() - 1; i >= 0; --i)
      layout.push_back(i);
    text += "{" + joined(layout) + "}";
  }
  return text;
}

Graph::Graph(std::vector<std::vector<int64_t>> tensorGroups,
             std::vector<std::vector<int64_t>> dataGroups,
             std::vector<std::vector<int64_t>> kvGroups) {
  groups[0] = std::move(tensorGroups);
  groups[1] = std::move(dataGroups);
  groups[2] = std::move(kvGroups);
  sources.push_back({"xla__device_data", "xla__device_data", "", 0});
}

void Graph::setSource(const std::string &opType, const std::string &opName,
                      const std::string &file, int line) {
  sources.push_back({opType, opName, file, line});
  currentSource = sources.size() - 1;
}

int64_t Graph::groupSize(Group group) const {
  const auto &list = groups[(int)group];
  return list.empty() ? 1 : list.front().size();
}

Value Graph::make(Node node) {
  node.source = currentSource;
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

Value Graph::makeNode(const std::string &opcode, std::vector<Value> operands,
                      Shape shape) {
  Node node;
  node.opcode = opcode;
  node.operands = std::move(operands);
  node.shape = std::move(shape);
  return make(std::move(node));
}

Value Graph::parameter(const Shape &shape, const std::string &name) {
  Node node;
  node.opcode = "parameter";
  node.shape = shape;
  node.dims = {parameters++};
  node.attribute = name;
  int saved = currentSource;
  currentSource = 0;
  Value v = make(std::move(node));
  currentSource = saved;
  return v;
}

Value Graph::constant(std::string type, double value) {
  Value v = makeNode("constant", {}, Shape{type, {}});
  nodes[v].attribute = literal(type, value);
  nodes[v].differentiable = false;
  return v;
}

Value Graph::denseConstant(const Shape &shape,
                           const std::vector<double> &values) {
  // Nested braces, one level per dimension.
  std::string text;
  std::vector<int64_t> index(shape.dims.size(), 0);
  int64_t count = shape.elements();
  for (int64_t i = 0; i < count; ++i) {
    size_t opened = shape.dims.size();
    while (opened > 0 && index[opened - 1] == 0)
      --opened;
    if (i > 0)
      text += ", ";
    for (size_t d = opened; d < shape.dims.size(); ++d)
      text += "{";
    text += literal(shape.type, values[i]);
    size_t d = shape.dims.size();
    while (d > 0) {
      --d;
      if (++index[d] < shape.dims[d])
        break;
      index[d] = 0;
      text += "}";
    }
  }
  Value v = makeNode("constant", {}, shape);
  nodes[v].attribute = text;
  nodes[v].differentiable = false;
  return v;
}

Value Graph::full(Shape shape, double value) {
  Value scalar = constant(shape.type, value);
  if (shape.dims.empty())
    return scalar;
  return broadcast(scalar, shape.dims, {});
}

Value Graph::iota(const Shape &shape, int64_t dimension) {
  Value v = makeNode("iota", {}, shape);
  nodes[v].dims = {dimension};
  nodes[v].differentiable = false;
  return v;
}

Value Graph::partitionId() {
  Value v = makeNode("partition-id", {}, Shape{"u32", {}});
  nodes[v].differentiable = false;
  return v;
}

Value Graph::unary(const std::string &opcode, Value x) {
  Value v = makeNode(opcode, {x}, shape(x));
  static const char *withGradient[] = {"negate", "exponential", "log",
                                       "rsqrt",  "logistic",    "copy"};
  bool known = false;
  for (const char *name : withGradient)
    known |= opcode == name;
  nodes[v].differentiable = known && nodes[x].differentiable;
  return v;
}

Value Graph::binary(const std::string &opcode, Value a, Value b) {
  if (!(shape(a) == shape(b)))
    fail(opcode + ": operands of shapes " + shape(a).text() + " and " +
         shape(b).text());
  Value v = makeNode(opcode, {a, b}, shape(a));
  bool known = opcode == "add" || opcode == "subtract" ||
               opcode == "multiply" || opcode == "divide";
  nodes[v].differentiable =
      known && (nodes[a].differentiable || nodes[b].differentiable);
  return v;
}

Value Graph::compare(Value a, Value b, const std::string &direction) {
  if (!(shape(a) == shape(b)))
    fail("compare: operands of shapes " + shape(a).text() + " and " +
         shape(b).text());
  Value v = makeNode("compare", {a, b}, Shape{"pred", shape(a).dims});
  nodes[v].attribute = direction;
  nodes[v].differentiable = false;
  return v;
}

Value Graph::select(Value predicate, Value onTrue, Value onFalse) {
  if (!(shape(onTrue) == shape(onFalse)) ||
      shape(predicate).dims != shape(onTrue).dims)
    fail("select: operands of shapes " + shape(predicate).text() + ", " +
         shape(onTrue).text() + " and " + shape(onFalse).text());
  Value v = makeNode("select", {predicate, onTrue, onFalse}, shape(onTrue));
  nodes[v].differentiable =
      nodes[onTrue].differentiable || nodes[onFalse].differentiable;
  return v;
}

Value Graph::convert(Value x, std::string type) {
  if (shape(x).type == type)
    return x;
  Value v = makeNode("convert", {x}, Shape{type, shape(x).dims});
  nodes[v].differentiable =
      nodes[x].differentiable && (type == "f32" || type == "bf16");
  return v;
}

Value Graph::scale(Value x, double factor) {
  return mul(x, full(shape(x), factor));
}

Value Graph::broadcast(Value x, std::vector<int64_t> dims,
                       std::vector<int64_t> mapping) {
  if (mapping.size() != shape(x).dims.size())
    fail("broadcast: mapping of the wrong rank");
  for (size_t i = 0; i < mapping.size(); ++i)
    if ((i && mapping[i] <= mapping[i - 1]) ||
        dims[mapping[i]] != shape(x).dims[i])
      fail("broadcast: a bad mapping of " + shape(x).text());
  Value v = makeNode("broadcast", {x}, Shape{shape(x).type, std::move(dims)});
  nodes[v].dims = std::move(mapping);
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

Value Graph::reshape(Value x, std::vector<int64_t> dims) {
  Shape result{shape(x).type, std::move(dims)};
  if (result.elements() != shape(x).elements())
    fail("reshape of " + shape(x).text() + " to " + result.text());
  if (result == shape(x))
    return x;
  Value v = makeNode("reshape", {x}, result);
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

Value Graph::transpose(Value x, std::vector<int64_t> permutation) {
  Shape result{shape(x).type, {}};
  for (int64_t d : permutation)
    result.dims.push_back(shape(x).dims.at(d));
  Value v = makeNode("transpose", {x}, result);
  nodes[v].dims = std::move(permutation);
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

Value Graph::slice(Value x, std::vector<int64_t> starts,
                   std::vector<int64_t> limits) {
  Shape result{shape(x).type, {}};
  for (size_t d = 0; d < starts.size(); ++d)
    result.dims.push_back(limits[d] - starts[d]);
  Value v = makeNode("slice", {x}, result);
  nodes[v].lists[0] = std::move(starts);
  nodes[v].lists[1] = std::move(limits);
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

Value Graph::pad(Value x, std::vector<int64_t> low, std::vector<int64_t> high) {
  Shape result{shape(x).type, {}};
  for (size_t d = 0; d < low.size(); ++d)
    result.dims.push_back(shape(x).dims[d] + low[d] + high[d]);
  Value zero = constant(shape(x).type, 0);
  Value v = makeNode("pad", {x, zero}, result);
  nodes[v].lists[0] = std::move(low);
  nodes[v].lists[1] = std::move(high);
  nodes[v].differentiable = false; // only ever made by a backward
  return v;
}

Value Graph::concatenate(std::vector<Value> parts, int64_t dimension) {
  Shape result = shape(parts.front());
  result.dims[dimension] = 0;
  bool differentiable = false;
  for (Value part : parts) {
    result.dims[dimension] += shape(part).dims[dimension];
    differentiable |= nodes[part].differentiable;
  }
  Value v = makeNode("concatenate", std::move(parts), result);
  nodes[v].dims = {dimension};
  nodes[v].differentiable = differentiable;
  return v;
}

Value Graph::dynamicSlice(Value x, std::vector<Value> starts,
                          std::vector<int64_t> sizes) {
  std::vector<Value> operands{x};
  operands.insert(operands.end(), starts.begin(), starts.end());
  Value v = makeNode("dynamic-slice", std::move(operands),
                     Shape{shape(x).type, sizes});
  nodes[v].dims = std::move(sizes);
  nodes[v].differentiable = false; // the optimizer's shards only
  return v;
}

Value Graph::dot(Value lhs, Value rhs, int64_t batch, int64_t lhsContracting,
                 int64_t rhsContracting) {
  const Shape &a = shape(lhs), &b = shape(rhs);
  if (a.dims.size() != (size_t)batch + 2 ||
      b.dims.size() != (size_t)batch + 2 ||
      a.dims[lhsContracting] != b.dims[rhsContracting])
    fail("dot of " + a.text() + " and " + b.text());
  Shape result{a.type, {}};
  std::vector<int64_t> batchDims;
  for (int64_t d = 0; d < batch; ++d) {
    result.dims.push_back(a.dims[d]);
    batchDims.push_back(d);
  }
  result.dims.push_back(a.dims[lhsContracting == batch ? batch + 1 : batch]);
  result.dims.push_back(b.dims[rhsContracting == batch ? batch + 1 : batch]);
  Value v = makeNode("dot", {lhs, rhs}, result);
  nodes[v].lists[0] = batchDims;
  nodes[v].lists[1] = {lhsContracting};
  nodes[v].lists[2] = batchDims;
  nodes[v].lists[3] = {rhsContracting};
  return v;
}

Value Graph::reduce(Value x, std::vector<int64_t> dims,
                    const std::string &kind) {
  Shape result{shape(x).type, {}};
  for (int64_t d = 0; d < (int64_t)shape(x).dims.size(); ++d) {
    bool reduced = false;
    for (int64_t r : dims)
      reduced |= r == d;
    if (!reduced)
      result.dims.push_back(shape(x).dims[d]);
  }
  Value init = constant(shape(x).type, kind == "add" ? 0.0 : -INFINITY);
  Value v = makeNode("reduce", {x, init}, result);
  nodes[v].dims = std::move(dims);
  nodes[v].attribute = kind;
  nodes[v].differentiable = kind == "add" && nodes[x].differentiable;
  return v;
}

Value Graph::gatherRows(Value table, Value indices) {
  Shape result{shape(table).type,
               {shape(indices).dims[0], shape(table).dims[1]}};
  Value v = makeNode("gather", {table, indices}, result);
  nodes[v].differentiable = nodes[table].differentiable;
  return v;
}

Value Graph::scatterAddRows(Value into, Value indices, Value updates) {
  Value v = makeNode("scatter", {into, indices, updates}, shape(into));
  nodes[v].attribute = "add";
  nodes[v].differentiable = false; // only ever made by a backward
  return v;
}

Value Graph::allReduce(Value x, Group group, const std::string &kind,
                       CollectiveGrad grad) {
  if (groupSize(group) == 1)
    return x;
  Value v = makeNode("all-reduce", {x}, shape(x));
  nodes[v].attribute = kind;
  nodes[v].group = group;
  nodes[v].collectiveGrad = grad;
  nodes[v].differentiable = kind == "add" && nodes[x].differentiable;
  return v;
}

Value Graph::allGather(Value x, Group group, int64_t dimension) {
  if (groupSize(group) == 1)
    return x;
  Shape result = shape(x);
  result.dims[dimension] *= groupSize(group);
  Value v = makeNode("all-gather", {x}, result);
  nodes[v].dims = {dimension};
  nodes[v].group = group;
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

Value Graph::reduceScatter(Value x, Group group, int64_t dimension) {
  if (groupSize(group) == 1)
    return x;
  Shape result = shape(x);
  if (result.dims[dimension] % groupSize(group))
    fail("reduce-scatter of " + result.text() + " over " +
         std::to_string(groupSize(group)) + " ranks");
  result.dims[dimension] /= groupSize(group);
  Value v = makeNode("reduce-scatter", {x}, result);
  nodes[v].dims = {dimension};
  nodes[v].attribute = "add";
  nodes[v].group = group;
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

Value Graph::copyToGroup(Value x, Group group) {
  if (groupSize(group) == 1)
    return x;
  Value v = makeNode("", {x}, shape(x));
  nodes[v].group = group;
  nodes[v].copyToGroup = true;
  nodes[v].differentiable = nodes[x].differentiable;
  return v;
}

std::string
Graph::print(const std::vector<Value> &outputs,
             const std::vector<std::pair<int, int>> &aliases) const {
  // Instruction numbers are unique in the module, as PyTorch/XLA numbers
  // them: the reduction computations first, then the entry's instructions.
  int counter = 1;
  std::string computations;
  std::map<std::string, std::string> computationNames;
  auto computationFor = [&](const std::string &kind, const std::string &type) {
    std::string key = kind + ":" + type;
    auto found = computationNames.find(key);
    if (found != computationNames.end())
      return found->second;
    std::string base = kind == "add" ? "AddComputation" : "MaxComputation";
    std::string name = base + "." + std::to_string(counter++);
    std::string x = "x." + std::to_string(counter++);
    std::string y = "y." + std::to_string(counter++);
    std::string root =
        (kind == "add" ? "add." : "maximum.") + std::to_string(counter++);
    computations += "%" + name + " (" + x + ": " + type + "[], " + y + ": " +
                    type + "[]) -> " + type + "[] {\n  %" + x + " = " + type +
                    "[] parameter(0)\n  %" + y + " = " + type +
                    "[] parameter(1)\n  ROOT %" + root + " = " + type + "[] " +
                    (kind == "add" ? "add" : "maximum") + "(" + type + "[] %" +
                    x + ", " + type + "[] %" + y + ")\n}\n\n";
    computationNames[key] = name;
    return name;
  };
  for (const Node &node : nodes)
    if (node.opcode == "reduce" || node.opcode == "scatter" ||
        node.opcode == "all-reduce" || node.opcode == "reduce-scatter")
      computationFor(node.attribute, node.shape.type);

  // Names: a no-instruction node is its operand.
  std::vector<std::string> names(nodes.size());
  std::vector<const Node *> parametersInOrder;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &node = nodes[i];
    if (node.opcode.empty())
      names[i] = names[node.operands[0]];
    else if (node.opcode == "parameter")
      names[i] =
          "p" + std::to_string(node.dims[0]) + "." + std::to_string(counter++);
    else
      names[i] = node.opcode + "." + std::to_string(counter++);
  }
  std::string tupleName = "tuple." + std::to_string(counter++);
  std::string entryName = "SyncTensorsGraph." + std::to_string(counter++);

  std::string body;
  std::string signature;
  std::vector<std::pair<int64_t, std::string>> parameterList;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &node = nodes[i];
    if (node.opcode.empty())
      continue;
    const Source &source =
        nodes[i].opcode == "parameter" ? sources[0] : sources[node.source];
    std::string line =
        "  %" + names[i] + " = " + node.shape.text() + " " + node.opcode + "(";
    for (size_t o = 0; o < node.operands.size(); ++o)
      line += (o ? ", " : "") + nodes[node.operands[o]].shape.text() + " %" +
              names[node.operands[o]];
    if (node.opcode == "parameter")
      line += std::to_string(node.dims[0]);
    if (node.opcode == "constant")
      line += node.attribute;
    line += ")";
    const std::string &op = node.opcode;
    auto groupText = [&] {
      return ", replica_groups=" + groupsText(groups[(int)node.group]);
    };
    if (op == "broadcast" || op == "transpose" || op == "concatenate" ||
        op == "reduce")
      line += ", dimensions={" + joined(node.dims) + "}";
    if (op == "iota")
      line += ", iota_dimension=" + std::to_string(node.dims[0]);
    if (op == "compare")
      line += ", direction=" + node.attribute;
    if (op == "dynamic-slice")
      line += ", dynamic_slice_sizes={" + joined(node.dims) + "}";
    if (op == "slice") {
      line += ", slice={";
      for (size_t d = 0; d < node.lists[0].size(); ++d)
        line += (d ? ", [" : "[") + std::to_string(node.lists[0][d]) + ":" +
                std::to_string(node.lists[1][d]) + "]";
      line += "}";
    }
    if (op == "pad") {
      line += ", padding=";
      for (size_t d = 0; d < node.lists[0].size(); ++d)
        line += (d ? "x" : "") + std::to_string(node.lists[0][d]) + "_" +
                std::to_string(node.lists[1][d]);
    }
    if (op == "dot") {
      if (!node.lists[0].empty())
        line += ", lhs_batch_dims={" + joined(node.lists[0]) + "}";
      line += ", lhs_contracting_dims={" + joined(node.lists[1]) + "}";
      if (!node.lists[2].empty())
        line += ", rhs_batch_dims={" + joined(node.lists[2]) + "}";
      line += ", rhs_contracting_dims={" + joined(node.lists[3]) + "}";
    }
    if (op == "gather")
      line += ", offset_dims={1}, collapsed_slice_dims={0}, "
              "start_index_map={0}, index_vector_dim=1, slice_sizes={1," +
              std::to_string(node.shape.dims[1]) + "}";
    if (op == "scatter")
      line += ", update_window_dims={1}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, index_vector_dim=1";
    if (op == "all-reduce" || op == "all-gather" || op == "reduce-scatter")
      line += groupText();
    if (op == "all-gather" || op == "reduce-scatter")
      line += ", dimensions={" + joined(node.dims) + "}";
    if (op == "reduce" || op == "scatter" || op == "all-reduce" ||
        op == "reduce-scatter")
      line += ", to_apply=%" +
              computationNames.at(node.attribute + ":" + node.shape.type);
    line += ", metadata={op_type=\"" + source.opType + "\" op_name=\"" +
            (op == "parameter" ? node.attribute : source.opName) + "\"";
    if (!source.file.empty())
      line += " source_file=\"" + source.file +
              "\" source_line=" + std::to_string(source.line);
    line += "}\n";
    body += line;
    if (op == "parameter")
      parameterList.push_back({node.dims[0], names[i] + ": " + node.shape.type +
                                                 "[" + joined(node.shape.dims) +
                                                 "]"});
  }
  std::string root = "  ROOT %" + tupleName + " = (";
  std::string operands;
  for (size_t o = 0; o < outputs.size(); ++o) {
    root += (o ? ", " : "") + nodes[outputs[o]].shape.text();
    operands += (o ? ", " : "") + nodes[outputs[o]].shape.text() + " %" +
                names[outputs[o]];
  }
  root += ") tuple(" + operands + ")\n";

  std::string resultTypes;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Shape &s = nodes[outputs[o]].shape;
    resultTypes += (o ? ", " : "") + s.type + "[" + joined(s.dims) + "]";
  }
  for (size_t p = 0; p < parameterList.size(); ++p)
    signature += (p ? ", " : "") + parameterList[p].second;

  std::vector<std::pair<int, int>> sortedAliases = aliases;
  std::sort(sortedAliases.begin(), sortedAliases.end());
  std::string module = "HloModule " + entryName;
  if (!sortedAliases.empty()) {
    module += ", input_output_alias={ ";
    for (size_t a = 0; a < sortedAliases.size(); ++a)
      module += (a ? ", {" : "{") + std::to_string(sortedAliases[a].first) +
                "}: (" + std::to_string(sortedAliases[a].second) +
                ", {}, must-alias)";
    module += " }";
  }
  return module + "\n\n" + computations + "ENTRY %" + entryName + " (" +
         signature + ") -> (" + resultTypes + ") {\n" + body + root + "}\n\n";
}
