"""A training loop as a training script writes it, through the kiln module.

  train.py GRAPH CACHE [--remote URL] [--steps N] [--expect-compiles N]

Loads GRAPH (a kiln-synth optimizer step) through kiln.Cache(CACHE,
remote), initialises the parameters with NumPy, runs N steps on one batch
feeding the step's updated weights, moments and step count back as the
next step's inputs (its input_output_alias), and prints each loss, whether
it fell every step, and how many graphs this process compiled.
"""

import argparse
import importlib.util
import os
import sys

import numpy as np

import kiln


def read_parameters(path):
    """Each parameter's name (op_name metadata), and the step's aliases, as
    kiln-synth's own training test reads them."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "synth_train", os.path.join(here, "..", "..", "Synth", "Inputs",
                                    "synth-train.py"))
    synth_train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth_train)
    params, aliases = synth_train.read_graph(path)
    return [name for name, _, _ in params], aliases


def initial_values(names, parameters, rng):
    vocab = next(p.shape[0] for n, p in zip(names, parameters)
                 if n == "model.embed_tokens.weight")
    values = []
    for name, parameter in zip(names, parameters):
        if name.startswith(("grad_acc.", "optimizer.")):
            values.append(np.zeros(parameter.shape, parameter.dtype))
        elif name in ("input_ids", "labels"):
            values.append(rng.integers(0, vocab, size=parameter.shape)
                          .astype(parameter.dtype))
        elif name == "lr":
            values.append(3e-3)  # a Python number for a scalar
        elif name.endswith("norm.weight"):
            values.append(np.ones(parameter.shape, parameter.dtype))
        else:
            values.append(rng.normal(0, 0.02, size=parameter.shape)
                          .astype(parameter.dtype))
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("graph")
    parser.add_argument("cache")
    parser.add_argument("--remote")
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()

    cache = kiln.Cache(args.cache, remote=args.remote)
    print("before: %s" % cache.check([args.graph])[0]["status"])
    step = cache.load(args.graph)
    print("loaded: from_cache=%s (%s)" % (step.from_cache, step.description))
    names, aliases = read_parameters(args.graph)
    values = initial_values(names, step.parameters, np.random.default_rng(0))

    # A wrong array is an error that names the parameter.
    wrong = list(values)
    wrong[4] = np.zeros((3, 3), np.float32)
    try:
        step(*wrong)
        print("wrong shape: accepted")
    except kiln.Error as error:
        print("wrong shape: %s" % error)
    wrong[4] = values[4].astype(np.float64)
    try:
        step(*wrong)
        print("wrong type: accepted")
    except kiln.Error as error:
        print("wrong type: %s" % error)

    losses = []
    for number in range(args.steps):
        results = step(*values)
        losses.append(float(results[0]))
        for output, parameter in aliases.items():
            values[parameter] = results[output]
        print("step %d loss %.5f" % (number + 1, losses[-1]))
    falling = all(b < a for a, b in zip(losses, losses[1:]))
    print("loss falls every step: %s" % ("yes" if falling else "NO"))
    print("compiled in this process: %d, loaded from the cache: %d"
          % (cache.compiles, cache.hits))
    return 0 if falling else 1


if __name__ == "__main__":
    sys.exit(main())
