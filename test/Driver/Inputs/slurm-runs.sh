#!/bin/bash
# slurm-runs.sh KILN PYTHON DIR KIND: `srun -N4 kiln precompile --remote URL`
# on a real Slurm of 4 nodes (slurm.sh), each node with its own local cache
# and its own, overlapping graph list; then the same with one task killed
# mid-run. Prints what FileCheck checks.
kiln=$1 python=$2 dir=$3 kind=$4
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/../../Cache/Inputs/remote-servers.sh" "$dir/servers"
. "$inputs/slurm.sh" "$dir/slurm"
sh "$inputs/make-graphs.sh" "$dir/all" 10
unset KILN_REMOTE_STORAGE
export XDG_CONFIG_HOME=$dir/config
case $kind in
file) remote="file:$dir/shared" ;;
redis) start_redis; remote="redis://127.0.0.1:$REDIS_PORT" ;;
esac
make_lists() { # run: node K has graphs 2K+1 .. 2K+4 of DIR/all (variant $1)
  for r in 0 1 2 3; do
    rm -rf "$dir/$1/node$r" && mkdir -p "$dir/$1/node$r"
    for i in 1 2 3 4; do
      n=$(( (2 * r + i - 1) % 10 + 1 ))
      sed "s/constant(\([0-9]*\))/constant(\1.$2)/" "$dir/all/g$n.hlo" > "$dir/$1/node$r/g$n.hlo"
    done
  done
}
fake="sh $inputs/fake-compiler.sh"
node_command() { # run
  cat <<CMD
echo \$\$ > $dir/$1/pid.\$SLURM_NODEID
exec "$kiln" precompile --cache-dir "$dir/$1/local\$SLURM_NODEID" --remote "$remote" \
  -j 1 "$dir/$1/node\$SLURM_NODEID" --compiler-version-cmd "echo fake 1" \
  --compiler-cmd "$fake slow {input} {output}" --report "$dir/$1/report.\$SLURM_NODEID.json" \
  --cluster-wait $2 > "$dir/$1/out.\$SLURM_NODEID.txt" 2>&1
CMD
}
export KILN_TEST_COMPILE_LOG=$dir/calls.txt KILN_TEST_DELAY=0.3

# A kiln-synth training run's graphs, every rank's: node k runs pipeline
# stage k/2 of data-parallel replica k%2 (both tensor-parallel ranks), so
# the replicas' nodes trace the same graphs, as on a real cluster.
"$(dirname "$kiln")/kiln-synth" --preset tiny --tp 2 --pp 2 --dp 2 \
  --graph-set "$dir/set" --all-ranks > /dev/null
for file in "$dir"/set/*.hlo; do
  name=$(basename "$file")
  stage=$(echo "$name" | sed 's/.*stage\([0-9]*\).*/\1/')
  replica=$(echo "$name" | sed 's/.*dp\([0-9]*\).*/\1/')
  node=$(( stage * 2 + replica ))
  mkdir -p "$dir/one/node$node" && cp "$file" "$dir/one/node$node/"
done
distinct=$("$kiln" hash "$dir"/one/node* --compiler-version-cmd "echo fake 1" |
  awk '{print $2}' | sort -u | wc -l)
timeout 300 srun -N4 --ntasks-per-node=1 bash -c "$(node_command one 60)"
echo "srun: exit $?"
[ "$(wc -l < "$dir/calls.txt")" -eq "$distinct" ] &&
  echo "compilations: one per distinct graph" ||
  echo "compilations: $(wc -l < "$dir/calls.txt"), distinct graphs: $distinct"
"$python" - "$distinct" "$dir"/one/report.*.json <<'PY'
import json, sys
each = []
for path in sorted(sys.argv[2:]):
    totals = json.load(open(path))["totals"]
    each.append(totals["compiled"] + totals.get("compiled_for_other_nodes", 0))
print("reports:", len(each), "compiled in them:", sum(each), "of", sys.argv[1])
print("every node compiled:", all(n >= 1 for n in each))
PY
grep -h -E '^kiln precompile: node [0-3] of 4 \(n[1-4]\) in run slurm-' "$dir"/one/out.*.txt | sed 's/run slurm-[0-9.]*/run slurm-ID/' | sort
grep -E '^Cluster:' "$dir/one/out.0.txt" | sed "s/($distinct distinct)/(DISTINCT distinct)/"
for r in 0 1 2 3; do
  "$kiln" cache check --require-all --cache-dir "$dir/one/local$r" --remote '' \
    "$dir/one/node$r" --compiler-version-cmd "echo fake 1" | grep '^Total graphs\|^Cache hits' | tr '\n' ' '
  echo
done

# One task SIGKILLed mid-run: the others finish every graph of theirs.
rm -f "$dir/calls.txt"
export KILN_TEST_DELAY=1
make_lists two 2
timeout 300 srun -N4 --ntasks-per-node=1 bash -c "$(node_command two 2)" 2>/dev/null &
step=$!
for _ in $(seq 400); do [ -s "$dir/two/pid.3" ] && [ -s "$dir/calls.txt" ] && break; sleep 0.05; done
kill -9 "$(cat "$dir/two/pid.3")"
wait $step
for r in 0 1 2; do
  "$kiln" cache check --require-all --cache-dir "$dir/two/local$r" --remote '' \
    "$dir/two/node$r" --compiler-version-cmd "echo fake 1" | grep '^Cache hits'
done
grep -E '^  node 3: no results' "$dir/two/out.0.txt"

# Two tasks on each of two nodes (--ntasks-per-node=2): each task its own
# graphs, the node's first task compiles for both.
rm -f "$dir/calls.txt"
export KILN_TEST_DELAY=0.3
make_lists three 3
timeout 300 srun -N2 --ntasks-per-node=2 bash -c "
exec \"$kiln\" precompile --cache-dir \"$dir/three/local\$SLURM_NODEID\" --remote \"$remote\" \
  \"$dir/three/node\$SLURM_PROCID\" --compiler-version-cmd 'echo fake 1' \
  --compiler-cmd '$fake slow {input} {output}' --cluster-wait 60 \
  > \"$dir/three/out.\$SLURM_PROCID.txt\" 2>&1"
echo "srun with two tasks per node: exit $?"
echo "compilations: $(wc -l < "$dir/calls.txt")"
for r in 0 1 2 3; do
  grep -E '^Total successful compilations' "$dir/three/out.$r.txt" | sed "s/^/task $r: /"
done
for r in 0 1 2 3; do
  "$kiln" cache check --require-all --cache-dir "$dir/three/local$((r / 2))" --remote '' \
    "$dir/three/node$r" --compiler-version-cmd "echo fake 1" | grep '^Cache hits'
done
