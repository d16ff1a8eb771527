#!/bin/bash
# artifact-attacks.sh KILN DIR: what an attacker with write access to a
# cache tried against kiln, each now refused with a message, never a crash
# (an exit status, never a signal) and never run. Prints what
# artifact-attacks.test checks.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
unset KILN_REMOTE_STORAGE KILN_SIGNING_KEY KILN_TRUSTED_KEYS KILN_REQUIRE_SIGNATURES
unset KILN_COMPILER_VERSION_CMD
export XDG_CONFIG_HOME=$dir/config
g1=$inputs/mlp.hlo g2=$inputs/mlp-changed.hlo
forge="python3 $inputs/forge-entry.py"
key_of() { "$kiln" hash "$@" | awk '{print $2}'; }
object_of() { echo "$1/objects/${2:0:2}/$2"; }
# An exit status, or the signal that ended it.
status() {
  "$@" > "$dir/out" 2>&1
  local code=$?
  if ((code > 128)); then echo "SIGNAL $((code - 128))"; else echo "exit $code"; fi
  sed -e "s|$dir||g" "$dir/out" |
    grep -E 'error|warning|miss|hit|refused|mismatch|consistent|recovered|untrusted|successful' |
    head -3
}
k1=$(key_of "$g1") k2=$(key_of "$g2")

"$kiln" cache keygen alpha -o "$dir/alpha.key" > "$dir/alpha.pub" 2> /dev/null
alpha=$(cat "$dir/alpha.pub")
"$kiln" compile "$g1" -o "$dir/g1.art" 2> /dev/null
"$kiln" compile "$g2" -o "$dir/g2.art" 2> /dev/null

echo "== put accepts only a kiln artifact built for the key"
printf 'any bytes' > "$dir/junk"
status "$kiln" cache put --cache-dir "$dir/c" "$g1" "$dir/junk"
status "$kiln" cache put --cache-dir "$dir/c" "$g1" "$dir/g2.art"
status "$kiln" cache put --cache-dir "$dir/c" "$g1" "$dir/g1.art" --option opt-level=1
echo "== an external compiler's artifacts stay opaque bytes"
status "$kiln" cache put --cache-dir "$dir/c" "$g1" "$dir/junk" --compiler-version-cmd "echo other 1"

echo "== a hand-built object that calls system(), put with --replace"
cat > "$dir/evil.s" <<ASM
  .text
  .globl kiln_entry
  .type kiln_entry,@function
kiln_entry:
  pushq %rax
  leaq command(%rip), %rdi
  callq system@PLT
  popq %rax
  retq
  .section .rodata
command:
  .asciz "touch $dir/pwned"
ASM
# With the record of the buffers the real entry takes: a well-formed object.
$forge buffer-record "$dir/g1.art" >> "$dir/evil.s"
llvm-mc -filetype=obj -triple=x86_64-unknown-linux-gnu "$dir/evil.s" -o "$dir/evil.o"
$forge pack "$dir/g1.art" "$dir/evil.o" "$dir/evil.art"
"$kiln" compile "$g1" --cache-dir "$dir/c" --signing-key "$dir/alpha.key" > /dev/null 2>&1
"$kiln" cache put --cache-dir "$dir/c" "$g1" "$dir/evil.art" --replace
echo "-- trusting alpha, the replaced entry is a miss and is not handed out"
status "$kiln" cache get --cache-dir "$dir/c" "$g1" -o "$dir/got" --signed \
  --trusted-key "$alpha" --require-signatures all
echo "-- nor run, bare or as an entry"
status "$kiln" run "$dir/evil.art" --trusted-key "$alpha"
"$kiln" cache get --cache-dir "$dir/c" "$g1" -o "$dir/evil.entry" --signed > /dev/null
status "$kiln" run "$dir/evil.entry" --trusted-key "$alpha"
test -e "$dir/pwned" && echo "system() ran" || echo "system() never ran"
echo "-- precompile compiles it again, signed"
"$kiln" precompile --cache-dir "$dir/c" --trusted-key "$alpha" \
  --require-signatures all --signing-key "$dir/alpha.key" "$g1" 2>&1 |
  grep -E '^Total (graphs|successful)'
