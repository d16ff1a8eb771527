#!/bin/bash
# remote-runs.sh KILN PYTHON DIR KIND: two precompiles at once, each with
# its own local cache, sharing one remote tier (KIND: file or redis) for
# entries and leases: each graph is compiled once in total, and each run
# ends with every graph in its own local cache. Prints what FileCheck
# checks.
kiln=$1 python=$2 dir=$3 kind=$4
inputs=$(cd "$(dirname "$0")" && pwd)
fake="sh $inputs/fake-compiler.sh"
version="--compiler-version-cmd=echo fake 1"
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/../../Cache/Inputs/remote-servers.sh" "$dir/servers"
sh "$inputs/make-graphs.sh" "$dir/graphs" 6
unset KILN_REMOTE_STORAGE
export XDG_CONFIG_HOME=$dir/config
case $kind in
file) remote="file:$dir/shared" ;;
redis) start_redis; remote="redis://127.0.0.1:$REDIS_PORT" ;;
esac

export KILN_TEST_COMPILE_LOG=$dir/calls.txt KILN_TEST_DELAY=0.4
for run in a b; do
  "$kiln" precompile --cache-dir "$dir/$run" --remote "$remote" -j 2 \
    "$dir/graphs" "$version" --compiler-cmd "$fake slow {input} {output}" \
    --report "$dir/$run.json" > "$dir/$run.txt" 2>&1 &
  eval "pid_$run=$!"
done
wait $pid_a; echo "first run: exit $?"
wait $pid_b; echo "second run: exit $?"
echo "compilations: $(wc -l < "$dir/calls.txt")"
"$python" - "$dir/a.json" "$dir/b.json" <<'PY'
import json, sys
compiled = 0
for path in sys.argv[1:]:
    for graph in json.load(open(path))["graphs"]:
        compiled += graph["status"] == "compiled"
        assert graph["status"] in ("compiled", "compiled-elsewhere", "cached"), graph
print("compiled in the reports:", compiled)
PY
for run in a b; do
  "$kiln" cache check --require-all --cache-dir "$dir/$run" "$dir/graphs" "$version" |
    grep '^Cache hits'
done
cat "$dir/a.txt" "$dir/b.txt" | grep -c 'warning' || true
