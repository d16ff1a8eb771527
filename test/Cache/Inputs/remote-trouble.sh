#!/bin/bash
# remote-trouble.sh KILN DIR: remote tiers in trouble cost a warning, never
# the command: a server killed in the middle of a precompile, a listener
# that accepts and never answers, a refused connection, a full file tier.
# Prints what FileCheck checks.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
driver=$inputs/../../Driver/Inputs
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/remote-servers.sh" "$dir/servers"
sh "$driver/make-graphs.sh" "$dir/graphs" 4
unset KILN_REMOTE_STORAGE
export XDG_CONFIG_HOME=$dir/config
fake="sh $driver/fake-compiler.sh"
version="--compiler-version-cmd=echo fake 1"

echo "== the Redis server killed in the middle of a precompile"
start_redis
export KILN_TEST_DELAY=0.5 KILN_TEST_PID_FILE=$dir/started
"$kiln" precompile --cache-dir "$dir/killed" -j 1 "$dir/graphs" "$version" \
  --remote "redis://127.0.0.1:$REDIS_PORT" \
  --compiler-cmd "$fake slow {input} {output}" > "$dir/killed.txt" 2>&1 &
run=$!
# The first graph is written through while the server lives; then it dies.
for _ in $(seq 200); do
  [ "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'kiln:a:*' | wc -l)" -ge 1 ] && break
  sleep 0.05
done
kill -9 "$REDIS_PID"
wait "$run"; echo "exit $?"
sed "s/[0-9][0-9]*/N/g" "$dir/killed.txt" | grep -E 'warning: remote|^Total (graphs|successful|failed)' | sort -u
"$kiln" cache check --require-all --cache-dir "$dir/killed" "$dir/graphs" "$version" | grep '^Cache hits'

echo "== a listener that never answers"
start_silent
for url in "redis://127.0.0.1:$SILENT_PORT|operation-timeout=300" \
           "http://127.0.0.1:$SILENT_PORT/c|operation-timeout=300"; do
  start=$(date +%s%N)
  "$kiln" cache check --cache-dir "$dir/silent" --remote "$url" "$dir/graphs" "$version" \
    > "$dir/silent.txt" 2>&1
  status=$?
  elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "exit $status"
  grep -c 'warning: remote tier' "$dir/silent.txt"
  grep -o 'warning: remote tier [a-z]*://.*' "$dir/silent.txt" | sed -E "s/:[0-9]+/:PORT/g; s/[0-9a-f]{32}/KEY/"
  grep -E '^Cache misses' "$dir/silent.txt"
  # Every call ends within its timeout: one warning, then the tier is
  # skipped, so the whole check takes about one timeout, not one per graph.
  [ "$elapsed" -lt 10000 ] && echo "ended in time" || echo "took $elapsed ms"
done
"$kiln" cache stats --cache-dir "$dir/silent" | grep '^Remote tier' | sed -E "s/:[0-9]+/:PORT/g"

echo "== nothing listens"
port=$(free_port)
"$kiln" precompile --cache-dir "$dir/refused" "$dir/graphs/g1.hlo" "$version" \
  --remote "redis://127.0.0.1:$port" --compiler-cmd "$fake ok {input} {output}" \
  2>&1 | sed "s/:$port/:PORT/" | grep -E 'warning: remote|^Total successful'
echo "exit ${PIPESTATUS[0]}"

echo "== a full file tier"
if mkdir -p "$dir/full" && mount -t tmpfs -o size=64k tmpfs "$dir/full" 2>/dev/null; then
  head -c 100000 /dev/zero > "$dir/big.bin"
  "$kiln" cache put --cache-dir "$dir/putfull" --remote "file:$dir/full" \
    "$dir/graphs/g2.hlo" "$dir/big.bin" "$version" 2>&1 | sed "s|$dir|DIR|g; s/ [0-9a-f]\{32\} / KEY /"
  echo "exit ${PIPESTATUS[0]}"
  "$kiln" cache check --require-all --cache-dir "$dir/putfull" "$dir/graphs/g2.hlo" "$version" | grep '^Cache hits'
  echo "temporaries left: $(find "$dir/full" -name ".tmp-*" | wc -l)"
  umount "$dir/full"
else
  echo "no tmpfs"
fi
