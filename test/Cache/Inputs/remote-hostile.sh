#!/bin/bash
# remote-hostile.sh KILN DIR: remote tiers holding what kiln never wrote,
# and settings meant to mislead; each case once found misbehaving. Prints
# what FileCheck checks.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/remote-servers.sh" "$dir/servers"
sh "$inputs/../../Driver/Inputs/make-graphs.sh" "$dir/graphs" 2
g1=$dir/graphs/g1.hlo g2=$dir/graphs/g2.hlo
unset KILN_REMOTE_STORAGE KILN_COMPILER_VERSION_CMD
export XDG_CONFIG_HOME=$dir/config
k1=$("$kiln" hash "$g1" | awk '{print $2}') k2=$("$kiln" hash "$g2" | awk '{print $2}')
s1=${k1:0:2} s2=${k2:0:2}
mask() { sed -E "s|$dir|DIR|g; s|$k1|K1|g; s|$k2|K2|g; s/:[0-9]{4,5}/:PORT/g"; }
start_redis

echo "== precompile compiles past an invalid remote entry, and replaces it"
mkdir -p "$dir/bad/$s1" && echo garbage > "$dir/bad/$s1/$k1"
timeout 120 "$kiln" precompile --cache-dir "$dir/p" --remote "file:$dir/bad" "$g1" 2>&1 |
  mask | grep -E 'warning|^Total successful'
echo "exit ${PIPESTATUS[0]}"
"$kiln" cache check --cache-dir "$dir/p2" --remote "file:$dir/bad" "$g1" | grep '^Remote hits'

echo "== a FIFO or a directory where an entry should be is that entry's miss"
mkdir -p "$dir/fifo/$s1" "$dir/fifo/$s2/$k2"
mkfifo "$dir/fifo/$s1/$k1"
timeout 60 "$kiln" cache check --fetch --cache-dir "$dir/f" --remote "file:$dir/fifo" "$g1" "$g2" 2>&1 |
  mask | grep -E 'warning|^Cache misses'
echo "exit ${PIPESTATUS[0]}"

echo "== an entry larger than any may be is not read"
rm -rf "$dir/fifo/$s1/$k1" && truncate -s 9G "$dir/fifo/$s1/$k1"
"$kiln" cache check --fetch --cache-dir "$dir/f2" --remote "file:$dir/fifo" "$g1" 2>&1 |
  mask | grep -E 'warning|^Cache misses'

echo "== Redis: another kind of value under one key does not end the tier"
"$kiln" compile "$g2" -o "$dir/g2.art" 2> /dev/null
"$kiln" cache put --cache-dir "$dir/r" --remote "redis://127.0.0.1:$REDIS_PORT" "$g2" "$dir/g2.art" > /dev/null
redis-cli -p "$REDIS_PORT" RPUSH "kiln:a:$k1" x > /dev/null
"$kiln" cache check --cache-dir "$dir/r2" --remote "redis://127.0.0.1:$REDIS_PORT" "$g1" "$g2" 2>&1 |
  mask | grep -E 'warning|^Cache hits|^Remote hits'

echo "== push says what it could not push"
port=$(free_port)
"$kiln" cache push --all --cache-dir "$dir/r" --remote "redis://127.0.0.1:$port" 2>&1 | mask | tail -2
echo "exit ${PIPESTATUS[0]}"
"$kiln" cache push --all --cache-dir "$dir/r" --remote "file:$dir/ro|read-only" 2>&1 | mask
echo "exit ${PIPESTATUS[0]}"

echo "== pull --all with a tier down pulls from the others"
"$kiln" cache pull --all --cache-dir "$dir/pl" --remote "redis://127.0.0.1:$port" \
  --remote "file:$dir/bad" 2>&1 | mask | grep -E 'warning|^Pulled'
echo "exit ${PIPESTATUS[0]}"

echo "== passwords are never shown"
"$kiln" cache check --cache-dir "$dir/pw" --remote "redis://:s3cret@127.0.0.1:$REDIS_PORT|expire=abc" "$g1" 2>&1 | mask
"$kiln" cache check --cache-dir "$dir/pw" --remote "redis://s3cret@127.0.0.1:$port" "$g1" 2>&1 | mask | grep warning
"$kiln" cache check --cache-dir "$dir/pw" --remote "http://bob:s3cret@127.0.0.1:$port/x" "$g1" 2>&1 | mask | grep warning
"$kiln" cache stats --cache-dir "$dir/pw" | mask | grep '^Remote tier'
"$kiln" cache config "remote-storage=redis://:pa#ss@127.0.0.1:$REDIS_PORT" --cache-dir "$dir/pw" | mask
cat "$dir/pw/kiln.conf" | mask
"$kiln" cache config "$(printf 'target=x\ncompiler-cmd=touch {output}')" --cache-dir "$dir/pw" 2>&1 | mask
echo "exit ${PIPESTATUS[0]}"

echo "== a path with a space, from --remote and percent-encoded in a file"
"$kiln" compile "$g1" -o "$dir/g1.art" 2> /dev/null
"$kiln" cache put --cache-dir "$dir/sp" --remote "file:$dir/my shared" "$g1" "$dir/g1.art" > /dev/null
ls "$dir/my shared" | grep -c "$s1"
printf '\xef\xbb\xbfremote-storage = file:%s/my%%20shared\n' "$dir" > "$dir/sp2.conf"
mkdir -p "$dir/sp2" && cp "$dir/sp2.conf" "$dir/sp2/kiln.conf"
"$kiln" cache check --cache-dir "$dir/sp2" "$g1" | grep '^Remote hits'

echo "== a lease that claims to last for years is no lease"
mkdir -p "$dir/lease/$s1"
echo "otherhost 1 tok 99999999999999" > "$dir/lease/$s1/$k1.lease"
timeout 120 "$kiln" precompile --cache-dir "$dir/l" --remote "file:$dir/lease" "$g1" 2>&1 |
  grep -E '^Total successful'
echo "exit ${PIPESTATUS[0]}"
redis-cli -p "$REDIS_PORT" SET "lease:l:$k2" forever > /dev/null
timeout 120 "$kiln" precompile --cache-dir "$dir/l2" --remote "redis://127.0.0.1:$REDIS_PORT|prefix=lease:" "$g2" 2>&1 |
  grep -E '^Total successful|^Cache hits'
echo "exit ${PIPESTATUS[0]}"

echo "== URLs that cannot work are usage errors"
for url in 'http:///x' 'http://h:99999/x' 'redis://h/-1' 'file:///'; do
  "$kiln" cache check --cache-dir "$dir/u" --remote "$url" "$g1" 2>&1 | mask
  echo "exit ${PIPESTATUS[0]}"
done
