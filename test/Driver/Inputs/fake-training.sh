#!/bin/sh
# A stand-in for a training script run by kiln precompile: it writes its
# graphs where XLA_FLAGS says, named as XLA names its dumps (with the
# optimized module and a buffer assignment beside each, which are not
# graphs to compile), one with odd characters in its name; then, by MODE,
# finishes (ok), crashes halfway (crash), fails (fail) or, having dumped
# two graphs, starts a process of its own that never ends and waits for it
# (hang; its pid goes to $KILN_TEST_PID_FILE); or, having dumped two
# graphs, exits leaving a process of its own (setsid, in a double fork)
# that dumps the third a second later (linger), or that never ends
# (linger-forever; its pid goes to $KILN_TEST_PID_FILE).
mode=$1
echo "XLA_FLAGS=$XLA_FLAGS"
echo "KILN_EXTRACT_ONLY=$KILN_EXTRACT_ONLY"
dump=$(echo "$XLA_FLAGS" | sed -n 's/.*--xla_dump_to=\([^ ]*\).*/\1/p')
inputs=$(dirname "$0")
write() {
  name="$dump/module_000$1.$2"
  sed "s/constant(1)/constant($1)/" "$inputs/add.hlo" > "$name.before_optimizations.txt"
  echo "HloModule optimized" > "$name.after_optimizations.txt"
  echo "buffer assignment" > "$name.after_optimizations-buffer-assignment.txt"
}
write 1 SyncTensorsGraph.11
write 2 "jit_step(x) [ünï cødé]"
case $mode in
  crash) kill -SEGV $$ ;;
  fail) exit 3 ;;
  linger)
    ( setsid sh -c "sleep 1; sh '$inputs/fake-training.sh' late" > /dev/null & )
    exit 0 ;;
  linger-forever)
    ( setsid sh -c 'echo $$ > "$KILN_TEST_PID_FILE"; exec sleep 600' & )
    for _ in $(seq 250); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.02; done
    exit 0 ;;
  late)
    write 3 SyncTensorsGraph.13
    exit 0 ;;
  hang)
    sleep 600 &
    echo $! > "$KILN_TEST_PID_FILE"
    wait
    ;;
esac
write 3 SyncTensorsGraph.13
# The same graph dumped twice (a second step): one compilation.
write 3 SyncTensorsGraph.14
