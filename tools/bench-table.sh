#!/usr/bin/env bash
# Builds kiln (tools/bootstrap.sh), writes the benchmark workloads with
# kiln-synth into build/bench-workloads, and runs `kiln-bench table`: every
# benchmark on them, then one table of figures, each beside its floor or
# baseline measured in the same run. Options after the script's name go to
# kiln-bench table (-j N: precompile's workers).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

tools/bootstrap.sh >&2

synth=build/bin/kiln-synth
workloads=build/bench-workloads
rm -rf "$workloads"
mkdir -p "$workloads/import" "$workloads/scaling"

# Import and signatures: one graph of each seed workload (its first
# pipeline stage's optimizer step, the graph a run compiles most), and the
# last stage of the two deepest.
for preset in llama2-7b-tp8-zero1 llama2-13b-tp8-pp4 llama2-70b-tp8-pp8 \
              llama3-70b-tp32-pp8-kvrep4; do
  "$synth" --preset "$preset" -o "$workloads/import/$preset.stage0.hlo"
done
"$synth" --preset llama2-70b-tp8-pp8 --stage 7 \
  -o "$workloads/import/llama2-70b-tp8-pp8.stage7.hlo"
"$synth" --preset llama3-70b-tp32-pp8-kvrep4 --stage 7 \
  -o "$workloads/import/llama3-70b-tp32-pp8-kvrep4.stage7.hlo"

# Compile time against size: one tiny model at growing depth, from 757
# instructions to 51,014.
for layers in 1 2 4 8 16 32 96; do
  "$synth" --preset tiny --layers "$layers" \
    -o "$workloads/scaling/tiny-$(printf %02d "$layers")-layers.hlo"
done

# Precompile: the graph set of a run (every step kind of every stage).
"$synth" --preset tiny-llama2-13b-tp8-pp4 --graph-set "$workloads/precompile" \
  > /dev/null

exec build/bin/kiln-bench table --workloads "$workloads" "$@"
