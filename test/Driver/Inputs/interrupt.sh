#!/bin/bash
# interrupt.sh KILN DIR: kiln precompile ended by SIGINT and SIGTERM while
# a worker runs, and by SIGKILL: what it leaves behind. Prints what
# interrupt.test checks.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir/tmp"
export TMPDIR=$dir/tmp
sh "$inputs/make-graphs.sh" "$dir/graphs" 1
export KILN_TEST_PID_FILE=$dir/worker.pid

# Starts a precompile whose worker holds until killed; waits for the worker.
start() {
  rm -f "$KILN_TEST_PID_FILE"
  "$kiln" precompile --cache-dir "$dir/cache" "$dir/graphs" \
    --compiler-version-cmd "echo fake 1" \
    --compiler-cmd "sh $inputs/fake-compiler.sh hold {input} {output}" \
    > "$dir/out" 2> "$dir/err" &
  pid=$!
  for _ in $(seq 200); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.05; done
}
left() { find "$dir/tmp" -maxdepth 1 -name 'kiln-precompile-*' | wc -l; }
# Whether a process runs (a zombie that no one reaped yet does not).
running() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
  [ -n "$state" ] && [ "$state" != Z ]
}

for signal in INT TERM; do
  echo "== SIG$signal"
  start
  echo "temporary directories while it runs: $(left)"
  kill -$signal $pid
  wait $pid
  echo "exit $?"
  grep -o 'kiln precompile: interrupted.*' "$dir/err"
  echo "temporary directories left: $(left)"
  sleep 0.2
  running "$(cat "$KILN_TEST_PID_FILE")" && echo "worker alive" || echo "worker gone"
done

echo "== SIGKILL, then another run"
start
kill -KILL $pid
wait $pid 2>/dev/null
echo "temporary directories left: $(left)"
"$kiln" precompile --dry-run --cache-dir "$dir/cache" "$dir/graphs" \
  --compiler-version-cmd "echo fake 1" > /dev/null 2>&1
echo "after the next run: $(left)"