status "$kiln" cache get --cache-dir "$dir/c" "$g1" -o "$dir/good.entry" --signed \
  --trusted-key "$alpha" --require-signatures all
status "$kiln" run "$dir/good.entry" --trusted-key "$alpha"

echo "== another graph's valid artifact copied over an entry, its row updated"
"$kiln" cache put --cache-dir "$dir/swap" "$g1" "$dir/g1.art" > /dev/null
"$kiln" cache put --cache-dir "$dir/swap" "$g2" "$dir/g2.art" > /dev/null
cp "$(object_of "$dir/swap" "$k2")" "$(object_of "$dir/swap" "$k1")"
python3 - "$dir/swap/index.db" "$k1" "$k2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
size, checksum = db.execute("SELECT size, checksum FROM entries WHERE key = ?",
                            (sys.argv[3],)).fetchone()
db.execute("UPDATE entries SET size = ?, checksum = ? WHERE key = ?",
           (size, checksum, sys.argv[2]))
db.commit()
PY
status "$kiln" cache verify --cache-dir "$dir/swap"
status "$kiln" cache get --cache-dir "$dir/swap" "$g1" -o "$dir/swapped"

echo "== a header nested 100000 levels deep, with a valid checksum"
"$kiln" cache put --cache-dir "$dir/deep" "$g1" "$dir/g1.art" > /dev/null
$forge deep-json "$(object_of "$dir/deep" "$k1")" 100000
# Each command meets the forged file (a copy of the cache each).
deep() { rm -rf "$dir/deep-$1"; cp -a "$dir/deep" "$dir/deep-$1"; echo "-- $1"; }
deep get; status "$kiln" cache get --cache-dir "$dir/deep-get" "$g1" -o "$dir/deep.art"
deep check; status "$kiln" cache check --cache-dir "$dir/deep-check" "$g1"
deep verify; status "$kiln" cache verify --cache-dir "$dir/deep-verify"
deep precompile; status "$kiln" precompile --cache-dir "$dir/deep-precompile" "$g1"
deep rebuild; status "$kiln" cache verify --cache-dir "$dir/deep-rebuild" --rebuild-index
echo "-- a header with 100 signatures"
"$kiln" cache put --cache-dir "$dir/sigs" "$g1" "$dir/g1.art" > /dev/null
$forge set-header "$(object_of "$dir/sigs" "$k1")" signatures "$(python3 -c 'print(["a:b"] * 100)' | tr "'" '"')"
status "$kiln" cache get --cache-dir "$dir/sigs" "$g1" -o "$dir/sigs.art"

echo "== crafted manifests: an error naming the field, exit 2"
for edit in output-bytes-small type-larger huge-input big-input deep \
    entry-abort negative-dim bad-type check-out-of-range graph-outputs; do
  $forge manifest "$dir/g1.art" "$dir/$edit.art" $edit
  echo "-- $edit"
  status "$kiln" run "$dir/$edit.art"
done

echo "== an allocation too big for the machine: an error naming its size"
cat > "$dir/big.hlo" <<'HLO'
HloModule big

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[4] parameter(0)
  b = f32[4,2000000000] broadcast(p), dimensions={0}
  e = f32[4,2000000000] exponential(b)
  t = f32[2000000000,4] transpose(e), dimensions={1,0}
  zero = f32[] constant(0)
  ROOT r = f32[4] reduce(t, zero), dimensions={0}, to_apply=add
}
HLO
"$kiln" compile "$dir/big.hlo" -o "$dir/big.art" 2> /dev/null
(ulimit -v 4000000; status "$kiln" run "$dir/big.art")
