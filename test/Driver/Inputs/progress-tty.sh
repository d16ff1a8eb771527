#!/bin/bash
# progress-tty.sh KILN DIR: runs kiln precompile under a pseudo-terminal
# (a tmux pane) and prints what the screen showed: the live line while it
# ran, and the screen at the end.
kiln=$1 dir=$2
inputs=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
sh "$inputs/make-graphs.sh" "$dir/graphs" 4
socket="kiln-progress-$$"
command="KILN_TEST_DELAY=0.5 $kiln precompile --cache-dir $dir/cache -j 2"
command+=" $dir/graphs --compiler-version-cmd 'echo fake 1'"
command+=" --compiler-cmd 'sh $inputs/fake-compiler.sh slow {input} {output}'"
tmux -L "$socket" new-session -d -x 150 -y 30 "$command; echo EXIT=\$?; sleep 60"
live=""
for _ in $(seq 300); do
  screen=$(tmux -L "$socket" capture-pane -p)
  # A frame while workers run (the first one is drawn before they start).
  if [ -z "$live" ] && echo "$screen" | grep -q ' [1-9] running.*ETA'; then
    live=$(echo "$screen" | grep ' [1-9] running.*ETA')
  fi
  echo "$screen" | grep -q 'EXIT=' && break
  sleep 0.05
done
echo "live: $live"
echo "--- screen at the end"
tmux -L "$socket" capture-pane -p | grep -v '^$'
tmux -L "$socket" kill-server
