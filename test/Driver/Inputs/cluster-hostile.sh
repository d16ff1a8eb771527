#!/bin/bash
# cluster-hostile.sh KILN PYTHON DIR: a cluster run's shared files holding
# what no node of this run wrote, and a node whose compiler fails; each
# case once found misbehaving. Prints what FileCheck checks.
kiln=$1 python=$2 dir=$3
inputs=$(cd "$(dirname "$0")" && pwd)
fake="sh $inputs/fake-compiler.sh"
version="--compiler-version-cmd=echo fake 1"
rm -rf "$dir" && mkdir -p "$dir"
sh "$inputs/make-graphs.sh" "$dir/all" 6
unset KILN_REMOTE_STORAGE SLURM_JOB_ID SLURM_NTASKS SLURM_PROCID SLURM_STEP_ID
export XDG_CONFIG_HOME=$dir/config
mkdir -p "$dir/a" "$dir/b"
cp "$dir/all/g1.hlo" "$dir/a/"
cp "$dir/all/g2.hlo" "$dir/all/g3.hlo" "$dir/all/g4.hlo" "$dir/all/g5.hlo" "$dir/b/"
node() { # rank, run id, compiler mode, graphs, extra...
  local rank=$1 id=$2 mode=$3 graphs=$4
  shift 4
  "$kiln" precompile --nodes 2 --node-rank "$rank" --run-id "$id" \
    --cache-dir "$dir/local-$id-$rank" --remote "file:$dir/shared" -j 1 \
    "$graphs" "$version" --compiler-cmd "$fake $mode {input} {output}" "$@"
}

echo "== a node whose compiler fails does not fail the other node's graphs"
export KILN_TEST_DELAY=0.5
node 1 bad slow "$dir/b" --cluster-wait 0 > "$dir/bad.1.txt" 2>&1 &
first=$!
sleep 0.3
node 0 bad fail "$dir/a" --cluster-wait 30 > "$dir/bad.0.txt" 2>&1
echo "failing node: exit $?"
wait $first; echo "other node: exit $?"
grep -E '^Total successful' "$dir/bad.1.txt"
echo "failures recorded in the tier: $(find "$dir/shared" -name '*.failed' | wc -l)"

echo "== files of no node of this run are left out"
mkdir -p "$dir/shared/runs/forged/results" "$dir/shared/runs/forged/nodes"
# An earlier run's results, a rank beyond the run, workers out of range.
echo '{"rank":1,"host":"old","graphs":9,"compiled":9,"workers":2,"finished_ms":1000}' \
  > "$dir/shared/runs/forged/results/1"
echo '{"rank":5,"host":"nobody","graphs":1,"workers":-1,"finished_ms":99999999999999}' \
  > "$dir/shared/runs/forged/results/5"
mkfifo "$dir/shared/runs/forged/nodes/1"
# JSON nested 200000 deep (regression: the parser recursed off the stack).
"$python" -c 'print("[" * 200000 + "]" * 200000)' > "$dir/shared/runs/forged/results/3"
sig=$("$kiln" hash "$dir/a/g1.hlo" | awk '{print $1}')
mkdir -p "$dir/shared/runs/compile-times" && echo nan > "$dir/shared/runs/compile-times/$sig"
rm -rf "$dir/local-forged-0"
timeout 60 "$kiln" precompile --nodes 2 --node-rank 0 --run-id forged \
  --cache-dir "$dir/local-forged-0" --remote "file:$dir/shared" "$dir/a" "$version" \
  --compiler-cmd "$fake ok {input} {output}" --option opt-level=1 --cluster-wait 1 \
  --trace "$dir/forged.json" 2>&1 | grep -E '^Cluster:|^  node'
echo "exit ${PIPESTATUS[0]}"
"$python" -c 'import json, sys; json.load(open(sys.argv[1])); print("its list reads as JSON")' \
  "$dir/shared/runs/forged/nodes/0"
ls "$dir/forged.cluster.json" > /dev/null && echo "cluster trace written"

echo "== a batch script is no job step"
nodes=$(env SLURM_JOB_ID=9 SLURM_NTASKS=4 SLURM_PROCID=0 "$kiln" precompile \
  --cache-dir "$dir/batch" --remote "file:$dir/shared" "$dir/a" "$version" \
  --compiler-cmd "$fake ok {input} {output}" 2>&1 | grep -cE 'node [0-9]+ of')
echo "$nodes"
