#!/bin/bash
# signed-tier.sh KILN DIR KIND: a remote tier (KIND: file, redis, http)
# written by an attacker, read by nodes that trust one key. Four entries
# reach the tier, one of each kind of bad: unsigned, signed by a key that
# is not trusted, signed by a forged key under the trusted key's name, and
# carrying a trusted signature made over other bytes. Each is refused,
# counted, never copied and never run; the trusted signer's own entries
# are hits. Prints what signed-tier.check checks.
kiln=$1 dir=$2 kind=$3
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
. "$inputs/remote-servers.sh" "$dir/servers"
unset KILN_REMOTE_STORAGE KILN_SIGNING_KEY KILN_TRUSTED_KEYS KILN_REQUIRE_SIGNATURES
unset KILN_COMPILER_VERSION_CMD
export XDG_CONFIG_HOME=$dir/config
g1=$inputs/mlp.hlo g2=$inputs/mlp-changed.hlo
forge=$inputs/forge-entry.py

case $kind in
file) remote="file:$dir/shared" ;;
redis) start_redis; remote="redis://127.0.0.1:$REDIS_PORT" ;;
http) start_nginx; remote="http://127.0.0.1:$HTTP_PORT/cache" ;;
esac

"$kiln" cache keygen alpha -o "$dir/alpha.key" > "$dir/alpha.pub" 2> /dev/null
"$kiln" cache keygen beta -o "$dir/beta.key" > "$dir/beta.pub" 2> /dev/null
# The attacker's own key, under the trusted key's name.
"$kiln" cache keygen alpha -o "$dir/forged.key" > /dev/null 2>&1
alpha=$(cat "$dir/alpha.pub")
key_of() { "$kiln" hash "$@" | awk '{print $2}'; }
object_of() { echo "$1/objects/${2:0:2}/$2"; }

# Four keys of one graph (opt-level 0..3), one bad entry each.
"$kiln" compile "$g1" --option opt-level=0 --cache-dir "$dir/w0" \
  --remote "$remote" > /dev/null 2>&1
"$kiln" compile "$g1" --option opt-level=1 --cache-dir "$dir/w1" \
  --remote "$remote" --signing-key "$dir/beta.key" > /dev/null 2>&1
"$kiln" compile "$g1" --option opt-level=2 --cache-dir "$dir/w2" \
  --remote "$remote" --signing-key "$dir/forged.key" > /dev/null 2>&1
# A valid signature by alpha, of another entry, copied onto this one.
"$kiln" compile "$g1" --option opt-level=3 --cache-dir "$dir/w3" > /dev/null 2>&1
"$kiln" compile "$g2" --option opt-level=3 --cache-dir "$dir/w3" \
  --signing-key "$dir/alpha.key" > /dev/null 2>&1
k3=$(key_of "$g1" --option opt-level=3)
other=$(key_of "$g2" --option opt-level=3)
python3 "$forge" copy-signatures "$(object_of "$dir/w3" "$other")" \
  "$(object_of "$dir/w3" "$k3")"
"$kiln" cache push --cache-dir "$dir/w3" --remote "$remote" "$k3" > /dev/null

echo "== without trusted keys, all four are hits"
for level in 0 1 2 3; do
  "$kiln" cache check --cache-dir "$dir/plain" --remote "$remote" "$g1" \
    --option opt-level=$level | head -1 | awk '{print $1}'
done

echo "== trusting alpha, each is an untrusted miss"
for level in 0 1 2 3; do
  "$kiln" cache check --cache-dir "$dir/node" --remote "$remote" --fetch \
    --trusted-key "$alpha" "$g1" --option opt-level=$level 2>&1 |
    grep -E '^(miss|hit)|warning' | sed -e "s|$dir||g"
done
echo "== nothing was copied"
"$kiln" cache ls --cache-dir "$dir/node" | tail -n +2 | wc -l
echo "== pull says why it copied nothing"
"$kiln" cache pull --cache-dir "$dir/node" --remote "$remote" \
  --trusted-key "$alpha" "$g1" --option opt-level=1 2> /dev/null | head -1 |
  sed -e "s|$dir||g"
echo "== get refuses, exit 1"
"$kiln" cache get --cache-dir "$dir/node" --remote "$remote" \
  --trusted-key "$alpha" "$g1" --option opt-level=3 -o "$dir/got" 2> /dev/null
echo "exit $?"
test -e "$dir/got" && echo "written" || echo "not written"
echo "== counted"
"$kiln" cache stats --cache-dir "$dir/node" | grep -E '^Misses|^Remote tier' |
  sed -e "s|$dir||g"

echo "== the same through the settings: KILN_TRUSTED_KEYS, explain"
KILN_TRUSTED_KEYS="$alpha" "$kiln" cache explain --cache-dir "$dir/node" \
  --remote "$remote" "$g1" --option opt-level=1 2> /dev/null
echo "exit $?"

echo "== precompile compiles them again, signed, and replaces them"
"$kiln" precompile --cache-dir "$dir/builder" --remote "$remote" \
  --trusted-key "$alpha" --signing-key "$dir/alpha.key" \
  --option opt-level=2 "$g1" 2>&1 | grep -E '^Total (graphs|successful)'
"$kiln" cache check --cache-dir "$dir/node2" --remote "$remote" --fetch \
  --trusted-key "$alpha" "$g1" --option opt-level=2 | head -1 |
  sed -e "s|$dir||g"
echo "== the fetched copy keeps its signature: require-signatures all"
"$kiln" cache check --cache-dir "$dir/node2" --trusted-key "$alpha" \
  --require-signatures all "$g1" --option opt-level=2 | head -1 | awk '{print $1}'
