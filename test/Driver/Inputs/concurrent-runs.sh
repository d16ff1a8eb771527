#!/bin/bash
# concurrent-runs.sh KILN PYTHON DIR: the scenarios of kiln precompile
# that need processes side by side, each printing what FileCheck checks.
kiln=$1 python=$2 dir=$3
inputs=$(cd "$(dirname "$0")" && pwd)
fake="sh $inputs/fake-compiler.sh"
version="--compiler-version-cmd=echo fake 1"
rm -rf "$dir" && mkdir -p "$dir"
sh "$inputs/make-graphs.sh" "$dir/graphs" 6

# Two runs at once on one cache: each graph is compiled once in total, and
# both end with every graph available.
export KILN_TEST_COMPILE_LOG=$dir/calls.txt KILN_TEST_DELAY=0.4
"$kiln" precompile --cache-dir "$dir/cache" -j 2 "$dir/graphs" "$version" \
  --compiler-cmd "$fake slow {input} {output}" --report "$dir/a.json" \
  > "$dir/a.txt" 2>&1 &
a=$!
"$kiln" precompile --cache-dir "$dir/cache" -j 2 "$dir/graphs" "$version" \
  --compiler-cmd "$fake slow {input} {output}" --report "$dir/b.json" \
  > "$dir/b.txt" 2>&1 &
b=$!
wait $a; echo "first run: exit $?"
wait $b; echo "second run: exit $?"
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
"$kiln" cache check --cache-dir "$dir/cache" --require-all "$dir/graphs" \
  "$version" | grep -c '^hit'
unset KILN_TEST_COMPILE_LOG

# A run killed mid-compile (its driver SIGKILLed) leaves a lease whose owner
# is dead: its worker dies with it, and the next run takes the lease over
# at once; nothing is cleared by hand.
export KILN_TEST_PID_FILE=$dir/worker.pid
"$kiln" precompile --cache-dir "$dir/kill" "$dir/graphs/g1.hlo" "$version" \
  --compiler-cmd "$fake hold {input} {output}" > "$dir/killed.txt" 2>&1 &
driver=$!
for _ in $(seq 200); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.05; done
worker=$(cat "$KILN_TEST_PID_FILE")
kill -9 $driver; wait $driver 2>/dev/null
echo "killed run: exit $?"
for _ in $(seq 100); do kill -0 "$worker" 2>/dev/null || break; sleep 0.05; done
kill -0 "$worker" 2>/dev/null && echo "its worker lives on" || echo "its worker is gone"
timeout 60 "$kiln" precompile --cache-dir "$dir/kill" "$dir/graphs/g1.hlo" \
  "$version" --compiler-cmd "$fake ok {input} {output}"
echo "next run: exit $?"

# A worker SIGKILLed mid-compile is a crash: --retries tries again.
rm -f "$KILN_TEST_PID_FILE"
export KILN_TEST_MARKER=$dir/marker
"$kiln" precompile --cache-dir "$dir/retry" "$dir/graphs/g2.hlo" "$version" \
  --retries 1 --compiler-cmd "$fake die-once {input} {output}" \
  --report "$dir/retry.json" > "$dir/retry.txt" 2>&1 &
driver=$!
for _ in $(seq 200); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.05; done
kill -9 "$(cat "$KILN_TEST_PID_FILE")"
wait $driver; echo "retried run: exit $?"
cat "$dir/retry.txt"
"$python" -c 'import json, sys; g = json.load(open(sys.argv[1]))["graphs"][0]; print("attempts:", g["attempts"], g["status"])' "$dir/retry.json"

# Without --retries, the killed worker's graph is failed, with its log.
rm -f "$KILN_TEST_PID_FILE" "$KILN_TEST_MARKER"
"$kiln" precompile --cache-dir "$dir/crash" "$dir/graphs/g3.hlo" "$version" \
  --compiler-cmd "$fake die-once {input} {output}" > "$dir/crash.txt" 2>&1 &
driver=$!
for _ in $(seq 200); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.05; done
kill -9 "$(cat "$KILN_TEST_PID_FILE")"
wait $driver; echo "crashed run: exit $?"
grep 'FAILED' "$dir/crash.txt"

# SIGTERM (or Ctrl-C) of the driver stops its workers and what they
# started; the next run takes the dead run's lease over.
rm -f "$KILN_TEST_PID_FILE"
"$kiln" precompile --cache-dir "$dir/term" "$dir/graphs/g4.hlo" "$version" \
  --compiler-cmd "$fake spawn {input} {output}" > "$dir/term.txt" 2>&1 &
driver=$!
for _ in $(seq 200); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.05; done
started=$(cat "$KILN_TEST_PID_FILE")
kill -TERM $driver; wait $driver
echo "terminated run: exit $?"
for _ in $(seq 100); do kill -0 "$started" 2>/dev/null || break; sleep 0.05; done
kill -0 "$started" 2>/dev/null && echo "what its worker started lives on" ||
  echo "what its worker started is gone"
timeout 60 "$kiln" precompile --cache-dir "$dir/term" "$dir/graphs/g4.hlo" \
  "$version" --compiler-cmd "$fake ok {input} {output}" | grep successful
"$kiln" cache stats --cache-dir "$dir/term" | grep 'in progress'
