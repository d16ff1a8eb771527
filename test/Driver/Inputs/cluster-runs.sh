#!/bin/bash
# cluster-runs.sh KILN PYTHON DIR KIND: a precompile on 4 nodes (4 processes
# with --nodes 4 --node-rank R, each with its own local cache and its own,
# overlapping graph list, as data-parallel replicas have) sharing one remote
# tier (KIND: file or redis); then the same with one node killed mid-run.
# Prints what FileCheck checks.
kiln=$1 python=$2 dir=$3 kind=$4
inputs=$(cd "$(dirname "$0")" && pwd)
fake="sh $inputs/fake-compiler.sh"
version="--compiler-version-cmd=echo fake 1"
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/../../Cache/Inputs/remote-servers.sh" "$dir/servers"
sh "$inputs/make-graphs.sh" "$dir/all" 10
unset KILN_REMOTE_STORAGE SLURM_JOB_ID SLURM_NTASKS SLURM_PROCID
export XDG_CONFIG_HOME=$dir/config
case $kind in
file) remote="file:$dir/shared" ;;
redis) start_redis; remote="redis://127.0.0.1:$REDIS_PORT" ;;
esac
# Node r has graphs 2r+1 .. 2r+4: two of its own, two shared with the next.
for r in 0 1 2 3; do
  mkdir -p "$dir/node$r"
  for i in 1 2 3 4; do
    n=$(( (2 * r + i - 1) % 10 + 1 ))
    cp "$dir/all/g$n.hlo" "$dir/node$r/g$n.hlo"
  done
done
distinct=$(cat "$dir"/node*/g*.hlo | sort -u | wc -l)

export KILN_TEST_COMPILE_LOG=$dir/calls.txt KILN_TEST_DELAY=0.3
run_node() { # rank, run id, seconds the first node waits for the others
  exec "$kiln" precompile --nodes 4 --node-rank "$1" --run-id "$2" \
    --cache-dir "$dir/local$1" --remote "$remote" -j 1 "$dir/node$1" "$version" \
    --compiler-cmd "$fake slow {input} {output}" --report "$dir/$2.$1.json" \
    --trace "$dir/trace-$2.json" \
    --cluster-wait "$3" > "$dir/$2.$1.txt" 2>&1
}
for r in 0 1 2 3; do run_node $r one 60 & eval "pid$r=$!"; done
for r in 0 1 2 3; do eval "wait \$pid$r"; echo "node $r: exit $?"; done
echo "distinct graphs: $(ls "$dir/all" | wc -l)"
echo "compilations: $(wc -l < "$dir/calls.txt")"
"$python" - "$dir"/one.*.json <<'PY'
import json, sys
total = 0
each = []
for path in sorted(sys.argv[1:]):
    totals = json.load(open(path))["totals"]
    done = totals["compiled"] + totals.get("compiled_for_other_nodes", 0)
    total += done
    each.append(done)
print("compiled in the reports:", total)
print("every node compiled:", all(n >= 1 for n in each))
PY
grep -h -E '^(Total graphs|Compiled for other nodes):' "$dir/one.1.txt" | sed 's/[0-9][0-9]*/N/'
grep -E '^Cluster:' "$dir/one.0.txt"
case $kind in
file) times=$(ls "$dir/shared/runs/compile-times" | wc -l) ;;
redis) times=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'kiln:run:compile-times/*' | wc -l) ;;
esac
echo "compile times recorded: $times"
"$python" - "$dir/trace-one.cluster.json" "$dir"/trace-one.node*.json <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
nodes = [e for e in events if e["name"] == "process_name"]
compiles = [e for e in events if e.get("cat") == "compile"]
print("cluster trace:", len(nodes), "nodes,", len(compiles), "compilations")
print("node traces:", len(sys.argv) - 2)
PY
grep -c '^  node [0-3] (' "$dir/one.0.txt"
for r in 0 1 2 3; do
  "$kiln" cache check --require-all --cache-dir "$dir/local$r" --remote '' \
    "$dir/node$r" "$version" | grep '^Cache hits'
done

# One node SIGKILLed mid-run: the others finish every graph of theirs.
rm -f "$dir/calls.txt"
export KILN_TEST_DELAY=1
for r in 0 1 2 3; do rm -rf "$dir/local$r"; done
sh "$inputs/make-graphs.sh" "$dir/all2" 10
for r in 0 1 2 3; do
  rm -rf "$dir/node$r"; mkdir -p "$dir/node$r"
  for i in 1 2 3 4; do
    n=$(( (2 * r + i - 1) % 10 + 1 ))
    sed 's/add(/add(/; s/constant(\([0-9]*\))/constant(\1.5)/' "$dir/all2/g$n.hlo" > "$dir/node$r/g$n.hlo"
  done
done
for r in 0 1 2 3; do run_node $r two 2 & eval "pid$r=$!"; done
for _ in $(seq 200); do [ -s "$dir/calls.txt" ] && break; sleep 0.05; done
kill -9 $pid3; wait $pid3 2>/dev/null
for r in 0 1 2; do eval "wait \$pid$r"; echo "node $r after the kill: exit $?"; done
for r in 0 1 2; do
  "$kiln" cache check --require-all --cache-dir "$dir/local$r" --remote '' \
    "$dir/node$r" "$version" | grep '^Cache hits'
done
grep -E '^  node 3: no results' "$dir/two.0.txt"
