#!/bin/bash
# shared-work-dir.sh KILN DIR: a second precompile started on the work
# directory of one that runs. Prints what work-dir-links.test checks.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
sh "$inputs/make-graphs.sh" "$dir/graphs" 1
export KILN_TEST_DELAY=2 KILN_TEST_COMPILE_LOG=$dir/compiles
"$kiln" precompile --cache-dir "$dir/cache" --work-dir "$dir/work" \
  "$dir/graphs" --compiler-version-cmd "echo fake 1" \
  --compiler-cmd "sh $inputs/fake-compiler.sh slow {input} {output}" \
  > "$dir/first.out" 2>&1 &
first=$!
for _ in $(seq 250); do [ -s "$dir/compiles" ] && break; sleep 0.02; done
"$kiln" precompile --cache-dir "$dir/cache" --work-dir "$dir/work" \
  "$dir/graphs" --compiler-version-cmd "echo fake 1" \
  --compiler-cmd "sh $inputs/fake-compiler.sh slow {input} {output}" \
  > "$dir/second.out" 2>&1
echo "second run: exit $?"
cat "$dir/second.out"
wait $first
echo "first run: exit $?"
