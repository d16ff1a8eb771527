#!/bin/sh
# make-graphs.sh DIR N: N graphs, DIR/g1.hlo ... DIR/gN.hlo, that differ in
# one constant (so each has its own key).
dir=$1 count=$2
mkdir -p "$dir"
i=1
while [ "$i" -le "$count" ]; do
  sed "s/constant(1)/constant($i)/" "$(dirname "$0")/add.hlo" > "$dir/g$i.hlo"
  i=$((i + 1))
done
