#!/bin/bash
# remote-tier.sh KILN DIR KIND: one remote tier's life, the same for every
# backend (KIND: file, redis, http), printing what FileCheck checks. The
# servers are started here, on free loopback ports, and stopped at exit.
kiln=$1 dir=$2 kind=$3
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/remote-servers.sh" "$dir/servers"
sh "$inputs/../../Driver/Inputs/make-graphs.sh" "$dir/graphs" 3
g1=$dir/graphs/g1.hlo g2=$dir/graphs/g2.hlo g3=$dir/graphs/g3.hlo
unset KILN_REMOTE_STORAGE KILN_COMPILER_VERSION_CMD
export XDG_CONFIG_HOME=$dir/config

case $kind in
file)
  remote="file:$dir/shared"
  corrupt() { mkdir -p "$dir/shared/${1:0:2}"; printf 'garbage' > "$dir/shared/${1:0:2}/$1"; }
  ;;
redis)
  start_redis
  remote="redis://127.0.0.1:$REDIS_PORT"
  corrupt() { redis-cli -p "$REDIS_PORT" SET "kiln:a:$1" garbage > /dev/null; }
  ;;
http)
  echo "s3cret" > "$dir/token"
  start_nginx s3cret
  remote="http://127.0.0.1:$HTTP_PORT/cache|bearer-token-file=$dir/token"
  corrupt() { printf 'garbage' > "$dir/servers/nginx/www/cache/$1"; }
  ;;
esac

key_of() { "$kiln" hash "$1" | awk '{print $2}'; }
k1=$(key_of "$g1") k2=$(key_of "$g2") k3=$(key_of "$g3")

echo "== precompile writes through"
"$kiln" precompile --cache-dir "$dir/a" --remote "$remote" "$g1" "$g2" 2>&1 |
  grep -E '^Total (graphs|successful)|warning'

echo "== a fresh cache finds them in the remote, verified, not copied"
"$kiln" cache check --cache-dir "$dir/b" --remote "$remote" "$g1" "$g2" |
  sed "s|$dir|DIR|g; s|$k1|K1|; s|$k2|K2|"
"$kiln" cache ls --cache-dir "$dir/b" | tail -1 | sed "s|$dir|DIR|g"

echo "== --fetch copies them into the local cache"
"$kiln" cache check --fetch --cache-dir "$dir/b" --remote "$remote" "$g1" "$g2" |
  grep -E '^Remote hits'
"$kiln" cache check --require-all --cache-dir "$dir/b" "$g1" "$g2" | grep -E '^Cache hits'

echo "== a precompile on another cache compiles nothing"
"$kiln" precompile --cache-dir "$dir/c" --remote "$remote" "$g1" "$g2" 2>&1 |
  grep -E '^Total successful|^Cache hits'
"$kiln" cache get --cache-dir "$dir/c" "$g1" -o "$dir/g1.artifact" | sed "s|$dir|DIR|g; s|$k1|K1|"

echo "== garbage under a key is a miss, never copied"
corrupt "$k3"
"$kiln" cache check --fetch --cache-dir "$dir/d" --remote "$remote" "$g3" 2>&1 |
  sed "s|$dir|DIR|g; s|$k3|K3|g" | grep -E 'warning|^miss|^Cache hits'
"$kiln" cache ls --cache-dir "$dir/d" | tail -1 | sed "s|$dir|DIR|g"
"$kiln" cache rm --cache-dir "$dir/d" --remote "$remote" "$k3" | sed "s|$k3|K3|g"

echo "== a read-only tier is read, never written"
"$kiln" precompile --cache-dir "$dir/e" --remote "$remote|read-only" "$g1" "$g3" 2>&1 |
  grep -E '^Total successful|^Cache hits'
"$kiln" cache check --cache-dir "$dir/f" --remote "$remote" "$g3" | grep -E '^Cache hits'

echo "== push and pull"
"$kiln" cache push --all --cache-dir "$dir/e" --remote "$remote" | tail -1
"$kiln" cache check --cache-dir "$dir/f" --remote "$remote" "$g3" | grep -E '^Cache hits'
if [ "$kind" = http ]; then
  "$kiln" cache pull --cache-dir "$dir/g" --remote "$remote" "$g1" "$g2" "$g3" | tail -1
else
  "$kiln" cache pull --all --cache-dir "$dir/g" --remote "$remote" | tail -1
fi
"$kiln" cache check --require-all --cache-dir "$dir/g" "$g1" "$g2" "$g3" | grep -E '^Cache hits'

echo "== a failure recorded in the remote"
echo "it broke" > "$dir/log.txt"
"$kiln" cache put --failed --log "$dir/log.txt" --option opt-level=1 \
  --cache-dir "$dir/h" --remote "$remote" "$g1" > /dev/null
"$kiln" cache check --option opt-level=1 --cache-dir "$dir/i" --remote "$remote" "$g1" |
  sed "s|$dir|DIR|g; s|[0-9a-f]\{32\}|KEY|" | grep -E '^failed'

echo "== rm removes it everywhere"
"$kiln" cache rm --cache-dir "$dir/b" --remote "$remote" "$g2" | sed "s|$k2|K2|g; s|$dir|DIR|g"
"$kiln" cache check --cache-dir "$dir/j" --remote "$remote" "$g2" | grep -E '^Cache misses'

echo "== stats count per tier"
"$kiln" cache stats --cache-dir "$dir/b" | grep '^Remote tier' | sed "s|$dir|DIR|g"

echo "== a dry run without a local cache sees the remote"
"$kiln" precompile --dry-run --cache-dir "$dir/k" --remote "$remote" "$g1" 2>/dev/null |
  sed "s|$dir|DIR|g; s|$k1|K1|"
ls "$dir/k" 2>&1 | grep -c 'No such file'
