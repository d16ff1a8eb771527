"""Runs kiln-synth's training steps with kiln and checks what they compute.

  synth-train.py train KILN GRAPH --steps N
      compiles GRAPH (an optimizer step), runs it N times on one fixed
      batch, feeding each step's updated weights, moments and step count
      back through the graph's input_output_alias; prints each loss.
  synth-train.py gradcheck KILN ACCUMULATE EVAL
      the gradients the accumulate step adds against central finite
      differences of the eval step's loss along each gradient, for a few
      weights.
  synth-train.py tp KILN ONE TWO
      the same step at TP=1 (ONE) and at TP=2 (TWO, made with --tp-rank
      device), each rank given its slices of ONE's weights: the losses and
      every tensor the step updates (the accumulated gradients of an
      accumulate step, the weights and moments of an optimizer step) must
      agree, each rank's with its slice of ONE's.

Parameters are recognised by the names kiln-synth gives them in their
metadata (op_name); weights start as a model's would (normal 0.02, norms
1), moments and accumulators at zero.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def read_graph(path):
    text = open(path).read()
    header = text.split("\n", 1)[0]
    aliases = {int(o): int(p) for o, p in
               re.findall(r"\{(\d+)\}: \((\d+), \{\}", header)}
    params = {}
    for m in re.finditer(r"%p(\d+)\.\d+ = (\w+)\[([\d,]*)\][^\n]*parameter\("
                         r"\d+\)[^\n]*op_name=\"([^\"]+)\"", text):
        number, dtype, dims, name = m.groups()
        shape = tuple(int(d) for d in dims.split(",") if d)
        params[int(number)] = (name, dtype, shape)
    return [params[i] for i in range(len(params))], aliases


def initial_values(params, vocab, seed=0):
    rng = np.random.default_rng(seed)
    values = []
    for name, dtype, shape in params:
        if name.startswith(("grad_acc.", "optimizer.")):
            values.append(np.zeros(shape, np.float32))
        elif name in ("input_ids", "labels"):
            values.append(rng.integers(0, vocab, size=shape).astype(np.int64))
        elif name == "lr":
            values.append(np.array(3e-3, np.float32))
        elif name.endswith("norm.weight"):
            values.append(np.ones(shape, np.float32))
        else:
            values.append(rng.normal(0, 0.02, size=shape).astype(np.float32))
    return values


def run(kiln, artifact, values, workdir, ranks=1):
    inputs = os.path.join(workdir, "inputs.npz")
    outputs = os.path.join(workdir, "outputs.npz")
    arrays = {}
    if ranks == 1:
        for i, v in enumerate(values):
            arrays["arg_%d" % i] = v
    else:
        for r, rank_values in enumerate(values):
            for i, v in enumerate(rank_values):
                arrays["rank_%d_arg_%d" % (r, i)] = v
    np.savez(inputs, **arrays)
    command = [kiln, "run", artifact, "--inputs", inputs, "-o", outputs]
    if ranks > 1:
        command += ["--ranks", str(ranks)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with np.load(outputs) as data:
        if ranks == 1:
            return [data["result_%d" % i] for i in range(len(data.files))]
        count = len(data.files) // ranks
        return [[data["rank_%d_result_%d" % (r, i)] for i in range(count)]
                for r in range(ranks)]


def compile_graph(kiln, graph, workdir):
    artifact = os.path.join(workdir, os.path.basename(graph) + ".artifact")
    subprocess.run([kiln, "compile", graph, "-o", artifact], check=True,
                   stdout=subprocess.DEVNULL)
    return artifact


def vocab_of(params):
    for name, _, shape in params:
        if name == "model.embed_tokens.weight":
            return shape[0]
    raise SystemExit("no embedding in the graph")


def train(kiln, graph, steps, workdir):
    params, aliases = read_graph(graph)
    values = initial_values(params, vocab_of(params))
    artifact = compile_graph(kiln, graph, workdir)
    losses = []
    for step in range(steps):
        results = run(kiln, artifact, values, workdir)
        losses.append(float(results[0]))
        for output, parameter in aliases.items():
            values[parameter] = results[output]
        print("step %d loss %.6f" % (step + 1, losses[-1]))
    falling = all(b < a for a, b in zip(losses, losses[1:]))
    print("loss falls every step: %s" % ("yes" if falling else "NO"))
    print("loss fell by %.1f%%" % (100 * (losses[0] - losses[-1]) / losses[0]))
    return 0 if falling else 1


def gradcheck(kiln, accumulate, evaluate, workdir):
    params, aliases = read_graph(accumulate)
    eval_params, _ = read_graph(evaluate)
    values = initial_values(params, vocab_of(params))
    by_name = {name: v for (name, _, _), v in zip(params, values)}
    eval_values = [by_name[name] for name, _, _ in eval_params]
    results = run(kiln, compile_graph(kiln, accumulate, workdir), values,
                  workdir)
    grads = {}
    for output, parameter in aliases.items():
        name = params[parameter][0][len("grad_acc."):]
        grads[name] = results[output]
    eval_artifact = compile_graph(kiln, evaluate, workdir)
    index_of = {name: i for i, (name, _, _) in enumerate(eval_params)}
    chosen = ["model.embed_tokens.weight",
              "model.layers.0.self_attn.q_proj.weight",
              "model.layers.0.self_attn.v_proj.weight",
              "model.layers.1.mlp.down_proj.weight",
              "model.layers.1.post_attention_layernorm.weight",
              "lm_head.weight"]
    # The derivative along each weight's gradient, from a step of 1% of the
    # weight's norm (at least 0.01) in that direction: the signal,
    # |gradient| times the step, stays far above the loss's f32 rounding,
    # and the step is small against the weight.
    worst = 0.0
    for name in chosen:
        eps = 1e-2 * max(1.0, float(np.linalg.norm(by_name[name])))
        grad = grads[name].astype(np.float64)
        norm = float(np.linalg.norm(grad))
        direction = (grad / norm).astype(np.float32)
        losses = []
        for sign in (1, -1):
            trial = [v.copy() for v in eval_values]
            trial[index_of[name]] += sign * eps * direction
            losses.append(float(
                run(kiln, eval_artifact, trial, workdir)[0]))
        numeric = (losses[0] - losses[1]) / (2 * eps)
        error = abs(numeric - norm) / norm
        worst = max(worst, error)
        print("%s: |gradient| %.6g, finite difference %.6g, relative error "
              "%.2g" % (name, norm, numeric, error))
    print("worst relative error %.2g" % worst)
    return 0 if worst < 2e-2 else 1


def shard(name, value, rank, ranks, shape):
    """Rank `rank`'s part of a TP=1 weight, as NeuronX Distributed splits it;
    the whole weight where the rank holds a copy (a replicated kv head)."""
    if value.shape == tuple(shape):
        return value
    rows = ("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj",
            "embed_tokens", "lm_head")
    columns = ("o_proj", "down_proj")
    if any(part in name for part in rows):
        return np.split(value, ranks, axis=0)[rank]
    if any(part in name for part in columns):
        return np.split(value, ranks, axis=1)[rank]
    return value


def strip_state_prefix(name):
    """The weight that an accumulator or a moment belongs to."""
    for prefix in ("grad_acc.", "optimizer.exp_avg_sq.", "optimizer.exp_avg."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def tp(kiln, one, two, workdir):
    params1, aliases1 = read_graph(one)
    params2, aliases2 = read_graph(two)
    values1 = initial_values(params1, vocab_of(params1))
    by_name = {name: v for (name, _, _), v in zip(params1, values1)}
    ranks = 2
    values2 = []
    for rank in range(ranks):
        values2.append([])
        for name, _, shape in params2:
            value = shard(strip_state_prefix(name), by_name[name], rank,
                          ranks, shape)
            assert value.shape == shape, (name, value.shape, shape)
            values2[rank].append(np.ascontiguousarray(value))
    results1 = run(kiln, compile_graph(kiln, one, workdir), values1, workdir)
    results2 = run(kiln, compile_graph(kiln, two, workdir), values2, workdir,
                   ranks)
    worst_loss = max(abs(float(results2[r][0]) - float(results1[0]))
                     for r in range(ranks))
    print("loss TP=1 %.6f TP=2 %.6f %.6f" % (
        float(results1[0]), float(results2[0][0]), float(results2[1][0])))
    worst = 0.0
    compared = 0
    for output, parameter in aliases1.items():
        name = params1[parameter][0]
        base = strip_state_prefix(name)
        output2 = [o for o, p in aliases2.items() if params2[p][0] == name][0]
        expected = results1[output]
        scale = max(float(np.max(np.abs(expected))), 1e-30)
        for rank in range(ranks):
            got = results2[rank][output2]
            want = shard(base, expected, rank, ranks, got.shape)
            worst = max(worst, float(np.max(np.abs(got - want))) / scale)
            compared += 1
    print("updated tensors compared: %d (rank parts), worst error %.2g of "
          "the largest element" % (compared, worst))
    ok = worst_loss < 1e-5 and worst < 1e-3
    print("TP=2 matches TP=1: %s" % ("yes" if ok else "NO"))
    return 0 if ok else 1


def main():
    mode, kiln = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as workdir:
        if mode == "train":
            steps = int(sys.argv[sys.argv.index("--steps") + 1])
            return train(kiln, sys.argv[3], steps, workdir)
        if mode == "gradcheck":
            return gradcheck(kiln, sys.argv[3], sys.argv[4], workdir)
        if mode == "tp":
            return tp(kiln, sys.argv[3], sys.argv[4], workdir)
    raise SystemExit("unknown mode " + mode)


if __name__ == "__main__":
    sys.exit(main())
