#!/bin/bash
# escapees.sh KILN DIR: processes that leave their compiler's process group
# and parent (setsid in a double fork) end with their graph, however it
# ends (compiled, failed, timed out, precompile interrupted or killed);
# what a training command leaves running is waited for, its late dumps
# compiled, and what runs past the limit ended. Prints what
# descendants.test checks.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
sh "$inputs/make-graphs.sh" "$dir/graphs" 1
export KILN_TEST_PID_FILE=$dir/escapee.pid

# Whether a process runs (a zombie that no one reaped yet does not), after
# giving it a moment to be ended.
report() {
  local pid state
  pid=$(cat "$KILN_TEST_PID_FILE" 2>/dev/null)
  [ -n "$pid" ] || { echo "no escapee started"; return; }
  for _ in $(seq 100); do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    { [ -z "$state" ] || [ "$state" = Z ]; } && { echo "escapee gone"; return; }
    sleep 0.05
  done
  echo "escapee alive"
  kill -KILL "$pid"
}

precompile() {
  rm -f "$KILN_TEST_PID_FILE"
  timeout 120 "$kiln" precompile --cache-dir "$dir/cache-$1" "$dir/graphs" \
    --compiler-version-cmd "echo fake 1" \
    --compiler-cmd "sh $inputs/fake-compiler.sh $1 {input} {output}" "${@:2}" \
    > "$dir/out" 2> "$dir/err"
  echo "exit $?"
}

for mode in ok fail; do
  echo "== escape-$mode"
  precompile escape-$mode
  grep -o 'Total failed compilations: .*' "$dir/out"
  report
done
echo "== escape-hang, --timeout 1"
precompile escape-hang --timeout 1
grep -o 'timed out.*' "$dir/err" | head -n 1
report
echo "== the log says what was ended"
precompile escape-fail --retry-failed
key=$(grep -o 'log: kiln cache log [0-9a-f]*' "$dir/out" | head -n 1 | awk '{print $5}')
"$kiln" cache log --cache-dir "$dir/cache-escape-fail" "$key" |
  grep -o 'kiln: ended .*'

for signal in INT KILL; do
  echo "== escape-hang, precompile ended by SIG$signal"
  rm -f "$KILN_TEST_PID_FILE"
  "$kiln" precompile --cache-dir "$dir/cache-$signal" "$dir/graphs" \
    --compiler-version-cmd "echo fake 1" \
    --compiler-cmd "sh $inputs/fake-compiler.sh escape-hang {input} {output}" \
    > "$dir/out" 2> "$dir/err" &
  pid=$!
  for _ in $(seq 250); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.02; done
  kill -$signal $pid
  wait $pid 2>/dev/null
  report
done

echo "== a training command's child, precompile ended by SIGTERM"
rm -f "$KILN_TEST_PID_FILE"
"$kiln" precompile --cache-dir "$dir/cache-command" \
  -- sh "$inputs/fake-training.sh" hang > "$dir/out" 2> "$dir/err" &
pid=$!
for _ in $(seq 250); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.02; done
kill -TERM $pid
wait $pid 2>/dev/null
report

echo "== a training command's late dumps"
timeout 120 "$kiln" precompile --cache-dir "$dir/cache-late" \
  -- sh "$inputs/fake-training.sh" linger > "$dir/out" 2> "$dir/err"
echo "exit $?"
grep -o 'kiln precompile: the training command left.*' "$dir/err" |
  sed 's/([a-z]* (pid [0-9]*))/(NAME (pid N))/'
grep -o 'kiln precompile: it ended after.*' "$dir/err" | sed 's/[0-9.]* s$/T s/'
grep -o 'the training command dumped .* graphs' "$dir/err"
grep 'Total graphs' "$dir/out"

echo "== a training command's process that never ends"
rm -f "$KILN_TEST_PID_FILE"
timeout 120 "$kiln" precompile --cache-dir "$dir/cache-forever" \
  --command-timeout 2 -- sh "$inputs/fake-training.sh" linger-forever \
  > "$dir/out" 2> "$dir/err"
echo "exit $?"
grep -o 'kiln precompile: the training command left.*' "$dir/err" |
  sed 's/pid [0-9]*/pid N/; s/up to [0-9.]* s/up to T s/'
grep -o 'kiln precompile: warning: ended.*' "$dir/err" | sed 's/pid [0-9]*/pid N/'
report
